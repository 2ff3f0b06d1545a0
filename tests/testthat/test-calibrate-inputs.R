# calibrate()'s inputs: a reference column in units, arguments that a method does not use, and `data`
# named as such in the messages about its rows.

test_that("split conformal reads a reference column in other units in the units of the estimate", {
  skip_if_not_installed("units")
  toy <- simulate_toy(300, seed = 1)
  for (v in c("sensor_0", "sensor_1", "sensor_2")) toy[[v]] <- units::set_units(toy[[v]], "ug/m3", mode = "standard")
  toy$truth_mg <- units::set_units(units::set_units(toy$truth, "ug/m3", mode = "standard"), "mg/m3")
  toy$truth_ppb <- units::set_units(toy$truth, "ppb", mode = "standard")
  fit <- quick_fit(toy[1:200, ])
  d <- toy[201:300, ]
  plain <- calibrate(fit, d, method = "split", reference = "truth")
  in_mg <- calibrate(fit, d, method = "split", reference = "truth_mg")
  # The mg/m3 values are the ug/m3 ones divided by 1000: converted back, the same scores.
  expect_equal(in_mg$scores, plain$scores)
  expect_equal(in_mg$quantile, plain$quantile)
  expect_error(calibrate(fit, d, method = "split", reference = "truth_ppb"),
               "Column truth_ppb of `data` (named by `reference`) is in \"ppb\", which cannot be converted to \"ug/m3\"",
               fixed = TRUE)
})

test_that("a reference column in units beside a fit to plain numbers is an error, as in predict()", {
  skip_if_not_installed("units")
  toy <- simulate_toy(300, seed = 1)
  fit <- quick_fit(toy[1:200, ])
  d <- toy[201:300, ]
  d$truth <- units::set_units(d$truth, "ug/m3", mode = "standard")
  expect_error(calibrate(fit, d, method = "split", reference = "truth"),
               "Column truth of `data` (named by `reference`) is in \"ug/m3\", but the model was fitted to plain numbers",
               fixed = TRUE)
})

test_that("the warning about levels not seen in training names calibrate()'s `data`", {
  toy <- simulate_toy(300, seed = 2)
  toy$site <- rep(c("a", "b", "c"), length.out = 300)
  fit <- quick_fit(toy[1:200, ][toy$site[1:200] != "c", ], formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + site, hidden = 4L)
  d <- toy[201:300, ]
  w <- expect_warning(cal <- calibrate(fit, d, method = "split", reference = "truth"),
                      class = "ncam_warning_unseen_level")
  n_c <- sum(d$site == "c")
  expect_match(conditionMessage(w), paste(n_c, "of 100 rows of `data` have a level"), fixed = TRUE)
  expect_no_match(conditionMessage(w), "newdata")
  rows_c <- which(d$site == "c")
  expect_match(conditionMessage(w), paste0("Column site: \"c\" in ", n_c, " rows: ", toString(rows_c[1:5]), ", ..."),
               fixed = TRUE)
  expect_identical(w$rows, rows_c)
  expect_identical(cal$n, 100L - n_c)
})

test_that("the small-calibration warning counts rows left out for an unseen level or values beyond range", {
  toy <- simulate_toy(300, seed = 2)
  toy$site <- rep(c("a", "b", "c"), length.out = 300)
  fit <- quick_fit(toy[1:200, ][toy$site[1:200] != "c", ], formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + site, hidden = 4L)
  # 6 rows of sites a and b, of which 2 far beyond the training values of x1, and 12 of site c.
  d <- rbind(toy[201:300, ][toy$site[201:300] != "c", ][1:6, ], toy[201:300, ][toy$site[201:300] == "c", ][1:12, ])
  d$x1[1:2] <- 1e50
  small <- NULL
  withCallingHandlers(calibrate(fit, d, method = "split", reference = "truth"),
                      ncam_warning_small_calibration = function(w) {
                        small <<- w
                        invokeRestart("muffleWarning")
                      },
                      ncam_warning_unseen_level = function(w) invokeRestart("muffleWarning"),
                      ncam_warning_beyond_range = function(w) invokeRestart("muffleWarning"))
  expect_s3_class(small, "ncam_warning_small_calibration")
  expect_match(conditionMessage(small), "needs at least 9 calibration rows; there are 4", fixed = TRUE)
  expect_match(conditionMessage(small),
               "left out of the calibration: 12 with a level of a factor covariate not seen in training and 2 with values beyond what the networks compute with",
               fixed = TRUE)
})

