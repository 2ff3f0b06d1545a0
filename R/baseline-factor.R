# The "factor" baseline of ncam_baseline(): the linear-Gaussian one-factor measurement model
#   theta ~ N(mu0, s0^2),  b_j = a_j theta + c_j + N(0, sigma_j^2),  anchor a = 1, c = 0,
# fitted by maximum likelihood over each row's observed readings. The fit runs on readings
# standardised per sensor (z_j = (b_j - m_j) / k_j), on which the model keeps its form with
# the anchor's theta' = (theta - m_r) / k_r; results are mapped back to the user's units.

# Maximum likelihood fit on the training readings `b`; `anchor` is a column index.
fit_factor1 <- function(b, anchor, call = parent.frame()) {
  l <- ncol(b)
  sensors <- colnames(b)
  if (l < 3L) {
    ncam_abort(c("The {.val factor} model needs at least 3 sensors, not {l}.",
                 x = "With 2 sensors the model is not identified: their 2 variances and 1 covariance give 3 equations for 4 unknowns (prior variance, gain, 2 noise variances).",
                 i = "Use {.val ivw} or {.val ppca} for 2 sensors, or add a sensor."), call = call)
  }
  obs <- !is.na(b)
  centre <- colMeans(b, na.rm = TRUE)
  spread <- apply(b, 2L, stats::sd, na.rm = TRUE)
  flat <- is.na(spread)
  if (any(flat)) {
    ncam_abort("Sensor {.val {sensors[flat][1]}} has fewer than 2 readings in the {.arg train} rows.",
               call = call)
  }
  together <- crossprod(obs)
  apart <- together < 2 & upper.tri(together)
  if (any(apart)) {
    pair <- which(apart, arr.ind = TRUE)[1, ]
    ncam_abort(c("Sensors {.val {sensors[pair[1]]}} and {.val {sensors[pair[2]]}} are observed together in {together[pair[1], pair[2]]} {.arg train} row{?s}; the {.val factor} model needs at least 2.",
                 i = "Without their covariance the gains are not identified."), call = call)
  }
  z <- sweep(sweep(b, 2L, centre), 2L, spread, `/`)
  patterns <- missingness_patterns(z)

  objective <- function(x) factor1_nll(factor1_unpack(x, l, anchor), patterns)$nll
  gradient <- function(x) {
    p <- factor1_unpack(x, l, anchor)
    g <- factor1_nll(p, patterns, gradient = TRUE)$grad
    # Chain rule through the log-variances.
    c(g$prior_mean, g$prior_var * p$prior_var, g$gain[-anchor], g$offset[-anchor],
      g$noise_var * p$noise_var)
  }
  opt <- stats::nlminb(factor1_start(z, anchor), objective, gradient,
                       control = list(iter.max = 1000L, eval.max = 2000L))
  # Quasi-Newton crawls near the optimum: finish with Newton steps on the exact gradient, down
  # to rounding, so that the estimates do not depend on the units of the readings (which
  # change the path of the optimiser). There the objective changes by its rounding error only.
  x <- opt$par
  n_rows <- sum(rowSums(obs) > 0L)
  for (iter in 1:5) {
    g <- gradient(x)
    if (max(abs(g)) <= 1e-13 * n_rows) break
    step <- tryCatch(solve(hessian_from_gradient(gradient, x, 1e-5 * pmax(1, abs(x))), g),
                     error = function(e) NULL)
    if (is.null(step) || !(objective(x - step) <= objective(x) + 1e-12 * abs(objective(x)))) break
    x <- x - step
  }
  grad_per_row <- max(abs(gradient(x))) / n_rows
  if (!(grad_per_row <= 1e-5)) {
    cli::cli_warn(c("The {.val factor} likelihood maximisation did not converge: the largest gradient is {signif(grad_per_row, 2)} per row.",
                    i = "The estimates may be inaccurate; check for sensors that barely vary with the others."),
                  call = call, class = c("ncam_warning_not_converged", "ncam_warning"))
  }
  std <- factor1_unpack(x, l, anchor)
  heywood <- std$noise_var < 1e-6
  if (any(heywood)) {
    cli::cli_warn(c("The noise variance of sensor{?s} {.val {sensors[heywood]}} is estimated at zero (a Heywood case).",
                    i = "The model then treats such a sensor as exact; this often means a misspecified model or too few rows."),
                  class = c("ncam_warning_heywood", "ncam_warning"), call = call)
  }

  # Back to the user's units (an affine map of the parameters, exact for the covariance).
  k_r <- spread[anchor]
  m_r <- centre[anchor]
  gain <- std$gain * spread / k_r
  params <- list(
    prior_mean = unname(centre[anchor] + k_r * std$prior_mean),
    prior_var = unname(k_r^2 * std$prior_var),
    gain = stats::setNames(gain, sensors),
    offset = stats::setNames(centre + spread * std$offset - gain * m_r, sensors),
    noise_var = stats::setNames(spread^2 * std$noise_var, sensors)
  )
  params[c("vcov", "se")] <- factor1_vcov(std, patterns, anchor, centre, spread, call)
  free <- sensors[-anchor]
  weak <- abs(params$gain[free]) < 2 * params$se[paste0("gain_", free)]
  if (any(weak %in% TRUE)) {
    cli::cli_warn(c("The gain of sensor{?s} {.val {free[weak %in% TRUE]}} is within 2 standard errors of zero.",
                    i = "A sensor that barely follows the others leaves the model weakly identified: its estimates are unstable."),
                  call = call, class = c("ncam_warning_weak_gain", "ncam_warning"))
  }
  # The likelihood of z differs from that of b by the Jacobian sum over readings of log k_j.
  loglik <- -objective(x) - sum(colSums(obs) * log(spread))
  list(params = params, loglik = loglik, df = 3L * l, nobs = n_rows, heywood = sensors[heywood])
}

