# sensor_performance(averaging = "1h"): 1-hour means of sub-hourly data, on which the O3
# targets are judged. Numbers are checked against hourly means computed here with tapply() and
# aggregate() on clock hours written out with format(), and against lm(), never against the
# function's own earlier output.

# The mean of `x` when at least `need` of its values are present, else NA.
mean_if <- function(x, need) if (sum(!is.na(x)) >= need) mean(x, na.rm = TRUE) else NA_real_

# Pairs of hourly means of est and ref per clock hour `key` (each column on its own), complete.
hand_hourly <- function(est, ref, key, need) {
  out <- data.frame(est = tapply(est, key, mean_if, need), ref = tapply(ref, key, mean_if, need))
  out[stats::complete.cases(out), ]
}

quiet_performance <- function(...) suppressMessages(sensor_performance(...))

one_minute_ozone <- function(hours = 30, seed = 1) {
  minutes <- seq(as.POSIXct("2024-07-01", tz = "UTC"), by = "min", length.out = 60 * hours)
  withr::with_seed(seed, {
    ref <- 40 + 15 * sin(seq_along(minutes) / 200) + stats::rnorm(length(minutes), sd = 2)
    est <- 1.1 * ref - 2 + stats::rnorm(length(minutes), sd = 3)
  })
  data.frame(date = minutes, ref = ref, est = est)
}

test_that("1-minute O3 data are judged on 1-hour means by default", {
  obs <- one_minute_ozone()
  hour <- format(obs$date, "%Y-%m-%d %H", tz = "UTC")
  minute <- as.integer(format(obs$date, "%M", tz = "UTC"))
  # Hour 3 keeps 44 of 60 estimates (73 %, below 0.75): it does not count. Hour 5 keeps 45
  # (75 %): it counts. Hour 8 keeps 30 of 60 references: no pair, although every estimate is there.
  obs$est[hour == "2024-07-01 03" & minute < 16] <- NA
  obs$est[hour == "2024-07-01 05" & minute >= 45] <- NA
  obs$ref[hour == "2024-07-01 08" & minute %% 2 == 0] <- NA
  # One missing minute elsewhere only drops that minute from its hour's mean.
  obs$est[hour == "2024-07-02 02" & minute == 17] <- NA
  res <- quiet_performance(obs, "est", "ref", pollutant = "o3", units = "ppb")
  expect_identical(res$averaging, c("as_given", "1h"))
  expect_identical(res$time_step, c("1 minute", "1 hour"))
  hourly <- hand_hourly(obs$est, obs$ref, hour, 45)
  expect_equal(nrow(hourly), 28L) # 30 hours less hours 3 and 8
  expect_false(any(c("2024-07-01 03", "2024-07-01 08") %in% rownames(hourly)))
  one_h <- res[res$averaging == "1h", ]
  fit <- stats::lm(est ~ ref, hourly)
  expect_identical(one_h$n, 28L)
  expect_equal(one_h$slope, unname(stats::coef(fit)[2]))
  expect_equal(one_h$intercept, unname(stats::coef(fit)[1]))
  expect_equal(one_h$r2, summary(fit)$r.squared)
  expect_equal(one_h$rmse, sqrt(mean((hourly$est - hourly$ref)^2)))
  expect_equal(one_h$mbe, mean(hourly$est - hourly$ref))
  # The same hourly means with aggregate(), a different route to them.
  counted <- aggregate(cbind(est = !is.na(obs$est), ref = !is.na(obs$ref)), list(hour = hour), sum)
  sums <- aggregate(cbind(est = obs$est, ref = obs$ref), list(hour = hour), sum, na.rm = TRUE)
  keep <- counted$est >= 45 & counted$ref >= 45
  expect_equal(one_h$mbe, mean(sums$est[keep] / counted$est[keep] - sums$ref[keep] / counted$ref[keep]))
  # O3 targets are judged on the 1-hour rows: slope 0.8-1.2, intercept -5 to 5, RMSE <= 5 ppb.
  slope <- unname(stats::coef(fit)[2])
  expect_identical(one_h$pass_slope, slope >= 0.8 && slope <= 1.2)
  expect_identical(one_h$pass_r2, summary(fit)$r.squared >= 0.8)
  expect_identical(one_h$pass_error, sqrt(mean((hourly$est - hourly$ref)^2)) <= 5)
  expect_false(anyNA(one_h[c("pass_r2", "pass_slope", "pass_intercept", "pass_error")]))
  # ... and not on the 1-minute rows.
  expect_true(all(is.na(unlist(res[1, c("pass_r2", "pass_slope", "pass_intercept", "pass_error")]))))
  # completeness = 0.7 lets hour 3 (44 of 60) count as well.
  loose <- quiet_performance(obs, "est", "ref", pollutant = "o3", units = "ppb", averaging = "1h",
                              completeness = 0.7)
  expect_identical(loose$n, 29L)
  expect_equal(loose$mbe, with(hand_hourly(obs$est, obs$ref, hour, 42), mean(est - ref)))
})

