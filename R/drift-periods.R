# The periods sensor_drift() judges: the time column, rows repeated in it, each row's period
# start, calendar periods, and the name of the session's time zone that periods of its clock keep.

drift_times <- function(data, date, call = parent.frame()) {
  check_string(date, "date", call = call)
  check_columns(data, date, "date", call = call)
  check_single_columns(data, date, call, "newdata")  # the hint's code names sensor_drift()'s argument
  date_column(data, date, call, data_arg = "newdata")
}

# Rows of `newdata` that repeat an earlier row in every column (overlapping downloads, a table
# bound twice) count twice in their period's mean and in its number of readings: a warning
# naming them, as ncam() gives for its training rows.
warn_repeated_drift_rows <- function(newdata, call = parent.frame()) {
  repeated <- repeated_rows(newdata)
  if (!length(repeated)) return(invisible())
  first <- repeated[1]
  same <- rep(TRUE, nrow(newdata))
  for (x in newdata) {
    if (!is.atomic(x) || !is.null(dim(x))) next  # list and matrix columns are not compared, as in repeated_rows()
    x <- comparable_values(if (inherits(x, "POSIXlt")) as.POSIXct(x) else x)
    same <- same & ((is.na(x) & is.na(x[first])) | (!is.na(x) & !is.na(x[first]) & x == x[first]))
  }
  cli::cli_warn(c("{length(repeated)} row{?s} of {.arg newdata} repeat{?s/} an earlier row in every column ({rows_text(repeated)}; row {first} repeats row {which(same)[1]}): each copy counts again in its period's mean and number of readings.",
                  i = "Remove the copies (such as with {.fn unique}), or check the join or download that made them."),
                class = c("ncam_warning_repeated_rows", "ncam_warning"), call = call)
}

# The start of each row's period, of the class (and time zone) of the time column. Weeks
# (from Monday), months, quarters and years are calendar periods of the local clock; days and
# shorter periods are those of join_reference(): whole days from local midnight (23 or 25 hours
# at a clock change), shorter spans as multiples of their length on the local clock.
drift_periods <- function(time, period, call = parent.frame()) {
  check_string(period, "period", call = call)
  calendar <- calendar_period(period)
  spec <- if (is.null(calendar)) tryCatch(parse_period(period, "period"), error = function(e) NULL)
  if (is.null(calendar) && (is.null(spec) || (inherits(time, "Date") && spec$days == 0))) {
    ncam_abort(c("{.arg period} must be a length of time such as {.val 1 day}, {.val week},
                      {.val month} or {.val 2 weeks}, not {.val {period}}.",
                 i = "Units: sec, min, hour, day (whole numbers of days), week, month, quarter, year{if (inherits(time, 'Date')) '; a Date column needs whole days or longer' else ''}."),
               call = call)
  }
  if (length(time) == 0L) return(time)
  tz <- if (is.null(attr(time, "tzone"))) "" else attr(time, "tzone")[1]
  # The local date from the clock fields, not text (formatting and parsing a million times took
  # 8 of sensor_drift()'s 16 s); the calendar work once per distinct day.
  day <- if (inherits(time, "Date")) time else as.Date(time, tz = tz)
  days <- unique(day)
  if (!is.null(calendar)) {
    start_day <- calendar_start(days, calendar)
  } else if (spec$days > 0) {
    start_day <- as.Date(floor(as.numeric(days) / spec$days) * spec$days, origin = "1970-01-01")
  } else {
    return(period_start(time, spec))
  }
  if (!inherits(time, "Date")) start_day <- day_start(start_day, tz)
  start_day[match(day, days)]
}

# A calendar period ("month", "2 weeks") as its amount and unit; NULL for any other text.
calendar_period <- function(period) {
  pattern <- "^ *([1-9][0-9]*)? *(week|month|quarter|year)s? *$"
  if (!grepl(pattern, period)) return(NULL)
  amount <- sub(pattern, "\\1", period)
  list(amount = if (nzchar(amount)) as.integer(amount) else 1L, unit = sub(pattern, "\\2", period))
}

# The first day of each day's calendar period: multiples of weeks counted from Monday
# 1970-01-05, of months from January 1970, so that a period does not depend on the data's
# first date.
calendar_start <- function(day, calendar) {
  if (calendar$unit == "week") {
    monday <- as.Date("1970-01-05")
    weeks <- floor(as.numeric(day - monday) / (7 * calendar$amount)) * calendar$amount
    return(monday + 7 * weeks)
  }
  months <- calendar$amount * c(month = 1L, quarter = 3L, year = 12L)[[calendar$unit]]
  index <- 12L * as.integer(format(day, "%Y")) + as.integer(format(day, "%m")) - 1L
  start <- (index %/% months) * months
  as.Date(sprintf("%04d-%02d-01", start %/% 12L, start %% 12L + 1L))
}

# The name of the session's time zone, "" if none is found: TZ as set now, else the zone that
# `localtime` (/etc/localtime) links to, which the C library reads without TZ, else, for a
# `localtime` copied from a zone's file rather than linked (Debian and Docker images), the zone
# `timezone_file` (/etc/timezone) names when that zone's file under `zoneinfo` holds the same
# bytes (a copy of another zone's file beside a stale /etc/timezone names nothing). Not
# Sys.timezone(), which keeps its first answer for the session and, without TZ, runs timedatectl:
# in a container that prints systemd errors to the console, which R cannot silence. On Windows
# Sys.timezone() is quiet. The paths are arguments for the tests.
session_zone_name <- function(localtime = "/etc/localtime", timezone_file = "/etc/timezone",
                              zoneinfo = "/usr/share/zoneinfo") {
  zone <- Sys.getenv("TZ")
  if (nzchar(zone)) return(zone)
  if (.Platform$OS.type == "windows") {
    zone <- suppressWarnings(Sys.timezone())  # it warns when it finds none
    return(if (is.na(zone)) "" else zone)
  }
  link <- Sys.readlink(localtime)
  zone <- sub(".*zoneinfo/", "", link)
  if (nzchar(link) && zone %in% OlsonNames()) return(zone)
  named <- tryCatch(trimws(readLines(timezone_file, n = 1L, warn = FALSE)), error = function(e) character(),
                    warning = function(w) character())  # no such file, or not readable
  if (length(named) != 1L || !named %in% OlsonNames()) return("")
  same_bytes <- function(a, b) {
    size <- file.size(a)
    !is.na(size) && identical(size, file.size(b)) && identical(readBin(a, "raw", size), readBin(b, "raw", size))
  }
  if (same_bytes(localtime, file.path(zoneinfo, named))) named else ""
}
