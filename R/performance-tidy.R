# tidy() and glance() of sensor_performance()'s table, and the documentation of its methods.

#' Print, tidy, glance at and plot sensor performance
#'
#' [sensor_performance()] returns a tibble of class `ncam_performance`, one row per unit and
#' averaging with 29 columns. It stays a tibble: subset it, filter it or pass it to
#' `knitr::kable()` as any data frame. These methods summarise it:
#'
#' * `print()` gives, per averaging, each unit's and all units' headline metrics (`n`,
#'   R\ifelse{html}{\out{<sup>2</sup>}}{^2}, slope, intercept, RMSE, NRMSE and bias, the
#'   table's `mbe`) and the verdicts against the targets: `pass`, `FAIL`, or `-` where a target
#'   is not judged (see the notes, printed in full below each table); `int.` is the intercept,
#'   `error` RMSE or NRMSE, `prec.` the inter-unit precision (SD or CV), `U` the EU expanded
#'   uncertainty and `u(bs)` the EU between-sampler uncertainty. The figures of the `"all"`
#'   row that have no column (SD, CV, u(bs), U) follow its table. A subset of the table's
#'   rows keeps its class; a subset of its columns, `as.data.frame(x)` and
#'   `tibble::as_tibble(x)` are the plain data frame or tibble, printed as such.
#' * `tidy()` gives one row per unit, averaging and metric, with the target that judges it
#'   where one applies.
#' * `glance()` gives one row per averaging: the figures of the row `"all"`.
#' * `autoplot()` draws, for each metric with a target, the units' values against the
#'   target's range (shaded), one panel per metric, on the rows whose averaging the targets are
#'   set for (24-hour values for PM2.5, 1-hour values for O3 and NO2: the `"24h"` or `"1h"` rows, or
#'   the rows as given when the data have that time step). A value inside its range is drawn
#'   as within the target, one outside as outside it, one whose target is not judged (such as
#'   the expanded uncertainty when the limit value lies outside the reference values) in grey.
#'   The error target is met when RMSE or NRMSE is within its range, the precision target
#'   when SD or CV is, so one of the two may lie outside while the target is met. The figure's
#'   text is ASCII (`R-squared`, `<=`, `>=`) whatever the console shows, so that every graphics
#'   device draws it: a PDF device cannot draw the signs R\ifelse{html}{\out{<sup>2</sup>}}{^2},
#'   less-or-equal and greater-or-equal that `print()` uses on a console that shows Unicode.
#'
#' Thresholds are those the table was judged by, kept with it: those of [performance_targets()]
#' or of the `targets` given to `sensor_performance()`, in the table's units (a threshold set
#' in the other unit converted: see its section Units); `tidy()`'s `pass` is the table's
#' `pass_*` column of the target.
#'
#' @param x,object A table from [sensor_performance()].
#' @param n For `print()`: how many units to show in each averaging (the first `n`, beside the
#'   row `"all"`, which is over every unit); `Inf` for all.
#' @param ... Unused by `print()`; must be empty for the others.
#' @return `print()` returns `x` invisibly; `autoplot()` a ggplot object.
#'   * `tidy()`: a tibble with one row per row of the table and metric: `unit`,
#'     `averaging`, `time_step` (as in the table), `metric` (`r2`, `slope`, `intercept`,
#'     `rmse`, `nrmse`, `mbe`, `orth_slope`, `orth_intercept`, `expanded_uncertainty`, and on
#'     the rows `"all"` only, `sd`, `cv`, `between_sampler_uncertainty` and its `_below` and
#'     `_above`), `n` (what the metric is computed on: the table's `n`, `n_precision` for
#'     `sd` and `cv`, `n_between_sampler` for the between-sampler uncertainties), `value`
#'     (the table's column that `metric` names), `value_unit` (such as `"ug/m3"`, `"%"`, `""`), and
#'     where a target applies to the row's time step: `framework` (`"US EPA"` or `"EU"`),
#'     `target` (the name of the table's `pass_*` column it gives: `error` for `rmse` and
#'     `nrmse`, `precision` for `sd` and `cv`), the range `lower` to `upper` (inclusive),
#'     `within` (whether this metric lies in it, `NA` where the target is not judged) and `pass`
#'     (the target's verdict, the table's `pass_*` column); these are `NA` for metrics without
#'     a target (`mbe`, the orthogonal regression) and rows of another time step.
#'   * `glance()`: a tibble with one row per averaging: `averaging`, `time_step`, `n_units`
#'     (units with a row; 1 for a table without `unit`), then from the row `"all"`: `n`, `r2`,
#'     `slope`, `intercept`, `rmse`, `nrmse`, `mbe`, `sd`, `cv`, `expanded_uncertainty`,
#'     `limit_value`, `between_sampler_uncertainty`, and `pass_epa` and `pass_eu`: `TRUE` when
#'     every US EPA (EU) target judged on that row is met, `FALSE` when one is not, `NA` when
#'     none is judged.
#' @seealso [sensor_performance()], [performance_targets()]
#' @examples
#' d <- simulate_colocation(days = 30, sites = 3, colocation = 30, seed = 1)
#' perf <- sensor_performance(d, estimate = "pa_a", reference = "ref", unit = "site")
#' perf
#' tidy(perf)
#' glance(perf)
#' # A table subset to some columns is a tibble as any other
#' perf[perf$unit == "all", c("averaging", "rmse", "pass_error")]
#' @examplesIf requireNamespace("ggplot2", quietly = TRUE)
#' ggplot2::autoplot(perf)
#' @name ncam_performance-methods
NULL

