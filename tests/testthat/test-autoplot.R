# autoplot() pictures: each builds, and the plotted numbers match the model's accessors and
# hand computations.

skip_if_not_installed("ggplot2")

plot_toy <- simulate_toy(300, seed = 21)
plot_toy$date <- as.Date("2024-01-01") + seq_len(nrow(plot_toy)) - 1
plot_fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = plot_toy[1:200, ],
                           anchor = "sensor_0", hidden = 8, epochs = 5, seed = 1, threads = 1))
plot_test <- plot_toy[201:300, ]

test_that("every type returns a ggplot that builds", {
  plots <- list(
    loss = ggplot2::autoplot(plot_fit),
    sensors = ggplot2::autoplot(plot_fit, "sensors", newdata = plot_test),
    series = ggplot2::autoplot(plot_fit, "series", newdata = plot_test, reference = "truth"),
    series_no_reference = ggplot2::autoplot(plot_fit, "series", newdata = plot_test),
    scatter = ggplot2::autoplot(plot_fit, "scatter", newdata = plot_test, reference = "truth"),
    coverage = ggplot2::autoplot(plot_fit, "coverage", newdata = plot_test, reference = "truth")
  )
  for (p in plots) {
    expect_s3_class(p, "ggplot")
    expect_s3_class(ggplot2::ggplot_build(p), "ggplot_built")
  }
})

test_that("the loss plot draws the history and marks the best epoch", {
  p <- ggplot2::autoplot(plot_fit)
  h <- plot_fit$history
  lines <- layer_data_of(p, "GeomLine")
  expect_equal(sort(lines$y), sort(c(h$train_nll, h$validation_nll, h$validation_criterion)))
  # The best epoch sits on the capped validation NLL, the curve early stopping watches.
  best <- layer_data_of(p, "GeomPoint")
  expect_equal(c(best$x, best$y), c(plot_fit$best_epoch, min(h$validation_criterion)))
  expect_equal(layer_data_of(p, "GeomVline")$xintercept, plot_fit$best_epoch)
  # A fit made before the capped curve was kept marks its best epoch on the plain one.
  old <- plot_fit
  old$history$validation_criterion <- NULL
  best_old <- layer_data_of(ggplot2::autoplot(old), "GeomPoint")
  expect_equal(best_old$y, h$validation_nll[plot_fit$best_epoch])
})

test_that("the loss plot zooms on later epochs when the first ones dwarf them", {
  fit <- plot_fit
  fit$history <- data.frame(epoch = 1:30, train_loss = 0, train_nll = c(100, 5 - (2:30) / 100),
                            validation_nll = c(100, 5.1 - (2:30) / 100))
  p <- ggplot2::autoplot(fit)
  # Epochs 4 to 30 span 4.70 (training) to 5.06 (validation); coord_cartesian() adds 5%.
  expect_equal(ggplot2::ggplot_build(p)$layout$panel_params[[1]]$y.range,
               c(4.70, 5.06) + c(-1, 1) * 0.05 * 0.36)
  expect_match(p$labels$caption, "zoomed on epochs after 3; the curves start at 100")
})

test_that("the sensors plot shows sensor_params() against the covariate", {
  p <- ggplot2::autoplot(plot_fit, "sensors", newdata = plot_test, covariate = "x2")
  params <- sensor_params(plot_fit, plot_test)
  points <- layer_data_of(p, "GeomPoint")
  expect_identical(nrow(points), 3L * 4L * 100L)
  # The top panel: each sensor's reading at the anchor's median reading on the fitted rows.
  typical <- stats::median(plot_toy$sensor_0[1:200])
  expect_equal(sort(points$y), sort(c(params$a * typical + params$c, params$a, params$c, params$sigma)))
  expect_equal(sort(unique(points$x)), sort(unique(plot_test$x2)))
  expect_equal(sort(layer_data_of(p, "GeomHline")$yintercept), sort(c(0, 1, typical)))
  expect_identical(p$labels$x, "x2")
  # The first covariate is the default.
  expect_identical(ggplot2::autoplot(plot_fit, "sensors", newdata = plot_test)$labels$x, "x1")
})

