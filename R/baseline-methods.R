#' Fused estimates from a fitted baseline
#'
#' Fuses the sensor readings of each row of `newdata` with the parameters of a
#' baseline fitted by [ncam_baseline()]. Readings may be `NA`: each row uses its
#' observed sensors. A row with none gets `NA` from `"mean"` and `"ivw"`, the
#' prior from `"factor"` and `"ppca"` and the one-step prediction from
#' `"kalman"` (see [ncam_baseline()]), with a warning of class
#' `ncam_warning_no_readings` naming the first such rows. For `"kalman"`
#' the filter runs over the rows of `newdata` in the order of the model's
#' `order` column, from the fitted initial state; a time repeated in that
#' column is an error, as at the fit, and so is a column of another type than
#' at the fit (such as numbers stored as text).
#'
#' @param object A baseline fitted by [ncam_baseline()].
#' @param newdata A data frame with the sensor columns (and, for `"kalman"`
#'   with an `order`, that column).
#' @param interval `"none"` or `"credible"`: the Gaussian interval
#'   \eqn{\hat\theta \pm z_{(1+level)/2} \, sd}{theta_hat +/- z_((1+level)/2) * sd} from `.pred_sd`.
#'   Not available
#'   for `"mean"`, which has no standard deviation.
#' @param level Coverage level of the interval (a warning when given without
#'   `interval`).
#' @param ... Must be empty.
#' @return A tibble with one row per row of `newdata`, in order: `.pred`,
#'   `.pred_sd` (all methods but `"mean"`), `.n_sensors` (readings used, 0 on
#'   a row without any), and
#'   `.pred_lower`, `.pred_upper` with `interval = "credible"`.
#' @examples
#' toy <- simulate_toy(300, seed = 1)
#' fit <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, toy[1:200, ], "factor")
#' head(predict(fit, toy[201:300, ], interval = "credible", level = 0.9))
#' @export
predict.ncam_baseline <- function(object, newdata, interval = c("none", "credible"), level = 0.9, ...) {
  check_dots_empty_hinted()
  check_object_format(object, "object")
  if (missing(newdata)) {
    ncam_abort(c("{.arg newdata} is required.",
                 i = "A fitted baseline keeps only its parameters, not the training data."))
  }
  check_data_frame(newdata)
  interval <- match_choice(interval, c("none", "credible"), "interval")
  check_scalar_level(level)
  method <- object$method
  if (interval == "none" && !missing(level)) {
    warn_level_without_interval(hint = if (method == "mean") "Method {.val mean} has no interval: leave {.arg level} out." else
      "Give {.code interval = \"credible\"}.")
  }
  if (interval == "credible" && method == "mean") {
    ncam_abort(c("Method {.val mean} has no standard deviation, so it gives no credible interval.",
                 i = "Use {.code interval = \"none\"}, or a method with one such as {.val ivw} or {.val factor}."))
  }
  check_columns(newdata, object$sensors, "object", data_arg = "newdata", hint = missing_sensor_hint)
  newdata <- match_units(object, newdata)
  b <- baseline_readings(newdata, object$sensors, data_arg = "newdata")
  # As in predict() of ncam(): a reading too large for double precision would fuse to garbage.
  check_reading_magnitude(lapply(stats::setNames(nm = object$sensors), function(s) b[, s]))
  n_obs <- as.integer(rowSums(!is.na(b)))
  params <- object$params
  if (method == "kalman" && is.null(object$order)) warn_kalman_row_order(newdata, data_arg = "newdata")
  fused <- switch(method,
    mean = list(.pred = ifelse(n_obs > 0L, rowMeans(b, na.rm = TRUE), NA_real_)),
    ivw = ivw_combine(b, params$sensor_var),
    ppca = ppca1_fuse(b, params),
    kalman = kalman_rw_fuse(b, params, visit_order(object$order, newdata, data_arg = "newdata",
                                                    type = object$order_type)),
    factor = factor1_fuse(b, params)
  )
  out <- c(fused, list(.n_sensors = n_obs))
  if (interval == "credible") {
    warn_heywood_interval(object$heywood, method)
    warn_few_training_rows(object)
    half <- stats::qnorm((1 + level) / 2) * fused$.pred_sd
    out$.pred_lower <- fused$.pred - half
    out$.pred_upper <- fused$.pred + half
  }
  empty <- which(n_obs == 0L)
  warn_no_readings(length(empty), nrow(newdata), utils::head(empty, 5L), estimate = no_readings_estimate(object))
  tibble::new_tibble(lapply(out, unname), nrow = nrow(newdata))
}

