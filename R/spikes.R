# Gross outliers (spikes): the screen of ncam() and of predict(), and its warnings.

# Gross outliers: a reading further than `threshold` robust spreads (its sensor's MAD) from its
# sensor's median AND from where the row's other sensors put it (their median standardised
# value) is a spike, not the air: every sensor sees a real pollution event. A reading with no
# other sensor in its row must be `alone_factor` times further out. Such readings are set to NA.
# The medians and spreads (`scales`) are those of the training rows, kept by the fit so that
# predict() screens new readings by the same rule. With `min_ratio`, a reading in a row with
# other sensors must also be more than `min_ratio` times where they put it (or below 1 /
# `min_ratio` of it). Readings are judged as `as_read()` gives them (exp() of log readings),
# taken one sensor at a time: at a million rows, all sensors' at once would add a copy of the
# readings. Returns the readings (as given) screened, the spike rows and their count per
# sensor, and the scales.
spike_scales <- function(readings, rows, as_read = identity) {
  centre <- spread <- stats::setNames(numeric(length(readings)), names(readings))
  for (k in seq_along(readings)) {
    v <- as_read(readings[[k]][rows])
    v <- v[!is.na(v)]
    centre[[k]] <- stats::median(v)
    spread[[k]] <- robust_spread(v, centre[[k]])
  }
  list(centre = centre, spread = spread)
}
screen_spikes <- function(readings, rows, threshold, scales = spike_scales(readings, rows, as_read), alone_factor = 20,
                          min_ratio = NULL, as_read = identity) {
  counts <- stats::setNames(integer(length(readings)), names(readings))
  spikes <- stats::setNames(vector("list", length(readings)), names(readings))
  centre <- scales$centre
  spread <- scales$spread
  usable <- names(readings)[names(readings) %in% names(spread)]
  usable <- usable[is.finite(spread[usable]) & spread[usable] > 0]
  # A reading is judged against its row's other sensors: without two, or a threshold, nothing is.
  if (!is.finite(threshold) || length(usable) < 2L) usable <- character(0)
  standardised <- function(s, at) (as_read(readings[[s]][at]) - centre[[s]]) / spread[[s]]
  for (k in seq_along(usable)) {
    # Only readings beyond the threshold from their own median can be spikes: the row's other
    # sensors are looked at for those alone (predict() screens every new row). They are found
    # by the readings' bounds, a hair wider than the threshold so that rounding loses none;
    # the standardised test decides. `rows` of full length are every row, in order.
    s <- usable[k]
    reach <- max(0, threshold * spread[[s]] * (1 - 1e-9) - 4 * .Machine$double.eps * abs(centre[[s]]))
    values <- as_read(if (length(rows) == length(readings[[s]])) readings[[s]] else readings[[s]][rows])
    candidates <- rows_outside(values, centre[[s]] - reach, centre[[s]] + reach)
    rm(values)  # an exp() copy for log readings: one sensor's at a time
    z_k <- standardised(s, rows[candidates])
    beyond <- abs(z_k) > threshold
    candidates <- candidates[beyond]
    z_k <- z_k[beyond]
    if (!length(candidates)) next
    others <- vapply(usable[-k], standardised, numeric(length(candidates)), at = rows[candidates])
    dim(others) <- c(length(candidates), length(usable) - 1L)
    # The median of one or two values is their mean; apply() only for three or more.
    consensus <- if (ncol(others) <= 2L) rowMeans(others, na.rm = TRUE) else
      apply(others, 1L, stats::median, na.rm = TRUE)
    # Alone in its row, a reading is a spike only far beyond any pollution event.
    alone <- is.na(consensus)
    apart <- !alone & abs(z_k - consensus) > threshold
    if (!is.null(min_ratio)) {
      # Where the others put it, as read; at or below 0 they are no measure of a ratio.
      put <- centre[[s]] + consensus * spread[[s]]
      ratio <- as_read(readings[[s]][rows[candidates]]) / put
      apart <- apart & (is.na(put) | put <= 0 | ratio > min_ratio | ratio < 1 / min_ratio)
    }
    spike <- which(apart | (alone & abs(z_k) > alone_factor * threshold))
    spikes[[usable[k]]] <- rows[candidates[spike]]
  }
  for (s in usable) {
    if (length(spikes[[s]])) {
      readings[[s]][spikes[[s]]] <- NA_real_
      counts[[s]] <- length(spikes[[s]])
    }
  }
  list(readings = readings, counts = counts, rows = spikes, scales = scales)
}

