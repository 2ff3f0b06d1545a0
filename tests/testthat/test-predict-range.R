# Rows beyond what the networks compute with, beside rows with a missing covariate, scored whole,
# in chunks and by group: one warning of each kind, each counting its own rows, and rows of the
# whole input named.

beyond_fit_data <- simulate_toy(n = 400, seed = 3)
beyond_fit <- quick_fit(beyond_fit_data, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + x2,
                        epochs = 20L)

# Rows 1 to 300 of the fitted data (inside its range: no extrapolation warning), with x1 far
# beyond at rows 20 and 201, x2 at row 290, and a missing covariate at rows 7 and 150. In
# 128-row chunks, rows 7 and 20 fall in the first, 150 and 201 in the second, 290 in the third.
beyond_rows <- c(20L, 201L, 290L)
missing_rows <- c(7L, 150L)
beyond_data <- function() {
  d <- beyond_fit_data[1:300, ]
  d$x1[c(20, 201)] <- 1e50
  d$x2[290] <- 1e50
  d$x1[7] <- NA
  d$x2[150] <- NA
  d$site <- rep(1:2, 150)  # row 201 in site 1, rows 20 and 290 in site 2
  d
}

# The value of expr and every warning it gave, muffled.
with_warnings <- function(expr) {
  warned <- list()
  value <- withCallingHandlers(expr, warning = function(w) {
    warned[[length(warned) + 1L]] <<- w
    invokeRestart("muffleWarning")
  })
  list(value = value, warnings = warned, classes = vapply(warned, function(w) class(w)[1], ""))
}

# One warning of each kind, each counting its own rows; the beyond one names `named`.
expect_row_totals <- function(got, of, named) {
  expect_identical(sort(got$classes), c("ncam_warning_beyond_range", "ncam_warning_missing_covariate"))
  beyond <- conditionMessage(got$warnings[[match("ncam_warning_beyond_range", got$classes)]])
  expect_match(beyond, paste("3 of 300 rows of", of, "have values so far outside"), fixed = TRUE)
  for (bullet in named) expect_match(beyond, bullet, fixed = TRUE)
  missing <- conditionMessage(got$warnings[[match("ncam_warning_missing_covariate", got$classes)]])
  expect_match(missing, "2 of 300 rows have a missing covariate", fixed = TRUE)
}

test_that("predict() names the rows beyond range and counts the missing covariates apart", {
  got <- with_warnings(predict(beyond_fit, beyond_data()))
  expect_identical(got$classes, c("ncam_warning_beyond_range", "ncam_warning_missing_covariate"))
  beyond <- got$warnings[[1]]
  expect_match(conditionMessage(beyond), "x1: rows 20 (1e+50), 201 (1e+50)", fixed = TRUE)
  expect_match(conditionMessage(beyond), "x2: row 290 (1e+50)", fixed = TRUE)
  expect_identical(beyond$rows, beyond_rows)
  expect_identical(beyond$variables, c("x1", "x1", "x2"))
  expect_match(conditionMessage(got$warnings[[2]]), "2 of 300 rows have a missing covariate", fixed = TRUE)
  # Both kinds of row are NA throughout, .extrapolation too: the columns cannot tell them apart.
  expect_true(all(is.na(as.matrix(got$value[c(beyond_rows, missing_rows), ]))))
  expect_false(anyNA(as.matrix(got$value[-c(beyond_rows, missing_rows), ])))
})

test_that("predict_chunks() gives one total of each kind, naming rows of the input", {
  d <- beyond_data()
  whole <- suppressWarnings(predict(beyond_fit, d), classes = c("ncam_warning_beyond_range", "ncam_warning_missing_covariate"))
  got <- with_warnings(predict_chunks(beyond_fit, row_chunks(d, 128), chunk_rows = 128, verbose = FALSE))
  expect_row_totals(got, "`input`", c("x1: rows 20 (1e+50), 201 (1e+50)", "x2: row 290 (1e+50)"))
  expect_equal(as.list(got$value), as.list(whole), tolerance = 1e-6)
  # A generator written out, the same.
  got <- with_warnings(predict_chunks(beyond_fit, row_chunks(d, 128), output = withr::local_tempdir(),
                                      chunk_rows = 128, verbose = FALSE))
  expect_row_totals(got, "`input`", c("x1: rows 20 (1e+50), 201 (1e+50)", "x2: row 290 (1e+50)"))

  # Files: rows within each file, named with it, returned or written out.
  files <- file.path(withr::local_tempdir(), c("a.csv", "b.csv"))
  utils::write.csv(d[1:150, ], files[1], row.names = FALSE)
  utils::write.csv(d[151:300, ], files[2], row.names = FALSE)
  named <- c("x1: rows 20 of a.csv (1e+50), 51 of b.csv (1e+50)", "x2: row 140 of b.csv (1e+50)")
  got <- with_warnings(predict_chunks(beyond_fit, files, chunk_rows = 64, verbose = FALSE))
  expect_row_totals(got, "`input`", named)
  expect_identical(which(is.na(got$value$.pred)), sort(c(beyond_rows, missing_rows)))
  got <- with_warnings(predict_chunks(beyond_fit, files, output = withr::local_tempdir(), chunk_rows = 64,
                                      verbose = FALSE))
  expect_row_totals(got, "`input`", named)
})

test_that("predict() and augment() of fits by group give one total of each kind, naming rows of newdata", {
  fit_data <- beyond_fit_data
  fit_data$site <- rep(1:2, 200)
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = fit_data, by = "site",
                            hidden = 8L, epochs = 20L, seed = 1))
  d <- beyond_data()
  # Site 1's row 201 is scored before site 2's row 20, and named after it.
  named <- c("x1: rows 20 (1e+50), 201 (1e+50)", "x2: row 290 (1e+50)")
  got <- with_warnings(predict(fits, d))
  expect_row_totals(got, "`newdata`", named)
  expect_identical(which(is.na(got$value$.pred)), sort(c(beyond_rows, missing_rows)))
  got <- with_warnings(augment(fits, d))
  expect_row_totals(got, "`newdata`", named)
})

test_that("the totals survive a parallel plan, where the parts are scored on workers", {
  skip_on_cran()
  d <- beyond_data()
  local_two_workers("multisession")
  got <- with_warnings(predict_chunks(beyond_fit, row_chunks(d, 128), chunk_rows = 128, verbose = FALSE))
  expect_row_totals(got, "`input`", c("x1: rows 20 (1e+50), 201 (1e+50)", "x2: row 290 (1e+50)"))
})

test_that("the one-pass scan for values outside a range finds what which() finds", {
  withr::local_seed(5)
  x <- c(stats::rnorm(10000), NA, NaN, Inf, -Inf, 2, -2, 1e200)
  x[c(4097, 8192, 8193)] <- c(3, -3, 2.5)  # at block edges
  for (bounds in list(c(-2, 2), c(-Inf, 1), c(0, Inf), c(-1e150, 1e150), c(5, 6))) {
    expect_identical(ncam:::rows_outside(x, bounds[1], bounds[2]), which(x < bounds[1] | x > bounds[2]))
  }
  expect_identical(ncam:::rows_outside(numeric(0), -1, 1), integer(0))
  expect_identical(ncam:::rows_outside(c(1L, 5L, NA), 0L, 2L), 2L)  # integers go through which()
})
