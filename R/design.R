# From a formula and a data frame to what the engine reads: the sensor columns, the anchor,
# and the covariate design, for fitting and again, coded the same way, for new data.

# Sensor column names from the left side of the formula: a + b + c or cbind(a, b, c).
sensor_names <- function(formula, call = parent.frame()) {
  walk <- function(e) {
    if (is.name(e)) return(as.character(e))
    if (is.call(e) && (identical(e[[1]], as.name("+")) || identical(e[[1]], as.name("cbind")))) {
      return(unlist(lapply(as.list(e)[-1], walk)))
    }
    ncam_abort(c("The left side of {.arg formula} must list sensor columns as {.code a + b} or {.code cbind(a, b)}.",
                 x = "Found {.code {deparse(e)}}."), call = call)
  }
  walk(formula[[2]])
}

resolve_anchor <- function(anchor, sensors, parameterization, call = parent.frame()) {
  if (parameterization != "anchored") {
    if (!is.null(anchor)) {
      ncam_abort(c("{.arg anchor} applies to {.code parameterization = \"anchored\"} only, not {.val {parameterization}}.",
                   i = "Leave {.arg anchor} out, or use the anchored parameterization."), call = call)
    }
    return(NULL)
  }
  if (is.null(anchor)) return(sensors[1])
  check_string(anchor, "anchor", call = call)
  if (!anchor %in% sensors) {
    ncam_abort(c("{.arg anchor} must be one of the sensors: {.or {.val {sensors}}}.",
                 x = "{.val {anchor}} is not on the left side of the formula."), call = call)
  }
  anchor
}

# A matrix as a named list of its columns, the form in which ncam() hands covariates and
# readings to the engine (a data frame's own columns need no copy).
as_columns <- function(m) {
  cols <- lapply(seq_len(ncol(m)), function(k) m[, k])
  names(cols) <- colnames(m)
  cols
}

take_rows <- function(cols, idx) lapply(cols, `[`, idx)

# Per row: TRUE when no column is NA; the number of non-NA columns.
rows_without_na <- function(cols, n) Reduce(`&`, lapply(cols, Negate(is.na)), rep(TRUE, n))
n_observed <- function(cols) Reduce(`+`, lapply(cols, Negate(is.na)), 0L)

# Sensor readings in the model scale (log readings for transform = "log") as a named list
# of double columns: the columns of `data` themselves when they are already double and
# untransformed, so the engine reads them without a copy. A reading <= 0 has no log: an error
# in training, a missing reading (with one warning) in prediction, so every row keeps its row.
# `label` names the columns in errors: a reference monitor is not a low-cost sensor; `data_arg`
# the argument that holds them (predict()'s helpers call any rows they read `newdata`).
sensor_columns <- function(data, sensors, transform, training = TRUE, label = "Sensor column",
                           data_arg = if (training) "data" else "newdata", call = parent.frame()) {
  check_single_columns(data, sensors, call, data_arg)
  check_vector_columns(data, sensors, label, call, data_arg)
  cols <- lapply(sensors, function(s) {
    v <- data[[s]]
    v <- all_missing_as_numeric(v)  # a column with no reading at all
    check_numeric_readings(v, s, label, data_arg, call, training = training)
    if (training && all(is.na(v))) {
      ncam_abort(c("{label} {.field {s}} is entirely {.code NA}.", i = "Leave it out of the formula."), leave_out = s, call = call)
    }
    plain_double(v)
  })
  names(cols) <- sensors
  # Infinite and overflowing readings are judged as read: their logs are finite, yet an estimate
  # back-transformed from them is not.
  check_finite_columns(cols, label, call = call)
  if (!training || transform == "log") check_reading_magnitude(cols, label, call)
  if (transform == "log") cols <- log_readings(cols, label, training, call)
  cols
}

# Readings as their logs. A reading <= 0 has no log: an error in training, a missing reading
# (with one warning) in prediction.
log_readings <- function(cols, label, training, call) {
  not_positive <- nonpositive_rows(cols)
  if (length(not_positive)) {
    if (training) abort_nonpositive(not_positive, label, call)
    warn_nonpositive_readings(nonpositive_bullets(not_positive), rows = not_positive, call = call)
  }
  lapply(stats::setNames(nm = names(cols)), function(s) {
    v <- cols[[s]]
    v[not_positive[[s]]] <- NA_real_
    log(v)
  })
}