# What a row without readings gets, as warn_no_readings() says it (see ?ncam_baseline): the
# model's distribution of the true value where the method has one, NA where it only combines
# readings.
no_readings_estimate <- function(object) {
  order <- if (is.null(object$order)) "row order" else
    paste0("the order of {.field ", gsub("([{}])", "\\1\\1", object$order), "}")
  switch(object$method,
    mean = , ivw = paste0("{.code NA} ({.field .n_sensors} = 0), as method {.val ", object$method, "} only combines readings"),
    ppca = "the prior of the PPCA model, the same for every such row ({.field .n_sensors} = 0), not a measurement",
    factor = "the prior of the factor model, the same for every such row ({.field .n_sensors} = 0), not a measurement",
    kalman = paste0("the filter's prediction from the readings of the earlier rows, in ", order,
                    " (before the first reading, the filter's starting state; {.field .n_sensors} = 0), not a measurement"))
}

# With fewer training rows than this, intervals that take the estimated error variances as
# known cover clearly less than their level (at 0.9: 0.80-0.84 with 200 rows, 0.60-0.70 with
# 50; bench/baseline_coverage.R and ?ncam_baseline, which gives the figures per method).
min_interval_training_rows <- 200L

# The intervals of "ivw", "factor" and "kalman" treat the error variances estimated from the
# training rows as known: with few rows they are too narrow.
warn_few_training_rows <- function(object, call = parent.frame()) {
  if (!object$method %in% c("ivw", "factor", "kalman") || object$nobs >= min_interval_training_rows) return(invisible())
  cli::cli_warn(c("These intervals take the sensors' error variances, estimated from only {object$nobs} training row{?s}, as known: they cover less often than their level (see {.topic ncam::ncam_baseline}, \"Intervals and the training rows\").",
                  i = "Fit on more training rows."),
                class = c("ncam_warning_few_training_rows", "ncam_warning"), call = call)
}

# The fit warned once about floored error variances; the intervals built on them are what
# that warning is about, so predict() repeats it whenever it makes them.
warn_heywood_interval <- function(heywood, method, call = parent.frame()) {
  if (!length(heywood)) return(invisible())
  cli::cli_warn(c("These intervals are too narrow: the error variance of sensor{?s} {.val {heywood}} was estimated at zero when the baseline was fitted (a Heywood case).",
                  i = if (method == "factor") "Add sensors or training rows, or read {.code interval = \"none\"}."
                      else "Use {.code method = \"factor\"} (it estimates gains), add sensors, or read {.code interval = \"none\"}."),
                class = c("ncam_warning_heywood", "ncam_warning"), call = call)
}

