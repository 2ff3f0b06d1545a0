# Shared argument checks. Each names the argument (and the column or row) at fault,
# with the caller's call so the message points at the user's code.

# cli::cli_abort() with the class ncam_error common to all of ncam's errors, so that
# tryCatch(ncam_error = ) catches them and lets other errors pass. The message is glued in the
# caller's frame, and names the caller's call unless `call` says otherwise. The class goes after
# rlang_error, so that the first class (which snapshot tests show) stays the call's own: rlang
# puts every class given before rlang_error, hence the error is caught here and signalled again.
ncam_abort <- function(message, ..., class = NULL, call = .envir, .envir = parent.frame()) {
  caller <- parent.frame()
  cnd <- rlang::catch_cnd(cli::cli_abort(message, ..., class = c(class, "ncam_error"), call = call,
                                         .envir = .envir), "ncam_error")
  cnd <- with_ncam_error_class(cnd)
  # The backtrace of the caller, without the frames of catching the condition here.
  cnd$trace <- rlang::trace_back(bottom = caller)
  rlang::cnd_signal(cnd)
}

# An rlang error with the class ncam_error just after rlang_error: the classes before it (its
# own, which snapshot tests show first) stay as they were.
with_ncam_error_class <- function(cnd) {
  own <- setdiff(class(cnd), "ncam_error")
  class(cnd) <- append(own, "ncam_error", after = match("rlang_error", own))
  cnd
}

# rlang::check_installed() (which offers to install the package in an interactive session),
# its error raised again as one of ncam's, saying how to install the package.
check_suggested <- function(pkg, reason, call = parent.frame()) {
  tryCatch(rlang::check_installed(pkg, reason = reason, call = call),
           rlib_error_package_not_found = function(e) {
             ncam_abort(c("Package {.pkg {pkg}} is needed {reason}",
                          i = "Install it with {.code install.packages(\"{pkg}\")}."),
                        pkg = pkg, call = call)
           })
}

# `expr`, a call of the C++ engine (a function of R/RcppExports.R). The engine's checks
# (Rcpp::stop() in src/ncam_glue.cpp, exceptions of src/ncam/, which Rcpp turns into errors of
# class C++Error) guard what the checks in R make sure of: one that fires is a bug in ncam, and
# its error says so, with the engine's text. Running out of memory is not a bug.
call_engine <- function(expr, call = parent.frame()) {
  tryCatch(expr, "C++Error" = function(e) {
    problem <- conditionMessage(e)
    if (inherits(e, "std::bad_alloc")) {
      ncam_abort(c("ncam's engine ran out of memory ({problem}).", i = "Free memory, or give it fewer rows at a time."),
                 call = call)
    }
    ncam_abort(c("Internal error in ncam's engine: {problem}",
                 i = "This is a bug in ncam. Please report it at {.url https://github.com/ncam-dev/ncam/issues}, with code that reproduces it."),
               call = call)
  })
}

check_data_frame <- function(x, arg = rlang_arg(x), call = parent.frame()) {
  if (!is.data.frame(x)) {
    ncam_abort("{.arg {arg}} must be a data frame, not {.obj_type_friendly {x}}.", call = call)
  }
  invisible(x)
}

# Scalar number in [min, max]; `integer = TRUE` also demands a whole number.
check_number <- function(x, arg, min = -Inf, max = Inf, integer = FALSE,
                         allow_null = FALSE, call = parent.frame()) {
  if (is.null(x) && allow_null) return(invisible(x))
  what <- if (integer) "a whole number" else "a number"
  # A tiny positive bound (.Machine$double.xmin) means "above 0": said so, not as 2.2e-308.
  positive <- min > 0 && min < 1e-100
  if (positive) what <- paste("a positive", sub("^a ", "", what))
  range_txt <- if (positive) {
    if (is.finite(max)) sprintf(" of at most %s", format(max)) else ""
  } else if (is.finite(min) && is.finite(max)) {
    sprintf(" between %s and %s", format(min), format(max))
  } else if (is.finite(min)) {
    sprintf(" of at least %s", format(min))
  } else if (is.finite(max)) {
    sprintf(" of at most %s", format(max))
  } else ""
  ok <- is.numeric(x) && length(x) == 1L && !is.na(x) && is.finite(x) &&
    x >= min && x <= max && (!integer || x == round(x))
  if (!ok) {
    shown <- if (is.numeric(x) && length(x) == 1L) format(x) else paste0("<", class(x)[1], "[", length(x), "]>")
    ncam_abort("{.arg {arg}} must be {what}{range_txt}, not {shown}.", call = call)
  }
  invisible(x)
}

