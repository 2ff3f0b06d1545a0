# Sensor performance by the US EPA targets and the EU uncertainty test: the entry point (input
# checks in R/performance-input.R, thresholds, the pass/fail judgement and the notes on units
# failing alone in R/performance-targets.R, metrics in R/performance-metrics.R, time step
# in R/performance-averaging.R, 1-hour and 24-hour means in R/performance-block-means.R; the
# class of the result and its methods in R/performance-class.R and the files it names).

#' Performance of sensor estimates against a reference
#'
#' Computes the metrics by which air sensors are judged, per unit and over all
#' units, on the data as given and on 1-hour or 24-hour averages, and checks them against
#' the US EPA performance targets and the EU expanded-uncertainty objective and
#' between-sampler criterion (see [performance_targets()] for the values and
#' their sources).
#'
#' **Metrics** (on the pairs where estimate and reference are both present):
#' `slope`, `intercept` and `r2` of the ordinary least-squares regression of the
#' sensor on the reference, estimate = slope x reference + intercept, as the
#' EPA reports define it (`r2` is the squared Pearson correlation); `rmse`;
#' `nrmse` = RMSE / mean reference x 100 (%); `mbe` = mean(estimate - reference).
#' A row with fewer than 3 pairs has NA metrics and says so in `note`.
#'
#' **The `"all"` row**: `n` counts the pairs of every unit. With one unit it
#' equals that unit's row. With two or more, `r2`, `slope` and `intercept` are
#' the means of the units' values (over the units where each is defined), as
#' EPA's `sensortoolkit` reports them: the EPA targets are set per sensor.
#' `pass_r2`, `pass_slope` and `pass_intercept` judge those means, and `note`
#' says how many of the units judged fail each target on their own (such as
#' "6 of 18 units fail the slope target"). For co-located units (beside one
#' reference; see Co-location), `rmse`, `nrmse` and `mbe` follow the EPA
#' reports (Duvall et al. 2021) and EPA's `sensortoolkit`: over the N time points at which all M units and the
#' reference are valid, RMSE = sqrt(sum over units j and times d of
#' (x_dj - R_d)^2 / (N M)), NRMSE = RMSE / (mean of R_d over those N points) x
#' 100 and MBE = sum of (x_dj - R_d) / (N M); fewer than 3 such time points give
#' NA with a note. R_d is the reference's value paired with unit j: the same for every unit
#' when the units carry the same reference rows, but a 1-hour or 24-hour mean of the
#' reference rows of unit j alone (a unit that missed two hours of a day averages the
#' reference over its other 22), where EPA's `sensortoolkit` averages the reference on its own. A unit without a single pair (a sensor that never reported)
#' is left out of M, and the note names it. Units that are not co-located (such as one unit per site,
#' each beside its own reference) have no common reference, so these three pool
#' the pairs of every unit, as do the EU metrics (`orth_slope`,
#' `orth_intercept`, `expanded_uncertainty`) in either case.
#'
#' **Co-location** is judged in each block of `averaging` on the periods it
#' scores: the times of the rows as given, the hours of the 1-hour means, the
#' days of the 24-hour means. Units that share no period (no time, hour or day
#' at which two of them have an estimate) are not co-located. Otherwise their
#' reference values decide, compared at the periods where two units both have a
#' complete reference (every expected record of the hour or day present, so
#' that the two means cover the same records) or, in a 1-hour or 24-hour block
#' without such a period, or for a unit complete in none (one lacking an hour a
#' day), at the times the rows as given share: units whose references differ there (beyond
#' rounding; for a unit complete in none, at most of them) are not co-located, and `note` says where and by how much. So an hourly unit stamped on the
#' half hour beside one stamped on the hour is co-located in the 24-hour block,
#' and a 1-minute unit beside an hourly one, each carrying the reference at its
#' own resolution, in the 1-hour block (not as given, where a one-minute
#' reference value and an hourly one differ). Units whose references are never
#' compared (such as when only one unit has a reference) are taken as
#' co-located, and `note` says so.
#'
#' **Inter-unit precision** (`"all"` row, two or more units): as in the EPA
#' reports, on the `n_precision` time points where every unit has an estimate,
#' SD = sqrt(sum over units j and times t of (x_tj - mean_t)^2 / (N M - 1)),
#' with M units (those with at least one estimate) and N time points, and CV = SD / (mean of those x_tj) x 100.
#' It needs no reference, but presumes co-located units (EPA sets it for
#' identical sensors side by side): for units that are not co-located (see
#' Co-location; such as units at different sites) `sd` and `cv` are NA and
#' `note` says why.
#'
#' **Time step**: each unit's time step is, for regular data, the step of the grid its time stamps lie
#' on: the longest gap of 10 s or more between consecutive stamps that makes 1 % of the gaps (and two
#' of them) and of which at least 80 % of the gaps are whole multiples (so a 1-minute logger that kept
#' 8 % of its minutes at random, whose most common gap may be 2 or 3 minutes, has a 1-minute step);
#' failing that, the most common gap, when it occurs twice, is most of the gaps of about its length
#' and more than half of all gaps are whole multiples of it (not merely the smallest of gaps that all
#' differ, of readings at random times). A unit with a single time stamp takes the step of all units'
#' gaps. A gap within 0.45 seconds and 5 % of a whole number of seconds counts as that number, so that
#' readings stamped a fraction of a second off a regular step (59.8, 60.3, 59.9 seconds apart) have a
#' step of one minute; the times themselves are not moved (a reading stamped at 00:59:59.9 counts in
#' the hour from 00:00). Time stamps that wander by more (a logger stamping 12:00:07, 12:01:05,
#' 12:02:09, ...), so that no gap is most of the gaps of about one step, take the step that divides an
#' hour (in whole seconds) or a day (in whole minutes), or is whole days, within 2.5 % of their mean
#' gap of about one step (longer gaps left out), when most of the gaps lie within half a step of it,
#' or (most records lost) when 80 % of 20 gaps or more lie within a quarter step of a whole number of
#' steps of 10 s or more; a message says so. Readings of a step that divides an hour stay in the hour
#' of their own stamp, so a complete hour of 1-minute data holds 59 to 61: for these units an hour
#' with one record fewer than its share counts as complete, also at `completeness = 1`, when that
#' share is 4 records or more. Other steps (hourly, 3-hourly) form days at their nominal times (see
#' Co-location of units with jittered time stamps). Gaps that scatter around no such step (7-minute
#' data with jitter, readings at random times) take as their step the mean of the gaps within half the
#' median gap of it (their most common gap would be any one of them), as in [join_reference()], but
#' gaps of whole days (24-hour samples on an uneven schedule) keep their most common gap; the warning
#' or error on a step that divides no hour or day says that they scatter. A unit that lost records
#' in a pattern may be judged at a finer step, or at the step given in `time_step` (see Time step of
#' units with records missing). Column `time_step` gives the step a unit is judged at on its
#' `"as_given"` rows; the `"as_given"` `"all"` row says `"mixed"` when the units' steps differ, and its
#' `pass_*` are then NA (each target is set for one averaging).
#'
#' **1-hour averages** (`averaging` includes `"1h"`, as by default for O3
#' and NO2, whose targets are set on 1-hour values): each unit whose time step is below
#' one hour and divides it (such as 1, 5 or 10 minutes) is averaged per hour,
#' estimate and reference separately, as in the first stage of the 24-hour
#' averages below: an hour's mean counts only if at least `completeness` of its
#' expected records (one hour / time step: 60 for 1-minute data) are present
#' (two in one step count once; see Readings that share a time step),
#' otherwise it is missing. The hours are spans of elapsed time starting on the
#' local clock's hour (in the time zone of the `date` column), so the two 01:00
#' hours of an autumn clock change are two hours, and the day of the spring
#' change has 23. Hourly units' rows are taken one per hour (two in one hour
#' give their mean), timed at the start of their hour (05:30 at 05:00) as finer
#' units' means are. Every `"1h"` row
#' has `time_step` `"1 hour"`, so the O3 and NO2 targets are judged on it; the PM2.5
#' targets are not (their `pass_*` are NA). A unit whose time step does not
#' divide an hour (such as 7 minutes, 2 hours or daily data) has no 1-hour
#' means: its `"1h"` row has `n = 0`, NA metrics and a `note` giving its step,
#' the `"all"` row is over the other units (its `note` names those left out),
#' and a warning says so. When no unit can be averaged, `averaging = "1h"`
#' alone is an error (as is any `averaging` without `"as_given"` whose blocks
#' all lack data); with `"as_given"`, the `"1h"` rows are NA with that note.
#' When every unit is hourly, one reading per hour, the `"1h"` rows would
#' repeat the `"as_given"` ones: asked together, the `"as_given"` rows come alone; `"1h"` without
#' `"as_given"` gives those rows as its own; a message says which.
#'
#' **24-hour averages** (`averaging` includes `"24h"`): a day is expected to
#' hold its length / time step records: 24 hours, or 23 or 25 on the day of a
#' daylight-saving clock change, each step of the unit's time step counting
#' once however many readings it holds. Estimate and reference
#' are averaged separately per unit and calendar day (in the time zone of the
#' `date` column, the session's when it has none); a daily mean counts only if
#' at least `completeness` of the expected records are present, otherwise it is
#' missing, as in the EPA reports. Data with a time step below one hour that
#' divides an hour (such as 1-minute data) are averaged in two stages, as EPA
#' does: 1-hour means, each counting only with `completeness` of its records,
#' then 24-hour means of those, each counting only with `completeness` of the
#' day's hours (18 of 24 at the default 0.75). The hours are spans of elapsed
#' time starting on the local clock's hour, so the two 01:00 hours of an autumn
#' clock change stay apart and that day has 25. Hourly data take the same two
#' stages, one mean per hour, so that a day needs 18 of its 24 hours, not 18
#' rows; coarser steps take the one stage. Data whose time step is a whole number of days
#' (24-hour samples, daily or every third or sixth day, or a `Date` column with
#' gaps) are taken as 24-hour values as they stand (two on one day give their
#' mean): their rows have `time_step`
#' `"24 hours"`, so the PM2.5 targets are judged on them, a message says so, and
#' `averaging = "24h"` gives those same rows; in the `"24h"` block each is of
#' the calendar day it falls in, which it shares with the 24-hour means of the
#' other units (daily rows stamped at midnight in New York beside hourly ones
#' there). Daily rows of a POSIXct `date` that all lie the same time into their
#' day, none at its start, are likely days of another time zone: with `"24h"`
#' asked, a warning of class `ncam_warning_period_offset` says which day each
#' falls in, as in [average_estimates()] (00:00 UTC in New York, 20:00, the day
#' before the one it mostly covers; in Tokyo, 09:00, the one it mostly covers). A time step above one day that is
#' not a whole number of days is judged as given (with no targets). A unit
#' whose time step neither divides a day nor is a whole number of days (such as
#' 7 minutes, or 36 hours) has no 24-hour means: its `"24h"` row has `n = 0`, NA
#' metrics and a `note` giving its step, the `"all"` row is over the other
#' units (its `note` names those left out), and a warning says so. When no unit
#' can be averaged, `averaging = "24h"` alone is an error; with `"as_given"`,
#' the `"24h"` rows are NA with that note (or, for data one or more days
#' apart, left out as above).
#'
#' **EU expanded uncertainty** (EC Guide to the Demonstration of Equivalence,
#' 2010; CEN/TS 17660-1:2021 for gases such as O3, CEN/TS 17660-2:2024 for
#' particulate matter such as PM2.5): orthogonal regression (Deming, equal error
#' variances) of sensor y on reference x gives b1 and b0 and the residual sum
#' of squares RSS; at the limit value L,
#' u^2 = RSS / (n - 2) - u^2(x) + (b0 + (b1 - 1) L)^2 and the relative expanded
#' uncertainty is `expanded_uncertainty` = 2 u / L x 100 (%), where u(x) is
#' `reference_uncertainty`. The orthogonal line is the major axis of the
#' scatter: for a stuck sensor (constant estimate, varying reference) it is
#' horizontal, b1 = 0 and b0 = the mean estimate, so the test is judged (and
#' fails unless that constant is near L); with a constant reference, or an
#' estimate uncorrelated with the reference and more variable than it, the line
#' is vertical and `expanded_uncertainty` is NA, with a note. When L lies
#' outside the range of the row's reference values (typically above all of
#' them), the line is extrapolated to L: `expanded_uncertainty` is reported but
#' `pass_expanded_uncertainty` is NA, and `note` says so.
#'
#' **EU between-sampler uncertainty** (`"all"` row, two or more co-located
#' units; EC Guide to the Demonstration of Equivalence, 2010): u(bs), how far
#' identical units side by side disagree, on the `n_between_sampler` periods
#' (times, hours or days of the block) at which two or more units have an
#' estimate, with or without a reference. For two units u(bs)^2 = sum over
#' periods i of (y_i1 - y_i2)^2 / (2 n), the Guide's formula; for more, the
#' pooled within-period variance, sum over i and units k of (y_ik - mean_i)^2 /
#' sum over i of (p_i - 1) with p_i units at period i, which is that formula
#' for two (a unit that shares few periods weighs little).
#' `between_sampler_uncertainty` is over all those periods. For PM2.5, as the
#' Guide, also over the periods whose reference (the mean of the units'
#' reference values there, so that a unit reading high does not move a period)
#' lies below 18 ug/m3 (`between_sampler_uncertainty_below`) and at or above it
#' (`between_sampler_uncertainty_above`); a period without a reference counts in
#' the whole set only. `pass_between_sampler_uncertainty`
#' is TRUE when none of the three that are computed exceeds the Guide's 2.5
#' ug/m3 for the candidate method, judged on 24-hour rows. The Guide sets no
#' criterion or split for gases: u(bs) is reported, not judged. Fewer than 3
#' periods, overall or on one side of the split, give NA with a note. With one
#' unit these are NA, as `sd` and `cv`; for units not co-located (see
#' Co-location) NA with a note.
#'
#' **Pass/fail**: a `pass_*` column is TRUE or FALSE only on rows whose
#' `time_step` equals the averaging the target is specified for (24 hours for
#' PM2.5, 1 hour for O3 and NO2); elsewhere it is NA and `note` says which averaging
#' the targets apply to (as on hourly PM2.5 rows as given). Where the metric is
#' NA, it is NA.
#' `pass_error` is RMSE or NRMSE within target, `pass_precision` SD or CV.
#' Units: the table is in the units of the data (argument `units`), each target
#' applied in its own unit, converted where it is another (see section Units).
#'
#' @param data A data frame with one row per unit and time.
#' @param estimate,reference Names of the numeric columns holding the sensor
#'   estimate and the reference measurement. Infinite values, and values beyond
#'   1e150 in magnitude (too large to compute with in double precision, as in
#'   [ncam()]), are an error, as is a name that two columns of `data` share.
#'   Missing-value codes (-999 and the like, as the readers treat them) are read
#'   as `NA`, with a warning of class `ncam_warning_missing_code`: one such value
#'   among a month of hours would decide every figure. Rows without any sensor
#'   reading (`.n_sensors` = 0 in [predict()] or [augment()], which warn about
#'   them), whose estimate is the model's prior, not a measurement, are taken
#'   without an estimate, with a message, as [average_estimates()] takes them.
#' @param date Name of the date-time (POSIXct or POSIXlt) or Date column with the
#'   time of each row; 24-hour means are over calendar days, and 1-hour means
#'   over hours of the clock, in its time zone (the session's for a date-time
#'   without one, as R prints it).
#' @param unit Name of the column identifying the sensor unit (or site), or
#'   `NULL` when all rows come from one unit. The groups of a grouped tibble
#'   are not read: times repeated without `unit` are an error suggesting it.
#' @param pollutant `"pm25"` (default), `"o3"` or `"no2"`: which targets of
#'   [performance_targets()] apply (for NO2 the EU objective alone), or with
#'   `targets`, one of the pollutants of that table (by default its only one).
#' @param averaging Which blocks of rows to give, in that order: one or more of
#'   `"as_given"` (the data as they stand), `"1h"` (1-hour means) and `"24h"`
#'   (24-hour means). `NULL` (default) gives the data as given beside the
#'   averaging of the pollutant's targets: `c("as_given", "24h")` for
#'   `"pm25"`, `c("as_given", "1h")` for `"o3"` and `"no2"`. With `"as_given"`, a block that
#'   would repeat its rows is left out, with a message: `"24h"` for data one or
#'   more days apart, `"1h"` when every unit is hourly.
#' @param completeness Fraction (0 to 1) of its expected records an hour needs
#'   for its 1-hour mean to count (data below one hour apart), and a day for its
#'   24-hour mean (of its hours, for data below one hour apart). Default 0.75.
#' @param limit_value Concentration at which the EU expanded uncertainty is
#'   evaluated, in `units`; `NULL` takes the value of [performance_targets()]
#'   (or of `targets`), converted to `units`.
#' @param reference_uncertainty Standard uncertainty u(x) of the reference
#'   measurements, in `units` (default 0, the conservative choice):
#'   the reference's own random uncertainty, such as the Guide estimates from
#'   two reference samplers side by side. The units' between-sampler
#'   uncertainty is reported on its own and does not enter it.
#' @return A tibble of class `ncam_performance` (its `print()`, `tidy()`, `glance()` and
#'   `autoplot()`: [ncam_performance-methods]) with, per averaging (in the order of `averaging`, less any
#'   block left out), one row per unit (in order of first appearance) and one
#'   with `unit = "all"`: `unit`, `averaging` (`"as_given"`, `"1h"` or
#'   `"24h"`), `time_step` (of the data the row uses: the step the unit is
#'   judged at, or `"mixed"`, on `"as_given"` rows; `"1 hour"` on `"1h"` rows; `"24 hours"` on
#'   `"24h"` rows), `n` (pairs), the metrics of Details (`r2`, `slope`,
#'   `intercept`, `rmse`, `nrmse`, `mbe`), `n_precision`, `sd`, `cv`,
#'   `orth_slope`, `orth_intercept`, `limit_value`, `expanded_uncertainty`,
#'   `n_between_sampler`, `between_sampler_uncertainty`,
#'   `between_sampler_uncertainty_below`, `between_sampler_uncertainty_above`
#'   (NA on the units' rows, as `n_precision`, `sd` and `cv`), the `pass_*`
#'   columns and `note` (why values are NA or not judged, and on the
#'   `"all"` row how many units fail a target on their own and, when it is not
#'   plain, whether the units are taken as co-located and why).
#' @references Duvall R. M. et al. (2021). Performance Testing Protocols,
#'   Metrics, and Target Values for Fine Particulate Matter Air Sensors. U.S.
#'   EPA, EPA/600/R-20/280. Duvall R. M. et al. (2021). Performance Testing
#'   Protocols, Metrics, and Target Values for Ozone Air Sensors. U.S. EPA,
#'   EPA/600/R-20/279. Directive 2008/50/EC of the European Parliament and of
#'   the Council of 21 May 2008 on ambient air quality and cleaner air for
#'   Europe, Annexes I, VI, VII and XI. EC Working Group on Guidance for the
#'   Demonstration of Equivalence (2010). Guide to the Demonstration of
#'   Equivalence of Ambient Air Monitoring Methods. CEN/TS 17660-1:2021, Air quality - Performance
#'   evaluation of air quality sensor systems - Part 1: Gaseous pollutants.
#'   CEN/TS 17660-2:2024, Air quality - Performance evaluation of air quality
#'   sensor systems - Part 2: Particulate matter in ambient air.
#' @seealso [performance_targets()], [ncam_performance-methods]
#' @export
#' @examples
#' set.seed(1)
#' hours <- seq(as.POSIXct("2024-01-01", tz = "UTC"), by = "hour", length.out = 24 * 10)
#' truth <- 8 + 4 * sin(seq_along(hours) / 10) + rexp(length(hours))
#' obs <- data.frame(date = rep(hours, 2), unit = rep(c("a", "b"), each = length(hours)),
#'                   ref = rep(truth, 2))
#' obs$pm <- 1.1 * obs$ref + 0.5 + rnorm(nrow(obs))
#' perf <- sensor_performance(obs, estimate = "pm", reference = "ref", unit = "unit")
#' perf
#' as.data.frame(perf[perf$unit == "all", c("averaging", "n", "rmse", "pass_error")])
#' # O3 in ug/m3, as EU networks report it: EPA's targets in ppb are converted to ug/m3.
#' o3 <- data.frame(date = hours, ref = 60 + 30 * sin(seq_along(hours) / 4))
#' o3$est <- 1.05 * o3$ref + rnorm(nrow(o3), sd = 5)
#' glance(sensor_performance(o3, "est", "ref", pollutant = "o3", units = "ug/m3"))
sensor_performance <- function(data, estimate, reference, date = "date", unit = NULL,
                               pollutant = c("pm25", "o3", "no2"), averaging = NULL,
                               completeness = 0.75, limit_value = NULL,
                               reference_uncertainty = 0, time_step = NULL, units = NULL,
                               targets = NULL) {
  check_column_name_args(c("estimate", "reference", "date", "unit"))
  chosen <- performance_target_rows(targets, pollutant, missing(pollutant))
  pollutant <- chosen$pollutant
  # By default the averaging of the pollutant's targets beside the data as given.
  if (is.null(averaging)) {
    averaging <- c("as_given", if (chosen$rows$averaging[1] == "1 hour") "1h" else "24h")
  }
  if (!is.character(averaging) || length(averaging) == 0L || anyNA(averaging) ||
      !all(averaging %in% c("as_given", "1h", "24h")) || anyDuplicated(averaging)) {
    ncam_abort("{.arg averaging} must be one or more of {.val as_given}, {.val 1h} and
                    {.val 24h} (each once), or {.code NULL} for the pollutant's default.")
  }
  check_number(completeness, "completeness", min = 0, max = 1)
  check_number(limit_value, "limit_value", min = 0, allow_null = TRUE)
  if (identical(limit_value > 0, FALSE)) ncam_abort("{.arg limit_value} must be positive.")
  check_number(reference_uncertainty, "reference_uncertainty", min = 0)
  obs <- performance_input(data, estimate, reference, date, unit, units, pollutant)
  targets <- targets_in_units(chosen$rows, attr(obs, "units"), pollutant)
  # Without a limit value (targets given without one), no expanded uncertainty.
  limit_row <- targets$metric == "limit_value"
  if (is.null(limit_value)) limit_value <- c(targets$upper[limit_row], NA_real_)[1]
  split <- targets$upper[targets$metric == "between_sampler_split"]
  unpaired <- sum(is.na(obs$est) | is.na(obs$ref))
  if (unpaired == nrow(obs)) {
    ncam_abort(c("No row has both an estimate ({.val {estimate}}) and a reference
                      ({.val {reference}}); nothing to compare.",
                 i = "Check that the two columns overlap in time."))
  }
  # Each unit's own time step: an hourly unit beside a 10-minute one keeps its 24 hours a day.
  timing <- unit_time_steps(obs, !is.null(unit), time_step, stats::setNames("ref", reference))
  steps <- timing$steps
  # A date without a time is a day, however few of them there are.
  if (inherits(data[[date]], "Date")) steps[is.na(steps)] <- 86400
  # Daily rows are taken as 24-hour values, of the day they fall in, in the block or as given.
  if ("24h" %in% averaging) warn_days_offset(data[[date]], date, obs, steps)
  crowded <- crowded_blocks(obs, steps, timing$jittered, attr(obs, "tz"))
  averaging <- settle_averaging(averaging, steps, crowded)
  warn_crowded_steps(obs, steps, timing$jittered, attr(obs, "tz"), !is.null(unit), averaging)
  steps[vapply(steps, whole_day_step, logical(1))] <- 86400
  inform_unpaired(unpaired, averaging, steps)
  # A unit whose step does not fit an hour or a day (7-minute data) loses its own rows of
  # that block only.
  unfit <- sapply(c("1h", "24h"), function(block) steps[!fits_span(steps, block_span(block))],
                  simplify = FALSE)
  check_unfit(unfit, steps, averaging, environment(), timing$irregular)
  raw_agreement <- reference_agreement(obs)
  units <- if (is.null(unit)) character() else names(steps)
  rows <- lapply(averaging, function(avg) {
    frame <- if (avg == "as_given") {
      obs
    } else {
      block_frame(obs, steps, avg, completeness, attr(obs, "tz"), jittered = timing$jittered)
    }
    period <- c(as_given = "time", "1h" = "hour", "24h" = "day")[[avg]]
    out <- score_units(frame, units, raw_agreement, period, limit_value, reference_uncertainty,
                       split)
    if (avg != "as_given") out <- note_unfit(out, unfit[[avg]], avg)
    labels <- switch(avg, as_given = step_labels(steps, !is.null(unit)), "1h" = "1 hour",
                     "24h" = "24 hours")
    cbind(averaging = avg, time_step = labels, out)
  })
  result <- note_unit_failures(judge_targets(do.call(rbind, rows), targets))
  # Rows left out for their time step have their own warning.
  skipped <- Reduce(`|`, lapply(names(unfit), function(block) {
    result$averaging == block &
      (result$unit %in% names(unfit[[block]]) | length(unfit[[block]]) == length(steps))
  }))
  short <- sum(result$n < 3L & !skipped)
  if (short > 0L) {
    cli::cli_warn("{short} result row{?s} ha{?s/ve} fewer than 3 complete pairs; {?its/their}
                   metrics are NA (see column {.field note}).", class = c("ncam_warning_few_pairs", "ncam_warning"))
  }
  columns <- c("unit", "averaging", "time_step", "n", "r2", "slope", "intercept", "rmse",
               "nrmse", "mbe", "n_precision", "sd", "cv", "orth_slope", "orth_intercept",
               "limit_value", "expanded_uncertainty", "n_between_sampler",
               "between_sampler_uncertainty", "between_sampler_uncertainty_below",
               "between_sampler_uncertainty_above", "pass_r2", "pass_slope", "pass_intercept",
               "pass_error", "pass_precision", "pass_expanded_uncertainty",
               "pass_between_sampler_uncertainty", "note")
  new_performance(result[columns], pollutant, targets)
}
