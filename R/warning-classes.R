# Every class of warning the package gives, with the functions that give it (one row each:
# class, given by, when): the one place they are written down. ?ncam_warnings is made from
# it, and a test checks that every warning in the code carries a class of this table and the
# common class "ncam_warning" (written at each call), and that every class here is in the code.
warning_classes <- do.call(rbind, lapply(list(
  c("ncam_warning_not_converged", "ncam(), ncam_baseline()",
    "the best epoch is the last one (give more epochs), or the factor baseline's likelihood maximisation stopped short"),
  c("ncam_warning_validation_not_improved", "ncam()",
    "training never beat the untrained model on the validation rows"),
  c("ncam_warning_unstable", "ncam()",
    "training never beat the untrained model at all: the loss exploded"),
  c("ncam_warning_clamp", "ncam()",
    paste0("a sensor's noise level sits at the upper bound of logvar_range on a share above ", max_clamped_share,
           " of the training rows (at the lower bound, print() of the fit says so)")),
  c("ncam_warning_grouped_data", "ncam(), ncam_baseline()",
    "a grouped tibble with several groups, whose groups are not read: one model is fitted to all their rows"),
  c("ncam_warning_two_sensors", "ncam()",
    "two sensors without a reference (their noise levels are not identified), or one sensor beside a reference (also class ncam_warning_one_sensor)"),
  c("ncam_warning_one_sensor", "ncam(), ncam_by()",
    "one sensor beside a reference: credible intervals not identified (also class ncam_warning_two_sensors); ncam_by() gives one for all such groups, naming them (field groups)"),
  c("ncam_warning_few_readings", "ncam()",
    "a sensor with few training readings"),
  c("ncam_warning_few_reference_rows", "ncam()",
    paste("a reference observed on fewer than", min_interval_training_rows,
          "training and validation rows: credible intervals too narrow")),
  c("ncam_warning_unlinked_sensor", "ncam()",
    "a sensor read on too few rows beside the anchor, directly or through other sensors"),
  c("ncam_warning_duplicate_sensor", "ncam()",
    "a sensor is an exact linear function of another"),
  c("ncam_warning_units", "ncam()",
    "sensors the fit takes at one scale have spreads so different that their units probably differ"),
  c("ncam_warning_readings_without_units", "ncam(), ncam_baseline()",
    "sensor or reference columns without units beside ones with units all in one unit, taken to be in it (fields columns and assumed)"),
  c("ncam_warning_unknown_unit", "predict() of a fit with unit offsets",
    "rows of units without reference rows in the fit, or with no unit: no offset, the variance of a new unit"),
  c("ncam_warning_unit_time_order", "ncam(), ncam_by() with unit",
    "a unit's reference rows out of time order by a date-time column of the data: offset_sd too small"),
  c("ncam_warning_spikes", "ncam(), predict() and the functions that estimate",
    "gross outliers left out of training, or treated as missing in new data by the same rule"),
  c("ncam_warning_spikes_kept", "ncam()",
    "readings the default spike screen leaves out, kept by a fit with a larger screen_outliers (or Inf)"),
  c("ncam_warning_missing_covariate", "ncam(), predict(), predict_chunks(), fitted(), residuals(), sensor_params()",
    "rows with a missing covariate: left out of training (field rows), without a prediction in new data (also class ncam_row_warning)"),
  c("ncam_warning_dropped_covariate", "ncam()",
    "a covariate constant on the training rows, or text with a single value, left out of the model"),
  c("ncam_warning_unused_level", "ncam()",
    "a factor level seen on no training row"),
  c("ncam_warning_no_validation_rows", "ncam(), ncam_by()",
    "a validation fraction too small to give one row, or a group without validation rows: no early stopping"),
  c("ncam_warning_extrapolation", "predict(), predict_chunks()",
    "rows far outside the calibration range (also class ncam_row_warning)"),
  c("ncam_warning_no_readings", "predict(), predict_chunks(), augment()",
    "rows without any sensor reading, whose estimate is the prior from the covariates (for a baseline: its prior, its Kalman prediction or NA; also class ncam_row_warning)"),
  c("ncam_warning_unseen_level", "predict(), predict_chunks(), model.matrix()",
    "rows with a factor level not seen in training (also class ncam_row_warning)"),
  c("ncam_warning_reading_scale", "predict(), predict_chunks() and the functions that estimate from new data",
    paste0("a sensor column of new data (or its reference column, with use_reference = TRUE) whose median reading lies below the 1st percentile of its training readings over ",
           reading_scale_factor, ", or above their 99th percentile times ", reading_scale_factor, ": other units? (fields columns and medians)")),
  c("ncam_warning_beyond_range", "predict(), predict_chunks()",
    "rows so far outside the training data that the networks cannot compute with them"),
  c("ncam_warning_constant_covariate", "predict(), predict_chunks()",
    "a covariate constant on the training rows, so left out, varies in newdata"),
  c("ncam_warning_nonpositive_reading", "predict(), predict_chunks()",
    "readings <= 0 given to a model fitted to log readings, treated as missing"),
  c("ncam_warning_level_without_interval", "predict(), augment()",
    "a level given with interval = \"none\": no interval is computed"),
  c("ncam_warning_replaced_columns", "augment()",
    "prediction columns of newdata replaced or dropped by the new predictions"),
  c("ncam_warning_update_data_changed", "update() of a fit",
    "the data the call names is no longer the data the fit was made from: the refit uses it as it is now"),
  c("ncam_warning_group_not_fitted", "ncam_by()",
    "groups left without a model by errors = \"skip\""),
  c("ncam_warning_few_periods", "sensor_drift()",
    "too few periods per sensor to judge the variation between them: no test"),
  c("ncam_warning_no_group_model", "predict(), calibrate() and sensor_params() of ncam_by(), sensor_drift()",
    "rows of no group with a model"),
  c("ncam_warning_in_sample_calibration", "calibrate()",
    "the calibration rows were used to fit the model"),
  c("ncam_warning_label_free_calibration", "calibrate()",
    "a conformal method that calibrates against the sensors or model draws, not the reference"),
  c("ncam_warning_small_calibration", "calibrate(); predict() and tidy() of a calibration",
    "too few calibration rows for the level: infinite intervals"),
  c("ncam_warning_heywood", "ncam_baseline(), predict()",
    "an error variance estimated at zero (a Heywood case); predict() repeats it for credible intervals"),
  c("ncam_warning_kalman_row_order", "ncam_baseline(), predict() of ncam_baseline()",
    "method \"kalman\" without order on rows whose time column repeats times (several series stacked): filtered as one series in row order"),
  c("ncam_warning_few_training_rows", "predict() of ncam_baseline()",
    paste("credible intervals of \"ivw\", \"factor\" or \"kalman\" fitted on fewer than",
          min_interval_training_rows, "rows: too narrow")),
  c("ncam_warning_not_identified", "ncam_baseline()",
    "the pairwise differences do not identify every sensor's error variance"),
  c("ncam_warning_weak_gain", "ncam_baseline()",
    "a sensor's gain within 2 standard errors of zero"),
  c("ncam_warning_singular_information", "ncam_baseline()",
    "the information matrix is singular at the estimate: no standard errors"),
  c("ncam_warning_partial_interval", "evaluate_fusion()",
    "pred has one interval bound but not the other: interval metrics skipped"),
  c("ncam_warning_few_pairs", "sensor_performance()",
    "result rows with fewer than 3 complete pairs"),
  c("ncam_warning_assumed_units", "sensor_performance()",
    "a gas (O3, NO2) without units given: taken to be in ppb"),
  c("ncam_warning_uneven_step", "sensor_performance()",
    "a time step that does not divide the averaging period"),
  c("ncam_warning_short_gap", "split_blocks(), split_chronological()",
    "a gap no longer than every spacing of the times, which leaves no time out between splits"),
  c("ncam_warning_short_block", "split_blocks()",
    "a block spanning under 3 steps of the times, which makes the split random by time"),
  c("ncam_warning_empty_split", "split_blocks(), split_chronological(), split_random()",
    "a split that received no rows"),
  c("ncam_warning_small_split", "split_blocks(), split_chronological()",
    "a split left with under half its target rows, the rest within the gap of another split"),
  c("ncam_warning_no_gap_found", "select_gap()",
    "the autocorrelation never falls inside its band up to max_lag"),
  c("ncam_warning_short_series", "select_gap()",
    "groups of series too short for the pooled autocorrelation"),
  c("ncam_warning_unmatched_filter", "read_aqs()",
    "a parameter or site that matches no row (beside others that do)"),
  c("ncam_warning_encoding", "the CSV readers",
    "a file that is not valid UTF-8, decoded as Latin-1"),
  c("ncam_warning_integer_precision", "the readers, join_reference(), sensor_performance(), evaluate_fusion()",
    "integers beyond 2^53, which a double cannot hold exactly"),
  c("ncam_warning_crowded_periods", "join_reference(), sensor_performance(), average_estimates()",
    "readings that come once per period (or per step of a unit's time step), yet some periods hold two (times just before a period's start, a record a second late): sensor_performance() and average_estimates() count such a step once, at its readings' mean"),
  c("ncam_warning_repeated_rows", "read_purpleair(), read_purpleair_aqs(), read_toucan(), ncam(), sensor_drift()",
    "rows repeating the sensor and time of an earlier row (readers), or an earlier row in every column (ncam(), sensor_drift())"),
  c("ncam_warning_missing_columns", "read_senseurcity()",
    "a file lacking columns, read as NA"),
  c("ncam_warning_sht31_order", "read_senseurcity()",
    "no row to tell the SHT31 temperature from its humidity"),
  c("ncam_warning_period_offset", "join_reference(), average_estimates(), sensor_performance()",
    "one reading per day, all stamped the same time into their day: another time zone?"),
  c("ncam_warning_no_overlap", "join_reference()",
    "no sensor row paired with a reference row (times or keys that do not meet)"),
  c("ncam_warning_missing_code", "the readers, join_reference(), sensor_performance(), average_estimates()",
    "values that are missing-value codes (-999, -9999, ...), read as NA"),
  c("ncam_warning_impossible_value", "read_purpleair(), read_purpleair_aqs(), read_toucan(), read_senseurcity()",
    "relative humidities below -10 or above 110 percent, read as NA")
), function(row) data.frame(class = row[1], given_by = row[2], meaning = row[3], stringsAsFactors = FALSE)))

