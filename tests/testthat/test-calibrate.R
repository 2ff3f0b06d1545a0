# Threshold rule against hand computations, then the whole pipeline on data
# simulated from the NCAM model itself (constant prior and sensor parameters,
# so `~ 1` with no hidden layer is the correct model).

# ---- conformal_threshold -----------------------------------------------------

test_that("m = 1 is split conformal: the ceiling((n + 1)(1 - alpha))-th smallest score", {
  expect_equal(conformal_threshold(1:19, n = 19, m = 1, level = 0.9), 18)
  expect_equal(conformal_threshold(c(5, 1, 4, 2, 3), n = 5, m = 1, level = 0.5), 3)
  set.seed(1)
  for (n in c(9, 10, 37, 200)) {
    for (level in c(0.8, 0.9, 0.95)) {
      if ((n + 1) * (1 - level) < 1 - 1e-9) next
      s <- rexp(n)
      expect_equal(conformal_threshold(s, n, 1, level),
                   sort(s)[ceiling((n + 1) * level - 1e-9)])
    }
  }
})

test_that("m >= 2 takes the k-th largest score, k = floor(alpha m (n + 1)) - m + 1", {
  # n = 9, m = 2, alpha = 0.2: k = floor(4) - 1 = 3, the 3rd largest of 1..18.
  expect_equal(conformal_threshold(18:1, n = 9, m = 2, level = 0.8), 16)
  # n = 4, m = 3, alpha = 0.5: k = floor(7.5) - 2 = 5, the 5th largest of 1..12.
  expect_equal(conformal_threshold(1:12, n = 4, m = 3, level = 0.5), 8)
  # n = 9, m = 5, alpha = 0.1: k = floor(5) - 4 = 1, the largest.
  expect_equal(conformal_threshold(1:45, n = 9, m = 5, level = 0.9), 45)
})

test_that("too few calibration rows give Inf with a warning naming the rows needed", {
  expect_warning(q <- conformal_threshold(1:8, n = 8, m = 1, level = 0.9),
                 "at least 9 calibration rows")
  expect_identical(q, Inf)
  # n = 8, m = 5: k = floor(4.5) - 4 = 0.
  expect_warning(q <- conformal_threshold(1:40, n = 8, m = 5, level = 0.9), "at least 9")
  expect_identical(q, Inf)
  expect_warning(q <- conformal_threshold(1:18, n = 18, m = 1, level = 0.95), "at least 19")
  expect_identical(q, Inf)
  expect_warning(q <- conformal_threshold(numeric(0), n = 0, m = 50, level = 0.9), "at least 9")
  expect_identical(q, Inf)
})

test_that("the rows a level needs are counted as for the level written, and agree with the threshold", {
  # By hand: the smallest n with floor((1 - level) * (n + 1)) >= 1, i.e. n = 1 / (1 - level) - 1.
  hand <- c("0.5" = 1, "0.8" = 4, "0.9" = 9, "0.95" = 19, "0.99" = 99, "0.999" = 999)
  for (level in names(hand)) {
    expect_identical(rows_needed(as.numeric(level)), hand[[level]])
    needed <- hand[[level]]
    expect_no_warning(conformal_threshold(seq_len(needed), needed, 1, as.numeric(level)))
    expect_warning(conformal_threshold(seq_len(needed - 1), needed - 1, 1, as.numeric(level)),
                   class = "ncam_warning_small_calibration")
  }
  expect_identical(rows_needed(2 / 3), 2)  # floor((1 / 3) * 3) = 1
  # The double nearest 1 - 1e-10 is 1 - 1.0000000827e-10, 1 / (1 - level) - 1 = 9999999172.
  expect_identical(rows_needed(1 - 1e-10), 9999999999)
  # 1 - 1e-9 likewise (999999917); the threshold agrees: rank 1 from that many rows on (the
  # scores themselves are beside the point here).
  expect_warning(conformal_threshold(numeric(0), 999999998, 1, 1 - 1e-9), "at least 999999999 calibration rows")
  expect_no_warning(conformal_threshold(numeric(0), 999999999, 1, 1 - 1e-9))
  # A product that is whole in decimals but not in doubles: 0.29 * 100 < 29.
  expect_equal(conformal_threshold(1:99, 99, 1, 0.71), 71)
})

test_that("the too-small warning has a class, from calibrate() and from predict()", {
  expect_warning(conformal_threshold(1:8, n = 8, m = 1, level = 0.9),
                 class = "ncam_warning_small_calibration")
  expect_warning(conformal_threshold(1:20, 10, 2, 0.99, "ecdf", holdout = 1:5),
                 class = "ncam_warning_small_calibration")
  toy <- simulate_toy(260, seed = 4)
  fit <- quick_fit(toy[1:200, ])
  # Muffling the class alone leaves no other warning.
  cal <- withCallingHandlers(calibrate(fit, toy[201:205, ], method = "mc_model", m = 5, seed = 1),
                             ncam_warning_small_calibration = function(w) invokeRestart("muffleWarning"))
  expect_identical(cal$quantile, Inf)
  expect_warning(predict(cal, toy[206:210, ]), class = "ncam_warning_small_calibration")
})

