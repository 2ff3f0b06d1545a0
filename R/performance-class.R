# The class of sensor_performance()'s table (a tibble of class ncam_performance) and what its
# print(), tidy(), glance() and autoplot() methods share: the metrics, the target each is judged
# by and that target's threshold, read from performance_target_table (R/performance-targets.R).
# The methods: print() in R/performance-print.R, tidy() and glance() (and the documentation of
# all four) in R/performance-tidy.R, autoplot() in R/autoplot-performance.R.

# The table as a tibble of class ncam_performance, which keeps the pollutant its targets are of
# and the targets it was judged by, in its units (targets_in_units(): attribute "units").
new_performance <- function(table, pollutant, targets) {
  tibble::new_tibble(as.list(table), nrow = nrow(table), class = "ncam_performance",
                     pollutant = pollutant, targets = targets)
}

# The metrics of the table: the column giving the count each is computed on, the pass_* column
# of the target that judges it (error: RMSE or NRMSE; precision: SD or CV), the metric of
# performance_target_table holding its threshold, and whether only the "all" row has it.
performance_metric_table <- data.frame(
  metric = c("r2", "slope", "intercept", "rmse", "nrmse", "mbe", "sd", "cv", "orth_slope",
             "orth_intercept", "expanded_uncertainty", "between_sampler_uncertainty",
             "between_sampler_uncertainty_below", "between_sampler_uncertainty_above"),
  count = c(rep("n", 6), "n_precision", "n_precision", rep("n", 3), rep("n_between_sampler", 3)),
  target = c("r2", "slope", "intercept", "error", "error", NA, "precision", "precision", NA, NA,
             "expanded_uncertainty", rep("between_sampler_uncertainty", 3)),
  threshold = c("r2", "slope", "intercept", "rmse", "nrmse", NA, "sd", "cv", NA, NA,
                "expanded_uncertainty", rep("between_sampler_uncertainty", 3)),
  all_only = c(rep(FALSE, 6), TRUE, TRUE, rep(FALSE, 3), rep(TRUE, 3)),
  stringsAsFactors = FALSE
)

# The columns the methods read: those of sensor_performance() less the counts of the other
# metrics, limit_value and note.
performance_method_columns <- c("unit", "averaging", "time_step", "n", "limit_value",
                                performance_metric_table$metric, "n_precision",
                                "n_between_sampler", "pass_r2", "pass_slope", "pass_intercept",
                                "pass_error", "pass_precision", "pass_expanded_uncertainty",
                                "pass_between_sampler_uncertainty", "note")

# The thresholds the object was judged by, in its units (attribute "units"). A table subset or
# renamed after sensor_performance() keeps its class but may lack what the methods read, and one
# of another making lacks the pollutant: `NULL`, or an error when `abort`. A table made before
# the targets were kept with it is in the units of performance_targets()' US EPA targets.
performance_targets_of <- function(object, abort = TRUE, arg = "x", call = parent.frame()) {
  pollutant <- attr(object, "pollutant")
  targets <- attr(object, "targets")
  missing <- setdiff(performance_method_columns, names(object))
  known <- is.character(pollutant) && length(pollutant) == 1L &&
    (is.data.frame(targets) || pollutant %in% c("pm25", "o3"))
  if (!length(missing) && known && nrow(object) > 0L) {
    if (is.data.frame(targets)) return(targets)
    rows <- performance_target_table[performance_target_table$pollutant == pollutant, ]
    return(targets_in_units(rows, if (pollutant == "o3") "ppb" else "ug/m3", pollutant))
  }
  if (!abort) return(NULL)
  if (nrow(object) == 0L) ncam_abort("{.arg {arg}} has no rows.", call = call)
  if (!known) {
    ncam_abort(c("{.arg {arg}} does not say which pollutant's targets it was judged by.",
                 i = "Use the table as {.fn sensor_performance} returns it."), call = call)
  }
  ncam_abort(c("{.arg {arg}} lacks column{?s} {.field {missing}}, which {.fn sensor_performance} gives.",
               i = "Use the table as {.fn sensor_performance} returns it, with its columns as named there."),
             call = call)
}

