# Daily means with intervals (average_estimates()): does a 24-hour mean's interval cover the
# reference's 24-hour mean? SensEURCity Antwerp, the three stations with two boxes (hourly, no
# covariates: box_1 + box_2 ~ 1), the reference as anchor on the first 20 % of each station's
# hours (as in bench/colocation.R), scored on the rest; seeds 1-3, package defaults.
# Per station and seed: coverage of the hourly 90 % "prediction" intervals of the reference;
# the autocorrelation of the standardised hourly errors (ref - .pred) / .pred_sd at 1, 6, 12
# and 24 hours; coverage of the reference's daily mean (days with >= 75 % of their hours,
# Europe/Brussels days) by (a) average_estimates()'s averaged bounds and (b) a normal interval
# with the hours taken as independent (sd of the mean sqrt(sum sd^2) / n); the same for
# calibrate(method = "split") intervals, the fit then taking the reference on the first 15 % of
# the hours and the split calibration the next 5 % (hours whose reference the fit never saw).
#
# Run (about 1 min): NCAM_LIB=<lib> nice -n 10 Rscript bench/daily_means.R > bench/daily_means.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
options(width = 200)
level <- 0.9
z <- stats::qnorm((1 + level) / 2)
antwerp <- as.data.frame(read_senseurcity_antwerp(file.path(shared_data_dir(), "senseurcity-antwerp-ineris")))
attr(antwerp$date, "tzone") <- "Europe/Brussels"  # the same instants, days by the local calendar
stations <- unique(antwerp$station[!is.na(antwerp$box_2)])
cat(sprintf("ncam %s from %s; %s\n", packageVersion("ncam"), find.package("ncam"), format(Sys.time(), "%Y-%m-%d %H:%M %Z")))

# Coverage of the daily reference means by average_estimates() and by the independent-hours
# interval, for the scored rows' estimates `est` (predict()/calibrate() output).
daily_coverage <- function(scored, est) {
  hours <- cbind(scored[c("date", "ref")], est[c(".pred", ".pred_lower", ".pred_upper", ".pred_sd")])
  days <- average_estimates(hours, columns = "ref")
  # The independent-hours interval, on the same days (the same hours, by the same rule).
  hours$var <- hours$.pred_sd^2
  hours$var[is.na(hours$.pred)] <- NA
  mean_variance <- average_estimates(transform(hours, .pred_sd = var)[c("date", ".pred", ".pred_sd")])
  independent_sd <- sqrt(mean_variance$.pred_sd / mean_variance$.n_estimates)
  ok <- !is.na(days$.pred) & !is.na(days$ref)
  inside <- function(lower, upper) mean(days$ref[ok] >= lower[ok] & days$ref[ok] <= upper[ok])
  c(days = sum(ok), averaged = inside(days$.pred_lower, days$.pred_upper),
    independent = inside(days$.pred - z * independent_sd, days$.pred + z * independent_sd),
    width_ratio = median(((days$.pred_upper - days$.pred_lower) / (2 * z * independent_sd))[ok]))
}

rows <- list()
for (station in stations) {
  d <- antwerp[antwerp$station == station, ]
  d <- d[order(d$date), ]
  labelled <- seq_len(ceiling(0.2 * nrow(d)))
  held_out <- setdiff(labelled, seq_len(ceiling(0.15 * nrow(d))))
  train <- d
  train$ref[-labelled] <- NA
  train_cal <- train
  train_cal$ref[held_out] <- NA
  scored <- d[-labelled, ]
  for (seed in 1:3) {
    fit <- suppressWarnings(ncam(box_1 + box_2 ~ 1, data = train, reference = "ref", seed = seed, threads = 1),
                            classes = "ncam_warning_few_reference_rows")
    model <- suppressWarnings(predict(fit, scored, interval = "prediction", level = level), classes = "ncam_warning_extrapolation")
    fit_cal <- suppressWarnings(ncam(box_1 + box_2 ~ 1, data = train_cal, reference = "ref", seed = seed, threads = 1),
                                classes = "ncam_warning_few_reference_rows")
    calibrated <- suppressWarnings(predict(calibrate(fit_cal, d[held_out, ], method = "split", level = level), scored),
                                   classes = "ncam_warning_extrapolation")
    errors <- (scored$ref - model$.pred) / model$.pred_sd
    acf_at <- stats::acf(errors, lag.max = 24, plot = FALSE, na.action = stats::na.pass)$acf[c(2, 7, 13, 25)]
    hourly <- function(est) mean(scored$ref >= est$.pred_lower & scored$ref <= est$.pred_upper, na.rm = TRUE)
    m <- daily_coverage(scored, model)
    k <- daily_coverage(scored, calibrated)
    rows[[length(rows) + 1L]] <- data.frame(
      station = station, seed = seed, hours = sum(!is.na(scored$ref) & !is.na(model$.pred)), days = m[["days"]],
      acf_1h = acf_at[1], acf_6h = acf_at[2], acf_12h = acf_at[3], acf_24h = acf_at[4],
      hourly_cov = hourly(model), daily_cov_averaged = m[["averaged"]], daily_cov_independent = m[["independent"]],
      width_ratio = m[["width_ratio"]],
      cal_hourly_cov = hourly(calibrated), cal_daily_cov_averaged = k[["averaged"]], cal_daily_cov_independent = k[["independent"]])
  }
}
tab <- do.call(rbind, rows)
cat("\nNominal level", level, "; coverage of the reference (hours) and of its daily mean (days); width_ratio = averaged-bounds width / independent-hours width (median over days)\n")
print(format(tab, digits = 3), row.names = FALSE)
range_of <- function(x) sprintf("%.2f-%.2f", min(x), max(x))
cat(sprintf(paste0("\nOver stations and seeds: lag-1 h autocorrelation %s, lag-24 h %s; model intervals cover %s of hours, ",
                   "daily means %s (averaged bounds) vs %s (independent hours); calibrated: hours %s, days %s vs %s.\n"),
            range_of(tab$acf_1h), range_of(tab$acf_24h), range_of(tab$hourly_cov), range_of(tab$daily_cov_averaged),
            range_of(tab$daily_cov_independent), range_of(tab$cal_hourly_cov), range_of(tab$cal_daily_cov_averaged),
            range_of(tab$cal_daily_cov_independent)))