# Readings in the model scale screened as read: on log readings a code of 9999 among readings
# near 10 sits about 7 log units out, inside 50 robust spreads of log levels (about 0.6 each),
# where as read it is thousands of spreads out. A log fit is for sensors that differ by factors,
# which as read at high levels lie many spreads apart (a wildfire's 500 beside 300 and 150), so
# it also needs the reading more than log_spike_ratio times where the row's others put it: a
# code or a fault is off by orders of magnitude. The scales are kept `on` the readings as read.
log_spike_ratio <- 10
screen_readings <- function(readings, rows, threshold, transform, scales = NULL) {
  log_fit <- identical(transform, "log")
  as_read <- if (log_fit) exp else identity
  if (is.null(scales)) scales <- spike_scales(readings, rows, as_read)
  screened <- screen_spikes(readings, rows, threshold, scales, min_ratio = if (log_fit) log_spike_ratio,
                            as_read = as_read)
  screened$scales$on <- "readings"
  screened
}

# New readings screened by the fit's rule and training scales (fits made before the scales were
# kept are not screened; those made before they were kept as read hold them in the model scale),
# with one warning naming the sensors and rows.
screen_new_spikes <- function(object, readings, call) {
  threshold <- object$settings$control$screen_outliers
  if (is.null(object$spike_scales) || is.null(threshold) || length(readings[[1]]) == 0L) return(readings)
  transform <- if (is.null(object$spike_scales$on)) "none" else object$transform
  screened <- screen_readings(readings, seq_along(readings[[1]]), threshold, transform, object$spike_scales)
  hit <- names(screened$counts)[screened$counts > 0L]
  if (length(hit)) {
    # The rows go with the warning, for predict() on parts (groups, chunks) to number them.
    rows <- screened$rows[hit]
    shown <- lapply(rows, function(r) input_rows(utils::head(r, 5L)))
    warn_new_spikes(lengths(rows), shown, threshold, "{.arg newdata}", call, rows = rows)
  }
  screened$readings
}

# The warning about new readings screened as spikes: their number per sensor (`counts`) and the
# rows to name per sensor (`shown`, numbers or text such as "5 of a.csv").
warn_new_spikes <- function(counts, shown, threshold, of, call = NULL, rows = NULL) {
  where <- sensor_rows_text(counts, shown)
  total <- sum(counts)
  cli::cli_warn(c(paste0("{total} reading{?s} of ", of, " treated as missing as gross outliers, as in training: {where}."),
                  i = "Each is more than {threshold} robust spreads (of its sensor in training) from its sensor's training median and from the row's other sensors: a fault or a missing-value code such as -999, not the air.",
                  i = "The rows are estimated from their other sensors. A fit with {.code control = ncam_control(screen_outliers = Inf)} keeps such readings."),
                class = c("ncam_warning_spikes", "ncam_warning"), call = call, rows = rows, threshold = threshold)
}

# The warning of ncam() about readings screened out of training: their number per sensor
# (`counts`) and their rows (`rows`, by sensor), as screen_readings() gives them.
warn_spikes <- function(counts, rows, threshold, call) {
  if (!any(counts > 0L)) return(invisible(NULL))
  hit <- counts[counts > 0L]
  shown <- lapply(rows[names(hit)], function(r) input_rows(utils::head(r, 5L)))
  cli::cli_warn(c("{sum(hit)} reading{?s} left out of training as gross outliers: {sensor_rows_text(hit, shown)}.",
                  i = "Each is more than {threshold} robust spreads from its sensor's median and from the row's other sensors.",
                  i = "They are treated as missing. {.code control = ncam_control(screen_outliers = Inf)} keeps them."),
                class = c("ncam_warning_spikes", "ncam_warning"), call = call)
}

# Readings the default screen would leave out, kept by a fit screened more leniently (`threshold`
# Inf turns screening off): said once, naming sensors and rows, as a few spikes of a fault can
# inflate a sensor's noise and every interval many times over (bench/spikes.R).
warn_spikes_kept <- function(readings, rows, threshold, transform, call = NULL) {
  default <- formals(ncam_control)$screen_outliers
  if (threshold <= default) return(invisible(NULL))
  spikes <- Filter(length, screen_readings(readings, rows, default, transform)$rows)
  if (!length(spikes)) return(invisible(NULL))
  where <- sensor_rows_text(lengths(spikes), lapply(spikes, function(r) input_rows(utils::head(r, 5L))))
  n_kept <- sum(lengths(spikes))
  cli::cli_warn(c("{n_kept} reading{?s} kept that the default screen ({.code screen_outliers = {default}}) leaves out as gross outliers: {where}.",
                  i = "If they are faults (a -999 code, a stuck channel), they inflate their sensor's noise and every interval: mend them, or fit with the default screen."),
                class = c("ncam_warning_spikes_kept", "ncam_warning"), call = call)
}
