# The model methods of stats on a baseline, which keeps its sensors and parameters but no data:
# R's defaults failed with "invalid formula", "no terms component nor attribute", "no applicable
# method for 'vcov'", plot.default()'s "'x' is a list", or for sigma() the empty numeric.

#' @section Other methods: `formula()` is the baseline's `sensors ~ 1` and `terms()` its terms.
#'   `vcov()` is the covariance matrix of the `"factor"` model's estimates, named as `coef()`
#'   (from the observed information of the readings; the standard errors of [tidy()]); the other
#'   methods estimate none, so it is an error for them, as are `sigma()` (each sensor has its
#'   own noise: `tidy(object)$noise`), `model.frame()` and `model.matrix()` (a baseline keeps no
#'   data and takes no covariates) and `plot()`, which name what to use instead.
#' @param formula A baseline (the name of the first argument of [stats::model.frame()]).
#' @param y Unused.
#' @rdname ncam_baseline-methods
#' @export
formula.ncam_baseline <- function(x, ...) {
  check_dots_empty_hinted()
  check_object_format(x, "x")
  sensors <- Reduce(function(left, right) call("+", left, right), lapply(x$sensors, as.name))
  stats::as.formula(call("~", sensors, 1), env = globalenv())
}

#' @rdname ncam_baseline-methods
#' @export
terms.ncam_baseline <- function(x, ...) {
  check_dots_empty_hinted()
  stats::terms(formula.ncam_baseline(x))
}

#' @rdname ncam_baseline-methods
#' @export
vcov.ncam_baseline <- function(object, ...) {
  check_dots_empty_hinted()
  check_object_format(object, "object")
  if (object$method != "factor") {
    ncam_abort(c("Method {.val {object$method}} has no covariance matrix of its estimates.",
                 i = "Only {.val factor} has one (its standard errors are in {.code tidy(object)}); {.code predict(object, newdata, interval = \"credible\")} gives the uncertainty of the fused value."))
  }
  names <- names(coef.ncam_baseline(object))
  object$params$vcov[names, names, drop = FALSE]
}

#' @rdname ncam_baseline-methods
#' @export
sigma.ncam_baseline <- function(object, ...) {
  check_object_format(object, "object")
  ncam_abort(c("A baseline has no single residual sd: each sensor has its own noise.",
               i = "{.code tidy(object)} gives each sensor's {.field noise} (sd); {.code predict(object, newdata, interval = \"credible\")} the uncertainty of the fused value."))
}

#' @rdname ncam_baseline-methods
#' @export
model.frame.ncam_baseline <- function(formula, ...) baseline_without_data("model.frame")

#' @rdname ncam_baseline-methods
#' @export
model.matrix.ncam_baseline <- function(object, ...) baseline_without_data("model.matrix")

#' @rdname ncam_baseline-methods
#' @export
plot.ncam_baseline <- function(x, y, ...) {
  check_object_format(x, "x")
  ncam_abort(c("{.fn plot} has no meaning for a baseline: it has no training curves.",
               i = "{.code ggplot2::autoplot(object, type, newdata = <rows>)} draws its fused value (type {.val series}, {.val scatter} or {.val coverage})."))
}

baseline_without_data <- function(what) {
  ncam_abort(c("{.fn {what}} has no meaning for a baseline: it keeps only its sensors and parameters, not its data, and takes no covariates.",
               i = "{.code predict(object, newdata)} fuses the readings of a data frame."),
             call = NULL)
}