# Per numeric column with readings <= 0, their rows.
nonpositive_rows <- function(cols) {
  cols <- Filter(function(v) is.numeric(v) && !is.object(v), lapply(cols, function(v) if (inherits(v, "units")) as.numeric(v) else v))
  Filter(length, lapply(cols, function(v) which(!is.na(v) & v <= 0)))
}

# Before a log fit reads any column: the readings <= 0 of the sensors and the reference in one
# error, so that one pass fixes them all.
check_positive_readings <- function(data, columns, call = parent.frame()) {
  not_positive <- nonpositive_rows(data[intersect(columns, names(data))])
  if (length(not_positive)) abort_nonpositive(not_positive, "Column", call)
}

abort_nonpositive <- function(not_positive, label, call) {
  details <- nonpositive_bullets(not_positive)
  ncam_abort(c("{.code transform = \"log\"} needs positive readings, but {tolower(label)}{cli::qty(length(not_positive))}{?s} {.field {names(not_positive)}} {?has/have} readings <= 0:",
               stats::setNames(details, rep("*", length(details))),
               i = "Set them to {.code NA} (a missing reading is handled row by row), or fit with {.code transform = \"none\"}."), call = call)
}

# The bullets of nonpositive_details() for the rows of readings <= 0 per column, numbered as given.
nonpositive_bullets <- function(not_positive) {
  nonpositive_details(lengths(not_positive), lapply(not_positive, function(rows) input_rows(utils::head(rows, 5))))
}

# Per column, its number of readings <= 0 (`counts`, named) and the first of their rows (`shown`,
# numbers or text such as "7 of a.csv"), as bullets.
nonpositive_details <- function(counts, shown) {
  vapply(names(counts), function(s) {
    rows <- paste0(paste(shown[[s]], collapse = ", "), if (counts[[s]] > length(shown[[s]])) ", ..." else "")
    if (counts[[s]] == 1) sprintf("%s: row %s", s, rows) else sprintf("%s: %d rows (%s)", s, counts[[s]], rows)
  }, character(1))
}

# `rows`, per column, the rows of the readings (of the part scored, for predict_chunks()).
warn_nonpositive_readings <- function(details, rows = NULL, call = NULL) {
  details <- gsub("([{}])", "\\1\\1", details)  # text, not cli markup
  cli::cli_warn(c("The model was fitted to log readings, so readings <= 0 are treated as missing:",
                  stats::setNames(details, rep("*", length(details)))),
                class = c("ncam_warning_nonpositive_reading", "ncam_warning"), call = call, rows = rows)
}

# A column used by the model must appear once: with two of one name, which one is meant?
# `data_arg` names the data frame as the hint's code writes it.
check_single_columns <- function(data, cols, call = parent.frame(), data_arg = "data") {
  twice <- intersect(cols, names(data)[duplicated(names(data))])
  if (length(twice)) {
    ncam_abort(c("Column{?s} {.field {twice}} appear{?s/} more than once in the data.",
                 i = "Keep one column of each name (e.g. with {.code {data_arg}[!duplicated(names({data_arg}))]})."),
               call = call)
  }
}

# New readings too large for double precision would give a fused value of the same size with
# a tiny sd; refuse them as training does.
check_reading_magnitude <- function(cols, label = "Sensor column", call = parent.frame()) {
  for (s in names(cols)) {
    big <- rows_outside(cols[[s]], -max_reading_magnitude, max_reading_magnitude)
    if (length(big)) {
      ncam_abort(c("{label} {.field {s}} has a reading of {signif(cols[[s]][big[1]], 3)} in row {input_rows(big[1])}: too large to compute with in double precision.",
                   i = "Check the row for a unit or parsing error, or set it to {.code NA}."), call = call)
    }
  }
}

# A numeric column as plain doubles, the column itself when it already is one. 64-bit
# integers (bit64, as data.table::fread and databases return them) are doubles underneath
# whose bits mean something else: convert them by value.
plain_double <- function(v) {
  if (inherits(v, "integer64")) {
    check_suggested("bit64", "to convert 64-bit integer columns.")
    return(bit64::as.double.integer64(v))
  }
  if (is.double(v) && is.null(attributes(v))) v else as.double(v)
}