# Corrected p-value of a test score, written from Stutz et al.'s ECDF
# construction: averaged MC p-values, then their rank among holdout p-values.
ecdf_p <- function(s, scores, n, m, holdout) {
  pbar <- function(x) (m + sum(scores >= x)) / (m * (n + 1))
  p_hold <- vapply(holdout, pbar, numeric(1))
  (1 + sum(p_hold <= pbar(s))) / (length(holdout) + 1)
}

test_that("the ECDF correction matches a brute-force p-value computation", {
  # Hand case: scores 1..4 (n = 2, m = 2); holdout 2.5, 0.5, 3.5, 5; alpha = 0.4.
  # Holdout p-values 4/6, 6/6, 3/6, 2/6; a test score keeps its label when at
  # least 2 holdout p-values are <= its own: scores up to 4 (p = 3/6) qualify.
  expect_equal(conformal_threshold(1:4, 2, 2, 0.6, "ecdf", holdout = c(2.5, 0.5, 3.5, 5)), 4)

  set.seed(3)
  for (i in 1:20) {
    n <- sample(5:30, 1)
    m <- sample(1:6, 1)
    scores <- rexp(n * m)
    holdout <- rexp(sample(10:40, 1))
    level <- sample(c(0.7, 0.8, 0.9), 1)
    q <- suppressWarnings(conformal_threshold(scores, n, m, level, "ecdf", holdout = holdout))
    # p > alpha, with alpha = 1 - level free of floating-point error (0.2 not 0.1999...).
    alpha <- round(1 - level, 10)
    kept <- vapply(sort(scores), function(s) ecdf_p(s, scores, n, m, holdout) > alpha + 1e-12,
                   logical(1))
    # Infinite when even scores beyond every calibration score are kept.
    unbounded <- ecdf_p(max(scores) + 1, scores, n, m, holdout) > alpha + 1e-12
    expected <- if (unbounded) Inf else max(sort(scores)[kept])
    expect_equal(q, expected)
  }
})

test_that("the ECDF correction warns when the holdout is too small", {
  expect_warning(q <- conformal_threshold(1:20, 10, 2, 0.9, "ecdf", holdout = 1:5),
                 "at least 17 calibration rows")
  expect_identical(q, Inf)
})

# ---- pipeline on data from the model -----------------------------------------

simulate_ncam <- function(n, seed) {
  set.seed(seed)
  theta <- rnorm(n, 20, 4)
  data.frame(
    sensor_0 = theta + rnorm(n, 0, 1.5),
    sensor_1 = 1.3 * theta - 4 + rnorm(n, 0, 2),
    sensor_2 = 0.8 * theta + 3 + rnorm(n, 0, 3),
    truth = theta
  )
}

fit_ncam_toy <- function(train, ...) {
  ncam(sensor_0 + sensor_1 + sensor_2 ~ 1, data = train, anchor = "sensor_0",
       hidden = integer(0), epochs = 100, learn_rate = 0.01, seed = 1, verbose = FALSE,
       threads = 1, ...)
}

sim <- simulate_ncam(7000, seed = 10)
train <- sim[1:2000, ]
cal_data <- sim[2001:3000, ]
test_data <- sim[3001:7000, ]
fit <- fit_ncam_toy(train)

# Binomial tolerance for coverage: test-set noise plus the spread of the
# conditional coverage given n calibration rows, 3.5 standard deviations.
coverage_tolerance <- function(level, n_test, n_cal) {
  3.5 * sqrt(level * (1 - level) * (1 / n_test + 1 / (n_cal + 2)))
}

test_that("split conformal and MC-CP cover the truth at the nominal level", {
  tol <- coverage_tolerance(0.9, nrow(test_data), nrow(cal_data))
  for (method in c("split", "mc_model")) {
    cal <- if (method == "split") calibrate(fit, cal_data, method = method, reference = "truth") else
      calibrate(fit, cal_data, method = method, m = 20, seed = 2)
    ev <- evaluate_fusion(predict(cal, test_data), test_data$truth)
    expect_lt(abs(ev$coverage - 0.9), tol)
    expect_equal(ev$n, nrow(test_data))
  }
  cal <- calibrate(fit, cal_data, method = "mc_model", m = 20, seed = 2, correction = "ecdf")
  ev <- evaluate_fusion(predict(cal, test_data), test_data$truth)
  expect_lt(abs(ev$coverage - 0.9), coverage_tolerance(0.9, nrow(test_data), 500))
})

