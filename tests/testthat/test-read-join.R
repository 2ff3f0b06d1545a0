# join_reference(): sensor and reference readings on one time base. Expected values are
# hand computations on small series.

utc <- function(x, tz = "UTC") as.POSIXct(x, tz = tz)

test_that("join_reference() averages per site and hour, with a completeness threshold", {
  minutes <- utc("2024-03-01 00:00") + 60 * (0:119)
  site_a <- data.frame(date = minutes, site = "A", pm25 = (0:119) %% 10)
  site_a$pm25[61:80] <- NA # hour 1 keeps 40 of its 60 readings: 0.67 < 0.75
  ten_min <- utc("2024-03-01 00:00") + 600 * c(0, 1, 2, 4, 5, 6, 7)
  site_b <- data.frame(date = ten_min, site = "B", pm25 = c(3, 5, 7, 11, 13, 20, 40))
  sensors <- rbind(site_a, site_b)
  reference <- data.frame(date = utc("2024-03-01 00:00") + 3600 * c(0, 1, 0),
                          site = c("A", "A", "B"), pm25 = c(2, 3, 8), units = "ug/m3")
  out <- join_reference(sensors, reference, keys = "site")
  expect_s3_class(out, "tbl_df")
  expect_named(out, c("date", "site", "pm25", "pm25_ref", "units"))
  expect_identical(out$site, c("A", "A", "B", "B"))
  expect_identical(out$date, utc("2024-03-01 00:00") + 3600 * c(0, 1, 0, 1))
  # Site A, hour 0: minutes 0..59 give the digits 0..9 six times, mean 4.5.
  # Site B reads every 10 minutes: hour 0 has 5 of 6 readings (0.83), hour 1 two of 6.
  expect_identical(out$pm25, c(4.5, NA, (3 + 5 + 7 + 11 + 13) / 5, NA))
  expect_identical(out$pm25_ref, c(2, 3, 8, NA))
  expect_identical(out$units, c("ug/m3", "ug/m3", "ug/m3", NA))

  # With no threshold, site A's hour 1 averages minutes 80..119 (the digits 0..9 four
  # times) and site B's the readings at 01:00 and 01:10.
  loose <- join_reference(sensors, reference, keys = "site", completeness = 0)
  expect_identical(loose$pm25, c(4.5, 4.5, 7.8, 30))
})

test_that("the completeness threshold holds without keys too (one sensor, one monitor)", {
  # Minutes 0-59 complete, then one reading at 01:00, minutes 120-179, one at 03:00.
  t <- utc("2024-03-01 00:00") + 60 * c(0:59, 60, 120:179, 180)
  sensors <- data.frame(date = t, pm = seq_along(t))
  reference <- data.frame(date = t[1], ref = 1)
  out <- join_reference(sensors, reference)
  expect_identical(out$date, utc("2024-03-01 00:00") + 3600 * 0:3)
  expect_identical(out$pm, c(mean(1:60), NA, mean(62:121), NA))
  keyed <- join_reference(transform(sensors, site = "A"), transform(reference, site = "A"), keys = "site")
  expect_identical(keyed$pm, out$pm)
  hourly <- utc("2024-03-01 00:00") + 3600 * c(0:23, 24)
  daily <- join_reference(data.frame(date = hourly, pm = 1), reference, average = "1 day")
  expect_identical(daily$pm, c(1, NA))  # the second day holds 1 of its 24 hours
  expect_error(join_reference(sensors[0, ], reference), "`sensors` has no rows")
})