test_that("bin means of a linear relation lie on it, with one bin per 10 rows", {
  # 100 rows with a gap in x: 10 bins of equal width.
  long <- data.frame(.row = 1:100, sensor = factor("s"), parameter = factor("gain"),
                     x = as.Date("2024-01-01") + c(0:49, 100:149))
  long$value <- 3 * as.numeric(long$x) + 1
  means <- bin_means(long)
  # 10 bins of width 14.9 days over days 0 to 149; the 5th and 6th (days 59.6 to 89.4) are
  # empty.
  expect_identical(nrow(means), 8L)
  expect_s3_class(means$x, "Date")
  expect_equal(means$value, 3 * as.numeric(means$x) + 1)
  expect_false(is.unsorted(means$x))
})

test_that("the series plot draws sensors, reference and the credible ribbon on a date axis", {
  p <- ggplot2::autoplot(plot_fit, "series", newdata = plot_test, reference = "truth", level = 0.8)
  pred <- predict(plot_fit, plot_test, interval = "credible", level = 0.8)
  ribbon <- layer_data_of(p, "GeomRibbon")
  expect_equal(ribbon$ymin, pred$.pred_lower)
  expect_equal(ribbon$ymax, pred$.pred_upper)
  lines <- layer_data_of(p, "GeomLine")
  expect_identical(nrow(lines), 5L * 100L)
  expect_equal(sort(lines$y), sort(c(plot_test$sensor_0, plot_test$sensor_1, plot_test$sensor_2,
                                     plot_test$truth, pred$.pred)))
  expect_s3_class(ggplot2::ggplot_build(p)$layout$panel_scales_x[[1]], "ScaleContinuousDate")

  # POSIXct times work as well.
  hourly <- plot_test
  hourly$date <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * seq_len(nrow(hourly))
  p <- ggplot2::autoplot(plot_fit, "series", newdata = hourly)
  expect_s3_class(ggplot2::ggplot_build(p)$layout$panel_scales_x[[1]], "ScaleContinuousDatetime")
})

test_that("the scatter plot pairs the fused estimate with the reference", {
  newdata <- plot_test
  newdata$truth[1:3] <- NA
  p <- ggplot2::autoplot(plot_fit, "scatter", newdata = newdata, reference = "truth")
  pred <- predict(plot_fit, newdata)$.pred[-(1:3)]
  ref <- newdata$truth[-(1:3)]
  points <- layer_data_of(p, "GeomPoint")
  expect_equal(points$x, ref)
  expect_equal(points$y, pred)
  expect_equal(layer_data_of(p, "GeomAbline")[c("slope", "intercept")],
               data.frame(slope = 1, intercept = 0), ignore_attr = TRUE)
  rmse <- sqrt(mean((pred - ref)^2))
  expect_match(p$labels$subtitle, sprintf("n = 97, bias = %.3g, RMSE = %.3g", mean(pred - ref), rmse),
               fixed = TRUE)
  expect_match(p$labels$caption, "3 rows without both a reference value and an estimate not shown.", fixed = TRUE)
})