test_that("a calibration drawing more scores than memory allows is refused before drawing", {
  # 1000 rows x 10001 draws is just above the limit of 1e7 scores; 10000 is just within it.
  expect_error(calibrate(fit, cal_data, method = "mc_model", m = 10001, seed = 1),
               "at most 10000", fixed = TRUE)
  expect_error(calibrate(fit, cal_data, method = "mc_model", m = 1e9, seed = 1), "would draw 1e+12 scores",
               fixed = TRUE)
  # Split conformal draws nothing: m is refused rather than checked against the limit.
  expect_error(calibrate(fit, cal_data, method = "split", reference = "truth", m = 1e9),
               "`m` applies to the Monte Carlo methods", fixed = TRUE)
})

test_that("MC-CP (model) width agrees with the credible interval", {
  n <- nrow(cal_data)
  m <- 50
  cal <- calibrate(fit, cal_data, method = "mc_model", m = m, seed = 4)
  expect_equal(cal$n, n)
  expect_length(cal$scores, n * m)
  mc <- evaluate_fusion(predict(cal, test_data), test_data$truth)
  cred <- evaluate_fusion(predict(fit, test_data, interval = "credible", level = 0.9),
                          test_data$truth)
  # Scores |Y - mu| / sd_pred are |N(0, 1)| draws, and the threshold is their
  # empirical quantile at 1 - k / (m n): compare with the normal quantile and its
  # Monte Carlo standard error sqrt(p (1 - p) / N) / density.
  k <- floor(0.1 * m * (n + 1)) - m + 1
  p <- 1 - k / (m * n)
  z <- qnorm((1 + p) / 2)
  se <- sqrt(p * (1 - p) / (m * n)) / (2 * dnorm(z))
  expect_lt(abs(cal$quantile - z), 4 * se)
  expect_lt(abs(mc$mean_width / cred$mean_width - z / qnorm(0.95)), 4 * se / qnorm(0.95))
})

test_that("split conformal says how many rows lack a reference, and scores the others alone", {
  d <- cal_data
  d$truth[1:30] <- NA
  expect_message(cal <- calibrate(fit, d, method = "split", reference = "truth"),
                 "30 rows of `data` without a reference value")
  expect_identical(cal$scores, calibrate(fit, cal_data[-(1:30), ], method = "split", reference = "truth")$scores)
})

test_that("split conformal leaves out rows with a reference but no sensor reading, saying so", {
  d <- cal_data[1:300, ]
  d[1:40, c("sensor_0", "sensor_1", "sensor_2")] <- NA
  expect_message(cal <- calibrate(fit, d, method = "split", reference = "truth"),
                 "40 rows of `data` with a reference value but no sensor reading are left out of the calibration")
  expect_identical(cal$n, 260L)
  # The scores of the measured rows alone, by hand: |reference - estimate| / predictive sd.
  p <- predict(fit, d[41:300, ])
  expect_equal(cal$scores, sort(abs(d$truth[41:300] - p$.pred) / p$.pred_sd))
  # Too few rows left: the warning counts the rows without a reading among those left out.
  w <- expect_warning(suppressMessages(calibrate(fit, d[c(1:40, 41:45), ], method = "split", reference = "truth")),
                      class = "ncam_warning_small_calibration")
  expect_match(conditionMessage(w), "40 without any sensor reading", fixed = TRUE)
})

test_that("intervals are .pred -/+ q * .pred_sd and the level is chosen at prediction", {
  cal <- calibrate(fit, cal_data, method = "split", reference = "truth")
  p <- predict(fit, test_data[1:50, ])
  out <- predict(cal, test_data[1:50, ])
  expect_equal(out[names(p)], p)
  expect_equal(out$.pred_lower, p$.pred - cal$quantile * p$.pred_sd)
  expect_equal(out$.pred_upper, p$.pred + cal$quantile * p$.pred_sd)
  # Level 0.8 from the stored scores: the ceiling(0.8 (n + 1))-th smallest
  # of the independently computed split scores.
  all_pred <- predict(fit, cal_data)
  scores <- abs(cal_data$truth - all_pred$.pred) / all_pred$.pred_sd
  q80 <- sort(scores)[ceiling(0.8 * (nrow(cal_data) + 1))]
  out80 <- predict(cal, test_data[1:50, ], level = 0.8)
  expect_equal(out80$.pred_upper, p$.pred + q80 * p$.pred_sd)
  expect_equal(cal$quantile, sort(scores)[ceiling(0.9 * (nrow(cal_data) + 1))])
})

test_that("sensor-anchored scores are the bias-corrected readings' residuals", {
  d <- cal_data[1:200, ]
  d$sensor_1[1:20] <- NA
  d[21:25, c("sensor_0", "sensor_1", "sensor_2")] <- NA
  cal <- calibrate(fit, d, method = "sensor_anchored")
  pr <- suppressWarnings(predict(fit, d), classes = "ncam_warning_no_readings")  # rows 21-25
  sp <- sensor_params(fit, d)
  b <- unname(unlist(d[c("sensor_0", "sensor_1", "sensor_2")]))
  implied <- (b - sp$c) / sp$a
  s <- abs(implied - pr$.pred[sp$.row]) / pr$.pred_sd[sp$.row]
  expect_equal(cal$scores, sort(s[!is.na(s)]))
  expect_equal(cal$n, 195)
  expect_length(cal$scores, 3 * 200 - 20 - 15)
  N <- length(cal$scores)
  expect_equal(cal$quantile, sort(s)[ceiling(0.9 * (N + 1))])
})