test_that("a series with a single reading takes its step from the other series", {
  t0 <- utc("2020-06-01 10:00")
  # Site A: 50 of 60 minutes; site B: 30 minutes; site C: one minute; site D: one minute
  # in the next hour. A and B read every minute, so C and D expect 60 readings an hour.
  sensors <- data.frame(date = t0 + 60 * c(0:49, 0:29, 45, 75),
                        site = c(rep("A", 50), rep("B", 30), "C", "D"), pm = c(1:80, 200, 300))
  reference <- data.frame(date = t0 + 3600 * c(0, 0, 0, 1), site = c("A", "B", "C", "D"),
                          ref = c(5, 6, 7, 8))
  out <- join_reference(sensors, reference, keys = "site")
  # Hand means per site and hour, and the share of the 60 minutes each holds.
  hour <- as.POSIXct(floor(as.numeric(sensors$date) / 3600) * 3600, origin = "1970-01-01",
                     tz = "UTC")
  means <- aggregate(pm ~ site + hour, data = transform(sensors, hour = hour), FUN = mean)
  counts <- aggregate(pm ~ site + hour, data = transform(sensors, hour = hour), FUN = length)
  expected <- ifelse(counts$pm >= 0.75 * 60, means$pm, NA)
  expect_identical(out$site, means$site)
  expect_identical(out$date, means$hour)
  expect_identical(out$pm, expected)
  expect_identical(out$pm, c(mean(1:50), NA, NA, NA))
  # The reference reads once per site: no series has a step, one reading per hour is expected.
  expect_identical(out$ref, c(5, 6, 7, 8))
  # A lone reading passes only a threshold of at most 1/60.
  expect_identical(join_reference(sensors, reference, keys = "site", completeness = 1 / 60)$pm,
                   means$pm)
  expect_identical(join_reference(sensors, reference, keys = "site", completeness = 0.02)$pm,
                   c(mean(1:50), mean(51:80), NA, NA))
  # The step of the other series is their most common gap: 10-minute series give 6 an hour.
  ten <- data.frame(date = t0 + 600 * c(0:4, 0:5, 2), site = c(rep("A", 5), rep("B", 6), "C"),
                    pm = c(1:11, 50))
  lone <- join_reference(ten, reference[1:3, ], keys = "site", completeness = 1 / 6)
  expect_identical(lone$pm, c(3, 8.5, 50))
  expect_identical(join_reference(ten, reference[1:3, ], keys = "site")$pm, c(3, 8.5, NA))
})

test_that("join_reference() pairs local days with daily (Date) reference values", {
  tz <- "America/Los_Angeles"
  hours <- utc("2024-01-01 00:00", tz) + 3600 * (0:47)
  sensors <- data.frame(date = hours, value = c(rep(2, 24), rep(6, 24)))
  reference <- data.frame(date = as.Date(c("2024-01-01", "2024-01-02")), pm25 = c(9, 12))
  out <- join_reference(sensors, reference, average = "1 day")
  expect_identical(format(out$date, "%Y-%m-%d %H:%M %Z"), c("2024-01-01 00:00 PST", "2024-01-02 00:00 PST"))
  expect_identical(out$value, c(2, 6))
  expect_identical(out$pm25, c(9, 12))
})

test_that("sensor date-times without a time zone are days of the session's zone, whatever the reference's", {
  skip_if_not_installed("withr")
  withr::local_timezone("Asia/Tokyo")
  # 48 hours from Tokyo midnight, stored without a zone: R prints them as Tokyo times.
  hours <- as.POSIXct("2024-06-01 00:00") + 3600 * (0:47)
  sensors <- data.frame(date = hours, pm = rep(c(1, 2), each = 24))
  reference <- data.frame(date = hours, ref = rep(c(10, 20), each = 24))
  attr(reference$date, "tzone") <- "America/Los_Angeles"
  out <- join_reference(sensors, reference, average = "1 day")
  expect_identical(format(out$date, "%Y-%m-%d %H:%M"), c("2024-06-01 00:00", "2024-06-02 00:00"))
  expect_identical(out$pm, c(1, 2))
  expect_identical(out$ref, c(10, 20))
  # The same instants with the zone written out give the same days.
  attr(sensors$date, "tzone") <- "Asia/Tokyo"
  expect_identical(join_reference(sensors, reference, average = "1 day")[c("pm", "ref")], out[c("pm", "ref")])
})

