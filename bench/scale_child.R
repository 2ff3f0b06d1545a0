#!/usr/bin/env Rscript
# Child process of bench/speed.R: times training on n toy rows and reports memory.
#   Rscript scale_child.R trainer|ncam n epochs reps [lib]
# trainer: ncam's trainer directly (H=64, batch 256, float, 2 threads), median over reps of the
#          time of `epochs` epochs; ncam: one ncam() fit with `epochs` epochs (H=64, 2 threads).
# Memory: VmRSS after the data are built (and gc()), then VmHWM reset through
# /proc/self/clear_refs, so the reported peak is that of the training alone plus the data.
a <- commandArgs(TRUE)
mode <- a[1]; n <- as.integer(a[2]); epochs <- as.integer(a[3]); reps <- as.integer(a[4])
lib <- if (length(a) >= 5 && nzchar(a[5])) a[5] else ""
if (nzchar(lib)) library(ncam, lib.loc = lib) else library(ncam)
vm <- function(field) {
  l <- grep(paste0("^", field, ":"), readLines("/proc/self/status", warn = FALSE), value = TRUE)
  as.numeric(sub("^[^0-9]*([0-9]+).*", "\\1", l)) / 1024
}
reset_hwm <- function() tryCatch({ cat("5", file = "/proc/self/clear_refs"); TRUE }, error = function(e) FALSE)
d <- simulate_toy(n, seed = 1)
if (mode == "trainer") {
  X <- as.matrix(d[, paste0("x", 1:4)]); B <- as.matrix(d[, paste0("sensor_", 0:2)])
  rm(d)
  spec <- list(n_covariates = 4L, n_sensors = 3L, hidden = c(64L, 64L, 64L), parameterization = 0L, anchor = 0L,
               logvar_min = -5, logvar_max = 4, lambda_prior = 0, lambda_sensor = 0)
  sc <- list(x_center = unname(colMeans(X)), x_scale = unname(apply(X, 2, sd)), b_shift = mean(B[, 1]),
             b_scale = sd(B[, 1]))
  adam <- list(learn_rate = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0, clip_norm = 0,
               batch_size = 256L)
  invisible(gc())
  reset <- reset_hwm()
  before <- vm("VmRSS")
  st <- ncam:::ncam_trainer_new(spec, X, B, sc, seq_len(n) - 1L, adam, 1, 2L, "float")
  ts <- vapply(seq_len(reps), function(i) {
    t0 <- proc.time()[["elapsed"]]
    for (e in seq_len(epochs)) ncam:::ncam_trainer_epoch(st)
    proc.time()[["elapsed"]] - t0
  }, 0)
  secs <- median(ts)
  df_mb <- NA
} else {
  df_mb <- as.numeric(object.size(d)) / 2^20
  invisible(gc())
  reset <- reset_hwm()
  before <- vm("VmRSS")
  t0 <- proc.time()[["elapsed"]]
  fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, data = d, anchor = "sensor_0",
              epochs = epochs, seed = 1, threads = 2)
  secs <- proc.time()[["elapsed"]] - t0
}
cat(sprintf('{"mode": "%s", "n": %d, "seconds": %.6f, "rss_before_mb": %.1f, "hwm_mb": %.1f, "hwm_reset": %s, "df_mb": %s}\n',
            mode, n, secs, before, vm("VmHWM"), tolower(reset), if (is.na(df_mb)) "null" else sprintf("%.1f", df_mb)))
