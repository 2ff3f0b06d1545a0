# Rows of newdata without any sensor reading: every baseline warns as predict.ncam() does
# (class ncam_warning_no_readings, naming the rows) and gives what ?ncam_baseline documents:
# NA from "mean" and "ivw", the prior from "factor" and "ppca", the one-step prediction from
# "kalman".

# Sensors of one signal with their own offsets and noise, on days with a gap (days 41-45
# missing), and all-NA readings on `empty` rows.
no_readings_data <- function(empty, n = 300, seed = 31) {
  set.seed(seed)
  theta <- 20 + cumsum(rnorm(n, 0, 1))
  d <- data.frame(s1 = theta + rnorm(n, 0, 1), s2 = theta + 2 + rnorm(n, 0, 1.5),
                  s3 = theta - 1 + rnorm(n, 0, 2), s4 = theta + rnorm(n, 0, 0.8),
                  day = as.Date("2022-01-01") + c(1:40, 46:(n + 5)))
  d$s2[c(7, 60)] <- NA
  d[empty, c("s1", "s2", "s3", "s4")] <- NA
  d
}
sensors <- c("s1", "s2", "s3", "s4")

fit_method <- function(d, method, train) {
  suppressWarnings(ncam_baseline(s1 + s2 + s3 + s4 ~ 1, d, method, train = train,
                                 order = if (method == "kalman") "day"),
                   classes = "ncam_warning_heywood")
}

test_that("every baseline warns about the rows without readings, naming them, one output row per input row", {
  empty <- c(4, 9, 10, 250)
  d <- no_readings_data(empty)
  # newdata in shuffled row order: the rows named are rows of newdata as given.
  set.seed(2)
  shuffled <- d[sample(nrow(d)), ]
  empty_new <- which(rowSums(!is.na(shuffled[sensors])) == 0L)
  expect_length(empty_new, 4L)
  flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
  said <- c(mean = "their estimates are `NA` (.n_sensors = 0), as method \"mean\" only combines readings",
            ivw = "their estimates are `NA` (.n_sensors = 0), as method \"ivw\" only combines readings",
            ppca = "their estimates are the prior of the PPCA model, the same for every such row",
            kalman = "their estimates are the filter's prediction from the readings of the earlier rows, in the order of day",
            factor = "their estimates are the prior of the factor model, the same for every such row")
  for (m in names(said)) {
    fit <- fit_method(d, m, train = 1:200)
    warned <- expect_warning(out <- predict(fit, shuffled), class = "ncam_warning_no_readings")
    expect_s3_class(warned, "ncam_row_warning")
    expect_match(flat(warned), paste0("4 of 300 rows have no sensor reading: ", said[[m]]), fixed = TRUE, info = m)
    expect_match(flat(warned), paste0("rows ", paste(empty_new, collapse = ", ")), fixed = TRUE, info = m)
    expect_match(flat(warned), "Leave them out (`.n_sensors > 0`)", fixed = TRUE, info = m)
    expect_identical(nrow(out), 300L)
    expect_identical(out$.n_sensors, as.integer(rowSums(!is.na(shuffled[sensors]))))
    # The other rows are those of a prediction without the empty rows, in order (the filter's
    # estimates depend on the rows it has seen, so not for "kalman").
    if (m != "kalman") {
      expect_no_warning(kept <- predict(fit, shuffled[-empty_new, ]), class = "ncam_warning_no_readings")
      expect_identical(out[-empty_new, ], kept)
    }
    # augment() passes the warning on, and keeps the rows in order.
    expect_warning(augmented <- augment(fit, shuffled), class = "ncam_warning_no_readings")
    expect_identical(augmented$.pred, out$.pred)
  }
  # One row: said in the singular; more than five: the first five.
  fit <- fit_method(d, "mean", train = 1:200)
  expect_warning(predict(fit, d[c(1, 4), ]), "1 of 2 rows has no sensor reading: its estimate is", class = "ncam_warning_no_readings")
  many <- d
  many[c(20, 30, 40, 50, 60, 70, 80), sensors] <- NA
  warned <- expect_warning(predict(fit, many), class = "ncam_warning_no_readings")
  expect_match(flat(warned), "11 of 300 rows have no sensor reading", fixed = TRUE)
  expect_match(flat(warned), "rows 4, 9, 10, 20, 30, ...", fixed = TRUE)
})

