# Time stamps that wander around a regular step (logger jitter): the step both
# sensor_performance() and average_estimates() take, and the 1-hour and 24-hour means, checked
# against means written out here by hand and with tapply() on clock hours from format().

# O3-like readings every `step` seconds (1 minute), each stamped up to `jitter` seconds off its
# slot, over `hours` hours from 2024-07-01 (a stamp jittered out of them is dropped).
jittered_minutes <- function(hours, step = 60, jitter = 10, seed = 1) {
  start <- as.POSIXct("2024-07-01", tz = "UTC")
  slots <- start + step * (0:(hours * 3600 / step - 1))
  withr::with_seed(seed, {
    date <- slots + stats::runif(length(slots), -jitter, jitter)
    ref <- 40 + 15 * sin(seq_along(slots) / 200) + stats::rnorm(length(slots), sd = 2)
    est <- 1.1 * ref - 2 + stats::rnorm(length(slots), sd = 3)
  })
  inside <- date >= start & date < start + 3600 * hours
  data.frame(date = date, ref = ref, est = est)[inside, ]
}

# The value of `expr` and the messages it gave, muffled.
with_messages <- function(expr) {
  said <- character()
  value <- withCallingHandlers(expr, message = function(m) {
    said <<- c(said, conditionMessage(m))
    invokeRestart("muffleMessage")
  })
  list(value = value, messages = paste(said, collapse = ""))
}

# The mean of `x` when at least `need` of its values are present, else NA.
mean_if <- function(x, need) if (sum(!is.na(x)) >= need) mean(x, na.rm = TRUE) else NA_real_

test_that("10-minute data stamped seconds off the step have hourly means of their clock hours", {
  # Slot k (10 minutes each) holds the value k; its stamp is `off` seconds off. Slot 7 (01:00)
  # is stamped 00:59:55 and slot 19 (03:00) 02:59:51: hours 0 and 2 hold 7 stamps, 1 and 3 hold 5.
  off <- c(7, 5, -8, 3, -4, 8, -5, 2, -3, 6, -7, 4, 9, -2, 5, -6, 3, 6, -9, 4, -5, 2, 8, -3)
  start <- as.POSIXct("2024-05-01", tz = "UTC")
  d <- data.frame(date = start + 600 * (0:23) + off, .pred = 1:24)
  expect_message(out <- average_estimates(d, averaging = "1h"),
                 "wander around a step of 10 minutes \\(mean gap 599.6 seconds\\)")
  expect_equal(out$date, start + 3600 * (0:3))
  expect_identical(out$.n_estimates, c(7L, 5L, 7L, 5L))
  # The means of values 1-7, 8-12, 13-19 and 20-24.
  expect_equal(out$.pred, c(4, 10, 16, 22))
  # An hour of 5 stamps lost one record to the hour before: complete even at completeness 1.
  expect_equal(suppressMessages(average_estimates(d, "1h", completeness = 1))$.pred, c(4, 10, 16, 22))
  # One record missing beyond that: 4 of the 6 an hour holds, below 0.75 and below complete.
  d$.pred[10] <- NA
  expect_equal(suppressMessages(average_estimates(d, "1h"))$.pred, c(4, NA, 16, 22))
  expect_equal(suppressMessages(average_estimates(d, "1h", completeness = 1))$.pred, c(4, NA, 16, 22))
  expect_equal(suppressMessages(average_estimates(d, "1h", completeness = 0.6))$.pred,
               c(4, mean(c(8, 9, 11, 12)), 16, 22))
})

test_that("1-minute O3 stamped up to 10 s off the minute is judged on 1-hour and 24-hour means", {
  obs <- jittered_minutes(hours = 96)
  hour <- format(obs$date, "%Y-%m-%d %H", tz = "UTC")
  # An hour missing 20 of its minutes keeps about 40 stamps: below 45, it does not count.
  obs$est[hour == "2024-07-01 05" & format(obs$date, "%M", tz = "UTC") < "20"] <- NA
  run <- with_messages(sensor_performance(obs, "est", "ref", pollutant = "o3", units = "ppb",
                                          averaging = c("as_given", "1h", "24h")))
  expect_match(run$messages, "wander around a step of 1 minute")
  res <- run$value
  expect_identical(res$time_step, c("1 minute", "1 hour", "24 hours"))
  est <- tapply(obs$est, hour, mean_if, 45)
  ref <- tapply(obs$ref, hour, mean_if, 45)
  expect_true(is.na(est[["2024-07-01 05"]]))
  expect_identical(res$n[2], 95L)
  expect_equal(res$mbe[2], mean(est - ref, na.rm = TRUE))
  expect_equal(res$rmse[2], sqrt(mean((est - ref)^2, na.rm = TRUE)))
  # Days of 18 or more hourly means: all four.
  day <- substr(names(est), 1, 10)
  daily_est <- tapply(est, day, mean_if, 18)
  daily_ref <- tapply(ref, day, mean_if, 18)
  expect_identical(res$n[3], 4L)
  expect_equal(res$mbe[3], mean(daily_est - daily_ref))
})

