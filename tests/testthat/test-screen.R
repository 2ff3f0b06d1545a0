# Mistakes in the readings that would fit silently and wrongly, and pathologies of a fit.

screen_toy <- function(n = 3000, seed = 1) simulate_toy(n = n, seed = seed)
small_fit <- function(data, ...) {
  args <- utils::modifyList(list(formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = data,
                                 anchor = "sensor_0", hidden = c(8L, 8L), epochs = 15L, seed = 1L,
                                 threads = 1L), list(...))
  withCallingHandlers(do.call(ncam, args),
                      ncam_warning_not_converged = function(w) invokeRestart("muffleWarning"),
                      ncam_warning_clamp = function(w) invokeRestart("muffleWarning"))
}

test_that("a sensor in other units (x1000) is flagged where the fit takes it at the anchor's level", {
  toy <- screen_toy()
  toy$sensor_1 <- toy$sensor_1 * 1000
  expect_warning(small_fit(toy, control = ncam_control(sensor_start = "anchor_level")), class = "ncam_warning_units")
  expect_warning(small_fit(toy, anchor = NULL, parameterization = "unanchored"), class = "ncam_warning_units")
  # Beside an anchor "auto" fits it at its own level, as the sensor in the anchor's units.
  expect_no_warning(fit <- small_fit(toy), class = "ncam_warning_units")
  expect_gt(fit$spec$sensor_gain[2], 300)
  expect_no_warning(small_fit(screen_toy()), class = "ncam_warning_units")
  # Beside 5 of the anchor's readings there is no slope to take its scale from: its level has
  # gain 1, and it is flagged.
  toy$sensor_0[1501:3000] <- NA
  toy$sensor_1[1:1495] <- NA
  expect_warning(fit <- small_fit(toy), class = "ncam_warning_units")
  expect_identical(fit$spec$sensor_gain[2], 1)
})

test_that("readings near the magnitude limit fit as the same readings in ordinary units", {
  toy <- screen_toy(600)
  huge <- toy
  for (s in c("sensor_0", "sensor_1", "sensor_2")) huge[[s]] <- huge[[s]] * 1e140
  # Squares and products of 1e140 overflow double precision: the copy check once crashed here.
  fit <- small_fit(toy)
  fit_huge <- small_fit(huge)
  expect_equal(predict(fit_huge, huge)$.pred / 1e140, predict(fit, toy)$.pred, tolerance = 1e-6)
  twin <- huge
  twin$sensor_1 <- 2 * twin$sensor_0 + 1e141
  expect_warning(small_fit(twin), "sensor_1 = 2 x sensor_0 \\+ 1e\\+141", class = "ncam_warning_duplicate_sensor")
})

test_that("a duplicated sensor column, or a copy shifted by a constant, is flagged", {
  toy <- screen_toy()
  toy$sensor_2 <- toy$sensor_1
  expect_warning(small_fit(toy), "identical", class = "ncam_warning_duplicate_sensor")
  toy$sensor_2 <- toy$sensor_1 + 5
  expect_warning(small_fit(toy), "constant offset", class = "ncam_warning_duplicate_sensor")
  expect_no_warning(small_fit(screen_toy()), class = "ncam_warning_duplicate_sensor")
})

test_that("a copy in other units (an exact linear function of another sensor) is flagged", {
  toy <- screen_toy()
  toy$sensor_2 <- 2 * toy$sensor_1 + 3
  expect_warning(small_fit(toy), "sensor_2 = 2 x sensor_1 + 3", class = "ncam_warning_duplicate_sensor", fixed = TRUE)
  toy$sensor_2 <- -0.5 * toy$sensor_1
  expect_warning(small_fit(toy), "sensor_2 = -0.5 x sensor_1 + 0", class = "ncam_warning_duplicate_sensor",
                 fixed = TRUE)
  # On readings far from zero beside their spread, found without cancellation.
  toy$sensor_2 <- 1e6 + 1.5 * toy$sensor_1
  toy$sensor_1 <- toy$sensor_1 + 1e6
  expect_warning(small_fit(toy, anchor = "sensor_1"), "exact linear functions", class = "ncam_warning_duplicate_sensor")
  # A copy with a little noise of its own (correlation 0.9999) is a sensor, not a copy.
  toy <- screen_toy()
  toy$sensor_2 <- 2 * toy$sensor_1 + stats::rnorm(nrow(toy), sd = 0.01 * stats::sd(toy$sensor_1))
  expect_no_warning(small_fit(toy), class = "ncam_warning_duplicate_sensor")
})

