# tidy(), glance() and augment() against the model's own accessors and hand computations.

tidy_toy <- simulate_toy(400, seed = 11)
tidy_fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = tidy_toy[1:300, ],
                           anchor = "sensor_1", hidden = 8, epochs = 5, seed = 1, threads = 1))

test_that("tidy() has one typed row per sensor", {
  out <- tidy(tidy_fit)
  expect_s3_class(out, "tbl_df")
  stats <- c("mean", "sd", "q10", "q90")
  expect_named(out, c("sensor", "anchor", paste0("gain_", stats), paste0("offset_", stats),
                      paste0("noise_", stats)))
  expect_identical(out$sensor, c("sensor_0", "sensor_1", "sensor_2"))
  expect_identical(out$anchor, c(FALSE, TRUE, FALSE))
  expect_true(all(vapply(out[-(1:2)], is.double, logical(1))))
})

test_that("tidy() summarises the per-row sensor parameters of the fitted rows", {
  out <- tidy(tidy_fit)
  # Every fitted row is usable (no missing value), so the summaries are over all 300 rows.
  params <- sensor_params(tidy_fit, tidy_toy[1:300, ])
  symbols <- c(gain = "a", offset = "c", noise = "sigma")
  for (j in seq_len(3)) {
    p <- params[params$sensor == out$sensor[j], ]
    for (name in names(symbols)) {
      v <- p[[symbols[[name]]]]
      expect_equal(out[[paste0(name, "_mean")]][j], mean(v), tolerance = 1e-8)
      expect_equal(out[[paste0(name, "_sd")]][j], sd(v), tolerance = 1e-6)
      expect_equal(out[[paste0(name, "_q10")]][j], unname(quantile(v, 0.1)), tolerance = 1e-8)
      expect_equal(out[[paste0(name, "_q90")]][j], unname(quantile(v, 0.9)), tolerance = 1e-8)
    }
  }
  # As ?ncam-tidy and ?summary.ncam say: summary()'s a, c and sigma are tidy()'s gain, offset
  # and noise.
  s <- summary(tidy_fit)$sensors
  for (name in names(symbols)) {
    expect_equal(unname(as.list(out[paste0(name, c("_mean", "_sd", "_q10", "_q90"))])),
                 unname(as.list(s[paste0(symbols[[name]], c("", "_sd", "_q10", "_q90"))])))
  }
  # The anchor has gain 1 and offset 0 by construction.
  anchor <- out[out$anchor, ]
  expect_equal(c(anchor$gain_mean, anchor$gain_sd, anchor$offset_mean, anchor$offset_sd), c(1, 0, 0, 0))
})

test_that("glance() matches logLik, AIC, BIC, nobs and the training record", {
  out <- glance(tidy_fit)
  expect_s3_class(out, "tbl_df")
  expect_named(out, c("logLik", "df", "AIC", "BIC", "nobs", "n_train", "n_validation", "epochs_run",
                      "best_epoch", "validation_nll", "converged", "n_reference", "n_units", "unit_sd",
                      "reference_from", "reference_to"))
  # a label-free fit has no reference and no unit offsets
  expect_identical(c(out$n_reference, out$n_units), c(NA_integer_, NA_integer_))
  expect_identical(out$unit_sd, NA_real_)
  expect_identical(c(out$reference_from, out$reference_to), as.POSIXct(c(NA_real_, NA_real_), tz = "UTC"))
  expect_identical(nrow(out), 1L)
  ll <- logLik(tidy_fit)
  df <- attr(ll, "df")
  expect_equal(out$logLik, as.numeric(ll))
  expect_equal(out$AIC, AIC(tidy_fit))
  expect_equal(out$AIC, -2 * as.numeric(ll) + 2 * df)
  expect_identical(out$df, as.integer(length(tidy_fit$params)))
  expect_equal(out$BIC, BIC(tidy_fit))
  expect_equal(out$BIC, -2 * as.numeric(ll) + log(nobs(tidy_fit)) * df)
  expect_identical(out$nobs, 300L)
  expect_identical(out$n_train + out$n_validation, 300L)
  expect_identical(out$n_train, as.integer(tidy_fit$n_train))
  expect_identical(out$epochs_run, as.integer(tidy_fit$epochs_run))
  expect_identical(out$best_epoch, as.integer(tidy_fit$best_epoch))
  # The best epoch minimises the validation NLL.
  expect_equal(out$validation_nll, min(tidy_fit$history$validation_nll))
  expect_type(out$converged, "logical")
})

