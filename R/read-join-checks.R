# The checks of join_reference() (R/read-join.R): missing-value codes, repeated times, readings
# further apart than the period, columns that cannot be averaged, and a join that paired nothing.

# Missing-value codes (-999, ...) in the numeric columns of table `arg` other than `not` (the time
# and keys) become NA with a warning: averaged as numbers, they drag a period's mean far off.
blank_missing_codes <- function(data, not, arg, call = parent.frame()) {
  readings <- setdiff(names(data)[vapply(data, is.numeric, logical(1))], not)
  blank_unusable_values(data, readings, cli::format_inline("{.arg {arg}}"),
                        fix = "Set them to {.code NA} before joining to silence this warning.", call = call)
}

# A time that repeats within a series (same keys) of table `arg`: an error naming the rows.
check_no_repeated_times <- function(time, series, keys, arg, why, fix, call) {
  series_time <- paste(series, as.numeric(time), sep = "\r")
  repeated <- which(duplicated(series_time))
  if (length(repeated) == 0L) return(invisible())
  first <- match(series_time[repeated[1]], series_time)
  ncam_abort(c("{.arg {arg}} row {repeated[1]} repeats the time{if (length(keys)) ' and keys'} of row {first} ({format(time[first], '%Y-%m-%d %H:%M:%S', usetz = TRUE)}), {why}; {length(repeated)} row{?s} {?repeats/repeat} an earlier one.",
               i = fix, i = keys_hint), call = call)
}

# Keys are matched between the tables, so a key must be a column of both.
keys_hint <- "A key must be a column of both tables: for one monitor beside several units, give the reference a copy of its rows per unit, or join one unit at a time."

# A table whose readings are further apart than the period (a daily reference, Date column,
# beside hourly sensors) would have each reading taken as the mean of one period (the 00:00
# hour) and the periods between left empty: an error. `step` is the time step per row
# (typical_step(); Inf when no series of the table has two times, which is accepted). A tenth
# is allowed for days of a clock change and irregular times. With periods of one day, readings
# a whole number of days apart are 24-hour values sampled every few days (the 1-in-3 and 1-in-6
# day schedules of EPA networks, as sensor_performance() takes them): each is its day's value.
check_step_within_period <- function(step, series, data, time, keys, period, arg, call) {
  nominal <- if (period$days > 0) period$days * 86400 else period$seconds
  coarse <- is.finite(step) & step > 1.1 * nominal
  if (period$days == 1) coarse <- coarse & !whole_days_apart(step)
  coarse <- which(coarse)
  if (length(coarse) == 0L) return(invisible())
  row <- coarse[which.max(step[coarse])]
  which_series <- if (length(keys)) {
    paste0(" (series ", paste0(keys, " = ", vapply(keys, function(k) as.character(data[[k]][row]), ""), collapse = ", "), ")")
  }
  spacing <- format_period(step[row])
  daily <- if (whole_days_apart(step[row]) && period$days != 1) {
    "If each reading is a 24-hour value (a daily mean, or a sample taken every few days as on 1-in-3 or 1-in-6 day schedules), use {.code average = \"1 day\"}: each is then paired with the other table's mean of its day."
  }
  # Daily readings need no second hint: the mean of the day from each is that day's.
  window <- if (!(length(daily) && round(step[row] / 86400) == 1)) {
    window_hint(time[series == series[row]], step[row])
  }
  ncam_abort(c("{.arg {arg}} has readings {spacing} apart{which_series}, longer than {.arg average} ({format_period(nominal)}): each reading would be taken as the mean of a single {format_period(nominal)} period and the periods between left empty.",
               i = daily,
               i = if (length(window)) "{window}"),
             call = call)
}

# Readings within an hour (a clock change) of a whole number of days apart.
whole_days_apart <- function(step) {
  days <- round(step / 86400)
  days >= 1 & abs(step - 86400 * days) <= 3600
}

# The hint for readings `step` seconds apart that may each be the mean of the `step` from its
# time: a period of that length pairs them with the right windows only when every one lies at
# the start of such a period (those start on multiples of the period from 1970-01-01 00:00 of the
# local clock, or for days at local midnights every so many days from it), else none does.
window_hint <- function(time, step) {
  spacing <- format_period(step)
  if (all(period_start(time, parse_period(spacing, "average")) == time)) {
    return(cli::format_inline("If each reading is the mean of the {spacing} from its time, use {.code average = \"{spacing}\"}."))
  }
  cli::format_inline("If each reading is the mean of the {spacing} from its time, no {.arg average} pairs it with its window: periods of {spacing} start at multiples of {spacing} from 1970-01-01 00:00 of the local clock, and the readings do not. Average the other table over each reading's window instead.")
}

