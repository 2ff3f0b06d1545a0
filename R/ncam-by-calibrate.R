# calibrate() of a table of fits by group (ncam_by()): each group's fit calibrated on its rows
# of the calibration data, and the methods of the result, which route rows to their group's
# calibration as those of ncam_by() route them to its fit.

#' Calibrate fits by group
#'
#' `calibrate()` of a result of [ncam_by()] calibrates each group's fit with [calibrate()] on
#' that group's rows of `data`, matched by the `by` columns as `predict()` matches new rows.
#' `predict()` and `augment()` of the result give each row of new data the calibrated interval
#' of its group.
#'
#' A group's calibration is `calibrate(fits$fit[[i]], <its rows of data without the by
#' columns>, seed = .seed, ...)` with the other arguments as given: the same numbers as
#' calibrating the groups one by one, and the same warnings and messages, each naming its
#' group (such as `ncam_warning_in_sample_calibration` for calibration rows that trained the
#' group's fit) and numbering rows as rows of `data`, not of the group's share of it.
#' `method`, when not given, is chosen once for all groups as [calibrate()] chooses it on the
#' whole of `data`: `"split"` with reference readings (`reference`, or the fits' reference
#' column with an observed value in `data`), otherwise `"mc_model"`.
#'
#' Rows of `data` whose key is missing (`NA`, which is no group's, not even that of the text
#' `"NA"`) or is no group's, or is a group's left without a model by
#' `errors = "skip"`, are left out with a warning of class `ncam_warning_no_group_model`
#' naming them. A group with a model but no row in `data` is an error naming it: add rows of
#' it, or calibrate the other groups alone (`calibrate(fits[-i, ], data)`). An error in a
#' group's calibration (such as a group without any reference reading for `"split"`) stops
#' the call, naming the group.
#'
#' @section Reproducibility: the Monte Carlo methods draw with a seed per group, derived from
#'   `seed` and the group's key values as [ncam_by()] derives its seeds (with `seed = NULL`,
#'   from one number drawn from R's current stream, so [set.seed()] applies) and kept in
#'   column `.seed`: a group keeps its calibration when other groups come or go.
#'
#' @param object For `calibrate()`, a result of [ncam_by()]; for `predict()`, a result of
#'   `calibrate()` of one.
#' @param data Calibration data: a data frame with the `by` columns and the columns that
#'   [calibrate()] needs, rows of any groups in any order.
#' @param method,level,m,reference,correction,threads As for [calibrate()], the same for every
#'   group. For `tidy()`, `level` is the levels of its rows, as for [tidy.ncam_calibration()]; by
#'   default 50, 80, 90 and 95 % and each group's own level.
#' @param seed `NULL` or a whole number, for the Monte Carlo methods; see Reproducibility.
#' @param x A result of `calibrate()` of fits by group.
#' @param newdata A data frame with the `by` columns and the sensor and covariate columns of
#'   the models.
#' @param ... For `predict()` and `augment()`: `level`, as for [predict.ncam_calibration()]
#'   (by default each group's own level). Must be empty for `calibrate()` (which points
#'   `newdata` to `data`), `glance()` and `tidy()`.
#' @return `calibrate()`: a tibble of class `ncam_by_calibration`, one row per group of
#'   `object` in its order: the `by` columns, `.n` (the group's rows in `data`), `.seed` (the seed of its draws; `NA` for `"split"` and `"sensor_anchored"`, which
#'   draw none, and for a group without a model) and `calibration` (a list of `ncam_calibration`
#'   objects as from [calibrate()], `NULL` for a group without a model), with attributes `by`,
#'   `ncam_version` and `object_format`.
#'
#'   `predict()`: the tibble of [predict.ncam_calibration()], one row per row of `newdata`, in
#'   order; rows of a group without a calibration get `NA`, with a warning naming the groups,
#'   as in [predict.ncam_by()]. A group's own warnings (such as `ncam_warning_small_calibration`
#'   for a calibration too small for `level`) name it, and come only when `newdata` has rows
#'   of it. `augment()`: `newdata` with those columns added (in the units of the estimate beside
#'   columns with units, as for [augment.ncam()]). `tidy()` and
#'   `glance()`: the `by` columns followed by the rows of [tidy.ncam_calibration()] or
#'   [glance.ncam_calibration()] for each group with a calibration, groups in the order of `x`.
#' @seealso [calibrate()] for the methods and their coverage; [ncam_by()].
#' @examples
#' toy <- simulate_toy(n = 800, seed = 1)
#' toy$site <- rep(c("north", "south"), 400)
#' fits <- ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy[1:600, ], by = "site",
#'                 hidden = 8, epochs = 300, learn_rate = 0.02, seed = 1)
#' cals <- calibrate(fits, toy[601:700, ], m = 10, seed = 1)
#' cals
#' head(predict(cals, toy[701:800, ], level = 0.8))
#' glance(cals)
#' # Group by group, by hand: the same threshold
#' north <- toy[601:700, ][toy$site[601:700] == "north", names(toy) != "site"]
#' by_hand <- calibrate(fits$fit[[1]], north, m = 10, seed = cals$.seed[1])
#' identical(by_hand$quantile, cals$calibration[[1]]$quantile)
#' @name ncam_by-calibrate
NULL

