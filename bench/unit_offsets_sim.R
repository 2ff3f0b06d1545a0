options(width = 200)
# Unit offsets (ncam(unit = )) on data simulated with a bias that every sensor of a site shares
# (sd 1.5 between 8 sites), which the pooled model cannot learn: do their intervals cover the
# truth? simulate_colocation(days = 56, sites = 8) gives the truth, rh and temperature; three
# sensors and a reference (noise sd 0.5) are drawn around it. Training rows: even weeks, with
# the reference at sites 1-6 only; scored: odd weeks. 90 % credible intervals for the truth,
# per replication (one fit each), then mean and standard error over replications:
#   known    sites 1-6, which have offsets;  unknown  sites 7-8, which get the new-unit variance;
#   *_without_offsets  the same fit with its offsets removed (as fitted without `unit`).
# Offsets, as root mean squares over replications (and over the known sites): offset_sd is the
# error of a site's offset as an estimate of the site's long-run bias, the mean of (truth -
# estimate) it would show over many weeks. The mean on its scored weeks estimates that bias with
# an error of its own, whose variance (the variance of the four scored weeks' means over 4:
# weeks two apart are all but independent under the simulation's weather of two to three days)
# is taken off the mean squared difference from the offset:
#   offset_error_rms   sqrt(mean((offset - scored mean)^2) - mean(var(scored weeks' means) / 4))
#   offset_sd_claimed  sqrt(mean(offset_sd^2));  scored_mean_noise  sqrt(mean(var(...) / 4))
#   offset_vs_scored_rms  sqrt(mean((offset - scored mean)^2)): the scored mean taken as the
#                      bias itself, as runs before this one did (there as a mean of RMS per replication)
#   week_sd_fitted, week_sd_new  sd of a known site's weekly means of (truth - estimate without
#                      offsets) over the fitted (even) and the scored (odd) weeks: what the
#                      reference rows can show of the error's variation, and what new weeks bring
# tau the fit's between-site sd and sqrt(new_unit_variance) beside the RMS of the scored mean at
# the unknown sites.
#
# Run (about 15 s): NCAM_LIB=<lib> nice -n 10 Rscript bench/unit_offsets_sim.R [replications] > bench/unit_offsets_sim.out
# bench/unit_offsets_sim.out holds a run of this build, one before the between-unit variance was
# weighted by precision (commit ec7c850) and one before the noise of a unit's mean came from
# blocks of rows (commit dedd2d5: lag-1 autocorrelation), for comparison.

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
  week_means <- function(rows, estimate) tapply(d$truth[rows] - estimate, list(d$unit[rows], week[rows]), mean)[offsets$table$unit, ]
  scored_weeks <- week_means(week %% 2 == 1, without$.pred)
  fitted_weeks <- week_means(week %% 2 == 0, quiet(pooled, train)$.pred)
  c(known = covers(with_offsets[known, ], test$truth[known]),
    unknown = covers(with_offsets[!known, ], test$truth[!known]),
    known_without_offsets = covers(without[known, ], test$truth[known]),
    unknown_without_offsets = covers(without[!known, ], test$truth[!known]),
    offset_vs_scored_ms = mean((shift[offsets$table$unit] - offsets$table$offset)^2),
    scored_mean_noise_ms = mean(apply(scored_weeks, 1, stats::var) / ncol(scored_weeks)),
    offset_sd_ms = mean(offsets$table$offset_sd^2),
    week_fitted_ms = mean(apply(fitted_weeks, 1, stats::var)), week_new_ms = mean(apply(scored_weeks, 1, stats::var)),
    # builds before new_unit_variance gave an unknown unit tau2 alone
    tau = sqrt(offsets$tau2), new_unit_sd = sqrt(if (is.null(offsets$new_unit_variance)) offsets$tau2 else offsets$new_unit_variance),
    unknown_shift_rms = sqrt(mean(shift[c("u7", "u8")]^2)))
}

started <- proc.time()[["elapsed"]]
runs <- vapply(seq_len(replications), one_replication, numeric(12))
cat(sprintf("ncam %s, %d replications, %.1f min\n\n", utils::packageVersion("ncam"), replications,
            (proc.time()[["elapsed"]] - started) / 60))
cat("90 % credible intervals for the truth, coverage (mean and standard error over replications):\n")
rows <- c("known", "unknown", "known_without_offsets", "unknown_without_offsets")
print(data.frame(sites = rows, coverage = sprintf("%.3f", rowMeans(runs[rows, ])),
                 std_error = sprintf("%.3f", apply(runs[rows, ], 1, stats::sd) / sqrt(replications))),
      row.names = FALSE)
cat("\nOffsets at the known sites (root mean squares over replications):\n")
ms <- rowMeans(runs)
offsets <- c(offset_error_rms = sqrt(ms[["offset_vs_scored_ms"]] - ms[["scored_mean_noise_ms"]]),
             offset_sd_claimed = sqrt(ms[["offset_sd_ms"]]), offset_vs_scored_rms = sqrt(ms[["offset_vs_scored_ms"]]),
             scored_mean_noise = sqrt(ms[["scored_mean_noise_ms"]]), week_sd_fitted = sqrt(ms[["week_fitted_ms"]]),
             week_sd_new = sqrt(ms[["week_new_ms"]]))
print(data.frame(quantity = names(offsets), value = sprintf("%.3f", offsets)), row.names = FALSE)
cat("\nBetween sites (means over replications):\n")
rows <- c("tau", "new_unit_sd", "unknown_shift_rms")
print(data.frame(quantity = rows, value = sprintf("%.3f", rowMeans(runs[rows, ]))), row.names = FALSE)
