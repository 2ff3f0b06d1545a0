# Rows with a missing covariate: no prediction (every column NA, .n_sensors too) and one
# warning per call that counts them per covariate, also when scoring in chunks or by group.

missing_data <- function() {
  withr::local_seed(7)
  n <- 400
  d <- data.frame(rh = stats::runif(n, 20, 90), temp = stats::runif(n, 0, 30), site = rep(1:2, n / 2))
  truth <- stats::rnorm(n, 10, 3)
  d$s1 <- truth + stats::rnorm(n)
  d$s2 <- 1.2 * truth + stats::rnorm(n)
  d$s3 <- truth - 1 + stats::rnorm(n)
  d
}
missing_fit_data <- missing_data()
missing_fit <- short_fit(ncam(s1 + s2 + s3 ~ rh + temp, data = missing_fit_data, hidden = 4L,
                              epochs = 3L, seed = 1, threads = 1))

with_gaps <- function(d) {
  d$rh[c(3, 10, 250)] <- NA
  d$temp[c(10, 300)] <- NA
  d[5, c("s1", "s2", "s3")] <- NA  # no reading: a prediction from the prior, not a gap
  d
}

test_that("predict() leaves rows with a missing covariate NA, in place, and counts them per covariate", {
  d <- with_gaps(missing_fit_data)
  expect_warning(expect_warning(pred <- predict(missing_fit, d), class = "ncam_warning_missing_covariate"),
                 "1 of 400 rows has no sensor reading.*row 5", class = "ncam_warning_no_readings")
  gaps <- c(3, 10, 250, 300)
  expect_identical(nrow(pred), nrow(d))
  expect_true(all(is.na(as.matrix(pred[gaps, ]))))
  # .disagreement is NA also where fewer than two sensors read (row 5: none).
  expect_false(anyNA(as.matrix(pred[-gaps, names(pred) != ".disagreement"])))
  expect_identical(is.na(pred$.disagreement), seq_len(nrow(d)) %in% c(gaps, 5))
  expect_identical(pred$.n_sensors[5], 0L)
  expect_identical(pred$.n_sensors[-c(gaps, 5)], rep(3L, nrow(d) - 5L))
  # The other rows are predicted as without the gaps (to rounding: the engine's blocks of rows
  # fall differently).
  kept <- d[-gaps, ]
  expect_equal(pred[-gaps, ], suppressWarnings(predict(missing_fit, kept), classes = "ncam_warning_no_readings"),
               tolerance = 1e-6)
  msg <- conditionMessage(tryCatch(predict(missing_fit, d), warning = identity))
  expect_match(msg, "4 of 400 rows have a missing covariate", fixed = TRUE)
  expect_match(msg, "rh: 3 rows", fixed = TRUE)
  expect_match(msg, "temp: 2 rows", fixed = TRUE)
  expect_match(msg, "rows 3, 10, 250, 300", fixed = TRUE)
  expect_no_warning(predict(missing_fit, missing_fit_data))
  # the other functions that estimate say so too
  for (estimate in list(fitted, residuals, sensor_params)) {
    expect_warning(estimate(missing_fit, d), "4 of 400 rows have a missing covariate", class = "ncam_warning_missing_covariate")
  }
})

test_that("chunks and groups give one warning with the total", {
  d <- with_gaps(missing_fit_data)
  chunked <- NULL
  warnings <- testthat::capture_warnings(
    chunked <- predict_chunks(missing_fit, row_chunks(d, 100), verbose = FALSE)
  )
  expect_length(warnings, 2)
  expect_match(warnings[1], "4 of 400 rows have a missing covariate", fixed = TRUE)
  expect_match(warnings[2], "1 of 400 rows has no sensor reading", fixed = TRUE)
  whole <- suppressWarnings(predict(missing_fit, d), classes = c("ncam_warning_missing_covariate", "ncam_warning_no_readings"))
  expect_identical(chunked$.n_sensors, whole$.n_sensors)

  files <- file.path(withr::local_tempdir(), c("a.csv", "b.csv"))
  utils::write.csv(d[1:200, ], files[1], row.names = FALSE)
  utils::write.csv(d[201:400, ], files[2], row.names = FALSE)
  warnings <- testthat::capture_warnings(predict_chunks(missing_fit, files, output = withr::local_tempdir(),
                                                        chunk_rows = 64, verbose = FALSE))
  expect_length(warnings, 2)
  expect_match(warnings[1], "4 of 400 rows have a missing covariate", fixed = TRUE)
  expect_match(warnings[2], "1 of 400 rows has no sensor reading", fixed = TRUE)

  fits <- short_fit(ncam_by(s1 + s2 + s3 ~ rh + temp, data = missing_fit_data, by = "site",
                            hidden = 4L, epochs = 3L, seed = 1))
  warnings <- testthat::capture_warnings(by_group <- predict(fits, d))
  expect_length(warnings, 2)
  expect_match(warnings[1], "4 of 400 rows have a missing covariate", fixed = TRUE)
  expect_match(warnings[2], "1 of 400 rows has no sensor reading.*one of the groups names the rows")
  expect_true(all(is.na(by_group$.n_sensors[c(3, 10, 250, 300)])))
})