test_that("a complete jittered hour of 59 stamps counts at completeness 1, one of 58 does not", {
  obs <- jittered_minutes(hours = 48, seed = 3)
  d <- data.frame(date = obs$date, .pred = obs$est)
  hour <- format(d$date, "%Y-%m-%d %H", tz = "UTC")
  counts <- table(hour)
  expect_true(all(counts %in% 59:61))
  expect_true(any(counts == 59L))
  full <- suppressMessages(average_estimates(d, "1h", completeness = 1))
  expect_equal(full$.pred, unname(as.numeric(tapply(d$.pred, hour, mean))))
  expect_identical(full$.n_estimates, as.integer(counts), ignore_attr = TRUE)
  # One record fewer in an hour of 59: incomplete.
  short <- names(counts)[counts == 59L][1]
  d$.pred[which(hour == short)[30]] <- NA
  out <- suppressMessages(average_estimates(d, "1h", completeness = 1))
  expect_true(is.na(out$.pred[names(counts) == short]))
  expect_identical(sum(is.na(out$.pred)), 1L)
})

test_that("jittered 2-minute and 10-minute data keep their step, not a finer one", {
  for (step in c(120, 600)) {
    obs <- jittered_minutes(hours = 30, step = step, jitter = 0.2 * step, seed = 2)
    hour <- format(obs$date, "%Y-%m-%d %H", tz = "UTC")
    res <- suppressMessages(sensor_performance(obs, "est", "ref", pollutant = "o3", units = "ppb"))
    expect_identical(res$time_step, c(if (step == 120) "2 minutes" else "10 minutes", "1 hour"))
    # Every hour holds about 3600 / step stamps, above 75 % of them: 30 hourly pairs.
    need <- 0.75 * 3600 / step
    est <- tapply(obs$est, hour, mean_if, need)
    ref <- tapply(obs$ref, hour, mean_if, need)
    expect_identical(res$n[2], 30L)
    expect_equal(res$mbe[2], mean(est - ref, na.rm = TRUE))
    d <- data.frame(date = obs$date, .pred = obs$est)
    out <- suppressMessages(average_estimates(d, "1h"))
    expect_equal(out$.pred, unname(as.numeric(est)))
  }
})

test_that("jittered hourly data form days of their nominal hours; daily data keep their step", {
  hourly <- jittered_minutes(hours = 240, step = 3600, jitter = 20, seed = 4)
  # By hand: each reading is of the hour nearest its stamp (20 s off at most), and of that
  # hour's day, which for a stamp before midnight is the next one.
  nominal <- .POSIXct(round(as.numeric(hourly$date) / 3600) * 3600, tz = "UTC")
  day <- format(nominal, "%Y-%m-%d", tz = "UTC")
  expect_true(any(day != format(hourly$date, "%Y-%m-%d", tz = "UTC")))
  counts <- table(day)
  d <- data.frame(date = hourly$date, .pred = hourly$est)
  out <- suppressMessages(average_estimates(d, completeness = 1))
  by_day <- tapply(d$.pred, day, mean)
  by_day[counts < 24L] <- NA
  expect_equal(out$date, as.Date(names(counts)))
  expect_equal(out$.pred, unname(as.numeric(by_day)))
  res <- suppressMessages(sensor_performance(hourly, "est", "ref", averaging = c("as_given", "24h")))
  expect_identical(res$time_step, c("1 hour", "24 hours"))
  complete <- counts >= 18L
  expect_identical(res$n[2], sum(complete))
  est_day <- tapply(hourly$est, day, mean)[complete]
  ref_day <- tapply(hourly$ref, day, mean)[complete]
  expect_equal(res$mbe[2], mean(est_day - ref_day))
  expect_equal(res$rmse[2], sqrt(mean((est_day - ref_day)^2)))
  # Daily samples collected up to half an hour off midnight, never across it.
  days <- as.POSIXct("2024-01-01 00:30", tz = "UTC") + 86400 * (0:19) +
    withr::with_seed(5, stats::runif(20, -1500, 1500))
  daily <- data.frame(date = days, ref = 1:20, est = 1:20 + 0.5)
  run <- with_messages(sensor_performance(daily, "est", "ref"))
  expect_match(run$messages, "wander around a step of 24 hours")
  res <- run$value
  expect_identical(res$time_step, "24 hours")
  expect_identical(res$n, 20L)
})

