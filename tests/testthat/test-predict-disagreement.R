# predict()'s `.disagreement`: how much a row's readings disagree beyond their learned noise,
# Q / (k - 1) over its k readings, from the engine's per-row pass. Checked against a dense
# computation written out here from sensor_params() (a weighted least-squares fit of one level
# to the readings put on the anchor's scale), and on readings simulated from a fit's own heads,
# where Q / (k - 1) must follow a chi-square with k - 1 degrees of freedom over k - 1.

# Q / (k - 1) per row of `data` from the per-row heads `params` (sensor_params()) of `sensors`,
# whose readings `readings` (model units: logs for a log fit) may be NA; `extra` adds per-row
# columns of (z, v) for readings outside the sensor model (a reference after its unit offset).
# Q is the residual sum of squares of the weighted regression of the z_j on a constant.
dense_disagreement <- function(params, readings, sensors, extra = NULL) {
  n <- length(readings[[1]])
  vapply(seq_len(n), function(i) {
    p <- params[params$.row == i, ]
    p <- p[match(sensors, p$sensor), ]
    b <- vapply(sensors, function(s) readings[[s]][i], 0)
    z <- (b - p$c) / p$a
    v <- p$sigma^2 / p$a^2
    if (!is.null(extra)) {
      z <- c(z, extra$z[i])
      v <- c(v, extra$v[i])
    }
    read <- !is.na(z)
    if (sum(read) < 2) return(NA_real_)
    wls <- stats::lm.wfit(matrix(1, sum(read)), z[read], 1 / v[read])
    sum(wls$weights * wls$residuals^2) / (sum(read) - 1)
  }, 0)
}

# Rows with 0, 1, 2 and 3 low-cost readings, the reference on some of them.
sparse_rows <- function(data) {
  rows <- data[c(1:12, 401:408, 1201:1208), ]
  rows$pa_a[c(1:3, 13)] <- NA
  rows$pa_b[c(1:3, 4, 14, 21)] <- NA
  rows$opc[c(1:3, 4:6, 15)] <- NA
  rows$ref[c(2, 5, 7:9, 22)] <- NA
  rows
}

test_that(".disagreement is Q / (k - 1) of the readings the posterior uses, with and without the reference", {
  fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, data = colocation, reference = "ref", hidden = 8L,
                        epochs = 40L, seed = 1, threads = 1), also = "ncam_warning_clamp")
  rows <- sparse_rows(colocation)
  params <- sensor_params(fit, rows)
  low_cost <- c("pa_a", "pa_b", "opc")
  pred <- without_reading_warning(predict(fit, rows))
  expect_equal(pred$.disagreement, dense_disagreement(params, rows, low_cost), tolerance = 1e-10)
  # k < 2: NA (not NaN); the count is .n_sensors
  expect_identical(is.na(pred$.disagreement), pred$.n_sensors < 2)
  expect_true(all(pred$.n_sensors %in% 0:3) && all(0:3 %in% pred$.n_sensors))
  expect_identical(pred$.disagreement[pred$.n_sensors < 2], rep(NA_real_, sum(pred$.n_sensors < 2)))
  # The reference counts where use_reference reads it.
  used <- without_reading_warning(predict(fit, rows, use_reference = TRUE))
  expect_equal(used$.disagreement, dense_disagreement(params, rows, c(low_cost, "ref")), tolerance = 1e-10)
  expect_identical(is.na(used$.disagreement), used$.n_sensors < 2)
  expect_gt(sum(used$.n_sensors == 4L), 0)
  # The same in every prediction: intervals do not change it, nor does a calibration.
  expect_identical(without_reading_warning(predict(fit, rows, interval = "prediction"))$.disagreement, pred$.disagreement)
  cal <- suppressWarnings(calibrate(fit, colocation[300:500, ], method = "split", reference = "ref"),
                          classes = c("ncam_warning_small_calibration", "ncam_warning_in_sample_calibration"))
  expect_identical(without_reading_warning(predict(cal, rows))$.disagreement, pred$.disagreement)
})

test_that(".disagreement of a log fit is on the log readings, where the model is", {
  fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh, data = colocation, anchor = "pa_a", transform = "log", hidden = 4L,
                        epochs = 20L, seed = 2, threads = 1), also = "ncam_warning_clamp")
  rows <- sparse_rows(colocation)
  pred <- without_reading_warning(predict(fit, rows))
  logs <- lapply(rows[c("pa_a", "pa_b", "opc")], log)
  expect_equal(pred$.disagreement, dense_disagreement(sensor_params(fit, rows), logs, names(logs)), tolerance = 1e-10)
})

test_that("with unit offsets, a reference reading counts after its unit's offset, with the offset's variance", {
  d <- unit_sites_data()
  fit <- short_fit(ncam(s1 + s2 ~ rh, d, reference = "ref", unit = "site", hidden = 8L, epochs = 60L,
                        learn_rate = 0.01, seed = 1, threads = 1), also = "ncam_warning_clamp")
  rows <- d[d$day <= 60, ][c(1, 70, 130, 190, 250, 10, 80), ]
  rows$site[6] <- "z"  # no co-location: no offset, the variance of a new unit
  rows$s2[7] <- NA  # one low-cost reading beside the reference
  used <- suppressWarnings(predict(fit, rows, use_reference = TRUE), classes = "ncam_warning_unknown_unit")
  params <- sensor_params(fit, rows)
  offsets <- fit$unit_offsets
  hit <- match(rows$site, offsets$table$site)
  reference <- params[params$sensor == "ref", ]
  extra <- list(z = rows$ref - ifelse(is.na(hit), 0, offsets$table$offset[hit]),
                v = reference$sigma^2 + ifelse(is.na(hit), offsets$new_unit_variance, offsets$table$offset_sd[hit]^2))
  expect_equal(used$.disagreement, dense_disagreement(params, rows, c("s1", "s2"), extra), tolerance = 1e-8)
  expect_equal(used$.n_sensors, c(3L, 3L, 3L, 3L, 3L, 3L, 2L))
  # Without the reference, the offsets do not enter: the sensors' own.
  alone <- suppressWarnings(predict(fit, rows), classes = "ncam_warning_unknown_unit")
  expect_equal(alone$.disagreement, dense_disagreement(params, rows, c("s1", "s2")), tolerance = 1e-10)
})

