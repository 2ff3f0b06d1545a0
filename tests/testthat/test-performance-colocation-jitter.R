# Co-location of units whose time stamps wander around their step: their references compared
# at the stamps' nominal times, so that units beside one reference are co-located and units at
# different sites are not. Figures checked against means written here with tapply().

quiet <- function(...) suppressMessages(sensor_performance(...))

# EPA's inter-unit SD of a matrix of estimates (times x units), every cell present.
epa_sd <- function(x) sqrt(sum(sweep(x, 1, rowMeans(x))^2) / (length(x) - 1))

# Hourly PM2.5 of units beside one reference: each unit's stamps, from `start`, wander by up to
# `jitter` seconds, independently of the other units'. `ref` per unit (a list) gives each its
# own reference; the value of hour k is the reference of hour k, as a join on the nominal time
# gives it. `slot`: the nominal time of each reading.
jittered_hours <- function(ref, start = as.POSIXct("2024-03-01", tz = "UTC"), jitter = 300,
                           offset = 0) {
  slots <- start + offset + 3600 * (seq_along(ref[[1]]) - 1)
  do.call(rbind, lapply(seq_along(ref), function(i) {
    data.frame(date = slots + stats::runif(length(slots), -jitter, jitter), slot = slots,
               unit = letters[i], ref = ref[[i]],
               pm = (1 + i / 10) * ref[[i]] + stats::rnorm(length(slots)))
  }))
}

# Daily means of `col` per unit and local day of the readings' nominal times (days x units): a
# reading stamped 23:57 for 00:00 is of the next day. NA for a day with fewer than 18 of its 24
# hours (completeness 0.75).
daily <- function(x, col, tz = "UTC") {
  day <- format(x$slot, "%Y-%m-%d", tz = tz)
  tapply(x[[col]], list(day, x$unit), function(v) if (length(v) >= 18L) mean(v) else NA)
}

test_that("hourly units stamped +-5 minutes apart beside one reference are co-located by the day", {
  withr::local_seed(11)
  ref <- 12 + 6 * sin(seq_len(24 * 14) / 8) + stats::rexp(24 * 14, 0.3)
  x <- jittered_hours(list(ref, ref, ref))
  res <- quiet(x, "pm", "ref", unit = "unit", averaging = "24h")
  all_row <- res[res$unit == "all", ]
  est <- daily(x, "pm")
  ref_days <- daily(x, "ref")
  # Some stamps lie in the day before their nominal hour's, yet each unit's day holds the same
  # 24 nominal hours: the units' daily reference means agree.
  expect_true(any(format(x$date, "%d") != format(x$slot, "%d")))
  expect_equal(max(apply(ref_days, 1, function(r) diff(range(r))), na.rm = TRUE), 0)
  common <- stats::complete.cases(est)
  expect_identical(all_row$n_precision, sum(common))
  expect_equal(all_row$sd, epa_sd(est[common, ]))
  expect_equal(all_row$cv, 100 * epa_sd(est[common, ]) / mean(est[common, ]))
  expect_equal(all_row$rmse, sqrt(mean((est[common, ] - ref_days[common, ])^2)))
  expect_equal(all_row$mbe, mean(est[common, ] - ref_days[common, ]))
  expect_no_match(all_row$note, "co-located")
})

test_that("jittered hourly units at different sites are not co-located by the day", {
  withr::local_seed(12)
  hours <- seq_len(24 * 14)
  base <- 12 + 6 * sin(hours / 8)
  sites <- list(base + stats::rexp(length(hours), 0.3), base + 1 + stats::rexp(length(hours), 0.3),
                base - 1 + stats::rexp(length(hours), 0.3))
  x <- jittered_hours(sites)
  res <- quiet(x, "pm", "ref", unit = "unit", averaging = "24h")
  all_row <- res[res$unit == "all", ]
  expect_true(is.na(all_row$sd))
  expect_true(is.na(all_row$cv))
  expect_match(all_row$note, paste("units not co-located: their references differ at 14 of 14",
                                   "shared days on the nominal time grid"), fixed = TRUE)
  # The pairs of every unit pooled.
  errors <- daily(x, "pm") - daily(x, "ref")
  expect_equal(all_row$rmse, sqrt(mean(errors^2, na.rm = TRUE)))
})

test_that("a jittered unit at another site lacking an hour every day is not co-located", {
  withr::local_seed(16)
  ref <- 12 + 6 * sin(seq_len(24 * 7) / 8) + stats::rexp(24 * 7, 0.3)
  x <- jittered_hours(list(ref, ref, ref + 2))
  # Unit c lacks its 12:00 record every day (rows in order of time): no day of its has a
  # complete reference, so the days compare only units a and b, whose references agree; c is
  # compared at the nominal hours it shares with them, 161 of whose 168 it holds.
  x <- x[-which(x$unit == "c")[seq(13, 24 * 7, by = 24)], ]
  res <- quiet(x, "pm", "ref", unit = "unit", averaging = "24h")
  all_row <- res[res$unit == "all", ]
  expect_true(is.na(all_row$sd))
  expect_match(all_row$note, "units not co-located: their references differ at 161 of 168 shared times on the nominal time grid (by up to 2)", fixed = TRUE)
})

