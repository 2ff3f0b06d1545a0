# Part 1: coverage of "credible" (Theta) and "prediction" (new anchor/reference reading) intervals
# on data simulated from the model (sim.R). Usage: Rscript part1.R <cond> <reps>
# cond: anchored | reference | log
suppressPackageStartupMessages(library(ncam))
source("bench/coverage_sim/sim.R")
args <- commandArgs(TRUE); cond <- args[1]; R <- as.integer(args[2])
levels <- c(0.5, 0.9, 0.95)
ntr <- 4000; nte <- 2000
res <- list()
for (r in seq_len(R)) {
  t0 <- Sys.time()
  d <- sim_ncam(ntr + nte, seed = 1000 + r, miss = 0.3, miss_anchor = if (cond == "reference") 0 else 0.2,
                log = cond == "log")
  tr <- d[seq_len(ntr), ]; te <- d[ntr + seq_len(nte), ]
  if (cond == "reference") {
    tr$ref <- tr$s0; tr$ref[runif(ntr) > 0.4] <- NA        # co-location on a random 40 % of rows
    te$ref <- te$s0; te$ref_present <- runif(nte) < 0.5; te$ref[!te$ref_present] <- NA
    fit <- ncam(s1 + s2 + s3 ~ x, data = tr, reference = "ref", hidden = c(16L, 16L), epochs = 300L,
                learn_rate = 0.003, batch_size = 128L, seed = r, threads = 1)
    urs <- c(FALSE, TRUE)
  } else {
    fit <- ncam(s0 + s1 + s2 + s3 ~ x, data = tr, anchor = "s0", hidden = c(16L, 16L), epochs = 300L,
                learn_rate = 0.003, batch_size = 128L, seed = r, threads = 1,
                transform = if (cond == "log") "log" else "none")
    urs <- FALSE
  }
  for (ur in urs) for (lev in levels) {
    ci <- suppressWarnings(predict(fit, te, interval = "credible", level = lev, use_reference = ur))
    pi <- suppressWarnings(predict(fit, te, interval = "prediction", level = lev, use_reference = ur))
    res[[length(res) + 1]] <- data.frame(
      cond = cond, rep = r, use_reference = ur, level = lev, x = te$x,
      n_sensors = ci$.n_sensors,
      anchor_obs = if (cond == "reference") te$ref_present else !is.na(te$s0),
      cov_cred = cov_in(te$theta, ci$.pred_lower, ci$.pred_upper),
      cov_pred = cov_in(te$anchor_new, pi$.pred_lower, pi$.pred_upper),
      cov_pred_theta = cov_in(te$theta, pi$.pred_lower, pi$.pred_upper),
      z_theta = if (cond == "log") (log(te$theta) - log(ci$.pred)) else (te$theta - ci$.pred),
      post_sd = ci$.post_sd, pred_sd_cred = ci$.pred_sd, extrap = ci$.extrapolation,
      best_epoch = fit$best_epoch)
  }
  cat(sprintf("%s rep %d  %.1fs best_epoch %d\n", cond, r, as.numeric(Sys.time() - t0, units = "secs"), fit$best_epoch))
}
saveRDS(do.call(rbind, res), sprintf("bench/coverage_sim/part1_%s.rds", cond))
