# The concentration units of sensor_performance(): the unit its table is in (argument `units`,
# columns of the units package, or the one assumed), the columns and the targets put in it
# (ppb and ug/m3 of a gas at the EU reference conditions), and the target table given in
# `targets`, checked.

#' @rdname sensor_performance
#' @param units The unit of the concentrations in `estimate` and `reference`:
#'   `"ppb"` or `"ug/m3"` (for O3 and NO2; ug/m3 at 293 K and 101.3 kPa, as EU
#'   and UK networks report them, such as the AURN data of openair), and only
#'   `"ug/m3"` for PM2.5. Not the column of units (sensors or sites): that is
#'   `unit`. `NULL` (default): the units of the columns when they carry some
#'   (class `"units"`), else ug/m3 for PM2.5; for a gas a warning of class
#'   `ncam_warning_assumed_units` says that ppb is taken (see Units).
#' @param targets `NULL` (default) for the table of [performance_targets()], or a
#'   table of the same columns (`pollutant`, `framework`, `metric`, `lower`,
#'   `upper`, `unit`, `averaging`, `source`) to judge by instead, such as that
#'   table with a threshold changed or rows of another pollutant added; its rows
#'   of `pollutant` are used. Each `metric` is one of those of
#'   [performance_targets()], once per pollutant; `framework` is `"US EPA"` or
#'   `"EU"` (which [glance()][ncam_performance-methods] gathers in `pass_epa` and
#'   `pass_eu`); `averaging` is `"1 hour"` or `"24 hours"`, one for all rows of a
#'   pollutant; `unit` is `""` for `r2` and `slope`, `"%"` for `nrmse`, `cv` and
#'   `expanded_uncertainty`, and `"ppb"` or `"ug/m3"` for the others (ug/m3 for
#'   particulate matter, whose name starts with `"pm"`); `lower` is at most
#'   `upper`, and equals it for `limit_value` (positive) and
#'   `between_sampler_split`. A table that breaks a rule is an error naming the
#'   column and row. Metrics left out are not judged (their `pass_*` is `NA`);
#'   without a `limit_value` row (or argument), no expanded uncertainty is computed.
#' @section Units:
#' The table is in the units of the data, `units` (the print says which), and
#' each target is applied in its own unit: the US EPA targets of O3 are set in
#' ppb, the EU limit or target values in ug/m3 (see [performance_targets()]). A
#' target in the other unit than the data is converted at the reference
#' conditions of Directive 2008/50/EC (Annex VI, Section C: 293 K and 101.3 kPa,
#' at which EU networks report gases, a molar volume of 24.05 L/mol) with the
#' molar mass of the gas: 1 ppb of O3 (48.00 g/mol) is 1.996 ug/m3, of NO2
#' (46.01 g/mol) 1.913 ug/m3 (also of NO 30.01, SO2 64.06 and CO 28.01 g/mol,
#' for targets given). So the EPA's RMSE target of 5 ppb for O3 is 9.98 ug/m3
#' for data in ug/m3, and the EU's 120 ug/m3 is 60.1 ppb for data in ppb; a
#' verdict does not depend on the unit the data come in. Without `units`, a gas
#' is taken to be in ppb, as the US EPA and sensor makers report gases, with a
#' warning (the data of EU networks are in ug/m3: O3 in ug/m3 judged as ppb
#' fails the EPA error targets for errors twice the size they are, and is
#' tested at the EU target value as if it were 120 ppb).
#'
#' A column of class `"units"` (the units package), `estimate` or `reference`
#' or both, is converted to `units` (or, without `units`, gives it: the
#' reference's unit, else the estimate's) with a message of class
#' `ncam_message_units`: mg/m3 to ug/m3, ppm to ppb, and for a gas ppb to ug/m3
#' and back at those conditions; units of another quantity are an error (ppb for
#' PM2.5). Then the units are dropped. A plain numeric column is taken to be in
#' `units`, but beside a column whose numbers are converted it is an error: its
#' unit is unknown (the estimates of a fit on mg/m3 readings are plain mg/m3
#' numbers). `limit_value` and `reference_uncertainty` are in `units`.
#' @name sensor_performance
NULL

# Molar masses (g/mol) of the gases whose ppb and ug/m3 convert here, and the molar volume (L/mol)
# at the reference conditions of Directive 2008/50/EC (Annex VI, Section C: 293 K, 101.3 kPa).
gas_molar_mass <- c(o3 = 48.00, no2 = 46.01, no = 30.01, so2 = 64.06, co = 28.01)
eu_molar_volume <- 8.314462618 * 293 / 101.3