test_that("the default averaging is 1 hour for O3 and 24 hours for PM2.5", {
  obs <- one_minute_ozone(hours = 72)
  o3 <- sensor_performance(obs, "est", "ref", pollutant = "o3", units = "ppb")
  expect_identical(o3$averaging, c("as_given", "1h"))
  expect_identical(sensor_performance(obs, "est", "ref", pollutant = "o3", units = "ppb", averaging = NULL), o3)
  expect_identical(sensor_performance(obs, "est", "ref", pollutant = "o3", units = "ppb",
                                      averaging = c("as_given", "1h")), o3)
  pm <- sensor_performance(obs, "est", "ref")
  expect_identical(pm$averaging, c("as_given", "24h"))
  expect_identical(pm$time_step, c("1 minute", "24 hours"))
  expect_identical(sensor_performance(obs, "est", "ref", averaging = c("as_given", "24h")), pm)
  # PM2.5 targets are set on 24-hour values: "1h" rows are given but not judged.
  pm_hourly <- sensor_performance(obs, "est", "ref", averaging = "1h")
  expect_identical(pm_hourly$time_step, "1 hour")
  expect_equal(pm_hourly[c("n", "slope", "rmse")], o3[2, c("n", "slope", "rmse")])
  expect_true(all(is.na(unlist(pm_hourly[grep("^pass_", names(pm_hourly))]))))
  # Rows come in the order the averagings are given.
  all3 <- sensor_performance(obs, "est", "ref", pollutant = "o3", units = "ppb",
                             averaging = c("24h", "1h", "as_given"))
  expect_identical(all3$averaging, c("24h", "1h", "as_given"))
  expect_identical(all3$time_step, c("24 hours", "1 hour", "1 minute"))
  expect_equal(all3[2, -(1:3)], o3[2, -(1:3)])
  expect_equal(all3[3, -(1:3)], o3[1, -(1:3)])
  # O3 targets apply to the 1-hour row only.
  expect_false(is.na(all3$pass_slope[2]))
  expect_true(is.na(all3$pass_slope[1]) && is.na(all3$pass_slope[3]))
  expect_error(sensor_performance(obs, "est", "ref", averaging = c("1h", "1h")), "averaging")
  expect_error(sensor_performance(obs, "est", "ref", averaging = "8h"),
               "\"as_given\", \"1h\" and \"24h\"", class = "rlang_error")
})

test_that("1-hour means follow the local clock on a daylight-saving change", {
  # Berlin, 31 October 2021: 03:00 CEST becomes 02:00 CET, so 02:00 comes twice; 10-minute data.
  tz <- "Europe/Berlin"
  t10 <- seq(as.POSIXct("2021-10-30 12:00", tz = tz), as.POSIXct("2021-10-31 11:50", tz = tz),
             by = "10 min")
  obs <- data.frame(date = t10, ref = 20 + seq_along(t10) %% 13)
  obs$est <- 0.9 * obs$ref + 3 + seq_along(t10) %% 5
  key <- format(t10, "%Y-%m-%d %H %Z", tz = tz)
  expect_length(unique(key), 25L) # 24 clock hours, one of them twice
  # 02:00 CEST keeps 4 of its 6 records (67 %): dropped; 02:00 CET keeps all 6.
  obs$est[which(key == "2021-10-31 02 CEST")[1:2]] <- NA
  res <- quiet_performance(obs, "est", "ref", pollutant = "o3", units = "ppb", averaging = "1h")
  hourly <- hand_hourly(obs$est, obs$ref, key, 4.5)
  expect_identical(res$n, 24L)
  expect_true("2021-10-31 02 CET" %in% rownames(hourly))
  expect_equal(res$mbe, mean(hourly$est - hourly$ref))
  expect_equal(res$slope, unname(stats::coef(stats::lm(est ~ ref, hourly))[2]))

  # New York, 10 March 2024: 02:00 EST becomes 03:00 EDT, a day of 23 hours; 1-minute data.
  tz <- "America/New_York"
  m <- seq(as.POSIXct("2024-03-10", tz = tz), as.POSIXct("2024-03-10 23:59", tz = tz), by = "min")
  obs <- data.frame(date = m, ref = 30 + seq_along(m) %% 37)
  obs$est <- obs$ref + 2 + seq_along(m) %% 3
  key <- format(m, "%H", tz = tz)
  expect_length(unique(key), 23L)
  obs$ref[key == "05"][1:20] <- NA # 40 of 60 references: hour 05 has no pair
  res <- quiet_performance(obs, "est", "ref", pollutant = "o3", units = "ppb", averaging = "1h")
  hourly <- hand_hourly(obs$est, obs$ref, key, 45)
  expect_identical(res$n, 22L)
  expect_equal(res$rmse, sqrt(mean((hourly$est - hourly$ref)^2)))
})

