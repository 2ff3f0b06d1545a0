# Checks of the columns and terms a model reads that would otherwise fail deep in the engine or
# fit wrongly without a word: matrix columns, offset() terms, 64-bit integers read as their
# bits, covariates beyond the magnitudes double precision standardises, factor levels that no
# training row had, and columns in other units than in the fit.

# A matrix or data-frame column holds several values per row: model.frame() recycles it and the
# engine gets columns of the wrong length. A list column was converted silently or failed
# inside model.frame(). `what` names the columns' role in the message, `data_arg` the data frame.
check_vector_columns <- function(data, cols, what = "Column", call = parent.frame(), data_arg = "data") {
  for (v in intersect(cols, names(data))) {
    col <- data[[v]]
    if (is.data.frame(col) || length(dim(col)) > 1L) {
      kind <- if (is.data.frame(col)) "a data frame" else "a matrix"
      ncam_abort(c("{what} {.field {v}} is {kind} with {NCOL(col)} columns: ncam needs one value per row.",
                   i = if (data_arg == "data") "Split it into separate columns of {.arg data} and name those in {.arg formula}." else
                     "Give {.arg {data_arg}} the model's columns as plain columns, one value per row."),
                 call = call)
    }
    if (is_list_column(col)) {
      ncam_abort(c("{what} {.field {v}} is a list column: ncam needs one value per row.",
                   i = "Make it a plain column first, such as with {.code unlist()} or {.fn tidyr::unnest}."),
                 call = call)
    }
  }
}

# A column holding a list per row; POSIXlt date-times (and other vctrs records) are lists
# underneath but one value per row.
is_list_column <- function(col) {
  is.list(col) && !is.data.frame(col) && !inherits(col, c("POSIXlt", "vctrs_rcrd"))
}

# The right side of a formula is built of variables, calls (poly(rh, 2)) and 0 or 1 for the
# intercept, joined by formula operators; anything else (NA, another number, text) failed in
# terms() with "invalid model formula in ExtractVars".
check_formula_terms <- function(rhs, call = parent.frame()) {
  operators <- c("+", "-", "*", ":", "/", "%in%", "(")
  bad <- character()
  walk <- function(e) {
    if (is.call(e) && is.name(e[[1]]) && as.character(e[[1]]) %in% operators) {
      for (arg in as.list(e)[-1]) walk(arg)
    } else if (is.call(e) && identical(e[[1]], as.name("^"))) {
      walk(e[[2]])  # the power, (a + b)^2, is a number
    } else if (!is.name(e) && !is.call(e) && !(is.numeric(e) && length(e) == 1L && e %in% c(0, 1))) {
      bad <<- c(bad, deparse1(e))
    }
  }
  walk(rhs)
  if (length(bad)) {
    ncam_abort(c("The right side of {.arg formula} has {cli::qty(length(bad))}{?a term/terms} {.code {bad}} that {?is/are} no covariate.",
                 i = "Name columns of {.arg data} or expressions of them (such as {.code log(rh)}); {.code 1} or {.code 0} only to keep or drop the intercept."),
               call = call)
  }
}

# Complex numbers and raw bytes have no place in a design matrix (model.matrix() refused them
# without naming the column).
check_real_covariates <- function(data, vars, call = parent.frame()) {
  for (v in intersect(vars, names(data))) {
    if (is.complex(data[[v]]) || is.raw(data[[v]])) {
      ncam_abort(c("{.arg formula} names covariate {.field {v}}, which is {.obj_type_friendly {data[[v]]}}: a covariate must be real numbers, logical, text or a factor.",
                   i = "Convert it first, such as with {.code Re()} or {.code Mod()} for complex numbers."),
                 call = call)
    }
  }
}

# ncam has no offsets (offset(temp) would be dropped from the covariates without a word) and no
# grouping terms (x | site).
check_unsupported_terms <- function(rhs, call = parent.frame()) {
  # At the top of a term only: I(rain | snow) is a logical covariate.
  tops <- vapply(as.list(attr(rhs, "variables"))[-1], function(v) if (is.call(v)) deparse1(v[[1]]) else "", "")
  bars <- intersect(tops, c("|", "||"))
  if (length(bars)) {
    # `x | site` would enter as the logical OR of x and site, a constant: mixed-model syntax.
    ncam_abort(c("{.arg formula} has {.code {bars[1]}} in a term: ncam has no grouping or random-effect terms.",
                 i = "For one model per group, use {.fn ncam_by} with {.code by = \"site\"}; to let the model learn a group's effect, enter it as a covariate ({.code + factor(site)})."),
               call = call)
  }
  offsets <- attr(rhs, "offset")
  if (!length(offsets)) return(invisible())
  terms <- vapply(as.list(attr(rhs, "variables"))[offsets + 1L], deparse1, character(1))
  ncam_abort(c("{.arg formula} has {cli::qty(length(terms))}{?an offset term/offset terms} {.code {terms}}: ncam has no offsets.",
               i = "Leave {cli::qty(length(terms))}{?it/them} out, or enter the variable as a covariate."),
             call = call)
}

