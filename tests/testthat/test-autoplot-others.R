# autoplot() of baselines, per-group fits and gap selections: the plotted numbers against
# computations that do not go through the plot code.

skip_if_not_installed("ggplot2")

others_toy <- simulate_toy(400, seed = 31)
others_toy$date <- as.Date("2024-01-01") + rep(0:199, 2)
others_toy$site <- rep(c("north", "south"), each = 200)
# A few epochs keep the file fast; the pictures need any fit, converged or not.
others_by <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = others_toy, by = "site",
                               anchor = "sensor_0", hidden = 4, epochs = 8, seed = 3, threads = 1))
others_ivw <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, others_toy, "ivw")

test_that("a baseline's coverage plot counts the truth inside its Gaussian intervals", {
  p <- ggplot2::autoplot(others_ivw, "coverage", newdata = others_toy, reference = "truth",
                         level = c(0.5, 0.9))
  points <- layer_data_of(p, "GeomPoint")
  w <- 1 / others_ivw$params$sensor_var
  b <- as.matrix(others_toy[c("sensor_0", "sensor_1", "sensor_2")])
  fused <- drop(b %*% w) / sum(w)
  sd <- sqrt(1 / sum(w))
  by_hand <- vapply(c(0.5, 0.9), function(level) {
    mean(abs(others_toy$truth - fused) <= stats::qnorm((1 + level) / 2) * sd)
  }, numeric(1))
  expect_equal(points$y[order(points$x)], by_hand)
  expect_identical(p$labels$x, "Nominal level of the credible interval")
})

test_that("a baseline's series plot draws its fused value, with no ribbon for the mean", {
  mean_fit <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, others_toy, "mean")
  p <- ggplot2::autoplot(mean_fit, "series", newdata = others_toy[1:200, ])
  geoms <- vapply(p$layers, function(l) class(l$geom)[1], character(1))
  expect_false("GeomRibbon" %in% geoms)
  lines <- ggplot2::ggplot_build(p)$data[[which(geoms == "GeomLine")]]
  fused <- unname(rowMeans(others_toy[1:200, c("sensor_0", "sensor_1", "sensor_2")]))
  black <- lines[lines$colour == "black", ]
  expect_equal(black$y[order(black$x)], fused)
  expect_match(p$labels$title, "mean baseline")
  expect_error(ggplot2::autoplot(mean_fit, "coverage", newdata = others_toy, reference = "truth"),
               "mean.*has no interval")
  expect_error(ggplot2::autoplot(mean_fit, "scatter", newdata = others_toy),
               "reference.*is required")
})

test_that("per-group coverage lines use each group's own model", {
  p <- ggplot2::autoplot(others_by, "coverage", newdata = others_toy, reference = "truth", level = 0.8)
  points <- layer_data_of(p, "GeomPoint")
  by_hand <- vapply(c("north", "south"), function(site) {
    rows <- others_toy[others_toy$site == site, ]
    fit <- others_by$fit[[match(site, others_by$site)]]
    z <- stats::qnorm(0.9)
    post <- stats::predict(fit, rows)
    inside <- abs(rows$truth - post$.pred) <= z * post$.pred_sd
    mean(inside)
  }, numeric(1))
  all_rows <- mean(c(by_hand[["north"]], by_hand[["south"]]))  # equal group sizes
  expect_equal(sort(points$y), sort(unname(c(all_rows, by_hand))))
  expect_setequal(levels(p$data$curve), c("all rows", "site = north", "site = south"))
})

test_that("per-group pictures warn once of rows in a group without a model, as predict() does", {
  toy <- others_toy
  toy$site[1] <- "tiny"  # one row: its group cannot be fitted
  skipped <- suppressWarnings(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, by = "site",
                                      anchor = "sensor_0", hidden = 4, epochs = 2, seed = 3, threads = 1, errors = "skip"),
                              classes = c("ncam_warning_group_not_fitted", "ncam_warning_not_converged", "ncam_warning_clamp"))
  expect_null(skipped$fit[[match("tiny", skipped$site)]])
  from_predict <- caught_warnings(stats::predict(skipped, toy))
  expect_length(from_predict, 1L)
  expect_s3_class(from_predict[[1]], "ncam_warning_no_group_model")
  for (type in c("coverage", "scatter", "series")) {
    from_plot <- caught_warnings(ggplot2::autoplot(skipped, type, newdata = toy, reference = "truth"))
    expect_identical(lapply(from_plot, conditionMessage), lapply(from_predict, conditionMessage), info = type)
  }
})

