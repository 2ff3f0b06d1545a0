# The messages on stretches of a record at another time step (R/step-stretches.R), worded once
# for join_reference() and for sensor_performance() and average_estimates().

# A stretch's times in zone `tz`, as the messages show them.
stretch_time <- function(seconds, tz) format(.POSIXct(seconds, tz), "%Y-%m-%d %H:%M:%S %Z")

# Per series of `stretches` (series_time_steps()), its steps in turn, such as "80 seconds, then
# 2 minutes from 2024-06-06 00:00:10 UTC", led by `who(series)` (braces escaped: a unit's name
# is text, not a cli expression).
stretch_lines <- function(stretches, who, tz) {
  vapply(unique(stretches$series), function(key) {
    at <- stretches[stretches$series == key, ]
    steps <- vapply(at$step, format_step, character(1))
    paste0(gsub("([{}])", "\\1\\1", who(key)), steps[1],
           paste0(", then ", steps[-1], " from ", stretch_time(at$from[-1], tz), collapse = ""))
  }, character(1), USE.NAMES = FALSE)
}

# The message naming the series judged per stretch (`stretches` of those only), `whose` their
# time step is ("of `sensors`", "of 2 units"); `what`: how their periods are judged.
inform_step_stretches <- function(stretches, whose, who, tz, what = NULL) {
  if (nrow(stretches) == 0L) return(invisible())
  if (is.null(what)) what <- "each stretch's periods count their records at its own step."
  lines <- stretch_lines(stretches, who, tz)
  cli::cli_inform(c(paste("The time step", whose, "changes part way:", what),
                    stats::setNames(lines, rep("*", length(lines)))))
}

# The message naming stretches of readings a whole multiple of their step apart (`patterns` of
# series_time_steps(), of the series judged at their found steps), which are judged at that
# step as records lost. `fix(series, every)`: what to do if the step did change to `every`
# seconds, such as time_step_fix().
inform_step_patterns <- function(patterns, whose, who, fix, tz) {
  if (nrow(patterns) == 0L) return(invisible())
  lines <- sprintf("%severy %s from %s to %s, judged at %s",
                   gsub("([{}])", "\\1\\1", vapply(patterns$series, who, character(1))),
                   vapply(patterns$every, format_step, character(1)),
                   stretch_time(patterns$from, tz), stretch_time(patterns$to, tz),
                   vapply(patterns$step, format_step, character(1)))
  fix <- fix(patterns$series[1], patterns$every[1])
  cli::cli_inform(c(paste("Readings", whose, "come a whole multiple of their time step apart for a
                           while: taken as records lost in a pattern, so periods there count
                           their records at that step, and may fall short."),
                    stats::setNames(lines, rep("*", length(lines))),
                    i = "From time stamps alone a change of the logger's step to a whole multiple
                         of it cannot be told from records lost in a pattern. If the step did
                         change, {fix}"))
}

# What to do if a logger's step did change: give the `time_step` of `code`.
time_step_fix <- function(code) {
  cli::format_inline("give {.code {code}}: stretches of readings a whole multiple of that step
                      apart are then judged at it, the rest of the record at its own.")
}
