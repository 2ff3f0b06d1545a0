# broom-style summaries of fitted models (generics tidy(), glance(), augment()).

#' @importFrom generics tidy
#' @export
generics::tidy

#' @importFrom generics glance
#' @export
generics::glance

#' @importFrom generics augment
#' @export
generics::augment

#' Tidy summaries of a fitted NCAM
#'
#' `tidy()` gives one row per sensor with its learned gain, offset and noise
#' standard deviation summarised over the fitted rows (as in [summary.ncam()]);
#' `glance()` one row of model-level statistics; `augment()` the rows of
#' `newdata` with the fused estimate added.
#'
#' The sensor model is \eqn{b_j = a_j(X)\Theta + c_j(X) + N(0, \sigma_j^2(X))}{b_j = a_j(X) Theta + c_j(X) + N(0, sigma_j^2(X))}.
#' Gains are readings per unit of the fused value; offsets and noise standard
#' deviations are in reading units (log units for a model fitted with
#' `transform = "log"`). The anchor sensor has gain 1 and offset 0 by
#' construction.
#'
#' `glance()`'s `converged` is `FALSE` when the best epoch is the last epoch
#' run: the validation (or, without validation rows, training) NLL was still
#' improving when training ended, so more `epochs` might give a better model.
#' It is `TRUE` when a later epoch failed to improve on the best one (early
#' stopping, or a plateau before the last epoch). It says nothing about
#' whether the optimum found is global.
#'
#' @param x A fitted [ncam()] model, or an `ncam_calibration` object from
#'   [calibrate()].
#' @param object For `summary()`: an `ncam_calibration` object; its summary
#'   prints the calibration and the table of `tidy()`.
#' @param newdata A data frame with the sensor and covariate columns of the
#'   model. For `augment()` on a fitted model, by default the data it was fitted
#'   to, found again from the call (a fit keeps no copy) and checked as described
#'   under Value in [ncam()]; required for a calibration object.
#' @param interval For `augment.ncam()`: `"none"`, `"credible"` or
#'   `"prediction"`, passed to [predict.ncam()].
#' @param use_reference For `augment.ncam()`: passed to [predict.ncam()].
#' @param threads For `augment()`: passed to `predict()`; see [ncam_threads()].
#' @param level Coverage level of the interval, strictly between 0 and 1. For
#'   `augment()` of a calibration object it defaults to the level given to
#'   [calibrate()]; for its `tidy()` it is the levels to tabulate.
#' @param ... Must be empty; a misspelt argument is an error.
#' @return A tibble.
#'   * `tidy()`: one row per sensor: `sensor`, `anchor` (logical), and for the
#'     gain (`gain_`), offset (`offset_`) and noise standard deviation
#'     (`noise_`) their `mean`, `sd`, `q10` and `q90` (10% and 90% quantiles)
#'     over the fitted rows. These are the numbers of `summary(x)$sensors`,
#'     which names them after the model's symbols: `gain_mean`, `gain_sd`,
#'     `gain_q10`, `gain_q90` are its `a`, `a_sd`, `a_q10`, `a_q90`; `offset_`
#'     its `c`, `noise_` its `sigma` (so `noise_sd` is the spread of the noise
#'     sd over the rows, `sigma_sd`, not a noise variance). [tidy.ncam_baseline()], of a
#'     baseline from [ncam_baseline()], names its constant parameters `gain`, `offset` and
#'     `noise` (also an sd).
#'   * `glance()`: one row: `logLik`, `df` (the network's parameters, as
#'     [logLik()] counts them, without the weights a constant reference noise holds at 0), `AIC`, `BIC`
#'     (with hidden layers not a fair comparison with small models: see [ncam-methods]), `nobs`, `n_train`,
#'     `n_validation`, `epochs_run`, `best_epoch`, `validation_nll` (validation
#'     NLL per row at the best epoch, `NA` without validation rows),
#'     `converged` (see Details), `n_reference` (training and validation rows
#'     with a reading of the `reference`), `n_units` and `unit_sd` (units with
#'     an offset and the between-unit sd of a fit with `unit` offsets, in the
#'     model's units), `reference_from` and `reference_to` (the first and last time of
#'     the rows with a reading of the `reference`, as `Date` or `POSIXct` in the data's date
#'     column; see `reference_periods` in [ncam()]); the last five are `NA` for fits without
#'     them (these two also for a fit to data without a date column, or saved before they
#'     were kept).
#'   * `glance()` of a calibration from [calibrate()]: one row: `method`,
#'     `level`, `quantile` (the score quantile that scales the intervals at
#'     that level), `quantile_no_readings` (the one of rows without any sensor
#'     reading, as in `tidy()`), `n_calibration` (rows), `m` (scores per row; `NA` for
#'     `"sensor_anchored"`, which has one per observed sensor) and `correction`
#'     (`NA` but for the MC methods).
#'   * `tidy()` of a calibration: one row per `level` (by default 50, 80, 90
#'     and 95 % and the calibration's own level): `quantile` (the conformal
#'     multiplier of the predictive standard deviation at that level, `Inf`
#'     with a warning when the calibration set is too small for it),
#'     `gaussian` (the multiplier of the model's own Gaussian interval,
#'     `qnorm((1 + level) / 2)`), `width_ratio` (their ratio: above 1 the
#'     calibration widens the model's intervals, below 1 it narrows them) and
#'     `quantile_no_readings` (the multiplier of rows without any sensor
#'     reading: for `"split"` from the scores of the calibration rows'
#'     prior-only estimates, see [calibrate()]; for the other methods
#'     `quantile`).
#'   * `augment()`: the columns of `newdata`, then those of [predict()]:
#'     `.pred`, `.pred_sd`, `.post_sd`, `.n_sensors`, `.extrapolation`,
#'     `.disagreement`, and `.pred_lower` and `.pred_upper` (when an interval is asked for, always
#'     for a calibration object); one row per row of `newdata`, in order, `NA`
#'     where a covariate is missing. Prediction columns that `newdata` already
#'     has (any of these names, as from an earlier `augment()`) are all removed
#'     first, with a warning naming them: none is left from an earlier
#'     prediction, such as the bounds of an interval not asked for this time.
#'     When `newdata` has columns with units (units package) and the model was
#'     fitted to readings with units, `.pred`, `.pred_sd`, `.post_sd` and the
#'     bounds carry the units of the estimate (`fit$units`; [predict()] gives
#'     them as plain numbers), so that [sensor_performance()] and
#'     [evaluate_fusion()] compare them with a reference with units in one unit.
#' @seealso [summary.ncam()], [predict.ncam()], [predict.ncam_calibration()],
#'   [autoplot.ncam()]
#' @examples
#' toy <- simulate_toy(400, seed = 1)
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy[1:300, ],
#'             hidden = 8, epochs = 100, learn_rate = 0.02, seed = 1, threads = 1)
#' tidy(fit)
#' glance(fit)
#' augment(fit, toy[301:310, ], interval = "credible")
#' cal <- calibrate(fit, toy[301:350, ], seed = 1)
#' glance(cal)
#' tidy(cal)
#' augment(cal, toy[351:360, ], level = 0.8)
#' @name ncam-tidy
NULL

