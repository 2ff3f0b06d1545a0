# sensor_performance() and average_estimates() on units whose time step changes part way: each
# stretch of the record counts its records at its own step. Expected values are hand
# computations written here.

utc <- function(x) as.POSIXct(x, tz = "UTC")

# Per hour of `time`, in time order: its start, the rows it holds and the means of `values` (a
# list of vectors), NA unless the hour holds `completeness` of `expected(start)` rows.
hand_hours <- function(time, values, expected, completeness = 0.75) {
  hour <- floor(as.numeric(time) / 3600) * 3600
  start <- sort(unique(hour))
  key <- factor(hour, start)
  count <- as.vector(table(key))
  complete <- count >= completeness * expected(start)
  means <- lapply(values, function(v) ifelse(complete, as.vector(tapply(v, key, mean)), NA))
  c(list(start = start, count = count), means)
}

test_that("sensor_performance() judges the hours of a logger moving from 1 to 5 minutes at each step", {
  set.seed(21)
  t0 <- utc("2024-03-01 00:00")
  change <- t0 + 10 * 86400
  time <- c(t0 + 60 * (0:(10 * 1440 - 1)), change + 300 * (0:(5 * 288 - 1)))
  # Hours at the edge: 44 of 60 one-minute readings (below 75 %), 8 of 12 five-minute ones; and
  # on the second day of each stretch, 7 hours lost (17 of 24 left, below 75 %).
  short <- (time >= t0 + 7200 & time < t0 + 7200 + 16 * 60) |
    (time >= change + 7200 & time < change + 7200 + 4 * 300) |
    (time >= t0 + 86400 & time < t0 + 86400 + 7 * 3600) |
    (time >= change + 86400 & time < change + 86400 + 7 * 3600)
  time <- time[!short]
  ref <- 10 + 5 * sin(as.numeric(time) / 40000)
  data <- data.frame(date = time, ref = ref, pm = ref + round(stats::rnorm(length(time)), 2))
  expect_message(res <- sensor_performance(data, "pm", "ref", averaging = c("as_given", "1h", "24h")),
                 "1 minute, then 5 minutes from 2024-03-11 00:00:00 UTC")
  expected <- function(start) ifelse(start < as.numeric(change), 60, 12)
  hours <- hand_hours(time, list(pm = data$pm, ref = data$ref), expected)
  kept <- !is.na(hours$pm)
  expect_identical(res$time_step, c("1 minute, then 5 minutes", "1 hour", "24 hours"))
  hourly <- res[res$averaging == "1h", ]
  # 15 days of 24 hours, less 14 lost, 2 short: before, the 5-minute hours were all NA (n 226).
  expect_identical(hourly$n, 15L * 24L - 14L - 2L)
  expect_identical(hourly$n, sum(kept))
  expect_equal(hourly$rmse, sqrt(mean((hours$pm[kept] - hours$ref[kept])^2)))
  # Days of 18 or more complete hours: all but the two with 17.
  day <- floor(hours$start / 86400)
  complete_hours <- tapply(kept, day, sum)
  expect_identical(res$n[res$averaging == "24h"], sum(complete_hours >= 18))
  expect_identical(res$n[res$averaging == "24h"], 13L)
  daily_pm <- tapply(hours$pm[kept], day[kept], mean)[complete_hours >= 18]
  daily_ref <- tapply(hours$ref[kept], day[kept], mean)[complete_hours >= 18]
  expect_equal(res$mbe[res$averaging == "24h"], mean(daily_pm - daily_ref))

  # With the step given, the unit is judged at it throughout, as asked: its 5-minute hours fall
  # short of 60.
  given <- sensor_performance(data, "pm", "ref", averaging = "1h", time_step = "1 min")
  expect_identical(given$n, sum(kept & hours$start < as.numeric(change)))
})

