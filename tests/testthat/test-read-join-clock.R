# join_reference()'s periods on the local clock, as the hours of sensor_performance() and
# average_estimates(): in zones whose offset from UTC is not whole hours, and on the days of a
# clock change. Expected means are computed here by grouping the readings on their local
# clock hour (format(), with the offset, so that a repeated 01:00 hour is two groups).

local_hour_means <- function(time, x) {
  key <- format(time, "%Y-%m-%d %H %z")
  key <- factor(key, levels = unique(key))
  list(start = time[!duplicated(key)], mean = unname(as.vector(tapply(x, key, mean))),
       count = unname(as.vector(table(key))))
}

test_that("hourly periods start on the local clock's hour where the offset is not whole hours", {
  tz <- "Asia/Kolkata"  # UTC+05:30
  mins <- seq(as.POSIXct("2023-06-01 00:00", tz = tz), by = "1 min", length.out = 360)
  hours <- seq(as.POSIXct("2023-06-01", tz = tz), by = "1 hour", length.out = 6)
  out <- join_reference(data.frame(date = mins, pm25 = seq_along(mins)),
                        data.frame(date = hours, pm25 = 1:6))
  # Local hours 00:00 to 05:00, each the mean of its own 60 minutes, beside the reference of
  # that hour (not the readings of 00:30 to 01:29 beside the reference of 00:00).
  expect_identical(format(out$date, "%H:%M", tz = tz), sprintf("%02d:00", 0:5))
  expect_equal(out$pm25, local_hour_means(mins, seq_along(mins))$mean)
  expect_equal(out$pm25, 30.5 + 60 * (0:5))
  expect_identical(out$pm25_ref, as.numeric(1:6))
  # Quarter hours too: 05:30 is a whole number of them.
  quarter <- join_reference(data.frame(date = mins, x = seq_along(mins)),
                            data.frame(date = mins[1], y = 1), average = "15 min")
  expect_identical(format(quarter$date[1:3], "%H:%M", tz = tz), c("00:00", "00:15", "00:30"))
  expect_equal(quarter$x[1:2], c(mean(1:15), mean(16:30)))
  # A Date reference is local midnight, the start of the first local hour.
  daily <- join_reference(data.frame(date = mins, x = 1), data.frame(date = as.Date("2023-06-01"), y = 5))
  expect_identical(daily$y, c(5, rep(NA, 5)))
})

test_that("hours of Adelaide (+09:30, +10:30 in summer) follow its clock across both changes", {
  tz <- "Australia/Adelaide"
  # 2 April 2023: 03:00 ACDT goes back to 02:00 ACST (25 hours); 1 October 2023: 02:00 ACST
  # goes forward to 03:00 ACDT (23 hours).
  for (day in c("2023-04-02", "2023-10-01")) {
    start <- as.POSIXct(day, tz = tz)
    end <- as.POSIXct(format(as.Date(day) + 1), tz = tz)
    t <- seq(start, end - 600, by = "10 min")
    x <- (seq_along(t) * 7) %% 11
    out <- join_reference(data.frame(date = t, x = x), data.frame(date = t, y = 2 * x))
    expected <- local_hour_means(t, x)
    expect_length(out$date, if (day == "2023-04-02") 25L else 23L)
    expect_identical(as.numeric(out$date), as.numeric(expected$start))
    expect_equal(out$x, expected$mean)
    expect_equal(out$y, 2 * expected$mean)
    expect_true(all(format(out$date, "%M", tz = tz) == "00"))
  }
})

test_that("London's clock-change days: 23 and 25 hours, the repeated 01:00 hour is two", {
  tz <- "Europe/London"
  autumn <- seq(as.POSIXct("2023-10-29", tz = tz), as.POSIXct("2023-10-30", tz = tz) - 600, by = "10 min")
  x <- seq_along(autumn)
  out <- join_reference(data.frame(date = autumn, x = x), data.frame(date = autumn, y = 1))
  expect_length(out$date, 25L)
  expect_identical(format(out$date[2:3], "%H:%M %Z", tz = tz), c("01:00 BST", "01:00 GMT"))
  expect_equal(out$x, local_hour_means(autumn, x)$mean)
  expect_equal(out$x[2:3], c(mean(7:12), mean(13:18)))
  spring <- seq(as.POSIXct("2023-03-26", tz = tz), as.POSIXct("2023-03-27", tz = tz) - 600, by = "10 min")
  out <- join_reference(data.frame(date = spring, x = seq_along(spring)), data.frame(date = spring, y = 1))
  expect_length(out$date, 23L)
  expect_equal(out$x, local_hour_means(spring, seq_along(spring))$mean)
  # Two-hour periods: the one from 00:00 on the spring day lasts an hour (the clock skips
  # 01:00 to 02:00), so its 6 readings are complete; on the autumn day the second period from
  # 00:00 (GMT) holds the hour after the change, also complete with its 6.
  two <- join_reference(data.frame(date = spring, x = seq_along(spring)),
                        data.frame(date = spring, y = 1), average = "2 hours", completeness = 1)
  expect_equal(two$x[1], mean(1:6))
  expect_identical(format(two$date[2], "%H:%M %Z", tz = tz), "02:00 BST")
  expect_equal(two$x[2], mean(7:18))
  back <- join_reference(data.frame(date = autumn, x = x), data.frame(date = autumn, y = 1),
                         average = "2 hours", completeness = 1)
  expect_equal(back$x[1:3], c(mean(1:12), mean(13:18), mean(19:30)))
})

test_that("join_reference(), average_estimates() and sensor_performance() cut the same hours", {
  for (tz in c("Asia/Kolkata", "Australia/Adelaide", "Europe/London")) {
    start <- as.POSIXct(if (tz == "Europe/London") "2023-10-28 22:00" else "2023-04-01 22:00", tz = tz)
    t <- start + 60 * (0:(60 * 30 - 1))
    set.seed(2)
    ref <- 20 + 5 * sin(seq_along(t) / 90)
    est <- ref + rnorm(length(t), 0, 2)
    est[c(sample(length(t), 100), 61:80)] <- NA  # the second hour, at least, falls short of 45 of 60
    joined <- join_reference(data.frame(date = t, est = est), data.frame(date = t, ref = ref))
    key <- format(t, "%Y-%m-%d %H %z")
    key <- factor(key, levels = unique(key))
    present <- unname(as.vector(tapply(!is.na(est), key, sum)))
    means <- unname(as.vector(tapply(est, key, mean, na.rm = TRUE)))
    expect_true(any(present < 45) && any(present >= 45))
    expect_equal(joined$est, ifelse(present >= 45, means, NA))
    averaged <- average_estimates(data.frame(date = t, .pred = est, ref = ref), averaging = "1h",
                                  columns = "ref")
    expect_identical(as.numeric(averaged$date), as.numeric(joined$date))
    expect_equal(averaged$.pred, joined$est)
    expect_equal(averaged$ref, joined$ref)
    perf <- suppressMessages(sensor_performance(data.frame(date = t, est = est, ref = ref), "est",
                                                "ref", averaging = "1h"))
    both <- !is.na(joined$est) & !is.na(joined$ref)
    expect_identical(perf$n[perf$unit == "all"], sum(both))
    expect_equal(perf$rmse[perf$unit == "all"], sqrt(mean((joined$est - joined$ref)[both]^2)))
  }
})
