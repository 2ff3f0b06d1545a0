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

test_that("bad evaluate_fusion input gives clear errors", {
  expect_snapshot(error = TRUE, evaluate_fusion(data.frame(.pred = 1:3), 1:2))
  expect_snapshot(error = TRUE, evaluate_fusion(data.frame(fit = 1:3), 1:3))
  expect_snapshot(error = TRUE, evaluate_fusion("a", 1))
  expect_snapshot(error = TRUE, evaluate_fusion(1:3, letters[1:3]))
})
