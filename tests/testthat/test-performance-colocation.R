# Co-location judged per block of sensor_performance(): the periods it scores, not raw stamps.

quiet <- function(...) suppressMessages(sensor_performance(...))

# EPA's inter-unit SD of a matrix of estimates (times x units), every cell present.
epa_sd <- function(x) sqrt(sum(sweep(x, 1, rowMeans(x))^2) / (length(x) - 1))

test_that("hourly units stamped on the hour and on the half hour are co-located by the day", {
  withr::local_seed(1)
  h <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * (0:479)
  ref <- 10 + 8 * sin(seq_along(h) / 15) + stats::rexp(480)
  a <- data.frame(date = h, unit = "a", ref = ref, pm = 1.2 * ref + stats::rnorm(480))
  b <- data.frame(date = h + 1800, unit = "b", ref = ref, pm = 0.8 * ref + stats::rnorm(480))[1:240, ]
  res <- quiet(rbind(a, b), "pm", "ref", unit = "unit")
  day_mean <- function(d, col) tapply(d[[col]], as.Date(d$date, tz = "UTC"), mean)
  # Unit b covers the first 10 days, whole: EPA's metrics over those common days.
  days <- names(day_mean(b, "pm"))
  est <- cbind(day_mean(a, "pm")[days], day_mean(b, "pm")[days])
  ref_days <- cbind(day_mean(a, "ref")[days], day_mean(b, "ref")[days])
  daily <- res[res$averaging == "24h" & res$unit == "all", ]
  expect_equal(daily$rmse, sqrt(mean((est - ref_days)^2)))
  expect_equal(daily$mbe, mean(est - ref_days))
  expect_identical(daily$n_precision, 10L)
  expect_equal(daily$sd, epa_sd(est))
  expect_equal(daily$cv, 100 * epa_sd(est) / mean(est))
  expect_true(daily$pass_precision)
  expect_no_match(daily$note, "co-located")
  # As given the two units share no time: not judged co-located, the pairs pooled.
  given <- res[res$averaging == "as_given" & res$unit == "all", ]
  both <- rbind(a, b)
  expect_equal(given$rmse, sqrt(mean((both$pm - both$ref)^2)))
  expect_true(is.na(given$sd))
  expect_match(given$note, "units share no time: RMSE, NRMSE and MBE pool the pairs")
})

test_that("a 1-minute unit beside an hourly one is co-located in the 1-hour block", {
  minutes <- seq(as.POSIXct("2024-07-01", tz = "UTC"), by = "min", length.out = 60 * 12)
  withr::local_seed(2)
  ref <- 30 + 10 * sin(seq_along(minutes) / 100) + stats::rnorm(length(minutes))
  fast <- data.frame(date = minutes, unit = "fast", ref = ref, o3 = ref + stats::rnorm(length(ref)))
  hour <- format(minutes, "%H", tz = "UTC")
  # The hourly unit carries the reference's hourly means.
  hourly_ref <- as.vector(tapply(ref, hour, mean))
  slow <- data.frame(date = minutes[!duplicated(hour)], unit = "slow", ref = hourly_ref,
                     o3 = 1.1 * hourly_ref + stats::rnorm(12))
  res <- quiet(rbind(fast, slow), "o3", "ref", unit = "unit", pollutant = "o3", units = "ppb")
  one_h <- res[res$averaging == "1h" & res$unit == "all", ]
  est <- cbind(as.vector(tapply(fast$o3, hour, mean)), slow$o3)
  expect_identical(one_h$n_precision, 12L)
  expect_equal(one_h$sd, epa_sd(est))
  expect_equal(one_h$rmse, sqrt(mean((est - cbind(hourly_ref, hourly_ref))^2)))
  # As given, a one-minute reference value and an hourly mean differ at the 12 shared times.
  given <- res[res$averaging == "as_given" & res$unit == "all", ]
  expect_true(is.na(given$sd))
  expect_match(given$note, "not co-located: their references differ at 12 of 12 shared times")
})

