#!/usr/bin/env Rscript
# Child process of bench/speed.R: times training on n toy rows and reports memory.
#   Rscript scale_child.R trainer|ncam n epochs reps [lib]
# trainer: ncam's trainer directly (H=64, batch 256, float, 2 threads), median over reps of the
#          time of `epochs` epochs; ncam: one ncam() fit with `epochs` epochs (H=64, 2 threads).
# Memory: VmRSS after the data are built (and gc()), then VmHWM reset through
# /proc/self/clear_refs, so the reported peak is that of the training alone plus the data.
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
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
  inp <- toy_engine_inputs(d)
  X <- inp$X; B <- inp$B; spec <- inp$spec; sc <- inp$sc; adam <- inp$adam
  rm(d)
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
