# How sensor_performance() scores a set of sensor-reference pairs: OLS, errors, EPA
# inter-unit precision, the EU expanded uncertainty and the EU between-sampler uncertainty.

# OLS (sensor on reference), error metrics and the EU expanded uncertainty of one set of pairs.
pair_metrics <- function(frame, limit_value, reference_uncertainty) {
  paired <- !is.na(frame$est) & !is.na(frame$ref)
  y <- frame$est[paired]
  x <- frame$ref[paired]
  if (length(x) < 3L) {
    return(metric_row(length(x), limit_value, note = "fewer than 3 complete pairs"))
  }
  metric_row(length(x), limit_value, list(
    regression_metrics(x, y), error_metrics(y, x),
    expanded_uncertainty(x, y, limit_value, reference_uncertainty)
  ))
}

# The rows of one averaging: one per unit (none when `units` is empty), then "all" with the
# inter-unit precision and between-sampler uncertainty. Co-location is judged on the block's own
# periods (`period`), with the reference_agreement() of the rows as given (`raw`) where those
# cannot tell. `split`: the between_sampler_uncertainty() split (none for O3).
score_units <- function(frame, units, raw, period, limit_value, reference_uncertainty,
                        split = numeric()) {
  unit_rows <- do.call(rbind, lapply(units, function(u) {
    pair_metrics(frame[frame$unit == u, ], limit_value, reference_uncertainty)
  }))
  colocation <- judge_colocation(frame, raw, period)
  all_row <- all_units_metrics(frame, unit_rows, colocation$colocated, limit_value,
                               reference_uncertainty)
  precision <- if (colocation$colocated) {
    inter_unit_precision(frame)
  } else {
    list(n = NA_integer_, sd = NA_real_, cv = NA_real_)
  }
  between <- between_sampler_uncertainty(frame, period, split, colocation$colocated)
  all_row$note <- paste_notes(all_row$note, colocation$note, precision$note, between$note,
                              units_without_pairs(frame, units))
  none <- rep(NA_real_, length(units))
  cbind(unit = c(units, "all"), rbind(unit_rows, all_row),
        n_precision = c(as.integer(none), precision$n), sd = c(none, precision$sd),
        cv = c(none, precision$cv), n_between_sampler = c(as.integer(none), between$n),
        between_sampler_uncertainty = c(none, between$whole),
        between_sampler_uncertainty_below = c(none, between$below),
        between_sampler_uncertainty_above = c(none, between$above))
}

# The "all" row: with one unit, that unit's row. With several, R2, slope and intercept are
# the means of the units' values, as EPA's sensortoolkit reports them (it regresses each
# sensor); RMSE, NRMSE and MBE of co-located units are over the times when every unit and
# the reference report (Duvall et al. 2021), else over the pooled pairs, as is the EU test.
all_units_metrics <- function(frame, unit_rows, colocated, limit_value, reference_uncertainty) {
  paired <- !is.na(frame$est) & !is.na(frame$ref)
  if (NROW(unit_rows) < 2L || sum(paired) < 3L) {
    return(pair_metrics(frame, limit_value, reference_uncertainty))
  }
  y <- frame$est[paired]
  x <- frame$ref[paired]
  errors <- if (colocated) common_time_errors(frame, paired) else error_metrics(y, x)
  metric_row(sum(paired), limit_value, list(
    mean_of_units(unit_rows), errors,
    expanded_uncertainty(x, y, limit_value, reference_uncertainty)
  ))
}

# Means of the units' R2, slope and intercept over the units where each is defined.
mean_of_units <- function(unit_rows) {
  average <- function(v) if (all(is.na(v))) NA_real_ else mean(v, na.rm = TRUE)
  out <- lapply(unit_rows[c("r2", "slope", "intercept")], average)
  if (is.na(out$slope)) {
    out$note <- "no unit has a regression"
  } else if (is.na(out$r2)) {
    out$note <- "no unit has an R\u00b2"
  }
  out
}

# EPA's RMSE of co-located units, sqrt(sum over units j and times d of (x_dj - R_d)^2 / (N M)),
# with its NRMSE and MBE, over the N times when all M units and the reference are valid.
common_time_errors <- function(frame, paired) {
  shared <- paired & frame$time %in% common_times(frame, paired)
  if (length(unique(frame$time[shared])) < 3L) {
    return(list(note = paste("fewer than 3 times when every unit and the reference report:",
                             "no RMSE, NRMSE or MBE")))
  }
  error_metrics(frame$est[shared], frame$ref[shared])
}

# The times at which every unit of the frame with a `present` row has one: a unit that never
# reports (a dead sensor) would leave no common time at all.
common_times <- function(frame, present) {
  units <- unique(frame$unit[present])
  Reduce(intersect, split(frame$time[present], factor(frame$unit[present], units)))
}

