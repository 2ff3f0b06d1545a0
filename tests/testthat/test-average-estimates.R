# average_estimates(): periods, completeness and averaged bounds, against means written out
# here with tapply() on the calendar days and hours.

hourly_estimates <- function(days = 3, tz = "UTC", start = "2024-03-01") {
  hours <- seq(as.POSIXct(start, tz = tz), by = "hour", length.out = 24 * days)
  set.seed(11)
  pred <- 10 + cumsum(rnorm(length(hours), sd = 0.3))
  data.frame(date = hours, .pred = pred, .pred_lower = pred - runif(length(hours), 1, 3),
             .pred_upper = pred + runif(length(hours), 1, 3), ref = pred + rnorm(length(hours)))
}

test_that("daily means and bounds are the means of each calendar day's rows", {
  d <- hourly_estimates()
  d$.pred[30:35] <- NA  # day 2 keeps 18 of 24 hours: exactly 75 %, it counts
  d$.pred[50:56] <- NA  # day 3 keeps 17 of 24: below 75 %, NA
  d$ref[c(1, 5)] <- NA
  out <- average_estimates(d, columns = "ref")
  day <- as.Date(d$date, tz = "UTC")
  keep <- !is.na(d$.pred)
  expect_equal(out$date, sort(unique(day)))
  expect_equal(out$.n_estimates, as.integer(tapply(keep, day, sum)), ignore_attr = TRUE)
  by_day <- function(v) unname(tapply(v[keep], day[keep], mean))
  expect_equal(out$.pred, c(by_day(d$.pred)[1:2], NA))
  expect_equal(out$.pred_lower, c(by_day(d$.pred_lower)[1:2], NA))
  expect_equal(out$.pred_upper, c(by_day(d$.pred_upper)[1:2], NA))
  expect_equal(out$ref, unname(tapply(d$ref, day, mean, na.rm = TRUE)), ignore_attr = TRUE)
  expect_named(out, c("date", ".n_estimates", ".pred", ".pred_lower", ".pred_upper", "ref"))
  expect_s3_class(out, "tbl_df")
})

test_that("rows without a sensor reading (.n_sensors = 0) do not count as estimates", {
  d <- hourly_estimates(days = 2)
  d$.n_sensors <- 2L
  d$.n_sensors[1:3] <- 0L      # day 1: 21 of 24 measured, averaged over those
  d$.n_sensors[25:31] <- 0L    # day 2: 17 of 24 measured, NA
  out <- average_estimates(d)
  expect_equal(out$.pred, c(mean(d$.pred[4:24]), NA))
  expect_equal(out$.pred_lower, c(mean(d$.pred_lower[4:24]), NA))
  expect_equal(out$.n_estimates, c(21L, 17L))
})

test_that("a lower completeness keeps a day that the default drops", {
  d <- hourly_estimates(days = 1)
  d$.pred[1:7] <- NA
  expect_true(is.na(average_estimates(d)$.pred))
  expect_equal(average_estimates(d, completeness = 0.7)$.pred, mean(d$.pred[8:24]))
})

test_that("an hour holding exactly its completeness share of records counts", {
  # 1-second data: 252 of an hour's 3600 records are 0.07 of it exactly, which in floating point
  # is 252.00000000000003: the hour counts; with 251 records it does not.
  secs <- as.POSIXct("2024-03-01", tz = "UTC") + 0:(3 * 3600 - 1)
  hour <- format(secs, "%H", tz = "UTC")
  for (kept in c(252, 251)) {
    on <- hour != "01" | cumsum(hour == "01") <= kept
    d <- data.frame(date = secs[on], .pred = seq_along(secs)[on])
    out <- average_estimates(d, averaging = "1h", completeness = 0.07)
    by_hand <- as.vector(tapply(d$.pred, hour[on], mean))
    expect_identical(out$.n_estimates, c(3600L, as.integer(kept), 3600L))
    expect_equal(out$.pred, if (kept == 252) by_hand else replace(by_hand, 2, NA))
  }
})

