test_that("evaluate_fusion computes metrics by hand", {
  pred <- data.frame(.pred = c(1, 2, 3, 4),
                     .pred_lower = c(0, 1.5, 2, 3.5),
                     .pred_upper = c(2, 2.5, 5, 4.5))
  truth <- c(2, 2, 6, 3)
  # Errors -1, 0, -3, 1; covered: rows 1, 2 (row 3: 6 > 5, row 4: 3 < 3.5).
  out <- evaluate_fusion(pred, truth)
  expect_equal(out$rmse, sqrt((1 + 0 + 9 + 1) / 4))
  expect_equal(out$mae, (1 + 0 + 3 + 1) / 4)
  expect_equal(out$coverage, 0.5)
  expect_equal(out$mean_width, (2 + 1 + 3 + 1) / 4)
  expect_equal(out$n, 4)
  expect_identical(names(out), c("rmse", "mae", "coverage", "mean_width", "n"))
  expect_equal(nrow(out), 1)
})

test_that("a numeric vector gives point metrics only", {
  out <- evaluate_fusion(c(1, 5), c(0, 5))
  expect_identical(names(out), c("rmse", "mae", "n"))
  expect_equal(out$rmse, sqrt(0.5))
  expect_equal(out$mae, 0.5)
})

test_that("rows with missing truth or prediction are dropped with a message", {
  pred <- data.frame(.pred = c(1, NA, 3, 4), .pred_lower = c(0, NA, 2, -Inf),
                     .pred_upper = c(2, NA, 4, Inf))
  expect_message(out <- evaluate_fusion(pred, c(1.5, 2, NA, 10)), "Dropped 2 rows")
  expect_equal(out$n, 2)
  expect_equal(out$rmse, sqrt((0.25 + 36) / 2))
  expect_equal(out$coverage, 1)
  expect_equal(out$mean_width, Inf)
})

test_that("rows without a sensor reading (.n_sensors = 0) are left out, as sensor_performance() leaves them", {
  pred <- data.frame(.pred = c(1, 9, 3, 4), .pred_lower = c(0, -20, 2, 3), .pred_upper = c(2, 40, 4, 5),
                     .n_sensors = c(2L, 0L, 1L, 2L))
  truth <- c(1.5, 2, 3.5, NA)
  expect_message(expect_message(out <- evaluate_fusion(pred, truth), "Dropped 1 row with .n_sensors = 0"),
                 "Dropped 1 row with a missing")
  # By hand on rows 1 and 3, the only ones with a reading and a truth.
  expect_equal(out$n, 2L)
  expect_equal(out$rmse, sqrt((0.5^2 + 0.5^2) / 2))
  expect_equal(out$mean_width, 2)
  expect_error(evaluate_fusion(pred[2, ], 2), "1 row of 1 has no sensor reading")
})

test_that("a truth of missing values read as logical (an empty column) is missing numbers", {
  expect_error(evaluate_fusion(c(1, 2, 3), c(NA, NA, NA)), "No row has both")
  expect_error(evaluate_fusion(c(NA, NA), c(1, 2)), "No row has both")
  expect_error(evaluate_fusion(data.frame(.pred = c(NA, NA)), c(1, 2)), "No row has both")
  expect_error(evaluate_fusion(c(TRUE, FALSE), c(1, 2)), "must be a data frame")
})

test_that("bad evaluate_fusion input gives clear errors", {
  expect_snapshot(error = TRUE, evaluate_fusion(data.frame(.pred = 1:3), 1:2))
  expect_snapshot(error = TRUE, evaluate_fusion(data.frame(fit = 1:3), 1:3))
  expect_snapshot(error = TRUE, evaluate_fusion("a", 1))
  expect_snapshot(error = TRUE, evaluate_fusion(1:3, letters[1:3]))
})

test_that("a data frame without .pred names the argument and its columns; a matrix is not flattened", {
  expect_error(evaluate_fusion(data.frame(estimate = 1:2, other = 3:4), 1:2),
               "`pred` has no column .pred.*its columns: \"estimate\" and \"other\".*pred\\$estimate", class = "rlang_error")
  # Flattened, a 2 x 2 matrix would be scored as 4 predictions of the 4 truths.
  expect_error(evaluate_fusion(matrix(c(1, 2, 3, 4), 2), c(1, 2, 3, 4)),
               "`pred` is a 2 x 2 matrix", class = "rlang_error")
  expect_error(evaluate_fusion(array(1:8, c(2, 2, 2)), 1:8), "2 x 2 x 2 array")
  # One column is one prediction per row.
  one <- evaluate_fusion(matrix(c(1, 2, 4)), c(1, 2, 3))
  expect_equal(one$rmse, sqrt(1 / 3))
  expect_equal(one$n, 3)
})

