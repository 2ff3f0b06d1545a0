# Checks of the readings before training (mistakes that would fit silently and wrongly) and of
# the fit after it (pathologies a user would not see). Each names the cause and the fix.

# Readings whose magnitude double precision cannot fuse on: their squares overflow or underflow.
max_reading_magnitude <- 1e150
min_reading_spread <- 1e-150
# Spreads of co-located sensors of one quantity differ by a few times at most; more than this
# factor is almost always a unit mistake (ng/m3 beside ug/m3, ppb beside ppm).
max_spread_ratio <- 50
# Below this many readings on the training rows a sensor's gain, offset and noise are guesses.
min_sensor_readings <- 20L
# A noise level at the log-variance clamp on more than this share of the rows comes from the
# clamp, not the data.
max_clamped_share <- 0.5

# Robust spread of a column: the MAD, or the IQR / sd when most readings are equal. `centre`:
# the median of the readings, when the caller has it already.
robust_spread <- function(v, centre = NULL) {
  v <- v[!is.na(v)]
  if (length(v) < 2L) return(NA_real_)
  s <- stats::mad(v, center = if (is.null(centre)) stats::median(v) else centre)
  if (!is.finite(s) || s == 0) s <- stats::IQR(v) / 1.349
  if (!is.finite(s) || s == 0) s <- stats::sd(v)
  s
}

# Before training: readings too large or small for double precision (an error), and a warning
# for a duplicated column or a copy with a constant offset, and sensors with a handful of
# readings. `readings` are the model-unit columns, `rows` the training rows. Returns the
# sensors' robust spreads, for warn_units().
check_readings <- function(readings, rows, call = parent.frame()) {
  sensors <- names(readings)
  n_read <- stats::setNames(integer(length(sensors)), sensors)
  spreads <- stats::setNames(rep(NA_real_, length(sensors)), sensors)
  # One sensor's training readings at a time: at a million rows, copies of all of them at
  # once would double the memory a fit needs.
  for (s in sensors) {
    v <- readings[[s]][rows]
    v <- v[!is.na(v)]
    n_read[[s]] <- length(v)
    if (length(v)) spreads[[s]] <- check_sensor_readings(v, s, call)
  }
  few <- n_read < min_sensor_readings
  if (any(few)) {
    counts <- paste0("`", sensors[few], "` (", n_read[few], ")", collapse = ", ")
    cli::cli_warn(c("{cli::qty(sum(few))}Few readings on the training rows for sensor{?s} {counts}: {cli::qty(sum(few))}{?its/their} gain, offset and noise are poorly determined.",
                    i = "{cli::qty(sum(few))}Give more rows with {?this sensor/these sensors}, or leave {?it/them} out of the formula."),
                  class = c("ncam_warning_few_readings", "ncam_warning"), call = call)
  }
  check_copies(readings, rows, call)
  invisible(spreads)
}

# Sensors in different units: the `spreads` (from check_readings()) of sensors the fit takes
# at one scale differ by more than max_spread_ratio. A sensor at a level of another gain
# (`sensor_level`, from sensor_levels(); NULL: none), such as a raw signal beside an anchor, is
# fitted as that sensor converted to the anchor's units, as well as one in them
# (bench/raw_signal.R), and is left out.
warn_units <- function(spreads, sensor_level, call = parent.frame()) {
  if (!is.null(sensor_level)) spreads <- spreads[sensor_level$gain == 1]
  ok <- is.finite(spreads) & spreads > 0
  if (sum(ok) < 2L) return(invisible())
  ratio <- max(spreads[ok]) / min(spreads[ok])
  if (ratio <= max_spread_ratio) return(invisible())
  hi <- names(which.max(spreads[ok]))
  lo <- names(which.min(spreads[ok]))
  cli::cli_warn(c("The spread of sensor {.field {hi}} is {signif(ratio, 2)} times that of {.field {lo}}: are they in different units (e.g. ng/m3 beside ug/m3), or is one a raw signal (mV, counts)?",
                  i = "Convert every sensor to one unit before fitting, and raw signals to the anchor's units (such as by a linear fit to the anchor on rows where both read); a gain of {signif(ratio, 2)} is rarely physical. With an {.arg anchor} or {.arg reference}, ncam fits such a sensor at its own level (see {.code sensor_start} in {.fn ncam_control})."),
                class = c("ncam_warning_units", "ncam_warning"), call = call)
}