# Rows grouped by the set of observed sensors, one row per pattern: count `n`, `mask` of the
# observed sensors, `mean` of the readings and their `scatter` (covariance with denominator n,
# flattened column-major to L^2 columns), with zeros for unobserved sensors. Rows with no
# reading are left out (they add nothing to the likelihood).
missingness_patterns <- function(z) {
  l <- ncol(z)
  obs <- !is.na(z)
  code <- observed_pattern_code(obs)
  keep <- code > 0
  z[!obs] <- 0
  z <- z[keep, , drop = FALSE]
  code <- code[keep]
  n <- drop(rowsum(rep(1, length(code)), code))
  means <- rowsum(z, code) / n
  scatter <- matrix(0, length(n), l * l)
  for (j in seq_len(l)) {
    for (k in j:l) {
      s_jk <- drop(rowsum(z[, j] * z[, k], code)) / n - means[, j] * means[, k]
      scatter[, j + l * (k - 1L)] <- scatter[, k + l * (j - 1L)] <- s_jk
    }
  }
  list(n = unname(n), mask = unname(rowsum(obs[keep, , drop = FALSE] * 1, code) / n),
       mean = unname(means), scatter = scatter)
}

# Parameter list from the free parameters: prior mean, prior variance, gains and offsets of
# the non-anchor sensors, noise variances; the variances as logarithms when `log_var`.
factor1_unpack <- function(x, l, anchor, log_var = TRUE) {
  free <- seq_len(l)[-anchor]
  var_of <- if (log_var) exp else identity
  list(prior_mean = x[1], prior_var = var_of(x[2]),
       gain = replace(rep(1, l), free, x[2L + seq_along(free)]),
       offset = replace(rep(0, l), free, x[1L + l + seq_along(free)]),
       noise_var = var_of(x[2L * l + seq_len(l)]))
}

