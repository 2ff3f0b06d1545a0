# The time span(s) of the rows that carried the reference in a fit: a few values kept in the fit
# (fit$reference_periods), so that print() can say when the co-location was, glance() its first
# and last time, and autoplot()'s series shade it on data that no longer holds the reference as
# it was at the fit. ncam() has no time argument: the data's date-time column tells the times.

# Runs of reference rows are split where consecutive times lie more than this many times their
# median spacing apart, and more than a share of the whole span (so a unit has at most 1 / that
# share + 1 periods, however many short outages its reference had).
period_gap_steps <- 10
period_gap_share <- 1 / 20

# The periods of the reference rows `rows` of `data` (the fit's training and validation rows
# with a reference reading beside a sensor reading), per unit of the column `unit` (NULL
# without): NULL when `data` has no Date or POSIXct column that varies over those rows, else a
# list of `column` (that column: `date` when it is one, else the first that varies), `periods`
# (a data frame of the unit, when there is one, as its column holds it, and `from`, `to`, the
# first and last time of each period, and `n`, its rows) and `one_series` (FALSE when a time
# repeats within a unit, as when several sites were fitted in one model without `unit`: the
# periods are then those of their rows together, not of any one site's series).
reference_periods <- function(data, rows, unit = NULL) {
  column <- period_time_column(data, rows)
  if (is.null(column) || !length(rows)) return(NULL)
  time <- data[[column]][rows]
  if (inherits(time, "POSIXlt")) time <- as.POSIXct(time)
  units <- if (!is.null(unit)) data[[unit]][rows] else rep(NA, length(rows))
  keep <- !is.na(time) & (is.null(unit) | !is.na(units))
  if (!any(keep)) return(NULL)
  time <- time[keep]
  units <- units[keep]
  by_unit <- if (is.null(unit)) list(seq_along(time)) else {
    values <- unique(units[unit_order(units)])
    lapply(values, function(v) which(units == v))
  }
  parts <- lapply(by_unit, function(i) {
    runs <- period_runs(as.numeric(time[i]))
    first <- tapply(as.numeric(time[i]), runs, min)
    last <- tapply(as.numeric(time[i]), runs, max)
    periods <- data.frame(from = time[i][match(first, as.numeric(time[i]))],
                          to = time[i][match(last, as.numeric(time[i]))],
                          n = as.integer(table(runs)))
    if (!is.null(unit)) periods <- cbind(stats::setNames(data.frame(rep(units[i[1]], nrow(periods))), unit), periods)
    periods
  })
  repeated <- vapply(by_unit, function(i) anyDuplicated(as.numeric(time[i])) > 0L, logical(1))
  periods <- do.call(rbind, parts)
  rownames(periods) <- NULL
  list(column = column, periods = periods, one_series = !any(repeated))
}

# The date-time column of `data` that tells the reference rows' times: `date` when it is a Date
# or POSIXct column, else the first such column that varies over `rows`; NULL when none does.
period_time_column <- function(data, rows) {
  is_time <- vapply(data, inherits, logical(1), what = c("Date", "POSIXt"))
  candidates <- names(data)[is_time]
  candidates <- c(intersect("date", candidates), setdiff(candidates, "date"))
  for (column in candidates) {
    values <- unique(as.numeric(data[[column]][rows]))
    if (sum(!is.na(values)) > 1L || (column == "date" && sum(!is.na(values)) == 1L)) return(column)
  }
  NULL
}

# The period of each of the sorted or unsorted `times` (numbers): runs split where consecutive
# distinct times lie more than period_gap_steps median spacings and more than period_gap_share of
# the whole span apart.
period_runs <- function(times) {
  distinct <- sort(unique(times))
  if (length(distinct) < 3L) return(rep(1L, length(times)))
  step <- diff(distinct)
  gap <- max(period_gap_steps * stats::median(step), period_gap_share * (max(distinct) - min(distinct)))
  starts <- c(distinct[1], distinct[-1][step > gap])
  findInterval(times, starts)
}

# print()'s words for a fit's reference periods: ", date 2021-04-01 to 2021-04-28" with the
# number of periods and units when more than one; "" for a fit without them (no date column, or
# saved before they were kept).
reference_periods_text <- function(x) {
  kept <- x$reference_periods
  if (is.null(kept)) return("")
  periods <- kept$periods
  span <- format_period_times(c(min(periods$from), max(periods$to)))
  unit <- setdiff(names(periods), c("from", "to", "n"))
  n_units <- if (length(unit)) length(unique(periods[[unit]])) else 1L
  detail <- c(if (length(unit)) sprintf("%d unit%s of %s", n_units, if (n_units == 1L) "" else "s", unit),
              if (nrow(periods) > n_units) sprintf("%d periods", nrow(periods)))
  sprintf(", %s %s to %s%s", kept$column, span[1], span[2],
          if (length(detail)) sprintf(" (%s)", paste(detail, collapse = ", ")) else "")
}

# Times as R prints them, dropping a time of day that every one of them lacks, with the zone of
# date-times ("2020-06-15 01:00 UTC").
format_period_times <- function(times) {
  if (inherits(times, "Date")) return(format(times))
  clock <- as.POSIXlt(times)
  seconds <- clock$hour * 3600 + clock$min * 60 + clock$sec
  shown <- if (all(seconds == 0)) "%Y-%m-%d" else if (all(clock$sec == 0)) "%Y-%m-%d %H:%M" else "%Y-%m-%d %H:%M:%S"
  format(times, shown, usetz = TRUE)
}

# The first and last time of the reference rows, for glance(): NA date-times without periods.
reference_time_range <- function(x) {
  periods <- x$reference_periods$periods
  if (is.null(periods)) return(list(from = as.POSIXct(NA_real_, tz = "UTC"), to = as.POSIXct(NA_real_, tz = "UTC")))
  list(from = min(periods$from), to = max(periods$to))
}