test_that("local days that a clock change starts at 01:00 keep their own daily reference value", {
  # In Santiago, 2023-09-03 00:00 does not exist: the clocks jump from 00:00 to 01:00.
  tz <- "America/Santiago"
  hours <- seq(as.POSIXct("2023-09-01 00:00", tz = tz), by = "hour", length.out = 95)
  sensors <- data.frame(date = hours, pm = as.numeric(format(hours, "%d")))  # 1, 2, 3, 4 by day
  reference <- data.frame(date = as.Date("2023-09-01") + 0:3, ref = c(10, 20, 30, 40))
  out <- join_reference(sensors, reference, average = "1 day")
  expect_identical(format(out$date, "%Y-%m-%d %H:%M"),
                   c("2023-09-01 00:00", "2023-09-02 00:00", "2023-09-03 01:00", "2023-09-04 00:00"))
  expect_identical(out$pm, c(1, 2, 3, 4))
  expect_identical(out$ref, c(10, 20, 30, 40))
})

test_that("a time repeated within a series is an error, not counted twice", {
  t0 <- utc("2024-03-01 00:00")
  # 40 distinct minutes of 60 (67 %, below 75 %), and 10 of them repeated.
  sensors <- data.frame(date = c(t0 + 60 * 0:39, t0 + 60 * 0:9), pm = c(rep(10, 40), rep(100, 10)))
  expect_error(join_reference(sensors, data.frame(date = t0, ref = 8)),
               "`sensors` row 41 repeats the time of row 1 .*10 rows repeat")
  # The same time at two sites is not a repeat when the site is a key.
  two_sites <- data.frame(date = rep(t0 + 60 * 0:59, 2), site = rep(c("a", "b"), each = 60), pm = 1)
  expect_error(join_reference(two_sites, data.frame(date = t0, ref = 8)), "A key must be a column of both tables")
  out <- join_reference(two_sites, data.frame(date = t0, site = c("a", "b"), ref = c(8, 9)), keys = "site")
  expect_identical(out$ref, c(8, 9))
  # Keys match by value: a site 100000 stored as a double in one table and as text in the
  # other (as.character() gives "1e+05"); a missing key matches a missing key, not "NA".
  numbered <- transform(two_sites, site = ifelse(site == "a", 1e5, NA))
  by_text <- data.frame(date = t0, site = c("100000", "NA"), ref = c(8, 9))
  expect_identical(join_reference(numbered, by_text, keys = "site")$ref, c(8, NA))
  expect_identical(join_reference(numbered, transform(by_text, site = c("100000", NA)), keys = "site")$ref, c(8, 9))
  # Two POCs of one monitor in the reference.
  expect_error(join_reference(two_sites[1:60, ], data.frame(date = c(t0, t0), ref = c(8, 9))),
               "`reference` row 2 repeats the time of row 1")
})

test_that("join_reference() pairs each sensor row with the nearest reference time", {
  sensors <- data.frame(date = utc("2024-03-01 00:00") + 60 * c(7, 29, 30, 31, 120, 5),
                        site = c("A", "A", "A", "A", "A", "C"), pm25 = 1:6)
  reference <- data.frame(date = utc("2024-03-01 00:00") + 3600 * c(1, 0), site = "A",
                          pm25 = c(20, 10))
  out <- join_reference(sensors, reference, keys = "site", average = NULL, tolerance = "30 min")
  expect_named(out, c("date", "site", "pm25", "date_ref", "pm25_ref"))
  expect_identical(out$pm25, 1:6)
  # 00:30 is as near to 00:00 as to 01:00: the earlier wins. 02:00 is 60 min from 01:00.
  expect_identical(out$pm25_ref, c(10, 10, 10, 20, NA, NA))
  expect_identical(out$date_ref, utc("2024-03-01 00:00") + 3600 * c(0, 0, 0, 1, NA, NA))
  narrow <- join_reference(sensors, reference, keys = "site", average = NULL,
                           tolerance = as.difftime(10, units = "mins"))
  expect_identical(narrow$pm25_ref, c(10, NA, NA, NA, NA, NA))
  expect_identical(join_reference(sensors, reference, average = NULL, tolerance = 300)$pm25_ref,
                   c(NA, NA, NA, NA, NA, 10))
})

