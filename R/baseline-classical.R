# Fitting and fusion for the "ivw", "ppca" and "kalman" baselines of ncam_baseline().
# Fit functions take the training readings (rows x sensors) and return
# list(params, loglik, df, nobs, heywood); loglik, df and nobs are NULL when not defined,
# heywood names the sensors whose error variance had to be floored (predict() warns again).

# Three-cornered-hat (Grubbs) error variances: Var(b_j - b_k) = s_j^2 + s_k^2
# for every pair observed together, solved by (minimum-norm) least squares. Returns the
# variances and the names of the sensors whose variance was raised to the floor.
three_cornered_hat <- function(b, call = parent.frame()) {
  l <- ncol(b)
  pairs <- utils::combn(l, 2L)
  design <- matrix(0, ncol(pairs), l)
  v <- rep(NA_real_, ncol(pairs))
  for (p in seq_len(ncol(pairs))) {
    design[p, pairs[, p]] <- 1
    d <- b[, pairs[1, p]] - b[, pairs[2, p]]
    if (sum(!is.na(d)) >= 2L) v[p] <- stats::var(d, na.rm = TRUE)
  }
  keep <- !is.na(v)
  if (!any(keep)) {
    ncam_abort("No two sensors are observed together in at least 2 {.arg train} rows.", call = call)
  }
  design <- design[keep, , drop = FALSE]
  v <- v[keep]
  dec <- svd(design)
  tol <- max(dim(design)) * max(dec$d) * .Machine$double.eps
  pos <- dec$d > tol
  if (sum(pos) < l) {
    cli::cli_warn(c(
      "The pairwise differences do not identify every sensor's error variance.",
      i = if (l == 2L) "With two sensors the variance of their difference is split equally."
          else "Using the minimum-norm least-squares solution."
    ), call = call, class = c("ncam_warning_not_identified", "ncam_warning"))
  }
  s2 <- drop(dec$v[, pos, drop = FALSE] %*% (crossprod(dec$u[, pos, drop = FALSE], v) / dec$d[pos]))
  # The floor keeps the weights finite; a variance it had to raise is not an estimate. It is
  # relative, so that the fit does not depend on the units; the sensors' own variances set it
  # when every pairwise difference is constant.
  sensor_var <- apply(b, 2L, stats::var, na.rm = TRUE)
  least <- max(1e-6 * max(v), 1e-12 * max(sensor_var, na.rm = TRUE))
  heywood <- s2 < least
  if (any(heywood)) {
    cli::cli_warn(c("The error variance of sensor{?s} {.val {colnames(b)[heywood]}} is estimated at zero or below (a Heywood-like case): the variances of the pairwise differences imply a non-positive error variance.",
                    i = "{cli::qty(sum(heywood))}{?Its variance is/Their variances are} set to {signif(least, 3)}, so {cli::qty(sum(heywood))}{?its/their} weight and the intervals ({.code interval = \"credible\"}) are not trustworthy: the intervals are far too narrow.",
                    i = "Sensors with different gains or correlated errors do this; use {.code method = \"factor\"}, which estimates gains, or add sensors."),
                  class = c("ncam_warning_heywood", "ncam_warning"), call = call)
  }
  list(sensor_var = stats::setNames(pmax(s2, least), colnames(b)), heywood = colnames(b)[heywood])
}

# Inverse-variance weighted mean over each row's observed sensors.
ivw_combine <- function(b, s2) {
  obs <- !is.na(b)
  # Weights relative to the most precise sensor: 1 / s2 would overflow for readings in tiny units.
  w <- sweep(obs, 2L, min(s2) / s2, `*`)
  b0 <- b
  b0[!obs] <- 0
  total <- rowSums(w)
  pred <- rowSums(b0 * w) / total
  list(.pred = ifelse(total > 0, pred, NA_real_),
       .pred_sd = ifelse(total > 0, sqrt(min(s2) / total), NA_real_))
}