test_that("sensor-anchored calibration counts rows, not pooled scores, towards the rows a level needs", {
  small <- "ncam_warning_small_calibration"
  # 3 rows give 9 pooled scores, but level 0.9 needs 9 rows (floor(0.1 * (n + 1)) >= 1).
  w <- expect_warning(cal <- calibrate(fit, cal_data[1:3, ], method = "sensor_anchored"), class = small)
  expect_match(conditionMessage(w), "needs at least 9 calibration rows; there are 3", fixed = TRUE)
  expect_identical(cal$quantile, Inf)
  expect_identical(glance(cal)$n_calibration, 3L)
  # 33 rows (99 scores) are too few for 0.99, which needs 99 rows ...
  cal <- calibrate(fit, cal_data[1:33, ], method = "sensor_anchored")
  w <- expect_warning(out <- predict(cal, test_data[1:2, ], level = 0.99), class = small)
  expect_match(conditionMessage(w), "needs at least 99 calibration rows; there are 33", fixed = TRUE)
  expect_identical(out$.pred_upper, c(Inf, Inf))
  # ... and enough for 0.9, where the threshold is the pooled set's: the
  # ceiling(0.9 * (99 + 1)) = 90th smallest of the 99 scores.
  expect_equal(cal$quantile, sort(cal$scores)[90])
  expect_identical(glance(cal)$n_calibration, 33L)
  expect_warning(tidy(cal, level = 0.99), class = small)
})

test_that("missing readings: MC-CP (model) keeps rows without readings, empirical skips them", {
  d <- cal_data[1:300, ]
  d[1:30, c("sensor_0", "sensor_1", "sensor_2")] <- NA
  d$sensor_2[31:100] <- NA
  model <- calibrate(fit, d, method = "mc_model", m = 5, seed = 1)
  expect_equal(model$n, 300)
  expect_true(all(is.finite(model$scores)))
  emp <- calibrate(fit, d, method = "mc_empirical", m = 5, seed = 1)
  expect_equal(emp$n, 270)
  expect_length(emp$scores, 270 * 5)
  # Every empirical pseudo-label is one of the row's observed readings.
  pr <- suppressWarnings(predict(fit, d), classes = "ncam_warning_no_readings")  # rows 1-30
  b <- as.matrix(d[c("sensor_0", "sensor_1", "sensor_2")])
  possible <- abs(b - pr$.pred) / pr$.pred_sd
  possible <- sort(unique(round(as.vector(possible[!is.na(possible)]), 8)))
  expect_true(all(round(emp$scores, 8) %in% possible))
})

test_that("empirical pseudo-labels pick observed sensors uniformly", {
  post <- list(b = rbind(c(1, NA, 3), c(NA, 5, NA), c(7, 8, 9)))
  set.seed(1)
  y <- draw_sensor_labels(post, 1:3, 3000)
  expect_true(all(y[1, ] %in% c(1, 3)))
  expect_true(all(y[2, ] == 5))
  expect_lt(abs(mean(y[1, ] == 1) - 0.5), 4 * sqrt(0.25 / 3000))
  expect_lt(abs(mean(y[3, ] == 8) - 1 / 3), 4 * sqrt(2 / 9 / 3000))
})

test_that("predict keeps rows in order; missing covariates give NA bounds", {
  fit_x <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x, data = transform(train, x = rnorm(2000)),
                          anchor = "sensor_0", hidden = integer(0), epochs = 5, seed = 1,
                          verbose = FALSE, threads = 1))
  cal <- calibrate(fit_x, transform(cal_data, x = rnorm(1000)), m = 5, seed = 1)
  new <- transform(test_data[1:40, ], x = rnorm(40))
  new$x[c(3, 17)] <- NA
  new$sensor_1[5] <- NA
  expect_warning(out <- predict(cal, new), "2 of 40 rows", class = "ncam_warning_missing_covariate")
  expect_equal(nrow(out), 40)
  expect_true(all(is.na(out$.pred_lower[c(3, 17)])))
  expect_true(all(is.finite(out$.pred_lower[-c(3, 17)])))
  expect_true(all(out$.pred_lower[-c(3, 17)] < out$.pred_upper[-c(3, 17)]))
  expect_equal(out$.pred, suppressWarnings(predict(fit_x, new), classes = "ncam_warning_missing_covariate")$.pred)
  # Calibration rows with a missing covariate give no score, and a message says so.
  holes <- transform(cal_data, x = rnorm(1000))
  holes$x[1:30] <- NA
  expect_message(cal_holes <- calibrate(fit_x, holes, method = "split", reference = "truth"),
                 "30 rows of `data` with a missing covariate (x: 30) are left out", fixed = TRUE)
  expect_identical(cal_holes$n, 970L)
  # A row without a reference is counted once, as such, even if its covariate is missing too.
  holes$truth[1:10] <- NA
  expect_message(expect_message(cal_holes <- calibrate(fit_x, holes, method = "split", reference = "truth"),
                                "10 rows of `data` without a reference value"),
                 "20 rows of `data` with a missing covariate")
  expect_identical(cal_holes$n, 970L)
})

