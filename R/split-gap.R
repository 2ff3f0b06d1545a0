# The `gap` of a split in seconds: a duration as parse_duration() reads it, or the time gap of
# a select_gap() result. A select_gap() result counted in rows (no `date`) is an error
# suggesting the duration those rows span at the usual spacing of `time`. A gap shorter than
# every spacing of the times separates nothing: harmless, but likely a mistake (a count of rows
# given as a number of seconds), so a warning, with the same suggestion when the number is a
# whole number.
parse_gap <- function(gap, time, date, call = parent.frame()) {
  distinct <- sort(unique(time))
  spacing <- diff(distinct)
  rows_hint <- function(rows) {
    if (length(spacing) == 0L || rows != round(rows)) return(NULL)
    step <- round_spacing(stats::median(whole_second_gaps(spacing)))
    c(i = paste0("If ", format(rows, scientific = FALSE), " counts rows ", format_spacing(step),
                 " apart (the median spacing of column {.field {date}}), give it as {.code gap = \"",
                 format_lag(as_lag_difftime(rows * step, step)), "\"}."))
  }
  if (inherits(gap, "ncam_gap")) {
    if (is.na(gap$gap)) {
      cli::cli_abort(c("{.arg gap} is a {.fn select_gap} result that found no gap: the
                        autocorrelation never entered its band.",
                       i = "Call {.fn select_gap} with a larger {.arg max_lag}, or give {.arg gap} as a duration."),
                     call = call)
    }
    if (!inherits(gap$gap, "difftime")) {
      cli::cli_abort(c("{.arg gap} is a {.fn select_gap} result counted in rows ({format_lag(gap$gap)}), not a time: {.fn select_gap} was called without {.arg date}.",
                       i = "Call {.fn select_gap} with {.arg date}, the residuals' times, so that its gap is a duration.",
                       rows_hint(gap$gap)), call = call)
    }
    gap <- gap$gap
  }
  secs <- parse_duration(gap, "gap", call = call)
  if (length(spacing) > 0L && secs < min(spacing)) {
    plain <- is.numeric(gap) && !inherits(gap, c("difftime", "Duration", "Period"))
    given <- if (plain) {
      paste0(format(gap, scientific = FALSE), " (read as seconds: ", format_spacing(secs), ")")
    } else {
      format_spacing(secs)
    }
    cli::cli_warn(c("{.arg gap} = {given} is shorter than the smallest spacing between the
                     times of column {.field {date}} ({format_spacing(min(spacing))}): it
                     separates nothing, and rows of different splits may be neighbours.",
                    if (plain) rows_hint(gap)),
                  class = "ncam_warning_short_gap", call = call)
  }
  secs
}

# A spacing in seconds without the noise of floating-point times (0.0999999 s is 0.1 s).
round_spacing <- function(secs) signif(secs, 4)

# A duration in seconds as a user reads it, in the largest unit that divides it: "1 hour",
# "30 mins", "0.1 secs".
format_spacing <- function(secs) {
  secs <- round_spacing(secs)
  format_lag(as_lag_difftime(secs, secs))
}
