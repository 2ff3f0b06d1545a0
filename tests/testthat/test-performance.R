# Numbers are checked against lm(), hand-written formulas and an eigen decomposition,
# never against the function's own earlier output.

daily_dates <- function(n) as.Date("2024-01-01") + seq_len(n) - 1L

# A series whose residual on the reference has exactly the given sum of squares and is
# uncorrelated with it, so R^2 = Sxx / (Sxx + ss) holds by construction.
orthogonal_noise <- function(x, ss, seed = 1) {
  e <- withr::with_seed(seed, stats::rnorm(length(x)))
  e <- stats::residuals(stats::lm(e ~ x))
  e * sqrt(ss / sum(e^2))
}

quiet_performance <- function(...) suppressMessages(sensor_performance(...))

test_that("performance_targets() holds the cited EPA and EU values", {
  targets <- performance_targets()
  expect_s3_class(targets, "tbl_df")
  value <- function(p, m, side) targets[[side]][targets$pollutant == p & targets$metric == m]
  # EPA/600/R-20/280 (PM2.5, 24 h) and EPA/600/R-20/279 (O3, 1 h).
  expect_equal(value("pm25", "r2", "lower"), 0.70)
  expect_equal(c(value("pm25", "slope", "lower"), value("pm25", "slope", "upper")), c(0.65, 1.35))
  expect_equal(c(value("pm25", "intercept", "lower"), value("pm25", "intercept", "upper")),
               c(-5, 5))
  expect_equal(c(value("pm25", "rmse", "upper"), value("pm25", "nrmse", "upper")), c(7, 30))
  expect_equal(c(value("pm25", "sd", "upper"), value("pm25", "cv", "upper")), c(5, 30))
  expect_equal(value("o3", "r2", "lower"), 0.80)
  expect_equal(c(value("o3", "slope", "lower"), value("o3", "slope", "upper")), c(0.8, 1.2))
  expect_equal(c(value("o3", "rmse", "upper"), value("o3", "sd", "upper")), c(5, 5))
  expect_length(value("o3", "nrmse", "upper"), 0L)
  # EU (Directive 2008/50/EC): DQO for indicative measurements (Annex I) at the O3 target value
  # of 120 ug/m3 (Annex VII) and the NO2 1-hour limit value of 200 ug/m3 (Annex XI), each in the
  # unit the Directive sets it in.
  expect_equal(c(value("pm25", "expanded_uncertainty", "upper"),
                 value("o3", "expanded_uncertainty", "upper"),
                 value("no2", "expanded_uncertainty", "upper")), c(50, 30, 25))
  expect_equal(value("pm25", "limit_value", "upper"), 30)
  expect_equal(value("o3", "limit_value", "upper"), 120)
  expect_equal(value("no2", "limit_value", "upper"), 200)
  expect_identical(targets$unit[targets$metric == "limit_value"], rep("ug/m3", 3))
  expect_identical(targets$unit[targets$pollutant == "o3" & targets$framework == "US EPA" &
                                  targets$metric %in% c("intercept", "rmse", "sd")], rep("ppb", 3))
  expect_identical(targets$framework[targets$pollutant == "no2"], c("EU", "EU"))
  expect_setequal(unique(targets$averaging[targets$pollutant == "pm25"]), "24 hours")
  expect_setequal(unique(targets$averaging[targets$pollutant %in% c("o3", "no2")]), "1 hour")
  expect_false(anyNA(targets$source))
  expect_identical(performance_targets("no2"), targets[targets$pollutant == "no2", ])
  expect_error(performance_targets("pm10"), "pollutant", class = "ncam_error")
})

test_that("the help pages cite CEN/TS 17660-1 for gases and 17660-2 for particulate matter", {
  rd <- tools::Rd_db("ncam")
  for (page in c("sensor_performance.Rd", "performance_targets.Rd")) {
    text <- paste(utils::capture.output(tools::Rd2txt(rd[[page]])), collapse = " ")
    text <- gsub("\\s+", " ", text)
    for (cited in c("CEN/TS 17660-1:2021, Air quality", "CEN/TS 17660-2:2024, Air quality",
                    "Part 2: Particulate matter in ambient air")) {
      expect_true(grepl(cited, text, fixed = TRUE), info = paste(page, "cites", cited))
    }
  }
})

test_that("metrics of one unit match lm() and hand formulas", {
  ref <- withr::with_seed(2, stats::runif(40, 2, 30))
  est <- 1.2 * ref + 1.5 + withr::with_seed(3, stats::rnorm(40, sd = 2))
  obs <- data.frame(date = daily_dates(40), ref = ref, est = est)
  # A limit value inside the reference values, so that no note is due.
  res <- sensor_performance(obs, "est", "ref", averaging = "as_given", limit_value = 20)
  fit <- stats::lm(est ~ ref)
  expect_equal(nrow(res), 1L)
  expect_equal(res$unit, "all")
  expect_equal(res$n, 40L)
  expect_equal(res$slope, unname(stats::coef(fit)[2]))
  expect_equal(res$intercept, unname(stats::coef(fit)[1]))
  expect_equal(res$r2, summary(fit)$r.squared)
  expect_equal(res$rmse, sqrt(sum((est - ref)^2) / 40))
  expect_equal(res$nrmse, 100 * sqrt(sum((est - ref)^2) / 40) / (sum(ref) / 40))
  expect_equal(res$mbe, sum(est - ref) / 40)
  expect_equal(res$time_step, "24 hours")
  expect_true(is.na(res$sd) && is.na(res$note))
})

test_that("missing-value codes are read as NA, with the readers' warning", {
  ref <- withr::with_seed(2, stats::runif(40, 2, 30))
  est <- 1.2 * ref + 1.5 + withr::with_seed(3, stats::rnorm(40, sd = 2))
  obs <- data.frame(date = daily_dates(40), ref = ref, est = est)
  coded <- obs
  coded$ref[7] <- -999
  coded$est[20] <- -9999
  expect_warning(res <- sensor_performance(coded, "est", "ref", averaging = "as_given", limit_value = 20),
                 "2 values are missing-value codes", class = "ncam_warning_missing_code")
  expect_error(sensor_performance(obs, reference = "ref"), "`estimate` is required")
  skip_if_not_installed("units")
  # A code in a column with units is a code before any conversion (-999 mg/m3 is no -999000 ug/m3).
  in_mg <- coded
  in_mg$est <- units::set_units(obs$est / 1000, "mg/m3")
  in_mg$est[20] <- units::set_units(-999, "mg/m3")
  in_mg$ref <- units::set_units(coded$ref, "ug/m3")
  expect_warning(res_mg <- sensor_performance(in_mg, "est", "ref", averaging = "as_given", limit_value = 20),
                 "2 values are missing-value codes", class = "ncam_warning_missing_code")
  expect_equal(res_mg$rmse, res$rmse)
  # As if those two values were missing: the metrics of the 38 rows with both.
  kept <- obs[-c(7, 20), ]
  fit <- stats::lm(est ~ ref, data = kept)
  expect_equal(res$n, 38L)
  expect_equal(res$slope, unname(stats::coef(fit)[2]))
  expect_equal(res$rmse, sqrt(mean((kept$est - kept$ref)^2)))
})

test_that("orthogonal regression and expanded uncertainty match the closed form", {
  ref <- withr::with_seed(4, stats::runif(60, 5, 50))
  est <- 0.9 * ref + 2 + withr::with_seed(5, stats::rnorm(60, sd = 3))
  obs <- data.frame(date = daily_dates(60), ref = ref, est = est)
  res <- sensor_performance(obs, "est", "ref", averaging = "as_given", limit_value = 25,
                            reference_uncertainty = 0.8)
  # Orthogonal regression: the major axis of the covariance matrix.
  axis <- eigen(stats::cov(cbind(ref, est)), symmetric = TRUE)$vectors[, 1]
  b1 <- axis[2] / axis[1]
  b0 <- mean(est) - b1 * mean(ref)
  expect_equal(res$orth_slope, b1)
  expect_equal(res$orth_intercept, b0)
  u2 <- sum((est - b0 - b1 * ref)^2) / 58 - 0.8^2 + (b0 + (b1 - 1) * 25)^2
  expect_equal(res$expanded_uncertainty, 100 * 2 * sqrt(u2) / 25)
  expect_equal(res$limit_value, 25)
  # The default limit value for PM2.5 is 30 ug/m3.
  expect_equal(sensor_performance(obs, "est", "ref", averaging = "as_given")$limit_value, 30)
})