# A probability strictly inside (0, 1), such as a coverage level.
check_level <- function(level, arg = "level", call = parent.frame()) {
  ok <- is.numeric(level) && length(level) >= 1L && !anyNA(level) && all(level > 0 & level < 1)
  if (!ok) {
    given <- if (is.numeric(level)) format(level) else cli::format_inline("{.obj_type_friendly {level}}")
    ncam_abort("{.arg {arg}} must be a number strictly between 0 and 1, not {given}.",
               call = call)
  }
  invisible(level)
}

# rlang::check_dots_empty(), naming the fix for an argument that belongs elsewhere: the caller's
# `hints` (cli text named by the argument), then the usual misnames of the caller's argument for
# its rows (data_name_hints()).
check_dots_empty_hinted <- function(hints = character(), env = parent.frame(), call = parent.frame()) {
  hints <- c(hints, data_name_hints(env))
  given <- dots_names(env)
  arg <- given[given %in% names(hints)][1]
  if (!is.na(arg)) ncam_abort(c("Unknown argument {.arg {arg}}.", i = hints[[arg]]), call = call)
  # rlang's error, with the class of ncam's errors after its own.
  tryCatch(rlang::check_dots_empty(env = env, call = call),
           rlib_error_dots_nonempty = function(e) rlang::cnd_signal(with_ncam_error_class(e)))
}

# Hints for the names a user may give the argument that takes the rows, by the name the function
# whose frame is `env` gives it: `newdata` (ncam spells it as stats::predict() does) given as
# tidymodels' `new_data` or as `data`; `data` (calibrate(), model.frame()) given as `newdata` or
# `new_data`; `path` (the readers) given as `file`, as readr's and data.table's readers call it.
data_name_hints <- function(env) {
  takes <- formal_names(env)
  if ("newdata" %in% takes) return(c(new_data = new_data_hint, data = data_newdata_hint))
  if ("data" %in% takes) return(c(newdata = newdata_data_hint, new_data = newdata_data_hint))
  if ("path" %in% takes) return(c(file = file_path_hint))
  character()
}

new_data_hint <- "Did you mean {.arg newdata}? ncam spells it without the underscore, as {.fn stats::predict} does."
data_newdata_hint <- "Did you mean {.arg newdata}? Here the rows are {.arg newdata}, as for {.fn stats::predict}."
newdata_data_hint <- "Did you mean {.arg data}? Here the rows are {.arg data}; {.arg newdata} is {.fn predict}'s."
file_path_hint <- "Did you mean {.arg path}? ncam's readers take the file as {.arg path}."

# The names of the formal arguments of the function whose frame is `env` (none if not called).
formal_names <- function(env) {
  at <- Position(function(frame) identical(frame, env), sys.frames(), right = TRUE)
  if (is.na(at)) character() else names(formals(sys.function(at)))
}

# A vector of NA read as logical (an empty column of a file, read.csv()'s and others') is
# missing numbers.
is_all_missing <- function(x) is.logical(x) && all(is.na(x))
all_missing_as_numeric <- function(x) if (is_all_missing(x)) as.double(x) else x

# A sensor that did not read is a column of NA in new data, not a column left out.
missing_sensor_hint <- "A sensor without readings is given as a column of {.code NA}, such as {.code {missing[1]} = NA_real_}."

# The names given in the `...` of the function whose environment is `env`, without evaluating them.
dots_names <- function(env) {
  given <- names(substitute(list(...), env))
  if (is.null(given)) character() else given[nzchar(given)]
}

check_flag <- function(x, arg, call = parent.frame()) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    ncam_abort("{.arg {arg}} must be {.code TRUE} or {.code FALSE}.", call = call)
  }
  invisible(x)
}

