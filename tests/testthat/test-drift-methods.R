# tidy() and glance() of the table of sensor_drift(), and the model generics it refuses.

drift_methods_fixture <- function() {
  toy <- simulate_toy(n = 720, seed = 3)
  toy$date <- as.Date("2024-01-01") + seq_len(720) - 1
  fit <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy[1:240, ], hidden = 8, epochs = 200,
                               learn_rate = 0.02, seed = 1, threads = 1),
                          classes = c("ncam_warning_not_converged", "ncam_warning_clamp"))
  later <- toy$date >= as.Date("2024-10-01")
  toy$sensor_2[later] <- toy$sensor_2[later] + 10
  list(toy = toy, fit = fit)
}

test_that("tidy() gives the table's rows; glance() per sensor its periods tested and flagged and its largest shift", {
  fx <- drift_methods_fixture()
  drift <- sensor_drift(fx$fit, fx$toy, period = "month")
  tidied <- tidy(drift)
  expect_identical(class(tidied), c("tbl_df", "tbl", "data.frame"))
  expect_named(tidied, c("sensor", "period", "n", "shift", "mean_z", "std_error", "p_value", "drift"))
  expect_identical(lapply(tidied, identity), lapply(drift, identity))
  expect_null(attr(tidied, "alpha"))
  glanced <- glance(drift)
  expect_named(glanced, c("sensor", "periods", "tested", "flagged", "first_flagged", "largest_shift", "largest_shift_period"))
  expect_identical(glanced$sensor, c("sensor_0", "sensor_1", "sensor_2"))
  # Each sensor's row by hand from its rows of the table.
  for (s in glanced$sensor) {
    rows <- as.data.frame(drift)[drift$sensor == s, ]
    one <- glanced[glanced$sensor == s, ]
    expect_identical(one$periods, nrow(rows))
    expect_identical(one$tested, sum(!is.na(rows$p_value)))
    expect_identical(one$flagged, sum(rows$drift, na.rm = TRUE))
    expect_identical(one$first_flagged, if (any(rows$drift, na.rm = TRUE)) min(rows$period[rows$drift %in% TRUE]) else as.Date(NA))
    at <- which.max(abs(rows$shift))
    expect_identical(one$largest_shift, rows$shift[at])
    expect_identical(one$largest_shift_period, rows$period[at])
  }
  # sensor_2 reads high from October: flagged there, its largest shift about +10.
  expect_identical(glanced$first_flagged[3], as.Date("2024-10-01"))
  expect_gt(glanced$largest_shift[3], 5)
  # Units: one row per unit and sensor, the unit column first.
  fx$toy$site <- rep(c("north", "south"), each = 360)
  by_site <- suppressWarnings(sensor_drift(fx$fit, fx$toy, period = "month", unit = "site"),
                              classes = "ncam_warning_few_periods")
  glanced <- glance(by_site)
  expect_named(glanced, c("site", "sensor", "periods", "tested", "flagged", "first_flagged", "largest_shift",
                          "largest_shift_period"))
  expect_identical(glanced$site, rep(c("north", "south"), each = 3))
  expect_identical(glanced$periods, vapply(seq_len(6), function(i) {
    sum(by_site$site == glanced$site[i] & by_site$sensor == glanced$sensor[i])
  }, 1L))
  # No rows: no sensors.
  expect_identical(nrow(glance(drift[0, ])), 0L)
})

test_that("sigma(), formula() and model.frame() of a drift table are errors saying what to use", {
  fx <- drift_methods_fixture()
  drift <- sensor_drift(fx$fit, fx$toy, period = "month")
  expect_snapshot(error = TRUE, {
    sigma(drift)
    formula(drift)
    model.frame(drift)
  })
  expect_error(glance(drift[c("sensor", "period")]), "lacks columns .*n.*shift", class = "ncam_error")
  expect_error(tidy(drift, level = 0.9), class = "ncam_error")
})