# The note of the "all" row on units left out of it for want of a single pair.
units_without_pairs <- function(frame, units) {
  if (length(units) < 2L) return(NA_character_)
  paired <- unique(frame$unit[!is.na(frame$est) & !is.na(frame$ref)])
  idle <- setdiff(units, paired)
  if (!length(idle)) return(NA_character_)
  sprintf("%s %s no pair of estimate and reference: left out of RMSE, NRMSE and MBE",
          if (length(idle) == 1L) "unit" else "units", paste(toString(idle), if (length(idle) == 1L) "has" else "have"))
}

# One row of metrics: NA except where `parts` (lists of values and a `note`) give them.
metric_row <- function(n, limit_value, parts = list(), note = NULL) {
  out <- data.frame(n = n, r2 = NA_real_, slope = NA_real_, intercept = NA_real_,
                    rmse = NA_real_, nrmse = NA_real_, mbe = NA_real_, orth_slope = NA_real_,
                    orth_intercept = NA_real_, limit_value = limit_value,
                    expanded_uncertainty = NA_real_, limit_outside = FALSE)
  for (part in parts) {
    values <- part[setdiff(names(part), "note")]
    out[names(values)] <- values
  }
  out$note <- paste_notes(note, unlist(lapply(parts, `[[`, "note")))
  out
}

# Centred sums of squares and products. A spread within rounding of zero counts as none:
# exact-zero checks would let rounding noise through as a slope of 1e16.
spreads <- function(x, y) {
  s <- list(xx = sum((x - mean(x))^2), yy = sum((y - mean(y))^2),
            xy = sum((x - mean(x)) * (y - mean(y))))
  s$flat_x <- s$xx <= 1e-12 * sum(x^2)
  s$flat_y <- s$yy <= 1e-12 * sum(y^2)
  s
}

# OLS of sensor y on reference x, as the EPA reports define it; r2 is the squared correlation.
regression_metrics <- function(x, y) {
  s <- spreads(x, y)
  if (s$flat_x) return(list(note = "constant reference: no regression"))
  slope <- s$xy / s$xx
  list(slope = slope, intercept = mean(y) - slope * mean(x),
       # As two ratios: xy^2 and xx * yy overflow for readings near 1e150, the ratios never.
       r2 = if (s$flat_y) NA_real_ else (s$xy / s$xx) * (s$xy / s$yy),
       note = if (s$flat_y) "constant estimate: no R\u00b2")
}

error_metrics <- function(y, x) {
  out <- list(rmse = sqrt(mean((y - x)^2)), mbe = mean(y - x))
  if (mean(x) > 0) {
    out$nrmse <- 100 * out$rmse / mean(x)
  } else {
    out$note <- "mean reference not positive: no NRMSE"
  }
  out
}

# EC Guide (2010): orthogonal regression y = b0 + b1 x and, at the limit value L,
# u^2 = RSS / (n - 2) - u^2(x) + (b0 + (b1 - 1) L)^2; the result is 2 u / L in %.
expanded_uncertainty <- function(x, y, limit_value, reference_uncertainty) {
  s <- spreads(x, y)
  b1 <- orthogonal_slope(s)
  if (is.na(b1)) {
    vertical <- paste("no covariance and the estimate varies at least as much as the reference:",
                      "the orthogonal line is vertical, no expanded uncertainty")
    return(list(note = if (s$flat_x) "constant reference: no regression" else vertical))
  }
  b0 <- mean(y) - b1 * mean(x)
  # Targets given without a limit value: the orthogonal line alone.
  if (is.na(limit_value)) return(list(orth_slope = b1, orth_intercept = b0))
  u2 <- sum((y - b0 - b1 * x)^2) / (length(x) - 2) - reference_uncertainty^2 +
    (b0 + (b1 - 1) * limit_value)^2
  if (u2 < 0) {
    return(list(orth_slope = b1, orth_intercept = b0,
                note = "reference_uncertainty exceeds the sensor's: no expanded uncertainty"))
  }
  out <- list(orth_slope = b1, orth_intercept = b0,
              expanded_uncertainty = 100 * 2 * sqrt(u2) / limit_value)
  # Beyond the reference values the line is extrapolated to L: reported, but not judged.
  if (limit_value < min(x) || limit_value > max(x)) {
    out$limit_outside <- TRUE
    out$note <- sprintf(paste("limit value %s lies outside the range of the reference values",
                              "(%s to %s): expanded uncertainty not judged"),
                        format(limit_value), format(signif(min(x), 3)), format(signif(max(x), 3)))
  }
  out
}