test_that("pair sums over several blocks of rows equal the direct sums", {
  set.seed(3)
  n <- 140000  # three blocks of 65536 rows
  x <- 1e6 + stats::rnorm(n)
  y <- 2 * x + stats::rnorm(n)
  x[c(5, 70000)] <- NA
  y[c(9, 130000)] <- NA
  both <- !is.na(x) & !is.na(y)
  s <- pair_sums(list(x = x, y = y), seq_len(n))
  expect_identical(s$n[1, 2], sum(both) + 0)
  expect_identical(s$n[1, 1], sum(!is.na(x)) + 0)
  # Centred on each sensor's mean and scaled by its largest distance from it.
  cx <- (x[both] - mean(x, na.rm = TRUE)) / max(abs(x - mean(x, na.rm = TRUE)), na.rm = TRUE)
  cy <- (y[both] - mean(y, na.rm = TRUE)) / max(abs(y - mean(y, na.rm = TRUE)), na.rm = TRUE)
  expect_equal(c(s$sx[1, 2], s$sx[2, 1]), c(sum(cx), sum(cy)), tolerance = 1e-10)
  expect_equal(c(s$sxx[1, 2], s$sxx[2, 1]), c(sum(cx^2), sum(cy^2)), tolerance = 1e-10)
  expect_equal(s$sxy[1, 2], sum(cx * cy), tolerance = 1e-10)
})

test_that("sensors sharing only a few collinear rows are not called copies", {
  toy <- screen_toy()
  # sensor_2 replaces sensor_1 with 3 rows of overlap that happen to lie on a line.
  toy$sensor_1[1001:nrow(toy)] <- NA
  toy$sensor_2[1:997] <- NA
  toy$sensor_2[998:1000] <- 14 - 2 * toy$sensor_1[998:1000]
  expect_no_warning(small_fit(toy), class = "ncam_warning_duplicate_sensor")
})

test_that("a sensor read on too few rows beside the anchor, directly or through others, is flagged", {
  toy <- screen_toy()
  expect_no_warning(small_fit(toy), class = "ncam_warning_unlinked_sensor")
  # The anchor reads on the first half, the other two on the second half only.
  half <- seq_len(nrow(toy) / 2)
  apart <- toy
  apart$sensor_0[-half] <- NA
  apart$sensor_1[half] <- NA
  apart$sensor_2[half] <- NA
  expect_warning(small_fit(apart), "Sensors sensor_1 and sensor_2 read on fewer than 3 training rows together with the anchor sensor_0",
                 class = "ncam_warning_unlinked_sensor", fixed = TRUE)
  # sensor_2 shares rows with sensor_1 only, and sensor_1 with the anchor: linked through sensor_1.
  chain <- toy
  chain$sensor_2[half] <- NA
  chain$sensor_0[-half] <- NA
  expect_no_warning(small_fit(chain), class = "ncam_warning_unlinked_sensor")
  # Two shared rows are not enough to tie a sensor to the anchor's scale; three are.
  apart$sensor_1[1:2] <- toy$sensor_1[1:2]
  expect_warning(small_fit(apart), "Sensors sensor_1 and sensor_2 read on fewer than 3", class = "ncam_warning_unlinked_sensor")
  apart$sensor_1[3] <- toy$sensor_1[3]
  expect_no_warning(small_fit(apart), class = "ncam_warning_unlinked_sensor")
})

test_that("readings beyond double precision's range are refused, naming the sensor", {
  toy <- screen_toy()
  big <- toy
  big$sensor_1 <- big$sensor_1 * 1e300
  expect_error(small_fit(big), "sensor_1.*too large")
  tiny <- toy
  tiny$sensor_1 <- tiny$sensor_1 * 1e-300
  expect_error(small_fit(tiny), "sensor_1.*too small")
})