test_that("a period holding exactly its completeness share of records counts", {
  # Berlin, 27 October 2024: 25 hours (02:00 twice). 14 of them are 0.56 of 25 exactly, which
  # in floating point is 14.000000000000002: the day must count; with 13 hours it must not.
  tz <- "Europe/Berlin"
  hours <- seq(as.POSIXct("2024-10-25", tz = tz), as.POSIXct("2024-10-28 23:00", tz = tz),
               by = "hour")
  day <- format(hours, "%Y-%m-%d", tz = tz)
  expect_identical(as.vector(table(day)), c(24L, 24L, 25L, 24L))
  obs <- data.frame(date = hours, ref = 10 + seq_along(hours) %% 7)
  obs$est <- 1.2 * obs$ref + seq_along(hours) %% 3
  day_means <- function(d) {
    key <- format(d$date, "%Y-%m-%d", tz = tz)
    data.frame(est = as.vector(tapply(d$est, key, mean)), ref = as.vector(tapply(d$ref, key, mean)))
  }
  fourteen <- obs[day != "2024-10-27" | cumsum(day == "2024-10-27") <= 14, ]
  res <- quiet_performance(fourteen, "est", "ref", averaging = "24h", completeness = 0.56)
  daily <- day_means(fourteen)
  expect_identical(res$n, 4L)
  expect_equal(res$mbe, mean(daily$est - daily$ref))
  thirteen <- obs[day != "2024-10-27" | cumsum(day == "2024-10-27") <= 13, ]
  res <- quiet_performance(thirteen, "est", "ref", averaging = "24h", completeness = 0.56)
  daily <- day_means(thirteen)[-3, ]
  expect_identical(res$n, 3L)
  expect_equal(res$mbe, mean(daily$est - daily$ref))
  # 5-second data: 396 of an hour's 720 records are 0.55 of it exactly (0.55 * 720 is
  # 396.00000000000006 in floating point); the second hour keeps its first 396.
  secs <- as.POSIXct("2024-07-01", tz = "UTC") + 5 * (0:(4 * 720 - 1))
  obs <- data.frame(date = secs, ref = 30 + seq_along(secs) %% 11)
  obs$est <- obs$ref + 1 + seq_along(secs) %% 4
  hour <- format(secs, "%H", tz = "UTC")
  for (kept in c(396, 395)) {
    d <- obs[hour != "01" | cumsum(hour == "01") <= kept, ]
    res <- quiet_performance(d, "est", "ref", pollutant = "o3", units = "ppb", averaging = "1h",
                             completeness = 0.55)
    hourly <- hand_hourly(d$est, d$ref, format(d$date, "%H", tz = "UTC"), 396)
    expect_identical(res$n, if (kept == 396) 4L else 3L)
    expect_equal(res$mbe, mean(hourly$est - hourly$ref))
  }
})