# 64-bit integer columns (bit64) by value: model.frame() and model.matrix() would read the
# bits of their doubles (1e-321 for 100).
integer64_by_value <- function(data, vars) {
  for (v in intersect(vars, names(data))) {
    if (inherits(data[[v]], "integer64")) data[[v]] <- plain_double(data[[v]])
  }
  data
}

# Plain numeric covariate columns holding only 0 and 1: flags, which predict() also takes as
# TRUE/FALSE (files and databases store flags either way); other numbers it does not. Columns
# with a class (units, integer64) are measurements or identifiers, not flags.
flag_columns <- function(data, vars) {
  Filter(function(v) {
    x <- data[[v]]
    is.numeric(x) && !is.object(x) && all(x == 0 | x == 1, na.rm = TRUE)
  },
         intersect(vars, names(data)))
}

# Covariates are standardised with squares of their values: beyond the readings' limit
# (max_reading_magnitude) those overflow, and such a value is a unit or parsing error.
check_covariate_magnitude <- function(cols, call = parent.frame()) {
  for (v in names(cols)) {
    big <- rows_outside(cols[[v]], -max_reading_magnitude, max_reading_magnitude)
    if (length(big)) {
      where <- paste0(if (length(big) == 1L) "row " else "rows ", paste(input_rows(utils::head(big, 5)), collapse = ", "),
                      if (length(big) > 5L) ", ..." else "")
      ncam_abort(c("Covariate {.field {v}} has {if (length(big) == 1L) 'a value' else 'values'} as large as {signif(max(abs(cols[[v]][big])), 3)} in {where}: too large to compute with in double precision.",
                   i = "Check {where} for a unit or parsing error, or set {if (length(big) == 1L) 'the value' else 'those values'} to {.code NA}."),
                 call = call)
    }
  }
}

# Standard deviation of each covariate on the training rows, computed on the column divided by
# its largest magnitude so that the squares neither overflow nor underflow. A covariate that is
# not constant but varies by less than the readings may (min_reading_spread) is refused: its
# standardisation would divide by a spread at the edge of double precision.
covariate_spread <- function(x, rows, call = parent.frame()) {
  vapply(names(x), function(v) {
    values <- x[[v]][rows]
    size <- max(abs(values))
    spread <- if (size > 0) stats::sd(values / size) * size else 0
    if (spread < min_reading_spread) {
      ncam_abort(c("Covariate {.field {v}} varies by only {signif(spread, 3)} on the training rows: too small to compute with in double precision.",
                   i = "Multiply it by a power of ten (a unit change) before fitting."), call = call)
    }
    spread
  }, numeric(1))
}

# Covariates with one value on every training row carry no information (constant, not a
# spread that underflows: covariate_spread() refuses those).
constant_covariates <- function(x, rows) {
  vapply(x, function(v) {
    values <- v[rows]
    all(values == values[1])
  }, logical(1))
}

# Levels of factor terms. xlevels are named by the model frame's variables: a column (sitef)
# or an expression (factor(site), interaction(site, hour)), evaluated on newdata as lm() does.

# model.matrix() needs two levels at least: a factor with one level on the training rows gets
# a placeholder, whose design column is never a covariate.
design_levels <- function(levels) if (length(levels) < 2L) c(levels, ".ncam_placeholder") else levels

