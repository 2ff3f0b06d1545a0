# Column .extrapolation and its warning: rows outside the conditions the calibration was
# learned in. Expected values are computed here from the data with base R.

# The reference is observed on the first n_ref rows, where rh stays within 40-60 and the true
# value is below 20; afterwards rh spans 20-95 and the true value reaches higher.
extrapolation_data <- function(n, n_ref, seed) {
  withr::local_seed(seed)
  labelled <- seq_len(n) <= n_ref
  rh <- ifelse(labelled, stats::runif(n, 40, 60), stats::runif(n, 20, 95))
  truth <- ifelse(labelled, stats::runif(n, 2, 20), stats::rlnorm(n, log(12), 0.6))
  d <- data.frame(rh = rh, s1 = 1.2 * truth + 1 + stats::rnorm(n, sd = 0.6),
                  s2 = 0.9 * truth + stats::rnorm(n, sd = 0.8))
  d$ref <- ifelse(labelled, truth + stats::rnorm(n, sd = 0.3), NA_real_)
  d
}

far_share <- ncam:::extrapolation_warning_share  # beyond this share of the range, predict() warns

# Short fits of small networks are not converged, on purpose.
quiet_ncam <- function(...) {
  withCallingHandlers(ncam(...), ncam_warning_not_converged = function(w) invokeRestart("muffleWarning"))
}

# Largest distance beyond [lower, upper] over the named columns, as a share of upper - lower.
expected_distance <- function(d, ranges) {
  per_var <- vapply(names(ranges), function(v) {
    r <- ranges[[v]]
    beyond <- pmax(r[1] - d[[v]], d[[v]] - r[2], 0) / (r[2] - r[1])
    ifelse(is.na(beyond), 0, beyond)
  }, numeric(nrow(d)))
  apply(per_var, 1, max)
}

test_that(".extrapolation measures the distance outside the range of the co-location rows", {
  d <- extrapolation_data(800, 250, seed = 1)
  fit <- quiet_ncam(s1 + s2 ~ rh, data = d, reference = "ref", hidden = 8L, epochs = 20L, seed = 1,
              threads = 1)
  expect_identical(sum(fit$n_screened), 0L)  # no reading screened out: the ranges are the data's
  labelled <- !is.na(d$ref)
  ranges <- lapply(d[c("s1", "s2", "rh")], function(v) range(v[labelled]))
  expect_equal(fit$calibration_range$lower, unname(vapply(ranges, `[`, 1, 1)))
  expect_equal(fit$calibration_range$upper, unname(vapply(ranges, `[`, 1, 2)))

  newdata <- d
  newdata$s1[799] <- NA       # a missing reading is not checked
  newdata$rh[800] <- NA      # a missing covariate gives NA, as .pred does
  expected <- expected_distance(newdata, ranges)
  expected[800] <- NA
  n_far <- sum(expected > far_share, na.rm = TRUE)
  expect_gt(n_far, 10)
  expect_warning(pred <- suppressWarnings(predict(fit, newdata), classes = "ncam_warning_missing_covariate"),
                 class = "ncam_warning_extrapolation")
  expect_equal(pred$.extrapolation, expected)
  expect_true(all(pred$.extrapolation[labelled] == 0))

  warning_text <- tryCatch(predict(fit, newdata), ncam_warning_extrapolation = conditionMessage)
  expect_match(warning_text, sprintf("%d of 800 rows", n_far), fixed = TRUE)
  expect_match(warning_text, "co-location rows")
  rh_margin <- far_share * diff(ranges$rh)
  n_far_rh <- sum(newdata$rh < ranges$rh[1] - rh_margin | newdata$rh > ranges$rh[2] + rh_margin, na.rm = TRUE)
  expect_match(warning_text, sprintf("rh: %d rows outside", n_far_rh), fixed = TRUE)
  far_rh <- which(newdata$rh < ranges$rh[1] - rh_margin | newdata$rh > ranges$rh[2] + rh_margin)
  expect_match(gsub("\\s+", " ", warning_text), sprintf("\\): rows %s, \\.\\.\\.", paste(head(far_rh, 5), collapse = ", ")))

  # Inside the range: no warning, and the same column from predict() on a calibration.
  expect_no_warning(inside <- predict(fit, d[labelled, ]))
  expect_identical(inside$.extrapolation, rep(0, sum(labelled)))
  cal <- calibrate(fit, d[201:250, ], method = "split", reference = "ref")
  expect_warning(cal_pred <- suppressWarnings(predict(cal, newdata), classes = "ncam_warning_missing_covariate"),
                 class = "ncam_warning_extrapolation")
  expect_equal(cal_pred$.extrapolation, expected)
})

