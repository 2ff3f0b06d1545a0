test_that("print, summary, coef, residuals and plot describe the fit", {
  toy <- simulate_toy(n = 400, seed = 31)
  toy$sensor_2[3] <- NA
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy, hidden = c(4L, 3L), epochs = 3L,
                        seed = 1, threads = 1))
  expect_snapshot(print(fit))
  s <- summary(fit)
  expect_s3_class(s, "summary.ncam")
  expect_equal(s$sensors$sensor, fit$sensors)
  post <- ncam:::ncam_posterior(fit, toy)
  expect_equal(s$sensors$a, unname(colMeans(post$a)))
  expect_equal(s$sensors$sigma, unname(colMeans(sqrt(post$sigma2))))
  expect_equal(s$sensors$c_sd, unname(apply(post$c, 2, sd)))
  expect_equal(s$sensors$a_q90, unname(apply(post$a, 2, quantile, 0.9)))
  # Computing the fitted summary in small blocks gives the same result as in one block.
  x <- ncam:::new_design(fit, toy)
  b <- ncam:::sensor_columns(toy, fit$sensors, "none")
  usable <- rep(TRUE, nrow(toy))
  one <- ncam:::fitted_summary(fit, x, b, usable, 0, 1L)
  blocks <- ncam:::fitted_summary(fit, x, b, usable, 0, 1L, block_rows = 37L)
  expect_equal(blocks, one, tolerance = 1e-6)  # float kernels differ in the last bits by block size
  expect_equal(tibble::as_tibble(one$sensor_summary), s$sensors)
  expect_s3_class(s$sensors, "tbl_df")
  expect_s3_class(s$calibration_range, "tbl_df")
  expect_equal(one$loglik, as.numeric(logLik(fit)))
  expect_output(print(s), "Sensor model")
  expect_output(print(s), "log-likelihood of the readings: -?[0-9]")
  expect_output(print(s), "Range of the fitted rows")
  expect_equal(s$calibration_range$lower[s$calibration_range$variable == "x2"], min(toy$x2))
  expect_equal(s$calibration_range$upper[s$calibration_range$variable == "x1"], max(toy$x1))

  co <- coef(fit)
  expect_named(co, c("prior", "reliability", "bias"))
  expect_named(co$prior, c("layer1", "layer2", "layer3"))
  expect_equal(dim(co$prior$layer1$weight), c(4L, 2L))
  expect_equal(dim(co$reliability$layer3$weight), c(3L, 3L))
  expect_equal(dim(co$bias$layer3$weight), c(4L, 3L))
  expect_equal(length(unlist(co)), length(fit$params))

  # vcov() (and confint()) and sigma() have no meaning: errors pointing to where the uncertainty
  # is (they were "no applicable method" and stats' empty numeric).
  for (what in c("vcov", "confint")) {
    expect_error(get(what)(fit), "no covariance matrix.*interval = \"prediction\".*`tidy\\(fit\\)`", class = "ncam_error")
  }
  expect_error(sigma(fit), "no single residual sd.*`sensor_params\\(fit, newdata\\)`", class = "ncam_error")

  res <- residuals(fit)
  expect_equal(dim(res), c(400L, 3L))
  expect_true(is.na(res[3, 3]))
  expect_equal(res[, 2], (toy$sensor_1 - post$c[, 2]) / post$a[, 2] - post$mu)

  f <- withr::local_tempfile(fileext = ".png")
  grDevices::png(f)
  expect_invisible(plot(fit))
  # A positional second argument was ignored: plot(fit, "series") drew the training curves.
  expect_error(plot(fit, "series"), "`plot\\(\\)` of a fit takes no `y`; it was given `\"series\"`.*`ggplot2::autoplot\\(fit, type\\)`",
               class = "ncam_error")
  grDevices::dev.off()
  expect_gt(file.size(f), 0)
})

test_that("ncam_threads follows argument, option, environment variable, then 2", {
  withr::local_envvar(NCAM_THREADS = NA, OMP_THREAD_LIMIT = NA)
  withr::local_options(ncam.threads = NULL)
  expect_equal(ncam_threads(), 2L)
  expect_equal(ncam_threads(1), 1L)
  withr::local_envvar(NCAM_THREADS = "3")
  expect_equal(ncam_threads(), 3L)
  withr::local_options(ncam.threads = 1)
  expect_equal(ncam_threads(), 1L)
  withr::local_envvar(OMP_THREAD_LIMIT = "2")
  expect_equal(ncam_threads(4), 2L)
  expect_snapshot(error = TRUE, ncam_threads(1.5))
})

