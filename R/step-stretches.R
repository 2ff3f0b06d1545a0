# Stretches of a series' record at one time step: a logger whose step changes part way (1-minute
# readings for a month, then 5-minute ones; PurpleAir every 80 s, then every 120 s after a
# firmware change) has each stretch judged at its own step. Judged at the one step of its gaps
# pooled, the hours at the other step held 12 of 60 records, or 30 of 45, and were all lost.
# Shared by join_reference() and the 1-hour and 24-hour means of sensor_performance() and
# average_estimates() (series_time_steps()).

# Gaps per window: enough that records lost at random (8 % kept) still give a window the step
# of its grid (grid_step()), few enough that a stretch of a few hours of 1-minute data counts.
stretch_window_gaps <- 100L

# The stretches of one series of sorted times `t` (seconds), whose pooled gaps have step `step`
# of kind `kind` (step_of_gaps()): a data frame of `from` (the first stretch from -Inf), `step`
# and `kind` ("regular" or "jittered"). The gaps are cut into windows of 100 (the last one
# holding the rest). A window is of `step` when 80 % of its gaps lie on its grid
# (on_step_grid()) and its gaps of about one step (within a quarter step) average within 2.5 %
# of it; another window takes the step of its own gaps (step_of_gaps(), not "irregular") when
# 80 % of them lie on that grid, else none (its records are too few to tell: it goes with the
# window before). Runs of windows of one step are the stretches; each boundary lies, within the
# two windows either side, where the fewest gaps fall off their stretch's grid, ties going to
# the coarser step (an hour whose readings are all 5 minutes apart is complete at 5 minutes).
# 5-minute readings lie on the 1-minute grid too, but their windows hold no gap of one minute;
# the gaps of jittered 80-second and 120-second stamps pooled scatter around 95 seconds, no
# step. One stretch, at `step`, when there is one run.
series_stretches <- function(t, step, kind) {
  single <- data.frame(from = -Inf, step = step, kind = kind)
  gaps <- diff(t)
  n_windows <- length(gaps) %/% stretch_window_gaps
  if (is.na(step) || n_windows < 2L) return(single)
  window <- pmin((seq_along(gaps) - 1L) %/% stretch_window_gaps + 1L, n_windows)
  found <- lapply(split(gaps, window), window_step, step = step, kind = kind)
  verdict <- vapply(found, `[[`, numeric(1), "step")
  # A window that cannot tell continues the stretch before it (the first, the one after it).
  told <- which(!is.na(verdict))
  if (length(told) == 0L) return(single)
  told <- told[pmax(1L, findInterval(seq_along(verdict), told))]
  verdict <- verdict[told]
  runs <- rle(unname(verdict))
  if (length(runs$values) == 1L) return(single)
  last_window <- cumsum(runs$lengths)
  from <- vapply(seq_len(length(runs$values) - 1L), function(i) {
    region <- which(window %in% (last_window[i] + 0:1))
    t[stretch_boundary(gaps[region], runs$values[i], runs$values[i + 1]) + region[1] - 1L]
  }, numeric(1))
  # A stretch is jittered when one of its windows is.
  jittered <- tapply(vapply(found[told], `[[`, character(1), "kind") == "jittered",
                     rep(seq_along(runs$values), runs$lengths), any)
  data.frame(from = c(-Inf, from), step = runs$values,
             kind = ifelse(jittered, "jittered", "regular"))
}

# The step and kind of a window of `gaps` of a series of step `step` and kind `kind`
# (series_stretches()); step NA when it cannot tell. A scattered series' step (a mean gap) is
# no grid: its windows each take their own.
window_step <- function(gaps, step, kind) {
  one_step <- gaps[abs(gaps - step) < step / 4]
  if (kind != "irregular" && mean(on_step_grid(gaps, step)) >= 0.8 && length(one_step) &&
      abs(mean(one_step) - step) <= 0.025 * step) {
    return(list(step = step, kind = kind))
  }
  own <- step_of_gaps(gaps)
  if (is.na(own$step) || own$kind == "irregular" || mean(on_step_grid(gaps, own$step)) < 0.8) {
    return(list(step = NA_real_, kind = NA_character_))
  }
  own[c("step", "kind")]
}

# Gaps within a quarter step of a whole number (one or more) of steps; a repeated time (gap 0)
# counts as on any grid.
on_step_grid <- function(gaps, step) {
  gaps == 0 | abs(gaps - step * pmax(1, round(gaps / step))) < step / 4
}