test_that("no usable row is an error, not NaN metrics", {
  expect_error(evaluate_fusion(c(NA, 1), c(2, NA)), "No row has both")
  expect_error(evaluate_fusion(numeric(0), numeric(0)), "No row has both")
})

test_that("infinite truth or predictions are an error naming the rows", {
  expect_error(evaluate_fusion(c(1, 2, 3), c(1, Inf, 3)), "`truth` has infinite values in row 2")
  expect_error(evaluate_fusion(data.frame(.pred = c(-Inf, 1)), c(1, 2)), "infinite values in row 1")
})

test_that("crossed or missing interval bounds are errors naming the rows", {
  pred <- data.frame(.pred = c(1, 2, 3), .pred_lower = c(0, 3, 2), .pred_upper = c(2, 1, 4))
  expect_error(evaluate_fusion(pred, c(1, 2, 3)), "above .pred_upper in row 2")
  pred$.pred_upper[2] <- NA
  expect_error(evaluate_fusion(pred, c(1, 2, 3)), "missing .pred_lower or .pred_upper in row 2")
  # A missing bound on a row dropped for its missing truth is fine.
  expect_message(out <- evaluate_fusion(pred, c(1, NA, 3)), "Dropped 1 row")
  expect_equal(out$coverage, 1)
  expect_equal(out$mean_width, (2 + 2) / 2)
})

test_that("a single bound column warns and gives point metrics", {
  pred <- data.frame(.pred = c(1, 2), .pred_lower = c(0, 1))
  expect_warning(out <- evaluate_fusion(pred, c(1, 3)), "not .pred_upper")
  expect_identical(names(out), c("rmse", "mae", "n"))
  expect_equal(out$rmse, sqrt(1 / 2))
})

test_that("equal infinite bounds have zero width, not NaN", {
  pred <- data.frame(.pred = c(1, 2), .pred_lower = c(-Inf, 1), .pred_upper = c(-Inf, 3))
  out <- evaluate_fusion(pred, c(1, 2))
  expect_equal(out$mean_width, (0 + 2) / 2)
  expect_equal(out$coverage, 0.5)
})

test_that("non-numeric prediction columns are an error", {
  expect_error(evaluate_fusion(data.frame(.pred = c("1", "2")), c(1, 2)),
               "Column .pred of `pred` must be numeric")
})


test_that("values too large to compute with are an error naming the rows, not Inf metrics", {
  expect_error(evaluate_fusion(c(1e200, 1, 2), 1:3),
               ".pred has a value as large as 1e\\+200 in row 1: too large", class = "rlang_error")
  expect_error(evaluate_fusion(1:3, c(1, -1e160, 1e170)),
               "`truth` has values as large as 1e\\+170 in rows 2, 3", class = "rlang_error")
  # At the limit ncam() uses the errors still square: RMSE and MAE by hand.
  out <- evaluate_fusion(c(1e150, 0), c(0, 0))
  expect_equal(out$rmse, 1e150 / sqrt(2))
  expect_equal(out$mae, 1e150 / 2)
})

test_that("a prediction column given twice is an error naming it", {
  pred <- data.frame(.pred = 1:3, .pred = 3:1, check.names = FALSE)
  expect_error(evaluate_fusion(pred, 1:3), "Column .pred appears more than once", class = "rlang_error")
  pred <- data.frame(.pred = 1:3, .pred_lower = 0:2, .pred_upper = 2:4, .pred_upper = 9,
                     check.names = FALSE)
  expect_error(evaluate_fusion(pred, 1:3), "Column .pred_upper appears more than once",
               class = "rlang_error")
})

test_that("integer64 columns are read by value even when bit64 is not loaded", {
  skip_if_not_installed("bit64")
  skip_if_not_installed("callr")
  # In a fresh session, as after readRDS() of a data.table::fread() result: bit64's methods
  # are not registered, and as.double() would read the bits (1 as 4.9e-324).
  out <- callr::r(function() {
    bits <- readBin(writeBin(as.vector(rbind(1:40, 0L)), raw(), endian = "little"), "double",
                    n = 40, endian = "little")
    ids <- structure(bits, class = "integer64")
    d <- data.frame(date = as.Date("2024-01-01") + 0:39, ref = as.double(1:40))
    d$est <- ids
    list(bit64_loaded = isNamespaceLoaded("bit64"),
         fusion = ncam::evaluate_fusion(as.double(1:40), ids),
         performance = suppressMessages(ncam::sensor_performance(d, "est", "ref")))
  }, libpath = .libPaths())
  expect_false(out$bit64_loaded)
  expect_identical(out$fusion$rmse, 0)
  expect_identical(out$performance$rmse[1], 0)
  expect_equal(out$performance$slope[1], 1)
})