test_that("averaged bounds cover a mean of comonotone errors at the rows' level, for any shape", {
  set.seed(5)
  days <- 3000
  hours <- seq(as.POSIXct("2020-01-01", tz = "UTC"), by = "hour", length.out = 24 * days)
  z <- qnorm(0.95)
  shared <- rep(rnorm(days), each = 24)   # one error per day, scaled by each hour's sd
  sd_row <- runif(length(hours), 0.1, 0.8)
  mu <- rnorm(length(hours), 2, 0.5)
  # Log-normal rows: skewed intervals, exp(mu +- z sd); the truth moves with the shared error.
  d <- data.frame(date = hours, .pred = exp(mu), .pred_lower = exp(mu - z * sd_row),
                  .pred_upper = exp(mu + z * sd_row), truth = exp(mu + sd_row * shared))
  out <- average_estimates(d, columns = "truth")
  covered <- mean(out$truth >= out$.pred_lower & out$truth <= out$.pred_upper)
  expect_lt(abs(covered - 0.9), 3 * sqrt(0.9 * 0.1 / days))
  # The same rows taken as independent (normal, sd of the mean sqrt(sum sd^2) / n on the log
  # scale of each day's geometric mean) cover far less: the error that the bounds capture.
  day <- rep(seq_len(days), each = 24)
  log_mean <- tapply(mu, day, mean)
  log_sd <- sqrt(tapply(sd_row^2, day, sum)) / 24
  truth_log <- tapply(mu + sd_row * shared, day, mean)
  expect_lt(mean(abs(truth_log - log_mean) <= z * log_sd), 0.5)
})

test_that("10-minute data become hourly means first, each hour needing 75 % of its records", {
  times <- seq(as.POSIXct("2024-05-01", tz = "UTC"), by = "10 min", length.out = 6 * 48)
  set.seed(3)
  d <- data.frame(date = times, .pred = rnorm(length(times), 20))
  d$.pred[1:2] <- NA    # hour 1 keeps 4 of 6 records: below 75 %, not counted
  d$.pred[7] <- NA      # hour 2 keeps 5 of 6: counted
  d$.pred[6 * 24 + 1:(6 * 7)] <- NA  # day 2 loses 7 hours: 17 of 24 left, NA
  hour <- format(times, "%Y-%m-%d %H")
  hourly_values <- tapply(d$.pred, hour, mean, na.rm = TRUE)
  hourly_counts <- tapply(!is.na(d$.pred), hour, sum)
  hourly_values[hourly_counts < 0.75 * 6] <- NA
  day1 <- mean(hourly_values[1:24], na.rm = TRUE)
  out <- average_estimates(d)
  expect_equal(out$.pred, c(day1, NA))
  expect_equal(out$.n_estimates, c(6L * 24L - 3L, 6L * 17L))
  hourly <- average_estimates(d, averaging = "1h")
  expect_equal(hourly$.pred, unname(as.numeric(hourly_values)))
  expect_equal(hourly$date, as.POSIXct(names(hourly_values), format = "%Y-%m-%d %H", tz = "UTC"))
})

test_that("days follow the data's time zone, 23 hours long on a spring clock change", {
  # Brussels moved its clocks forward on 2024-03-31: that local day has 23 hours.
  d <- hourly_estimates(days = 3, tz = "Europe/Brussels", start = "2024-03-30")
  day <- as.Date(format(d$date, "%Y-%m-%d", tz = "Europe/Brussels"))
  on_change <- which(day == as.Date("2024-03-31"))
  expect_length(on_change, 23)
  d$.pred[on_change[1:5]] <- NA   # 18 of 23 left (78 %): counted
  out <- average_estimates(d)
  expect_equal(out$date, unique(day))
  expect_equal(out$.pred[2], mean(d$.pred[on_change[6:23]]))
  d$.pred[on_change[6]] <- NA     # 17 of 23 (74 %): NA
  expect_true(is.na(average_estimates(d)$.pred[2]))
})

test_that("units keep their column, type and order of first appearance", {
  a <- hourly_estimates(days = 2)
  b <- hourly_estimates(days = 2)
  b$.pred <- b$.pred + 5
  d <- rbind(cbind(site = 7L, b), cbind(site = 3L, a))
  out <- average_estimates(d, unit = "site")
  expect_identical(out$site, c(7L, 7L, 3L, 3L))
  expect_equal(out$.pred, c(tapply(b$.pred, as.Date(b$date), mean), tapply(a$.pred, as.Date(a$date), mean)),
               ignore_attr = TRUE)
})

test_that("daily data give one row per day for 24-hour means and are refused for 1-hour means", {
  d <- data.frame(date = as.Date("2024-01-01") + c(0:4, 6), .pred = c(1:5, NA), .pred_sd = 0.5)
  out <- average_estimates(d)
  expect_equal(out$date, d$date)
  expect_equal(out$.pred, c(1:5, NA))
  expect_equal(out$.n_estimates, c(rep(1L, 5), 0L))
  expect_error(average_estimates(d, averaging = "1h"), "days apart.*averaging = \"24h\"")
})