# Periods of several days, and a table with about one reading per period or fewer, at local
# midnights (dates): each could be a 24-hour sample taken every few days (1-in-3 day samples with
# average = "3 days") or the mean of the days from its date (a weekly sampler with "7 days"), and
# the two cannot be told apart. Periods start every so many days from 1970-01-01, so a 24-hour
# sample would be paired with the other table's mean over the whole period, and a reading off its
# period's first day with a window that is not its own either way: an error in every phase, so
# that whether a schedule happens to fall on the periods' first days does not decide it.
check_sparse_midnight_readings <- function(time, start, step, period, arg, call) {
  if (period$days < 2) return(invisible())
  tz <- if (is.null(attr(time, "tzone"))) "" else attr(time, "tzone")[1]
  at_midnight <- time == period_start(time, parse_period("1 day", "average"))
  sparse <- which(is.finite(step) & step >= 0.9 * period$days * 86400 & at_midnight)
  if (length(sparse) == 0L) return(invisible())
  row <- sparse[1]
  days_in <- round((as.numeric(time[row]) - as.numeric(start[row])) / 86400)
  span <- format_period(period$days * 86400)
  place <- if (days_in == 0) {
    "on the first day of its period"
  } else {
    cli::format_inline("{days_in} day{?s} into its period, which starts on {format(start[row], '%Y-%m-%d', tz = tz)}")
  }
  ncam_abort(c("{.arg {arg}} has about one reading per period of {span}, or fewer, at local midnights: each could be a 24-hour sample taken every few days or the mean of the {span} from its date, which cannot be told apart, and {.code average = \"{span}\"} would pair a 24-hour sample with the other table's mean over {span}.",
               i = "Row {row} ({format(time[row], '%Y-%m-%d', tz = tz)}) lies {place}; periods of {span} start every {period$days} days from 1970-01-01 (a Thursday), whatever the readings' schedule.",
               i = "If each reading is a 24-hour sample (such as every third or sixth day), use {.code average = \"1 day\"}: each is then paired with the other table's mean of its day.",
               i = "If each is the mean of the days from its date, average the other table over each reading's window yourself, then pair the two by time."),
             call = call)
}

# Whether every stamp lies the same time (in seconds) after the start of its day or period, none
# at it: within an hour of each other (the offset moves by the clock change of a zone with
# summer time), and in whole half hours, as zones differ (23:59:59 marks the end of the day,
# rightly). Shared by join_reference() and average_estimates().
stamps_off_day_start <- function(offset) {
  !any(offset == 0) && diff(range(offset)) <= 3600 && all(offset %% 1800 == 0)
}

# "time zone <tz>" for a `tzone` attribute, or the session's zone when there is none.
zone_phrase <- function(tz) {
  if (is.null(tz) || !nzchar(tz[1])) "the session's time zone" else paste("time zone", tz[1])
}

# Daily (or longer) periods of a table with one reading per period, every reading stamped the
# same time into its period (to an hour) and none at its start: daily values stamped at midnight
# of another time zone, each paired with the mean of the period it falls in.
warn_period_offset <- function(time, start, step, period, arg, call) {
  if (period$days == 0 || length(time) < 2L || !all(is.finite(step))) return(invisible())
  if (stats::median(step) < 0.9 * period$days * 86400) return(invisible())
  offset <- as.numeric(time) - as.numeric(start)
  if (!stamps_off_day_start(offset)) return(invisible())
  warn_stamps_off_day_start(offset, time, cli::format_inline("Every reading of {.arg {arg}}"),
                            period$days, "paired with the other table's mean of",
                            cli::format_inline("Read the table in the zone whose midnights it holds (or give its times as {.cls Date}), so that its days are those of the other table."),
                            call)
}

# The warning of stamps all `offset` seconds into their period of `days` days in the zone of
# `time`, none at its start, worded once for join_reference() (warn_period_offset()) and
# sensor_performance() and average_estimates() (warn_days_offset()). A value stamped at the start
# of a day elsewhere covers the day from its stamp: 00:00 UTC, 19:00 or 20:00 the day before in
# New York, mostly the day after its stamp's, which it is `taken` ("dated by") the day before
# of; 09:00 in Tokyo, mostly its stamp's own day, 9 hours late. `subject`: the rows, such as
# "Every reading of `reference`", and `fix`, the hint, formatted already.
warn_stamps_off_day_start <- function(offset, time, subject, days, taken, fix, call) {
  period <- if (days == 1) "day" else paste0(days, "-day period")
  span <- if (days == 1) "24 hours" else format_period(days * 86400)
  shift <- paste0(format_period(offset[1]), if (diff(range(offset)) > 0) " (to an hour)")
  mostly <- if (stats::median(offset) > days * 43200) {
    "the {period} before the one it mostly covers"
  } else {
    "the {period} it mostly covers, though not its first {shift}"
  }
  zone <- zone_phrase(attr(time, "tzone"))
  cli::cli_warn(c(paste0("{subject} lies {shift} into its {period} in {zone}, none at its start (e.g. {format(time[1], '%Y-%m-%d %H:%M', usetz = TRUE)}): if the stamps are the starts of days in another time zone, each value covers the {span} from its stamp and is {taken} ", mostly, "."),
                  i = "{fix}"),
                class = c("ncam_warning_period_offset", "ncam_warning"), call = call)
}

