# The averaging periods of join_reference() (R/read-join.R): reading, writing and placing them.

# A length in seconds as a period string that parse_period() reads: "1 day", "2 hours",
# "30 min", "90 sec".
format_period <- function(seconds) {
  seconds <- signif(seconds, 6)
  units <- c(day = 86400, hour = 3600, min = 60, sec = 1)
  unit <- names(units)[seconds %% units == 0][1]
  if (is.na(unit)) unit <- "sec"
  amount <- seconds / units[[unit]]
  paste(format(amount, scientific = FALSE), if (amount == 1 || unit %in% c("min", "sec")) unit else paste0(unit, "s"))
}

# Start of the period holding each time, on the local clock of the time's zone: periods shorter
# than a day at multiples of the period counted from 1970-01-01 00:00 of the local clock (an
# hour from the clock's hour, also where the offset from UTC is not whole hours: India,
# UTC+05:30), whole days from local midnight. A period is a span of elapsed time from its start
# (clock_columns() cuts the hours of sensor_performance() and average_estimates() alike), so the
# two 01:00 hours of an autumn clock change are two periods.
period_start <- function(time, period) {
  tz <- if (is.null(attr(time, "tzone"))) "" else attr(time, "tzone")[1]
  if (period$days == 0) {
    shift <- utc_offset(time, tz) %% period$seconds
    seconds <- floor((as.numeric(time) + shift) / period$seconds) * period$seconds - shift
    return(as.POSIXct(seconds, origin = "1970-01-01", tz = tz))
  }
  day <- as.numeric(as.Date(format(time, "%Y-%m-%d", tz = tz)))
  day_start(floor(day / period$days) * period$days, tz)
}

# The offset from UTC in seconds of each time in zone `tz` (0 where the system gives none).
utc_offset <- function(time, tz) {
  offset <- as.POSIXlt(time, tz = tz)$gmtoff
  if (is.null(offset)) return(rep(0, length(time)))
  offset[is.na(offset)] <- 0
  as.numeric(offset)
}

# The first instant of each calendar day in `tz` (`day`: dates, or day numbers since 1970-01-01):
# local midnight, or where a clock change skips midnight (Santiago, Havana, Beirut) the first
# time that exists, e.g. 01:00.
day_start <- function(day, tz) {
  if (!inherits(day, "Date")) day <- as.Date(day, origin = "1970-01-01")
  start <- as.POSIXct(format(day), tz = tz)
  skipped <- which(!is.na(day) & (is.na(start) | format(start, "%Y-%m-%d", tz = tz) != format(day)))
  if (length(skipped)) {
    # From half a day before noon, forward in half hours to the first time on that day.
    start[skipped] <- as.POSIXct(paste(format(day[skipped]), "12:00:00"), tz = tz) - 12 * 3600
    for (step in seq_len(48)) {
      early <- skipped[format(start[skipped], "%Y-%m-%d", tz = tz) != format(day[skipped])]
      if (length(early) == 0L) break
      start[early] <- start[early] + 1800
    }
  }
  start
}

# Length of each period from its start. Whole days run from local midnight to local midnight, so a
# day of a clock change lasts 23 or 25 hours. A shorter period lasts its length, but for the
# part of it the local clock skips or repeats: with periods of 2 hours, the one from 00:00 on the
# day the clock goes forward at 01:00 lasts an hour (the clock skips 01:00 to 02:00), and on the
# day it goes back at 02:00 the second period from 00:00 (standard time) holds only the hour after
# the change.
period_seconds <- function(start, period) {
  if (period$days == 0) return(sub_day_period_seconds(start, period$seconds))
  tz <- if (is.null(attr(start, "tzone"))) "" else attr(start, "tzone")[1]
  day <- as.Date(format(start, "%Y-%m-%d", tz = tz))
  as.numeric(day_start(day + period$days, tz)) - as.numeric(start)
}

# The elapsed time in [start, start + p) whose period_start() is `start`: all of it unless the
# offset from UTC changes inside (at an instant found by bisection), where the part on the other
# side of the change belongs to a period of the other offset unless both offsets give the same
# starts (whole-hour changes, for periods of an hour or less).
sub_day_period_seconds <- function(start, p) {
  out <- rep(p, length(start))
  tz <- if (is.null(attr(start, "tzone"))) "" else attr(start, "tzone")[1]
  first <- utc_offset(start, tz)
  last <- utc_offset(start + p - 1, tz)
  changed <- which(first != last & (first %% p) != (last %% p))
  if (!length(changed)) return(out)
  s <- as.numeric(start[changed])
  lo <- s       # the offset of `first` holds here
  hi <- s + p - 1  # and that of `last` here
  while (any(hi - lo > 1)) {
    mid <- floor((lo + hi) / 2)
    at_first <- utc_offset(as.POSIXct(mid, origin = "1970-01-01", tz = tz), tz) == first[changed]
    lo <- ifelse(at_first, mid, lo)
    hi <- ifelse(at_first, hi, mid)
  }
  # `hi` is the first second of the new offset. A period of the old offset (its start one of
  # that offset's starts) ends there; one of the new offset begins there.
  of_first <- (s + first[changed] %% p) %% p == 0
  out[changed] <- ifelse(of_first, hi - s, s + p - hi)
  out
}

# "1 hour", "15 min", "2 days", a number of seconds or a difftime, as seconds, and as days when
# it is a whole number of days however written: "24 hours" is "1 day", of local midnights (as
# UTC multiples, it would pair a daily reference with the wrong window, silently).
parse_period <- function(x, arg, call = parent.frame()) {
  if (inherits(x, "difftime")) x <- as.numeric(x, units = "secs")
  if (is.numeric(x) && length(x) == 1L && !is.na(x) && x > 0 && is.finite(x)) {
    return(list(seconds = x, days = whole_days(x)))
  }
  pattern <- "^ *([0-9]+(\\.[0-9]+)?)? *(sec|min|hour|day)s? *$"
  if (!is.character(x) || length(x) != 1L || is.na(x) || !grepl(pattern, x)) {
    ncam_abort("{.arg {arg}} must be a period such as {.val 1 hour}, {.val 15 min} or {.val 1 day}, or a number of seconds.",
               call = call)
  }
  amount <- sub(pattern, "\\1", x)
  amount <- if (nzchar(amount)) as.numeric(amount) else 1
  unit <- sub(pattern, "\\3", x)
  seconds <- amount * c(sec = 1, min = 60, hour = 3600, day = 86400)[[unit]]
  if (amount <= 0 || (unit == "day" && amount != round(amount))) {
    ncam_abort("{.arg {arg}} must be a positive period (whole days for days), not {.val {x}}.",
               call = call)
  }
  list(seconds = seconds, days = whole_days(seconds))
}

# A length in seconds as a number of whole days, or 0 when it is not one.
whole_days <- function(seconds) if (seconds %% 86400 == 0) seconds / 86400 else 0
