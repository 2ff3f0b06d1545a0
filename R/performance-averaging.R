# The time step of the data and the 1-hour and 24-hour means that sensor_performance() judges
# O3 and PM2.5 on (the means themselves in R/performance-block-means.R).

# Each unit's time step in seconds (`steps`, named by unit in order of first appearance; see
# series_time_steps()), the units whose stamps wander around their step (`jittered`) and the
# mean gaps, named by unit, of those whose gaps scatter around no step that divides an hour or a
# day (`irregular`, which is also their step). NA when no unit has two time stamps.
# `named`: the units have names to give in the messages. `time_step` and `shared` (columns of
# `obs`, named as shown): the steps are those to judge the units at (judged_steps()).
unit_time_steps <- function(obs, named, time_step = NULL, shared = character(),
                            call = parent.frame()) {
  found <- series_time_steps(obs$time, obs$unit)
  steps <- found$step
  for (step in unique(steps[found$kind == "jittered"])) {
    who <- names(steps)[found$kind == "jittered" & steps == step]
    centre <- found$centre[who]
    whose <- if (named) cli::format_inline("of unit{?s} {.val {who}} ") else ""
    gaps_shown <- prettyNum(signif(centre, 4))
    ncam_inform("The time stamps {whose}wander around a step of {format_step(step)} (mean
                 {cli::qty(length(centre))}gap{?s} {gaps_shown} seconds): taken at that
                 step.", "ncam_message_time_step")
  }
  list(steps = judged_steps(obs, steps, stats::setNames(found$kind, names(steps)), time_step,
                            shared, named, call),
       jittered = names(steps)[found$kind == "jittered"],
       irregular = found$centre[found$kind == "irregular"])
}

# The time step of each series of times (`seconds`, with the series of each in `series`), the
# one step finding of sensor_performance(), average_estimates() and join_reference(): `step`,
# `kind` and `centre` of step_of_gaps(), named by series in order of first appearance. A series
# with a single time takes the step of all series' gaps pooled, as "regular" (its one stamp
# neither wanders nor scatters); NA when no series has two times.
series_time_steps <- function(seconds, series) {
  keys <- unique(series)
  gaps <- lapply(split(seconds, factor(series, keys)), function(t) diff(sort(t)))
  found <- lapply(gaps, step_of_gaps)
  lonely <- vapply(found, function(f) is.na(f$step), logical(1))
  if (any(lonely)) found[lonely] <- list(step_of_gaps(unlist(gaps, use.names = FALSE)))
  kind <- vapply(found, `[[`, character(1), "kind")
  kind[lonely] <- "regular"
  list(step = vapply(found, `[[`, numeric(1), "step"), kind = kind,
       centre = vapply(found, `[[`, numeric(1), "centre"))
}

# The time step of gaps (seconds, whole_second_gaps()): the step of the grid the records lie on
# (grid_step()), or the most common gap when it is a regular step (regular_step()); else
# nominal_step(), "jittered", for stamps that wander around a step that divides an hour or a
# day, also with most records lost (jittered_grid_step()); else, "irregular", the mean of the
# gaps near their median (their most common gap would be any one of them), but for gaps of whole
# days, "regular". `centre`: the mean gap of about one step.
step_of_gaps <- function(gaps) {
  stamped <- gaps[gaps > 0]
  gaps <- round(whole_second_gaps(stamped), 3)
  mode <- most_common_gap(gaps)
  if (is.na(mode)) return(list(step = NA_real_, kind = "regular", centre = NA_real_))
  # Gaps all of one length (two or three stamps) are that step, as regular as can be.
  if (all(gaps == mode)) return(list(step = mode, kind = "regular", centre = mode))
  grid <- grid_step(gaps)
  if (!is.na(grid)) return(list(step = grid, kind = "regular", centre = grid))
  if (regular_step(gaps, mode)) return(list(step = mode, kind = "regular", centre = mode))
  # Missed records and breaks are several steps long: the others are one step each, and their
  # mean is the step at which records come (jitter cancels in it).
  centre <- stats::median(gaps)
  near <- gaps[abs(gaps - centre) < centre / 2]
  if (length(near)) centre <- mean(near)
  # Whole days apart, give or take a clock change (daily samples on an uneven schedule, dates
  # with gaps): the step is their most common gap, never a mean between them. Clock changes are
  # rare: gaps of 23 and 25 hours in turn are no whole days.
  off_day <- abs(gaps - round(gaps / 86400) * 86400)
  if (all(off_day %in% c(0, 3600)) && mean(off_day == 0) > 0.5) {
    return(list(step = mode, kind = "regular", centre = centre))
  }
  nominal <- nominal_step(centre)
  # A step is dominant when most gaps are one step, give or take jitter of under half a step.
  if (!is.na(nominal) && mean(abs(gaps - nominal) < nominal / 2) >= 0.5) {
    return(list(step = nominal, kind = "jittered", centre = centre))
  }
  sparse <- jittered_grid_step(stamped)
  if (!is.na(sparse$step)) return(list(step = sparse$step, kind = "jittered", centre = sparse$centre))
  list(step = centre, kind = "irregular", centre = centre)
}