#' @rdname ncam_by-calibrate
#' @method calibrate ncam_by
#' @export
calibrate.ncam_by <- function(object, data, method = NULL, level = 0.9, m = 50, reference = NULL,
                              seed = NULL, correction = c("stutz", "ecdf"), threads = NULL, ...) {
  check_dots_empty_hinted(calibrate_data_hints)
  check_ncam_by(object)
  check_data_given(missing(data))
  check_data_frame(data)
  by <- attr(object, "by")
  check_columns(data, by, "object", data_arg = "data")
  if (nrow(data) == 0L) ncam_abort("{.arg data} has no rows: calibration needs rows held out from training.")
  modelled <- which(has_fit(object))
  if (!length(modelled)) {
    ncam_abort(c("{.arg object} has no group with a model to calibrate.",
                 i = if (nrow(object) > 0L) "{.fn ncam_by} with {.code errors = \"skip\"} warned why each group could not be fitted."))
  }
  # The arguments that do not depend on a group are checked once, not as an error of a group.
  method <- by_group_method(object$fit[modelled], data, method, reference)
  check_scalar_level(level)
  check_number(m, "m", min = 1, integer = TRUE)
  check_seed(seed)
  group <- match_groups(object, data[by], arg = "data",
                        outcome = "{cli::qty(n_rows)}{?it is/they are} left out of the calibration", keep_failed = TRUE)
  # .n counts a group's rows whether or not it has a model to calibrate.
  n_rows <- tabulate(group, nrow(object))
  group[!is.na(group) & !has_fit(object)[group]] <- NA
  empty <- modelled[n_rows[modelled] == 0L]
  if (length(empty)) {
    others <- sprintf("calibrate(object[-c(%s), ], data)", toString(empty))
    ncam_abort(c("{length(empty)} group{?s} of {.arg object} {?has/have} no row in {.arg data} to calibrate {?its/their} model{?s} on: {shown_labels(object[empty, by, drop = FALSE])}.",
                 i = "Add rows of {cli::qty(length(empty))}{?that group/those groups} to {.arg data}, or calibrate the other groups alone: {.code {others}}."))
  }
  refuse_draw_arguments(method, c(if (!missing(m)) "m", if (!is.null(seed)) "seed", if (!missing(correction)) "correction"))
  draws <- method %in% c("mc_model", "mc_empirical")
  seeds <- if (draws) group_seeds(resolve_seed(seed), key_strings(key_columns(object[by], "object"))) else
    rep(NA_integer_, nrow(object))
  seeds[-modelled] <- NA_integer_
  # Only the arguments given reach calibrate(), which refuses draw arguments for other methods.
  args <- list(method = method, level = level, reference = reference, threads = threads)
  if (!missing(m)) args$m <- m
  if (!missing(correction)) args$correction <- correction
  labels <- group_labels(object[by])
  calibrations <- vector("list", nrow(object))
  for (g in modelled) {
    rows <- which(group == g)
    calibrations[g] <- list(calibrate_group(object$fit[[g]], data[rows, !names(data) %in% by, drop = FALSE], rows,
                                            labels[g], c(args, list(seed = if (draws) seeds[g]))))
  }
  out <- c(as.list(object[by]), list(.n = n_rows, .seed = seeds, calibration = calibrations))
  do.call(tibble::new_tibble, c(list(out, nrow = nrow(object), by = by, class = "ncam_by_calibration"),
                                made_by()))
}