test_that("converged is FALSE when the best epoch is the last one run, TRUE after early stopping", {
  expect_warning(short <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = tidy_toy, hidden = 8, epochs = 2,
                               stop_iter = 30, seed = 1, threads = 1),
                 class = "ncam_warning_not_converged")
  expect_identical(c(short$best_epoch, short$epochs_run), c(2L, 2L))
  expect_false(glance(short)$converged)

  stopped <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = tidy_toy, hidden = 8,
                  epochs = 40, stop_iter = 3, learn_rate = 0.05, seed = 1, threads = 1)
  expect_true(stopped$stopped_early)
  expect_lt(stopped$best_epoch, stopped$epochs_run)
  expect_true(glance(stopped)$converged)
})

test_that("glance() gives NA validation NLL without validation rows", {
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = tidy_toy[1:100, ], hidden = 8, epochs = 3,
                        validation = 0, seed = 1, threads = 1))
  out <- glance(fit)
  expect_identical(out$n_validation, 0L)
  expect_identical(out$validation_nll, NA_real_)
})

test_that("augment() adds predict()'s columns, one row per input row with NA rows kept", {
  newdata <- tidy_toy[301:320, ]
  newdata$x1[3] <- NA
  newdata[5, c("sensor_0", "sensor_1", "sensor_2")] <- NA
  rownames(newdata) <- NULL
  attr(newdata, "params") <- NULL
  expect_warning(expect_warning(out <- augment(tidy_fit, newdata), "1 of 20 rows has a missing covariate",
                                class = "ncam_warning_missing_covariate"),
                 "1 of 20 rows has no sensor reading", class = "ncam_warning_no_readings")
  expect_s3_class(out, "tbl_df")
  expect_identical(nrow(out), 20L)
  columns <- c(".pred", ".pred_sd", ".post_sd", ".n_sensors", ".extrapolation", ".disagreement")
  expect_named(out, c(names(newdata), columns))
  expect_identical(as.data.frame(out[names(newdata)]), as.data.frame(newdata))
  pred <- suppressWarnings(predict(tidy_fit, newdata), classes = c("ncam_warning_missing_covariate", "ncam_warning_no_readings"))
  expect_identical(as.list(out[columns]), as.list(pred))
  expect_true(all(is.na(unlist(out[3, columns]))))
  expect_identical(out$.n_sensors[5], 0L)
  expect_true(is.finite(out$.pred[5]))

  credible <- suppressWarnings(augment(tidy_fit, newdata, interval = "credible", level = 0.8),
                               classes = c("ncam_warning_missing_covariate", "ncam_warning_no_readings"))
  expect_named(credible, c(names(newdata), columns, ".pred_lower", ".pred_upper"))
  # Gaussian model without transform: mu -/+ z_0.9 * sd_pred.
  z <- qnorm(0.9)
  expect_equal(credible$.pred_upper, pred$.pred + z * pred$.pred_sd)
  expect_equal(credible$.pred_lower, pred$.pred - z * pred$.pred_sd)
})

test_that("augment() without newdata augments the data the model was fitted to", {
  expect_identical(augment(tidy_fit), augment(tidy_fit, tidy_toy[1:300, ]))
})

test_that("augment() on augmented data replaces the prediction columns with a warning", {
  once <- augment(tidy_fit, tidy_toy[301:305, ])
  expect_warning(twice <- augment(tidy_fit, once), ".pred")
  expect_named(twice, names(once))
  expect_identical(twice$.pred, once$.pred)
})

test_that("augment() removes every earlier prediction column, also those it does not replace", {
  newdata <- tidy_toy[301:340, ]
  with_interval <- augment(tidy_fit, newdata, interval = "credible", level = 0.8)
  # Without an interval the second time: no bounds of the first are left beside the estimate.
  expect_warning(again <- augment(tidy_fit, with_interval), class = "ncam_warning_replaced_columns")
  expect_identical(again, augment(tidy_fit, newdata))
  # A baseline's estimate beside NCAM's bounds and sd would be scored with NCAM's intervals.
  base <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, tidy_toy[1:300, ], "mean")
  with_interval$.pred_ncam <- with_interval$.pred  # a user's copy keeps its own name
  expect_snapshot(out <- augment(base, with_interval))
  expect_named(out, c(names(newdata), ".pred_ncam", ".pred", ".n_sensors"))
  expect_identical(out$.pred_ncam, with_interval$.pred)
  expect_equal(out$.pred, unname(rowMeans(as.matrix(newdata[c("sensor_0", "sensor_1", "sensor_2")]))))
  expect_named(evaluate_fusion(out, newdata$truth), c("rmse", "mae", "n"))
})

