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

test_that("a period holding exactly its completeness share of readings counts", {
  # Berlin, 27 October 2024 has 25 hours; 14 of them are 0.56 of 25 exactly (14.000000000000002
  # in floating point): that day's mean counts, with 13 hours it does not.
  tz <- "Europe/Berlin"
  hours <- seq(as.POSIXct("2024-10-26", tz = tz), as.POSIXct("2024-10-28 23:00", tz = tz),
               by = "hour")
  day <- format(hours, "%Y-%m-%d", tz = tz)
  expect_identical(as.vector(table(day)), c(24L, 25L, 24L))
  reference <- data.frame(date = as.Date(c("2024-10-26", "2024-10-27", "2024-10-28")), ref = 1:3)
  for (kept in c(14, 13)) {
    on <- day != "2024-10-27" | cumsum(day == "2024-10-27") <= kept
    sensors <- data.frame(date = hours[on], pm = seq_along(hours)[on])
    out <- join_reference(sensors, reference, average = "1 day", completeness = 0.56)
    by_hand <- as.vector(tapply(sensors$pm, day[on], mean))
    expect_equal(out$pm, if (kept == 14) by_hand else replace(by_hand, 2, NA))
  }
  # 5-second readings: 396 of an hour's 720 are 0.55 of it exactly; 395 are not enough.
  secs <- as.POSIXct("2024-07-01", tz = "UTC") + 5 * (0:(3 * 720 - 1))
  hour <- format(secs, "%H", tz = "UTC")
  reference <- data.frame(date = as.POSIXct("2024-07-01", tz = "UTC") + 3600 * 0:2, ref = 1:3)
  for (kept in c(396, 395)) {
    on <- hour != "01" | cumsum(hour == "01") <= kept
    out <- join_reference(data.frame(date = secs[on], pm = seq_along(secs)[on]), reference,
                          completeness = 0.55)
    by_hand <- as.vector(tapply(seq_along(secs)[on], hour[on], mean))
    expect_equal(out$pm, if (kept == 396) by_hand else replace(by_hand, 2, NA))
  }
})

# Hourly sensors in New York for January 2024, reading the day of the month plus the hour / 100,
# and a 24-hour reference sample every third day (1, 4, ..., 28 January).
ny_hours <- seq(as.POSIXct("2024-01-01", tz = "America/New_York"),
                as.POSIXct("2024-01-30 23:00", tz = "America/New_York"), by = "hour")
ny_sensors <- data.frame(date = ny_hours, site = "A",
                         pm = as.numeric(format(ny_hours, "%d")) + as.numeric(format(ny_hours, "%H")) / 100)
one_in_three <- data.frame(date = as.Date("2024-01-01") + seq(0, 27, 3), site = "A",
                           ref = 100 + seq(0, 27, 3))

test_that("a reference sampled every third day pairs each sample with that local day's mean", {
  out <- join_reference(ny_sensors, one_in_three, keys = "site", average = "1 day")
  # Day d's mean is d plus the mean hour (11.5) / 100.
  expect_identical(nrow(out), 30L)
  expect_identical(format(out$date, "%Y-%m-%d %H:%M", tz = "America/New_York"),
                   sprintf("2024-01-%02d 00:00", 1:30))
  expect_equal(out$pm, 1:30 + 0.115)
  sampled <- (1:30 - 1) %% 3 == 0 & 1:30 <= 28
  expect_identical(out$ref, ifelse(sampled, 100 + 0:29, NA))
  # One every sixth day too, with missed samples, and with stamps at local midnight.
  six <- one_in_three[c(1, 3, 9), ]
  six$date <- as.POSIXct(format(six$date), tz = "America/New_York")
  expect_identical(join_reference(ny_sensors, six, keys = "site", average = "1 day")$ref,
                   replace(rep(NA_real_, 30), c(1, 7, 25), c(100, 106, 124)))
  # The sparse table may be the sensors: each sample with the reference's mean of its day.
  swapped <- join_reference(stats::setNames(one_in_three, c("date", "site", "pm")),
                            stats::setNames(ny_sensors, c("date", "site", "ref")),
                            keys = "site", average = "1 day")
  expect_identical(swapped$date, one_in_three$date)
  expect_identical(swapped$pm, one_in_three$ref)
  expect_equal(swapped$ref, seq(1, 28, 3) + 0.115)
})