# One sensor's non-missing training readings `v`: not constant, and within the magnitudes
# double precision computes with (beyond them squares and variances overflow or underflow, and
# a fit would depend on the units). Returns their robust spread. ncam() and the baselines.
check_sensor_readings <- function(v, sensor, call) {
  check_not_constant(v, sensor, call)
  big <- max(abs(v))
  if (big > max_reading_magnitude) {
    ncam_abort(c("Sensor column {.field {sensor}} has readings as large as {signif(big, 3)}: too large to compute with in double precision.",
                 i = "Divide the readings by a power of ten (a unit change) before fitting."), call = call)
  }
  # Not constant, so a zero spread is an underflow: the spread is too small as well.
  spread <- robust_spread(v)
  if (is.finite(spread) && spread < min_reading_spread) {
    ncam_abort(c("Sensor column {.field {sensor}} varies by only {signif(spread, 3)}: too small to compute with in double precision.",
                 i = "Multiply the readings by a power of ten (a unit change) before fitting."), call = call)
  }
  spread
}

# A sensor reading one value on every training row (`v`, its non-missing readings) carries no
# information about the true value; ncam() and the "ivw" and "kalman" baselines refuse it.
check_not_constant <- function(v, sensor, call) {
  if (length(v) >= 2L && all(v == v[1])) {
    ncam_abort(c("Sensor column {.field {sensor}} reads {signif(v[1], 6)} on every training row: a constant carries no information about the true value.",
                 i = "Leave it out of the formula (a stuck or disconnected sensor?)."), leave_out = sensor, call = call)
  }
}

# A reference reading one value on every training row where it is observed (`v`, those
# readings) calibrates nothing: most often a missing-value code, which the spike screen cannot
# tell in a column without spread. Without it, two or more `sensors` (the low-cost ones) can
# be fitted label-free; one cannot.
check_reference_varies <- function(v, reference, sensors, call) {
  if (length(v) >= 2L && all(v == v[1])) {
    without <- if (length(sensors) >= 2L) "leave out {.arg reference} for a label-free fit" else one_sensor_without_reference
    code <- "A missing-value code? Set such values to {.code NA} (such as {.code data${reference}[data${reference} == {signif(v[1], 6)}] <- NA})"
    # Under ncam_by(), what a group without reference readings can do replaces the second part.
    ncam_abort(c("Reference column {.field {reference}} reads {signif(v[1], 6)} on every training row where it is observed: a constant calibrates nothing.",
                 i = paste0(code, "; if no reading is left, ", without, ".")),
               leave_out = reference, leave_out_of = "reference", kept_hint = c(i = cli::format_inline(paste0(code, "."))),
               call = call)
  }
}

# Two sensors that are exact linear functions of each other wherever both read (a column
# entered twice, a copy shifted by a constant, or logged again in other units) are one sensor:
# the model would take them as independent confirmations.
check_copies <- function(readings, rows, call) {
  sensors <- names(readings)
  sums <- pair_sums(readings, rows)
  for (i in seq_along(sensors)[-length(sensors)]) {
    for (j in (i + 1L):length(sensors)) {
      n <- sums$n[i, j]
      # A few shared rows (a unit replaced by another) are collinear by chance.
      if (n < min_copy_rows) next
      sx <- sums$sx[i, j]
      sy <- sums$sx[j, i]
      sxx <- sums$sxx[i, j] - sx^2 / n
      syy <- sums$sxx[j, i] - sy^2 / n
      sxy <- sums$sxy[i, j] - sx * sy / n
      if (!(sxx > 0 && syy > 0 && 1 - sxy^2 / (sxx * syy) <= 1e-10)) next
      scale_i <- sums$scale[i]
      scale_j <- sums$scale[j]
      slope <- sxy / sxx * scale_j / scale_i
      intercept <- (sy / n * scale_j + sums$shift[j]) - slope * (sx / n * scale_i + sums$shift[i])
      # Rounding leaves a few 1e-16 of the spread where the intercept is 0.
      if (abs(intercept) <= 1e-9 * sqrt(syy / n) * scale_j) intercept <- 0
      what <- if (abs(slope - 1) > 1e-9) {
        sprintf("exact linear functions of each other (%s = %s x %s + %s)", sensors[j],
                signif(slope, 4), sensors[i], signif(intercept, 4))
      } else if (intercept == 0) "identical" else "equal up to a constant offset"
      cli::cli_warn(c("Sensors {.field {sensors[i]}} and {.field {sensors[j]}} are {what} on all {n} rows where both read: one column entered twice?",
                      i = "The model takes sensors as independent, so a copy makes its intervals far too narrow; drop one of them."),
                    class = c("ncam_warning_duplicate_sensor", "ncam_warning"), call = call)
    }
  }
}