#' Methods for fitted baselines
#'
#' `print()` shows the method, sensors, training rows, log-likelihood and the
#' per-sensor parameters; `summary()` adds AIC and BIC where there is a likelihood; `logLik()` the log-likelihood of the training
#' readings in their units, with `df` the number of estimated parameters (for
#' `"factor"`, `"ppca"` and `"kalman"`; an error for `"mean"` and `"ivw"`,
#' which have none), so [AIC()] and [BIC()] work; `nobs()` the training rows
#' that entered the fit; `coef()` the estimated parameters as a named vector, as many as
#' `logLik()`'s `df` for `"factor"`, `"ppca"` and `"kalman"`: for `"factor"` `prior_mean`,
#' `prior_var` and per sensor `gain_`, `offset_` (but the anchor's, fixed at 1 and 0) and
#' `noise_var_` (as named in `object$params$se` and `object$params$vcov`); for `"ppca"`
#' `mean_` and `loading_` per sensor and the shared `noise_var`; for `"kalman"` `noise_var_`
#' per sensor, `q`, `m0` and `P0`; for `"ivw"` `noise_var_` per sensor (an error for `"mean"`,
#' which estimates none); `tidy()` one row per sensor with its parameters;
#' `glance()` one row with the method, number of sensors, `nobs`, `df`,
#' `logLik`, `AIC` and `BIC` (`NA` where there is no likelihood);
#' `augment()` `newdata` with the columns of [predict.ncam_baseline()]
#' added (in the units of the estimate beside columns with units, as for
#' [augment.ncam()]; prediction columns `newdata` already has, such as those of an NCAM
#' fit, are all removed first, with a warning naming them).
#'
#' `tidy()` columns by method: `sensor` always; `anchor` (whether it is
#' the anchor) for `"ppca"` and `"factor"`; `weight` (share of the sensor in
#' a row with every reading) for `"mean"` and `"ivw"`; `noise`, the error
#' standard deviation, and `noise_var`, its square, for `"ivw"`, `"kalman"`
#' (three-cornered hat), `"ppca"` (shared \eqn{\sigma}{sigma}) and `"factor"`; `mean`
#' and `loading` for `"ppca"`; `gain`, `offset` and the standard errors
#' `gain_se`, `offset_se`, `noise_var_se` (of the variance) for `"factor"`
#' (`NA` for the anchor's fixed gain 1 and offset 0). `gain`, `offset` and
#' `noise` are named as in [tidy.ncam()] of an [ncam()] fit, where they vary with
#' the covariates and are summarised over the rows (`gain_mean`, `offset_mean`,
#' `noise_mean`, the noise there also a standard deviation); [summary.ncam()]
#' calls them `a`, `c` and `sigma`.
#'
#' @param x,object A baseline fitted by [ncam_baseline()].
#' @param newdata For `augment()`: a data frame with the sensor columns.
#' @param interval,level For `augment()`: as for [predict.ncam_baseline()].
#' @param ... Ignored by `print()`, as print methods do; must be empty for the others: an
#'   argument they do not know is an error, not ignored.
#' @param use.fallback For `nobs()`: not used, as the number of rows is always known (the
#'   argument of [stats::nobs()]).
#' @return `print()` returns `x` invisibly; `summary()` an object that prints; `logLik()` a `logLik` object;
#'   `nobs()` an integer; `coef()` a named numeric vector; `tidy()`, `glance()` and `augment()`
#'   tibbles. `fitted()` and `residuals()` are errors: a baseline keeps no data, so use
#'   `predict()` with `newdata`; so is `update()`, which says the call of [ncam_baseline()] to
#'   make again (a baseline keeps no call).
#' @examples
#' toy <- simulate_toy(300, seed = 1)
#' fit <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, toy, "factor")
#' fit
#' summary(fit)
#' AIC(fit)
#' tidy(fit)
#' glance(fit)
#' head(augment(fit, toy, interval = "credible"))
#' @name ncam_baseline-methods
NULL

#' @rdname ncam_baseline-methods
#' @export
print.ncam_baseline <- function(x, ...) {
  check_object_format(x, "x")
  title <- c(mean = "mean of the readings", ivw = "inverse-variance weighting",
             ppca = "probabilistic PCA, one factor", kalman = "random-walk Kalman filter",
             factor = "one-factor measurement model (maximum likelihood)")
  cat("Baseline fusion: ", title[[x$method]], "\n", sep = "")
  anchored <- x$method %in% c("ppca", "factor")
  cat("Sensors: ", paste(x$sensors, collapse = ", "),
      if (anchored) paste0(" (anchor: ", x$anchor, ")"), "\n", sep = "")
  if (x$method == "kalman") cat("Order: ", if (is.null(x$order)) "row order" else x$order, "\n", sep = "")
  cat("Training rows used: ", x$nobs, "\n", sep = "")
  if (length(x$heywood)) {
    cat("Heywood case: error variance of ", paste(x$heywood, collapse = ", "),
        " estimated at zero (intervals too narrow)\n", sep = "")
  }
  p <- x$params
  if (!is.null(x$loglik)) {
    cat("Log-likelihood: ", format(x$loglik, digits = 7), " (df = ", x$df, ")\n", sep = "")
  }
  if (x$method == "factor") {
    cat("Prior: mean ", format(p$prior_mean, digits = 5), ", sd ", format(sqrt(p$prior_var), digits = 5),
        "\n", sep = "")
  }
  if (x$method == "ppca") {
    cat("Map to the anchor: ", format(p$coef[[1]], digits = 5), " + ", format(p$coef[[2]], digits = 5),
        " z\n", sep = "")
  }
  if (x$method == "kalman") {
    cat("Random-walk variance q: ", format(p$q, digits = 5), if (!is.null(p$step)) paste0(" per step of ", kalman_step_text(p$step, x$order_type)),
        "; initial state N(",
        format(p$m0, digits = 5), ", ", format(p$P0, digits = 5), ")\n", sep = "")
  }
  if (x$method != "mean") {
    cat("\n")
    print(as.data.frame(tidy.ncam_baseline(x)), digits = 4, row.names = FALSE)
  }
  invisible(x)
}