test_that("a calibration set emptied by missing covariates or references says so, naming the columns", {
  toy <- simulate_toy(300, seed = 1)
  fit_x <- quick_fit(toy[1:200, ], formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, hidden = 4L)
  d <- toy[201:300, ]
  d$x1 <- NA
  w <- expect_warning(expect_message(cal <- calibrate(fit_x, d, m = 5, seed = 1), "(x1: 100)", fixed = TRUE),
                      class = "ncam_warning_small_calibration")
  expect_match(conditionMessage(w), "there are 0", fixed = TRUE)
  expect_match(conditionMessage(w), "left out of the calibration: 100 with a missing covariate (x1: 100)",
               fixed = TRUE)
  expect_identical(cal$n, 0L)
  # Split conformal: rows without a reference are counted as such, the others by covariate.
  d$ref <- d$truth
  d$ref[1:60] <- NA
  d$x2[61:100] <- NA
  w <- expect_warning(suppressMessages(calibrate(fit_x, d, method = "split", reference = "ref")),
                      class = "ncam_warning_small_calibration")
  expect_match(conditionMessage(w), "60 without a reference reading (ref) and 40 with a missing covariate (x1: 40, x2: 40)",
               fixed = TRUE)
  # Sensor-anchored: rows without any reading give no score either.
  d <- toy[201:300, ]
  d$x1[1:97] <- NA
  d[98:99, c("sensor_0", "sensor_1", "sensor_2")] <- NA
  w <- expect_warning(suppressMessages(calibrate(fit_x, d, method = "sensor_anchored")),
                      class = "ncam_warning_small_calibration")
  expect_match(conditionMessage(w), "97 with a missing covariate (x1: 97) and 2 without any sensor reading",
               fixed = TRUE)
})

test_that("split conformal refuses a sensor or a covariate of the model as `reference`", {
  toy <- simulate_toy(300, seed = 1)
  fit_x <- quick_fit(toy[1:200, ], formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + I(x2^2), hidden = 4L)
  d <- toy[201:300, ]
  expect_error(calibrate(fit_x, d, method = "split", reference = "sensor_1"),
               "`reference` column sensor_1 is a sensor of the model", fixed = TRUE)
  expect_error(calibrate(fit_x, d, method = "split", reference = "x1"),
               "`reference` column x1 is a covariate of the model", fixed = TRUE)
  # A column behind a transformed term is a covariate too.
  expect_error(calibrate(fit_x, d, reference = "x2"), "`reference` column x2 is a covariate", fixed = TRUE)
  expect_identical(calibrate(fit_x, d, reference = "truth")$n, 100L)
})

test_that("log transform: bounds are back-transformed, symmetric on the log scale", {
  fit_log <- short_fit(fit_ncam_toy(train, transform = "log"))
  cal <- calibrate(fit_log, cal_data, method = "split", reference = "truth")
  out <- predict(cal, test_data[1:30, ])
  # .pred is exp(mu) and the bounds exp(mu -/+ q sd), so lower * upper = .pred^2.
  expect_equal(out$.pred_lower * out$.pred_upper, out$.pred^2)
  expect_true(all(out$.pred_lower > 0 & out$.pred_lower < out$.pred))
})

test_that("a calibration set too small for the level gives infinite bounds with a warning", {
  expect_warning(cal <- calibrate(fit, cal_data[1:5, ], method = "mc_model", m = 10, seed = 1),
                 "at least 9 calibration rows")
  expect_identical(cal$quantile, Inf)
  expect_warning(out <- predict(cal, test_data[1:3, ]), "at least 9")
  expect_identical(out$.pred_lower, rep(-Inf, 3))
  expect_identical(out$.pred_upper, rep(Inf, 3))
  # The same scores suffice at a lower level: 5 rows support level 1 - 1/6.
  out <- predict(cal, test_data[1:3, ], level = 0.8)
  expect_true(all(is.finite(out$.pred_upper)))
})

test_that("seeded calibration is reproducible and leaves the global stream alone", {
  set.seed(7)
  expected <- runif(2)
  set.seed(7)
  a <- calibrate(fit, cal_data[1:100, ], m = 5, seed = 3)
  expect_identical(runif(2), expected)
  b <- calibrate(fit, cal_data[1:100, ], m = 5, seed = 3)
  expect_identical(a$scores, b$scores)
  expect_output(print(a), "Calibration rows: 100")
})