test_that("several units: per-unit rows match lm() per unit, the 'all' row averages them", {
  n <- 30
  ref <- withr::with_seed(6, stats::runif(2 * n, 3, 40))
  obs <- data.frame(date = rep(daily_dates(n), 2), site = rep(c("s2", "s1"), each = n), ref = ref)
  obs$est <- ifelse(obs$site == "s1", 0.8, 1.3) * ref + withr::with_seed(7, stats::rnorm(2 * n))
  res <- sensor_performance(obs, "est", "ref", unit = "site", averaging = "as_given")
  expect_equal(res$unit, c("s2", "s1", "all"))
  for (s in c("s1", "s2")) {
    fit <- stats::lm(est ~ ref, data = obs[obs$site == s, ])
    expect_equal(res$slope[res$unit == s], unname(stats::coef(fit)[2]))
    expect_equal(res$r2[res$unit == s], summary(fit)$r.squared)
  }
  # R2, slope and intercept of "all": means over the units' own fits, not the pooled fit.
  fits <- lapply(c("s1", "s2"), function(s) stats::lm(est ~ ref, data = obs[obs$site == s, ]))
  expect_equal(res$slope[3], mean(sapply(fits, function(f) stats::coef(f)[[2]])))
  expect_equal(res$intercept[3], mean(sapply(fits, function(f) stats::coef(f)[[1]])))
  expect_equal(res$r2[3], mean(sapply(fits, function(f) summary(f)$r.squared)))
  # Units at different references: the errors pool every pair.
  expect_equal(res$rmse[3], sqrt(mean((obs$est - obs$ref)^2)))
  expect_equal(res$n, c(n, n, 2 * n))
  # Different references at the same dates: units are not co-located, so no SD or CV.
  expect_true(is.na(res$sd[3]) && is.na(res$cv[3]))
  expect_match(res$note[3], "not co-located")
})

test_that("the 'all' row judges the units' mean R2, slope and intercept and counts failures", {
  ref <- lapply(1:3, function(j) withr::with_seed(10 + j, stats::runif(25, 5 + 5 * j, 40 + 10 * j)))
  slopes <- c(0.5, 1.0, 1.4)
  r2s <- c(0.9, 0.95, 0.6)
  # Noise orthogonal to the reference: each unit's OLS slope is exact, its R2 is
  # b^2 Sxx / (b^2 Sxx + SS), so SS = b^2 Sxx (1 / R2 - 1).
  est <- lapply(1:3, function(j) {
    sxx <- sum((ref[[j]] - mean(ref[[j]]))^2)
    slopes[j] * ref[[j]] + orthogonal_noise(ref[[j]], slopes[j]^2 * sxx * (1 / r2s[j] - 1), j)
  })
  obs <- data.frame(date = rep(daily_dates(25), 3), site = rep(c("a", "b", "c"), each = 25),
                    ref = unlist(ref), est = unlist(est))
  res <- sensor_performance(obs, "est", "ref", unit = "site", averaging = "as_given")
  all_row <- res[res$unit == "all", ]
  expect_equal(res$slope[1:3], slopes)
  expect_equal(res$r2[1:3], r2s)
  expect_equal(all_row$slope, mean(slopes)) # 0.967: passes although two units fail
  expect_equal(all_row$r2, mean(r2s)) # 0.817: passes although one unit fails
  expect_equal(all_row$intercept, 0)
  expect_true(all_row$pass_slope && all_row$pass_r2 && all_row$pass_intercept)
  expect_equal(all_row$n, 75L)
  expect_match(all_row$note, "2 of 3 units fail the slope target")
  expect_match(all_row$note, "1 of 3 units fails the R\u00b2 target")
  expect_no_match(all_row$note, "intercept target")
  # With one unit the "all" row is that unit's fit.
  one <- sensor_performance(obs[obs$site == "c", ], "est", "ref", unit = "site",
                            averaging = "as_given")
  expect_equal(one$slope, c(1.4, 1.4))
  expect_equal(one$r2, c(0.6, 0.6))
  expect_false(one$pass_r2[2])
})

test_that("co-located units: the 'all' row's errors are over times every unit reports", {
  ref <- 10 + 5 * sin(1:30)
  a <- ref + c(1:10, rep(0.5, 20)) # errors 1, 2, ..., 10, then 0.5
  b <- c(ref[1:10] - (1:10) / 2, rep(NA, 20)) # errors -0.5, ..., -5; no data after day 10
  obs <- data.frame(date = rep(daily_dates(30), 2), unit = rep(c("a", "b"), each = 30),
                    ref = rep(ref, 2), est = c(a, b))
  all_row <- function(data) {
    res <- quiet_performance(data, "est", "ref", unit = "unit", averaging = "as_given")
    res[res$unit == "all", ]
  }
  res <- all_row(obs)
  # Days 1-10 (N = 10, M = 2): sum of squares 385 + 96.25, sum of errors 55 - 27.5.
  expect_equal(res$rmse, sqrt((385 + 96.25) / 20))
  expect_equal(res$mbe, (55 - 27.5) / 20)
  expect_equal(res$nrmse, 100 * sqrt((385 + 96.25) / 20) / mean(ref[1:10]))
  expect_equal(res$n, 40L) # still every pair
  # No reference on day 3 takes that day out for both units: errors 3 and -1.5 go.
  obs$ref[c(3, 33)] <- NA
  res <- all_row(obs)
  expect_equal(res$rmse, sqrt((385 - 9 + 96.25 - 2.25) / 18))
  expect_equal(res$nrmse, 100 * res$rmse / mean(ref[c(1:2, 4:10)]))
  # Fewer than 3 such times: no RMSE, with a note.
  obs$est[33 + 0:7] <- NA # unit b keeps days 1 and 2
  expect_warning(res <- all_row(obs), "fewer than 3 complete pairs")
  expect_true(is.na(res$rmse) && is.na(res$nrmse) && is.na(res$mbe))
  expect_match(res$note, "fewer than 3 times when every unit and the reference report")
})

test_that("inter-unit SD and CV follow the EPA formula on times every unit reports", {
  hours <- seq(as.POSIXct("2024-03-01", tz = "UTC"), by = "hour", length.out = 20)
  ref <- 10 + 5 * sin(seq_along(hours))
  readings <- sapply(1:3, function(j) ref * (0.9 + 0.1 * j) + withr::with_seed(j, stats::rnorm(20)))
  readings[c(4, 9), 2] <- NA # unit 2 misses two hours
  readings[15, 3] <- NA
  obs <- data.frame(date = rep(hours, 3), unit = rep(c("u1", "u2", "u3"), each = 20),
                    ref = rep(ref, 3), est = as.vector(readings))
  res <- quiet_performance(obs, "est", "ref", unit = "unit", pollutant = "o3", units = "ppb",
                           averaging = "as_given")
  all_row <- res[res$unit == "all", ]
  complete <- readings[stats::complete.cases(readings), ]
  n_times <- nrow(complete)
  sd_hand <- sqrt(sum(sweep(complete, 1, rowMeans(complete))^2) / (n_times * 3 - 1))
  expect_equal(all_row$n_precision, 17L)
  expect_equal(all_row$sd, sd_hand)
  expect_equal(all_row$cv, 100 * sd_hand / mean(complete))
  expect_true(all(is.na(res$sd[res$unit != "all"])))
  # O3 targets apply to 1-hour data: SD <= 5 ppb.
  expect_equal(all_row$pass_precision, sd_hand <= 5 || 100 * sd_hand / mean(complete) <= 30)
})

