# Arguments that a function does not take: the rows under another name than the function's
# (calibrate(fit, newdata = x) gave base R's "unused argument (newdata = x)"), and anything in
# the `...` of an S3 method (summary(fit, foo = 2) ignored `foo` while tidy(fit, foo = 2) was an
# error). An unknown argument is an ncam_error, naming the argument meant where it is a known
# misname; print() ignores `...` as print methods do, and update() and plot() pass it on.

flat_message <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))

unused_fixtures <- function() {
  toy <- simulate_toy(n = 300, seed = 4)
  toy$site <- rep(c("a", "b"), 150)
  toy$date <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * seq_len(nrow(toy))
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, hidden = 4L, epochs = 5L, seed = 1, threads = 1),
                   also = c("ncam_warning_clamp", "ncam_warning_validation_not_improved"))
  list(toy = toy, fit = fit)
}

test_that("calibrate() points newdata and new_data to data, and asks for data when none is given", {
  f <- unused_fixtures()
  for (name in c("newdata", "new_data")) {
    args <- stats::setNames(list(f$fit, f$toy[201:300, ]), c("object", name))
    msg <- flat_message(expect_error(do.call(calibrate, args), class = "ncam_error"))
    expect_match(msg, sprintf("Unknown argument `%s`. i Did you mean `data`? `calibrate()` takes the calibration rows as `data`", name),
                 fixed = TRUE)
  }
  expect_snapshot(error = TRUE, calibrate(f$fit, newdata = f$toy[201:300, ]))
  expect_error(calibrate(f$fit), "`data` is required: the calibration rows", class = "ncam_error")
  # Any other argument it does not take, named or not.
  expect_error(calibrate(f$fit, f$toy[201:300, ], levels = 0.8), class = "ncam_error")
  expect_error(calibrate(f$fit, f$toy[201:300, ], "mc_model", 0.9, 5, NULL, 1, "stutz", 1, "extra"),
               class = "ncam_error")
  # Partial matching of the arguments it takes still works.
  cal <- calibrate(f$fit, f$toy[201:300, ], meth = "mc_model", m = 5, seed = 1, threads = 1)
  expect_identical(cal$method, "mc_model")

  fits <- short_fit(ncam_by(sensor_0 + sensor_1 ~ x1, data = f$toy[1:200, ], by = "site", hidden = 4L,
                            epochs = 2L, seed = 1, threads = 1),
                    also = c("ncam_warning_clamp", "ncam_warning_validation_not_improved", "ncam_warning_two_sensors"))
  expect_error(calibrate(fits, newdata = f$toy[201:300, ]), "Did you mean `data`?", fixed = TRUE, class = "ncam_error")
  expect_error(calibrate(fits), "`data` is required", class = "ncam_error")
})

test_that("functions that take newdata point data to it; those that take data point newdata to it", {
  f <- unused_fixtures()
  for (call in list(quote(predict(f$fit, data = f$toy)), quote(sensor_params(f$fit, data = f$toy)),
                    quote(fitted(f$fit, data = f$toy)), quote(sensor_drift(f$fit, data = f$toy)))) {
    msg <- flat_message(expect_error(eval(call), class = "ncam_error"))
    expect_match(msg, "Unknown argument `data`. i Did you mean `newdata`?", fixed = TRUE)
  }
  # model.frame() and model.matrix() take `data`: new_data was pointed to newdata, which they lack.
  for (name in c("newdata", "new_data")) {
    for (generic in list(stats::model.frame, stats::model.matrix)) {
      args <- stats::setNames(list(f$fit, f$toy), c("", name))
      msg <- flat_message(expect_error(do.call(generic, args), class = "ncam_error"))
      expect_match(msg, sprintf("Unknown argument `%s`. i Did you mean `data`?", name), fixed = TRUE)
    }
  }
  expect_snapshot(error = TRUE, select_gap(data = data.frame(r = rnorm(50))))
})

test_that("the readers point file to path", {
  for (reader in list(read_toucan, read_purpleair_aqs, read_purpleair, read_aqs, read_senseurcity)) {
    msg <- flat_message(expect_error(reader(file = "readings.csv"), class = "ncam_error"))
    expect_match(msg, "Unknown argument `file`. i Did you mean `path`?", fixed = TRUE)
  }
  expect_snapshot(error = TRUE, read_toucan(file = "toucan_hourly_merged.csv"))
  expect_error(read_senseurcity_antwerp(path = "antwerp"), "Did you mean `dir`?", fixed = TRUE, class = "ncam_error")
  expect_error(read_toucan("toucan.csv", "o3", "UTC", "extra"), class = "ncam_error")
})

