# The "factor" baseline: the one-factor measurement model fitted by maximum likelihood.

# Readings of the one-factor model theta ~ N(mu0, s0^2), b_j = a_j theta + c_j + N(0, s2_j),
# with a share `missing` of the readings set to NA (never a whole row).
factor_sensors <- function(n, gain, offset, noise_var, mu0 = 10, s0 = 2, missing = 0.15, seed = 1) {
  set.seed(seed)
  theta <- rnorm(n, mu0, s0)
  l <- length(gain)
  b <- vapply(seq_len(l), function(j) gain[j] * theta + offset[j] + rnorm(n, 0, sqrt(noise_var[j])), numeric(n))
  miss <- matrix(runif(n * l) < missing, n, l)
  miss[rowSums(!miss) == 0L, 1L] <- FALSE
  b[miss] <- NA
  colnames(b) <- paste0("s", seq_len(l))
  data.frame(b, truth = theta)
}

# Joint Gaussian of (theta, b) under the fitted parameters, for dense checks.
implied_moments <- function(p) {
  list(mean = p$gain * p$prior_mean + p$offset,
       cov = p$prior_var * tcrossprod(p$gain) + diag(p$noise_var),
       cross = p$prior_var * p$gain)
}

test_that("the grouped likelihood and its gradient match dense rows and finite differences", {
  set.seed(9)
  z <- matrix(rnorm(60 * 4), 60, 4)
  z[matrix(runif(240) < 0.3, 60, 4)] <- NA
  z[5, ] <- NA
  p <- list(prior_mean = 0.3, prior_var = 1.7, gain = c(1, 0.8, -0.4, 1.3), offset = c(0, 0.2, -0.5, 0.1),
            noise_var = c(0.5, 1.2, 0.8, 2))
  patterns <- missingness_patterns(z)
  dense <- sum(vapply(seq_len(nrow(z)), function(i) {
    o <- !is.na(z[i, ])
    if (!any(o)) return(0)
    s_oo <- p$prior_var * tcrossprod(p$gain[o]) + diag(p$noise_var[o], sum(o))
    r <- z[i, o] - p$gain[o] * p$prior_mean - p$offset[o]
    0.5 * (sum(o) * log(2 * pi) + determinant(s_oo)$modulus + sum(r * solve(s_oo, r)))
  }, numeric(1)))
  expect_equal(factor1_nll(p, patterns)$nll, dense, tolerance = 1e-12)
  grad <- unlist(factor1_nll(p, patterns, gradient = TRUE)$grad)
  flat <- unlist(p)
  rebuild <- function(x) relist(x, p)
  numeric_grad <- vapply(seq_along(flat), function(i) {
    h <- 1e-6
    (factor1_nll(rebuild(replace(flat, i, flat[i] + h)), patterns)$nll -
       factor1_nll(rebuild(replace(flat, i, flat[i] - h)), patterns)$nll) / (2 * h)
  }, numeric(1))
  expect_equal(unname(grad), unname(numeric_grad), tolerance = 1e-7)
})

