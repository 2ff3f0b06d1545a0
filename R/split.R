# Train/validation/calibration/test splits: random, chronological and
# temporal blocks with gaps (paper section "Temporal Block Splitting").

split_levels <- c("train", "validation", "calibration", "test")

#' Split rows at random
#'
#' Assigns every row of `data` to one of the splits train, validation,
#' calibration and test, ignoring time. The number of rows per split is
#' `prop * nrow(data)` rounded by the largest-remainder rule, so the counts add
#' up to `nrow(data)` and each is within one row of its target. A split of
#' `prop` left without rows (too few rows for the proportions) gives a warning;
#' so does a `data` without rows, which gives an empty factor.
#'
#' @param data A data frame.
#' @param prop Named numeric vector of split proportions. Names must be a subset
#'   of `"train"`, `"validation"`, `"calibration"`, `"test"`; values must be
#'   positive and sum to 1.
#' @param seed `NULL` to draw from R's random number generator (so
#'   [set.seed()] applies), or a whole number used locally without disturbing
#'   the global random stream.
#' @return A factor with levels `train`, `validation`, `calibration`, `test`
#'   and one element per row of `data`, in row order.
#' @seealso [split_chronological()], [split_blocks()]
#' @export
#' @examples
#' d <- data.frame(x = 1:20)
#' table(split_random(d, seed = 1))
split_random <- function(data,
                         prop = c(train = 0.6, validation = 0.1, calibration = 0.15, test = 0.15),
                         seed = NULL) {
  check_data_frame(data)
  prop <- check_prop(prop)
  check_seed(seed)
  if (nrow(data) == 0L) return(empty_split())
  n <- nrow(data)
  counts <- allocate_counts(n, prop)
  labels <- rep(names(prop), counts)
  shuffled <- with_seed_or_global(seed, labels[sample.int(n)])
  warn_empty_splits(shuffled, shuffled, prop, "row",
                    "{n} row{?s} {?is/are} too few for these proportions.")
  factor(shuffled, levels = split_levels)
}