#' @rdname ncam_baseline-methods
#' @export
summary.ncam_baseline <- function(object, ...) {
  check_dots_empty_hinted()
  check_object_format(object, "object")
  structure(list(baseline = object, glance = glance.ncam_baseline(object)), class = "summary.ncam_baseline")
}

#' @export
print.summary.ncam_baseline <- function(x, ...) {
  print(x$baseline)
  g <- x$glance
  if (!is.na(g$logLik)) {
    cat("\nAIC ", format(g$AIC, digits = 7), ", BIC ", format(g$BIC, digits = 7), "\n", sep = "")
  }
  invisible(x)
}

#' @rdname ncam_baseline-methods
#' @export
logLik.ncam_baseline <- function(object, ...) {
  check_dots_empty_hinted()
  check_object_format(object, "object")
  if (is.null(object$loglik)) {
    ncam_abort(c("Method {.val {object$method}} has no likelihood.",
                 i = "{.val factor}, {.val ppca} and {.val kalman} have one."))
  }
  structure(object$loglik, df = object$df, nobs = object$nobs, class = "logLik")
}

#' @rdname ncam_baseline-methods
#' @export
nobs.ncam_baseline <- function(object, use.fallback = FALSE, ...) {
  check_dots_empty_hinted()
  check_object_format(object)
  object$nobs
}

# stats' default methods would return NULL: a baseline keeps no fitted values or data.
#' @rdname ncam_baseline-methods
#' @export
fitted.ncam_baseline <- function(object, ...) {
  ncam_abort(c("A baseline keeps only its parameters, not its data or fitted values.",
               i = "Use {.code predict(object, newdata)} for the fused values of a data frame."))
}

#' @rdname ncam_baseline-methods
#' @export
residuals.ncam_baseline <- function(object, ...) {
  ncam_abort(c("A baseline keeps only its parameters, so it has no residuals to give.",
               i = "Compare {.code predict(object, newdata)$.pred} with a reference column of {.arg newdata}."))
}

#' @rdname ncam_baseline-methods
#' @export
coef.ncam_baseline <- function(object, ...) {
  check_dots_empty_hinted()
  check_object_format(object, "object")
  p <- object$params
  sensors <- object$sensors
  per_sensor <- function(prefix, values) stats::setNames(unname(values), paste0(prefix, sensors))
  switch(object$method,
    mean = ncam_abort(c("Method {.val mean} estimates no parameters: it averages the readings with equal weights.",
                        i = "{.code tidy(object)} shows the weights.")),
    ivw = per_sensor("noise_var_", p$sensor_var),
    kalman = c(per_sensor("noise_var_", p$sensor_var), q = p$q, m0 = p$m0, P0 = p$P0),
    ppca = c(per_sensor("mean_", p$mu), per_sensor("loading_", p$loadings), noise_var = p$sigma2),
    # As the standard errors name them (params$se): the anchor's fixed gain and offset left out.
    factor = {
      free <- sensors != object$anchor
      c(prior_mean = p$prior_mean, prior_var = p$prior_var, per_sensor("gain_", p$gain)[free],
        per_sensor("offset_", p$offset)[free], per_sensor("noise_var_", p$noise_var))
    })
}