#' @rdname ncam-tidy
#' @export
tidy.ncam <- function(x, ...) {
  check_dots_empty_hinted()
  check_ncam(x, "x")
  s <- summary(x)$sensors
  columns <- list(sensor = as.character(s$sensor), anchor = s$sensor %in% x$anchor)
  # summary() names the statistics after the model's symbols a, c and sigma.
  symbols <- c(gain = "a", offset = "c", noise = "sigma")
  for (what in names(symbols)) {
    sym <- symbols[[what]]
    columns[paste0(what, c("_mean", "_sd", "_q10", "_q90"))] <-
      lapply(c(sym, paste0(sym, c("_sd", "_q10", "_q90"))), function(col) s[[col]])
  }
  tibble::new_tibble(columns, nrow = nrow(s))
}

#' @rdname ncam-tidy
#' @export
glance.ncam <- function(x, ...) {
  check_dots_empty_hinted()
  check_ncam(x, "x")
  ll <- stats::logLik(x)
  history <- x$history
  best_nll <- history$validation_nll[history$epoch == x$best_epoch]
  validation_nll <- if (x$n_validation > 0L && length(best_nll) == 1L) best_nll else NA_real_
  tibble::tibble(
    logLik = as.numeric(ll), df = as.integer(attr(ll, "df")), AIC = stats::AIC(x), BIC = stats::BIC(x),
    nobs = as.integer(stats::nobs(x)), n_train = as.integer(x$n_train),
    n_validation = as.integer(x$n_validation), epochs_run = as.integer(x$epochs_run),
    best_epoch = as.integer(x$best_epoch), validation_nll = as.numeric(validation_nll),
    converged = x$best_epoch < x$epochs_run,
    n_reference = if (is.null(x$reference)) NA_integer_ else as.integer(sum(x$n_reference)),
    n_units = if (is.null(x$unit_offsets)) NA_integer_ else nrow(x$unit_offsets$table),
    unit_sd = if (is.null(x$unit_offsets)) NA_real_ else sqrt(x$unit_offsets$tau2),
    reference_from = reference_time_range(x)$from, reference_to = reference_time_range(x)$to
  )
}