test_that("readings that differ but whose spread underflows to 0 are refused as the baselines do", {
  toy <- screen_toy(n = 300)
  toy$sensor_1 <- c(rep(1e-200, 299), 2e-200)
  expect_identical(ncam:::robust_spread(toy$sensor_1), 0)  # the spread underflows, the readings differ
  fit_error <- tryCatch(small_fit(toy, validation = 0), error = conditionMessage)
  expect_match(fit_error, "Sensor column sensor_1 varies by only 0", fixed = TRUE)
  # Word for word the baselines' error.
  expect_error(ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, toy, "mean"), fit_error, fixed = TRUE)
})

test_that("a sensor with a handful of readings is flagged", {
  toy <- screen_toy()
  toy$sensor_2[-(1:10)] <- NA
  expect_warning(small_fit(toy), "sensor_2` \\((9|10)\\)",
                 class = "ncam_warning_few_readings")
})

test_that("two sensors without a reference are flagged: their noise split is not identified", {
  toy <- screen_toy(n = 600)
  expect_warning(small_fit(toy, formula = sensor_0 + sensor_1 ~ x1, epochs = 2L), "sensor_0.*sensor_1",
                 class = "ncam_warning_two_sensors")
  expect_no_warning(small_fit(toy, epochs = 2L), class = "ncam_warning_two_sensors")
  toy$ref <- ifelse(seq_len(nrow(toy)) <= 200, toy$sensor_2, NA)
  expect_no_warning(small_fit(toy, formula = sensor_0 + sensor_1 ~ x1, anchor = NULL, reference = "ref", epochs = 2L),
                    class = "ncam_warning_two_sensors")
})

test_that("rare gross spikes are screened out and cannot wreck the fit", {
  toy <- simulate_toy(n = 6000, seed = 3)
  rows <- split(seq_len(nrow(toy)), rep(c("train", "test"), c(4500, 1500)))
  train <- toy[rows$train, ]
  test <- toy[rows$test, ]
  spiked <- train
  hit <- c(100, 900, 1800, 2700, 3600)
  spiked$sensor_0[hit] <- spiked$sensor_0[hit] * 1e4
  rmse <- function(fit) sqrt(mean((predict(fit, test)$.pred - test$truth)^2))
  clean <- small_fit(train)
  expect_warning(screened <- small_fit(spiked),
                 "5 readings left out of training as gross outliers: sensor_0 \\(rows 100, 900, 1800, 2700, 3600\\)",
                 class = "ncam_warning_spikes")
  expect_identical(unname(screened$n_screened), c(5L, 0L, 0L))
  # A fit that keeps them says which readings the default screen would leave out; one screened
  # more leniently too, and neither does on clean data.
  expect_warning(raw <- small_fit(spiked, control = ncam_control(screen_outliers = Inf)),
                 "5 readings kept .*screen_outliers = 50.*sensor_0 \\(rows 100, 900, 1800, 2700, 3600\\)",
                 class = "ncam_warning_spikes_kept")
  spiked$sensor_1[50] <- spiked$sensor_1[50] * 1e4
  expect_warning(small_fit(spiked, control = ncam_control(screen_outliers = 1e6), epochs = 1L),
                 "6 readings kept .*sensor_0 \\(rows 100, 900, 1800, 2700, 3600\\); sensor_1 \\(row 50\\)",
                 class = "ncam_warning_spikes_kept")
  expect_no_warning(small_fit(train, control = ncam_control(screen_outliers = Inf), epochs = 1L),
                    class = "ncam_warning_spikes_kept")
  expect_lt(rmse(screened), 1.1 * rmse(clean))
  expect_gt(rmse(raw), 2 * rmse(clean))
  # clean data lose nothing to the screen
  expect_identical(unname(clean$n_screened), c(0L, 0L, 0L))
})

test_that("ncam()'s warning on readings screened out names their first rows; under ncam_by() rows of its data", {
  d <- simulate_colocation(days = 30, seed = 1)
  d$pa_b[c(20, 200, 300, 400, 500, 600, 700)] <- 9999  # a logger's missing-value code
  d$opc[50] <- 9999
  fit_of <- function(data) {
    short_fit(ncam(pa_a + pa_b + opc ~ rh, data, reference = "ref", hidden = 4L, epochs = 2L, seed = 1L, threads = 1L))
  }
  expect_snapshot(invisible(fit_of(d)))
  # Under ncam_by() the rows of the second half's group are numbered as rows of `d`.
  expect_identical(nrow(d), 720L)
  d$half <- rep(1:2, each = 360)
  expect_snapshot(invisible(short_fit(
    ncam_by(pa_a + pa_b + opc ~ rh, d, by = "half", reference = "ref", hidden = 4L, epochs = 2L, seed = 1L, threads = 1L)
  )))
})

