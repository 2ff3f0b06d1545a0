# The values of the covariate columns a formula names: what cannot be what the user meant is
# refused (numbers or dates stored as text, identifiers; list columns are refused before, by
# check_vector_columns()), a text covariate with a single value is left out, and `~ .` takes
# only columns that can be covariates.

# Covariates that cannot be what the user meant: entirely missing, a factor with an NA level,
# numbers or dates stored as text, or text with about one value per row (each would become one dummy per
# distinct value). Numbers stored as text are labels where the formula says so (`factor(site)`).
check_covariate_values <- function(data, vars, rhs, call = parent.frame()) {
  labels <- factor_wrapped_vars(attr(rhs, "variables"))
  for (v in vars) {
    col <- data[[v]]
    if (all(is.na(col))) {
      ncam_abort(c("Covariate {.field {v}} is entirely {.code NA}.",
                   i = "Leave it out of the formula, or give its values."), leave_out = v, call = call)
    }
    check_covariate_codes(col, v, call)
    if (is.factor(col) && anyNA(levels(col))) {
      # addNA(): predict() could not code such a level again, so the rows get a named one.
      ncam_abort(c("Covariate {.field {v}} is a factor with {.code NA} as a level (as {.fn addNA} makes).",
                   i = "Give the missing values a named level: {.code levels(data${v})[is.na(levels(data${v}))] <- \"missing\"}; or leave them {.code NA}, and the rows are left out of training."),
                 call = call)
    }
    if (is.character(col) && !v %in% labels) {
      values <- unique(col[!is.na(col)])
      if (length(values) > 2L && !anyNA(suppressWarnings(as.numeric(values)))) {
        ncam_abort(c("Covariate {.field {v}} holds numbers stored as text (e.g. {.val {utils::head(values, 3)}}): as text it would become one dummy per value.",
                     i = "If the numbers are labels (such as site or station codes), write {.code factor({v})} in {.arg formula} for every use of {.field {v}}, or convert the column: {.code data${v} <- factor(data${v})}.",
                     i = "If they are measurements, convert them: {.code data${v} <- as.numeric(data${v})}."),
                   call = call)
      }
    }
    if (is.character(col) || is.factor(col)) {
      values <- unique(as.character(col[!is.na(col)]))
      if (length(values) > 2L && all(grepl(text_time_pattern, values))) {
        ncam_abort(c("Covariate {.field {v}} holds dates or times stored as text (e.g. {.val {utils::head(values, 2)}}): it would become one dummy per time, and every later time would be a level never seen.",
                     i = "Use features of the time instead (such as the hour of day as {.code sin()} and {.code cos()} terms of a parsed time)."),
                   call = call)
      }
      n_values <- length(values)
      if (n_values > max_dot_levels && n_values > sum(!is.na(col)) / 2) {
        ncam_abort(c("Covariate {.field {v}} has {n_values} distinct values in {sum(!is.na(col))} rows: an identifier or label, which would become one dummy per value.",
                     i = "Leave it out of the formula, or group its values into a few levels first."),
                   call = call)
      }
    }
  }
}

# Missing-value codes (-999, ...; as the readers know them, and the same with a plus sign) in a
# numeric covariate, beyond its other values and far from them: standardised as numbers, a -999
# among humidities squashes their spread tenfold, and training rows at -999 blind predict()'s
# check of extrapolation. A code within the other values (a pressure of 999 hPa) is a measurement,
# as is one near them; a tail of real values (counts) reaches the code, a code lies beyond it.
check_covariate_codes <- function(col, v, call) {
  if (!is.numeric(col)) return(invisible())
  x <- as.double(unclass(col))
  is_code <- x %in% c(missing_value_codes, -missing_value_codes)
  if (!any(is_code)) return(invisible())
  codes <- unique(x[is_code])
  others <- x[!is_code & !is.na(x)]
  centre <- if (length(others)) stats::median(others) else NA_real_
  within <- if (length(others)) codes >= min(others) & codes <= max(others) else FALSE
  near <- within | abs(codes - centre) <= code_spreads * robust_spread(others)
  # With no other value, or none that vary, every code is far.
  far <- codes[is.na(near) | !near]
  if (!length(far)) return(invisible())
  rows <- which(x %in% far)
  shown <- paste0(paste(input_rows(utils::head(rows, 5L)), collapse = ", "), if (length(rows) > 5L) ", ..." else "")
  test <- if (length(far) == 1L) paste("==", far) else sprintf("%%in%% c(%s)", paste(far, collapse = ", "))
  range_text <- if (length(others)) sprintf("beyond its other values (%s to %s) and ", signif(min(others), 3), signif(max(others), 3)) else ""
  ncam_abort(c("Covariate {.field {v}} holds {.val {far}} on {length(rows)} row{?s} ({shown}), {range_text}more than {code_spreads} robust spreads from their median ({signif(centre, 3)}): a missing-value code, not a measurement.",
               i = "Standardised as a number, it would squash the covariate's other values together. Set it to {.code NA} first, such as with {.code data${v}[data${v} {test}] <- NA}: rows with a missing covariate are left out of training."),
             call = call)
}