check_string <- function(x, arg, call = parent.frame()) {
  if (!is.character(x) || length(x) != 1L || is.na(x) || !nzchar(x)) {
    ncam_abort("{.arg {arg}} must be a single non-empty string.", call = call)
  }
  invisible(x)
}

# A column of readings must hold numbers. Text is most often numbers with a few entries that are
# not ("<LOD", "12,5"): the error names the first of those, and how to convert the column.
# `label` names the column's role ("Sensor column", "Reference column"), `data_arg` the argument
# that holds it, as the hint's code writes it (`newdata$ref` for predict()); `training`, whether
# the readings are to learn from (a column with none is then left out, not converted).
check_numeric_readings <- function(v, column, label, data_arg = "data", call = parent.frame(), training = TRUE) {
  if (is.numeric(v)) return(invisible(v))
  if (!is.character(v) && !is.factor(v)) {
    ncam_abort("{label} {.field {column}} must be numeric, not {.obj_type_friendly {v}}.", call = call)
  }
  text <- as.character(v)
  target <- paste0(data_arg, "$", column)
  convert <- paste(target, "<-", sprintf(if (is.factor(v)) "as.numeric(as.character(%s))" else "as.numeric(%s)", target))
  bad <- which(!is_missing_value_text(text) & is.na(decimal_numbers(text)))
  if (all(is_missing_value_text(text))) {
    # No number to read: as numbers, a sensor without readings.
    ncam_abort(c("{label} {.field {column}} must be numeric, not {.obj_type_friendly {v}}: every entry is missing ({.code NA} or empty), so it holds no reading.",
                 i = if (training) "Leave the sensor out of {.arg formula}: it has no reading to learn from." else
                   "Without readings, it is a column of missing numbers: convert it, {.code {convert}}."),
               leave_out = if (training) column, call = call)
  }
  if (!length(bad)) {
    ncam_abort(c("{label} {.field {column}} must be numeric, not {.obj_type_friendly {v}}: it holds numbers stored as text.",
                 i = "Convert it: {.code {convert}}."), call = call)
  }
  shown <- utils::head(bad, 3L)
  entries <- paste0(encodeString(text[shown], quote = "\""), " (row ", input_rows(shown), ")", collapse = ", ")
  ncam_abort(c("{label} {.field {column}} must be numeric, not {.obj_type_friendly {v}}: {length(bad)} entr{?y is/ies are} not a number, the first {entries}.",
               i = "Correct those entries or set them to {.code NA}, then convert the column: {.code {convert}} (which reads entries that are not numbers as {.code NA})."),
             call = call)
}

# One element of `choices`; the full default vector means its first element.
match_choice <- function(x, choices, arg, call = parent.frame()) {
  if (identical(x, choices)) return(choices[1])
  if (!is.character(x) || length(x) != 1L || !x %in% choices) {
    ncam_abort("{.arg {arg}} must be one of {.or {.val {choices}}}.", call = call)
  }
  x
}

# One coverage level, not a vector.
check_scalar_level <- function(level, call = parent.frame()) {
  check_level(level, call = call)
  if (length(level) != 1L) {
    ncam_abort("{.arg level} must be a single number, not {length(level)} numbers.",
               call = call)
  }
  invisible(level)
}

# A seed: NULL, or a whole number that set.seed() and the C++ generator take.
check_seed <- function(seed, call = parent.frame()) {
  check_number(seed, "seed", min = 0, max = .Machine$integer.max, integer = TRUE, allow_null = TRUE,
               call = call)
}

# Seed for the C++ generator: NULL draws one from R's RNG so set.seed() works.
resolve_seed <- function(seed, call = parent.frame()) {
  check_seed(seed, call)
  if (is.null(seed)) return(sample.int(.Machine$integer.max, 1L))
  as.integer(seed)
}

rlang_arg <- function(x) deparse(substitute(x, parent.frame()))