test_that("a unit at 7-minute steps beside a 1-minute one has no 1-hour means", {
  a <- one_minute_ozone(hours = 12)
  a$unit <- "a"
  c7 <- data.frame(date = a$date[1] + 420 * (0:100), unit = "c7")
  c7$ref <- 30 + (0:100) %% 9
  c7$est <- c7$ref + (0:100) %% 2
  obs <- rbind(a, c7)
  expect_warning(res <- sensor_performance(obs, "est", "ref", unit = "unit", pollutant = "o3", units = "ppb"),
                 "unit \"c7\" \\(7 minutes\\) does not divide an hour")
  expect_identical(res$unit, c("a", "c7", "all", "a", "c7", "all"))
  expect_identical(res$averaging, rep(c("as_given", "1h"), each = 3))
  expect_identical(res$time_step, c("1 minute", "7 minutes", "mixed", rep("1 hour", 3)))
  one_h <- res[res$averaging == "1h", ]
  expect_identical(one_h$n[2], 0L)
  expect_true(all(is.na(unlist(one_h[2, c("r2", "slope", "rmse", "pass_slope")]))))
  expect_identical(one_h$note[2], "time step 7 minutes does not divide an hour: no 1-hour means")
  # Unit a by hand; the "all" row is over unit a alone and says c7 was left out.
  hourly <- hand_hourly(a$est, a$ref, format(a$date, "%Y-%m-%d %H", tz = "UTC"), 45)
  expect_identical(one_h$n[c(1, 3)], c(12L, 12L))
  expect_equal(one_h$slope[c(1, 3)], rep(unname(stats::coef(stats::lm(est ~ ref, hourly))[2]), 2))
  expect_equal(one_h$rmse[3], sqrt(mean((hourly$est - hourly$ref)^2)))
  expect_match(one_h$note[3], "unit c7 left out: time step does not divide an hour")
  # As given, c7 is judged as usual.
  expect_equal(res$mbe[2], mean(c7$est - c7$ref))
  # "1h" alone when no unit fits is an error naming the argument; 2-hour data do not fit either.
  expect_error(sensor_performance(c7, "est", "ref", unit = "unit", pollutant = "o3", units = "ppb",
                                  averaging = "1h"),
               "`averaging` \"1h\" needs a time step that divides an hour.*unit \"c7\" is 7 minutes",
               class = "rlang_error")
  two_hourly <- data.frame(date = a$date[1] + 7200 * (0:29), ref = 1:30, est = 2:31)
  expect_error(sensor_performance(two_hourly, "est", "ref", pollutant = "o3", units = "ppb", averaging = "1h"),
               "`averaging` \"1h\".*data is 2 hours", class = "rlang_error")
  # Every unit coarser than an hour, with "as_given": the rows as given alone, with a message
  # (as daily data drop the 24-hour block), not a warning about the defaults.
  expect_no_warning(expect_message(res <- sensor_performance(two_hourly, "est", "ref", pollutant = "o3", units = "ppb"),
                                   "more than one hour apart \\(2 hours\\).*no 1-hour block"))
  expect_identical(res$averaging, "as_given")
  expect_identical(res$n, 30L)
  daily <- data.frame(date = as.Date("2024-01-01") + 0:9, ref = 1:10, est = 2:11)
  expect_no_warning(expect_message(res <- sensor_performance(daily, "est", "ref", pollutant = "o3", units = "ppb"),
                                   "more than one hour apart \\(24 hours\\)"))
  expect_identical(res$n, 10L)
  # Beside a unit that can be averaged, a 2-hour unit gets its NA "1h" row, a note and a warning.
  mixed <- rbind(cbind(unit = "two", two_hourly),
                 data.frame(unit = "fine", date = a$date[1] + 600 * (0:59), ref = 1, est = 1.5))
  expect_warning(res <- sensor_performance(mixed, "est", "ref", unit = "unit", pollutant = "o3", units = "ppb"),
                 "does not divide an hour")
  two_1h <- res[res$averaging == "1h" & res$unit == "two", ]
  expect_identical(two_1h$n, 0L)
  expect_identical(two_1h$note, "time step 2 hours does not divide an hour: no 1-hour means")
})

test_that("hourly data asked for as given and at 1 hour give the as-given rows once", {
  hours <- seq(as.POSIXct("2024-01-01", tz = "UTC"), by = "hour", length.out = 72)
  obs <- data.frame(date = rep(hours, 2), unit = rep(c("a", "b"), each = 72),
                    ref = rep(30 + 10 * sin(seq_along(hours) / 6), 2))
  obs$est <- obs$ref * rep(c(1.05, 0.95), each = 72) + rep(c(1, -1), 72)
  given <- sensor_performance(obs, "est", "ref", unit = "unit", pollutant = "o3", units = "ppb",
                              averaging = "as_given")
  expect_message(both <- sensor_performance(obs, "est", "ref", unit = "unit", pollutant = "o3", units = "ppb"),
                 "one value per hour already: they are judged as given, with no separate 1-hour")
  expect_identical(both, given)
  expect_message(sensor_performance(obs, "est", "ref", unit = "unit", pollutant = "o3", units = "ppb",
                                    averaging = c("1h", "as_given")), "no separate 1-hour")
  # Asked for alone, the 1-hour block holds the hourly rows as they stand.
  expect_message(alone <- sensor_performance(obs, "est", "ref", unit = "unit", pollutant = "o3", units = "ppb",
                                             averaging = "1h"),
                 "1-hour block holds them as given")
  expect_identical(alone$averaging, rep("1h", 3))
  expect_equal(alone[-2], given[-2])
  fit_a <- stats::lm(est ~ ref, obs[obs$unit == "a", ])
  expect_equal(alone$slope[1], unname(stats::coef(fit_a)[2]))
  expect_true(alone$pass_slope[1])
  # With "24h" besides, the 24-hour block stays.
  three <- suppressMessages(sensor_performance(obs, "est", "ref", unit = "unit", pollutant = "o3", units = "ppb",
                                               averaging = c("as_given", "1h", "24h")))
  expect_identical(unique(three$averaging), c("as_given", "24h"))
})

