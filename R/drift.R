# Drift of each sensor from a fitted model, period by period: each reading against what the
# model predicts for it from the other sensors of its row (leave one sensor out).

#' Check each sensor, period by period, against the other sensors
#'
#' After a co-location the sensors run on their own, and a sensor can drift: a laser ages, a
#' channel clogs, a unit is moved. `sensor_drift()` takes every reading and compares it with
#' what the fitted model predicts for that sensor from the *other* sensors of the same row (and
#' the covariates), then averages these comparisons per period (and per unit, such as a site).
#' A period where a sensor reads persistently above or below that prediction is flagged.
#'
#' **What it can and cannot see.** The check is relative: it finds a sensor that has moved away
#' from the others (one PurpleAir channel degrading while the other does not, one box of three
#' reading high). A drift that every sensor shares (both channels of one instrument ageing
#' alike) leaves them agreeing with each other and is invisible here, as it is to the fused
#' value; only a reference can reveal it. With two low-cost sensors and no reference, either
#' one drifting moves both comparisons, in opposite directions: both are flagged, and the check
#' cannot say which of the two moved. With three or more, the one that moved usually has the
#' largest `mean_z` in absolute value (in 99.4 % of months after a drift of one noise sd in
#' `bench/drift.R` in the source repository, not in every month), but the others can be flagged too,
#' shifted the other way and less. When the model was fitted with a `reference` and `newdata` holds
#' that column with readings (a second co-location, say), the reference is checked as a sensor too:
#' its row compares the reference with the estimate from the low-cost sensors, a direct check of the
#' calibration. A sensor is also flagged where the model never fitted it well (a unit that differs
#' from the others of a model pooled over sites), which is equally a reason to look.
#'
#' **Method.** For sensor \eqn{j}{j} at a row, the model's predictive distribution of its reading
#' given the other observed readings \eqn{b_{-j}}{b_(-j)} is normal with mean
#' \eqn{a_j m_{-j} + c_j}{a_j m_(-j) + c_j} and variance
#' \eqn{a_j^2 / P_{-j} + \sigma_j^2}{a_j^2 / P_(-j) + sigma_j^2}, where \eqn{m_{-j}}{m_(-j)}
#' and \eqn{P_{-j}}{P_(-j)} are the posterior mean and precision of \eqn{\Theta}{Theta} without
#' sensor
#' \eqn{j}{j}. `mean_z` is the mean of the standardized differences \eqn{z}{z} over the period;
#' `shift` is the mean of \eqn{(b_j - c_j) / a_j - m_{-j}}{(b_j - c_j) / a_j - m_(-j)}, the same
#' difference in the units
#' of the fused value. The standard error of `mean_z` has two parts, per sensor: the readings'
#' own noise, \eqn{s^2 (1 + \rho) / ((1 - \rho) n)}{s^2 (1 + rho) / ((1 - rho) n)}, with \eqn{s}{s}
#' the standard deviation of
#' \eqn{z}{z} around its period's mean and \eqn{\rho}{rho} the lag-1 autocorrelation of consecutive
#' readings (at least 0; readings of a unit at the same time, such as two boxes checked without
#' `unit`, count in every order alike, so the order of the rows does not matter), both per unit (pooled over units for a unit with fewer than 30
#' degrees of freedom), so that one failed unit does not hide drift at the others; and,
#' pooled over units, the variance \eqn{\tau^2}{tau^2} by which the periods' means vary beyond that
#' noise (weather and pollution regimes that last longer than a few readings, or than a
#' period). Each unit's series of period means is first cut where its level steps: a stretch of
#' \eqn{L}{L} periods is cut where the means of its first \eqn{k}{k} and last \eqn{L - k}{L - k}
#' periods
#' differ most, if \eqn{\sqrt{k (L - k) / L}}{sqrt(k (L - k) / L)} times that difference, over the
#' sd of one
#' period's mean, lies beyond the two-sided 5 % point of the normal Bonferroni-corrected over
#' the \eqn{L - 1}{L - 1} places of the cut, then each side in turn (that sd from the squared
#' differences of consecutive means, each capped at a high multiple of their median so that
#' the steps barely move it). \eqn{\tau^2}{tau^2} is the mean square of the means around their
#' stretch's mean, beyond the noise, over the number of periods less the number of stretches:
#' a drift's own step does not count as ordinary variation (it would hide itself), while
#' regimes that outlast a period count more fully than in differences of consecutive periods.
#' So \eqn{\tau^2}{tau^2} is the variance of variation that is independent from one period to the
#' next (0.96 of it in `bench/drift_regimes.R` in the source repository, 26 periods). Variation that
#' persists, with correlation \eqn{\phi}{phi} between consecutive periods, shows only
#' \eqn{1 - \phi}{1 - phi} of
#' its variance in their differences: the cut threshold is too low for it, its wander is cut into
#' stretches as a drift would be, and \eqn{\tau^2}{tau^2} comes out at 0.64 of that variance for
#' \eqn{\phi = 0.5}{phi = 0.5} and 0.25 for \eqn{\phi = 0.8}{phi = 0.8}, where 3.4 % and 15 % of
#' periods without
#' drift have `p_value` below 0.01 at `tolerance = 0`. A short series cannot tell such wander
#' from a drift: a cut scaled for it (tried) took steps of 4 sd of the variation for wander (38 % of
#' drifted periods flagged instead of 52 %). A period is thus judged against the ordinary variation
#' from period to period, not only against the noise of its readings. `p_value` tests whether the
#' period's true mean z lies beyond `tolerance` (with `tolerance = 0`, whether it differs from 0),
#' two-sided, with a t distribution whose degrees of freedom are the number of periods less the
#' number of stretches: a difference too small to matter, such as what remains of the model's own
#' estimation error, is not flagged however many readings a period holds. `drift` is `TRUE` where
#' the Holm-adjusted p-value, over every row of the table, is below `alpha`. Rows where the sensor
#' or all other sensors are missing, or where the model gives no estimate (a missing covariate), do
#' not count.
#'
#' @param object For `sensor_drift()`, a model fitted by [ncam()], or fits by group from
#'   [ncam_by()] (each row is checked against its group's model; a group's warnings name it,
#'   and rows of `newdata`); for `autoplot()`, the table `sensor_drift()` returns.
#' @param newdata A data frame with the model's sensor and covariate columns and `date`; by
#'   default the data the model was fitted to.
#' @param date Name of the time column (`Date` or `POSIXct`, no missing values).
#' @param period Length of a period: `"week"` (from Monday), `"month"`, `"quarter"`,
#'   `"year"` or a whole multiple such as `"2 weeks"`, periods of the calendar in the `date`
#'   column's time zone; `"1 day"` or more whole days, from local midnight (a day of a clock
#'   change has 23 or 25 hours); or for date-times `"1 hour"`, `"30 min"` and such, spans of
#'   that length counted from 1970-01-01 00:00 of the local clock (as in [join_reference()]).
#' @param unit Optional name of a column identifying units or sites: each unit's periods are
#'   checked separately. For fits by group, `NULL`: the groups are the units. Readings are
#'   compared as they are: the unit offsets of a fit with `unit` (see [ncam()]) are not applied,
#'   and gross outliers are not screened (a stuck sensor is flagged, not dropped; under
#'   `transform = "log"` readings <= 0 have no log, so a sensor stuck at 0 is missing there,
#'   with a warning naming its rows, and its periods have `n` 0). The groups
#'   of a grouped tibble are not read: with `unit = NULL` such data are an error naming them.
#' @param tolerance The smallest mean difference counted as drift, in standard deviations of
#'   the sensor's predictive distribution (the units of `mean_z`): the default 0.1 ignores
#'   shifts smaller than a tenth of the spread of a reading around its prediction. On
#'   simulated hourly half-years without drift checked by week (`bench/drift_hourly.R` in the source
#'   repository), `tolerance = 0` flagged 2.0 % of them at `alpha = 0.01`, the default 0.7 %; 1.7 %
#'   of the rows had `p_value` below 0.01 and `mean_z / std_error` had sd 1.136. What exceeds
#'   1 % and 1 there is each sensor's z being a little off 0 over the whole half-year (sd
#'   0.048), the model's own estimation error, which only `tolerance` absorbs: around each
#'   sensor's own level that sd is 0.977.
#' @param alpha Family-wise error rate of the `drift` flags (Holm over all rows).
#' @param threads Number of threads; see [ncam_threads()].
#' @param ... Must be empty (also for `autoplot()`): a misspelt argument is an error, not
#'   ignored.
#' @return A tibble of class `ncam_drift`, one row per unit (if given), sensor and period that
#'   has rows in `newdata`, in the order of the units (the values of `unit` sorted, text by its
#'   bytes as `sort(method = "radix")` sorts it, the same in every locale; for fits by group,
#'   the order of the groups in `object`), then of the sensors and periods, with the unit
#'   column (named as in `newdata`; for fits by group, the `by` columns), `sensor`, `period`
#'   (its start, of the class of the `date` column), `n` (readings compared), `shift`, `mean_z`, `std_error` (of `mean_z`),
#'   `p_value` and `drift`. Statistics are `NA` for fewer than 3 readings; `std_error`,
#'   `p_value` and `drift` are `NA` (with a warning) for a sensor with fewer than 3 pairs of
#'   consecutive periods (not counting pairs across a step in its level), too few to judge the
#'   variation between periods, or with no period of 3 or more readings. `shift` is in the
#'   model's units: for `transform = "log"` a shift of 0.1 means about 10 % above the others.
#'   `ggplot2::autoplot()` draws `shift` by period, flagged periods marked (untested ones as
#'   open circles), its axis in the
#'   estimate's unit when the model was fitted to columns with units.
#' @seealso [sensor_params()] for the sensor model at each row, [sensor_performance()] to judge
#'   estimates against a reference.
#' @examples
#' toy <- simulate_toy(n = 720, seed = 3)
#' toy$date <- as.Date("2024-01-01") + seq_len(720) - 1
#' # Fitted on the first eight months; from October 2024 on, sensor_2 reads 10 units high
#' # (about one sd of its noise)
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy[1:240, ], hidden = 8,
#'             epochs = 200, learn_rate = 0.02, seed = 1, threads = 1)
#' later <- toy$date >= as.Date("2024-10-01")
#' toy$sensor_2[later] <- toy$sensor_2[later] + 10
#' drift <- sensor_drift(fit, toy, period = "month")
#' drift[drift$sensor == "sensor_2" & drift$period >= as.Date("2024-08-01"), ]
#' table(drift$sensor, drift$drift)  # flagged months: sensor_2 after September only
#' if (requireNamespace("ggplot2", quietly = TRUE)) ggplot2::autoplot(drift)
#' @export
sensor_drift <- function(object, newdata, date = "date", period = "month", unit = NULL,
                         tolerance = 0.1, alpha = 0.01, threads = NULL, ...) {
  check_column_name_args(c("date", "unit"))
  check_dots_empty_hinted()
  call <- rlang::current_env()
  by_groups <- inherits(object, "ncam_by")
  if (by_groups) check_ncam_by(object) else check_ncam(object)
  if (missing(newdata)) {
    if (by_groups) ncam_abort("{.arg newdata} is required for fits by group.")
    newdata <- fitting_data(object)
  }
  check_data_frame(newdata, "newdata")
  check_number(tolerance, "tolerance", min = 0)
  check_number(alpha, "alpha", min = 0, max = 1)
  time <- drift_times(newdata, date)
  warn_repeated_drift_rows(newdata, call)
  starts <- drift_periods(time, period)
  # Periods of the session's clock keep its zone's name: read in another zone, the table still
  # shows the periods as they were cut.
  if (inherits(starts, "POSIXct") && !nzchar(c(attr(starts, "tzone"), "")[1])) {
    zone <- session_zone_name()
    if (nzchar(zone)) attr(starts, "tzone") <- zone
  }
  if (!by_groups) {
    out <- drift_rows(object, newdata, time, starts, drift_units(newdata, unit), tolerance, threads, call)
    unit_columns <- if (!is.null(unit)) unit
    names(out)[names(out) == "unit"] <- if (is.null(unit)) "" else unit
    out <- out[names(out) != ""]
    model <- object
  } else {
    # Each group's rows against its own model; the groups are the units.
    if (!is.null(unit)) {
      ncam_abort(c("{.arg unit} must be {.code NULL} for fits by group.",
                   i = "Each group of {.arg object} ({.val {attr(object, 'by')}}) is checked as a unit."))
    }
    unit_columns <- attr(object, "by")
    check_columns(newdata, unit_columns, "object", data_arg = "newdata")
    check_unit_names(unit_columns, "object")
    first_fit <- object$fit[[which(has_fit(object))[1]]]
    if (nrow(newdata) == 0L) {
      part <- drift_rows(first_fit, newdata, time, starts, character(0), tolerance, threads, call)
      return(finish_drift(cbind(as.data.frame(object[0L, unit_columns, drop = FALSE]), part[names(part) != "unit"]),
                          alpha, first_fit, unit_columns, period))
    }
    # match_groups() warns in predict()'s words; here such rows are left unchecked.
    group <- suppressWarnings(match_groups(object, newdata[unit_columns]), classes = "ncam_warning_no_group_model")
    if (anyNA(group)) {
      cli::cli_warn(c("{sum(is.na(group))} row{?s} of {.arg newdata} belong{?s/} to no group with a model: {?it is/they are} not checked.",
                      i = "Groups with a model: {shown_labels(object[has_fit(object), unit_columns, drop = FALSE])}."),
                    class = c("ncam_warning_no_group_model", "ncam_warning"))
    }
    labels <- group_labels(object[unit_columns])
    parts <- lapply(sort(unique(group[!is.na(group)])), function(g) {
      rows <- which(group %in% g)
      # Warnings name the group, as predict()'s do, and rows of newdata, not of the group's share.
      part <- with_group_name(with_input_rows(rows, drift_rows(
        object$fit[[g]], newdata[rows, , drop = FALSE], time[rows], starts[rows], rep("group", length(rows)),
        tolerance, threads, call)), labels[g])
      keys <- as.data.frame(object[rep(g, nrow(part)), unit_columns, drop = FALSE])
      cbind(keys, part[names(part) != "unit"])
    })
    out <- do.call(rbind, parts)
    model <- first_fit
  }
  warn_untested(out, period, call)
  finish_drift(out, alpha, model, unit_columns, period)
}