# The step of a grid that records were lost from at random (rows missing): the longest gap of
# 10 s or more that makes at least 1 % of the gaps, and two of them, of which at least 80 % of the
# gaps are whole multiples; else NA. A 1-minute logger keeping 8 % of its minutes has gaps of 1,
# 2, 3 minutes in near-equal numbers (8 %, 7.4 %, 6.8 % of them), so its most common gap is as
# often 2 or 3 minutes as 1 (and the median gap about 8): yet all its gaps are whole minutes,
# while whole multiples of 2 minutes are at most half of them, of 3 at most a third, at any share
# kept. Its hours of 5 records are then incomplete, not complete hours of a 500-second step.
# Readings at random times also lie on the grid of their clock (whole seconds, or minutes), but
# their gaps of one tick are few: 3 in 10000 for whole seconds about an hour apart, below the 1 %
# asked for, yet 2 % for whole seconds 50 s apart, so no step below 10 s is taken for a grid here
# (regular_step() still takes the most common gap of regular data).
grid_step <- function(gaps) {
  counts <- table(gaps)
  values <- as.numeric(names(counts))
  counts <- as.vector(counts)
  candidates <- values[counts >= max(2, 0.01 * length(gaps)) & values >= 10]
  for (step in sort(candidates, decreasing = TRUE)) {
    multiple <- abs(values / step - round(values / step)) * step < 1e-6
    if (sum(counts[multiple]) >= 0.8 * length(gaps)) return(step)
  }
  NA_real_
}

# The step of stamps that wander around a grid that most records were lost from (grid_step() with
# jitter, where the gaps near the median are several steps): the longest step of 10 s or more that
# divides an hour (in whole seconds) or a day (in whole minutes) of which 80 % of the gaps lie
# within a quarter step of a whole number of steps, when the gaps within a quarter step of one
# step, at least 1 % of the gaps and two of them, have a mean (`centre`) within 2.5 % of it
# (nominal_step()); else NA. Gaps at random lie that near a whole number of steps about half the
# time, whatever the step (whole seconds more often below 10 s: 60 % for 5 s), so 80 % of them
# only by chance, for one step or another, when they are few: 20 are asked for. The gaps are as
# stamped, as whole_second_gaps() would put most gaps of readings at random seconds, over 9 s
# apart, on whole seconds.
jittered_grid_step <- function(gaps) {
  if (length(gaps) < 20L) return(list(step = NA_real_, centre = NA_real_))
  seconds <- seq(10, 3600)
  minutes <- 60 * seq_len(1440)
  candidates <- unique(c(seconds[3600 %% seconds == 0], minutes[86400 %% minutes == 0]))
  # The gaps of about one step from sorted gaps and their running sums; all gaps only for a step
  # that passes (a million scattered gaps take half the time).
  gaps <- sort(gaps)
  sums <- c(0, cumsum(gaps))
  for (step in sort(candidates, decreasing = TRUE)) {
    # Gaps first + 1 to last lie strictly within a quarter step of one step.
    first <- findInterval(step - step / 4, gaps)
    last <- findInterval(step + step / 4, gaps, left.open = TRUE)
    if (last - first < max(2, 0.01 * length(gaps))) next
    centre <- (sums[last + 1] - sums[first + 1]) / (last - first)
    if (abs(centre - step) > 0.025 * step) next
    off_grid <- abs(gaps - step * pmax(1, round(gaps / step)))
    if (mean(off_grid < step / 4) >= 0.8) return(list(step = step, centre = centre))
  }
  list(step = NA_real_, centre = NA_real_)
}