test_that("co-located units' 1-hour means share their hours for the inter-unit precision", {
  # Two 1-minute units beside one reference; unit b has no rows for the first minutes of each
  # hour, so its hourly means must still be timed at the start of the hour to meet unit a's.
  obs <- one_minute_ozone(hours = 10, seed = 4)
  b <- obs
  b$est <- 0.95 * obs$ref + 1 + withr::with_seed(5, stats::rnorm(nrow(obs), sd = 2))
  minute <- as.integer(format(obs$date, "%M", tz = "UTC"))
  key <- format(obs$date, "%H", tz = "UTC")
  b <- b[minute >= 5 & !(key == "04" & minute < 20), ] # 55 of 60 minutes; hour 04 40: dropped
  x <- rbind(transform(obs, unit = "a"), transform(b, unit = "b"))
  res <- quiet_performance(x, "est", "ref", unit = "unit", pollutant = "o3", units = "ppb", averaging = "1h")
  est_a <- tapply(obs$est, key, mean_if, 45)
  est_b <- tapply(b$est, format(b$date, "%H", tz = "UTC"), mean_if, 45)
  # Each unit's hourly reference is the mean of its own rows' references.
  ref_a <- tapply(obs$ref, key, mean_if, 45)
  ref_b <- tapply(b$ref, format(b$date, "%H", tz = "UTC"), mean_if, 45)
  both <- !is.na(est_a) & !is.na(est_b)
  expect_identical(sum(both), 9L)
  means <- cbind(est_a, est_b)[both, ]
  sd_hand <- sqrt(sum(sweep(means, 1, rowMeans(means))^2) / (9 * 2 - 1))
  all_row <- res[res$unit == "all", ]
  expect_identical(all_row$n_precision, 9L)
  expect_equal(all_row$sd, sd_hand)
  expect_equal(all_row$cv, 100 * sd_hand / mean(means))
  # EPA's RMSE of co-located units over the hours both units and the reference report.
  errors <- c(est_a[both] - ref_a[both], est_b[both] - ref_b[both])
  expect_equal(all_row$rmse, sqrt(mean(errors^2)))
  expect_identical(all_row$n, 19L) # 10 hours of a, 9 of b
})

test_that("an hourly unit meets the hours of a 10-minute one in a zone half an hour off UTC", {
  tz <- "Asia/Kolkata"
  t10 <- seq(as.POSIXct("2024-01-01", tz = tz), by = "10 min", length.out = 6 * 12)
  clock <- format(t10, "%Y-%m-%d %H", tz = tz)
  # One reference: each hour's value at :00 is also the mean of its six 10-minute values.
  base <- 25 + 3 * (0:11 %% 5)
  ref10 <- rep(base, each = 6) + rep(c(0, -1, 1, -2, 2, 0), 12)
  est10 <- ref10 + 1 + seq_along(t10) %% 3
  hourly <- data.frame(date = seq(as.POSIXct("2024-01-01", tz = tz), by = "hour", length.out = 12),
                       unit = "h", ref = base)
  hourly$est <- hourly$ref * 1.1
  x <- rbind(hourly, data.frame(date = t10, unit = "m", ref = ref10, est = est10))
  res <- sensor_performance(x, "est", "ref", unit = "unit", pollutant = "o3", units = "ppb", averaging = "1h")
  expect_identical(res$n, c(12L, 12L, 24L))
  m_hourly <- hand_hourly(est10, ref10, clock, 4.5)
  expect_equal(res$mbe[2], mean(m_hourly$est - m_hourly$ref))
  # Co-located: the 12 local clock hours are the common times of both units.
  expect_identical(res$n_precision[3], 12L)
  means <- cbind(hourly$est, m_hourly$est)
  expect_equal(res$sd[3], sqrt(sum(sweep(means, 1, rowMeans(means))^2) / (12 * 2 - 1)))
})

