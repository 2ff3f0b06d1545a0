# Hourly and daily means of estimates with intervals: the periods and completeness rule of
# sensor_performance() (R/performance-block-means.R), the bounds averaged as for errors that move
# together.

#' Hourly or daily means of estimates, with their intervals
#'
#' Averages estimates, with their intervals and any other columns (such as the
#' reference), per unit over 1-hour or 24-hour periods, with the periods and
#' completeness rule of [sensor_performance()]. Use it for daily means to set
#' beside a 24-hour standard, from hourly or finer estimates of [predict.ncam()]
#' or [calibrate()].
#'
#' **The interval of a mean.** A period's `.pred_lower` and `.pred_upper` are
#' the means of its rows' bounds, and `.pred_sd` the mean of their `.pred_sd`.
#' That is the interval of the mean, at the rows' level, when the rows' errors
#' move together: every quantile of a mean of such (comonotone) errors is the
#' mean of their quantiles, whatever the shape of the intervals (normal,
#' log-normal with `transform = "log"`, or conformal from [calibrate()]). The
#' errors of the hours of one day do move together, as the error of a
#' calibration persists for hours: on SensEURCity Antwerp (three stations, a
#' reference-anchored fit on each one's first 20 % of hours, scored on the rest;
#' `bench/daily_means.R` in the source repository) the standardised hourly errors correlated
#' 0.89-0.90 one hour apart and 0.25-0.36 a day apart. Taking the hours as independent
#' would narrow a 24-hour interval about five-fold (by the square root of the
#' number of hours), and such 90 % intervals covered only 18-31 % of the daily
#' reference means there. Averaged bounds cover a period's mean about as well
#' as the rows' intervals cover the rows, somewhat better as the errors do not
#' move together entirely (there 73-94 % of the days, where the hourly
#' intervals covered 63-82 % of the hours), so a mean's interval is only as
#' honest as the rows' intervals: check those against a reference (see
#' [sensor_performance()] and [calibrate()]). That holds for the two bounds
#' together; with strongly skewed intervals (log-normal ones several times as
#' wide as the estimate) the true mean can lie above the averaged upper bound a
#' little more often than the rows' own share. `.pred_sd` is likewise the sd of
#' the mean for errors that move together, and larger than it otherwise.
#'
#' **Periods**, as in [sensor_performance()]: an hour is a span of elapsed
#' time starting on the local clock's hour, a day a calendar day in the time
#' zone of the `date` column (23 or 25 hours on a clock change). Data finer
#' than an hour whose time step divides it are first averaged per hour, each
#' hour counting only with `completeness` of its records, and a day's mean is
#' the mean of its hours, counting only with `completeness` of them; data whose
#' step divides a day but not an hour (45 minutes, 2 or 3 hours) are averaged
#' per day directly, each day needing `completeness` of its records. Hourly
#' data too are first averaged per hour, so that a day needs 18 of its 24
#' hours, not 18 rows. Readings of a unit that share one step of its time step
#' (a record a second late beside the one on time) count once, at their mean,
#' with a warning of class `ncam_warning_crowded_periods` (see Readings that
#' share a time step in [sensor_performance()]). A unit's
#' time step is, for regular data, the step of the grid its time stamps lie on, kept when records
#' are lost at random (see [sensor_performance()]); a unit whose step
#' changes is judged at that one, so its rows at a coarser step count as
#' incomplete periods. A unit that lost records in a pattern (an hourly logger
#' keeping every other hour) comes out at a coarser step: give `time_step`, or
#' the reference in `columns`, by which a unit whose values of it are those of
#' a finer unit at every time they share is judged at that finer step (see
#' Time step of units with records missing in [sensor_performance()]). Time stamps that wander around a step (1-minute data
#' stamped 12:00:07, 12:01:05, 12:02:09, ...) take that step, with a message;
#' of a step that divides an hour, their hours count as complete with one record fewer than their share (of 4 or more),
#' as in [sensor_performance()] (see its Time step); of other steps (hourly, 3-hourly), each is
#' taken at its nominal time (below) before forming days, so that `"24h"`
#' gives the daily means of the `"1h"` means: a reading stamped 23:58 for
#' the hour from 00:00 counts in the day that hour starts, and two at one
#' nominal hour make one mean. Stamps that scatter around
#' no such step take the mean of their gaps near the median, as there. Data already at the
#' averaging (hourly data and `"1h"`, daily data, also a whole number of days
#' apart, and `"24h"`) give one row per
#' period too, dated by its start (an hourly reading stamped at 05:30 falls in
#' the hour from 05:00; two readings in one period, such as one stamped a second
#' early, are averaged). Such data whose stamps wander around their step
#' (hourly readings stamped 05:57, 07:03, 08:01, ...) are each taken at their
#' nominal time, the time nearest on the local clock at the unit's phase, the
#' mean position of its stamps within the hour (or, for `"24h"`, the day)
#' rounded to a quarter hour, as in [sensor_performance()] (see its
#' Co-location of units with jittered time stamps): of stamps around the hour,
#' the reading stamped 05:57 is that of the hour from 06:00, not a second one
#' of the hour from 05:00; stamps around :48 to :52 take :45, each in the hour
#' of its stamp (05:50 in the hour from 05:00). Any other time step (such as 7
#' minutes, or daily data for `"1h"`) is an error.
#'
#' Daily rows (data one or more days apart) of a POSIXct `date` column that all
#' lie the same time into their day, none at its start, are likely days of
#' another time zone, each dated by the day its stamp falls in: days stamped at
#' 00:00 UTC shown in New York (20:00 the day before) by the day before the one
#' they mostly cover, shown in Tokyo (09:00) by the day they mostly cover, less
#' its first 9 hours. A warning of class `ncam_warning_period_offset` says
#' which, as in [join_reference()]. Give such a column in the zone whose
#' midnights it holds, or as a Date.
#'
#' Missing-value codes (-999, -9999) are read as `NA` with a warning, as
#' [sensor_performance()] does; columns with units (the \pkg{units} package)
#' keep them.
#'
#' Rows with no sensor reading (`.n_sensors` = 0 in [predict.ncam()]'s output),
#' whose estimate is the model's prior from the covariates, count as rows without
#' an estimate: a day's completeness counts measured rows only.
#'
#' Each column is averaged on its own rows: a period whose estimates fall short
#' of `completeness` has `NA` estimate and interval, whatever its reference; an
#' estimate's bounds are averaged over the rows with an estimate, so they
#' must be present on each of those rows.
#'
#' @param data A data frame with a time column and the column `.pred`, and
#'   optionally `.pred_lower` with `.pred_upper`, and `.pred_sd`: the output of
#'   [augment()], or `cbind(newdata, predict(fit, newdata, interval = ...))`.
#' @param averaging `"24h"` (the default) or `"1h"`.
#' @param date Name of the time column (POSIXct or Date).
#' @param unit Name of the column that tells units (sensors or sites) apart,
#'   or `NULL` for one unit.
#' @param columns Names of further numeric columns to average, such as the
#'   reference; each counts with the same `completeness` rule on its own rows.
#' @param completeness Fraction (0 to 1) of its expected records a period
#'   needs; below it the period's mean is `NA`. The default 0.75 is that of the
#'   US EPA reports and of `openair::timeAverage(data.thresh = 75)`.
#' @param time_step The time step at which completeness is judged: `NULL`
#'   (default) for each unit's own, or a period such as `"1 hour"`, `"10 min"`
#'   or a number of seconds, for every unit, or a named vector of them, one per
#'   unit named, as in [sensor_performance()].
#' @return A tibble with one row per unit and period that holds at least one
#'   row of `data` (units in order of first appearance, periods in time
#'   order): the `unit` column (when given), the `date` column (the period's
#'   start: a Date for `"24h"`, a POSIXct in the data's time zone for `"1h"`),
#'   `.n_estimates` (the rows with an estimate: two readings in one step count
#'   twice there, once for completeness), `.pred`, the interval columns
#'   of `data`, and `columns`.
#' @seealso [sensor_performance()] to judge daily means against a reference.
#' @export
#' @examples
#' hours <- as.POSIXct("2024-03-01", tz = "UTC") + 3600 * (0:71)
#' estimates <- data.frame(date = hours, .pred = 10 + sin(seq_along(hours) / 4),
#'                         ref = 11 + sin(seq_along(hours) / 4))
#' estimates$.pred_lower <- estimates$.pred - 2
#' estimates$.pred_upper <- estimates$.pred + 2
#' estimates$.pred[30:40] <- NA  # day 2 keeps 13 of its 24 hours: below 75 %
#' average_estimates(estimates, columns = "ref")
average_estimates <- function(data, averaging = c("24h", "1h"), date = "date", unit = NULL,
                              columns = NULL, completeness = 0.75, time_step = NULL) {
  check_data_frame(data, "data")
  averaging <- match_choice(averaging, c("24h", "1h"), "averaging")
  check_column_name_args(c("date", "unit", "columns"))
  check_number(completeness, "completeness", min = 0, max = 1)
  if (!is.null(columns) && (!is.character(columns) || anyNA(columns))) {
    ncam_abort("{.arg columns} must be column names (a character vector), not
                    {.obj_type_friendly {columns}}.")
  }
  if (nrow(data) == 0L) ncam_abort("{.arg data} has no rows.")
  estimate_columns <- estimate_columns_of(data)
  taken <- intersect(columns, c(estimate_columns, date, unit, ".n_estimates"))
  if (length(taken)) {
    ncam_abort("{.arg columns} names {.val {taken}}, which {?is/are} averaged or used already:
                    give only further columns, such as the reference.")
  }
  averaged_columns <- c(estimate_columns, columns)
  obs <- averaging_input(data, date, unit, averaged_columns)
  # Averaged under internal names: a column called "hour" or "day" is the user's, not a period.
  values <- paste0(".value_", seq_along(averaged_columns))
  further <- stats::setNames(values, averaged_columns)[columns]
  timing <- unit_time_steps(obs, !is.null(unit), time_step, further)
  steps <- timing$steps
  if (all(is.na(steps))) {
    ncam_abort("{.arg data} has one time stamp per unit: no time step to average by.")
  }
  check_averaging_steps(steps, averaging, named = !is.null(unit), timing$irregular)
  if (averaging == "24h") warn_days_offset(data[[date]], date, obs, steps)
  warn_crowded_steps(obs, steps, timing$jittered, attr(obs, "tz"), !is.null(unit), averaging)
  frame <- block_frame(obs, steps, averaging, completeness, attr(obs, "tz"), values,
                       totals = ".present", average_given = TRUE, jittered = timing$jittered)
  frame <- frame[order(match(frame$unit, names(steps)), frame$hour), ]
  averaging_output(frame, data, date, unit, averaging, stats::setNames(values, averaged_columns))
}

# Each unit's time step must divide the averaging's span, or be a whole number of days for
# 24-hour means; the error says which units' gaps scatter (`irregular`, their mean gaps named by
# unit).
check_averaging_steps <- function(steps, averaging, named, irregular = numeric(),
                                  call = parent.frame()) {
  unfit <- !fits_span(steps, block_span(averaging))
  if (!any(unfit)) return(invisible())
  words <- block_words(averaging)
  if (averaging == "1h" && all(steps[unfit] %% 86400 == 0)) {
    ncam_abort(c("The data are one or more days apart: no {words$means} means.",
                 i = "Use {.code averaging = \"24h\"} for daily means."), call = call)
  }
  who <- if (named) cli::format_inline("Unit{?s} {.val {names(steps)[unfit]}} ha{?s/ve}") else "The data have"
  scatter <- scatter_hint(irregular[intersect(names(steps)[unfit], names(irregular))], named)
  ncam_abort(c("{who} time step{?s} {vapply(unique(steps[unfit]), format_step, character(1))}, which
                    {?does/do} not divide {words$span}: no {words$means} means.",
               i = if (length(scatter)) "{scatter}",
               i = "Put the data on a regular grid, such as every 1, 5 or 10 minutes or every hour."),
             call = call)
}

# The estimate columns `data` carries, in the order of predict()'s output: `.pred` always, the
# bounds as a pair, `.pred_sd` when present.
estimate_columns_of <- function(data, call = parent.frame()) {
  if (!".pred" %in% names(data)) {
    ncam_abort(c("{.arg data} has no column {.field .pred}.",
                 i = "Give the output of {.code augment(fit, newdata)} or
                          {.code cbind(newdata, predict(fit, newdata, interval = \"prediction\"))}."),
               call = call)
  }
  bounds <- c(".pred_lower", ".pred_upper") %in% names(data)
  if (xor(bounds[1], bounds[2])) {
    ncam_abort("{.arg data} has {.field {c('.pred_lower', '.pred_upper')[bounds]}} without
                    {.field {c('.pred_lower', '.pred_upper')[!bounds]}}: an interval needs both
                    bounds.", call = call)
  }
  intersect(c(".pred", ".pred_lower", ".pred_upper", ".pred_sd"), names(data))
}

# The columns of average_estimates() checked, as a plain data frame: unit, time (seconds),
# the clock_columns() day, hour and day_seconds, `.present` (1 on rows with an estimate) and the
# columns to average, as numbers under the names `.value_1`, `.value_2`, ...; attribute `tz`,
# the time zone of the clock columns.
averaging_input <- function(data, date, unit, value_columns, call = parent.frame()) {
  check_string(date, "date", call = call)
  check_columns(data, date, "date", call = call)
  if (!is.null(unit)) {
    check_string(unit, "unit", call = call)
    check_columns(data, unit, "unit", call = call)
  }
  check_columns(data, value_columns, "columns", call = call)
  check_single_columns(data, c(date, unit, value_columns), call)
  timed <- timed_units(data, date, unit, call)
  obs <- data.frame(unit = timed$units, time = timed$seconds, day = timed$clock$day,
                    hour = timed$clock$hour, day_seconds = timed$clock$day_seconds)
  # As sensor_performance() does: a -999 averaged as a number decides the period's mean.
  data <- blank_unusable_values(data, value_columns, cli::format_inline("{.arg data}"),
                                fix = "Set them to {.code NA} before averaging to silence this warning.",
                                call = call)
  values <- lapply(value_columns, function(column) {
    numeric_column(data[[column]], column, if (startsWith(column, ".pred")) "data" else "columns", call)
  })
  names(values) <- value_columns
  # Rows without a reading carry the model's prior, not a measurement (predict()'s warning).
  if (".n_sensors" %in% names(data)) values$.pred[which(data[[".n_sensors"]] == 0)] <- NA
  estimate <- !is.na(values$.pred)
  spread <- intersect(c(".pred_lower", ".pred_upper", ".pred_sd"), value_columns)
  lacking <- which(estimate & Reduce(`|`, lapply(values[spread], is.na), FALSE))
  if (length(lacking) > 0L) {
    ncam_abort("{cli::qty(length(spread))}Column{?s} {.field {spread}} {?is/are} missing in
                    {rows_text(lacking)}, which have an estimate: a period's interval would
                    average other rows than its estimate.", call = call)
  }
  crossed <- if (".pred_lower" %in% spread) which(estimate & values$.pred_lower > values$.pred_upper)
  if (length(crossed) > 0L) {
    ncam_abort(c("Column {.field .pred_lower} is above {.field .pred_upper} in {rows_text(crossed)}.",
                 i = "Check that the bound columns are not swapped."), call = call)
  }
  # Bounds without an estimate would count towards a period whose estimate does not.
  for (column in spread) values[[column]][!estimate] <- NA
  obs$.present <- as.numeric(estimate)
  obs[paste0(".value_", seq_along(values))] <- values
  attr(obs, "tz") <- timed$tz
  obs
}

# The tibble of average_estimates(): the unit column under its own name and type, the period's
# start under the name of the time column, the count of rows with an estimate (`.present`
# summed), then the means (`values`: the internal
# names, named by the columns), with their units where the columns had them.
averaging_output <- function(frame, data, date, unit, averaging, values) {
  time <- data[[date]]
  tz <- if (is.null(attr(time, "tzone"))) "" else attr(time, "tzone")[1]
  out <- list()
  if (!is.null(unit)) out[[unit]] <- data[[unit]][match(frame$unit, key_text(data[[unit]]))]
  out[[date]] <- if (averaging == "24h") {
    as.Date(frame$day, origin = "1970-01-01")
  } else {
    as.POSIXct(frame$hour, origin = "1970-01-01", tz = tz)
  }
  out$.n_estimates <- as.integer(frame$.present)
  for (column in names(values)) {
    mean_values <- unname(frame[[values[[column]]]])
    # The units package's class, kept without loading it.
    if (inherits(data[[column]], "units")) {
      mean_values <- structure(mean_values, units = attr(data[[column]], "units"), class = "units")
    }
    out[[column]] <- mean_values
  }
  tibble::as_tibble(out)
}