# Design of the covariates with full one-hot coding of factors and characters: a list of
# columns, the terms (with the training data's `predvars`, so that poly(), scale() or ns()
# are evaluated on new data with the training coefficients, as lm() does) and the factor
# levels.
build_design <- function(formula, data, sensors, reference = NULL, unit = NULL, call = parent.frame()) {
  check_formula_terms(formula[[3]], call)
  has_dot <- "." %in% all.names(formula[[3]])
  if (has_dot) {
    dot <- dot_columns(data, sensors, unit)
    formula[[3]] <- expand_dot(formula[[3]], dot)
  }
  rhs <- without_removed_variables(stats::delete.response(stats::terms(formula)))
  if (has_dot) check_dot_columns(data, dot, rhs, call)
  parameters <- formula_parameters(rhs, data, call)
  vars <- setdiff(all.vars(rhs), parameters)
  clash <- intersect(vars, sensors)
  if (length(clash)) {
    # The reference comes last in `sensors` (ncam() passes c(sensors, reference)).
    role <- if (!is.null(reference) && clash[1] == reference) "the reference" else "a sensor"
    ncam_abort(c("{.field {clash[1]}} cannot be both {role} and a covariate.",
                 i = "Take it off the formula's right side: a model cannot learn a quantity from itself."),
               call = call)
  }
  check_single_columns(data, vars, call)
  check_vector_columns(data, vars, "Covariate", call)
  check_real_covariates(data, vars, call)
  check_unsupported_terms(rhs, call)
  data <- integer64_by_value(data, vars)
  check_covariate_values(data, vars, rhs, call)
  check_no_bare_dates(data, attr(rhs, "term.labels"), call)
  kept <- drop_single_value_terms(rhs, data, call)
  # The value of each text covariate left out for having one, for predict() to compare with.
  single <- setdiff(attr(rhs, "term.labels"), attr(kept, "term.labels"))
  constant_values <- lapply(stats::setNames(single, single), function(v) as.character(stats::na.omit(data[[v]])[1]))
  rhs <- kept
  if (plain_covariates(rhs, data)) {
    x <- covariate_columns(data, attr(rhs, "term.labels"), call)
    return(list(terms = rhs, xlevels = list(), x = x, covariates = names(x), constant_values = constant_values))
  }
  mf <- stats::model.frame(rhs, data, na.action = stats::na.pass)
  rhs <- attr(mf, "terms")
  for (v in names(mf)) if (is.character(mf[[v]])) mf[[v]] <- factor(mf[[v]])
  xlevels <- stats::.getXlevels(rhs, mf)
  x <- as_columns(design_matrix(rhs, mf, call = call))
  # Kept for predict(): these are looked up in the fit's environment, never in newdata.
  parameters <- intersect(parameters, all.vars(rhs))
  if (length(parameters)) attr(rhs, "parameters") <- parameters
  # The frame stays until drop_unused_levels() has seen which levels the training rows hold.
  list(terms = rhs, xlevels = xlevels, x = x, covariates = names(x), constant_values = constant_values,
       frame = if (length(xlevels)) mf)
}

# TRUE when every term of the formula's right side is a numeric column of `data` on its own
# (no factor, transformation or interaction): the design is then those columns.
plain_covariates <- function(rhs, data) {
  vars <- all.vars(rhs)
  labels <- attr(rhs, "term.labels")
  identical(sort(labels), sort(vars)) && all(vapply(data[vars], is.numeric, logical(1)))
}

# Plain numeric covariates as a named list of double columns (integers converted), after
# checking for infinite values.
covariate_columns <- function(data, covariates, call = parent.frame()) {
  x <- lapply(data[covariates], plain_double)
  names(x) <- covariates
  check_finite_columns(x, "Covariate", call = call)
  check_covariate_magnitude(x, call)
  x
}

