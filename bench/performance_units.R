# Time of sensor_performance() on 1e6 hourly rows of 1000 units (24-hour means per unit and
# day). Run with two libraries to compare versions:
#   R_LIBS=<lib> Rscript bench/performance_units.R [rows] [units]
args <- as.numeric(commandArgs(trailingOnly = TRUE))
rows <- if (length(args) >= 1) args[1] else 1e6
units <- if (length(args) >= 2) args[2] else 1000
suppressPackageStartupMessages(library(ncam))
set.seed(1)
per_unit <- rows / units
obs <- data.frame(date = as.POSIXct("2024-01-01", tz = "UTC") + 3600 * rep(seq_len(per_unit) - 1, units),
                  unit = rep(sprintf("u%04d", seq_len(units)), each = per_unit))
obs$ref <- stats::rlnorm(rows, log(10), 0.5)
obs$est <- 1.2 * obs$ref + stats::rnorm(rows)
elapsed <- system.time(res <- suppressWarnings(suppressMessages(
  sensor_performance(obs, "est", "ref", unit = "unit"))))[["elapsed"]]
cat(sprintf("%g rows, %g units: sensor_performance() %.1f s (%d result rows, sum of RMSE %.6f)\n",
            rows, units, elapsed, nrow(res), sum(res$rmse, na.rm = TRUE)))
# The methods of the table (builds from session 40 on): seconds of each on this result.
if (inherits(res, "ncam_performance")) {
  seconds <- function(expr) system.time(expr)[["elapsed"]]
  cat(sprintf("  methods: tidy() %.3f s (%d rows), glance() %.3f s, print() %.3f s (%d lines), autoplot() built %.2f s\n",
              seconds(long <- tidy(res)), nrow(long), seconds(glance(res)),
              seconds(printed <- utils::capture.output(print(res))), length(printed),
              seconds(ggplot2::ggplot_build(ggplot2::autoplot(res)))))
}
