# Sensor readings of new data on another scale than the fit's training readings (mg/m3 given to
# a fit made in ug/m3): a warning naming the columns. Expected values are computed here from the
# data with base R.

scale_data <- function(n = 600, seed = 1) {
  withr::local_seed(seed)
  truth <- stats::rlnorm(n, log(12), 0.5)
  rh <- stats::runif(n, 20, 95)
  d <- data.frame(rh = rh, s1 = 1.2 * truth + 1 + stats::rnorm(n, sd = 0.6), s2 = 0.9 * truth + stats::rnorm(n, sd = 0.8))
  d$ref <- ifelse(seq_len(n) <= 300, truth + stats::rnorm(n, sd = 0.3), NA_real_)
  d
}

scale_fit <- function(d, ...) {
  short_fit(ncam(s1 + s2 ~ rh, data = d, reference = "ref", hidden = 4L, epochs = 20L, seed = 1, threads = 1, ...),
            also = c("ncam_warning_clamp", "ncam_warning_validation_not_improved"))
}

test_that("the fit keeps the 1st and 99th percentiles of each sensor's training readings", {
  d <- scale_data()
  d$s2[c(3, 7)] <- NA
  fit <- scale_fit(d)
  expect_identical(sum(fit$n_screened), 0L)  # no reading screened out: the percentiles are the data's
  # The reference's over its readings on the training rows (rows 1-300).
  expect_identical(fit$reading_scale$sensor, c("s1", "s2", "ref"))
  expect_equal(fit$reading_scale$lower, c(stats::quantile(d$s1, 0.01), stats::quantile(d$s2, 0.01, na.rm = TRUE),
                                          stats::quantile(d$ref, 0.01, na.rm = TRUE)), ignore_attr = TRUE)
  expect_equal(fit$reading_scale$upper, c(stats::quantile(d$s1, 0.99), stats::quantile(d$s2, 0.99, na.rm = TRUE),
                                          stats::quantile(d$ref, 0.99, na.rm = TRUE)), ignore_attr = TRUE)
  # A log model keeps them in the readings' units.
  log_fit <- scale_fit(d, transform = "log")
  expect_equal(log_fit$reading_scale$lower[1], exp(stats::quantile(log(d$s1), 0.01, names = FALSE)))
  expect_equal(log_fit$reading_scale$upper[2], exp(stats::quantile(log(d$s2), 0.99, names = FALSE, na.rm = TRUE)))
})

test_that("predict() warns about readings 1000 times too small or too large, naming the columns", {
  d <- scale_data()
  fit <- scale_fit(d)
  new <- scale_data(40, seed = 2)
  expect_no_warning(plain <- predict(fit, new), class = "ncam_warning_reading_scale")
  # The review's case (repro r1.R): the logger exported mg/m3, the fit was made in ug/m3. Five
  # rows, no warning, believable numbers.
  mg <- transform(new, s1 = s1 / 1000, s2 = s2 / 1000)[1:5, ]
  w <- expect_warning(pred <- predict(fit, mg), class = "ncam_warning_reading_scale")
  expect_s3_class(w, "ncam_warning")
  expect_identical(w$columns, c("s1", "s2"))
  expect_equal(w$medians, c(stats::median(mg$s1), stats::median(mg$s2)))
  text <- gsub("\\s+", " ", cli::ansi_strip(conditionMessage(w)))
  expect_match(text, "Sensor columns s1 and s2 of `newdata` read on another scale than the fit's training readings", fixed = TRUE)
  expect_match(text, sprintf("s1: median %s of 5 readings, under a 20th of the 1st percentile of its training readings (1st to 99th percentile %s to %s)",
                             format(signif(stats::median(mg$s1), 3)), format(signif(stats::quantile(d$s1, 0.01, names = FALSE), 3)),
                             format(signif(stats::quantile(d$s1, 0.99, names = FALSE), 3))), fixed = TRUE)
  expect_match(text, "Check their units: readings in mg/m3 given to a fit made in ug/m3 are 1000 times too small", fixed = TRUE)
  expect_identical(nrow(pred), 5L)  # a warning, not an error: the estimates are still given
  # One column only, 1000 times too large (ug/m3 given to a fit made in mg/m3): the spike screen
  # leaves its readings out too, and this says why.
  big <- transform(new, s2 = s2 * 1000)
  w <- expect_warning(suppressWarnings(predict(fit, big), classes = "ncam_warning_spikes"),
                      "s2: median .* of 40 readings, over 20 times the 99th percentile", class = "ncam_warning_reading_scale")
  expect_identical(w$columns, "s2")
  expect_no_match(conditionMessage(w), "near 0")
  # Too few readings to judge: four, beside missing ones.
  few <- mg
  few$s1[5] <- NA
  few$s2[5] <- NA
  expect_no_warning(without_reading_warning(predict(fit, few)), class = "ncam_warning_reading_scale")
  # Readings at exactly 0 (a sensor at its floor) and within the percentiles' factor are no question.
  floor <- new
  floor$s1 <- 0
  floor$s2 <- stats::quantile(d$s2, 0.01, names = FALSE) / 19
  expect_no_warning(without_reading_warning(predict(fit, floor)), class = "ncam_warning_reading_scale")
})