test_that("24-hour averages drop days below the completeness threshold", {
  hours <- seq(as.POSIXct("2024-05-01", tz = "UTC"), by = "hour", length.out = 24 * 5)
  ref <- 5 + (seq_along(hours) %% 7)
  est <- 2 * ref + 1 + (seq_along(hours) %% 3)
  est[25:31] <- NA # day 2 keeps 17 of 24 hours (70.8 %)
  est[49:54] <- NA # day 3 keeps 18 of 24 hours (75 %)
  obs <- data.frame(date = hours, ref = ref, est = est)
  res <- quiet_performance(obs, "est", "ref", averaging = c("as_given", "24h"))
  expect_equal(res$averaging, c("as_given", "24h"))
  expect_equal(res$time_step, c("1 hour", "24 hours"))
  daily <- res[res$averaging == "24h", ]
  expect_equal(daily$n, 4L) # day 2 dropped
  kept <- c(1, 3, 4, 5)
  day_est <- sapply(kept, function(d) mean(est[(d - 1) * 24 + 1:24], na.rm = TRUE))
  day_ref <- sapply(kept, function(d) mean(ref[(d - 1) * 24 + 1:24]))
  expect_equal(daily$mbe, mean(day_est - day_ref))
  expect_equal(daily$rmse, sqrt(mean((day_est - day_ref)^2)))
  expect_equal(daily$slope, unname(stats::coef(stats::lm(day_est ~ day_ref))[2]))
  # With 70 % required, day 2 counts too.
  loose <- quiet_performance(obs, "est", "ref", averaging = "24h", completeness = 0.70)
  expect_equal(loose$n, 5L)
})

test_that("sub-hourly data reach 24-hour means through 1-hour means", {
  minutes <- seq(as.POSIXct("2024-06-01", tz = "UTC"), by = "min", length.out = 1440 * 4)
  i <- seq_along(minutes) - 1
  minute <- i %% 60
  hour <- (i %/% 60) %% 24
  day <- i %/% 1440 + 1
  ref <- 10 + (i %% 17) / 4
  est <- ref + 1 + (i %% 7) / 10
  # Day 1: 1230 of 1440 minutes (85 %), but hours 17-23 keep 30 of 60 minutes, so only
  # 17 of 24 hours count, fewer than 18.
  est[day == 1 & hour >= 17 & minute >= 30] <- NA
  # Day 2: hours 0-5 keep 45 of 60 minutes (75 %): every hour counts.
  est[day == 2 & hour < 6 & minute >= 45] <- NA
  obs <- data.frame(date = minutes, ref = ref, est = est)
  res <- quiet_performance(obs, "est", "ref", averaging = "24h")
  expect_equal(res$n, 3L)
  # A day's value is the mean of its 24 hourly means (not of its minutes).
  day_mean <- function(v, d) mean(sapply(0:23, function(h) mean(v[day == d & hour == h],
                                                                  na.rm = TRUE)))
  day_est <- sapply(2:4, function(d) day_mean(est, d))
  day_ref <- sapply(2:4, function(d) day_mean(ref, d))
  expect_equal(res$mbe, mean(day_est - day_ref))
  expect_equal(res$rmse, sqrt(mean((day_est - day_ref)^2)))
  # `completeness` applies at both stages: at 0.7, day 1's half hours still do not count,
  # but its 17 of 24 hours (70.8 %) do.
  loose <- quiet_performance(obs, "est", "ref", averaging = "24h", completeness = 0.7)
  expect_equal(loose$n, 4L)
})

test_that("24-hour samples every third day are judged as 24-hour values", {
  days <- as.Date("2024-01-01") + seq(0, 87, by = 3) # 30 samples, one every 3 days
  ref <- rep(c(5, 10, 15, 20, 25, 30, 35, 40, 45, 50), 3)
  obs <- data.frame(date = days, ref = ref, est = 1.2 * ref + 1)
  expect_message(res <- sensor_performance(obs, "est", "ref"),
                 "taken as 24-hour values \\(one every 3 days\\)")
  expect_identical(res$averaging, "as_given")
  expect_identical(res$time_step, "24 hours")
  # An exact line: slope 1.2, intercept 1, R^2 1; error 0.2 x ref + 1 with mean ref 27.5.
  expect_equal(c(res$slope, res$intercept, res$r2), c(1.2, 1, 1))
  rmse <- sqrt(sum((0.2 * ref + 1)^2) / 30)
  expect_equal(res$rmse, rmse)
  expect_true(res$pass_slope && res$pass_intercept && res$pass_r2)
  expect_identical(res$pass_error, rmse <= 7 || 100 * rmse / 27.5 <= 30)
  # Asked for alone, the 24-hour block is those same rows.
  expect_message(daily <- sensor_performance(obs, "est", "ref", averaging = "24h"),
                 "24-hour block holds them as given")
  expect_identical(daily$averaging, "24h")
  expect_equal(daily$n, 30L)
  expect_equal(daily$slope, 1.2)
  expect_true(daily$pass_slope)
  # A step above a day that is not whole days is judged as given, without targets.
  every_36h <- data.frame(date = as.POSIXct("2024-01-01", tz = "UTC") + 36 * 3600 * (0:29),
                          ref = ref, est = 1.2 * ref + 1)
  expect_message(odd <- sensor_performance(every_36h, "est", "ref"), "one value per 36 hours")
  expect_identical(odd$time_step, "36 hours")
  expect_true(is.na(odd$pass_slope))
})

test_that("the warning on days of another zone says which day each is dated by, before and after noon", {
  days <- as.Date("2024-01-10") + 0:5
  for (zone in c("Asia/Tokyo", "America/New_York")) {
    d <- data.frame(date = as.POSIXct(format(days), tz = "UTC"), ref = 1:6, est = 1:6 + 0.5)
    attr(d$date, "tzone") <- zone
    w <- caught_warnings(suppressMessages(sensor_performance(d, "est", "ref", averaging = "24h")))
    expect_length(w, 1L)
    expect_s3_class(w[[1]], "ncam_warning_period_offset")
    msg <- conditionMessage(w[[1]])
    if (zone == "Asia/Tokyo") {
      # 09:00 to 09:00: 15 hours of the Tokyo day it is dated by.
      expect_match(msg, "9 hours into its day in time zone Asia/Tokyo.*2024-01-10 09:00 JST.*covers the 24 hours from its stamp and is dated by the day it mostly covers, though not its first 9 hours")
      expect_no_match(msg, "day before")
    } else {
      # 19:00 (EST) to 19:00: 19 hours of the day after the one it is dated by.
      expect_match(msg, "19 hours into its day in time zone America/New_York.*2024-01-09 19:00 EST.*is dated by the day before the one it mostly covers\\.")
    }
  }
})

test_that("24-hour days follow the time zone of the date column", {
  hours <- seq(as.POSIXct("2024-05-01", tz = "America/New_York"), by = "hour", length.out = 96)
  obs <- data.frame(date = hours, ref = seq_along(hours), est = seq_along(hours) + 1)
  # Four full local days; in UTC the first holds 20 and the last 4 of 24 hours, below 90 %.
  res <- sensor_performance(obs, "est", "ref", averaging = "24h", completeness = 0.9)
  expect_equal(res$n, 4L)
})

