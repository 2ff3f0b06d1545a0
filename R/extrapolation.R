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

# The calibration range in the user's units (sensor readings back from log units, names without
# R's backticks), or NULL for a model saved without one.
user_calibration_range <- function(object) {
  range_table <- object$calibration_range
  if (is.null(range_table)) return(NULL)
  sensor <- range_table$kind == "sensor"
  range_table$lower[sensor] <- ncam_untransform(object, range_table$lower[sensor])
  range_table$upper[sensor] <- ncam_untransform(object, range_table$upper[sensor])
  range_table$variable <- plain_names(range_table$variable)
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
    # Only the rows outside the range (few, usually) are worked on: a pass over every row
    # per variable took several times as long as the networks in predict().
    out <- rows_outside(v, lower, upper)
    if (!length(out)) next
    share <- pmax(lower - v[out], v[out] - upper) / (upper - lower)
    distance[out] <- pmax(distance[out], share)
    far_rows <- is_far(share) & ok[out]
    if (any(far_rows)) {
      farthest <- out[far_rows][which.max(share[far_rows])]
      far[[range_table$variable[k]]] <- list(kind = range_table$kind[k], rows = sum(far_rows),
                                             lower = lower, upper = upper, farthest = v[farthest],
                                             first_rows = utils::head(out[far_rows], 5L))
    }
  }
  distance[!ok] <- NA_real_
  list(distance = distance, far = far)
}