test_that("the coverage plot counts references inside the credible intervals", {
  levels <- c(0.5, 0.8, 0.95)
  p <- ggplot2::autoplot(plot_fit, "coverage", newdata = plot_test, reference = "truth",
                         level = levels)
  # Gaussian model without transform: the interval is mu -/+ z * sd_pred.
  pred <- predict(plot_fit, plot_test)
  by_hand <- vapply(levels, function(l) {
    half <- qnorm((1 + l) / 2) * pred$.pred_sd
    mean(abs(plot_test$truth - pred$.pred) <= half)
  }, numeric(1))
  points <- layer_data_of(p, "GeomPoint")
  expect_equal(points$x, levels)
  expect_equal(points$y, by_hand)
  # Default levels 0.50, 0.55, ..., 0.95.
  default <- ggplot2::autoplot(plot_fit, "coverage", newdata = plot_test, reference = "truth")
  expect_equal(layer_data_of(default, "GeomPoint")$x, seq(0.5, 0.95, by = 0.05))
  # 98 rows have a reference value, 97 also an estimate: the subtitle counts those compared.
  gappy <- plot_test
  gappy$truth[1:2] <- NA
  gappy$x1[5] <- NA
  p <- suppressWarnings(ggplot2::autoplot(plot_fit, "coverage", newdata = gappy, reference = "truth"),
                        classes = "ncam_warning_missing_covariate")
  expect_identical(p$labels$subtitle, "97 rows with both a reference value and an estimate")
})

test_that("for a reference fit the series and coverage plots use intervals for a reference reading", {
  co <- simulate_colocation(days = 20, seed = 3)
  fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, co, reference = "ref",
                        hidden = 4L, epochs = 20L, seed = 1, threads = 1))
  params <- sensor_params(fit, co)
  ref_sd <- params$sigma[params$sensor == "ref"]
  post <- predict(fit, co, interval = "credible")
  # Prediction interval for a reference reading: posterior and the reference's own noise.
  half <- qnorm(0.95) * sqrt(post$.post_sd^2 + ref_sd^2)
  by_hand <- mean(abs(co$ref - post$.pred) <= half, na.rm = TRUE)
  default <- ggplot2::autoplot(fit, "coverage", newdata = co, reference = "ref", level = 0.9)
  expect_equal(layer_data_of(default, "GeomPoint")$y, by_hand)
  expect_match(default$labels$title, "prediction intervals")
  credible <- ggplot2::autoplot(fit, "coverage", newdata = co, reference = "ref", level = 0.9,
                                interval = "credible")
  expect_equal(layer_data_of(credible, "GeomPoint")$y,
               mean(abs(co$ref - post$.pred) <= qnorm(0.95) * post$.post_sd, na.rm = TRUE))
  series <- ggplot2::autoplot(fit, "series", newdata = co[1:48, ], reference = "ref", level = 0.9)
  ribbon <- layer_data_of(series, "GeomRibbon")
  expect_equal(ribbon$ymax - ribbon$ymin, 2 * half[1:48])
  expect_error(ggplot2::autoplot(fit, "coverage", newdata = co, reference = "ref", interval = "conformal"),
               "interval")
  # Without `reference`, the fit's own reference column: the same rows and coverage as naming it;
  # the series draws it when it holds a reading, not when it is all missing (after a co-location).
  implicit <- ggplot2::autoplot(fit, "coverage", newdata = co, level = 0.9)
  expect_equal(layer_data_of(implicit, "GeomPoint")$y, by_hand)
  scatter <- ggplot2::autoplot(fit, "scatter", newdata = co)
  expect_equal(nrow(layer_data_of(scatter, "GeomPoint")), sum(!is.na(co$ref)))
  expect_match(scatter$labels$x, "Reference (ref", fixed = TRUE)
  expect_true("ref (reference)" %in% ggplot2::autoplot(fit, "series", newdata = co[1:48, ])$data$series)
  unlabelled <- co[1:48, ]
  unlabelled$ref <- NA_real_
  expect_false("ref (reference)" %in% ggplot2::autoplot(fit, "series", newdata = unlabelled)$data$series)
  expect_error(ggplot2::autoplot(plot_fit, "scatter", newdata = plot_test), "`reference` is required")
  # Without a reference the default stays the credible interval (tested above).
  expect_match(ggplot2::autoplot(plot_fit, "coverage", newdata = plot_test, reference = "truth")$labels$title,
               "credible intervals")
})

