# The time step of each unit of sensor_performance() and average_estimates(), and the units
# judged per stretch of their record, whose step changes part way (R/step-stretches.R).

# Each unit's time step in seconds (`steps`, named by unit in order of first appearance; see
# series_time_steps()), the units whose stamps wander around their step (`jittered`), the mean
# gaps, named by unit, of those whose gaps scatter around no step that divides an hour or a day
# (`irregular`, which is also their step) and the `stretches` of the units judged per stretch
# (stretched_units(); their step is their finest). NA when no unit has two time stamps.
# `named`: the units have names to give in the messages. `time_step` and `shared` (columns of
# `obs`, named as shown): the steps are those to judge the units at (judged_steps()). A message
# names the stretches of readings a whole multiple of their step apart of the units judged at
# their own steps (inform_step_patterns()).
unit_time_steps <- function(obs, named, time_step = NULL, shared = character(),
                            call = parent.frame()) {
  found <- series_time_steps(obs$time, obs$unit)
  steps <- found$step
  kind <- stats::setNames(found$kind, names(steps))
  given <- given_time_steps(time_step, names(steps), named, call)
  chosen <- given_unit_stretches(found, given, named, call)
  given <- given[setdiff(names(given), chosen$series)]
  own <- stretched_units(found, c(names(given), chosen$series))
  stretches <- rbind(found$stretches[found$stretches$series %in% own, ], chosen)
  stretched <- unique(stretches$series)
  # A unit judged per stretch follows no other unit's step, and has its own message.
  steps[stretched] <- vapply(stretched, function(u) min(stretches$step[stretches$series == u]),
                             numeric(1))
  kind[stretched] <- "stretched"
  for (step in unique(steps[kind == "jittered"])) {
    who <- names(steps)[kind == "jittered" & steps == step]
    centre <- found$centre[who]
    whose <- if (named) cli::format_inline("of unit{?s} {.val {who}} ") else ""
    gaps_shown <- prettyNum(signif(centre, 4))
    cli::cli_inform("The time stamps {whose}wander around a step of {format_step(step)} (mean
                     {cli::qty(length(centre))}gap{?s} {gaps_shown} seconds): taken at that
                     step.")
  }
  judged <- judged_steps(obs, steps, kind, given, shared, named, call, found$stretches)
  inform_unit_steps(found, stretches, own, judged, steps, names(given), named, attr(obs, "tz"))
  jittered <- c(names(steps)[kind == "jittered"],
                unique(stretches$series[stretches$kind == "jittered"]))
  list(steps = judged, jittered = jittered, irregular = found$centre[kind == "irregular"],
       stretches = stretches)
}

# The messages on the units of unit_time_steps() whose step changes part way: those judged per
# stretch of their own (`own`) or of `time_step` (the other series of `stretches`), those judged
# at one step throughout as not every step divides an hour, and the stretches of readings a whole
# multiple of their step apart (`found$patterns`) of the units judged at their own steps
# (`judged` equal to `steps`, not `given`), times shown in zone `tz`. Only a unit whose steps
# all divide an hour is given the `time_step` that judges such a stretch at its step.
inform_unit_steps <- function(found, stretches, own, judged, steps, given, named, tz) {
  who <- function(u) if (named) sprintf("unit \"%s\": ", u) else ""
  whose <- function(units) {
    if (named) cli::format_inline("of {length(unique(units))} unit{?s}") else "of the data"
  }
  inform_step_stretches(stretches[stretches$series %in% own, ], whose(own), who, tz)
  chosen <- stretches[!(stretches$series %in% own), ]
  inform_step_stretches(chosen, whose(chosen$series), who, tz,
                        "as {.arg time_step} says, each stretch's periods count their records at
                         its own step.")
  changing <- found$stretches$series[duplicated(found$stretches$series)]
  one_step <- found$stretches[found$stretches$series %in% setdiff(changing, c(own, given)), ]
  inform_step_stretches(one_step, whose(one_step$series), who, tz,
                        "not every step divides an hour, so their periods count records at one
                         step throughout, the one found from all their gaps, and those at the
                         other step may fall short.")
  at_own <- setdiff(names(steps)[!is.na(judged) & judged == steps], c(given, chosen$series))
  patterns <- found$patterns[found$patterns$series %in% at_own, ]
  patterns <- patterns[patterns$series %in% own | patterns$step == judged[patterns$series], ]
  inform_step_patterns(patterns, whose(patterns$series), who, function(u, every) {
    steps_of <- c(found$stretches$step[found$stretches$series == u], every)
    if (!all(steps_of < 3600 & 3600 %% steps_of == 0)) {
      return("give the rows of such a stretch a unit of their own, judged at its own step.")
    }
    time_step_fix(if (named) {
      sprintf("time_step = c(\"%s\" = \"%s\")", u, format_period(every))
    } else {
      sprintf("time_step = \"%s\"", format_period(every))
    })
  }, tz)
}

# The stretches of the units given a step in `time_step` (`given`, seconds named by unit) that is
# coarser than their readings, at which stretches of them come (given_step_stretches(); a data
# frame as `found$stretches` of series_time_steps()). Judged per stretch, each step must divide
# an hour (their days are of hours): an error names the units whose steps do not.
given_unit_stretches <- function(found, given, named, call) {
  parts <- lapply(names(given), function(u) {
    own <- found$stretches[found$stretches$series == u, ]
    irregular <- found$kind[[u]] == "irregular" && nrow(own) == 1L
    if (!off_given_step(own$step, irregular, given[[u]])) return(NULL)
    patterns <- found$patterns[found$patterns$series == u, -1]
    judged <- given_step_stretches(own[, -1], patterns, given[[u]], irregular)
    if (is.null(judged) || nrow(judged) < 2L) return(NULL)
    cbind(series = u, judged)
  })
  out <- do.call(rbind, c(list(found$stretches[0, ]), parts))
  unfit <- unique(out$series[!(out$step < 3600 & 3600 %% out$step == 0)])
  if (length(unfit)) {
    who <- if (named) cli::format_inline("unit{?s} {.val {unfit}}") else "the data"
    ncam_abort(c("{.arg time_step} judges stretches of the readings of {who} at a coarser step,
                  but judged per stretch every step must divide an hour.",
                 i = "Give the rows of such a stretch a unit of their own, judged at its own
                      step."), call = call)
  }
  out
}

# The units (of series_time_steps() `found`) judged per stretch of their record: those whose
# step changes, not `given` in `time_step`, each step dividing an hour and shorter (so that their
# days are of hours). Those whose step changes to one that does not are judged at one step
# throughout, the one found from all their gaps (their hours at the other step fall short), with
# a message (unit_time_steps()).
stretched_units <- function(found, given) {
  series <- found$stretches$series
  changing <- setdiff(unique(series[duplicated(series)]), given)
  fits <- vapply(changing, function(unit) {
    step <- found$stretches$step[series == unit]
    all(step < 3600 & 3600 %% step == 0)
  }, logical(1))
  changing[fits]
}

# Per row of `obs`, the step its unit's periods count records at: that of the stretch it lies
# in for units judged per stretch (`stretches`, unit_time_steps()), else its unit's (`steps`).
row_steps <- function(obs, steps, stretches = NULL) {
  step <- unname(steps)[match(obs$unit, names(steps))]
  stretched <- obs$unit %in% stretches$series
  if (any(stretched)) {
    step[stretched] <- stretch_steps(obs$time[stretched], obs$unit[stretched], stretches)
  }
  step
}
