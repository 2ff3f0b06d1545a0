# Sensor readings of new data on another scale than the fit's training readings: a logger's
# export in mg/m3 given to a fit made in ug/m3 (1000 times too small), or the other way round.
# The networks then read values near 0, or far beyond training, and give believable numbers:
# `.extrapolation` measures the distance beyond the calibration range as a share of its width,
# so readings 1000 times too small lie only some 5 % of it below its lower end. The fit keeps,
# per sensor, the 1st and 99th percentiles of its readings on the fitted rows, and for a fit
# with a reference those of the reference's readings there (`fit$reading_scale`, two numbers
# per column; fits saved before it are not checked, nor a reference where the fit kept only the
# sensors'), and the functions that estimate from new data (predict(), augment(), calibrate(),
# sensor_drift(), ..., through ncam_posterior()) warn about a sensor column, or the reference
# column where they read it (`use_reference = TRUE`), whose median over at least
# `reading_scale_min_readings` readings lies beyond `reading_scale_factor` times those
# percentiles: below the 1st percentile over the factor, or above the 99th times the factor.
#
# The rule, for readings of either sign: the lower test only where the 1st percentile and the
# median are above 0 (a ratio means nothing across 0, and a batch of readings at exactly 0, a
# sensor at its floor, says nothing of units), the upper test where the 99th percentile is above
# 0. Why 20: readings 1000 times too small of data whose 1st percentile lies 20 times below their
# median (SensEURCity Antwerp's hourly boxes) have their median at a 50th of that percentile,
# only 2.5 times beyond the threshold; a factor of 100 would miss them.
# bench/reading_scale.R (in the source repository) judges the later readings of each series
# (site, station), in windows of 5 to 24 consecutive rows, against the first 10 % or 20 % of it:
# the rule fired on no window of PurpleAir (daily) nor Toucan (hourly), and on 7-13 of 52,526-
# 59,355 windows of SensEURCity Antwerp (hourly), all in one night when box_2 at station R804
# read 0.01-0.04 ug/m3 for 13 hours (the clean spell the warning names as the other cause). It
# also counts the warning in the package's workflows on those data: none.

#' @rdname predict.ncam
#' @section Readings on another scale:
#' A sensor column of `newdata` whose median reading (of at least `r reading_scale_min_readings`)
#' lies below the 1st percentile of the fit's training readings over `r reading_scale_factor`, or
#' above their 99th percentile times `r reading_scale_factor`, gets warning
#' `ncam_warning_reading_scale` naming it; so does the reference column with `use_reference = TRUE`,
#' against the reference's readings on the training rows. Readings in mg/m3 given to a fit made in ug/m3 are 1000
#' times too small, yet the estimates from them look plausible, and `.extrapolation` puts them only
#' some 5 % of the range below it. The lower test needs a 1st percentile and a median above 0 (a
#' sensor whose training readings reach 0 or below is checked above only). A sensor that reads near
#' 0 for hours (a clean spell below what it detects) can set it off: later readings judged 5 to 24
#' rows at a time against the first 10 % or 20 % of their series did so for 7-13 of 52,526-59,355
#' windows of SensEURCity Antwerp's hourly boxes, all in one night when one box read 0.01-0.04
#' ug/m3 for 13 hours, and for none of PurpleAir's days or Toucan's hours; the package's workflows
#' on those data gave no such warning (`bench/reading_scale.R` in the source repository). Fits
#' saved before the percentiles were kept (`fit$reading_scale`) are not checked.
#' @name predict.ncam
NULL

reading_scale_probs <- c(0.01, 0.99)
reading_scale_factor <- 20
reading_scale_min_readings <- 5L

# Per sensor (columns `readings` in model units, log units for transform = "log"; the reference
# too, whose missing readings leave its percentiles those of its readings on `rows`), the 1st and
# 99th percentiles of its readings on `rows`, in the user's units: a table with columns sensor,
# lower, upper (NA for a sensor without a reading there).
reading_scale <- function(readings, rows, transform) {
  bounds <- vapply(readings, function(v) {
    v <- v[rows]
    v <- v[!is.na(v)]
    if (length(v)) stats::quantile(v, reading_scale_probs, names = FALSE) else c(NA_real_, NA_real_)
  }, numeric(2))
  if (transform == "log") bounds <- exp(bounds)
  data.frame(sensor = names(readings), lower = bounds[1, ], upper = bounds[2, ], row.names = NULL,
             stringsAsFactors = FALSE)
}