test_that("regular steps are not taken for jitter", {
  hours <- as.POSIXct("2024-03-25", tz = "Europe/Brussels") + 3600 * setdiff(0:200, c(5, 6, 50:60))
  d <- data.frame(date = hours, ref = seq_along(hours), est = seq_along(hours) + 1)
  run <- with_messages(sensor_performance(d, "est", "ref"))
  expect_no_match(run$messages, "wander")
  expect_identical(run$value$time_step, c("1 hour", "24 hours"))
  days <- seq(as.POSIXct("2024-03-01", tz = "Europe/Brussels"), by = "day", length.out = 60)
  d <- data.frame(date = days, ref = 1:60, est = 2:61)
  run <- with_messages(sensor_performance(d, "est", "ref"))
  expect_no_match(run$messages, "wander")
  expect_identical(run$value$time_step, "24 hours")
  # 1-minute data with records missing: gaps of 1, 2 and 3 minutes, exactly.
  minutes <- as.POSIXct("2024-01-01", tz = "UTC") + 60 * sort(withr::with_seed(6, sample(0:5999, 3500)))
  d <- data.frame(date = minutes, .pred = 1)
  expect_message(out <- average_estimates(d, "1h"), NA)
  expect_identical(out$.n_estimates, as.integer(table(format(minutes, "%d %H"))), ignore_attr = TRUE)
})

test_that("the logger stamping 12:00:07, 12:01:05, 12:02:09 has a step of one minute", {
  d <- data.frame(date = as.POSIXct("2024-01-01 12:00:07", tz = "UTC") + c(0, 58, 122),
                  est = 1:3, ref = 1:3)
  res <- suppressMessages(sensor_performance(d, "est", "ref", averaging = "as_given"))
  expect_identical(res$time_step, "1 minute")
})

test_that("gaps scattering around no step that divides an hour are an error or warning saying so", {
  # 7-minute data stamped up to 10 s off: no step divides an hour within 2.5 % of 420 s.
  seven <- jittered_minutes(hours = 70, step = 420, jitter = 10, seed = 7)
  d <- data.frame(date = seven$date, .pred = seven$est)
  expect_error(average_estimates(d, "1h"), "scatter \\(mean gap 420 seconds\\)")
  seven$unit <- "s7"
  minute <- jittered_minutes(hours = 70, seed = 8)
  minute$unit <- "m1"
  both <- rbind(seven, minute)
  expect_warning(res <- suppressMessages(sensor_performance(both, "est", "ref", unit = "unit",
                                                            pollutant = "o3", units = "ppb")),
                 "of unit \"s7\" scatter", class = "ncam_warning_uneven_step")
  expect_identical(res$time_step[2], "1 minute")
  expect_identical(res$n[res$unit == "m1" & res$averaging == "1h"], 70L)
  # Readings at random times, 10 s to 5 minutes apart: no dominant step.
  random <- as.POSIXct("2024-01-01", tz = "UTC") + cumsum(withr::with_seed(9, stats::runif(3000, 10, 300)))
  expect_error(average_estimates(data.frame(date = random, .pred = 1), "1h"), "scatter")
})

