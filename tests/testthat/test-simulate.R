# Independent reimplementation of the appendix's deterministic parts, used as
# the reference in the checks below.
toy_coords <- function(d) {
  list(lt = (d$lon - 4.40) / 0.05, pt = (d$lat - 51.215) / 0.05)
}

toy_mean_field <- function(d) {
  p <- attr(d, "params")
  xy <- toy_coords(d)
  bg <- 0.3 * sin(2 * pi * xy$lt) + 0.25 * cos(2 * pi * xy$pt) +
    0.1 * sin(2 * pi * xy$lt) * cos(2 * pi * xy$pt)
  hot <- rowSums(vapply(1:2, function(k) {
    p$A[k] * exp(-((xy$lt - p$m_lambda[k])^2 + (xy$pt - p$m_phi[k])^2) / p$tau[k])
  }, numeric(nrow(d))))
  15 + 5 * bg + hot
}

test_that("simulate_toy() returns the documented columns and parameters", {
  d <- simulate_toy(50, seed = 1)
  expect_s3_class(d, "tbl_df")  # as simulate_colocation()
  expect_identical(dim(d), c(50L, 10L))
  expect_named(d, c("lon", "lat", "x1", "x2", "x3", "x4",
                    "sensor_0", "sensor_1", "sensor_2", "truth"))
  expect_true(all(vapply(d, is.double, logical(1))))
  p <- attr(d, "params")
  expect_named(p, c("m_lambda", "m_phi", "A", "tau", "alpha0", "beta0", "beta1", "beta2",
                    "ambiguity", "spatial_noise"))
  expect_length(p$m_lambda, 2)
  expect_length(p$tau, 2)
  expect_true(all(p$A >= 2 & p$A <= 5))
  expect_true(all(p$tau >= 0.06 & p$tau <= 0.15))
  expect_true(all(c(p$m_lambda, p$m_phi) >= -0.3 & c(p$m_lambda, p$m_phi) <= 1.3))
  expect_identical(nrow(simulate_toy(1, seed = 1)), 1L)
})

test_that("a seed makes the data reproducible without touching the global stream", {
  set.seed(42)
  before <- .Random.seed
  a <- simulate_toy(100, seed = 7)
  expect_identical(.Random.seed, before)
  expect_identical(simulate_toy(100, seed = 7), a)
  expect_false(identical(simulate_toy(100, seed = 8), a))

  # seed = NULL draws from the current stream, so set.seed() applies.
  set.seed(3)
  b <- simulate_toy(100)
  set.seed(3)
  expect_identical(simulate_toy(100), b)
  expect_false(identical(.Random.seed, before))

  # No RNG state before the call: none is left behind either.
  old <- .Random.seed
  rm(".Random.seed", envir = globalenv())
  on.exit(assign(".Random.seed", old, envir = globalenv()))
  simulate_toy(5, seed = 1)
  expect_false(exists(".Random.seed", envir = globalenv(), inherits = FALSE))
})

test_that("locations and covariates follow the authors' domain and normalisation", {
  d <- simulate_toy(5000, seed = 11)
  expect_true(all(d$lon >= 4.35 & d$lon <= 4.45))
  expect_true(all(d$lat >= 51.18 & d$lat <= 51.25))
  xy <- toy_coords(d)
  expect_equal(range(xy$lt), c(-1, 1), tolerance = 0.01)
  expect_equal(range(xy$pt), c(-0.7, 0.7), tolerance = 0.01)
  expect_equal(d$x1, sin(2 * pi * xy$lt), tolerance = 1e-12)
  expect_equal(d$x2, cos(2 * pi * xy$lt), tolerance = 1e-12)
  expect_equal(d$x3, sin(2 * pi * xy$pt), tolerance = 1e-12)
  expect_equal(d$x4, cos(2 * pi * xy$pt), tolerance = 1e-12)
})

test_that("without ambiguity or spatial noise everything is deterministic", {
  d <- simulate_toy(2000, ambiguity = 0, spatial_noise = 0, seed = 5)
  p <- attr(d, "params")
  expect_identical(c(p$alpha0, p$beta0, p$beta1, p$beta2), c(1, 0, 0, 0))
  expect_equal(d$truth, pmax(toy_mean_field(d), 0), tolerance = 1e-12)
  expect_identical(d$sensor_0, pmax(1 * d$truth + 0 + 0, 0))
  expect_identical(d$sensor_1, pmax(1.2 * d$truth + 0 + 0, 0))
  expect_identical(d$sensor_2, pmax(1.4 * d$truth + 0 + 0, 0))
})

