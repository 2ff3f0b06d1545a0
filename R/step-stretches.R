# The time step of each series of times, and the stretches of a series' record at another step:
# a logger whose step changes part way (PurpleAir every 80 s, then every 120 s after a firmware
# change; 5-minute readings, then 1-minute ones) has each stretch judged at its own step. Shared
# by join_reference() and the 1-hour and 24-hour means of sensor_performance() and
# average_estimates(). From time stamps alone a change to a whole multiple of the step (1 minute
# to 10 minutes, hourly to every other hour) cannot be told from records lost in a pattern, so
# such a stretch stays at the series' step, as records lost (its `patterns`, for a message).

# The time step of each series of times (`seconds`, with the series of each in `series`), the
# one step finding of sensor_performance(), average_estimates() and join_reference(): `step`,
# `kind` and `centre` of step_of_gaps(), named by series in order of first appearance; the
# `stretches` of each series (series_stretches(): a data frame of `series`, `from`, `step` and
# `kind`, one row for a series whose step does not change) and its `patterns` (`series`,
# `from`, `to`, `every`, `step`, `at_start`, `at_end`). A series with a single time takes the
# step of all series' gaps pooled, as "regular" (its one stamp neither wanders nor scatters); NA
# when no series has two times.
series_time_steps <- function(seconds, series) {
  keys <- unique(series)
  times <- lapply(split(seconds, factor(series, keys)), sort)
  gaps <- lapply(times, diff)
  found <- lapply(gaps, step_of_gaps)
  lonely <- vapply(found, function(f) is.na(f$step), logical(1))
  if (any(lonely)) found[lonely] <- list(step_of_gaps(unlist(gaps, use.names = FALSE)))
  kind <- vapply(found, `[[`, character(1), "kind")
  kind[lonely] <- "regular"
  step <- vapply(found, `[[`, numeric(1), "step")
  parts <- lapply(seq_along(keys), function(i) series_stretches(times[[i]], step[[i]], kind[[i]]))
  # One data frame of the series' columns (lists, as data frames per series cost a second for
  # 1000 of them).
  tables <- function(what) {
    of <- lapply(parts, `[[`, what)
    columns <- lapply(stats::setNames(nm = names(of[[1]])), function(col) {
      unlist(lapply(of, `[[`, col), use.names = FALSE)
    })
    data.frame(series = rep(keys, vapply(of, function(p) length(p$from), integer(1))), columns)
  }
  list(step = step, kind = kind, centre = vapply(found, `[[`, numeric(1), "centre"),
       stretches = tables("stretches"), patterns = tables("patterns"))
}

# Gaps per window: enough that records lost at random (8 % kept) still give a window the step of
# its grid, few enough that a stretch of a few hours of 1-minute data counts.
stretch_window_gaps <- 100L

