# Rows of ncam_by() fits: group keys of several columns that text could merge.

test_that("keys holding the separator of several key columns are refused, not merged into one group", {
  toy <- simulate_toy(n = 400, seed = 1)
  toy$a <- rep(c("a\rb", "a"), 200)
  toy$b <- rep(c("c", "b\rc"), 200)
  # Before, ("a\rb", "c") and ("a", "b\rc") were one group of 400 rows, silently.
  err <- expect_error(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, by = c("a", "b"),
                              hidden = 4L, epochs = 3L, seed = 1, threads = 1L),
                      "Group column a of `data` holds a carriage return (`\\r`) in 200 rows (1, 3, 5, 7, 9, ...)",
                      fixed = TRUE)
  expect_match(conditionMessage(err), "data$a <- gsub(\"\\r\", \" \", data$a, fixed = TRUE)", fixed = TRUE)
  toy$a <- factor(toy$a)
  expect_error(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, by = c("b", "a"), hidden = 4L, epochs = 3L,
                       seed = 1, threads = 1L),
               "Group column b of `data` holds a carriage return (`\\r`) in 200 rows (2, 4, 6, 8, 10, ...)",
               fixed = TRUE)
  # One key column is not joined to another: its keys stay apart.
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, by = "a", hidden = 4L, epochs = 3L,
                            seed = 1, threads = 1L))
  expect_identical(as.character(fits$a), c("a", "a\rb"))
  expect_identical(fits$.n, c(200L, 200L))
})

test_that("new rows with a key holding the separator are refused by predict(), calibrate() and sensor_drift()", {
  toy <- simulate_toy(n = 600, seed = 1)
  toy$a <- rep(c("x", "y"), 300)
  toy$b <- rep(c("c", "d"), 300)
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy[1:400, ], by = c("a", "b"), hidden = 4L,
                            epochs = 3L, seed = 1, threads = 1L))
  new <- toy[401:600, ]
  new$b[c(3, 8)] <- "c\rd"
  new$date <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * seq_len(nrow(new))
  expect_error(predict(fits, new), "Group column b of `newdata` holds a carriage return (`\\r`) in 2 rows (3, 8)",
               fixed = TRUE)
  expect_error(augment(fits, new), "Group column b of `newdata` holds a carriage return", fixed = TRUE)
  expect_error(calibrate(fits, new, m = 2, seed = 1),
               "Group column b of `data` holds a carriage return (`\\r`) in 2 rows (3, 8)", fixed = TRUE)
  expect_error(sensor_drift(fits, new), "Group column b of `newdata` holds a carriage return (`\\r`) in 2 rows (3, 8)",
               fixed = TRUE)
})
