# The other methods of a table of models by group (ncam_by(), and calibrate() of it): those with
# a natural total over the groups give it; those of one model point to the group's own, instead
# of the tibble's NULL column, summary.data.frame() or update()'s "need an object with call
# component"; plot() draws or says what draws, instead of plot.data.frame()'s error on the list
# column.

#' @section Other methods: `nobs()` is the sum of the groups' [nobs()], and `logLik()` the sum of
#'   their log-likelihoods with `df` and `nobs` summed (the groups' models are independent), so
#'   [AIC()] and [BIC()] work; a group without a model (`errors = "skip"`) counts for nothing in
#'   either. `fitted()`, `residuals()`, `coef()`, `summary()`, `update()`, `model.frame()` and
#'   `terms()` work on one model: on the table they are errors saying so, and to use
#'   `fits$fit[[i]]` (or [glance()], [tidy()], [augment()] for every group, and [ncam_by()]
#'   again to refit them all), and so does `model.matrix()`; `vcov()` and `sigma()`, which one
#'   fit does not have either (see [ncam-methods]), are errors pointing to [tidy()] and
#'   [augment()]. `deviance()`, `df.residual()` and `weights()` are `NULL`, as for one fit.
#'   These methods take no argument but the table: one in `...` is an error, not ignored.
#' @param use.fallback For `nobs()`: not used, as the number of rows is always known (the
#'   argument of [stats::nobs()]).
#' @rdname ncam_by-predict
#' @export
nobs.ncam_by <- function(object, use.fallback = FALSE, ...) {
  check_dots_empty_hinted()
  check_ncam_by(object)
  sum(vapply(object$fit[has_fit(object)], stats::nobs, integer(1)))
}

#' @rdname ncam_by-predict
#' @export
logLik.ncam_by <- function(object, ...) {
  check_dots_empty_hinted()
  check_ncam_by(object)
  parts <- lapply(object$fit[has_fit(object)], stats::logLik)
  total <- function(attribute) sum(vapply(parts, attr, numeric(1), attribute))
  structure(sum(vapply(parts, as.numeric, numeric(1))), df = total("df"), nobs = total("nobs"),
            class = "logLik")
}

#' @rdname ncam_by-predict
#' @export
fitted.ncam_by <- function(object, ...) per_model_only("fitted", object)
#' @rdname ncam_by-predict
#' @export
residuals.ncam_by <- function(object, ...) per_model_only("residuals", object)
#' @rdname ncam_by-predict
#' @export
coef.ncam_by <- function(object, ...) per_model_only("coef", object)
#' @rdname ncam_by-predict
#' @export
summary.ncam_by <- function(object, ...) per_model_only("summary", object)
#' @rdname ncam_by-predict
#' @export
update.ncam_by <- function(object, ...) per_model_only("update", object)
#' @param formula Fits by group from [ncam_by()] (the name of the first argument of
#'   [stats::model.frame()]).
#' @rdname ncam_by-predict
#' @export
model.frame.ncam_by <- function(formula, ...) per_model_only("model.frame", formula)
#' @rdname ncam_by-predict
#' @export
terms.ncam_by <- function(x, ...) per_model_only("terms", x)
#' @rdname ncam_by-predict
#' @export
model.matrix.ncam_by <- function(object, ...) per_model_only("model.matrix", object)
#' @rdname ncam_by-predict
#' @export
vcov.ncam_by <- function(object, ...) per_model_only("vcov", object)
#' @rdname ncam_by-predict
#' @export
sigma.ncam_by <- function(object, ...) per_model_only("sigma", object)

