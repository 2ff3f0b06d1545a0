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

test_that("residuals near the limits of double precision give the ACF of stats::acf", {
  set.seed(1)
  x <- as.numeric(arima.sim(list(ar = 0.7), 200))
  ref <- stats::acf(x, lag.max = 50, plot = FALSE)$acf[, 1, 1]
  # The sums of squares overflowed (1e300) to NaN, or underflowed (1e-300) to "constant".
  for (scale in c(1e300, 1e-300)) {
    g <- expect_no_warning(select_gap(x * scale))
    expect_equal(g$acf$acf, ref)
    expect_identical(g$gap, as.integer(which(abs(ref[-1]) < qnorm(0.975) / sqrt(200))[1]))
  }
  # +-1e308 is the series of the signs.
  signs <- stats::acf(sign(x), lag.max = 50, plot = FALSE)$acf[, 1, 1]
  expect_equal(select_gap(ifelse(x > 0, 1e308, -1e308))$acf$acf, signs)
  # Two readings on one grid point are averaged without overflow: a second reading of the
  # largest value, 10 minutes after its hour, leaves the hourly means and their ACF as they were.
  hours <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * (0:199)
  top <- which.max(abs(x))
  y <- c(x, x[top]) * (1.5e308 / max(abs(x)))
  expect_equal(select_gap(y, date = c(hours, hours[top] + 600))$acf$acf, ref)
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

test_that("scattered missing values give the ACF of stats::acf(na.pass), not one shrunk to 0", {
  n <- 5000
  x <- ar1(0.95, n, seed = 3)
  set.seed(4)
  half <- x
  half[sample(n, n / 2)] <- NA
  ref <- stats::acf(half, lag.max = 200, plot = FALSE, na.action = na.pass)$acf[, 1, 1]
  hours <- as.POSIXct("2021-01-01", tz = "UTC") + 3600 * (0:(n - 1))
  g <- select_gap(half, date = hours, max_lag = "200 hours")
  expect_equal(g$acf$acf, ref)
  # Half the hours missing at random leave the lag-1 ACF of an AR(0.95) near 0.95, not 0.5.
  expect_gt(g$acf$acf[2], 0.85)
  expect_equal(as.numeric(g$gap, units = "hours"),
               which(abs(ref[-1]) < qnorm(0.975) / sqrt(n / 2))[1])
  # The same without times, and per column of a matrix with its own missing values.
  expect_equal(select_gap(half, max_lag = 50)$acf$acf, ref[1:51])
  other <- ar1(0.5, n, seed = 5)
  other[c(1:30, 4000:4100)] <- NA
  both <- select_gap(cbind(a = half, b = other), max_lag = 150)
  expect_equal(both$acf$acf[both$acf$series == "b"],
               stats::acf(other, lag.max = 150, plot = FALSE, na.action = na.pass)$acf[, 1, 1])
})

test_that("irregular times give about the ACF of the process at the grid step", {
  # An Ornstein-Uhlenbeck process with a 6-hour time constant seen at random times (mean
  # spacing 1 hour): most grid points are empty, the ACF at lag 1 is exp(-step / 6 hours).
  set.seed(6)
  hours <- cumsum(rexp(4000, 1))
  y <- numeric(4000)
  y[1] <- rnorm(1)
  for (i in 2:4000) {
    r <- exp(-(hours[i] - hours[i - 1]) / 6)
    y[i] <- r * y[i - 1] + sqrt(1 - r^2) * rnorm(1)
  }
  g <- select_gap(y, date = as.POSIXct("2021-01-01", tz = "UTC") + 3600 * hours,
                  max_lag = "60 hours")
  expect_equal(g$step, stats::median(diff(3600 * hours)), tolerance = 1 / 1000)
  expect_equal(g$acf$acf[2], exp(-g$step / 3600 / 6), tolerance = 0.1)
})

test_that("the grid step is the median spacing of daily, hourly and irregular times", {
  set.seed(8)
  r <- rnorm(60)
  days <- as.Date("2024-03-01") + 0:59
  expect_identical(select_gap(r, date = days, max_lag = 5)$step, 86400)
  # Local midnights across a clock change: gaps of 23 and 25 hours among days.
  midnights <- as.POSIXct(format(days), tz = "Europe/Paris")
  g <- select_gap(r, date = midnights, max_lag = 5)
  expect_identical(g$step, 86400)
  expect_identical(units(g$gap), "days")
  hours <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * c(0:29, 31:60)
  expect_identical(select_gap(r, date = hours, max_lag = 5)$step, 3600)
  # 60 irregular times, all gaps different whole seconds: the median gap, never one gap that is
  # most common by a tie (such as the smallest).
  gaps <- sample(600:7200, 59)
  g <- select_gap(r, date = as.POSIXct("2024-01-01", tz = "UTC") + c(0, cumsum(gaps)), max_lag = 5)
  expect_equal(g$step, sort(gaps)[30])
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

test_that("print() says 1 hour and 1 row, not 1 hours", {
  set.seed(3)
  t <- as.POSIXct("2024-05-01", tz = "UTC") + 3600 * (0:399)
  g <- select_gap(rnorm(400), date = t, max_lag = "12 hours")
  expect_identical(g$gap, as.difftime(1, units = "hours"))
  expect_output(print(g), "Selected gap: +1 hour\n.*Lags examined: +0 to 12 hours$")
  rows <- select_gap(rnorm(400), max_lag = 12)
  expect_identical(as.numeric(rows$gap), 1)
  expect_output(print(rows), "Selected gap: +1 row\n.*Lags examined: +0 to 12 rows$")
})

test_that("bad select_gap input gives clear errors", {
  expect_snapshot(error = TRUE, select_gap("a"))
  expect_snapshot(error = TRUE, select_gap(rnorm(50), level = 1.5))
  expect_snapshot(error = TRUE, select_gap(rnorm(50), max_lag = "3 hours"))
  expect_snapshot(error = TRUE, select_gap(rnorm(50), date = 1:50))
  expect_snapshot(error = TRUE, select_gap(rnorm(50), max_lag = 80))
})

# Reference ACF by the defining formula, pooled over groups: each group's series
# is centred by its own mean, missing values count as 0, and lag pairs are taken
# within a group only. `series` is a list of equally spaced vectors (with NA
# where a grid point is empty).
# The pooled ACF as stats::acf(na.action = na.pass) defines it for one series: at lag k the
# sum of products over the p_k observed pairs, divided by p_k + k, over the mean square of the
# observed values; sums and counts added over the series that have a pair at lag k.
pooled_acf_by_hand <- function(series, max_lag) {
  centred <- lapply(series, function(s) s - mean(s, na.rm = TRUE))
  n <- sum(vapply(series, function(s) sum(!is.na(s)), 0))
  mean_square <- sum(vapply(centred, function(s) sum(s^2, na.rm = TRUE), 0)) / n
  vapply(0:max_lag, function(k) {
    products <- 0
    pairs <- 0
    for (s in centred) {
      m <- length(s)
      if (k >= m) next
      p <- s[1:(m - k)] * s[(1 + k):m]
      if (all(is.na(p))) next
      products <- products + sum(p, na.rm = TRUE)
      pairs <- pairs + sum(!is.na(p)) + k
    }
    products / pairs / mean_square
  }, 0)
}

# Runs `code` under an elapsed-time limit, so a hang fails instead of blocking.
within_seconds <- function(seconds, code) {
  setTimeLimit(elapsed = seconds, transient = TRUE)
  on.exit(setTimeLimit(elapsed = Inf, transient = FALSE))
  code
}

test_that("a sparse date axis does not build a grid spanning it", {
  set.seed(21)
  x <- rnorm(5)
  t <- as.POSIXct("2024-01-01", tz = "UTC") + c(0, 1, 2, 3, 1e6)
  g <- within_seconds(5, select_gap(x, date = t))
  # One-second grid; the default lag (a quarter of 5 points, at least 1) pairs
  # only the first four seconds: the far point takes part in no lag-1 pair.
  expect_equal(g$step, 1)
  expect_equal(as.numeric(max(g$acf$lag), units = "secs"), 1)
  centred <- x - mean(x)
  # 3 pairs at lag 1, divided by 3 + 1 as stats::acf(na.pass) does, over the mean square.
  expect_equal(g$acf$acf[2], (sum(centred[1:3] * centred[2:4]) / 4) / (sum(centred^2) / 5))
  expect_equal(unname(g$n), 5)
  # A lag range covering the far point would need a grid hundreds of
  # thousands of times longer than the data: a clear error, not a hang.
  expect_error(within_seconds(5, select_gap(x, date = t, max_lag = "5 days")),
               "too sparse for a regular grid")
})

test_that("a long series takes time linear in its length, not quadratic", {
  skip_on_cran()
  n <- 50000
  x <- ar1(0.5, n, seed = 22)
  # The default max_lag is n / 4 = 12500 lags; the old lag-by-lag loop took
  # about 10 s here, the FFT takes well under a second.
  g <- within_seconds(5, select_gap(x))
  expect_equal(nrow(g$acf), n / 4 + 1)
  centred <- x - mean(x)
  by_hand <- vapply(c(1, 7, 100, 12500), function(k) {
    sum(centred[1:(n - k)] * centred[(1 + k):n]) / sum(centred^2)
  }, 0)
  expect_equal(g$acf$acf[c(1, 7, 100, 12500) + 1], by_hand)
})

test_that("gaps in the time axis longer than max_lag give the same ACF as a full grid", {
  set.seed(23)
  hours <- c(0:149, 650:799, 805:899)
  x <- as.numeric(stats::filter(rnorm(length(hours)), 0.5, method = "recursive"))
  x[c(10, 200)] <- NA
  t <- as.POSIXct("2024-02-01", tz = "UTC") + 3600 * hours
  g <- select_gap(x, date = t, max_lag = 12)
  full <- rep(NA_real_, 900)
  full[hours + 1] <- x
  expect_equal(g$acf$acf, pooled_acf_by_hand(list(full), 12))
  expect_equal(unname(g$n), length(hours) - 2)
})

test_that("repeated times without a group are an error naming the fix", {
  t <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * (0:99)
  expect_error(select_gap(rnorm(200), date = c(t, t)), "repeats times")
  expect_error(select_gap(rnorm(200), date = c(t, t)), "group")
  flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
  expect_match(flat(expect_error(select_gap(rnorm(200), date = c(t, t)))), "100 rows share a time", fixed = TRUE)
  expect_match(flat(expect_error(select_gap(rnorm(101), date = c(t, t[7])))),
               "1 row shares a time with another, for example rows 7 and 101", fixed = TRUE)
  # Within a group too.
  expect_error(select_gap(rnorm(200), date = c(t, t), group = rep(1, 200)),
               "repeats times within a group")
})

test_that("group gives per-site series pooled into one ACF", {
  t <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * (0:399)
  a <- ar1(0.6, 400, seed = 24) + 5
  b <- ar1(0.3, 300, seed = 25) - 5
  b_times <- t[c(1:150, 201:350)]
  d <- data.frame(site = c(rep("a", 400), rep("b", 300)),
                  time = c(t, b_times), resid = c(a, b))
  d <- d[sample(nrow(d)), ]
  g <- select_gap(d$resid, date = d$time, group = d$site, max_lag = 8)
  b_grid <- rep(NA_real_, 350)
  b_grid[c(1:150, 201:350)] <- b
  expected <- pooled_acf_by_hand(list(a, b_grid), 8)
  expect_equal(g$acf$acf, expected)
  expect_equal(unname(g$n), 700)
  expect_equal(unname(g$band), qnorm(0.975) / sqrt(700))
  expect_identical(as.numeric(g$gap, units = "hours"),
                   as.numeric(which(abs(expected[-1]) < qnorm(0.975) / sqrt(700))[1]))
  expect_equal(g$groups, 2)
  # Column names of a data frame work the same way.
  g2 <- select_gap(d, date = "time", group = "site", max_lag = "8 hours")
  expect_equal(g2$acf$acf, expected)
  # Without dates each group's rows are a series in row order.
  g3 <- select_gap(c(a, b), group = rep(c("a", "b"), c(400, 300)), max_lag = 8)
  expect_equal(g3$acf$acf, pooled_acf_by_hand(list(a, b), 8))
})

test_that("constant residuals and bad groups give clear errors", {
  expect_error(select_gap(rep(2, 10)), "constant")
  expect_error(select_gap(rnorm(10), group = c(1, 2)), "one element per row")
  expect_error(select_gap(rnorm(4), group = c(1, NA, 2, 2)), "missing in row 2")
  d <- data.frame(site = rep("a", 10), resid = rnorm(10))
  expect_error(select_gap(d), "non-numeric column")
  expect_error(select_gap(d, group = "station"), "not found")
})

test_that("many short groups warn that centring biases the pooled ACF", {
  set.seed(26)
  x <- rnorm(4000)
  # 400 groups of 10: per-group centring gives E[r_k] near -1/10, far outside
  # the band 1.96 / sqrt(4000) = 0.031.
  expect_warning(expect_warning(g <- select_gap(x, group = rep(1:400, each = 10), max_lag = 3),
                                "short"), "never enters")
  expect_lt(g$acf$acf[2], -0.05)
  # Two long groups: no bias warning.
  expect_no_warning(select_gap(x, group = rep(1:2, each = 2000), max_lag = 3))
})

test_that("tidy() and glance() of a gap agree with stats::acf and the band by hand", {
  a <- ar1(0.6, 400, seed = 31)
  b <- ar1(0.2, 400, seed = 32)
  b[c(5, 90)] <- NA
  g <- select_gap(cbind(a = a, b = b), max_lag = 12, level = 0.9)
  td <- tidy(g)
  expect_s3_class(td, "tbl_df")
  expect_named(td, c("lag", "acf", "series", "band", "inside"))
  expect_identical(td$series, rep(c("a", "b"), each = 13))
  expect_identical(td$lag, rep(0:12, 2))
  ref_a <- stats::acf(a, lag.max = 12, plot = FALSE)$acf[, 1, 1]
  expect_equal(td$acf[td$series == "a"], ref_a)
  band <- qnorm(0.95) / sqrt(c(a = 400, b = 398))
  expect_equal(td$band, rep(unname(band), each = 13))
  expect_identical(td$inside[td$series == "a"], abs(ref_a) < band[["a"]])
  expect_identical(td$inside, abs(td$acf) < td$band)
  # The selected gap is the largest over series of the first lag >= 1 inside.
  first_in <- function(s) min(td$lag[td$series == s & td$lag >= 1 & td$inside])
  expect_identical(g$gap, max(first_in("a"), first_in("b")))

  gl <- glance(g)
  expect_s3_class(gl, "tbl_df")
  expect_identical(nrow(gl), 1L)
  expect_identical(gl$gap, g$gap)
  expect_identical(gl$level, 0.9)
  expect_identical(gl$n_series, 2L)
  expect_identical(gl$groups, 1L)
  expect_identical(gl$max_lag, 12L)
})

test_that("tidy() and glance() of a gap keep durations and pooled groups", {
  t <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * (0:299)
  x <- ar1(0.3, 600, seed = 33)
  g <- select_gap(x, date = c(t, t), group = rep(1:2, each = 300), max_lag = "6 hours")
  td <- tidy(g)
  expect_named(td, c("lag", "acf", "band", "inside"))
  expect_identical(td$lag, as.difftime(as.numeric(0:6), units = "hours"))
  expect_equal(td$band, rep(qnorm(0.975) / sqrt(600), 7))
  gl <- glance(g)
  expect_identical(gl$groups, 2L)
  expect_identical(gl$n_series, 1L)
  expect_identical(gl$max_lag, as.difftime(6, units = "hours"))
  expect_identical(gl$gap, g$gap)
})

test_that("times a fraction of a second off a 1-minute step give a grid of whole minutes", {
  x <- ar1(0.9, 20000, seed = 4)
  # 20000 minutes stamped up to 0.2 s early or late: a step of 59.99x s would drift a cell
  # every few thousand minutes and put two readings in one cell.
  minutes <- as.POSIXct("2024-06-01", tz = "UTC") + 60 * (seq_along(x) - 1) +
    withr::with_seed(5, stats::runif(length(x), -0.2, 0.2))
  g <- select_gap(x, date = minutes, max_lag = "40 mins")
  expect_identical(g$step, 60)
  expect_equal(unname(g$n), 20000)
  ref <- stats::acf(x, lag.max = 40, plot = FALSE)$acf[, 1, 1]
  expect_equal(g$acf$acf, ref)
  lag <- which(abs(ref[-1]) < qnorm(0.975) / sqrt(20000))[1]
  expect_equal(g$gap, as.difftime(lag, units = "mins"))
  # A step halfway between two seconds is not rounded.
  g <- select_gap(ar1(0.2, 300, seed = 6), date = minutes[1] + 12.5 * (0:299), max_lag = 10)
  expect_identical(g$step, 12.5)
})
