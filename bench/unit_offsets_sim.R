options(width = 200)
# Unit offsets (ncam(unit = )) on data simulated with a bias that every sensor of a site shares
# (sd 1.5 between 8 sites), which the pooled model cannot learn: do their intervals cover the
# truth? simulate_colocation(days = 56, sites = 8) gives the truth, rh and temperature; three
# sensors and a reference (noise sd 0.5) are drawn around it. Training rows: even weeks, with
# the reference at sites 1-6 only; scored: odd weeks. 90 % credible intervals for the truth,
# per replication (one fit each), then mean and standard error over replications:
#   known    sites 1-6, which have offsets;  unknown  sites 7-8, which get the new-unit variance;
#   *_without_offsets  the same fit with its offsets removed (as fitted without `unit`).
# Offsets at the known sites. An offset is the site's departure from the pooled model's level,
# and offset_sd claims the error of that departure, not of the pooled model's own level on other
# weeks: the offsets of a fit average about 0 over its sites (the pooled model absorbed their mean
# bias), so a shift of the pooled level on the scored weeks is the same at every site, with offsets
# or without, and at the unknown sites too. Per replication, e = offset - scored mean (the site's
# mean of truth - estimate without offsets on its scored weeks) is split into its mean over the K
# = 6 known sites (shared) and the spread around that mean (the offsets' own error, times K / (K -
# 1) for the centring); the scored means' own noise (the variance of the four scored weeks' means
# over 4: weeks two apart are all but independent under the simulation's weather of two to three
# days) is split alike and taken off. Root mean squares over replications, with the standard error
# of the first two:
#   offset_error_rms   sqrt(mean(sum((e - mean(e))^2) / (K - 1)) - the same of the noise)
#   offset_sd_claimed  sqrt(mean(offset_sd^2))
#   shared_shift_rms   sqrt(mean(mean(e)^2)): the pooled model's level on the scored weeks against
#                      its level on the fitted ones; shared_shift_noise, its week-to-week part
#   level_change_known, level_change_unknown  RMS of the mean over the known (unknown) sites of
#                      (scored mean - mean on the fitted weeks) of truth - estimate without offsets:
#                      the shift reaches the sites without reference rows as much
#   offset_vs_scored_rms, scored_mean_noise  sqrt(mean(mean(e^2))) and the noise, unsplit;
#   total_error_rms    their difference in squares, which runs before this one called
#                      offset_error_rms: the offsets' error and the shared shift together
#   week_sd_fitted, week_sd_new  sd of a known site's weekly means of (truth - estimate without
#                      offsets) over the fitted (even) and the scored (odd) weeks, and (_site) of
#                      their departures from the known sites' mean of the week (times K / (K - 1)):
#                      what the reference rows show of the error's variation, what new weeks bring
# tau the fit's between-site sd and sqrt(new_unit_variance) beside the RMS of the scored mean at
# the unknown sites.
#
# Run (about 1 min): NCAM_LIB=<lib> nice -n 10 Rscript bench/unit_offsets_sim.R [replications] > bench/unit_offsets_sim.out
# bench/unit_offsets_sim.out holds a run of this build with this script; the run of the same
# estimator with the script before (40 replications, the offsets' error and the shared shift
# together as offset_error_rms); one before the between-unit variance was weighted by precision
# (commit ec7c850); and one before the noise of a unit's mean came from blocks of rows (commit
# dedd2d5: lag-1 autocorrelation), for comparison.

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
args <- commandArgs(TRUE)
replications <- if (length(args)) as.integer(args[1]) else 160L
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
  sites <- offsets$table$unit
  k <- length(sites)
  shift <- tapply(test$truth - without$.pred, test$unit, mean)
  fitted_estimate <- quiet(pooled, train)$.pred
  week_means <- function(rows, estimate) tapply(d$truth[rows] - estimate, list(d$unit[rows], week[rows]), mean)
  scored_weeks <- week_means(week %% 2 == 1, without$.pred)
  fitted_weeks <- week_means(week %% 2 == 0, fitted_estimate)
  # Each site's weekly means less the known sites' mean of the week, times K / (K - 1).
  site_part <- function(weeks) sweep(weeks[sites, ], 2, colMeans(weeks[sites, ])) * sqrt(k / (k - 1))
  weekly_ms <- function(weeks) mean(apply(weeks, 1, stats::var))
  error <- offsets$table$offset - shift[sites]
  level_change <- shift - rowMeans(fitted_weeks)[names(shift)]
  c(known = covers(with_offsets[known, ], test$truth[known]),
    unknown = covers(with_offsets[!known, ], test$truth[!known]),
    known_without_offsets = covers(without[known, ], test$truth[known]),
    unknown_without_offsets = covers(without[!known, ], test$truth[!known]),
    offset_own_ms = sum((error - mean(error))^2) / (k - 1),
    own_noise_ms = weekly_ms(site_part(scored_weeks)) / ncol(scored_weeks),
    offset_sd_ms = mean(offsets$table$offset_sd^2),
    shared_ms = mean(error)^2, shared_noise_ms = stats::var(colMeans(scored_weeks[sites, ])) / ncol(scored_weeks),
    level_change_known = mean(level_change[sites]), level_change_unknown = mean(level_change[c("u7", "u8")]),
    offset_vs_scored_ms = mean(error^2), scored_mean_noise_ms = weekly_ms(scored_weeks[sites, ]) / ncol(scored_weeks),
    week_fitted_ms = weekly_ms(fitted_weeks[sites, ]), week_new_ms = weekly_ms(scored_weeks[sites, ]),
    week_site_fitted_ms = weekly_ms(site_part(fitted_weeks)), week_site_new_ms = weekly_ms(site_part(scored_weeks)),
    tau = sqrt(offsets$tau2), new_unit_sd = sqrt(offsets$new_unit_variance),
    unknown_shift_rms = sqrt(mean(shift[c("u7", "u8")]^2)))
}