#' @section Plot: `plot()` draws the training and validation curves of every group, one panel
#'   each, as `ggplot2::autoplot(fits)` does (it needs the ggplot2 package; `plot(fits$fit[[i]])`
#'   draws one group's in base graphics), and returns `x` invisibly. It takes no other argument:
#'   `y` (such as a group's number in `plot(fits, 1)`) or one in `...` is an error.
#' @param y Not used: an error when given.
#' @rdname ncam_by-predict
#' @export
plot.ncam_by <- function(x, y, ...) {
  check_dots_empty_hinted()
  # A second argument would otherwise be ignored: plot(fits, 1) drew every group, not group 1.
  if (!missing(y)) {
    given <- deparse1(substitute(y))
    ncam_abort(c("{.fn plot} of fits by group takes no {.arg y}; it was given {.code {given}}.",
                 i = "{.code plot(fits)} draws every group's training curves; {.code plot(fits$fit[[i]])} draws group {.code i}'s alone."))
  }
  check_ncam_by(x, "x")
  check_ggplot2(needing = "{.fn plot} of fits by group",
                otherwise = "{.code plot(fits$fit[[i]])} draws one group's training curves without it.")
  if (!any(has_fit(x))) ncam_abort("{.arg x} has no fitted group to plot.")
  print(plot_group_losses(x))
  invisible(x)
}

#' @section Other methods: `nobs()` is the sum of the groups' calibration rows (each
#'   calibration's [nobs()]). `fitted()`, `residuals()`, `coef()`, `logLik()`, `summary()`,
#'   `update()`, `model.frame()`, `terms()`, `model.matrix()`, `vcov()` and `sigma()` are errors
#'   saying what to use instead: a group's calibration `cals$calibration[[i]]` (whose own methods
#'   say the same of one calibration), [glance()] and [tidy()] for every group, and `calibrate()`
#'   of the fits again to change the calibrations. `deviance()`, `df.residual()` and `weights()`
#'   are `NULL`. These methods take no argument but the table: one in `...` is an error, not
#'   ignored.
#' @param use.fallback For `nobs()`: not used, as the number of rows is always known (the
#'   argument of [stats::nobs()]).
#' @rdname ncam_by-calibrate
#' @export
nobs.ncam_by_calibration <- function(object, use.fallback = FALSE, ...) {
  check_dots_empty_hinted()
  check_ncam_by_calibration(object)
  sum(vapply(object$calibration[has_fit(object)], stats::nobs, integer(1)))
}

#' @rdname ncam_by-calibrate
#' @export
fitted.ncam_by_calibration <- function(object, ...) per_model_only("fitted", object)
#' @rdname ncam_by-calibrate
#' @export
residuals.ncam_by_calibration <- function(object, ...) per_model_only("residuals", object)
#' @rdname ncam_by-calibrate
#' @export
coef.ncam_by_calibration <- function(object, ...) per_model_only("coef", object)
#' @rdname ncam_by-calibrate
#' @export
logLik.ncam_by_calibration <- function(object, ...) per_model_only("logLik", object)
#' @rdname ncam_by-calibrate
#' @export
summary.ncam_by_calibration <- function(object, ...) per_model_only("summary", object)
#' @rdname ncam_by-calibrate
#' @export
update.ncam_by_calibration <- function(object, ...) per_model_only("update", object)
#' @param formula Calibrations by group from [calibrate()] (the name of the first argument of
#'   [stats::model.frame()]).
#' @rdname ncam_by-calibrate
#' @export
model.frame.ncam_by_calibration <- function(formula, ...) per_model_only("model.frame", formula)
#' @rdname ncam_by-calibrate
#' @export
terms.ncam_by_calibration <- function(x, ...) per_model_only("terms", x)
#' @rdname ncam_by-calibrate
#' @export
model.matrix.ncam_by_calibration <- function(object, ...) per_model_only("model.matrix", object)
#' @rdname ncam_by-calibrate
#' @export
vcov.ncam_by_calibration <- function(object, ...) per_model_only("vcov", object)
#' @rdname ncam_by-calibrate
#' @export
sigma.ncam_by_calibration <- function(object, ...) per_model_only("sigma", object)

#' @section Plot: `plot()` is an error, as for one calibration, saying what draws instead:
#'   `ggplot2::autoplot(cals, "coverage", newdata = <rows with a reference>, reference = <its
#'   column>)` the coverage of every group's calibrated intervals, and `plot()` of the fits by
#'   group their training curves.
#' @param y Unused.
#' @rdname ncam_by-calibrate
#' @export
plot.ncam_by_calibration <- function(x, y, ...) {
  check_ncam_by_calibration(x, "x")
  ncam_abort(c("{.fn plot} has no meaning for calibrations by group from {.fn calibrate}.",
               "{.fn plot} draws the training curves of fits: {.code plot(fits)} for the fits by group calibrated, {.code plot(cals$calibration[[i]]$model)} for one group's.",
               i = "{.code ggplot2::autoplot(cals, \"coverage\", newdata = <rows with a reference>, reference = <its column>)} draws the coverage of every group's calibrated intervals."),
             call = NULL)
}

