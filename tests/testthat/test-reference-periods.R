# The time span(s) of the rows that carried the reference, kept in the fit
# (fit$reference_periods): which rows and which column, runs split at long pauses, per unit,
# print(), glance(), fits by group, and fits without them.

# 100 days of one series: the reference on days 1-20 (with a 3-day outage on days 5-7) and
# 61-80, and on day 21 beside no sensor reading.
periods_data <- function() {
  d <- unit_sites_data(days = 100, site_bias = c(a = 0))
  d$date <- as.Date("2024-03-01") + d$day - 1
  d$ref <- ifelse(d$day <= 21 | (d$day >= 61 & d$day <= 80), d$truth + 0.1, NA)
  d$ref[5:7] <- NA
  d$s1[21] <- NA
  d$s2[21] <- NA
  d
}
periods_fit <- function(d, ...) {
  short_fit(ncam(s1 + s2 ~ rh, d, reference = "ref", hidden = 4L, epochs = 5L, seed = 1, threads = 1, ...),
            also = c("ncam_warning_clamp", "ncam_warning_two_sensors"))
}

test_that("a fit keeps the first and last time of each run of its reference rows, split at long pauses", {
  d <- periods_data()
  fit <- periods_fit(d)
  kept <- fit$reference_periods
  expect_identical(kept$column, "date")
  expect_true(kept$one_series)
  # Rows with a reference reading beside a sensor reading: day 21 has none, the outage of
  # days 5-7 is shorter than 10 daily steps, the 40 days between the runs are longer.
  carried <- which(!is.na(d$ref) & (!is.na(d$s1) | !is.na(d$s2)))
  first_run <- carried[carried <= 40]
  second_run <- carried[carried > 40]
  expect_identical(kept$periods$from, d$date[c(min(first_run), min(second_run))])
  expect_identical(kept$periods$to, d$date[c(max(first_run), max(second_run))])
  expect_identical(kept$periods$n, c(length(first_run), length(second_run)))
  expect_identical(sum(kept$periods$n), as.integer(sum(fit$n_reference)))
  expect_s3_class(kept$periods$from, "Date")
  # print() names them, glance() gives the first and last time.
  expect_output(print(fit), "validation rows (1 more without a sensor reading), date 2024-03-01 to 2024-05-19 (2 periods); noise",
                fixed = TRUE)
  g <- glance(fit)
  expect_identical(c(g$reference_from, g$reference_to), as.Date(c("2024-03-01", "2024-05-19")))
  # A few values, however many rows.
  expect_lt(as.numeric(utils::object.size(kept)), 3000)
})

test_that("the time column is `date` when it is one, else the first that varies over the reference rows", {
  d <- periods_data()
  d$installed <- as.Date("2023-01-01")  # constant: tells nothing
  # Every 24 hours from 06:30 in winter time: 07:30 in summer time by May.
  d$stamp <- as.POSIXct("2024-03-01 06:30:00", tz = "Europe/Brussels") + (d$day - 1) * 86400
  names(d)[names(d) == "date"] <- "day_date"
  d <- d[c("installed", "stamp", setdiff(names(d), c("installed", "stamp")))]
  fit <- periods_fit(d)
  expect_identical(fit$reference_periods$column, "stamp")
  expect_identical(attr(fit$reference_periods$periods$from, "tzone"), "Europe/Brussels")
  expect_output(print(fit), "stamp 2024-03-01 06:30 CET to 2024-05-19 07:30 CEST (2 periods)", fixed = TRUE)
  d$date <- d$day_date
  expect_identical(periods_fit(d)$reference_periods$column, "date")
  # Date-times of whole days print as days, of whole minutes without seconds.
  expect_identical(ncam:::format_period_times(as.POSIXct(c("2024-03-01", "2024-03-02"), tz = "UTC")),
                   c("2024-03-01 UTC", "2024-03-02 UTC"))
  expect_identical(ncam:::format_period_times(as.POSIXct(c("2024-03-01 00:00:05", "2024-03-02 00:00:00"), tz = "UTC")),
                   c("2024-03-01 00:00:05 UTC", "2024-03-02 00:00:00 UTC"))
})

