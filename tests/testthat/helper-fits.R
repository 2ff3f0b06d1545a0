# Shared fixtures: the toy formula and a small, fast, seeded fit.
toy_formula <- sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4

# The fit's call names the caller's data and its formula lives in the caller's frame, as
# when a user calls ncam() directly, so that predict(fit) and fitted(fit) find the data.
quick_fit <- function(data, ...) {
  args <- utils::modifyList(list(formula = toy_formula, data = substitute(data), anchor = "sensor_0",
                                 hidden = c(8L, 8L), epochs = 5L, seed = 1L, threads = 1L),
                            list(...))
  environment(args$formula) <- parent.frame()
  # Five epochs of a small network are neither converged nor clear of the clamp, on purpose.
  short_fit(do.call(ncam, args, envir = parent.frame()), also = "ncam_warning_clamp")
}

# A deliberately short or tiny fit: muffles its "not converged" warning and, for a co-location
# of a few hundred rows, that its credible intervals ignore the calibration's error; also the
# classes in `also`, and nothing else, so that any other warning still reaches the test (and CI).
short_fit <- function(expr, also = character()) {
  suppressWarnings(expr, classes = c("ncam_warning_not_converged", "ncam_warning_few_reference_rows", also))
}

# predict() on rows some of which have no sensor reading, where the warning about them
# (class ncam_warning_no_readings) is not the point: it is tested where it is.
without_reading_warning <- function(expr) suppressWarnings(expr, classes = "ncam_warning_no_readings")