test_that("the factor fit agrees with lavaan's full-information ML, with missing readings", {
  skip_if_not_installed("lavaan")
  gain <- c(1, 1.4, 0.6, 1.1)
  offset <- c(0, -2, 3, 1)
  noise_var <- c(0.64, 1.44, 0.49, 2.25)
  for (l in 3:4) {
    d <- factor_sensors(600, gain[1:l], offset[1:l], noise_var[1:l], seed = 20 + l)
    sensors <- paste0("s", 1:l)
    formula <- stats::reformulate("1", response = paste(sensors, collapse = " + "))
    fit <- ncam_baseline(formula, d, "factor")
    model <- paste0("theta =~ 1*s1 + ", paste(sensors[-1], collapse = " + "), "; s1 ~ 0*1; theta ~ 1")
    lav_fit <- lavaan::sem(model, d[sensors], missing = "ml")
    pe <- lavaan::parameterEstimates(lav_fit)
    # lavaan's estimates and standard errors of the parameters lhs op rhs.
    lav <- function(column, lhs, op, rhs) {
      unname(mapply(function(x, y) pe[[column]][pe$lhs == x & pe$op == op & pe$rhs == y], lhs, rhs))
    }
    free <- sensors[-1]

    expect_equal(as.numeric(logLik(fit)), as.numeric(lavaan::fitMeasures(lav_fit, "logl")), tolerance = 1e-4)
    expect_identical(attr(logLik(fit), "df"), 3L * l)
    p <- fit$params
    expect_equal(unname(p$gain[free]), lav("est", "theta", "=~", free), tolerance = 1e-4)
    expect_equal(unname(p$offset[free]), lav("est", free, "~1", ""), tolerance = 1e-4)
    expect_equal(unname(p$noise_var), lav("est", sensors, "~~", sensors), tolerance = 1e-4)
    expect_equal(generics::tidy(fit)$noise, sqrt(lav("est", sensors, "~~", sensors)), tolerance = 1e-4)
    expect_equal(p$prior_mean, lav("est", "theta", "~1", ""), tolerance = 1e-4)
    expect_equal(p$prior_var, lav("est", "theta", "~~", "theta"), tolerance = 1e-4)

    # Standard errors from the observed information, as lavaan computes them here.
    tidied <- generics::tidy(fit)
    expect_equal(tidied$gain_se[-1], lav("se", "theta", "=~", free), tolerance = 0.01)
    expect_equal(tidied$offset_se[-1], lav("se", free, "~1", ""), tolerance = 0.01)
    expect_equal(tidied$noise_var_se, lav("se", sensors, "~~", sensors), tolerance = 0.01)

    # Factor scores: the posterior (regression) mean given each row's observed readings.
    pred <- predict(fit, d)
    scores <- lavaan::lavPredict(lav_fit)[, 1]
    expect_lt(max(abs(pred$.pred - scores) / pred$.pred_sd), 0.01)
  }
})

test_that("the posterior and the log-likelihood equal dense Gaussian computations", {
  d <- factor_sensors(300, c(1, 1.5, 0.7), c(0, -3, 5), c(1, 4, 2.25), seed = 2)
  fit <- ncam_baseline(s1 + s2 + s3 ~ 1, d, "factor")
  p <- fit$params
  mom <- implied_moments(p)
  b <- as.matrix(d[c("s1", "s2", "s3")])
  dense <- t(vapply(seq_len(nrow(b)), function(i) {
    o <- !is.na(b[i, ])
    s_oo <- mom$cov[o, o, drop = FALSE]
    k <- mom$cross[o] %*% solve(s_oo)
    r <- b[i, o] - mom$mean[o]
    c(mean = p$prior_mean + sum(k * r), var = p$prior_var - sum(k * mom$cross[o]),
      loglik = -0.5 * (sum(o) * log(2 * pi) + determinant(s_oo)$modulus + sum(r * solve(s_oo, r))))
  }, numeric(3)))
  pred <- predict(fit, d)
  expect_equal(pred$.pred, dense[, "mean"], tolerance = 1e-10)
  expect_equal(pred$.pred_sd, sqrt(dense[, "var"]), tolerance = 1e-10)
  expect_equal(as.numeric(logLik(fit)), sum(dense[, "loglik"]), tolerance = 1e-10)
  expect_identical(nobs(fit), 300L)

  # The estimate is a maximum: moving any parameter lowers the dense log-likelihood.
  dense_loglik <- function(q) {
    m <- implied_moments(q)
    sum(vapply(seq_len(nrow(b)), function(i) {
      o <- !is.na(b[i, ])
      r <- b[i, o] - m$mean[o]
      s_oo <- m$cov[o, o, drop = FALSE]
      -0.5 * (sum(o) * log(2 * pi) + determinant(s_oo)$modulus + sum(r * solve(s_oo, r)))
    }, numeric(1)))
  }
  best <- dense_loglik(p)
  for (name in c("prior_mean", "prior_var")) {
    for (h in c(-1e-3, 1e-3)) {
      q <- p
      q[[name]] <- q[[name]] + h
      expect_lt(dense_loglik(q), best)
    }
  }
  for (name in c("gain", "offset", "noise_var")) {
    for (j in 2:3) {
      for (h in c(-1e-3, 1e-3)) {
        q <- p
        q[[name]][j] <- q[[name]][j] + h
        expect_lt(dense_loglik(q), best)
      }
    }
  }
})