test_that("the spatial noise of the truth has the requested sd", {
  d <- simulate_toy(20000, ambiguity = 0, spatial_noise = 2, seed = 6)
  resid <- d$truth - toy_mean_field(d)
  expect_lt(abs(mean(resid)), 4 * 2 / sqrt(20000))
  expect_equal(sd(resid), 2, tolerance = 0.03)
})

test_that("sensor noise matches the appendix's mechanisms", {
  n <- 20000
  g <- 3
  # No spatial noise keeps the truth far from zero, so truncation never acts.
  d <- simulate_toy(n, ambiguity = g, spatial_noise = 0, seed = 21)
  p <- attr(d, "params")
  xy <- toy_coords(d)
  expect_gt(min(d$truth), 8)

  r0 <- d$sensor_0 - (p$alpha0 * d$truth + p$beta0 +
                        0.15 * g * sin(4 * pi * xy$lt) * cos(4 * pi * xy$pt))
  expect_lt(abs(mean(r0)), 4 * 0.8 * g / sqrt(n))
  expect_equal(sd(r0), 0.8 * g, tolerance = 0.03)

  z1 <- (d$sensor_1 - (1.2 * d$truth + p$beta1 + 0.4 * g * cos(6 * pi * xy$pt))) /
    ((1 + 0.02 * d$truth) * g)
  expect_lt(abs(mean(z1)), 4 / sqrt(n))
  expect_equal(sd(z1), 1, tolerance = 0.03)
})

test_that("about 5% of sensor 2 readings are 3-sigma outliers", {
  n <- 50000
  g <- 0.5 # small enough that sensor 2 is never truncated
  d <- simulate_toy(n, ambiguity = g, spatial_noise = 0, seed = 22)
  p <- attr(d, "params")
  xy <- toy_coords(d)
  z2 <- (d$sensor_2 - (1.4 * d$truth + p$beta2 + 0.5 * g * sin(5 * pi * xy$lt * xy$pt))) /
    ((1.3 + 0.03 * d$truth) * g)
  expect_true(all(d$sensor_2 > 0))
  # Inliers are N(0, 1); outliers N(0, 1 + 3^2). Invert the exceedance rate of
  # |z| > 3 for the outlier fraction and compare with a binomial tolerance.
  q_in <- 2 * pnorm(-3)
  q_out <- 2 * pnorm(-3 / sqrt(10))
  frac <- mean(abs(z2) > 3)
  p_out <- (frac - q_in) / (q_out - q_in)
  q_expected <- 0.95 * q_in + 0.05 * q_out
  se <- sqrt(q_expected * (1 - q_expected) / n) / (q_out - q_in)
  expect_lt(abs(p_out - 0.05), 4 * se)
  # Second moment of the mixture: 0.95 * 1 + 0.05 * 10.
  expect_equal(mean(z2^2), 1.45, tolerance = 0.06)
})

test_that("the truth and all sensors are truncated at zero", {
  d <- simulate_toy(3000, ambiguity = 5, spatial_noise = 20, seed = 9)
  cols <- c("truth", "sensor_0", "sensor_1", "sensor_2")
  expect_true(all(vapply(d[cols], function(x) all(x >= 0), logical(1))))
  expect_true(all(vapply(d[cols], function(x) any(x == 0), logical(1))))
})

test_that("the largest scales allowed give finite readings, larger ones are refused", {
  d <- simulate_toy(2000, ambiguity = 1e6, spatial_noise = 1e6, seed = 3)
  expect_true(all(vapply(d, function(x) all(is.finite(x)), logical(1))))
  expect_error(simulate_toy(10, ambiguity = 1e308), "`ambiguity` must be a number between 0 and 1e\\+06")
  expect_error(simulate_toy(10, spatial_noise = 1e308), "`spatial_noise` must be a number between 0 and 1e\\+06")
})

test_that("simulate_toy() rejects bad arguments", {
  expect_snapshot(error = TRUE, simulate_toy(n = 0))
  expect_snapshot(error = TRUE, simulate_toy(n = 2.5))
  expect_snapshot(error = TRUE, simulate_toy(ambiguity = -1))
  expect_snapshot(error = TRUE, simulate_toy(spatial_noise = NA))
  expect_snapshot(error = TRUE, simulate_toy(seed = "a"))
})
