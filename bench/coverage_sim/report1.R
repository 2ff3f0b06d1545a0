source("bench/coverage_sim/summ.R")
args <- commandArgs(TRUE)
for (cond in args) {
  d <- readRDS(sprintf("bench/coverage_sim/part1_%s.rds", cond))
  d$decile <- cut(d$x, seq(-1, 1, 0.2), labels = 1:10)
  cat("\n==== ", cond, "====\n")
  for (ur in unique(d$use_reference)) {
    g <- d[d$use_reference == ur, ]
    cat("-- use_reference =", ur, "\n")
    print(rbind(covsum(g, "cov_cred"), covsum(g, "cov_pred")), row.names = FALSE)
    cat("by n_sensors (level 0.9)\n")
    g9 <- g[g$level == 0.9, ]
    print(rbind(covsum(g9, "cov_cred", "n_sensors"), covsum(g9, "cov_pred", "n_sensors")), row.names = FALSE)
    cat("by anchor/reference observed (level 0.9)\n")
    print(rbind(covsum(g9, "cov_cred", "anchor_obs"), covsum(g9, "cov_pred", "anchor_obs")), row.names = FALSE)
    cat("by covariate decile (level 0.9)\n")
    a <- covsum(g9, "cov_cred", "decile"); b <- covsum(g9, "cov_pred", "decile")
    print(cbind(a[, c("decile", "N")], cred = a$achieved, cred_se = a$se_mc, cred_z = a$z, pred = b$achieved, pred_se = b$se_mc, pred_z = b$z), row.names = FALSE)
    cat("per-fit coverage (cred, 0.9): ", round(range(tapply(g9$cov_cred, g9$rep, mean)), 3), "\n")
    cat("sd ratio: sd(theta - pred)/rms(pred_sd_cred) overall =", round(sd(g9$z_theta) / sqrt(mean(g9$pred_sd_cred^2)), 3), "\n")
  }
}