# One warning for the whole table, not one per group's model: sensors with no period of 3 or
# more readings (a period as short as the data's time step), and sensors whose periods are
# too few to judge the variation between them.
warn_untested <- function(out, period, call) {
  sparse <- setdiff(unique(out$sensor), out$sensor[out$n >= 3L])
  if (length(sparse)) {
    cli::cli_warn(c("No period ({.val {period}}) holds 3 or more readings of {.field {sparse}}: {?its/their} rows are not tested.",
                    i = "Choose a longer {.arg period}: the variation between periods is judged from periods with 3 or more readings."),
                  class = c("ncam_warning_few_periods", "ncam_warning"), call = call)
  }
  untested <- setdiff(unique(out$sensor[is.na(out$std_error) & out$n >= 3L]), sparse)
  if (length(untested)) {
    cli::cli_warn(c("Too few periods to test {.field {untested}}: the variation between periods is judged from at least 3 pairs of consecutive periods with 3 or more readings (not across a step in the sensor's level), per sensor.",
                    i = "Their rows have no {.field std_error}, {.field p_value} or {.field drift}. Choose a shorter {.arg period}, or check a longer span of data."),
                  class = c("ncam_warning_few_periods", "ncam_warning"), call = call)
  }
}

# The table with its Holm flags, as a tibble of class ncam_drift carrying what autoplot() needs.
finish_drift <- function(out, alpha, model, unit_columns, period) {
  out$drift <- stats::p.adjust(out$p_value, "holm") < alpha
  rownames(out) <- NULL
  out <- tibble::new_tibble(out, nrow = nrow(out), class = "ncam_drift")
  attr(out, "alpha") <- alpha
  attr(out, "transform") <- model$transform
  attr(out, "estimate_unit") <- estimate_unit(model)  # the unit of `shift`, for the plot
  attr(out, "unit_columns") <- unit_columns
  attr(out, "period") <- period
  # The sensors in the table's order, so that a subset of it keeps each sensor's colour.
  attr(out, "sensors") <- unique(as.character(out$sensor))
  out
}

