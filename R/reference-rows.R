# A reference monitor as the anchor (ncam(reference =)): its column checked, and the rows that
# can teach its noise.

# The reference instrument's readings, checked, as one more (anchor) sensor column; it needs
# enough readings to learn its noise level.
reference_readings <- function(reference, data, sensors, anchor, parameterization, transform,
                               call = parent.frame()) {
  check_reference(reference, data, sensors, anchor, parameterization, call)
  if (all(is.na(data[[reference]]))) {
    ncam_abort(c("Reference column {.field {reference}} is never observed: it is {.code NA} on every row.",
                 i = paste0("Check the join that brought it in (its times, keys and time zone: {.fn join_reference} warns when no row paired)", label_free_hint(sensors), ".")),
               leave_out = reference, leave_out_of = "reference", call = call)
  }
  col <- sensor_columns(data, reference, transform, label = "Reference column", call = call)
  n_obs <- sum(!is.na(col[[1]]) & n_observed(lapply(sensors, function(s) data[[s]])) > 0L)  # as colocated_rows() counts
  if (n_obs < min_reference_rows) {
    alone <- sum(!is.na(col[[1]])) - n_obs
    ncam_abort(c("Reference column {.field {reference}} is observed beside the sensors on {n_obs} row{?s}; at least {min_reference_rows} are needed to learn its noise level.",
                 i = if (alone > 0) "{alone} more row{?s} read the reference without any sensor reading, which tell{?s/} nothing of its noise.",
                 i = paste0("Give a longer co-location period", label_free_hint(sensors), ".")),
               leave_out = reference, leave_out_of = "reference", call = call)
  }
  col
}

# A label-free fit needs two sensors or more: one sensor has nothing to be calibrated by, and
# needs a model fitted where a reference read beside it.
label_free_hint <- function(sensors) {
  if (length(sensors) >= 2L) ", or leave {.arg reference} out for a label-free fit" else
    paste0("; ", one_sensor_without_reference)
}

one_sensor_without_reference <- paste(
  "one sensor cannot be fitted without a reference (label-free fits need two or more): fit it on rows",
  "where a reference monitor read beside it and estimate these rows with that fit ({.code predict(fit, newdata = <these rows>)})"
)

# `reference` as far as the column names and the other arguments decide: a column of `data`
# off the formula's left side, with no `anchor` (as given) and the anchored parameterization.
check_reference <- function(reference, data, sensors, anchor, parameterization, call = parent.frame()) {
  if (reference %in% sensors) {
    ncam_abort(c("{.arg reference} column {.field {reference}} is also a sensor on the left side of {.arg formula}.",
                 i = "Leave the reference monitor off the formula: {.arg reference} makes it the anchor."),
               call = call)
  }
  if (!is.null(anchor)) {
    ncam_abort(c("{.arg anchor} must be {.code NULL} when {.arg reference} is given.",
                 i = "The reference monitor {.field {reference}} is the anchor (a = 1, c = 0)."), call = call)
  }
  if (parameterization != "anchored") {
    ncam_abort("{.arg reference} needs {.code parameterization = \"anchored\"}, not {.val {parameterization}}.",
               call = call)
  }
  check_columns(data, reference, "reference", call = call)
}

# Fewest reference readings accepted: below this its noise head has too little to learn from.
min_reference_rows <- 20L

# Co-location rows: the reference read beside at least one low-cost sensor. Only they tell the
# reference's noise from the spread of the true value; a reference reading alone informs the
# prior, and is not counted.
colocated_rows <- function(readings, reference) {
  !is.na(readings[[reference]]) & n_observed(readings[names(readings) != reference]) > 0L
}

# A random validation draw (`validation` a fraction) can take so many co-location rows that
# fewer than min_reference_rows train though enough exist: whether a short co-location fits
# would then depend on the seed. Such a draw gives just enough of them back to training, chosen
# with the fit's seed; a draw that leaves enough is kept as it is. Validation rows given as rows
# are the caller's choice (check_reference_training_rows() says what to change).
reference_rows_to_training <- function(validation_rows, usable, readings, reference, seed) {
  colocated <- which(usable & colocated_rows(readings, reference))
  missing_rows <- min_reference_rows - sum(!validation_rows[colocated])
  if (missing_rows <= 0L || length(colocated) < min_reference_rows) return(validation_rows)
  drawn <- colocated[validation_rows[colocated]]
  validation_rows[with_local_seed(seed, drawn[sample.int(length(drawn), missing_rows)])] <- FALSE
  validation_rows
}

# The reference's noise is learned on the training rows: a validation choice that takes most of
# the co-location rows (a time split of a short co-location) leaves too few. Enough of them
# may still be too few for credible intervals (warn_few_reference_rows()).
check_reference_training_rows <- function(readings, rows, reference, call = parent.frame()) {
  colocated <- colocated_rows(readings, reference)
  observed <- readings[[reference]][rows$train][colocated[rows$train]]
  n_train <- length(observed)
  n_validation <- sum(colocated[rows$validation])
  if (n_train >= min_reference_rows) {
    check_reference_varies(observed, reference, setdiff(names(readings), reference), call)
    return(warn_few_reference_rows(n_train + n_validation, reference))
  }
  ncam_abort(c("Reference column {.field {reference}} is observed beside the sensors on {n_train} training row{?s} ({n_validation} more {?is a/are} validation row{?s}); at least {min_reference_rows} training rows are needed to learn its noise level.",
               i = "Take fewer validation rows from the co-location period, or {.code validation = 0}."),
             call = call)
}

# Credible intervals take the calibration learned from the reference rows as known, which it is
# not with few of them: with 40 rows 90 % intervals held the truth 5-28 % of the time, while
# prediction intervals stayed near 90 % only because the reference's noise swells. The same
# row count as the baselines' (min_interval_training_rows), for the same reason.
warn_few_reference_rows <- function(n_reference, reference) {
  if (n_reference >= min_interval_training_rows) return(invisible())
  cli::cli_warn(c("Reference column {.field {reference}} is observed beside the sensors on only {n_reference} training and validation row{?s}: credible intervals ignore the error of a calibration learned from so few, and cover the truth far less often than their level.",
                  i = "Judge intervals by {.code calibrate(method = \"split\")} on co-location rows held back from the fit, or give a longer co-location period (at least {min_interval_training_rows} rows)."),
                class = c("ncam_warning_few_reference_rows", "ncam_warning"), call = NULL)
}
