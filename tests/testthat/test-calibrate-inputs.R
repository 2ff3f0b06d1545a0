# calibrate()'s inputs: a reference column in units, and arguments that a method does not use.

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