# The classes of the messages of ncam_inform() (each also of class "ncam_message"), as the table
# above: ?ncam_warnings shows them, and a test checks the calls against it.
message_classes <- do.call(rbind, lapply(list(
  c("ncam_message_unpaired_rows", "sensor_performance()",
    "rows without both an estimate and a reference, left out of the pairs (or counted in the means of the column they have)"),
  c("ncam_message_prior_rows", "sensor_performance(), evaluate_fusion()",
    "rows with .n_sensors = 0 (no sensor reading: the estimate is the model's prior), taken without an estimate"),
  c("ncam_message_dropped_rows", "evaluate_fusion()",
    "rows with a missing truth or .pred, dropped"),
  c("ncam_message_units", "sensor_performance(), evaluate_fusion()",
    "a column converted to other units, or taken to be in the units of another"),
  c("ncam_message_time_step", "sensor_performance(), average_estimates()",
    "the time step a unit is judged at, when its stamps wander around it or its reference changes at a coarser one"),
  c("ncam_message_averaging", "sensor_performance()",
    "data already at the time step of an averaging asked for: that block is left out, or holds them as given")
), function(row) data.frame(class = row[1], given_by = row[2], meaning = row[3], stringsAsFactors = FALSE)))

# A message (cli text, evaluated in `.envir`) of class `class`, one of message_classes, and of the
# common class "ncam_message".
ncam_inform <- function(message, class, .envir = parent.frame()) {
  cli::cli_inform(message, class = c(class, "ncam_message"), .envir = .envir)
}