test_that("an hourly unit stamped on the half hour shares the 1-hour block's hours with a 10-minute one", {
  tens <- seq(as.POSIXct("2024-07-01", tz = "UTC"), by = "10 min", length.out = 6 * 24)
  withr::local_seed(3)
  ref <- 30 + 10 * sin(seq_along(tens) / 20) + stats::rnorm(length(tens))
  fast <- data.frame(date = tens, unit = "fast", ref = ref, o3 = ref + stats::rnorm(length(ref)))
  hour <- format(tens, "%H", tz = "UTC")
  # The hourly unit, stamped 00:30, 01:30, ..., carries the reference's mean of each hour.
  hourly_ref <- as.vector(tapply(ref, hour, mean))
  slow <- data.frame(date = tens[!duplicated(hour)] + 1800, unit = "slow", ref = hourly_ref,
                     o3 = 1.1 * hourly_ref + stats::rnorm(24))
  res <- quiet(rbind(fast, slow), "o3", "ref", unit = "unit", pollutant = "o3", units = "ppb", averaging = "1h")
  one_h <- res[res$unit == "all", ]
  # By hand: the 24 hours from 00:00, each the mean of 6 ten-minute values beside the hourly row.
  est <- cbind(as.vector(tapply(fast$o3, hour, mean)), slow$o3)
  expect_identical(one_h$n_precision, 24L)
  expect_equal(one_h$sd, epa_sd(est))
  expect_equal(one_h$cv, 100 * epa_sd(est) / mean(est))
  expect_equal(one_h$rmse, sqrt(mean((est - hourly_ref)^2)))
  expect_no_match(one_h$note, "share no hour|co-located")
  expect_identical(res$n[res$unit != "all"], c(24L, 24L))
})

test_that("units with one reference joined to one of them keep their precision", {
  hours <- seq(as.POSIXct("2024-03-01", tz = "UTC"), by = "hour", length.out = 72)
  withr::local_seed(3)
  ref <- 12 + 4 * sin(seq_along(hours) / 6)
  a <- data.frame(date = hours, unit = "a", ref = ref, pm = ref + stats::rnorm(72))
  b <- data.frame(date = hours, unit = "b", ref = NA_real_, pm = 0.9 * ref + stats::rnorm(72))
  # Unit b's own row has no pair.
  expect_warning(res <- quiet(rbind(a, b), "pm", "ref", unit = "unit", averaging = "as_given"),
                 class = "ncam_warning_few_pairs")
  all_row <- res[res$unit == "all", ]
  expect_equal(all_row$sd, epa_sd(cbind(a$pm, b$pm)))
  expect_identical(all_row$n_precision, 72L)
  expect_match(all_row$note, "co-location not checked (only unit a has a reference)", fixed = TRUE)
  expect_no_match(all_row$note, "differ")
})

test_that("references that differ on complete days make units not co-located, with a note", {
  hours <- seq(as.POSIXct("2024-03-01", tz = "UTC"), by = "hour", length.out = 24 * 6)
  withr::local_seed(4)
  ref_a <- 12 + 4 * sin(seq_along(hours) / 6)
  ref_b <- ref_a + 2 # another site
  x <- rbind(data.frame(date = hours, unit = "a", ref = ref_a, pm = ref_a + stats::rnorm(144)),
             data.frame(date = hours, unit = "b", ref = ref_b, pm = ref_b + stats::rnorm(144)))
  # Unit a lacks an hour on day 2: that day is not compared, the other 5 are.
  x <- x[-30, ]
  res <- quiet(x, "pm", "ref", unit = "unit", averaging = "24h")
  all_row <- res[res$unit == "all", ]
  expect_true(is.na(all_row$sd))
  expect_match(all_row$note, "references differ at 5 of 5 shared days (by up to 2)", fixed = TRUE)
  # Pooled errors of the 12 daily pairs (day 2 of unit a averages its 23 hours).
  day <- as.Date(x$date, tz = "UTC")
  errors <- tapply(x$pm, list(day, x$unit), mean) - tapply(x$ref, list(day, x$unit), mean)
  expect_equal(all_row$rmse, sqrt(mean(errors^2)))
})

