# The expected lag is computed from the theoretical AR(1) ACF phi^k and the
# band qnorm((1 + level) / 2) / sqrt(n), independently of select_gap(). Parameters
# are chosen so that phi^(k-1) and phi^k lie well outside and inside the band.

expected_ar1_lag <- function(phi, n, level) {
  band <- qnorm((1 + level) / 2) / sqrt(n)
  k <- 1
  while (phi^k >= band) k <- k + 1
  k
}

ar1 <- function(phi, n, seed) {
  set.seed(seed)
  as.numeric(stats::filter(rnorm(n), phi, method = "recursive"))
}

test_that("select_gap finds the lag where the AR(1) ACF enters the band", {
  x <- ar1(0.2, 1900, seed = 1)
  g <- select_gap(x, max_lag = 10, level = 0.9999)
  expect_s3_class(g, "ncam_gap")
  expect_equal(expected_ar1_lag(0.2, 1900, 0.9999), 2)
  expect_identical(g$gap, 2L)
  expect_equal(unname(g$band), qnorm((1 + 0.9999) / 2) / sqrt(1900))

  x <- ar1(0.1, 10800, seed = 2)
  g <- select_gap(x, max_lag = 5, level = 0.999)
  expect_identical(g$gap, as.integer(expected_ar1_lag(0.1, 10800, 0.999)))
})

test_that("the ACF matches stats::acf without missing values", {
  x <- ar1(0.6, 300, seed = 3)
  g <- select_gap(x, max_lag = 15)
  ref <- stats::acf(x, lag.max = 15, plot = FALSE)$acf[, 1, 1]
  expect_equal(g$acf$acf, ref)
  expect_equal(g$acf$lag, 0:15)
  # The selected lag is the first with |acf| below the band, from stats::acf.
  band <- qnorm(0.975) / sqrt(300)
  expect_identical(g$gap, as.integer(which(abs(ref[-1]) < band)[1]))
})

test_that("with dates the series is regularised and lags are durations", {
  n <- 1900
  x <- ar1(0.2, n, seed = 1)
  t <- as.POSIXct("2024-05-01", tz = "UTC") + 3600 * seq(0, n - 1)
  keep <- setdiff(seq_len(n), c(100, 500:502, 1200))
  shuffle <- sample(keep)
  g <- select_gap(x[shuffle], date = t[shuffle], max_lag = "10 hours", level = 0.9999)
  expect_s3_class(g$gap, "difftime")
  expect_equal(as.numeric(g$gap, units = "hours"), 2)
  expect_equal(g$step, 3600)
  expect_equal(as.numeric(max(g$acf$lag), units = "hours"), 10)
  expect_equal(unname(g$n), length(keep))
  # Half-hourly readings averaged per hour grid cell when irregular: the
  # median spacing sets the grid.
  t2 <- as.POSIXct("2024-05-01", tz = "UTC") + 1800 * seq(0, 399)
  g2 <- select_gap(rnorm(400), date = t2, max_lag = "3 hours")
  expect_equal(nrow(g2$acf), 7)
  expect_equal(g2$step, 1800)
})

test_that("a matrix gives per-series ACFs and the largest selected lag", {
  a <- ar1(0.1, 10800, seed = 2)
  b <- ar1(0.2, 10800, seed = 5)
  g <- select_gap(cbind(a = a, b = b), max_lag = 5, level = 0.999)
  expect_identical(g$gap, as.integer(max(expected_ar1_lag(0.1, 10800, 0.999),
                                         expected_ar1_lag(0.2, 10800, 0.999))))
  expect_setequal(unique(g$acf$series), c("a", "b"))
  expect_equal(g$acf$acf[g$acf$series == "b"], stats::acf(b, lag.max = 5, plot = FALSE)$acf[, 1, 1])
})

test_that("missing residuals are allowed and a never-entering ACF warns", {
  x <- ar1(0.2, 1900, seed = 1)
  x[c(3, 50, 51)] <- NA
  g <- select_gap(x, max_lag = 10, level = 0.9999)
  expect_equal(unname(g$n), 1897)
  expect_warning(g2 <- select_gap(ar1(0.95, 500, seed = 1), max_lag = 3), "never enters")
  expect_true(is.na(g2$gap))
})

test_that("print and plot methods run", {
  g <- select_gap(ar1(0.5, 200, seed = 4), max_lag = 10)
  expect_output(print(g), "Selected gap")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(g))
})

test_that("bad select_gap input gives clear errors", {
  expect_snapshot(error = TRUE, select_gap("a"))
  expect_snapshot(error = TRUE, select_gap(rnorm(50), level = 1.5))
  expect_snapshot(error = TRUE, select_gap(rnorm(50), max_lag = "3 hours"))
  expect_snapshot(error = TRUE, select_gap(rnorm(50), date = 1:50))
  expect_snapshot(error = TRUE, select_gap(rnorm(50), max_lag = 80))
})