test_that("rows with a level not seen in training are NA with their own warning, one total in parts", {
  d <- missing_fit_data
  d$zone <- rep(c("a", "a", "b", "b"), 100)  # both zones in each site (the groups of ncam_by())
  fit <- short_fit(ncam(s1 + s2 + s3 ~ rh + temp + zone, data = d, hidden = 4L, epochs = 3L,
                        seed = 1, threads = 1))
  new <- with_gaps(d)
  new$zone[c(3, 7, 201, 202)] <- c("c", "c", "d", "c")  # row 3 also lacks rh: counted once, here
  unseen <- c(3, 7, 201, 202)
  warnings <- list()
  pred <- withCallingHandlers(predict(fit, new), warning = function(w) {
    warnings[[length(warnings) + 1L]] <<- w
    invokeRestart("muffleWarning")
  })
  expect_identical(vapply(warnings, function(w) class(w)[1], ""),
                   c("ncam_warning_unseen_level", "ncam_warning_missing_covariate", "ncam_warning_no_readings"))
  expect_match(conditionMessage(warnings[[1]]), "4 of 400 rows.*Column zone: \"c\", \"d\" in 4 rows: 3, 7, 201, 202")
  expect_match(conditionMessage(warnings[[2]]), "3 of 400 rows have a missing covariate.*rh: 2 rows.*temp: 2 rows")
  expect_true(all(is.na(as.matrix(pred[c(unseen, 10, 250, 300), ]))))
  expect_false(anyNA(as.matrix(pred[-c(unseen, 10, 250, 300), names(pred) != ".disagreement"])))
  expect_identical(is.na(pred$.disagreement), seq_len(nrow(new)) %in% c(unseen, 5, 10, 250, 300))

  warnings <- testthat::capture_warnings(
    chunked <- predict_chunks(fit, row_chunks(new, 100), verbose = FALSE)
  )
  expect_length(warnings, 3)
  expect_match(warnings[1], "4 of 400 rows of `input` have a level of a factor covariate not seen in training", fixed = TRUE)
  expect_match(warnings[1], "zone: \"c\", \"d\"", fixed = TRUE)
  expect_match(warnings[2], "3 of 400 rows have a missing covariate", fixed = TRUE)
  expect_identical(chunked$.n_sensors, pred$.n_sensors)

  fits <- short_fit(ncam_by(s1 + s2 + s3 ~ rh + temp + zone, data = d, by = "site",
                            hidden = 4L, epochs = 3L, seed = 1))
  warnings <- testthat::capture_warnings(by_group <- predict(fits, new))
  expect_length(warnings, 3)
  expect_match(warnings[1], "4 of 400 rows of `newdata` have a level of a factor covariate not seen in training", fixed = TRUE)
  expect_match(warnings[2], "3 of 400 rows have a missing covariate", fixed = TRUE)
  expect_identical(is.na(by_group$.n_sensors), is.na(pred$.n_sensors))
})

test_that("a missing-value code in a numeric covariate is refused, naming its rows, as far as it lies from the rest", {
  flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
  fit_on <- function(d) short_fit(ncam(s1 + s2 + s3 ~ rh + temp, data = d, hidden = 4L, epochs = 2L, seed = 1, threads = 1))
  d <- missing_data()
  coded <- c(4, 17, 90, 91, 200, 333)
  d$rh[coded] <- -999
  refused <- flat(expect_error(fit_on(d), class = "ncam_error"))
  # Independently: the range and median of the other humidities, shown to 3 digits.
  others <- d$rh[-coded]
  expect_match(refused, sprintf("Covariate rh holds -999 on 6 rows (4, 17, 90, 91, 200, ...), beyond its other values (%s to %s) and more than 10 robust spreads from their median (%s): a missing-value code, not a measurement.",
                                signif(min(others), 3), signif(max(others), 3), signif(stats::median(others), 3)), fixed = TRUE)
  expect_match(refused, "`data$rh[data$rh == -999] <- NA`", fixed = TRUE)
  # Positive codes and several codes at once; text covariates are not numbers to check.
  d <- missing_data()
  d$temp[c(2, 3)] <- c(9999, -9999)
  expect_match(flat(expect_error(fit_on(d))), "Covariate temp holds 9999 and -9999 on 2 rows \\(2, 3\\).*`data\\$temp\\[data\\$temp %in% c\\(9999, -9999\\)\\] <- NA`")
  # As NA the rows are left out of training, with the missing-covariate warning.
  d$temp[c(2, 3)] <- NA
  expect_warning(fit_on(d), "2 rows with a missing covariate", class = "ncam_warning_missing_covariate")
  # A value equal to a code among the covariate's other values is a measurement, and so is one
  # beyond them but near (a pressure of 999 hPa), or at the end of a long tail (counts).
  d <- missing_data()
  d$temp <- d$temp * 100 - 1500
  d$temp[7] <- -999
  expect_no_error(fit_on(d))
  d$temp <- stats::runif(nrow(d), 1000, 1030)
  d$temp[7] <- 999
  expect_no_error(fit_on(d))
  d$temp <- stats::rexp(nrow(d), 1 / 300)
  d$temp[7] <- 9999
  d$temp[8] <- 12000
  expect_no_error(fit_on(d))
})
