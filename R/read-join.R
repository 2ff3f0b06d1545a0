#' Put sensor and reference data on one time base
#'
#' Joins low-cost sensor readings to reference readings of the same place and
#' time, as a left join of `sensors` to `reference`. Two ways of matching
#' times are offered:
#'
#' * **Averaging** (`average = "1 hour"`, the default): both tables are
#'   averaged over fixed periods (`"10 min"`, `"1 hour"`, `"1 day"`, ...), per
#'   series given by `keys`, and each sensor period is paired with the
#'   reference period that has the same start and keys. A period's mean is `NA` when its
#'   non-missing readings are fewer than `completeness` times the readings expected in the period
#'   (a period holding exactly that share counts; at `completeness = 0` every period with a
#'   non-missing reading has its mean, of whatever readings it holds); the expected count is the
#'   period length over the series' time step, rounded, and at least one. The step is the nominal
#'   step of the series, found as [sensor_performance()] finds it: the step of the grid its
#'   distinct times lie on, the longest gap of 10 s or more between them that makes at least 1 %
#'   of the gaps (and two of them) and of which at least 80 % of the gaps are whole multiples.
#'   Records lost at random (rows missing) leave it unchanged: a 1-minute logger that kept 8 % of
#'   its minutes at random, whose most common gap is as often 2 or 3 minutes as 1 and whose median
#'   gap is about 8, still expects 60 readings an hour, so its hours of about 5 readings are `NA`
#'   at any `completeness` above 5/60 (and 45 of 60 readings are needed at the default 0.75). A
#'   logger that writes every third minute has a 3-minute step and expects 20 readings an hour;
#'   each reading counts in the period of its own time, whatever span it stands for. Failing a
#'   grid, the step is the most common gap when most gaps of about its length are exactly it and
#'   more than half of all gaps are whole multiples of it, or the step that divides an hour or a
#'   day that its stamps wander around, also when most records are lost (see
#'   [sensor_performance()]); for times that scatter around no such step, the mean of the gaps
#'   near their median.
#'   A series with a single time (such as a sensor that spent one
#'   minute at a location) has no step of its own and takes that of the gaps
#'   of the other series of its table, so one 1-minute reading is not an hourly
#'   mean; only when no series of the table has two times is one reading per
#'   period expected. A table whose step is longer than `average` (a daily
#'   reference, such as a `Date` column, beside hourly sensors) is an error
#'   naming the table, its step and `average`: each of its readings would be
#'   taken as the mean of one period (the 00:00 hour) and the periods between
#'   left empty. The error suggests an `average` only where it pairs the
#'   readings with their own windows (`average = "1 day"` for daily values). With
#'   `average = "1 day"`, readings a whole number of days apart are taken as
#'   24-hour values sampled every few days (the 1-in-3 and 1-in-6 day schedules
#'   of EPA networks, as [sensor_performance()] takes them): each is paired
#'   with the other table's mean of its local day (which needs `completeness`
#'   of that day's readings), and counts as its own day's value, one reading
#'   being expected per day for a table sampled less often than daily. Readings that each cover
#'   several days (a weekly sampler) cannot be told from these: average the
#'   other table over their windows yourself. With periods of several days, a
#'   table with about one reading per period or fewer, at local midnights, is an
#'   error, whichever day of its period each reading falls on: a 1-in-3 day
#'   24-hour sample with `average = "3 days"` would be paired with the other
#'   table's mean over 3 days, on the period's first day as on the others
#'   (periods are counted from 1970-01-01, not from the schedule), and it
#'   cannot be told from a 3-day mean. The error names the fix for each
#'   (`average = "1 day"` for 24-hour samples). A period of whole days,
#'   however written (`"1 day"`, `"24 hours"`, `"1440 min"`, `86400` seconds or
#'   `as.difftime(1, units = "days")` alike), runs from local midnight to local
#'   midnight, so a day with a daylight-saving clock change expects 23 or 25
#'   hours of hourly readings. Each column is judged on its own readings.
#' * **Nearest time** (`average = NULL`): each sensor row is paired with the
#'   reference row of the same keys that is nearest in time, if it lies within
#'   `tolerance` (ties go to the earlier reference time).
#'
#' Periods follow the local clock of the time zone of the `sensors` time column
#' (a date-time without a time zone is in the session's zone, as R prints it,
#' as in [sensor_performance()]; for a `Date` column, the zone of the
#' `reference` date-times), as the hours of [sensor_performance()] and
#' [average_estimates()] do, so the three pair the same readings. Periods that
#' are not a whole number of days (`"1 hour"`, `"15 min"`, `"36 hours"`) start at
#' multiples of the period counted from 1970-01-01 00:00 of the local clock: an
#' hour starts on the clock's hour also where the offset from UTC is not whole
#' hours (India, UTC+05:30; Adelaide, +09:30 and +10:30 in summer). Each is a
#' span of elapsed time from its start: on the day the clock goes back, the
#' repeated hour (01:00 to 02:00 in London) is two periods of an hour, and the
#' day holds 25 hourly periods; on the day it goes forward, 23. A period longer
#' than an hour that the clock change cuts (2 hours from 00:00 when the clock
#' goes forward at 01:00) expects the readings of the time it lasts. Periods of
#' whole days, in whatever unit they are given, run from local midnight to
#' local midnight (23 or 25 hours on a day of a clock change). A `Date` time
#' column stands for local midnight in that time zone. The daily values of the
#' AQS files of [read_aqs()] (`Date Local`) are for the local standard day
#' (midnight to midnight standard time at the monitor, all year): to pair them
#' with the same 24 hours in summer too, give the sensor times in the fixed
#' zone of that standard time, such as `"Etc/GMT+5"` for US Eastern, `"Etc/GMT+6"`
#' Central, `"Etc/GMT+7"` Mountain and `"Etc/GMT+8"` Pacific (the sign is
#' reversed in these names), such as with
#' `attr(sensors$date, "tzone") <- "Etc/GMT+5"`. In a zone with summer time
#' (`"America/New_York"`) the days of summer run from 23:00 to 23:00 standard
#' time, an hour off those of AQS.
#'
#' Numeric columns are averaged (`integer64` columns, as from
#' `data.table::fread()`, are converted to doubles first; a column of class
#' `"units"`, of the units package, keeps its units); an infinite value,
#' or one beyond 1e150 in magnitude (too large to compute with, as in
#' [ncam()]), is an error. Any other column must hold one value per period and
#' series, or it is an error: add the column that tells the series apart to
#' `keys`, or, for numbers stored as text, convert it with [as.numeric()].
#' Text that is constant within each period (ids and codes, such as the `poc`
#' of [read_aqs()]) is kept as text. A list column is an error. The
#' nearest-time join computes nothing from the columns and passes every column
#' through unchanged, but for missing-value codes.
#'
#' **Missing-value codes.** A value of exactly -999, -9999, -99999, -999999,
#' -999.9 or -9999.9 in a numeric column of either table (other than `by` and
#' `keys`), as loggers and data portals write for a missing reading, is set to
#' `NA`, with a warning of class `ncam_warning_missing_code` naming the table,
#' the column, the count and the first rows: averaged as a number, one -999
#' among sixty readings of 10 gives a mean of -6.8. Other values, such as the
#' small negative readings of reference monitors, are kept; set other codes
#' (such as 9999) to `NA` before joining. The readers ([read_aqs()],
#' [read_purpleair()] and the others) do the same.
#'
#' When no sensor row is paired with a reference row, a warning of class
#' `ncam_warning_no_overlap` gives the time spans of both tables. With periods of
#' days, a table with one reading per period whose readings all lie the same time
#' into their day, none at its start (daily values stamped at midnight of another
#' time zone: after noon, each paired with the day before the one it mostly
#' covers), gives a warning of class
#' `ncam_warning_period_offset`. A table whose readings come about once per
#' period, yet with two in some periods (times just before a period's start,
#' from a clock running early), gives a warning of class
#' `ncam_warning_crowded_periods`: the nearest-time join pairs such readings
#' rightly. A missing or infinite time is an error.
#'
#' The openair package offers another route for the averaging: average each
#' table with `openair::timeAverage(data, avg.time = "hour", data.thresh = 75,
#' type = "site")` (its `data.thresh` is `completeness` in percent and its time
#' column must be called `date`) and merge the results by `date` and site. The
#' periods may differ: periods of several days here start on multiples of that
#' many days since 1970-01-01, a Thursday: `"7 days"` gives weeks from Thursday.
#'
#' A time that repeats within a series (the same time and keys on two rows of
#' one table) is an error: it would count twice in the mean and towards
#' completeness.
#'
#' @param sensors Data frame of sensor readings.
#' @param reference Data frame of reference readings.
#' @param by Name of the time column, in both tables: POSIXct, POSIXlt or Date.
#' @param keys Names of columns, in both tables, that identify a series and must
#'   match between sensor and reference rows, such as `"site"`. Matched by value, as text:
#'   text and factors by their text, dates as `"2024-03-01"`, whole numbers up to 2^53 by their
#'   digits (site 100000 as an integer, a double or the text `"100000"` is one site; `1e15` is
#'   `"1000000000000000"`), other numbers by the fewest digits, up to 17, that read back as the
#'   same double (so 0.3 and 0.1 + 0.2, which differ in the 17th digit, are two keys), and
#'   date-times by their instant. A missing key matches only a missing key.
#' @param average Length of the averaging period, such as `"1 hour"`, `"15 min"`
#'   or `"1 day"` (units `sec`, `min`, `hour`, `day`, with or without plural
#'   `s`), a number of seconds or a `difftime`; a whole number of days in any
#'   unit is taken as days. `NULL` pairs nearest times instead.
#' @param completeness Fraction (0 to 1) of the expected readings a period needs
#'   for its mean, the expected readings being the period over the series' nominal
#'   time step (see Averaging); 0 gives every period with a reading its mean.
#'   Used when averaging.
#' @param tolerance Largest time difference for a nearest-time pair, as a period
#'   string such as `"30 min"`, a number of seconds or a `difftime`; required
#'   when `average` is `NULL`.
#' @return A tibble. When averaging: one row per sensor period and series, in
#'   order of first appearance, with the period start in `by` (a `Date` when
#'   the sensors' column is one and the periods are whole days, else POSIXct),
#'   the `keys`, the sensor means and the reference means (`NA` where the
#'   reference has no such period). When pairing nearest times: one row per
#'   `sensors` row, in order, with the sensor columns (a POSIXlt `by` as
#'   POSIXct), the matched reference time in `<by>_ref` (a `Date` when the
#'   reference's column is one, else POSIXct in the zone of `by`) and the
#'   reference columns. A reference column whose name is
#'   also a sensor column gets the suffix `_ref`.
#' @export
#' @examples
#' minutes <- as.POSIXct("2024-03-01 00:00", tz = "UTC") + 60 * (0:119)
#' sensors <- data.frame(date = minutes, site = "A", pm25 = 10 + (0:119) %% 7)
#' reference <- data.frame(date = as.POSIXct("2024-03-01 00:00", tz = "UTC") + 3600 * (0:1),
#'                         site = "A", pm25 = c(8.1, 9.4))
#' join_reference(sensors, reference, keys = "site")
#' join_reference(sensors, reference, keys = "site", average = NULL, tolerance = "5 min")
join_reference <- function(sensors, reference, by = "date", keys = NULL, average = "1 hour",
                           completeness = 0.75, tolerance = NULL) {
  check_column_name_args(c("by", "keys"))
  check_data_frame(sensors)
  check_data_frame(reference)
  check_string(by, "by")
  if (!is.null(keys) && (!is.character(keys) || anyNA(keys) || by %in% keys)) {
    ncam_abort("{.arg keys} must be a character vector of column names other than {.arg by}.")
  }
  require_columns(sensors, c(by, keys), "sensors")
  require_columns(reference, c(by, keys), "reference")
  for (arg in c("sensors", "reference")) {
    if (nrow(get(arg)) == 0L) ncam_abort("{.arg {arg}} has no rows: there is nothing to join.")
  }
  check_number(completeness, "completeness", min = 0, max = 1)
  sensors <- blank_missing_codes(integer64_as_double(sensors), c(by, keys), "sensors")
  reference <- blank_missing_codes(integer64_as_double(reference), c(by, keys), "reference")
  sensor_dates <- inherits(sensors[[by]], "Date")
  tz <- time_zone(sensors[[by]], reference[[by]])
  sensor_time <- as_time(sensors[[by]], by, "sensors", tz)
  reference_time <- as_time(reference[[by]], by, "reference", tz)

  # POSIXlt sensor times come back as POSIXct, as they do when averaged.
  if (inherits(sensors[[by]], "POSIXlt")) sensors[[by]] <- sensor_time
  if (is.null(average)) {
    if (is.null(tolerance)) {
      ncam_abort("{.arg tolerance} is needed to pair nearest times ({.code average = NULL}), such as {.val 30 min}.")
    }
    return(join_nearest(sensors, reference, sensor_time, reference_time, by, keys,
                        parse_period(tolerance, "tolerance")$seconds))
  }
  period <- parse_period(average, "average")
  sensors[[by]] <- sensor_time
  reference[[by]] <- reference_time
  sensor_means <- average_over_time(sensors, by, keys, period, completeness, "sensors")
  reference_means <- average_over_time(reference, by, keys, period, completeness, "reference")
  row <- match(series_key(sensor_means, c(keys, by)), series_key(reference_means, c(keys, by)))
  warn_no_overlap(row, sensor_time, reference_time, keys, nearest = FALSE, environment())
  out <- add_reference_columns(sensor_means, reference_means, row, setdiff(names(reference_means), c(by, keys)))
  # Periods of whole days of a Date column are dates again (their starts are local midnights).
  if (sensor_dates && period$days > 0) out[[by]] <- as.Date(format(out[[by]], "%Y-%m-%d", tz = tz))
  out
}