# Tipping & Bishop closed-form PPCA with one factor on the complete training
# rows, plus the OLS map of the latent mean onto the anchor sensor.
fit_ppca1 <- function(b, anchor, call = parent.frame()) {
  complete <- b[stats::complete.cases(b), , drop = FALSE]
  l <- ncol(b)
  n <- nrow(complete)
  if (n <= l) {
    ncam_abort(c("{.arg train} must contain more than {l} rows with every sensor observed for {.val ppca}.",
                 x = "It has {n}."), call = call)
  }
  constant <- colnames(b)[apply(complete, 2L, function(v) all(v == v[1]))]
  if (length(constant)) {
    ncam_abort(c("Sensor{?s} {.field {constant}} {?is/are} constant on the rows where every sensor reads: {.val ppca} has no common factor to find.",
                 i = "Leave {cli::qty(length(constant))}{?it/them} out, or use {.code method = \"mean\"}."), call = call)
  }
  mu <- colMeans(complete)
  centred <- sweep(complete, 2L, mu)
  scatter <- crossprod(centred) / n
  eig <- eigen(scatter, symmetric = TRUE)
  # A floor relative to the largest eigenvalue: an absolute one would swamp readings in tiny units.
  sigma2 <- max(mean(eig$values[-1]), 1e-12 * eig$values[1])
  u1 <- eig$vectors[, 1]
  # Orient the factor so that it increases with the readings.
  if (sum(u1) < 0) u1 <- -u1
  loadings <- stats::setNames(u1 * sqrt(max(eig$values[1] - sigma2, 0)), colnames(b))
  if (all(loadings == 0)) {
    ncam_abort(c("The complete {.arg train} rows vary equally in every direction: {.val ppca} has no common factor to find.",
                 i = "Sensors of one quantity vary together; check the columns, or use {.code method = \"mean\"}."), call = call)
  }
  params <- list(mu = mu, loadings = loadings, sigma2 = sigma2)

  z <- ppca1_latent(b, params)$mean
  used <- !is.na(b[, anchor])
  coef <- stats::lm.fit(cbind(1, z[used]), b[used, anchor])$coefficients
  if (anyNA(coef)) {
    ncam_abort("The PPCA factor is constant on the training rows; it cannot be mapped to {.arg anchor}.",
               call = call)
  }
  params$coef <- stats::setNames(coef, c("intercept", "slope"))

  # Gaussian log-likelihood of the complete rows under C = W W' + sigma2 I (mu = their mean).
  implied <- tcrossprod(loadings) + diag(sigma2, l)
  root <- chol(implied)
  loglik <- -0.5 * n * (l * log(2 * pi) + 2 * sum(log(diag(root))) + sum(chol2inv(root) * scatter))
  list(params = params, loglik = loglik, df = 2L * l + 1L, nobs = n)
}

# Latent posterior mean and variance given each row's observed readings; a row without
# readings gets the prior, N(0, 1).
ppca1_latent <- function(b, params) {
  obs <- !is.na(b)
  centred <- sweep(b, 2L, params$mu)
  centred[!obs] <- 0
  ww <- drop(obs %*% params$loadings^2)
  wb <- drop(centred %*% params$loadings)
  m <- params$sigma2 + ww
  list(mean = wb / m, var = params$sigma2 / m)
}

# Fused value on the anchor's scale: c0 + c1 z, sd |c1| sd(z).
ppca1_fuse <- function(b, params) {
  latent <- ppca1_latent(b, params)
  list(.pred = params$coef[[1]] + params$coef[[2]] * latent$mean,
       .pred_sd = abs(params$coef[[2]]) * sqrt(latent$var))
}

# Sensor variances, initial state and q (by grid search on the innovation
# log-likelihood) from the training rows `b`, visited in the order `visit`. With the rows'
# times `time` (in visiting order), q is the variance per typical step, the median time
# between consecutive rows, and a longer gap gets proportionally more.
fit_kalman_rw <- function(b, visit, time = NULL, call = parent.frame()) {
  variances <- three_cornered_hat(b, call = call)
  s2 <- variances$sensor_var
  init <- ivw_combine(b, s2)$.pred
  m0 <- mean(init, na.rm = TRUE)
  p0 <- stats::var(init, na.rm = TRUE)
  if (is.na(p0) || p0 <= 0) p0 <- mean(s2)
  q_grid <- p0 * 10^(seq(-48, 8) / 8)
  step <- if (length(time) >= 2L) stats::median(diff(time))
  ll <- kalman_rw_filter(b[visit, , drop = FALSE], s2, q_grid, m0, p0, steps = time_steps(time, step))$loglik
  best <- which.max(ll)
  list(params = list(sensor_var = s2, q = q_grid[best], m0 = m0, P0 = p0, step = step),
       loglik = ll[best], df = ncol(b) + 3L, heywood = variances$heywood)
}

