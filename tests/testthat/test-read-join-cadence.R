# join_reference() on loggers whose time step changes part way (each stretch judged at its own
# step). Expected values are hand computations written here.

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

test_that("a logger whose step changes from 1 to 5 minutes keeps the hours of both stretches", {
  set.seed(11)
  t0 <- utc("2024-03-01 00:00")
  change <- t0 + 10 * 86400
  minutes <- t0 + 60 * (0:(10 * 1440 - 1))
  fives <- change + 300 * (0:(5 * 288 - 1))
  time <- c(minutes, fives)
  # Hours at the edge of completeness: 45 and 44 of 60 one-minute readings, 9 and 8 of 12
  # five-minute ones (0.75 x 12 = 9).
  drop <- c(which(minutes >= t0 + 3600 & minutes < t0 + 3600 + 15 * 60),
            which(minutes >= t0 + 7200 & minutes < t0 + 7200 + 16 * 60),
            length(minutes) + which(fives >= change + 3600 & fives < change + 3600 + 3 * 300),
            length(minutes) + which(fives >= change + 7200 & fives < change + 7200 + 4 * 300))
  time <- time[-drop]
  sensors <- data.frame(date = time, pm = round(stats::rnorm(length(time), 10, 3), 2))
  reference <- data.frame(date = t0 + 3600 * (0:(15 * 24 - 1)), ref = 1)
  out <- join_reference(sensors, reference)
  expected <- function(hour) ifelse(hour < as.numeric(change), 60, 12)
  expect_equal(out$pm, hand_hourly(sensors$date, sensors$pm, expected))
  # Every hour is kept but the two short ones of each stretch: before, the five-minute hours held
  # 12 of 60 readings and all 120 were lost.
  lost <- out$date[is.na(out$pm)]
  expect_identical(lost, c(t0 + 7200, change + 7200))
  expect_equal(sum(!is.na(out$pm[out$date >= change])), 5 * 24 - 1)

  # The other way round, 5 minutes then 1 minute: the five-minute hours count 12 readings.
  later <- data.frame(date = c(t0 + 300 * (0:(10 * 288 - 1)), change + 60 * (0:(5 * 1440 - 1))))
  later$pm <- seq_len(nrow(later)) %% 17
  out <- join_reference(later, reference)
  expect_equal(out$pm, hand_hourly(later$date, later$pm, function(hour) {
    ifelse(hour < as.numeric(change), 12, 60)
  }))
  expect_false(anyNA(out$pm))
})

test_that("a PurpleAir sensor moving from 80 s to 120 s keeps its hours, beside one that does not", {
  set.seed(5)
  t0 <- utc("2024-06-01 00:00")
  change <- t0 + 7 * 86400
  # Stamps wander by a second or two around the step, as PurpleAir's do.
  wander <- function(t) t + sample(-2:2, length(t), replace = TRUE)
  # Ten seconds into the hour, so that no stamp falls before the first hour.
  moved <- wander(10 + c(t0 + 80 * (0:(7 * 1080 - 1)), change + 120 * (0:(7 * 720 - 1))))
  kept <- wander(10 + t0 + 120 * (0:(14 * 720 - 1)))
  # Hours at the edge of completeness: 34 and 33 of 45 readings (0.75 x 45 = 33.75), 23 and 22 of
  # 30 (22.5).
  for (edge in list(c(24, 34), c(25, 33), c(7 * 24 + 24, 23), c(7 * 24 + 25, 22))) {
    within <- which(moved >= t0 + 3600 * edge[1] & moved < t0 + 3600 * (edge[1] + 1))
    moved <- moved[-within[seq_len(length(within) - edge[2])]]
  }
  sensors <- data.frame(date = c(moved, kept), id = rep(c("moved", "kept"), c(length(moved), length(kept))))
  sensors$pm <- round(stats::runif(nrow(sensors), 5, 15), 1)
  reference <- data.frame(date = rep(t0 + 3600 * (0:(14 * 24 - 1)), 2), id = rep(c("moved", "kept"), each = 14 * 24),
                          ref = 1)
  out <- join_reference(sensors, reference, keys = "id")
  on <- sensors$id == "moved"
  by_hand <- hand_hourly(sensors$date[on], sensors$pm[on], function(hour) {
    ifelse(hour < as.numeric(change), 45, 30)
  })
  expect_equal(out$pm[out$id == "moved"], by_hand)
  # Each other hour holds 44 to 46 readings at 80 s, 29 to 31 at 120 s: all are complete. Before,
  # the step was the mean gap of the two, 95 s, and every hour expected 38 readings.
  hours <- out$date[out$id == "moved"]
  expect_identical(hours[is.na(by_hand)], t0 + 3600 * c(25, 7 * 24 + 25))
  expect_equal(out$pm[out$id == "kept"], hand_hourly(sensors$date[!on], sensors$pm[!on], function(hour) 30))
})

test_that("an hour in which the step changes expects some readings of each step", {
  t0 <- utc("2024-03-01 00:00")
  change <- t0 + 86400 + 10.5 * 3600  # 10:30 on the second day
  minutes <- t0 + 60 * (0:(as.numeric(change - t0, units = "mins") - 1))
  time <- c(minutes, change + 300 * (0:(2 * 288)))
  # The hour from 10:00 expects 30 one-minute and 6 five-minute readings: 27 of 36 are 75 %.
  hour_start <- change - 1800
  for (dropped in c(9, 10)) {
    gone <- time >= hour_start & time < hour_start + 60 * dropped
    sensors <- data.frame(date = time[!gone], pm = seq_len(sum(!gone)))
    out <- join_reference(sensors, data.frame(date = hour_start, ref = 1))
    at <- out$date == hour_start
    present <- sum(sensors$date >= hour_start & sensors$date < hour_start + 3600)
    expect_identical(present, 36L - as.integer(dropped))
    by_hand <- mean(sensors$pm[sensors$date >= hour_start & sensors$date < hour_start + 3600])
    expect_identical(out$pm[at], if (present >= 0.75 * (30 + 6)) by_hand else NA_real_)
    expect_identical(out$ref[at], 1)
  }
})

test_that("a stretch further apart than the period is named by its first reading", {
  t0 <- utc("2024-03-01 00:00")
  change <- t0 + 20 * 86400
  sensors <- data.frame(date = c(t0 + 60 * (0:(20 * 1440 - 1)), change + 7200 * (0:299)), site = "A", pm = 1)
  reference <- data.frame(date = t0 + 3600 * (0:99), site = "A", ref = 1)
  expect_error(join_reference(sensors, reference, keys = "site"),
               "readings 2 hours apart \\(series site = A\\) from 2024-03-21 00:00:00 UTC, longer than `average`")
  # The 2-hour readings lie on 2-hour periods: that average pairs them.
  expect_error(join_reference(sensors, reference, keys = "site"), "use `average = \"2 hours\"`")
})