test_that("a log fit screens its readings as read, and keeps their medians and MADs on the fitted rows", {
  d <- simulate_colocation(days = 30, seed = 2)
  readings <- c("pa_a", "pa_b", "opc", "ref")
  for (s in readings) d[[s]][which(d[[s]] <= 0)] <- NA
  d$pa_b[c(20, 200)] <- 9999  # a logger's missing-value code
  expect_warning(fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh, d, reference = "ref", transform = "log", hidden = 4L,
                                       epochs = 2L, seed = 1L, threads = 1L)),
                 "2 readings left out of training as gross outliers: pa_b \\(rows 20, 200\\)", class = "ncam_warning_spikes")
  fitted_rows <- rowSums(!is.na(d[readings])) > 0
  for (s in readings) {
    as_read <- d[[s]][fitted_rows]
    expect_equal(fit$spike_scales$centre[[s]], stats::median(as_read, na.rm = TRUE), tolerance = 1e-12)
    expect_equal(fit$spike_scales$spread[[s]], stats::mad(as_read, na.rm = TRUE), tolerance = 1e-12)
  }
  expect_identical(fit$spike_scales$on, "readings")
})

test_that("predict() treats new gross outliers as missing by the training rule, naming the rows", {
  toy <- simulate_toy(n = 3000, seed = 3)
  fit <- small_fit(toy[1:2500, ])
  new <- toy[2501:2510, ]
  faulty <- missing <- new
  faulty$sensor_1[c(2, 7)] <- -999  # a missing-value code
  faulty$sensor_2[4] <- 1e4         # a stuck channel
  missing$sensor_1[c(2, 7)] <- NA
  missing$sensor_2[4] <- NA
  expect_warning(screened <- predict(fit, faulty), "sensor_1 \\(rows 2, 7\\); sensor_2 \\(row 4\\)",
                 class = "ncam_warning_spikes")
  expect_identical(screened, predict(fit, missing))
  expect_identical(screened$.n_sensors[c(2, 4, 7)], c(2L, 2L, 2L))
  # the sensor model does not depend on the readings: sensor_params() neither screens nor warns
  expect_no_warning(params <- sensor_params(fit, faulty))
  expect_identical(params, sensor_params(fit, missing))
  # a pollution event that every sensor sees is the air, not a spike
  event <- new
  event[5, c("sensor_0", "sensor_1", "sensor_2")] <- event[5, c("sensor_0", "sensor_1", "sensor_2")] * 20
  suppressWarnings(expect_no_warning(seen <- predict(fit, event), class = "ncam_warning_spikes"),
                   classes = "ncam_warning_extrapolation")
  expect_identical(seen$.n_sensors[5], 3L)
  # a fit without screening keeps such readings in its estimates too
  unscreened <- small_fit(toy[1:2500, ], control = ncam_control(screen_outliers = Inf))
  kept <- suppressWarnings(expect_no_warning(predict(unscreened, faulty), class = "ncam_warning_spikes"),
                           classes = "ncam_warning_extrapolation")
  expect_gt(abs(kept$.pred[2] - predict(unscreened, missing)$.pred[2]), 1)
})

test_that("a fit still improving at its last epoch says it has not converged", {
  toy <- screen_toy()
  expect_warning(fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, anchor = "sensor_0", hidden = 4L,
                             epochs = 3L, seed = 1L, threads = 1L, control = ncam_control(logvar_range = c(-12, 4))),
                 class = "ncam_warning_not_converged")
  expect_equal(fit$best_epoch, 3L)
})

test_that("a learning rate that makes training unstable is named", {
  toy <- screen_toy()
  fit_with <- function(learn_rate) {
    withCallingHandlers(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, anchor = "sensor_0", hidden = c(8L, 8L),
                             epochs = 20L, learn_rate = learn_rate, seed = 1L, threads = 1L),
                        ncam_warning_clamp = function(w) invokeRestart("muffleWarning"),
                        ncam_warning_not_converged = function(w) invokeRestart("muffleWarning"))
  }
  expect_warning(fit_with(10), "never improved", class = "ncam_warning_unstable")
  expect_no_warning(fit_with(1e-3), class = "ncam_warning_unstable")
})

