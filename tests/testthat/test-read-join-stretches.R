# join_reference() on loggers whose time step changes part way: a stretch at a step off the
# series' grid, or finer than it, is judged at its own step; one at a whole multiple of it stays
# judged as records lost, with a message. Expected values are hand computations written here.

utc <- function(x) as.POSIXct(x, tz = "UTC")

# Per hour of `time` (in order of first appearance), the mean of `value` when the hour holds at
# least `completeness` of `expected(hour start)` readings, else NA.
hand_hourly <- function(time, value, expected, completeness = 0.75) {
  hour <- floor(as.numeric(time) / 3600) * 3600
  key <- factor(hour, unique(hour))
  counts <- as.vector(table(key))
  means <- as.vector(tapply(value, key, mean))
  ifelse(counts >= completeness * expected(unique(hour)), means, NA)
}

test_that("a PurpleAir sensor moving from 80 s to 120 s keeps the hours of both stretches", {
  set.seed(5)
  t0 <- utc("2024-06-01 00:00")
  change <- t0 + 7 * 86400
  # Stamps wander by up to 2 s around the step, as PurpleAir's do; ten seconds into the hour, so
  # that no stamp falls before the first hour.
  wander <- function(t) t + sample(-2:2, length(t), replace = TRUE)
  moved <- wander(10 + c(t0 + 80 * (0:(7 * 1080 - 1)), change + 120 * (0:(7 * 720 - 1))))
  kept <- wander(10 + t0 + 120 * (0:(14 * 720 - 1)))
  # Hours at the edge of completeness: 34 and 33 of 45 readings (0.75 x 45 = 33.75), 23 and 22 of
  # 30 (22.5).
  for (edge in list(c(24, 34), c(25, 33), c(7 * 24 + 24, 23), c(7 * 24 + 25, 22))) {
    within <- which(moved >= t0 + 3600 * edge[1] & moved < t0 + 3600 * (edge[1] + 1))
    moved <- moved[-within[seq_len(length(within) - edge[2])]]
  }
  sensors <- data.frame(date = c(moved, kept),
                        id = rep(c("moved", "kept"), c(length(moved), length(kept))))
  sensors$pm <- round(stats::runif(nrow(sensors), 5, 15), 1)
  reference <- data.frame(date = rep(t0 + 3600 * (0:(14 * 24 - 1)), 2),
                          id = rep(c("moved", "kept"), each = 14 * 24), ref = 1)
  expect_message(out <- join_reference(sensors, reference, keys = "id"),
                 "series id = moved: 80 seconds, then 2 minutes from 2024-06-08 00:00")
  on <- sensors$id == "moved"
  by_hand <- hand_hourly(sensors$date[on], sensors$pm[on], function(hour) {
    ifelse(hour < as.numeric(change), 45, 30)
  })
  expect_equal(out$pm[out$id == "moved"], by_hand)
  # Every other hour holds 44 to 46 readings at 80 s, 29 to 31 at 120 s: all complete. Before,
  # the step was the mean gap of the two, 95 s: every hour expected 38 readings, so the hour of
  # 33 of 45 was kept and that of 23 of 30 lost.
  hours <- out$date[out$id == "moved"]
  expect_identical(hours[is.na(by_hand)], t0 + 3600 * c(25, 7 * 24 + 25))
  expect_identical(sum(!is.na(by_hand)), 14L * 24L - 2L)
  expect_equal(out$pm[out$id == "kept"],
               hand_hourly(sensors$date[!on], sensors$pm[!on], function(hour) 30))
})