test_that("a log model's sensors plot says log units; the series caption counts missing values", {
  positive <- plot_toy
  for (s in c("sensor_0", "sensor_1", "sensor_2")) positive[[s]] <- pmax(abs(positive[[s]]), 0.5)
  log_fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = positive, transform = "log",
                            hidden = 4L, epochs = 3L, seed = 1, threads = 1))
  p <- ggplot2::autoplot(log_fit, "sensors", newdata = positive)
  strips <- p$facet$params$labeller(data.frame(parameter = c("gain", "offset", "noise")))[[1]]
  expect_identical(unname(strips), c("Gain (log reading per log true value)", "Offset (log reading units)",
                                     "Noise standard deviation (log reading units)"))
  gappy <- plot_test
  gappy$sensor_1[1:3] <- NA
  series <- ggplot2::autoplot(plot_fit, "series", newdata = gappy)
  expect_identical(series$labels$caption, "3 missing values not shown.")
})

test_that("the sensors plot of the PurpleAir data anchors the reference monitor", {
  dir <- shared_data("purpleair-aqs-daily-mathieu")
  skip_if_not(dir.exists(dir), "shared PurpleAir data not available")
  pa <- read_purpleair_aqs(list.files(dir, pattern = "\\.csv$", full.names = TRUE)[1])
  fit <- short_fit(ncam(ref + pa_a + pa_b ~ rh + temperature, pa, anchor = "ref", hidden = 8, epochs = 5,
                        seed = 1, threads = 1))
  p <- ggplot2::autoplot(fit, "sensors", newdata = pa)
  points <- layer_data_of(p, "GeomPoint")
  # 5,000 of the rows are drawn, for each of 3 sensors and 4 panels.
  expect_identical(nrow(points), 5000L * 12L)
  expect_identical(p$labels$x, "rh")
  expect_identical(levels(p$data$sensor), c("ref (anchor)", "pa_a", "pa_b"))
  anchor <- p$data[p$data$sensor == "ref (anchor)", ]
  expect_true(all(anchor$value[anchor$parameter == "gain"] == 1))
  expect_true(all(anchor$value[anchor$parameter == "offset"] == 0))
  # The reference reads the typical true value, its median on the rows the fit trained on.
  fitted_rows <- rowSums(!is.na(pa[c("ref", "pa_a", "pa_b")])) > 0 & !is.na(pa$rh) & !is.na(pa$temperature)
  expect_equal(unique(anchor$value[anchor$parameter == "reading"]), stats::median(pa$ref[fitted_rows], na.rm = TRUE))
})

test_that("the sensors plot says what gain and offset mean, and reads each sensor at a typical true value", {
  p <- ggplot2::autoplot(plot_fit, "sensors", newdata = plot_test)
  strips <- function(p) p$facet$params$labeller(data.frame(parameter = levels(p$data$parameter)))[[1]]
  expect_snapshot(writeLines(c(p$labels$subtitle, strips(p))))
  # A log model reads them at exp(gain x log value + offset).
  positive <- plot_toy
  for (s in c("sensor_0", "sensor_1", "sensor_2")) positive[[s]] <- pmax(abs(positive[[s]]), 0.5)
  log_fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = positive, transform = "log",
                            hidden = 4L, epochs = 3L, seed = 1, threads = 1))
  log_plot <- ggplot2::autoplot(log_fit, "sensors", newdata = positive)
  expect_snapshot(writeLines(c(log_plot$labels$subtitle, strips(log_plot)[1])))
  params <- sensor_params(log_fit, positive)
  typical <- stats::median(positive$sensor_0)
  reading <- log_plot$data[log_plot$data$parameter == "reading", ]
  expect_identical(nrow(reading), 3L * nrow(positive))
  expect_equal(sort(reading$value), sort(exp(params$a * log(typical) + params$c)))
  # Without an anchor the latent value is on no reading's scale: no such panel.
  free <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = plot_toy[1:200, ], parameterization = "unanchored",
                         hidden = 4L, epochs = 2L, seed = 1, threads = 1))
  free_plot <- ggplot2::autoplot(free, "sensors", newdata = plot_test)
  expect_identical(levels(free_plot$data$parameter), c("gain", "offset", "noise"))
  expect_snapshot(writeLines(free_plot$labels$subtitle))
})