test_that("the per-group loss plot draws every group's history and best epoch", {
  p <- ggplot2::autoplot(others_by)
  lines <- layer_data_of(p, "GeomLine")
  histories <- lapply(others_by$fit, function(f) c(f$history$train_nll, f$history$validation_nll, f$history$validation_criterion))
  expect_equal(sort(lines$y), sort(unlist(histories)))
  best <- layer_data_of(p, "GeomVline")
  expect_equal(sort(best$xintercept), sort(vapply(others_by$fit, function(f) f$best_epoch, numeric(1))))
})

test_that("per-group series and scatter panels hold each group's rows", {
  p <- ggplot2::autoplot(others_by, "scatter", newdata = others_toy, reference = "truth")
  points <- layer_data_of(p, "GeomPoint")
  expect_equal(as.vector(table(points$PANEL)), c(200L, 200L))
  series <- ggplot2::autoplot(others_by, "series", newdata = others_toy, reference = "truth")
  expect_s3_class(ggplot2::ggplot_build(series), "ggplot_built")
  # The two sites share their dates: repeated only within a group is an error.
  twice <- rbind(others_toy, others_toy[1, ])
  expect_error(ggplot2::autoplot(others_by, "series", newdata = twice), "repeats 1 time within a group")
  expect_error(ggplot2::autoplot(others_by, "series", newdata = others_toy[names(others_toy) != "site"]),
               "site")
})

test_that("a newdata without rows is an error for baselines and per-group fits", {
  empty <- others_toy[0, ]
  for (type in c("series", "scatter", "coverage")) {
    expect_error(ggplot2::autoplot(others_ivw, type, newdata = empty, reference = "truth"),
                 "`newdata` has no rows")
    expect_error(ggplot2::autoplot(others_by, type, newdata = empty, reference = "truth"),
                 "`newdata` has no rows")
  }
})

test_that("series lines and ribbons break where the data have a gap", {
  north <- others_toy[others_toy$site == "north", ][c(1:60, 121:200), ]  # 60 days missing
  p <- ggplot2::autoplot(others_by, "series", newdata = north, reference = "truth")
  lines <- layer_data_of(p, "GeomLine")
  fused <- lines[lines$colour == "black", ]
  expect_identical(length(unique(fused$group)), 2L)
  expect_identical(as.vector(table(fused$group)), c(60L, 80L))
  expect_identical(length(unique(layer_data_of(p, "GeomRibbon")$group)), 2L)
  # Without the gap, one line.
  whole <- ggplot2::autoplot(others_by, "series", newdata = others_toy[others_toy$site == "north", ])
  expect_identical(length(unique(layer_data_of(whole, "GeomLine")$group[layer_data_of(whole, "GeomLine")$colour == "black"])), 1L)
})

test_that("the gap plot draws the ACF, its band and the selected gap", {
  set.seed(4)
  r <- as.numeric(stats::arima.sim(list(ar = 0.7), n = 400))
  gap <- select_gap(r, max_lag = 15)
  p <- ggplot2::autoplot(gap)
  segments <- layer_data_of(p, "GeomSegment")
  expect_equal(segments$y, as.vector(stats::acf(r, lag.max = 15, plot = FALSE)$acf))
  bands <- unlist(lapply(ggplot2::ggplot_build(p)$data, function(d) d$yintercept))
  expect_true(all(signif(c(0, 1, -1) * stats::qnorm(0.975) / sqrt(400), 10) %in% signif(bands, 10)))
  expect_equal(layer_data_of(p, "GeomVline")$xintercept, gap$gap)
  expect_match(p$labels$subtitle, sprintf("selected gap %d rows$", gap$gap))
  hourly <- select_gap(rnorm(400), date = as.POSIXct("2024-05-01", tz = "UTC") + 3600 * (0:399),
                       max_lag = "12 hours")
  expect_identical(hourly$gap, as.difftime(1, units = "hours"))
  expect_match(ggplot2::autoplot(hourly)$labels$subtitle, "selected gap 1 hour$")
  expect_error(ggplot2::autoplot(gap, lags = 3), "must be empty")
})