# The stretches of one series of sorted times `t` (seconds) whose pooled gaps have step `step` of
# kind `kind` (step_of_gaps()): `stretches`, a list of `from` (the first from -Inf), `step` and
# `kind`, and `patterns` (`from`, `to`, `every`, `step`: readings `every` seconds, a whole
# multiple of the `step` they are judged at; `at_start`, `at_end`: from the record's first
# reading, to its last). The gaps are cut into windows of 100 (the last holding the rest). The
# base step is `step`; for gaps that scatter as a whole (80 s and 120 s pooled scatter around
# 95 s), and for a step stamps wander around that no window's gaps lie within a tenth of a step
# of (60 s and 90 s pooled take 75 s, 80 s and 120 s may take 90 s), it is the finest step of the
# windows when 80 % of them lie on a grid of their own and they are not all one step. A window
# with 80 % of its gaps on the base grid (on_step_grid()) is at the base step, whatever its own:
# 10-minute gaps lie on a 1-minute grid, and may be records lost. Another takes the finest of
# the steps found in such windows (own_window_step(); other_stretch_steps(): finer than the base,
# or off its grid) within a tenth of whose grid 80 % of its gaps lie, else the base. Runs of
# windows at one step are the stretches (stretch_boundary()). One stretch, at `step`, when there
# is one run, or when the base is not `step` and no window is at another.
series_stretches <- function(t, step, kind) {
  single <- list(stretches = list(from = -Inf, step = step, kind = kind),
                 patterns = no_patterns)
  gaps <- diff(t)
  n_windows <- length(gaps) %/% stretch_window_gaps
  if (is.na(step) || n_windows < 2L) return(single)
  window <- pmin((seq_along(gaps) - 1L) %/% stretch_window_gaps + 1L, n_windows)
  pieces <- split(gaps, window)
  own <- vector("list", n_windows)
  base <- step
  near_step <- kind == "jittered" &&
    any(tapply(on_step_grid(gaps, step, step / 10), window, mean) >= 0.8)
  if (kind != "regular" && !near_step) {
    own <- windows_on_own_grid(pieces)
    if (is.null(own)) return(single)
    base <- min(vapply(own, `[[`, numeric(1), "step"), na.rm = TRUE)
  }
  # Within a tenth of a step for a step of its own: a window across a change from 80 s to 120 s
  # has gaps within a quarter step of 100 s, and a mean gap of 100 s.
  on_grid <- function(piece, s) mean(on_step_grid(piece, s, s / 10)) >= 0.8
  on_base <- vapply(pieces, function(piece) mean(on_step_grid(piece, base)) >= 0.8, logical(1))
  off <- which(!on_base)
  own[off] <- lapply(seq_along(off), function(i) {
    if (is.null(own[[off[i]]])) own_window_step(pieces[[off[i]]]) else own[[off[i]]]
  })
  own_step <- vapply(own, function(o) if (is.null(o)) NA_real_ else o$step, numeric(1))
  candidates <- unique(own_step[off][!is.na(own_step[off])])
  other <- if (length(candidates)) other_stretch_steps(candidates, base, gaps) else numeric()
  verdict <- rep(base, n_windows)
  for (i in off) {
    fits <- other[vapply(other, on_grid, logical(1), piece = pieces[[i]])]
    if (length(fits)) verdict[i] <- fits[1]
  }
  # A base of the windows' own, and no stretch: the series stays as it is found.
  if (base != step && all(verdict == base)) return(single)
  runs <- rle(verdict)
  last_window <- cumsum(runs$lengths)
  from <- vapply(seq_along(runs$values)[-1], function(i) {
    region <- which(window %in% (last_window[i - 1] + 0:1))
    at <- stretch_boundary(gaps[region], runs$values[i - 1], runs$values[i], base)
    t[at + region[1] - 1L]
  }, numeric(1))
  from <- cummax(c(-Inf, from))
  window_kind <- vapply(own, function(o) if (is.null(o)) NA_character_ else o$kind, character(1))
  run_of <- rep(seq_along(runs$values), runs$lengths)
  jittered <- vapply(seq_along(runs$values), function(i) {
    if (runs$values[i] == step && base == step) return(kind == "jittered")
    any(window_kind[run_of == i & own_step %in% runs$values[i]] == "jittered")
  }, logical(1))
  # A stretch that another's boundary overtook is empty; then neighbours may share a step.
  kept <- c(from[-1] > from[-length(from)], TRUE)
  from <- from[kept]
  steps <- runs$values[kept]
  jittered <- jittered[kept]
  kept <- c(TRUE, diff(steps) != 0)
  stretches <- list(from = from[kept], step = steps[kept],
                    kind = ifelse(jittered[kept], "jittered", "regular"))
  list(stretches = if (length(stretches$from) > 1L) stretches else single$stretches,
       patterns = step_patterns(t, gaps, window, pieces, verdict))
}

# No stretch of readings a whole multiple of their step apart (step_patterns()).
no_patterns <- list(from = numeric(), to = numeric(), every = numeric(), step = numeric(),
                    at_start = logical(), at_end = logical())