test_that("an unseeded Monte Carlo calibration keeps the seed it drew, which reproduces it", {
  for (args in list(list(method = "mc_model"), list(method = "mc_model", correction = "ecdf"),
                    list(method = "mc_empirical"))) {
    set.seed(11)
    drawn <- sample.int(.Machine$integer.max, 1L)  # what set.seed(11) gives calibrate() to draw with
    set.seed(11)
    a <- do.call(calibrate, c(list(fit, cal_data[1:100, ], m = 5), args))
    expect_identical(a$seed, drawn)
    b <- do.call(calibrate, c(list(fit, cal_data[1:100, ], m = 5, seed = a$seed), args))
    expect_identical(b$scores, a$scores)
    expect_identical(b$holdout, a$holdout)
    expect_identical(b$quantile, a$quantile)
    expect_output(print(a), paste0("Seed:             ", drawn), fixed = TRUE)
  }
  # Another draw gives other scores: the seed is what made them.
  expect_false(identical(calibrate(fit, cal_data[1:100, ], m = 5, seed = drawn + 1L)$scores,
                         calibrate(fit, cal_data[1:100, ], m = 5, seed = drawn)$scores))
  # "split" draws nothing, and keeps no seed.
  split <- calibrate(fit, cal_data[1:100, ], method = "split", reference = "truth")
  expect_null(split$seed)
  expect_no_match(paste(capture.output(print(split)), collapse = "\n"), "Seed")
})

test_that("bad calibrate input gives clear errors", {
  d <- cal_data[1:50, ]
  expect_snapshot(error = TRUE, calibrate(fit, d, method = "bootstrap"))
  expect_snapshot(error = TRUE, calibrate(fit, d, level = 1.5))
  expect_snapshot(error = TRUE, calibrate(fit, d, level = 0))
  expect_snapshot(error = TRUE, calibrate(fit, d, m = 0))
  expect_snapshot(error = TRUE, calibrate(fit, d, method = "split"))
  expect_snapshot(error = TRUE, calibrate(fit, d, method = "split", reference = "pm25"))
  expect_snapshot(error = TRUE, calibrate(fit, d, correction = "exact"))
  expect_error(calibrate(fit, d, method = "sensor_anchored", correction = "ecdf"),
               "`correction` applies to the Monte Carlo methods .*not \"sensor_anchored\"")
  expect_snapshot(error = TRUE, calibrate(list(), d))
  cal <- calibrate(fit, d, m = 2, seed = 1)
  expect_snapshot(error = TRUE, predict(cal, d, level = c(0.8, 0.9)))
})

test_that("method = \"split\" defaults `reference` to the model's reference column", {
  withr::local_seed(11)
  toy <- simulate_toy(500, seed = 11)
  toy$ref <- toy$truth + stats::rnorm(500, 0, 0.3)
  toy$ref[301:500][1:20] <- NA
  fit <- suppressWarnings(ncam(sensor_0 + sensor_1 ~ x1, data = toy[1:300, ], reference = "ref",
                               hidden = 8L, epochs = 5L, seed = 1L, threads = 1L))
  d <- toy[301:500, ]
  expect_message(explicit <- calibrate(fit, d, method = "split"), "20 rows")
  expect_message(named <- calibrate(fit, d, method = "split", reference = "ref"), "20 rows")
  expect_message(default <- calibrate(fit, d), "20 rows")
  expect_identical(explicit$method, "split")
  expect_identical(explicit$scores, named$scores)
  expect_identical(explicit$scores, default$scores)
  # The scores by hand: |ref - mean| / predictive sd, over the 180 rows with a reference, as
  # predicted on those rows alone (the AVX2 engine rounds a row in float by its place in a block).
  keep <- !is.na(d$ref)
  p <- predict(fit, d[keep, ], interval = "prediction")
  expect_equal(explicit$scores, sort(abs(d$ref[keep] - p$.pred) / p$.pred_sd))
  expect_identical(explicit$n, 180L)
  # Rows without a reference take no part: the same scores without them.
  expect_identical(calibrate(fit, d[keep, ], method = "split")$scores, explicit$scores)
  # Their readings are not screened either; warnings name rows of `data`.
  spiked <- d
  spiked$sensor_0[c(5, 40)] <- 1e4  # row 5 has no reference, row 40 has one
  expect_warning(expect_message(calibrate(fit, spiked, method = "split"), "20 rows"),
                 "^1 reading of `data` .*sensor_0 \\(row 40\\)", class = "ncam_warning_spikes")
  # Without the model's reference column in `data`, the error names it.
  expect_error(calibrate(fit, d[setdiff(names(d), "ref")], method = "split"),
               "no column .*ref.*reference the model was fitted with")
})

