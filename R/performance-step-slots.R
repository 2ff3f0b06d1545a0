# Readings of a unit that share one step of its time step (a record a second late beside the
# one on time, a logger writing an hour twice): the 1-hour and 24-hour means of
# sensor_performance() and average_estimates() count each step once, at the mean of its
# readings, so that an extra reading neither fills a missing step nor weighs twice.

#' @section Readings that share a time step:
#' A period's completeness counts the steps of the unit's time step that hold
#' a reading, not its rows: readings of a regular unit (not one whose stamps
#' wander) that share one step are first averaged into one. A step is the hour
#' of the clock for hourly data (as in the EPA reports: first one mean per
#' hour, then 18 of 24 hours), the day for data one or more days apart, and
#' otherwise the span of half a step either side of a time on the unit's grid
#' (the place of most of its stamps), within the hour for a step that divides an
#' hour, else within the day: stamps a fraction of a second either side of the
#' minute are a step each. So hourly data with 17 hours of a day plus a second
#' reading in one of them (a record one second late, a logger restart) hold 17
#' of 24 hours, below 75 %, and that hour counts once in the day's mean. A
#' warning of class `ncam_warning_crowded_periods` names the units and steps;
#' the rows as given (`"as_given"`) keep every reading. In the `"1h"` block the
#' rows of an hourly unit, and in the `"24h"` block those of a daily unit, are
#' one per hour or day likewise, the mean of its readings; when every unit is
#' hourly and some hour holds two readings, the `"1h"` block is given beside
#' `"as_given"`, as it differs from it.
#' @rdname sensor_performance
#' @name sensor_performance
NULL

# The period and slot of each row's step, for rows of units of time step `step` (seconds):
# hourly rows take their clock hour, daily ones (whole days) their day; others their nominal
# time on the unit's grid (nominal_times() in zone `tz`, whose phase is the circular mean of its
# stamps, so a record stamped a fraction of a second off its step keeps it) within their hour
# (steps that divide an hour) or day. Numbers: `period` and `slot` per row.
step_slots <- function(rows, step, tz) {
  if (step == 3600) return(list(period = rows$hour, slot = rows$hour))
  if (whole_day_step(step)) return(list(period = rows$day, slot = rows$day))
  slot <- nominal_times(rows$time, rows$unit, rep(step, nrow(rows)), tz)
  list(period = if (step < 3600 && 3600 %% step == 0) rows$hour else rows$day, slot = slot)
}

# Per row of `rows` (units of time step `step`), whether it shares its step's slot (`where`,
# step_slots() of all the rows: a unit's phase is that of all its stamps) with another row of its
# unit; rows of `jittered` units never do (their stamps are placed by snap_jittered(), their
# hours spare a record).
shares_step <- function(rows, step, jittered, tz, where = step_slots(rows, step, tz)) {
  n <- nrow(rows)
  regular <- !(rows$unit %in% jittered)
  if (n < 2L || !any(regular)) return(logical(n))
  unit <- match(rows$unit, unique(rows$unit))
  unit[!regular] <- -seq_len(sum(!regular))
  o <- order(unit, where$period, where$slot)
  same <- diff(unit[o]) == 0 & diff(where$period[o]) == 0 & diff(where$slot[o]) == 0
  shared <- logical(n)
  shared[o] <- c(FALSE, same) | c(same, FALSE)
  shared
}

# `rows` (units of time step `step`) with the rows that share a step (shares_step()) replaced by
# one row per step: the means of `columns` and the sums of `totals` (block_means()), timed by
# the step's first row.
one_reading_per_step <- function(rows, step, jittered, tz, columns, totals) {
  if (nrow(rows) < 2L || all(rows$unit %in% jittered)) return(rows)
  where <- step_slots(rows, step, tz)
  shared <- shares_step(rows, step, jittered, tz, where)
  if (!any(shared)) return(rows)
  crowded <- rows[shared, ]
  crowded$.period <- where$period[shared]
  crowded$.slot <- where$slot[shared]
  means <- block_means(crowded, c("unit", ".period", ".slot"), rep(1, nrow(crowded)), 1,
                       columns, totals)
  rbind(rows[!shared, names(means)], means)
}

# A warning naming, per unit whose time step fits a block of `averaging` ("1h", "24h";
# fits_span()), the steps that hold two or more of its readings (shares_step()); the rows as
# given, when `averaging` has "as_given", keep them all.
warn_crowded_steps <- function(obs, steps, jittered, tz, named, averaging, call = parent.frame()) {
  blocks <- setdiff(averaging, "as_given")
  if (length(blocks) == 0L) return(invisible())
  steps <- steps[fits_span(steps, max(vapply(blocks, block_span, numeric(1))))]
  row_step <- unname(steps)[match(obs$unit, names(steps))]
  found <- do.call(rbind, lapply(unique(unname(steps)), function(step) {
    rows <- obs[row_step %in% step, ]
    if (nrow(rows) < 2L || all(rows$unit %in% jittered)) return(NULL)
    where <- step_slots(rows, step, tz)
    shared <- shares_step(rows, step, jittered, tz, where)
    if (!any(shared)) return(NULL)
    slot <- paste(rows$unit[shared], where$period[shared], where$slot[shared])
    data.frame(unit = rows$unit[shared], slot = slot, time = rows$time[shared], step = step)
  }))
  if (is.null(found)) return(invisible())
  found <- found[order(found$time), ]
  steps_held <- tapply(found$slot, factor(found$unit, unique(found$unit)),
                       function(s) length(unique(s)))
  first <- found[!duplicated(found$unit), ]
  # The readings of each unit's first such step, such as 12:00:00 and 12:00:01.
  shown <- vapply(first$slot, function(slot) {
    times <- .POSIXct(sort(found$time[found$slot == slot]), tz)
    paste(format(times[1], "%Y-%m-%d"), toString(format(times, "%H:%M:%S")),
          format(times[1], "%Z"))
  }, character(1))
  who <- if (named) sprintf("unit \"%s\": ", first$unit) else ""
  # Braces escaped: a unit's name is text, not a cli expression.
  lines <- sprintf("%s%d step%s of %s hold%s two or more readings (first: %s)",
                   gsub("([{}])", "\\1\\1", who), steps_held, ifelse(steps_held == 1, "", "s"),
                   vapply(first$step, format_step, character(1)),
                   ifelse(steps_held == 1, "s", ""), shown)
  kept <- if ("as_given" %in% averaging) " The rows as given keep every reading." else ""
  cli::cli_warn(c("Some readings share a step of their unit's time step: each such step counts
                   once, at the mean of its readings, in the 1-hour and 24-hour means.{kept}",
                  stats::setNames(lines, rep("*", length(lines))),
                  i = "A record stamped just after another (a second late, a logger restart) or
                       just before its step's start (a clock running early) falls into a step
                       that holds one already; round the times or drop the extra records to
                       choose otherwise."),
                class = c("ncam_warning_crowded_periods", "ncam_warning"), call = call)
}

# Per block ("1h", "24h"), the units already at its averaging (hourly; whole days apart) with a
# period holding two or more of their readings: that block differs from the rows as given
# (settle_averaging()).
crowded_blocks <- function(obs, steps, jittered, tz) {
  lapply(c("1h" = 3600, "24h" = 86400), function(span) {
    at_span <- if (span == 3600) steps %in% 3600 else vapply(steps, whole_day_step, logical(1))
    rows <- obs[obs$unit %in% names(steps)[at_span], ]
    unique(rows$unit[shares_step(rows, span, jittered, tz)])
  })
}
