# The time step at which each unit's completeness is judged in sensor_performance() and
# average_estimates(): the step given in `time_step`, else the finest step of the units whose
# reference it shares, else its own (unit_time_steps(), R/performance-averaging.R). An hourly
# logger that lost every other record has gaps of two hours: at its own step its days look
# complete, where the same loss kept as NA rows leaves them at half their hours.

#' @section Time step of units with records missing:
#' A unit's time step is found from its own time stamps, so a unit that lost
#' records in a pattern (an hourly logger keeping only every other hour) comes
#' out at a coarser step (2 hours), and its periods count as complete where
#' the same loss kept as `NA` rows leaves them at half. Such a unit is judged
#' at the finest step of the units whose reference it shares: when its step is
#' a whole multiple of another unit's, whose reference changes at that finer
#' step (on most of its consecutive records), and at 3 or more times the two
#' share its reference equals theirs at every one, it is taken as a series of
#' that finer step with records missing, and a message says so. A unit
#' carrying an hourly reference beside a 1-minute unit that repeats the
#' hourly value each minute, or carrying its own hourly means of a 1-minute
#' reference, keeps its own step. Give `time_step` to set the step instead,
#' for every unit (`"1 hour"`) or per unit (`c(a = "1 hour", b = "2 min")`):
#' each such unit's stamps must come at a whole multiple of it (a finer unit is
#' an error), and its periods count its records against it. Without a
#' reference to compare (one unit, or units at different sites) only
#' `time_step` tells. The `time_step` column then gives the step judged.
#' @param time_step The time step at which completeness is judged: `NULL`
#'   (default) for each unit's own (see Time step of units with records
#'   missing), or a period such as `"1 hour"`, `"10 min"` or a number of
#'   seconds, for every unit, or a named vector of them, one per unit named.
#' @rdname sensor_performance
#' @name sensor_performance
NULL