test_that("mean and ivw give NA on a row without readings", {
  empty <- c(4, 9, 10)
  d <- no_readings_data(empty)
  for (m in c("mean", "ivw")) {
    fit <- fit_method(d, m, train = 1:200)
    out <- suppressWarnings(predict(fit, d), classes = "ncam_warning_no_readings")
    expect_true(all(is.na(out$.pred[empty])), info = m)
    expect_false(anyNA(out$.pred[-empty]), info = m)
  }
  fit <- fit_method(d, "ivw", train = 1:200)
  out <- suppressWarnings(predict(fit, d, interval = "credible"), classes = c("ncam_warning_no_readings", "ncam_warning_few_training_rows"))
  expect_true(all(is.na(unlist(out[empty, c(".pred_sd", ".pred_lower", ".pred_upper")]))))
})

test_that("factor and ppca give their prior on a row without readings", {
  empty <- c(4, 9, 10)
  d <- no_readings_data(empty)
  fit <- fit_method(d, "factor", train = 1:200)
  out <- suppressWarnings(predict(fit, d, interval = "credible", level = 0.8),
                          classes = c("ncam_warning_no_readings", "ncam_warning_few_training_rows"))
  # theta ~ N(mu0, s0^2) and the anchor reads theta + noise: the prior mean is the mean of the
  # anchor's expected reading, its variance that of the anchor's readings less the noise.
  p <- fit$params
  expect_equal(out$.pred[empty], rep(p$prior_mean, 3))
  expect_equal(out$.pred_sd[empty], rep(sqrt(p$prior_var), 3))
  expect_equal(out$.pred_upper[empty], rep(p$prior_mean + qnorm(0.9) * sqrt(p$prior_var), 3))
  expect_lt(abs(p$prior_mean - mean(d$s1[1:200], na.rm = TRUE)), 3 * sqrt(p$prior_var / 197))
  expect_equal(p$prior_var, var(d$s1[1:200], na.rm = TRUE) - p$noise_var[["s1"]], tolerance = 0.05)

  # PPCA: z has the prior N(0, 1) without readings, mapped to the anchor by c0 + c1 z, where
  # (c0, c1) is the least-squares line of the anchor on z's posterior mean over the training
  # rows, that posterior written out from the joint Gaussian of (z, b).
  fit <- fit_method(d, "ppca", train = 1:200)
  out <- suppressWarnings(predict(fit, d, interval = "credible", level = 0.8), classes = "ncam_warning_no_readings")
  p <- fit$params
  c_bb <- tcrossprod(p$loadings) + diag(p$sigma2, 4)
  b <- as.matrix(d[1:200, sensors])
  z <- vapply(seq_len(200), function(i) {
    o <- !is.na(b[i, ])
    if (!any(o)) return(NA_real_)
    drop(t(p$loadings[o]) %*% solve(c_bb[o, o, drop = FALSE], b[i, o] - p$mu[o]))
  }, numeric(1))
  line <- unname(coef(lm(b[, "s1"] ~ z)))
  expect_equal(out$.pred[empty], rep(line[1], 3), tolerance = 1e-10)
  expect_equal(out$.pred_sd[empty], rep(abs(line[2]), 3), tolerance = 1e-10)
  expect_equal(out$.pred_lower[empty], rep(line[1] - qnorm(0.9) * abs(line[2]), 3), tolerance = 1e-10)
})

