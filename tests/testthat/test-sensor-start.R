# Where training starts each sensor's gain and offset (ncam_control(sensor_start =)): at the
# anchor's level, or at the sensor's own, from the moments of its readings against the anchor's.

start_readings <- function(n = 300, seed = 3) {
  withr::local_seed(seed)
  truth <- stats::rgamma(n, 4, 0.4)
  list(near = truth + 1 + stats::rnorm(n), far = 40 * truth + 500 + stats::rnorm(n, sd = 20),
       ref = ifelse(seq_len(n) <= 120, truth + stats::rnorm(n, sd = 0.3), NA))
}

test_that("own_level starts each sensor at the moments of its readings against the anchor's", {
  readings <- start_readings()
  train <- seq(2, 300, by = 2)
  scaling <- ncam:::new_scaling(b_shift = 7, b_scale = 3)
  start <- ncam:::sensor_levels(readings, "ref", train, scaling, "own_level")
  # By hand: on the training rows where both read, on the working scale (b - 7) / 3.
  working <- lapply(readings, function(v) (v[train] - 7) / 3)
  both <- !is.na(working$ref)
  by_hand <- function(v) {
    gain <- unname(coef(lm(v[both] ~ working$ref[both]))[2])
    c(gain, mean(v[both]) - gain * mean(working$ref[both]))
  }
  expect_equal(rbind(start$gain, start$offset), cbind(by_hand(working$near), by_hand(working$far), c(1, 0)),
               tolerance = 1e-12, ignore_attr = TRUE)
  # "auto" keeps a sensor within reach (offset within 3, gain within a factor 3) at the anchor's level.
  auto <- ncam:::sensor_levels(readings, "ref", train, ncam:::new_scaling(b_shift = 10, b_scale = 5), "auto")
  expect_identical(c(auto$gain[1], auto$offset[1]), c(1, 0))
  expect_true(auto$gain[2] > 30 && auto$offset[2] > 3)
  expect_null(ncam:::sensor_levels(readings, "ref", train, scaling, "anchor_level"))
  expect_null(ncam:::sensor_levels(readings, NULL, train, scaling, "own_level"))
})

test_that("with fewer than 10 rows beside the anchor, a sensor starts at gain 1 and the difference of means", {
  readings <- start_readings()
  readings$far[1:295] <- NA  # rows 296-300 only, none beside the reference (rows 1-120)
  readings$far[296:300] <- c(1000, 1100, 1300, 1200, 1050)
  start <- ncam:::sensor_levels(readings, "ref", 1:300, ncam:::new_scaling(), "own_level")
  expect_equal(c(start$gain[2], start$offset[2]), c(1, 1130 - mean(readings$ref, na.rm = TRUE)), tolerance = 1e-12)
})

test_that("a sensor's noise does not count as gain: a noisy sensor beside quiet reference rows stays at the anchor's level", {
  withr::local_seed(4)
  truth <- 12 + stats::rnorm(60, sd = 0.3)
  readings <- list(s1 = truth + stats::rnorm(60, sd = 2), ref = truth + stats::rnorm(60, sd = 0.1))
  # The ratio of the sds is far beyond 3; the slope is not.
  expect_gt(sd(readings$s1) / sd(readings$ref), 3)
  start <- ncam:::sensor_levels(readings, "ref", 1:60, ncam:::new_scaling(b_shift = 12, b_scale = 0.3), "auto")
  expect_identical(start$gain, c(1, 1))
  expect_identical(start$offset, c(0, 0))
})

test_that("a fit keeps each sensor's level in its spec, and levels of gain 1 and offset 0 are no levels", {
  d <- colocation
  d$opc <- 1000 * d$opc + 2000
  fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, d, reference = "ref", hidden = 4L, epochs = 3L,
                        seed = 2L, threads = 1L), also = "ncam_warning_clamp")
  # opc at its level: near its slope on the reference over all rows where both read (the fit
  # takes it on its training rows); the other sensors and the reference at the anchor's level.
  expect_equal(fit$spec$sensor_gain[3], unname(coef(lm(opc ~ ref, d))[2]), tolerance = 0.05)
  expect_identical(fit$spec$sensor_gain[-3], c(1, 1, 1))
  expect_identical(fit$spec$sensor_offset[-3], c(0, 0, 0))
  # The spec is plain data: a saved fit predicts as the fit.
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(fit, path)
  predicted <- function(object) {
    suppressWarnings(predict(object, d, interval = "prediction"), classes = "ncam_warning_extrapolation")
  }
  expect_identical(predicted(readRDS(path)), predicted(fit))
  # The engine's training from a spec with gain 1 and offset 0 for every sensor is the
  # training from a spec without levels (as fits saved before them), bit for bit.
  spec <- ncam:::new_model_spec(2, 3, 4L, "anchored", anchor = 3L, lambda_prior = 1e-3)
  expect_identical(spec$sensor_gain, c(1, 1, 1))
  no_levels <- spec[setdiff(names(spec), c("sensor_gain", "sensor_offset"))]
  x <- list(colocation$rh, colocation$temperature)
  b <- list(colocation$pa_a, colocation$pa_b, colocation$ref)
  scaling <- ncam:::new_scaling(c(60, 15), c(15, 8), b_shift = 10, b_scale = 5)
  trained_params <- function(s) {
    state <- ncam:::ncam_trainer_new(s, x, b, scaling, which(!is.na(colocation$ref)) - 1L,
                                     ncam:::new_adam_settings(1e-2, 64L), 3, 1L, "float")
    for (epoch in 1:3) ncam:::ncam_trainer_epoch(state)
    ncam:::ncam_trainer_params(state)
  }
  expect_identical(trained_params(spec), trained_params(no_levels))
})

