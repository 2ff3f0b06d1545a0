# calibrate() of fits by group (ncam_by()): each group's fit calibrated on its rows, with the
# numbers of calibrating the groups one by one; and a group's fit finding its training rows.

# Two sites, rows interleaved; reference readings for "split". Rows 1-600 train, 601-800
# calibrate, 801-900 test.
by_cal_fixture <- function() {
  toy <- simulate_toy(n = 900, seed = 3)
  toy$site <- rep(c("north", "south"), 450)
  toy$ref <- toy$truth + sin(seq_len(900))  # off the truth by a fixed pattern
  toy[c("site", "sensor_0", "sensor_1", "sensor_2", "x1", "ref")]
}

test_that("split: each group's threshold and intervals are those of its scores, computed by hand", {
  d <- by_cal_fixture()
  train <- d[1:600, ]
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = train, by = "site", reference = "ref",
                            hidden = 4L, epochs = 5L, seed = 2, threads = 1L))
  cal_rows <- d[601:800, ]
  expect_no_warning(cals <- calibrate(fits, cal_rows))
  expect_s3_class(cals, c("ncam_by_calibration", "tbl_df"))
  expect_identical(cals$site, fits$site)
  expect_identical(cals$.n, c(100L, 100L))
  expect_identical(cals$.seed, c(NA_integer_, NA_integer_))  # split conformal draws nothing
  test <- d[801:900, ]
  want <- vector("list", 2)
  for (g in 1:2) {
    rows <- cal_rows[cal_rows$site == fits$site[g], ]
    p <- predict(fits$fit[[g]], rows, interval = "prediction")
    scores <- abs(rows$ref - p$.pred) / p$.pred_sd
    q <- sort(scores)[ceiling(0.9 * (nrow(rows) + 1))]
    expect_identical(cals$calibration[[g]]$method, "split")
    expect_equal(cals$calibration[[g]]$quantile, q)
    expect_equal(cals$calibration[[g]]$scores, sort(scores))
    # Level 0.8 at prediction, from the same scores.
    q80 <- sort(scores)[ceiling(0.8 * (nrow(rows) + 1))]
    test_g <- test$site == fits$site[g]
    p_test <- predict(fits$fit[[g]], test[test_g, ], interval = "prediction")
    want[[g]] <- list(rows = which(test_g), lower = p_test$.pred - q80 * p_test$.pred_sd,
                      upper = p_test$.pred + q80 * p_test$.pred_sd)
  }
  got <- predict(cals, test, level = 0.8)
  expect_identical(nrow(got), nrow(test))
  for (g in 1:2) {
    expect_equal(got$.pred_lower[want[[g]]$rows], want[[g]]$lower)
    expect_equal(got$.pred_upper[want[[g]]$rows], want[[g]]$upper)
  }
  aug <- augment(cals, test, level = 0.8)
  expect_identical(aug$x1, test$x1)
  expect_identical(aug$.pred_upper, got$.pred_upper)
  expect_error(predict(cals, test, interval = "prediction"), "leave `interval` out")
})

test_that("split: a group's rows with a reference but no sensor reading are left out, naming the group", {
  d <- by_cal_fixture()
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d[1:600, ], by = "site", reference = "ref",
                            hidden = 4L, epochs = 5L, seed = 2, threads = 1L))
  cal_rows <- d[601:800, ]
  blank <- which(cal_rows$site == "south")[1:12]
  cal_rows[blank, c("sensor_0", "sensor_1", "sensor_2")] <- NA
  expect_message(cals <- calibrate(fits, cal_rows),
                 "Group site = south: 12 rows of `data` with a reference value but no sensor reading are left out")
  # The south group's scores are those of its measured rows, by hand.
  measured <- cal_rows[cal_rows$site == "south" & !seq_len(nrow(cal_rows)) %in% blank, ]
  p <- predict(fits$fit[[2]], measured, interval = "prediction")
  expect_identical(cals$calibration[[2]]$n, 88L)
  expect_equal(cals$calibration[[2]]$scores, sort(abs(measured$ref - p$.pred) / p$.pred_sd))
  # predict() afterwards still gives those rows the prior's estimate, with its warning.
  expect_warning(got <- predict(cals, cal_rows[blank, ]), class = "ncam_warning_no_readings")
  expect_identical(got$.n_sensors, rep(0L, 12))
  expect_true(all(is.finite(got$.pred_upper)))
})

