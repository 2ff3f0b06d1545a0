# The warning of calibrate() on rows that trained the model (ncam_warning_in_sample_calibration).

# Warns when calibration rows are rows `object` was fitted to: the whole of its data (found by
# its fingerprint, in any order) or, when that data can be found as by fitted.ncam(), how many
# of `rows` repeat one of its rows in every column. The model fits its training rows more
# closely than new ones, so scores there are smaller and the intervals too narrow: for "split"
# against the reference readings, for "mc_empirical" and "sensor_anchored" against the sensor
# readings. A fit without a reference never saw the reference readings "split" scores against:
# only overfitting the rows' sensor readings brings it closer to the truth there (milder, and
# growing with the epochs trained without early stopping: bench/calibrate_in_sample.R), but the
# rows are still not exchangeable with new ones.
# "mc_model" draws its labels from the model, so its scores follow |N(0, 1)| on any rows: no
# warning.
# `data` is calibrate()'s as given, before match_units() converted its columns: the fit's
# fingerprint holds its data in the units given (opc in mg/m3, fused in ug/m3).
warn_in_sample_calibration <- function(object, data, method, rows, call = parent.frame()) {
  if (method == "mc_model") return(invisible())
  whole <- is_fitting_data(object, in_training_units(object, data), in_order = FALSE)
  # A reference fit learned about the reference only from its rows with a reference reading.
  trained <- if (!whole) count_fitted_rows(object, data, rows) else
    if (method == "split" && !is.null(object$reference)) sum(!is.na(data[[object$reference]][rows])) else NA_integer_
  if (!(isTRUE(is.na(trained) && whole) || isTRUE(trained > 0L))) return(invisible())
  rows_text <- if (method == "split") "row{?s} of {.arg data} with a reference reading" else "row{?s} of {.arg data}"
  which_rows <- if (is.na(trained)) "{.arg data} is the data {.arg object} was fitted to" else
    paste0("{trained} of the {length(rows)} ", rows_text, " {cli::qty(trained)}{?is a row/are rows} {.arg object} was fitted to")
  reference_trained <- method == "split" && !is.null(object$reference)
  why <- if (reference_trained) {
    ": those reference readings trained the model, which fits them more closely than new ones, so the intervals may cover new readings less often than {.arg level} says."
  } else if (method == "split") {
    ": the model never saw their reference readings, but was fitted to their sensor readings; if it overfitted them (as without early stopping), it sits closer to the truth there than on new rows, and the intervals come out too narrow for new rows."
  } else {
    ": the model was fitted to their sensor readings and sits closer to them than to new ones, so the scores and the intervals come out too narrow for new rows."
  }
  # Only a reference fit can keep rows out of its training by their reference alone.
  fix <- if (reference_trained) {
    "Hold some reference rows out of the fit (set them to {.code NA} in its data) and calibrate on those."
  } else {
    "Calibrate on rows held out of the fit, such as the calibration rows of {.fn split_blocks}."
  }
  cli::cli_warn(c(paste0(which_rows, why), i = fix), class = c("ncam_warning_in_sample_calibration", "ncam_warning"),
                call = call)
}

# The columns of `data` with units in the units the fit's data gave them (a sensor it converted,
# opc in mg/m3 fused in ug/m3, back in mg/m3; the others in their fused units): the same data
# given in other units of the same quantity has the fit's fingerprint, to its tolerance.
in_training_units <- function(object, data) {
  trained <- object$units
  converted <- attr(trained, "given")
  trained[names(converted)] <- converted
  for (v in intersect(names(trained), names(data))) {
    if (inherits(data[[v]], "units") && !identical(unit_text(data[[v]]), trained[[v]])) {
      data[[v]] <- units::set_units(data[[v]], trained[[v]], mode = "standard")
    }
  }
  data
}
