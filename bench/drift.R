# sensor_drift(): does it flag a sensor that drifts, and only then? And on real data, do the
# periods it flags hold the worse estimates?
#
#   NCAM_LIB=<lib> nice -n 10 Rscript bench/drift.R > bench/drift.out   (1-7 min)
#
# 1. Simulated (simulate_toy(), three sensors, one row per day for four years): fit on the
#    first year (hidden 8, 200 epochs), check all four years by month; from the start of year 3
#    sensor_2 reads k of its own noise standard deviations high (k = 0 is no drift). 100 data
#    sets per k. Reported: the share of data sets with any flag before the drift (family-wise
#    false alarms over the 72 checks of two years; sensor_drift() aims at alpha = 0.01 over all
#    144), the share of sensor_2's drifted months flagged (power), of the other sensors' months
#    after the start flagged (they look shifted the other way), and how often sensor_2 has the
#    largest |mean_z| after the start.
# 2. PurpleAir beside AQS (18 sites, daily; the short co-location protocol of
#    bench/colocation.R: the first 10 % of each site's days carry the reference), one default
#    fit, checked per site and month. The low-cost sensors' flags (A against B) beside the
#    error of the fused estimate against the reference in the same site-month (checked without
#    the reference column, as after a co-location), and the
#    reference's own flags (the reference against the low-cost sensors' estimate, possible
#    here because the reference exists on every day) by months since the co-location.
options(width = 200)
lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
started <- proc.time()[["elapsed"]]
cat(sprintf("ncam %s from %s; %s\n", getNamespaceVersion("ncam"), dirname(system.file(package = "ncam")),
            format(Sys.time(), "%Y-%m-%d %H:%M")))

# ---- 1. Simulation ---------------------------------------------------------------------------
days <- 4 * 365
drift_start <- as.Date("2021-01-01") + 2 * 365
n_sets <- 100
sim_rows <- list()
for (seed in seq_len(n_sets)) {
  toy <- simulate_toy(days, seed = seed)
  toy$date <- as.Date("2021-01-01") + seq_len(days) - 1
  fit <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy[1:365, ], hidden = 8, epochs = 200,
                               learn_rate = 0.02, seed = seed, threads = 1), classes = "ncam_warning_not_converged")
  params <- sensor_params(fit, toy[1:365, ])
  noise_sd <- stats::median(params$sigma[params$sensor == "sensor_2"])
  for (k in c(0, 0.25, 0.5, 1, 2)) {
    drifted <- toy
    later <- drifted$date >= drift_start
    drifted$sensor_2[later] <- drifted$sensor_2[later] + k * noise_sd
    dr <- sensor_drift(fit, drifted, period = "month")
    after <- dr$period >= drift_start
    own <- dr$sensor == "sensor_2"
    sim_rows[[length(sim_rows) + 1L]] <- data.frame(
      k = k, before = any(dr$drift[!after]), any = any(dr$drift), flagged = mean(dr$drift[own & after]),
      others = mean(dr$drift[!own & after]),
      largest = mean(tapply(abs(dr$mean_z[after]), dr$period[after], function(v) which.max(v)) == 3L))
  }
}
sim <- do.call(rbind, sim_rows)
cat(sprintf("\n1. Simulated drift of sensor_2 by k noise sds from year 3 (%d data sets per k; 48 months x 3 sensors checked each):\n", n_sets))
tab <- do.call(rbind, lapply(split(sim, sim$k), function(s) {
  data.frame(k = s$k[1], any_flag_before_drift = mean(s$before),
             sensor_2_months_flagged = mean(s$flagged), other_sensors_months_flagged = mean(s$others),
             sensor_2_largest_mean_z = mean(s$largest))
}))
print(tab, row.names = FALSE, digits = 3)
cat(sprintf("k = 0: every month is 'after' in name only (no drift), so its columns after the drift are false alarms too;\nany flag in all 144 checks of the four years: %.2f of the data sets.\n", mean(sim$any[sim$k == 0])))
cat("sensor_2_largest_mean_z: share of months after the start where sensor_2 has the largest |mean_z| of the three.\n")