# What an NCAM fit does not have, as R's defaults say of one fit (NULL), without the tibble's
# "Unknown or uninitialised column" warning that those defaults give on a table by group.
#' @rdname ncam_by-predict
#' @export
deviance.ncam_by <- function(object, ...) no_model_total()
#' @rdname ncam_by-predict
#' @export
df.residual.ncam_by <- function(object, ...) no_model_total()
#' @rdname ncam_by-predict
#' @export
weights.ncam_by <- function(object, ...) no_model_total()
#' @rdname ncam_by-calibrate
#' @export
deviance.ncam_by_calibration <- function(object, ...) no_model_total()
#' @rdname ncam_by-calibrate
#' @export
df.residual.ncam_by_calibration <- function(object, ...) no_model_total()
#' @rdname ncam_by-calibrate
#' @export
weights.ncam_by_calibration <- function(object, ...) no_model_total()

# NULL, once the caller's `...` is found empty.
no_model_total <- function(env = parent.frame()) {
  check_dots_empty_hinted(env = env, call = env)
  NULL
}

# Methods of one model, on a table of models (fits, or calibrations) by group: an error saying
# which model to ask, or what to use for every group.
per_model_only <- function(what, object) {
  if (inherits(object, "ncam_by_calibration")) {
    kind <- "calibration"
    use <- switch(what,
      fitted = , residuals = "A calibration keeps no fitted values: use {.code {what}(cals$calibration[[i]]$model, <the group's rows>)} for a group's fit, or {.code augment(cals, newdata)} for the calibrated predictions of every group.",
      coef = "Use {.code tidy(cals)} for every group's conformal multipliers, or {.code coef(cals$calibration[[i]]$model)} for a group's network weights.",
      logLik = "A calibration has no likelihood: {.code logLik(cals$calibration[[i]]$model)} is that of a group's fit.",
      summary = "Use {.code summary(cals$calibration[[i]])}, or {.code glance(cals)} and {.code tidy(cals)} for every group.",
      update = "To change the calibrations, call {.fn calibrate} on the fits again with the changed arguments.",
      model.frame = , terms = , model.matrix = "Use {.code {what}(cals$calibration[[i]]$model)} for a group's fit.",
      vcov = , sigma = "Use {.code tidy(cals)} for every group's conformal multipliers, and {.code augment(cals, newdata)} for every group's calibrated intervals.")
  } else {
    kind <- "model"
    use <- switch(what,
      fitted = , residuals = "Use {.code {what}(fits$fit[[i]], <the group's rows>)}, or {.code augment(fits, newdata)} for every group.",
      coef = "Use {.code coef(fits$fit[[i]])}.",
      summary = "Use {.code summary(fits$fit[[i]])}, or {.code glance(fits)} and {.code tidy(fits)} for every group.",
      update = "Use {.code update(fits$fit[[i]], ...)} to refit one group, or call {.fn ncam_by} again with the changed arguments to refit them all.",
      model.frame = , terms = , model.matrix = "Use {.code {what}(fits$fit[[i]])}.",
      vcov = , sigma = "Use {.code tidy(fits)} for every group's sensor noise ({.field noise_} columns), and {.code augment(fits, newdata, interval = \"prediction\")} for the uncertainty of every group's estimate.")
  }
  # One fit or calibration has no vcov() or sigma() either (no_single_uncertainty(),
  # calibration_refusal()).
  problem <- if (what %in% c("vcov", "sigma")) {
    paste0("{.fn {what}} has no meaning for ", if (kind == "model") "NCAM fits" else "calibrations", ", one or by group.")
  } else {
    "{.fn {what}} works on one {kind}, and this is a table of one {kind} per group."
  }
  ncam_abort(c(problem, i = use), call = NULL)
}
