# The EU between-sampler uncertainty u(bs) of sensor_performance(): checked against a worked
# example done by hand, the Guide's two-unit formula written out and a one-way analysis of
# variance by lm(), never against the function's own earlier output.

between_columns <- c("n_between_sampler", "between_sampler_uncertainty",
                     "between_sampler_uncertainty_below", "between_sampler_uncertainty_above",
                     "pass_between_sampler_uncertainty")

days <- function(n) as.Date("2024-01-01") + seq_len(n) - 1L

quiet_performance <- function(...) suppressMessages(sensor_performance(...))

test_that("performance_targets() holds the Guide's 2.5 ug/m3 and 18 ug/m3 split for PM2.5 only", {
  targets <- performance_targets()
  row <- function(p, m) targets[targets$pollutant == p & targets$metric == m, ]
  criterion <- row("pm25", "between_sampler_uncertainty")
  expect_equal(c(criterion$lower, criterion$upper), c(0, 2.5))
  expect_identical(c(criterion$unit, criterion$averaging, criterion$framework),
                   c("ug/m3", "24 hours", "EU"))
  expect_match(criterion$source, "Guide to the Demonstration of Equivalence (2010)", fixed = TRUE)
  split <- row("pm25", "between_sampler_split")
  expect_equal(c(split$lower, split$upper), c(18, 18))
  expect_equal(nrow(row("o3", "between_sampler_uncertainty")), 0L)
  expect_equal(nrow(row("o3", "between_sampler_split")), 0L)
})

test_that("a worked example: two units over six days, whole set and both sides of 18 ug/m3", {
  # Differences a - b: -2, 1, -1 on the days with a reference below 18; -1, -3, 3 above.
  obs <- data.frame(date = rep(days(6), 2), unit = rep(c("a", "b"), each = 6),
                    ref = rep(c(10, 12, 14, 20, 25, 30), 2),
                    est = c(10, 13, 15, 21, 24, 33, 12, 12, 16, 22, 27, 30))
  res <- sensor_performance(obs, "est", "ref", unit = "unit", averaging = "as_given")
  all_row <- res[res$unit == "all", ]
  expect_identical(all_row$n_between_sampler, 6L)
  # (4 + 1 + 1 + 1 + 9 + 9) / (2 x 6), (4 + 1 + 1) / (2 x 3), (1 + 9 + 9) / (2 x 3).
  expect_equal(all_row$between_sampler_uncertainty, sqrt(25 / 12))
  expect_equal(all_row$between_sampler_uncertainty_below, 1)
  expect_equal(all_row$between_sampler_uncertainty_above, sqrt(19 / 6))
  expect_true(all_row$pass_between_sampler_uncertainty)
  # Only the "all" row carries it, as the inter-unit SD and CV.
  unit_rows <- res[res$unit != "all", between_columns]
  expect_true(all(is.na(unlist(unit_rows))))
  # Columns come after the expanded uncertainty, the verdict after its verdict.
  after <- match("expanded_uncertainty", names(res))
  expect_identical(match(between_columns[1:4], names(res)) - after, 1:4)
  expect_identical(match("pass_between_sampler_uncertainty", names(res)),
                   match("pass_expanded_uncertainty", names(res)) + 1L)
})

test_that("two units match the Guide's sum of squared differences over 2n", {
  n <- 40
  ref <- withr::with_seed(11, stats::runif(n, 4, 40))
  a <- ref + withr::with_seed(12, stats::rnorm(n, sd = 1.5))
  b <- 1.05 * ref + withr::with_seed(13, stats::rnorm(n, sd = 1.5))
  b[c(3, 17)] <- NA  # two days with one unit only: not pairs
  obs <- data.frame(date = rep(days(n), 2), unit = rep(c("a", "b"), each = n),
                    ref = rep(ref, 2), est = c(a, b))
  all_row <- quiet_performance(obs, "est", "ref", unit = "unit", averaging = "as_given")
  all_row <- all_row[all_row$unit == "all", ]
  paired <- !is.na(a) & !is.na(b)
  guide <- function(keep) sqrt(sum((a[keep] - b[keep])^2) / (2 * sum(keep)))
  expect_identical(all_row$n_between_sampler, sum(paired))
  expect_equal(all_row$between_sampler_uncertainty, guide(paired))
  expect_equal(all_row$between_sampler_uncertainty_below, guide(paired & ref < 18))
  expect_equal(all_row$between_sampler_uncertainty_above, guide(paired & ref >= 18))
  within <- c(guide(paired), guide(paired & ref < 18), guide(paired & ref >= 18)) <= 2.5
  expect_identical(all_row$pass_between_sampler_uncertainty, all(within))
})