# The method of every group: as given, or as calibrate() chooses it on the whole of `data`:
# "split" with reference readings (`reference`, or a fit's reference column with an observed
# value), else "mc_model".
by_group_method <- function(fits, data, method, reference) {
  if (!is.null(method)) {
    return(match_choice(method, c("mc_model", "split", "mc_empirical", "sensor_anchored"), "method",
                        call = parent.frame()))
  }
  own <- unique(unlist(lapply(fits, `[[`, "reference")))
  observed <- vapply(own, function(col) col %in% names(data) && !all(is.na(data[[col]])), logical(1))
  if (!is.null(reference) || any(observed)) "split" else "mc_model"
}

# One group's calibrate() on its rows of `data` (`group_data`, rows `rows` of `data`): its
# warnings and messages name the group (their classes and fields kept, so that handlers for a
# class catch them as from calibrate()) and rows of `data`; an error stops the call, naming the
# group.
calibrate_group <- function(fit, group_data, rows, label, args) {
  withCallingHandlers(
    with_group_name(with_input_rows(rows, do.call(calibrate, c(list(fit, group_data), args))), label),
    error = function(e) ncam_abort("Could not calibrate group {label}.", parent = e, call = NULL)
  )
}

#' @rdname ncam_by-calibrate
#' @export
predict.ncam_by_calibration <- function(object, newdata, ..., threads = NULL) {
  check_ncam_by_calibration(object)
  check_augment_newdata(newdata, missing(newdata))
  predict_by_group(object, newdata, ..., threads = threads)
}

#' @rdname ncam_by-calibrate
#' @export
augment.ncam_by_calibration <- function(x, newdata, ...) {
  check_augment_newdata(newdata, missing(newdata))
  bind_predictions(newdata, stats::predict(x, newdata, ...), group_models(x)[[which(has_fit(x))[1]]])
}

#' @rdname ncam_by-calibrate
#' @export
tidy.ncam_by_calibration <- function(x, level = NULL, ...) {
  check_dots_empty_hinted(levels_hint)
  per_group_table(x, function(cal) {
    if (is.null(level)) tidy.ncam_calibration(cal) else tidy.ncam_calibration(cal, level = level)
  })
}

#' @rdname ncam_by-calibrate
#' @export
glance.ncam_by_calibration <- function(x, ...) per_group_table(x, glance.ncam_calibration, ...)

# A result of calibrate() of fits by group as its methods read it: a data frame with attribute
# `by` naming its key columns and a list column `calibration` of calibrations (NULL for a group
# without a model), one per group.
check_ncam_by_calibration <- function(object, arg = "object", call = parent.frame()) {
  check_group_table(object, "calibration", "ncam_calibration", check_calibration, arg, call,
                    what = "a valid calibration of fits by group",
                    fix = "It needs its {.code by} attribute, those key columns and a list column {.field calibration} of {.cls ncam_calibration} objects: calibrate the fits of {.fn ncam_by} again.")
}