test_that("samples every few days across a clock change are still whole days apart", {
  # Every sixth day at local midnight from 1 March: the gap over 10 March is 143 hours.
  days <- as.Date("2024-03-01") + 6 * (0:5)
  reference <- data.frame(date = as.POSIXct(format(days), tz = "America/New_York"), ref = 1:6)
  hours <- seq(as.POSIXct("2024-03-01", tz = "America/New_York"),
               as.POSIXct("2024-04-05 23:00", tz = "America/New_York"), by = "hour")
  out <- join_reference(data.frame(date = hours, pm = 1), reference, average = "1 day")
  expect_identical(out$ref[!is.na(out$ref)], 1:6 + 0)
  expect_identical(format(out$date[!is.na(out$ref)], "%Y-%m-%d"), format(days))
})

test_that("readings further apart than the period get only hints that pair the right windows", {
  # Hourly periods beside a sample every third day: daily values, not 3-day means from 1970.
  err <- expect_error(join_reference(ny_sensors, one_in_three, keys = "site"), class = "rlang_error")
  expect_match(conditionMessage(err), "`reference` has readings 3 days apart (series site = A)", fixed = TRUE)
  expect_match(conditionMessage(err), "average = \"1 day\"", fixed = TRUE)
  expect_no_match(conditionMessage(err), "average = \"3 days\"", fixed = TRUE)
  expect_match(conditionMessage(err), "no `average` pairs it with its window", fixed = TRUE)
  # Readings 3 hours apart are suggested 3-hour periods only when they start such periods
  # (00:00, 03:00, ... of the local clock; 01:00, 04:00, ... are not).
  hourly <- data.frame(date = ny_hours, site = "A", pm = 1)
  on_grid <- data.frame(date = ny_hours[seq(1, 720, 3)], site = "A", ref = 1)
  expect_error(join_reference(hourly, on_grid, keys = "site"),
               "mean of the 3 hours from its time, use `average = \"3 hours\"`", fixed = TRUE)
  off_grid <- transform(on_grid, date = date + 3600)
  err <- expect_error(join_reference(hourly, off_grid, keys = "site"), class = "rlang_error")
  expect_no_match(conditionMessage(err), "average = \"3 hours\"", fixed = TRUE)
  expect_match(conditionMessage(err), "no `average` pairs it with its window", fixed = TRUE)
  # With 3-hour periods as given, the off-grid readings would fall an hour into theirs.
  expect_identical(format(off_grid$date[1], "%H:%M"), "01:00")
  # Daily periods and readings 36 hours apart: not whole days, so still an error.
  every_36 <- data.frame(date = ny_hours[seq(1, 720, 36)], site = "A", ref = 1)
  expect_error(join_reference(hourly, every_36, keys = "site", average = "1 day"),
               "`reference` has readings 36 hours apart (series site = A), longer than `average` (1 day)",
               fixed = TRUE)
})