test_that("join_reference() refuses input it cannot pair safely", {
  sensors <- data.frame(date = utc("2024-03-01 00:00") + 60 * (0:9), site = "A", pm25 = 1:10)
  reference <- data.frame(date = utc("2024-03-01 00:00") + c(0, 0), site = "A", pm25 = c(1, 2))
  expect_error(join_reference(sensors, reference, average = NULL), "tolerance", class = "rlang_error")
  expect_error(join_reference(sensors, reference, average = NULL, tolerance = "1 hour"),
               "reference.*row 2", class = "rlang_error")
  mixed <- sensors
  mixed$site[3] <- "B"
  expect_error(join_reference(mixed, reference), "site.*sensors.*row 3.*keys", class = "rlang_error")
  expect_error(join_reference(sensors, reference, keys = "station"), "station", class = "rlang_error")
  expect_error(join_reference(sensors, reference, average = "hourly"), "average", class = "rlang_error")
  expect_error(join_reference(sensors, reference, average = "1.5 day"), "average", class = "rlang_error")
  expect_error(join_reference(sensors, reference, completeness = 75), "completeness",
               class = "rlang_error")
  infinite <- sensors
  infinite$pm25[2] <- Inf
  expect_error(join_reference(infinite, reference), "pm25.*sensors.*row 2", class = "rlang_error")
  sensors$date[4] <- NA
  expect_error(join_reference(sensors, reference), "sensors.*row 4", class = "rlang_error")
  sensors$date <- format(utc("2024-03-01 00:00"))
  expect_error(join_reference(sensors, reference), "POSIXct, POSIXlt or Date", class = "rlang_error")
  expect_error(join_reference(list(), reference), "sensors", class = "rlang_error")
})

test_that("a day of a clock change expects its 23 or 25 hours of readings", {
  tz <- "Europe/London"
  hours <- seq(as.POSIXct("2021-03-27", tz = tz), as.POSIXct("2021-03-29 23:00", tz = tz), by = "hour")
  sensors <- data.frame(date = hours, site = "A", pm = 10 + seq_along(hours) %% 5)
  day <- as.Date(hours, tz = tz)
  reference <- data.frame(date = as.Date("2021-03-26") + 1:3, site = "A", ref = c(7, 8, 9))
  # 28 March has all of its 23 hours: complete.
  out <- join_reference(sensors, reference, keys = "site", average = "1 day", completeness = 1)
  expect_equal(out$pm, unname(as.vector(tapply(sensors$pm, day, mean))))
  expect_identical(out$ref, c(7, 8, 9))
  # Two-day periods: 28-29 March hold 23 + 24 hours.
  two <- join_reference(sensors, reference, keys = "site", average = "2 days", completeness = 1)
  spring <- day >= as.Date("2021-03-28")
  expect_equal(two$pm[format(two$date, "%d") == "28"], mean(sensors$pm[spring]))

  autumn <- seq(as.POSIXct("2021-10-30", tz = tz), as.POSIXct("2021-11-01 23:00", tz = tz), by = "hour")
  sensors <- data.frame(date = autumn, pm = 10 + seq_along(autumn) %% 5)
  day <- as.Date(autumn, tz = tz)
  long_day <- which(day == as.Date("2021-10-31"))
  expect_length(long_day, 25L)
  # 18 of 25 hours (72 %) fall short of 0.75; 19 (76 %) do not.
  sensors$pm[long_day[1:7]] <- NA
  reference <- data.frame(date = as.Date("2021-10-29") + 1:3, ref = 1)
  out <- join_reference(sensors, reference, average = "1 day")
  expect_identical(is.na(out$pm), c(FALSE, TRUE, FALSE))
  sensors$pm[long_day[7]] <- 30
  out <- join_reference(sensors, reference, average = "1 day")
  expect_equal(out$pm[2], mean(sensors$pm[long_day], na.rm = TRUE))
})