test_that("a step that divides a day but not an hour is averaged per day directly", {
  times <- seq(as.POSIXct("2024-05-01", tz = "UTC"), by = "45 min", length.out = 64)  # 2 days
  d <- data.frame(date = times, .pred = seq_along(times))
  d$.pred[1:9] <- NA    # day 1 keeps 23 of its 32 records (72 %): NA
  out <- average_estimates(d)
  expect_equal(out$.n_estimates, c(23L, 32L))
  expect_equal(out$.pred, c(NA, mean(33:64)))
  expect_error(average_estimates(d, averaging = "1h"), "45 minutes")
})

test_that("hourly data give one row per clock hour, dated by its start", {
  # Stamped on the half hour (hour-centred), one of them a second early: still one row per hour.
  times <- as.POSIXct("2024-05-01 00:30", tz = "UTC") + 3600 * (0:47)
  times[5] <- times[5] - 1
  d <- data.frame(date = times, .pred = seq_along(times))
  out <- average_estimates(d, averaging = "1h")
  expect_equal(out$date, as.POSIXct("2024-05-01", tz = "UTC") + 3600 * (0:47))
  expect_equal(out$.pred, as.numeric(seq_along(times)))
  # Seen from Kolkata (UTC+05:30) the stamps fall on the local hour: the one a second early
  # (09:59:59) joins the reading of 09:00 in that hour, and the hour of 10:00 has none; a
  # warning says so.
  attr(d$date, "tzone") <- "Asia/Kolkata"
  expect_warning(local <- average_estimates(d, averaging = "1h"),
                 "09:00:00, 09:59:59 IST", class = "ncam_warning_crowded_periods")
  expect_equal(format(local$date[1:5], "%H:%M"), c("06:00", "07:00", "08:00", "09:00", "11:00"))
  expect_equal(local$.pred[4], mean(4:5))
  expect_equal(local$.n_estimates[4], 2L)
})

test_that("columns named like the periods, or n, stay the user's", {
  d <- hourly_estimates(days = 2)
  d$hour <- 7
  d$day <- 3
  d$n <- 5
  out <- average_estimates(d, columns = c("hour", "day", "n"))
  expect_equal(out$.pred, unname(as.numeric(tapply(d$.pred, as.Date(d$date), mean))))
  expect_equal(out$hour, c(7, 7))
  expect_equal(out$day, c(3, 3))
  expect_equal(out$n, c(5, 5))
  by_n <- rbind(cbind(n = "a", d[c("date", ".pred")]), cbind(n = "b", d[c("date", ".pred")]))
  expect_identical(average_estimates(by_n, unit = "n")$n, c("a", "a", "b", "b"))
})

test_that("missing-value codes are NA with a warning, and units are kept", {
  d <- hourly_estimates(days = 2)
  d$ref[30] <- -999
  expect_warning(out <- average_estimates(d, columns = "ref"), class = "ncam_warning_missing_code")
  expect_equal(out$ref[2], mean(d$ref[c(25:29, 31:48)]))
  skip_if_not_installed("units")
  d$ref[30] <- 1
  d$ref <- units::set_units(d$ref, "ug/m3")
  with_units <- average_estimates(d, columns = "ref")
  expect_s3_class(with_units$ref, "units")
  expect_equal(as.character(units(with_units$ref)), "ug/m3")
  expect_equal(as.numeric(with_units$ref), unname(as.numeric(tapply(as.numeric(d$ref), as.Date(d$date), mean))))
})

test_that("a fit's augment() output averages to the means of its rows", {
  d <- simulate_colocation(days = 12, seed = 2)
  train <- d
  train$ref[as.Date(train$date) > as.Date("2021-04-05")] <- NA
  fit <- short_fit(ncam(pa_a + pa_b ~ rh + temperature, data = train, reference = "ref",
                        hidden = 4L, epochs = 20L, seed = 1, threads = 1))
  scored <- suppressWarnings(augment(fit, d, interval = "prediction"), classes = "ncam_warning_extrapolation")
  out <- average_estimates(scored, columns = "ref")
  day <- as.Date(scored$date, tz = attr(scored$date, "tzone"))
  expect_equal(nrow(out), length(unique(day)))
  expect_equal(out$.pred_upper, unname(as.numeric(tapply(scored$.pred_upper, day, mean))))
  expect_equal(out$.pred_sd, unname(as.numeric(tapply(scored$.pred_sd, day, mean))))
})

