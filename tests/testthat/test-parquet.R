# predict_chunks() on Parquet inputs (read with nanoparquet, or arrow when installed).

test_that("a Parquet file is scored as the same data in memory, missing readings included", {
  skip_if_not_installed("nanoparquet")
  toy <- simulate_toy(n = 600, seed = 5)
  fit <- quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, hidden = 4L, epochs = 3L)
  scored <- as.data.frame(toy[301:600, ])
  scored$sensor_1[c(2, 50)] <- NA      # a missing reading: scored from the other sensors
  scored$x2[7] <- NA                   # a missing covariate: no prediction, with a warning
  scored$date <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * seq_len(nrow(scored))
  dir <- withr::local_tempdir()
  files <- file.path(dir, c("a.parquet", "b.parquet"))
  nanoparquet::write_parquet(scored[1:200, ], files[1])
  nanoparquet::write_parquet(scored[201:300, ], files[2])

  expect_warning(want <- stats::predict(fit, scored, interval = "credible"), "missing covariate")
  expect_warning(got <- predict_chunks(fit, files, chunk_rows = 64, keep = c("date", "truth"),
                                       interval = "credible", verbose = FALSE),
                 "1 of 300 rows has a missing covariate")
  expect_identical(nrow(got), 300L)
  expect_identical(as.numeric(got$date), as.numeric(scored$date))
  expect_identical(got$truth, scored$truth)
  expect_identical(as.list(got[names(want)]), as.list(want))
  expect_true(is.na(got$.pred[7]) && !is.na(got$.pred[2]))

  out_dir <- file.path(dir, "scored")
  res <- predict_chunks(fit, files[2], output = out_dir, keep = "truth", verbose = FALSE)
  expect_identical(basename(res$output), "b.csv")
  expect_equal(utils::read.csv(res$output)$.pred, want$.pred[201:300], tolerance = 1e-14)
})

test_that("a broken Parquet file is an error naming it", {
  skip_if_not_installed("nanoparquet")
  toy <- simulate_toy(n = 300, seed = 5)
  fit <- quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1, hidden = 4L, epochs = 2L)
  bad <- file.path(withr::local_tempdir(), "bad.parquet")
  writeLines("not parquet", bad)
  expect_error(predict_chunks(fit, bad, verbose = FALSE), "Could not read .*bad.parquet.* as a Parquet file")
})
