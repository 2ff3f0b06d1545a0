# How sensor_performance() scores a set of sensor-reference pairs: OLS, errors, EPA
# inter-unit precision and the EU expanded uncertainty.

# OLS (sensor on reference), error metrics and the EU expanded uncertainty of one set of pairs.
pair_metrics <- function(frame, limit_value, reference_uncertainty) {
  paired <- !is.na(frame$est) & !is.na(frame$ref)
  y <- frame$est[paired]
  x <- frame$ref[paired]
  n <- length(x)
  out <- data.frame(n = n, r2 = NA_real_, slope = NA_real_, intercept = NA_real_,
                    rmse = NA_real_, nrmse = NA_real_, mbe = NA_real_, orth_slope = NA_real_,
                    orth_intercept = NA_real_, limit_value = limit_value,
                    expanded_uncertainty = NA_real_, note = NA_character_)
  if (n < 3L) {
    out$note <- "fewer than 3 complete pairs"
    return(out)
  }
  notes <- character()
  out$rmse <- sqrt(mean((y - x)^2))
  out$mbe <- mean(y - x)
  if (mean(x) > 0) {
    out$nrmse <- 100 * out$rmse / mean(x)
  } else {
    notes <- c(notes, "mean reference not positive: no NRMSE")
  }
  sxx <- sum((x - mean(x))^2)
  syy <- sum((y - mean(y))^2)
  sxy <- sum((x - mean(x)) * (y - mean(y)))
  # Exact-zero checks would let rounding noise through as a slope of 1e16.
  flat_x <- sxx <= 1e-12 * sum(x^2)
  flat_y <- syy <= 1e-12 * sum(y^2)
  if (flat_x) notes <- c(notes, "constant reference: no regression")
  if (!flat_x) {
    out$slope <- sxy / sxx
    out$intercept <- mean(y) - out$slope * mean(x)
  }
  if (!flat_x && !flat_y) out$r2 <- sxy^2 / (sxx * syy)
  if (flat_x || flat_y || sxy == 0) {
    notes <- c(notes, "no covariance: no orthogonal regression")
  } else {
    b1 <- (syy - sxx + sqrt((syy - sxx)^2 + 4 * sxy^2)) / (2 * sxy)
    b0 <- mean(y) - b1 * mean(x)
    out[c("orth_slope", "orth_intercept")] <- list(b1, b0)
    u2 <- sum((y - b0 - b1 * x)^2) / (n - 2) - reference_uncertainty^2 +
      (b0 + (b1 - 1) * limit_value)^2
    if (u2 >= 0) {
      out$expanded_uncertainty <- 100 * 2 * sqrt(u2) / limit_value
    } else {
      notes <- c(notes, "reference_uncertainty exceeds the sensor's: no expanded uncertainty")
    }
  }
  out$note <- paste_notes(notes)
  out
}

# EPA inter-unit SD and CV over the time points where every unit has an estimate.
inter_unit_precision <- function(frame, colocated) {
  units <- unique(frame$unit)
  none <- list(n = NA_integer_, sd = NA_real_, cv = NA_real_, note = NA_character_)
  if (length(units) < 2L) return(none)
  if (!colocated) {
    none$note <- "units not co-located (their references differ): no inter-unit SD or CV"
    return(none)
  }
  present <- !is.na(frame$est)
  common <- Reduce(intersect, split(frame$time[present], factor(frame$unit[present], units)))
  shared <- present & frame$time %in% common
  n_times <- length(common)
  if (n_times < 3L) {
    none$n <- n_times
    none$note <- "fewer than 3 times when every unit reports: no inter-unit SD or CV"
    return(none)
  }
  x <- frame$est[shared]
  sd <- sqrt(sum((x - stats::ave(x, frame$time[shared]))^2) / (n_times * length(units) - 1))
  list(n = n_times, sd = sd, cv = if (mean(x) > 0) 100 * sd / mean(x) else NA_real_,
       note = if (mean(x) > 0) NA_character_ else "mean estimate not positive: no CV")
}

# Co-located units share one reference: wherever two units report a reference at the same
# time, the values agree.
units_colocated <- function(obs) {
  present <- !is.na(obs$ref)
  if (length(unique(obs$unit[present])) < 2L) return(FALSE)
  time <- obs$time[present]
  ref <- obs$ref[present]
  spread <- tapply(ref, time, max) - tapply(ref, time, min)
  shared <- tapply(ref, time, length) >= 2L
  any(shared) && all(spread[shared] <= 1e-8 * (1 + max(abs(ref))))
}
