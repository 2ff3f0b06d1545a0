# The Monte Carlo pseudo-labels of calibrate()'s "mc_model" and "mc_empirical", and their scores.

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