# Whether the most common of `gaps`, `mode`, is their step when they lie on no grid
# (grid_step()): most of the gaps of about one step are exactly it (regular data, also with
# records missing, which a median gap would lengthen), it occurs more than once and most gaps are
# whole multiples of it (records missed). Gaps that all differ (readings at random times) have as
# most common gap merely their smallest: 14 s among gaps of about an hour, alone of its size, is
# no step.
regular_step <- function(gaps, mode) {
  one_step <- gaps[gaps > mode / 2 & gaps < 1.5 * mode]
  multiple <- abs(gaps / mode - round(gaps / mode)) * mode < 1e-6
  mean(one_step == mode) > 0.5 && sum(gaps == mode) >= 2L && mean(multiple) > 0.5
}

# The step that divides an hour (in whole seconds), or a day (in whole minutes), or is whole
# days, nearest `centre` and within 2.5 % of it (so a period's count of records is expected
# within 2.5 %), else NA. Wider, jittered 7-minute data would take 400 seconds (5 % off), and
# a day's divisors in whole seconds are too dense to tell a step (432 seconds is 3 % off).
nominal_step <- function(centre) {
  seconds <- seq_len(3600)
  minutes <- 60 * seq_len(1440)
  candidates <- c(seconds[3600 %% seconds == 0], minutes[86400 %% minutes == 0],
                  86400 * max(1, round(centre / 86400)))
  nominal <- candidates[which.min(abs(candidates - centre))]
  if (abs(centre - nominal) <= 0.025 * nominal) nominal else NA_real_
}

most_common_gap <- function(gaps) {
  gaps <- round(whole_second_gaps(gaps[gaps > 0]), 3)
  if (length(gaps) == 0L) return(NA_real_)
  as.numeric(names(which.max(table(gaps))))
}

# Gaps (seconds) within 0.45 s and 5 % of a whole number of seconds, as that number: loggers
# stamp regular readings a fraction of a second off, and 1-minute data 59.996 s apart would
# divide no hour. A gap of under a second, or halfway between two (12.5 s), stays as it is. Also
# the grid step of select_gap() and the spacing parse_gap() compares a gap with.
whole_second_gaps <- function(gaps) {
  whole <- round(gaps)
  near <- whole >= 1 & abs(gaps - whole) <= pmin(0.45, 0.05 * whole)
  gaps[near] <- whole[near]
  gaps
}

format_step <- function(seconds) {
  if (is.na(seconds)) return(NA_character_)
  sizes <- c(hour = 3600, minute = 60, second = 1)
  size <- sizes[which(seconds %% sizes == 0)[1]]
  if (is.na(size)) return(paste(signif(seconds, 4), "seconds"))  # the mean gap of scattered stamps
  count <- seconds / size
  paste(count, paste0(names(size), if (count != 1) "s"))
}

# The `time_step` of the units' rows and of the "all" row: "mixed" when the units' steps differ.
step_labels <- function(steps, unit_rows) {
  labels <- vapply(steps, format_step, character(1))
  all <- if (length(unique(labels)) > 1L) "mixed" else labels[[1]]
  unname(c(if (unit_rows) labels, all))
}

# Data one or more whole days apart (24-hour samples, daily or every third or sixth day).
whole_day_step <- function(step) isTRUE(step >= 86400 && step %% 86400 == 0)