test_that("jittered hourly O3 units share their nominal hours in the 1-hour block", {
  withr::local_seed(13)
  ref <- 30 + 10 * sin(seq_len(24 * 7) / 5) + stats::rexp(24 * 7)
  x <- jittered_hours(list(ref, ref, ref))
  res <- quiet(x, "pm", "ref", unit = "unit", pollutant = "o3", units = "ppb", averaging = "1h")
  all_row <- res[res$unit == "all", ]
  # One row per unit and hour, in order: the units' estimates side by side.
  est <- matrix(x$pm, ncol = 3)
  expect_identical(all_row$n_precision, nrow(est))
  expect_equal(all_row$sd, epa_sd(est))
  expect_equal(all_row$rmse, sqrt(mean((est - ref)^2)))
  expect_no_match(all_row$note, "co-located")
  # A unit beside a reference 2 ppb higher is at another site.
  x$ref[x$unit == "b"] <- x$ref[x$unit == "b"] + 2
  res <- quiet(x, "pm", "ref", unit = "unit", pollutant = "o3", units = "ppb", averaging = "1h")
  all_row <- res[res$unit == "all", ]
  expect_true(is.na(all_row$sd))
  expect_match(all_row$note, paste("references differ at 168 of 168 shared hours on the nominal",
                                   "time grid (by up to 2)"), fixed = TRUE)
})

test_that("jittered units on the hour and the half hour of Indian time are co-located by day", {
  withr::local_seed(14)
  start <- as.POSIXct("2024-03-01", tz = "Asia/Kolkata")
  ref <- 40 + 15 * sin(seq_len(24 * 10) / 6) + stats::rexp(24 * 10, 0.2)
  # Unit b's value of a half hour is that of the hour it starts; each day holds the same hours.
  x <- rbind(jittered_hours(list(ref), start),
             transform(jittered_hours(list(ref), start, offset = 1800), unit = "b"))
  res <- quiet(x, "pm", "ref", unit = "unit", averaging = "24h")
  all_row <- res[res$unit == "all", ]
  est <- daily(x, "pm", "Asia/Kolkata")
  common <- stats::complete.cases(est)
  expect_identical(all_row$n_precision, sum(common))
  expect_equal(all_row$sd, epa_sd(est[common, ]))
  expect_no_match(all_row$note, "co-located")
})

test_that("1-minute units jittered by +-10 s beside one reference are co-located by hour and day", {
  withr::local_seed(15)
  minutes <- as.POSIXct("2024-07-01", tz = "UTC") + 60 * (0:(60 * 24 * 3 - 1))
  ref <- 30 + 10 * sin(seq_along(minutes) / 300) + stats::rnorm(length(minutes))
  x <- do.call(rbind, lapply(c("a", "b"), function(u) {
    data.frame(date = minutes + stats::runif(length(minutes), -10, 10), unit = u, ref = ref,
               o3 = ref + stats::rnorm(length(ref)))
  }))
  res <- quiet(x, "o3", "ref", unit = "unit", pollutant = "o3", units = "ppb", averaging = c("1h", "24h"))
  hour <- format(x$date, "%Y-%m-%d %H", tz = "UTC")
  # Hours of 45 or more stamps (of 60) count; a stamp jittered out of the three days makes an
  # hour of its own, which does not.
  est <- tapply(x$o3, list(hour, x$unit), function(v) if (length(v) >= 45L) mean(v) else NA)
  est <- est[stats::complete.cases(est), ]
  expect_identical(nrow(est), 72L)
  one_h <- res[res$averaging == "1h" & res$unit == "all", ]
  expect_identical(one_h$n_precision, nrow(est))
  expect_equal(one_h$sd, epa_sd(est))
  day <- substr(rownames(est), 1, 10)
  est_days <- apply(est, 2, function(v) tapply(v, day, mean))
  one_d <- res[res$averaging == "24h" & res$unit == "all", ]
  expect_equal(one_d$sd, epa_sd(est_days))
  expect_no_match(paste(one_h$note, one_d$note), "co-located")
})

test_that("daily units jittered around Brussels midnight share their days across a clock change", {
  # Brussels midnights are 22:00 UTC in summer and 23:00 UTC in winter. Unit a reads from
  # September to November, across the October change, unit b from November to January: on the
  # local clock both are read at midnight and share November's 30 days.
  tz <- "Europe/Brussels"
  daily_unit <- function(name, from, n, seed) {
    days <- seq(as.Date(from), by = "day", length.out = n)
    ref <- 10 + 5 * sin(as.numeric(days) / 9)
    data.frame(date = as.POSIXct(format(days), tz = tz) +
                 withr::with_seed(seed, stats::runif(n, -300, 300)),
               unit = name, day = days, ref = ref, pm = ref + seed / 2)
  }
  x <- rbind(daily_unit("a", "2024-09-01", 91, 1), daily_unit("b", "2024-11-01", 92, 2))
  res <- quiet(x[c("date", "unit", "ref", "pm")], "pm", "ref", unit = "unit", averaging = "24h")
  all_row <- res[res$unit == "all", ]
  shared <- x$day[x$unit == "a" & x$day %in% x$day[x$unit == "b"]]
  expect_length(shared, 30L)
  est <- sapply(c("a", "b"), function(u) x$pm[x$unit == u][match(shared, x$day[x$unit == u])])
  expect_identical(all_row$n_precision, 30L)
  expect_equal(all_row$sd, epa_sd(est))
  expect_no_match(all_row$note, "co-located|share no day")
})