test_that("a label-free fit takes its range from all fitted rows, so its own rows are inside", {
  d <- extrapolation_data(600, 0, seed = 2)
  d$s3 <- d$s2 * 1.1 + stats::rnorm(600, sd = 0.5)
  fit <- quiet_ncam(s1 + s2 + s3 ~ rh, data = d, hidden = 8L, epochs = 5L, seed = 1, threads = 1)
  expect_no_warning(pred <- predict(fit, d))
  expect_identical(pred$.extrapolation, rep(0, 600))
  far <- d[1:3, ]
  far$s3 <- max(d$s3) + c(0, 0.05, 2) * diff(range(d$s3))
  expect_warning(far_pred <- predict(fit, far), "1 of 3 rows", class = "ncam_warning_extrapolation")
  expect_equal(far_pred$.extrapolation, c(0, 0.05, 2))
})

test_that("a factor level absent from the co-location rows is infinitely far; old fits give NA", {
  d <- extrapolation_data(600, 300, seed = 3)
  d$site <- rep(c("a", "b"), each = 300)
  fit <- quiet_ncam(s1 + s2 ~ rh + site, data = d, reference = "ref", hidden = 8L, epochs = 5L,
              seed = 1, threads = 1)
  expect_warning(pred <- predict(fit, d), "siteb: 300 rows outside", class = "ncam_warning_extrapolation")
  expect_identical(pred$.extrapolation[301:600], rep(Inf, 300))
  old <- fit
  old$calibration_range <- NULL  # as saved before the range was recorded
  expect_no_warning(old_pred <- predict(old, d))
  expect_identical(old_pred$.extrapolation, rep(NA_real_, 600))
  expect_identical(old_pred$.pred, pred$.pred)
})

test_that("scoring in chunks or by group gives the column of predict() and one warning", {
  d <- extrapolation_data(1000, 300, seed = 4)
  fit <- quiet_ncam(s1 + s2 ~ rh, data = d, reference = "ref", hidden = 8L, epochs = 5L, seed = 1,
              threads = 1)
  whole <- suppressWarnings(predict(fit, d), classes = "ncam_warning_extrapolation")
  n_far <- sum(whole$.extrapolation > far_share)
  expect_gt(n_far, 0)
  chunked <- NULL
  warnings <- testthat::capture_warnings(
    chunked <- predict_chunks(fit, row_chunks(d, 250), chunk_rows = 256, verbose = FALSE)
  )
  expect_length(warnings, 1)
  expect_match(warnings, sprintf("%d of 1000 rows", n_far), fixed = TRUE)
  expect_identical(chunked$.extrapolation, whole$.extrapolation)

  files <- file.path(withr::local_tempdir(), c("a.csv", "b.csv"))
  utils::write.csv(d[1:500, ], files[1], row.names = FALSE)
  utils::write.csv(d[501:1000, ], files[2], row.names = FALSE)
  out_dir <- withr::local_tempdir()
  warnings <- testthat::capture_warnings(predict_chunks(fit, files, output = out_dir, chunk_rows = 128,
                                                        verbose = FALSE))
  expect_length(warnings, 1)
  expect_match(warnings, sprintf("%d of 1000 rows", n_far), fixed = TRUE)

  d$site <- rep(1:2, 500)  # both sites have co-location rows
  fits <- short_fit(ncam_by(s1 + s2 ~ rh, data = d, by = "site", reference = "ref", hidden = 8L,
                            epochs = 5L, seed = 1))
  warnings <- testthat::capture_warnings(by_group <- predict(fits, d))
  separate <- numeric(1000)
  for (g in 1:2) {
    rows <- which(d$site == fits$site[g])
    alone <- suppressWarnings(predict(fits$fit[[g]], d[rows, ]), classes = "ncam_warning_extrapolation")
    separate[rows] <- alone$.extrapolation
  }
  expect_identical(by_group$.extrapolation, separate)
  expect_length(warnings, 1)
  expect_match(warnings, sprintf("%d of 1000 rows lie", sum(separate > far_share)), fixed = TRUE)
  # The groups are named with their rows far outside, as the groups' other warnings name them.
  for (g in 1:2) {
    far_in_group <- sum(separate[d$site == fits$site[g]] > far_share)
    expect_match(warnings, sprintf("Group site = %d: %d row%s", fits$site[g], far_in_group,
                                   if (far_in_group == 1L) "" else "s"), fixed = TRUE)
  }
  # One row far outside: "lies", "its prediction extrapolates".
  one <- which(separate > far_share)[1]
  expect_warning(predict(fits, d[c(one, which(separate == 0)[1:3]), ]),
                 sprintf("^1 of 4 rows lies .*the model of its group learned from; its prediction extrapolates .* and is less reliable.*Group site = %d: 1 row", d$site[one]),
                 class = "ncam_warning_extrapolation")
  expect_warning(predict(fit, d[c(one, which(separate == 0)[1:3]), ]), "^1 of 4 rows lies .*its prediction extrapolates",
                 class = "ncam_warning_extrapolation")
})