# Each sensor row with the reference row of its keys nearest in time within `tolerance`.
join_nearest <- function(sensors, reference, sensor_time, reference_time, by, keys, tolerance,
                         call = parent.frame()) {
  reference_series <- series_key(reference, keys)
  check_no_repeated_times(reference_time, reference_series, keys, "reference",
                          "so the nearest reference reading is ambiguous",
                          "Add the column that tells the rows apart to {.arg keys}, or average with {.arg average}.",
                          call)
  sensor_series <- series_key(sensors, keys)
  row <- rep(NA_integer_, nrow(sensors))
  reference_rows <- split(seq_along(reference_time), reference_series)
  for (rows in split(seq_along(sensor_time), sensor_series)) {
    series <- match(sensor_series[rows[1]], names(reference_rows))
    if (is.na(series)) next
    candidates <- reference_rows[[series]]
    candidates <- candidates[order(reference_time[candidates])]
    times <- as.numeric(reference_time[candidates])
    t <- as.numeric(sensor_time[rows])
    below <- findInterval(t, times)
    above <- pmin(below + 1L, length(times))
    below <- pmax(below, 1L)
    nearest <- ifelse(abs(t - times[below]) <= abs(times[above] - t), below, above)
    close_enough <- abs(times[nearest] - t) <= tolerance
    row[rows] <- ifelse(close_enough, candidates[nearest], NA_integer_)
  }
  warn_no_overlap(row, sensor_time, reference_time, keys, nearest = TRUE, call)
  # The matched reference time comes first, named `<by>_ref` as `by` is a sensor column; a Date
  # stays a Date.
  if (!inherits(reference[[by]], "Date")) reference[[by]] <- reference_time
  add_reference_columns(sensors, reference, row, c(by, setdiff(names(reference), c(by, keys))))
}