# Where a stretch of step `before` gives way to one of step `after` among `gaps`: the index of
# the first gap of the later stretch, the one with the fewest gaps off their stretch's grid
# (on_step_grid()), the latest such when `before` is coarser, else the earliest.
stretch_boundary <- function(gaps, before, after) {
  off_before <- c(0, cumsum(!on_step_grid(gaps, before)))
  off_after <- rev(c(0, cumsum(rev(!on_step_grid(gaps, after)))))
  cost <- off_before + off_after
  best <- which(cost == min(cost))
  if (before > after) max(best) else min(best)
}

# Per row, the step of the stretch of its series it lies in (`stretches`: series, from, step).
stretch_steps <- function(seconds, series, stretches) {
  first <- !duplicated(stretches$series)
  step <- stretches$step[first][match(series, stretches$series[first])]
  for (key in unique(stretches$series[!first])) {
    own <- stretches[stretches$series == key, ]
    rows <- which(series == key)
    step[rows] <- own$step[findInterval(seconds[rows], own$from)]
  }
  step
}

# The records expected in periods of `span` seconds (one number or one per period) from `start`,
# of series `series`: per stretch (`stretches`: series, from, step, running to the next
# stretch's start), the part of the period it covers over its step. A period within one stretch
# expects its length over that step; one across a change, some of each.
expected_records <- function(series, start, span, stretches) {
  end <- start + span
  expected <- numeric(length(start))
  until <- c(stretches$from[-1], Inf)
  until[c(stretches$series[-1] != stretches$series[-nrow(stretches)], TRUE)] <- Inf
  keys <- unique(stretches$series)
  # Indexed by position: without keys every series is "", which no name matches.
  rows <- split(seq_along(series), factor(series, keys))
  for (i in seq_len(nrow(stretches))) {
    at <- rows[[match(stretches$series[i], keys)]]
    covered <- pmax(0, pmin(end[at], until[i]) - pmax(start[at], stretches$from[i]))
    expected[at] <- expected[at] + covered / stretches$step[i]
  }
  expected
}

# The stretches (series_time_steps()) of the units of sensor_performance() and
# average_estimates() judged per stretch: those whose step changes, judged at their own steps
# (`steps`, judged_steps(): not `given` in `time_step` nor taken from another unit), each step
# dividing an hour and shorter (so that their days are of hours). A message names them and their
# steps, and the units whose step changes to one that does not divide an hour, judged at one step
# throughout (their hours at the other step fall short). `tz`: the zone the changes are shown in.
stretched_units <- function(found, steps, given, named, tz) {
  stretches <- found$stretches
  series <- stretches$series
  changing <- setdiff(unique(series[duplicated(series)]), given)
  own <- changing[!is.na(steps[changing]) & found$step[changing] == steps[changing]]
  fits <- vapply(own, function(unit) {
    step <- stretches$step[series == unit]
    all(step < 3600 & 3600 %% step == 0)
  }, logical(1))
  for (judged in list(own[fits], own[!fits])) {
    if (length(judged) == 0L) next
    lines <- vapply(judged, function(unit) {
      at <- stretches[series == unit, ]
      changes <- format(.POSIXct(at$from[-1], tz), "%Y-%m-%d %H:%M:%S %Z")
      steps_shown <- vapply(at$step, format_step, character(1))
      who <- if (named) sprintf("unit \"%s\": ", gsub("([{}])", "\\1\\1", unit)) else ""
      paste0(who, steps_shown[1], paste0(", then ", steps_shown[-1], " from ", changes,
                                         collapse = ""))
    }, character(1))
    whose <- if (named) cli::format_inline("of {length(judged)} unit{?s}") else "of the data"
    what <- if (identical(judged, own[fits])) {
      "each stretch's periods count their records at its own step."
    } else {
      "not every step divides an hour, so their periods count records at one step throughout,
       the one found from all their gaps (give {.arg time_step} to set it)."
    }
    cli::cli_inform(c(paste("The time step", whose, "changes part way:", what),
                      stats::setNames(lines, rep("*", length(lines)))))
  }
  stretches[series %in% own[fits], ]
}

# Per row of `obs`, the step its unit's periods count records at: that of the stretch it lies
# in for units judged per stretch (`stretches`, stretched_units()), else its unit's (`steps`).
row_steps <- function(obs, steps, stretches = NULL) {
  step <- unname(steps)[match(obs$unit, names(steps))]
  stretched <- obs$unit %in% stretches$series
  if (any(stretched)) {
    step[stretched] <- stretch_steps(obs$time[stretched], obs$unit[stretched], stretches)
  }
  step
}
