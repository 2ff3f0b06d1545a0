#' Evaluate fused predictions against a reference
#'
#' Computes point and, when interval bounds are present, interval metrics of
#' fused predictions against reference (ground-truth) values.
#'
#' Rows where `truth` or `.pred` is missing are dropped, with a message saying
#' how many; if no row is left the metrics are undefined and an error says so.
#' So are rows of `pred` with `.n_sensors` = 0 (see [predict.ncam()]): no sensor
#' read there, and the estimate is the model's prior from the covariates alone,
#' not a measurement, as [sensor_performance()] leaves them out too. A vector of
#' missing values read as logical (an empty column) is taken as missing numbers.
#' Infinite values of `truth` or `.pred` are an error, and so are values beyond
#' 1e150 in magnitude, too large to compute with in double precision (as in
#' [ncam()]), and two columns of one name among `.pred`, `.pred_lower` and
#' `.pred_upper`. Coverage is the share of
#' rows with `.pred_lower <= truth <= .pred_upper`; infinite bounds count as
#' covering and give an infinite `mean_width`. Interval bounds must be present
#' on every row kept and satisfy `.pred_lower <= .pred_upper`; otherwise an
#' error names the rows at fault. A `pred` with only one of the two bound
#' columns gives a warning and point metrics only.
#'
#' **Units**: values of class `"units"` (the units package) are compared in one
#' unit, that of the predictions when they carry units, else that of `truth`:
#' `truth` in mg/m3 against predictions in ug/m3 is converted to ug/m3 (and
#' interval bounds with units likewise), with a message, and units of another
#' quantity (ppb against ug/m3) are an error. So are predictions and `truth` of
#' which only one has units: the predictions of `predict()` are plain numbers in
#' the units of the readings the model was fitted to, and `truth` in mg/m3
#' beside them would be compared number for number. Give both units (such as
#' `units::set_units(pred$.pred, "ug/m3")`) or neither. Interval bounds without
#' units beside predictions with units are taken to be in their units, with a
#' message. The metrics are plain numbers in that unit.
#'
#' @param pred A data frame from `predict()` (with column `.pred` and optionally
#'   `.pred_lower` and `.pred_upper`), or a numeric vector of predictions (a
#'   one-column matrix is taken as a vector; a matrix of several columns is an
#'   error).
#' @param truth The reference values, one per prediction, in the units of the
#'   predictions (or of class `"units"`: see Details): a numeric vector, or the
#'   name of a column of `pred` that holds them (such as `truth = "ref"` for
#'   `augment(fit, newdata)`, which keeps the reference column beside the
#'   predictions).
#' @return A one-row tibble with `rmse`, `mae`, `coverage` and `mean_width`
#'   (the last two only when `pred` has interval bounds) and `n`, the number of
#'   rows used; `rmse`, `mae` and `mean_width` are in the units of the
#'   predictions (see Details). Tibbles have no row names: to stack the scores of
#'   several predictions under their names, bind them with
#'   `dplyr::bind_rows(scores, .id = "method")`, or in base R turn each into a
#'   data frame first (`as.data.frame()`), whose `rbind()` keeps the names of a
#'   named list as row names.
#' @export
#' @examples
#' pred <- data.frame(.pred = c(1, 2, 3), .pred_lower = c(0, 1, 2.5),
#'                    .pred_upper = c(2, 3, 3.5), ref = c(1.5, 3.2, 3))
#' evaluate_fusion(pred, truth = "ref")
#' evaluate_fusion(pred, truth = c(1.5, 3.2, 3))
evaluate_fusion <- function(pred, truth) {
  truth <- truth_values(pred, truth)
  if (is.data.frame(pred)) {
    if (!".pred" %in% names(pred)) {
      ncam_abort(c("{.arg pred} has no column {.field .pred}, the predictions of {.fn predict};
                        its column{?s}: {.val {names(pred)}}.",
                   i = "Rename the prediction column to {.field .pred}, or pass it as a
                            vector (such as {.code pred${names(pred)[1]}})."))
    }
    # With two columns of one name, pred$.pred would silently take the first.
    check_single_columns(pred, intersect(c(".pred", ".pred_lower", ".pred_upper"), names(pred)), data_arg = "pred")
    estimate <- all_missing_as_numeric(pred$.pred)
    if (inherits(estimate, "integer64")) estimate <- integer64_to_double(estimate, ".pred", environment())
    check_numeric_column(estimate, ".pred")
  } else if (is.numeric(pred) || is_all_missing(pred)) {
    pred <- all_missing_as_numeric(pred)
    # A matrix would be flattened column after column and paired with truth silently.
    if (length(dim(pred)) > 1L) {
      if (length(dim(pred)) != 2L || ncol(pred) != 1L) {
        ncam_abort(c("{.arg pred} is a {paste(dim(pred), collapse = ' x ')} {if (is.matrix(pred)) 'matrix' else 'array'}, not one prediction per value of {.arg truth}.",
                     i = "Pass a numeric vector (one column, such as {.code pred[, 1]}) or the data frame of {.fn predict}."))
      }
      pred <- pred[, 1]
    }
    estimate <- if (inherits(pred, "integer64")) integer64_to_double(pred, "pred", environment()) else pred
  } else {
    ncam_abort("{.arg pred} must be a data frame from {.fn predict} or a numeric vector,
                    not {.obj_type_friendly {pred}}.")
  }
  truth <- all_missing_as_numeric(truth)
  if (inherits(truth, "integer64")) truth <- integer64_to_double(truth, "truth", environment())
  if (!is.numeric(truth)) {
    ncam_abort("{.arg truth} must be a numeric vector or the name of a column of {.arg pred},
                    not {.obj_type_friendly {truth}}.")
  }
  if (length(truth) != length(estimate)) {
    ncam_abort("{.arg truth} has {length(truth)} value{?s} but {.arg pred} has
                    {length(estimate)} prediction{?s}; they must match.")
  }
  values <- in_common_units(list(
    pred = estimate, truth = truth,
    # [[ ]], not $: a tibble warns about a column it lacks (predictions without an interval).
    .pred_lower = if (is.data.frame(pred)) pred[[".pred_lower"]],
    .pred_upper = if (is.data.frame(pred)) pred[[".pred_upper"]]
  ), prediction = if (is.data.frame(pred)) "{.field .pred}" else "{.arg pred}")
  estimate <- values$pred
  truth <- values$truth
  if (!is.null(values$.pred_lower)) pred$.pred_lower <- values$.pred_lower
  if (!is.null(values$.pred_upper)) pred$.pred_upper <- values$.pred_upper
  check_no_infinite(truth, "{.arg truth}")
  check_no_infinite(estimate, "{.field .pred}")
  check_not_too_large(truth, "{.arg truth}")
  check_not_too_large(estimate, "{.field .pred}")

  # Rows without a sensor reading carry the model's prior, not a measurement (predict() warns).
  prior_only <- if (is.data.frame(pred) && ".n_sensors" %in% names(pred)) which(pred$.n_sensors %in% 0 & !is.na(estimate))
  estimate[prior_only] <- NA
  keep <- !is.na(truth) & !is.na(estimate)
  dropped <- sum(!keep) - length(prior_only)
  if (!any(keep)) {
    ncam_abort(c("No row has both a {.arg truth} and a {.field .pred} value, so the
                      metrics are undefined.",
                 i = if (length(prior_only)) {
                   "{length(prior_only)} row{?s} of {length(keep)} {cli::qty(length(prior_only))}{?has/have} no sensor reading ({.field .n_sensors} = 0); the others miss one or the other."
                 } else {
                   "All {length(keep)} row{?s} miss one or the other; check that
                    {.arg truth} is the reference for the rows of {.arg pred}."
                 }))
  }
  if (length(prior_only)) {
    ncam_inform("Dropped {length(prior_only)} row{?s} with {.field .n_sensors} = 0 (no sensor reading: the estimate is the model's prior, not a measurement).",
                "ncam_message_prior_rows")
  }
  if (dropped > 0L) {
    ncam_inform("Dropped {dropped} row{?s} with a missing {.arg truth} or {.field .pred}.",
                "ncam_message_dropped_rows")
  }
  err <- estimate[keep] - truth[keep]
  out <- tibble::tibble(rmse = sqrt(mean(err^2)), mae = mean(abs(err)))
  bounds <- interval_bounds(pred, keep)
  if (!is.null(bounds)) {
    y <- truth[keep]
    out$coverage <- mean(y >= bounds$lower & y <= bounds$upper)
    # Equal infinite bounds are a zero-width interval, not Inf - Inf = NaN.
    width <- ifelse(bounds$lower == bounds$upper, 0, bounds$upper - bounds$lower)
    out$mean_width <- mean(width)
  }
  out$n <- sum(keep)
  out
}

# `truth` as given, or the column of data frame `pred` it names (one string).
truth_values <- function(pred, truth, call = parent.frame()) {
  if (!(is.character(truth) && length(truth) == 1L)) return(truth)
  if (is.na(truth) || !nzchar(truth)) {
    ncam_abort("{.arg truth} must be a numeric vector or the name of a column of {.arg pred}, not {.val {truth}}.",
               call = call)
  }
  if (!is.data.frame(pred)) {
    ncam_abort(c("{.arg truth} names a column ({.val {truth}}), but {.arg pred} is not a data frame.",
                 i = "Give {.arg truth} as the vector of reference values, or {.arg pred} as the data frame holding both."),
               call = call)
  }
  if (!truth %in% names(pred)) {
    ncam_abort(c("{.arg truth} names column {.val {truth}}, which {.arg pred} lacks.",
                 i = "Its column{?s}: {.val {names(pred)}}."), call = call)
  }
  check_single_columns(pred, truth, call, data_arg = "pred")
  column <- pred[[truth]]
  if (!is.numeric(column) && !is_all_missing(column) && !inherits(column, "integer64")) {
    ncam_abort("Column {.val {truth}} of {.arg pred} (from {.arg truth}) must be numeric, not
                {.obj_type_friendly {column}}.", call = call)
  }
  column
}

# Predictions, truth and bounds (NULL when absent) in one unit when any carries units (units
# package): those of the predictions, else of the first that has some. Units of another
# quantity are an error, and so are predictions and truth of which one alone has units; bounds
# without units are taken to be in that unit. Plain numbers out.
# `prediction` is cli text naming the predictions.
in_common_units <- function(values, prediction, call = parent.frame()) {
  values <- Filter(Negate(is.null), values)
  carry <- vapply(values, inherits, logical(1), "units")
  if (!any(carry)) return(values)
  label <- function(name) {
    switch(name, truth = "{.arg truth}", pred = prediction, paste0("{.field ", name, "}"))
  }
  # One side with units and the other without would be compared number for number: mg/m3
  # truth beside predictions in ug/m3 (predict() gives plain numbers) 1000 times off.
  if (carry[["pred"]] != carry[["truth"]]) {
    with_units <- if (carry[["pred"]]) "pred" else "truth"
    without <- setdiff(c("pred", "truth"), with_units)
    ncam_abort(c("{cli::format_inline(label(with_units))} is in {.val {unit_text(values[[with_units]])}} but {cli::format_inline(label(without))} has no units: which unit its numbers are in is unknown.",
                 i = "Give both with units (such as {.code units::set_units(x, \"ug/m3\")}), or neither."),
               call = call)
  }
  owner <- names(values)[carry][1]
  goal <- unit_text(values[[owner]])
  of_owner <- cli::format_inline(label(owner))
  for (name in names(values)[carry]) {
    given <- unit_text(values[[name]])
    subject <- cli::format_inline(label(name))
    if (!identical(given, goal)) {
      values[[name]] <- convert_units(values[[name]], goal, c(
        "{subject} is in {.val {given}}, which cannot be converted to {.val {goal}}, the units
         of {of_owner}.",
        i = "Compare values of one quantity, or convert them yourself first."), call)
      ncam_inform("{subject} is converted from {given} to {goal}, the units of {of_owner}.",
                  "ncam_message_units")
    }
    values[[name]] <- units::drop_units(values[[name]])
  }
  plain <- names(values)[!carry]
  if (length(plain) > 0L) {
    shown <- vapply(plain, function(name) cli::format_inline(label(name)), character(1))
    ncam_inform("{shown}, without units, {cli::qty(length(plain))}{?is/are} taken to be in
                 {goal}, the units of {of_owner}.", "ncam_message_units")
  }
  values
}

# The interval bounds of `pred` on the kept rows, or NULL when it has none.
# Missing or crossed bounds on a kept row would give an NA or wrong coverage.
interval_bounds <- function(pred, keep, call = parent.frame()) {
  if (!is.data.frame(pred)) return(NULL)
  has <- c(".pred_lower", ".pred_upper") %in% names(pred)
  if (!any(has)) return(NULL)
  if (!all(has)) {
    cli::cli_warn(c("{.arg pred} has column {.field {c('.pred_lower', '.pred_upper')[has]}} but
                     not {.field {c('.pred_lower', '.pred_upper')[!has]}}; interval metrics are
                     skipped.",
                    i = "Predict with an interval to get both bounds."), class = c("ncam_warning_partial_interval", "ncam_warning"))
    return(NULL)
  }
  lower <- pred$.pred_lower
  upper <- pred$.pred_upper
  check_numeric_column(lower, ".pred_lower", call = call)
  check_numeric_column(upper, ".pred_upper", call = call)
  missing_bound <- which(keep & (is.na(lower) | is.na(upper)))
  if (length(missing_bound) > 0L) {
    ncam_abort(c("{.arg pred} has a missing {.field .pred_lower} or {.field .pred_upper} in
                      {cli::qty(length(missing_bound))}row{?s} {missing_bound}, where
                      {.field .pred} and {.arg truth} are present.",
                 i = "Set {.field .pred} to {.code NA} on rows without an interval to
                          drop them."), call = call)
  }
  crossed <- which(keep & lower > upper)
  if (length(crossed) > 0L) {
    ncam_abort(c("{.arg pred} has {.field .pred_lower} above {.field .pred_upper} in
                      {cli::qty(length(crossed))}row{?s} {crossed}.",
                 i = "Intervals must satisfy {.code .pred_lower <= .pred_upper}; check
                          that the bound columns are not swapped."), call = call)
  }
  list(lower = lower[keep], upper = upper[keep])
}

check_numeric_column <- function(x, column, call = parent.frame()) {
  if (!is.numeric(x)) {
    ncam_abort("Column {.field {column}} of {.arg pred} must be numeric, not
                    {.obj_type_friendly {x}}.", call = call)
  }
  invisible(x)
}

# `subject` is cli text naming the input, such as "{.arg truth}".
check_no_infinite <- function(x, subject, call = parent.frame()) {
  rows <- which(is.infinite(x))
  if (length(rows) > 0L) {
    ncam_abort(c(paste0(subject, " has infinite values in {cli::qty(length(rows))}row{?s}
                            {rows}."),
                 i = "Set them to {.code NA} to drop those rows."), call = call)
  }
  invisible(x)
}