# Moment start on standardised readings: a_j from the covariances with the anchor through
# third sensors (a_j = C_jk / C_rk, pooled by least squares over k), s0^2 = C_rj / a_j.
factor1_start <- function(z, anchor) {
  l <- ncol(z)
  cov_z <- stats::cov(z, use = "pairwise.complete.obs")
  gain <- rep(1, l)
  for (j in seq_len(l)[-anchor]) {
    k <- setdiff(seq_len(l), c(j, anchor))
    denom <- sum(cov_z[anchor, k]^2)
    gain[j] <- if (denom > 1e-8) sum(cov_z[j, k] * cov_z[anchor, k]) / denom else cov_z[anchor, j]
  }
  ratio <- cov_z[anchor, -anchor] / gain[-anchor]
  prior_var <- min(max(mean(ratio[is.finite(ratio)]), 0.05), 0.95)
  if (!is.finite(prior_var)) prior_var <- 0.5
  noise_var <- pmax(diag(cov_z) - gain^2 * prior_var, 0.05 * diag(cov_z))
  c(0, log(prior_var), gain[-anchor], rep(0, l - 1L), log(noise_var))
}

# Negative log marginal likelihood of the grouped readings under the natural parameters `p`,
# and (with `gradient`) its gradient in them: the per-row formulas of the NCAM likelihood
# (rank-one plus diagonal covariance; gradients by Fisher's identity) summed over the rows of
# each pattern through its count, mean and scatter. Per pattern, with w = 1/sigma^2 on the
# observed sensors, u = a w, P = 1/s0^2 + a'u, d = mean - a mu0 - c and m_i = u'r_i / P the
# posterior shift of row i: sum m_i = n u'd / P, sum m_i^2 = n (u'Su + (u'd)^2) / P^2 and
# sum m_i r_ij = n ((Su)_j + d_j u'd) / P.
factor1_nll <- function(p, patterns, gradient = FALSE) {
  mask <- patterns$mask
  n <- patterns$n
  l <- ncol(mask)
  a <- p$gain
  s0_2 <- p$prior_var
  wm <- sweep(mask, 2L, 1 / p$noise_var, `*`)
  u <- sweep(wm, 2L, a, `*`)
  prec <- 1 / s0_2 + drop(u %*% a)
  d <- sweep(patterns$mean, 2L, a * p$prior_mean + p$offset) * mask
  su <- matrix(vapply(seq_len(l), function(j) rowSums(patterns$scatter[, j + l * (seq_len(l) - 1L), drop = FALSE] * u),
                      numeric(length(n))), length(n), l)
  s_diag <- patterns$scatter[, (seq_len(l) - 1L) * (l + 1L) + 1L, drop = FALSE]
  usu <- rowSums(u * su)
  ud <- rowSums(u * d)
  logdet <- drop(mask %*% log(p$noise_var)) + log(s0_2) + log(prec)
  quad <- rowSums(wm * (s_diag + d^2)) - (usu + ud^2) / prec
  nll <- sum(n / 2 * (rowSums(mask) * log(2 * pi) + logdet + quad))
  if (!gradient) return(list(nll = nll))

  sum_m <- n * ud / prec
  sum_m2 <- n * (usu + ud^2) / prec^2
  sum_mr <- (su + ud * d) * (n / prec)
  sum_e <- n * d - outer(sum_m, a)
  sum_e2 <- n * (s_diag + d^2) - 2 * sweep(sum_mr, 2L, a, `*`) + outer(sum_m2, a^2)
  sum_post_e <- p$prior_mean * sum_e + sum_mr - outer(sum_m2, a)
  g <- list(
    prior_mean = -sum(sum_m) / s0_2,
    prior_var = 0.5 * sum(n - (sum_m2 + n / prec) / s0_2) / s0_2,
    gain = colSums(wm * (outer(n / prec, a) - sum_post_e)),
    offset = -colSums(wm * sum_e),
    noise_var = 0.5 * colSums(mask * n - wm * (sum_e2 + outer(n / prec, a^2))) / p$noise_var
  )
  list(nll = nll, grad = g)
}