test_that("daily values stamped at midnight of another time zone are warned about", {
  # Days stamped at 00:00 UTC, shown in New York: 20:00 (EDT) of the day before, the day each
  # is taken for.
  days <- as.Date("2023-04-20") + 0:9
  d <- data.frame(date = as.POSIXct(format(days), tz = "UTC"), ref = 1:10, est = 1:10 + 0.5)
  attr(d$date, "tzone") <- "America/New_York"
  for (averaging in list(NULL, "24h", c("as_given", "24h"))) {
    expect_warning(suppressMessages(sensor_performance(d, "est", "ref", averaging = averaging)),
                   "20 hours into its day in time zone America/New_York.*2023-04-19 20:00 EDT",
                   class = "ncam_warning_period_offset")
  }
  # And the other way: New York midnights shown in UTC, 04:00 into the UTC day.
  ny <- data.frame(date = as.POSIXct(format(days), tz = "America/New_York"), ref = 1:10, est = 2:11)
  attr(ny$date, "tzone") <- "UTC"
  expect_warning(suppressMessages(sensor_performance(ny, "est", "ref")), "4 hours into its day",
                 class = "ncam_warning_period_offset")
  # Without 24-hour values (rows as given, 1-hour O3 blocks) no day is taken.
  expect_no_warning(suppressMessages(sensor_performance(d, "est", "ref", averaging = "as_given")))
  expect_no_warning(suppressMessages(sensor_performance(d, "est", "ref", pollutant = "o3", units = "ppb")))
  # The fix it names: the column in the zone of its midnights, or as Date.
  attr(d$date, "tzone") <- "UTC"
  expect_no_warning(suppressMessages(sensor_performance(d, "est", "ref")))
  d$date <- as.Date(d$date)
  expect_no_warning(suppressMessages(sensor_performance(d, "est", "ref")))
})

test_that("pass/fail flips at the PM2.5 thresholds on 24-hour data", {
  ref <- rep(c(5, 10, 15, 20, 25, 30, 35, 40), 5)
  perf <- function(est) {
    sensor_performance(data.frame(date = daily_dates(length(ref)), ref = ref, est = est),
                       "est", "ref", averaging = "as_given")
  }
  expect_true(perf(1.30 * ref)$pass_slope)
  expect_false(perf(1.40 * ref)$pass_slope)
  expect_false(perf(0.60 * ref)$pass_slope)
  expect_true(perf(ref + 4)$pass_intercept)
  expect_false(perf(ref + 6)$pass_intercept)
  # On the bound: the targets include it, and float rounding of the fit does not decide.
  expect_true(perf(1.2 * ref + 5)$pass_intercept)
  expect_true(perf(1.35 * ref)$pass_slope)
  sxx <- sum((ref - mean(ref))^2)
  expect_true(perf(ref + orthogonal_noise(ref, sxx * (1 / 0.72 - 1)))$pass_r2)
  expect_false(perf(ref + orthogonal_noise(ref, sxx * (1 / 0.68 - 1)))$pass_r2)
  # Error passes on RMSE <= 7 or NRMSE <= 30 %: mean reference is 22.5.
  expect_true(perf(ref + 6)$pass_error) # RMSE 6
  expect_true(perf(ref + 6.5 * c(-1, 1))$pass_error) # RMSE 6.5, NRMSE 28.9 %
  expect_false(perf(ref + 7.5 * c(-1, 1))$pass_error) # RMSE 7.5, NRMSE 33.3 %
  high <- ref + 100 # mean reference 122.5: RMSE 8 fails, NRMSE 6.5 % passes
  expect_true(sensor_performance(data.frame(date = daily_dates(40), ref = high, est = high + 8),
                                 "est", "ref", averaging = "as_given")$pass_error)
})

test_that("targets apply only at the averaging the reports specify", {
  hours <- seq(as.POSIXct("2024-01-01", tz = "UTC"), by = "hour", length.out = 96)
  ref <- 10 + 5 * sin(seq_along(hours) / 5)
  obs <- data.frame(date = hours, ref = ref, est = 1.1 * ref)
  pm <- sensor_performance(obs, "est", "ref")
  expect_true(all(is.na(unlist(pm[pm$averaging == "as_given", c("pass_r2", "pass_slope")]))))
  expect_true(pm$pass_slope[pm$averaging == "24h"])
  o3 <- sensor_performance(obs, "est", "ref", pollutant = "o3", units = "ppb", averaging = c("as_given", "24h"))
  expect_true(o3$pass_slope[o3$averaging == "as_given"])
  expect_true(is.na(o3$pass_slope[o3$averaging == "24h"]))
  # O3 slope bounds are 1 +/- 0.2.
  obs$est <- 1.25 * ref
  expect_false(sensor_performance(obs, "est", "ref", pollutant = "o3", units = "ppb",
                                  averaging = "as_given")$pass_slope)
})

test_that("the note of a row at another averaging than the targets' says why they are not judged", {
  hours <- seq(as.POSIXct("2024-01-01", tz = "UTC"), by = "hour", length.out = 96)
  ref <- 10 + 5 * sin(seq_along(hours) / 5)
  obs <- data.frame(date = hours, ref = ref, est = 1.1 * ref + withr::with_seed(4, stats::rnorm(96)))
  # A limit value inside the reference values, so that no other note is due.
  pm <- sensor_performance(obs, "est", "ref", limit_value = 10)
  given <- pm[pm$averaging == "as_given", ]
  expect_true(all(is.na(unlist(given[grep("^pass_", names(given))]))))
  expect_identical(given$note, "US EPA and EU targets apply to 24-hour averages: not judged at a time step of 1 hour")
  expect_true(is.na(pm$note[pm$averaging == "24h"]))
  # O3's targets are set on 1-hour values: its 24-hour means are the rows not judged.
  o3 <- sensor_performance(obs, "est", "ref", pollutant = "o3", units = "ppb", averaging = c("as_given", "24h"),
                           limit_value = 10)
  expect_true(is.na(o3$note[o3$averaging == "as_given"]))
  expect_identical(o3$note[o3$averaging == "24h"],
                   "US EPA and EU targets apply to 1-hour averages: not judged at a time step of 24 hours")
  # Beside another reason, and on the "all" row of units at two time steps.
  halves <- seq(hours[1], by = "30 min", length.out = 192)
  two <- rbind(cbind(obs, unit = "hourly"),
               data.frame(date = halves, ref = rep(ref, each = 2), est = rep(obs$est, each = 2), unit = "half"))
  res <- sensor_performance(two, "est", "ref", unit = "unit", averaging = "as_given")
  expect_identical(res$time_step, c("1 hour", "30 minutes", "mixed"))
  expect_identical(res$note[1:2], paste0("US EPA and EU targets apply to 24-hour averages: not judged at a time step of ",
                                         c("1 hour", "30 minutes"), "; limit value 30 lies outside the range of the ",
                                         "reference values (5 to 15): expanded uncertainty not judged"))
  expect_match(res$note[3], "^US EPA and EU targets apply to 24-hour averages: not judged where the units' time steps differ; ")
})

test_that("EU expanded uncertainty is judged against the data quality objective", {
  ref <- rep(c(5, 10, 15, 20, 25, 30, 35, 40), 5)
  obs <- data.frame(date = daily_dates(40), ref = ref, est = ref + 1)
  res <- sensor_performance(obs, "est", "ref", averaging = "as_given")
  expect_equal(res$expanded_uncertainty, 100 * 2 * 1 / 30) # pure offset of 1 at LV 30
  expect_true(res$pass_expanded_uncertainty)
  obs$est <- 1.8 * ref
  res <- sensor_performance(obs, "est", "ref", averaging = "as_given")
  expect_false(res$pass_expanded_uncertainty)
})

test_that("EU expanded uncertainty is not judged at a limit value outside the reference range", {
  ref <- rep(c(5, 7, 9, 11, 12), 6)
  obs <- data.frame(date = daily_dates(30), ref = ref, est = ref + 1)
  res <- sensor_performance(obs, "est", "ref", averaging = "as_given")
  # Pure offset of 1: the line is y = x + 1, so W = 2 x 1 / 30 = 6.67 %, extrapolated to 30.
  expect_equal(res$expanded_uncertainty, 100 * 2 / 30)
  expect_true(is.na(res$pass_expanded_uncertainty))
  expect_match(res$note, "limit value 30 lies outside the range of the reference values \\(5 to 12\\)")
  # A limit value on the largest reference value is inside the data: judged.
  on_edge <- sensor_performance(obs, "est", "ref", averaging = "as_given", limit_value = 12)
  expect_equal(on_edge$expanded_uncertainty, 100 * 2 / 12)
  expect_true(on_edge$pass_expanded_uncertainty)
  expect_true(is.na(on_edge$note))
})