test_that("scattered gaps take their mean gap near the median as the step, whatever their most common gap", {
  # Gaps of 20 to 200 s, 60 s four times: the most common gap divides an hour, yet the stamps
  # scatter around no step. By hand: the mean of the gaps within half the median of it.
  gaps <- withr::with_seed(1, sample(c(rep(60, 3), 20:200)))
  centre <- mean(gaps[abs(gaps - median(gaps)) < median(gaps) / 2])
  expect_gt(abs(centre - 120), 0.025 * 120)  # near no step that divides an hour
  expect_gt(abs(centre - 100), 0.025 * 100)
  date <- as.POSIXct("2024-01-01", tz = "UTC") + cumsum(c(0, gaps))
  d <- data.frame(date = date, est = seq_along(date), ref = seq_along(date))
  shown <- prettyNum(signif(centre, 4))
  expect_warning(res <- sensor_performance(d, "est", "ref", pollutant = "o3", units = "ppb"),
                 paste0("scatter \\(mean gap ", shown, " seconds\\).*that mean gap is their time step"),
                 class = "ncam_warning_uneven_step")
  expect_identical(res$time_step[res$averaging == "as_given"], paste(shown, "seconds"))
  expect_error(average_estimates(data.frame(date = date, .pred = 1), "1h"),
               paste0("time step ", shown, " seconds.*scatter"))
  # join_reference() expects an hour's share at that step: 3600 / centre readings.
  hour <- as.POSIXct(floor(as.numeric(date) / 3600) * 3600, origin = "1970-01-01", tz = "UTC")
  counts <- as.vector(table(hour))
  reference <- data.frame(date = sort(unique(hour)), pm25 = 1)
  out <- join_reference(d[c("date", "est")], reference, completeness = 0.9)
  expect_identical(is.na(out$est), counts < 0.9 * 3600 / centre)
  expect_true(any(is.na(out$est)) && !all(is.na(out$est)))
})

test_that("a most common gap that is no real share of the gaps is not taken as a regular step", {
  # Readings at random whole seconds, about an hour apart: the 39 gaps all differ, so their
  # "most common" gap is merely the smallest, 14 s. By hand: no step, the mean of the gaps
  # within half the median of it.
  seconds <- round(cumsum(withr::with_seed(2, stats::rexp(40, 1 / 3600))))
  gaps <- diff(seconds)
  expect_identical(anyDuplicated(gaps), 0L)
  expect_identical(min(gaps), 14)
  centre <- mean(gaps[abs(gaps - median(gaps)) < median(gaps) / 2])
  found <- ncam:::step_of_gaps(gaps)
  expect_identical(found$kind, "irregular")
  expect_equal(found$step, centre)
  # join_reference() expects one reading an hour at that step (3600 / 2663 rounds to 1), not
  # the 257 of a 14-second step that left every hour short: each hour with a reading counts.
  date <- as.POSIXct("2024-01-01", tz = "UTC") + seconds
  hour <- as.POSIXct(floor(as.numeric(date) / 3600) * 3600, origin = "1970-01-01", tz = "UTC")
  expect_identical(round(3600 / centre), 1)
  out <- join_reference(data.frame(date = date, pm = seq_along(date)),
                        data.frame(date = sort(unique(hour)), ref = 1))
  expect_equal(out$pm, as.vector(tapply(seq_along(date), as.numeric(hour), mean)))
  # sensor_performance() gives that mean gap as the step, and says the gaps scatter.
  d <- data.frame(date = date, est = seq_along(date) + 1, ref = seq_along(date))
  expect_warning(res <- sensor_performance(d, "est", "ref"),
                 paste0("scatter \\(mean gap ", prettyNum(signif(centre, 4)), " seconds\\)"),
                 class = "ncam_warning_uneven_step")
  expect_identical(res$time_step[1], paste(prettyNum(signif(centre, 4)), "seconds"))

  # Hourly readings stamped up to 5 minutes off the hour over 3 days, one read twice, 14 s
  # apart: the one gap of 14 s was taken as a regular step, so no day had its 6171 records.
  # They wander around an hour: by hand, each reading at its nearest hour (the two there
  # averaged), each day the mean of its 24 hours.
  slots <- as.POSIXct("2024-07-01", tz = "UTC") + 3600 * (0:71)
  stamps <- slots + withr::with_seed(7, stats::runif(72, -300, 300))
  d <- data.frame(date = c(stamps, stamps[30] + 14), ref = c(10 + (0:71) %% 9, 30))
  d$est <- 1.2 * d$ref + c((0:71) %% 4, 0)
  gaps <- diff(sort(as.numeric(d$date)))
  expect_identical(min(gaps), 14)
  expect_identical(anyDuplicated(round(gaps, 3)), 0L)
  run <- with_messages(sensor_performance(d, "est", "ref"))
  expect_match(run$messages, "wander around a step of 1 hour")
  res <- run$value
  nominal <- round(as.numeric(d$date) / 3600) * 3600
  hourly <- data.frame(est = as.vector(tapply(d$est, nominal, mean)),
                       ref = as.vector(tapply(d$ref, nominal, mean)),
                       day = as.vector(tapply(floor(nominal / 86400), nominal, unique)))
  daily <- data.frame(est = as.vector(tapply(hourly$est, hourly$day, mean)),
                      ref = as.vector(tapply(hourly$ref, hourly$day, mean)))
  expect_identical(as.vector(table(hourly$day)), c(24L, 24L, 24L))
  by_day <- res[res$averaging == "24h", ]
  expect_identical(by_day$n, 3L)
  expect_equal(by_day$slope, unname(stats::coef(stats::lm(est ~ ref, daily))[2]))
  expect_equal(by_day$mbe, mean(daily$est - daily$ref))
})

