# Rows of ncam_by() fits: group keys of several columns that text could merge, and the row
# numbers that ncam_by(), predict(), calibrate() and sensor_drift() name, which are rows of the data given
# to them, not of a group's share of it.

rows_formula <- sensor_0 + sensor_1 + sensor_2 ~ x1 + kind

# Two sites, rows interleaved (odd rows north, even rows south), and a text covariate `kind`
# that is "a" on every training row, so that the fits leave it out.
rows_fixture <- function() {
  toy <- simulate_toy(n = 800, seed = 1)
  toy$site <- rep(c("north", "south"), 400)
  toy$kind <- "a"
  fits <- short_fit(ncam_by(rows_formula, data = toy[1:600, ], by = "site", hidden = 4L, epochs = 5L,
                            seed = 1, threads = 1L),
                    also = "ncam_warning_dropped_covariate")
  list(toy = toy, fits = fits, new = toy[601:700, ])
}

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

test_that("predict() of fits by group names rows of newdata, not of the group's share of it", {
  fx <- rows_fixture()
  new <- fx$new
  new$kind[10] <- "b"  # the 5th south row
  w <- expect_warning(predict(fx$fits, new), class = "ncam_warning_constant_covariate")
  expect_match(conditionMessage(w), "Group site = south: .*1 row of `newdata` has other values \\(row 10: b\\)")
  # Errors about a row name it in newdata too (it was the group's row 10).
  inf_reading <- fx$new
  inf_reading$sensor_1[20] <- Inf
  expect_error(predict(fx$fits, inf_reading), "Sensor column sensor_1 has an infinite value in row 20.", fixed = TRUE)
  huge <- fx$new
  huge$x1[20] <- 1e200
  expect_error(predict(fx$fits, huge), "Covariate x1 has a value as large as 1e+200 in row 20", fixed = TRUE)
  # A calibration's predict() goes the same way.
  cal <- calibrate(fx$fits, fx$toy[701:800, ], m = 2, seed = 1)
  w <- expect_warning(predict(cal, new), class = "ncam_warning_constant_covariate")
  expect_match(conditionMessage(w), "\\(row 10: b\\)")
})

test_that("predict() of fits by group names the groups of rows without readings or with a missing covariate", {
  fx <- rows_fixture()
  new <- fx$new  # odd rows north, even rows south
  new[c(1, 3, 4), c("sensor_0", "sensor_1", "sensor_2")] <- NA
  new$x1[c(5, 7, 9)] <- NA
  warnings <- list()
  withCallingHandlers(predict(fx$fits, new), warning = function(w) {
    warnings[[length(warnings) + 1L]] <<- w
    invokeRestart("muffleWarning")
  })
  no_readings <- Filter(function(w) inherits(w, "ncam_warning_no_readings"), warnings)[[1]]
  expect_match(conditionMessage(no_readings), "^3 of 100 rows have no sensor reading.*Group site = north: 2 rows.*Group site = south: 1 row\\b")
  missing <- Filter(function(w) inherits(w, "ncam_warning_missing_covariate"), warnings)[[1]]
  expect_match(conditionMessage(missing), "^3 of 100 rows have a missing covariate.*Group site = north: 3 rows")
  expect_no_match(conditionMessage(missing), "site = south")
})

test_that("a log fit by group names rows of newdata with readings <= 0", {
  toy <- simulate_toy(n = 400, seed = 1)
  for (s in c("sensor_0", "sensor_1", "sensor_2")) toy[[s]] <- exp(toy[[s]] / 10)
  toy$site <- rep(c("north", "south"), 200)
  # exp() of the toy's heavy tail puts one south reading of sensor_2 at 1106 beside 6.4 and 14.1,
  # 46 times where they put it: screened as a spike.
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy[1:300, ], by = "site", transform = "log",
                            hidden = 4L, epochs = 3L, seed = 1, threads = 1L),
                    also = c("ncam_warning_clamp", "ncam_warning_spikes"))
  new <- toy[301:400, ]
  new$sensor_2[c(4, 8)] <- 0  # the south rows 2 and 4
  w <- expect_warning(predict(fits, new), class = "ncam_warning_nonpositive_reading")
  expect_match(conditionMessage(w), "sensor_2: 2 rows (4, 8)", fixed = TRUE)
})

test_that("calibrate() of fits by group names rows of its `data`", {
  fx <- rows_fixture()
  d <- fx$toy[701:800, ]
  d$kind[10] <- "b"
  d$sensor_1[c(13, 17)] <- 1e6  # spikes in the north rows 7 and 9
  caught <- caught_warnings(calibrate(fx$fits, d, m = 2, seed = 1))
  classes <- vapply(caught, function(w) class(w)[1], "")
  constant <- caught[[which(classes == "ncam_warning_constant_covariate")]]
  expect_match(conditionMessage(constant), "^Group site = south: .*1 row of `data` has other values \\(row 10: b\\)")
  spikes <- caught[[which(classes == "ncam_warning_spikes")]]
  expect_match(conditionMessage(spikes), "^Group site = north: 2 readings of `data` .*sensor_1 \\(rows 13, 17\\)")
})

