# sensor_drift() against a known truth: simulated z values whose variation between periods and
# drift are set in the test (what the variance between periods estimates, and what it does not),
# and a fitted model whose sensors have known gains, so that a drift written in the readings'
# units has a known size in the fused value's units.

# The period statistics sensor_drift() computes for one sensor of one unit, from z values in
# time order with their period numbers.
period_statistics <- function(z, period) {
  cell <- paste(1L, period, sep = "\r")
  keys <- unique(cell)
  means <- ncam:::period_means(z, z, cell, keys, rep(1L, length(keys)), seq_along(keys))
  spread <- ncam:::period_spread(z, cell, rep(1L, length(z)), seq_along(z), means)
  std_error <- sqrt(spread$between + spread$within[1] / means$n)
  list(means = means, between = spread$between, std_error = std_error,
       p = ncam:::beyond_tolerance(means$mean_z, std_error, 0, spread$df))
}

# z = u[period] + e: e independent N(0, 1), u of marginal sd `sd_between` with lag-1
# correlation `phi` between consecutive periods, plus `step` from period `step_at` on.
simulated_z <- function(seed, periods, per_period, sd_between, phi = 0, step = 0, step_at = periods + 1) {
  withr::with_seed(seed, {
    u <- stats::rnorm(1L, 0, sd_between)
    for (t in seq_len(periods - 1L)) u <- c(u, phi * u[t] + stats::rnorm(1L, 0, sd_between * sqrt(1 - phi^2)))
    u <- u + step * (seq_len(periods) >= step_at)
    period <- rep(seq_len(periods), each = per_period)
    list(z = u[period] + stats::rnorm(length(period)), period = period)
  })
}

test_that("the variance between periods is that of variation independent from period to period, a step cut out", {
  truth <- 0.3^2  # variance of the period effects
  per_period <- 48
  runs <- lapply(1:100, function(seed) {
    sim <- simulated_z(seed, periods = 30, per_period = per_period, sd_between = 0.3, step = 1.5, step_at = 16)
    stats <- period_statistics(sim$z, sim$period)
    consecutive <- diff(stats$means$mean_z)^2
    cap <- qchisq(0.99, 1) * median(consecutive) / qchisq(0.5, 1)
    scale <- mean(pmin(consecutive, cap)) / ncam:::capped_share / 2
    c(between = stats$between, se2 = mean(stats$std_error^2),
      cut_at_step = ncam:::step_stretches(stats$means$mean_z, scale)[16] == 16)
  })
  runs <- do.call(rbind, runs)
  expect_equal(mean(runs[, "between"]), truth, tolerance = 0.1)
  # The variance of a period's mean around its level: the variation plus the readings' noise.
  expect_equal(mean(runs[, "se2"]), truth + 1 / per_period, tolerance = 0.1)
  expect_gte(mean(runs[, "cut_at_step"]), 0.95)
})

test_that("variation that persists over periods is partly cut out as steps, as ?sensor_drift says", {
  truth <- 0.3^2
  runs <- do.call(rbind, lapply(1:100, function(seed) {
    sim <- simulated_z(seed, periods = 26, per_period = 168, sd_between = 0.3, phi = 0.8)
    stats <- period_statistics(sim$z, sim$period)
    c(ratio = stats$between / truth, p_below = mean(stats$p < 0.01))
  }))
  # ?sensor_drift and bench/drift_regimes.out: 0.25 of the variance, 15 % of rows below 0.01.
  expect_gt(mean(runs[, "ratio"]), 0.15)
  expect_lt(mean(runs[, "ratio"]), 0.35)
  expect_gt(mean(runs[, "p_below"]), 0.08)
  # The same periods taken as independent (phi = 0) keep nearly all of it, and the test its level.
  independent <- do.call(rbind, lapply(1:100, function(seed) {
    sim <- simulated_z(seed, periods = 26, per_period = 168, sd_between = 0.3)
    stats <- period_statistics(sim$z, sim$period)
    c(ratio = stats$between / truth, p_below = mean(stats$p < 0.01))
  }))
  expect_gt(mean(independent[, "ratio"]), 0.85)
  expect_lt(mean(independent[, "p_below"]), 0.015)
})

test_that("a drift written in the readings' units is reported as drift / gain in the fused units", {
  days <- 3 * 365
  gain <- c(1, 1.3, 0.8)
  sim <- withr::with_seed(4, {
    x <- as.numeric(stats::arima.sim(list(ar = 0.9), days))
    theta <- 20 + 3 * x + as.numeric(stats::arima.sim(list(ar = 0.7), days, sd = 4))
    d <- data.frame(date = as.Date("2022-01-01") + seq_len(days) - 1, x = x)
    for (j in 1:3) d[[paste0("s", j)]] <- gain[j] * theta + c(0, 3, -2)[j] + stats::rnorm(days, 0, c(2, 3, 2.5)[j])
    d
  })
  fit <- suppressWarnings(ncam(s1 + s2 + s3 ~ x, data = sim[1:365, ], hidden = 8, epochs = 200,
                               learn_rate = 0.02, seed = 1, threads = 1),
                          classes = c("ncam_warning_not_converged", "ncam_warning_clamp"))
  drift_in_readings <- 5
  later <- sim$date >= as.Date("2024-01-01")
  sim$s3[later] <- sim$s3[later] + drift_in_readings
  drift <- sensor_drift(fit, sim, period = "month", threads = 1)
  own <- drift$sensor == "s3"
  after <- drift$period >= as.Date("2024-01-01")
  # 5 / 0.8 = 6.25 in the units of theta, against the months before; not a multiple of it.
  expect_equal(mean(drift$shift[own & after]) - mean(drift$shift[own & !after]),
               drift_in_readings / gain[3], tolerance = 0.1)
  expect_true(all(drift$drift[own & after]))
  expect_false(any(drift$drift[!after]))
  # The others, compared with an estimate that holds s3, look shifted the other way.
  expect_true(all(tapply(drift$shift[!own & after], drift$sensor[!own & after], mean) < 0))
})