test_that("a coarse jittered step spares no record: half of a half-hourly hour is not complete", {
  # Stamps at :10 and :40 of 240 hours, each up to 5 minutes off (never across an hour); in the
  # last 120 hours only the :10 ones. By hand: the first hours hold 2 of 2, the last 1 of 2.
  start <- as.POSIXct("2024-07-01", tz = "UTC")
  slots <- start + 600 + 1800 * (0:479)
  d <- data.frame(date = slots + withr::with_seed(2, stats::runif(480, -300, 300)), .pred = 1)
  d <- d[seq_len(480) <= 240 | seq_len(480) %% 2 == 1, ]
  for (completeness in c(0.75, 1)) {
    out <- suppressMessages(average_estimates(d, averaging = "1h", completeness = completeness))
    expect_equal(nrow(out), 240L)
    expect_identical(!is.na(out$.pred), seq_len(240) <= 120)
  }
})

test_that("a unit with one time stamp beside a jittered one is not said to wander", {
  d <- jittered_minutes(48, step = 3600, jitter = 200)
  d$unit <- "a"
  d <- rbind(d, data.frame(date = as.POSIXct("2024-07-01 05:00", tz = "UTC"), ref = 1, est = 1, unit = "c"))
  d$.pred <- d$est
  said <- with_messages(average_estimates(d, averaging = "24h", unit = "unit"))$messages
  expect_match(said, "of unit \"a\" wander")
  expect_no_match(said, "\"c\"")
})

test_that("hourly readings stamped up to 5 minutes off the hour each keep their own hour", {
  start <- as.POSIXct("2024-03-01", tz = "UTC")
  stamps <- start + 3600 * (0:47) + withr::with_seed(1, stats::runif(48, -300, 300))
  d <- data.frame(date = stamps, .pred = 1:48)
  out <- suppressMessages(average_estimates(d, averaging = "1h"))
  # By hand: each stamp rounded to the nearest hour, one reading per hour.
  nearest <- .POSIXct(round(as.numeric(stamps) / 3600) * 3600, tz = "UTC")
  expect_identical(nrow(out), 48L)
  expect_equal(out$date, nearest)
  expect_equal(out$.pred, 1:48)
  expect_identical(out$.n_estimates, rep(1L, 48))
  # A second reading of one hour (hour 10 read again at 10:02) is averaged with it there.
  again <- rbind(d, data.frame(date = start + 10 * 3600 + 120, .pred = 100))
  out <- suppressMessages(average_estimates(again, averaging = "1h"))
  expect_equal(out$date, nearest)
  expect_equal(out$.pred, replace(1:48, 11, mean(c(11, 100))))
  expect_identical(out$.n_estimates, replace(rep(1L, 48), 11, 2L))
})

test_that("jittered hourly stamps take the quarter hour nearest their mean minute: :48 to :52 keep their hour", {
  start <- as.POSIXct("2024-03-01", tz = "UTC")
  wobble <- rep(c(-60, 60, -30, 30), 12)
  for (minute in c(48, 50, 52, 53, 57)) {
    stamps <- start + 3600 * (0:47) + 60 * minute + wobble
    out <- suppressMessages(average_estimates(data.frame(date = stamps, .pred = 1:48), "1h"))
    # By hand: around :48 to :52 the nominal times are at :45, in the stamps' own hours; from
    # :53 at the next hour's :00, the hour from which each is then dated.
    own_hour <- .POSIXct(floor(as.numeric(start + 3600 * (0:47) + 60 * minute) / 3600) * 3600, tz = "UTC")
    expected <- if (minute <= 52) own_hour else own_hour + 3600
    expect_equal(out$date, expected)
    expect_equal(out$.pred, 1:48)
  }
})