test_that("a co-located unit that never reports is left out of the \"all\" row, with a note", {
  set.seed(4)
  hours <- seq(as.POSIXct("2024-03-01", tz = "UTC"), by = "hour", length.out = 48)
  truth <- 10 + 3 * sin(seq_along(hours) / 5)
  obs <- data.frame(date = rep(hours, 3), unit = rep(c("u1", "u2", "dead"), each = 48), ref = rep(truth, 3))
  obs$pm <- obs$ref * rep(c(1.1, 0.9, 1), each = 48) + rnorm(nrow(obs), 0, 0.5)
  obs$pm[obs$unit == "dead"] <- NA
  out <- suppressMessages(suppressWarnings(
    sensor_performance(obs, "pm", "ref", unit = "unit", averaging = "as_given"), classes = "ncam_warning_few_pairs"))
  all_row <- out[out$unit == "all", ]
  live <- obs[obs$unit != "dead", ]
  # EPA's co-located RMSE over the times both live units report, and their inter-unit SD.
  expect_equal(all_row$rmse, sqrt(mean((live$pm - live$ref)^2)))
  expect_equal(all_row$mbe, mean(live$pm - live$ref))
  spread <- live$pm - ave(live$pm, live$date)
  expect_equal(all_row$sd, sqrt(sum(spread^2) / (48 * 2 - 1)))
  expect_identical(all_row$n_precision, 48L)
  expect_match(all_row$note, "unit dead has no pair of estimate and reference: left out", fixed = TRUE)
})

test_that("1-minute readings stamped a fraction of a second off the minute have 1-hour means", {
  obs <- one_minute_ozone(hours = 96, seed = 6)
  # Up to 0.2 s early or late: gaps of 59.6 to 60.4 s, none of them the most common.
  obs$date <- obs$date + withr::with_seed(7, stats::runif(nrow(obs), -0.2, 0.2))
  res <- quiet_performance(obs, "est", "ref", pollutant = "o3", units = "ppb", averaging = c("as_given", "1h", "24h"))
  expect_identical(res$time_step, c("1 minute", "1 hour", "24 hours"))
  # The readings fall in the clock hour of their own (jittered) time.
  key <- format(obs$date, "%Y-%m-%d %H", tz = "UTC")
  hourly <- hand_hourly(obs$est, obs$ref, key, 45)
  expect_identical(res$n[2], 96L)
  expect_equal(res$mbe[2], mean(hourly$est - hourly$ref))
  day <- substr(rownames(hourly), 1, 10)
  expect_identical(res$n[3], 4L)
  expect_equal(res$mbe[3], mean(tapply(hourly$est, day, mean) - tapply(hourly$ref, day, mean)))
  # A step halfway between two seconds is its own: 12.5 s divides an hour.
  steady <- data.frame(date = obs$date[1] + 12.5 * (0:599), ref = obs$ref[1:600], est = obs$est[1:600])
  res <- quiet_performance(steady, "est", "ref", pollutant = "o3", units = "ppb", averaging = "as_given")
  expect_identical(res$time_step, "12.5 seconds")
})


test_that("a 1-minute logger keeping 8 % of its minutes is judged at 1 minute, whatever its most common gap", {
  # Gaps of 1, 2 and 3 minutes come in near-equal numbers: the most common gap is often 2 or 3
  # minutes, and a step read from it, or from the median gap, expected 30 or 7 records an hour.
  obs <- one_minute_ozone(hours = 96, seed = 2)
  most_common <- numeric()
  for (seed in 1:6) {
    kept <- obs[sort(withr::with_seed(seed, sample(nrow(obs), 461))), ]
    most_common <- c(most_common, as.numeric(names(which.max(table(diff(as.numeric(kept$date)))))))
    res <- quiet_performance(kept, "est", "ref", pollutant = "o3", units = "ppb", completeness = 0.1)
    expect_identical(res$time_step, c("1 minute", "1 hour"))
    # An hour counts with 6 of its 60 minutes.
    hourly <- hand_hourly(kept$est, kept$ref, format(kept$date, "%Y-%m-%d %H", tz = "UTC"), 6)
    expect_identical(res$n[2], nrow(hourly))
    expect_equal(res$mbe[2], mean(hourly$est - hourly$ref))
  }
  expect_true(any(most_common != 60))
})
