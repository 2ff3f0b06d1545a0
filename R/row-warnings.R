# Warnings about rows of a prediction: rows far outside the calibration range, and rows with a
# missing covariate, whose prediction is NA. predict() gives one warning of each kind, naming
# the variables; predict_chunks() and predict() on ncam_by() fits muffle those of their parts
# and give one of each with the totals.

# Per covariate, how many of the rows without a prediction have it missing.
missing_covariate_counts <- function(object, newdata, no_prediction) {
  if (!any(no_prediction)) return(integer(0))
  counts <- vapply(model_columns(object$terms), function(v) sum(is.na(newdata[[v]][no_prediction])), integer(1))
  counts[counts > 0L]
}

warn_missing_covariates <- function(n_missing, n_rows, counts = integer(0), hint = "") {
  if (n_missing == 0) return(invisible())
  details <- sprintf("%s: %d row%s", names(counts), counts, ifelse(counts == 1L, "", "s"))
  cli::cli_warn(c("{n_missing} of {n_rows} row{?s} {cli::qty(n_missing)}{?has a/have a} missing covariate: {?its prediction is/their predictions are} {.val NA}.",
                  stats::setNames(details, rep("*", length(details))),
                  i = paste0("Fill in the missing covariate values, or leave those rows out", hint, ".")),
                class = c("ncam_missing_covariate", "ncam_row_warning"), call = NULL)
}

# One warning for the rows of a prediction that lie far outside the calibration range, naming
# the variables (sensor bounds in the user's units).
warn_extrapolation <- function(object, far, n_far, n_rows) {
  on <- if (is.null(object$reference)) "the fitted rows" else
    paste0("the co-location rows (those with a reference reading, `", object$reference, "`)")
  details <- vapply(names(far), function(v) {
    f <- far[[v]]
    shown <- signif(c(f$lower, f$upper, f$farthest), 4)
    if (f$kind == "sensor") shown <- signif(ncam_untransform(object, c(f$lower, f$upper, f$farthest)), 4)
    sprintf("%s: %d row%s outside %s to %s (as %s as %s)", plain_names(v), f$rows, if (f$rows == 1L) "" else "s",
            shown[1], shown[2], if (f$farthest < f$lower) "low" else "high", shown[3])
  }, character(1))
  warn_far_rows(n_far, n_rows, paste("of", on), stats::setNames(details, rep("*", length(details))))
}

# The same warning after scoring in parts (chunks, groups), from the counts alone.
warn_extrapolation_total <- function(n_far, n_rows, parts) {
  warn_far_rows(n_far, n_rows, "the model learned from",
                hint = paste0("; {.fn predict} on one of the ", parts, " names the variables"))
}

warn_far_rows <- function(n_far, n_rows, on, details = character(), hint = "") {
  if (n_far == 0) return(invisible())
  cli::cli_warn(c("{n_far} of {n_rows} row{?s} lie more than {100 * extrapolation_warning_share}% of the range outside the readings and covariates {on}; their predictions extrapolate what the model learned and are less reliable.",
                  details,
                  i = paste0("Column {.field .extrapolation} gives each row's distance outside the range, as a share of it (0 inside)", hint, ".")),
                class = c("ncam_extrapolation", "ncam_row_warning"), call = NULL)
}

# Which distances (column .extrapolation) are far enough outside to warn about; NA is not.
is_far <- function(distance) !is.na(distance) & distance > extrapolation_warning_share

# Rows of a prediction table far outside the calibration range.
count_far <- function(scored) sum(is_far(scored$.extrapolation))

# Rows of a prediction table to warn about: far outside the calibration range, and without a
# prediction for a missing covariate (.n_sensors is NA only there).
row_flags <- function(scored) c(far = count_far(scored), missing = sum(is.na(scored$.n_sensors)))

# Evaluates expr with the row warnings of its parts muffled (warn_part_totals() sums them up).
without_part_warnings <- function(expr) {
  withCallingHandlers(expr, ncam_row_warning = function(w) invokeRestart("muffleWarning"))
}

# The row warnings after scoring in parts (chunks, groups), from the summed row_flags().
warn_part_totals <- function(flags, n_rows, parts) {
  warn_extrapolation_total(flags[["far"]], n_rows, parts)
  warn_missing_covariates(flags[["missing"]], n_rows,
                          hint = paste0("; {.fn predict} on one of the ", parts, " names the covariates"))
}