test_that("Monte Carlo methods: the same calibrations as group by group by hand, with seeds that keep", {
  d <- by_cal_fixture()
  train <- d[1:600, ]
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = train, by = "site",
                            hidden = 4L, epochs = 5L, seed = 2, threads = 1L))
  cal_rows <- d[601:800, ]
  cals <- calibrate(fits, cal_rows, m = 5, seed = 9)
  # The seeds of ncam_by() with the same base seed: from the seed and the group's key alone.
  same_keys <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = train, by = "site",
                                 hidden = 4L, epochs = 2L, seed = 9, threads = 1L))
  expect_identical(cals$.seed, same_keys$.seed)
  for (g in 1:2) {
    rows <- cal_rows[cal_rows$site == fits$site[g], names(cal_rows) != "site"]
    by_hand <- calibrate(fits$fit[[g]], rows, m = 5, seed = cals$.seed[g])
    expect_identical(cals$calibration[[g]]$method, "mc_model")
    expect_identical(cals$calibration[[g]]$scores, by_hand$scores)
    expect_identical(cals$calibration[[g]]$quantile, by_hand$quantile)
    expect_identical(cals$calibration[[g]]$seed, cals$.seed[g])
  }
  # A group keeps its calibration without the other; seed = NULL follows set.seed().
  alone <- calibrate(fits[2, ], cal_rows[cal_rows$site == "south", ], m = 5, seed = 9)
  expect_identical(alone$calibration[[1]]$scores, cals$calibration[[2]]$scores)
  set.seed(4)
  first <- calibrate(fits, cal_rows, m = 5)
  set.seed(4)
  expect_identical(calibrate(fits, cal_rows, m = 5)$calibration[[1]]$scores, first$calibration[[1]]$scores)
  expect_false(identical(first$.seed, cals$.seed))
  # Other arguments reach every group: the ECDF correction, another method.
  ecdf <- calibrate(fits, cal_rows, m = 5, seed = 9, correction = "ecdf")
  rows <- cal_rows[cal_rows$site == "north", names(cal_rows) != "site"]
  expect_identical(ecdf$calibration[[1]]$holdout,
                   calibrate(fits$fit[[1]], rows, m = 5, seed = ecdf$.seed[1], correction = "ecdf")$holdout)
  anchored <- calibrate(fits, cal_rows, method = "sensor_anchored", level = 0.8)
  expect_identical(anchored$calibration[[1]]$quantile,
                   calibrate(fits$fit[[1]], rows, method = "sensor_anchored", level = 0.8)$quantile)
  # Arguments of the draws given with a method that draws nothing: one error, not a group's.
  for (given in list(list(correction = "ecdf"), list(m = 5), list(seed = 1))) {
    err <- expect_error(do.call(calibrate, c(list(fits, cal_rows, method = "split"), given)),
                        sprintf("`%s` applies to the Monte Carlo methods", names(given)), class = "ncam_error")
    expect_no_match(conditionMessage(err), "Could not calibrate group")
  }
})