test_that("the factor fit recovers the simulated parameters within their standard errors", {
  gain <- c(1, 1.5, 0.7, 2)
  offset <- c(0, -3, 5, 1)
  noise_var <- c(1, 4, 2.25, 9)
  d <- factor_sensors(20000, gain, offset, noise_var, mu0 = 20, s0 = 4, missing = 0.1, seed = 3)
  fit <- ncam_baseline(s1 + s2 + s3 + s4 ~ 1, d, "factor")
  tidied <- generics::tidy(fit)
  free <- 2:4
  expect_true(all(abs(tidied$gain[free] - gain[free]) < 4 * tidied$gain_se[free]))
  expect_true(all(abs(tidied$offset[free] - offset[free]) < 4 * tidied$offset_se[free]))
  expect_true(all(abs(tidied$noise_var - noise_var) < 4 * tidied$noise_var_se))
  se <- sqrt(diag(fit$params$vcov))
  expect_lt(abs(fit$params$prior_mean - 20), 4 * se[["prior_mean"]])
  expect_lt(abs(fit$params$prior_var - 16), 4 * se[["prior_var"]])
  # The anchor is fixed, not estimated.
  expect_identical(c(tidied$gain[1], tidied$offset[1]), c(1, 0))
  expect_identical(c(tidied$gain_se[1], tidied$offset_se[1]), c(NA_real_, NA_real_))
  expect_identical(tidied$anchor, c(TRUE, FALSE, FALSE, FALSE))
  # The standard errors shrink like 1/sqrt(n): a tenth of the rows, about sqrt(10) times wider.
  small <- ncam_baseline(s1 + s2 + s3 + s4 ~ 1, d[1:2000, ], "factor")
  ratio <- sqrt(diag(small$params$vcov)) / se
  expect_true(all(ratio > 2.5 & ratio < 4))
})

test_that("the factor model equals NCAM with constant heads and no penalty", {
  # NCAM with `~ 1`, no hidden layer, lambda_var = 0 and sigma_y2 = 0 is the same model, fitted
  # by full-batch Adam. Noise levels lie well inside its log-variance clamp (0.03 to 0.3 of
  # the anchor's variance), and 800 epochs bring Adam to the optimum to about 1e-8 here, so the
  # tolerances (1e-4 relative for parameters and log-likelihood, 1e-3 posterior sd for
  # predictions) only absorb optimiser noise.
  d <- factor_sensors(1500, c(1, 1.4, 0.6), c(0, -2, 3), c(0.64, 1.44, 0.49), missing = 0.1, seed = 31)
  fit <- ncam_baseline(s1 + s2 + s3 ~ 1, d, "factor")
  nc <- ncam(s1 + s2 + s3 ~ 1, d, hidden = integer(0), lambda_var = 0, sigma_y2 = 0, epochs = 800L,
             learn_rate = 0.02, batch_size = 1500L, validation = 0, stop_iter = 0L, seed = 1, threads = 1,
             control = ncam_control(precision = "double"))
  heads <- sensor_params(nc, d[1, ])
  p <- fit$params
  expect_equal(heads$a, unname(p$gain), tolerance = 1e-4)
  expect_equal(heads$c, unname(p$offset), tolerance = 1e-4)
  expect_equal(heads$sigma^2, unname(p$noise_var), tolerance = 1e-4)
  expect_equal(as.numeric(logLik(nc)), as.numeric(logLik(fit)), tolerance = 1e-4)
  # With an empty row: both give the prior there, and both warn of it.
  newdata <- rbind(d[1:200, ], data.frame(s1 = NA, s2 = NA, s3 = NA, truth = NA))
  expect_warning(ours <- predict(fit, newdata), "1 of 201 rows has no sensor reading.*row 201", class = "ncam_warning_no_readings")
  expect_warning(theirs <- predict(nc, newdata), "1 of 201 rows has no sensor reading.*row 201", class = "ncam_warning_no_readings")
  expect_lt(max(abs(theirs$.pred - ours$.pred) / ours$.pred_sd), 1e-3)
  expect_equal(theirs$.post_sd, ours$.pred_sd, tolerance = 1e-4)
  expect_identical(theirs$.n_sensors, ours$.n_sensors)
})

