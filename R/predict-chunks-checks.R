# Checks of the arguments of predict_chunks(), in the main process before any input is read.

# The predict() method's own arguments, so a misspelt one fails here rather than on a worker.
check_predict_args <- function(object, args, call = parent.frame()) {
  calibration <- inherits(object, c("ncam_calibration", "ncam_by_calibration"))
  method <- if (calibration) predict.ncam_calibration else predict.ncam  # that of each group's model, by group
  allowed <- setdiff(names(formals(method)), c("object", "newdata", "threads", "..."))
  bad <- setdiff(names(args), allowed)
  if (length(args) && (is.null(names(args)) || any(!nzchar(names(args))) || length(bad))) {
    ncam_abort(c("{.arg ...} must hold named arguments of {.fn predict} for this object.",
                 i = "Allowed: {.arg {allowed}}; unknown: {.arg {if (length(bad)) bad else '(unnamed)'}}."),
               call = call)
  }
  # Checked before any file is read, where the method would blame the first rows.
  if ("level" %in% names(args)) check_scalar_level(args$level, call)
  if ("interval" %in% names(args)) match_choice(args$interval, c("none", "credible", "prediction"), "interval", call)
  no_interval <- is.null(args$interval) || identical(args$interval, "none")
  if (!calibration && "level" %in% names(args) && no_interval) {
    warn_level_without_interval(call)
  }
  args
}

check_input_files <- function(input, call = parent.frame()) {
  if (is.data.frame(input)) {
    ncam_abort(c("{.arg input} must be file paths or a function returning chunks, not a data frame.",
                 i = "A data frame in memory is scored by {.fn predict} directly."), call = call)
  }
  if (is.list(input) && all(lengths(input) == 1L)) input <- unlist(input, use.names = FALSE)
  if (!is.character(input) || length(input) == 0L || anyNA(input)) {
    ncam_abort("{.arg input} must be file paths or a function returning chunks, not {.obj_type_friendly {input}}.",
               call = call)
  }
  folders <- input[dir.exists(input)]
  if (length(folders)) {
    ncam_abort(c("{.arg input} names {length(folders)} folder{?s}, not {?a file/files}: {.file {utils::head(folders, 5)}}.",
                 i = "Pass the files in it, such as {.code list.files(folder, full.names = TRUE)}."),
               call = call)
  }
  missing <- input[!file.exists(input)]
  if (length(missing)) {
    ncam_abort("{.arg input} names {length(missing)} file{?s} that do{?es/} not exist: {.file {utils::head(missing, 5)}}.",
               call = call)
  }
  if (any(grepl("\\.parquet$", input, ignore.case = TRUE))) check_parquet_reader(call)
  normalizePath(input)
}

# Kept columns go in front of the prediction's, so each may appear once and none may take the
# name of a prediction column (those of predict() on no rows, with the same arguments).
check_keep <- function(keep, task, call = parent.frame()) {
  if (!is.character(keep) || anyNA(keep) || !all(nzchar(keep))) {
    ncam_abort("{.arg keep} must be a character vector of column names.", call = call)
  }
  repeated <- unique(keep[duplicated(keep)])
  if (length(repeated)) {
    ncam_abort("{.arg keep} names column{?s} {.val {repeated}} more than once.", call = call)
  }
  if (length(keep) == 0L) return(keep)
  predicted <- names(score_chunk(c(task, list(chunk = empty_input(task), first_row = 1)))$value)
  clash <- intersect(keep, predicted)
  if (length(clash)) {
    ncam_abort(c("{.arg keep} must not name a prediction column; it names {.val {clash}}.",
                 i = "The prediction columns are {.val {predicted}}: rename the input column or leave it out of {.arg keep}."),
               call = call)
  }
  keep
}