test_that("calibrate() of fits by group names rows of `data` with a level not seen in training", {
  toy <- simulate_toy(n = 600, seed = 1)
  toy$site <- rep(c("north", "south"), 300)
  toy$kind <- rep(c("a", "a", "b", "b"), 150)
  fits <- short_fit(ncam_by(rows_formula, data = toy[1:400, ], by = "site", hidden = 4L, epochs = 3L, seed = 1,
                            threads = 1L))
  d <- toy[401:600, ]
  d$kind[c(6, 12)] <- "c"  # the south rows 3 and 6
  w <- expect_warning(calibrate(fits, d, m = 2, seed = 1), class = "ncam_warning_unseen_level")
  expect_match(conditionMessage(w), "^Group site = south: 2 of 100 rows of `data`")
  expect_match(conditionMessage(w), "Column kind: \"c\" in 2 rows: 6, 12", fixed = TRUE)
})

test_that("sensor_drift() of fits by group names rows of newdata", {
  fx <- rows_fixture()
  new <- fx$new
  new$kind[10] <- "b"
  new$date <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * seq_len(nrow(new))
  caught <- caught_warnings(sensor_drift(fx$fits, new))
  constant <- Filter(function(w) inherits(w, "ncam_warning_constant_covariate"), caught)
  expect_length(constant, 1L)
  # Named by its group, as predict()'s warnings are.
  expect_match(conditionMessage(constant[[1]]), "^Group site = south: Covariate kind .*\\(row 10: b\\)")
})

test_that("the fits of ncam_by() name rows of `data`, not of the group's share of it", {
  toy <- simulate_toy(n = 400, seed = 1)
  toy$site <- rep(c("north", "south"), 200)
  south <- which(toy$site == "south")
  bad <- south[5]  # input row 10, the south group's row 5
  fit_by <- function(d) ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, d, by = "site", hidden = 4L, epochs = 3L,
                                seed = 1, threads = 1L)
  missing_x1 <- toy
  missing_x1$x1[c(bad, south[7])] <- NA
  w <- expect_warning(short_fit(fit_by(missing_x1)), class = "ncam_warning_missing_covariate")
  expect_match(conditionMessage(w), sprintf("^Group site = south: 2 rows with a missing covariate .*x1: 2 rows \\(%d, %d\\)",
                                            bad, south[7]))
  expect_identical(w$rows, c(bad, south[7]))  # the field too: rows of `data`
  copied <- toy
  copied[south[6], ] <- copied[bad, ]
  w <- expect_warning(short_fit(fit_by(copied)), class = "ncam_warning_repeated_rows")
  expect_match(conditionMessage(w), sprintf("the first being row %d:", south[6]))
  code <- toy
  code$x1[bad] <- -999
  err <- expect_error(short_fit(fit_by(code)), "Could not fit group site = south")
  expect_match(conditionMessage(err$parent), sprintf("holds -999 on 1 row (%d)", bad), fixed = TRUE)
  text <- toy
  text$sensor_1 <- as.character(text$sensor_1)
  text$sensor_1[bad] <- "n/a?"
  # The north group fails too (numbers stored as text), naming no row; with errors = "skip" each says why.
  err <- expect_error(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, text, by = "site", hidden = 4L, epochs = 3L,
                              seed = 1, threads = 1L, errors = "skip"), "No group could be fitted")
  expect_match(conditionMessage(err), sprintf("site = south: .*the first \"n/a\\?\" \\(row %d\\)", bad))
})

test_that("unit offsets of a fit by group name rows of `data` with a covariate the fit left out", {
  sites <- simulate_colocation(days = 20, sites = 4, seed = 1)
  sites$unit <- sites$site
  sites$site <- NULL
  sites$region <- rep(c("east", "west"), length.out = nrow(sites))
  sites$kind <- 1
  sites$ref[1:20] <- NA
  validation <- seq_len(nrow(sites)) %% 5 == 0
  # A validation row with a reference reading in the west, the only one where kind is not 1:
  # the estimate of the unit offsets, on the labelled rows alone, saw it.
  bad <- which(validation & !is.na(sites$ref) & sites$region == "west")[4]
  sites$kind[bad] <- 2
  caught <- caught_warnings(ncam_by(pa_a + pa_b + opc ~ rh + kind, sites, by = "region", reference = "ref",
                                    unit = "unit", validation = validation, hidden = 4L, epochs = 3L, seed = 1,
                                    threads = 1L))
  constant <- Filter(function(w) inherits(w, "ncam_warning_constant_covariate"), caught)
  expect_length(constant, 1L)
  expect_match(conditionMessage(constant[[1]]),
               sprintf("^Group region = west: .*1 row of `data` has other values \\(row %d: 2\\)", bad))
})