test_that("a stuck sensor gets a horizontal orthogonal line and fails the EU test", {
  ref <- seq(5, 60, length.out = 30) # spans the limit value of 30
  obs <- data.frame(date = daily_dates(30), ref = ref, est = 9)
  res <- sensor_performance(obs, "est", "ref", averaging = "as_given")
  # The estimate does not vary: the major axis of the scatter is the line y = 9.
  expect_equal(c(res$orth_slope, res$orth_intercept), c(0, 9))
  # No residual about that line, so u = |9 - 30| and W = 2 x 21 / 30 = 140 %.
  expect_equal(res$expanded_uncertainty, 140)
  expect_false(res$pass_expanded_uncertainty)
  expect_true(is.na(res$r2))
  expect_match(res$note, "constant estimate")
  # No covariance (-4 x 10 - 2 x -10 + 2 x -10 + 4 x 10 = 0) and Syy = 400 > Sxx = 40:
  # the major axis is vertical.
  wide <- data.frame(date = daily_dates(5), ref = c(26, 28, 30, 32, 34),
                     est = c(40, 20, 30, 20, 40))
  res <- sensor_performance(wide, "est", "ref", averaging = "as_given")
  expect_true(is.na(res$orth_slope) && is.na(res$expanded_uncertainty))
  expect_true(is.na(res$pass_expanded_uncertainty))
  expect_match(res$note, "vertical")
})

test_that("units with fewer than 3 pairs get NA metrics with a reason", {
  obs <- data.frame(date = rep(daily_dates(10), 2), unit = rep(c("a", "b"), each = 10),
                    ref = c(1:10, 1:10), est = c(1:10 + 0.5, c(2, 4), rep(NA, 8)))
  expect_warning(res <- suppressMessages(sensor_performance(obs, "est", "ref", unit = "unit",
                                                             averaging = "as_given")),
                 "fewer than 3")
  b <- res[res$unit == "b", ]
  expect_equal(b$n, 2L)
  expect_true(all(is.na(unlist(b[c("r2", "slope", "rmse", "expanded_uncertainty")]))))
  expect_match(b$note, "fewer than 3 complete pairs")
  expect_false(is.na(res$slope[res$unit == "a"]))
})

test_that("degenerate data give NA with a note, never NaN", {
  obs <- data.frame(date = daily_dates(6), ref = rep(10, 6), est = c(9, 11, 10, 12, 8, 10))
  expect_message(res <- sensor_performance(obs, "est", "ref", averaging = c("as_given", "24h")),
                 "one value per 24 hours already")
  numbers <- unlist(res[vapply(res, is.numeric, logical(1))])
  expect_false(any(is.nan(numbers)))
  expect_true(all(is.na(res$slope)))
  expect_match(res$note[1], "constant reference")
  expect_equal(res$rmse[1], sqrt(mean((obs$est - 10)^2)))
})

test_that("missing pairs are reported, and no pair at all is an error", {
  obs <- data.frame(date = daily_dates(5), ref = c(1, 2, NA, 4, 5), est = c(1, 2, 3, 4, NA))
  expect_message(res <- sensor_performance(obs, "est", "ref", averaging = "as_given"),
                 "2 rows")
  expect_equal(res$n, 3L)
  obs$ref <- c(NA, NA, 3, NA, NA)
  obs$est <- c(1, 2, NA, 4, 5)
  expect_error(sensor_performance(obs, "est", "ref"), "No row has both")
})

test_that("argument and column errors name the argument, column and rows", {
  obs <- data.frame(date = daily_dates(5), ref = 1:5, est = c(1, 2, 3, 4, 6), site = "a")
  expect_error(sensor_performance(list(), "est", "ref"), "data")
  expect_error(sensor_performance(obs, "pm", "ref"), "estimate.*pm")
  expect_error(sensor_performance(obs, "est", "ref", unit = "station"), "unit.*station")
  # Unquoted names are evaluated as variables; the error says the argument wants a string.
  expect_error(sensor_performance(obs, estimate = est, reference = "ref"),
               "`estimate` takes a column name as a string: `estimate = \"est\"`, not `estimate = est`")
  expect_error(sensor_performance(obs, "est", reference = ref), "`reference = \"ref\"`, not `reference = ref`")
  expect_error(sensor_performance(obs, "est", "ref", unit = site), "`unit = \"site\"`, not `unit = site`")
  expect_error(sensor_performance(obs, "est", "ref", date = names(no_such_table)[1]),
               "`date` takes a column name as a string, and `names(no_such_table)[1]` could not be evaluated",
               fixed = TRUE)
  obs$text <- letters[1:5]
  expect_error(sensor_performance(obs, "text", "ref"), "text.*numeric")
  obs$bad_date <- as.character(obs$date)
  expect_error(sensor_performance(obs, "est", "ref", date = "bad_date"), "POSIXct or Date")
  inf <- obs
  inf$est[3] <- Inf
  expect_error(sensor_performance(inf, "est", "ref"), "infinite in row 3")
  dup <- rbind(obs, obs[2, ])
  expect_error(sensor_performance(dup, "est", "ref"), "repeats a time.*row 6")
  missing_date <- obs
  missing_date$date[4] <- NA
  expect_error(sensor_performance(missing_date, "est", "ref"), "missing in row 4")
  # An infinite time failed in the clock columns with a parsing error.
  missing_date$date[4] <- as.Date(Inf)
  expect_error(sensor_performance(missing_date, "est", "ref"),
               "\"date\" \\(from `date`\\) has infinite times in row 4", class = "rlang_error")
  named_all <- obs
  named_all$site <- "all"
  expect_error(sensor_performance(named_all, "est", "ref", unit = "site"), "named \"all\"")
  expect_error(sensor_performance(obs, "est", "ref", pollutant = "pm10"), "pollutant")
  expect_error(sensor_performance(obs, "est", "ref", averaging = "8h"), "averaging")
  expect_error(sensor_performance(obs, "est", "ref", completeness = 1.5), "completeness")
  expect_error(sensor_performance(obs, "est", "ref", limit_value = 0), "limit_value")
  expect_error(sensor_performance(obs, "est", "ref", reference_uncertainty = -1),
               "reference_uncertainty")
  every_36h <- data.frame(date = as.POSIXct("2024-01-01", tz = "UTC") + 36 * 3600 * (0:4),
                          ref = 1:5, est = 1:5 + 1)
  expect_error(sensor_performance(every_36h, "est", "ref", averaging = "24h"), "divides a day")
})

test_that("values too large to compute with, and a column name used twice, are errors", {
  hours <- as.POSIXct("2021-05-01", tz = "UTC") + 3600 * (0:95)
  r <- withr::with_seed(1, runif(96, 5, 30))
  obs <- data.frame(date = hours, est = r + 1, ref = r)
  # The squared error of 1e300 overflows: RMSE, NRMSE and the EU uncertainty were Inf.
  big <- obs
  big$est[3] <- 1e300
  expect_error(sensor_performance(big, "est", "ref"),
               "\"est\" \\(from `estimate`\\) has a value as large as 1e\\+300 in row 3: too large",
               class = "rlang_error")
  big <- obs
  big$ref[c(2, 40)] <- c(-1e200, 1e160)
  expect_error(sensor_performance(big, "est", "ref"),
               "\"ref\" \\(from `reference`\\) has values as large as 1e\\+200 in rows 2, 40",
               class = "rlang_error")
  # At the limit ncam() uses the metrics are finite: RMSE by hand over the 96 pairs.
  edge <- obs
  edge$est[3] <- 1e150
  res <- quiet_performance(edge, "est", "ref", averaging = "as_given")
  expect_equal(res$rmse, sqrt(((1e150 - r[3])^2 + 95) / 96))
  # R2 and the major axis failed (NaN, then an error) on squares of sums of squares. Hand
  # values: R2 is free of each variable's scale, the major-axis slope of their common scale.
  expect_equal(res$r2, cor(edge$est / 1e150, r)^2)
  small <- data.frame(x = r * 1e-150, y = edge$est * 1e-150)
  xx <- sum((small$x - mean(small$x))^2)
  yy <- sum((small$y - mean(small$y))^2)
  xy <- sum((small$x - mean(small$x)) * (small$y - mean(small$y)))
  expect_equal(res$orth_slope, (yy - xx + sqrt((yy - xx)^2 + 4 * xy^2)) / (2 * xy))
  expect_true(is.finite(res$expanded_uncertainty))
  # With two "est" columns, the first was used without a word.
  expect_error(sensor_performance(cbind(obs, est = 1), "est", "ref"),
               "Column est appears more than once", class = "rlang_error")
  expect_error(sensor_performance(cbind(obs, date = hours), "est", "ref"),
               "Column date appears more than once", class = "rlang_error")
})