test_that("the arguments of the Monte Carlo draws are refused by the methods that draw nothing", {
  toy <- simulate_toy(300, seed = 1)
  fit <- quick_fit(toy[1:200, ])
  d <- toy[201:300, ]
  for (method in c("split", "sensor_anchored")) {
    reference <- if (method == "split") "truth"
    expect_error(calibrate(fit, d, method = method, reference = reference, m = 20),
                 paste0("`m` applies to the Monte Carlo methods (\"mc_model\", \"mc_empirical\"), not \"", method, "\""),
                 fixed = TRUE)
    expect_error(calibrate(fit, d, method = method, reference = reference, seed = 1), "`seed` applies", fixed = TRUE)
    expect_error(calibrate(fit, d, method = method, reference = reference, m = 5, seed = 1, correction = "ecdf"),
                 "`m`, `seed`, and `correction` apply", fixed = TRUE)
    # NULL, the default, asks for nothing.
    expect_s3_class(calibrate(fit, d, method = method, reference = reference, seed = NULL), "ncam_calibration")
  }
  # "split" chosen by default for a reference column refuses them too.
  expect_error(calibrate(fit, d, reference = "truth", seed = 1), "not \"split\"", fixed = TRUE)
})

test_that("errors and warnings about the rows of calibrate() name `data`, the argument given", {
  toy <- simulate_toy(300, seed = 2)
  toy$k <- 1
  fit <- short_fit(quick_fit(toy[1:200, ], formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + k, hidden = 4L),
                   also = "ncam_warning_dropped_covariate")
  d <- toy[201:300, ]
  names_data <- function(cnd) {
    expect_no_match(conditionMessage(cnd), "newdata")
    invisible(cnd)
  }
  calibrate_mc <- function(rows) calibrate(fit, rows, m = 5, seed = 1)
  names_data(expect_error(calibrate_mc(d[names(d) != "sensor_1"]), "`data` lacks column \"sensor_1\"", fixed = TRUE))
  names_data(expect_error(calibrate_mc(d[names(d) != "x1"]), "`data` lacks column \"x1\"", fixed = TRUE))
  names_data(expect_error(calibrate_mc(transform(d, x1 = as.character(x1))), "Column x1 of `data` is text"))
  names_data(expect_error(calibrate_mc(transform(d, x1 = as.Date("2024-01-01") + x1)), "Column x1 of `data` is a date-time"))
  names_data(expect_warning(calibrate_mc(transform(d, k = 2)), "100 rows of `data` have other values",
                            class = "ncam_warning_constant_covariate"))
  names_data(expect_warning(calibrate_mc(transform(d, sensor_1 = replace(sensor_1, 3, -999))),
                            "1 reading of `data` treated as missing as gross outliers", class = "ncam_warning_spikes"))
  names_data(expect_warning(calibrate_mc(transform(d, x1 = replace(x1, 3, 1e50))),
                            "1 row of `data` has a value so far outside the training data", class = "ncam_warning_beyond_range"))
  skip_if_not_installed("units")
  names_data(expect_error(calibrate_mc(transform(d, sensor_1 = units::set_units(sensor_1, "ug/m3", mode = "standard"))),
                          "Column sensor_1 of `data` is in \"ug/m3\", but the model was fitted to plain numbers", fixed = TRUE))
})

test_that("the warning about units without an offset names calibrate()'s `data`", {
  toy <- simulate_toy(300, seed = 2)
  toy$u <- rep(c("a", "b", "c"), 100)
  fit <- quick_fit(toy[1:200, ], formula = sensor_0 + sensor_1 + sensor_2 ~ x1, reference = "truth", unit = "u",
                   anchor = NULL, hidden = 4L)
  w <- expect_warning(calibrate(fit, transform(toy[201:300, ], u = "z")),
                      "100 rows of `data` have 1 unit of u without reference rows", class = "ncam_warning_unknown_unit")
  expect_no_match(conditionMessage(w), "newdata")
})