# For every pair of sensors (i, j), sums over the rows where both read: their count n[i, j],
# and of the readings less each sensor's mean (shift) over its largest distance from it (scale),
# sx[i, j] of sensor i's, sxx[i, j] of its squares and sxy[i, j] of the products. Block by block
# of rows, all pairs at once in matrix products (a loop over pairs took a second per pair at a
# million rows); the shift keeps the centred sums free of cancellation when the readings' mean
# is large beside their spread, the scale their squares and products within double precision
# (readings of 1e100 overflowed sxx * syy).
pair_sums <- function(readings, rows) {
  k <- length(readings)
  shift <- vapply(readings, function(v) {
    m <- mean(v[rows], na.rm = TRUE)
    if (is.finite(m)) m else 0
  }, numeric(1))
  scale <- vapply(seq_len(k), function(j) {
    d <- abs(readings[[j]][rows] - shift[[j]])
    s <- if (all(is.na(d))) NA_real_ else max(d, na.rm = TRUE)
    if (is.finite(s) && s > 0) s else 1
  }, numeric(1))
  n <- sx <- sxx <- sxy <- matrix(0, k, k)
  for (block in row_blocks(rows)) {
    z <- matrix(vapply(seq_len(k), function(j) (readings[[j]][block] - shift[[j]]) / scale[[j]], numeric(length(block))), ncol = k)
    observed <- !is.na(z)
    z[!observed] <- 0
    observed <- observed + 0
    n <- n + crossprod(observed)
    sx <- sx + crossprod(z, observed)
    sxx <- sxx + crossprod(z^2, observed)
    sxy <- sxy + crossprod(z)
  }
  list(n = n, sx = sx, sxx = sxx, sxy = sxy, shift = unname(shift), scale = scale)
}

# A sensor's gain and offset on the anchor's scale are learned from rows where it reads beside
# the anchor, or beside a sensor that is so linked in turn. A sensor never linked that way is
# tied to the anchor's scale by the prior alone: its rows get estimates and intervals that
# nothing in the data checks. `readings` are the model-unit columns, `rows` the training rows.
check_linked <- function(readings, rows, anchor, call = parent.frame()) {
  if (is.null(anchor)) return(invisible(NULL))
  sensors <- names(readings)
  together <- matrix(0, length(sensors), length(sensors))
  for (block in row_blocks(rows)) {
    observed <- vapply(readings, function(v) !is.na(v[block]), logical(length(block)))
    together <- together + crossprod(matrix(observed, ncol = length(sensors)))
  }
  linked <- sensors == anchor
  repeat {
    reached <- linked | colSums(together[linked, , drop = FALSE] >= min_linking_rows) > 0
    if (identical(reached, linked)) break
    linked <- reached
  }
  if (!all(linked)) {
    cli::cli_warn(c("{cli::qty(sum(!linked))}Sensor{?s} {.field {sensors[!linked]}} read{?s/} on fewer than {min_linking_rows} training rows together with the anchor {.field {anchor}}, and not beside a sensor that reads on that many: {?its/their} gain and offset on the anchor's scale rest on the prior alone, and intervals on rows without the anchor are not checked by any data.",
                    i = "{cli::qty(sum(!linked))}Give rows where {?it reads/they read} together with the anchor (or with a sensor linked to it)."),
                  class = c("ncam_warning_unlinked_sensor", "ncam_warning"), call = call)
  }
  invisible(NULL)
}

# Rows two sensors must share for one to tie the other to the anchor's scale.
min_linking_rows <- 3L

# Rows two sensors must share before their readings can tell a copy from chance.
min_copy_rows <- 10L

# The rows in blocks: checks of a million rows then need memory for one block, not all rows.
row_blocks <- function(rows, size = 65536L) {
  # Ranges, not split(): split() makes a factor of every row, as slow as the screen itself.
  if (!length(rows)) return(list())
  lapply(seq(1L, length(rows), by = size), function(first) rows[first:min(first + size - 1L, length(rows))])
}

# What to do with one sensor beside a reference (ncam() and ncam_by() say it).
one_sensor_hint <- "Use {.code interval = \"prediction\"}, an interval for a reference reading, which is identified; a second sensor identifies both."