test_that("tidy() and glance() are each group's rows behind its keys", {
  d <- by_cal_fixture()
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d[1:600, ], by = "site", reference = "ref",
                            hidden = 4L, epochs = 5L, seed = 2, threads = 1L))
  cals <- calibrate(fits, d[601:800, ])
  glanced <- glance(cals)
  expect_identical(glanced$site, c("north", "south"))
  expect_identical(as.list(glanced[-1]),
                   as.list(rbind(glance(cals$calibration[[1]]), glance(cals$calibration[[2]]))))
  tidied <- tidy(cals, level = c(0.5, 0.9))
  expect_identical(tidied$site, rep(c("north", "south"), each = 2))
  expect_identical(tidied$quantile, c(tidy(cals$calibration[[1]], level = c(0.5, 0.9))$quantile,
                                      tidy(cals$calibration[[2]], level = c(0.5, 0.9))$quantile))
  expect_identical(nrow(tidy(cals)), 8L)  # 50, 80, 90 and 95 % per group
  expect_error(glance(cals, level = 0.8), "`...` must be empty")
  # `level` as in tidy() of one calibration; `levels` is named as a likely slip.
  expect_error(tidy(cals, levels = 0.9), "Unknown argument `levels`.*Did you mean `level`", class = "ncam_error")
  expect_error(tidy(cals$calibration[[1]], levels = 0.9), "Did you mean `level`", class = "ncam_error")
  # nobs() totals the groups' calibration rows; the methods of one calibration point to a group's.
  expect_identical(nobs(cals), sum(!is.na(d$ref[601:800])))
  expect_identical(nobs(cals), nobs(cals$calibration[[1]]) + nobs(cals$calibration[[2]]))
  for (method in list(fitted, residuals, coef, logLik, summary, update, model.frame, terms, model.matrix)) {
    expect_error(method(cals), "works on one calibration, and this is a table of one calibration per group", class = "ncam_error")
  }
  for (method in list(vcov, sigma)) {
    expect_error(method(cals), "has no meaning for calibrations, one or by group.*`tidy\\(cals\\)`", class = "ncam_error")
  }
  # NULL, without the tibble's "Unknown or uninitialised column" warning.
  for (method in list(deviance, df.residual, weights)) expect_no_warning(expect_null(method(cals)))
  expect_output(print(cals), "calibration")
  # plot() refuses as for one calibration, naming what draws (it was R's "'list' object cannot be
  # coerced to type 'double'").
  expect_error(plot(cals), "`plot\\(\\)` has no meaning for calibrations by group.*`plot\\(fits\\)`.*autoplot\\(cals, \"coverage\"",
               class = "ncam_error")
  # A damaged object is named, in every method.
  broken <- cals
  broken$calibration <- NULL
  expect_error(predict(broken, d[1:2, ]), "not a valid calibration of fits by group")
  expect_error(tidy(broken), "not a valid calibration of fits by group")
})

test_that("rows and groups without a partner: left out with a warning, or an error naming the group", {
  d <- by_cal_fixture()
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d[1:600, ], by = "site",
                            hidden = 4L, epochs = 5L, seed = 2, threads = 1L))
  cal_rows <- d[601:800, ]
  # A group with a model and no calibration row.
  north_only <- cal_rows[cal_rows$site == "north", ]
  err <- expect_error(calibrate(fits, north_only, m = 5, seed = 1),
                      "1 group of `object` has no row in `data`.*site = \"south\"")
  expect_match(conditionMessage(err), "calibrate(object[-c(2), ], data)", fixed = TRUE)
  expect_identical(calibrate(fits[-c(2), ], north_only, m = 5, seed = 1)$calibration[[1]]$scores,
                   calibrate(fits, cal_rows, m = 5, seed = 1)$calibration[[1]]$scores)
  # Rows of no group are left out, with predict()'s warning in calibrate()'s words.
  extra <- rbind(cal_rows, transform(cal_rows[1:3, ], site = "east"))
  w <- expect_warning(cals <- calibrate(fits, extra, m = 5, seed = 1), class = "ncam_warning_no_group_model")
  expect_match(conditionMessage(w), "3 rows of `data` belong to 1 group without a model \\(site = \"east\"\\): they are left out of the calibration")
  expect_identical(cals$.n, c(100L, 100L))
  expect_error(calibrate(fits, transform(cal_rows, site = "east")), "No row of `data` belongs to a group of `object`")
  expect_error(calibrate(fits, cal_rows[0, ]), "`data` has no rows")
  expect_error(calibrate(fits, cal_rows[names(cal_rows) != "site"]), "`data` lacks column \"site\"")
  expect_error(calibrate(fits, cal_rows, level = 2), "`level`")
  expect_error(calibrate(fits, cal_rows, method = "jackknife"), "`method` must be one of")
})

