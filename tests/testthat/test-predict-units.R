# New data for a fit to readings with units (units package): a column the fit converted (opc
# given in mg/m3, fused in pa_a's ug/m3) needs units, as plain numbers could be in either unit.

units_fixture <- function() {
  d <- simulate_colocation(days = 30, seed = 1)
  given <- d
  for (s in c("pa_a", "pa_b", "ref")) given[[s]] <- units::set_units(d[[s]], "ug/m3")
  given$opc <- units::set_units(d$opc / 1000, "mg/m3")
  fit <- suppressMessages(short_fit(ncam(pa_a + pa_b + opc ~ rh, given, reference = "ref", hidden = 4L,
                                         epochs = 30L, seed = 1, threads = 1),
                                    also = c("ncam_warning_clamp", "ncam_warning_units")))
  rows <- 500:520
  new <- given[rows, ]
  plain_opc <- new
  plain_opc$opc <- as.numeric(new$opc)
  list(d = d, given = given, fit = fit, rows = rows, new = new, plain_opc = plain_opc)
}

plain_opc_error <- "Column opc of `newdata` has no units, and the model was fitted to it in \"mg/m3\", converted to \"ug/m3\""

test_that("a fit keeps the units it converted from, and refuses plain numbers in those columns", {
  skip_if_not_installed("units")
  fx <- units_fixture()
  expect_identical(unclass(fx$fit$units), structure(c(pa_a = "ug/m3", pa_b = "ug/m3", opc = "ug/m3", ref = "ug/m3"),
                                                    given = c(opc = "mg/m3")))
  # opc in ug/m3 by hand (1000 times its mg/m3 numbers) is the same new data.
  by_hand <- fx$new
  by_hand$opc <- units::set_units(fx$d$opc[fx$rows], "ug/m3")
  pred <- predict(fx$fit, fx$new)
  expect_equal(predict(fx$fit, by_hand), pred, tolerance = 1e-10)
  # Before, plain mg/m3 numbers of opc were read as ug/m3: estimates 5 to 14 % low here.
  expect_error(predict(fx$fit, fx$plain_opc), plain_opc_error)
  expect_error(predict(fx$fit, fx$plain_opc), "units::set_units(newdata$opc, \"mg/m3\", mode = \"standard\")", fixed = TRUE)
  # The sensors given in the unit they are fused in: their plain numbers can only mean it.
  plain_sensors <- fx$new
  for (s in c("pa_a", "pa_b")) plain_sensors[[s]] <- fx$d[[s]][fx$rows]
  expect_equal(predict(fx$fit, plain_sensors), pred, tolerance = 1e-12)
  # Every reader of new data.
  expect_error(fitted(fx$fit, fx$plain_opc), plain_opc_error)
  expect_error(residuals(fx$fit, fx$plain_opc), plain_opc_error)
  expect_error(sensor_params(fx$fit, fx$plain_opc), plain_opc_error)
  expect_error(calibrate(fx$fit, fx$plain_opc, method = "split"), "opc of `data` has no units.*units::set_units\\(data\\$opc")
})

test_that("the units converted from survive saveRDS() and readRDS()", {
  skip_if_not_installed("units")
  fx <- units_fixture()
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(fx$fit, path)
  back <- readRDS(path)
  expect_identical(attr(back$units, "given"), c(opc = "mg/m3"))
  expect_identical(predict(back, fx$new), predict(fx$fit, fx$new))
  expect_error(predict(back, fx$plain_opc), plain_opc_error)
})

test_that("predict_chunks() reads files of plain numbers only when a reader gives the converted column its units", {
  skip_if_not_installed("units")
  fx <- units_fixture()
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(as.data.frame(lapply(fx$new, function(v) if (inherits(v, "units")) as.numeric(v) else v)),
                   path, row.names = FALSE)
  expect_error(predict_chunks(fx$fit, path, verbose = FALSE),
               "Column opc of .* has no units, and the model was fitted to it in \"mg/m3\", converted to \"ug/m3\".*`units = list\\(opc = \"mg/m3\"\\)`.*Or give a `reader` that sets its units")
  with_units <- function(file) {
    chunk <- utils::read.csv(file)
    chunk$opc <- units::set_units(chunk$opc, "mg/m3", mode = "standard")
    chunk
  }
  got <- predict_chunks(fx$fit, path, reader = with_units, keep = "date", verbose = FALSE)
  expect_equal(got$.pred, predict(fx$fit, fx$new)$.pred, tolerance = 1e-12)  # CSV keeps 15 digits
  expect_identical(got$date, utils::read.csv(path)$date)
  # No rows hold no number to misread: `keep` is checked on them, a header alone is scored (both
  # were refused for opc's plain numbers).
  header <- withr::local_tempfile(fileext = ".csv")
  writeLines(readLines(path)[1], header)
  expect_identical(nrow(predict_chunks(fx$fit, header, keep = "date", verbose = FALSE)), 0L)
})