# ug/m3 per ppb of a pollutant at those conditions; NA for one of unknown molar mass.
ugm3_per_ppb <- function(pollutant) {
  if (pollutant %in% names(gas_molar_mass)) gas_molar_mass[[pollutant]] / eu_molar_volume else NA_real_
}

particulate <- function(pollutant) startsWith(pollutant, "pm")

# The unit of the table, "ppb" or "ug/m3": `units` as given, else that of the columns that carry
# units (the reference's first), else ug/m3 for particulate matter and ppb, with a warning, for a
# gas. `columns`: estimate and reference column names, named by their arguments.
table_units <- function(units, data, columns, pollutant, call = parent.frame()) {
  if (!is.null(units)) {
    if (!is.character(units) || length(units) != 1L || !units %in% c("ppb", "ug/m3")) {
      ncam_abort(c("{.arg units} must be {.val ppb} or {.val ug/m3}, the unit of the
                    concentrations in {.arg estimate} and {.arg reference}, or {.code NULL}.",
                   i = if (is.character(units) && length(units) == 1L && units %in% names(data)) {
                     "To name the column of sensor units (or sites), use {.arg unit}."
                   }), call = call)
    }
    if (units == "ppb" && particulate(pollutant)) {
      ncam_abort("{.arg units} must be {.val ug/m3} for {pollutant_label(pollutant)}: particulate
                  matter is a mass concentration, not a mixing ratio (ppb).", call = call)
    }
    return(units)
  }
  if (particulate(pollutant)) return("ug/m3")
  carried <- Filter(function(col) inherits(data[[col]], "units"), rev(columns))
  if (length(carried) && requireNamespace("units", quietly = TRUE)) {
    for (col in carried) {
      from <- as.character(units(data[[col]]))
      for (to in c("ppb", "ug/m3")) if (units::ud_are_convertible(from, to)) return(to)
    }
  }
  cli::cli_warn(c("{.arg units} is not given: {.val {unname(columns)}} {?is/are} taken to be in
                   ppb, as the US EPA and sensor makers report gases.",
                  i = "Give {.code units = \"ug/m3\"} for data in ug/m3 (as EU and UK networks
                       report {pollutant_label(pollutant)}, such as the AURN data of openair), or
                       {.code units = \"ppb\"}, to silence this warning."),
                class = c("ncam_warning_assumed_units", "ncam_warning"), call = call)
  "ppb"
}

# Columns of class "units" (the units package) in `to`, the units of the table: mg/m3 judged
# against targets in ug/m3 would pass an RMSE of 7 mg/m3. A gas converts between ppb and ug/m3
# at the EU reference conditions. A plain numeric column is taken to be in `to`, unless the other
# column's numbers are converted: then its unit is unknown (mg/m3 numbers of a fit on mg/m3
# readings read as ug/m3 gave a slope of 0.001), and that is an error.
in_table_units <- function(data, columns, to, pollutant, call) {
  carry <- vapply(columns, function(col) inherits(data[[col]], "units"), logical(1))
  if (!any(carry)) return(data)
  # The class comes from the units package, whose methods convert once it is loaded (a data
  # frame read back with readRDS() carries the class without loading it).
  if (!requireNamespace("units", quietly = TRUE)) {
    ncam_abort(c("Column{?s} {.val {columns[carry]}} carr{?ies/y} units, but the {.pkg units}
                      package that converts them is not installed.",
                 i = "Install it with {.code install.packages(\"units\")}, or drop the units
                          with {.code as.numeric()} if the values are already in {to}."), call = call)
  }
  plain <- columns[!carry]
  factor <- ugm3_per_ppb(pollutant)
  for (arg in names(columns)[carry]) {
    col <- columns[[arg]]
    from <- as.character(units(data[[col]]))
    if (identical(from, to)) next
    across <- !units::ud_are_convertible(from, to) && !is.na(factor) &&
      units::ud_are_convertible(from, setdiff(c("ppb", "ug/m3"), to))
    converted <- tryCatch(if (across) {
      base <- as.numeric(units::set_units(data[[col]], setdiff(c("ppb", "ug/m3"), to), mode = "standard"))
      units::set_units(if (to == "ug/m3") base * factor else base / factor, to, mode = "standard")
    } else {
      units::set_units(data[[col]], to, mode = "standard")
    }, error = function(e) NULL)
    if (is.null(converted)) {
      gas <- any(vapply(c(from, to), units::ud_are_convertible, logical(1), "ppb"))
      ncam_abort(c("Column {.val {col}} (from {.arg {arg}}) is in {.val {from}}, which
                        cannot be converted to {.val {to}}, the units of the table.",
                   i = if (gas && particulate(pollutant)) {
                     "{pollutant_label(pollutant)} is a mass concentration: give it in ug/m3."
                   } else if (gas) {
                     "A mixing ratio (ppb) and a mass concentration (ug/m3) convert only with the
                      molar mass, which is not known for {.val {pollutant}}: convert the column
                      yourself."
                   },
                   i = "Give the column units of the same quantity as {.val {to}}, such
                            as with {.fn units::set_units}."), call = call)
    }
    # A change of spelling (ug/m^3) leaves the numbers, and a plain column beside, as they are.
    if (length(plain) && (across || !same_scale(from, to))) {
      refuse_plain_beside_converted(plain, col, arg, from, to, call)
    }
    at <- if (across) {
      sprintf(" at 293 K and 101.3 kPa (1 ppb of %s = %s ug/m3)", pollutant_label(pollutant),
              format(signif(factor, 4)))
    } else ""
    ncam_inform("Column {.val {col}} (from {.arg {arg}}) is converted from {from} to {to}{at},
                 the units of the table.", "ncam_message_units")
    data[[col]] <- converted
  }
  data
}

# A plain estimate or reference column (`plain`, named by its argument) beside column `col`
# (from argument `arg`), whose numbers are converted from `from` to `to`: the plain numbers
# could be in either (predict() gives plain numbers in the unit of the fit's readings).
refuse_plain_beside_converted <- function(plain, col, arg, from, to, call) {
  plain_arg <- names(plain)
  ncam_abort(c("Column {.val {plain}} (from {.arg {plain_arg}}) has no units, beside column
                {.val {col}} (from {.arg {arg}}) converted from {.val {from}} to {.val {to}},
                the units of the table.",
               x = "The unit of its numbers is not known, so neither is whether they match those
                    of {.val {col}} ({.fn predict} gives plain numbers in the units of the
                    fit, {.code fit$units}, which may differ from {.val {from}}).",
               i = "Give it the units it is in, such as with {.code data${plain} <-
                    units::set_units(data${plain}, <its unit>, mode = \"standard\")}, or give
                    both columns as plain numbers in {to}."), call = call)
}

# The targets (rows of one pollutant) with their concentration thresholds in `to` (ppb and ug/m3
# of a gas converted at the EU reference conditions, said in `source`), and attribute "units".
targets_in_units <- function(targets, to, pollutant, call = parent.frame()) {
  other <- which(targets$unit %in% c("ppb", "ug/m3") & targets$unit != to)
  if (length(other)) {
    factor <- ugm3_per_ppb(pollutant)
    if (is.na(factor)) {
      ncam_abort(c("The targets of {.val {pollutant}} are in {.val {unique(targets$unit[other])}},
                    but the data are in {.val {to}}: ppb and ug/m3 convert only with the molar
                    mass, which is not known for {.val {pollutant}}.",
                   i = "Give the targets in {to} (column {.field unit} of {.arg targets})."),
                 call = call)
    }
    scale <- ifelse(targets$unit[other] == "ppb", factor, 1 / factor)
    given <- ifelse(targets$lower[other] == targets$upper[other], format(targets$upper[other]),
                    paste(format(targets$lower[other]), "to", format(targets$upper[other])))
    targets$source[other] <- paste0(targets$source[other], "; set as ", given, " ",
                                    targets$unit[other], ", in ", to, " at 293 K and 101.3 kPa")
    targets$lower[other] <- targets$lower[other] * scale
    targets$upper[other] <- targets$upper[other] * scale
    targets$unit[other] <- to
  }
  attr(targets, "units") <- to
  attr(targets, "converted") <- length(other) > 0L
  targets
}

# The target rows to judge by: those of `pollutant` in performance_target_table or, when given, in
# `targets` (checked). `default`: `pollutant` was not given, so that a table of one pollutant
# gives it.
performance_target_rows <- function(targets, pollutant, default, call = parent.frame()) {
  if (is.null(targets)) {
    pollutant <- match_choice(pollutant, unique(performance_target_table$pollutant), "pollutant", call)
    return(list(pollutant = pollutant,
                rows = performance_target_table[performance_target_table$pollutant == pollutant, ]))
  }
  targets <- check_performance_targets(targets, call)
  known <- unique(targets$pollutant)
  if (default) pollutant <- if (length(known) == 1L) known else intersect("pm25", known)
  if (!is.character(pollutant) || length(pollutant) != 1L || !pollutant %in% known) {
    ncam_abort("{.arg pollutant} must be one of the pollutants of {.arg targets}: {.or {.val {known}}}.",
               call = call)
  }
  rows <- targets[targets$pollutant == pollutant, ]
  averaging <- unique(rows$averaging)
  if (length(averaging) > 1L) {
    ncam_abort(c("Column {.field averaging} of {.arg targets} holds {.val {averaging}} for
                  {.val {pollutant}}: the targets of a pollutant must share one averaging.",
                 i = "Judge each averaging in its own call, with the rows of that averaging."),
               call = call)
  }
  list(pollutant = pollutant, rows = rows)
}

# The metrics a target table may hold and the unit each is given in: "" (none), "%" or a
# concentration ("ppb" or "ug/m3").
target_metric_units <- c(r2 = "", slope = "", intercept = "concentration", rmse = "concentration",
                         nrmse = "%", sd = "concentration", cv = "%", expanded_uncertainty = "%",
                         limit_value = "concentration",
                         between_sampler_uncertainty = "concentration",
                         between_sampler_split = "concentration")

# A table given in `targets`, checked column by column against the rules of ?sensor_performance,
# as a tibble of the columns of performance_targets(), text as character.
check_performance_targets <- function(targets, call = parent.frame()) {
  columns <- names(performance_target_table)
  if (!is.data.frame(targets)) {
    ncam_abort("{.arg targets} must be a data frame with the columns of {.fn performance_targets},
                not {.obj_type_friendly {targets}}.", call = call)
  }
  missing <- setdiff(columns, names(targets))
  if (length(missing)) {
    ncam_abort(c("{.arg targets} lacks column{?s} {.field {missing}}.",
                 i = "It needs the columns of {.fn performance_targets}: {.field {columns}}."),
               call = call)
  }
  if (nrow(targets) == 0L) ncam_abort("{.arg targets} has no rows.", call = call)
  out <- lapply(stats::setNames(columns, columns), function(col) {
    x <- targets[[col]]
    if (is.factor(x)) x <- as.character(x)
    if (col %in% c("lower", "upper")) {
      if (!is.numeric(x)) {
        ncam_abort("Column {.field {col}} of {.arg targets} must be numeric, not
                    {.obj_type_friendly {x}}.", call = call)
      }
      x <- as.double(x)
    } else if (!is.character(x) && !(col == "source" && all(is.na(x)))) {
      ncam_abort("Column {.field {col}} of {.arg targets} must be text, not {.obj_type_friendly {x}}.",
                 call = call)
    }
    if (col != "source" && anyNA(x)) {
      ncam_abort("Column {.field {col}} of {.arg targets} is missing in {rows_text(which(is.na(x)))}.",
                 call = call)
    }
    if (col == "source") as.character(x) else x
  })
  t <- tibble::as_tibble(out)
  bad <- function(rows, col, rule) {
    if (!length(rows)) return(invisible())
    ncam_abort(paste0("Column {.field {col}} of {.arg targets} ", rule, " in {rows_text(rows)}
                       (metric {.val {t$metric[rows[1]]}} of {.val {t$pollutant[rows[1]]}})."),
               call = call)
  }
  metrics <- names(target_metric_units)
  unknown <- which(!t$metric %in% metrics)
  if (length(unknown)) {
    ncam_abort("Column {.field metric} of {.arg targets} must be one of {.or {.val {metrics}}}, not
                {.val {t$metric[unknown[1]]}} ({rows_text(unknown)}).", call = call)
  }
  bad(which(!nzchar(t$pollutant)), "pollutant", "is empty")
  bad(which(!t$framework %in% c("US EPA", "EU")), "framework", "must be \"US EPA\" or \"EU\"")
  bad(which(!t$averaging %in% c("1 hour", "24 hours")), "averaging",
      "must be \"1 hour\" or \"24 hours\"")
  kind <- target_metric_units[t$metric]
  concentration <- kind == "concentration"
  unit_ok <- ifelse(concentration, t$unit %in% c("ppb", "ug/m3"), t$unit == kind)
  bad(which(!unit_ok), "unit", "must be \"\" for r2 and slope, \"%\" for nrmse, cv and
      expanded_uncertainty, and \"ppb\" or \"ug/m3\" for the others")
  bad(which(concentration & t$unit == "ppb" & particulate(t$pollutant)), "unit",
      "must be \"ug/m3\" for particulate matter")
  bad(which(is.nan(t$lower) | is.nan(t$upper) | t$lower > t$upper), "lower", "must be at most
      {.field upper}")
  point <- t$metric %in% c("limit_value", "between_sampler_split")
  bad(which(point & (t$lower != t$upper | !is.finite(t$upper))), "lower", "must equal a finite
      {.field upper}")
  bad(which(t$metric == "limit_value" & t$upper <= 0), "upper", "must be positive")
  bad(which(duplicated(paste(t$pollutant, t$metric, sep = "\r"))), "metric",
      "repeats the metric of an earlier row of its pollutant")
  t
}
