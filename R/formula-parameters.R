# Objects a formula takes from its environment rather than from the data, as lm() finds them:
# settings such as k in poly(x1, k) or w in I(x1 * w). Covariates come from the data only.

# The variables of the right side (terms `rhs`) that are not columns of `data` but objects of
# the formula's environment. One that is nowhere, is a function, or is a term by itself must be
# a column. One with a value per row of `data` is refused: a covariate taken from the session
# would be gone, or have other rows, when the fit predicts from new data.
formula_parameters <- function(rhs, data, call = parent.frame()) {
  outside <- setdiff(all.vars(rhs), names(data))
  env <- environment(rhs)
  alone <- vapply(as.list(attr(rhs, "variables"))[-1], function(v) if (is.name(v)) as.character(v) else "", "")
  found <- outside[!outside %in% alone & vapply(outside, function(v) {
    is.environment(env) && exists(v, envir = env) && !is.function(get(v, envir = env))
  }, logical(1))]
  check_columns(data, setdiff(outside, found), "formula", call = call)
  per_row <- found[vapply(found, function(v) NROW(get(v, envir = env)) == nrow(data), logical(1))]
  if (length(per_row)) {
    ncam_abort(c("{.field {per_row}} in {.arg formula} {?is not a column/are not columns} of {.arg data} but {?an object/objects} of the formula's environment with one value per row of {.arg data}.",
                 i = "Add {cli::qty(length(per_row))}{?it/them} to {.arg data} as {?a column/columns}: a fit takes its covariates from its data, so that {.fn predict} takes them from new data."),
               call = call)
  }
  found
}

# The variables of a model's terms that are columns of the data, without its parameters.
model_columns <- function(terms) setdiff(all.vars(terms), attr(terms, "parameters"))
