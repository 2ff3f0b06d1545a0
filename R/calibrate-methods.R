# The standard generics on a calibration from calibrate(): nobs() counts its rows; the others,
# which stats would answer with NULL or an error about a missing method or call, say what to
# use instead. A calibration keeps its fit, its scores and settings, but neither its rows nor
# fitted values of its own: fitted() could mean the fit's training rows or the calibration rows.

#' Other methods of a calibration
#'
#' `nobs()` of a calibration from [calibrate()] is the number of calibration rows that gave
#' scores (`glance()`'s `n_calibration`, plus the ECDF holdout for `correction = "ecdf"`).
#' `fitted()`, `residuals()`, `coef()`, `logLik()`, `update()`, `plot()`, `model.frame()`,
#' `terms()`, `formula()`, `vcov()` and `sigma()` are errors saying what to use instead: a
#' calibration changes no fitted value (it widens or narrows the intervals), keeps no rows and
#' no formula of its own, and has no parameters but its conformal multipliers
#' ([tidy.ncam_calibration()]) and no likelihood. Its fit is `cal$model`, whose methods these
#' are ([fitted.ncam()], [coef.ncam()], ...); `calibrate()` again gives another calibration
#' (`update()`'s error gives that call with the calibration's settings: method, level, the
#' reference column of `"split"`, and the Monte Carlo settings), and
#' [autoplot.ncam_calibration()] draws the calibrated intervals.
#'
#' @param object,x A calibration from [calibrate()].
#' @param y Unused.
#' @param ... Must be empty for `nobs()`: an argument it does not know is an error. The others
#'   are errors whatever they are given.
#' @param use.fallback For `nobs()`: not used, as the number of rows is always known (the
#'   argument of [stats::nobs()]).
#' @return `nobs()`: an integer. The others signal an error of class `ncam_error`.
#' @seealso [predict.ncam_calibration()], [ncam-tidy] for `summary()`, `tidy()`, `glance()` and
#'   `augment()` of a calibration.
#' @examples
#' toy <- simulate_toy(300, seed = 2)
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ 1, data = toy[1:200, ], hidden = integer(0),
#'             epochs = 500, learn_rate = 0.02, seed = 1, threads = 1)
#' cal <- calibrate(fit, toy[201:300, ], m = 10, seed = 1)
#' nobs(cal)
#' try(fitted(cal))
#' @name ncam_calibration-methods
NULL

#' @rdname ncam_calibration-methods
#' @export
nobs.ncam_calibration <- function(object, use.fallback = FALSE, ...) {
  check_dots_empty_hinted()
  check_calibration(object)
  as.integer(object$n + length(object$holdout))
}

#' @rdname ncam_calibration-methods
#' @export
fitted.ncam_calibration <- function(object, ...) calibration_refusal("fitted", object)
#' @rdname ncam_calibration-methods
#' @export
residuals.ncam_calibration <- function(object, ...) calibration_refusal("residuals", object)
#' @rdname ncam_calibration-methods
#' @export
coef.ncam_calibration <- function(object, ...) calibration_refusal("coef", object)
#' @rdname ncam_calibration-methods
#' @export
logLik.ncam_calibration <- function(object, ...) calibration_refusal("logLik", object)
#' @rdname ncam_calibration-methods
#' @export
update.ncam_calibration <- function(object, ...) calibration_refusal("update", object)
#' @rdname ncam_calibration-methods
#' @export
plot.ncam_calibration <- function(x, y, ...) calibration_refusal("plot", x)
#' @param formula A calibration from [calibrate()] (the name of the first argument of
#'   [stats::model.frame()] and [stats::formula()]).
#' @rdname ncam_calibration-methods
#' @export
model.frame.ncam_calibration <- function(formula, ...) calibration_refusal("model.frame", formula)
#' @rdname ncam_calibration-methods
#' @export
terms.ncam_calibration <- function(x, ...) calibration_refusal("terms", x)
#' @rdname ncam_calibration-methods
#' @export
formula.ncam_calibration <- function(x, ...) calibration_refusal("formula", x)
#' @rdname ncam_calibration-methods
#' @export
vcov.ncam_calibration <- function(object, ...) calibration_refusal("vcov", object)
#' @rdname ncam_calibration-methods
#' @export
sigma.ncam_calibration <- function(object, ...) calibration_refusal("sigma", object)

calibration_refusal <- function(what, object) {
  arg <- switch(what, plot = , terms = , formula = "x", model.frame = "formula", "object")
  check_calibration(object, arg, call = NULL)
  again <- calibration_call_text(object)
  use <- switch(what,
    fitted = , residuals = c("A calibration changes no fitted value and keeps no rows: {.code {what}(cal$model)} gives those of its fit on the rows it was fitted to.",
                             i = "{.code predict(cal, newdata)} gives the calibrated predictions of any rows."),
    coef = c("A calibration's only parameters are its conformal multipliers: {.code tidy(cal)} tabulates them by level.",
             i = "{.code coef(cal$model)} gives the network weights of its fit."),
    logLik = c("A calibration has no likelihood of its own.", i = "{.code logLik(cal$model)} is that of its fit."),
    update = c("A calibration keeps no call and no rows to calibrate again from.",
               i = "Calibrate the fit again with the changes: {.code {again}}."),
    model.frame = , terms = , formula = c("A calibration has no model formula of its own: {.code {what}(cal$model)} gives its fit's."),
    vcov = , sigma = c("A calibration's uncertainty is its conformal multipliers: {.code tidy(cal)} tabulates them by level.",
                       i = "{.code predict(cal, newdata)} gives the calibrated intervals of any rows."),
    plot = c("{.fn plot} draws the training curves of a fit ({.code plot(cal$model)}).",
             i = "{.code ggplot2::autoplot(cal, \"coverage\", newdata = <rows with a reference>, reference = <its column>)} draws the coverage of the calibrated intervals."))
  ncam_abort(c("{.fn {what}} has no meaning for a calibration from {.fn calibrate}.", use), call = NULL)
}

# calibrate() of the calibration's fit with its settings, as code for a message. The reference
# column of "split" is always named: without it calibrate() would take the fit's own reference
# column, or refuse a fit without one. Calibrations made before it was kept have none.
calibration_call_text <- function(object) {
  draws <- object$method %in% c("mc_model", "mc_empirical")
  split <- object$method == "split"
  settings <- c(method = deparse(object$method), level = format(object$level),
                reference = if (split) (if (is.null(object$reference)) "<its reference column>" else deparse(object$reference)),
                m = if (draws) format(object$m), seed = if (draws && !is.null(object$seed)) format(object$seed),
                correction = if (draws && !identical(object$correction, "stutz")) deparse(object$correction))
  sprintf("calibrate(cal$model, <the calibration rows>, %s)", paste(names(settings), "=", settings, collapse = ", "))
}