test_that("ncam_threads() errors name ncam_threads(), or the ncam function that called it", {
  direct <- tryCatch(eval(quote(ncam_threads(0)), new.env()), error = identity)
  expect_identical(conditionCall(direct), quote(ncam_threads(0)))
  wrapped <- function() ncam_threads("2")
  expect_identical(conditionCall(tryCatch(wrapped(), error = identity)), quote(ncam_threads("2")))
  toy <- simulate_toy(300, seed = 1)
  from_ncam <- tryCatch(ncam(sensor_0 + sensor_1 ~ x1, toy, threads = 0), error = identity)
  expect_identical(conditionCall(from_ncam)[[1]], quote(ncam))
  # Not internal helpers (ncam_posterior(), worker_threads()): the function the user called.
  fit <- quick_fit(toy)
  from_predict <- tryCatch(predict(fit, toy, threads = 0), error = identity)
  expect_match(deparse(conditionCall(from_predict)[[1]]), "^predict")
  toy$site <- rep(c("a", "b"), 150)
  from_by <- tryCatch(ncam_by(sensor_0 + sensor_1 ~ x1, toy, by = "site", threads = 0), error = identity)
  expect_identical(conditionCall(from_by)[[1]], quote(ncam_by))
})

test_that("printed output and messages name covariates as the formula wrote them", {
  toy <- simulate_toy(n = 300, seed = 5)
  toy$`air temp` <- toy$x1
  toy$wet <- toy$x2 > 0
  toy$flat <- 1
  expect_warning(fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ `air temp` + wet + poly(x2, 2) + flat,
                                       data = toy, hidden = 3L, epochs = 2L, seed = 1, threads = 1)),
                 "constant covariate \"flat\"", class = "ncam_warning_dropped_covariate")
  # The design's columns carry R's names; the user sees the terms, and not the dropped constant.
  expect_setequal(fit$covariates, c("`air temp`", "wetTRUE", "poly(x2, 2)1", "poly(x2, 2)2"))
  expect_output(print(fit), "Covariates: air temp, wet, and poly(x2, 2)", fixed = TRUE)
  range_table <- summary(fit)$calibration_range
  expect_true("air temp" %in% range_table$variable)
  expect_false(any(grepl("`", range_table$variable, fixed = TRUE)))
  far <- toy[1:3, ]
  far$`air temp` <- max(toy$x1) + 10 * diff(range(toy$x1))
  expect_warning(predict(fit, far), "air temp: 3 rows outside", class = "ncam_warning_extrapolation")
  skip_if_not_installed("ggplot2")
  # autoplot's sensor panel takes the first numeric variable of the formula for its x axis.
  p <- ggplot2::autoplot(fit, "sensors", newdata = toy)
  expect_identical(p$labels$x, "air temp")
  fit_poly <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ poly(x2, 2), data = toy,
                             hidden = 3L, epochs = 2L, seed = 1, threads = 1))
  expect_identical(ggplot2::autoplot(fit_poly, "sensors", newdata = toy)$labels$x, "x2")
})

test_that("print() and summary() say which rows of the data were left out, and why", {
  toy <- simulate_toy(n = 400, seed = 1)
  toy$x1[1:50] <- NA
  toy[60:62, c("sensor_0", "sensor_1", "sensor_2")] <- NA
  toy$sensor_1[100] <- -999  # a gross outlier, screened out
  fit <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, toy, hidden = 4, epochs = 3, seed = 1,
                               threads = 1))
  used <- 400 - 50 - 3
  expect_identical(fit$n_train + fit$n_validation, as.integer(used))
  left <- "53 of 400 left out (50 with a missing covariate, 3 without a reading)"
  expect_output(print(fit), left, fixed = TRUE)
  expect_output(print(fit), "Readings left out as gross outliers: sensor_1 1", fixed = TRUE)
  expect_output(print(summary(fit)), paste0(left, "; best epoch ", fit$best_epoch, " of 3"), fixed = TRUE)
})

test_that("fitted(), residuals() and sensor_params() point new_data to newdata", {
  toy <- simulate_toy(n = 200, seed = 5)
  fit <- quick_fit(toy)
  for (estimate in list(fitted, residuals, sensor_params)) {
    expect_error(estimate(fit, new_data = toy), "Did you mean `newdata`")
  }
})