test_that("POSIXlt times are joined as the same instants", {
  tz <- "Europe/Paris"
  t0 <- as.POSIXct("2024-01-01", tz = tz)
  ct <- data.frame(date = t0 + 600 * (0:11), pm = c(1:5, NA, 7:12))
  lt <- ct
  lt$date <- as.POSIXlt(lt$date)
  expect_s3_class(lt$date, "POSIXlt")
  reference <- data.frame(date = t0 + 3600 * (0:1), ref = c(5, 6))
  out <- join_reference(lt, reference)
  expect_identical(out$date, t0 + 3600 * (0:1))
  expect_equal(out$pm, c(mean(c(1:5)), mean(7:12)))
  expect_identical(out$ref, c(5, 6))
  expect_identical(join_reference(lt, reference, average = NULL, tolerance = "10 min"),
                   join_reference(ct, reference, average = NULL, tolerance = "10 min"))
  # A POSIXlt reference too.
  reference$date <- as.POSIXlt(reference$date)
  expect_identical(join_reference(ct, reference), out)
})

test_that("a table whose readings are further apart than `average` is an error naming it", {
  hours <- utc("2024-03-01 00:00") + 3600 * (0:71)
  days <- as.Date("2024-03-01") + 0:2
  hourly_sensors <- data.frame(date = hours, pm25 = 10)
  daily_reference <- data.frame(date = days, ref = c(8, 9, 10))
  # A daily reference beside hourly sensors would sit on the 00:00 hours alone.
  err <- expect_error(join_reference(hourly_sensors, daily_reference), class = "rlang_error")
  expect_match(conditionMessage(err), "`reference` has readings 1 day apart, longer than `average` (1 hour)",
               fixed = TRUE)
  expect_match(conditionMessage(err), "average = \"1 day\"", fixed = TRUE)
  # Daily sensor means beside an hourly reference would get its 00:00 reading.
  hourly_reference <- data.frame(date = hours, ref = 5 + (0:71) %% 24)
  daily_sensors <- data.frame(date = days, pm25 = 12:14)
  expect_error(join_reference(daily_sensors, hourly_reference),
               "`sensors` has readings 1 day apart, longer than `average` (1 hour)", fixed = TRUE)
  # At the suggested period the daily means are paired with the hand means of the 24 hours.
  out <- join_reference(daily_sensors, hourly_reference, average = "1 day")
  hand <- tapply(hourly_reference$ref, format(hours, "%Y-%m-%d"), mean)
  expect_identical(out$ref, unname(as.numeric(hand)))
  expect_identical(out$ref, rep(mean(5:28), 3))
  out <- join_reference(hourly_sensors, daily_reference, average = "1 day")
  expect_identical(out$ref, c(8, 9, 10))
  # The series is named, and its step suggested.
  two_hourly <- data.frame(date = hours[c(TRUE, FALSE)], site = "A", ref = 1)
  expect_error(join_reference(transform(hourly_sensors, site = "A"), two_hourly, keys = "site"),
               "`reference` has readings 2 hours apart \\(series site = A\\).*average = \"2 hours\"")
  # A lone reading takes the step of its table's other series, so it is refused beside
  # daily series; a table of lone readings has no step and is accepted as before.
  lone <- data.frame(date = c(days, days[1]), site = c("A", "A", "A", "B"), ref = 1:4)
  expect_error(join_reference(transform(hourly_sensors, site = "B"), lone[4, ], keys = "site"), NA)
  expect_identical(join_reference(transform(hourly_sensors, site = "B"), lone[4, ], keys = "site")$ref,
                   c(4, rep(NA, 71)))
  expect_error(join_reference(transform(hourly_sensors, site = "B"), lone, keys = "site"),
               "`reference` has readings 1 day apart (series site = A)", fixed = TRUE)
  # Readings a little irregular, or 23 and 25 hours apart around a clock change, are daily.
  brussels <- as.POSIXct("2024-03-29", tz = "Europe/Brussels") + 0
  local_days <- data.frame(date = seq(as.Date("2024-03-29"), by = 1, length.out = 4), ref = 1:4)
  expect_no_error(join_reference(data.frame(date = brussels + 3600 * (0:95), pm25 = 1), local_days,
                                 average = "1 day"))
})