#' @rdname ncam-tidy
#' @export
augment.ncam <- function(x, newdata, interval = c("none", "credible", "prediction"),
                         level = 0.9, use_reference = FALSE, threads = NULL, ...) {
  check_dots_empty_hinted(augment_data_hint)
  from_fit <- missing(newdata)
  if (from_fit) newdata <- fitting_data(x)
  check_data_frame(newdata, "newdata")
  interval <- match_choice(interval, c("none", "credible", "prediction"), "interval")
  check_level(level)
  if (interval == "none" && !missing(level)) warn_level_without_interval()
  pred <- in_words_of_fit_data(object = x, from_fit = from_fit, {
    if (interval == "none") stats::predict(x, newdata, use_reference = use_reference, threads = threads) else
      stats::predict(x, newdata, interval = interval, level = level, use_reference = use_reference, threads = threads)
  })
  bind_predictions(newdata, pred, x)
}

#' @rdname ncam-tidy
#' @export
glance.ncam_calibration <- function(x, ...) {
  check_dots_empty_hinted()
  check_calibration(x, "x")
  mc <- x$method %in% c("mc_model", "mc_empirical")
  tibble::tibble(method = x$method, level = x$level, quantile = x$quantile,
                 quantile_no_readings = no_readings_quantile(x, x$level, x$quantile),
                 n_calibration = as.integer(x$n),
                 m = if (x$method == "sensor_anchored") NA_integer_ else as.integer(x$m),
                 correction = if (mc) x$correction else NA_character_)
}

#' @rdname ncam-tidy
#' @export
tidy.ncam_calibration <- function(x, level = c(0.5, 0.8, 0.9, 0.95, x$level), ...) {
  check_dots_empty_hinted(levels_hint)
  check_calibration(x, "x")
  check_level(level)
  level <- sort(unique(level))
  quantile <- vapply(level, function(l) calibration_quantile(x, l), numeric(1))
  no_readings <- vapply(seq_along(level), function(i) no_readings_quantile(x, level[i], quantile[i]), numeric(1))
  gaussian <- stats::qnorm((1 + level) / 2)
  tibble::tibble(level = level, quantile = quantile, gaussian = gaussian,
                 width_ratio = quantile / gaussian, quantile_no_readings = no_readings)
}

#' @rdname ncam-tidy
#' @export
summary.ncam_calibration <- function(object, ...) {
  check_dots_empty_hinted(summary_levels_hint)
  structure(list(calibration = object, levels = tidy.ncam_calibration(object)),
            class = "summary.ncam_calibration")
}

#' @export
print.summary.ncam_calibration <- function(x, ...) {
  print(x$calibration)
  cat("\nConformal multipliers of the predictive sd against the model's Gaussian ones:\n")
  print(as.data.frame(x$levels), digits = 4, row.names = FALSE)
  invisible(x)
}

#' @rdname ncam-tidy
#' @export
augment.ncam_calibration <- function(x, newdata, level = x$level, threads = NULL, ...) {
  check_dots_empty_hinted(c(calibrated_interval_hint, augment_data_hint))
  check_augment_newdata(newdata, missing(newdata))
  pred <- stats::predict(x, newdata, level = level, threads = threads)
  bind_predictions(newdata, pred, x)
}