# For gaps that scatter as a whole (step_of_gaps() "irregular"): each window's own step
# (own_window_step()), when 80 % of the windows have one and they are not all one step; else
# NULL. Windows are tried in turn, so that readings at random times give up early.
windows_on_own_grid <- function(pieces) {
  own <- vector("list", length(pieces))
  allowed <- floor(0.2 * length(pieces))
  failed <- 0
  for (i in seq_along(pieces)) {
    own[[i]] <- own_window_step(pieces[[i]])
    failed <- failed + is.na(own[[i]]$step)
    if (failed > allowed) return(NULL)
  }
  steps <- vapply(own, `[[`, numeric(1), "step")
  if (length(unique(steps[!is.na(steps)])) < 2L) return(NULL)
  own
}

# The step and kind of a window of gaps of its own (step_of_gaps()), when it is a grid step or
# one its stamps wander around and 80 % of the gaps lie within a tenth of a step of its grid (a
# window across a change from 80 s to 120 s has its gaps of about one step around 100 s, which
# divides an hour, but 20 s from it); else step NA.
own_window_step <- function(gaps) {
  own <- step_of_gaps(gaps)
  if (is.na(own$step) || own$kind == "irregular" ||
      mean(on_step_grid(gaps, own$step, own$step / 10)) < 0.8) {
    return(list(step = NA_real_, kind = NA_character_))
  }
  own[c("step", "kind")]
}

# Gaps within `within` (a quarter step) of a whole number (one or more) of steps; a repeated time
# (gap 0) counts as on any grid.
on_step_grid <- function(gaps, step, within = step / 4) {
  gaps == 0 | abs(gaps - step * pmax(1, round(gaps / step))) < within
}

# Whether each of `steps` is a whole multiple, 2 or more (to 2.5 %), of one of `finer`.
whole_multiple_of <- function(steps, finer) {
  vapply(steps, function(s) {
    k <- round(s / finer)
    any(k >= 2 & abs(s - k * finer) <= 0.025 * s)
  }, logical(1))
}

# Of the steps found in windows off the base grid (`candidates`), those a stretch may take, in
# increasing order: 10 s or more (as grid_step() takes a grid: readings at random times lie on
# the grid of whole seconds, and overlapping bursts of 10 s readings show gaps of 2 to 8 s); a
# finer step than the base (judged at it, a stretch counts more records, not fewer); a coarser
# one only when it is no whole multiple of the base, of a finer step taken, or of a gap of 10 s
# or more that makes 1 % of the series' `gaps` (and two of them): 120 s is off an 80 s grid, but
# readings every 120 s of a logger that also shows 40 s or 60 s gaps may be records lost from a
# finer grid.
other_stretch_steps <- function(candidates, base, gaps) {
  candidates <- sort(candidates[candidates >= 10])
  finer <- candidates[candidates < base]
  seen <- round(whole_second_gaps(gaps[gaps > 0]), 3)
  counts <- table(seen)
  common <- as.numeric(names(counts))[counts >= max(2, 0.01 * length(seen))]
  common <- common[common >= 10]
  coarser <- candidates[candidates > base]
  coarser <- coarser[!whole_multiple_of(coarser, c(base, finer, common))]
  c(finer, coarser)
}

# Where a stretch of step `before` gives way to one of step `after` among `gaps`: the index of
# the first gap of the later stretch, the one with the fewest gaps off their stretch's grid
# (on_step_grid()). Gaps that fit both go to the series' base step `base` (5-minute gaps before
# a change to 1 minute stay at 5 minutes, as found), else to the finer step.
stretch_boundary <- function(gaps, before, after, base) {
  off_before <- c(0, cumsum(!on_step_grid(gaps, before)))
  off_after <- rev(c(0, cumsum(rev(!on_step_grid(gaps, after)))))
  cost <- off_before + off_after
  best <- which(cost == min(cost))
  late <- if (before == base || after == base) before == base else before < after
  if (late) max(best) else min(best)
}

