# sensor_params() of fits by group: each row of newdata by its group's model, checked against
# sensor_params() of each group's own fit on its rows; the rows and sensors in a single fit's
# order, behind the row's keys.

by_group_toy <- function() {
  toy <- simulate_toy(n = 400, seed = 4)
  toy$site <- rep(c("north", "south"), each = 200)
  toy$day <- rep(1:2, times = 200)
  toy
}

test_that("each row gets its group's sensor model, in a single fit's order, behind its keys", {
  toy <- by_group_toy()
  # South never read sensor_2: its model is fitted without it.
  toy$sensor_2[toy$site == "south"] <- NA
  fits <- suppressMessages(short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, by = c("site", "day"),
                                             hidden = 4L, epochs = 5L, seed = 1, threads = 1),
                                     also = c("ncam_warning_clamp", "ncam_warning_two_sensors")))
  south <- which(fits$site == "south")
  expect_identical(fits$fit[[south[1]]]$sensors, c("sensor_0", "sensor_1"))
  # Rows of every group, shuffled, and one of a group that has no model.
  newdata <- toy[c(390, 3, 201, 4, 1, 202, 250), ]
  newdata$site[7] <- "east"
  expect_warning(params <- sensor_params(fits, newdata), "1 row of `newdata` belongs to 1 group without a model",
                 class = "ncam_warning_no_group_model")
  sensors <- c("sensor_0", "sensor_1", "sensor_2")
  n <- nrow(newdata)
  expect_named(params, c("site", "day", ".row", "sensor", "a", "c", "sigma"))
  expect_identical(params$.row, rep(seq_len(n), times = 3))
  expect_identical(params$sensor, rep(sensors, each = n))
  expect_identical(params$site, rep(newdata$site, times = 3))
  expect_identical(params$day, rep(newdata$day, times = 3))
  # Each group's rows against sensor_params() of its own fit on those rows alone.
  expected <- matrix(NA_real_, n * 3, 3, dimnames = list(NULL, c("a", "c", "sigma")))
  for (g in seq_len(nrow(fits))) {
    rows <- which(newdata$site == fits$site[g] & newdata$day == fits$day[g])
    if (!length(rows)) next
    own <- sensor_params(fits$fit[[g]], newdata[rows, ])
    at <- (match(own$sensor, sensors) - 1) * n + rows[own$.row]
    expected[at, ] <- as.matrix(own[c("a", "c", "sigma")])
  }
  expect_identical(as.matrix(params[c("a", "c", "sigma")]), expected)
  # What is NA: the row of no group, and sensor_2 on south's rows.
  missing <- is.na(params$a)
  expect_identical(missing, params$.row == 7 | (params$sensor == "sensor_2" & params$site == "south"))
  expect_true(all(is.finite(params$a[!missing])))
})

test_that("fits by group: no rows, no newdata and a key column named as a result column", {
  toy <- by_group_toy()
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, by = "site", hidden = 4L, epochs = 5L,
                            seed = 1, threads = 1),
                    also = "ncam_warning_clamp")
  empty <- sensor_params(fits, toy[0, ])
  expect_named(empty, c("site", ".row", "sensor", "a", "c", "sigma"))
  expect_identical(nrow(empty), 0L)
  expect_error(sensor_params(fits), "`newdata` is required for fits by group", class = "ncam_error")
  expect_error(sensor_params(fits, toy[c("sensor_0", "sensor_1", "sensor_2", "x1")]), "site", class = "ncam_error")
  expect_error(sensor_params(fits, toy, level = 0.9), "level", class = "ncam_error")
  toy$c <- toy$site
  fits_c <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, by = "c", hidden = 4L, epochs = 5L,
                              seed = 1, threads = 1),
                      also = "ncam_warning_clamp")
  expect_error(sensor_params(fits_c, toy), "has the name of a column of the result", class = "ncam_error")
})