test_that("a unit at another site whose reference is complete on no day is compared hour by hour", {
  hours <- seq(as.POSIXct("2024-03-01", tz = "UTC"), by = "hour", length.out = 24 * 7)
  withr::local_seed(16)
  ref <- 12 + 6 * sin(seq_along(hours) / 8) + stats::rexp(length(hours), 0.3)
  x <- do.call(rbind, lapply(1:3, function(i) {
    data.frame(date = hours, unit = letters[i], ref = ref + 2 * (i == 3),
               pm = ref + stats::rnorm(length(hours)))
  }))
  # Unit c, beside a reference 2 higher, lacks its 12:00 record every day: its days are
  # complete at 0.75 (23 of 24 hours), its reference on none, so the days compare a and b only.
  x <- x[!(x$unit == "c" & format(x$date, "%H") == "12"), ]
  res <- quiet(x, "pm", "ref", unit = "unit", averaging = "24h")
  all_row <- res[res$unit == "all", ]
  expect_identical(res$n[res$unit == "c"], 7L)
  expect_true(is.na(all_row$sd))
  expect_true(is.na(all_row$cv))
  # By hand: c shares 161 of the 168 hours (7 x 23), at each 2 above a and b.
  expect_match(all_row$note, "references differ at 161 of 168 shared times of the rows as given (by up to 2)",
               fixed = TRUE)
  # Units a and b beside one reference, with c gone, stay co-located.
  both <- quiet(x[x$unit != "c", ], "pm", "ref", unit = "unit", averaging = "24h")
  expect_false(is.na(both$sd[both$unit == "all"]))
})

test_that("daily rows at local midnight share their days with an hourly unit's 24-hour means", {
  # New York midnights are 05:00 (04:00 in summer) UTC; the hourly unit's days are the same
  # local days, one of them the 23 hours of the spring clock change (10 March 2024).
  days <- as.Date("2024-03-05") + 0:9
  for (tz in c("America/New_York", "UTC", "")) {
    withr::local_timezone("America/New_York")
    hours <- seq(as.POSIXct("2024-03-05", tz = tz), as.POSIXct("2024-03-15", tz = tz),
                 by = "hour")
    hours <- hours[-length(hours)]
    withr::local_seed(4)
    ref <- 10 + 5 * sin(seq_along(hours) / 7)
    hourly <- data.frame(date = hours, unit = "hourly", ref = ref,
                         pm = ref + stats::rnorm(length(ref)))
    local_day <- as.Date(format(hours, "%Y-%m-%d"))
    expect_identical(unique(local_day), days)
    day_ref <- as.vector(tapply(ref, local_day, mean))
    day_pm <- as.vector(tapply(hourly$pm, local_day, mean))
    daily <- data.frame(date = as.POSIXct(format(days), tz = tz), unit = "daily", ref = day_ref,
                        pm = 1.1 * day_ref + stats::rnorm(10))
    res <- quiet(rbind(hourly, daily), "pm", "ref", unit = "unit", averaging = "24h")
    all_row <- res[res$unit == "all", ]
    est <- cbind(day_pm, daily$pm)
    expect_identical(all_row$n_precision, 10L)
    expect_equal(all_row$sd, epa_sd(est))
    expect_equal(all_row$cv, 100 * epa_sd(est) / mean(est))
    expect_equal(all_row$rmse, sqrt(mean((est - day_ref)^2)))
    expect_no_match(all_row$note, "share no day|co-located")
  }
})

test_that("a 1-minute unit lacking a minute every hour stays co-located beside an hourly one", {
  # Diff review 27: compared at the times of the rows as given, its 1-minute references met the
  # hourly unit's means at the 12 hourly stamps, and the three units were called not co-located.
  minutes <- seq(as.POSIXct("2024-07-01", tz = "UTC"), by = "min", length.out = 60 * 12)
  withr::local_seed(2)
  ref <- 30 + 10 * sin(seq_along(minutes) / 100) + stats::rnorm(length(minutes))
  hour <- format(minutes, "%H", tz = "UTC")
  fast1 <- data.frame(date = minutes, unit = "fast1", ref = ref, o3 = ref + stats::rnorm(length(ref)))
  fast2 <- data.frame(date = minutes, unit = "fast2", ref = ref, o3 = ref + stats::rnorm(length(ref)))
  fast2 <- fast2[format(minutes, "%M") != "37", ]
  hourly_ref <- as.vector(tapply(ref, hour, mean))
  slow <- data.frame(date = minutes[!duplicated(hour)], unit = "slow", ref = hourly_ref,
                     o3 = 1.1 * hourly_ref + stats::rnorm(12))
  res <- quiet(rbind(fast1, fast2, slow), "o3", "ref", unit = "unit", pollutant = "o3", units = "ppb", averaging = "1h")
  all_row <- res[res$unit == "all", ]
  hourly <- function(u) as.vector(tapply(u$o3, format(u$date, "%H", tz = "UTC"), mean))
  expect_equal(all_row$sd, epa_sd(cbind(hourly(fast1), hourly(fast2), slow$o3)))
  expect_match(all_row$note, "reference of unit fast2, complete in no shared hour, differs at 12 of 708 shared times",
               fixed = TRUE)
})