test_that("predict_chunks() gives the plain numbers of a column the units of `units`", {
  skip_if_not_installed("units")
  fx <- units_fixture()
  plain <- as.data.frame(lapply(fx$new, function(v) if (inherits(v, "units")) as.numeric(v) else v))
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(plain, path, row.names = FALSE)
  got <- predict_chunks(fx$fit, path, units = list(opc = "mg/m3"), keep = c("date", "opc"), verbose = FALSE)
  expect_equal(got$.pred, predict(fx$fit, fx$new)$.pred, tolerance = 1e-12)  # CSV keeps 15 digits
  expect_identical(got$opc, utils::read.csv(path)$opc)  # kept as read
  # The same readings written in ug/m3, 1000 times the numbers: the same estimates; read as
  # mg/m3 they are 1000 times too large, gross outliers every one.
  in_ug <- plain
  in_ug$opc <- 1000 * plain$opc
  ug_path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(in_ug, ug_path, row.names = FALSE)
  expect_equal(predict_chunks(fx$fit, ug_path, units = c(opc = "ug/m3"), verbose = FALSE)$.pred, got$.pred,
               tolerance = 1e-12)
  # The check of the readings' scale says why.
  expect_warning(expect_warning(predict_chunks(fx$fit, ug_path, units = c(opc = "mg/m3"), verbose = FALSE),
                                sprintf("%d readings of `input` treated as missing as gross outliers, as in training: opc", nrow(plain)),
                                class = "ncam_warning_spikes"),
                 "opc: median .* over 20 times the 99th percentile", class = "ncam_warning_reading_scale")
  # Every chunk of a function input (a row's result depends on the rows scored beside it to
  # about 1e-7 relative, in single precision).
  chunked <- predict_chunks(fx$fit, row_chunks(plain, 7), units = list(opc = "mg/m3"), verbose = FALSE)
  expect_equal(chunked$.pred, got$.pred, tolerance = 1e-6)
  # Checked before any file is read.
  expect_error(predict_chunks(fx$fit, path, units = list(rh = "percent")),
               "`units` names column rh, which the model did not read with units.*Columns it read with units: pa_a, pa_b, opc, and ref")
  expect_error(predict_chunks(fx$fit, path, units = list(opc = "ppb")),
               "`units` gives column opc the unit \"ppb\", which cannot be converted to \"ug/m3\"")
  expect_error(predict_chunks(fx$fit, path, units = list(opc = "no unit")), "opc the unit \"no unit\", which the units package does not know")
  expect_error(predict_chunks(fx$fit, path, units = "mg/m3"), "`units` must be a named list of unit strings")
  expect_error(predict_chunks(fx$fit, path, units = list(opc = 1000)), "`units` must be a named list of unit strings")
  expect_error(predict_chunks(fx$fit, path, units = list(opc = "mg/m3", opc = "ug/m3")), "`units` names column opc more than once")
  # Units given twice, by a reader and `units`: which is right?
  with_units <- function(file) {
    chunk <- utils::read.csv(file)
    chunk$opc <- units::set_units(chunk$opc, "mg/m3", mode = "standard")
    chunk
  }
  expect_error(predict_chunks(fx$fit, path, reader = with_units, units = list(opc = "mg/m3"), verbose = FALSE),
               "Column opc of .* has units already, \"mg/m3\", and `units` gives it \"mg/m3\"")
  text_opc <- plain
  text_opc$opc <- "high"
  expect_error(predict_chunks(fx$fit, row_chunks(text_opc, 10), units = list(opc = "mg/m3"), verbose = FALSE),
               "Column opc of `input` must hold numbers to take the unit \"mg/m3\" of `units`")
})

# A fit whose reference was converted (ref given in mg/m3 beside sensors in ug/m3): predict()
# reads the reference only with use_reference = TRUE, so only then must it have units.
converted_reference_data <- function() {
  d <- simulate_colocation(days = 30, seed = 1)
  given <- d
  for (s in c("pa_a", "pa_b", "opc")) given[[s]] <- units::set_units(d[[s]], "ug/m3")
  given$ref <- units::set_units(d$ref / 1000, "mg/m3")
  list(d = d, given = given)
}

