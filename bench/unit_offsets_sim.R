options(width = 200)
# Unit offsets (ncam(unit = )) on data simulated with a bias that every sensor of a site shares
# (sd 1.5 between 8 sites), which the pooled model cannot learn: do their intervals cover the
# truth? simulate_colocation(days = 56, sites = 8) gives the truth, rh and temperature; three
# sensors and a reference (noise sd 0.5) are drawn around it. Training rows: even weeks, with
# the reference at sites 1-6 only; scored: odd weeks. 90 % credible intervals for the truth,
# per replication (one fit each), then mean and standard error over replications:
#   known    sites 1-6, which have offsets;  unknown  sites 7-8, which get the new-unit variance;
#   *_without_offsets  the same fit with its offsets removed (as fitted without `unit`).
# Offsets: RMS error of each known site's offset against the mean of (truth - estimate) on its
# scored rows, beside the offset_sd the fit claims; tau the fit's between-site sd and
# sqrt(new_unit_variance) beside the RMS of that mean at the unknown sites.
#
# Run (about 10 s): NCAM_LIB=<lib> nice -n 10 Rscript bench/unit_offsets_sim.R [replications] > bench/unit_offsets_sim.out
# bench/unit_offsets_sim.out holds a run of this build and one of the build before the
# between-unit variance used K - 1 degrees of freedom (commit fe11c58), for comparison.

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
args <- commandArgs(TRUE)
replications <- if (length(args)) as.integer(args[1]) else 40L
covers <- function(p, truth) mean(p$.pred_lower <= truth & truth <= p$.pred_upper)

one_replication <- function(r) {
  d <- simulate_colocation(days = 56, colocation = 56, sites = 8, seed = 3000 + r)
  withr::local_seed(r)
  n <- nrow(d)
  truth <- d$truth
  site_bias <- stats::rnorm(8, 0, 1.5)[d$site]
  d$s1 <- 1.3 * truth + 0.5 + site_bias + stats::rnorm(n, 0, 1)
  d$s2 <- 1.2 * truth - 0.3 + site_bias + stats::rnorm(n, 0, 1.2)
  d$s3 <- 0.7 * truth + 1 + site_bias + stats::rnorm(n, 0, 0.8)
  d$rf <- truth + stats::rnorm(n, 0, 0.5)
  d$unit <- paste0("u", d$site)
  week <- as.integer(difftime(d$date, d$date[1], units = "days")) %/% 7
  train <- d[week %% 2 == 0, ]
  train$rf[train$site >= 7] <- NA
  test <- d[week %% 2 == 1, ]
  fit <- suppressWarnings(ncam(s1 + s2 + s3 ~ rh + temperature, data = train, reference = "rf", unit = "unit",
                               hidden = 8, epochs = 300, learn_rate = 0.01, seed = r, threads = 1))
  quiet <- function(object, newdata) suppressWarnings(predict(object, newdata, interval = "credible", level = 0.9, threads = 1))
  with_offsets <- quiet(fit, test)
  pooled <- fit
  pooled$unit_offsets <- NULL
  without <- quiet(pooled, test)
  known <- test$site <= 6
  offsets <- fit$unit_offsets
  shift <- tapply(test$truth - without$.pred, test$unit, mean)
  c(known = covers(with_offsets[known, ], test$truth[known]),
    unknown = covers(with_offsets[!known, ], test$truth[!known]),
    known_without_offsets = covers(without[known, ], test$truth[known]),
    unknown_without_offsets = covers(without[!known, ], test$truth[!known]),
    offset_error_rms = sqrt(mean((shift[offsets$table$unit] - offsets$table$offset)^2)),
    offset_sd_claimed = sqrt(mean(offsets$table$offset_sd^2)),
    # builds before new_unit_variance gave an unknown unit tau2 alone
    tau = sqrt(offsets$tau2), new_unit_sd = sqrt(if (is.null(offsets$new_unit_variance)) offsets$tau2 else offsets$new_unit_variance),
    unknown_shift_rms = sqrt(mean(shift[c("u7", "u8")]^2)))
}

started <- proc.time()[["elapsed"]]
runs <- vapply(seq_len(replications), one_replication, numeric(9))
cat(sprintf("ncam %s, %d replications, %.1f min\n\n", utils::packageVersion("ncam"), replications,
            (proc.time()[["elapsed"]] - started) / 60))
cat("90 % credible intervals for the truth, coverage (mean and standard error over replications):\n")
rows <- c("known", "unknown", "known_without_offsets", "unknown_without_offsets")
print(data.frame(sites = rows, coverage = sprintf("%.3f", rowMeans(runs[rows, ])),
                 std_error = sprintf("%.3f", apply(runs[rows, ], 1, stats::sd) / sqrt(replications))),
      row.names = FALSE)
cat("\nOffsets (means over replications):\n")
rows <- c("offset_error_rms", "offset_sd_claimed", "tau", "new_unit_sd", "unknown_shift_rms")
print(data.frame(quantity = rows, value = sprintf("%.3f", rowMeans(runs[rows, ]))), row.names = FALSE)
