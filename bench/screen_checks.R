# Time of the checks ncam() runs on the readings before training (units, copies, magnitudes,
# sensors linked to the anchor), beside stats::cor(use = "pairwise.complete.obs") on the same
# readings as a peer (the copy check needs the same pairwise sums). One run, this machine.
# Rerun: Rscript bench/screen_checks.R [rows]
library(ncam)
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args)) as.integer(args[1]) else 1000000L
set.seed(1)
truth <- stats::rgamma(n, 3, 0.3)
for (k in c(3L, 10L)) {
  readings <- lapply(seq_len(k), function(j) 1.1^j * truth + stats::rnorm(n))
  names(readings) <- paste0("s", seq_len(k))
  readings[[2]][sample(n, n %/% 3)] <- NA  # one sensor misses a third of the rows
  rows <- seq_len(n)
  checks <- system.time({
    ncam:::check_readings(readings, rows)
    ncam:::check_linked(readings, rows, "s1")
  })[["elapsed"]]
  peer <- system.time(stats::cor(do.call(cbind, readings), use = "pairwise.complete.obs"))[["elapsed"]]
  cat(sprintf("%d sensors x %d rows: ncam checks %.2f s; pairwise cor() %.2f s (ratio %.2f)\n",
              k, n, checks, peer, checks / peer))
}