test_that("a join that pairs no sensor row warns with both tables' time spans", {
  hours <- utc("2021-05-01") + 3600 * (0:47)
  sensors <- data.frame(date = hours, pm = 1:48)
  reference <- data.frame(date = hours + 365 * 86400, ref = 2)
  expect_warning(out <- join_reference(sensors, reference),
                 "2021-05-01 00:00:00 UTC to 2021-05-02 23:00:00 UTC.*2022-05-01 00:00:00 UTC to 2022-05-02 23:00:00 UTC",
                 class = "ncam_warning_no_overlap")
  expect_identical(out$ref, rep(NA_real_, 48))
  expect_warning(join_reference(sensors, reference, average = NULL, tolerance = "1 hour"),
                 "do not overlap", class = "ncam_warning_no_overlap")
  # Times that overlap with keys that never match: the keys are blamed.
  expect_warning(join_reference(transform(sensors, site = "a"), transform(reference, date = hours, site = "b"),
                                keys = "site"),
                 "keys.*same values", class = "ncam_warning_no_overlap")
  # One paired row is enough: no warning.
  reference$date[1] <- hours[48]
  expect_no_warning(out <- join_reference(sensors, reference))
  expect_identical(out$ref, c(rep(NA, 47), 2))
})

test_that("infinite times and values too large to average are errors naming column and row", {
  hours <- utc("2021-05-01") + 3600 * (0:47)
  sensors <- data.frame(date = hours, pm = 1:48)
  reference <- data.frame(date = hours, ref = 2)
  # A time of Inf was kept as a row dated Inf.
  infinite <- sensors
  infinite$date[3] <- Inf
  expect_error(join_reference(infinite, reference),
               "Column \"date\" of `sensors` has infinite times in row 3", class = "rlang_error")
  expect_error(join_reference(infinite, reference, average = NULL, tolerance = 60),
               "infinite times in row 3", class = "rlang_error")
  daily <- data.frame(date = as.Date("2021-05-01") + c(0, 1), ref = 2)
  daily$date[2] <- -Inf
  expect_error(join_reference(sensors, daily, average = "1 day"),
               "Column \"date\" of `reference` has infinite times in row 2", class = "rlang_error")
  # Means of readings near 1e308 overflowed to Inf.
  big <- reference
  big$ref[1:24] <- 1e308
  expect_error(join_reference(sensors, big, average = "1 day"),
               "\"ref\" of `reference` has values as large as 1e\\+308 in rows 1, 2, 3, 4, 5 and 19 more",
               class = "rlang_error")
  # At the limit ncam() uses, the mean is computed: the hand mean of 24 readings of 1e150.
  big$ref[1:24] <- 1e150
  expect_equal(join_reference(sensors, big, average = "1 day")$ref, c(1e150, 2))
})

