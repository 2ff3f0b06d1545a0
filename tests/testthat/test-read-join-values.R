# join_reference(): missing-value codes in the readings, the type of the time column it gives
# back, periods of whole days however written, and columns with units. Expected values are hand
# computations on small series.

utc <- function(x, tz = "UTC") as.POSIXct(x, tz = tz)

test_that("join_reference() reads missing-value codes as NA, naming the table, column and rows", {
  minutes <- utc("2024-03-01 00:00") + 60 * (0:59)
  pm <- 10 + (0:59) %% 3
  pm[17] <- -999
  pm[30] <- -0.4  # a small negative reading is real, and kept
  reference <- data.frame(date = minutes[1], ref = 9)
  expect_warning(out <- join_reference(data.frame(date = minutes, pm = pm), reference),
                 "`sensors`: 1 value is a missing-value code.*Column \"pm\": 1 value, row 17 is -999\\.",
                 class = "ncam_warning_missing_code")
  # 59 readings of 60 pass the completeness threshold; before, the mean took -999 in (-6.8).
  expect_equal(out$pm, sum(pm[-17]) / 59, tolerance = 1e-12)
  expect_identical(out$ref, 9)

  # Codes of both tables, in several columns; keys and times are not readings.
  sensors <- data.frame(date = minutes, site = -999, a = c(-9999, -99999, rep(1, 58)),
                        b = c(rep(2, 59), -999.9))
  reference <- data.frame(date = minutes[1] + c(0, 3600), site = -999, ref = c(-999999, 8))
  warnings <- capture_warnings(out <- join_reference(sensors, reference, keys = "site", completeness = 0))
  expect_length(warnings, 2)
  expect_match(warnings[1], "`sensors`: 3 values are missing-value codes")
  expect_match(warnings[1], "Column \"a\": 2 values, row 1 is -9999, row 2 is -99999\\.")
  expect_match(warnings[1], "Column \"b\": 1 value, row 60 is -999\\.9\\.")
  expect_match(warnings[2], "`reference`: 1 value is a missing-value code.*Column \"ref\": 1 value, row 1 is -999999\\.")
  expect_identical(out$site, -999)
  expect_identical(c(out$a, out$b, out$ref), c(1, 2, NA))

  # The nearest-time join passes columns through, but for the codes.
  expect_warning(near <- join_reference(sensors[1:2, c("date", "b")], reference[c("date", "ref")],
                                        average = NULL, tolerance = "5 min"),
                 "`reference`.*row 1 is -999999", class = "ncam_warning_missing_code")
  expect_identical(near$ref, c(NA_real_, NA_real_))
  expect_identical(near$date_ref, rep(minutes[1], 2))
  # Values near a code, and -99, are readings.
  kept <- c(-99, -998, -999.5, -1000, 999, 9999)
  expect_no_warning(near <- join_reference(data.frame(date = minutes[1:6], x = kept),
                                           data.frame(date = minutes[1:6], y = rev(kept)),
                                           average = NULL, tolerance = 1))
  expect_identical(near$y, rev(kept))
})

test_that("a Date time column stays a Date where the periods are whole days", {
  days <- as.Date("2024-03-01") + 0:13
  sensors <- data.frame(date = days, pm = as.numeric(1:14))
  reference <- data.frame(date = days, ref = as.numeric(101:114))
  daily <- join_reference(sensors, reference, average = "1 day")
  expect_identical(daily$date, days)
  expect_identical(daily$pm, as.numeric(1:14))
  expect_identical(daily$ref, as.numeric(101:114))
  # Periods of 7 days start on multiples of 7 days since 1970-01-01 (a Thursday).
  weekly <- join_reference(sensors, reference, average = "7 days")
  starts <- as.Date(floor(as.numeric(days) / 7) * 7, origin = "1970-01-01")
  expect_identical(weekly$date, unique(starts))
  means <- as.numeric(tapply(1:14, as.numeric(starts), mean))
  means[tabulate(match(starts, unique(starts))) < 0.75 * 7] <- NA  # completeness
  expect_identical(weekly$pm, means)
  # Sensors given as date-times stay date-times, beside a daily reference.
  hours <- utc("2024-03-01 00:00") + 3600 * (0:47)
  by_hour <- join_reference(data.frame(date = hours, pm = 1), reference, average = "1 day")
  expect_identical(by_hour$date, utc("2024-03-01 00:00") + 86400 * (0:1))

  # Nearest times: each table's column keeps its type.
  near <- join_reference(sensors, reference, average = NULL, tolerance = "1 hour")
  expect_identical(near$date, days)
  expect_identical(near$date_ref, days)
  near <- join_reference(data.frame(date = hours[c(1, 26)], pm = 1:2), reference,
                         average = NULL, tolerance = "2 hours")
  expect_identical(near$date, hours[c(1, 26)])
  expect_identical(near$date_ref, days[c(1, 2)])
  near <- join_reference(sensors[1:2, ], data.frame(date = hours[c(2, 25)], ref = 1:2),
                         average = NULL, tolerance = "2 hours")
  expect_identical(near$date, days[1:2])
  expect_identical(near$date_ref, hours[c(2, 25)])
})

