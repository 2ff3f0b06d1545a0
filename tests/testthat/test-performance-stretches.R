# sensor_performance() and average_estimates() on units whose time step changes part way: a
# stretch at a step off the unit's grid, or finer than it, counts its records at its own step;
# one at a whole multiple of it stays judged as records lost, with a message, unless
# `time_step` says otherwise. Expected values are hand computations written here.

utc <- function(x) as.POSIXct(x, tz = "UTC")

# Per hour of `time`, in time order: its start, the rows it holds and the means of `values` (a
# list of vectors), NA unless the hour holds `needed(expected(start))` rows.
hand_hours <- function(time, values, expected, needed = function(e) 0.75 * e) {
  hour <- floor(as.numeric(time) / 3600) * 3600
  start <- sort(unique(hour))
  key <- factor(hour, start)
  count <- as.vector(table(key))
  complete <- count >= needed(expected(start))
  means <- lapply(values, function(v) ifelse(complete, as.vector(tapply(v, key, mean)), NA))
  c(list(start = start, count = count), means)
}

test_that("average_estimates() averages a PurpleAir unit moving from 80 s to 120 s at each step", {
  set.seed(8)
  t0 <- utc("2024-06-01 00:00")
  change <- t0 + 5 * 86400
  wander <- function(t) t + sample(-2:2, length(t), replace = TRUE)
  moved <- wander(10 + c(t0 + 80 * (0:(5 * 1080 - 1)), change + 120 * (0:(5 * 720 - 1))))
  # 33 and 34 of 45 readings in two hours (0.75 x 45 = 33.75), 22 and 23 of 30 in two others.
  for (edge in list(c(30, 33), c(31, 34), c(5 * 24 + 30, 22), c(5 * 24 + 31, 23))) {
    within <- which(moved >= t0 + 3600 * edge[1] & moved < t0 + 3600 * (edge[1] + 1))
    moved <- moved[-within[seq_len(length(within) - edge[2])]]
  }
  steady <- wander(10 + t0 + 120 * (0:(10 * 720 - 1)))
  data <- data.frame(date = c(moved, steady),
                     unit = rep(c("pa1", "pa2"), c(length(moved), length(steady))))
  data$.pred <- round(stats::runif(nrow(data), 5, 15), 1)
  said <- testthat::capture_messages(out <- average_estimates(data, "1h", unit = "unit"))
  expect_match(said, "unit \"pa1\": 80 seconds, then 2 minutes from 2024-06-06 00:00",
               all = FALSE)
  expect_match(said, "unit \"pa2\" wander around a step of 2 minutes", all = FALSE)
  on <- data$unit == "pa1"
  # Jittered stamps: a complete hour may lack one record of 4 or more (44 of 45), so 75 % rules.
  expected <- function(start) ifelse(start < as.numeric(change), 45, 30)
  needed <- function(e) pmin(0.75 * e, e - 1)
  hours <- hand_hours(data$date[on], list(pred = data$.pred[on]), expected, needed)
  expect_equal(out$.pred[out$unit == "pa1"], hours$pred)
  expect_identical(as.numeric(out$date[out$unit == "pa1"]), hours$start)
  # Every hour but those of 33 of 45 and 22 of 30: before, the gaps scattered around 95 s, a step
  # that divides no hour, and no hour had a mean.
  expect_identical(as.numeric(out$date[out$unit == "pa1"][is.na(hours$pred)]),
                   as.numeric(t0) + 3600 * c(30, 5 * 24 + 30))
  steady_hours <- hand_hours(data$date[!on], list(pred = data$.pred[!on]), function(start) 30,
                             needed)
  expect_equal(out$.pred[out$unit == "pa2"], steady_hours$pred)
})

test_that("sensor_performance() judges a 1-minute stretch of a 5-minute unit at 1 minute", {
  set.seed(21)
  t0 <- utc("2024-03-01 00:00")
  change <- t0 + 10 * 86400
  time <- c(t0 + 300 * (0:(10 * 288 - 1)), change + 60 * (0:(10 * 60 - 1)))
  # The pooled gaps are 5 minutes on over 80 % of them: the unit's step. Hours at the edge: 8 of 12
  # five-minute readings, 44 of 60 one-minute ones (below 75 %).
  expect_gt(mean(diff(as.numeric(time)) == 300), 0.8)
  short <- (time >= t0 + 7200 & time < t0 + 7200 + 4 * 300) |
    (time >= change + 7200 & time < change + 7200 + 16 * 60)
  time <- time[!short]
  ref <- 10 + 5 * sin(as.numeric(time) / 40000)
  data <- data.frame(date = time, ref = ref, pm = ref + round(stats::rnorm(length(time)), 2))
  # Before, the 1-minute readings shared 5-minute steps, with a warning.
  expect_no_warning(expect_message(
    res <- sensor_performance(data, "pm", "ref", averaging = c("as_given", "1h")),
    "5 minutes, then 1 minute from 2024-03-11 00:00:00 UTC"
  ), class = "ncam_warning_crowded_periods")
  expect_identical(res$time_step, c("5 minutes, then 1 minute", "1 hour"))
  hours <- hand_hours(time, list(pm = data$pm, ref = data$ref), function(start) {
    ifelse(start < as.numeric(change), 12, 60)
  })
  kept <- !is.na(hours$pm)
  # 250 hours, less the two short ones.
  expect_identical(res$n[2], 248L)
  expect_identical(res$n[2], sum(kept))
  expect_equal(res$rmse[2], sqrt(mean((hours$pm[kept] - hours$ref[kept])^2)))
  expect_identical(as.numeric(hours$start[!kept]), as.numeric(c(t0 + 7200, change + 7200)))
})

