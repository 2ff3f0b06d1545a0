# Every class of warning the package gives, with the functions that give it: the one place
# they are written down. ?ncam_warnings is made from it, and a test checks that every warning
# in the code carries a class of this table and that every class here is in the code.
warning_classes <- data.frame(
  class = c(
    "ncam_warning_not_converged", "ncam_warning_validation_not_improved", "ncam_warning_unstable",
    "ncam_warning_clamp", "ncam_warning_two_sensors", "ncam_warning_few_readings",
    "ncam_warning_unlinked_sensor", "ncam_warning_duplicate_sensor", "ncam_warning_units",
    "ncam_warning_spikes", "ncam_warning_missing_covariate", "ncam_warning_dropped_covariate",
    "ncam_warning_unused_level", "ncam_warning_no_validation_rows", "ncam_extrapolation", "ncam_missing_covariate",
    "ncam_warning_unseen_level", "ncam_warning_beyond_range", "ncam_warning_constant_covariate",
    "ncam_nonpositive_reading", "ncam_warning_replaced_columns", "ncam_warning_group_not_fitted",
    "ncam_warning_no_group_model", "ncam_warning_in_sample_calibration",
    "ncam_warning_label_free_calibration", "ncam_warning_small_calibration",
    "ncam_warning_heywood", "ncam_warning_not_identified", "ncam_warning_weak_gain",
    "ncam_warning_singular_information", "ncam_warning_partial_interval",
    "ncam_warning_few_pairs", "ncam_warning_uneven_step", "ncam_warning_short_gap",
    "ncam_warning_empty_split", "ncam_warning_no_gap_found", "ncam_warning_short_series",
    "ncam_warning_unmatched_filter", "ncam_warning_encoding", "ncam_warning_integer_precision",
    "ncam_warning_repeated_rows", "ncam_warning_missing_columns", "ncam_warning_sht31_order",
    "ncam_warning_no_overlap"
  ),
  given_by = c(
    "ncam(), ncam_baseline()", "ncam()", "ncam()",
    "ncam()", "ncam()", "ncam()",
    "ncam()", "ncam()", "ncam()",
    "ncam()", "ncam()", "ncam()",
    "ncam()", "ncam()", "predict()", "predict()",
    "predict()", "predict()", "predict()",
    "predict()", "augment()", "ncam_by()",
    "predict() of ncam_by()", "calibrate()",
    "calibrate()", "calibrate()",
    "ncam_baseline(), predict()", "ncam_baseline()", "ncam_baseline()",
    "ncam_baseline()", "evaluate_fusion()",
    "sensor_performance()", "sensor_performance()", "split_blocks(), split_chronological()",
    "split_blocks(), split_chronological(), split_random()", "select_gap()", "select_gap()",
    "read_aqs()", "the CSV readers", "the CSV readers",
    "read_purpleair()", "read_senseurcity()", "read_senseurcity()",
    "join_reference()"
  ),
  meaning = c(
    "the best epoch is the last one (give more epochs), or the factor baseline's likelihood maximisation stopped short",
    "training never beat the untrained model on the validation rows",
    "training never beat the untrained model at all: the loss exploded",
    "a sensor's noise level sits at a bound of logvar_range on many rows",
    "two sensors without a reference (their noise levels are not identified), or one sensor beside a reference",
    "a sensor with few training readings",
    "a sensor never read beside the anchor, directly or through other sensors",
    "a sensor is an exact linear function of another",
    "sensors' spreads differ so much that their units probably differ",
    "gross outliers left out of training",
    "rows with a missing covariate left out of training (field rows)",
    "a covariate constant on the training rows, or text with a single value, left out of the model",
    "a factor level seen on no training row",
    "a validation fraction too small to give one row: no early stopping",
    "rows far outside the calibration range (also class ncam_row_warning)",
    "rows without a prediction for a missing covariate (also class ncam_row_warning)",
    "rows with a factor level not seen in training (also class ncam_row_warning)",
    "rows so far outside the training data that the networks cannot compute with them",
    "a covariate constant on the training rows, so left out, varies in newdata",
    "readings <= 0 given to a model fitted to log readings, treated as missing",
    "columns of newdata replaced by the new predictions",
    "groups left without a model by errors = \"skip\"",
    "rows of no group with a model",
    "the calibration rows were used to fit the model",
    "a conformal method that calibrates against the sensors or model draws, not the reference",
    "too few calibration rows for the level: infinite intervals",
    "an error variance estimated at zero (a Heywood case); predict() repeats it for credible intervals",
    "the pairwise differences do not identify every sensor's error variance",
    "a sensor's gain within 2 standard errors of zero",
    "the information matrix is singular at the estimate: no standard errors",
    "pred has one interval bound but not the other: interval metrics skipped",
    "result rows with fewer than 3 complete pairs",
    "a time step that does not divide the averaging period",
    "a gap shorter than every spacing of the times, which separates nothing",
    "a split that received no rows",
    "the autocorrelation never falls inside its band up to max_lag",
    "groups of series too short for the pooled autocorrelation",
    "a parameter or site that matches no row (beside others that do)",
    "a file that is not valid UTF-8, decoded as Latin-1",
    "integers beyond 2^53, which a double cannot hold exactly",
    "rows repeating the sensor and time of an earlier row",
    "a file lacking columns, read as NA",
    "no row to tell the SHT31 temperature from its humidity",
    "no sensor row paired with a reference row (times or keys that do not meet)"
  ),
  stringsAsFactors = FALSE
)

# The Rd of the table, for ?ncam_warnings.
warning_classes_rd <- function() {
  rows <- sprintf("\\code{%s} \\tab %s \\tab %s \\cr", warning_classes$class,
                  warning_classes$given_by, gsub("%", "\\\\%", warning_classes$meaning))
  c("@section Classes:", "\\tabular{lll}{", "\\strong{class} \\tab \\strong{given by} \\tab \\strong{when} \\cr",
    rows, "}")
}

#' Classes of the warnings ncam gives
#'
#' Every warning ncam gives has a class besides `warning` and `condition`, so
#' that code fitting or scoring many models (loops over sites, [ncam_by()]) can
#' catch or muffle one kind and let the others through. [ncam_by()] passes each
#' group's warnings on with their classes, the message naming the group.
#'
#' @eval warning_classes_rd()
#' @name ncam_warnings
#' @examples
#' toy <- simulate_toy(n = 300, seed = 1)
#' # Ten epochs are too few: muffle that warning alone.
#' fit <- withCallingHandlers(
#'   ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy, epochs = 10, seed = 1),
#'   ncam_warning_not_converged = function(w) invokeRestart("muffleWarning")
#' )
NULL
