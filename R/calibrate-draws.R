# The scores of calibrate()'s methods, and the Monte Carlo pseudo-labels of "mc_model" and
# "mc_empirical".

mc_scores <- function(draw, post, sd_pred, rows, m) {
  labels <- draw(post, rows, m)
  as.vector(abs(labels - post$mu[rows]) / sd_pred[rows])
}

# Two-stage draw from the posterior predictive: Theta ~ N(mu, var_post), then
# Y ~ N(Theta, label_var); a length(rows) x m matrix.
draw_model_labels <- function(post, rows, m) {
  n <- length(rows)
  theta <- post$mu[rows] + sqrt(post$var_post[rows]) * matrix(stats::rnorm(n * m), n, m)
  theta + sqrt(post$label_var[rows]) * matrix(stats::rnorm(n * m), n, m)
}

# Reading of one observed sensor per draw, chosen uniformly among the row's
# observed sensors; a length(rows) x m matrix.
draw_sensor_labels <- function(post, rows, m) {
  b <- post$b[rows, , drop = FALSE]
  n <- length(rows)
  observed <- !is.na(b)
  k <- rowSums(observed)
  # Column indices of the observed sensors first, so the u-th observed one is
  # at position u.
  cols <- t(apply(observed, 1, function(o) c(which(o), which(!o))))
  if (ncol(b) == 1L) cols <- matrix(cols, ncol = 1L)
  pick <- matrix(ceiling(stats::runif(n * m) * k), n, m)
  col <- matrix(cols[cbind(rep(seq_len(n), m), as.vector(pick))], n, m)
  matrix(b[cbind(rep(seq_len(n), m), as.vector(col))], n, m)
}

# Scores of the chosen method: list(scores, holdout, n), n = rows giving scores
# (for "ecdf", the rows behind `scores`, excluding the holdout).
calibration_scores <- function(method, post, sd_pred, m, correction, reference) {
  if (method == "split") {
    use <- which(post$ok & is.finite(reference))
    return(list(scores = abs(reference[use] - post$mu[use]) / sd_pred[use],
                holdout = NULL, n = length(use)))
  }
  observed <- !is.na(post$b)
  if (method == "sensor_anchored") {
    implied <- (post$b - post$c) / post$a
    s <- abs(implied - post$mu) / sd_pred
    use <- observed & post$ok
    return(list(scores = s[use], holdout = NULL, n = sum(rowSums(use) > 0)))
  }
  rows <- which(post$ok)
  if (method == "mc_empirical") rows <- rows[rowSums(observed[rows, , drop = FALSE]) > 0]
  draw <- if (method == "mc_model") draw_model_labels else draw_sensor_labels
  if (correction == "ecdf") {
    # Random halves: calibration scores and a holdout for the ECDF correction.
    rows <- rows[sample.int(length(rows))]
    half <- floor(length(rows) / 2)
    cal_rows <- rows[seq_len(half)]
    hold_rows <- rows[-seq_len(half)]
    return(list(scores = mc_scores(draw, post, sd_pred, cal_rows, m),
                holdout = mc_scores(draw, post, sd_pred, hold_rows, 1L),
                n = length(cal_rows)))
  }
  list(scores = mc_scores(draw, post, sd_pred, rows, m), holdout = NULL, n = length(rows))
}

# "split" scores of the estimates the rows would have without any low-cost reading (the prior
# from their covariates), against the same reference readings: the threshold of rows without a
# reading (no_readings_quantile()). `scored` marks the rows "split" scores; the first pass over
# `data` already gave its warnings. A second pass rather than that pass's prior (mu0, s0_2):
# the estimate of a row without readings is the prior as predict() gives it, unit offsets
# included.
prior_only_scores <- function(object, data, reference, scored, threads) {
  post <- withCallingHandlers(
    label_variance(object, ncam_posterior(object, data, threads, outputs = label_outputs(object), prior_only = TRUE)),
    ncam_warning = function(cnd) rlang::cnd_muffle(cnd)
  )
  use <- which(scored & is.finite(post$mu) & is.finite(reference))
  list(scores = sort(abs(reference[use] - post$mu[use]) / sqrt(post$var_pred[use])), n = length(use))
}