test_that("augment() on a calibration adds the conformal interval at the requested level", {
  cal <- calibrate(tidy_fit, tidy_toy[301:350, ], m = 5, seed = 1)
  newdata <- tidy_toy[351:400, ]
  out <- augment(cal, newdata, level = 0.8)
  expect_s3_class(out, "tbl_df")
  expect_named(out, c(names(newdata), ".pred", ".pred_sd", ".post_sd", ".n_sensors", ".extrapolation",
                      ".disagreement", ".pred_lower", ".pred_upper"))
  expect_identical(out$.pred, predict(cal, newdata, level = 0.8)$.pred)
  # Stutz et al. threshold by hand: the k-th largest of the n * m scores,
  # k = floor(alpha * m * (n + 1)) - m + 1.
  k <- floor(0.2 * cal$m * (cal$n + 1)) - cal$m + 1
  q <- sort(cal$scores, decreasing = TRUE)[k]
  expect_equal((out$.pred_upper - out$.pred) / out$.pred_sd, rep(q, 50))
  expect_equal((out$.pred - out$.pred_lower) / out$.pred_sd, rep(q, 50))
  # The default level is the calibration's.
  expect_identical(augment(cal, newdata)$.pred_upper, predict(cal, newdata)$.pred_upper)
  # `threads` goes to predict(), as augment() of a model passes it.
  expect_identical(augment(cal, newdata, threads = 1)$.pred_upper, predict(cal, newdata, threads = 1)$.pred_upper)
  expect_error(augment(cal, newdata, threads = 0), "`threads`")
})

test_that("glance() of a calibration gives its method, level and quantile", {
  cal <- calibrate(tidy_fit, tidy_toy[301:350, ], m = 5, seed = 1)
  g <- glance(cal)
  expect_identical(nrow(g), 1L)
  expect_identical(g$method, "mc_model")
  expect_identical(g$n_calibration, 50L)
  expect_identical(g$m, 5L)
  expect_identical(g$correction, "stutz")
  # The k-th largest of the n * m scores, k = floor(alpha * m * (n + 1)) - m + 1.
  expect_equal(g$quantile, sort(cal$scores, decreasing = TRUE)[floor(0.1 * 5 * 51) - 5 + 1])
  # MC-CP (model) has one threshold, for rows with and without readings alike.
  expect_identical(g$quantile_no_readings, g$quantile)
  # Split conformal: rows without a reading get the prior-only scores' split-conformal threshold.
  split <- calibrate(tidy_fit, tidy_toy[301:350, ], method = "split", reference = "truth")
  expect_identical(glance(split)$quantile_no_readings, sort(split$prior_scores)[ceiling(0.9 * 51)])
  anchored <- glance(calibrate(tidy_fit, tidy_toy[301:350, ], method = "sensor_anchored"))
  expect_identical(anchored$m, NA_integer_)
  expect_identical(anchored$correction, NA_character_)
  # predict() on a calibration needs newdata: a calibration keeps no data.
  expect_error(predict(cal), "`newdata` is required")
})

test_that("tidy() of a split calibration gives the conformal quantile of scores computed by hand", {
  held_out <- tidy_toy[301:400, ]
  cal <- calibrate(tidy_fit, held_out, method = "split", reference = "truth")
  pred <- predict(tidy_fit, held_out)
  scores <- sort(abs(held_out$truth - pred$.pred) / pred$.pred_sd)
  out <- tidy(cal, level = c(0.5, 0.9))
  expect_named(out, c("level", "quantile", "gaussian", "width_ratio", "quantile_no_readings"))
  # Split conformal: the ceiling((n + 1) * level)-th smallest of the n scores.
  expect_equal(out$quantile, scores[ceiling(101 * c(0.5, 0.9))])
  expect_equal(out$width_ratio, out$quantile / qnorm(c(0.75, 0.95)))
  expect_identical(tidy(cal)$level, c(0.5, 0.8, 0.9, 0.95))
  # 100 rows are too few for 99.5 %: an infinite multiplier, with the calibration's warning.
  expect_warning(wide <- tidy(cal, level = 0.995), "too small for level 0.995")
  expect_identical(wide$quantile, Inf)
  expect_output(print(summary(cal)), "Conformal multipliers")
  expect_output(print(summary(cal)), "split conformal")
  expect_error(summary(cal, level = 0.5), "Unknown argument `level`.*tidy\\(object, level = \\)")
  expect_error(summary(cal, digits = 2), "must be empty")
})

test_that("summary() of a baseline prints it with AIC and BIC where there is a likelihood", {
  factor_fit <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, tidy_toy, "factor")
  expect_output(print(summary(factor_fit)), sprintf("AIC %s, BIC %s", format(AIC(factor_fit), digits = 7),
                                                    format(BIC(factor_fit), digits = 7)), fixed = TRUE)
  mean_fit <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, tidy_toy, "mean")
  printed <- capture.output(print(summary(mean_fit)))
  expect_identical(printed, capture.output(print(mean_fit)))
})