test_that("factor predictions on new data equal those on the training data, row for row", {
  d <- factor_sensors(500, c(1, 1.5, 0.7), c(0, -3, 5), c(1, 4, 2.25), seed = 4)
  d[7, 1:3] <- NA
  fit <- ncam_baseline(s1 + s2 + s3 ~ 1, d, "factor", train = 1:400)
  all_rows <- without_reading_warning(predict(fit, d, interval = "credible", level = 0.8))
  rows <- c(450, 7, 12, 500)
  expect_equal(without_reading_warning(predict(fit, d[rows, ], interval = "credible", level = 0.8)), all_rows[rows, ])
  expect_identical(all_rows$.n_sensors[7], 0L)
  expect_equal(all_rows$.pred[7], fit$params$prior_mean)
  expect_equal(all_rows$.pred_upper[7] - all_rows$.pred[7], qnorm(0.9) * sqrt(fit$params$prior_var))
  # Parameters come from the training rows only.
  expect_identical(ncam_baseline(s1 + s2 + s3 ~ 1, d[1:400, ], "factor")$params, fit$params)
  # Another anchor puts the fused value on that sensor's scale: theta' = a_2 theta + c_2.
  fit2 <- ncam_baseline(s1 + s2 + s3 ~ 1, d, "factor", anchor = "s2")
  fit1 <- ncam_baseline(s1 + s2 + s3 ~ 1, d, "factor")
  expect_equal(without_reading_warning(predict(fit2, d))$.pred,
               fit1$params$gain[["s2"]] * without_reading_warning(predict(fit1, d))$.pred + fit1$params$offset[["s2"]],
               tolerance = 1e-6)
})