test_that("three units with gaps pool the within-day variance, as a one-way analysis of variance", {
  n <- 30
  ref <- withr::with_seed(21, stats::runif(n, 5, 35))
  est <- outer(ref, c(1, 1.1, 0.95)) + withr::with_seed(22, matrix(stats::rnorm(3 * n), n))
  est[4:6, 2] <- NA          # days with two units
  est[c(9, 10), c(1, 3)] <- NA  # days with one unit: no spread to pool
  est[25:30, 3] <- NA        # a unit that stops
  obs <- data.frame(date = rep(days(n), 3), unit = rep(c("a", "b", "c"), each = n),
                    ref = rep(ref, 3), est = c(est))
  all_row <- quiet_performance(obs, "est", "ref", unit = "unit", averaging = "as_given")
  all_row <- all_row[all_row$unit == "all", ]
  long <- data.frame(day = rep(seq_len(n), 3), ref = rep(ref, 3), est = c(est))
  long <- long[!is.na(long$est), ]
  long <- long[long$day %in% long$day[duplicated(long$day)], ]
  # The residual variance of est on a factor of days is sum (y - day mean)^2 / sum (p_i - 1).
  anova_sd <- function(rows) {
    fit <- stats::lm(est ~ factor(day), data = rows)
    sqrt(sum(stats::residuals(fit)^2) / fit$df.residual)
  }
  expect_identical(all_row$n_between_sampler, length(unique(long$day)))
  expect_equal(all_row$n_between_sampler, n - 2)
  expect_equal(all_row$between_sampler_uncertainty, anova_sd(long))
  expect_equal(all_row$between_sampler_uncertainty_below, anova_sd(long[long$ref < 18, ]))
  expect_equal(all_row$between_sampler_uncertainty_above, anova_sd(long[long$ref >= 18, ]))
})

test_that("it is judged on 24-hour means for PM2.5, with no verdict on hourly rows", {
  hours <- seq(as.POSIXct("2024-03-01", tz = "UTC"), by = "hour", length.out = 24 * 8)
  # Daily means of about 9.5, 12.5, ..., 30.5 ug/m3: three days below 18, five above.
  truth <- 6.5 + 3 * rep(1:8, each = 24) + sin(seq_along(hours))
  noise <- withr::with_seed(31, stats::rnorm(2 * length(hours), sd = 2))
  obs <- data.frame(date = rep(hours, 2), unit = rep(c("a", "b"), each = length(hours)),
                    ref = rep(truth, 2), est = rep(truth, 2) + noise)
  res <- quiet_performance(obs, "est", "ref", unit = "unit")
  daily <- res[res$unit == "all" & res$averaging == "24h", ]
  hourly <- res[res$unit == "all" & res$averaging == "as_given", ]
  day <- as.Date(hours)
  a <- tapply(obs$est[1:192], day, mean)
  b <- tapply(obs$est[193:384], day, mean)
  ref_day <- tapply(truth, day, mean)
  expect_identical(daily$n_between_sampler, 8L)
  expect_equal(daily$between_sampler_uncertainty, sqrt(sum((a - b)^2) / 16))
  high <- ref_day >= 18
  expect_identical(sum(high), 5L)
  expect_equal(daily$between_sampler_uncertainty_above, sqrt(sum((a - b)[high]^2) / 10))
  expect_equal(daily$between_sampler_uncertainty_below, sqrt(sum((a - b)[!high]^2) / 6))
  expect_identical(daily$pass_between_sampler_uncertainty,
                   all(c(daily$between_sampler_uncertainty,
                         daily$between_sampler_uncertainty_below,
                         daily$between_sampler_uncertainty_above) <= 2.5))
  expect_identical(hourly$n_between_sampler, 192L)
  expect_equal(hourly$between_sampler_uncertainty,
               sqrt(sum((obs$est[1:192] - obs$est[193:384])^2) / 384))
  expect_true(is.na(hourly$pass_between_sampler_uncertainty))
})

test_that("a unit pair that disagrees fails, also when only one side of the split does", {
  ref <- rep(c(8, 10, 12, 25, 28, 31), 2)
  steady <- c(0.5, -0.5, 0.5, -0.5, 0.5, -0.5)
  obs <- data.frame(date = rep(days(6), 2), unit = rep(c("a", "b"), each = 6), ref = ref,
                    est = c(ref[1:6], ref[1:6] + steady))
  check <- function(est) {
    obs$est <- est
    out <- quiet_performance(obs, "est", "ref", unit = "unit", averaging = "as_given")
    out[out$unit == "all", ]
  }
  expect_true(check(obs$est)$pass_between_sampler_uncertainty)
  # 6 ug/m3 apart on the high days only: sqrt(3 x 36 / 6) = 4.24 there.
  high_apart <- check(c(ref[1:6], ref[1:6] + c(steady[1:3], 6, -6, 6)))
  expect_equal(high_apart$between_sampler_uncertainty_above, sqrt(18))
  expect_equal(high_apart$between_sampler_uncertainty_below, sqrt(3 * 0.25 / 6))
  expect_equal(high_apart$between_sampler_uncertainty, sqrt((3 * 36 + 3 * 0.25) / 12))
  expect_false(high_apart$pass_between_sampler_uncertainty)
  # 4 ug/m3 apart on the low days only: the whole set (2.02) passes, the low side (2.83) fails.
  low_apart <- check(c(ref[1:6], ref[1:6] + c(4, -4, 4, steady[4:6])))
  expect_equal(low_apart$between_sampler_uncertainty, sqrt((3 * 16 + 3 * 0.25) / 12))
  expect_equal(low_apart$between_sampler_uncertainty_below, sqrt(8))
  expect_lte(low_apart$between_sampler_uncertainty, 2.5)
  expect_false(low_apart$pass_between_sampler_uncertainty)
})