test_that("kalman gives the one-step prediction on a row without readings, across a gap in time", {
  # Empty rows: the earliest day of newdata (the prediction from the initial state), two
  # consecutive days, and the first day after the five-day gap.
  empty <- c(1, 20, 21, 41)
  d <- no_readings_data(empty)
  fit <- fit_method(d, "kalman", train = 1:200)
  p <- fit$params
  expect_identical(p$step, 1)
  newdata <- d[c(150:1, 151:200), ]  # in reverse: the filter follows `day`
  out <- suppressWarnings(predict(fit, newdata, interval = "credible"),
                          classes = c("ncam_warning_no_readings", "ncam_warning_few_training_rows"))
  # The filter written out reading by reading: predict the state over the days since the
  # previous row, then update it by each observed reading in turn.
  visit <- order(newdata$day)
  m <- p$m0
  v <- p$P0
  previous <- newdata$day[visit[1]] - 1
  expected_mean <- expected_sd <- numeric(nrow(newdata))
  for (i in visit) {
    days <- as.numeric(newdata$day[i] - previous)
    v <- v + p$q * days
    for (s in sensors) {
      r <- newdata[[s]][i]
      if (is.na(r)) next
      gain <- v / (v + p$sensor_var[[s]])
      m <- m + gain * (r - m)
      v <- (1 - gain) * v
    }
    expected_mean[i] <- m
    expected_sd[i] <- sqrt(v)
    previous <- newdata$day[i]
  }
  at <- match(empty, as.integer(rownames(newdata)))
  expect_equal(out$.pred, expected_mean, tolerance = 1e-10)
  expect_equal(out$.pred_sd, expected_sd, tolerance = 1e-10)
  # The earliest day: N(m0, P0 + q); the day after the gap: the day before's, 6 days wider.
  expect_equal(c(out$.pred[at[1]], out$.pred_sd[at[1]]^2), c(p$m0, p$P0 + p$q), tolerance = 1e-12)
  before_gap <- match(40, as.integer(rownames(newdata)))
  expect_equal(out$.pred[at[4]], out$.pred[before_gap], tolerance = 1e-12)
  expect_equal(out$.pred_sd[at[4]]^2, out$.pred_sd[before_gap]^2 + 6 * p$q, tolerance = 1e-10)
  expect_identical(out$.n_sensors[at], rep(0L, 4))
})

test_that("the scatter and coverage plots leave out rows without a reading, as evaluate_fusion() does", {
  empty <- c(4, 9, 10, 250)
  d <- no_readings_data(empty)
  d$truth <- rowMeans(d[c("s1", "s4")], na.rm = TRUE)
  d$truth[empty] <- 20  # a reference beside rows whose estimate is the factor model's prior
  fit <- fit_method(d, "factor", train = 1:200)
  pred <- suppressWarnings(predict(fit, d), classes = "ncam_warning_no_readings")
  measured <- pred$.n_sensors > 0
  error <- pred$.pred[measured] - d$truth[measured]
  scatter <- suppressWarnings(ggplot2::autoplot(fit, "scatter", newdata = d, reference = "truth"),
                              classes = c("ncam_warning_no_readings", "ncam_warning_few_training_rows"))
  expect_identical(nrow(ggplot2::layer_data(scatter, 2)), sum(measured))
  expect_match(scatter$labels$subtitle, sprintf("^n = %d, bias = %.3g, RMSE = %.3g,", sum(measured), mean(error),
                                                 sqrt(mean(error^2))))
  expect_match(scatter$labels$caption, "4 rows without a sensor reading (the model's prior, not a measurement) not shown.",
               fixed = TRUE)
  coverage <- suppressWarnings(ggplot2::autoplot(fit, "coverage", newdata = d, reference = "truth"),
                               classes = c("ncam_warning_no_readings", "ncam_warning_few_training_rows"))
  expect_match(coverage$labels$subtitle, sprintf("^%d rows with both", sum(measured)))
})