# Levels of a factor covariate on no training row (unused levels of a factor, combinations
# interaction() never met, levels only on validation rows) have dummies that are zero on every
# training row: the model learned nothing of them. Their columns leave the design without a
# "constant covariate" warning, and predict() gives rows with them NA, as levels not seen in
# training.
# `rows` are the training rows; called once they are known, it also lets go of the frame.
drop_unused_levels <- function(design, rows, call = parent.frame()) {
  frame <- design$frame
  design$frame <- NULL
  if (is.null(frame) || !length(rows)) return(design)
  used <- lapply(stats::setNames(nm = names(design$xlevels)), function(v) {
    design$xlevels[[v]][design$xlevels[[v]] %in% as.character(frame[[v]][rows])]
  })
  if (identical(lengths(used), lengths(design$xlevels))) return(design)
  for (v in names(used)) {
    elsewhere <- setdiff(intersect(design$xlevels[[v]], as.character(frame[[v]])), used[[v]])
    if (length(elsewhere)) {
      n <- length(elsewhere)
      cli::cli_warn(c("{cli::qty(n)}Level{?s} {.val {elsewhere}} of {.field {plain_names(v)}} {cli::qty(n)}{?is/are} on no training row (only on validation rows, or rows without a reading or with a missing covariate): the model learns nothing of {cli::qty(n)}{?it/them}, and {.fn predict} gives rows with {cli::qty(n)}{?it/them} {.code NA}.",
                      i = "Fit with training rows of every level, or leave those rows out."),
                    class = c("ncam_warning_unused_level", "ncam_warning"), call = call)
    }
  }
  # The design columns of the used levels, named by a one-row design with only those levels.
  one <- frame[rows[1], , drop = FALSE]
  for (v in names(used)) one[[v]] <- factor(as.character(one[[v]]), levels = design_levels(used[[v]]))
  kept <- colnames(design_matrix(design$terms, one, call = call))
  design$x <- design$x[names(design$x) %in% kept]
  design$covariates <- names(design$x)
  design$xlevels <- used
  design
}

# The columns of newdata that enter through a factor term (sitef, or site in factor(site)):
# text is expected there. dataClasses follow the terms' variables in order.
factor_term_columns <- function(object) {
  classes <- attr(object$terms, "dataClasses")
  variables <- as.list(attr(object$terms, "variables"))[-1]
  if (!length(object$xlevels) || length(classes) != length(variables)) return(names(object$xlevels))
  unique(c(names(object$xlevels), unlist(lapply(variables[names(classes) %in% names(object$xlevels)], all.vars))))
}

# The model frame of newdata, with an error saying what to do when a term cannot be evaluated
# (relevel(factor(site), "b") on rows without site "b", as in lm()).
new_model_frame <- function(terms, newdata, call = parent.frame()) {
  check_formula_functions(terms, call)
  tryCatch(stats::model.frame(terms, newdata, na.action = stats::na.pass),
           error = function(e) {
             why <- conditionMessage(e)  # substituted, so that braces in it stay text
             ncam_abort(c("The covariate terms of the model could not be evaluated on {.arg newdata}.",
                          x = "{why}",
                          i = "Make such a term a column of {.arg data} before fitting (e.g. {.code data$site <- relevel(factor(data$site), \"b\")}): {.fn predict} sets a factor column to its training levels."),
                        call = call)
           })
}

# A saved fit keeps its formula, not the packages whose functions it calls: ns(x1, 3) read back
# in a session without splines attached would fail with R's bare "could not find function".
check_formula_functions <- function(terms, call = parent.frame()) {
  env <- environment(terms)
  if (is.null(env)) return(invisible())
  heads <- unique(call_heads(attr(terms, "variables")))
  missing <- heads[!vapply(heads, exists, logical(1), envir = env, mode = "function")]
  if (length(missing)) {
    ncam_abort(c("The model's formula calls {cli::qty(length(missing))}function{?s} {.fn {missing}}, not found in this session.",
                 i = "Attach the package that provides {cli::qty(length(missing))}{?it/them} first (for {.fn ns} and {.fn bs}: {.code library(splines)}), or write the term with its package, as in {.code splines::ns(x, 3)}."),
               call = call)
  }
}

# The names of the functions called anywhere in an expression.
call_heads <- function(expr) {
  if (!is.call(expr)) return(character(0))
  head <- if (is.name(expr[[1]])) as.character(expr[[1]])
  c(head, unlist(lapply(as.list(expr)[-1], call_heads)))
}

# The factor terms of a model frame of newdata at their training levels. A level on no
# training row is set to NA, so that the row has no prediction (as a row with a missing
# covariate); attribute "unseen" lists, per term, the rows and levels so set.
at_training_levels <- function(mf, xlevels) {
  unseen <- list()
  for (v in names(xlevels)) {
    values <- as.character(mf[[v]])
    rows <- which(!is.na(values) & !values %in% xlevels[[v]])
    # A code given as a number ("100000" as the double 1e5, which as.character() writes
    # "1e+05") is the training level that key_text() writes for that number.
    as_code <- key_text(suppressWarnings(as.numeric(values[rows])))
    known <- !is.na(as_code) & as_code %in% xlevels[[v]]
    values[rows[known]] <- as_code[known]
    rows <- rows[!known]
    if (length(rows)) {
      unseen[[v]] <- list(rows = rows, levels = unique(values[rows]), seen = xlevels[[v]])
      values[rows] <- NA_character_
    }
    mf[[v]] <- factor(values, levels = design_levels(xlevels[[v]]))
  }
  attr(mf, "unseen") <- unseen
  mf
}