# Robust spreads (MADs) from the median of a covariate's other values beyond which a code is
# not a measurement: 6.7 sds of normal values. The sensors' spike screen allows 50, for the
# pollution events of skewed readings; a humidity of -999 lies only 40 MADs from uniform
# humidities between 20 and 90 %.
code_spreads <- 10

# The variables of `expr` (the formula's variables) that appear only inside factor(),
# as.factor(), ordered(), as.ordered() or interaction(): the formula says they are labels.
factor_wrapped_vars <- function(expr) {
  wrappers <- c("factor", "as.factor", "ordered", "as.ordered", "interaction")
  wrapped <- character()
  bare <- character()
  walk <- function(e, inside) {
    if (is.name(e)) {
      if (inside) wrapped <<- c(wrapped, as.character(e)) else bare <<- c(bare, as.character(e))
    } else if (is.call(e)) {
      fn <- e[[1]]
      # base::factor(site) as well as factor(site); the function's name is no variable.
      if (is.call(fn) && as.character(fn[[1]]) %in% c("::", ":::")) fn <- fn[[3]]
      inside <- inside || (is.name(fn) && as.character(fn) %in% wrappers)
      for (arg in as.list(e)[-1]) walk(arg, inside)
    }
  }
  walk(expr, FALSE)
  setdiff(unique(wrapped), bare)
}

# A date-time as a covariate enters as seconds since 1970: a trend that every later row
# extrapolates. Written inside a function (as.numeric(date)), it is taken as meant.
# A duration (difftime: sensor age, time since a filter change) is a fine covariate, but its number
# is in whatever units it carries, which another data set may give otherwise.
check_no_bare_dates <- function(data, term_labels, call = parent.frame()) {
  durations <- Filter(function(v) v %in% names(data) && inherits(data[[v]], "difftime"), term_labels)
  if (length(durations)) {
    ncam_abort(c("Covariate {.field {durations}} {?is a duration/are durations} ({.cls difftime}, in {units(data[[durations[1]]])}): {?its/their} number{?s} would change with {?its/their} units, which new data may give otherwise.",
                 i = "Give {?it/them} in fixed units, such as {.code as.numeric({durations[1]}, units = \"hours\")} in the formula or as a column."),
               call = call)
  }
  dates <- Filter(function(v) v %in% names(data) && inherits(data[[v]], c("Date", "POSIXt")), term_labels)
  if (length(dates)) {
    ncam_abort(c("Covariate {.field {dates}} {?is a date-time/are date-times}: {?it/they} would enter as a count of seconds or days, a trend that every later row lies outside of.",
                 i = "Use features of the time instead (such as the hour of day as {.code sin()} and {.code cos()} terms), or write {.code as.numeric({dates[1]})} if a trend is meant."),
               call = call)
  }
}

# Terms without the variables the formula takes out again (`~ . - date`, which terms() keeps
# among its variables): rebuilt from the term labels, so that no later step reads them. Terms
# with an offset are kept as they are, for the error that ncam has no offsets.
without_removed_variables <- function(rhs) {
  if (!is.null(attr(rhs, "offset"))) return(rhs)
  factors <- attr(rhs, "factors")
  in_terms <- if (length(factors)) rownames(factors)[rowSums(factors) > 0] else character()
  if (length(in_terms) == length(attr(rhs, "variables")) - 1L) return(rhs)
  terms_of_labels(attr(rhs, "term.labels"), environment(rhs))
}

# Right-hand-side terms of the term labels `labels` (`~ 1` for none), in the environment `env`.
terms_of_labels <- function(labels, env) {
  stats::delete.response(stats::terms(stats::reformulate(if (length(labels)) labels else "1", env = env)))
}