design_matrix <- function(rhs, mf, call = parent.frame()) {
  factors <- names(mf)[vapply(mf, is.factor, logical(1))]
  contrasts <- lapply(mf[factors], function(f) stats::contrasts(f, contrasts = FALSE))
  x <- stats::model.matrix(rhs, mf, contrasts.arg = if (length(contrasts)) contrasts)
  # model.matrix() names the rows "1", "2", ...: text per row, which every subset of a column
  # (the training rows, a block of rows) would copy.
  dimnames(x) <- list(NULL, colnames(x))
  x <- x[, colnames(x) != "(Intercept)", drop = FALSE]
  storage.mode(x) <- "double"
  columns <- as_columns(x)
  check_finite_columns(columns, "Covariate", call = call)
  check_covariate_magnitude(columns, call)
  attr(x, "assign") <- NULL
  attr(x, "contrasts") <- NULL
  x
}

# The covariates as the user wrote them, for printed output: the formula's terms (without R's
# backticks) that still have a column in the design (a constant one is dropped in training).
# object$covariates are the design's columns (one per factor level, "wetTRUE" for a logical).
covariate_labels <- function(object) {
  labels <- attr(object$terms, "term.labels")
  kept <- vapply(labels, function(label) any(startsWith(object$covariates, label)), logical(1))
  plain_names(labels[kept])
}

# A covariate that was logical in training and is 0/1 in newdata (or a 0/1 flag in training
# given as TRUE/FALSE, as files and databases store flags either way) is converted; other
# numbers for a logical, TRUE/FALSE for a measurement, and date-times or other types for a
# number are errors, as ncam() refuses a date-time covariate.
match_covariate_types <- function(object, newdata, vars, call = parent.frame()) {
  # Terms without data classes come from the plain path: every covariate was numeric.
  trained <- attr(object$terms, "dataClasses")
  if (is.null(trained)) trained <- stats::setNames(rep("numeric", length(vars)), vars)
  for (v in intersect(names(trained), vars)) {
    x <- newdata[[v]]
    if (trained[[v]] == "logical" && is.numeric(x)) {
      if (!all(x %in% c(0, 1, NA))) {
        ncam_abort(c("Column {.field {v}} of {.arg newdata} holds numbers other than 0 and 1, but it was logical ({.code TRUE}/{.code FALSE}) in training.",
                     i = "Give it as {.code TRUE}/{.code FALSE} (or 1/0)."), call = call)
      }
      newdata[[v]] <- as.logical(x)
    } else if (trained[[v]] == "numeric" && !is.numeric(x)) {
      newdata[[v]] <- numeric_covariate(object, x, v, call)
    }
  }
  newdata
}

# A column of newdata for a covariate that was numeric in training: all NA (as a file reader
# reads an empty column) or TRUE/FALSE for a 0/1 flag become numbers. Fits saved before flags
# were recorded (no `flag_columns`) take TRUE/FALSE as 0/1, as they did.
numeric_covariate <- function(object, x, v, call) {
  flag <- is.null(object$flag_columns) || v %in% object$flag_columns
  if (is.logical(x) && (flag || all(is.na(x)))) return(as.numeric(x))
  if (is.logical(x)) {
    ncam_abort(c("Column {.field {v}} of {.arg newdata} is logical ({.code TRUE}/{.code FALSE}), but it was numeric in training, with values other than 0 and 1.",
                 i = "Give {.field {v}} as the numbers it measures."), call = call)
  }
  if (inherits(x, "difftime")) {
    ncam_abort(c("Column {.field {v}} of {.arg newdata} is a duration ({.cls difftime}, in {units(x)}), but it was numeric in training.",
                 i = "Give it as the numbers it held in training, such as {.code as.numeric({v}, units = \"hours\")} if it held hours."), call = call)
  }
  if (inherits(x, c("Date", "POSIXt"))) {
    ncam_abort(c("Column {.field {v}} of {.arg newdata} is a date-time ({.cls {class(x)[1]}}), but it was numeric in training: it would enter as a count of days or seconds.",
                 i = "Give {.field {v}} as the numbers it held in training."), call = call)
  }
  ncam_abort(c("Column {.field {v}} of {.arg newdata} is {.obj_type_friendly {x}}, but it was numeric in training.",
               i = "Give {.field {v}} as real numbers."), call = call)
}

# Design column names without R's backticks (`air temp`), for messages and printed tables.
plain_names <- function(names) gsub("`", "", names, fixed = TRUE)