# Columns with units (units package). A fit records the units of the columns it read (NULL when
# none has any); predict() converts a newdata column given in other units (K for a fit in
# degrees C) and refuses units it cannot convert. A plain number is taken as in the fit's units,
# except in a column the fit converted (attribute "given", from common_reading_units(): the
# units it was given in), where it could mean either.
column_units <- function(data, cols) {
  with_units <- Filter(function(v) inherits(data[[v]], "units"), cols)
  if (!length(with_units)) return(NULL)
  out <- vapply(stats::setNames(nm = with_units), function(v) unit_text(data[[v]]), character(1))
  given <- attr(data, "units_given")
  given <- given[intersect(names(given), cols)]
  if (length(given)) attr(out, "given") <- given
  out
}

# A column's units as set_units() reads them back ("ug/m3"; deparse_unit()'s "ug m3-1" is not).
unit_text <- function(col) {
  check_suggested("units", "to read columns with units.")
  loadNamespace("units")  # units() dispatches to the package's method
  as.character(units(col))
}

# `unread` names columns the caller does not read (the model's reference, which the estimate
# leaves out unless asked): they are left as given, as their units cannot make an answer wrong.
match_units <- function(object, newdata, call = parent.frame(), unread = NULL) {
  fitted <- object$units
  # A column the model read as plain numbers, now with units: their units in training are not
  # known, so neither is the conversion (mg/m3 for ug/m3 would be 1000 times off).
  read <- if (is.list(object$data_check) && is.matrix(object$data_check$sums)) colnames(object$data_check$sums) else
    c(object$sensors, object$reference)
  plain <- setdiff(intersect(read, names(newdata)), c(names(fitted), unread))
  now_with_units <- Filter(function(v) inherits(newdata[[v]], "units"), plain)
  if (length(now_with_units)) {
    v <- now_with_units[1]
    ncam_abort(c("Column {.field {v}} of {.arg newdata} is in {.val {unit_text(newdata[[v]])}}, but the model was fitted to plain numbers in it, whose units it does not know.",
                 i = "Give {.field {v}} as plain numbers in the units of the training data (such as with {.fn units::drop_units} after converting), or fit with units columns."),
               call = call)
  }
  refuse_plain_converted(object, newdata, unread, call)
  for (v in setdiff(intersect(names(fitted), names(newdata)), unread)) {
    col <- newdata[[v]]
    if (!inherits(col, "units")) next
    given <- unit_text(col)
    if (identical(given, fitted[[v]])) next
    newdata[[v]] <- convert_units(col, fitted[[v]], c(
      "Column {.field {v}} of {.arg newdata} is in {.val {given}}, which cannot be converted to {.val {fitted[[v]]}}, its units in training.",
      i = "Give {.field {v}} in {.val {fitted[[v]]}} or units convertible to it."), call)
  }
  newdata
}

# The columns of `data` that the fit converted (opc given in mg/m3, fused in ug/m3) and that hold
# plain numbers, which could be in the units it was given in or in those it was fused in. None
# of no rows: they hold no number to misread (predict_chunks() scores a header as no rows).
plain_converted_columns <- function(object, data) {
  if (nrow(data) == 0L) return(character())
  given <- attr(object$units, "given")
  Filter(function(v) !inherits(data[[v]], "units"), intersect(names(given), names(data)))
}

# Plain numbers in a column the fit converted could mean either unit (mg/m3 and ug/m3 are 1000
# times apart): an error, not a guess, unless the caller does not read the column (`unread`).
refuse_plain_converted <- function(object, newdata, unread, call) {
  plain <- setdiff(plain_converted_columns(object, newdata), unread)
  if (!length(plain)) return(invisible())
  v <- plain[1]
  given <- attr(object$units, "given")
  fitted <- object$units
  ncam_abort(c("Column {.field {v}} of {.arg newdata} has no units, and the model was fitted to it in {.val {given[[v]]}}, converted to {.val {fitted[[v]]}}: plain numbers could be in either.",
               i = "Give {.field {v}} its units, such as with {.code units::set_units(newdata${v}, \"{given[[v]]}\", mode = \"standard\")}."),
             call = call)
}