test_that("without a date column, or a reference, a fit keeps no periods, and says nothing of them", {
  d <- periods_data()
  d$date <- NULL
  fit <- periods_fit(d)
  expect_null(fit$reference_periods)
  expect_output(print(fit), "validation rows (1 more without a sensor reading); noise", fixed = TRUE)
  g <- glance(fit)
  expect_true(is.na(g$reference_from) && is.na(g$reference_to))
  toy <- simulate_toy(200, seed = 1)
  toy$date <- as.Date("2024-01-01") + seq_len(200)
  free <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, hidden = 4L, epochs = 3L, seed = 1, threads = 1))
  expect_null(free$reference_periods)
})

test_that("a fit with unit offsets keeps each unit's periods; several series in one model are told apart", {
  d <- unit_sites_data(days = 80)
  d$date <- as.Date("2024-01-01") + d$day - 1
  # Site c's co-location starts 10 days late.
  d$ref[d$site == "c" & d$day <= 10] <- NA
  fit <- short_fit(ncam(s1 + s2 ~ rh, d, reference = "ref", unit = "site", hidden = 4L, epochs = 5L, seed = 1,
                        threads = 1), also = c("ncam_warning_clamp", "ncam_warning_two_sensors"))
  periods <- fit$reference_periods$periods
  expect_named(periods, c("site", "from", "to", "n"))
  expect_identical(periods$site, c("a", "b", "c", "d", "e"))
  for (s in periods$site) {
    rows <- d$site == s & !is.na(d$ref)
    expect_identical(c(periods$from[periods$site == s], periods$to[periods$site == s]), range(d$date[rows]), info = s)
    expect_identical(periods$n[periods$site == s], sum(rows), info = s)
  }
  expect_true(fit$reference_periods$one_series)
  expect_output(print(fit), "date 2024-01-01 to 2024-02-29 (5 units of site);", fixed = TRUE)
  # The same rows in one model without `unit`: their times repeat, so they are no one series.
  pooled <- short_fit(ncam(s1 + s2 ~ rh, d, reference = "ref", hidden = 4L, epochs = 5L, seed = 1, threads = 1),
                      also = c("ncam_warning_clamp", "ncam_warning_two_sensors"))
  expect_false(pooled$reference_periods$one_series)
  expect_identical(c(pooled$reference_periods$periods$from, pooled$reference_periods$periods$to),
                   range(d$date[!is.na(d$ref)]))
})

test_that("fits by group keep each group's periods, and glance() gives them per group", {
  d <- unit_sites_data(days = 80)
  d$date <- as.POSIXct("2024-01-01", tz = "UTC") + (d$day - 1) * 3600
  d$ref[d$site == "b" & d$day > 40] <- NA
  fits <- short_fit(ncam_by(s1 + s2 ~ rh, d, by = "site", reference = "ref", hidden = 4L, epochs = 3L, seed = 1),
                    also = c("ncam_warning_clamp", "ncam_warning_two_sensors", "ncam_warning_few_readings"))
  g <- glance(fits)
  expect_identical(g$site, c("a", "b", "c", "d", "e"))
  expected_to <- vapply(g$site, function(s) max(as.numeric(d$date[d$site == s & !is.na(d$ref)])), numeric(1))
  expect_identical(as.numeric(g$reference_to), unname(expected_to))
  expect_identical(as.numeric(g$reference_from), rep(as.numeric(min(d$date)), 5))
  expect_s3_class(g$reference_from, "POSIXct")
})

test_that("a fit saved before periods were kept prints and glances as before", {
  fit <- periods_fit(periods_data())
  fit$reference_periods <- NULL
  expect_output(print(fit), "validation rows (1 more without a sensor reading); noise from the covariates", fixed = TRUE)
  g <- glance(fit)
  expect_true(is.na(g$reference_from))
  expect_s3_class(g$reference_to, "POSIXct")
})