# With two sensors and nothing else, the data fix how much the two disagree but not which of
# them is noisier (two indicators of one latent value: three moments for four unknowns). The
# fusion's weights then come from the initialisation, not the data: in bench/two_sensors.R,
# with noise sds 0.5 and 3, two-sensor fits put them at 1.2-1.4 and 2.1-2.4 and fused with
# twice the error of the right weights, where a third sensor recovered 0.6-0.7 and 3.0.
warn_two_sensors <- function(sensors, reference, call = parent.frame()) {
  if (length(sensors) == 1L) {
    # Reference and sensor readings fix the reference's variance given the sensor, not how it
    # splits into the true value's spread and the reference's own noise.
    # ncam_by() gives one of these for all its groups (field `sensors`).
    cli::cli_warn(c("With one low-cost sensor ({.field {sensors}}) beside the reference, the data cannot tell the reference's own noise from the spread of the true value: intervals for the true value ({.code interval = \"credible\"}) are not identified.",
                    i = one_sensor_hint),
                  class = c("ncam_warning_one_sensor", "ncam_warning_two_sensors", "ncam_warning"), call = call, sensors = sensors)
  }
  if (length(sensors) != 2L || !is.null(reference)) return(invisible(NULL))
  cli::cli_warn(c("With two sensors ({.field {sensors}}) and no reference, the data cannot tell which of them is noisier: their noise levels, and so the weights of the fused value, are not identified.",
                  i = "Add a third sensor of the same quantity, or a reference monitor's readings over a co-location period with {.arg reference}."),
                class = c("ncam_warning_two_sensors", "ncam_warning"), call = call)
}

# After training: not converged, a loss that never beat the untrained model (a learning rate
# too large), noise levels decided by the clamp.
check_training <- function(fit, trained, clamped_share, call = parent.frame()) {
  epochs <- fit$settings$epochs
  if (fit$best_epoch == fit$epochs_run && fit$epochs_run == epochs && epochs > 1L) {
    cli::cli_warn(c("Not converged: the best epoch is the last one ({epochs}), so the fit was still improving.",
                    i = "Give more {.arg epochs} (or a larger {.arg learn_rate})."),
                  class = c("ncam_warning_not_converged", "ncam_warning"), call = call)
  }
  if (never_improved(trained)) {
    best_train <- suppressWarnings(min(fit$history$train_nll, na.rm = TRUE))
    if (fit$n_validation > 0L && best_train < trained$initial_train_nll) {
      # Training worked on its rows; only the validation rows did not follow.
      cli::cli_warn(c("The validation NLL never improved on the untrained model ({signif(trained$initial_nll, 4)} before the first epoch, {signif(trained$best_nll, 4)} at best), while the training NLL fell from {signif(trained$initial_train_nll, 4)} to {signif(best_train, 4)}: the fit keeps the weights of epoch {fit$best_epoch}.",
                      i = "{fit$n_validation} validation row{?s} judge{?s/} the fit: with few rows, give more data or a larger share to {.arg validation}; otherwise the model overfits at once, so try a smaller {.arg hidden}."),
                    class = c("ncam_warning_validation_not_improved", "ncam_warning"), call = call)
    } else {
      cli::cli_warn(c("Training never improved on the untrained model (NLL {signif(trained$initial_nll, 4)} before the first epoch, {signif(trained$best_nll, 4)} at best): the loss exploded.",
                      i = "A smaller {.arg learn_rate} (now {fit$settings$learn_rate}) usually fixes this."),
                    class = c("ncam_warning_unstable", "ncam_warning"), call = call)
    }
  }
  # A noise level at the lower clamp (sensors that agree more closely than it allows) leaves
  # weights even and intervals a little wide: print() names it. Widening the clamp moved RMSE by
  # -2 % to +1 % on the shared data sets (bench/colocation_blocks.out), so it is no warning. At
  # the upper clamp a sensor is noisier than its weight says, and intervals too narrow.
  range <- fit$settings$control$logvar_range
  high <- clamped_share["high", ] > max_clamped_share
  if (any(high)) {
    cli::cli_warn(c("The noise level of {.field {colnames(clamped_share)[high]}} sits at the upper log-variance clamp on {paste0(round(100 * clamped_share['high', high]), '%')} of the rows: there it comes from the clamp, not from the data.",
                    i = "{cli::qty(sum(high))}{?This sensor is/These sensors are} noisier than the clamp allows; widen it, e.g. {.code control = ncam_control(logvar_range = c({range[1]}, {range[2] + 4}))}, or leave {cli::qty(sum(high))}{?it/them} out."),
                  class = c("ncam_warning_clamp", "ncam_warning"), call = call)
  }
  invisible(NULL)
}

# Whole rows of the data among the training and validation `rows` repeated (overlapping
# downloads, a table bound twice): a copy weighs twice in training, and with validation rows
# drawn at random it may sit on both sides, flattering early stopping.
warn_repeated_training_rows <- function(data, rows, call = NULL) {
  repeated <- repeated_rows(data, rows)
  if (!length(repeated)) return(invisible())
  cli::cli_warn(c("{length(repeated)} row{?s} of {.arg data} repeat{?s/} an earlier row in every column, the first being row {input_rows(repeated[1])}: a copy weighs twice in training, and may sit on both sides of the validation split.",
                  i = "Remove the copies (such as with {.fn unique}), or check the join or download that made them."),
                class = c("ncam_warning_repeated_rows", "ncam_warning"), call = call)
}