test_that("hourly readings across Lord Howe's half-hour clock change keep one reading per hour", {
  # Every elapsed hour (on the UTC hour), up to 3 minutes off, across the change of 7 April 2024
  # (02:00 at UTC+11 back to 01:30 at UTC+10:30): on the hour locally before it, on the half
  # hour after. By hand: each reading is of the local clock hour holding its slot.
  tz <- "Australia/Lord_Howe"
  slots <- as.POSIXct("2024-04-02", tz = "UTC") + 3600 * (0:239)
  attr(slots, "tzone") <- tz
  expect_setequal(format(slots, "%M"), c("00", "30"))
  d <- data.frame(date = slots + rep(c(-180, 120, -60, 150, -120, 60), 40), .pred = 1:240)
  out <- suppressMessages(average_estimates(d, "1h"))
  hour_start <- slots - 60 * as.numeric(format(slots, "%M"))
  expect_equal(as.numeric(out$date), as.numeric(hour_start))
  expect_equal(out$.pred, 1:240)
  expect_identical(out$.n_estimates, rep(1L, 240))
  # Days of 24 hours (24.5 on 7 April) of local clock time; the first (13 hours) and last (11)
  # short of 75 %.
  day <- as.Date(format(slots, "%Y-%m-%d"))
  days <- suppressMessages(average_estimates(d))
  expected <- tapply(1:240, day, mean)
  expected[table(day) < 18] <- NA
  expect_equal(days$date, unique(day))
  expect_equal(days$.pred, unname(as.vector(expected)))
})

test_that("daily readings jittered around local midnight keep their day across a clock change", {
  # Brussels midnights are 22:00 UTC in summer and 23:00 UTC in winter; 20 weeks across the
  # October change, each stamp up to 5 minutes off, so some fall on the day before.
  tz <- "Europe/Brussels"
  days <- seq(as.Date("2024-09-01"), by = "day", length.out = 140)
  stamps <- as.POSIXct(format(days), tz = tz) + withr::with_seed(2, stats::runif(140, -300, 300))
  expect_true(any(as.Date(format(stamps, "%Y-%m-%d", tz = tz)) != days))
  d <- data.frame(date = stamps, .pred = seq_along(days))
  out <- suppressMessages(average_estimates(d))
  expect_equal(out$date, days)
  expect_equal(out$.pred, seq_along(days))
})

test_that("daily samples on an uneven schedule keep a whole-day step, as dates and as midnights", {
  # One 24-hour sample a week on any weekday: gaps of 4 to 10 whole days scatter around no
  # step, yet they are daily values, not values of their mean gap (6.8 days).
  gaps <- c(7, 6, 8, 7, 5, 9, 6, 7, 8, 4, 10, 6, 7, 5, 9, 7, 6, 8, 6, 5)
  days <- as.Date("2023-01-02") + cumsum(c(0, gaps))
  ref <- 8 + 6 * sin(seq_along(days) / 3) + seq_along(days) %% 4
  est <- 1.05 * ref + (seq_along(days) %% 3 - 1)
  by_hand_r2 <- stats::cor(est, ref)^2
  for (date in list(days, as.POSIXct(format(days), tz = "Europe/Brussels"))) {
    d <- data.frame(date = date, ref = ref, est = est)
    perf <- suppressMessages(sensor_performance(d, "est", "ref"))
    expect_identical(perf$time_step, "24 hours")
    expect_equal(perf$r2, by_hand_r2)
    expect_identical(perf$pass_r2, by_hand_r2 >= 0.7)
    out <- suppressMessages(average_estimates(data.frame(date = date, .pred = ref)))
    expect_equal(out$.pred, ref)
  }
})

test_that("readings at random whole seconds keep their mean gap as step, not a 1-second grid", {
  # Random times stamped in whole seconds, about 50 s apart: every gap is a whole number of
  # seconds and 2 % of them are 1 s, as for a 1-second logger keeping 2 % of its records, but
  # their most common gap is 3 s. By hand: the mean of the gaps within half the median of it, as
  # for other scattered stamps.
  gaps <- diff(unique(round(cumsum(withr::with_seed(1, stats::rexp(2000, 1 / 50))))))
  expect_true(all(gaps == round(gaps)))
  expect_gt(mean(gaps == 1), 0.01)
  expect_identical(names(which.max(table(gaps))), "3")
  centre <- mean(gaps[abs(gaps - median(gaps)) < median(gaps) / 2])
  found <- ncam:::step_of_gaps(gaps)
  expect_identical(found$kind, "irregular")
  expect_equal(found$step, centre)
})

test_that("gaps of 23 and 25 hours in turn are not whole days: a 24-hour step, not 23", {
  # By hand: the gaps wander around one day (mean 86400 s), none of them a whole day.
  found <- ncam:::step_of_gaps(rep(c(23, 25), 20) * 3600)
  expect_identical(found$step, 86400)
  expect_identical(found$centre, mean(rep(c(23, 25), 20) * 3600))
})