# ---- 1b. Hourly, autocorrelated -------------------------------------------------------------
# A latent level that wanders for days (AR(1) per hour, rho 0.95, sd 8, around 20 + 3 x) and
# three sensors (gains 1, 1.3, 0.8; offsets 0, 3, -2) with AR(1) noise of lag-1 correlation
# rho_noise (sd 2, 3, 2.5); x an hourly covariate that wanders too. ncam(s1 + s2 + s3 ~ x) on the
# first 60 days (hidden 8, 150 epochs), checked by week on the next 90 days; from day 105 s3
# reads k of its noise sds high. 40 data sets per cell.
ar1 <- function(n, rho, sd) as.numeric(stats::filter(stats::rnorm(n, 0, sd * sqrt(1 - rho^2)), rho, "recursive",
                                                      init = stats::rnorm(1, 0, sd)))
hourly_rows <- list()
for (rho_noise in c(0, 0.5, 0.9)) {
  for (rep in 1:40) {
    set.seed(1000 * rep + 10 * rho_noise)
    n <- 24 * 150
    x <- ar1(n, 0.99, 1)
    theta <- 20 + 3 * x + ar1(n, 0.95, 8)
    d <- data.frame(date = as.POSIXct("2023-01-01", tz = "UTC") + 3600 * (seq_len(n) - 1), x = x)
    for (j in 1:3) d[[paste0("s", j)]] <- c(1, 1.3, 0.8)[j] * theta + c(0, 3, -2)[j] + ar1(n, rho_noise, c(2, 3, 2.5)[j])
    train <- d[seq_len(24 * 60), ]
    fit <- suppressWarnings(ncam(s1 + s2 + s3 ~ x, data = train, hidden = 8, epochs = 150, learn_rate = 0.01,
                                 seed = rep, threads = 1), classes = c("ncam_warning_not_converged", "ncam_warning_clamp"))
    test <- d[-seq_len(24 * 60), ]
    for (k in c(0, 1)) {
      drifted <- test
      later <- drifted$date >= as.POSIXct("2023-04-16", tz = "UTC")
      drifted$s3[later] <- drifted$s3[later] + k * 2.5
      dr <- sensor_drift(fit, drifted, period = "week")
      after <- dr$period >= as.POSIXct("2023-04-17", tz = "UTC")  # the first whole week after the start
      hourly_rows[[length(hourly_rows) + 1L]] <- data.frame(
        rho_noise = rho_noise, k = k, any_flag = any(dr$drift, na.rm = TRUE),
        before = any(dr$drift[dr$period < as.POSIXct("2023-04-10", tz = "UTC")], na.rm = TRUE),
        flagged = mean(dr$drift[dr$sensor == "s3" & after], na.rm = TRUE))
    }
  }
}
hourly <- do.call(rbind, hourly_rows)
cat("\n1b. Hourly data with wandering levels and AR(1) sensor noise, weekly checks of 90 days after a 60-day fit (40 data sets per row):\n")
print(stats::aggregate(cbind(any_flag, before, flagged) ~ rho_noise + k, hourly, mean), row.names = FALSE, digits = 3)
cat("any_flag: any week flagged (k = 0: false alarms, aim <= 0.01); before: any flag in the weeks before the drift;\nflagged: share of s3's whole weeks after the drift start flagged (k = 1: a step of one noise sd).\n")

# ---- 2. PurpleAir ----------------------------------------------------------------------------
d <- as.data.frame(read_purpleair_aqs(file.path(shared_data_dir(), "purpleair-aqs-daily-mathieu",
                                                "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv")))
