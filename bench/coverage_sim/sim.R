# Independent simulator from the NCAM model with covariate-dependent heads.
# x ~ U(-1, 1); Theta | x ~ N(mu0(x), s0(x)^2); b_j = a_j(x) Theta + c_j(x) + eps_j,
# eps_j ~ N(0, sig_j(x)^2) (or scaled t_df with the same sd when df is given).
heads <- function(x) list(
  mu0 = 20 + 5 * x + 2 * sin(3 * x), s0 = 3 + 1.5 * x,
  a = cbind(1, 1.2 + 0.3 * x, 0.8 - 0.2 * x, 1.0 + 0.4 * x^2),
  c = cbind(0, -3 + 2 * x, 4 + 3 * x^2, 1 - x),
  sig = cbind(1.5 + 0.5 * x, 1.0 + 0.4 * (x + 1), 2.5 - x, 0.8 + 0.6 * abs(x))
)
noise <- function(n, sd, df = NULL) {
  if (is.null(df)) rnorm(n, 0, sd) else sd * rt(n, df) / sqrt(df / (df - 2))
}
# miss: probability that each non-anchor sensor is missing (anchor too if miss_anchor)
sim_ncam <- function(n, seed, miss = 0, miss_anchor = miss, df = NULL, log = FALSE, drift = 0) {
  set.seed(seed)
  x <- runif(n, -1, 1)
  h <- heads(x)
  theta <- rnorm(n, h$mu0, h$s0)
  if (log) theta <- rnorm(n, 2.5 + 0.5 * x, 0.4 + 0.15 * x)  # log-Theta for the log case
  L <- ncol(h$a)
  B <- matrix(NA_real_, n, L)
  for (j in seq_len(L)) {
    a <- h$a[, j]; cc <- h$c[, j]; s <- h$sig[, j]
    if (log) { a <- c(1, 1.1, 0.9, 1)[j] + 0.05 * x * (j > 1); cc <- c(0, -0.2, 0.3, 0.1)[j] + 0.1 * x * (j > 1); s <- c(0.15, 0.1, 0.25, 0.12)[j] * (1 + 0.3 * x) }
    if (drift != 0 && j > 1) cc <- cc + drift * seq_len(n) / n  # time drift of offsets
    B[, j] <- a * theta + cc + noise(n, s, df)
  }
  new_anchor <- h$sig[, 1]
  if (log) new_anchor <- 0.15 * (1 + 0.3 * x)
  anchor_new <- theta + noise(n, new_anchor, df)  # a second, independent anchor reading
  if (miss > 0) {
    for (j in 2:L) B[runif(n) < miss, j] <- NA
    if (miss_anchor > 0) B[runif(n) < miss_anchor, 1] <- NA
  }
  d <- data.frame(x = x, s0 = B[, 1], s1 = B[, 2], s2 = B[, 3], s3 = B[, 4])
  d$theta <- theta; d$anchor_new <- anchor_new
  if (log) { for (v in c("s0", "s1", "s2", "s3", "theta", "anchor_new")) d[[v]] <- exp(d[[v]]) }
  d
}
cov_in <- function(y, lo, hi) as.numeric(y >= lo & y <= hi)