test_that("bad input is an error naming the column and rows", {
  d <- hourly_estimates(days = 1)
  expect_error(average_estimates(d[c("date", "ref")]), "no column .*\\.pred")
  expect_error(average_estimates(d[c("date", ".pred", ".pred_lower")]), "without")
  bad <- d
  bad$.pred_upper[4] <- NA
  expect_error(average_estimates(bad), "missing in row 4")
  expect_error(average_estimates(d, columns = "nope"), "nope")
  expect_error(average_estimates(d, columns = c("ref", ".pred")), "averaged or used already")
  expect_error(average_estimates(transform(d, ref = as.character(ref)), columns = "ref"), "must be numeric")
  expect_error(average_estimates(rbind(d, d)), "repeats a time")
  seven <- data.frame(date = as.POSIXct("2024-01-01", tz = "UTC") + 420 * 0:300, .pred = 1)
  expect_error(average_estimates(seven), "7 minutes")
  expect_error(average_estimates(d[1, ]), "one time stamp")
  expect_error(average_estimates(d[0, ]), "no rows")
  no_sd <- transform(d, .pred_sd = 1)
  no_sd$.pred_sd[3] <- NA
  expect_error(average_estimates(no_sd), "missing in row 3")
  crossed <- d
  crossed[7, c(".pred_lower", ".pred_upper")] <- crossed[7, c(".pred_upper", ".pred_lower")]
  expect_error(average_estimates(crossed), "above .*row 7")
  # base::date, found for the unquoted name: not a column.
  expect_error(average_estimates(d, date = date), "`date` takes a column name as a string: `date = \"date\"`.*R found `date` as a function")
  expect_error(average_estimates(d, averaging = "week"), "averaging")
})

test_that("24-hour means of jittered hourly data are the daily means of their 1-hour means", {
  # Four days of hourly readings stamped up to 3 minutes off the hour; each midnight's reading
  # is stamped 23:58 the day before. By hand: a reading is of the hour nearest its stamp and of
  # that hour's day.
  hours <- seq(as.POSIXct("2024-03-01", tz = "Europe/Paris"), by = "hour", length.out = 96)
  jitter <- rep(c(-2, 3, -1, 2, 1, -3), length.out = 96) * 60
  values <- (1:96) %% 7 + (1:96) / 10
  d <- data.frame(date = hours + jitter, .pred = values, ref = values + 1)
  expect_identical(format(d$date[c(1, 25, 49, 73)], "%H:%M"), rep("23:58", 4))
  day <- as.Date(format(hours, "%Y-%m-%d"))
  out <- suppressMessages(average_estimates(d, columns = "ref"))
  expect_equal(out$date, unique(day))
  expect_equal(out$.pred, unname(as.vector(tapply(values, day, mean))))
  expect_equal(out$ref, unname(as.vector(tapply(values + 1, day, mean))))
  expect_identical(out$.n_estimates, rep(24L, 4))
  hourly <- suppressMessages(average_estimates(d, "1h", columns = "ref"))
  two_stage <- suppressMessages(average_estimates(hourly[c("date", ".pred", "ref")], columns = "ref"))
  expect_equal(out[c("date", ".pred", "ref")], two_stage[c("date", ".pred", "ref")])
  # A day missing one of its hours is complete at 0.75, not at 1 (23 of 24), either way.
  gap <- d[-30, ]
  for (completeness in c(0.75, 1)) {
    one <- suppressMessages(average_estimates(gap, completeness = completeness))
    by_hour <- suppressMessages(average_estimates(gap, "1h"))
    two <- suppressMessages(average_estimates(by_hour[c("date", ".pred")], completeness = completeness))
    expect_equal(one$.pred, two$.pred)
    expected <- tapply(values[-30], day[-30], mean)
    if (completeness == 1) expected[2] <- NA
    expect_equal(one$.pred, unname(as.vector(expected)))
  }
  # A second reading of one nominal hour (00:00 of day 3 read again at 00:02) is averaged with
  # the first there, as in its 1-hour mean, before the day's mean.
  again <- rbind(d, data.frame(date = hours[49] + 120, .pred = 100, ref = 0))
  out <- suppressMessages(average_estimates(again))
  expected <- tapply(values, day, mean)
  expected[3] <- (sum(values[50:72]) + mean(c(values[49], 100))) / 24
  expect_equal(out$.pred, unname(as.vector(expected)))
})