# Readings that come once per period, yet some periods hold two: times a little before a
# period's start (a sensor clock running a second early, 00:59:59) fall into the period before,
# whose mean merges two readings while the next period is left empty.
warn_crowded_periods <- function(time, start, step, group, period, arg, call) {
  nominal <- if (period$days > 0) period$days * 86400 else period$seconds
  once_per_period <- is.finite(step) & step >= 0.9 * nominal
  counts <- tabulate(group)
  crowded <- which(once_per_period & counts[group] > 1L)
  if (length(crowded) == 0L) return(invisible())
  n_periods <- length(unique(group[crowded]))
  # Named: the reading of the first crowded period stamped latest into it, the early one.
  first_period <- crowded[group[crowded] == group[crowded[1]]]
  row <- first_period[which.max(as.numeric(time[first_period]) - as.numeric(start[first_period]))]
  cli::cli_warn(c("{n_periods} period{?s} of {.arg {arg}} {cli::qty(n_periods)}{?holds/hold} two or more readings, though its readings come about once per {format_period(nominal)} (first at row {row}, {format(time[row], '%Y-%m-%d %H:%M:%S', usetz = TRUE)}): a time just before a period's start falls into the period before, which then averages two readings while the next is left empty.",
                  i = "Pair each reading with the nearest reference time instead ({.code average = NULL, tolerance = \"10 min\"}), or round the times first."),
                class = c("ncam_warning_crowded_periods", "ncam_warning"), call = call)
}

# A column of table `arg` to average per period: a list column can be neither averaged nor
# compared; an infinite value, or one too large to compute with (max_reading_magnitude, as
# ncam() decides), would give a mean of Inf or NaN.
check_averaged_column <- function(x, col, arg, call) {
  if (!is.atomic(x)) {
    ncam_abort(c("Column {.val {col}} of {.arg {arg}} holds {.obj_type_friendly {x}}, not one value per row: it can be neither averaged nor compared within a period.",
                 i = "Drop it before joining, or make it a vector (such as with {.fn unlist})."),
               call = call)
  }
  if (!is.numeric(x)) return(invisible())
  infinite <- which(is.infinite(x))
  if (length(infinite) > 0L) {
    ncam_abort("Column {.val {col}} of {.arg {arg}} is infinite in row {infinite[1]}; a mean over it would be meaningless.",
               call = call)
  }
  # As a plain number: the units package's class refuses comparison with unitless bounds.
  check_not_too_large(as.double(x), "Column {.val {col}} of {.arg {arg}}", call)
}

# A column that is not averaged (text, factor, date) must hold one value per period and series
# (`group`, whose first rows are `first`). Numbers stored as text cannot be averaged: say so,
# not that the column tells series apart. Constant ones (ids and codes, such as the poc and
# method_code of read_aqs()) pass unchanged.
check_one_value_per_period <- function(x, first, group, col, arg, call) {
  value <- x[first][group]
  differs <- which(!(value == x | (is.na(value) & is.na(x))) | xor(is.na(value), is.na(x)))
  if (length(differs) == 0L) return(invisible())
  if (is.character(x) && !anyNA(suppressWarnings(as.numeric(x[!is.na(x)])))) {
    rows <- c(which(first)[group[differs[1]]], differs[1])
    # Digits as text are as often ids (read_purpleair()'s sensor_index) as measurements.
    ncam_abort(c("Column {.val {col}} of {.arg {arg}} holds numbers stored as text, which are not averaged: rows {rows[1]} and {rows[2]}, in one period, hold {.val {x[rows[1]]}} and {.val {x[rows[2]]}}.",
                 i = "If they are ids that tell series apart (such as a sensor index), add {.val {col}} to {.arg keys}.",
                 i = "If they are measurements, convert them with {.fn as.numeric} before joining."),
               call = call)
  }
  ncam_abort(c("Column {.val {col}} of {.arg {arg}} takes several values within one period: row {differs[1]} holds {.val {as.character(x[differs[1]])}}.",
               i = "Add {.val {col}} to {.arg keys} if it tells series apart, or drop it before joining.",
               i = keys_hint),
             call = call)
}

# A join in which no sensor row found a reference row gives an all-NA reference: say so, with
# both tables' time spans (the usual causes are a shifted year or time zone, or keys that
# differ). A warning, as the join itself is sound: the user may join batches in a loop.
warn_no_overlap <- function(row, sensor_time, reference_time, keys, nearest, call) {
  if (!all(is.na(row))) return(invisible())
  span <- function(t) paste(format(range(t), usetz = TRUE), collapse = " to ")
  overlap <- max(sensor_time) >= min(reference_time) && max(reference_time) >= min(sensor_time)
  why <- if (!overlap) {
    "The times do not overlap: check the year and the time zone of the time columns."
  } else if (length(keys)) {
    "The times overlap: check that {.arg keys} ({.field {keys}}) take the same values in both tables."
  } else if (nearest) {
    "The times overlap, but no reference time lies within {.arg tolerance} of a sensor time."
  } else {
    "The times overlap, but no sensor period has a reference reading."
  }
  cli::cli_warn(c("No sensor row was paired with a reference row: the reference is {.code NA} throughout.",
                  "*" = "The sensors span {span(sensor_time)}; the reference {span(reference_time)}.",
                  i = why),
                class = c("ncam_warning_no_overlap", "ncam_warning"), call = call)
}