site_rows <- split(seq_len(nrow(d)), d$site)
first_days <- unlist(lapply(site_rows, function(i) i[order(d$date[i])][seq_len(ceiling(0.1 * length(i)))]))
train <- d
train$ref[-first_days] <- NA
fit <- ncam(pa_a + pa_b ~ rh + temperature, data = train, reference = "ref", seed = 1, threads = 1)
estimate <- suppressWarnings(predict(fit, d)$.pred, classes = "ncam_warning_extrapolation")
# After the co-location the user has A, B and the covariates only: the sensors' check without the
# reference column; the reference's own check with it.
dr <- sensor_drift(fit, d[setdiff(names(d), "ref")], unit = "site", period = "month")
dr_ref <- sensor_drift(fit, d, unit = "site", period = "month")
d$month <- as.Date(cut(d$date, "month"))
d$err <- estimate - d$ref
cell <- paste(d$site, d$month)
month_error <- data.frame(key = unique(cell))
month_error$rmse <- tapply(d$err, cell, function(e) sqrt(mean(e^2, na.rm = TRUE)))[month_error$key]
month_error$abs_bias <- abs(tapply(d$err, cell, mean, na.rm = TRUE))[month_error$key]
flags <- function(s, table = dr) {
  x <- table[table$sensor == s, ]
  stats::setNames(x$drift, paste(x$site, x$period))
}
month_error$sensor_flag <- flags("pa_a")[month_error$key] | flags("pa_b")[month_error$key]
month_error$ref_flag <- flags("ref", dr_ref)[month_error$key]
month_error <- month_error[!is.na(month_error$sensor_flag) & is.finite(month_error$rmse), ]
cat(sprintf("\n2. PurpleAir: %d site-months with readings; default fit (seed 1) on the short co-location (%d labelled days)\n",
            nrow(month_error), length(first_days)))
cat(sprintf("flagged share of site-months: pa_a %.3f, pa_b %.3f, ref %.3f; lag-1 autocorrelation allowed for as in ?sensor_drift\n",
            mean(dr$drift[dr$sensor == "pa_a"], na.rm = TRUE), mean(dr$drift[dr$sensor == "pa_b"], na.rm = TRUE),
            mean(dr_ref$drift[dr_ref$sensor == "ref"], na.rm = TRUE)))
summarise <- function(groups) do.call(rbind, lapply(names(groups), function(g) {
  x <- month_error[groups[[g]], ]
  data.frame(site_months = g, n = nrow(x), rmse = mean(x$rmse), abs_bias = mean(x$abs_bias),
             ref_flagged_share = mean(x$ref_flag, na.rm = TRUE))
}))
cat("\nError of the fused estimate (from A, B, rh, T) against the reference, mean over site-months:\n")
print(summarise(list("A or B flagged" = month_error$sensor_flag, "neither flagged" = !month_error$sensor_flag,
                     "reference flagged" = month_error$ref_flag %in% TRUE, "reference not flagged" = month_error$ref_flag %in% FALSE)),
      row.names = FALSE, digits = 3)
ref_rows <- dr_ref[dr_ref$sensor == "ref" & !is.na(dr_ref$drift), ]
colocated_until <- tapply(d$date[first_days], d$site[first_days], max)
months_since <- as.numeric(ref_rows$period - as.Date(colocated_until[as.character(ref_rows$site)], origin = "1970-01-01")) / 30.44
band <- cut(months_since, c(-Inf, 0, 3, 6, 12, Inf), labels = c("co-location", "0-3", "3-6", "6-12", "over 12"))
cat("\nThe reference's flags (calibration off) by months since the site's co-location:\n")
print(data.frame(months_since = levels(band), site_months = as.vector(table(band)),
                 flagged_share = as.vector(tapply(ref_rows$drift, band, mean)),
                 mean_abs_shift = as.vector(tapply(abs(ref_rows$shift), band, mean))), row.names = FALSE, digits = 3)
cat(sprintf("\nelapsed %.0f s\n", proc.time()[["elapsed"]] - started))
