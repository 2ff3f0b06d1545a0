# Readings that share a step of their unit's time step (a record a second late, a logger
# restart) count once, at their mean, in the 1-hour and 24-hour means.

# Ten days of hourly values without the hours in `dropped`, plus a second reading (5 higher) a
# second after each day's 12:00.
hourly_with_extras <- function(dropped, lag = 1, seed = 12) {
  set.seed(seed)
  t <- seq(as.POSIXct("2024-01-01", tz = "UTC"), by = "hour", length.out = 240)
  ref <- 10 + 10 * sin(seq_along(t) / 7) + runif(240)
  d <- data.frame(date = t, pm = 1.2 * ref + rnorm(240), ref = ref)
  d <- d[!(as.numeric(format(d$date, "%H")) %in% dropped), ]
  extra <- d[format(d$date, "%H") == "12", ]
  extra$date <- extra$date + lag
  extra$pm <- extra$pm + 5
  d <- rbind(d, extra)
  d[order(d$date), ]
}

test_that("a second reading within an hour neither fills a missing hour nor weighs twice", {
  # 17 hours a day plus one extra reading: 18 rows, but 17 of 24 hours, below 75 %.
  short <- hourly_with_extras(0:6)
  few <- "ncam_warning_few_pairs"
  expect_warning(res <- suppressWarnings(suppressMessages(
    sensor_performance(short, "pm", "ref", averaging = "24h")
  ), classes = few),
                 "10 steps of 1 hour hold two or more readings", class = "ncam_warning_crowded_periods")
  expect_identical(res$n, 0L)
  out <- suppressWarnings(average_estimates(transform(short, .pred = pm), "24h"))
  expect_true(all(is.na(out$.pred)))
  expect_identical(out$.n_estimates, rep(18L, 10))   # rows with an estimate
  # 19 hours a day plus the extra: complete; by hand, one mean per hour, then per day.
  full <- hourly_with_extras(0:4, lag = 1800)
  hour <- format(full$date, "%Y-%m-%d %H")
  hourly <- data.frame(pm = as.vector(tapply(full$pm, hour, mean)),
                       ref = as.vector(tapply(full$ref, hour, mean)),
                       day = substr(sort(unique(hour)), 1, 10))
  daily <- data.frame(pm = as.vector(tapply(hourly$pm, hourly$day, mean)),
                      ref = as.vector(tapply(hourly$ref, hourly$day, mean)))
  res <- suppressWarnings(sensor_performance(full, "pm", "ref", averaging = c("1h", "24h"),
                                             pollutant = "o3", units = "ppb"))
  by_hour <- res[res$averaging == "1h", ]
  expect_identical(by_hour$n, 190L)
  expect_equal(by_hour$mbe, mean(hourly$pm - hourly$ref))
  by_day <- res[res$averaging == "24h", ]
  expect_identical(by_day$n, 10L)
  expect_equal(by_day$slope, unname(stats::coef(stats::lm(pm ~ ref, daily))[2]))
  expect_equal(by_day$mbe, mean(daily$pm - daily$ref))
  out <- suppressWarnings(average_estimates(transform(full, .pred = pm), "24h", columns = "ref"))
  expect_equal(out$.pred, daily$pm)
  expect_equal(out$ref, daily$ref)
})

test_that("hourly data with a crowded hour keep a 1-hour block beside the rows as given", {
  d <- hourly_with_extras(0:4)
  caught <- caught_warnings(said <- testthat::capture_messages(
    res <- sensor_performance(d, "pm", "ref", pollutant = "o3", units = "ppb")
  ))
  expect_identical(unique(vapply(caught, function(w) class(w)[1], "")), "ncam_warning_crowded_periods")
  expect_match(conditionMessage(caught[[1]]), "The rows as given keep every reading")
  expect_match(conditionMessage(caught[[1]]), "2024-01-01 12:00:00, 12:00:01 UTC")
  expect_false(any(grepl("one value per hour already", said)))
  expect_identical(res$averaging, c("as_given", "1h"))
  expect_identical(res$n, c(200L, 190L))
  # Without extras the 1-hour block would repeat the rows as given: left out, as before.
  plain <- d[format(d$date, "%S") == "00", ]
  expect_message(res <- sensor_performance(plain, "pm", "ref", pollutant = "o3", units = "ppb"),
                 "one value per hour already")
  expect_identical(res$averaging, "as_given")
})