# The unadjusted table of one model: per unit (unit_values), sensor and period, n, shift,
# mean_z and std_error, sorted by unit, sensor and period.
drift_rows <- function(object, newdata, time, starts, unit_values, tolerance, threads, call) {
  # A reference column that is entirely NA (the weeks after a co-location) adds nothing to
  # check; a reading is compared with the other sensors as it is: not with a unit's offset,
  # and not screened as a spike (a stuck sensor is what the check must show).
  has_reference <- !is.null(object$reference) && object$reference %in% names(newdata) &&
    !all(is.na(newdata[[object$reference]]))
  # The posterior is held only while the readings are compared: the tables need the comparison.
  loo <- leave_one_sensor_out(drift_posterior(object, newdata, has_reference, threads, call))
  sensors <- colnames(loo$z)
  if (!has_reference) sensors <- setdiff(sensors, object$reference)
  if (length(sensors) < 2L) {
    ncam_abort(c("With one low-cost sensor, {.fn sensor_drift} needs readings of the reference {.field {object$reference}} in {.arg newdata}: a reading is checked against the others of its row.",
                 i = "Add the reference column with its readings, or fit more than one low-cost sensor."), call = call)
  }
  cells <- drift_cells(unit_values, starts, time)
  tables <- lapply(sensors, drift_table, loo = loo, cells = cells, unit_values = unit_values, starts = starts,
                   tolerance = tolerance)
  out <- do.call(rbind, tables)
  out[order(out$unit, match(out$sensor, sensors), out$period, method = "radix"), ]
}