test_that("augment() keeps every column of newdata, even two of one name", {
  new <- cbind(tidy_toy[1:3, ], lat = c(-1, -2, -3))
  expect_message(out <- augment(tidy_fit, new), "New names")
  expect_identical(ncol(out), ncol(new) + 6L)
  expect_identical(out[[ncol(new)]], c(-1, -2, -3))
  expect_identical(out[[which(names(new) == "lat")[1]]], tidy_toy$lat[1:3])
})

test_that("augment() of a baseline adds predict()'s columns to newdata", {
  base <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, tidy_toy[1:300, ], "ivw")
  newdata <- tidy_toy[301:400, ]
  newdata$sensor_2[3] <- NA
  out <- augment(base, newdata, interval = "credible", level = 0.8)
  expect_named(out, c(names(newdata), ".pred", ".pred_sd", ".n_sensors", ".pred_lower", ".pred_upper"))
  # Inverse-variance weighting by hand on a row with all readings.
  w <- 1 / base$params$sensor_var
  b <- unlist(newdata[1, c("sensor_0", "sensor_1", "sensor_2")])
  expect_equal(out$.pred[1], sum(w * b) / sum(w))
  expect_equal(out$.pred_upper[1] - out$.pred[1], qnorm(0.9) * sqrt(1 / sum(w)))
  expect_identical(out$.n_sensors[3], 2L)
  expect_error(augment(base), "`newdata` is required")
})

test_that("bad tidy, glance and augment input gives clear errors", {
  expect_snapshot(augment(tidy_fit, newdata = 1:3), error = TRUE)
  expect_snapshot(augment(tidy_fit, tidy_toy[1:5, ], interval = "confidence"), error = TRUE)
  expect_snapshot(augment(tidy_fit, tidy_toy[1:5, ], level = 2), error = TRUE)
  expect_snapshot(augment(tidy_fit, tidy_toy[1:5, ], levl = 0.8), error = TRUE)
  expect_snapshot(tidy(tidy_fit, conf.int = TRUE), error = TRUE)
  expect_snapshot(glance(tidy_fit, 1), error = TRUE)
  cal <- calibrate(tidy_fit, tidy_toy[301:350, ], m = 5, seed = 1)
  expect_snapshot(augment(cal), error = TRUE)
  expect_snapshot(augment(cal, tidy_toy[1:5, ], interval = "credible"), error = TRUE)
})

test_that("arguments spelt as elsewhere get an error naming the fix", {
  newdata <- tidy_toy[1:5, ]
  expect_snapshot(predict(tidy_fit, new_data = newdata), error = TRUE)
  expect_error(augment(tidy_fit, new_data = newdata), "Unknown argument `new_data`")
  base <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, tidy_toy[1:300, ], "ivw")
  expect_error(predict(base, new_data = newdata), "Did you mean `newdata`?", fixed = TRUE)
  expect_error(augment(base, new_data = newdata), "Did you mean `newdata`?", fixed = TRUE)
  cal <- calibrate(tidy_fit, tidy_toy[301:350, ], m = 5, seed = 1)
  expect_error(predict(cal, new_data = newdata), "Did you mean `newdata`?", fixed = TRUE)
  expect_error(augment(cal, new_data = newdata), "Did you mean `newdata`?", fixed = TRUE)
  # broom's augment() takes the rows as `data`.
  for (object in list(tidy_fit, base, cal)) {
    expect_error(augment(object, data = newdata), "Did you mean `newdata`?.*not as broom's `data`", class = "ncam_error")
  }
  expect_snapshot(predict(cal, newdata, interval = "prediction"), error = TRUE)
  # Other misspelt arguments keep rlang's error.
  expect_error(predict(tidy_fit, newdata, levl = 0.8), class = "rlib_error_dots_nonempty")
})

test_that("augment() passes threads and use_reference to predict()", {
  toy <- simulate_toy(300, seed = 5)
  fit <- quick_fit(toy)
  expect_identical(augment(fit, toy, threads = 1), augment(fit, toy))
  expect_error(augment(fit, toy, threads = 0), "threads")
  data(colocation, package = "ncam", envir = environment())
  ref_fit <- short_fit(ncam(pa_a + pa_b ~ rh, data = colocation, reference = "ref", hidden = 4, epochs = 5,
                            seed = 1, threads = 1), also = c("ncam_warning_clamp", "ncam_warning_extrapolation"))
  with_ref <- suppressWarnings(augment(ref_fit, colocation, use_reference = TRUE), classes = "ncam_warning_extrapolation")
  direct <- suppressWarnings(predict(ref_fit, colocation, use_reference = TRUE), classes = "ncam_warning_extrapolation")
  expect_equal(with_ref$.pred, direct$.pred)
  observed <- !is.na(colocation$ref)
  expect_false(isTRUE(all.equal(with_ref$.pred[observed],
                                suppressWarnings(augment(ref_fit, colocation), classes = "ncam_warning_extrapolation")$.pred[observed])))
})
