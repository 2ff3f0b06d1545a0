# The rows of newdata that carried the reference in the fit (its co-location rows), which the
# scatter and coverage pictures mark and score apart: an estimate on a row the fit learned its
# calibration from is no test of it. Told from the fit's data when it is found as it was (the
# rows equal to one of its rows with a reference reading), else from the periods the fit keeps
# (reference_periods, as the series shades them), else from newdata's column of the fit's
# reference when the picture compares with another column (that one then holds the reference as
# the fit saw it).

# A function of newdata giving, for each of its rows, whether it equals a row with a reference
# reading of the data `models` (one fit, or each group's) were fitted to; NULL when that data is
# not found as it was for every model (fitting_data()) or newdata lacks a column the fits read.
fitted_reference_rows <- function(models) {
  function(newdata) {
    found <- rep(FALSE, nrow(newdata))
    for (model in models) {
      mine <- model_reference_rows(model, newdata)
      if (is.null(mine)) return(NULL)
      found <- found | mine
    }
    found
  }
}

# For one fit, as count_fitted_rows() compares rows: every column newdata shares with the fit's
# data, in the units the fit fused.
model_reference_rows <- function(model, newdata) {
  if (!is.character(model$reference) || !has_fingerprint(model)) return(NULL)
  fitted <- tryCatch(match_units(model, fitting_data(model)), error = function(e) NULL)
  if (is.null(fitted)) return(NULL)
  ambiguous <- plain_converted_columns(model, newdata)
  data <- tryCatch(match_units(model, newdata, unread = ambiguous), error = function(e) NULL)
  if (is.null(data)) return(NULL)
  fitted <- fitted[!is.na(fitted[[model$reference]]), , drop = FALSE]
  shared <- Filter(function(v) is.atomic(data[[v]]) && is.atomic(fitted[[v]]),
                   setdiff(intersect(names(data), names(fitted)), ambiguous))
  if (!all(setdiff(colnames(model$data_check$sums), ambiguous) %in% shared)) return(NULL)
  if (!nrow(fitted)) return(rep(FALSE, nrow(newdata)))
  rows_found_in(data[shared], fitted[shared])
}

# The co-location rows of newdata for a picture comparing with its column `reference`: a list
# of `rows` (a logical per row of newdata), or, when the fit has a reference but its rows cannot
# be told, of `note` (a caption line); an empty list for
# a fit without a reference (a baseline, a fit to sensors alone).
colocation_rows <- function(source, newdata, reference, date) {
  fit_reference <- source$model$reference
  if (!is.character(fit_reference) || length(fit_reference) != 1L) return(list())
  found <- if (!is.null(source$fitted_rows)) source$fitted_rows(newdata)
  if (is.null(found)) found <- period_rows(source, newdata, date)
  if (is.null(found) && !identical(reference, fit_reference) && fit_reference %in% names(newdata)) {
    observed <- !is.na(newdata[[fit_reference]])
    if (any(observed) && !all(observed)) {
      return(list(rows = observed))
    }
  }
  if (is.null(found)) {
    return(list(note = sprintf("The rows with a reading of %s in the fit are not told apart (its data is not found as it was, nor does it keep the periods of one series): the figures include any of them.",
                               fit_reference)))
  }
  list(rows = found)
}

# The rows of newdata within the periods the fit keeps for the column `date` (each unit's or
# group's within its own), when it keeps them for one series per unit; NULL otherwise.
period_rows <- function(source, newdata, date) {
  if (is.null(source$periods) || !is.character(date) || !date %in% names(newdata)) return(NULL)
  time <- newdata[[date]]
  if (!inherits(time, c("Date", "POSIXct"))) return(NULL)
  group <- panel_groups(source, newdata)
  group <- if (is.null(group)) rep("", nrow(newdata)) else as.character(group)
  periods <- source$periods(newdata, group, date)
  if (is.null(periods)) return(NULL)
  inside <- rep(FALSE, nrow(newdata))
  from <- as_time_like(periods$from, time)
  to <- as_time_like(periods$to, time)
  for (i in seq_len(nrow(periods))) {
    inside <- inside | (group == periods$group[i] & !is.na(time) & time >= from[i] & time <= to[i])
  }
  inside
}

# "n = 5,090, bias = -0.215, RMSE = 2.26, correlation = 0.888" for estimates against the reference.
score_text <- function(reference, fused) {
  error <- fused - reference
  sprintf("n = %s, bias = %.3g, RMSE = %.3g, correlation = %.3f", format(length(error), big.mark = ","),
          mean(error), sqrt(mean(error^2)),
          if (length(error) > 1L) stats::cor(reference, fused) else NA_real_)
}