test_that("summary() and the other methods that compute something refuse an argument they do not take", {
  f <- unused_fixtures()
  expect_snapshot(error = TRUE, summary(f$fit, foo = 2))
  expect_snapshot(error = TRUE, summary(f$fit, newdata = f$toy))
  for (method in list(summary, coef, stats::logLik, stats::nobs)) {
    expect_error(method(f$fit, foo = 2), class = "ncam_error")
  }
  # stats' own arguments of nobs() (step() and drop1() give use.fallback) are taken.
  expect_identical(stats::nobs(f$fit, use.fallback = TRUE), stats::nobs(f$fit))
  expect_equal(stats::AIC(f$fit), -2 * as.numeric(stats::logLik(f$fit)) + 2 * attr(stats::logLik(f$fit), "df"))
  expect_equal(stats::BIC(f$fit), -2 * as.numeric(stats::logLik(f$fit)) + log(nrow(f$toy)) * attr(stats::logLik(f$fit), "df"))

  base <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, data = f$toy, method = "factor", anchor = "sensor_0")
  for (method in list(summary, coef, stats::logLik, stats::nobs, stats::vcov, stats::formula, stats::terms)) {
    expect_error(method(base, foo = 2), class = "ncam_error")
  }
  expect_identical(stats::nobs(base, use.fallback = TRUE), base$nobs)
  cal <- suppressWarnings(calibrate(f$fit, f$toy[201:300, ], m = 5, seed = 1, threads = 1))
  expect_error(stats::nobs(cal, foo = 2), class = "ncam_error")
  expect_identical(stats::nobs(cal, use.fallback = TRUE), stats::nobs(cal))
})

test_that("no S3 method of ncam ignores an argument silently, but print(), update() and plot()", {
  skip_if_not_installed("ggplot2")
  f <- unused_fixtures()
  toy <- f$toy
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 ~ x1, data = toy[1:200, ], by = "site", hidden = 4L,
                            epochs = 2L, seed = 1, threads = 1),
                    also = c("ncam_warning_clamp", "ncam_warning_validation_not_improved", "ncam_warning_two_sensors"))
  perf <- suppressMessages(sensor_performance(simulate_colocation(days = 5, sites = 1, seed = 1), "pa_a", "ref"))
  objects <- list(
    ncam = f$fit,
    ncam_baseline = ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, data = toy, method = "factor", anchor = "sensor_0"),
    ncam_calibration = suppressWarnings(calibrate(f$fit, toy[201:300, ], m = 5, seed = 1, threads = 1)),
    ncam_by = fits,
    ncam_by_calibration = suppressWarnings(calibrate(fits, toy[201:300, ], m = 5, seed = 1, threads = 1)),
    ncam_drift = suppressWarnings(sensor_drift(f$fit, toy, period = "day", threads = 1)),
    ncam_gap = select_gap(rnorm(100)),
    ncam_performance = perf
  )
  generic_fn <- function(name) {
    if (name == "autoplot") return(ggplot2::autoplot)
    if (name == "as_tibble") return(tibble::as_tibble)
    get(name, envir = asNamespace("ncam"))
  }
  # print() ignores `...` (as print methods do); update() takes the changes, plot() graphical
  # parameters and as_tibble() tibble's own in it; `[` and as.data.frame() are data frames'.
  passes <- c("print.ncam", "print.ncam_baseline", "print.ncam_calibration", "print.ncam_control",
              "print.ncam_gap", "print.ncam_performance", "print.summary.ncam",
              "print.summary.ncam_baseline", "print.summary.ncam_calibration", "update.ncam",
              "plot.ncam", "plot.ncam_gap", "[.ncam_performance", "as.data.frame.ncam_performance",
              "as_tibble.ncam_performance")
  methods <- getNamespaceInfo("ncam", "S3methods")
  checked <- 0L
  for (i in seq_len(nrow(methods))) {
    generic <- methods[i, 1]
    class <- methods[i, 2]
    method <- paste(generic, class, sep = ".")
    if (method %in% passes) next
    object <- objects[[class]]
    expect_false(is.null(object), label = paste("an object for", method))
    if (is.null(object)) next
    cnd <- tryCatch(suppressWarnings(generic_fn(generic)(object, unknown_argument = 1)), error = function(e) e)
    expect_s3_class(cnd, "ncam_error")
    if (!inherits(cnd, "ncam_error")) message(method, " did not refuse `unknown_argument`")
    checked <- checked + 1L
  }
  expect_gt(checked, 100L)
})