test_that("bad autoplot input gives clear errors naming the argument and column", {
  undated <- plot_test
  undated$date <- as.character(undated$date)
  repeated <- plot_test
  repeated$date[2] <- repeated$date[1]
  expect_snapshot(ggplot2::autoplot(plot_fit, "maps"), error = TRUE)
  expect_snapshot(ggplot2::autoplot(plot_fit, "sensors"), error = TRUE)
  expect_snapshot(ggplot2::autoplot(plot_fit, "sensors", newdata = plot_test, covariate = "rh"),
                  error = TRUE)
  expect_snapshot(ggplot2::autoplot(plot_fit, "scatter", newdata = plot_test), error = TRUE)
  expect_snapshot(ggplot2::autoplot(plot_fit, "coverage", newdata = plot_test, reference = "ref"),
                  error = TRUE)
  expect_snapshot(ggplot2::autoplot(plot_fit, "series", newdata = plot_test, date = "day"),
                  error = TRUE)
  expect_snapshot(ggplot2::autoplot(plot_fit, "series", newdata = undated), error = TRUE)
  expect_snapshot(ggplot2::autoplot(plot_fit, "series", newdata = repeated), error = TRUE)
  expect_snapshot(ggplot2::autoplot(plot_fit, "series", newdata = plot_test, level = c(0.5, 0.9)),
                  error = TRUE)
  expect_snapshot(ggplot2::autoplot(plot_fit, "coverage", newdata = plot_test, reference = "truth",
                                    level = 1), error = TRUE)
  expect_snapshot(ggplot2::autoplot(plot_fit, newdata = plot_test, refrence = "truth"), error = TRUE)
  expect_error(ggplot2::autoplot(plot_fit, "series", new_data = plot_test), "Did you mean `newdata`?", fixed = TRUE)
  expect_snapshot(check_ggplot2(installed = FALSE), error = TRUE)
})

test_that("a newdata without rows is an error for every picture that reads it", {
  empty <- plot_test[0, ]
  for (type in c("sensors", "series", "scatter", "coverage")) {
    expect_error(ggplot2::autoplot(plot_fit, type, newdata = empty, reference = "truth"),
                 "`newdata` has no rows", class = "rlang_error")
  }
})

test_that("series and scatter mark the rows far outside the calibration range", {
  newdata <- plot_test
  newdata$sensor_1[c(5, 40)] <- max(plot_toy$sensor_1[1:200]) * 3  # far above the fitted rows
  expect_warning(pred <- predict(plot_fit, newdata), class = "ncam_warning_extrapolation")
  far <- which(pred$.extrapolation > ncam:::extrapolation_warning_share)
  expect_true(all(c(5L, 40L) %in% far))
  series <- suppressWarnings(ggplot2::autoplot(plot_fit, "series", newdata = newdata), classes = "ncam_warning_extrapolation")
  marks <- layer_data_of(series, "GeomPoint")
  expect_equal(marks$y, pred$.pred[far])
  expect_equal(marks$x, as.numeric(newdata$date[far]))
  scatter <- suppressWarnings(ggplot2::autoplot(plot_fit, "scatter", newdata = newdata, reference = "truth"),
                              classes = "ncam_warning_extrapolation")
  points <- layer_data_of(scatter, "GeomPoint")
  # Drawn in their own colour, last (over the others).
  marked <- which(points$colour == "#D55E00")
  expect_identical(marked, nrow(points) - rev(seq_along(far)) + 1L)
  expect_equal(points$x[marked], newdata$truth[far])
  expect_equal(points$y[marked], pred$.pred[far])
  expect_equal(sort(points$x[-marked]), sort(newdata$truth[-far]))
  # Inside the range: no marks, and one colour without a legend.
  expect_false(any(vapply(ggplot2::autoplot(plot_fit, "series", newdata = plot_toy[1:200, ])$layers,
                          function(l) inherits(l$geom, "GeomPoint"), logical(1))))
  inside <- ggplot2::autoplot(plot_fit, "scatter", newdata = plot_toy[1:200, ], reference = "truth")
  expect_length(unique(layer_data_of(inside, "GeomPoint")$colour), 1L)
})