# The caller's RNG state (NULL if none yet) and its restoration, so that a local seed
# leaves the user's random stream untouched.
save_rng <- function() {
  if (exists(".Random.seed", envir = globalenv(), inherits = FALSE)) {
    get(".Random.seed", envir = globalenv(), inherits = FALSE)
  }
}

restore_rng <- function(state) {
  if (!is.null(state)) {
    assign(".Random.seed", state, envir = globalenv())
  } else if (exists(".Random.seed", envir = globalenv(), inherits = FALSE)) {
    rm(".Random.seed", envir = globalenv())
  }
}

# Evaluate `code` with R's RNG seeded by `seed`, leaving the caller's RNG stream untouched.
# The generator kind is fixed too (R's defaults), so a seed means the same draws whatever
# kind the session uses (future workers, for one, run L'Ecuyer-CMRG).
with_local_seed <- function(seed, code) {
  with_rng_kind(c("Mersenne-Twister", "Inversion", "Rejection"), {
    set.seed(seed)
    code
  })
}

# Evaluates `expr` with R's generator of kind `kind` (from RNGkind()), then puts back the
# kind and state it found.
with_rng_kind <- function(kind, expr) {
  old_kind <- RNGkind()
  old_state <- save_rng()
  on.exit({
    suppressWarnings(RNGkind(old_kind[1], old_kind[2], old_kind[3]))
    restore_rng(old_state)
  }, add = TRUE)
  suppressWarnings(RNGkind(kind[1], kind[2], kind[3]))
  expr
}

# `seed = NULL` uses (and advances) R's generator so set.seed() applies.
with_seed_or_global <- function(seed, expr) {
  if (is.null(seed)) expr else with_local_seed(seed, expr)
}

# Columns (a named list of vectors) must hold no infinite value: one fast scan, then an
# error naming each column at fault and up to five of its rows. `what` is the kind of
# column, such as "Sensor column" or "Covariate".
check_finite_columns <- function(cols, what, call = parent.frame()) {
  if (length(call_engine(ncam_first_infinite_cpp(cols))) == 0L) return(invisible(cols))
  # Only on the way to the error: every column with an infinite value, and its rows.
  lines <- unlist(lapply(names(cols), function(col) {
    rows <- which(is.infinite(cols[[col]]))
    if (!length(rows)) return(NULL)
    shown <- input_rows(utils::head(rows, 5))
    cli::format_inline("{what} {.field {col}} has {cli::qty(length(rows))}{?an/} infinite value{?s} in row{?s} {shown}{if (length(rows) > 5) ', ...' else ''}.")
  }))
  lines <- gsub("([{}])", "\\1\\1", lines)  # already formatted: braces in names stay text
  ncam_abort(c(lines[1], stats::setNames(lines[-1], rep("*", length(lines) - 1L)),
               i = "Replace infinite values with {.code NA}: a missing reading or covariate is handled row by row."),
             call = call)
}

# Values beyond max_reading_magnitude, as ncam() and predict() decide: their squares overflow
# to Inf. `subject` is cli text naming the input ("Column {.val {col}} of {.arg {arg}}"),
# interpolated in the caller's frame.
check_not_too_large <- function(x, subject, call = parent.frame(), envir = parent.frame()) {
  rows <- rows_outside(x, -max_reading_magnitude, max_reading_magnitude)
  if (length(rows) == 0L) return(invisible(x))
  named <- gsub("([{}])", "\\1\\1", cli::format_inline(subject, .envir = envir))
  ncam_abort(c(paste0(named, " has {cli::qty(length(rows))}{?a value/values} as large as
                          {format(max(abs(x[rows])), digits = 3)} in {rows_text(rows)}: too large
                          to compute with in double precision."),
               i = "Check those rows for a unit or parsing error, or set them to {.code NA}."),
             call = call)
}

# Rows of `x` below `lower` or above `upper` (never NA), as which(x < lower | x > upper) gives
# them, in one pass without copies for plain doubles (the checks of every row in predict()).
rows_outside <- function(x, lower, upper) {
  scan <- is.double(x) && !is.object(x) && length(x) <= .Machine$integer.max  # rows as int
  if (scan) call_engine(ncam_rows_outside_cpp(x, lower, upper)) else which(x < lower | x > upper)
}