test_that("a row with a missing key has no group, even beside a group named \"NA\"", {
  d <- by_cal_fixture()
  d$site[d$site == "south"] <- "NA"
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d[1:600, ], by = "site",
                            hidden = 4L, epochs = 5L, seed = 2, threads = 1L))
  cal_rows <- d[601:800, ]
  unkeyed <- cal_rows
  unkeyed$site[1:6] <- NA  # 3 rows of each site
  w <- expect_warning(cals <- calibrate(fits, unkeyed, method = "sensor_anchored"), class = "ncam_warning_no_group_model")
  expect_match(conditionMessage(w), "6 rows of `data` belong to 1 group without a model (site = NA)", fixed = TRUE)
  expect_match(conditionMessage(w), "6 of them have a missing key, `NA`", fixed = TRUE)
  expect_identical(cals$site, c("NA", "north"))
  expect_identical(cals$.n, c(97L, 97L))
  kept <- cal_rows[-(1:6), ]
  expect_identical(cals$calibration[[1]]$scores,
                   calibrate(fits$fit[[1]], kept[kept$site == "NA", names(kept) != "site"], method = "sensor_anchored")$scores)
  test <- d[801:804, ]
  test$site[2] <- NA
  w <- expect_warning(got <- predict(cals, test), "missing key", class = "ncam_warning_no_group_model")
  expect_true(is.na(got$.pred[2]))
  expect_identical(got$.pred[-2], predict(cals, test[-2, ])$.pred)
  # Every key missing (a column of NA, read as logical): said so, not a type to convert.
  test$site <- NA
  err <- expect_error(predict(fits, test), "No row of `newdata` belongs to a group", class = "ncam_error")
  expect_match(conditionMessage(err), "4 rows have a missing key, `NA`: give them their group.", fixed = TRUE)
  expect_no_match(conditionMessage(err), "convert it", fixed = TRUE)
})

test_that("a group calibrated on too few rows: predict() warns for it when it has rows, naming it", {
  d <- by_cal_fixture()
  d$site <- ifelse(d$site == "north", 0.1 + 0.2, 0.3)  # groups that print alike in 15 digits
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d[1:600, ], by = "site",
                            hidden = 4L, epochs = 5L, seed = 2, threads = 1L))
  expect_identical(fits$site, c(0.29999999999999999, 0.30000000000000004))
  cal_rows <- d[601:800, ]
  few <- rbind(cal_rows[cal_rows$site == 0.3, ][1:5, ], cal_rows[cal_rows$site != 0.3, ])
  small <- "ncam_warning_small_calibration"
  w <- expect_warning(cals <- calibrate(fits, few, method = "sensor_anchored"), class = small)
  # 0.3 is written short, 0.1 + 0.2 with the digits that set it apart.
  expect_match(conditionMessage(w), "^Group site = 0.3: The calibration set is too small for level 0.9")
  test <- d[801:900, ]
  # Rows of the other group alone: no warning, finite intervals.
  other <- test[test$site != 0.3, ]
  expect_no_warning(got <- predict(cals, other))
  expect_true(all(is.finite(got$.pred_upper)))
  caught <- caught_warnings(got <- predict(cals, test))
  expect_length(caught, 1L)
  expect_s3_class(caught[[1]], small)
  expect_match(conditionMessage(caught[[1]]), "^Group site = 0.3: The calibration set is too small")
  expect_identical(is.infinite(got$.pred_upper), test$site == 0.3)
  # A calibration read back from a file predicts the same.
  file <- withr::local_tempfile(fileext = ".rds")
  saveRDS(cals, file)
  expect_identical(predict(readRDS(file), other), predict(cals, other))
})

test_that("a group left without a model by errors = \"skip\" has no calibration, and predicts NA", {
  d <- by_cal_fixture()
  train <- d[1:600, ]
  train$site[5] <- "west"  # a group of one row cannot be fitted
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = train, by = "site", errors = "skip",
                            hidden = 4L, epochs = 5L, seed = 2, threads = 1L), also = "ncam_warning_group_not_fitted")
  cal_rows <- d[601:800, ]
  cals <- calibrate(fits, cal_rows, method = "sensor_anchored")
  expect_identical(cals$site, c("north", "south", "west"))
  expect_null(cals$calibration[[3]])
  expect_identical(cals$.n, c(100L, 100L, 0L))
  expect_warning(with_west <- calibrate(fits, transform(cal_rows, site = replace(site, 1, "west")), method = "sensor_anchored"),
                 "site = \"west\".*left out of the calibration", class = "ncam_warning_no_group_model")
  # .n counts the group's rows in data, as documented, though it has no model to calibrate.
  expect_identical(with_west$.n, c(99L, 100L, 1L))
  expect_null(with_west$calibration[[3]])
  test <- transform(d[801:803, ], site = c("north", "west", "south"))
  expect_warning(got <- predict(cals, test), "without a model", class = "ncam_warning_no_group_model")
  expect_true(is.na(got$.pred_lower[2]))
  expect_equal(got$.pred_upper[c(1, 3)], c(predict(cals$calibration[[1]], test[1, ])$.pred_upper,
                                           predict(cals$calibration[[2]], test[3, ])$.pred_upper))
  expect_error(calibrate(fits[3, ], cal_rows), "`object` has no group with a model to calibrate")
})

