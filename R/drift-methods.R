# broom-style summaries of the table of sensor_drift() (generics tidy() and glance()), and the
# standard generics of a model, which stats would answer for the table with meaningless defaults
# (formula() a formula of its columns, model.frame() the table, sigma() a number of nothing):
# errors saying what to use instead.

#' Tidy summaries of a drift table
#'
#' `tidy()` of the table [sensor_drift()] returns gives its rows as a plain tibble, one per
#' sensor and period (and unit), with the table's columns; `glance()` one row per sensor (per
#' unit and sensor when the table has unit columns) saying how many of its periods were tested
#' and flagged, and its largest shift. `sigma()`, `formula()` and `model.frame()`, which the
#' table of a check does not have (it is not a model), are errors saying what to use instead.
#'
#' @param x,object A table from [sensor_drift()].
#' @param formula A table from [sensor_drift()] (the name of the first argument of
#'   [stats::model.frame()]).
#' @param ... Must be empty; a misspelt argument is an error.
#' @return
#'   * `tidy()`: a tibble with the columns of the table, in its order: the unit columns (when
#'     the table has them), `sensor`, `period`, `n`, `shift`, `mean_z`, `std_error`, `p_value`
#'     and `drift` (see Value in [sensor_drift()]), without the table's class and attributes.
#'   * `glance()`: a tibble with one row per sensor (per unit and sensor, the unit columns
#'     first), in the table's order: `sensor`, `periods` (its rows), `tested` (periods with a
#'     `p_value`), `flagged` (periods with `drift` `TRUE`), `first_flagged` (the first flagged
#'     period, `NA` when none), `largest_shift` (the `shift` largest in absolute value, with its
#'     sign, in the model's units; `NA` when no period has one) and `largest_shift_period` (its
#'     period).
#'   * `sigma()`, `formula()`, `model.frame()`: an error of class `ncam_error`.
#' @seealso [sensor_drift()], whose `autoplot()` draws the table.
#' @examples
#' toy <- simulate_toy(n = 720, seed = 3)
#' toy$date <- as.Date("2024-01-01") + seq_len(720) - 1
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy[1:240, ], hidden = 8,
#'             epochs = 200, learn_rate = 0.02, seed = 1, threads = 1)
#' later <- toy$date >= as.Date("2024-10-01")
#' toy$sensor_2[later] <- toy$sensor_2[later] + 10
#' drift <- sensor_drift(fit, toy, period = "month")
#' glance(drift)
#' head(tidy(drift))
#' try(sigma(drift))
#' @name ncam_drift-tidy
NULL

#' @rdname ncam_drift-tidy
#' @export
tidy.ncam_drift <- function(x, ...) {
  check_dots_empty_hinted()
  check_drift_table(x, "x")
  tibble::new_tibble(lapply(stats::setNames(nm = names(x)), function(col) x[[col]]), nrow = nrow(x))
}

#' @rdname ncam_drift-tidy
#' @export
glance.ncam_drift <- function(x, ...) {
  check_dots_empty_hinted()
  check_drift_table(x, "x")
  columns <- c(intersect(attr(x, "unit_columns"), names(x)), "sensor")
  key <- key_strings(key_columns(as.data.frame(x)[columns], "x"))
  rows <- unname(split(seq_len(nrow(x)), factor(key, unique(key))))
  count <- function(f) vapply(rows, function(r) sum(f(r)), integer(1))
  flagged_at <- vapply(rows, function(r) c(r[x$drift[r] %in% TRUE], NA_integer_)[1], integer(1))
  largest_at <- vapply(rows, function(r) {
    shifted <- r[!is.na(x$shift[r])]
    c(shifted[which.max(abs(x$shift[shifted]))], NA_integer_)[1]
  }, integer(1))
  first <- vapply(rows, `[`, integer(1), 1L)
  out <- c(lapply(stats::setNames(nm = columns), function(col) x[[col]][first]),
           list(periods = lengths(rows), tested = count(function(r) !is.na(x$p_value[r])),
                flagged = count(function(r) x$drift[r] %in% TRUE), first_flagged = x$period[flagged_at],
                largest_shift = x$shift[largest_at], largest_shift_period = x$period[largest_at]))
  tibble::new_tibble(out, nrow = length(rows))
}

#' @rdname ncam_drift-tidy
#' @export
sigma.ncam_drift <- function(object, ...) drift_refusal("sigma", object)

#' @rdname ncam_drift-tidy
#' @export
formula.ncam_drift <- function(x, ...) drift_refusal("formula", x)

#' @rdname ncam_drift-tidy
#' @export
model.frame.ncam_drift <- function(formula, ...) drift_refusal("model.frame", formula)

drift_refusal <- function(what, object) {
  arg <- switch(what, formula = "x", model.frame = "formula", "object")
  check_drift_table(object, arg, call = NULL)
  use <- switch(what,
    sigma = "The noise of the sensors is the model's: {.code tidy(fit)} gives each sensor's noise sd; the table's {.field std_error} is that of each period's {.field mean_z}.",
    "The formula and the columns are the model's: {.code {what}(fit)} gives them for the fit given to {.fn sensor_drift}.")
  ncam_abort(c("{.fn {what}} has no meaning for the table of {.fn sensor_drift}: it is the result of a check, not a model.",
               i = use, i = "{.code glance(drift)} summarises the table per sensor, {.code tidy(drift)} gives its rows."),
             call = NULL)
}

# A table of sensor_drift(), as its methods read it: a data frame with the columns of the
# result. A table subset to other columns (or renamed) gets this error, not a failure inside.
check_drift_table <- function(x, arg, call = parent.frame()) {
  missing <- setdiff(drift_columns, names(x))
  if (!is.data.frame(x) || length(missing)) {
    ncam_abort(c("{.arg {arg}} is not a table of {.fn sensor_drift}: it lacks {cli::qty(length(missing))}column{?s} {.field {missing}}.",
                 i = "Give the table {.fn sensor_drift} returns, with its columns {.field {drift_columns}} as named there."),
               call = call)
  }
  invisible(x)
}
