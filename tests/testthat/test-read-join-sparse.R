# join_reference() on loggers that kept few of their records: every hourly mean and count against
# a hand computation written here (tapply() over the local clock hour), in UTC and across the
# clock changes of Europe/Brussels.

# The minutes `kept` (numbers from 0) of a 1-minute logger started at `start` in zone `tz`,
# reading a value of 5 to 30 per record, with an hourly reference over the same days.
sparse_logger <- function(kept, tz = "UTC", start = "2024-03-29 00:00", days = 4) {
  t0 <- as.POSIXct(start, tz = tz)
  date <- t0 + 60 * kept
  list(sensors = data.frame(date = date, pm = round(stats::runif(length(kept), 5, 30), 1)),
       reference = data.frame(date = t0 + 3600 * (0:(24 * days - 1)), ref = 1), tz = tz)
}

# By hand: per local clock hour (its offset tells the two 02:00 hours of an autumn clock change
# apart), the count and mean of the readings, and the mean where the count reaches `needed`.
hourly_by_hand <- function(data, needed) {
  hour <- format(data$sensors$date, "%Y-%m-%d %H:00 %z", tz = data$tz)
  hour <- factor(hour, unique(hour))
  count <- as.vector(table(hour))
  mean <- as.vector(tapply(data$sensors$pm, hour, mean))
  list(hour = levels(hour), count = count, mean = ifelse(count >= needed, mean, NA_real_))
}

expect_hourly_means <- function(data, completeness, needed) {
  out <- join_reference(data$sensors, data$reference, completeness = completeness)
  by_hand <- hourly_by_hand(data, needed)
  expect_identical(format(out$date, "%Y-%m-%d %H:%M %z", tz = data$tz), by_hand$hour)
  expect_equal(out$pm, by_hand$mean, tolerance = 1e-12)
  invisible(by_hand)
}

test_that("a 1-minute logger keeping 8 % of its minutes is judged at its 1-minute step, whatever its most common gap", {
  # Gaps of 1, 2, 3 minutes come in near-equal numbers (8 %, 7.4 %, 6.8 % of them), so the most
  # common gap is often 2 or 3 minutes, and the median gap about 8: a step read from either
  # expected 30 or 7 readings an hour, and hours of 3 or 6 readings passed as complete.
  withr::local_seed(28)
  most_common <- numeric()
  for (draw in 1:24) {
    # UTC, and Brussels over its spring and autumn clock changes (31 March, 27 October).
    tz <- c("UTC", "Europe/Brussels")[draw %% 2 + 1]
    start <- c("2024-03-29 00:00", "2024-10-25 00:00")[(draw %/% 2) %% 2 + 1]
    data <- sparse_logger(sort(sample(0:(4 * 1440 - 1), 461)), tz, start)
    gaps <- diff(as.numeric(data$sensors$date))
    most_common <- c(most_common, as.numeric(names(which.max(table(gaps)))))
    # Every gap is whole minutes: the step is 60 s, 60 readings expected an hour.
    expect_true(all(gaps %% 60 == 0))
    # completeness = 0: each hour's mean of whatever readings it holds.
    expect_hourly_means(data, 0, needed = 1)
    # completeness = 0.1: 6 of the 60 minutes.
    by_hand <- expect_hourly_means(data, 0.1, needed = 6)
    expect_true(any(by_hand$count == 5) && any(by_hand$count == 6))
  }
  # The draws hold the case a most-common-gap step got wrong.
  expect_true(any(most_common != 60))
})

test_that("the 1-minute step of a sparse logger holds for bursts, long gaps and every third minute", {
  withr::local_seed(5)
  minutes <- 0:(4 * 1440 - 1)
  # Bursts of 10 minutes at random starts; then 8 % kept with a 7-hour gap; then a logger
  # writing every third minute (step 3 minutes, 20 readings an hour) that lost half of them.
  bursts <- sort(unique(as.vector(outer(0:9, sample(4 * 1440 - 10, 40), `+`))))
  gap <- sort(sample(minutes, 461))
  gap <- gap[gap < 2000 | gap >= 2000 + 7 * 60]
  thirds <- sort(sample(seq(0, 4 * 1440 - 1, 3), 960))
  for (tz in c("UTC", "Europe/Brussels")) {
    for (kept in list(bursts, gap)) {
      data <- sparse_logger(kept, tz)
      expect_hourly_means(data, 0, needed = 1)
      expect_hourly_means(data, 0.5, needed = 30)
    }
    data <- sparse_logger(thirds, tz)
    expect_hourly_means(data, 0, needed = 1)
    by_hand <- expect_hourly_means(data, 0.5, needed = 10)
    expect_true(any(by_hand$count < 10) && any(by_hand$count >= 10))
  }
})

