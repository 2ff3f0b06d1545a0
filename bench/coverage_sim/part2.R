# Part 2/3: conformal calibration on exchangeable held-out data, Gaussian noise or t3 noise.
# Usage: Rscript part2.R <noise: gauss|t3> <reps>
suppressPackageStartupMessages(library(ncam))
source("bench/coverage_sim/sim.R")
args <- commandArgs(TRUE); noise_kind <- args[1]; R <- as.integer(args[2])
df <- if (noise_kind == "t3") 3 else NULL
levels <- c(0.5, 0.9, 0.95, 0.99)
ntr <- 4000; ncal <- 1000; nte <- 2000
res <- list()
add <- function(r, model, method, target, lev, p, y, x) {
  res[[length(res) + 1]] <<- data.frame(noise = noise_kind, rep = r, model = model, method = method,
    target = target, level = lev, x = x, cov = cov_in(y, p$.pred_lower, p$.pred_upper),
    width = p$.pred_upper - p$.pred_lower, n_sensors = p$.n_sensors)
}
for (r in seq_len(R)) {
  t0 <- Sys.time()
  d <- sim_ncam(ntr + ncal + nte, seed = 5000 + r, miss = 0.3, miss_anchor = 0.2, df = df)
  tr <- d[1:ntr, ]; ca <- d[ntr + 1:ncal, ]; te <- d[ntr + ncal + 1:nte, ]
  fit <- ncam(s0 + s1 + s2 + s3 ~ x, data = tr, anchor = "s0", hidden = c(16L, 16L), epochs = 300L,
              learn_rate = 0.003, batch_size = 128L, seed = r, threads = 1)
  cals <- list(
    split_truth = calibrate(fit, ca, method = "split", reference = "theta"),
    split_newanchor = calibrate(fit, ca, method = "split", reference = "anchor_new"),
    mc_model = calibrate(fit, ca, method = "mc_model", m = 50, seed = r),
    mc_model_ecdf = calibrate(fit, ca, method = "mc_model", m = 50, seed = r, correction = "ecdf"),
    sensor_anchored = calibrate(fit, ca, method = "sensor_anchored"),
    mc_empirical = calibrate(fit, ca, method = "mc_empirical", m = 50, seed = r))
  for (lev in levels) {
    add(r, "anchored", "credible", "theta", lev, suppressWarnings(predict(fit, te, interval = "credible", level = lev)), te$theta, te$x)
    add(r, "anchored", "prediction", "anchor_new", lev, suppressWarnings(predict(fit, te, interval = "prediction", level = lev)), te$anchor_new, te$x)
    for (nm in names(cals)) {
      tgt <- if (nm == "split_newanchor") "anchor_new" else "theta"
      add(r, "anchored", nm, tgt, lev, suppressWarnings(predict(cals[[nm]], te, level = lev)), te[[tgt]], te$x)
    }
  }
  # Reference model: co-location on a random 40 % of training rows; calibration rows all have a reference.
  tr$ref <- tr$s0; tr$ref[runif(ntr) > 0.4] <- NA
  ca$ref <- ca$s0
  fitr <- ncam(s1 + s2 + s3 ~ x, data = tr, reference = "ref", hidden = c(16L, 16L), epochs = 300L,
               learn_rate = 0.003, batch_size = 128L, seed = r, threads = 1)
  calr <- suppressMessages(calibrate(fitr, ca))  # default: split on the ref column
  stopifnot(calr$method == "split")
  for (lev in levels) {
    add(r, "reference", "prediction", "anchor_new", lev, suppressWarnings(predict(fitr, te, interval = "prediction", level = lev)), te$anchor_new, te$x)
    add(r, "reference", "credible", "theta", lev, suppressWarnings(predict(fitr, te, interval = "credible", level = lev)), te$theta, te$x)
    add(r, "reference", "split(default)", "anchor_new", lev, suppressWarnings(predict(calr, te, level = lev)), te$anchor_new, te$x)
  }
  cat(sprintf("%s rep %d %.1fs\n", noise_kind, r, as.numeric(Sys.time() - t0, units = "secs")))
}
saveRDS(do.call(rbind, res), sprintf("bench/coverage_sim/part2_%s.rds", noise_kind))