test_that("sensor_performance() runs on the shared PurpleAir/AQS data", {
  dir <- shared_data("purpleair-aqs-daily-mathieu")
  skip_if_not(dir.exists(dir), "shared PurpleAir data not available")
  path <- list.files(dir, pattern = "\\.csv$", full.names = TRUE)[1]
  pa <- read_purpleair_aqs(path)
  pa$pa_mean <- (pa$pa_a + pa$pa_b) / 2
  expect_message(res <- sensor_performance(pa, "pa_mean", "ref", unit = "site"), "already")
  n_sites <- length(unique(pa$site))
  expect_equal(nrow(res), n_sites + 1L)
  all_daily <- res[res$unit == "all" & res$averaging == "as_given", ]
  expect_equal(all_daily$n, nrow(pa))
  expect_equal(all_daily$time_step, "24 hours")
  expect_true(all_daily$r2 > 0.5 && all_daily$r2 <= 1)
  expect_true(all_daily$slope > 0.5 && all_daily$slope < 3)
  expect_true(all_daily$mbe > 0) # PurpleAir CF=1 reads high
  expect_false(any(is.nan(unlist(res[vapply(res, is.numeric, logical(1))]))))
  expect_true(is.na(all_daily$sd)) # sites are not co-located
})

test_that("daily data are judged once, and POSIXlt times are taken as date-times", {
  days <- seq(as.Date("2024-01-01"), by = "day", length.out = 40)
  withr::local_seed(3)
  ref <- stats::rlnorm(40, log(10), 0.4)
  obs <- data.frame(date = days, ref = ref, est = 1.1 * ref + stats::rnorm(40))
  expect_message(res <- sensor_performance(obs, "est", "ref"), "one value per 24 hours already")
  expect_identical(res$averaging, "as_given")
  expect_identical(res$time_step, "24 hours")
  expect_false(is.na(res$pass_slope))  # PM2.5 targets apply to 24-hour values
  expect_equal(res$rmse, sqrt(mean((obs$est - obs$ref)^2)))
  # Asked for alone, the 24-hour block is still given.
  expect_identical(quiet_performance(obs, "est", "ref", averaging = "24h")$averaging, "24h")

  hourly <- data.frame(date = as.POSIXct("2024-01-01", tz = "UTC") + 3600 * 0:47, ref = 1:48)
  hourly$est <- hourly$ref + rep(c(-1, 1), 24)
  as_ct <- sensor_performance(hourly, "est", "ref", averaging = "as_given")
  hourly$date <- as.POSIXlt(hourly$date)
  expect_identical(sensor_performance(hourly, "est", "ref", averaging = "as_given"), as_ct)
})

test_that("a day of 23 or 25 hours on a clock change expects that many hours", {
  tz <- "Europe/London"
  spring <- seq(as.POSIXct("2021-03-27", tz = tz), as.POSIXct("2021-03-29 23:00", tz = tz),
                by = "hour")
  obs <- data.frame(date = spring, ref = 10 + seq_along(spring) %% 5)
  obs$est <- 2 * obs$ref + seq_along(spring) %% 3
  day <- as.Date(spring, tz = tz)
  expect_equal(as.vector(table(day)), c(24, 23, 24))
  # 28 March has all of its 23 hours: complete.
  res <- sensor_performance(obs, "est", "ref", averaging = "24h", completeness = 1)
  expect_equal(res$n, 3L)
  day_est <- tapply(obs$est, day, mean)
  day_ref <- tapply(obs$ref, day, mean)
  expect_equal(res$mbe, mean(day_est - day_ref))
  expect_equal(res$slope, unname(stats::coef(stats::lm(day_est ~ day_ref))[2]))

  autumn <- seq(as.POSIXct("2021-10-30", tz = tz), as.POSIXct("2021-11-02 23:00", tz = tz),
                by = "hour")
  obs <- data.frame(date = autumn, ref = 10 + seq_along(autumn) %% 5)
  obs$est <- 2 * obs$ref + seq_along(autumn) %% 3
  day <- as.Date(autumn, tz = tz)
  expect_equal(as.vector(table(day)), c(24, 25, 24, 24))
  # 31 October keeps 18 of its 25 hours (72 %): below 0.75, so it does not count ...
  obs$est[which(day == as.Date("2021-10-31"))[1:7]] <- NA
  res <- quiet_performance(obs, "est", "ref", averaging = "24h")
  expect_equal(res$n, 3L)
  kept <- day != as.Date("2021-10-31")
  expect_equal(res$mbe, mean(tapply(obs$est[kept] - obs$ref[kept], day[kept], mean)))
  # ... with 19 of 25 (76 %) it does.
  obs$est[which(day == as.Date("2021-10-31"))[7]] <- 20
  res <- quiet_performance(obs, "est", "ref", averaging = "24h")
  expect_equal(res$n, 4L)
  day_est <- tapply(obs$est, day, mean, na.rm = TRUE)
  expect_equal(res$mbe, mean(day_est - tapply(obs$ref, day, mean)))
})

test_that("sub-hourly data keep the two 01:00 hours of an autumn clock change apart", {
  tz <- "Europe/London"
  t10 <- seq(as.POSIXct("2021-10-30", tz = tz), as.POSIXct("2021-11-01 23:50", tz = tz),
             by = "10 min")
  day <- as.Date(t10, tz = tz)
  obs <- data.frame(date = t10, ref = 10 + seq_along(t10) %% 7)
  obs$est <- obs$ref + 1 + seq_along(t10) %% 4
  # 01:00 BST keeps 3 of its 6 records, too few for its hour; 01:00 GMT keeps all 6.
  first_one <- which(day == as.Date("2021-10-31") & format(t10, "%H %Z", tz = tz) == "01 BST")
  obs$est[first_one[4:6]] <- NA
  res <- quiet_performance(obs, "est", "ref", averaging = "24h")
  expect_equal(res$n, 3L)
  # Hours as instants: seconds since the epoch over 3600 (London's offset is whole hours).
  hour <- as.numeric(t10) %/% 3600
  day_mean <- function(v, d) {
    rows <- day == d
    means <- tapply(v[rows], hour[rows], function(x) {
      if (sum(!is.na(x)) >= 0.75 * 6) mean(x, na.rm = TRUE) else NA
    })
    expect_length(means, if (d == as.Date("2021-10-31")) 25L else 24L)
    mean(means, na.rm = TRUE)
  }
  days <- unique(day)
  day_est <- vapply(days, function(d) day_mean(obs$est, d), numeric(1))
  day_ref <- vapply(days, function(d) day_mean(obs$ref, d), numeric(1))
  expect_equal(res$mbe, mean(day_est - day_ref))
  expect_equal(res$rmse, sqrt(mean((day_est - day_ref)^2)))
})

