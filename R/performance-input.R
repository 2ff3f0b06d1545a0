# The input checks of sensor_performance(): the columns validated, with their clock columns, and
# put in the units of the table (R/performance-units.R).

# Validated columns as a plain data frame: unit, time (seconds), the clock_columns() day, hour
# and day_seconds, est, ref, ref_complete; attribute `tz`, the time zone of the clock columns
# (block_frame() times jittered stamps anew in it), and `units`, those of est and ref
# (table_units(), from argument `units`).
performance_input <- function(data, estimate, reference, date, unit, units, pollutant,
                              call = parent.frame()) {
  check_data_frame(data, "data", call = call)
  for (arg in c("estimate", "reference", "date", if (!is.null(unit)) "unit")) {
    check_string(get(arg), arg, call = call)
    check_columns(data, get(arg), arg, call = call)
  }
  # With two columns of one name, data[[name]] would silently take the first.
  check_single_columns(data, c(estimate, reference, date, unit), call)
  timed <- timed_units(data, date, unit, call)
  if (!is.null(unit) && any(timed$units == "all")) {
    ncam_abort(c("Column {.val {unit}} (from {.arg unit}) has a unit named {.val all},
                  the name of the overall row.", i = "Rename that unit."), call = call)
  }
  # As the readers and join_reference() do: a -999 averaged as a number decides every figure.
  # Before any conversion of units, which would turn -999 mg/m3 into -999000 ug/m3.
  data <- blank_unusable_values(data, unique(c(estimate, reference)), cli::format_inline("{.arg data}"),
                                fix = "Set them to {.code NA} before judging performance to silence this warning.",
                                call = call)
  columns <- c(estimate = estimate, reference = reference)
  units <- table_units(units, data, columns, pollutant, call)
  data <- in_table_units(data, columns, units, pollutant, call)
  obs <- data.frame(unit = timed$units, time = timed$seconds, day = timed$clock$day,
                    hour = timed$clock$hour, day_seconds = timed$clock$day_seconds,
                    est = numeric_column(data[[estimate]], estimate, "estimate", call),
                    ref = numeric_column(data[[reference]], reference, "reference", call))
  # Rows without a sensor reading carry the model's prior (predict() warns), not a measurement:
  # averaged with measured rows, they would make a day of them count as complete.
  prior <- if (".n_sensors" %in% names(data)) which(data[[".n_sensors"]] == 0 & !is.na(obs$est))
  if (length(prior) > 0L) {
    ncam_inform("{length(prior)} row{?s} with {.field .n_sensors} = 0 (no sensor reading: the
                 estimate is the model's prior) {?is/are} taken without an estimate
                 ({.val {estimate}}).", "ncam_message_prior_rows")
    obs$est[prior] <- NA
  }
  # A row's reference is one whole record; block_means() says which means have all theirs.
  obs$ref_complete <- !is.na(obs$ref)
  attr(obs, "tz") <- timed$tz
  attr(obs, "units") <- units
  obs
}

# The unit of each row (its key text; "all" without `unit`), its time in seconds and its
# clock_columns() in the zone of the time column, `tz`, after the checks that
# sensor_performance() and average_estimates() share: every row has a unit, and one row per unit
# and time.
timed_units <- function(data, date, unit, call = parent.frame()) {
  time <- date_column(data, date, call)
  units <- if (is.null(unit)) rep("all", nrow(data)) else key_text(data[[unit]])
  if (!is.null(unit) && anyNA(units)) {
    ncam_abort("Column {.val {unit}} (from {.arg unit}) is missing in
                {rows_text(which(is.na(units)))}.", call = call)
  }
  seconds <- as.numeric(time) * if (inherits(time, "Date")) 86400 else 1
  repeated <- repeated_rows(data.frame(units, seconds))  # duplicated() of the frame pastes each row
  if (length(repeated) > 0L) {
    if (is.null(unit)) {
      # A grouped tibble's groups, which are not read, likely name the units.
      groups <- if (inherits(data, "grouped_df")) setdiff(names(attr(data, "groups")), ".rows")
      hint <- if (length(groups) == 1L) {
        "{.arg data} is grouped by {.field {groups}}, but groups are not read: give
         {.code unit = \"{groups}\"}."
      } else {
        "If the rows come from several units (sensors or sites), name the column that tells
         them apart in {.arg unit}{if (length(groups)) ' (groups are not read)'}; otherwise
         keep one row per time."
      }
      ncam_abort(c("Column {.val {date}} (from {.arg date}) repeats a time in
                    {rows_text(repeated)}: without {.arg unit}, every row is taken to come
                    from one unit.", i = hint), call = call)
    }
    ncam_abort(c("Column {.val {date}} (from {.arg date}) repeats a time within a unit in
                  {rows_text(repeated)} (unit {.val {units[repeated[1]]}}).",
                 i = "Keep one row per unit and time."), call = call)
  }
  tz <- if (is.null(attr(time, "tzone"))) "" else attr(time, "tzone")[1]
  list(units = units, seconds = seconds, clock = clock_columns(time, tz), tz = tz)
}

# Daily (or n-daily) rows stamped all the same time into their local day, none at its start, as
# join_reference() warns (warn_stamps_off_day_start()): values stamped at midnight of another
# time zone. For the 24-hour periods of average_estimates() and sensor_performance(); `time`: the
# column named `date`, `obs`: timed_units() columns of its rows, `steps`: the units' steps.
warn_days_offset <- function(time, date, obs, steps, call = parent.frame()) {
  if (!inherits(time, "POSIXt")) return(invisible())
  daily <- which(vapply(steps, whole_day_step, logical(1))[obs$unit])
  if (length(daily) < 2L) return(invisible())
  time <- as.POSIXct(time[daily])
  tz <- if (is.null(attr(time, "tzone"))) "" else attr(time, "tzone")[1]
  offset <- obs$time[daily] - as.numeric(day_start(obs$day[daily], tz))
  if (!stamps_off_day_start(offset)) return(invisible())
  warn_stamps_off_day_start(offset, time, cli::format_inline("Every daily row of {.arg data}"), 1,
                            "dated by",
                            cli::format_inline("Give column {.val {date}} in the zone whose midnights it holds (such as {.code attr(data[[\"{date}\"]], \"tzone\") <- \"UTC\"}) or as {.cls Date}."),
                            call)
}

# The time column named by `date` (already checked to exist once): Date or POSIXct (a POSIXlt
# as the POSIXct instants it denotes), on every row and finite. Times as text (as read from a
# CSV file) get the code that converts them, for the data frame `data_arg`.
date_column <- function(data, date, call = parent.frame(), data_arg = "data") {
  time <- data[[date]]
  if (inherits(time, "POSIXlt")) time <- as.POSIXct(time)
  if (!inherits(time, c("POSIXct", "Date"))) {
    fix <- if (is.character(time) || is.factor(time)) time_text_fix(time, date, data_arg)
    ncam_abort(c("Column {.val {date}} (from {.arg date}) must be POSIXct or Date, not
                    {.obj_type_friendly {time}}.",
                 i = if (!is.null(fix)) "It holds times as text: convert it first, with {.code {fix$code}}{fix$note}."),
               call = call)
  }
  if (anyNA(time)) {
    ncam_abort(c("Column {.val {date}} (from {.arg date}) is missing in
                      {rows_text(which(is.na(time)))}.",
                 i = "Give every row a time or remove those rows."), call = call)
  }
  if (any(is.infinite(time))) {
    ncam_abort("Column {.val {date}} (from {.arg date}) has infinite times in
                    {rows_text(which(is.infinite(time)))}.", call = call)
  }
  time
}

numeric_column <- function(x, column, arg, call) {
  # 64-bit integers (data.table::fread) by value: as.double() of their bits without bit64 loaded.
  if (inherits(x, "integer64")) x <- integer64_to_double(x, column, call)
  if (!is.numeric(x)) {
    ncam_abort("Column {.val {column}} (from {.arg {arg}}) must be numeric, not
                    {.obj_type_friendly {x}}.", call = call)
  }
  infinite <- which(is.infinite(x))
  if (length(infinite) > 0L) {
    ncam_abort(c("Column {.val {column}} (from {.arg {arg}}) is infinite in
                      {rows_text(infinite)}.",
                 i = "Replace those values with NA."), call = call)
  }
  x <- as.double(x)
  check_not_too_large(x, "Column {.val {column}} (from {.arg {arg}})", call)
  x
}

rows_text <- function(rows) {
  more <- if (length(rows) > 5L) sprintf(" and %d more", length(rows) - 5L) else ""
  paste0(if (length(rows) == 1L) "row " else "rows ", toString(utils::head(rows, 5L)), more)
}

# Rows without both an estimate and a reference: out of the pairs of rows taken as given, but
# in the 1-hour and 24-hour means, which average each column over the rows that have it.
inform_unpaired <- function(unpaired, averaging, steps) {
  if (unpaired == 0L) return(invisible())
  averaged <- Filter(function(block) {
    any(fits_span(steps, block_span(block)) & steps < block_span(block))
  }, setdiff(averaging, "as_given"))
  if (length(averaged) == 0L) {
    ncam_inform("{unpaired} row{?s} without both an estimate and a reference {?is/are} left
                 out of the paired metrics.", "ncam_message_unpaired_rows")
    return(invisible())
  }
  means <- paste(sub("h$", "-hour", averaged), collapse = " and ")
  given <- if ("as_given" %in% averaging) {
    " {?is/are} left out of the pairs of the data as given, but"
  } else {
    ""
  }
  ncam_inform(paste0("{unpaired} row{?s} without both an estimate and a reference", given,
                     " count{?s/} in the {means} means with {cli::qty(unpaired)}{?its/their}
                     estimate or reference: each is averaged over the rows that have it."),
              "ncam_message_unpaired_rows")
}
