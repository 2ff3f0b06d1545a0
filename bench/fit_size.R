# Size and memory of a fit (issue: lean models). Rerun: Rscript bench/fit_size.R [rows]
# Prints the fit's size in memory and as .rds, whether predictions from the reloaded model are
# identical, and the peak R heap during ncam() against the size of the columns it reads.
library(ncam)
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args)) as.integer(args[1]) else 200000L
toy <- simulate_toy(n = n, seed = 1)
cols <- toy[c(paste0("sensor_", 0:2), paste0("x", 1:4))]
columns_mb <- as.numeric(object.size(cols)) / 2^20
# Peak resident memory of this process during ncam(), as bench/speed.R measures it: VmHWM after
# resetting it (Linux), less the resident size before.
status_mb <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", line)) / 1024
}
invisible(gc())
before <- status_mb("VmRSS")
writeLines("5", "/proc/self/clear_refs")
# Package defaults (hidden 64 x 3, batch 256, ...) except epochs: the size of a fit does not
# depend on how long it trains beyond one history row per epoch.
fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, data = toy, epochs = 5L, seed = 1L)
peak <- status_mb("VmHWM") - before
rds <- tempfile(fileext = ".rds")
saveRDS(fit, rds)
same <- identical(predict(readRDS(rds), toy), predict(fit, toy))
cat(sprintf("rows: %d\nfit in memory: %.3f MB\nfit as .rds: %.3f MB\n", n,
            as.numeric(object.size(fit)) / 2^20, file.size(rds) / 2^20))
cat(sprintf("predictions of the reloaded fit identical: %s\n", same))
cat(sprintf("columns read by ncam(): %.1f MB; peak extra resident memory during ncam(): %.1f MB (%.2fx)\n",
            columns_mb, peak, peak / columns_mb))
# Fits made inside a function (a purrr lambda, a helper, ncam_by()) must not carry the caller's
# data either: serialize() counts what object.size() leaves out (environments).
small <- toy[seq_len(min(n, 5000L)), ]
small$site <- rep(1:2, length.out = nrow(small))
in_function <- list(
  "ncam_by() in a function" = function(d) ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d, by = "site",
                                                 hidden = 4, epochs = 10, seed = 1, threads = 1),
  "do.call(ncam, list(formula, ...))" = function(d) {
    formula <- sensor_0 + sensor_1 + sensor_2 ~ x1
    do.call(ncam, list(formula, data = d, hidden = 4, epochs = 10, seed = 1, threads = 1))
  },
  "a local object named like a column" = function(d) {
    sensor_0 <- d
    ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d, hidden = 4, epochs = 10, seed = 1, threads = 1)
  })
cat(sprintf("\n%d rows serialize to %.1f KB; fits made in a function:\n", nrow(small), length(serialize(small, NULL)) / 1024))
for (what in names(in_function)) {
  made <- suppressWarnings(in_function[[what]](small), classes = c("ncam_warning_not_converged", "ncam_warning_clamp"))
  cat(sprintf("  %-36s %.1f KB serialized\n", what, length(serialize(made, NULL)) / 1024))
}