test_that("every picture reads columns with units as predict() does", {
  skip_if_not_installed("units")
  with_units <- function(d) {
    for (v in c("sensor_0", "sensor_1", "sensor_2", "truth")) d[[v]] <- units::set_units(d[[v]], "ug/m3", mode = "standard")
    d$x1 <- units::set_units(d$x1, "degC", mode = "standard")
    d$x2 <- units::set_units(d$x2, "percent", mode = "standard")
    d
  }
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = with_units(plot_toy[1:200, ]),
                        anchor = "sensor_0", hidden = 8, epochs = 5, seed = 1, threads = 1))
  newdata <- with_units(plot_test)
  pred <- predict(fit, newdata)
  scatter <- layer_data_of(ggplot2::autoplot(fit, "scatter", newdata = newdata, reference = "truth"), "GeomPoint")
  expect_equal(scatter$x, plot_test$truth)
  expect_equal(scatter$y, pred$.pred)
  # A reference in mg/m3 is drawn in the estimate's ug/m3.
  in_mg <- newdata
  in_mg$truth <- units::set_units(in_mg$truth, "mg/m3", mode = "standard")
  expect_equal(layer_data_of(ggplot2::autoplot(fit, "scatter", newdata = in_mg, reference = "truth"), "GeomPoint")$x,
               plot_test$truth)
  coverage <- ggplot2::autoplot(fit, "coverage", newdata = newdata, reference = "truth", level = 0.8)
  expect_equal(layer_data_of(coverage, "GeomPoint")$y,
               mean(abs(plot_test$truth - pred$.pred) <= qnorm(0.9) * pred$.pred_sd))
  series <- ggplot2::autoplot(fit, "series", newdata = newdata, reference = "truth")
  expect_equal(sort(layer_data_of(series, "GeomLine")$y),
               sort(c(unlist(plot_test[c("sensor_0", "sensor_1", "sensor_2", "truth")]), pred$.pred)),
               ignore_attr = TRUE)
  # The covariate on the x axis in its units at the fit: kelvin given, degrees C drawn.
  in_kelvin <- newdata
  in_kelvin$x1 <- units::set_units(in_kelvin$x1, "K", mode = "standard")
  sensors <- layer_data_of(ggplot2::autoplot(fit, "sensors", newdata = in_kelvin, covariate = "x1"), "GeomPoint")
  expect_equal(sort(unique(sensors$x)), sort(unique(plot_test$x1)))
  base <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, with_units(plot_toy[1:200, ]), "ivw")
  expect_equal(layer_data_of(ggplot2::autoplot(base, "scatter", newdata = newdata, reference = "truth"), "GeomPoint")$y,
               predict(base, newdata)$.pred)

  in_ppb <- newdata
  in_ppb$truth <- units::set_units(plot_test$truth, "ppb", mode = "standard")
  expect_error(ggplot2::autoplot(fit, "scatter", newdata = in_ppb, reference = "truth"),
               "`reference`) is in \"ppb\", which cannot be converted to \"ug/m3\", the units of the estimate")
  # A model fitted to plain numbers does not know the units its estimate is in.
  plain_with_reference_units <- plot_test
  plain_with_reference_units$truth <- units::set_units(plot_test$truth, "ug/m3", mode = "standard")
  expect_error(ggplot2::autoplot(plot_fit, "coverage", newdata = plain_with_reference_units, reference = "truth"),
               "fitted to plain numbers, so the units of its estimate are not known")
})

