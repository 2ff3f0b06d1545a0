#' Classical unsupervised fusion baselines
#'
#' Fuses the readings of several co-located sensors row by row with one of the
#' label-free baselines used in the NCAM paper. No reference values are used:
#' all parameters are estimated from the sensor readings of the training rows.
#'
#' Missing readings (`NA`) are never dropped: each row is fused from the
#' sensors observed in it, and `.n_sensors` counts them. A row with no
#' observed sensor gets `NA` from `"mean"`, `"ivw"` and `"ppca"`, and the
#' one-step prediction from `"kalman"`.
#'
#' @section Methods:
#' * `"mean"`: the mean of the row's observed readings.
#' * `"ivw"`: inverse-variance weighting, \eqn{\sum_j b_j / s_j^2 / \sum_j 1 / s_j^2}
#'   over the row's observed sensors, with `.pred_sd` \eqn{= (\sum_j 1/s_j^2)^{-1/2}}.
#'   The error variances \eqn{s_j^2} come from the three-cornered-hat (Grubbs)
#'   estimator on the training rows: for every pair of sensors observed together
#'   in at least two training rows, \eqn{\mathrm{Var}(b_j - b_k) = s_j^2 + s_k^2}
#'   (sample variance, denominator \eqn{n - 1}); these equations are solved by
#'   least squares (exactly for three sensors), and estimates are truncated
#'   below at \eqn{10^{-6}} times the largest pairwise variance. When the
#'   equations do not identify every variance (always for two sensors), the
#'   minimum-norm least-squares solution is used with a warning; for two
#'   sensors this splits \eqn{\mathrm{Var}(b_1 - b_2)} equally, so `"ivw"`
#'   reduces to `"mean"`. Readings are used raw: sensor biases are not corrected.
#' * `"ppca"`: probabilistic PCA with one latent factor (Tipping & Bishop's
#'   closed form) fitted on the training rows with every sensor observed:
#'   \eqn{\mu} = mean, \eqn{S} = covariance (denominator \eqn{n}) with eigenvalues
#'   \eqn{\lambda_1 \ge \dots \ge \lambda_L}, noise \eqn{\sigma^2 = } mean of
#'   \eqn{\lambda_2, \dots, \lambda_L}, loadings \eqn{W = u_1 \sqrt{\lambda_1 - \sigma^2}}.
#'   Each row's latent posterior given its observed sensors \eqn{O} has mean
#'   \eqn{z = W_O^\top (b_O - \mu_O) / (\sigma^2 + W_O^\top W_O)} and variance
#'   \eqn{\sigma^2 / (\sigma^2 + W_O^\top W_O)}. `z` is mapped to the scale of
#'   the `anchor` sensor by an ordinary least-squares fit of the anchor reading
#'   on \eqn{[1, z]} over the training rows where the anchor is observed:
#'   `.pred` \eqn{= c_0 + c_1 z}, `.pred_sd` \eqn{= |c_1|} times the latent
#'   posterior sd.
#' * `"kalman"`: a scalar random-walk Kalman filter over the rows sorted by
#'   `order` (ties keep row order), \eqn{\theta_t = \theta_{t-1} + w_t},
#'   \eqn{w_t \sim N(0, q)}, and each observed reading
#'   \eqn{b_{tj} = \theta_t + v_{tj}}, \eqn{v_{tj} \sim N(0, s_j^2)}, with the
#'   three-cornered-hat variances above. The initial state \eqn{\theta_0} is
#'   \eqn{N(m_0, P_0)}, the mean and variance of the `"ivw"` estimates over the
#'   training rows. \eqn{q} is the value of the grid \eqn{P_0 \cdot 10^{k/8}},
#'   \eqn{k = -48, \dots, 8}, maximising the innovation log-likelihood of the
#'   filter run over the training rows alone (in the same order); the filter is
#'   then run over all rows. `.pred` and `.pred_sd` are the filtered
#'   (forward) mean and sd, returned in the original row order.
#'
#' @param data A data frame holding the sensor readings.
#' @param sensors Character vector naming at least two numeric columns of
#'   `data`, one per sensor.
#' @param method The baseline: `"mean"`, `"ivw"`, `"ppca"` or `"kalman"`
#'   (see Methods).
#' @param train Rows used to estimate the parameters: `NULL` (all rows), a
#'   logical vector with one element per row, or positive row indices.
#' @param anchor For `"ppca"`: the sensor (one of `sensors`) whose scale the
#'   latent factor is mapped to.
#' @param order For `"kalman"`: `NULL` (row order), the name of a column of
#'   `data`, or a vector with one sortable value per row (such as dates) giving
#'   the order in which the filter visits the rows.
#'
#' @return A data frame with one row per row of `data`, in the same order,
#'   with columns `.pred` (fused estimate), `.pred_sd` (for `"ivw"`, `"ppca"`
#'   and `"kalman"`) and `.n_sensors` (number of observed readings). Attribute
#'   `"fit"` lists the estimated parameters: `method`, `sensor_var` (the
#'   three-cornered-hat variances, for `"ivw"` and `"kalman"`), for `"ppca"`
#'   `mu`, `loadings`, `sigma2` and `coef` (\eqn{c_0, c_1}), and for `"kalman"`
#'   `q`, `loglik` (training innovation log-likelihood at `q`), `m0` and `P0`.
#' @export
#' @examples
#' toy <- simulate_toy(300, seed = 1)
#' sensors <- c("sensor_0", "sensor_1", "sensor_2")
#' toy$sensor_1[1:5] <- NA
#' ivw <- fuse_baseline(toy, sensors, "ivw")
#' attr(ivw, "fit")$sensor_var
#' head(ivw)
#' pc <- fuse_baseline(toy, sensors, "ppca", train = 1:200)
#' kf <- fuse_baseline(toy, sensors, "kalman", order = "lon")
#' sapply(list(ivw = ivw, ppca = pc, kalman = kf),
#'        function(f) sqrt(mean((f$.pred - toy$truth)^2)))
fuse_baseline <- function(data, sensors, method = c("mean", "ivw", "ppca", "kalman"),
                          train = NULL, anchor = sensors[1], order = NULL) {
  check_data_frame(data)
  b <- baseline_readings(data, sensors)
  method <- match_choice(method, c("mean", "ivw", "ppca", "kalman"), "method")
  train <- train_mask(train, nrow(data))
  check_string(anchor, "anchor")
  if (!anchor %in% sensors) {
    cli::cli_abort("{.arg anchor} must be one of {.arg sensors} ({.val {sensors}}), not {.val {anchor}}.")
  }
  visit <- if (method == "kalman") visit_order(order, data)

  n_obs <- rowSums(!is.na(b))
  fit <- list(method = method)
  out <- switch(method,
    mean = {
      pred <- rowMeans(b, na.rm = TRUE)
      data.frame(.pred = ifelse(n_obs > 0, pred, NA_real_))
    },
    ivw = {
      fit$sensor_var <- three_cornered_hat(b[train, , drop = FALSE])
      ivw_combine(b, fit$sensor_var)
    },
    ppca = {
      fit <- c(fit, fit_ppca1(b[train, , drop = FALSE], match(anchor, sensors)))
      latent <- ppca1_latent(b, fit)
      data.frame(.pred = fit$coef[1] + fit$coef[2] * latent$mean,
                 .pred_sd = abs(fit$coef[2]) * sqrt(latent$var))
    },
    kalman = {
      fit$sensor_var <- three_cornered_hat(b[train, , drop = FALSE])
      kf <- fit_kalman_rw(b, fit$sensor_var, train, visit)
      fit <- c(fit, kf$fit)
      data.frame(.pred = kf$mean, .pred_sd = sqrt(kf$var))
    }
  )
  out$.n_sensors <- as.integer(n_obs)
  attr(out, "fit") <- fit
  out
}

