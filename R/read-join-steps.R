# The time steps of join_reference() (R/read-join.R): each series' own, or those given in
# `time_step`, and the messages on series whose step changes part way (R/step-stretches.R).

# The time steps of a table: per row, `step`, that of the stretch of its series it lies in
# (series_time_steps(), as sensor_performance() finds a unit's), so that records lost at random
# (rows missing) do not lengthen it, as a median gap would (a logger keeping 45 % of its minutes
# has a median gap of 2 minutes), and a logger whose step changes has each stretch at its own;
# the `stretches` (series, from, step) and what series_time_steps() `found`. A series with a
# single time takes the step of the table's gaps pooled (one reading of 1-minute data is then 1
# of 60 in an hour, not a whole hour); only when no series has two times is one reading per
# period all that is expected (step Inf). With a step given in `time_step` (`given`, seconds),
# the stretches of given_table_stretches().
typical_step <- function(seconds, series, given, data, keys, arg, call) {
  found <- series_time_steps(seconds, series)
  stretches <- found$stretches
  if (!is.null(given)) stretches <- given_table_stretches(found, given, data, series, keys, arg, call)
  stretches$step[is.na(stretches$step)] <- Inf
  list(step = stretch_steps(seconds, series, stretches), stretches = stretches, found = found)
}

# `time_step` as seconds per table named ("sensors", "reference"); an empty list for NULL. One
# step for both tables is refused: their steps differ (1-minute sensors, an hourly reference),
# and a step too fine for a table would leave each of its periods short.
join_time_steps <- function(time_step, call = parent.frame()) {
  if (is.null(time_step)) return(list())
  tables <- names(time_step)
  if (is.null(tables) || anyNA(tables) || !all(tables %in% c("sensors", "reference")) ||
      anyDuplicated(tables)) {
    ncam_abort(c("{.arg time_step} must be named by the table each step is for, {.val sensors} or {.val reference}, such as {.code time_step = c(sensors = \"10 min\")}.",
                 i = "The two tables have steps of their own: one step for both would judge one of them at the other's."),
               call = call)
  }
  lapply(stats::setNames(seq_along(time_step), tables), function(i) {
    parse_period(time_step[[i]], "time_step", call)$seconds
  })
}

# The key columns of the series of row `row` of `data`, as "site = A, poc = 1".
series_words <- function(data, keys, row) {
  paste0(keys, " = ", vapply(keys, function(k) as.character(data[[k]][row]), ""), collapse = ", ")
}

# The stretches of the series of table `arg` judged with a step given in `time_step` (`given`,
# seconds; given_step_stretches()): each series at it throughout, or, where it is coarser than
# the readings, their stretches a whole multiple of it apart at it. A series whose readings would
# fall between its steps is an error; so are readings whose gaps scatter around no step, which
# have none it could divide.
given_table_stretches <- function(found, given, data, series, keys, arg, call) {
  # By position: without keys every series is "", which no name matches.
  names_found <- names(found$step)
  parts <- lapply(seq_along(names_found), function(i) {
    own <- found$stretches$series == names_found[i]
    patterns <- found$patterns[found$patterns$series == names_found[i], -1]
    # A series whose step changes has the steps of its stretches, whatever its gaps pooled.
    given_step_stretches(found$stretches[own, -1], patterns, given,
                         found$kind[[i]] == "irregular" && sum(own) == 1L)
  })
  off <- vapply(parts, is.null, logical(1))
  if (any(off)) {
    key <- names_found[off][1]
    which_series <- if (length(keys)) {
      paste0(" (series ", series_words(data, keys, match(key, series)), ")")
    } else {
      ""
    }
    steps <- found$stretches$step[found$stretches$series == key]
    shown <- paste(vapply(steps, format_step, character(1)), collapse = ", then ")
    scatter <- if (found$kind[[which(off)[1]]] == "irregular" && length(steps) == 1L) {
      ", whose gaps scatter around no step"
    }
    ncam_abort(c("{.arg {arg}} has readings {shown} apart{which_series}{scatter}, not a whole multiple of {.arg time_step} ({format_period(given)}), and no stretch of readings a whole multiple of it apart: they would fall between its steps.",
                 i = "Give the step the readings come at, or a finer one that divides it."),
               call = call)
  }
  do.call(rbind, lapply(seq_along(parts), function(i) {
    cbind(series = rep(names_found[i], nrow(parts[[i]])), parts[[i]])
  }))
}

# The messages on the series of table `arg` whose step changes part way (`stretches`,
# typical_step()), and, without a step `given` in `time_step`, on those with stretches of readings
# a whole multiple of their step apart (`found`, series_time_steps(); `series`: the series key of
# each row of `data`), times shown in zone `tz`.
inform_join_steps <- function(found, stretches, given, data, series, keys, arg, tz) {
  tz <- if (is.null(tz)) "" else tz[1]
  who <- function(key) {
    if (length(keys)) paste0("series ", series_words(data, keys, match(key, series)), ": ") else ""
  }
  whose <- cli::format_inline("of {.arg {arg}}")
  changing <- stretches$series[duplicated(stretches$series)]
  inform_step_stretches(stretches[stretches$series %in% changing, ], whose, who, tz,
                        paste(if (!is.null(given)) "as {.arg time_step} says,",
                              "each stretch's periods expect the readings of its own step."))
  if (!is.null(given)) return(invisible())
  inform_step_patterns(found$patterns, whose, who, function(key, every) {
    # read_senseurcity() averages its files here, and has no `time_step`.
    if (!arg %in% c("sensors", "reference")) {
      return(cli::format_inline("read the files without {.arg average} and average them with
                                 {.fn join_reference}, whose {.arg time_step} sets it."))
    }
    time_step_fix(sprintf("time_step = c(%s = \"%s\")", arg, format_period(every)))
  }, tz)
}
