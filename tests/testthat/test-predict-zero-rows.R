# Zero rows of newdata: terms such as splines::ns() cannot be evaluated on no data, and
# ncam_by()'s predict() builds its column template from zero rows.

test_that("predict() on zero rows gives the columns of one row, whatever the terms", {
  toy <- simulate_toy(n = 400, seed = 1)
  fit <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ splines::ns(x1, df = 3) + x2, data = toy,
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
  fits <- suppressWarnings(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ splines::ns(x1, df = 3), data = toy,
                                   by = "site", hidden = 8L, epochs = 5, seed = 1, threads = 1))
  rows <- c(1, 301, 2)
  out <- predict(fits, toy[rows, ])
  by_hand <- c(predict(fits$fit[[1]], toy[1, ])$.pred, predict(fits$fit[[2]], toy[301, ])$.pred,
               predict(fits$fit[[1]], toy[2, ])$.pred)
  expect_equal(out$.pred, by_hand, tolerance = 1e-12)  # rows computed in one batch or alone
  expect_equal(augment(fits, toy[rows, ])$.pred, by_hand, tolerance = 1e-12)
})