# Without `order`, the "kalman" filter runs through the rows `rows` of `data` in row order, as one
# series: a time column whose times repeat there (sites stacked) has it run from one series into
# the next, silently. A warning naming the column (a Date or date-time column, or one named
# "date") and the first repeat, and what to give instead.
warn_kalman_row_order <- function(data, rows = seq_len(nrow(data)), data_arg = "data", call = parent.frame()) {
  times <- names(data)[vapply(data, function(v) inherits(v, c("Date", "POSIXt")), logical(1))]
  if ("date" %in% names(data) && is.atomic(data[["date"]])) times <- union("date", times)
  for (col in times) {
    key <- data[[col]][rows]
    if (inherits(key, "POSIXlt")) key <- as.POSIXct(key)
    repeated <- which(duplicated(key) & !is.na(key))
    if (!length(repeated)) next
    first <- match(key[repeated[1]], key)
    fit_each <- sprintf("lapply(split(%s, %s$site), function(d) ncam_baseline(..., d, \"kalman\", order = \"%s\"))", data_arg, data_arg, col)
    cli::cli_warn(c("Without {.arg order}, the {.val kalman} filter runs through the rows of {.arg {data_arg}} in row order, as one series, but column {.field {col}} repeats times: row {rows[repeated[1]]} has the time of row {rows[first]} ({format(key[first])}); {length(repeated)} row{?s} repeat{?s/} an earlier time.",
                    i = if (data_arg == "newdata") "Rows of several series (such as sites) are filtered as one. Predict one series at a time, such as {.code predict(fit, newdata[newdata$site == \"A\", ])}, and give {.arg order} at the fit." else
                      "Rows of several series (such as sites) are filtered as one. Fit each series on its own with {.code order = \"{col}\"}, such as {.code {fit_each}}."),
                  class = c("ncam_warning_kalman_row_order", "ncam_warning"), call = call)
    return(invisible())
  }
}

# Filtered means and sds of the rows of `b` visited in the order `visit`, in row order. Fits
# without a step (row order, text times, or saved before steps were kept) step by row.
kalman_rw_fuse <- function(b, params, visit) {
  kf <- kalman_rw_filter(b[visit, , drop = FALSE], params$sensor_var, params$q, params$m0,
                         params$P0, keep = TRUE, steps = time_steps(attr(visit, "time"), params$step))
  pred <- pred_sd <- numeric(nrow(b))
  pred[visit] <- kf$mean
  pred_sd[visit] <- kf$sd
  list(.pred = pred, .pred_sd = pred_sd)
}

# Steps of the filter before each row, in units of `step`: 1 before the first row (from the
# initial state), and all 1 without times or a step.
time_steps <- function(time, step) {
  if (is.null(time) || is.null(step)) return(1)
  c(1, diff(time) / step)
}

# Scalar random-walk Kalman filter, vectorised over a vector of q values.
# Rows are time steps, `steps` long in units of the step q is the variance of (one number
# for all rows, or one per row); NA readings are skipped (no reading: prediction only).
# Returns the innovation log-likelihood per q and, if `keep`, the filtered
# means and sds (rows x q).
kalman_rw_filter <- function(b, s2, q, m0, p0, keep = FALSE, steps = 1) {
  # The filter runs in units of the most precise sensor's sd: precisions 1 / s2 of readings
  # in tiny units would overflow. Centring on m0 keeps the sufficient statistics well conditioned.
  unit2 <- min(s2)
  unit <- sqrt(unit2)
  obs <- !is.na(b)
  prec <- sweep(obs, 2L, unit2 / s2, `*`)
  bc <- sweep(b, 2L, rep(m0, ncol(b))) / unit
  bc[!obs] <- 0
  a <- rowSums(prec)
  c1 <- rowSums(bc * prec)
  c2 <- rowSums(bc^2 * prec)
  n_obs <- rowSums(obs)
  logdet <- drop(obs %*% log(s2 / unit2))
  q <- q / unit2

  g <- length(q)
  m <- rep(0, g)
  p <- rep(p0 / unit2, g)
  ll <- rep(0, g)
  if (keep) mean_t <- sd_t <- matrix(NA_real_, nrow(b), g)
  steps <- rep_len(steps, nrow(b))
  for (t in seq_len(nrow(b))) {
    p_pred <- p + q * steps[t]
    if (n_obs[t] > 0) {
      # b_O ~ N(m 1, p_pred 1 1' + R_O), by Sherman-Morrison.
      u <- c1[t] - m * a[t]
      quad <- c2[t] - 2 * m * c1[t] + m^2 * a[t]
      den <- 1 + p_pred * a[t]
      ll <- ll - 0.5 * (n_obs[t] * log(2 * pi) + logdet[t] + log(den) + quad - p_pred * u^2 / den)
      p <- 1 / (1 / p_pred + a[t])
      m <- p * (m / p_pred + c1[t])
    } else {
      p <- p_pred
    }
    if (keep) {
      mean_t[t, ] <- m * unit + m0
      sd_t[t, ] <- sqrt(p) * unit
    }
  }
  # Back to the user's units: the density of the readings has the Jacobian unit^-(readings).
  ll <- ll - sum(n_obs) * log(unit)
  if (keep) list(loglik = ll, mean = drop(mean_t), sd = drop(sd_t)) else list(loglik = ll)
}