# Sensor readings as a numeric matrix, after checking the `sensors` argument.
baseline_readings <- function(data, sensors, call = parent.frame()) {
  if (!is.character(sensors) || length(sensors) < 2L || anyNA(sensors)) {
    cli::cli_abort("{.arg sensors} must be a character vector naming at least two columns.",
                   call = call)
  }
  if (anyDuplicated(sensors)) {
    cli::cli_abort("{.arg sensors} names column {.val {sensors[duplicated(sensors)]}} more than once.",
                   call = call)
  }
  check_columns(data, sensors, "sensors", call = call)
  for (s in sensors) {
    x <- data[[s]]
    if (!is.numeric(x)) {
      cli::cli_abort("Sensor column {.val {s}} must be numeric, not {.obj_type_friendly {x}}.",
                     call = call)
    }
    bad <- which(is.infinite(x))
    if (length(bad) > 0L) {
      cli::cli_abort("Sensor column {.val {s}} has an infinite value in row {bad[1]}.", call = call)
    }
  }
  b <- as.matrix(data[sensors])
  storage.mode(b) <- "double"
  rownames(b) <- NULL
  b
}

# Logical mask of the training rows.
train_mask <- function(train, n, call = parent.frame()) {
  if (is.null(train)) return(rep(TRUE, n))
  if (is.logical(train)) {
    if (length(train) != n) {
      cli::cli_abort("{.arg train} must have one element per row of {.arg data} ({n}), not {length(train)}.",
                     call = call)
    }
    if (anyNA(train)) {
      cli::cli_abort("{.arg train} is missing in row {which(is.na(train))[1]}.", call = call)
    }
    mask <- train
  } else if (is.numeric(train)) {
    bad <- which(is.na(train) | train < 1 | train > n | train != round(train))
    if (length(bad) > 0L) {
      cli::cli_abort("{.arg train} must hold row numbers between 1 and {n}; element {bad[1]} is {train[bad[1]]}.",
                     call = call)
    }
    mask <- seq_len(n) %in% train
  } else {
    cli::cli_abort("{.arg train} must be NULL, a logical vector or row numbers, not {.obj_type_friendly {train}}.",
                   call = call)
  }
  if (sum(mask) < 2L) {
    cli::cli_abort("{.arg train} must select at least 2 rows, not {sum(mask)}.", call = call)
  }
  mask
}

