#' Fused estimates from a fitted NCAM
#'
#' The posterior of the true value given each row's sensor readings and covariates:
#' precision \eqn{s_0^{-2} + \sum_j a_j^2 / \sigma_j^2} over the row's observed sensors, the
#' reliability-weighted, bias-corrected mean, and the predictive variance (posterior variance
#' plus `sigma_y2`).
#'
#' With `transform = "log"` the model works on log readings: `.pred` is then the predictive
#' median `exp(mu)`, `.pred_sd` and `.post_sd` the standard deviations of the log-normal
#' predictive and posterior, and the bounds `exp(mu -/+ z sd)`.
#'
#' @param object A fitted [ncam()] model.
#' @param newdata A data frame with the sensor columns (readings may be `NA`) and the
#'   covariates. If omitted, the data the model was fitted to.
#' @param interval `"none"` or `"credible"` (the posterior predictive interval,
#'   \eqn{\mu \pm z_{(1+level)/2} \, sd}). For conformal intervals see [calibrate()].
#' @param level Coverage level of the interval.
#' @param threads Number of threads; see [ncam_threads()].
#' @param ... Unused.
#' @return A data frame with one row per row of `newdata`, in order: `.pred` (posterior mean),
#'   `.pred_sd` (predictive standard deviation), `.post_sd` (posterior, epistemic, standard
#'   deviation), `.n_sensors` (readings used), and `.pred_lower`, `.pred_upper` when an interval
#'   is asked for. Rows with a missing covariate give `NA`.
#' @examples
#' toy <- simulate_toy(n = 1000, seed = 2)
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy, hidden = 8,
#'             epochs = 10, seed = 1, threads = 1)
#' head(predict(fit, toy, interval = "credible", level = 0.9))
#' @export
predict.ncam <- function(object, newdata, interval = c("none", "credible"), level = 0.9,
                         threads = NULL, ...) {
  interval <- match.arg(interval)
  check_level(level)
  post <- if (missing(newdata)) {
    fitted_model_scale(object)
  } else {
    ncam_posterior(object, newdata, threads, heads = FALSE)
  }
  multiplier <- if (interval == "credible") stats::qnorm((1 + level) / 2)
  posterior_table(object, post, multiplier)
}

# The prediction data frame from a model-scale posterior; with `multiplier`, also the
# interval mu -/+ multiplier * sd_pred, mapped to the user's units.
posterior_table <- function(object, post, multiplier = NULL) {
  sd_pred <- sqrt(post$var_pred)
  out <- data.frame(
    .pred = ncam_untransform(object, post$mu),
    .pred_sd = user_scale_sd(object, post$mu, post$var_pred, sd_pred),
    .post_sd = user_scale_sd(object, post$mu, post$var_post),
    .n_sensors = post$n_sensors
  )
  if (!is.null(multiplier)) {
    half <- multiplier * sd_pred
    out$.pred_lower <- ncam_untransform(object, post$mu - half)
    out$.pred_upper <- ncam_untransform(object, post$mu + half)
  }
  out
}

#' Per-row sensor gains, offsets and noise
#'
#' The sensor model \eqn{b_j = a_j(X)\Theta + c_j(X) + N(0, \sigma_j^2(X))} evaluated at every
#' row, for inspection and plots. With `transform = "log"` these act on log readings.
#'
#' @inheritParams predict.ncam
#' @return A long data frame with one row per row of `newdata` and sensor: `.row`, `sensor`,
#'   `a` (gain), `c` (offset), `sigma` (noise standard deviation), in the model's units.
#' @examples
#' toy <- simulate_toy(n = 1000, seed = 2)
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, hidden = 8, epochs = 5,
#'             seed = 1, threads = 1)
#' head(sensor_params(fit, toy))
#' @export
sensor_params <- function(object, newdata, threads = NULL) {
  check_ncam(object)
  post <- ncam_posterior(object, newdata, threads)
  n <- length(post$mu)
  L <- length(object$sensors)
  data.frame(.row = rep(seq_len(n), times = L), sensor = rep(object$sensors, each = n),
             a = as.vector(post$a), c = as.vector(post$c), sigma = sqrt(as.vector(post$sigma2)))
}