# Covariate design for new data, coded as in training: a matrix, or for plain numeric
# covariates a list of their columns.
new_design <- function(object, newdata, call = parent.frame()) {
  vars <- model_columns(object$terms)
  check_columns(newdata, vars, "object", call = call, data_arg = "newdata")
  check_single_columns(newdata, vars, call, "newdata")
  check_vector_columns(newdata, vars, "Covariate", call, "newdata")
  newdata <- integer64_by_value(newdata, vars)
  text <- vars[!vars %in% factor_term_columns(object) &
                 vapply(vars, function(v) is.character(newdata[[v]]) || is.factor(newdata[[v]]), logical(1))]
  if (length(text)) {
    # Text "TRUE"/"FALSE" (a logical flag written to a file and read back) is not a number.
    logical_text <- text[vapply(text, function(v) all(toupper(as.character(newdata[[v]])) %in% c("TRUE", "FALSE", NA)), logical(1))]
    fix <- if (length(logical_text)) "Convert {.field {logical_text}} with {.code as.logical()}: as.numeric() of {.val TRUE} is {.code NA}." else
      "Convert {cli::qty(length(text))}{?it/them} with {.code as.numeric()}."
    ncam_abort(c("Column{?s} {.field {text}} of {.arg newdata} {?is/are} text or a factor, but {?it was/they were} numeric in training.",
                 i = fix), call = call)
  }
  newdata <- match_covariate_types(object, newdata, vars, call)
  if (length(object$xlevels) == 0L && plain_covariates(object$terms, newdata)) {
    warn_constant_covariates(object, newdata, newdata, call)
    # The design is the columns themselves, read in place by the engine.
    return(covariate_columns(newdata, object$covariates, call))
  }
  # A parameter (k in poly(x1, k)) is the fit's, even where newdata has a column of its name.
  for (name in intersect(attr(object$terms, "parameters"), names(newdata))) newdata[[name]] <- NULL
  # xlevels are named by the frame's variables (sitef, or factor(site)): evaluated on newdata
  # first, then set to the training levels; a level not seen in training makes the row NA.
  mf <- at_training_levels(new_model_frame(object$terms, newdata, call), object$xlevels)
  x <- design_matrix(object$terms, mf, call = call)
  warn_constant_covariates(object, x, newdata, call)
  x <- x[, object$covariates, drop = FALSE]
  unseen <- attr(mf, "unseen")
  if (length(unseen)) {
    warn_unseen_levels(unseen, newdata)
    # For ncam_posterior(): these rows are not counted as rows with a missing covariate.
    attr(x, "unseen_rows") <- sort(unique(unlist(lapply(unseen, `[[`, "rows"))))
  }
  x
}

# A covariate constant on the training rows was left out of the model, so its values in new
# data change nothing: say so when they differ from the training value. A design column is
# looked up in the design `x`, a text covariate left out of the terms in newdata.
warn_constant_covariates <- function(object, x, newdata, call) {
  for (name in names(object$constant_values)) {
    value <- object$constant_values[[name]]
    in_design <- name %in% (if (is.matrix(x)) colnames(x) else names(x))
    column <- if (!in_design) newdata[[name]] else if (is.matrix(x)) x[, name] else x[[name]]
    if (is.character(value)) column <- as.character(column)
    other <- which(!is.na(column) & column != value)
    if (length(other)) warn_constant_covariate(name, value, length(other), input_rows(other[1]), column[other[1]], other, call = call)
  }
}

# `n` rows of `of` hold another value of covariate `name` than `value`, its value in training;
# the first of them is row `first_row` (a number, or text such as "200 of a.csv"), holding
# `first_value`. `rows`: their rows (of the part scored, for predict_chunks()).
warn_constant_covariate <- function(name, value, n, first_row, first_value, rows = NULL, of = "{.arg newdata}",
                                    call = NULL) {
  shown_n <- format(n, scientific = FALSE)  # a sum over chunks is a double: not as 1e+05
  cli::cli_warn(c(paste0("Covariate {.field {name}} was {value} on every training row, so the model left it out; {shown_n} {cli::qty(n)}row{?s} of ", of, " {?has/have} other values (row {first_row}: {first_value}), which the predictions ignore."),
                  i = "Fit on data where {.field {name}} varies for the model to use it."),
                class = c("ncam_warning_constant_covariate", "ncam_warning"), call = call,
                covariate = name, training_value = value, first_value = first_value, rows = rows)
}
