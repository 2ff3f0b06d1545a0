# Checks of the columns and terms a model reads that would otherwise fail deep in the engine or
# fit wrongly without a word: matrix columns, offset() terms, 64-bit integers read as their
# bits, covariates beyond the magnitudes double precision standardises, factor levels that no
# training row had. Columns in other units than in the fit: R/column-units.R.

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