test_that("daily values stamped at midnight of another time zone are warned about", {
  # Days stamped at 00:00 UTC, shown in New York: 20:00 (EDT) of the day before.
  days <- as.Date("2023-04-20") + 0:6
  d <- data.frame(date = as.POSIXct(format(rep(days, 2)), tz = "UTC"), site = rep(c("a", "b"), each = 7),
                  .pred = 1:14, ref = 101:114)
  attr(d$date, "tzone") <- "America/New_York"
  expect_warning(shifted <- average_estimates(d, unit = "site", columns = "ref"),
                 "20 hours into its day in time zone America/New_York.*2023-04-19 20:00 EDT.*dated by the day before the one it mostly covers",
                 class = "ncam_warning_period_offset")
  # The dating the warning is about: each value on the day before its own.
  expect_equal(shifted$date, rep(days - 1, 2))
  expect_equal(shifted$.pred, 1:14)
  # The fix it names: the column in UTC, or as Date, dates each value by its own day.
  attr(d$date, "tzone") <- "UTC"
  expect_equal(expect_no_warning(average_estimates(d, unit = "site", columns = "ref"))$date, rep(days, 2))
  d$date <- as.Date(d$date)
  expect_equal(expect_no_warning(average_estimates(d, unit = "site", columns = "ref"))$date, rep(days, 2))
  # Across a clock change the offset moves by an hour (19:00 EST, then 20:00 EDT): still one pattern.
  march <- data.frame(date = as.POSIXct(format(as.Date("2022-03-10") + 0:6), tz = "UTC"), .pred = 1:7)
  attr(march$date, "tzone") <- "America/New_York"
  expect_warning(average_estimates(march), "19 hours \\(to an hour\\) into its day", class = "ncam_warning_period_offset")
  # Local midnights, stamps at the end of the day (23:59:59) and hourly data are dated rightly.
  local <- data.frame(date = as.POSIXct(format(days), tz = "America/New_York"), .pred = 1:7)
  expect_equal(expect_no_warning(average_estimates(local))$date, days)
  ends <- data.frame(date = as.POSIXct(paste(days, "23:59:59"), tz = "UTC"), .pred = 1:7)
  expect_equal(expect_no_warning(average_estimates(ends))$date, days)
  hours <- data.frame(date = seq(as.POSIXct("2023-04-20", tz = "UTC"), by = "hour", length.out = 72), .pred = 1)
  attr(hours$date, "tzone") <- "America/New_York"
  expect_no_warning(average_estimates(hours))
})

test_that("days of another zone stamped before noon are said to be dated by the day they mostly cover", {
  # UTC days shown in Tokyo (09:00): 15 of each value's 24 hours lie in the day it is dated by.
  days <- as.Date("2024-01-10") + 0:5
  d <- data.frame(date = as.POSIXct(format(days), tz = "UTC"), .pred = 1:6)
  attr(d$date, "tzone") <- "Asia/Tokyo"
  w <- caught_warnings(out <- average_estimates(d))
  expect_length(w, 1L)
  expect_s3_class(w[[1]], "ncam_warning_period_offset")
  expect_match(conditionMessage(w[[1]]), "9 hours into its day in time zone Asia/Tokyo.*2024-01-10 09:00 JST.*is dated by the day it mostly covers, though not its first 9 hours")
  expect_no_match(conditionMessage(w[[1]]), "day before")
  expect_equal(out$date, days)
  # New York at 19:00 (EST): each dated by the day before the one it mostly covers.
  attr(d$date, "tzone") <- "America/New_York"
  expect_warning(out <- average_estimates(d), "19 hours into its day.*dated by the day before the one it mostly covers\\.",
                 class = "ncam_warning_period_offset")
  expect_equal(out$date, days - 1)
})

test_that("the shared PurpleAir/AQS days shown in another time zone are warned about", {
  dir <- shared_data("purpleair-aqs-daily-mathieu")
  skip_if_not(dir.exists(dir), "shared PurpleAir data not available")
  pa <- read_purpleair_aqs(file.path(dir, "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv"))
  d <- data.frame(date = as.POSIXct(pa$date[1:50]), site = pa$site[1:50], .pred = pa$pa_a[1:50], ref = pa$ref[1:50])
  attr(d$date, "tzone") <- "America/New_York"
  expect_warning(out <- average_estimates(d, unit = "site", columns = "ref"), class = "ncam_warning_period_offset")
  expect_equal(out$date[1], pa$date[1] - 1)
  attr(d$date, "tzone") <- "UTC"
  out <- expect_no_warning(average_estimates(d, unit = "site", columns = "ref"))
  expect_equal(out$date[1], pa$date[1])
  expect_equal(out$ref[1], pa$ref[1])
})