test_that("periods of several days refuse sparse readings at midnights, on their first day or not", {
  # 3-day periods start every third day from 1970-01-01: 2023-12-31, 2024-01-03, ...
  expect_identical(as.numeric(as.Date("2023-12-31")) %% 3, 0)
  err <- expect_error(join_reference(ny_sensors, one_in_three, keys = "site", average = "3 days"),
                      class = "rlang_error")
  expect_match(conditionMessage(err), "Row 1 (2024-01-01) lies 1 day into its period, which starts on 2023-12-31",
               fixed = TRUE)
  expect_match(conditionMessage(err), "average = \"1 day\"", fixed = TRUE)
  # The same schedule begun on a period's first day (3 January) is as ambiguous: a 24-hour
  # sample beside the sensors' 3-day mean (3 + 4 + 5 January, 4.115) is not its day's 3.115.
  aligned <- data.frame(date = as.Date("2024-01-03") + c(0, 3, 9, 12, 21, 24), site = "A", ref = 1:6)
  err <- expect_error(join_reference(ny_sensors, aligned, keys = "site", average = "3 days"),
                      class = "rlang_error")
  expect_match(conditionMessage(err), "Row 1 (2024-01-03) lies on the first day of its period", fixed = TRUE)
  expect_match(conditionMessage(err), "average = \"1 day\"", fixed = TRUE)
  # The fix it names pairs each sample with its own day: day d's mean is d + 0.115.
  daily <- join_reference(ny_sensors, aligned, keys = "site", average = "1 day")
  sampled <- !is.na(daily$ref)
  expect_identical(format(daily$date[sampled], "%Y-%m-%d"), format(aligned$date))
  expect_equal(daily$pm[sampled], c(3, 6, 12, 15, 24, 27) + 0.115)
  # The sparse table may be the sensors, and in either phase.
  swapped <- stats::setNames(ny_sensors, c("date", "site", "ref"))
  for (samples in list(one_in_three, aligned)) {
    expect_error(join_reference(stats::setNames(samples, c("date", "site", "pm")), swapped,
                                keys = "site", average = "3 days"),
                 "`sensors` has about one reading per period of 3 days", fixed = TRUE)
  }
  # A weekly sampler changed on Mondays, with 7-day periods from Thursdays, and one changed on
  # Thursdays (4 January 2024).
  days <- seq(as.Date("2024-01-01"), by = 1, length.out = 60)
  expect_error(join_reference(data.frame(date = days, pm = 1), data.frame(date = days[seq(1, 60, 7)], ref = 1),
                              average = "7 days"),
               "lies 4 days into its period, which starts on 2023-12-28", fixed = TRUE)
  expect_error(join_reference(data.frame(date = days, pm = 1), data.frame(date = days[seq(4, 60, 7)], ref = 1),
                              average = "7 days"),
               "Row 1 (2024-01-04) lies on the first day of its period", fixed = TRUE)
  # Daily readings with 3-day periods are still averaged: three per period, not one.
  every_day <- data.frame(date = as.Date("2024-01-03") + 0:5, site = "A", ref = c(1, 2, 3, 5, 7, 9))
  out <- join_reference(ny_sensors, every_day, keys = "site", average = "3 days")
  paired <- !is.na(out$ref)
  expect_identical(format(out$date[paired], "%Y-%m-%d"), c("2024-01-03", "2024-01-06"))
  expect_equal(out$ref[paired], c(2, 7))
  expect_equal(out$pm[paired], c(4, 7) + 0.115)
})

test_that("a 1-minute logger keeping few of its records keeps its 1-minute step", {
  # Diff review 27: a rule asking the step to be a tenth of the gaps took 8 % kept records for
  # an irregular series of a ~480-second step, and hours of 6 to 11 records passed as complete.
  withr::local_seed(1)
  start <- as.POSIXct("2024-03-01", tz = "UTC")
  kept <- sort(sample(14400, 1152))
  sensor <- data.frame(date = start + 60 * (kept - 1), pm = 10 + stats::rnorm(1152))
  hours <- data.frame(date = start + 3600 * (0:239), ref = 10)
  joined <- join_reference(sensor, hours, completeness = 0.75)
  per_hour <- tabulate((kept - 1) %/% 60 + 1, nbins = 240)
  expect_identical(max(per_hour) < 45, TRUE)  # no hour holds 75 % of its 60 minutes
  expect_true(all(is.na(joined$pm)))
})
