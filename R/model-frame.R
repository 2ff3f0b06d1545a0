# model.frame() and model.matrix() of a fit, which lm() users reach for to see what a model used.
# R's defaults evaluated the formula's left side, the sum of the sensors, as one response and
# dropped every row with a missing value (model.frame()), or failed with "object 'pa_a' not
# found" (model.matrix()).

#' Model frame and covariate matrix of a fit
#'
#' `model.frame()` gives the columns a fit uses, one row per row of the data, in order: each
#' sensor's readings, the reference's (for a fit with a `reference`, when the data has that
#' column) and the variables of the formula's right side as the formula evaluates them (so
#' `log(rh)` or `poly(temperature, 2)` with the training coefficients, as in
#' [stats::model.frame()]). Rows with missing values stay: [ncam()] uses every row with a
#' reading. `model.matrix()` gives the covariates as the networks take them, before
#' standardisation: one column per numeric term, and one per level of a factor (coded fully,
#' without a reference level), with `NA` in a row whose covariate is missing or whose factor
#' level was not seen in training (with the warning [predict.ncam()] gives).
#'
#' @param formula,object A fitted [ncam()] model.
#' @param data The data to take the columns from: by default the data the model was fitted to,
#'   found again as by [fitted.ncam()] (a fit keeps no copy of it).
#' @param ... Unused.
#' @return `model.frame()` a data frame with the fit's `terms` as its `terms` attribute;
#'   `model.matrix()` a numeric matrix with one row per row of `data` and one column per
#'   covariate of the fit, named as `fit$covariates`.
#' @examples
#' fit <- ncam(pa_a + pa_b ~ rh + temperature, data = colocation, reference = "ref",
#'             hidden = 8, epochs = 300, learn_rate = 0.02, seed = 1, threads = 1)
#' head(model.frame(fit))
#' head(model.matrix(fit))
#' @name ncam-model-frame
NULL

#' @rdname ncam-model-frame
#' @export
model.frame.ncam <- function(formula, data = NULL, ...) {
  check_dots_empty_hinted()
  object <- formula
  check_ncam(object, "formula")
  if (is.null(data)) data <- fitting_data(object)
  check_data_frame(data, "data")
  readings <- intersect(model_sensors(object), names(data))
  check_columns(data, setdiff(object$sensors, readings), "formula", data_arg = "data")
  # The fit's parameters (k in poly(x1, k)) come from its environment, never from the data.
  for (name in intersect(attr(object$terms, "parameters"), names(data))) data[[name]] <- NULL
  covariates <- stats::model.frame(object$terms, as.data.frame(data), na.action = stats::na.pass)
  frame <- covariates
  for (name in readings) frame[[name]] <- data[[name]]
  frame <- frame[c(readings, names(covariates))]
  attr(frame, "terms") <- object$terms
  frame
}

#' @rdname ncam-model-frame
#' @export
model.matrix.ncam <- function(object, data = NULL, ...) {
  check_dots_empty_hinted()
  check_ncam(object)
  if (is.null(data)) data <- fitting_data(object)
  check_data_frame(data, "data")
  x <- new_design(object, data)
  # A list of columns for plain numeric covariates (none for `~ 1`), else a matrix.
  if (is.list(x)) x <- matrix(as.double(unlist(x, use.names = FALSE)), nrow(data), length(x))
  attr(x, "unseen_rows") <- NULL
  dimnames(x) <- list(NULL, object$covariates)
  x
}