test_that("list columns and numbers stored as text are errors naming the column", {
  hours <- utc("2021-05-01") + 3600 * (0:47)
  sensors <- data.frame(date = hours, pm = 1:48)
  reference <- data.frame(date = hours, ref = 2)
  # A list column gave "comparison of these types is not implemented".
  listed <- sensors
  listed$l <- as.list(1:48)
  expect_error(join_reference(listed, reference),
               "Column \"l\" of `sensors` holds a list, not one value per row", class = "rlang_error")
  # The nearest-time join computes nothing from it and passes it through.
  expect_identical(join_reference(listed, reference, average = NULL, tolerance = 60)$l, listed$l)
  # Numbers stored as text were blamed as a column that tells series apart.
  text <- transform(reference, ref = as.character(1:48))
  err <- expect_error(join_reference(sensors, text, average = "1 day"), class = "rlang_error")
  expect_match(conditionMessage(err), "\"ref\" of `reference` holds numbers stored as text.*rows 1 and 2")
  expect_match(conditionMessage(err), "as.numeric()", fixed = TRUE)
  # Digits as text may be ids (read_purpleair()'s sensor_index): keys is offered first.
  expect_match(conditionMessage(err), "add \"ref\" to `keys`", fixed = TRUE)
  # Text constant within each period, such as the poc and method codes of read_aqs(), is kept.
  codes <- transform(reference, poc = "1", method_code = "170")
  out <- join_reference(sensors, codes, average = "1 day")
  expect_identical(out$poc, c("1", "1"))
  expect_identical(out$method_code, c("170", "170"))
  expect_identical(join_reference(sensors, text, average = NULL, tolerance = 60)$ref, text$ref)
})

test_that("daily values stamped at midnight of another time zone are warned about", {
  hours <- seq(as.POSIXct("2019-08-01 00:00", tz = "Etc/GMT+5"), by = "hour", length.out = 72)
  sensors <- data.frame(date = hours, pm = rep(c(10, 20, 30), each = 24))
  utc_days <- data.frame(date = as.POSIXct(c("2019-08-01", "2019-08-02", "2019-08-03"), tz = "UTC"), ref = c(10, 20, 30))
  expect_warning(shifted <- join_reference(sensors, utc_days, average = "1 day"),
                 "reference.*19 hours into its day in time zone Etc/GMT\\+5", class = "ncam_warning_period_offset")
  expect_identical(shifted$ref, c(20, 30, NA))  # the pairing the warning is about
  # The same days as Date, or stamped at local midnight, are paired day by day, without a warning.
  as_dates <- data.frame(date = as.Date(c("2019-08-01", "2019-08-02", "2019-08-03")), ref = c(10, 20, 30))
  expect_identical(expect_no_warning(join_reference(sensors, as_dates, average = "1 day"))$ref, c(10, 20, 30))
  local_days <- data.frame(date = as.POSIXct(c("2019-08-01", "2019-08-02", "2019-08-03"), tz = "Etc/GMT+5"), ref = c(10, 20, 30))
  expect_identical(expect_no_warning(join_reference(sensors, local_days, average = "1 day"))$ref, c(10, 20, 30))
  # Across a clock change the offset moves by an hour: still one pattern.
  ny_hours <- seq(as.POSIXct("2022-03-11 00:00", tz = "America/New_York"), by = "hour", length.out = 119)
  ny <- data.frame(date = ny_hours, pm = 1)
  utc_ny <- data.frame(date = as.POSIXct(sprintf("2022-03-1%d", 1:6), tz = "UTC"), ref = 1:6)
  expect_warning(join_reference(ny, utc_ny, average = "1 day"), "to an hour", class = "ncam_warning_period_offset")
})