# Posterior and (with heads = TRUE) head outputs for newdata, in the model scale (user units,
# or log units for transform = "log"). Rows with a missing covariate are NA (ok = FALSE).
ncam_posterior <- function(object, newdata, threads = NULL, heads = TRUE, call = parent.frame()) {
  check_ncam(object, call = call)
  check_data_frame(newdata, "newdata", call = call)
  threads <- ncam_threads(threads)
  check_columns(newdata, object$sensors, "object", call = call, data_arg = "newdata")
  readings <- sensor_columns(newdata, object$sensors, object$transform, training = FALSE, call = call)
  x <- new_design(object, newdata, call = call)
  ncam_posterior_matrices(object, x, readings, threads, heads)
}

# `x` and `readings`: matrices, or lists of double columns (read in place by the engine).
ncam_posterior_matrices <- function(object, x, readings, threads, heads = TRUE) {
  s <- object$scaling
  raw <- ncam_predict_cpp(object$spec, object$params, x, readings, s, threads,
                          object$settings$control$precision, heads, use_simd())
  k <- s$b_scale
  m <- s$b_shift
  var_post <- k^2 * raw$variance
  post <- list(mu = m + k * raw$mean, var_post = var_post, var_pred = var_post + object$sigma_y2_model,
               n_sensors = raw$n_observed, nll = raw$nll)
  if (!heads) return(post)
  L <- length(object$sensors)
  heads <- raw$heads
  a <- heads[, 2L + L + seq_len(L), drop = FALSE]
  c(post, list(
    mu0 = m + k * heads[, 1L],
    s0_2 = k^2 * exp(heads[, 2L]),
    a = a,
    c = k * heads[, 2L + 2L * L + seq_len(L), drop = FALSE] + m * (1 - a),
    sigma2 = k^2 * exp(heads[, 2L + seq_len(L), drop = FALSE]),
    b = if (is.list(readings)) {
      matrix(unlist(readings, use.names = FALSE), length(raw$mean), L, dimnames = list(NULL, object$sensors))
    } else readings,
    ok = !is.na(raw$mean)
  ))
}

# Map model-scale means or bounds to the user's units.
ncam_untransform <- function(object, x) {
  if (identical(object$transform, "log")) exp(x) else x
}

# Standard deviation in the user's units; `sd` is sqrt(variance) when the caller has it already.
user_scale_sd <- function(object, mu, variance, sd = NULL) {
  if (identical(object$transform, "log")) return(sqrt(expm1(variance) * exp(2 * mu + variance)))
  if (is.null(sd)) sqrt(variance) else sd
}

fitted_model_scale <- function(object) {
  p <- object$fitted_posterior
  list(mu = p$mu, var_post = p$var_post, var_pred = p$var_post + object$sigma_y2_model,
       n_sensors = p$n_sensors)
}

# Covariate design for new data, coded as in training: a matrix, or for plain numeric
# covariates a list of their columns.
new_design <- function(object, newdata, call = parent.frame()) {
  vars <- all.vars(object$terms)
  check_columns(newdata, vars, "object", call = call, data_arg = "newdata")
  for (v in names(object$xlevels)) {
    seen <- object$xlevels[[v]]
    values <- as.character(newdata[[v]])
    unseen <- setdiff(unique(values[!is.na(values)]), seen)
    if (length(unseen)) {
      cli::cli_abort(c("Column {.field {v}} of {.arg newdata} has level{?s} {.val {unseen}} not seen in training.",
                       i = "Levels seen in training: {.val {seen}}."), call = call)
    }
    newdata[[v]] <- factor(values, levels = seen)
  }
  if (length(object$xlevels) == 0L && plain_covariates(object$terms, newdata)) {
    # The design is the columns themselves, read in place by the engine.
    return(covariate_columns(newdata, object$covariates, call))
  }
  mf <- stats::model.frame(object$terms, newdata, na.action = stats::na.pass, xlev = object$xlevels)
  x <- design_matrix(object$terms, mf, call = call)
  x[, object$covariates, drop = FALSE]
}

# Bias-corrected residuals (b_j - c_j) / a_j - mu, in the units of the fused value.
sensor_residuals <- function(post) {
  (post$b - post$c) / post$a - post$mu
}

check_ncam <- function(object, call = parent.frame()) {
  if (!inherits(object, "ncam")) {
    cli::cli_abort("{.arg object} must be a model fitted by {.fn ncam}, not {.obj_type_friendly {object}}.",
                   call = call)
  }
}