# `sensors` with the reference columns `columns`, taken from reference rows `row`;
# a name already used by a sensor column gets the suffix "_ref".
add_reference_columns <- function(sensors, reference, row, columns, call = parent.frame()) {
  out <- as.list(sensors)
  for (col in columns) {
    name <- if (col %in% names(out)) paste0(col, "_ref") else col
    if (name %in% names(out)) {
      ncam_abort("Column {.val {col}} of {.arg reference} cannot be added: {.val {name}} is taken by {.arg sensors}.",
                 call = call)
    }
    out[[name]] <- reference[[col]][row]
  }
  as_tbl(out)
}

# Mean of each numeric column per series (`keys`) and period; other columns must be
# constant within a period. One row per series and period, in order of first appearance.
average_over_time <- function(data, by, keys, period, completeness, arg, call = parent.frame()) {
  time <- data[[by]]
  start <- period_start(time, period)
  series <- series_key(data, keys)
  check_no_repeated_times(time, series, keys, arg, "it would count twice, in the mean and towards completeness",
                          "Remove repeated rows (such as with {.fn unique}), keep one instrument (such as one POC of an AQS monitor), or add the column that tells them apart to {.arg keys}.",
                          call)
  group <- match(paste(series, as.numeric(start), sep = "\r"),
                 unique(paste(series, as.numeric(start), sep = "\r")))
  first <- !duplicated(group)
  step <- typical_step(as.numeric(time), series)
  check_step_within_period(step, series, data, time, keys, period, arg, call)
  check_sparse_midnight_readings(time, start, step, period, arg, call)
  warn_period_offset(time, start, step, period, arg, call)
  warn_crowded_periods(time, start, step, group, period, arg, call)
  step <- step[first]
  expected <- pmax(1, round(period_seconds(start[first], period) / step))
  out <- list()
  out[[by]] <- start[first]
  for (col in keys) out[[col]] <- data[[col]][first]
  for (col in setdiff(names(data), c(by, keys))) {
    x <- data[[col]]
    check_averaged_column(x, col, arg, call)
    if (is.numeric(x)) {
      present <- rowsum(as.numeric(!is.na(x)), group, reorder = FALSE)[, 1]
      total <- rowsum(ifelse(is.na(x), 0, as.double(x)), group, reorder = FALSE)[, 1]
      mean <- total / present
      mean[present == 0 | present < records_needed(completeness, expected)] <- NA_real_
      mean <- unname(mean)
      # A column of the units package keeps its units (its class, without loading the package).
      if (inherits(x, "units")) mean <- structure(mean, units = attr(x, "units"), class = "units")
      out[[col]] <- mean
    } else {
      check_one_value_per_period(x, first, group, col, arg, call)
      out[[col]] <- x[first]
    }
  }
  as_tbl(out)
}