test_that("validation that never improves while training does is told apart from an explosion", {
  # check_training() on a fit's record: training NLL fell from 11.4, validation never beat 9.13.
  record <- function(train_nll, n_validation) {
    list(settings = list(epochs = 20L, learn_rate = 1e-3, control = list(logvar_range = c(-8, 8))),
         best_epoch = 1L, epochs_run = 20L, n_validation = n_validation,
         history = data.frame(epoch = 1:20, train_nll = train_nll))
  }
  trained <- list(initial_nll = 9.13, best_nll = 9.137, initial_train_nll = 11.42)
  unclamped <- matrix(0, 2, 3, dimnames = list(c("low", "high"), c("a", "b", "c")))
  expect_warning(ncam:::check_training(record(seq(11.3, 10.98, length.out = 20), 3L), trained, unclamped),
                 "3 validation rows judge the fit", class = "ncam_warning_validation_not_improved")
  # Training rose too: the loss exploded.
  expect_warning(ncam:::check_training(record(seq(11.5, 40, length.out = 20), 3L), trained, unclamped),
                 "exploded", class = "ncam_warning_unstable")
})

test_that("a validation that never improves names the training NLL of the untrained model", {
  # A learning rate of 1e-20 leaves the weights as drawn, so the fit keeps the untrained model:
  # the NLL the warning gives for it before the first epoch is its mean NLL on the training rows,
  # here from the posterior's per-row NLL in double precision.
  toy <- screen_toy(300)
  validation <- seq_len(300) %% 10 == 0
  w <- expect_warning(fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, validation = validation, epochs = 1L,
                                  hidden = 8L, learn_rate = 1e-20, seed = 1L, threads = 1L),
                      "while the training NLL fell from", class = "ncam_warning_validation_not_improved")
  nll <- ncam:::ncam_predict_cpp(fit$spec, fit$params, list(x1 = toy$x1), as.list(toy[c("sensor_0", "sensor_1", "sensor_2")]),
                                 fit$scaling, 1L, "double", "posterior", FALSE)$nll
  message <- gsub("\\s+", " ", conditionMessage(w))  # as wrapped to the console's width
  told <- regmatches(message, regexec("training NLL fell from ([0-9.]+) to ([0-9.]+)", message))[[1]]
  expect_identical(as.numeric(told[2]), signif(mean(nll[!validation]), 4))
  expect_identical(as.numeric(told[3]), signif(min(fit$history$train_nll), 4))
})

test_that("noise levels held at the lower clamp on most rows are printed, not warned about", {
  set.seed(4)
  n <- 2000
  truth <- rnorm(n, 30, 10)
  # s2 reads the truth to 0.001: its noise is far below the clamp's floor (0.08 x the spread)
  d <- data.frame(s1 = truth + rnorm(n, 0, 1), s2 = truth + rnorm(n, 0, 0.001), s3 = truth + rnorm(n, 0, 1),
                  x = rnorm(n))
  expect_no_warning(fit <- ncam(s1 + s2 + s3 ~ x, d, hidden = 4L, epochs = 100L, learn_rate = 1e-2, seed = 1L,
                                threads = 1L))
  # independent check: the fraction of rows whose s2 noise variance equals the clamp's lower end
  heads <- sensor_params(fit, d)
  floor_var <- exp(fit$settings$control$logvar_range[1]) * fit$scaling$b_scale^2
  s2 <- heads$sigma[heads$sensor == "s2"]
  at_floor <- mean(abs(s2^2 / floor_var - 1) < 1e-4)
  expect_gt(at_floor, 0.5)
  printed <- paste(cli::ansi_strip(utils::capture.output(print(fit))), collapse = " ")
  expect_match(printed, sprintf("Noise at the lower clamp of `logvar_range` .*s2 %d%%.* of rows", round(100 * at_floor)))
})