# The units' steps (`steps`, named by unit; `kind` from series_time_steps()) to judge them at:
# those given in `time_step` (given_time_steps()), else those of shared_reference_steps() over the
# columns `shared` of `obs` (named by the names they are shown by), else as found. A message
# names the units whose step is taken from another's.
judged_steps <- function(obs, steps, kind, time_step, shared, named, call) {
  given <- given_time_steps(time_step, names(steps), named, call)
  found <- steps[names(given)]
  ratio <- found / given
  unfit <- !is.na(found) & (kind[names(given)] == "irregular" | ratio < 1 - 1e-9 |
                              abs(ratio - round(ratio)) * given > 1e-6)
  if (any(unfit)) {
    who <- if (named) {
      cli::format_inline("Unit{?s} {.val {names(given)[unfit]}} ha{?s/ve}")
    } else {
      "The data have"
    }
    shown <- toString(vapply(unique(found[unfit]), format_step, character(1)))
    ncam_abort(c("{who} time step {shown}, not a whole multiple of {.arg time_step}
                  ({toString(vapply(unique(given[unfit]), format_step, character(1)))}):
                  {cli::qty(sum(unfit))}{?its/their} records fall between its steps.",
                 i = "Give {.arg time_step} as the step the records come at, or a finer one that
                      divides it."), call = call)
  }
  steps[names(given)] <- given
  follow <- shared_reference_steps(obs, steps, kind, setdiff(names(steps), names(given)), shared)
  pairs <- unique(follow[c("from", "to", "column")])
  for (i in seq_len(nrow(pairs))) {
    group <- follow$from == pairs$from[i] & follow$to == pairs$to[i] &
      follow$column == pairs$column[i]
    who <- follow$unit[group]
    leaders <- unique(follow$leader[group])
    from <- format_step(pairs$from[i])
    to <- format_step(pairs$to[i])
    column <- pairs$column[i]
    n <- length(who)
    ncam_inform(c("{cli::qty(n)}Unit{?s} {.val {who}} {cli::qty(n)}read{?s/} every {from}, but
                       {cli::qty(n)}{?its/their} {.field {column}} values are, at every time
                       shared, those of {cli::qty(length(leaders))}unit{?s} {.val {leaders}},
                       read every {to} and changing at that step: {cli::qty(n)}{?it is/they are}
                       judged at {to}, as a series with records missing.",
                      i = "Give {.code time_step = c(\"{who[1]}\" = \"{from}\")} to judge a
                           unit at its own step."), "ncam_message_time_step")
    steps[who] <- pairs$to[i]
  }
  steps
}

# The steps given in `time_step` (seconds, named by the units they apply to, of `units`): none for
# NULL, every unit for one unnamed period (parse_period()), else those named.
given_time_steps <- function(time_step, units, named, call) {
  if (is.null(time_step)) return(stats::setNames(numeric(), character()))
  labels <- names(time_step)
  if (is.null(labels)) {
    if (length(time_step) != 1L) {
      ncam_abort("{.arg time_step} must be one period, or one per unit named by the unit.",
                 call = call)
    }
    seconds <- parse_period(time_step, "time_step", call)$seconds
    return(stats::setNames(rep(seconds, length(units)), units))
  }
  unknown <- setdiff(labels, units)
  if (!named || anyNA(labels) || any(labels == "") || anyDuplicated(labels) || length(unknown)) {
    not <- if (length(unknown)) cli::format_inline(", not {.val {unknown}}") else ""
    ncam_abort(c("{.arg time_step} names must each name a unit of {.arg data} once{not}.",
                 i = if (!named) "Without {.arg unit}, give one unnamed period."), call = call)
  }
  seconds <- vapply(seq_along(time_step), function(i) {
    parse_period(time_step[i], "time_step", call)$seconds
  }, numeric(1))
  stats::setNames(seconds, labels)
}

# Units among `candidates`, of regular step (`kind`), that follow a finer unit's series: a unit
# whose step is a whole multiple of another's, where that other's column of `shared` changes at
# its step (changes_at_step()) and, at 3 or more times the two share, the unit's values of it are
# all equal to theirs. A data frame: `unit`, its step `from`, the finer step `to`, the `leader`
# units and the `column` (its shown name); the finest step wins.
shared_reference_steps <- function(obs, steps, kind, candidates, shared) {
  out <- data.frame(unit = character(), from = numeric(), to = numeric(), leader = character(),
                    column = character())
  coarse <- candidates[kind[candidates] == "regular" & !is.na(steps[candidates])]
  for (to in sort(unique(steps[!is.na(steps) & kind == "regular"]))) {
    ratio <- steps[coarse] / to
    targets <- setdiff(coarse[ratio >= 2 & abs(ratio - round(ratio)) * to < 1e-6], out$unit)
    finer <- names(steps)[steps %in% to & kind == "regular"]
    for (column in names(shared)) {
      if (length(targets) == 0L) break
      leaders <- finer[changes_at_step(obs, finer, to, shared[[column]])]
      agree <- same_values_at_shared_times(obs, targets, leaders, shared[[column]])
      # Values that are also the leader's means over the unit's step are its own means.
      own_means <- vapply(seq_along(agree), function(i) {
        means_of_leader(obs, agree[i], attr(agree, "leader")[i], steps[[agree[i]]], shared[[column]])
      }, logical(1))
      agree <- structure(agree[!own_means], leader = attr(agree, "leader")[!own_means])
      if (length(agree) == 0L) next
      out <- rbind(out, data.frame(unit = agree, from = unname(steps[agree]), to = to,
                                   leader = attr(agree, "leader"), column = column))
      targets <- setdiff(targets, agree)
    }
  }
  out
}

# Whether the values of `column` of unit `unit` (of step `step`) are, at most of its times, the
# means of those of unit `leader` over the step that starts or ends there: a unit's own means
# of a finer series, which can also equal one of its values.
means_of_leader <- function(obs, unit, leader, step, column) {
  own <- obs$unit == unit & !is.na(obs[[column]])
  finer <- obs$unit == leader & !is.na(obs[[column]])
  time <- obs$time[finer]
  o <- order(time)
  time <- time[o]
  sums <- c(0, cumsum(obs[[column]][finer][o]))
  t <- obs$time[own]
  value <- obs[[column]][own]
  # A mean of two or more of the leader's values in the window: one alone is its value.
  close <- function(lo, hi) {
    several <- hi - lo >= 2
    mean_there <- (sums[hi + 1] - sums[lo + 1])[several] / (hi - lo)[several]
    any(several) && mean(abs(mean_there - value[several]) <= 1e-8 * (1 + abs(value[several]))) > 0.5
  }
  close(findInterval(t, time, left.open = TRUE), findInterval(t + step, time, left.open = TRUE)) ||
    close(findInterval(t - step, time), findInterval(t, time))
}

# Which of `units` (of step `step`) have `column` change between most of their consecutive
# records one step apart.
changes_at_step <- function(obs, units, step, column) {
  rows <- which(obs$unit %in% units & !is.na(obs[[column]]))
  if (length(rows) < 2L) return(logical(length(units)))
  rows <- rows[order(obs$unit[rows], obs$time[rows])]
  unit <- obs$unit[rows]
  gap <- diff(obs$time[rows])
  next_one <- unit[-1] == unit[-length(unit)] & gap > step / 2 & gap < 1.5 * step
  changed <- signif(diff(obs[[column]][rows]), 10) != 0
  share <- tapply(changed[next_one], factor(unit[-1][next_one], units), mean)
  !is.na(share) & share > 0.5
}

# Of `units`, those whose values of `column` equal one of the `leaders`' at every time they
# share with them, 3 or more; attribute `leader`: for each, a leader of its first shared time.
same_values_at_shared_times <- function(obs, units, leaders, column) {
  if (length(units) == 0L || length(leaders) == 0L) return(character())
  value <- signif(obs[[column]], 10)
  pool <- which(obs$unit %in% leaders & !is.na(value))
  own <- which(obs$unit %in% units & !is.na(value) & obs$time %in% obs$time[pool])
  if (length(own) == 0L) return(character())
  # Rows of equal time and value form runs once ordered: a unit's row in a run with a leader's
  # row has its value there.
  rows <- c(pool, own)
  o <- order(obs$time[rows], value[rows])
  run <- cumsum(c(TRUE, diff(obs$time[rows][o]) != 0 | diff(value[rows][o]) != 0))
  from_pool <- c(rep(TRUE, length(pool)), rep(FALSE, length(own)))[o]
  # Per run, the first leader in it (NA for a run of the units' rows alone).
  at_pool <- which(from_pool)
  first <- at_pool[!duplicated(run[at_pool])]
  run_leader <- rep(NA_character_, max(run))
  run_leader[run[first]] <- obs$unit[rows][o][first]
  leader <- character(length(rows))
  leader[o] <- run_leader[run]
  leader <- leader[-seq_along(pool)]
  unit <- factor(obs$unit[own], units)
  shared <- tabulate(unit, length(units))
  equal <- tabulate(unit[!is.na(leader)], length(units))
  agree <- units[shared >= 3L & equal == shared]
  structure(agree, leader = leader[match(agree, obs$unit[own])])
}