test_that("average_estimates() averages a PurpleAir unit moving from 80 s to 120 s at each step", {
  set.seed(8)
  t0 <- utc("2024-06-01 00:00")
  change <- t0 + 5 * 86400
  wander <- function(t) t + sample(-2:2, length(t), replace = TRUE)
  moved <- wander(10 + c(t0 + 80 * (0:(5 * 1080 - 1)), change + 120 * (0:(5 * 720 - 1))))
  # 33 of 45 readings in one hour (0.75 x 45 = 33.75), 23 of 30 in another (22.5).
  for (edge in list(c(30, 33), c(5 * 24 + 30, 23))) {
    within <- which(moved >= t0 + 3600 * edge[1] & moved < t0 + 3600 * (edge[1] + 1))
    moved <- moved[-within[seq_len(length(within) - edge[2])]]
  }
  steady <- wander(10 + t0 + 120 * (0:(10 * 720 - 1)))
  data <- data.frame(date = c(moved, steady), unit = rep(c("pa1", "pa2"), c(length(moved), length(steady))))
  data$.pred <- round(stats::runif(nrow(data), 5, 15), 1)
  expect_message(expect_message(out <- average_estimates(data, "1h", unit = "unit"),
                                "unit \"pa1\": 80 seconds, then 2 minutes from 2024-06-06"),
                 "unit \"pa2\" wander around a step of 2 minutes")
  on <- data$unit == "pa1"
  # Jittered stamps: a complete hour may lack one record of 4 or more (44 of 45), so 75 % rules.
  hours <- hand_hours(data$date[on], list(pred = data$.pred[on]), function(start) {
    ifelse(start < as.numeric(change), 45, 30)
  })
  expect_equal(out$.pred[out$unit == "pa1"], hours$pred)
  expect_identical(as.numeric(out$date[out$unit == "pa1"]), hours$start)
  expect_identical(as.numeric(out$date[out$unit == "pa1"][is.na(hours$pred)]),
                   as.numeric(t0 + 3600 * 30))
  # 23 of 30 is complete at 120 s; before, the 120 s hours were judged against 80 s.
  expect_false(is.na(out$.pred[out$unit == "pa1"][as.numeric(out$date[out$unit == "pa1"]) == as.numeric(t0) + 3600 * (5 * 24 + 30)]))
  steady_hours <- hand_hours(data$date[!on], list(pred = data$.pred[!on]), function(start) 30)
  expect_equal(out$.pred[out$unit == "pa2"], steady_hours$pred)
})

test_that("a 1-minute stretch of a mostly 5-minute logger is not taken for crowded steps", {
  t0 <- utc("2024-03-01 00:00")
  change <- t0 + 86400
  time <- c(t0 + 60 * (0:(1440 - 1)), change + 300 * (0:(30 * 288 - 1)))
  # The first hour keeps 44 of its 60 minutes.
  time <- time[!(time >= t0 & time < t0 + 16 * 60)]
  # Its pooled gaps are 5 minutes on over 80 % of them: the step of its grid. Before, its
  # 1-minute readings shared 5-minute steps, with a warning, and counted 9 of 12 in that hour.
  expect_gt(mean(diff(as.numeric(time)) == 300), 0.8)
  data <- data.frame(date = time, .pred = seq_along(time) %% 7)
  expect_no_warning(expect_message(out <- average_estimates(data, "1h"), "changes part way"),
                    class = "ncam_warning_crowded_periods")
  hours <- hand_hours(time, list(pred = data$.pred), function(start) {
    ifelse(start < as.numeric(change), 60, 12)
  })
  expect_equal(out$.pred, hours$pred)
  expect_identical(which(is.na(out$.pred)), 1L)
})

test_that("a step that changes to one that does not divide an hour is said, and judged at one step", {
  t0 <- utc("2024-03-01 00:00")
  change <- t0 + 5 * 86400
  time <- c(t0 + 60 * (0:(5 * 1440 - 1)), change + 420 * (0:(3 * 206 - 1)))
  data <- data.frame(date = time, .pred = 1)
  expect_message(out <- average_estimates(data, "1h"), "not every step divides an hour")
  # The 7-minute hours hold 8 or 9 of 60 one-minute records.
  expect_identical(sum(!is.na(out$.pred)), 5L * 24L)
})