test_that("values with units are compared in the units of the predictions", {
  skip_if_not_installed("units")
  ug <- function(x) units::set_units(x, "ug/m3", mode = "standard")
  pred <- data.frame(.pred = c(10, 20, 30, 40), .pred_lower = c(8, 15, 29, 30),
                     .pred_upper = c(12, 25, 31, 50))
  truth <- c(11, 18, 33, 40)
  # Plain predictions (as predict() gives) beside a truth with units: which unit they are in is
  # unknown (truth in mg/m3 would be compared 1000 times off), an error; both with units work.
  expect_error(evaluate_fusion(pred, ug(truth)), "`truth` is in \"ug/m3\" but .pred has no units")
  expect_error(evaluate_fusion(ug(pred$.pred), truth), "`pred` is in \"ug/m3\" but `truth` has no units")
  with_units <- transform(pred, .pred = ug(.pred))
  expect_message(out <- evaluate_fusion(with_units, ug(truth)),
                 ".pred_lower and .pred_upper, without units, are taken to be in ug/m3, the units\\s+of .pred")
  expect_equal(out$rmse, sqrt(mean((pred$.pred - truth)^2)))
  expect_equal(out$coverage, 0.75) # all but row 3
  # Predictions in ug/m3, truth and one bound in mg/m3: converted to ug/m3.
  in_ug <- pred
  in_ug$.pred <- ug(pred$.pred)
  in_ug$.pred_upper <- units::set_units(pred$.pred_upper / 1000, "mg/m3", mode = "standard")
  truth_mg <- units::set_units(truth / 1000, "mg/m3", mode = "standard")
  suppressMessages(expect_message(out <- evaluate_fusion(in_ug, truth_mg),
                                  "`truth` is converted from mg/m3 to ug/m3"))
  expect_equal(out$rmse, sqrt(mean((pred$.pred - truth)^2)))
  expect_equal(out$mae, mean(abs(pred$.pred - truth)))
  expect_equal(out$mean_width, mean(pred$.pred_upper - pred$.pred_lower))
  expect_false(inherits(out$rmse, "units"))
  # Another quantity is an error.
  ppb <- units::set_units(truth, "ppb", mode = "standard")
  expect_error(evaluate_fusion(in_ug, ppb), "`truth` is in \"ppb\", which cannot be converted",
               class = "rlang_error")
})

test_that("predictions without interval columns (a tibble, as predict() gives) score without warnings", {
  pred <- tibble::tibble(.pred = c(1, 2, 4))
  expect_no_warning(out <- evaluate_fusion(pred, truth = c(1, 2, 3)))
  expect_equal(out$rmse, sqrt(1 / 3))
  expect_named(out, c("rmse", "mae", "n"))  # no interval, no interval metrics
})

test_that("truth may name a column of pred, and the result is a one-row tibble", {
  pred <- data.frame(.pred = c(1, 2, 3, 4), .pred_lower = c(0, 1.5, 2, 3.5),
                     .pred_upper = c(2, 2.5, 5, 4.5), ref = c(2, 2, 6, 3))
  # Errors -1, 0, -3, 1; rows 1 and 2 covered; widths 2, 1, 3, 1.
  out <- evaluate_fusion(pred, truth = "ref")
  expect_s3_class(out, "tbl_df")
  expect_equal(as.list(out), list(rmse = sqrt(11 / 4), mae = 5 / 4, coverage = 0.5, mean_width = 7 / 4,
                                  n = 4L))
  expect_identical(evaluate_fusion(pred, pred$ref), out)
  expect_s3_class(evaluate_fusion(pred$.pred, pred$ref), "tbl_df")
  # A reference column missing on some rows drops them, as a vector does.
  pred$ref[2] <- NA
  expect_message(out <- evaluate_fusion(pred, "ref"), "Dropped 1 row", class = "ncam_message_dropped_rows")
  expect_equal(out$rmse, sqrt(11 / 3))
  expect_error(evaluate_fusion(pred, "truth"), "names column \"truth\", which `pred` lacks", class = "ncam_error")
  expect_error(evaluate_fusion(pred$.pred, "ref"), "`pred` is not a data frame", class = "ncam_error")
  expect_error(evaluate_fusion(transform(pred, ref = "a"), "ref"), "must be numeric, not a character vector",
               class = "ncam_error")
  expect_error(evaluate_fusion(pred, NA_character_), "must be a numeric vector or the name of a column",
               class = "ncam_error")
  expect_snapshot(evaluate_fusion(pred[-2, ], "ref"))
})