# `level` takes one level or several, in tidy() as in autoplot(type = "coverage").
levels_hint <- c(levels = "Did you mean {.arg level}? It takes a vector of levels.")
# summary() shows the levels of tidy()'s default.
summary_levels_hint <- stats::setNames(rep("{.fn summary} shows levels 0.5, 0.8, 0.9, 0.95 and the calibration's own; {.code tidy(object, level = )} gives others.", 2),
                                       c("level", "levels"))

# broom's augment() methods take the rows as `data`; ncam's, as predict() does, as `newdata`.
augment_data_hint <- c(data = "Did you mean {.arg newdata}? ncam's {.fn augment} takes the rows as {.arg newdata}, as {.fn predict} does, not as broom's {.arg data}.")

check_augment_newdata <- function(newdata, is_missing, call = parent.frame()) {
  hints <- c(new_data = new_data_hint, augment_data_hint)
  given <- intersect(names(hints), dots_names(call))
  if ("data" %in% given && !is_missing) ncam_abort(c("Unknown argument {.arg data}.", i = hints[["data"]]), call = call)
  if (is_missing) {
    if (length(given)) {
      ncam_abort(c("{.arg newdata} is required, and {.arg {given[1]}} was given.",
                   i = hints[[given[1]]]), call = call)
    }
    ncam_abort(c("{.arg newdata} is required.",
                 i = "Pass the data frame to add fused estimates to, such as the fitted data."),
               call = call)
  }
  check_data_frame(newdata, "newdata", call = call)
}

# The columns that ncam's predict() methods give. augment() removes all of them from newdata,
# not only those the new predictions have: the bounds of an earlier interval would otherwise
# stay beside the new estimate, and be read as its interval. Exact names, so that a user's own
# copy (.pred_ncam, kept to compare models) stays.
prediction_columns <- c(".pred", ".pred_sd", ".pred_lower", ".pred_upper", ".post_sd", ".n_sensors",
                        ".extrapolation", ".disagreement")

# newdata as a tibble followed by the prediction columns of `model` (a fit, baseline or
# calibration), in the units of its estimate when newdata has columns with units; `pred` has one
# row per row of newdata, in order (predict()'s contract), which is checked rather than trusted.
bind_predictions <- function(newdata, pred, model, call = parent.frame()) {
  pred <- in_estimate_units(pred, model, newdata)
  if (nrow(pred) != nrow(newdata)) {
    ncam_abort("Internal error: {nrow(pred)} prediction{?s} for {nrow(newdata)} row{?s} of {.arg newdata}.",
               call = call)
  }
  added <- names(pred)
  old <- intersect(names(newdata), union(prediction_columns, added))
  replaced <- intersect(old, added)
  dropped <- setdiff(old, added)
  if (length(old)) {
    cli::cli_warn(c("{.arg newdata} already has prediction columns: all are removed, so that none is left from an earlier prediction.",
                    "*" = if (length(replaced)) "Replaced by the new predictions: {.field {replaced}}.",
                    "*" = if (length(dropped)) "Dropped, as the new predictions have no such column: {.field {dropped}}."),
                  call = call, class = c("ncam_warning_replaced_columns", "ncam_warning"))
  }
  # Kept by position: indexing by name would keep only the first of two columns of one name,
  # which then get tibble's unique names (with its message) as as_tibble() gives them.
  out <- c(as.list(newdata)[!names(newdata) %in% old], as.list(pred))
  if (anyDuplicated(names(out))) return(tibble::as_tibble(out, .name_repair = "unique"))
  tibble::new_tibble(out, nrow = nrow(newdata))
}

# Prediction columns in the units of the estimate beside columns with units: as plain numbers
# there, sensor_performance() read them in the other columns' units (the mg/m3 estimates of a
# fit on mg/m3 readings as ug/m3 beside a reference in ug/m3: a slope of 0.001).
in_estimate_units <- function(pred, model, newdata) {
  unit <- estimate_unit(model)
  if (is.null(unit) || !any(vapply(newdata, inherits, logical(1), "units"))) return(pred)
  for (col in intersect(c(".pred", ".pred_sd", ".post_sd", ".pred_lower", ".pred_upper"), names(pred))) {
    pred[[col]] <- units::set_units(pred[[col]], unit, mode = "standard")
  }
  pred
}