# The averagings to compute, in the order asked, with a message for data already at a block's
# averaging: data one or more days apart (each such step, per unit when steps differ), or every
# unit hourly. Asked for with "as_given", that block would repeat the "as_given" rows: it goes,
# unless a unit has a period holding two readings (`crowded`: such units per block,
# crowded_blocks()), whose block averages them.
settle_averaging <- function(averaging, steps, crowded = list()) {
  both <- function(block) all(c("as_given", block) %in% averaging) && length(crowded[[block]]) == 0L
  drop_daily <- both("24h") && isTRUE(all(steps >= 86400))
  for (step in unique(steps[which(steps >= 86400)])) {
    who <- if (length(unique(steps)) > 1L) {
      cli::format_inline("Unit{?s} {.val {names(steps)[steps %in% step]}}: ")
    } else {
      ""
    }
    if (if (whole_day_step(step)) step > 86400 || "24h" %in% averaging else drop_daily) {
      ncam_inform(paste0(who, coarse_step_message(step, averaging, drop_daily,
                                                  length(crowded[["24h"]]) > 0L)),
                  "ncam_message_averaging")
    }
  }
  # Every unit coarser than an hour (daily O3): no 1-hour means to give beside the rows as given.
  coarse <- both("1h") && isTRUE(all(steps > 3600))
  if (coarse) {
    shown <- toString(vapply(unique(unname(steps)), format_step, character(1)))
    ncam_inform("The data are more than one hour apart ({shown}): they are judged as given, with no 1-hour block.",
                "ncam_message_averaging")
  }
  drop_hourly <- coarse || both("1h") && isTRUE(all(steps == 3600))
  if ("1h" %in% averaging && isTRUE(all(steps == 3600)) && length(crowded[["1h"]]) == 0L) {
    ncam_inform(paste0("The data have one value per hour already", if (drop_hourly) {
      ": they are judged as given, with no separate 1-hour block."
    } else {
      ": the 1-hour block holds them as given."
    }), "ncam_message_averaging")
  }
  setdiff(averaging, c(if (drop_daily) "24h", if (drop_hourly) "1h"))
}

# What is done with data one or more days apart, for the message; `dropped` when no separate
# 24-hour block is given; `crowded` when a unit has a day holding two rows, which it averages.
coarse_step_message <- function(step, averaging, dropped, crowded = FALSE) {
  days <- step / 86400
  taken <- if (days == 1 || !whole_day_step(step)) {
    sprintf("The data have one value per %s already", format_step(step))
  } else {
    sprintf("The data are taken as 24-hour values (one every %d days)", days)
  }
  done <- if (dropped) {
    ": they are judged as given, with no separate 24-hour block."
  } else if ("24h" %in% averaging) {
    if (crowded) ": the 24-hour block holds one mean per day." else
      ": the 24-hour block holds them as given."
  } else {
    "."
  }
  paste0(taken, done)
}

# Calendar columns of each time in zone `tz`: `day` (days since 1970-01-01 of the local date),
# `hour` (the start, in seconds since the epoch, of the hour of elapsed time holding it; for a
# Date, its day's) and `day_seconds` (the length of its local day: 23 or 25 hours on a clock
# change). Hours are instants, so the two 01:00s of an autumn clock change stay apart; they
# start on the local clock's hour, also where the offset from UTC is not whole hours (India,
# UTC+05:30).
clock_columns <- function(time, tz) {
  if (inherits(time, "Date")) {
    day <- as.numeric(time)
    return(list(day = day, hour = day * 86400, day_seconds = rep(86400, length(day))))
  }
  seconds <- as.numeric(time)
  offset <- as.POSIXlt(time, tz = tz)$gmtoff
  if (is.null(offset)) offset <- 0
  offset[is.na(offset)] <- 0
  day <- as.numeric(as.Date(time, tz = tz))
  days <- unique(day)
  starts <- as.numeric(day_start(c(days, days + 1), tz))
  span <- starts[length(days) + seq_along(days)] - starts[seq_along(days)]
  shift <- offset %% 3600
  list(day = day, hour = floor((seconds + shift) / 3600) * 3600 - shift,
       day_seconds = span[match(day, days)])
}