# Covariance `vcov` and standard errors `se` of the estimates (prior mean and variance, free
# gains, free offsets, noise variances) in the user's units, from the observed information:
# central differences of the analytic gradient in the standardised natural parameters, mapped
# by the affine change of units. NA, with a warning, when the information is singular.
factor1_vcov <- function(std, patterns, anchor, centre, spread, call) {
  l <- length(std$gain)
  free <- seq_len(l)[-anchor]
  sensors <- names(spread)
  natural <- c(std$prior_mean, std$prior_var, std$gain[free], std$offset[free], std$noise_var)
  grad_at <- function(x) {
    g <- factor1_nll(factor1_unpack(x, l, anchor, log_var = FALSE), patterns, gradient = TRUE)$grad
    c(g$prior_mean, g$prior_var, g$gain[free], g$offset[free], g$noise_var)
  }
  n_par <- length(natural)
  # Relative steps for the variances keep them positive.
  is_var <- seq_len(n_par) %in% c(2L, 2L * l + seq_len(l))
  step <- ifelse(is_var, 1e-4 * natural, 1e-5 * pmax(1, abs(natural)))
  hessian <- hessian_from_gradient(grad_at, natural, step)
  labels <- c("prior_mean", "prior_var", paste0("gain_", sensors[free]), paste0("offset_", sensors[free]),
              paste0("noise_var_", sensors))
  root <- if (all(is.finite(hessian))) tryCatch(chol(hessian), error = function(e) NULL)
  if (is.null(root)) {
    cli::cli_warn(c("The information matrix of the {.val factor} model is singular at the estimate: no standard errors.",
                    i = "A gain near zero or a sensor that does not follow the others makes the model unidentified."),
                  call = call, class = c("ncam_warning_singular_information", "ncam_warning"))
    return(list(vcov = matrix(NA_real_, n_par, n_par, dimnames = list(labels, labels)),
                se = stats::setNames(rep(NA_real_, n_par), labels)))
  }
  # Jacobian of the user-unit parameters in the standardised ones.
  k_r <- spread[anchor]
  jac <- diag(c(k_r, k_r^2, spread[free] / k_r, spread[free], spread^2), n_par)
  m <- length(free)
  jac[cbind(2L + m + seq_len(m), 2L + seq_len(m))] <- -centre[anchor] * spread[free] / k_r
  # Each row of the Jacobian scaled to a largest entry of 1: the standard errors stay finite
  # in units where entries of the covariance (k^4 for the variances) overflow or underflow.
  size <- apply(abs(jac), 1L, max)
  core <- (jac / size) %*% chol2inv(root) %*% t(jac / size)
  vcov <- core * outer(size, size)
  dimnames(vcov) <- list(labels, labels)
  list(vcov = vcov, se = stats::setNames(size * sqrt(diag(core)), labels))
}

# Symmetrised central differences of a gradient function `grad` at `x`, with steps `step`.
hessian_from_gradient <- function(grad, x, step) {
  h <- vapply(seq_along(x), function(i) {
    (grad(replace(x, i, x[i] + step[i])) - grad(replace(x, i, x[i] - step[i]))) / (2 * step[i])
  }, numeric(length(x)))
  (h + t(h)) / 2
}

# Posterior mean and variance of theta given each row's observed readings; a row without
# readings gets the prior.
factor1_fuse <- function(b, params) {
  obs <- !is.na(b)
  resid <- sweep(b, 2L, params$offset + params$gain * params$prior_mean)
  resid[!obs] <- 0
  weight <- params$gain / params$noise_var
  precision <- 1 / params$prior_var + drop(obs %*% (params$gain * weight))
  list(.pred = params$prior_mean + drop(resid %*% weight) / precision, .pred_sd = 1 / sqrt(precision))
}
