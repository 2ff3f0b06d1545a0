# Simulated sites for the unit-offset tests (test-unit-offsets.R), also read by
# bench/unit_known_coverage.R, so that the benchmark scores the data the tests use.
# Five sites, each with its first 60 days beside the reference; both sensors of a site read
# high or low by the site's own amount, which the pooled model cannot learn from rh.
unit_sites_data <- function(seed = 1, days = 240, site_bias = c(a = -3, b = -1, c = 0, d = 1.5, e = 3)) {
  withr::local_seed(seed)
  sites <- names(site_bias)
  do.call(rbind, lapply(sites, function(s) {
    truth <- stats::rlnorm(days, log(10), 0.4)
    rh <- stats::runif(days, 30, 90)
    shared <- stats::rnorm(days, sd = 0.5)
    data.frame(site = s, day = seq_len(days), rh = rh, truth = truth,
               s1 = 1.5 * truth + 2 + site_bias[[s]] + shared + stats::rnorm(days, sd = 0.8),
               s2 = 1.3 * truth + 1 + site_bias[[s]] + shared + stats::rnorm(days, sd = 0.8),
               ref = ifelse(seq_len(days) <= 60, truth + stats::rnorm(days, sd = 0.3), NA))
  }))
}