test_that("noise levels held at the upper clamp on most rows are warned about, with a wider range", {
  record <- list(settings = list(epochs = 20L, learn_rate = 1e-3, control = list(logvar_range = c(-5, 4))),
                 best_epoch = 10L, epochs_run = 20L, n_validation = 3L,
                 history = data.frame(epoch = 1:20, train_nll = seq(11, 10, length.out = 20)))
  trained <- list(initial_nll = 12, best_nll = 9, initial_train_nll = 12)
  shares <- matrix(c(0.9, 0, 0, 0.8, 0, 0.2), 2, 3, dimnames = list(c("low", "high"), c("a", "b", "c")))
  expect_warning(ncam:::check_training(record, trained, shares),
                 "noise level of b sits at the upper log-variance clamp on 80%.*logvar_range = c\\(-5, 8\\)",
                 class = "ncam_warning_clamp")
  # At the lower end (a, 90 %) nothing is said here: print() of the fit says it.
  shares["high", "b"] <- 0
  expect_no_warning(ncam:::check_training(record, trained, shares))
})

test_that("`~ .` refuses identifiers and single-valued labels, and never takes the reference or a date-time", {
  toy <- screen_toy(n = 500)
  d <- toy[c("sensor_0", "sensor_1", "x1", "x2")]
  d$date <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * seq_len(nrow(d))
  d$id <- sprintf("row%03d", seq_len(nrow(d)))
  d$units <- "ug/m3"
  # The date-time is not among the columns of `.` (test-formula-dot.R).
  expect_error(ncam(sensor_0 + sensor_1 ~ ., d, epochs = 2L, threads = 1L),
               "would use 2 columns.*`id` \\(500 distinct values\\).*`units` \\(a single value\\)")
  # Columns the formula takes out again are not used, so not refused; the error says how.
  expect_error(ncam(sensor_0 + sensor_1 ~ . - units, d, epochs = 2L, threads = 1L),
               "would use 1 column.*`id`.*~ \\. - id")
  left_out <- short_fit(ncam(sensor_0 + sensor_1 ~ . - date - id - units, d, hidden = 4L, epochs = 2L, seed = 1L,
                             threads = 1L), also = "ncam_warning_two_sensors")
  expect_setequal(left_out$covariates, c("x1", "x2"))
  # update() expands the fitted `.` as lm's does, rather than failing on it.
  fewer <- short_fit(update(left_out, formula. = . ~ . - x2), also = "ncam_warning_two_sensors")
  expect_identical(fewer$covariates, "x1")
  # Named, a bare date-time is refused too; inside a function it is taken as meant.
  expect_error(ncam(sensor_0 + sensor_1 ~ x1 + date, d, epochs = 2L, threads = 1L), "date.*is a date-time")
  d$day <- as.Date(d$date)
  expect_error(ncam(sensor_0 + sensor_1 ~ day, d, epochs = 2L, threads = 1L), "day.*is a date-time")
  # A duration (sensor age) is not a date-time, but its number follows its units.
  d$age <- as.difftime(seq_len(nrow(d)), units = "hours")
  age_err <- expect_error(ncam(sensor_0 + sensor_1 ~ x1 + age, d, epochs = 2L, threads = 1L), class = "ncam_error")
  expect_match(gsub("\\s+", " ", cli::ansi_strip(conditionMessage(age_err))),
               "Covariate age is a duration \\(<difftime>, in hours\\): its number would change with its units.*as.numeric\\(age, units = \"hours\"\\)")
  d$age <- NULL
  trend <- short_fit(ncam(sensor_0 + sensor_1 ~ x1 + as.numeric(date), d, hidden = 4L, epochs = 2L,
                          seed = 1L, threads = 1L), also = "ncam_warning_two_sensors")
  expect_length(trend$covariates, 2L)
  d2 <- toy[c("sensor_0", "sensor_1", "x1", "x2")]
  d2$ref <- ifelse(seq_len(nrow(d2)) <= 100, toy$truth[seq_len(nrow(d2))], NA)
  fit <- short_fit(ncam(sensor_0 + sensor_1 ~ ., d2, reference = "ref", hidden = 4L, epochs = 2L,
                        seed = 1L, threads = 1L))
  expect_setequal(fit$covariates, c("x1", "x2"))
})