# The fit of converted_reference_data()'s `given`, named in the caller's frame as by a user
# calling ncam() there, so that calibrate() finds the rows it was fitted to.
fit_converted_reference <- function(given) {
  args <- list(formula = pa_a + pa_b + opc ~ rh, data = substitute(given), reference = "ref", hidden = 4L,
               epochs = 30L, seed = 1, threads = 1)
  environment(args$formula) <- parent.frame()
  suppressMessages(short_fit(do.call(ncam, args, envir = parent.frame()),
                             also = c("ncam_warning_clamp", "ncam_warning_units")))
}

# Co-location rows (every one has a reference reading): with the reference in mg/m3, as plain
# numbers, and left out.
converted_reference_rows <- function(data, fit) {
  rows <- 500:520
  new <- data$given[rows, ]
  plain_ref <- new
  plain_ref$ref <- as.numeric(new$ref)
  without_ref <- new
  without_ref$ref <- NULL
  c(data, list(fit = fit, rows = rows, new = new, plain_ref = plain_ref, without_ref = without_ref))
}

reference_units_fixture <- function() {
  data <- converted_reference_data()
  converted_reference_rows(data, fit_converted_reference(data$given))
}

plain_ref_error <- "Column ref of `newdata` has no units, and the model was fitted to it in \"mg/m3\", converted to \"ug/m3\""

test_that("a converted reference may hold plain numbers, or units of anything, where it is not read", {
  skip_if_not_installed("units")
  fx <- reference_units_fixture()
  expect_identical(attr(fx$fit$units, "given"), c(ref = "mg/m3"))
  expect_false(anyNA(fx$d$ref[fx$rows]))
  # The estimate from the low-cost sensors is that of the same rows without the reference column.
  alone <- predict(fx$fit, fx$without_ref)
  expect_identical(predict(fx$fit, fx$plain_ref), alone)  # was an error
  expect_identical(predict(fx$fit, fx$new), alone)
  in_metres <- fx$new
  in_metres$ref <- units::set_units(fx$d$ref[fx$rows], "m")
  expect_identical(predict(fx$fit, in_metres), alone)  # was an error: m cannot be converted to ug/m3
  expect_identical(fitted(fx$fit, fx$plain_ref), alone$.pred)
  expect_identical(sensor_params(fx$fit, fx$plain_ref), sensor_params(fx$fit, fx$without_ref))
  expect_identical(as.numeric(augment(fx$fit, fx$plain_ref)$.pred), alone$.pred)
  # A calibration predicts from the sensors alone too.
  cal <- suppressMessages(calibrate(fx$fit, fx$given[600:650, ], method = "split"))
  expect_identical(predict(cal, fx$plain_ref), predict(cal, fx$without_ref))
})

test_that("a converted reference must have units where it is read", {
  skip_if_not_installed("units")
  fx <- reference_units_fixture()
  expect_error(predict(fx$fit, fx$plain_ref, use_reference = TRUE), plain_ref_error, fixed = TRUE)
  in_metres <- fx$new
  in_metres$ref <- units::set_units(fx$d$ref[fx$rows], "m")
  expect_error(predict(fx$fit, in_metres, use_reference = TRUE), "is in \"m\", which cannot be converted to \"ug/m3\"")
  # Read, the mg/m3 reference is converted: the same as its ug/m3 numbers (1000 times) by hand.
  by_hand <- fx$new
  by_hand$ref <- units::set_units(fx$d$ref[fx$rows], "ug/m3")
  with_ref <- predict(fx$fit, fx$new, use_reference = TRUE)
  expect_equal(with_ref, predict(fx$fit, by_hand, use_reference = TRUE), tolerance = 1e-12)
  expect_true(all(with_ref$.post_sd < predict(fx$fit, fx$without_ref)$.post_sd))  # it was read
  # residuals() reads the reference whenever newdata holds it.
  expect_error(residuals(fx$fit, fx$plain_ref), plain_ref_error, fixed = TRUE)
  expect_true(all(is.na(residuals(fx$fit, fx$without_ref)[, "ref"])))
})