test_that("a whole number of days, however written, is local calendar days as \"1 day\" is", {
  # Hourly New York readings over the spring clock change (12 March 2023 has 23 hours), each the
  # local day number times 100 plus the local hour.
  tz <- "America/New_York"
  hours <- seq(as.POSIXct("2023-03-10 00:00", tz = tz), as.POSIXct("2023-03-13 23:00", tz = tz), by = "hour")
  day <- as.Date(format(hours, "%Y-%m-%d", tz = tz))
  hour_of_day <- as.numeric(format(hours, "%H", tz = tz))
  sensors <- data.frame(date = hours, pm = as.numeric(format(hours, "%d", tz = tz)) * 100 + hour_of_day)
  reference <- data.frame(date = as.Date("2023-03-10") + 0:3, ref = c(10, 11, 12, 13))
  expect_identical(sum(day == as.Date("2023-03-12")), 23L)
  # Local days 10 to 13: the mean local hour is 11.5, but 12 March skips 02:00 (mean 265 / 23).
  skipped_day_mean <- (sum(0:23) - 2) / 23
  expected_pm <- c(1011.5, 1111.5, 1200 + skipped_day_mean, 1311.5)
  for (average in list("1 day", "24 hours", "1440 min", 86400, as.difftime(1, units = "days"),
                       as.difftime(24, units = "hours"))) {
    out <- expect_no_warning(join_reference(sensors, reference, average = average, completeness = 1))
    expect_identical(out$date, as.POSIXct(c("2023-03-10", "2023-03-11", "2023-03-12", "2023-03-13"), tz = tz))
    expect_equal(out$pm, expected_pm)
    expect_identical(out$ref, c(10, 11, 12, 13))
  }
  # "48 hours" is "2 days": starts on multiples of 2 days since 1970-01-01 (19426 = 10 March).
  expect_identical(as.numeric(as.Date("2023-03-10")) %% 2, 0)
  two <- join_reference(sensors, reference, average = "48 hours", completeness = 1)
  expect_identical(two$date, as.POSIXct(c("2023-03-10", "2023-03-12"), tz = tz))
  expect_equal(two$pm, c(mean(sensors$pm[day <= as.Date("2023-03-11")]), mean(sensors$pm[day >= as.Date("2023-03-12")])))
  # A length that is not whole days counts from 1970-01-01 00:00 of the local clock: the local
  # clock time (UTC time plus the offset, -5 or -4 hours) floored to 36 hours, less the offset.
  odd <- join_reference(sensors, reference, average = "36 hours")
  offset <- as.POSIXlt(hours)$gmtoff
  starts <- floor((as.numeric(hours) + offset) / (36 * 3600)) * 36 * 3600 - offset
  expect_identical(as.numeric(odd$date), unique(starts))
  # Daily values stamped at UTC midnight are warned about with "24 hours" too.
  utc_days <- data.frame(date = as.POSIXct(c("2023-03-10", "2023-03-11"), tz = "UTC"), ref = 1:2)
  expect_warning(join_reference(sensors, utc_days, average = "24 hours"), class = "ncam_warning_period_offset")
})

test_that("columns of the units package are averaged and keep their units", {
  skip_if_not_installed("units")
  hours <- utc("2023-03-11 08:00") + 3600 * (0:47)
  sensors <- data.frame(date = hours, pm = units::set_units(1:48, "ug/m3"))
  reference <- data.frame(date = hours, ref = units::set_units(as.numeric(1:48) + 0.5, "ug/m3"))
  hourly <- join_reference(sensors, reference)
  expect_s3_class(hourly$pm, "units")
  expect_identical(units::deparse_unit(hourly$pm), units::deparse_unit(sensors$pm))
  expect_equal(as.numeric(hourly$pm), as.numeric(1:48))
  expect_equal(as.numeric(hourly$ref), 1:48 + 0.5)
  # Days of UTC: 08:00 to 23:00 (16 hours, at least half of 24), then 24 hours, then 8 (fewer).
  daily <- join_reference(sensors, reference, average = "1 day", completeness = 0.5)
  expect_equal(as.numeric(daily$pm), c(mean(1:16), mean(17:40), NA))
  expect_identical(units::deparse_unit(daily$ref), units::deparse_unit(reference$ref))
  # A missing-value code is blanked, and a value too large is the usual error.
  coded <- sensors
  coded$pm[2] <- units::set_units(-999L, "ug/m3")
  expect_warning(out <- join_reference(coded, reference, average = "2 hours"), class = "ncam_warning_missing_code")
  expect_equal(as.numeric(out$pm[1:2]), c(NA, 3.5))
  huge <- reference
  huge$ref[3] <- units::set_units(1e200, "ug/m3")
  expect_error(join_reference(sensors, huge), "\"ref\" of `reference` has a value as large as 1e\\+200 in row 3",
               class = "ncam_error")
})