test_that("the warning on days of another zone says which day each is paired with, before and after noon", {
  days <- as.Date("2024-01-10") + 0:3
  # UTC days shown in Tokyo (09:00): each value covers 09:00 to 09:00, 15 of its 24 hours in
  # the Tokyo day it is stamped in, with whose mean it is paired.
  tokyo_hours <- seq(as.POSIXct("2024-01-10", tz = "Asia/Tokyo"), by = "hour", length.out = 96)
  tokyo <- data.frame(date = tokyo_hours, pm = rep(c(10, 20, 30, 40), each = 24))
  utc_days <- data.frame(date = as.POSIXct(format(days), tz = "UTC"), ref = 1:4)
  attr(utc_days$date, "tzone") <- "Asia/Tokyo"
  expect_warning(out <- join_reference(tokyo, utc_days, average = "1 day"),
                 "9 hours into its day in time zone Asia/Tokyo.*2024-01-10 09:00 JST.*covers the 24 hours from its stamp and is paired with the other table's mean of the day it mostly covers, though not its first 9 hours",
                 class = "ncam_warning_period_offset")
  # Tokyo day by Tokyo day: each value beside the mean of the day it mostly covers.
  expect_equal(out$pm, c(10, 20, 30, 40))
  expect_equal(out$ref, c(1, 2, 3, 4))
  msg <- conditionMessage(caught_warnings(join_reference(tokyo, utc_days, average = "1 day"))[[1]])
  expect_no_match(msg, "day before|wrong day")
  # UTC days shown in New York (19:00, EST): each covers 19:00 to 19:00, 19 hours of the next
  # New York day, yet is paired with the mean of the day it is stamped in.
  ny_hours <- seq(as.POSIXct("2024-01-09", tz = "America/New_York"), by = "hour", length.out = 120)
  ny <- data.frame(date = ny_hours, pm = rep(c(10, 20, 30, 40, 50), each = 24))
  attr(utc_days$date, "tzone") <- "America/New_York"
  expect_warning(out <- join_reference(ny, utc_days, average = "1 day"),
                 "19 hours into its day in time zone America/New_York.*2024-01-09 19:00 EST.*is paired with the other table's mean of the day before the one it mostly covers\\.",
                 class = "ncam_warning_period_offset")
  # Value 1 (UTC 10 January, mostly New York's 10th) beside the mean of the 9th.
  expect_equal(out$pm, c(10, 20, 30, 40, 50))
  expect_equal(out$ref, c(1, 2, 3, 4, NA))
})

test_that("daily values stamped at the end of the day are not taken for another time zone", {
  hours <- seq(as.POSIXct("2019-08-01 00:00", tz = "UTC"), by = "hour", length.out = 72)
  sensors <- data.frame(date = hours, pm = rep(c(10, 20, 30), each = 24))
  day_ends <- data.frame(date = as.POSIXct(c("2019-08-01 23:59:59", "2019-08-02 23:59:59", "2019-08-03 23:59:59"), tz = "UTC"),
                         ref = c(10, 20, 30))
  expect_identical(expect_no_warning(join_reference(sensors, day_ends, average = "1 day"))$ref, c(10, 20, 30))
})

test_that("hourly readings a second off the hour warn that periods merge two readings", {
  hours <- utc("2024-03-01 00:00") + 3600 * 0:5
  sensors <- data.frame(date = hours + c(0, -1, 0, 1, -1, 0), pm = 1:6)
  reference <- data.frame(date = hours, ref = 10 * 1:6)
  expect_warning(averaged <- join_reference(sensors, reference), "2 periods of `sensors` hold two or more readings.*first at row 2, 2024-03-01 00:59:59",
                 class = "ncam_warning_crowded_periods")
  expect_identical(averaged$pm, c(1.5, 3, 4.5, 6))  # what the warning is about
  # the nearest-time join pairs each reading with its own hour, without warning
  nearest <- expect_no_warning(join_reference(sensors, reference, average = NULL, tolerance = "10 min"))
  expect_identical(nearest$ref, 10 * 1:6)
  # on time, or minute data averaged to hours, nothing to warn about
  expect_no_warning(join_reference(transform(sensors, date = hours), reference))
  minutes <- data.frame(date = utc("2024-03-01 00:00") + 60 * 0:179, pm = 1)
  expect_no_warning(join_reference(minutes, reference))
})