test_that("update() of a split calibration advises a calibrate() call that makes it again", {
  # The advice of update()'s error, with the calibration rows put in.
  followed_advice <- function(cal, rows) {
    text <- gsub("\\s+", " ", cli::ansi_strip(tryCatch(update(cal), error = conditionMessage)))
    code <- regmatches(text, regexpr("calibrate\\(cal\\$model, [^`]*\\)", text))
    expect_length(code, 1L)
    eval(str2lang(sub("<the calibration rows>", "rows", code, fixed = TRUE)))
  }
  withr::local_seed(12)
  toy <- simulate_toy(500, seed = 12)
  toy$ref <- toy$truth + stats::rnorm(500, 0, 0.3)
  toy$other_ref <- toy$truth + stats::rnorm(500, 0, 0.6)
  d <- toy[301:500, ]
  # A fit without a reference: `reference` is required; with one, calibrate() would otherwise
  # take the fit's own column, not the one the calibration was made against.
  plain <- suppressWarnings(ncam(sensor_0 + sensor_1 ~ x1, data = toy[1:300, ], hidden = 4L, epochs = 5L,
                                 seed = 1L, threads = 1L))
  with_ref <- suppressWarnings(ncam(sensor_0 + sensor_1 ~ x1, data = toy[1:300, ], reference = "ref",
                                    hidden = 4L, epochs = 5L, seed = 1L, threads = 1L))
  for (made in list(calibrate(plain, d, method = "split", reference = "truth"),
                    calibrate(with_ref, d, method = "split", reference = "other_ref", level = 0.8),
                    calibrate(with_ref, d))) {
    again <- followed_advice(made, d)
    expect_identical(again$scores, made$scores)
    expect_identical(again$quantile, made$quantile)
  }
  # The column is kept, and the scores are against it: |other_ref - mean| / predictive sd.
  cal <- calibrate(with_ref, d, method = "split", reference = "other_ref")
  expect_identical(cal$reference, "other_ref")
  p <- predict(with_ref, d, interval = "prediction")
  expect_equal(cal$scores, sort(abs(d$other_ref - p$.pred) / p$.pred_sd))
  expect_null(calibrate(plain, d, method = "mc_model", m = 2, seed = 1)$reference)
  # A calibration saved before the column was kept: the advice names where it goes.
  cal$reference <- NULL
  expect_error(update(cal), "reference = <its reference column>", fixed = TRUE)
})

test_that("the in-sample warning of a label-free fit does not say a reference trained it", {
  toy <- simulate_toy(300, seed = 1)
  fit <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, hidden = 4, epochs = 10,
                               seed = 1, threads = 1), classes = c("ncam_warning_not_converged", "ncam_warning_clamp"))
  w <- expect_warning(calibrate(fit, toy, method = "split", reference = "truth", threads = 1),
                      class = "ncam_warning_in_sample_calibration")
  expect_match(conditionMessage(w), "never saw their reference readings, but was fitted to their sensor readings")
  expect_no_match(conditionMessage(w), "reference readings trained")
  # Its reference readings cannot be held out of a fit that never read them: held-out rows can.
  expect_no_match(conditionMessage(w), "set them to")
  expect_match(conditionMessage(w), "Calibrate on rows held out of the fit")
})

test_that("label-free calibration on training rows warns, except mc_model whose scores cannot tell", {
  toy <- simulate_toy(300, seed = 1)
  train <- toy[1:200, ]
  fit <- quick_fit(train)
  in_sample <- "ncam_warning_in_sample_calibration"
  for (method in c("mc_empirical", "sensor_anchored")) {
    w <- expect_warning(calibrate(fit, train, method = method), class = in_sample)
    expect_match(conditionMessage(w), "`data` is the data `object` was fitted to: the model was fitted to their sensor readings")
    expect_no_match(conditionMessage(w), "reference")
    # Part of the training rows, found in the fit's data, are counted.
    w <- expect_warning(calibrate(fit, rbind(train[1:30, ], toy[201:250, ]), method = method),
                        class = in_sample)
    expect_match(conditionMessage(w), "30 of the 80 rows of `data` are rows `object` was fitted to")
    expect_match(conditionMessage(w), "rows held out of the fit")
    expect_no_warning(calibrate(fit, toy[201:300, ], method = method))
  }
  # mc_model scores follow |N(0, 1)| on any rows: the threshold on training rows is that on new
  # rows (same seed, same number of rows), so no warning.
  expect_no_warning(on_train <- calibrate(fit, train[1:100, ], method = "mc_model", m = 5, seed = 1))
  expect_equal(on_train$quantile, calibrate(fit, toy[201:300, ], method = "mc_model", m = 5, seed = 1)$quantile,
               tolerance = 1e-4)
})