test_that("calibrate() refuses a plain converted reference only when it calibrates against it", {
  skip_if_not_installed("units")
  data <- converted_reference_data()
  given <- data$given
  fx <- converted_reference_rows(data, fit_converted_reference(given))
  expect_error(calibrate(fx$fit, fx$plain_ref, method = "split"), "ref of `data` has no units.*units::set_units\\(data\\$ref")
  expect_error(calibrate(fx$fit, fx$plain_ref), "ref of `data` has no units")  # "split" by default
  # Against another column the model's reference is not read: the scores are those of the data
  # with it in units. The 21 rows trained the fit, found as such without their reference.
  against_truth <- function(data) {
    expect_warning(cal <- suppressMessages(calibrate(fx$fit, data, method = "split", reference = "truth")),
                   "21 of the 21 rows of `data` with a reference reading are rows `object` was fitted to",
                   class = "ncam_warning_in_sample_calibration")
    cal
  }
  plain <- against_truth(fx$plain_ref)
  expect_identical(plain$scores, against_truth(fx$new)$scores)
  # "split" scores against the sd of a reading of the reference, as a prediction interval's.
  pred <- predict(fx$fit, fx$without_ref, interval = "prediction")
  expect_equal(plain$scores, sort(abs(fx$d$truth[fx$rows] - pred$.pred) / pred$.pred_sd), tolerance = 1e-10)
  suppressWarnings(calibrate(fx$fit, fx$plain_ref, method = "sensor_anchored"),
                   classes = "ncam_warning_label_free_calibration") |>
    expect_warning("21 of the 21 rows of `data` are rows `object` was fitted to", class = "ncam_warning_in_sample_calibration")
})

test_that("autoplot() draws a fit's data with units in the fit's units, and reads a plain converted reference only as its reference", {
  skip_if_not_installed("units")
  skip_if_not_installed("ggplot2")
  fx <- units_fixture()  # opc given in mg/m3, fused in ug/m3
  rows <- 500:620
  new <- fx$given[rows, ]
  pred <- predict(fx$fit, new)
  series <- ggplot2::autoplot(fx$fit, "series", newdata = new, reference = "ref", interval = "credible")  # was an error
  drawn <- series$data
  expect_equal(drawn$value[drawn$series == "opc"], fx$d$opc[rows], tolerance = 1e-12)  # ug/m3, as fused
  expect_equal(drawn$value[drawn$series == "ref (reference)"], fx$d$ref[rows])
  expect_equal(drawn$value[drawn$series == "NCAM fused"], pred$.pred)
  scatter <- ggplot2::autoplot(fx$fit, "scatter", newdata = new, reference = "ref")
  expect_equal(scatter$data$fused, pred$.pred[!is.na(fx$d$ref[rows])])
  sensors <- ggplot2::autoplot(fx$fit, "sensors", newdata = new)
  gains <- sensors$data[sensors$data$parameter == "gain" & sensors$data$sensor == "opc", ]
  params <- sensor_params(fx$fit, new)
  expect_equal(gains$value, params$a[params$sensor == "opc"])
  expect_equal(gains$x, fx$d$rh[rows])
  # A reference converted by the fit: plain numbers drawn as its reference could be in either unit.
  rx <- reference_units_fixture()
  rx$plain_ref$date <- rx$d$date[rx$rows]
  expect_error(ggplot2::autoplot(rx$fit, "series", newdata = rx$plain_ref, reference = "ref"), plain_ref_error, fixed = TRUE)
  against_truth <- ggplot2::autoplot(rx$fit, "series", newdata = rx$plain_ref, reference = "truth")
  expect_equal(against_truth$data$value[against_truth$data$series == "NCAM fused"], predict(rx$fit, rx$without_ref)$.pred)
})

test_that("predict_chunks() reads a file with a plain converted reference, and refuses it only when asked to read it", {
  skip_if_not_installed("units")
  fx <- reference_units_fixture()
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(as.data.frame(lapply(fx$new, function(v) if (inherits(v, "units")) as.numeric(v) else v)),
                   path, row.names = FALSE)
  # Without a reader: the reference is not read (an error before).
  got <- predict_chunks(fx$fit, path, verbose = FALSE)
  expect_equal(got$.pred, predict(fx$fit, fx$without_ref)$.pred, tolerance = 1e-12)  # CSV keeps 15 digits
  expect_error(predict_chunks(fx$fit, path, use_reference = TRUE, verbose = FALSE),
               "Column ref of .* has no units, and the model was fitted to it in \"mg/m3\", converted to \"ug/m3\".*`units = list\\(ref = \"mg/m3\"\\)`.*Or give a `reader` that sets its units.*Or leave `use_reference` out")
  chunks <- row_chunks(fx$plain_ref, 10)
  expect_error(predict_chunks(fx$fit, chunks, use_reference = TRUE, verbose = FALSE),
               "Column ref of `input` has no units.*Or have `input` return ref with its units")
  with_units <- function(file) {
    chunk <- utils::read.csv(file)
    chunk$ref <- units::set_units(chunk$ref, "mg/m3", mode = "standard")
    chunk
  }
  read <- predict_chunks(fx$fit, path, reader = with_units, use_reference = TRUE, verbose = FALSE)
  expect_equal(read$.pred, predict(fx$fit, fx$new, use_reference = TRUE)$.pred, tolerance = 1e-12)
  expect_true(all(read$.post_sd < got$.post_sd))  # it was read
})