# The length in seconds of the blocks of averaging "1h" or "24h", and how they are spoken of.
block_span <- function(block) c("1h" = 3600, "24h" = 86400)[[block]]
block_words <- function(block) {
  switch(block,
         "1h" = list(span = "an hour", means = "1-hour",
                     need = "a time step that divides an hour (such as 1, 5 or 10 minutes)",
                     hint = "1-hour means need a time step that divides an hour, such as 1, 5
                             or 10 minutes."),
         "24h" = list(span = "a day", means = "24-hour",
                      need = "a time step that divides a day or is a whole number of days",
                      hint = "Put {n}{?that unit/those units} on a regular grid to judge
                              {?it/them} on 24-hour means."))
}

# Steps the means of a block of `span` seconds (3600 or 86400) can be taken at: a divisor of
# it, or for a day also whole days (rows as given).
fits_span <- function(steps, span) {
  vapply(steps, function(s) {
    isTRUE((span == 86400 && whole_day_step(s)) || (s <= span && span %% s == 0))
  }, logical(1))
}

# Why a unit of step `step` has no means of `block`, for its note.
unfit_reason <- function(step, block) {
  words <- block_words(block)
  if (is.na(step)) return(sprintf("one time stamp per unit: no time step, no %s means", words$means))
  sprintf("time step %s does not divide %s: no %s means", format_step(step), words$span,
          words$means)
}

# `unfit`: per block ("1h", "24h"), the steps of the units that do not fit it, named by unit.
# An error when no unit fits any block asked and "as_given" is not asked, else a warning per
# block asked naming its units, and those of them whose gaps scatter (`irregular`, their mean
# gaps named by unit).
check_unfit <- function(unfit, steps, averaging, call, irregular = numeric()) {
  blocks <- intersect(averaging, names(unfit))
  empty <- blocks[lengths(unfit[blocks]) == length(steps)]
  named <- !identical(names(steps), "all")
  for (block in blocks) {
    left <- unfit[[block]]
    if (length(left) == 0L) next
    words <- block_words(block)
    whose <- if (named) cli::format_inline("of unit{?s} {.val {names(left)}}") else "of the data"
    shown <- toString(vapply(unique(unname(left)), format_step, character(1)))
    n <- cli::qty(length(left))
    scatter <- scatter_hint(irregular[intersect(names(left), names(irregular))], named)
    # One time stamp per unit has no step at all.
    if (all(is.na(left))) {
      if (all(averaging %in% empty)) {
        ncam_abort(c("{.arg averaging} {.val {block}} needs {words$need}; the data {if (named) 'have one time stamp per unit' else 'have one time stamp'}: no time step.",
                     i = "Use {.code averaging = \"as_given\"}, or give the data of more times."), call = call)
      }
      cli::cli_warn(c("The data {if (named) cli::format_inline('of unit{?s} {.val {names(left)}} ')}{if (named) 'have one time stamp per unit' else 'have one time stamp'}: no time step, so the {words$means} metrics are NA (see column {.field note})."),
                    class = c("ncam_warning_uneven_step", "ncam_warning"))
      next
    }
    if (all(averaging %in% empty)) {
      ncam_abort(c("{.arg averaging} {.val {block}} needs {words$need}; that {whose} is
                        {shown}.",
                   i = if (length(scatter)) "{scatter}",
                   i = "Use {.code averaging = \"as_given\"} or put the data on a regular
                            grid."), call = call)
    }
    cli::cli_warn(c("The time step {whose} ({shown}) does not divide {words$span}: {n}{?its/their}
                     {words$means} metrics are NA (see column {.field note}).",
                    i = if (length(scatter)) "{scatter}",
                    i = words$hint), class = c("ncam_warning_uneven_step", "ncam_warning"))
  }
}

# Why the time step of units whose gaps scatter (`irregular`: their mean gaps, named by unit;
# unit_time_steps()) fits no block, for the messages; NULL when there are none.
scatter_hint <- function(irregular, named) {
  if (length(irregular) == 0L) return(NULL)
  whose <- if (named) cli::format_inline(" of unit{?s} {.val {names(irregular)}}") else ""
  paste0("The gaps between the time stamps", whose, " scatter (mean gap ",
         toString(prettyNum(signif(irregular, 4))), " seconds), with no step that divides an hour or
          a day within 2.5 % of it holding most of them: that mean gap is their time step.")
}

# Notes on the rows of `block` of units left out for their step, and on the "all" row.
note_unfit <- function(out, unfit, block) {
  words <- block_words(block)
  own <- match(out$unit, names(unfit))
  out$note[!is.na(own)] <- vapply(unfit[own[!is.na(own)]], unfit_reason, character(1), block)
  all_row <- out$unit == "all" & is.na(own)
  if (length(unfit) > 0L && any(all_row)) {
    out$note[all_row] <- if (all(out$unit[!all_row] %in% names(unfit))) {
      sprintf("no unit has a time step that divides %s: no %s means", words$span, words$means)
    } else {
      paste_notes(out$note[all_row], sprintf("%s %s left out: time step does not divide %s",
                                             if (length(unfit) == 1L) "unit" else "units",
                                             toString(names(unfit)), words$span))
    }
  }
  out
}