# Per metric (rows of performance_metric_table) of a row at time step `time_step`: the target
# table's framework, lower, upper and unit where its threshold applies at that step, else NA
# (a unit of measure is kept: that of the concentration for mbe and orth_intercept).
metric_thresholds <- function(targets, time_step) {
  spec <- performance_metric_table
  at <- match(spec$threshold, targets$metric)
  applies <- !is.na(at) & !is.na(time_step) & targets$averaging[at] %in% time_step
  concentration <- attr(targets, "units")
  value_unit <- ifelse(is.na(at), "", targets$unit[at])
  value_unit[spec$metric %in% c("mbe", "orth_intercept")] <- concentration
  data.frame(metric = spec$metric, value_unit = value_unit,
             framework = ifelse(applies, targets$framework[at], NA_character_),
             target = ifelse(applies, spec$target, NA_character_),
             lower = ifelse(applies, targets$lower[at], NA_real_),
             upper = ifelse(applies, targets$upper[at], NA_real_), stringsAsFactors = FALSE)
}

# "R2", "<=" and ">=" where the output cannot show Unicode (as in snapshots and some consoles).
# Figures take ASCII whatever the console shows: a PDF device cannot draw the Unicode signs
# (pdf() warned "conversion failure" for each and dropped them).
performance_symbols <- function(figure = FALSE) {
  if (figure) return(c(r2 = "R-squared", le = "<=", ge = ">="))
  if (cli::is_utf8_output()) c(r2 = "R\u00b2", le = "\u2264", ge = "\u2265") else
    c(r2 = "R2", le = "<=", ge = ">=")
}

# A threshold in words: "<= 7" when it starts at 0, ">= 0.7" for R2 (whose upper bound 1 is its
# largest value), else "0.65 to 1.35".
threshold_text <- function(metric, lower, upper, symbols = performance_symbols()) {
  num <- function(x) as.character(signif(x, 4))
  ifelse(metric == "r2" & upper == 1, paste(symbols[["ge"]], num(lower)),
         ifelse(lower == 0, paste(symbols[["le"]], num(upper)),
                paste(num(lower), "to", num(upper))))
}

# The name of a time step or block for headings: "24-hour", "1-hour".
averaging_words <- function(averaging) {
  c(as_given = "As given", "1h" = "1-hour averages", "24h" = "24-hour averages")[averaging]
}

# The pollutant as the targets name it: "PM2.5", "O3", "NO2"; others (of targets given) in
# capitals, "pm10" as "PM10".
pollutant_label <- function(pollutant) {
  labels <- c(pm25 = "PM2.5", pm10 = "PM10", pm1 = "PM1")
  if (pollutant %in% names(labels)) labels[[pollutant]] else toupper(pollutant)
}

# A subset that keeps every column stays an ncam_performance table; one without some of them
# (`perf[c("unit", "rmse")]`) is the plain tibble it was before the class existed, as are the
# table's as.data.frame() and as_tibble(): none carries the pollutant along.
#' @export
`[.ncam_performance` <- function(x, i, j, drop = FALSE, ...) {
  out <- NextMethod()
  if (is.data.frame(out) && !all(performance_method_columns %in% names(out))) {
    out <- plain_performance(out)
  }
  out
}

#' @export
as.data.frame.ncam_performance <- function(x, ...) plain_performance(NextMethod())

#' @rawNamespace S3method(tibble::as_tibble, ncam_performance)
as_tibble.ncam_performance <- function(x, ...) {
  plain_performance(tibble::as_tibble(plain_performance(x), ...))
}

plain_performance <- function(x) {
  attr(x, "pollutant") <- NULL
  attr(x, "targets") <- NULL
  class(x) <- setdiff(class(x), "ncam_performance")
  x
}