test_that("a 1-minute hour counts its distinct minutes, and stamps a fraction of a second off are no extras", {
  start <- as.POSIXct("2024-07-01", tz = "UTC")
  minutes <- start + 60 * (0:119)
  # Hour 1 keeps 44 of its 60 minutes (73 %), one of them read twice; hour 2 all 60.
  kept <- c(seq_len(44), 61:120)
  d <- data.frame(date = minutes[kept], est = 2, ref = 1)
  twice <- d[10, ]
  twice$date <- twice$date + 1
  twice$est <- 4
  d <- rbind(d, twice)
  expect_warning(out <- average_estimates(transform(d, .pred = est), "1h"),
                 "1 step of 1 minute holds two", class = "ncam_warning_crowded_periods")
  expect_identical(is.na(out$.pred), c(TRUE, FALSE))
  # With 45 minutes the hour is complete, the minute read twice counting once: by hand, the
  # mean of 44 minutes at 2 and one at (2 + 4) / 2.
  d <- rbind(d, data.frame(date = minutes[45], est = 2, ref = 1))
  out <- suppressWarnings(average_estimates(transform(d, .pred = est), "1h"))
  expect_equal(out$.pred[1], (44 * 2 + 3) / 45)
  # Stamps up to 0.3 s either side of the minute are one reading each: every hour holds all
  # its 60 minutes, complete even at completeness = 1 (a minute's span from :00 would hold
  # two stamps now and then, and leave the next one empty).
  wobble <- withr::with_seed(3, stats::runif(120, -0.3, 0.3))
  wobble[c(1, 61)] <- 0.1
  d <- data.frame(date = minutes + wobble, est = 2, ref = 1, .pred = 2)
  second <- as.numeric(d$date) %% 60
  expect_true(any(second > 59.5) && any(second < 0.5))
  expect_no_warning(out <- average_estimates(d, "1h", completeness = 1))
  expect_identical(out$.n_estimates, c(60L, 60L))
  expect_equal(out$.pred, c(2, 2))
})

test_that("daily data with two rows on one day give one mean per day in the 24-hour block", {
  days <- as.POSIXct("2024-03-01", tz = "UTC") + 86400 * (0:9)
  d <- data.frame(date = days, est = 1:10 + 0.5, ref = 1:10)
  extra <- data.frame(date = days[4] + 3600, est = 20, ref = 4)
  d <- rbind(d, extra)
  expect_warning(
    said <- testthat::capture_messages(res <- sensor_performance(d, "est", "ref")),
    "1 step of 24 hours holds two", class = "ncam_warning_crowded_periods"
  )
  expect_match(paste(said, collapse = ""), "24-hour block holds one mean per day")
  expect_identical(res$averaging, c("as_given", "24h"))
  expect_identical(res$n, c(11L, 10L))
  est_day <- c(1:10 + 0.5)
  est_day[4] <- (4.5 + 20) / 2
  expect_equal(res$mbe[2], mean(est_day - 1:10))
})

test_that("two units: a glitch record in one unit's hour leaves one mean per hour", {
  set.seed(13)
  t <- seq(as.POSIXct("2024-06-01", tz = "UTC"), by = "hour", length.out = 48)
  ref <- 30 + 20 * sin(seq_along(t) * 2 * pi / 24)
  a <- data.frame(date = t, u = "a", ref = ref, o3 = ref + rnorm(48))
  b <- data.frame(date = t, u = "b", ref = ref, o3 = ref + rnorm(48))
  glitch <- a[c(5, 30), ]
  glitch$date <- glitch$date + 1
  glitch$o3 <- glitch$o3 + 10
  d <- rbind(a, glitch, b)
  expect_warning(res <- sensor_performance(d, "o3", "ref", unit = "u", pollutant = "o3", units = "ppb",
                                           averaging = "1h"),
                 "unit \"a\": 2 steps of 1 hour hold", class = "ncam_warning_crowded_periods")
  expect_identical(res$n, c(48L, 48L, 96L))
  hourly_a <- a$o3
  hourly_a[c(5, 30)] <- (a$o3[c(5, 30)] + glitch$o3) / 2
  expect_equal(res$mbe[1], mean(hourly_a - ref))
  # By hand: EPA's inter-unit SD over the 48 hours both units report.
  means <- cbind(hourly_a, b$o3)
  expect_equal(res$sd[3], sqrt(sum(sweep(means, 1, rowMeans(means))^2) / (48 * 2 - 1)))
})
