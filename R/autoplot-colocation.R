# The co-location period a series picture shades: from the fit, which keeps when its reference
# rows were (fit$reference_periods, R/reference-periods.R), else, for fits saved before it kept
# them or fitted to data without a date column, the rows of newdata with a reading of the fit's
# reference column.

# The shading of a fit with a reference: `spans` (a data frame of `group`, `from`, `to` and the
# legend's `fill`), or NULL, with a `note` for the caption when the picture cannot shade it.
# `group` is each row's panel (a factor, or "" without panels), `segment` its piece of the time
# axis (time_segments()), `date` the column of `time`.
colocation_spans <- function(source, newdata, time, group, segment, date) {
  from_fit <- fitted_colocation_spans(source, time, group, date, newdata)
  if (!is.null(from_fit)) return(from_fit)
  colocation_rows_spans(source, newdata, time, group, segment)
}

# For fused_source(): the periods a fit keeps for the series to shade, as a function of newdata,
# the panel of each of its rows and the date column's name, giving a data frame of `group` (the
# panel's label), `from` and `to`; NULL when the fit keeps none for that column (kept for another
# column, or its times repeated within a unit: several series in one model). A fit with unit
# offsets has each unit's periods in its panel.
fit_periods <- function(model) {
  function(newdata, group, date) {
    kept <- model$reference_periods
    if (!periods_for(kept, date)) return(NULL)
    periods <- kept$periods
    unit <- setdiff(names(periods), c("from", "to", "n"))
    panel <- if (!length(unit)) rep(as.character(group)[1], nrow(periods)) else {
      as.character(group)[match(key_text(periods[[unit]]), key_text(newdata[[unit]]))]
    }
    data.frame(group = panel, from = periods$from, to = periods$to)[!is.na(panel), , drop = FALSE]
  }
}

# The same for fits by group from ncam_by(): each group's periods in its panel.
by_group_periods <- function(object, models) {
  function(newdata, group, date) {
    by <- attr(object, "by")
    row_of_group <- match(key_strings(key_columns(object[by], "object")), key_strings(key_columns(newdata[by], "newdata")))
    parts <- lapply(which(has_fit(object)), function(g) {
      kept <- models[[g]]$reference_periods
      if (!periods_for(kept, date)) return(NULL)
      data.frame(group = rep(as.character(group)[row_of_group[g]], nrow(kept$periods)),
                 from = kept$periods$from, to = kept$periods$to)
    })
    parts <- Filter(Negate(is.null), parts)
    if (!length(parts)) return(NULL)
    periods <- do.call(rbind, parts)
    periods[!is.na(periods$group), , drop = FALSE]
  }
}

periods_for <- function(kept, date) !is.null(kept) && identical(kept$column, date) && isTRUE(kept$one_series)

# The fit's periods within each panel's times (a period of one time, half the panel's median
# time step either side): NULL when the fit keeps none for `date`; a `note` instead of spans
# when none falls within the times shown, or none is of the panels shown.
fitted_colocation_spans <- function(source, time, group, date, newdata) {
  periods <- if (!is.null(source$periods)) source$periods(newdata, group, date)
  if (is.null(periods)) return(NULL)
  reference <- source$model$reference
  panels <- as.character(group)
  if (!nrow(periods)) {
    return(list(note = sprintf("No co-location shaded: the %ss shown had no rows with a reading of %s in the fit.",
                               source$group_word, reference)))
  }
  spans <- lapply(unique(panels[!is.na(time)]), function(g) {
    t <- time[panels == g & !is.na(time)]
    mine <- periods[periods$group == g, , drop = FALSE]
    if (!nrow(mine)) return(NULL)
    from <- as_time_like(mine$from, t)
    to <- as_time_like(mine$to, t)
    step <- if (length(unique(t)) > 1L) stats::median(diff(sort(unique(as.numeric(t))))) else 0
    half <- ifelse(from == to, step / 2, 0)
    from <- from - half
    to <- to + half
    lo <- min(t) - step / 2
    hi <- max(t) + step / 2
    inside <- to >= lo & from <= hi
    if (!any(inside)) return(NULL)
    data.frame(group = g, from = pmax(from[inside], lo), to = pmin(to[inside], hi))
  })
  spans <- do.call(rbind, spans)
  if (is.null(spans)) {
    range_text <- format_period_times(c(min(periods$from), max(periods$to)))
    return(list(note = sprintf("No co-location shaded: the fit's rows with a reading of %s (%s %s to %s) lie outside the times shown.",
                               reference, date, range_text[1], range_text[2])))
  }
  if (is.factor(group)) spans$group <- factor(spans$group, levels = levels(group))
  spans$fill <- sprintf("co-location: the fit's rows with a reading of %s", reference)
  list(spans = spans)
}

# Times of the fit's date column in the class of newdata's: a Date's day from midnight in the
# zone of date-times, a date-time's day in its own zone.
as_time_like <- function(x, like) {
  if (inherits(like, "Date") && !inherits(x, "Date")) {
    zone <- attr(x, "tzone")
    return(as.Date(x, tz = if (is.null(zone)) "" else zone))
  }
  if (!inherits(like, "Date") && inherits(x, "Date")) {
    zone <- attr(like, "tzone")
    return(as.POSIXct(format(x), tz = if (is.null(zone)) "" else zone))
  }
  x
}

# Without periods kept in the fit: each run of rows of newdata (in time order, within its group
# and its segment of time_segments()) with a reading in the fit's reference column, the rows such a fit learns its calibration from, from its first
# time to its last (a lone row, half the median time step either side). `spans` is NULL for a
# fit without a reference or rows without such readings; also, with a `note` for the caption,
# when newdata cannot tell the co-location apart: every row has a reading, or (for one fit, not
# fits by group whose source gives the first group's model only) more rows than the fit learned
# from, its rows with a reference and those it left out.
colocation_rows_spans <- function(source, newdata, time, group, segment) {
  reference <- source$model$reference
  if (!is.character(reference) || length(reference) != 1L || !reference %in% names(newdata)) return(list())
  dated <- !is.na(time)
  observed <- !is.na(newdata[[reference]]) & dated
  if (!any(observed)) return(list())
  # (A fit saved before it counted its reference rows is not checked.)
  learned <- if (is.null(source$model$n_reference)) Inf else sum(source$model$n_reference) + sum(source$model$n_left_out)
  note <- if (all(observed[dated])) "has a reading on every row" else
    if (!identical(source$group_word, "group") && sum(observed) > learned) {
      sprintf("has readings on more rows (%s) than the fit learned from", format(sum(observed), big.mark = ","))
    }
  if (!is.null(note)) return(list(note = sprintf("No co-location shaded: %s %s.", reference, note)))
  spans <- lapply(unique(group[dated]), function(g) {
    rows <- which(group == g & dated)
    rows <- rows[order(time[rows])]
    run <- cumsum(c(TRUE, diff(observed[rows]) != 0 | diff(segment[rows]) != 0))
    first <- rows[!duplicated(run) & observed[rows]]
    last <- rows[!duplicated(run, fromLast = TRUE) & observed[rows]]
    if (!length(first)) return(NULL)
    step <- stats::median(diff(sort(unique(as.numeric(time[rows])))))
    half <- ifelse(first == last & is.finite(step), step / 2, 0)
    data.frame(group = group[first], from = time[first] - half, to = time[last] + half)
  })
  spans <- do.call(rbind, spans)
  spans$fill <- sprintf("co-location: rows with a reading of %s", reference)
  list(spans = spans)
}

