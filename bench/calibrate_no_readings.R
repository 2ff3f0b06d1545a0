# "split" calibration of a reference fit on rows some of which have a reference reading but no
# low-cost sensor reading (their estimate is the model's prior): the 90 % threshold of the
# measured rows alone (what calibrate() keeps) against the threshold with the prior rows'
# scores added (what it kept before), computed by hand from predict(); and the coverage of the
# reference by the 90 % intervals on new measured rows and on new rows without a reading, the
# latter also as predict() of the calibration gives them now ("calibrated": the threshold of the
# calibration rows' prior-only scores, q_prior_only).
# Simulated: truth lognormal (median 10, log sd 0.5), two sensors 1.3 truth + N(0, 1) and
# 0.9 truth + 1 + N(0, 1), reference truth + N(0, 0.3^2); rows 1-600 fit (hidden 4, 100 epochs),
# rows 601-800 calibrate (the first `blank` of them without sensor readings), rows 801-2800 test.
#
# Run (under 1 min): NCAM_LIB=<lib> Rscript bench/calibrate_no_readings.R > bench/calibrate_no_readings.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
threshold <- function(scores, level = 0.9) sort(scores)[ceiling(level * (length(scores) + 1))]
cat(sprintf("ncam %s\n", utils::packageVersion("ncam")))
cat("seed blank  q_measured  q_with_prior  q_prior_only  cover_measured(kept, before)  cover_prior(kept, before, calibrated)\n")
for (seed in 1:5) {
  set.seed(seed)
  n <- 2800
  truth <- stats::rlnorm(n, log(10), 0.5)
  d <- data.frame(rh = stats::runif(n, 20, 90), a = 1.3 * truth + stats::rnorm(n),
                  b = 0.9 * truth + 1 + stats::rnorm(n), ref = truth + stats::rnorm(n, sd = 0.3))
  fit <- suppressWarnings(ncam(a + b ~ rh, data = d[1:600, ], reference = "ref", hidden = 4, epochs = 100,
                               seed = seed, threads = 1))
  test <- d[801:2800, ]
  test_blank <- test
  test_blank[c("a", "b")] <- NA
  for (blank in c(20, 40)) {
    cal_rows <- d[601:800, ]
    cal_rows[seq_len(blank), c("a", "b")] <- NA
    cal <- suppressMessages(calibrate(fit, cal_rows))
    p <- suppressWarnings(predict(fit, cal_rows, interval = "prediction"), classes = "ncam_warning_no_readings")
    q_before <- threshold(abs(cal_rows$ref - p$.pred) / p$.pred_sd)
    cover <- function(rows, q) {
      # One test row lies beyond the co-location range (predict() warns): it counts as any other.
      pr <- suppressWarnings(predict(fit, rows, interval = "prediction"),
                             classes = c("ncam_warning_no_readings", "ncam_warning_extrapolation"))
      mean(abs(rows$ref - pr$.pred) <= q * pr$.pred_sd)
    }
    # What predict() of the calibration gives the rows without a reading: the threshold of the
    # calibration rows' prior-only scores (calibrate()'s prior_scores).
    calibrated <- suppressWarnings(predict(cal, test_blank), classes = c("ncam_warning_no_readings", "ncam_warning_extrapolation"))
    cover_calibrated <- mean(test_blank$ref >= calibrated$.pred_lower & test_blank$ref <= calibrated$.pred_upper)
    q_prior <- tidy(cal, level = 0.9)$quantile_no_readings
    cat(sprintf("%4d %5d  %10.3f  %12.3f  %12.3f  %13.3f, %6.3f           %10.3f, %6.3f, %6.3f\n", seed, blank, cal$quantile, q_before,
                q_prior, cover(test, cal$quantile), cover(test, q_before), cover(test_blank, cal$quantile),
                cover(test_blank, q_before), cover_calibrated))
  }
}