test_that("readings every 60 s, then every 90 s, are judged at each, not at the 75 s between", {
  set.seed(2)
  t0 <- utc("2024-06-01 00:00")
  change <- t0 + 5 * 86400
  # Stamps wander by a second: the pooled gaps wander around 75 s, which divides an hour.
  time <- c(t0 + 60 * (0:(5 * 1440 - 1)), change + 90 * (0:(5 * 960 - 1)))
  time <- time + 5 + sample(-1:1, length(time), replace = TRUE)
  # 44 of 60 readings in one hour, 29 and 30 of 40 in two others (0.75 x 40 = 30).
  for (edge in list(c(30, 44), c(5 * 24 + 30, 29), c(5 * 24 + 31, 30))) {
    within <- which(time >= t0 + 3600 * edge[1] & time < t0 + 3600 * (edge[1] + 1))
    time <- time[-within[seq_len(length(within) - edge[2])]]
  }
  sensors <- data.frame(date = time, pm = round(stats::runif(length(time), 5, 15), 1))
  reference <- data.frame(date = t0 + 3600 * (0:(10 * 24 - 1)), ref = 1)
  expect_message(out <- join_reference(sensors, reference),
                 "1 minute, then 90 seconds from 2024-06-06 00:00")
  expect_equal(out$pm, hand_hourly(time, sensors$pm, function(hour) {
    ifelse(hour < as.numeric(change), 60, 40)
  }))
  # Before, every hour expected 48 readings (at 75 s): the hour of 44 of 60 was kept, that of
  # 30 of 40 lost.
  expect_identical(out$date[is.na(out$pm)], t0 + 3600 * c(30, 5 * 24 + 30))
})

test_that("a change of step is found wherever it falls, with records lost at random", {
  t0 <- as.numeric(utc("2024-06-01 00:00"))
  for (case in list(c(80, 120, 2), c(120, 80, 2), c(60, 90, 1), c(300, 60, 0))) {
    for (seed in 1:8) {
      set.seed(seed)
      before <- case[1]
      after <- case[2]
      n_before <- if (before == 300) sample(3000:5000, 1) else sample(2000:6000, 1)
      n_after <- if (before == 300) sample(200:500, 1) else sample(1000:5000, 1)
      change <- t0 + before * n_before + sample(0:(before - 1), 1)
      time <- c(t0 + before * (0:(n_before - 1)), change + after * (0:(n_after - 1)))
      time <- time + sample(-case[3]:case[3], length(time), replace = TRUE)
      time <- sort(time[stats::runif(length(time)) > 0.05])
      found <- ncam:::series_time_steps(time, rep("", length(time)))$stretches
      expect_identical(found$step, c(before, after))
      expect_lte(abs(found$from[2] - change), 3 * max(before, after))
    }
  }
})

test_that("a 1-minute stretch of a 5-minute logger is judged at 1 minute", {
  t0 <- utc("2024-03-01 00:00")
  change <- t0 + 10 * 86400 + 10.5 * 3600  # 10:30 on the eleventh day
  time <- c(t0 + 300 * (0:(as.numeric(change - t0, units = "secs") / 300 - 1)),
            change + 60 * (0:(7.5 * 60 - 1)))
  # The pooled gaps are 5 minutes on over 80 % of them: the step of the series' grid.
  expect_gt(mean(diff(as.numeric(time)) == 300), 0.8)
  # Hours of 1-minute readings keeping 45 and 44 of 60; the hour of the change, from 10:00,
  # expects 6 five-minute and 30 one-minute readings, and keeps 27 of its 36 (75 %).
  lost <- (time >= change + 1800 & time < change + 1800 + 15 * 60) |
    (time >= change + 5400 & time < change + 5400 + 16 * 60) |
    (time >= change - 1800 & time < change - 1800 + 2 * 300) |
    (time >= change + 600 & time < change + 600 + 7 * 60)
  time <- time[!lost]
  sensors <- data.frame(date = time, pm = seq_along(time) %% 13)
  reference <- data.frame(date = t0 + 3600 * (0:(11 * 24 - 1)), ref = 1)
  expect_message(out <- join_reference(sensors, reference),
                 "5 minutes, then 1 minute from 2024-03-11 10:30:00 UTC")
  change_hour <- as.numeric(change) - 1800
  by_hand <- hand_hourly(time, sensors$pm, function(hour) {
    ifelse(hour < change_hour, 12, ifelse(hour == change_hour, 6 + 30, 60))
  })
  expect_equal(out$pm, by_hand)
  at <- function(h) out$pm[out$date == h]
  expect_identical(sum(time >= change - 1800 & time < change + 1800), 27L)
  expect_false(is.na(at(change - 1800)))
  expect_false(is.na(at(change + 1800)))
  # 44 of 60: before, the 1-minute hours were judged against 12 readings and all kept.
  expect_true(is.na(at(change + 5400)))
  expect_identical(sum(is.na(out$pm)), 1L)
})

