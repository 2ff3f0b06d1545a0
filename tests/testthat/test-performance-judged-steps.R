# The step at which a unit's completeness is judged: `time_step`, else the finest step of the
# units whose reference it shares, else its own. An hourly logger that lost every other record
# comes out 2-hourly, and its days complete at 12 of 12 records.

ten_hourly_days <- function(seed = 8) {
  set.seed(seed)
  t <- seq(as.POSIXct("2024-01-01", tz = "UTC"), by = "hour", length.out = 240)
  ref <- 10 + 10 * sin(seq_along(t) / 7) + runif(240)
  data.frame(date = t, pm = 1.2 * ref + rnorm(240), ref = ref)
}

test_that("a unit that lost every other hour beside a complete one is judged hourly", {
  d <- ten_hourly_days()
  half <- d[seq(1, 240, by = 2), ]
  two <- rbind(cbind(d, unit = "full"), cbind(half, unit = "half"))
  expect_message(res <- suppressWarnings(sensor_performance(two, "pm", "ref", unit = "unit"),
                                         classes = "ncam_warning_few_pairs"),
                 "Unit \"half\" reads every 2 hours.*judged at 1 hour")
  # The same loss kept as NA rows: the same answer, row for row.
  kept <- rbind(cbind(d, unit = "full"), cbind(transform(d, pm = replace(pm, seq(2, 240, 2), NA),
                                                           ref = replace(ref, seq(2, 240, 2), NA)),
                                                 unit = "half"))
  same <- suppressWarnings(suppressMessages(sensor_performance(kept, "pm", "ref", unit = "unit")),
                           classes = "ncam_warning_few_pairs")
  expect_identical(res$time_step, c("1 hour", "1 hour", "1 hour", "24 hours", "24 hours", "24 hours"))
  expect_identical(res$n, same$n)
  expect_equal(res$rmse, same$rmse)
  # By hand: half holds 12 of 24 hours a day, below 18: no daily means; full's are complete.
  expect_identical(res$n[res$averaging == "24h"], c(10L, 0L, 10L))
  day <- as.Date(d$date)
  full_daily <- data.frame(pm = as.vector(tapply(d$pm, day, mean)), ref = as.vector(tapply(d$ref, day, mean)))
  expect_equal(res$mbe[4], mean(full_daily$pm - full_daily$ref))
  # Asked for, half keeps its own step: 12 of 12 two-hourly records a day.
  own <- suppressMessages(sensor_performance(two, "pm", "ref", unit = "unit",
                                             time_step = c(half = "2 hours")))
  expect_identical(own$time_step[2], "2 hours")
  half_daily <- data.frame(pm = as.vector(tapply(half$pm, as.Date(half$date), mean)),
                           ref = as.vector(tapply(half$ref, as.Date(half$date), mean)))
  expect_identical(own$n[5], 10L)
  expect_equal(own$mbe[5], mean(half_daily$pm - half_daily$ref))
})

test_that("one unit that lost every other hour is judged hourly when time_step says so", {
  d <- ten_hourly_days()
  half <- d[seq(1, 240, by = 2), ]
  res <- suppressWarnings(sensor_performance(half, "pm", "ref"), classes = "ncam_warning_few_pairs")
  expect_identical(res$n, c(120L, 10L))   # by its own step, every day complete
  res <- suppressWarnings(sensor_performance(half, "pm", "ref", time_step = "1 hour"),
                          classes = "ncam_warning_few_pairs")
  expect_identical(res$time_step, c("1 hour", "24 hours"))
  expect_identical(res$n, c(120L, 0L))
  out <- average_estimates(transform(half, .pred = pm), time_step = 3600)
  expect_true(all(is.na(out$.pred)))
  expect_identical(out$.n_estimates, rep(12L, 10))
})

test_that("average_estimates() judges a unit by a finer unit's reference given in columns", {
  d <- transform(ten_hourly_days(), .pred = pm)
  half <- d[seq(1, 240, by = 2), ]
  two <- rbind(cbind(d, unit = "full"), cbind(half, unit = "half"))
  # Without a column to compare, each unit at its own step.
  out <- average_estimates(two, unit = "unit")
  days <- function(out) as.vector(tapply(!is.na(out$.pred), out$unit, sum)[c("full", "half")])
  expect_identical(days(out), c(10L, 10L))
  expect_message(out <- average_estimates(two, unit = "unit", columns = "ref"), "judged at 1 hour")
  expect_identical(days(out), c(10L, 0L))
})