test_that("hours of a sparse logger at exactly their completeness share count, one reading fewer does not", {
  # 8 % of the minutes kept at random, but for three hours (30 March, 16:00 to 19:00 in Brussels)
  # holding 45, 44 and 15 of their 60 minutes: 0.75 of 60 is 45; 0.25 of 60 is 15.
  withr::local_seed(3)
  minutes <- 0:(4 * 1440 - 1)
  kept <- sort(sample(minutes, 461))
  full <- list(c(40, 45), c(41, 44), c(42, 15))  # hour of the series, minutes kept in it
  for (hour in full) {
    kept <- kept[kept %/% 60 != hour[1]]
    kept <- sort(c(kept, 60 * hour[1] + sort(sample(0:59, hour[2]))))
  }
  data <- sparse_logger(kept, "Europe/Brussels")
  by_hand <- expect_hourly_means(data, 0.75, needed = 45)
  expect_identical(by_hand$count[match(format(data$reference$date[c(41, 42)], "%Y-%m-%d %H:00 %z"),
                                       by_hand$hour)], c(45L, 44L))
  expect_identical(sum(!is.na(by_hand$mean)), 1L)
  by_hand <- expect_hourly_means(data, 0.25, needed = 15)
  expect_identical(sum(!is.na(by_hand$mean)), 3L)
  # Days: 31 March 2024 in Brussels lasts 23 hours, 1380 minutes, and the other days 1440 (the
  # 4 x 1440 minutes end at 00:59 on 2 April, an hour of summer time later).
  day <- format(data$sensors$date, "%Y-%m-%d", tz = "Europe/Brussels")
  count <- as.vector(table(day))
  expect_identical(names(table(day)), c("2024-03-29", "2024-03-30", "2024-03-31", "2024-04-01", "2024-04-02"))
  minutes_of_day <- c(1440, 1440, 1380, 1440, 1440)
  for (completeness in c(count[3] / 1380, (count[3] + 1) / 1380)) {
    daily <- join_reference(data$sensors, data$reference, average = "1 day", completeness = completeness)
    needed <- completeness * minutes_of_day
    by_hand <- as.vector(tapply(data$sensors$pm, day, mean))
    expect_equal(daily$pm, ifelse(count >= needed - 1e-9, by_hand, NA_real_), tolerance = 1e-12)
    expect_identical(is.na(daily$pm[3]), completeness > count[3] / 1380)
  }
})

test_that("a sparse 1-minute logger whose stamps wander by seconds keeps its 1-minute step", {
  # Stamps up to 3 s off the minute: no gap is a whole number of minutes, and the gaps near the
  # median are 8 minutes or so; the step is the minute that 80 % of the gaps lie near multiples of.
  withr::local_seed(11)
  for (tz in c("UTC", "Europe/Brussels")) {
    data <- sparse_logger(sort(sample(0:(4 * 1440 - 1), 461)), tz)
    data$sensors$date <- data$sensors$date + stats::runif(461, -3, 3)
    gaps <- diff(as.numeric(data$sensors$date))
    expect_true(all(abs(gaps - 60 * round(gaps / 60)) < 6))
    expect_gt(stats::median(gaps), 5 * 60)
    expect_hourly_means(data, 0, needed = 1)
    by_hand <- expect_hourly_means(data, 0.1, needed = 6)
    expect_true(any(by_hand$count == 5) && any(by_hand$count == 6))
  }
  # sensor_performance() says the stamps wander around a step of one minute.
  d <- data.frame(date = data$sensors$date, est = data$sensors$pm + 1, ref = data$sensors$pm)
  expect_message(res <- sensor_performance(d, "est", "ref", averaging = "as_given"),
                 "wander around a step of 1 minute")
  expect_identical(res$time_step, "1 minute")
})