# Permutation in which the Kalman filter visits the rows.
visit_order <- function(order, data, call = parent.frame()) {
  n <- nrow(data)
  if (is.null(order)) return(seq_len(n))
  if (is.character(order) && length(order) == 1L) {
    check_columns(data, order, "order", call = call)
    order <- data[[order]]
  }
  if (!is.atomic(order) || length(order) != n) {
    cli::cli_abort("{.arg order} must be a column name or a vector with one value per row of {.arg data} ({n}).",
                   call = call)
  }
  if (anyNA(order)) {
    cli::cli_abort("{.arg order} is missing in row {which(is.na(order))[1]}.", call = call)
  }
  base::order(order)
}

# Three-cornered-hat (Grubbs) error variances: Var(b_j - b_k) = s_j^2 + s_k^2
# for every pair observed together, solved by (minimum-norm) least squares.
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
    cli::cli_abort("No two {.arg sensors} are observed together in at least 2 {.arg train} rows.", call = call)
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
    ), call = call)
  }
  s2 <- drop(dec$v[, pos, drop = FALSE] %*% (crossprod(dec$u[, pos, drop = FALSE], v) / dec$d[pos]))
  s2 <- pmax(s2, max(1e-6 * max(v), 1e-12))
  stats::setNames(s2, colnames(b))
}

# Inverse-variance weighted mean over each row's observed sensors.
ivw_combine <- function(b, s2) {
  obs <- !is.na(b)
  w <- sweep(obs, 2L, 1 / s2, `*`)
  b0 <- b
  b0[!obs] <- 0
  total <- rowSums(w)
  pred <- rowSums(b0 * w) / total
  data.frame(.pred = ifelse(total > 0, pred, NA_real_),
             .pred_sd = ifelse(total > 0, 1 / sqrt(total), NA_real_))
}