test_that("on readings drawn from a fit's own heads, Q / (k - 1) follows a chi-square over its degrees of freedom", {
  fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, data = colocation, reference = "ref", hidden = 8L,
                        epochs = 40L, seed = 3, threads = 1), also = "ncam_warning_clamp")
  withr::local_seed(11)
  rows <- colocation[rep(seq_len(nrow(colocation)), 10), ]  # 21,600 rows
  n <- nrow(rows)
  params <- sensor_params(fit, rows)
  # Any Theta: the statistic does not depend on it (here the simulated truth, so that the
  # readings look like the fit's).
  for (s in c("pa_a", "pa_b", "opc", "ref")) {
    p <- params[params$sensor == s, ]
    rows[[s]] <- p$a * rows$truth + p$c + p$sigma * stats::rnorm(n)
  }
  rows$opc[seq(1, n, by = 2)] <- NA  # half the rows with two low-cost readings
  pred <- suppressWarnings(predict(fit, rows, use_reference = TRUE), classes = "ncam_warning_extrapolation")
  for (k in 3:4) {
    q <- pred$.disagreement[pred$.n_sensors == k]
    expect_gt(length(q), 10000)
    # Q / (k - 1) has mean 1 and variance 2 / (k - 1): 5 standard errors.
    expect_lt(abs(mean(q) - 1), 5 * sqrt(2 / (k - 1) / length(q)))
    # Beyond the chi-square's 0.99 quantile: 1 % of the rows, within 5 binomial standard errors.
    beyond <- mean(q > stats::qchisq(0.99, k - 1) / (k - 1))
    expect_lt(abs(beyond - 0.01), 5 * sqrt(0.01 * 0.99 / length(q)))
  }
})

test_that("augment(), predict_chunks() and fits by group carry .disagreement, after .extrapolation", {
  fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, data = colocation, reference = "ref", hidden = 8L,
                        epochs = 20L, seed = 1, threads = 1), also = "ncam_warning_clamp")
  rows <- sparse_rows(colocation)
  pred <- without_reading_warning(predict(fit, rows, interval = "prediction"))
  expect_named(pred, c(".pred", ".pred_sd", ".post_sd", ".n_sensors", ".extrapolation", ".disagreement",
                       ".pred_lower", ".pred_upper"))
  augmented <- without_reading_warning(augment(fit, rows, interval = "prediction"))
  expect_identical(augmented$.disagreement, pred$.disagreement)
  expect_identical(names(augmented), c(names(rows), names(pred)))
  # An earlier prediction's column is replaced, with the others.
  again <- suppressWarnings(without_reading_warning(augment(fit, augmented)), classes = "ncam_warning_replaced_columns")
  expect_identical(again$.disagreement, pred$.disagreement)
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(rows, path, row.names = FALSE)
  chunked <- without_reading_warning(predict_chunks(fit, path, chunk_rows = 128L, verbose = FALSE))
  expect_identical(names(chunked), names(without_reading_warning(predict(fit, rows))))
  expect_equal(chunked$.disagreement, pred$.disagreement, tolerance = 1e-6)
  # By group: each row's from its group's model, in the rows' order, also through predict_chunks().
  two <- colocation
  two$site <- rep(c("a", "b"), length.out = nrow(two))
  fits <- short_fit(ncam_by(pa_a + pa_b + opc ~ rh, data = two, by = "site", reference = "ref", hidden = 4L,
                            epochs = 10L, seed = 1, threads = 1), also = "ncam_warning_clamp")
  new <- two[c(2, 1, 4, 3, 100, 101), ]
  new$opc[3] <- NA
  by_group <- predict(fits, new)
  expect_identical(names(by_group), names(predict(fits$fit[[1]], new[0, ])))
  for (g in 1:2) {
    at <- which(new$site == fits$site[g])
    expect_identical(by_group$.disagreement[at], predict(fits$fit[[g]], new[at, ])$.disagreement)
  }
  group_path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(new, group_path, row.names = FALSE)
  expect_equal(predict_chunks(fits, group_path, verbose = FALSE)$.disagreement, by_group$.disagreement, tolerance = 1e-6)
})

test_that("rows without a prediction have no .disagreement", {
  fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, data = colocation, reference = "ref", hidden = 8L,
                        epochs = 20L, seed = 1, threads = 1), also = "ncam_warning_clamp")
  rows <- colocation[1:4, ]
  rows$rh[2] <- NA
  rows$temperature[3] <- 1e50  # beyond what the networks compute with
  pred <- suppressWarnings(predict(fit, rows), classes = c("ncam_warning_missing_covariate", "ncam_warning_beyond_range",
                                                           "ncam_warning_extrapolation"))
  expect_identical(is.na(pred$.disagreement), is.na(pred$.pred))
  expect_identical(is.na(pred$.pred), c(FALSE, TRUE, TRUE, FALSE))
})