test_that("even minutes kept for 8 hours stay records lost, unless time_step says otherwise", {
  # The diff review's case: a stretch at a whole multiple of the step may be records lost.
  t0 <- utc("2024-03-01 00:00")
  m <- 0:(10 * 1440 - 1)
  lost <- m >= 2 * 1440 + 8 * 60 & m < 2 * 1440 + 16 * 60 & m %% 2 == 1
  time <- t0 + 60 * m[!lost]
  data <- data.frame(date = time, .pred = 1)
  said <- testthat::capture_messages(out <- average_estimates(data, "1h"))
  expect_match(said, "every 2 minutes from 2024-03-03 08:00:00 UTC to 2024-03-03 16:00:00 UTC",
               all = FALSE)
  expect_match(said, "time_step = \"2 min\"", fixed = TRUE, all = FALSE)
  # 30 of 60 minutes in each hour from 08:00 to 15:00 of the third day.
  expect_identical(sum(!is.na(out$.pred)), 240L - 8L)
  expect_identical(out$date[is.na(out$.pred)], t0 + 2 * 86400 + 3600 * (8:15))
  expect_message(given <- average_estimates(data, "1h", time_step = "2 min"),
                 "1 minute, then 2 minutes from 2024-03-03 08:00:00 UTC, then 1 minute from")
  expect_identical(sum(!is.na(given$.pred)), 240L)

  # Per unit: the hint names the unit.
  two <- rbind(cbind(data, unit = "a"), cbind(data.frame(date = t0 + 60 * m, .pred = 1), unit = "b"))
  expect_message(average_estimates(two, "1h", unit = "unit"),
                 "time_step = c(\"a\" = \"2 min\")", fixed = TRUE)
  given <- suppressMessages(average_estimates(two, "1h", unit = "unit",
                                              time_step = c(a = "2 min")))
  expect_identical(sum(!is.na(given$.pred)), 480L)
})

test_that("sensor_performance() keeps a 10-minute stretch of a 1-minute unit as records lost", {
  t0 <- utc("2024-03-01 00:00")
  m <- 0:(10 * 1440 - 1)
  lost <- m >= 2 * 1440 & m < 2 * 1440 + 36 * 60 & m %% 10 != 0
  time <- t0 + 60 * m[!lost]
  ref <- 10 + sin(as.numeric(time) / 5000)
  data <- data.frame(date = time, ref = ref, pm = ref + 1)
  expect_message(res <- sensor_performance(data, "pm", "ref", averaging = c("as_given", "1h")),
                 "every 10 minutes from 2024-03-03 00:00:00 UTC to 2024-03-04 12:00:00 UTC")
  # 6 of 60 readings in each of the 36 hours.
  expect_identical(res$n[2], 240L - 36L)
  expect_identical(res$time_step[1], "1 minute")
  given <- suppressMessages(sensor_performance(data, "pm", "ref", averaging = c("as_given", "1h"),
                                               time_step = "10 min"))
  expect_identical(given$n[2], 240L)
  expect_identical(given$time_step[1], "1 minute, then 10 minutes, then 1 minute")
})

test_that("a coarser time_step needs a stretch at it, each step dividing an hour", {
  t0 <- utc("2024-03-01 00:00")
  hours <- 0:(40 * 24 - 1)
  # Every other hour for 20 days of an hourly unit: 2 hours does not divide an hour.
  kept <- hours[!(hours >= 240 & hours < 720 & hours %% 2 == 1)]
  data <- data.frame(date = t0 + 3600 * kept, .pred = 1)
  expect_message(out <- average_estimates(data, "24h"),
                 "give the rows of such a stretch a unit of their own")
  # Days of 12 of 24 hours fall short.
  expect_identical(sum(is.na(out$.pred)), 20L)
  expect_error(average_estimates(data, "24h", time_step = "2 hours"),
               "every step must divide an hour", class = "ncam_error")
  # A coarser step with no stretch at it.
  one_minute <- data.frame(date = t0 + 60 * (0:2999), .pred = 1)
  expect_error(average_estimates(one_minute, "1h", time_step = "10 min"),
               "time step 1 minute, not a whole multiple of `time_step`", class = "ncam_error")
})

test_that("a step that changes to one that does not divide an hour is said, and judged at one step", {
  t0 <- utc("2024-03-01 00:00")
  change <- t0 + 5 * 86400
  # 80 s, then 7 minutes (420 s, off the 80 s grid).
  time <- c(t0 + 80 * (0:(5 * 1080 - 1)), change + 420 * (0:(3 * 206 - 1)))
  data <- data.frame(date = time, .pred = 1)
  expect_message(out <- average_estimates(data, "1h"), "not every step divides an hour")
  # The 7-minute hours hold 8 or 9 of 45 records at 80 s.
  expect_identical(sum(!is.na(out$.pred)), 5L * 24L)
})

test_that("units that lost records at random are judged at their step, with no message", {
  t0 <- utc("2024-03-01 00:00")
  for (seed in 1:20) {
    set.seed(seed)
    keep <- c(0.02, 0.08, 0.3, 0.6, 0.9)[seed %% 5 + 1]
    m <- which(stats::runif(20 * 1440) < keep) - 1
    data <- data.frame(date = t0 + 60 * m, .pred = 1)
    said <- testthat::capture_messages(out <- average_estimates(data, "1h"))
    expect_identical(said, character())
    counts <- tabulate(floor(m / 60) + 1, 20 * 24)
    expect_identical(sum(!is.na(out$.pred)), sum(counts >= 45))
  }
})