test_that("every 10th minute for 36 hours of a 1-minute logger stays records lost", {
  # The diff review's case: a stretch at a whole multiple of the step may be records lost in a
  # pattern, so its hours hold 6 of 60 readings.
  t0 <- utc("2024-03-01 00:00")
  m <- 0:(10 * 1440 - 1)
  lost <- m >= 2 * 1440 & m < 2 * 1440 + 36 * 60 & m %% 10 != 0
  sensors <- data.frame(date = t0 + 60 * m[!lost], pm = 11)
  reference <- data.frame(date = t0 + 3600 * (0:(10 * 24 - 1)), ref = 10)
  expect_message(out <- join_reference(sensors, reference),
                 "every 10 minutes from 2024-03-03 00:00:00 UTC to 2024-03-04 12:00:00 UTC")
  expect_identical(sum(!is.na(out$pm)), 240L - 36L)
  # The message names the fix, should the logger have changed its step.
  expect_message(join_reference(sensors, reference), "time_step = c(sensors = \"10 min\")",
                 fixed = TRUE)
  # Given that step, the stretch of 10-minute readings is judged at it, the rest at 1 minute.
  expect_message(given <- join_reference(sensors, reference, time_step = c(sensors = "10 min")),
                 "1 minute, then 10 minutes from 2024-03-03 00:00:00 UTC, then 1 minute from 2024-03-04 12:00:00 UTC")
  # Each hour of the stretch expects 6 readings and holds them.
  expect_identical(sum(!is.na(given$pm)), 240L)
  # Still 45 of 60 one-minute readings in the other hours: losing 16 leaves one short.
  short <- sensors[!(sensors$date >= t0 + 3600 & sensors$date < t0 + 3600 + 16 * 60), ]
  given <- suppressMessages(join_reference(short, reference, time_step = c(sensors = "10 min")))
  expect_identical(given$date[is.na(given$pm)], t0 + 3600)
})

test_that("a logger moving from 1 to 5 minutes keeps its 5-minute hours as records lost", {
  t0 <- utc("2024-03-01 00:00")
  change <- t0 + 5 * 86400
  time <- c(t0 + 60 * (0:(5 * 1440 - 1)), change + 300 * (0:(2 * 288 - 1)))
  sensors <- data.frame(date = time, pm = 1)
  reference <- data.frame(date = t0 + 3600 * (0:(7 * 24 - 1)), ref = 1)
  expect_message(out <- join_reference(sensors, reference), "every 5 minutes from 2024-03-06")
  # 12 of 60 readings in each 5-minute hour, as before.
  expect_identical(out$date[!is.na(out$pm)], t0 + 3600 * (0:(5 * 24 - 1)))
  expect_message(given <- join_reference(sensors, reference, time_step = c(sensors = "5 min")),
                 "1 minute, then 5 minutes from 2024-03-06 00:00:00 UTC$")
  expect_identical(sum(!is.na(given$pm)), 7L * 24L)
})

test_that("an hourly reference with an every-other-hour stretch loses those hours, unrefused", {
  # The diff review's case: it was refused as readings 2 hours apart, longer than `average`.
  t0 <- utc("2024-03-01 00:00")
  hours <- 0:(60 * 24 - 1)
  keep <- !(hours >= 240 & hours < 960 & hours %% 2 == 1)
  reference <- data.frame(date = t0 + 3600 * hours[keep], ref = 10)
  sensors <- data.frame(date = t0 + 60 * (0:(60 * 1440 - 1)), pm = 11)
  expect_message(out <- join_reference(sensors, reference),
                 "every 2 hours from 2024-03-11 00:00:00 UTC to 2024-04-10 00:00:00 UTC")
  expect_identical(dim(out), c(1440L, 3L))
  expect_identical(sum(!is.na(out$ref)), sum(keep))
  expect_identical(sum(!is.na(out$ref)), 1440L - 360L)
})

test_that("even minutes kept for 8 hours of a 1-minute logger leave those hours NA", {
  t0 <- utc("2024-03-01 00:00")
  m <- 0:(10 * 1440 - 1)
  lost <- m >= 2 * 1440 + 8 * 60 & m < 2 * 1440 + 16 * 60 & m %% 2 == 1
  time <- t0 + 60 * m[!lost]
  reference <- data.frame(date = t0 + 3600 * (0:(10 * 24 - 1)), ref = 10)
  expect_message(out <- join_reference(data.frame(date = time, pm = 11), reference),
                 "every 2 minutes")
  # 30 of 60 readings in each hour from 08:00 to 15:00 of the third day.
  expect_identical(out$date[is.na(out$pm)], t0 + 2 * 86400 + 3600 * (8:15))
  expect_identical(sum(!is.na(out$pm)), 240L - 8L)
})

