# Where a prediction leaves the conditions its calibration was learned in. A model fitted with
# a reference learns the sensors' gains and offsets from the co-location rows; beyond the
# readings and covariates seen there it extrapolates, and on PurpleAir's short co-location
# such rows err several times more (bench/colocation_mechanism.R, section 11).

# Share of the calibration range beyond which predict() warns about a row.
extrapolation_warning_share <- 0.25

# Lowest and highest value of each sensor reading and covariate over the calibration rows
# (model units): the rows with a reference reading for a model fitted with `reference`, else
# all fitted rows. A sensor never read on those rows has no range and is not checked.
calibration_range <- function(x, readings, rows) {
  cols <- c(readings, x)
  bounds <- vapply(cols, function(v) {
    v <- v[rows]
    v <- v[!is.na(v)]
    if (length(v)) range(v) else c(NA_real_, NA_real_)
  }, numeric(2))
  data.frame(variable = names(cols), kind = rep(c("sensor", "covariate"), c(length(readings), length(x))),
             lower = bounds[1, ], upper = bounds[2, ], row.names = NULL, stringsAsFactors = FALSE)
}

# The calibration range in the user's units (sensor readings back from log units), or NULL
# for a model saved without one.
user_calibration_range <- function(object) {
  range_table <- object$calibration_range
  if (is.null(range_table)) return(NULL)
  sensor <- range_table$kind == "sensor"
  range_table$lower[sensor] <- ncam_untransform(object, range_table$lower[sensor])
  range_table$upper[sensor] <- ncam_untransform(object, range_table$upper[sensor])
  range_table
}

# Per row: how far its readings and covariates lie outside the calibration range, as a share of
# that range (0 inside it; the largest over the row's observed values). A value outside a range
# of width zero is infinitely far. `NA` for rows with a missing covariate, and for every row of
# a model saved without a calibration range. Also, per variable, the rows beyond the warning
# share and the most extreme value, for the warning.
extrapolation_distance <- function(object, x, readings, ok) {
  n <- length(ok)
  range_table <- object$calibration_range
  if (is.null(range_table)) return(list(distance = rep(NA_real_, n), far = NULL))
  cols <- c(readings[object$sensors], if (is.list(x)) x else as_columns(x))
  distance <- numeric(n)
  far <- list()
  for (k in which(!is.na(range_table$lower))) {
    v <- cols[[range_table$variable[k]]]
    lower <- range_table$lower[k]
    upper <- range_table$upper[k]
    beyond <- pmax(lower - v, v - upper, 0)
    beyond[is.na(beyond)] <- 0
    share <- ifelse(beyond > 0, beyond / (upper - lower), 0)
    distance <- pmax(distance, share)
    far_rows <- is_far(share) & ok
    if (any(far_rows)) {
      farthest <- which(far_rows)[which.max(share[far_rows])]
      far[[range_table$variable[k]]] <- list(kind = range_table$kind[k], rows = sum(far_rows),
                                             lower = lower, upper = upper, farthest = v[farthest])
    }
  }
  distance[!ok] <- NA_real_
  list(distance = distance, far = far)
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
    sprintf("%s: %d row%s outside %s to %s (as %s as %s)", v, f$rows, if (f$rows == 1L) "" else "s",
            shown[1], shown[2], if (f$farthest < f$lower) "low" else "high", shown[3])
  }, character(1))
  warn_far_rows(n_far, n_rows, paste("of", on), stats::setNames(details, rep("*", length(details))))
}

# The same warning after scoring in parts (chunks, groups), from the counts alone.
warn_extrapolation_total <- function(n_far, n_rows, parts) {
  warn_far_rows(n_far, n_rows, "the calibration was learned from",
                hint = paste0("; {.fn predict} on one of the ", parts, " names the variables"))
}

warn_far_rows <- function(n_far, n_rows, on, details = character(), hint = "") {
  if (n_far == 0) return(invisible())
  cli::cli_warn(c("{n_far} of {n_rows} row{?s} lie more than {100 * extrapolation_warning_share}% of the range outside the readings and covariates {on}; their predictions extrapolate the calibration and are less reliable.",
                  details,
                  i = paste0("Column {.field .extrapolation} gives each row's distance outside the range, as a share of it (0 inside)", hint, ".")),
                class = "ncam_extrapolation", call = NULL)
}

# Which distances (column .extrapolation) are far enough outside to warn about; NA is not.
is_far <- function(distance) !is.na(distance) & distance > extrapolation_warning_share

# Rows of a prediction table far outside the calibration range.
count_far <- function(scored) sum(is_far(scored$.extrapolation))

# Evaluates expr with the extrapolation warnings of its parts muffled (they are summed up
# afterwards by warn_extrapolation_total()).
without_part_warnings <- function(expr) {
  withCallingHandlers(expr, ncam_extrapolation = function(w) invokeRestart("muffleWarning"))
}