# One sensor's rows of the table, one per cell of unit and period (`cells`, from drift_cells()).
drift_table <- function(sensor, loo, cells, unit_values, starts, tolerance) {
  ord <- cells$order
  if (cells$shared_times) {
    # Readings of a unit at one time (boxes side by side) in the order of their z and shift:
    # every sum runs in one order, whatever the order of the rows.
    ord <- ord[order(cells$unit_code, cells$seconds, loo$z[ord, sensor], loo$shift[ord, sensor])]
  }
  z <- loo$z[ord, sensor]
  keys <- seq_along(cells$cell_row)
  periods <- period_means(z, loo$shift[ord, sensor], cells$cell, keys, cells$cell_unit, starts[cells$cell_row])
  spread <- period_spread(z, cells$cell, cells$unit_code, cells$seconds, periods)
  rm(z, ord)
  enough <- periods$n >= 3L
  # as.double(): ifelse() of no periods is logical(0)
  std_error <- as.double(ifelse(enough, sqrt(spread$between + spread$within[periods$unit] / periods$n), NA_real_))
  mean_z <- as.double(ifelse(enough, periods$mean_z, NA_real_))
  data.frame(unit = unit_values[cells$cell_row], sensor = rep(sensor, length(keys)), period = starts[cells$cell_row],
             n = periods$n, shift = as.double(ifelse(enough, periods$shift, NA_real_)), mean_z = mean_z,
             std_error = std_error, p_value = beyond_tolerance(mean_z, std_error, tolerance, spread$df),
             stringsAsFactors = FALSE)
}

