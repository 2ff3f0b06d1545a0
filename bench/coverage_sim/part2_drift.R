# Part 2b: conformal calibration under temporal drift. The low-cost sensors' offsets drift by
# `D` units over the series (shared by all low-cost sensors, so they keep agreeing); the
# reference / anchor (s0) does not drift. Time is not a covariate. Splits from split_blocks()
# (random whole weeks) or split_chronological(). Usage: Rscript part2_drift.R <reps> <D>
suppressPackageStartupMessages(library(ncam))
source("bench/coverage_sim/sim.R")
args <- commandArgs(TRUE); R <- as.integer(args[1]); D <- as.numeric(args[2])
n <- 9000
res <- list()
for (r in seq_len(R)) {
  d <- sim_ncam(n, seed = 9000 + r, miss = 0.1, miss_anchor = 0, drift = D)
  d$date <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * (seq_len(n) - 1)
  d$ref <- d$s0
  d$tpos <- seq_len(n) / n
  for (sp_kind in c("blocks", "chronological")) {
    sp <- if (sp_kind == "blocks") split_blocks(d, "date", block = "7 days", gap = "36 hours", seed = r) else
      split_chronological(d, "date")
    fr <- sp %in% c("train", "validation")
    fd <- d[fr, ]
    fitr <- ncam(s1 + s2 + s3 ~ x, data = fd, reference = "ref", validation = sp[fr] == "validation",
                 hidden = c(16L, 16L), epochs = 300L, learn_rate = 0.003, batch_size = 128L, seed = r, threads = 1)
    fita <- ncam(s0 + s1 + s2 + s3 ~ x, data = fd, anchor = "s0", validation = sp[fr] == "validation",
                 hidden = c(16L, 16L), epochs = 300L, learn_rate = 0.003, batch_size = 128L, seed = r, threads = 1)
    ca <- d[sp %in% "calibration", ]; te <- d[sp %in% "test", ]
    te_ref <- te; te_ref$ref <- NA
    outs <- list(
      ref_prediction = list(suppressWarnings(predict(fitr, te, interval = "prediction", level = 0.9)), te$anchor_new),
      ref_split = list(suppressWarnings(predict(suppressMessages(calibrate(fitr, ca)), te)), te$anchor_new),
      anch_credible = list(suppressWarnings(predict(fita, te, interval = "credible", level = 0.9)), te$theta),
      anch_mc_model = list(suppressWarnings(predict(calibrate(fita, ca, method = "mc_model", seed = r), te)), te$theta),
      anch_split_truth = list(suppressWarnings(predict(calibrate(fita, ca, method = "split", reference = "theta"), te)), te$theta))
    for (nm in names(outs)) {
      p <- outs[[nm]][[1]]; y <- outs[[nm]][[2]]
      res[[length(res) + 1]] <- data.frame(rep = r, split = sp_kind, method = nm, level = 0.9,
        tpos = te$tpos, cov = cov_in(y, p$.pred_lower, p$.pred_upper), width = p$.pred_upper - p$.pred_lower,
        err = p$.pred - y, ncal = nrow(ca))
    }
  }
  cat("rep", r, "\n")
}
saveRDS(do.call(rbind, res), sprintf("bench/coverage_sim/part2_drift_D%s.rds", D))