# The reading columns (sensors and reference) of `data` that carry units, converted to one unit:
# that of the anchor (else the first sensor) when it has units, else of the first sensor (then
# the reference) that has: the sensors' unit, in which plain numbers of new data are then read.
# Readings in units that cannot be converted to it (ppb beside ug/m3) are an error: fused as they
# are, they would be wrong by the conversion factor. So are plain reading columns beside readings
# whose numbers a conversion changes: the plain ones' unit cannot be known, and taken to be the
# new unit, they no longer match the readings they were given beside. Beside columns all in one
# unit, plain ones are taken to be in it (the fit is that of the plain numbers), with a warning
# where the estimates are on a plain column's scale (see warn_readings_without_units()). The
# returned data's attribute "units_given" keeps the units of the columns converted.
common_reading_units <- function(data, sensors, anchor = NULL, reference = NULL, call = parent.frame()) {
  columns <- c(sensors, reference)
  with_units <- Filter(function(v) inherits(data[[v]], "units"), columns)
  if (!length(with_units)) return(data)
  target <- if (is.null(anchor)) sensors[1] else anchor
  goal_column <- if (is.character(target) && length(target) == 1L && target %in% with_units) target else with_units[1]
  goal <- unit_text(data[[goal_column]])
  given <- vapply(stats::setNames(nm = setdiff(with_units, goal_column)), function(v) unit_text(data[[v]]), character(1))
  for (v in names(given)[given != goal]) {
    data[[v]] <- convert_units(data[[v]], goal, c(
      "Column {.field {v}} is in {.val {given[[v]]}}, which cannot be converted to {.val {goal}}, the units of {.field {goal_column}}: the sensors must measure one quantity.",
      i = "Fuse only sensors of the same quantity, or give {.field {v}} in units convertible to {.val {goal}}."), call)
  }
  # A change of spelling ("ug/m^3" to "ug/m3") leaves the numbers, and plain ones, as they are.
  converted <- given[given != goal & !vapply(given, same_scale, logical(1), goal)]
  plain <- setdiff(columns, with_units)
  if (length(converted) && length(plain)) refuse_readings_without_units(plain, converted, goal, goal_column, call)
  if (length(converted)) {
    shown <- paste0(names(converted), " (", converted, ")")
    cli::cli_inform("Readings converted to {.val {goal}}, the units of {.field {goal_column}}: {shown}.")
    attr(data, "units_given") <- converted
  }
  # The estimates are on the scale of the reference, else of the anchor, else of all sensors.
  on_scale <- if (!is.null(reference)) reference else if (!is.null(anchor)) anchor else sensors
  warn_readings_without_units(plain, goal, on_scale, call)
  data
}

# Whether numbers in `from` are the same numbers in `to` (a change of spelling, not of scale).
same_scale <- function(from, to) {
  ones <- units::set_units(units::set_units(c(1, 2), from, mode = "standard"), to, mode = "standard")
  isTRUE(all.equal(as.numeric(ones), c(1, 2)))
}

refuse_readings_without_units <- function(plain, converted, goal, goal_column, call) {
  shown <- paste0(names(converted), " (", converted, ")")
  ncam_abort(c("{cli::qty(length(plain))}Reading column{?s} {.field {plain}} of {.arg data} {?has/have} no units, beside readings converted to {.val {goal}} (the units of {.field {goal_column}}) from other units: {shown}.",
               x = "{cli::qty(length(plain))}The unit of {?its/their} numbers is not known, so neither is whether {?it matches/they match} the converted readings.",
               i = "{cli::qty(length(plain))}Give {?it/them} the units {?it is/they are} in (with {.fn units::set_units}), or convert every reading column to one unit yourself and give none of them units (with {.fn units::drop_units})."),
             call = call)
}

# Plain reading columns beside columns with units all in one unit, `goal`, are taken to be in
# it; that matters, and so warns, where the estimates are on a plain column's scale: their
# unit, `goal` as fit$units and print() say, is then assumed.
warn_readings_without_units <- function(plain, goal, on_scale, call) {
  if (!any(on_scale %in% plain)) return(invisible())
  cli::cli_warn(c("{cli::qty(length(plain))}Reading column{?s} {.field {plain}} {?has/have} no units, beside readings with units: {?it is/they are} taken to be in {.val {goal}}, the unit the estimates are given in.",
                  i = "{cli::qty(length(plain))}If {?it is/they are} in another unit, the estimates are off by the conversion factor. Give {?it/them} the units {?it is/they are} in (with {.fn units::set_units}), or give no reading column units."),
                class = c("ncam_warning_readings_without_units", "ncam_warning"), call = call)
}

# A units column in `goal`, or the error `message` (cli text, glued in the caller's frame) for
# units that cannot be converted to it.
convert_units <- function(x, goal, message, call, env = parent.frame()) {
  tryCatch(units::set_units(x, goal, mode = "standard"),
           error = function(e) ncam_abort(message, call = call, .envir = env))
}