test_that("sensors whose training readings reach 0 or below are judged only above, and log models on their readings' scale", {
  d <- scale_data()
  d$s2 <- d$s2 - 5  # readings of either sign: the 1st percentile is below 0
  fit <- scale_fit(d)
  expect_lt(fit$reading_scale$lower[2], 0)
  new <- scale_data(40, seed = 2)
  new$s2 <- (new$s2 - 5) / 1000
  expect_no_warning(predict(fit, new), class = "ncam_warning_reading_scale")
  new$s2 <- new$s2 * 1e6
  expect_warning(suppressWarnings(predict(fit, new), classes = "ncam_warning_spikes"), "s2: median .* over 20 times",
                 class = "ncam_warning_reading_scale")
  log_fit <- scale_fit(scale_data(), transform = "log")
  mg <- transform(scale_data(40, seed = 2), s1 = s1 / 1000)
  w <- expect_warning(suppressWarnings(predict(log_fit, mg), classes = "ncam_warning_extrapolation"),
                      class = "ncam_warning_reading_scale")
  expect_equal(w$medians, exp(stats::median(log(mg$s1))))  # of 40 readings: the geometric mean of the middle two
})

test_that("calibrate(), fitted() and predict_chunks() warn too; a fit saved before the percentiles predicts as before", {
  d <- scale_data()
  fit <- scale_fit(d)
  later <- scale_data(300, seed = 3)
  later$ref <- later$ref  # reference readings on the first 300 rows: all of them here
  mg <- transform(later, s1 = s1 / 1000, s2 = s2 / 1000)
  expect_warning(calibrate(fit, mg, method = "split"), "Sensor columns s1 and s2 of `data` read on another scale",
                 class = "ncam_warning_reading_scale")
  expect_warning(fitted(fit, mg), class = "ncam_warning_reading_scale")
  # predict_chunks(): one warning for the input, not one per chunk.
  path <- tempfile(fileext = ".csv")
  utils::write.csv(mg, path, row.names = FALSE)
  warned <- caught_warnings(predict_chunks(fit, path, chunk_rows = 100, verbose = FALSE))
  expect_identical(vapply(warned, function(w) class(w)[1], ""), "ncam_warning_reading_scale")
  expect_match(conditionMessage(warned[[1]]), "of `input`")
  # Saved before fits kept the percentiles: no check, the same predictions.
  old <- fit
  old$reading_scale <- NULL
  expect_no_warning(old_pred <- predict(old, mg), class = "ncam_warning_reading_scale")
  expect_identical(old_pred, suppressWarnings(predict(fit, mg), classes = "ncam_warning_reading_scale"))
})