test_that("a user interrupt during training reaches R as an interrupt, not an error try() swallows", {
  caught <- tryCatch({
    try(suppressMessages(signal_interrupt(7L)), silent = TRUE)
    "swallowed"
  }, interrupt = function(e) "interrupt")
  expect_identical(caught, "interrupt")
})

test_that("predict() on groups and files names screened readings by rows of the whole input", {
  toy <- simulate_toy(n = 1200, seed = 3)
  toy$site <- rep(c("north", "south"), times = 600)
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy[1:1000, ], by = "site", hidden = 4L,
                            epochs = 50L, seed = 1, threads = 1), also = "ncam_warning_clamp")
  new <- toy[1001:1020, ]
  new$sensor_1[c(2, 4, 9)] <- -999
  expect_warning(predict(fits, new), "3 readings of `newdata` treated as missing as gross outliers, as in training: sensor_1 \\(rows 2, 4, 9\\)",
                 class = "ncam_warning_spikes")
  fit <- small_fit(toy[1:1000, ])
  file <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(new, file, row.names = FALSE)
  expect_warning(predict_chunks(fit, file, chunk_rows = 5, verbose = FALSE),
                 "sensor_1 \\(rows 2 of .*csv, 4 of .*csv, 9 of .*csv\\)", class = "ncam_warning_spikes")
})

test_that("rows of the data repeated in every column are named in a warning, as duplicated() finds them", {
  toy <- simulate_toy(n = 300, seed = 9)
  toy$day <- seq_len(300)
  copied <- rbind(toy, toy[c(10, 20), ])
  expect_identical(ncam:::repeated_rows(copied), which(duplicated(copied)))
  expect_warning(short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, copied, hidden = 4L, epochs = 2L, seed = 1, threads = 1)),
                 "2 rows of `data` repeat an earlier row in every column, the first being row 301",
                 class = "ncam_warning_repeated_rows")
  # the same readings on another day are not copies
  other_day <- rbind(toy, transform(toy[c(10, 20), ], day = c(301, 302)))
  expect_identical(ncam:::repeated_rows(other_day), integer(0))
  expect_no_warning(short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, other_day, hidden = 4L, epochs = 2L, seed = 1,
                                   threads = 1)), class = "ncam_warning_repeated_rows")
  # NA matches NA, text and factors compare as text
  mixed <- data.frame(a = c(1, 1, NA, NA, 2), b = c("x", "x", NA, NA, "y"), f = factor(c("u", "u", "v", "v", "u")))
  expect_identical(ncam:::repeated_rows(mixed), which(duplicated(mixed)))
  # times by their instants: fractions of seconds count, a POSIXlt column is compared too
  stamps <- as.POSIXct("2024-01-01", tz = "UTC") + c(0, 0.5, 0.5)
  expect_identical(ncam:::repeated_rows(data.frame(t = stamps, a = 1)), 3L)
  expect_identical(ncam:::repeated_rows(tibble::tibble(t = as.POSIXlt(stamps), a = 1)), 3L)
  # rows left out of training (no reading) are not counted
  blank <- toy
  blank[c(5, 9), c("sensor_0", "sensor_1", "sensor_2")] <- NA
  blank$x1[c(5, 9)] <- 0.5
  blank$day[c(5, 9)] <- 0
  expect_no_warning(suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, blank, hidden = 4L, epochs = 2L, seed = 1,
                                          threads = 1), classes = "ncam_warning_not_converged"),
                    class = "ncam_warning_repeated_rows")
})

test_that("the spike screen's quick pre-filter loses no reading the standardised rule flags", {
  # A reading one rounding step beyond the threshold of a sensor with a large median and a tiny
  # spread: within the pre-filter's margin, yet beyond the threshold when standardised.
  centre <- 1000
  spread <- 1e-5
  threshold <- 4
  edge <- centre + threshold * spread * (1 - 1e-9)
  near <- edge + (-3:3) * edge * .Machine$double.eps
  x <- near[(near - centre) / spread > threshold & !(near > edge)][1]
  expect_false(is.na(x))
  screened <- ncam:::screen_spikes(list(a = c(x, centre, centre), b = c(0, 0, 0), c = c(0, 0, 0)), 1:3, threshold,
                                   list(centre = c(a = centre, b = 0, c = 0), spread = c(a = spread, b = 1, c = 1)))
  expect_identical(unname(screened$counts[["a"]]), 1L)
})