# Per row, the time step of its series (series_time_steps(), as sensor_performance() finds a
# unit's), so that records lost at random (rows missing) do not lengthen it, as a median gap
# would (a logger keeping 45 % of its minutes has a median gap of 2 minutes). A series with a
# single time takes the step of the table's gaps pooled (one reading of 1-minute data is then 1
# of 60 in an hour, not a whole hour); only when no series has two times is one reading per
# period all that is expected (step Inf).
typical_step <- function(seconds, series) {
  step <- series_time_steps(seconds, series)$step
  step[is.na(step)] <- Inf
  # match(), not step[series]: without keys every series is "", and x[""] matches no name.
  unname(step[match(series, names(step))])
}

# The time zone for both tables: that of the sensors' date-times, where one without a zone is in
# the session's zone, as R prints it (""); for Date sensors, that of the reference's
# date-times; for two Date columns, UTC.
time_zone <- function(sensor_time, reference_time) {
  for (x in list(sensor_time, reference_time)) {
    if (inherits(x, c("POSIXct", "POSIXlt"))) {
      tz <- attr(x, "tzone")[1]
      return(if (is.null(tz)) "" else tz)
    }
  }
  "UTC"
}

# POSIXct in `tz`; a Date is local midnight, a POSIXlt the same instants. Missing and
# infinite times are an error.
as_time <- function(x, by, arg, tz, call = parent.frame()) {
  if (inherits(x, "POSIXlt")) x <- as.POSIXct(x)
  if (!inherits(x, c("Date", "POSIXct"))) {
    ncam_abort(c("Column {.val {by}} of {.arg {arg}} must be POSIXct, POSIXlt or Date, not {.cls {class(x)}}.",
                 i = "Convert it, such as with {.fn as.POSIXct}."),
               call = call)
  }
  # As split_blocks() and select_gap() say: a time of Inf belongs to no period.
  infinite <- which(is.infinite(x))
  if (length(infinite) > 0L) {
    ncam_abort("Column {.val {by}} of {.arg {arg}} has infinite times in {rows_text(infinite)}.",
               call = call)
  }
  if (inherits(x, "Date")) x <- day_start(x, tz) else attr(x, "tzone") <- tz
  missing <- which(is.na(x))
  if (length(missing) > 0L) {
    ncam_abort("Column {.val {by}} of {.arg {arg}} is missing in row {missing[1]}; every row needs a time.",
               call = call)
  }
  x
}

require_columns <- function(data, cols, arg, call = parent.frame()) {
  missing <- setdiff(cols, names(data))
  if (length(missing) > 0L) {
    ncam_abort(c("{.arg {arg}} lacks {cli::qty(length(missing))}column{?s} {.val {missing}}.",
                 i = "It has column{?s} {.val {names(data)}}."), call = call)
  }
}

integer64_as_double <- function(data, call = parent.frame()) {
  for (col in names(data)) {
    if (inherits(data[[col]], "integer64")) data[[col]] <- integer64_to_double(data[[col]], col, call)
  }
  data
}
