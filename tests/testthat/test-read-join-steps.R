# join_reference(): the time step a period's expected count of readings is judged against, and
# tables sampled every few days. Expected values are hand computations written here.

test_that("records lost at random do not lengthen the step that completeness is judged against", {
  set.seed(7)
  t0 <- as.POSIXct("2024-05-01 00:00", tz = "UTC")
  minutes <- t0 + 60 * (0:(60 * 48 - 1))
  # Hour 0 complete, then a logger that wrote 40 % of its minutes, at random: most gaps are
  # longer than a minute, so their median is 2 minutes, yet the step is one minute.
  kept <- minutes[seq_along(minutes) <= 60 | stats::runif(length(minutes)) < 0.4]
  sensors <- data.frame(date = kept, pm = as.numeric(format(kept, "%M")))
  expect_equal(stats::median(diff(as.numeric(kept))), 120)
  reference <- data.frame(date = t0 + 3600 * (0:47), ref = 1:48)
  out <- join_reference(sensors, reference)
  hour <- format(kept, "%Y-%m-%d %H", tz = "UTC")
  counts <- as.vector(table(factor(hour, unique(hour))))
  means <- as.vector(tapply(sensors$pm, factor(hour, unique(hour)), mean))
  expect_identical(out$pm, ifelse(counts >= 0.75 * 60, means, NA))
  # Only the complete hour reaches 45 of its 60 minutes; the others hold at most 37.
  expect_identical(out$pm, c(29.5, rep(NA, 47)))
  expect_lt(max(counts[-1]), 45)

  # Hourly sensors that kept 45 % of their hours: a day needs 18 of its 24.
  hours <- t0 + 3600 * (0:(24 * 30 - 1))
  hourly <- hours[stats::runif(length(hours)) < 0.45]
  days <- data.frame(date = as.Date("2024-05-01") + 0:29, ref = 1)
  daily <- join_reference(data.frame(date = hourly, pm = 10), days, average = "1 day")
  per_day <- as.vector(table(factor(as.Date(hourly), days$date)))
  expect_identical(as.Date(daily$date), days$date)
  expect_identical(daily$pm, ifelse(per_day >= 0.75 * 24, 10, NA_real_))
  expect_true(all(is.na(daily$pm)))
})

test_that("a reference offline for most hours at random is still hourly", {
  set.seed(2)
  hours <- as.POSIXct("2024-05-01", tz = "UTC") + 3600 * (0:239)
  sensors <- data.frame(date = hours, pm = seq_along(hours))
  online <- stats::runif(length(hours)) < 0.45
  reference <- data.frame(date = hours[online], ref = 10 * which(online))
  out <- join_reference(sensors, reference)
  expect_identical(out$date, hours)
  expect_identical(out$ref, ifelse(online, 10 * seq_along(hours), NA))
})