test_that("units keep their own step where the reference does not say they lost records", {
  start <- as.POSIXct("2024-07-01", tz = "UTC")
  minutes <- start + 60 * (0:(60 * 96 - 1))
  hour_ref <- 20 + (0:95) %% 7
  # A 1-minute unit carrying the hourly reference on each minute, beside an hourly unit
  # carrying the same: the reference does not change at the 1-minute step.
  fine <- data.frame(date = minutes, unit = "m", ref = rep(hour_ref, each = 60))
  fine$est <- fine$ref + (seq_len(nrow(fine)) %% 5) / 10
  hourly <- data.frame(date = start + 3600 * (0:95), unit = "h", ref = hour_ref, est = hour_ref + 1)
  said <- testthat::capture_messages(res <- sensor_performance(rbind(fine, hourly), "est", "ref",
                                                               unit = "unit"))
  expect_false(any(grepl("judged at", said)))
  expect_identical(res$time_step[1:2], c("1 minute", "1 hour"))
  expect_identical(res$n[res$averaging == "24h"], c(4L, 4L, 8L))
  # Two sites, each with its own reference: an hourly unit's values differ from the 1-minute
  # unit's at the times they share.
  other <- transform(hourly, ref = ref + 3, unit = "h2")
  fine$ref <- fine$ref + (seq_len(nrow(fine)) %% 3)
  said <- testthat::capture_messages(res <- sensor_performance(rbind(fine, other), "est", "ref",
                                                               unit = "unit"))
  expect_false(any(grepl("judged at", said)))
  expect_identical(res$time_step[1:2], c("1 minute", "1 hour"))
})

test_that("time_step is checked", {
  d <- ten_hourly_days()
  two <- rbind(cbind(d, unit = "a"), cbind(d, unit = "b"))
  expect_error(sensor_performance(two, "pm", "ref", unit = "unit", time_step = "2 hours"),
               "Units \"a\" and \"b\" have time step 1 hour, not a whole multiple of `time_step`",
               class = "ncam_error")
  expect_error(sensor_performance(two, "pm", "ref", unit = "unit", time_step = c(x = "1 hour")),
               "name a unit of `data` once, not \"x\"", class = "ncam_error")
  expect_error(sensor_performance(d, "pm", "ref", time_step = c(a = "1 hour")),
               "Without `unit`, give one unnamed period", class = "ncam_error")
  expect_error(sensor_performance(two, "pm", "ref", unit = "unit", time_step = c("1 hour", "1 hour")),
               "one period, or one per unit", class = "ncam_error")
  expect_error(average_estimates(transform(d, .pred = pm), time_step = "hourly"),
               "`time_step` must be a period", class = "ncam_error")
})

test_that("one time stamp is named as having no time step; two stamps an hour apart are a regular step", {
  one <- data.frame(date = as.POSIXct("2024-01-01 05:00", tz = "UTC"), ref = 10, pm = 11)
  expect_warning(expect_warning(res <- sensor_performance(one, "pm", "ref"), "have one time stamp: no time step",
                                class = "ncam_warning_uneven_step"),
                 "fewer than 3")
  expect_match(res$note[res$averaging == "24h"], "one time stamp per unit")
  expect_error(suppressWarnings(sensor_performance(one, "pm", "ref", averaging = "24h")),
               "the data have one time stamp: no time step")
  # A date without a time is a day.
  day <- transform(one, date = as.Date("2024-01-01"))
  expect_message(res <- suppressWarnings(sensor_performance(day, "pm", "ref")), "one value per 24 hours")
  expect_identical(res$time_step, "24 hours")
  two <- data.frame(date = as.POSIXct("2024-01-01 05:00", tz = "UTC") + c(0, 3600), ref = 10:11, pm = 11:12)
  expect_no_message(res <- suppressWarnings(sensor_performance(two, "pm", "ref")), message = "wander")
  expect_identical(res$time_step[res$averaging == "as_given"], "1 hour")
})