# A character or factor covariate with one value carries nothing and has no contrasts: left
# out with a warning, like a constant numeric covariate.
drop_single_value_terms <- function(rhs, data, call = parent.frame()) {
  vars <- all.vars(rhs)
  single <- vars[vapply(vars, function(v) {
    col <- data[[v]]
    (is.character(col) || is.factor(col)) && length(unique(col[!is.na(col)])) < 2L
  }, logical(1))]
  if (!length(single)) return(rhs)
  labels <- attr(rhs, "term.labels")
  inside <- setdiff(single, labels)
  if (length(inside)) {
    # Each such variable with its value and the terms it is used in, e.g. factor(site).
    details <- vapply(inside, function(v) {
      used <- labels[vapply(labels, function(l) v %in% all.vars(str2lang(l)), logical(1))]
      value <- as.character(stats::na.omit(data[[v]])[1])
      sprintf("%s is %s on every row, in %s", v, if (is.na(value)) "NA" else encodeString(value, quote = "\""),
              paste0("`", plain_names(used), "`", collapse = ", "))
    }, character(1))
    ncam_abort(c("{cli::qty(length(inside))}Covariate{?s} {.field {inside}} {?has/have} a single value in {.arg data}, so {?its term has/their terms have} no effect to estimate:",
                 stats::setNames(gsub("([{}])", "\\1\\1", details), rep("*", length(details))),
                 i = "Leave {cli::qty(length(inside))}{?it/them} out of {.arg formula} for these data (or fit on data where {?it varies/they vary})."),
               call = call)
  }
  cli::cli_warn("Covariate{?s} {.field {single}} {?has/have} a single value in {.arg data} and {?is/are} left out.",
                class = c("ncam_warning_dropped_covariate", "ncam_warning"), call = call)
  terms_of_labels(setdiff(labels, single), environment(rhs))
}

# Text that starts like a date (2024-05-01, 2024/05/01, 01/05/2024, 1.5.2024), with or without a time.
text_time_pattern <- "^[[:space:]]*([0-9]{4}[-/][0-9]{1,2}[-/][0-9]{1,2}|[0-9]{1,2}[-/.][0-9]{1,2}[-/.][0-9]{2,4})"

# Most distinct values a character or factor column may have to enter `~ .` as a covariate.
max_dot_levels <- 20L

# The columns `~ .` stands for: every column of `data` but the sensors and the reference
# (`sensors`), the `unit` column and date-times (a time stamp would enter as a trend; a term
# such as `as.numeric(date)` names one explicitly).
dot_columns <- function(data, sensors, unit = NULL) {
  columns <- setdiff(names(data), c(sensors, unit))
  columns[!vapply(columns, function(v) inherits(data[[v]], c("Date", "POSIXt")), logical(1))]
}

# A formula's right side with each `.` among its terms replaced by the sum of the columns
# `dot`, in parentheses (`.^2`, `. - x` as terms() reads them), or by `1` for none; as in
# terms(), a `.` inside a function (`log(.)`) is left alone. terms() with a data frame of those
# columns would stop on none, and warn of a variable taken out (`. - date`) not among them.
expand_dot <- function(e, dot) {
  if (identical(e, quote(.))) {
    if (!length(dot)) return(1)
    return(call("(", Reduce(function(a, b) call("+", a, b), lapply(dot, as.name))))
  }
  if (is.call(e) && is.name(e[[1]]) && as.character(e[[1]]) %in% c("+", "-", "*", ":", "/", "%in%", "(", "^")) {
    operands <- if (identical(e[[1]], as.name("^"))) 2L else seq_along(e)[-1]  # not the power
    e[operands] <- lapply(as.list(e)[operands], expand_dot, dot = dot)
  }
  e
}

# `~ .` takes the columns `dot` (dot_columns(): not a sensor, the reference, the unit or a
# date-time). Durations, identifiers and labels would enter in arbitrary units or as hundreds
# of dummies without a word: refuse them, unless the formula takes them out again
# (`~ . - station`): `rhs`, its terms with `.` expanded and such columns gone
# (without_removed_variables()). Columns the formula names itself get the checks of any covariate.
check_dot_columns <- function(data, dot, rhs, call) {
  candidates <- intersect(dot, all.vars(rhs))
  why <- vapply(candidates, function(v) {
    col <- data[[v]]
    if (inherits(col, "difftime")) return("a duration in its own units")
    if (is_list_column(col)) return("a list column")
    if (is.character(col) || is.factor(col)) {
      n_values <- length(unique(col[!is.na(col)]))
      if (n_values > max_dot_levels) return(paste(n_values, "distinct values"))
      if (n_values < 2L) return("a single value")
    }
    ""
  }, character(1))
  bad <- nzchar(why)
  if (any(bad)) {
    ncam_abort(c("{.code ~ .} would use {sum(bad)} column{?s} that cannot be {?a covariate/covariates}: {paste0('`', candidates[bad], '` (', why[bad], ')', collapse = ', ')}.",
                 i = "Name the covariates instead (e.g. {.code ~ rh + temperature}), take those columns out (e.g. {.code ~ . - {candidates[bad][1]}}), or drop them from {.arg data}."),
               call = call)
  }
}