test_that("nobs() of a calibration counts its rows; the generics it has no answer for say what to use", {
  cal <- calibrate(fit, cal_data, method = "mc_model", m = 5, seed = 3)
  expect_identical(nobs(cal), nrow(cal_data))
  # ECDF: the holdout rows count too; split: the rows with a reference reading.
  expect_identical(nobs(calibrate(fit, cal_data, m = 5, seed = 3, correction = "ecdf")), nrow(cal_data))
  labelled <- cal_data
  labelled$truth[1:10] <- NA
  expect_identical(nobs(suppressMessages(calibrate(fit, labelled, method = "split", reference = "truth"))),
                   nrow(cal_data) - 10L)
  refusals <- list(fitted = "`fitted\\(cal\\$model\\)`", residuals = "`residuals\\(cal\\$model\\)`",
                   coef = "`tidy\\(cal\\)`.*`coef\\(cal\\$model\\)`", logLik = "`logLik\\(cal\\$model\\)`",
                   update = "calibrate\\(cal\\$model, <the calibration rows>, method = \"mc_model\", level = 0.9, m = 5, seed = 3\\)",
                   plot = "autoplot\\(cal, \"coverage\"",
                   # model.frame() returned the fit, formula() and terms() were R's own errors
                   model.frame = "`model.frame\\(cal\\$model\\)`", terms = "`terms\\(cal\\$model\\)`",
                   formula = "`formula\\(cal\\$model\\)`", vcov = "`tidy\\(cal\\)`.*`predict\\(cal, newdata\\)`",
                   sigma = "`tidy\\(cal\\)`")
  for (what in names(refusals)) {
    expect_error(get(what)(cal), paste0("`", what, "\\(\\)` has no meaning for a calibration.*", refusals[[what]]),
                 class = "ncam_error")
  }
})

test_that("split conformal gives rows without a reading the threshold of the prior-only scores", {
  sensors <- c("sensor_0", "sensor_1", "sensor_2")
  d <- cal_data[1:300, ]
  d[1:40, sensors] <- NA
  cal <- suppressMessages(calibrate(fit, d, method = "split", reference = "truth"))
  # Every row with a reference, scored against the estimate it has without any reading: by hand
  # from predict() of the rows with every reading removed.
  blank <- d
  blank[sensors] <- NA
  prior <- suppressWarnings(predict(fit, blank), classes = "ncam_warning_no_readings")
  prior_scores <- sort(abs(d$truth - prior$.pred) / prior$.pred_sd)
  expect_equal(cal$prior_scores, prior_scores)
  expect_identical(cal$n_prior, 300L)
  q_prior <- prior_scores[ceiling(0.9 * 301)]
  expect_equal(tidy(cal, level = 0.9)$quantile_no_readings, q_prior)
  # New rows: those without a reading get q_prior, the others the measured rows' threshold.
  new_rows <- test_data[1:50, ]
  new_rows[1:10, sensors] <- NA
  p <- suppressWarnings(predict(fit, new_rows), classes = "ncam_warning_no_readings")
  expect_warning(out <- predict(cal, new_rows), class = "ncam_warning_no_readings")
  q <- ifelse(p$.n_sensors == 0L, q_prior, cal$quantile)
  expect_equal(out$.pred_lower, p$.pred - q * p$.pred_sd)
  expect_equal(out$.pred_upper, p$.pred + q * p$.pred_sd)
  expect_output(print(cal), sprintf("rows without a reading: %s (prior-only scores of 300 rows)", format(q_prior, digits = 4)), fixed = TRUE)
  # The Monte Carlo and sensor-based methods keep one threshold for every row.
  model <- calibrate(fit, d, method = "mc_model", m = 5, seed = 1)
  expect_null(model$prior_scores)
  expect_identical(tidy(model, level = 0.9)$quantile_no_readings, model$quantile)
})

test_that("split conformal intervals of rows without a reading cover at their level", {
  # A Gaussian prior of a lognormal truth: the prior's own spread is wrong, and the threshold of
  # the measured rows (about 0.4-0.7 of the Gaussian one here) covered about half of the rows
  # without a reading (bench/calibrate_no_readings.R).
  set.seed(11)
  n <- 3800
  truth <- stats::rlnorm(n, log(10), 0.5)
  d <- data.frame(rh = stats::runif(n, 20, 90), a = 1.3 * truth + stats::rnorm(n),
                  b = 0.9 * truth + 1 + stats::rnorm(n), ref = truth + stats::rnorm(n, sd = 0.3))
  fit_ref <- suppressWarnings(ncam(a + b ~ rh, data = d[1:600, ], reference = "ref", hidden = 4, epochs = 100,
                                   seed = 1, threads = 1))
  cal <- calibrate(fit_ref, d[601:1600, ])
  test_rows <- d[1601:n, ]
  test_rows[c("a", "b")] <- NA
  out <- suppressWarnings(predict(cal, test_rows), classes = c("ncam_warning_no_readings", "ncam_warning_extrapolation"))
  covered <- mean(test_rows$ref >= out$.pred_lower & test_rows$ref <= out$.pred_upper)
  # Conformal coverage given 1000 calibration rows has sd sqrt(0.09 / 1000); 2200 test rows add
  # a binomial sd sqrt(0.09 / 2200): within 4 of their combined sd of 0.9.
  expect_lt(abs(covered - 0.9), 4 * sqrt(0.09 / 1000 + 0.09 / 2200))
})