test_that("a calibration's coverage and series use its conformal intervals, alone and by group", {
  cal_by <- calibrate(others_by, others_toy, m = 5, seed = 2)
  north <- others_toy[others_toy$site == "north", ]
  cal <- cal_by$calibration[[match("north", cal_by$site)]]
  p <- ggplot2::autoplot(cal, newdata = north, reference = "truth", level = c(0.5, 0.8))
  points <- layer_data_of(p, "GeomPoint")
  # By hand: .pred -/+ the conformal quantile at each level times the predictive sd.
  pred <- stats::predict(cal$model, north)
  by_hand <- vapply(c(0.5, 0.8), function(level) {
    mean(abs(north$truth - pred$.pred) <= tidy(cal, level = level)$quantile * pred$.pred_sd)
  }, numeric(1))
  expect_equal(points$y[order(points$x)], by_hand)
  expect_identical(p$labels$x, "Nominal level of the conformal interval")
  series <- ggplot2::autoplot(cal, "series", newdata = north[1:50, ])
  ribbon <- layer_data_of(series, "GeomRibbon")
  q <- tidy(cal, level = cal$level)$quantile  # the calibration's own level by default
  expect_equal(ribbon$ymax[order(ribbon$x)], pred$.pred[1:50] + q * pred$.pred_sd[1:50])
  expect_identical(ggplot2::ggplot_build(series)$plot$scales$get_scales("fill")$get_labels(), "90% conformal interval")
  by_plot <- ggplot2::autoplot(cal_by, newdata = others_toy, reference = "truth", level = 0.8)
  expect_setequal(levels(by_plot$data$curve), c("all rows", "site = north", "site = south"))
  expect_error(ggplot2::autoplot(cal, "coverage"), "`newdata` is required", class = "ncam_error")
  expect_error(ggplot2::autoplot(cal, newdata = north, reference = "truth", interval = "credible"),
               "Unknown argument `interval`", class = "ncam_error")
  expect_error(ggplot2::autoplot(cal_by, newdata = north[names(north) != "site"], reference = "truth"),
               "lacks column", class = "ncam_error")
})

test_that("warnings and errors of a picture's predictions name the user's call, not the inner predict()", {
  few <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, others_toy[1:100, ], "factor")
  w <- expect_warning(ggplot2::autoplot(few, "series", newdata = others_toy[1:200, ]),
                      class = "ncam_warning_few_training_rows")
  expect_identical(conditionCall(w), quote(ggplot2::autoplot(few, "series", newdata = others_toy[1:200, ])))
  # Each picture: the coverage picture predicts once per level, its warnings said once.
  caught <- caught_warnings(ggplot2::autoplot(few, "coverage", newdata = others_toy, reference = "truth"))
  expect_length(caught, 1L)
  expect_identical(conditionCall(caught[[1]]),
                   quote(ggplot2::autoplot(few, "coverage", newdata = others_toy, reference = "truth")))
  huge <- others_toy[1:200, ]
  huge$sensor_1[3] <- 1e200
  err <- expect_error(ggplot2::autoplot(few, "series", newdata = huge), "has a reading of 1e+200 in row 3", fixed = TRUE)
  expect_identical(conditionCall(err), quote(ggplot2::autoplot(few, "series", newdata = huge)))
  # A warning without a call (about rows) is given without one.
  huge$sensor_1[3] <- NA
  huge[5, c("sensor_0", "sensor_1", "sensor_2")] <- NA
  caught <- caught_warnings(ggplot2::autoplot(others_by, "series", newdata = huge))
  expect_true(any(vapply(caught, inherits, logical(1), "ncam_warning_no_readings")))
  expect_null(conditionCall(caught[[which(vapply(caught, inherits, logical(1), "ncam_warning_no_readings"))[1]]]))
})

test_that("per-group series panels draw each group's own sensors", {
  d <- one_box_data()
  fits <- one_box_fits(d)
  rows <- d$site %in% c("s1", "s2")
  p <- suppressWarnings(ggplot2::autoplot(fits, "series", newdata = d[rows, ]),
                        classes = c("ncam_warning_extrapolation", "ncam_warning_no_readings"))
  drawn <- p$data[p$data$series %in% c("pa_a", "pa_b"), ]
  # Site 1's model has pa_a alone, site 2's both boxes.
  expect_identical(sort(unique(as.character(drawn$series[drawn$group == "site = s1"]))), "pa_a")
  expect_identical(sort(unique(as.character(drawn$series[drawn$group == "site = s2"]))), c("pa_a", "pa_b"))
  s2 <- d[d$site == "s2", ]
  b <- drawn[drawn$group == "site = s2" & drawn$series == "pa_b", ]
  expect_equal(b$value[order(b$time)], s2$pa_b[order(s2$date)])
  # Site 1's absent pa_b is not a missing value of the picture.
  n_missing <- sum(is.na(d$pa_a[rows])) + sum(is.na(s2$pa_b)) + sum(is.na(d$ref[rows]))
  expect_identical(p$labels$caption, sprintf("%s missing values not shown.", format(n_missing, big.mark = ",")))
})
