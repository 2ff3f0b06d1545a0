# The truth of simulate_colocation() over a few months (the figures of ?simulate_colocation,
# section Truth): its median, the sd of its log and its hour-to-hour autocorrelation, for the
# default 90 days from 2021-04-01, seeds 1-20, and for 90 days from autumn and winter starts
# (the truth has no seasonal term: only the weekdays the days fall on differ).
#
# Run (a few seconds): NCAM_LIB=<lib> Rscript bench/simulate_colocation_stats.R > bench/simulate_colocation_stats.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
truth_stats <- function(start, seed) {
  truth <- simulate_colocation(days = 90, start = start, seed = seed)$truth
  c(median = stats::median(truth), log_sd = stats::sd(log(truth)),
    lag1_autocorrelation = stats::acf(truth, lag.max = 1, plot = FALSE)$acf[2])
}
cat(sprintf("ncam %s from %s; %s\n\n", getNamespaceVersion("ncam"), dirname(system.file(package = "ncam")),
            format(Sys.time(), "%Y-%m-%d %H:%M")))
for (start in c("2021-04-01", "2021-10-01", "2022-01-01")) {
  runs <- sapply(1:20, function(seed) truth_stats(start, seed))
  cat(sprintf("90 days from %s, seeds 1-20: mean (range)\n", start))
  print(data.frame(statistic = rownames(runs), mean = rowMeans(runs), min = apply(runs, 1, min),
                   max = apply(runs, 1, max)), row.names = FALSE, digits = 3)
  cat("\n")
}