# The stretches of readings a whole multiple (2 or more) of the step they are judged at apart
# (`verdict`, per window): windows with 80 % of their gaps such multiples of one of them, each run
# of them widened to the gaps around it that are such multiples too. A list of `from`, `to` (the
# first and last readings), `every` and `step`, in seconds, `at_start` and `at_end`.
step_patterns <- function(t, gaps, window, pieces, verdict) {
  every <- vapply(seq_along(pieces), function(i) {
    # A window with over 20 % of its gaps one step long holds no pattern (saves the table).
    one_step <- mean(abs(pieces[[i]] - verdict[i]) < verdict[i] / 4)
    if (one_step > 0.2) verdict[i] else pattern_multiple(pieces[[i]], verdict[i]) * verdict[i]
  }, numeric(1))
  flagged <- every > verdict
  if (!any(flagged)) return(no_patterns)
  runs <- rle(paste(every, verdict))
  last_window <- cumsum(runs$lengths)
  rows <- lapply(which(flagged[last_window]), function(r) {
    step <- verdict[last_window[r]]
    m <- every[last_window[r]] / step
    k <- round(gaps / step)
    fits <- on_step_grid(gaps, step) & k >= m & k %% m == 0
    inside <- which(window %in% (last_window[r] - runs$lengths[r] + 1):last_window[r] & fits)
    breaks <- which(!fits)
    first <- max(c(0, breaks[breaks < min(inside)])) + 1
    last <- min(c(length(gaps) + 1, breaks[breaks > max(inside)])) - 1
    data.frame(from = t[first], to = t[last + 1], every = m * step, step = step,
               at_start = first == 1, at_end = last == length(gaps))
  })
  out <- do.call(rbind, rows)
  as.list(out[!duplicated(out[c("from", "to")]), ])
}

# The multiple `m` (2 or more) of `step` that 80 % of `gaps` are whole multiples of, on its grid,
# with two gaps of m steps, the largest such; 1 when there is none.
pattern_multiple <- function(gaps, step) {
  k <- round(gaps / step)
  k[!on_step_grid(gaps, step) | k < 1] <- NA
  counts <- table(k)
  values <- as.numeric(names(counts))
  for (m in sort(values[counts >= 2 & values >= 2], decreasing = TRUE)) {
    if (sum(k %% m == 0, na.rm = TRUE) >= 0.8 * length(gaps)) return(m)
  }
  1
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

# The stretches of one series judged with a step given in `time_step` (`given`, seconds): at it
# throughout when it divides every step found (`stretches` and `patterns` of
# series_time_steps(), of this series; `irregular`: its gaps scatter around no step); else, when
# it is coarser, the stretches of readings a whole multiple of it apart (`patterns` whose step
# divides it) are at it, the rest as found: readings every 10 minutes for a while of a 1-minute
# logger whose step did change, with `time_step = "10 min"`. NULL when neither: its readings
# would fall between its steps.
given_step_stretches <- function(stretches, patterns, given, irregular) {
  if (!off_given_step(stretches$step, irregular, given)) {
    return(data.frame(from = -Inf, step = given, kind = stretches$kind[1]))
  }
  whole <- function(x) round(x) >= 1 & abs(x - round(x)) < 1e-6
  at_given <- patterns[whole(patterns$every / given) & whole(given / patterns$step), ]
  if (irregular || nrow(at_given) == 0L) return(NULL)
  # A stretch from the record's first reading, or to its last, runs from or to its end.
  from <- ifelse(at_given$at_start, -Inf, at_given$from)
  to <- ifelse(at_given$at_end, Inf, at_given$to)
  for (i in seq_len(nrow(at_given))) stretches <- insert_stretch(stretches, from[i], to[i], given)
  stretches
}

# `stretches` (from, step, kind; one series) with the span from `from` to `to` at `step`, the
# stretch that held `to` resuming there (unless `to` is Inf).
insert_stretch <- function(stretches, from, to, step) {
  holding <- findInterval(c(from, to), stretches$from)
  inserted <- data.frame(from = c(from, to), step = c(step, stretches$step[holding[2]]),
                         kind = stretches$kind[holding])
  if (is.infinite(to)) inserted <- inserted[1, ]
  out <- rbind(stretches[stretches$from < from, ], inserted, stretches[stretches$from > to, ])
  out[c(TRUE, diff(out$step) != 0), ]
}