# Tipping & Bishop closed-form PPCA with one factor on the complete training
# rows, plus the OLS map of the latent mean onto the anchor sensor.
fit_ppca1 <- function(b, anchor, call = parent.frame()) {
  complete <- b[stats::complete.cases(b), , drop = FALSE]
  l <- ncol(b)
  if (nrow(complete) <= l) {
    cli::cli_abort(c("{.arg train} must contain more than {l} rows with every sensor observed for {.val ppca}.",
                     x = "It has {nrow(complete)}."), call = call)
  }
  mu <- colMeans(complete)
  centred <- sweep(complete, 2L, mu)
  eig <- eigen(crossprod(centred) / nrow(complete), symmetric = TRUE)
  sigma2 <- max(mean(eig$values[-1]), 1e-12 * max(eig$values[1], 1))
  u1 <- eig$vectors[, 1]
  # Orient the factor so that it increases with the readings.
  if (sum(u1) < 0) u1 <- -u1
  loadings <- stats::setNames(u1 * sqrt(max(eig$values[1] - sigma2, 0)), colnames(b))
  fit <- list(mu = mu, loadings = loadings, sigma2 = sigma2)

  z <- ppca1_latent(b, fit)$mean
  used <- !is.na(b[, anchor]) & !is.na(z)
  coef <- stats::lm.fit(cbind(1, z[used]), b[used, anchor])$coefficients
  if (anyNA(coef)) {
    cli::cli_abort("The PPCA factor is constant on the training rows; it cannot be mapped to {.arg anchor}.",
                   call = call)
  }
  fit$coef <- stats::setNames(coef, c("intercept", "slope"))
  fit
}

# Latent posterior mean and variance given each row's observed readings.
ppca1_latent <- function(b, fit) {
  obs <- !is.na(b)
  centred <- sweep(b, 2L, fit$mu)
  centred[!obs] <- 0
  ww <- drop(obs %*% fit$loadings^2)
  wb <- drop(centred %*% fit$loadings)
  m <- fit$sigma2 + ww
  list(mean = ifelse(ww > 0, wb / m, NA_real_),
       var = ifelse(ww > 0, fit$sigma2 / m, NA_real_))
}

# Chooses q on the training rows, then filters all rows; results in row order.
fit_kalman_rw <- function(b, s2, train, visit) {
  init <- ivw_combine(b[train, , drop = FALSE], s2)$.pred
  m0 <- mean(init, na.rm = TRUE)
  p0 <- stats::var(init, na.rm = TRUE)
  if (is.na(p0) || p0 <= 0) p0 <- mean(s2)
  q_grid <- p0 * 10^(seq(-48, 8) / 8)

  train_visit <- visit[train[visit]]
  ll <- kalman_rw_filter(b[train_visit, , drop = FALSE], s2, q_grid, m0, p0)$loglik
  best <- which.max(ll)
  kf <- kalman_rw_filter(b[visit, , drop = FALSE], s2, q_grid[best], m0, p0, keep = TRUE)
  filtered_mean <- filtered_var <- numeric(nrow(b))
  filtered_mean[visit] <- kf$mean
  filtered_var[visit] <- kf$var
  list(mean = filtered_mean, var = filtered_var,
       fit = list(q = q_grid[best], loglik = ll[best], m0 = m0, P0 = p0))
}

# Scalar random-walk Kalman filter, vectorised over a vector of q values.
# Rows are time steps; NA readings are skipped (no reading: prediction only).
# Returns the innovation log-likelihood per q and, if `keep`, the filtered
# means and variances (rows x q).
kalman_rw_filter <- function(b, s2, q, m0, p0, keep = FALSE) {
  obs <- !is.na(b)
  prec <- sweep(obs, 2L, 1 / s2, `*`)
  # Centring on m0 keeps the sufficient statistics well conditioned.
  bc <- sweep(b, 2L, rep(m0, ncol(b)))
  bc[!obs] <- 0
  a <- rowSums(prec)
  c1 <- rowSums(bc * prec)
  c2 <- rowSums(bc^2 * prec)
  n_obs <- rowSums(obs)
  logdet <- drop(obs %*% log(s2))

  g <- length(q)
  m <- rep(0, g)
  p <- rep(p0, g)
  ll <- rep(0, g)
  if (keep) mean_t <- var_t <- matrix(NA_real_, nrow(b), g)
  for (t in seq_len(nrow(b))) {
    p_pred <- p + q
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
      mean_t[t, ] <- m + m0
      var_t[t, ] <- p
    }
  }
  if (keep) list(loglik = ll, mean = drop(mean_t), var = drop(var_t)) else list(loglik = ll)
}