started <- proc.time()[["elapsed"]]
runs <- vapply(seq_len(replications), one_replication, numeric(20))
cat(sprintf("ncam %s, %d replications, %.1f min\n\n", utils::packageVersion("ncam"), replications,
            (proc.time()[["elapsed"]] - started) / 60))
cat("90 % credible intervals for the truth, coverage (mean and standard error over replications):\n")
rows <- c("known", "unknown", "known_without_offsets", "unknown_without_offsets")
print(data.frame(sites = rows, coverage = sprintf("%.3f", rowMeans(runs[rows, ])),
                 std_error = sprintf("%.3f", apply(runs[rows, ], 1, stats::sd) / sqrt(replications))),
      row.names = FALSE)
cat("\nOffsets at the known sites (root mean squares over replications):\n")
ms <- rowMeans(runs)
own <- runs["offset_own_ms", ] - runs["own_noise_ms", ]
rms_with_error <- function(x) c(sqrt(mean(x)), stats::sd(x) / sqrt(replications) / (2 * sqrt(mean(x))))
rms <- function(name) sqrt(ms[[name]])
offsets <- rbind(offset_error_rms = rms_with_error(own), offset_sd_claimed = rms_with_error(runs["offset_sd_ms", ]),
                 shared_shift_rms = c(rms("shared_ms"), NA), shared_shift_noise = c(rms("shared_noise_ms"), NA),
                 level_change_known = c(sqrt(mean(runs["level_change_known", ]^2)), NA),
                 level_change_unknown = c(sqrt(mean(runs["level_change_unknown", ]^2)), NA),
                 offset_vs_scored_rms = c(rms("offset_vs_scored_ms"), NA), scored_mean_noise = c(rms("scored_mean_noise_ms"), NA),
                 total_error_rms = c(sqrt(ms[["offset_vs_scored_ms"]] - ms[["scored_mean_noise_ms"]]), NA),
                 week_sd_fitted = c(rms("week_fitted_ms"), NA), week_sd_new = c(rms("week_new_ms"), NA),
                 week_sd_fitted_site = c(rms("week_site_fitted_ms"), NA), week_sd_new_site = c(rms("week_site_new_ms"), NA))
print(data.frame(quantity = rownames(offsets), value = sprintf("%.3f", offsets[, 1]),
                 std_error = ifelse(is.na(offsets[, 2]), "", sprintf("%.3f", offsets[, 2]))), row.names = FALSE)
cat(sprintf("correlation over replications of the level change at the known and the unknown sites: %.2f\n",
            stats::cor(runs["level_change_known", ], runs["level_change_unknown", ])))
cat("\nBetween sites (means over replications):\n")
rows <- c("tau", "new_unit_sd", "unknown_shift_rms")
print(data.frame(quantity = rows, value = sprintf("%.3f", rowMeans(runs[rows, ]))), row.names = FALSE)