test_that("axes of readings and estimates name the estimate's unit, and no unit for plain numbers", {
  skip_if_not_installed("units")
  in_unit <- function(d, unit) {
    for (v in c("sensor_0", "sensor_1", "sensor_2", "truth")) d[[v]] <- units::set_units(d[[v]], unit, mode = "standard")
    d
  }
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = in_unit(plot_toy[1:200, ], "mg/m3"),
                        hidden = 4L, epochs = 3L, seed = 1, threads = 1))
  # The reference in ug/m3 is drawn in the estimate's mg/m3, as the axis says.
  newdata <- in_unit(plot_test, "mg/m3")
  newdata$truth <- units::set_units(newdata$truth, "ug/m3", mode = "standard")
  scatter <- ggplot2::autoplot(fit, "scatter", newdata = newdata, reference = "truth")
  expect_identical(scatter$labels[c("x", "y")], list(x = "Reference (truth, mg/m3)", y = "NCAM fused estimate (mg/m3)"))
  expect_equal(layer_data_of(scatter, "GeomPoint")$x, plot_test$truth)
  series <- ggplot2::autoplot(fit, "series", newdata = newdata, reference = "truth")
  expect_identical(series$labels$y, "Reading and estimate (mg/m3)")
  sensors <- ggplot2::autoplot(fit, "sensors", newdata = newdata)
  strips <- sensors$facet$params$labeller(data.frame(parameter = c("gain", "offset", "noise")))[[1]]
  expect_identical(unname(strips), c("Gain (reading per unit of true value)", "Offset (mg/m3)",
                                     "Noise standard deviation (mg/m3)"))
  # Wrapped to the width of its panel.
  expect_match(gsub("\n", " ", sensors$facet$params$labeller(data.frame(parameter = "reading"))[[1]]),
               "^Reading at a true value of [0-9.]+ mg/m3 \\(median of sensor_0 in training\\)$")
  base <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, in_unit(plot_toy[1:200, ], "ug/m3"), "ivw")
  expect_identical(ggplot2::autoplot(base, "scatter", newdata = in_unit(plot_test, "ug/m3"), reference = "truth")$labels$y,
                   "IVW baseline estimate (ug/m3)")
  # Plain numbers: no unit to name.
  plain <- ggplot2::autoplot(plot_fit, "scatter", newdata = plot_test, reference = "truth")
  expect_identical(plain$labels[c("x", "y")], list(x = "Reference (truth)", y = "NCAM fused estimate"))
  # An unanchored fit's estimate is on no reading's scale.
  unanchored <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = in_unit(plot_toy[1:200, ], "ug/m3"),
                               parameterization = "unanchored", hidden = 4L, epochs = 3L, seed = 1, threads = 1))
  expect_identical(ggplot2::autoplot(unanchored, "series", newdata = in_unit(plot_test, "ug/m3"))$labels$y,
                   "Reading and estimate")
})