test_that("augment() gives its predictions the units of the estimate beside columns with units", {
  skip_if_not_installed("units")
  d <- simulate_colocation(days = 30, seed = 1)
  given <- d
  for (s in c("pa_a", "pa_b", "opc")) given[[s]] <- units::set_units(d[[s]] / 1000, "mg/m3")
  given$ref <- units::set_units(d$ref, "ug/m3")  # converted to mg/m3, the unit of pa_a and of the estimate
  fit <- suppressMessages(short_fit(ncam(pa_a + pa_b + opc ~ rh, given, reference = "ref", hidden = 4L,
                                         epochs = 30L, seed = 1, threads = 1),
                                    also = c("ncam_warning_clamp", "ncam_warning_units")))
  pred <- predict(fit, given, interval = "prediction") |>
    suppressWarnings(classes = "ncam_warning_extrapolation")
  aug <- augment(fit, given, interval = "prediction") |> suppressWarnings(classes = "ncam_warning_extrapolation")
  for (col in c(".pred", ".pred_sd", ".post_sd", ".pred_lower", ".pred_upper")) {
    expect_identical(aug[[col]], units::set_units(pred[[col]], "mg/m3", mode = "standard"))
  }
  expect_identical(aug$.n_sensors, pred$.n_sensors)
  # Judged against the ug/m3 reference in ug/m3: as the estimates 1000 times by hand. As plain
  # numbers they were read as ug/m3 beside it: slope 0.001.
  judged <- suppressMessages(sensor_performance(aug, estimate = ".pred", reference = "ref", averaging = "24h"))
  by_hand <- data.frame(date = d$date, .pred = 1000 * pred$.pred, ref = d$ref)
  expected <- suppressMessages(sensor_performance(by_hand, estimate = ".pred", reference = "ref", averaging = "24h"))
  expect_equal(judged$slope, expected$slope, tolerance = 1e-10)
  expect_equal(judged$rmse, expected$rmse, tolerance = 1e-10)
  # evaluate_fusion() compares in the predictions' mg/m3.
  scored <- !is.na(d$ref)
  metrics <- suppressMessages(evaluate_fusion(aug[scored, ], aug$ref[scored]))
  expect_equal(metrics$rmse, sqrt(mean((pred$.pred[scored] - d$ref[scored] / 1000)^2)), tolerance = 1e-10)
  # Without columns with units the predictions stay plain numbers, as predict() gives them.
  plain <- as.data.frame(lapply(given, function(v) if (inherits(v, "units")) as.numeric(v) else v))
  plain$ref <- NULL
  expect_identical(augment(fit, plain[1:5, ])$.pred, predict(fit, plain[1:5, ])$.pred)
  # A baseline's too.
  baseline <- suppressMessages(ncam_baseline(pa_a + pa_b + opc ~ 1, given, "ivw"))
  expect_identical(augment(baseline, given[1:5, ])$.pred,
                   units::set_units(predict(baseline, given[1:5, ])$.pred, "mg/m3", mode = "standard"))
})

test_that("an unanchored fit on columns with units takes a reference with units in calibrate() and the scatter picture", {
  withr::local_seed(1)
  n <- 300
  truth <- stats::rlnorm(n, log(10), 0.5)
  ug <- function(x) units::set_units(x, "ug/m3")
  d <- data.frame(rh = stats::runif(n), s1 = ug(truth + stats::rnorm(n)), s2 = ug(truth + stats::rnorm(n)),
                  s3 = ug(truth + stats::rnorm(n)))
  fit <- short_fit(ncam(s1 + s2 + s3 ~ rh, d, parameterization = "unanchored", hidden = 4L, epochs = 5L,
                        seed = 1L, threads = 1L), also = "ncam_warning_clamp")
  nd <- d
  nd$ref <- units::set_units(ug(truth), "mg/m3")
  plain <- d
  plain$ref <- truth
  # The reference in mg/m3 is converted to the readings' ug/m3: the same calibration as plain ug/m3 numbers.
  in_sample <- function(expr) suppressWarnings(expr, classes = "ncam_warning_in_sample_calibration")
  expect_equal(in_sample(calibrate(fit, nd, method = "split", reference = "ref"))$threshold,
               in_sample(calibrate(fit, plain, method = "split", reference = "ref"))$threshold)
  expect_s3_class(ggplot2::autoplot(fit, type = "scatter", newdata = nd, reference = "ref"), "ggplot")
})