test_that("fewer than 3 shared periods give NA with a note; a side with fewer is left out", {
  obs <- data.frame(date = c(days(6), days(6) + 4), unit = rep(c("a", "b"), each = 6),
                    ref = c(10, 12, 14, 20, 25, 30, 25, 30, 31, 33, 35, 36),
                    est = c(11, 12, 15, 20, 26, 29, 24, 31, 30, 34, 36, 35))
  # Units a and b share days 5 and 6 only.
  all_row <- quiet_performance(obs, "est", "ref", unit = "unit", averaging = "as_given")
  all_row <- all_row[all_row$unit == "all", ]
  expect_identical(all_row$n_between_sampler, 2L)
  expect_true(all(is.na(unlist(all_row[between_columns[2:5]]))))
  expect_match(all_row$note, paste("fewer than 3 times at which two or more units have an",
                                   "estimate: no between-sampler uncertainty"), fixed = TRUE)
  # Two days below 18, three at or above (18 itself is above, as "greater than or equal to"):
  # no lower side, judged on the whole set and the upper side.
  ref <- rep(c(10, 12, 18, 25, 27), 2)
  high <- data.frame(date = rep(days(5), 2), unit = rep(c("a", "b"), each = 5), ref = ref,
                     est = ref + c(0, 0, 0, 0, 0, 1, -1, 2, -1, 1))
  all_row <- quiet_performance(high, "est", "ref", unit = "unit", averaging = "as_given")
  all_row <- all_row[all_row$unit == "all", ]
  expect_equal(all_row$between_sampler_uncertainty, sqrt(8 / 10))
  expect_equal(all_row$between_sampler_uncertainty_above, sqrt(6 / 6))
  expect_true(is.na(all_row$between_sampler_uncertainty_below))
  expect_true(all_row$pass_between_sampler_uncertainty)
  expect_match(all_row$note, paste("fewer than 3 such times with a reference below 18:",
                                   "no between-sampler uncertainty there"), fixed = TRUE)
})

test_that("one unit has none and no note; units not co-located have none, with a note", {
  obs <- data.frame(date = days(10), ref = 11:20, est = c(11:20) + 0.5)
  one <- sensor_performance(obs, "est", "ref", averaging = "as_given", limit_value = 15)
  expect_true(all(is.na(unlist(one[between_columns]))))
  expect_true(is.na(one$note))
  # Two sites, each beside its own reference.
  sites <- data.frame(date = rep(days(10), 2), unit = rep(c("a", "b"), each = 10),
                      ref = c(11:20, 31:40), est = c(11:20, 31:40) + 0.5)
  apart <- quiet_performance(sites, "est", "ref", unit = "unit", averaging = "as_given")
  apart <- apart[apart$unit == "all", ]
  expect_true(all(is.na(unlist(apart[between_columns]))))
  expect_match(apart$note, "units not co-located: .*; no between-sampler uncertainty$")
})

test_that("for O3 it is reported but neither split nor judged", {
  ref <- rep(c(20, 30, 40, 50, 60, 70), 2)
  hours <- seq(as.POSIXct("2024-06-01", tz = "UTC"), by = "hour", length.out = 6)
  obs <- data.frame(date = rep(hours, 2), unit = rep(c("a", "b"), each = 6), ref = ref,
                    est = ref + c(rep(0, 6), 1, -1, 2, -2, 1, -1))
  all_row <- quiet_performance(obs, "est", "ref", unit = "unit", pollutant = "o3", units = "ppb")
  all_row <- all_row[all_row$unit == "all", ]
  expect_identical(all_row$time_step, "1 hour")
  expect_equal(all_row$between_sampler_uncertainty, sqrt(12 / 12))
  expect_true(is.na(all_row$between_sampler_uncertainty_below))
  expect_true(is.na(all_row$between_sampler_uncertainty_above))
  expect_true(is.na(all_row$pass_between_sampler_uncertainty))
  expect_no_match(all_row$note, "between-sampler")
})