# The warning for the sensor columns of `readings` (new data, model units, as ncam_posterior()
# reads them), and its reference column when it holds readings (use_reference = TRUE; all NA
# otherwise, so not judged), whose median lies on another scale than the fit's training readings;
# nothing for a fit without `reading_scale`, or for a column it has no row for. A long column is screened first on a sample of its rows, with the
# thresholds halved: only a column the sample puts within a factor 2 of them is judged on all its
# readings (the median of 1e6 rows costs a few percent of predict()'s time).
warn_reading_scale <- function(object, readings, call = parent.frame()) {
  scale_table <- object$reading_scale
  if (!is.data.frame(scale_table) || !nrow(scale_table)) return(invisible())
  log_readings <- identical(object$transform, "log")
  found <- list()
  for (k in seq_len(nrow(scale_table))) {
    v <- readings[[scale_table$sensor[k]]]
    if (is.null(v)) next
    bounds <- c(scale_table$lower[k], scale_table$upper[k])
    if (length(v) > reading_scale_sample_above) {
      screened <- reading_scale_verdict(v[reading_scale_sample(length(v))], bounds, log_readings, reading_scale_factor / 2)
      if (identical(screened$side, "none")) next  # enough readings in the sample, none near a threshold
    }
    verdict <- reading_scale_verdict(v, bounds, log_readings, reading_scale_factor)
    if (!is.null(verdict) && verdict$side != "none") {
      found[[length(found) + 1L]] <- c(list(column = scale_table$sensor[k], lower = bounds[1], upper = bounds[2]), verdict)
    }
  }
  if (length(found)) reading_scale_warning(found, object, call)
  invisible()
}

# The verdict on readings `v` (model units; logs with `log_readings`) against the percentiles
# `bounds` and a factor: NULL for too few readings, else their number `n`, `median` (in the
# readings' units) and `side` ("below", "above" or "none").
reading_scale_verdict <- function(v, bounds, log_readings, factor) {
  n <- length(v) - sum(is.na(v))
  if (n < reading_scale_min_readings) return(NULL)
  centre <- stats::median(v, na.rm = TRUE)
  if (log_readings) centre <- exp(centre)
  side <- if (isTRUE(bounds[1] > 0 && centre > 0 && centre < bounds[1] / factor)) "below" else
    if (isTRUE(bounds[2] > 0 && centre > bounds[2] * factor)) "above" else "none"
  list(n = n, median = centre, side = side)
}

# Rows of a column of `n` rows in the screening sample: about 1e5, every step-th row from the
# first, the step prime to 2, 3, 5 and 7 so that the sample runs through every hour of a day,
# day of a week or minute of an hour (hourly data in steps of 24 would read one hour only).
reading_scale_sample_above <- 2e5
reading_scale_sample <- function(n) {
  step <- max(1L, as.integer(n %/% 1e5))
  while (step > 1L && any(step %% c(2L, 3L, 5L, 7L) == 0L)) step <- step + 1L
  seq.int(1, n, by = step)
}

reading_scale_warning <- function(found, object, call) {
  columns <- vapply(found, `[[`, "", "column")
  details <- vapply(found, function(f) {
    where <- if (f$side == "below") sprintf("under a %gth of the 1st percentile", reading_scale_factor) else
      sprintf("over %g times the 99th percentile", reading_scale_factor)
    sprintf("%s: median %s of %s readings, %s of its training readings (1st to 99th percentile %s to %s)",
            f$column, format(signif(f$median, 3)), format(f$n, big.mark = ",", scientific = FALSE), where, format(signif(f$lower, 3)), format(signif(f$upper, 3)))
  }, character(1))
  details <- gsub("([{}])", "\\1\\1", details)  # text, not cli markup
  fitted_units <- unique(object$units[intersect(columns, names(object$units))])
  unit_hint <- if (length(fitted_units) == 1L) sprintf(" (the fit's %s)", encodeString(fitted_units, quote = "\"")) else ""
  low <- any(vapply(found, `[[`, "", "side") == "below")
  is_reference <- columns %in% object$reference
  label <- if (all(is_reference)) "Reference column" else if (any(is_reference)) "Column" else "Sensor column"
  cli::cli_warn(c(paste0("{cli::qty(length(columns))}", label, "{?s} {.field {columns}} of {.arg newdata} read{?s/} on another scale than the fit's training readings:"),
                  stats::setNames(details, rep("*", length(details))),
                  i = paste0("{cli::qty(length(columns))}Check {?its/their} units: readings in mg/m3 given to a fit made in ug/m3 are 1000 times too small, and the estimates from them look plausible but are wrong. Convert {?it/them} to the unit of the training readings", unit_hint, "."),
                  i = if (low) "{cli::qty(length(columns))}If the units are right, {?the sensor/the sensors} read near 0 throughout these rows (a clean spell below what {?it detects/they detect}, or a fault)."),
                class = c("ncam_warning_reading_scale", "ncam_warning"), call = call,
                columns = columns, medians = vapply(found, `[[`, 0, "median"))
}