# stats::update() needs a call, which a baseline does not keep: the call to make again instead.
#' @rdname ncam_baseline-methods
#' @export
update.ncam_baseline <- function(object, ...) {
  check_object_format(object, "object")
  again <- sprintf("ncam_baseline(%s ~ 1, <the training rows>, \"%s\"%s%s)", paste(object$sensors, collapse = " + "),
                   object$method, if (object$method %in% c("ppca", "factor")) sprintf(", anchor = \"%s\"", object$anchor) else "",
                   if (!is.null(object$order)) sprintf(", order = \"%s\"", object$order) else "")
  ncam_abort(c("A baseline keeps only its parameters, not its call or data, so {.fn update} cannot fit it again.",
               i = "Fit it again with the changes: {.code {again}}."))
}

#' @importFrom generics tidy glance
#' @rdname ncam_baseline-methods
#' @export
tidy.ncam_baseline <- function(x, ...) {
  check_dots_empty_hinted()
  check_object_format(x, "x")
  p <- x$params
  sensors <- x$sensors
  out <- list(sensor = sensors)
  if (x$method %in% c("ppca", "factor")) out$anchor <- sensors == x$anchor
  # noise is an sd, as in tidy() of an ncam fit; noise_var stays for code that reads it.
  more <- switch(x$method,
    mean = list(weight = rep(1 / length(sensors), length(sensors))),
    ivw = list(noise = sqrt(p$sensor_var), noise_var = p$sensor_var,
               weight = (1 / p$sensor_var) / sum(1 / p$sensor_var)),
    kalman = list(noise = sqrt(p$sensor_var), noise_var = p$sensor_var),
    ppca = list(mean = p$mu, loading = p$loadings, noise = rep(sqrt(p$sigma2), length(sensors)),
                noise_var = rep(p$sigma2, length(sensors))),
    factor = {
      pick <- function(prefix) unname(p$se[paste0(prefix, sensors)])
      list(gain = p$gain, gain_se = pick("gain_"), offset = p$offset, offset_se = pick("offset_"),
           noise = sqrt(p$noise_var), noise_var = p$noise_var, noise_var_se = pick("noise_var_"))
    }
  )
  tibble::new_tibble(lapply(c(out, more), unname), nrow = length(sensors))
}

#' @rdname ncam_baseline-methods
#' @export
glance.ncam_baseline <- function(x, ...) {
  check_dots_empty_hinted()
  check_object_format(x, "x")
  ll <- if (is.null(x$loglik)) NA_real_ else x$loglik
  df <- if (is.null(x$df)) NA_integer_ else as.integer(x$df)
  tibble::tibble(method = x$method, n_sensors = length(x$sensors), nobs = as.integer(x$nobs), df = df,
                 logLik = ll, AIC = -2 * ll + 2 * df, BIC = -2 * ll + log(x$nobs) * df)
}

#' @importFrom generics augment
#' @rdname ncam_baseline-methods
#' @export
augment.ncam_baseline <- function(x, newdata, interval = c("none", "credible"), level = 0.9, ...) {
  check_dots_empty_hinted(augment_data_hint)
  check_object_format(x, "x")
  check_augment_newdata(newdata, missing(newdata))
  # level only when given, so that predict() warns when it is given without an interval.
  pred <- if (missing(level)) stats::predict(x, newdata, interval = interval) else
    stats::predict(x, newdata, interval = interval, level = level)
  bind_predictions(newdata, pred, x)
}

# The Kalman filter's time step in the order column's units, for print(): "1 hours", "7 days".
kalman_step_text <- function(step, order_type) {
  if (identical(order_type, "POSIXct")) {
    span <- as.difftime(step, units = "secs")
    unit <- if (step >= 86400) "day" else if (step >= 3600) "hour" else if (step >= 60) "minute" else "second"
    step <- step / c(day = 86400, hour = 3600, minute = 60, second = 1)[[unit]]
    return(paste(format(step, digits = 5), if (step == 1) unit else paste0(unit, "s")))
  }
  paste0(format(step, digits = 5), if (identical(order_type, "Date")) if (step == 1) " day" else " days")
}
