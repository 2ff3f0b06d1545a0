# Every fitted object records the ncam version and object format that made it; one of a
# newer format than the installed ncam reads is refused, one made before the fields existed
# is read as before.

installed_version <- utils::packageDescription("ncam")$Version

# The object as a newer ncam would write it: a later version and the next format.
from_newer_ncam <- function(object) {
  if (is.data.frame(object)) {
    attr(object, "object_format") <- attr(object, "object_format") + 1L
    attr(object, "ncam_version") <- "99.1.0"
  } else {
    object$object_format <- object$object_format + 1L
    object$ncam_version <- "99.1.0"
  }
  object
}

newer_error <- "was made by ncam 99.1.0, in object format 3; this ncam \\(.*\\) reads formats up to 2"

test_that("ncam(), ncam_by() and calibrate() record the installed version and format 2", {
  toy <- simulate_toy(300, seed = 1)
  toy$site <- rep(c("a", "b"), each = 150)
  fit <- quick_fit(toy)
  expect_identical(fit$ncam_version, installed_version)
  expect_identical(fit$object_format, 2L)
  cal <- calibrate(fit, toy[1:100, ], method = "mc_model", m = 5, seed = 1)
  expect_identical(cal$ncam_version, installed_version)
  expect_identical(cal$object_format, 2L)
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, by = "site", hidden = 4L, epochs = 2L, seed = 1))
  expect_identical(attr(fits, "ncam_version"), installed_version)
  expect_identical(attr(fits, "object_format"), 2L)
  expect_identical(fits$fit[[1]]$object_format, 2L)
})

test_that("an object of a newer format is refused by every method, naming the version that made it", {
  toy <- simulate_toy(300, seed = 1)
  toy$site <- rep(c("a", "b"), each = 150)
  fit <- quick_fit(toy)
  newer <- from_newer_ncam(fit)
  expect_error(predict(newer, toy), newer_error)
  expect_error(predict(newer, toy), "Update ncam to use it")
  expect_error(print(newer), newer_error)
  expect_error(summary(newer), newer_error)
  expect_error(coef(newer), newer_error)
  expect_error(nobs(newer), newer_error)
  expect_error(logLik(newer), newer_error)
  expect_error(plot(newer), newer_error)
  expect_error(fitted(newer, toy), newer_error)
  expect_error(residuals(newer, toy), newer_error)
  expect_error(sensor_params(newer, toy), newer_error)
  expect_error(tidy(newer), newer_error)
  expect_error(glance(newer), newer_error)
  expect_error(augment(newer, toy), newer_error)
  expect_error(calibrate(newer, toy[1:100, ], m = 5, seed = 1), newer_error)
  cal <- calibrate(fit, toy[1:100, ], method = "mc_model", m = 5, seed = 1)
  expect_error(predict(from_newer_ncam(cal), toy), newer_error)
  expect_error(print(from_newer_ncam(cal)), newer_error)
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, by = "site", hidden = 4L, epochs = 2L, seed = 1))
  expect_error(predict(from_newer_ncam(fits), toy), newer_error)
  expect_error(tidy(from_newer_ncam(fits)), newer_error)
  # A table of this format holding a group's model of a newer one.
  fits$fit[[2]] <- from_newer_ncam(fits$fit[[2]])
  expect_error(predict(fits, toy), newer_error)
  # A format that is no number is a damaged object, not a newer one.
  damaged <- fit
  damaged$object_format <- "two"
  expect_error(predict(damaged, toy), "its .?object_format.? is not a number")
})

test_that("objects saved before the version and format were recorded work as before", {
  toy <- simulate_toy(300, seed = 1)
  toy$site <- rep(c("a", "b"), each = 150)
  fit <- quick_fit(toy)
  older <- fit
  older$ncam_version <- NULL
  older$object_format <- NULL
  # Format 1 had no noise log-variance shift in its spec: the engine reads none as 0.
  older$spec$logvar_shift <- NULL
  expect_false(any(c("ncam_version", "object_format") %in% names(older)))
  expect_identical(predict(older, toy, interval = "credible"), predict(fit, toy, interval = "credible"))
  expect_identical(fitted(older), fitted(fit))
  expect_identical(tidy(older), tidy(fit))
  cal <- calibrate(fit, toy[1:100, ], method = "mc_model", m = 5, seed = 1)
  older_cal <- cal
  older_cal$ncam_version <- NULL
  older_cal$object_format <- NULL
  older_cal$model <- older
  expect_identical(predict(older_cal, toy), predict(cal, toy))
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, by = "site", hidden = 4L, epochs = 2L, seed = 1))
  older_fits <- fits
  attr(older_fits, "ncam_version") <- NULL
  attr(older_fits, "object_format") <- NULL
  expect_identical(predict(older_fits, toy), predict(fits, toy))
})

test_that("baselines record the version and format, and are refused when newer", {
  toy <- simulate_toy(300, seed = 1)
  for (method in c("mean", "ivw", "ppca", "kalman", "factor")) {
    bl <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, toy, method)
    expect_identical(bl$ncam_version, installed_version)
    expect_identical(bl$object_format, 2L)
    newer <- from_newer_ncam(bl)
    expect_error(predict(newer, toy), newer_error)
    expect_error(augment(newer, toy), newer_error)
    expect_error(print(newer), newer_error)
    expect_error(tidy(newer), newer_error)
    expect_error(glance(newer), newer_error)
    expect_error(nobs(newer), newer_error)
    older <- bl
    older$ncam_version <- NULL
    older$object_format <- NULL
    expect_identical(predict(older, toy), predict(bl, toy))
  }
})

test_that("a table of fits by group refuses a group's model of a newer format in every method", {
  toy <- simulate_toy(300, seed = 1)
  toy$site <- rep(c("a", "b"), each = 150)
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, by = "site", hidden = 4L, epochs = 2L, seed = 1))
  fits$fit[[2]] <- from_newer_ncam(fits$fit[[2]])
  expect_error(glance(fits), newer_error)
  skip_if_not_installed("ggplot2")
  expect_error(ggplot2::autoplot(fits, "loss"), newer_error)
})