test_that("the noise clamp, and its warning, act on each sensor's noise relative to its level", {
  # opc as a raw signal, fitted at its own level: its noise log-variance on the working scale
  # sits 2 log(gain) above where the clamp acts. A clamp narrowed to [-3, 0] catches some rows.
  d <- colocation
  d$opc <- 1000 * d$opc + 2000
  range <- c(-3, 0)
  warnings <- list()
  fit <- withCallingHandlers(
    ncam(pa_a + pa_b + opc ~ rh + temperature, d, reference = "ref", hidden = 4L, epochs = 5L, seed = 1L,
         threads = 1L, control = ncam_control(logvar_range = range)),
    warning = function(w) {
      warnings[[length(warnings) + 1L]] <<- w
      invokeRestart("muffleWarning")
    })
  expect_gt(fit$spec$sensor_gain[3], 100)
  expect_identical(fit$nobs, nrow(d))
  # Independently of the engine's report: the rows whose noise variance, relative to the
  # sensor's level on the working scale, lies on a bound (to the rounding of the way back from
  # the user's units; a raw output a float step inside a bound is not clamped).
  post <- ncam:::ncam_posterior_columns(fit, ncam:::new_design(fit, d), as.list(d[c(fit$sensors, "ref")]),
                                       threads = 1L, noise_clamp = TRUE)
  relative <- sweep(log(post$sigma2 / fit$scaling$b_scale^2), 2L, 2 * log(fit$spec$sensor_gain))
  at_high <- abs(relative - range[2]) < 1e-12
  at_low <- abs(relative - range[1]) < 1e-12
  expect_identical(post$noise_clamp, matrix(as.integer(at_high) - as.integer(at_low), nrow(d)))
  # opc's absolute noise is above the clamp on every row, its relative noise not.
  expect_true(all(log(post$sigma2[, 3] / fit$scaling$b_scale^2) > range[2]) && !all(at_high[, 3]))
  # The warning names the sensors at the upper bound on more than half of the rows, with those shares.
  share <- stats::setNames(colMeans(at_high), c("pa_a", "pa_b", "opc", "ref"))
  expect_true(any(share > 0.5) && !any(colMeans(at_low) > 0.5))
  clamp <- Filter(function(w) inherits(w, "ncam_warning_clamp"), warnings)
  expect_length(clamp, 1L)
  msg <- gsub("\\s+", " ", cli::ansi_strip(conditionMessage(clamp[[1]])))
  shown <- cli::format_inline("{.field {names(share)[share > 0.5]}} sits at the upper log-variance clamp on ",
                              "{paste0(round(100 * share[share > 0.5]), '%')} of the rows")
  expect_match(msg, cli::ansi_strip(shown), fixed = TRUE)
})

test_that("sensors within reach of the anchor's level train exactly as from the anchor's level", {
  fit_from <- function(start) {
    short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, colocation, reference = "ref", hidden = 4L,
                   epochs = 3L, seed = 2L, threads = 1L, control = ncam_control(sensor_start = start)))
  }
  expect_identical(fit_from("auto")$params, fit_from("anchor_level")$params)
  expect_false(identical(fit_from("own_level")$params, fit_from("anchor_level")$params))
  expect_identical(fit_from("auto")$settings$control$sensor_start, "auto")
})

test_that("sensors far from the reference's level, or on a raw signal's scale, fit as well as near ones", {
  d <- colocation
  d$ref[d$date >= as.POSIXct("2021-04-29", tz = "UTC")] <- NA
  scored <- is.na(d$ref)
  rmse_of <- function(data) {
    fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, data, reference = "ref", seed = 1L, threads = 1L),
                     also = "ncam_warning_clamp")
    pred <- suppressWarnings(predict(fit, data)$.pred, classes = "ncam_warning_extrapolation")
    sqrt(mean((pred[scored] - colocation$truth[scored])^2))
  }
  near <- rmse_of(d)
  # Every sensor 10 of the reference's sds above it: from the reference's level the fit ended
  # at RMSE 5.8 (1.1 unshifted).
  far <- d
  for (s in c("pa_a", "pa_b", "opc")) far[[s]] <- far[[s]] + 10 * stats::sd(d$ref, na.rm = TRUE)
  expect_lt(rmse_of(far), 1.3 * near)
  # One sensor on another scale and far from the reference's level: 10 x its reading + 2000
  # (RMSE 127 from the reference's level).
  raw <- d
  raw$opc <- 10 * raw$opc + 2000
  expect_lt(rmse_of(raw), 1.3 * near)
  # A raw signal, 1000 x its reading + 2000: with only its gain and offset at its own level,
  # its noise sat beyond the clamp and its covariate effects out of Adam's reach (RMSE 3.28).
  # Fitted relative to its level, it fits as the sensor converted by that level: whatever the
  # scale, the same RMSE.
  raw_1000 <- d
  raw_1000$opc <- 1000 * raw_1000$opc + 2000
  expect_lt(rmse_of(raw_1000), 1.1 * near)
  expect_equal(rmse_of(raw_1000), rmse_of(raw), tolerance = 1e-3)
})