test_that("sensors in a fixed standard-time zone pair with AQS days of local standard time", {
  # AQS daily values are for midnight to midnight standard time all year: in July, 05:00 to
  # 05:00 UTC for US Eastern, which "America/New_York" days (04:00 to 04:00 UTC) miss by an hour.
  hours <- as.POSIXct("2024-07-01 00:00", tz = "UTC") + 3600 * (0:95)
  sensors <- data.frame(date = hours, pm = seq_along(hours))
  aqs_days <- data.frame(date = as.Date("2024-07-01") + 0:2, ref = 1:3)
  attr(sensors$date, "tzone") <- "Etc/GMT+5"
  standard <- join_reference(sensors, aqs_days, average = "1 day")
  # The first period is 30 June (from 19:00 UTC); hours 05:00 UTC on 1 July to 04:00 UTC on
  # 2 July are rows 6 to 29.
  expect_identical(standard$pm[2:4], c(mean(6:29), mean(30:53), mean(54:77)))
  expect_identical(standard$ref[2:4], c(1, 2, 3))
  attr(sensors$date, "tzone") <- "America/New_York"
  summer <- join_reference(sensors, aqs_days, average = "1 day")
  # 1 July in New York summer time starts at 04:00 UTC, row 5.
  expect_identical(summer$pm[2:3], c(mean(5:28), mean(29:52)))
})

test_that("keys are told apart as values: text holding the separator, a missing key, -0", {
  hours <- utc("2024-03-01 00:00") + 3600 * (0:2)
  # Keys ("a\rb", "c") and ("a", "b\rc") were joined into one string: paired, and averaged as one series.
  sensors <- data.frame(date = hours, site = "a\rb", unit = "c", pm = 1:3)
  other <- data.frame(date = hours, site = "a", unit = "b\rc", ref = c(10, 20, 30))
  for (average in list("1 hour", NULL)) {
    expect_warning(out <- join_reference(sensors, other, keys = c("site", "unit"), average = average,
                                         tolerance = "5 min"),
                   class = "ncam_warning_no_overlap")
    expect_identical(out$ref, rep(NA_real_, 3))
  }
  both <- rbind(sensors, data.frame(date = hours + 1800, site = "a", unit = "b\rc", pm = 101:103))
  reference <- data.frame(date = hours, site = "a\rb", unit = "c", ref = c(10, 20, 30))
  out <- join_reference(both, reference, keys = c("site", "unit"))
  expect_identical(out$pm, c(1, 2, 3, 101, 102, 103))  # each series its own means (51 to 53 when merged)
  expect_identical(out$ref, c(10, 20, 30, NA, NA, NA))
  # A backslash is a character like any other.
  slash <- data.frame(date = hours, site = "a\\", unit = "rb", pm = 1:3)
  expect_warning(join_reference(slash, transform(reference, site = "a", unit = "\\rb"), keys = c("site", "unit")),
                 class = "ncam_warning_no_overlap")
  expect_identical(join_reference(slash, transform(reference, site = "a\\", unit = "rb"), keys = c("site", "unit"))$ref,
                   c(10, 20, 30))
  # A missing key matches a missing key only, whatever the text.
  missing_site <- data.frame(date = hours, site = NA_character_, pm = 1:3)
  expect_warning(join_reference(missing_site, data.frame(date = hours, site = "\001", ref = 1), keys = "site"),
                 class = "ncam_warning_no_overlap")
  expect_identical(join_reference(missing_site, data.frame(date = hours, site = NA, ref = 1:3), keys = "site")$ref,
                   c(1, 2, 3))
  # Site -0 is site 0 (it was written "-0", and left unpaired without a warning).
  zero <- join_reference(data.frame(date = hours, site = 0, pm = 1:3), data.frame(date = hours, site = -0, ref = 4:6),
                         keys = "site")
  expect_identical(zero$ref, c(4, 5, 6))
})