test_that("calibration rows that trained a fit to a converted units column warn as with one unit", {
  skip_if_not_installed("units")
  d <- simulate_colocation(days = 30, seed = 1)
  given <- d
  for (s in c("pa_a", "pa_b", "ref")) given[[s]] <- units::set_units(d[[s]], "ug/m3")
  given$opc <- units::set_units(d$opc / 1000, "mg/m3")  # converted to ug/m3 by the fit
  fit <- suppressMessages(short_fit(ncam(pa_a + pa_b + opc ~ rh, given[1:500, ], reference = "ref", hidden = 4L,
                                         epochs = 10L, seed = 1, threads = 1),
                                    also = c("ncam_warning_clamp", "ncam_warning_units")))
  in_sample <- "ncam_warning_in_sample_calibration"
  labelled <- sum(!is.na(d$ref[1:300]))
  # Before, calibrate() converted opc before looking for the fit's rows, and found none of them.
  w <- expect_warning(suppressMessages(calibrate(fit, given[1:300, ], method = "split")), class = in_sample)
  expect_match(conditionMessage(w), sprintf("%d of the %d rows of `data` with a reference reading are rows", labelled, labelled))
  # Only rows with a reference reading taught a reference fit: so many of the 300 count.
  w <- expect_warning(suppressWarnings(calibrate(fit, given[1:300, ], method = "mc_empirical", m = 2, seed = 1),
                                       classes = "ncam_warning_label_free_calibration"), class = in_sample)
  expect_match(conditionMessage(w), sprintf("%d of the 300 rows of `data` are rows", labelled))
  # The whole of the fit's data, in another order, is found by its fingerprint.
  w <- expect_warning(suppressWarnings(calibrate(fit, given[500:1, ], method = "mc_empirical", m = 2, seed = 1),
                                       classes = "ncam_warning_label_free_calibration"), class = in_sample)
  expect_match(conditionMessage(w), "`data` is the data `object` was fitted to")
  # opc given in the units it is fused in is the same data, rows and whole.
  in_ug <- given
  in_ug$opc <- units::set_units(in_ug$opc, "ug/m3")
  w <- expect_warning(suppressMessages(calibrate(fit, in_ug[1:300, ], method = "split")), class = in_sample)
  expect_match(conditionMessage(w), sprintf("%d of the %d rows", labelled, labelled))
  w <- expect_warning(suppressWarnings(calibrate(fit, in_ug[500:1, ], method = "mc_empirical", m = 2, seed = 1),
                                       classes = "ncam_warning_label_free_calibration"), class = in_sample)
  expect_match(conditionMessage(w), "`data` is the data `object` was fitted to")
  expect_no_warning(suppressMessages(calibrate(fit, given[501:720, ], method = "split")), class = in_sample)
})

test_that("a reference column without any value names the columns that might hold the readings", {
  d <- simulate_colocation(days = 10, colocation = 5, seed = 3)
  fit <- short_fit(ncam(pa_a + pa_b ~ rh, data = d, reference = "ref", hidden = 4L, epochs = 3L, seed = 1L, threads = 1L),
                   also = "ncam_warning_clamp")
  later <- d[is.na(d$ref), c("date", "rh", "temperature", "pa_a", "pa_b", "ref", "truth")]
  flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
  msg <- flat(expect_error(calibrate(fit, later, method = "split"), class = "ncam_error"))
  # Not the model's sensors, its covariate rh, the empty reference or the date.
  expect_identical(msg, paste("Reference column ref has no observed value in `data`: split conformal needs reference readings.",
                              "i If another column of `data` holds them, name it in `reference`, such as `reference = \"<column>\"`; numeric columns with values: temperature and truth.",
                              "i Or calibrate on rows with reference readings in ref, such as co-location rows the model did not train on."))
  # The columns it names calibrate.
  expect_s3_class(calibrate(fit, later, method = "split", reference = "truth"), "ncam_calibration")
  # Without such a column, the second hint alone.
  msg <- flat(expect_error(calibrate(fit, later[c("rh", "pa_a", "pa_b", "ref")], method = "split")))
  expect_no_match(msg, "another column")
  expect_match(msg, "Or calibrate on rows with reference readings in ref", fixed = TRUE)
})
