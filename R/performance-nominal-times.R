# The nominal times of time stamps that wander around their step (unit_time_steps()), on the
# local clock: for the rows as given of sensor_performance()'s blocks and average_estimates()
# (block_frame()), and for comparing jittered units' references (nominal_reference_agreement());
# and the hours and local days the rows of the 1-hour and 24-hour blocks are timed at.

# The nominal time (seconds) of each stamp `time` of units `unit` whose stamps wander around
# their step (`step`, per stamp): the multiple of the step nearest it on the local clock of zone
# `tz`, counted from the unit's phase, the circular mean of its local stamps modulo the step. The
# phase is rounded to a quarter step, at most a quarter hour, so that stamps around the clock's
# hour take it; hourly stamps around :48 to :52 take :45, and so stay in their stamp's hour. On
# the local clock, as the hours and days of the blocks are: daily stamps at local midnight in a
# zone with summer time lie an hour apart in UTC between summer and winter, and a phase taken
# there would move the winter ones into the day before. A unit has a phase per offset from UTC
# modulo its step: readings every elapsed hour lie on the hour in Lord Howe's summer (UTC+11)
# and on the half hour in its winter (UTC+10:30), half a step apart, where one phase would send
# half of them to the neighbouring hour.
nominal_times <- function(time, unit, step, tz) {
  offset <- as.POSIXlt(.POSIXct(time, tz), tz = tz)$gmtoff
  if (is.null(offset)) offset <- 0
  offset[is.na(offset)] <- 0
  local <- time + offset
  turn <- 2 * pi * (local %% step) / step
  phase_group <- paste(unit, offset %% step, sep = "\r")
  sums <- rowsum(cbind(sin(turn), cos(turn)), phase_group)
  phase <- (atan2(sums[, 1], sums[, 2]) / (2 * pi))[match(phase_group, rownames(sums))] * step
  grain <- pmin(step / 4, 900)
  phase <- grain * round(phase / grain)
  # Back from the local clock by the stamp's own offset: an hourly stamp at 01:58 before a
  # clock change goes to the hour two minutes of elapsed time later, on either side of it.
  phase + step * round((local - phase) / step) - offset
}

# `rows` (columns unit, time and the clock_columns() day, hour and day_seconds) with the stamps
# of the `jittered` units moved to their nominal_times() at `step` (one number, or per row),
# their clock columns anew in zone `tz`. Two stamps of a unit at one nominal time are two
# readings of one period: with `shared = "move"` both move there and are averaged (as
# average_estimates() averages two readings in one period); with "keep" both keep their own
# times, so that no unit has two rows at one time among rows taken as they stand; with "drop"
# both are left out, for a comparison of one record per nominal time.
snap_jittered <- function(rows, jittered, step, tz, shared = c("move", "keep", "drop")) {
  shared <- match.arg(shared)
  moved <- which(rows$unit %in% jittered)
  if (length(moved) == 0L) return(rows)
  unit <- rows$unit[moved]
  nominal <- nominal_times(rows$time[moved], unit, rep_len(step, nrow(rows))[moved], tz)
  key <- paste(unit, nominal, sep = "\r")
  tied <- duplicated(key) | duplicated(key, fromLast = TRUE)
  if (shared == "keep") nominal[tied] <- rows$time[moved][tied]
  clock <- clock_columns(.POSIXct(nominal, tz), tz)
  rows$time[moved] <- nominal
  rows$day[moved] <- clock$day
  rows$hour[moved] <- clock$hour
  rows$day_seconds[moved] <- clock$day_seconds
  if (shared == "drop" && any(tied)) rows <- rows[-moved[tied], ]
  rows
}

# The rows of a "1h" or "24h" block (`block`) timed at the start of their hour or local day in
# zone `tz`, so that the units share periods: hourly rows as given may be stamped 05:30, daily
# ones at 05:00 UTC (midnight in New York), and the means of finer units by the first record of
# their period. Two rows of a unit in one period (a jittered stamp that keeps its own,
# snap_jittered()) keep their times: a stamp lies within its period, so it is no other period's
# start.
time_by_period <- function(frame, block, tz) {
  period <- c("1h" = "hour", "24h" = "day")[[block]]
  alone <- !(duplicated(frame[c("unit", period)]) |
               duplicated(frame[c("unit", period)], fromLast = TRUE))
  if (block == "1h") {
    frame$time[alone] <- frame$hour[alone]
    return(frame)
  }
  days <- unique(frame$day[alone])
  starts <- as.numeric(day_start(days, tz))
  frame$time[alone] <- starts[match(frame$day[alone], days)]
  frame
}