#' @rdname ncam_performance-methods
#' @export
tidy.ncam_performance <- function(x, ...) {
  check_dots_empty_hinted()
  targets <- performance_targets_of(x)
  rows <- as.data.frame(x)
  spec <- performance_metric_table
  # One entry per row of the table and metric, the "all" rows' own metrics on those rows only.
  row <- rep(seq_len(nrow(rows)), each = nrow(spec))
  m <- rep(seq_len(nrow(spec)), times = nrow(rows))
  keep <- rows$unit[row] == "all" | !spec$all_only[m]
  row <- row[keep]
  m <- m[keep]
  # The thresholds of each time step the table has, once.
  steps <- unique(rows$time_step)
  limits <- do.call(rbind, lapply(steps, function(step) metric_thresholds(targets, step)))
  at <- (match(rows$time_step[row], steps) - 1L) * nrow(spec) + m
  value <- as.matrix(rows[spec$metric])[cbind(row, m)]
  count <- as.matrix(rows[spec$count])[cbind(row, m)]
  verdicts <- as.matrix(rows[paste0("pass_", unique(stats::na.omit(spec$target)))])
  target <- limits$target[at]
  pass <- rep(NA, length(row))
  judged <- !is.na(target)
  pass[judged] <- verdicts[cbind(row[judged], match(paste0("pass_", target[judged]), colnames(verdicts)))]
  # As judge_targets(): at 10 significant digits, so that float rounding does not fail a value
  # on the bound.
  rounded <- signif(value, 10)
  within <- ifelse(is.na(pass), NA, rounded >= limits$lower[at] & rounded <= limits$upper[at])
  tibble::tibble(unit = rows$unit[row], averaging = rows$averaging[row],
                 time_step = rows$time_step[row], metric = spec$metric[m],
                 n = as.integer(count), value = unname(value), value_unit = limits$value_unit[at],
                 framework = limits$framework[at], target = target, lower = limits$lower[at],
                 upper = limits$upper[at], within = within, pass = pass)
}

#' @rdname ncam_performance-methods
#' @export
glance.ncam_performance <- function(x, ...) {
  check_dots_empty_hinted()
  targets <- performance_targets_of(x)
  rows <- as.data.frame(x)
  verdicts <- function(all_row, framework) {
    spec <- performance_metric_table
    wanted <- unique(spec$target[spec$threshold %in% targets$metric[targets$framework == framework]])
    if (!length(wanted)) return(NA)  # no target of that framework (NO2 has no US EPA one)
    pass <- unlist(all_row[paste0("pass_", wanted)], use.names = FALSE)
    if (all(is.na(pass))) NA else all(pass, na.rm = TRUE)
  }
  blocks <- lapply(unique(rows$averaging), function(avg) {
    block <- rows[rows$averaging == avg, , drop = FALSE]
    all_row <- block[block$unit == "all", , drop = FALSE][1, ]
    columns <- c("n", "r2", "slope", "intercept", "rmse", "nrmse", "mbe", "sd", "cv",
                 "expanded_uncertainty", "limit_value", "between_sampler_uncertainty")
    cbind(data.frame(averaging = avg, time_step = all_row$time_step,
                     n_units = max(sum(block$unit != "all"), 1L), stringsAsFactors = FALSE),
          all_row[columns],
          data.frame(pass_epa = verdicts(all_row, "US EPA"), pass_eu = verdicts(all_row, "EU")))
  })
  out <- do.call(rbind, blocks)
  rownames(out) <- NULL
  tibble::as_tibble(out)
}
