# Zero rows of newdata (terms such as splines::ns() cannot be evaluated on no data, and
# ncam_by()'s predict() builds its column template from zero rows), and many rows (the glue
# hands the engine blocks of rows, checking for Ctrl-C between them).

test_that("predict() on zero rows gives the columns of one row, whatever the terms", {
  toy <- simulate_toy(n = 400, seed = 1)
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ splines::ns(x1, df = 3) + x2, data = toy,
                        hidden = 8L, epochs = 5, seed = 1, threads = 1))
  for (interval in c("none", "credible", "prediction")) {
    none <- predict(fit, toy[0, ], interval = interval)
    one <- predict(fit, toy[1, ], interval = interval)
    expect_identical(nrow(none), 0L)
    expect_identical(vapply(none, class, ""), vapply(one, class, ""))
  }
  expect_identical(nrow(augment(fit, toy[0, ])), 0L)
  expect_error(predict(fit, toy[0, c("sensor_0", "sensor_1", "sensor_2", "x1")]), "lacks column \"x2\"")
})

test_that("predict() and augment() of ncam_by() work with spline terms", {
  toy <- simulate_toy(n = 600, seed = 1)
  toy$site <- rep(c("north", "south"), each = 300)
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ splines::ns(x1, df = 3), data = toy,
                            by = "site", hidden = 8L, epochs = 5, seed = 1, threads = 1))
  rows <- c(1, 301, 2)
  out <- predict(fits, toy[rows, ])
  by_hand <- c(predict(fits$fit[[1]], toy[1, ])$.pred, predict(fits$fit[[2]], toy[301, ])$.pred,
               predict(fits$fit[[1]], toy[2, ])$.pred)
  expect_equal(out$.pred, by_hand, tolerance = 1e-12)  # rows computed in one batch or alone
  expect_equal(augment(fits, toy[rows, ])$.pred, by_hand, tolerance = 1e-12)
})

test_that("rows beyond the first block of the engine get the same posterior and heads as alone", {
  block <- 2^15  # kPredictBlockRows of src/ncam/types.hpp; blocks start at multiples of it
  toy <- simulate_toy(n = block + 3000, seed = 2)
  toy$x2[c(7, block + 11)] <- NA
  toy$sensor_1[seq(1, nrow(toy), by = 5)] <- NA
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy[1:2000, ],
                        hidden = 8L, epochs = 3, seed = 1, threads = 1),
                   also = "ncam_warning_missing_covariate")
  later <- block + seq_len(3000)
  missing_x2 <- "ncam_warning_missing_covariate"  # x2 is NA on rows 7 and block + 11 (checked below)
  all_rows <- suppressWarnings(predict(fit, toy, interval = "prediction", threads = 2), classes = missing_x2)
  alone <- suppressWarnings(predict(fit, toy[later, ], interval = "prediction", threads = 2), classes = missing_x2)
  expect_identical(nrow(all_rows), nrow(toy))
  expect_identical(all_rows[later, c(".pred", ".pred_sd", ".pred_lower", ".pred_upper")],
                   alone[c(".pred", ".pred_sd", ".pred_lower", ".pred_upper")])
  expect_identical(is.na(all_rows$.pred), is.na(toy$x2))
  heads_all <- suppressWarnings(sensor_params(fit, toy), classes = missing_x2)
  heads_alone <- suppressWarnings(sensor_params(fit, toy[later, ]), classes = missing_x2)
  expect_identical(as.list(heads_all[heads_all$.row %in% later, setdiff(names(heads_all), ".row")]),
                   as.list(heads_alone[setdiff(names(heads_alone), ".row")]))
})

test_that("a fit made inside a function finds its data while the function runs, never after", {
  toy <- simulate_toy(n = 300, seed = 3)
  make <- function(d, inside) {
    fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d, hidden = 4L, epochs = 2L, seed = 1L,
                threads = 1L)
    if (inside) return(list(fitted(fit), predict(fit)$.pred, predict(fit, d)$.pred))
    fit
  }
  inside <- short_fit(make(toy, TRUE))
  expect_identical(inside[[2]], inside[[3]])
  expect_length(inside[[1]], nrow(toy))
  # Returned, its frame may outlive it until the next gc(): the answer must not depend on that.
  for (i in 1:3) {
    fit <- short_fit(make(toy, FALSE))
    expect_error(predict(fit), "pass it as")
    gc()
    expect_error(predict(fit), "pass it as")
  }
  expect_identical(predict(fit, toy)$.pred, inside[[3]])
  # Data the function did not own (lapply(seeds, function(s) ncam(..., data = toy))) stay
  # reachable through the environment the fit keeps, gc() or not.
  by_seed <- lapply(1:2, function(s) {
    short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, hidden = 4L, epochs = 2L,
                   seed = s, threads = 1L))
  })
  gc()
  expect_identical(predict(by_seed[[2]])$.pred, predict(by_seed[[2]], toy)$.pred)
  expect_warning(calibrate(by_seed[[1]], toy[1:100, ], method = "split", reference = "truth"),
                 class = "ncam_warning_in_sample_calibration")
  # A global of the same name but other values is not taken for the fitted data.
  toy$sensor_0 <- toy$sensor_0 + 1
  expect_error(predict(by_seed[[2]]), "pass it as")
})

test_that("a list column in newdata is a clear error naming it, whatever the term", {
  toy <- simulate_toy(n = 300, seed = 5)
  toy$site <- rep(c("a", "b"), 150)
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + factor(site), data = toy,
                        hidden = 4L, epochs = 2L, seed = 1L, threads = 1L))
  plain <- toy
  plain$x1 <- as.list(plain$x1)
  expect_error(predict(fit, plain), "Covariate x1 is a list column", fixed = TRUE)
  in_factor <- toy
  in_factor$site <- as.list(in_factor$site)
  expect_error(predict(fit, in_factor), "Covariate site is a list column", fixed = TRUE)
  sensor <- toy
  sensor$sensor_1 <- as.list(sensor$sensor_1)
  expect_error(predict(fit, sensor), "sensor_1.*list column")
})

test_that("POSIXlt columns are not taken for list columns", {
  toy <- simulate_toy(n = 300, seed = 6)
  toy$date <- as.POSIXlt(as.POSIXct("2024-01-01", tz = "UTC") + 3600 * seq_len(300))
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + I(as.numeric(format(date, "%H"))),
                        data = toy, hidden = 4L, epochs = 2L, seed = 1L, threads = 1L))
  as_ct <- toy
  as_ct$date <- as.POSIXct(as_ct$date)
  expect_identical(predict(fit, toy)$.pred, predict(fit, as_ct)$.pred)
})

test_that("a formula built by a helper function, fitted at top level, finds its data", {
  toy <- simulate_toy(n = 300, seed = 7)
  make_formula <- function() sensor_0 + sensor_1 + sensor_2 ~ x1
  fit <- short_fit(ncam(make_formula(), data = toy, hidden = 4L, epochs = 2L, seed = 1L, threads = 1L))
  gc()
  expect_identical(predict(fit)$.pred, predict(fit, toy)$.pred)
  per_seed <- lapply(1:2, function(s) {
    short_fit(ncam(stats::reformulate("x1", "cbind(sensor_0, sensor_1, sensor_2)"), data = toy,
                   hidden = 4L, epochs = 2L, seed = s, threads = 1L))
  })
  gc()
  expect_length(fitted(per_seed[[2]]), nrow(toy))
})