test_that("a group's errors, warnings and messages name the group, classes kept", {
  d <- by_cal_fixture()
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d[1:600, ], by = "site", reference = "ref",
                            hidden = 4L, epochs = 5L, seed = 2, threads = 1L))
  cal_rows <- d[601:800, ]
  cal_rows$ref[cal_rows$site == "north"][1:7] <- NA
  expect_message(calibrate(fits, cal_rows), "Group site = north: 7 rows of `data` without a reference value")
  # Printed, it ends its line as calibrate() of the group's fit does: the next output starts a line.
  printed <- capture.output(type = "message", {
    calibrate(fits, cal_rows)
    message("next")
  })
  expect_identical(printed[length(printed)], "next")
  expect_match(printed[length(printed) - 1L], "are left out of the calibration.$")
  cal_rows$ref[cal_rows$site == "south"] <- NA
  expect_error(suppressMessages(calibrate(fits, cal_rows)), "Could not calibrate group site = south")
  # A group's error about its rows names calibrate()'s `data`.
  err <- expect_error(calibrate(fits, d[601:800, names(d) != "x1"]), "Could not calibrate group site = north")
  expect_match(conditionMessage(err), "`data` lacks column \"x1\" used by the model", fixed = TRUE)
  caught <- caught_warnings(calibrate(fits, d[601:800, ], method = "mc_model", m = 5, seed = 1))
  expect_length(caught, 2L)
  expect_true(all(vapply(caught, inherits, logical(1), "ncam_warning_label_free_calibration")))
  expect_match(vapply(caught, conditionMessage, ""), "^Group site = (north|south): Method \"mc_model\"")
  expect_match(conditionMessage(caught[[2]]), "^Group site = south")
})

test_that("a group's fit finds its training rows: calibration on part of them warns as for ncam()", {
  d <- by_cal_fixture()
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d, by = "site", reference = "ref",
                            hidden = 4L, epochs = 5L, seed = 2, threads = 1L))
  north <- d[d$site == "north", ]
  alone <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = north, reference = "ref", hidden = 4L,
                          epochs = 5L, seed = fits$.seed[1], threads = 1L))
  in_sample <- "ncam_warning_in_sample_calibration"
  w_alone <- expect_warning(calibrate(alone, north[1:300, ]), class = in_sample)
  w_group <- expect_warning(calibrate(fits$fit[[1]], north[1:300, ]), class = in_sample)
  expect_identical(conditionMessage(w_group), conditionMessage(w_alone))
  expect_match(conditionMessage(w_group), "300 of the 300 rows of `data` with a reference reading")
  # Through the table of fits, named by group; rows held out of the fit give no warning.
  caught <- caught_warnings(calibrate(fits, rbind(north[1:40, ], d[d$site == "south", ][1:60, ])))
  expect_true(all(vapply(caught, inherits, logical(1), in_sample)))
  expect_length(caught, 2L)
  expect_match(conditionMessage(caught[[1]]), "^Group site = north: 40 of the 40 rows")
  expect_match(conditionMessage(caught[[2]]), "^Group site = south: 60 of the 60 rows")
  expect_no_warning(calibrate(fits$fit[[1]], transform(north[1:40, ], ref = ref + 1)))
  # The call names the rows, so update() and fitted() need no data.
  expect_identical(short_fit(update(fits$fit[[1]]))$params, fits$fit[[1]]$params)
  expect_identical(fitted(fits$fit[[2]]), fitted(fits$fit[[2]], d[d$site == "south", ]))
  # Once the data has changed, the rows cannot be found: no count, no error.
  d$x1 <- d$x1 + 1
  expect_no_warning(calibrate(fits$fit[[1]], north[1:300, ]), class = in_sample)
})