test_that("a long column is screened on a sample and judged on all its readings", {
  scale_table <- data.frame(sensor = "s1", lower = 2, upper = 50)
  model <- list(reading_scale = scale_table, transform = "none", units = NULL)
  judged <- function(v) tryCatch({
    ncam:::warn_reading_scale(model, list(s1 = v))
    NULL
  }, ncam_warning_reading_scale = function(w) w)
  withr::local_seed(1)
  n <- 3e5
  ug <- stats::rlnorm(n, log(10), 0.7)
  expect_null(judged(ug))
  w <- judged(ug / 1000)
  expect_equal(w$medians, stats::median(ug / 1000))  # the median of every reading, not of the sample
  expect_match(conditionMessage(w), "of 300,000 readings", fixed = TRUE)
  # Hourly readings whose every 24th hour is far lower: a sample in steps of 24 would see only those.
  hourly <- rep(c(0.05, rep(10, 23)), length.out = n)
  expect_equal(ncam:::reading_scale_sample(n)[1:3], c(1, 12, 23))  # step 11: prime to 24
  expect_null(judged(hourly))
  # Near a threshold on the sample, the whole column decides: medians just inside and just outside.
  expect_null(judged(rep(2 / 19, n)))
  expect_equal(judged(rep(2 / 21, n))$medians, 2 / 21)
})

test_that("with use_reference = TRUE the reference column is judged too, against the reference's training readings", {
  d <- scale_data()
  fit <- scale_fit(d)
  # The reference's 1st and 99th percentiles over its readings on the training rows (rows 1-300;
  # none screened out), kept beside the sensors'.
  expected <- data.frame(sensor = "ref", lower = stats::quantile(d$ref, 0.01, na.rm = TRUE, names = FALSE),
                         upper = stats::quantile(d$ref, 0.99, na.rm = TRUE, names = FALSE))
  expect_identical(sum(fit$n_screened), 0L)
  expect_equal(fit$reading_scale[fit$reading_scale$sensor == "ref", ], expected, ignore_attr = TRUE)
  new <- scale_data(40, seed = 2)  # every row with a reference reading
  # The monitor's export in mg/m3, the sensors' in ug/m3: the reference is read only when asked.
  mg_ref <- transform(new, ref = ref / 1000)
  expect_no_warning(predict(fit, mg_ref), class = "ncam_warning_reading_scale")
  expect_no_warning(predict(fit, new, use_reference = TRUE), class = "ncam_warning_reading_scale")
  w <- expect_warning(suppressWarnings(predict(fit, mg_ref, use_reference = TRUE), classes = "ncam_warning_spikes"),
                      class = "ncam_warning_reading_scale")
  expect_identical(w$columns, "ref")
  expect_equal(w$medians, stats::median(mg_ref$ref))
  text <- gsub("\\s+", " ", cli::ansi_strip(conditionMessage(w)))
  expect_match(text, "Reference column ref of `newdata` reads on another scale than the fit's training readings", fixed = TRUE)
  expect_match(text, sprintf("ref: median %s of 40 readings, under a 20th of the 1st percentile of its training readings (1st to 99th percentile %s to %s)",
                             format(signif(stats::median(mg_ref$ref), 3)), format(signif(expected$lower, 3)),
                             format(signif(expected$upper, 3))), fixed = TRUE)
  # Sensors and reference alike: one warning naming them all.
  mg <- transform(mg_ref, s1 = s1 / 1000, s2 = s2 / 1000)
  w <- expect_warning(suppressWarnings(predict(fit, mg, use_reference = TRUE), classes = "ncam_warning_spikes"),
                      "Columns s1, s2, and ref of `newdata` read on another scale", class = "ncam_warning_reading_scale")
  expect_identical(w$columns, c("s1", "s2", "ref"))
  # sensor_drift() reads the reference where newdata holds it: it judges it too.
  mg_ref$date <- as.Date("2024-01-01") + seq_len(nrow(mg_ref)) - 1
  expect_warning(suppressWarnings(sensor_drift(fit, mg_ref, period = "week"), classes = "ncam_warning_few_periods"),
                 "Reference column ref of `newdata` reads on another scale", class = "ncam_warning_reading_scale")
  # A fit without the reference's percentiles does not judge it.
  sensors_only <- fit
  sensors_only$reading_scale <- fit$reading_scale[fit$reading_scale$sensor != "ref", ]
  expect_no_warning(suppressWarnings(predict(sensors_only, mg_ref, use_reference = TRUE), classes = "ncam_warning_spikes"),
                    class = "ncam_warning_reading_scale")
})
