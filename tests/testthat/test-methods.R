test_that("print, summary, coef, residuals and plot describe the fit", {
  toy <- simulate_toy(n = 400, seed = 31)
  toy$sensor_2[3] <- NA
  fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy, hidden = c(4L, 3L), epochs = 3L,
              seed = 1, threads = 1)
  expect_snapshot(print(fit))
  s <- summary(fit)
  expect_s3_class(s, "summary.ncam")
  expect_equal(s$sensors$sensor, fit$sensors)
  post <- ncam:::ncam_posterior(fit, toy)
  expect_equal(s$sensors$a, unname(colMeans(post$a)))
  expect_equal(s$sensors$sigma, unname(colMeans(sqrt(post$sigma2))))
  expect_equal(s$sensors$c_sd, unname(apply(post$c, 2, sd)))
  expect_equal(s$sensors$a_q90, unname(apply(post$a, 2, quantile, 0.9)))
  # Computing the fitted posterior in small blocks gives the same result as in one block.
  x <- do.call(cbind, ncam:::new_design(fit, toy))  # a matrix: fitted_posterior() takes either form
  b <- ncam:::sensor_columns(toy, fit$sensors, "none")
  usable <- rep(TRUE, nrow(toy))
  one <- ncam:::fitted_posterior(fit, x, b, usable, 1L)
  blocks <- ncam:::fitted_posterior(fit, x, b, usable, 1L, block_rows = 37L)
  expect_equal(blocks, one, tolerance = 1e-6)  # float kernels differ in the last bits by block size
  expect_equal(one$sensor_summary, s$sensors)
  expect_equal(one$residuals, residuals(fit))
  expect_output(print(s), "Sensor model")

  co <- coef(fit)
  expect_named(co, c("prior", "reliability", "bias"))
  expect_named(co$prior, c("layer1", "layer2", "layer3"))
  expect_equal(dim(co$prior$layer1$weight), c(4L, 2L))
  expect_equal(dim(co$reliability$layer3$weight), c(3L, 3L))
  expect_equal(dim(co$bias$layer3$weight), c(4L, 3L))
  expect_equal(length(unlist(co)), length(fit$params))

  res <- residuals(fit)
  expect_equal(dim(res), c(400L, 3L))
  expect_true(is.na(res[3, 3]))
  expect_equal(res[, 2], (toy$sensor_1 - post$c[, 2]) / post$a[, 2] - post$mu)

  f <- withr::local_tempfile(fileext = ".png")
  grDevices::png(f)
  expect_invisible(plot(fit))
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