# The cells of unit and period that sensor_drift() averages over. Units are coded in sorted
# order, by value (text of numbers could merge two units; radix: by bytes, the same in every
# locale), cells as numbers in order of first appearance (text pasted per row, and grouped by
# that text per sensor, took a third of the time at a million rows): `cell_row`, each cell's
# first row, and `cell_unit`, its unit's code. The rows are sorted once by unit and time
# (`order`), and `cell`, `unit_code` and `seconds` (the time as a number) are given in that
# order: every sum then runs in one order, whatever the order of the rows or the collation.
# `shared_times`: some rows of a unit share a time (boxes of one unit), which each sensor's
# table then orders by z and shift.
drift_cells <- function(unit_values, starts, time) {
  unit_code <- match(unit_values, sort(unique(unit_values), method = "radix"))
  period_code <- match(as.numeric(starts), unique(as.numeric(starts)))
  pair <- (unit_code - 1) * max(c(period_code, 0L)) + period_code
  cell <- match(pair, unique(pair))
  rm(pair, period_code)
  cell_row <- which(!duplicated(cell))
  seconds <- as.numeric(time)
  by_time <- order(unit_code, seconds)
  cell_unit <- unit_code[cell_row]
  unit_code <- unit_code[by_time]
  seconds <- seconds[by_time]
  later <- seq_along(by_time)[-1L]
  shared_times <- any(unit_code[later] == unit_code[later - 1L] & seconds[later] == seconds[later - 1L])
  list(order = by_time, cell = cell[by_time], unit_code = unit_code, seconds = seconds, cell_row = cell_row,
       cell_unit = cell_unit, shared_times = shared_times)
}