test_that("records lost at random give no stretch and no message", {
  t0 <- utc("2024-03-01 00:00")
  reference <- data.frame(date = t0 + 3600 * (0:(30 * 24 - 1)), ref = 1)
  for (seed in 1:20) {
    set.seed(seed)
    keep <- c(0.005, 0.02, 0.08, 0.3, 0.6, 0.9)[seed %% 6 + 1]
    m <- which(stats::runif(30 * 1440) < keep) - 1
    # Odd seeds: stamps wandering by up to 2 s.
    time <- t0 + 60 * m + sample(-2:2, length(m), TRUE) * (seed %% 2)
    found <- ncam:::series_time_steps(as.numeric(time), rep("", length(time)))
    expect_identical(nrow(found$stretches), 1L)
    expect_identical(nrow(found$patterns), 0L)
    # Too few readings to tell a step from (0.5 % of minutes) is another matter.
    if (keep < 0.01) next
    said <- testthat::capture_messages(out <- join_reference(data.frame(date = time, pm = 1),
                                                              reference))
    expect_identical(said, character())
    # Every hour of a logger keeping under 75 % of its minutes is short; at 90 %, about 1 in 800
    # is (45 of 60 is 5 sd below the mean of 54).
    counts <- tabulate(floor(as.numeric(time - t0, units = "secs") / 3600) + 1, 30 * 24)
    expect_identical(sum(!is.na(out$pm)), sum(counts >= 45))
  }
  # Hourly data lost at random, and a logger writing every third minute.
  set.seed(3)
  hourly <- t0 + 3600 * (which(stats::runif(24 * 200) < 0.8) - 1)
  said <- testthat::capture_messages(join_reference(data.frame(date = hourly, pm = 1), reference))
  expect_identical(said, character())
  third <- t0 + 180 * (which(stats::runif(30 * 480) < 0.7) - 1)
  said <- testthat::capture_messages(out <- join_reference(data.frame(date = third, pm = 1),
                                                          reference))
  expect_identical(said, character())
  counts <- tabulate(floor(as.numeric(third - t0, units = "secs") / 3600) + 1, 30 * 24)
  expect_identical(sum(!is.na(out$pm)), sum(counts >= 15))
})

test_that("a stretch further apart than the period is named by its first reading", {
  t0 <- utc("2024-03-01 00:00")
  change <- t0 + 20 * 86400
  # 45-minute readings, then 2-hour ones (off the 45-minute grid).
  sensors <- data.frame(date = c(t0 + 2700 * (0:639), change + 7200 * (0:299)), site = "A",
                        pm = 1)
  reference <- data.frame(date = t0 + 3600 * (0:99), site = "A", ref = 1)
  expect_error(join_reference(sensors, reference, keys = "site"),
               "readings 2 hours apart \\(series site = A\\) from 2024-03-21 00:00:00 UTC, longer than `average`")
})

test_that("time_step is named by table and must divide the steps found", {
  t0 <- utc("2024-03-01 00:00")
  sensors <- data.frame(date = t0 + 60 * (0:299), pm = 1)
  reference <- data.frame(date = t0 + 3600 * (0:4), ref = 1)
  expect_error(join_reference(sensors, reference, time_step = "1 min"),
               "must be named by the table")
  expect_error(join_reference(sensors, reference, time_step = c(sensor = "1 min")),
               "must be named by the table")
  expect_error(join_reference(sensors, reference, time_step = c(sensors = "7 min")),
               "readings 1 minute apart, not a whole multiple of `time_step` \\(7 min\\)")
  expect_error(join_reference(sensors, reference, time_step = c(sensors = "1 minute")),
               "must be a period")
  # Given for the reference alone, the sensors keep their own step.
  out <- join_reference(sensors, reference, time_step = list(reference = 3600))
  expect_identical(out$pm, rep(1, 5))
})
