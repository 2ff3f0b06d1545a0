# Part 4: coverage of the baselines' "credible" intervals of Theta.
# Data sets: "no_bias" (every sensor a = 1, c = 0: the ivw/kalman model), "factor" (constant
# heads: the one-factor model that "factor" fits exactly), "covariate" (sim.R, heads depend on x).
suppressPackageStartupMessages(library(ncam))
source("bench/coverage_sim/sim.R")
args <- commandArgs(TRUE); R <- as.integer(args[1])
sim_const <- function(n, seed, a, cc, sig, miss = 0.3) {
  set.seed(seed)
  theta <- rnorm(n, 20, 4)
  B <- sapply(seq_along(a), function(j) a[j] * theta + cc[j] + rnorm(n, 0, sig[j]))
  for (j in 2:ncol(B)) B[runif(n) < miss, j] <- NA
  B[runif(n) < 0.2, 1] <- NA
  d <- as.data.frame(B); names(d) <- paste0("s", 0:3); d$theta <- theta; d
}
levels <- c(0.5, 0.9, 0.95)
res <- list()
for (r in seq_len(R)) {
  sets <- list(
    no_bias = sim_const(6000, 7000 + r, a = c(1, 1, 1, 1), cc = c(0, 0, 0, 0), sig = c(1.5, 1, 2.5, 0.8)),
    factor = sim_const(6000, 7000 + r, a = c(1, 1.2, 0.8, 1), cc = c(0, -3, 4, 1), sig = c(1.5, 1, 2.5, 0.8)),
    covariate = sim_ncam(6000, 7000 + r, miss = 0.3, miss_anchor = 0.2))
  for (ds in names(sets)) {
    d <- sets[[ds]]; tr <- d[1:4000, ]; te <- d[4001:6000, ]
    for (meth in c("ivw", "ppca", "kalman", "factor")) {
      fit <- tryCatch(suppressWarnings(ncam_baseline(s0 + s1 + s2 + s3 ~ 1, tr, method = meth, anchor = if (meth %in% c("ppca", "factor")) "s0")),
                      error = function(e) NULL)
      if (is.null(fit)) { cat("fail", ds, meth, "\n"); next }
      for (lev in levels) {
        p <- predict(fit, te, interval = "credible", level = lev)
        ok <- !is.na(p$.pred_lower)
        res[[length(res) + 1]] <- data.frame(rep = r, data = ds, method = meth, level = lev,
          cov = cov_in(te$theta[ok], p$.pred_lower[ok], p$.pred_upper[ok]), n_sensors = p$.n_sensors[ok],
          ratio = abs(te$theta[ok] - p$.pred[ok]) / p$.pred_sd[ok])
      }
    }
  }
  cat("rep", r, "\n")
}
saveRDS(do.call(rbind, res), "bench/coverage_sim/part4.rds")