test_that("non-identified and degenerate factor models are rejected or flagged", {
  d <- factor_sensors(200, c(1, 1.5, 0.7), c(0, -3, 5), c(1, 4, 2.25), missing = 0, seed = 5)
  expect_error(ncam_baseline(s1 + s2 ~ 1, d, "factor"), "needs at least 3 sensors, not 2", fixed = TRUE)
  expect_error(ncam_baseline(s1 + s2 ~ 1, d, "factor"), "the model is not identified", fixed = TRUE)
  # s1 read in the first half, s2 in the second: their covariance is unknown.
  apart <- d
  apart$s1[101:200] <- NA
  apart$s2[1:100] <- NA
  expect_error(ncam_baseline(s1 + s2 + s3 ~ 1, apart, "factor"),
               "Sensors \"s1\" and \"s2\" are observed together in 0 `train` rows", fixed = TRUE)
  flat <- d
  flat$s3 <- 5
  expect_error(ncam_baseline(s1 + s2 + s3 ~ 1, flat, "factor"), "Sensor column s3 reads 5 on every training row",
               fixed = TRUE)
  flat$s3 <- c(5, rep(NA, 199))
  expect_error(ncam_baseline(s1 + s2 + s3 ~ 1, flat, "factor"), "Sensor \"s3\" has fewer than 2 readings",
               fixed = TRUE)
  # A sensor that reads the truth exactly has zero noise: a Heywood case.
  exact <- d
  exact$s1 <- exact$truth
  # (At that boundary the optimiser also reports its gradient and the singular information.)
  warnings <- character()
  withCallingHandlers(ncam_baseline(s1 + s2 + s3 ~ 1, exact, "factor"), warning = function(w) {
    warnings <<- c(warnings, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  expect_true(any(grepl("Heywood case", warnings, fixed = TRUE)))
  # A sensor unrelated to the others leaves its gain near zero and the model weakly identified.
  set.seed(5)
  theta <- rnorm(200, 10, 2)
  unrelated <- data.frame(s1 = theta + rnorm(200), s2 = 1.5 * theta + rnorm(200, 0, 2), s3 = rnorm(200))
  expect_warning(ncam_baseline(s1 + s2 + s3 ~ 1, unrelated, "factor"),
                 "The gain of sensor \"s3\" is within 2 standard errors of zero", fixed = TRUE)
  # A singular information matrix gives no standard errors, with a warning: here only the
  # anchor is read, so nothing informs the other gains.
  z <- cbind(rnorm(50), NA, NA)
  std <- list(prior_mean = 0, prior_var = 0.5, gain = c(1, 1, 1), offset = c(0, 0, 0), noise_var = c(0.5, 0.5, 0.5))
  spread <- c(s1 = 1, s2 = 1, s3 = 1)
  expect_warning(info <- factor1_vcov(std, missingness_patterns(z), 1L, spread * 0, spread, NULL),
                 "information matrix", fixed = TRUE)
  expect_true(all(is.na(info$vcov)) && all(is.na(info$se)))
  expect_identical(dim(info$vcov), c(9L, 9L))
  expect_identical(names(info$se), rownames(info$vcov))
})

test_that("the factor fit is converged to rounding, so its estimates do not depend on the units", {
  # Newton steps used to stop at a gradient of 1e-8 per row, or when rounding made the
  # objective rise by 1e-12: estimates in other units then differed by up to 5e-10.
  set.seed(1)
  n <- 1200
  theta <- rgamma(n, 3, 0.3)
  rh <- runif(n, 20, 95)
  # s1's gain drifts with humidity: the model is misspecified, as with real sensors.
  d <- data.frame(s1 = theta * (1 + 0.005 * rh) + rnorm(n), s2 = 1.2 * theta + 2 + rnorm(n, 0, 1.5),
                  s3 = 0.9 * theta + rnorm(n, 0, 2))
  base_fit <- ncam_baseline(s1 + s2 + s3 ~ 1, d, "factor")
  base <- base_fit$params
  for (k in c(1e-100, 1e-8, 1e-5, 1e8, 1e100)) {
    fit <- ncam_baseline(s1 + s2 + s3 ~ 1, d * k, "factor")
    p <- fit$params
    expect_equal(c(p$prior_mean / k, p$prior_var / k^2), c(base$prior_mean, base$prior_var), tolerance = 1e-12)
    expect_equal(p$gain, base$gain, tolerance = 1e-12)
    expect_equal(p$offset / k, base$offset, tolerance = 1e-12)
    expect_equal(p$noise_var / k^2, base$noise_var, tolerance = 1e-12)
    # Standard errors too, though the variance of a noise variance (k^4) over- or underflows
    # at k = 1e+-100.
    expect_equal(p$se / k^c(1, 2, 0, 0, 1, 1, 2, 2, 2), base$se, tolerance = 1e-8)
    expect_equal(generics::tidy(fit)$noise_var_se / k^2, generics::tidy(base_fit)$noise_var_se, tolerance = 1e-8)
  }
  expect_equal(base$se, sqrt(diag(base$vcov)))
})