test_that("hours start on the local clock's hour in a zone half an hour off UTC", {
  tz <- "Asia/Kolkata"
  t10 <- seq(as.POSIXct("2024-01-01", tz = tz), by = "10 min", length.out = 144 * 3)
  obs <- data.frame(date = t10, ref = 5 + seq_along(t10) %% 11)
  obs$est <- obs$ref + seq_along(t10) %% 5
  clock_hour <- format(t10, "%Y-%m-%d %H", tz = tz)
  # Local 05:00-05:59 of the first day keeps 4 of 6 records (67 %): that hour is dropped.
  obs$est[which(clock_hour == "2024-01-01 05")[1:2]] <- NA
  res <- quiet_performance(obs, "est", "ref", averaging = "24h")
  hourly_est <- tapply(obs$est, clock_hour, function(x) {
    if (sum(!is.na(x)) >= 4.5) mean(x, na.rm = TRUE) else NA
  })
  hourly_ref <- tapply(obs$ref, clock_hour, mean)
  hour_day <- substr(names(hourly_est), 1, 10)
  day_est <- tapply(hourly_est, hour_day, mean, na.rm = TRUE)
  day_ref <- tapply(hourly_ref, hour_day, mean)
  expect_equal(res$n, 3L)
  expect_equal(res$mbe, mean(day_est - day_ref))
})

test_that("each unit is judged at its own time step", {
  a <- data.frame(date = seq(as.POSIXct("2024-01-01", tz = "UTC"), by = "hour",
                             length.out = 120), unit = "a")
  b <- data.frame(date = seq(as.POSIXct("2024-01-01", tz = "UTC"), by = "10 min",
                             length.out = 720), unit = "b")
  obs <- rbind(a, b)
  withr::local_seed(1)
  obs$ref <- 10 + stats::rexp(nrow(obs))
  obs$est <- obs$ref + stats::rnorm(nrow(obs))
  res <- sensor_performance(obs, "est", "ref", unit = "unit")
  expect_equal(res$time_step, c("1 hour", "10 minutes", "mixed", rep("24 hours", 3)))
  # No target is judged on the as-given "all" row of mixed steps.
  expect_true(is.na(res$pass_r2[3]) && is.na(res$pass_error[3]))
  unit_a <- res[res$unit == "a" & res$averaging == "24h", ]
  expect_equal(unit_a$n, 5L)
  rows <- obs$unit == "a"
  day <- as.Date(obs$date[rows])
  day_est <- tapply(obs$est[rows], day, mean)
  day_ref <- tapply(obs$ref[rows], day, mean)
  expect_equal(unit_a$slope, unname(stats::coef(stats::lm(day_est ~ day_ref))[2]))
  expect_equal(unit_a$mbe, mean(day_est - day_ref))
  # Unit b alone gives its own rows.
  alone <- sensor_performance(obs[!rows, ], "est", "ref", unit = "unit")
  expect_equal(res[res$unit == "b", -1], alone[alone$unit == "b", -1])

  # A daily unit beside an hourly one: its rows go into the 24-hour block as they stand.
  d <- data.frame(date = as.POSIXct("2024-01-01", tz = "UTC") + 86400 * 0:4, unit = "d")
  d$ref <- c(10, 12, 9, 14, 11)
  d$est <- d$ref + c(1, -1, 2, 0, 1)
  mixed <- rbind(d, obs[rows, ])
  expect_message(res <- sensor_performance(mixed, "est", "ref", unit = "unit"),
                 "Unit \"d\": .*24-hour block holds them as given")
  daily_d <- res[res$unit == "d" & res$averaging == "24h", ]
  expect_equal(daily_d$mbe, mean(d$est - d$ref))
  expect_equal(res$time_step[res$averaging == "as_given"], c("24 hours", "1 hour", "mixed"))
})

test_that("columns with units are converted to the units of the table", {
  skip_if_not_installed("units")
  ref_ug <- withr::with_seed(6, stats::runif(30, 5, 40))
  est_ug <- 1.1 * ref_ug + 2 + withr::with_seed(7, stats::rnorm(30, sd = 8))
  obs <- data.frame(date = daily_dates(30))
  obs$ref <- units::set_units(ref_ug / 1000, "mg/m3", mode = "standard")
  obs$est <- units::set_units(est_ug, "ug/m3", mode = "standard")
  expect_message(res <- sensor_performance(obs, "est", "ref", averaging = "as_given"),
                 "\"ref\".*converted from mg/m3 to ug/m3, the units of the table",
                 class = "ncam_message_units")
  # By hand, in ug/m3 (1 mg = 1000 ug), the units of the PM2.5 targets.
  fit <- stats::lm(est_ug ~ ref_ug)
  rmse <- sqrt(mean((est_ug - ref_ug)^2))
  expect_equal(res$slope, unname(stats::coef(fit)[2]))
  expect_equal(res$intercept, unname(stats::coef(fit)[1]))
  expect_equal(res$rmse, rmse)
  expect_equal(res$mbe, mean(est_ug - ref_ug))
  # An RMSE of 8.4 ug/m3 fails the 7 ug/m3 target (in mg/m3 it was 0.0084 and passed).
  expect_gt(rmse, 7)
  expect_false(res$pass_error)
  # Both in mg/m3: both converted, the same numbers.
  both_mg <- obs
  both_mg$est <- units::set_units(est_ug / 1000, "mg/m3", mode = "standard")
  again <- suppressMessages(sensor_performance(both_mg, "est", "ref", averaging = "as_given"))
  expect_equal(again$rmse, rmse)
  # A plain column beside one whose numbers are converted: its unit is unknown, an error. The
  # plain mg/m3 estimates of a fit on mg/m3 readings were read as ug/m3 (a slope of 0.0011).
  plain <- obs
  plain$est <- est_ug / 1000
  expect_error(sensor_performance(plain, "est", "ref", averaging = "as_given"),
               paste("\"est\" \\(from `estimate`\\) has no units, beside column \"ref\"",
                     "\\(from `reference`\\) converted from \"mg/m3\" to \"ug/m3\""),
               class = "rlang_error")
  plain$ref <- ref_ug / 1000
  plain$est <- units::set_units(est_ug / 1000, "mg/m3", mode = "standard")
  expect_error(sensor_performance(plain, "est", "ref"),
               "\"ref\" \\(from `reference`\\) has no units.*units::set_units\\(data\\$ref, <its unit>",
               class = "rlang_error")
  # Beside a column in the targets' units nothing is converted: the plain one is taken to be in
  # them, silently.
  plain$est <- units::set_units(est_ug, "ug/m3", mode = "standard")
  plain$ref <- ref_ug
  expect_message(alone <- sensor_performance(plain, "est", "ref", averaging = "as_given"), NA)
  expect_equal(alone$slope, res$slope)
  expect_equal(alone$rmse, rmse)
  # O3: ppm to the ppb of its targets (1 ppm = 1000 ppb).
  o3 <- data.frame(date = as.POSIXct("2024-06-01", tz = "UTC") + 3600 * (0:29))
  o3$ref <- units::set_units(ref_ug, "ppb", mode = "standard")
  o3$est <- units::set_units(est_ug / 1000, "ppm", mode = "standard")
  expect_message(ozone <- sensor_performance(o3, "est", "ref", pollutant = "o3", units = "ppb",
                                             averaging = "as_given"),
                 "converted from ppm to ppb")
  expect_equal(ozone$rmse, rmse)
  # A mass concentration of O3 beside ppb: converted at 293 K and 101.3 kPa, 1 ppb = 48.00 g/mol
  # over the molar volume R T / p = 8.314462618 * 293 / 101.3 L/mol, 1.996 ug/m3.
  per_ppb <- 48.00 / (8.314462618 * 293 / 101.3)
  expect_equal(round(per_ppb, 3), 1.996)
  o3$est <- units::set_units(est_ug, "ug/m3", mode = "standard")
  expect_message(mass <- sensor_performance(o3, "est", "ref", pollutant = "o3", units = "ppb",
                                            averaging = "as_given"),
                 "converted from ug/m3 to ppb at 293 K and 101.3 kPa \\(1 ppb of O3 = 1.996 ug/m3\\)",
                 class = "ncam_message_units")
  expect_equal(mass$rmse, sqrt(mean((est_ug / per_ppb - ref_ug)^2)))
  # Without `units`, the reference's unit (ppb) is the table's, without a warning.
  expect_no_warning(guessed <- suppressMessages(sensor_performance(o3, "est", "ref", pollutant = "o3",
                                                                   averaging = "as_given")))
  expect_equal(guessed$rmse, mass$rmse)
  # ppb against PM2.5, a mass concentration, cannot be converted.
  obs$est <- units::set_units(est_ug, "ppb", mode = "standard")
  expect_error(sensor_performance(obs, "est", "ref"),
               "\"est\".*ppb.*cannot be converted to \"ug/m3\".*mass concentration",
               class = "rlang_error")
})