# Slope of the major axis of the scatter (orthogonal regression with equal error variances);
# NA where that axis is vertical or undefined.
orthogonal_slope <- function(s) {
  if (s$flat_x) return(NA_real_)
  if (s$flat_y) return(0) # a stuck sensor: the axis is horizontal, the line y = mean(y)
  # sqrt(d^2 + (2 xy)^2) scaled by its larger term: the squares of sums of squares overflow
  # for readings near 1e150.
  d <- s$yy - s$xx
  size <- max(abs(d), 2 * abs(s$xy))
  root <- if (size == 0) 0 else size * sqrt((d / size)^2 + (2 * s$xy / size)^2)
  # Two forms of the same root, each free of the cancellation the other suffers.
  if (s$yy < s$xx) return(2 * s$xy / (s$xx - s$yy + root))
  if (s$xy == 0) return(NA_real_)
  (s$yy - s$xx + root) / (2 * s$xy)
}

# EPA inter-unit SD and CV of co-located units over the time points where every unit has an
# estimate.
inter_unit_precision <- function(frame) {
  units <- unique(frame$unit)
  none <- list(n = NA_integer_, sd = NA_real_, cv = NA_real_, note = NA_character_)
  if (length(units) < 2L) return(none)
  present <- !is.na(frame$est)
  reporting <- unique(frame$unit[present])
  if (length(reporting) < 2L) {
    none$note <- "fewer than 2 units report: no inter-unit SD or CV"
    return(none)
  }
  common <- common_times(frame, present)
  shared <- present & frame$time %in% common
  n_times <- length(common)
  if (n_times < 3L) {
    none$n <- n_times
    none$note <- "fewer than 3 times when every unit reports: no inter-unit SD or CV"
    return(none)
  }
  x <- frame$est[shared]
  sd <- sqrt(sum((x - stats::ave(x, frame$time[shared]))^2) / (n_times * length(reporting) - 1))
  list(n = n_times, sd = sd, cv = if (mean(x) > 0) 100 * sd / mean(x) else NA_real_,
       note = if (mean(x) > 0) NA_character_ else "mean estimate not positive: no CV")
}

# EC Guide (2010) between-sampler uncertainty u(bs) of co-located units, on the `n` periods
# (times of the frame) at which two or more units have an estimate: u(bs)^2 = sum over periods
# i of (y_i1 - y_i2)^2 / (2 n) for two units; for more, the pooled within-period variance
# sum over i and units k of (y_ik - mean_i)^2 / sum over i of (p_i - 1), which is that formula
# for p_i = 2 units and weighs a unit by the periods it shares. `whole` over every such period;
# with a `split` (18 ug/m3 for PM2.5), `below` and `above` (at or above) over those whose
# reference (the units' mean there) lies on that side: by the reference, so that a unit reading
# high does not move a period. None (NA) with one unit; with a note when not `colocated` or
# fewer than 3 periods.
between_sampler_uncertainty <- function(frame, period, split, colocated) {
  out <- list(n = NA_integer_, whole = NA_real_, below = NA_real_, above = NA_real_,
              note = NA_character_)
  if (length(unique(frame$unit)) < 2L) return(out)
  if (!colocated) {
    # After judge_colocation()'s note, which says why.
    out$note <- "no between-sampler uncertainty"
    return(out)
  }
  present <- !is.na(frame$est)
  time <- frame$time[present]
  shared <- time %in% time[duplicated(time)]
  time <- time[shared]
  periods <- unique(time)
  out$n <- length(periods)
  if (out$n < 3L) {
    out$note <- sprintf(paste("fewer than 3 %ss at which two or more units have an estimate:",
                              "no between-sampler uncertainty"), period)
    return(out)
  }
  estimate <- frame$est[present][shared]
  deviation <- estimate - stats::ave(estimate, match(time, periods))
  pooled <- function(keep) {
    n_periods <- length(unique(time[keep]))
    if (n_periods < 3L) return(NA_real_)
    sqrt(sum(deviation[keep]^2) / (sum(keep) - n_periods))
  }
  out$whole <- pooled(rep(TRUE, length(time)))
  if (length(split) == 0L) return(out)
  # The reference at each period: the mean of the units' references there, NA without any.
  at <- match(frame$time, periods)
  with_reference <- !is.na(at) & !is.na(frame$ref)
  level <- tapply(frame$ref[with_reference], factor(at[with_reference], seq_along(periods)),
                  mean)[match(time, periods)]
  sides <- list(below = !is.na(level) & level < split, above = !is.na(level) & level >= split)
  words <- c(below = "below", above = "at or above")
  for (side in names(sides)) {
    out[[side]] <- pooled(sides[[side]])
    if (is.na(out[[side]])) {
      out$note <- paste_notes(out$note, sprintf(
        "fewer than 3 such %ss with a reference %s %s: no between-sampler uncertainty there",
        period, words[[side]], format(split)
      ))
    }
  }
  out
}