# One output CSV per input, named after it; clashes and existing files are refused.
output_paths <- function(files, output, overwrite, call = parent.frame()) {
  if (!dir.exists(output) && !dir.create(output, recursive = TRUE, showWarnings = FALSE)) {
    ncam_abort("{.arg output} must be a folder that exists or can be created, not {.file {output}}.", call = call)
  }
  stem <- sub("\\.(csv|txt|parquet)$", "", sub("\\.(gz|bz2|xz)$", "", basename(files), ignore.case = TRUE), ignore.case = TRUE)
  out <- file.path(normalizePath(output), paste0(stem, ".csv"))
  clash <- unique(out[duplicated(out)])
  if (length(clash)) {
    ncam_abort("Input files of the same name would write the same output file{?s} {.file {basename(clash)}}; give them distinct names.",
               call = call)
  }
  if (!overwrite && any(file.exists(out))) {
    ncam_abort(c("{.arg output} already holds {.file {basename(out[file.exists(out)])}}.",
                 i = "Use another folder or {.code overwrite = TRUE}."), call = call)
  }
  out
}

# `units`: NULL, or a named list (or character vector) of unit strings for columns the fit read
# with units (`fit$units`), each convertible to the column's unit there; as a named character
# vector. CSV files hold plain numbers: this says what unit they are in.
check_chunk_units <- function(units, object, call = parent.frame()) {
  if (is.null(units)) return(NULL)
  single_strings <- (is.list(units) || is.character(units)) && length(units) > 0L &&
    all(vapply(units, function(u) is.character(u) && length(u) == 1L && !is.na(u) && nzchar(u), logical(1)))
  if (!single_strings || is.null(names(units)) || anyNA(names(units)) || !all(nzchar(names(units)))) {
    ncam_abort(c("{.arg units} must be a named list of unit strings, one per column, not {.obj_type_friendly {units}}.",
                 i = "Such as {.code units = list(opc = \"mg/m3\")}: the unit of the numbers of column {.field opc}."),
               call = call)
  }
  repeated <- unique(names(units)[duplicated(names(units))])
  if (length(repeated)) ncam_abort("{.arg units} names column{?s} {.field {repeated}} more than once.", call = call)
  fitted <- chunk_fit(object)$units
  unknown <- setdiff(names(units), names(fitted))
  if (length(unknown)) {
    ncam_abort(c("{.arg units} names column{?s} {.field {unknown}}, which the model did not read with units.",
                 i = if (length(fitted)) "Columns it read with units: {.field {names(fitted)}}." else
                   "It was fitted to plain numbers: give those in the units of the training data, without {.arg units}."),
               call = call)
  }
  check_suggested("units", "to give columns units.", call = call)
  for (v in names(units)) {
    one <- tryCatch(units::set_units(1, units[[v]], mode = "standard"), error = function(e) NULL)
    if (is.null(one)) {
      ncam_abort("{.arg units} gives column {.field {v}} the unit {.val {units[[v]]}}, which the units package does not know.",
                 call = call)
    }
    convert_units(one, fitted[[v]], c(
      "{.arg units} gives column {.field {v}} the unit {.val {units[[v]]}}, which cannot be converted to {.val {fitted[[v]]}}, its unit in the fit.",
      i = "Give the unit of the column's numbers, one of the same quantity."), call)
  }
  unlist(units)
}

# Columns the fit matches as codes: the unit column of a fit with unit offsets and the columns of
# factor or text covariates, those of them with a code that read as a number would not give back
# (site "0101259" read as 101259 is a unit, or level, the fit never saw).
code_columns <- function(model) {
  # Levels are named by the frame's variables, `site` or `factor(site)`: by the one column there.
  of_column <- vapply(names(model$xlevels), function(v) {
    column <- intersect(all.vars(str2lang(v)), model_columns(model$terms))
    if (length(column) == 1L) column else NA_character_
  }, character(1))
  codes <- stats::setNames(model$xlevels, of_column)[!is.na(of_column)]
  unit <- model$unit_offsets$unit
  if (!is.null(unit)) codes[[unit]] <- key_text(model$unit_offsets$table[[unit]])
  as_number_differs <- vapply(codes, function(code) {
    any(!is.na(code) & is.na(suppressWarnings(as.numeric(code)))) || any(number_rewrites_code(code))
  }, logical(1))
  names(codes)[as_number_differs]
}