test_that("a fit with unit offsets draws one panel per unit, in the order of the unit column", {
  d <- unit_sites_data(days = 120)
  d$date <- as.Date("2024-01-01") + d$day - 1
  d$site <- factor(d$site, levels = c("e", "d", "c", "b", "a"))
  fit <- short_fit(ncam(s1 + s2 ~ rh, d, reference = "ref", unit = "site", hidden = 4L, epochs = 20L,
                        seed = 1, threads = 1), also = "ncam_warning_clamp")
  later <- d[d$day > 60, ]
  p <- ggplot2::autoplot(fit, "series", newdata = later, reference = "truth")
  expect_identical(levels(p$data$group), paste("site =", c("e", "d", "c", "b", "a")))
  # Each panel's fused line is its unit's predictions (offset added), in time order.
  fused <- p$data[p$data$series == "NCAM fused", ]
  pred <- predict(fit, later)
  for (unit in levels(d$site)) {
    in_panel <- fused[fused$group == paste("site =", unit), ]
    rows <- which(later$site == unit)
    expect_equal(in_panel$value[order(in_panel$time)], pred$.pred[rows][order(later$date[rows])])
  }
  built <- ggplot2::ggplot_build(p)
  expect_identical(nrow(built$layout$layout), 5L)
  scatter <- ggplot2::autoplot(fit, "scatter", newdata = later, reference = "truth")
  expect_equal(as.vector(table(layer_data_of(scatter, "GeomPoint")$PANEL)), rep(60L, 5))
  coverage <- ggplot2::autoplot(fit, "coverage", newdata = later, reference = "truth", level = 0.9)
  expect_identical(levels(coverage$data$curve), c("all rows", paste("site =", c("e", "d", "c", "b", "a"))))
  # Numbers as units: panels in numeric order, not as text sorts them ("10" before "9").
  d$site_number <- c(e = 10L, d = 9L, c = 1L, b = 2L, a = 3L)[as.character(d$site)]
  numbered <- short_fit(ncam(s1 + s2 ~ rh, d, reference = "ref", unit = "site_number", hidden = 4L, epochs = 20L,
                             seed = 1, threads = 1), also = "ncam_warning_clamp")
  p <- ggplot2::autoplot(numbered, "series", newdata = d[d$day > 60, ])
  expect_identical(levels(p$data$group), paste("site_number =", c(1, 2, 3, 9, 10)))
  # Repeated times within a unit, and newdata without the unit column, are errors.
  twice <- rbind(later, later[1, ])
  expect_error(ggplot2::autoplot(fit, "series", newdata = twice), "repeats 1 time within a unit")
  expect_error(ggplot2::autoplot(fit, "series", newdata = later[names(later) != "site"]),
               "`newdata` lacks column \"site\"", fixed = TRUE)
})

test_that("a fit to plain numbers gets its unit on each picture with labs(), the sensors' panels with facet_wrap()", {
  unit_label <- "PM2.5 (ug/m3)"
  pictures <- list(series = ggplot2::autoplot(plot_fit, "series", newdata = plot_test, reference = "truth"),
                   scatter = ggplot2::autoplot(plot_fit, "scatter", newdata = plot_test, reference = "truth"),
                   drift = ggplot2::autoplot(suppressWarnings(sensor_drift(plot_fit, plot_test, period = "week"))))
  expect_identical(vapply(pictures, function(p) p$labels$y, ""),
                   c(series = "Reading and estimate", scatter = "NCAM fused estimate", drift = "Shift (units of the fused value)"))
  for (p in pictures) {
    named <- ggplot2::ggplot_build(p + ggplot2::labs(y = unit_label))
    expect_identical(named$plot$labels$y, unit_label)
  }
  scatter <- ggplot2::ggplot_build(pictures$scatter + ggplot2::labs(x = "Reference PM2.5 (ug/m3)"))
  expect_identical(scatter$plot$labels$x, "Reference PM2.5 (ug/m3)")
  # The sensors picture: its panels by `parameter`, relabelled.
  sensors <- ggplot2::autoplot(plot_fit, "sensors", newdata = plot_test)
  expect_match(levels(sensors$data$parameter), "^(reading|gain|offset|noise)$")
  strips <- c(reading = "Reading at 10 ug/m3", gain = "Gain", offset = "Offset (ug/m3)", noise = "Noise sd (ug/m3)")
  relabelled <- sensors + ggplot2::facet_wrap(ggplot2::vars(parameter), ncol = 2, scales = "free_y",
                                              labeller = ggplot2::as_labeller(strips))
  built <- ggplot2::ggplot_build(relabelled)
  expect_identical(nrow(built$layout$layout), 4L)
  expect_identical(unname(relabelled$facet$params$labeller(data.frame(parameter = names(strips)))[[1]]), unname(strips))
})
