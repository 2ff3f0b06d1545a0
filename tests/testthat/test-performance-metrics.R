# The orthogonal regression of the EU expanded uncertainty on its branches not covered
# elsewhere (an estimate that falls as the reference rises, varying less or more than it),
# against the major axis of an eigen decomposition and the Guide's formula by hand, and what
# judging at the limit value alone lets pass.

test_that("an estimate falling with the reference gets the major axis of negative slope, either spread", {
  ref <- withr::with_seed(21, stats::runif(50, 5, 45))
  noise <- withr::with_seed(22, stats::rnorm(50, sd = 2))
  for (gain in c(-0.6, -1.8)) {  # the estimate varies less, then more, than the reference
    est <- 40 + gain * ref + noise
    obs <- data.frame(date = as.Date("2024-01-01") + 0:49, ref = ref, est = est)
    res <- sensor_performance(obs, "est", "ref", averaging = "as_given", limit_value = 25,
                              reference_uncertainty = 0.5)
    axis <- eigen(stats::cov(cbind(ref, est)), symmetric = TRUE)$vectors[, 1]
    b1 <- axis[2] / axis[1]
    b0 <- mean(est) - b1 * mean(ref)
    expect_lt(b1, 0)
    expect_equal(res$orth_slope, b1, info = paste("gain", gain))
    expect_equal(res$orth_intercept, b0, info = paste("gain", gain))
    u2 <- sum((est - b0 - b1 * ref)^2) / 48 - 0.5^2 + (b0 + (b1 - 1) * 25)^2
    expect_equal(res$expanded_uncertainty, 200 * sqrt(u2) / 25, info = paste("gain", gain))
    if (gain == -0.6) {
      # The line crosses y = x near L = 25 (40 - 0.6 x 25 = 25): judged at L alone, the EU test
      # passes a sensor that falls as the reference rises, as ?performance_targets says; the
      # slope target is the one that fails it.
      expect_lt(abs(b0 + (b1 - 1) * 25), 1)
      expect_true(res$pass_expanded_uncertainty)
      expect_false(res$pass_slope)
    }
  }
})
