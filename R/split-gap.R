# The `gap` of a split in seconds: a duration as parse_duration() reads it, or the time gap of
# a select_gap() result. A select_gap() result counted in rows (no `date`) is an error
# suggesting the duration those rows span at the usual spacing of `time`. A gap no longer than
# every spacing of the times leaves no time out between splits (rows at least `gap` apart may
# be neighbours): harmless, but likely a mistake (one step meant as a gap of one time, or a
# count of rows given as a number of seconds), so a warning, with the same suggestion for a
# whole number shorter than the spacing. A select_gap() result of one step is not warned about when equal to
# the spacing: it found neighbours uncorrelated, so they need no gap.
parse_gap <- function(gap, time, date, call = parent.frame()) {
  spacing <- diff(sort(unique(time)))
  rows_hint <- function(rows) rows_as_duration_hint(rows, spacing, "gap")
  selected <- inherits(gap, "ncam_gap")
  if (selected) {
    if (is.na(gap$gap)) {
      ncam_abort(c("{.arg gap} is a {.fn select_gap} result that found no gap: the
                        autocorrelation never entered its band.",
                   i = "Call {.fn select_gap} with a larger {.arg max_lag}, or give {.arg gap} as a duration."),
                 call = call)
    }
    if (!inherits(gap$gap, "difftime")) {
      ncam_abort(c("{.arg gap} is a {.fn select_gap} result counted in rows ({format_lag(gap$gap)}), not a time: {.fn select_gap} was called without {.arg date}.",
                   i = "Call {.fn select_gap} with {.arg date}, the residuals' times, so that its gap is a duration.",
                   rows_hint(gap$gap)), call = call)
    }
    gap <- gap$gap
  }
  secs <- parse_duration(gap, "gap", call = call)
  if (length(spacing) > 0L && (secs < min(spacing) || (secs == min(spacing) && !selected))) {
    plain <- is.numeric(gap) && !inherits(gap, c("difftime", "Duration", "Period"))
    given <- if (plain) {
      paste0(format(gap, scientific = FALSE), " (read as seconds: ", format_spacing(secs), ")")
    } else {
      format_spacing(secs)
    }
    shorter <- secs < min(spacing)
    step <- median_spacing(spacing)
    two_steps <- format_lag(as_lag_difftime(2 * step, step))
    cli::cli_warn(c("{.arg gap} = {given} is {if (shorter) 'shorter than' else 'equal to'} the smallest spacing between the
                     times of column {.field {date}} ({format_spacing(min(spacing))}): it
                     leaves no time out between splits, and rows of different splits may be
                     neighbours.",
                    if (plain && shorter) rows_hint(gap),
                    i = "Rows of different splits are kept at least {.arg gap} apart: {.code gap = \"{two_steps}\"}
                         (two steps of {format_spacing(step)}, the median spacing) leaves out one
                         time between them."),
                  class = c("ncam_warning_short_gap", "ncam_warning"), call = call)
  }
  secs
}

# A block of split_blocks() in seconds, with `short`: TRUE when it spans under 3 steps (the
# median spacing of the times). Such blocks hold one or two times each, so shuffling them is a
# random split by time, not a split into temporal blocks; usually a count of days or hours given
# as a plain number, read as seconds. A warning, suggesting the duration for a whole number.
parse_block <- function(block, time, date, call = parent.frame()) {
  secs <- parse_duration(block, "block", call = call)
  spacing <- diff(sort(unique(time)))
  if (length(spacing) == 0L) return(list(secs = secs, short = FALSE))
  step <- median_spacing(spacing)
  short <- secs < 3 * step
  if (short) {
    plain <- is.numeric(block) && !inherits(block, c("difftime", "Duration", "Period"))
    given <- if (plain) {
      paste0(format(block, scientific = FALSE), " (read as seconds: ", format_spacing(secs), ")")
    } else {
      format_spacing(secs)
    }
    cli::cli_warn(c("{.arg block} = {given} spans under 3 steps of the times of column
                     {.field {date}} ({format_spacing(step)} apart, the median spacing): each
                     block holds one or two times, so the split is a random split by time, not
                     a split into temporal blocks.",
                    if (plain) rows_as_duration_hint(block, spacing, "block"),
                    i = "Give {.arg block} as a duration of many steps, such as {.val 7 days}."),
                  class = c("ncam_warning_short_block", "ncam_warning"), call = call)
  }
  list(secs = secs, short = short)
}

# A hint for a whole number given as `arg` that was probably a count of rows: the duration those
# rows span at the median spacing of the times.
rows_as_duration_hint <- function(rows, spacing, arg) {
  if (length(spacing) == 0L || rows != round(rows)) return(NULL)
  step <- median_spacing(spacing)
  c(i = paste0("If ", format(rows, scientific = FALSE), " counts rows ", format_spacing(step),
               " apart (the median spacing of column {.field {date}}), give it as {.code ", arg,
               " = \"", format_lag(as_lag_difftime(rows * step, step)), "\"}."))
}

# The median of the spacings between distinct times (`spacing`, whole_second_gaps()), the step
# the messages on a gap or a block count in, as select_gap() lays its grid: a median, not the
# time step of sensor_performance(), so that a block short of 3 steps holds one or two times.
median_spacing <- function(spacing) round_spacing(stats::median(whole_second_gaps(spacing)))

# A spacing in seconds without the noise of floating-point times (0.0999999 s is 0.1 s).
round_spacing <- function(secs) signif(secs, 4)

# A duration in seconds as a user reads it, in the largest unit that divides it: "1 hour",
# "30 mins", "0.1 secs".
format_spacing <- function(secs) {
  secs <- round_spacing(secs)
  format_lag(as_lag_difftime(secs, secs))
}