test_that("a group's fit finds its rows for data local to a function, and under a parallel plan", {
  d <- by_cal_fixture()
  inside <- function(rows) {
    local_rows <- rows
    fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = local_rows, by = "site",
                              reference = "ref", hidden = 4L, epochs = 5L, seed = 2, threads = 1L))
    w <- expect_warning(calibrate(fits$fit[[2]], local_rows[local_rows$site == "south", ][1:20, ]),
                        class = "ncam_warning_in_sample_calibration")
    expect_match(conditionMessage(w), "20 of the 20 rows")
    fits
  }
  fits <- inside(d[1:600, ])
  skip_if_not_installed("future.apply")
  local({
    local_two_workers("multisession")
    parallel <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d[1:600, ], by = "site",
                                  reference = "ref", hidden = 4L, epochs = 5L, seed = 2))
    expect_identical(parallel$fit[[1]]$params, fits$fit[[1]]$params)
    train <- d[1:600, ]
    parallel <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = train, by = "site",
                                  reference = "ref", hidden = 4L, epochs = 5L, seed = 2))
    expect_warning(calibrate(parallel$fit[[1]], train[train$site == "north", ][1:20, ]),
                   "20 of the 20 rows", class = "ncam_warning_in_sample_calibration")
  })
})

test_that("keys of every type name their rows exactly, in the call as printed too", {
  d <- by_cal_fixture()[1:400, ]
  in_sample <- "ncam_warning_in_sample_calibration"
  south <- d$site == "south"
  keyed <- list(
    number = c(0.1 + 0.2, 0.3)[match(d$site, c("north", "south"))],
    thirds = ifelse(south, 1 / 3, -0),
    text = d$site,
    factor = factor(d$site, levels = c("south", "north")),
    date = as.Date("2022-01-01") + south,
    time = as.POSIXlt(as.POSIXct("2022-01-01", tz = "Europe/Paris") + 3600 * south),
    local_time = as.POSIXct("2022-01-01 12:00") + 60 * south,
    fraction_of_second = as.POSIXct("2022-01-01", tz = "UTC") + 0.123456789 + south
  )
  if (requireNamespace("bit64", quietly = TRUE)) {
    keyed$integer64 <- bit64::as.integer64(c("9007199254740993", "2"))[1 + south]
  }
  for (kind in names(keyed)) {
    d$key <- keyed[[kind]]
    data_by_key <- d[names(d) != "site"]
    fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = data_by_key, by = "key",
                              hidden = 4L, epochs = 3L, seed = 2, threads = 1L))
    for (g in 1:2) {
      rows <- data_by_key[data_by_key$key == fits$key[g], ]
      expect_identical(fits$fit[[g]]$data_check$n, nrow(rows), info = kind)
      expect_warning(calibrate(fits$fit[[g]], rows[1:30, ], method = "sensor_anchored"), "30 of the 30 rows",
                     class = in_sample, info = kind)
      # The call as printed (copied by a user) selects the same rows: a number printed in 15
      # digits, a Date printed as its day number, would not.
      printed <- str2lang(paste(utils::capture.output(print(fits$fit[[g]]$call$data)), collapse = "\n"))
      expect_identical(eval(printed), rows[names(rows) != "key"], info = kind)
    }
  }
})

test_that("a group's fit to a converted units column finds its training rows, as with one unit", {
  skip_if_not_installed("units")
  d <- by_cal_fixture()
  for (s in c("sensor_0", "sensor_2", "ref")) d[[s]] <- units::set_units(d[[s]], "ug/m3")
  d$sensor_1 <- units::set_units(as.numeric(d$sensor_1) / 1000, "mg/m3")  # converted to ug/m3 by the fits
  fits <- suppressMessages(short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d[1:600, ], by = "site",
                                             reference = "ref", hidden = 4L, epochs = 5L, seed = 2, threads = 1L)))
  # Before, each group's calibrate() converted sensor_1 before looking for its fit's rows: none found.
  caught <- caught_warnings(calibrate(fits, d[1:100, ], method = "split"))
  expect_true(all(vapply(caught, inherits, logical(1), "ncam_warning_in_sample_calibration")))
  expect_length(caught, 2L)
  expect_match(conditionMessage(caught[[1]]), "^Group site = north: 50 of the 50 rows")
  expect_match(conditionMessage(caught[[2]]), "^Group site = south: 50 of the 50 rows")
  expect_no_warning(calibrate(fits, d[601:800, ], method = "split"))
})