#' Split rows chronologically
#'
#' Orders the rows by time and cuts the timeline into consecutive segments,
#' one per split in the order train, validation, calibration, test (splits
#' absent from `prop` are skipped). Segment boundaries are placed at the row
#' counts `prop * nrow(data)`; rows sharing a timestamp always go to the same
#' segment. A gap is then carved from the start of each later segment: its rows
#' closer than `gap` to the last row of an earlier split become `NA`, so any two
#' rows of different splits are at least `gap` apart in time. Each later split
#' therefore loses the rows in the first `gap` of its segment, which is most of
#' a segment not much longer than `gap`: 480 hourly rows with the default
#' `prop` and `gap` keep 13 of their 48 validation rows (and 37 of 72 for
#' calibration and for test), 105 rows in all becoming `NA`. A split left with
#' under half its target rows gives a warning of class
#' `ncam_warning_small_split` naming it, its rows and its target; a split of
#' `prop` left without rows (too few distinct times for the proportions, or a
#' segment shorter than `gap`) gives a warning naming it and the cause. A
#' `data` without rows gives an empty factor with a warning.
#'
#' @inheritParams split_random
#' @param date Name of the time column of `data` (a string); the column must be
#'   of class `POSIXct` or `Date`. Rows need not be sorted; times may repeat and
#'   be irregularly spaced.
#' @param gap Minimum time between rows of different splits: a string such as
#'   `"36 hours"`, `"90 mins"`, `"7 days"` or `"2 weeks"`, a `difftime`, a
#'   lubridate duration or period of fixed length (`lubridate::hours(36)`; not
#'   months or years), a number of seconds, or the result of [select_gap()]
#'   called with the residuals' times (`select_gap(r, date = ...)`, whose gap is
#'   a `difftime`). Must be positive. A [select_gap()] result computed without
#'   `date` counts rows and is refused with an error. Rows exactly `gap` apart
#'   are kept, so a gap shorter than or equal to the smallest spacing between
#'   the times of `date` leaves no time out: rows of different splits may be
#'   neighbours (on daily data `"1 day"` removes nothing, `"2 days"` leaves one
#'   day out). Such a gap is used, with a warning of class
#'   `ncam_warning_short_gap` (a plain number is read as seconds; if it was a
#'   count of rows, such as `select_gap(r)$gap`, give it as a duration: 21 rows
#'   of daily data are `"21 days"`, which the warning suggests for a whole
#'   number from the spacing of `date`), or call [select_gap()] with `date`. A
#'   [select_gap()] result of one step, equal to the spacing, gives no warning:
#'   it found neighbouring residuals uncorrelated.
#' @return A factor with levels `train`, `validation`, `calibration`, `test`
#'   and one element per row of `data`, in row order; `NA` for rows in a gap.
#' @seealso [split_blocks()], [split_random()], [select_gap()]
#' @export
#' @examples
#' d <- data.frame(time = as.POSIXct("2024-01-01", tz = "UTC") + 3600 * 0:999)
#' s <- split_chronological(d, "time", gap = "12 hours")
#' table(s, useNA = "ifany")
split_chronological <- function(data, date,
                                prop = c(train = 0.6, validation = 0.1, calibration = 0.15, test = 0.15),
                                gap = "36 hours") {
  check_column_name_args("date")
  check_data_frame(data)
  time <- time_column(data, date)
  prop <- check_prop(prop)
  gap <- parse_gap(gap, time, date)
  if (nrow(data) == 0L) return(empty_split())
  ord <- order(time)
  sorted <- time[ord]
  counts <- allocate_counts(length(time), prop)
  segment <- rep(seq_along(prop), counts)
  # Ties follow the first row with the same time so equal times share a split.
  segment <- segment[match(sorted, sorted)]
  split_sorted <- names(prop)[segment]
  carved <- carve_gaps(split_sorted, sorted, gap)
  warn_empty_splits(split_sorted, carved, prop, "row",
                    "{length(unique(sorted))} distinct time{?s} {?is/are} too few for these
                     proportions (rows sharing a time stay in one split).")
  warn_small_splits(split_sorted, carved, prop, "Use a shorter {.arg gap} or fewer splits.")
  split_sorted <- carved
  out <- character(length(time))
  out[ord] <- split_sorted
  factor(out, levels = split_levels)
}

#' Split rows into temporal blocks
#'
#' Implements the temporal block split of the NCAM paper: the timeline is cut
#' into contiguous blocks and whole blocks are assigned to splits, with a gap
#' between blocks of different splits to limit leakage through
#' autocorrelation.
#'
#' The algorithm:
#' 1. Blocks are the time windows `[t0 + k * block, t0 + (k + 1) * block)`,
#'    `k = 0, 1, ...`, where `t0` is the earliest time; empty windows are
#'    ignored.
#' 2. The non-empty blocks are shuffled (using `seed`) and laid end to end by
#'    row count. Each block goes to the split whose cumulative target interval
#'    (from `prop * nrow(data)`) contains the middle of the block, so each
#'    split's row count is within one block of its target. A split whose target
#'    is smaller than half a block may get no block; a warning says so.
#' 3. Gaps are carved from the start of the later block: walking through the
#'    blocks in time order, a row becomes `NA` if it lies less than `gap` after
#'    the last kept row of any other split. Any two rows of different splits
#'    are therefore at least `gap` apart in time, and blocks following a block
#'    of the same split lose nothing; a block not much longer than `gap` after
#'    a block of another split loses most of its rows. A split all of whose
#'    rows fall in gaps ends up empty; a warning says so. A split left with
#'    under half its target rows gives a warning of class
#'    `ncam_warning_small_split` naming it, its rows and its target.
#'
#' A `data` without rows gives an empty factor with a warning, as in
#' [split_random()] and [split_chronological()].
#'
#' @inheritParams split_chronological
#' @inheritParams split_random
#' @param block Length of a block, in the same forms as `gap` (for example
#'   `"7 days"`; a plain number is seconds). A block spanning under 3 steps of
#'   the times (their median spacing) holds one or two times, which makes the
#'   split a random split by time: it is used, with a warning of class
#'   `ncam_warning_short_block` (`block = 14` on daily data is 14 seconds; the
#'   warning suggests `"14 days"`).
#' @return A factor with levels `train`, `validation`, `calibration`, `test`
#'   and one element per row of `data`, in row order; `NA` for rows in a gap.
#' @seealso [split_chronological()], [select_gap()]
#' @export
#' @examples
#' d <- data.frame(day = as.Date("2024-01-01") + 0:364)
#' s <- split_blocks(d, "day", block = "2 weeks", gap = "2 days", seed = 1)
#' table(s, useNA = "ifany")
#'
#' # The gap chosen from the autocorrelation of residuals, given with their times.
#' set.seed(1)
#' d$resid <- as.numeric(arima.sim(list(ar = 0.8), 365))
#' g <- select_gap(d, date = "day")
#' g$gap
#' table(split_blocks(d, "day", block = "4 weeks", gap = g, seed = 1), useNA = "ifany")
split_blocks <- function(data, date, block = "7 days", gap = "36 hours",
                         prop = c(train = 0.6, validation = 0.1, calibration = 0.15, test = 0.15),
                         seed = NULL) {
  check_column_name_args("date")
  check_data_frame(data)
  time <- time_column(data, date)
  block <- parse_block(block, time, date)
  gap <- parse_gap(gap, time, date)
  prop <- check_prop(prop)
  check_seed(seed)
  if (nrow(data) == 0L) return(empty_split())

  block_id <- floor((time - min(time)) / block$secs)
  ids <- sort(unique(block_id))
  sizes <- tabulate(match(block_id, ids), length(ids))
  order_ids <- with_seed_or_global(seed, sample.int(length(ids)))
  # Middle of each block on the shuffled row-count axis.
  ends <- cumsum(sizes[order_ids])
  middles <- ends - sizes[order_ids] / 2
  targets <- cumsum(prop) * length(time)
  split_of_block <- character(length(ids))
  split_of_block[order_ids] <- names(prop)[findInterval(middles, c(0, targets),
                                                        rightmost.closed = TRUE)]

  ord <- order(time)
  split_sorted <- split_of_block[match(block_id[ord], ids)]
  carved <- carve_gaps(split_sorted, time[ord], gap)
  warn_empty_splits(split_sorted, carved, prop, "block",
                    "{length(ids)} non-empty block{?s} {?is/are} too few for {length(prop)}
                     splits: a split whose share is under half a block gets none. Use
                     shorter blocks or larger proportions.",
                    gap_hint = "Use a shorter {.arg gap} or longer blocks.")
  # Blocks already too short for a block split (warned above) should not be shortened further.
  warn_small_splits(split_sorted, carved, prop, if (block$short) {
    "Use a shorter {.arg gap} (fewer rows lost) or fewer splits, and blocks of many time steps."
  } else {
    "Use a shorter {.arg gap} (fewer rows lost), shorter blocks (shares closer to {.arg prop}) or fewer splits."
  })
  split_sorted <- carved
  out <- character(length(time))
  out[ord] <- split_sorted
  factor(out, levels = split_levels)
}

# The split of a data frame without rows: an empty factor, with the same warning from every
# split function (an empty `data` is usually a filter gone wrong upstream).
empty_split <- function(call = parent.frame()) {
  cli::cli_warn(c("{.arg data} has no rows: every split is empty.",
                  i = "Check how {.arg data} was built (a filter that kept no row?)."), call = call, class = c("ncam_warning_empty_split", "ncam_warning"))
  factor(character(), levels = split_levels)
}

# Walks rows in time order and blanks those closer than `gap` to the last kept
# row of another split, so rows of different splits are at least `gap` apart.
# Works run by run (a run is consecutive rows of one split) to stay fast.
carve_gaps <- function(split, time, gap) {
  last_kept <- stats::setNames(rep(-Inf, length(split_levels)), split_levels)
  runs <- rle(split)
  ends <- cumsum(runs$lengths)
  starts <- ends - runs$lengths + 1L
  for (r in seq_along(ends)) {
    rows <- starts[r]:ends[r]
    s <- runs$values[r]
    drop <- time[rows] < max(last_kept[names(last_kept) != s]) + gap
    split[rows[drop]] <- NA_character_
    if (!all(drop)) last_kept[s] <- max(time[rows[!drop]])
  }
  split
}

# Row counts per split by the largest-remainder rule: they sum to n and each is
# within one row of n * prop.
allocate_counts <- function(n, prop) {
  raw <- n * prop
  counts <- floor(raw)
  left <- n - sum(counts)
  if (left > 0L) {
    extra <- order(raw - counts, decreasing = TRUE)[seq_len(left)]
    counts[extra] <- counts[extra] + 1
  }
  counts
}

# Warns when a split asked for in `prop` ends up without rows, saying whether it
# was never allotted any `unit` (`why_none` explains, as cli text evaluated here)
# or lost all its rows to the gaps; an empty split would give NaN downstream.
warn_empty_splits <- function(allotted, kept, prop, unit, why_none,
                              gap_hint = "Use a shorter {.arg gap}.", .envir = parent.frame()) {
  never <- names(prop)[!names(prop) %in% allotted]
  swallowed <- setdiff(names(prop)[!names(prop) %in% kept], never)
  if (length(never) == 0L && length(swallowed) == 0L) return(invisible())
  why_none <- cli::format_inline(why_none, .envir = .envir)
  gap_hint <- cli::format_inline(gap_hint)
  msg <- c(
    if (length(never) > 0L) {
      c("!" = paste0("Split{?s} {.val {never}} received no ", unit, "."), i = "{why_none}")
    },
    if (length(swallowed) > 0L) {
      c("!" = "Every row of split{?s} {.val {swallowed}} lies within {.arg gap} of another
               split and was set to {.code NA}.", i = "{gap_hint}")
    }
  )
  cli::cli_warn(c("Some splits in {.arg prop} are empty.", msg), class = c("ncam_warning_empty_split", "ncam_warning"))
}

# Warns when a split keeps under half its target rows (an empty one has its own warning): the
# gaps carved from short segments or blocks can take most of a split, silently.
warn_small_splits <- function(allotted, kept, prop, hint, call = parent.frame()) {
  target <- stats::setNames(allocate_counts(length(kept), prop), names(prop))
  rows <- table(factor(kept, levels = names(prop)))
  given <- table(factor(allotted, levels = names(prop)))
  lost <- given - rows
  small <- names(prop)[rows > 0 & rows < target / 2]
  if (length(small) == 0L) return(invisible())
  # The cause, from the counts: rows given in whole blocks below the target, the gap, or both.
  lines <- vapply(small, function(s) {
    paste0(cli::format_inline("{.val {s}}: {rows[[s]]} of a target of {target[[s]]} row{?s}"),
           if (given[[s]] < target[[s]] / 2) cli::format_inline("; given {given[[s]]} in whole blocks"),
           if (lost[[s]] > 0) cli::format_inline("; {lost[[s]]} within {.arg gap} of another split, set to {.code NA}"))
  }, character(1))
  cli::cli_warn(c("{cli::qty(length(small))}Split{?s} {.val {small}} keep{?s/} under half
                   {?its/their} target rows.", stats::setNames(lines, rep("*", length(lines))),
                  i = hint), class = c("ncam_warning_small_split", "ncam_warning"), call = call)
}

check_prop <- function(prop, call = parent.frame()) {
  if (!is.numeric(prop) || length(prop) == 0L || anyNA(prop) || is.null(names(prop))) {
    ncam_abort("{.arg prop} must be a named numeric vector without missing values.",
               call = call)
  }
  bad <- setdiff(names(prop), split_levels)
  if (length(bad) > 0L || anyDuplicated(names(prop))) {
    ncam_abort(c("{.arg prop} names must be distinct and among {.val {split_levels}}.",
                 x = "Problem name{?s}: {.val {c(bad, names(prop)[duplicated(names(prop))])}}."),
               call = call)
  }
  if (any(prop <= 0)) {
    ncam_abort("{.arg prop} must be positive; {.val {names(prop)[prop <= 0]}} {?is/are} not.",
               call = call)
  }
  if (abs(sum(prop) - 1) > 1e-6) {
    ncam_abort("{.arg prop} must sum to 1, not {format(sum(prop))}.", call = call)
  }
  # Canonical order so segments follow train, validation, calibration, test;
  # exact normalisation so cumulative targets end at the row count.
  prop <- prop[intersect(split_levels, names(prop))]
  prop / sum(prop)
}

# Time column as seconds since the epoch (Dates become midnight UTC).
time_column <- function(data, date, call = parent.frame()) {
  check_string(date, "date", call = call)
  check_columns(data, date, "date", call = call)
  date_seconds(data[[date]], "date", column = date, call = call)
}

# The one conversion of times to seconds since the epoch (Dates become midnight
# UTC), for the splits and select_gap(). `column` names the data column the
# times come from, if any, so that errors point at it.
date_seconds <- function(x, arg, column = NULL, call = parent.frame()) {
  subject <- if (is.null(column)) "{.arg {arg}}" else "Column {.field {column}} named by {.arg {arg}}"
  if (inherits(x, "Date")) {
    secs <- as.numeric(x) * 86400
  } else if (inherits(x, "POSIXt")) {
    secs <- as.numeric(as.POSIXct(x))
  } else {
    what <- if (is.null(column)) " vector" else ""
    ncam_abort(paste0(subject, " must be a {.cls Date} or {.cls POSIXct}{what}, not
                          {.obj_type_friendly {x}}."), call = call)
  }
  if (anyNA(secs)) {
    rows <- which(is.na(secs))
    ncam_abort(paste0(subject, " has missing times in {cli::qty(length(rows))}row{?s}
                          {rows}."), call = call)
  }
  if (any(is.infinite(secs))) {
    rows <- which(is.infinite(secs))
    ncam_abort(paste0(subject, " has infinite times in {cli::qty(length(rows))}row{?s}
                          {rows}."), call = call)
  }
  secs
}

duration_units <- c(s = 1, sec = 1, secs = 1, second = 1, seconds = 1,
                    min = 60, mins = 60, minute = 60, minutes = 60,
                    h = 3600, hr = 3600, hrs = 3600, hour = 3600, hours = 3600,
                    d = 86400, day = 86400, days = 86400,
                    w = 604800, week = 604800, weeks = 604800)

# A positive duration in seconds, from "36 hours", a difftime, or seconds.
parse_duration <- function(x, arg, call = parent.frame()) {
  if (inherits(x, "difftime")) {
    secs <- as.numeric(x, units = "secs")
  } else if (inherits(x, "Period")) {
    # lubridate's periods: clock units, of which months and years have no fixed length.
    if (any(is.na(x@year) | is.na(x@month))) {
      secs <- NA_real_
    } else if (any(x@year != 0 | x@month != 0)) {
      ncam_abort(c("{.arg {arg}} must have a fixed length: a period of months or years has none.",
                   i = "Give it in days or weeks, e.g. {.val 28 days}."), call = call)
    } else {
      secs <- x@.Data + 60 * x@minute + 3600 * x@hour + 86400 * x@day
    }
  } else if (inherits(x, "Duration")) {
    secs <- x@.Data  # lubridate's durations are seconds
  } else if (is.numeric(x)) {
    secs <- x
  } else if (is.character(x) && length(x) == 1L && !is.na(x)) {
    parts <- regmatches(x, regexec("^\\s*([-+]?[0-9]*\\.?[0-9]+)\\s*([A-Za-z]+)\\s*$", x))[[1]]
    unit <- if (length(parts) == 3L) duration_units[tolower(parts[3])] else NA
    if (is.na(unit)) {
      ncam_abort(c("{.arg {arg}} must be a duration such as {.val 36 hours}, not {.val {x}}.",
                   i = "Units: secs, mins, hours, days, weeks."), call = call)
    }
    secs <- as.numeric(parts[2]) * unit
  } else {
    ncam_abort("{.arg {arg}} must be a duration string, a {.cls difftime} or a number
                    of seconds, not {.obj_type_friendly {x}}.", call = call)
  }
  if (length(secs) != 1L || is.na(secs) || !is.finite(secs) || secs <= 0) {
    ncam_abort("{.arg {arg}} must be a single positive duration, not {format(x)}.",
               call = call)
  }
  unname(secs)
}