# The Rd of the tables, for ?ncam_warnings.
warning_classes_rd <- function() {
  # No "%" in the table's text: roxygen escapes an escaped one again, and Rd then reads a comment.
  stopifnot(!any(grepl("%", unlist(c(warning_classes, message_classes)), fixed = TRUE)))
  table_rd <- function(table) {
    c("\\tabular{lll}{", "\\strong{class} \\tab \\strong{given by} \\tab \\strong{when} \\cr",
      sprintf("\\code{%s} \\tab %s \\tab %s \\cr", table$class, table$given_by, table$meaning), "}")
  }
  c("@section Classes:", table_rd(warning_classes),
    "@section Messages:",
    paste("The messages of the functions below have a class of their own and the class",
          "\\code{ncam_message}, common to them, so that one kind can be muffled, such as with",
          "\\code{suppressMessages(expr, classes = \"ncam_message_unpaired_rows\")}, or all of them",
          "with \\code{classes = \"ncam_message\"}, while others pass."),
    "", table_rd(message_classes))
}

#' Classes of the warnings, messages and errors ncam gives
#'
#' Every warning ncam gives has a class besides `warning` and `condition`, so
#' that code fitting or scoring many models (loops over sites, [ncam_by()]) can
#' catch or muffle one kind and let the others through. Each also has the class
#' `ncam_warning`, common to all of them, to catch or muffle every warning of
#' ncam at once while those of other packages pass (warnings about rows of new
#' data have a third class, `ncam_row_warning`). [ncam_by()] passes each group's
#' warnings on with their classes, from parallel workers too, the message naming
#' the group.
#'
#' @section Errors:
#' Every error ncam raises itself (about arguments, data, files or fitted
#' objects) has the class `ncam_error`, so that `tryCatch(ncam_error = )` catches
#' them while other errors pass. [ncam_by()] and [predict_chunks()] raise a
#' group's or a chunk's error again as an `ncam_error` naming the group or rows,
#' with the original as its `parent`, from parallel workers too; so does an
#' unknown argument in `...` (rlang's `rlib_error_dots_nonempty`, with
#' `ncam_error` added), a suggested package that is needed but not installed
#' (the message names it, what it is needed for and how to install it), and a
#' failed internal consistency check of the C++ engine (an "Internal error",
#' a bug in ncam to be reported, with the engine's message). Without the class:
#' R's own argument matching (an unused argument of a function without `...`,
#' such as [ncam()]), and errors of R or of other packages that ncam lets
#' through (such as R running out of memory).
#'
#' An argument that a function or method does not take is an error, not
#' ignored: the `...` of ncam's methods must be empty, except that `print()`
#' ignores it, as print methods do, `update()` takes the arguments to change
#' in it and `plot()` graphical parameters (and the methods of fits by group
#' pass it on to each group's). The usual other names of the argument that
#' takes the rows point to it ("Did you mean ...?"): `data` and `new_data` to
#' `newdata` (`predict()`, `augment()`, [sensor_params()], [sensor_drift()]),
#' `newdata` and `new_data` to `data` ([calibrate()], `model.frame()`), and
#' `file` to `path` (the readers, such as [read_toucan()]). A column that the
#' data lacks, named in an argument or a formula, gives an error naming the
#' closest columns: the same but for case (`O3_s3` for `o3_s3`), a few
#' characters off (`air_tmp`), or holding the name (`temp` for `air_temp`);
#' the data's columns are listed when there are 20 or fewer.
#'
#' @eval warning_classes_rd()
#' @name ncam_warnings
#' @aliases ncam_error
#' @examples
#' toy <- simulate_toy(n = 300, seed = 1)
#' # Ten epochs are too few: muffle that warning alone.
#' fit <- withCallingHandlers(
#'   ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy, epochs = 10, seed = 1),
#'   ncam_warning_not_converged = function(w) invokeRestart("muffleWarning")
#' )
#' # A level without an interval warns; muffle every warning of ncam at once (not others'):
#' suppressWarnings(predict(fit, toy[1:5, ], level = 0.9), classes = "ncam_warning")
#' # Catch ncam's errors (here about epochs), not those of R or other packages:
#' tryCatch(ncam(sensor_0 + sensor_1 ~ x1, data = toy, epochs = 0),
#'          ncam_error = function(e) conditionMessage(e))
NULL