test_that("a unit whose time step does not divide a day loses only its own 24-hour rows", {
  hourly <- function(u, seed) {
    date <- as.POSIXct("2021-03-01", tz = "UTC") + 3600 * (0:239)
    withr::with_seed(seed, data.frame(date = date, unit = u, est = stats::rnorm(240, 10),
                                      ref = stats::rnorm(240, 12)))
  }
  a <- hourly("a", 1)
  b <- hourly("b", 2)
  c7 <- data.frame(date = as.POSIXct("2021-03-02", tz = "UTC") + c(0, 420, 840), unit = "c",
                   est = c(9, 10, 12), ref = c(10, 11, 11))
  x <- rbind(a, b, c7)
  expect_warning(res <- quiet_performance(x, "est", "ref", unit = "unit"),
                 "unit \"c\" \\(7 minutes\\) does not divide a day")
  daily <- res[res$averaging == "24h", ]
  expect_identical(daily$unit, c("a", "b", "c", "all"))
  # By hand: means per calendar day of each hourly unit, then lm() on the 10 days.
  day_means <- function(d) {
    day <- as.Date(d$date, tz = "UTC")
    data.frame(est = as.vector(tapply(d$est, day, mean)), ref = as.vector(tapply(d$ref, day, mean)))
  }
  da <- day_means(a)
  db <- day_means(b)
  fit_a <- stats::lm(est ~ ref, da)
  expect_equal(daily$n[1:2], c(10L, 10L))
  expect_equal(daily$slope[1], unname(stats::coef(fit_a)[2]))
  expect_equal(daily$rmse[2], sqrt(mean((db$est - db$ref)^2)))
  expect_identical(daily$n[3], 0L)
  expect_true(is.na(daily$rmse[3]))
  expect_identical(daily$note[3], "time step 7 minutes does not divide a day: no 24-hour means")
  # "all": a and b (references differ: pooled errors), saying that c was left out.
  both <- rbind(da, db)
  expect_equal(daily$n[4], 20L)
  expect_equal(daily$rmse[4], sqrt(mean((both$est - both$ref)^2)))
  expect_match(daily$note[4], "unit c left out: time step does not divide a day")
  # As given, c is judged as usual: 3 pairs, errors 1, 1 and -1 (in the order of the rows).
  expect_equal(res$rmse[res$unit == "c" & res$averaging == "as_given"], 1)
  # Rows in any order give the same result (one pass per time step, not per unit).
  shuffled <- x[withr::with_seed(3, sample(nrow(x))), ]
  again <- suppressWarnings(quiet_performance(shuffled, "est", "ref", unit = "unit"), classes = "ncam_warning_uneven_step")
  by_unit <- function(r) r[order(r$averaging, r$unit), ]
  expect_equal(by_unit(again), by_unit(res))
  # No unit fits a day: "24h" alone is an error, both give NA 24-hour rows that say why.
  c9 <- transform(c7, unit = "d", date = date + 3600)
  expect_error(sensor_performance(rbind(c7, c9), "est", "ref", unit = "unit", averaging = "24h"),
               "units \"c\" and \"d\" is 7 minutes")
  expect_warning(none <- quiet_performance(rbind(c7, c9), "est", "ref", unit = "unit"),
                 "7 minutes")
  none_daily <- none[none$averaging == "24h", ]
  expect_true(all(is.na(none_daily$rmse)))
  expect_identical(none_daily$note[3],
                   "no unit has a time step that divides a day: no 24-hour means")
})

test_that("a units column is converted when the units package is installed but not loaded", {
  skip_if_not_installed("units")
  skip_if_not_installed("callr")
  # As after readRDS() in a fresh session: the column has class "units", the package is not loaded.
  out <- callr::r(function() {
    mg <- structure(list(numerator = "mg", denominator = "m3"), class = "symbolic_units")
    ug <- structure(list(numerator = "ug", denominator = "m3"), class = "symbolic_units")
    d <- data.frame(date = as.Date("2024-01-01") + 0:39)
    d$ref <- structure(1000 * (1:40), units = ug, class = "units")
    d$est <- structure(as.double(1:40), units = mg, class = "units")
    list(units_loaded = isNamespaceLoaded("units"),
         performance = suppressMessages(ncam::sensor_performance(d, "est", "ref")))
  }, libpath = .libPaths())
  expect_false(out$units_loaded)
  expect_equal(out$performance$rmse[1], 0)
  expect_equal(out$performance$slope[1], 1)
})

test_that("repeated times without `unit` suggest naming the unit column", {
  hours <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * (0:47)
  two <- data.frame(date = rep(hours, 2), site = rep(c("a", "b"), each = 48), ref = 10,
                    est = 11)
  expect_error(sensor_performance(two, "est", "ref"),
               "repeats a time in rows 49, 50.*without `unit`.*name the column that tells them apart in `unit`",
               class = "rlang_error")
  # A grouped tibble as dplyr::group_by(two, site) makes it (dplyr is not among the package's
  # dependencies): class grouped_df, the groups in attribute "groups".
  grouped <- tibble::as_tibble(two)
  attr(grouped, "groups") <- tibble::new_tibble(list(site = c("a", "b"), .rows = list(1:48, 49:96)), nrow = 2L)
  class(grouped) <- c("grouped_df", class(grouped))
  expect_error(sensor_performance(grouped, "est", "ref"),
               "grouped by site, but groups are not read: give `unit = \"site\"`",
               class = "rlang_error")
})

test_that("the message on rows without a pair says where they still count", {
  hours <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * (0:71)
  obs <- data.frame(date = hours, ref = 10 + sin(0:71), est = 11 + sin(0:71))
  obs$est[5] <- NA
  obs$ref[30] <- NA
  expect_message(sensor_performance(obs, "est", "ref", averaging = "as_given"),
                 "2 rows without both an estimate and a reference are left out of the paired metrics")
  expect_message(res <- sensor_performance(obs, "est", "ref"),
                 "left out of the pairs of the data as given, but count in the 24-hour means")
  # So they do: each day's estimate and reference are means of every row that has them.
  day <- as.Date(obs$date, tz = "UTC")
  errors <- tapply(obs$est, day, mean, na.rm = TRUE) - tapply(obs$ref, day, mean, na.rm = TRUE)
  expect_equal(res$mbe[2], mean(errors))
  expect_message(sensor_performance(obs, "est", "ref", averaging = "24h"),
                 "^2 rows without both an estimate and a reference count in the 24-hour means")
})


test_that("rows without a sensor reading (.n_sensors = 0) carry no estimate, as in average_estimates()", {
  hours <- seq(as.POSIXct("2024-03-01", tz = "UTC"), by = "hour", length.out = 96)
  ref <- 10 + (seq_along(hours) %% 5)
  d <- data.frame(date = hours, ref = ref, .pred = ref + 1, .n_sensors = 2L)
  # Day 1 measured on 17 of its 24 hours, the other 7 the model's prior (far off).
  d$.n_sensors[1:7] <- 0L
  d$.pred[1:7] <- 50
  expect_message(res <- sensor_performance(d, ".pred", "ref"),
                 "7 rows with .*n_sensors.* = 0 .*taken without an estimate")
  # By hand: 89 measured pairs, each 1 above the reference; day 1 below 18 hours.
  expect_identical(res$n, c(89L, 3L))
  expect_equal(res$mbe, c(1, 1))
  blanked <- transform(d, .pred = replace(.pred, .n_sensors == 0, NA))
  same <- suppressMessages(sensor_performance(blanked, ".pred", "ref"))
  expect_identical(res$n, same$n)
  expect_equal(res$rmse, same$rmse)
  expect_identical(is.na(average_estimates(d)$.pred), c(TRUE, FALSE, FALSE, FALSE))
})