# p-value of "the period's true mean z lies within +-tolerance": the probability of a mean as
# far out at the nearer edge of that interval, under a t distribution with df degrees of freedom.
beyond_tolerance <- function(mean_z, std_error, tolerance, df) {
  distance <- abs(mean_z) / std_error
  edge <- tolerance / std_error
  pmin(1, stats::pt(edge - distance, df) + stats::pt(-edge - distance, df))
}

# Per unit and period (cells `keys` of units `unit`, starting at `start`): readings compared,
# mean z and mean shift. Each mean is mean() of the cell's values in their order, as tapply()
# took it, without tapply()'s text labels of every cell.
period_means <- function(z, shift, cell, keys, unit, start) {
  code <- match(cell, keys)
  groups <- code_factor(code, length(keys))
  list(n = tabulate(code[!is.na(z)], length(keys)), mean_z = group_means(z, groups),
       shift = group_means(shift, groups), unit = unit, start = as.numeric(start))
}

drift_units <- function(data, unit, call = parent.frame()) {
  if (is.null(unit)) {
    # A grouped tibble's groups, which are not read, likely name the units.
    groups <- if (inherits(data, "grouped_df")) setdiff(names(attr(data, "groups")), ".rows")
    if (length(groups)) {
      hint <- if (length(groups) == 1L) {
        "Give {.code unit = \"{groups}\"} to check each of its units, or {.code dplyr::ungroup()} the data to check them as one."
      } else {
        "Name the column that tells the units apart in {.arg unit}, or {.code dplyr::ungroup()} the data to check them as one."
      }
      ncam_abort(c("{.arg newdata} is grouped by {.field {groups}}, but groups are not read: its rows would be checked as one unit.",
                   i = hint),
                 call = call)
    }
    return(rep("all", nrow(data)))
  }
  check_string(unit, "unit", call = call)
  check_unit_names(unit, "unit", call)
  units <- unit_column(data, unit, "newdata", call)
  if (anyNA(units)) {
    ncam_abort("Column {.val {unit}} (from {.arg unit}) is missing in {rows_text(which(is.na(units)))}.",
               call = call)
  }
  units
}

# Unit columns keep their names in the result, beside its own columns.
drift_columns <- c("sensor", "period", "n", "shift", "mean_z", "std_error", "p_value", "drift")
check_unit_names <- function(columns, arg, call = parent.frame()) {
  clash <- intersect(columns, drift_columns)
  if (length(clash)) {
    ncam_abort(c("The unit column {.val {clash}} (from {.arg {arg}}) has the name of a column of the result.",
                 i = "Rename it in {.arg newdata}{if (arg == 'object') ' and refit' else ''}."), call = call)
  }
}
