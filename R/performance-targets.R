# The performance targets sensors are judged by (US EPA, EU), in one table that
# sensor_performance() and the documentation read, the pass/fail judgement against them, and the
# note on the units that fail a target alone.

performance_target_table <- local({
  epa_pm25 <- "Duvall et al. (2021), U.S. EPA, EPA/600/R-20/280 (PM2.5 air sensor targets)"
  epa_o3 <- "Duvall et al. (2021), U.S. EPA, EPA/600/R-20/279 (O3 air sensor targets)"
  eu_dqo <- paste("Directive 2008/50/EC, Annex I, Section A: DQO for indicative measurements",
                  "(as in CEN/TS 17660)")
  gde_pm <- paste("EC Guide to the Demonstration of Equivalence (2010): PM2.5 at 30 ug/m3 on",
                  "24-hour values (the 2008/50/EC annual limit value is 25 ug/m3)")
  eu_o3 <- paste("Directive 2008/50/EC, Annex VII: O3 target value 120 ug/m3 (maximum daily",
                 "8-hour mean), at 293 K and 101.3 kPa (Annex VI, Section C)")
  eu_no2 <- paste("Directive 2008/50/EC, Annex XI: NO2 1-hour limit value 200 ug/m3, at 293 K",
                  "and 101.3 kPa (Annex VI, Section C)")
  gde_bs <- paste("EC Guide to the Demonstration of Equivalence (2010): between-sampler",
                  "uncertainty of the candidate method at most 2.5 ug/m3")
  gde_split <- paste("EC Guide to the Demonstration of Equivalence (2010): PM2.5 data split at",
                     "18 ug/m3 for the between-sampler uncertainty")
  epa <- c("r2", "slope", "intercept", "rmse", "nrmse", "sd", "cv")
  table <- tibble::tibble(
    pollutant = c(rep("pm25", 9), rep("o3", 8)),
    framework = c(rep("US EPA", 7), "EU", "EU", rep("US EPA", 6), "EU", "EU"),
    metric = c(epa, "expanded_uncertainty", "limit_value",
               setdiff(epa, "nrmse"), "expanded_uncertainty", "limit_value"),
    lower = c(0.70, 0.65, -5, 0, 0, 0, 0, 0, 30, 0.80, 0.80, -5, 0, 0, 0, 0, 120),
    upper = c(1, 1.35, 5, 7, 30, 5, 30, 50, 30, 1, 1.20, 5, 5, 5, 30, 30, 120),
    unit = c("", "", "ug/m3", "ug/m3", "%", "ug/m3", "%", "%", "ug/m3",
             "", "", "ppb", "ppb", "ppb", "%", "%", "ug/m3"),
    averaging = c(rep("24 hours", 9), rep("1 hour", 8)),
    source = c(rep(epa_pm25, 7), eu_dqo, gde_pm, rep(epa_o3, 6), eu_dqo, eu_o3)
  )
  # The Guide sets them for particulate matter only: none for O3.
  between_sampler <- tibble::tibble(
    pollutant = "pm25", framework = "EU",
    metric = c("between_sampler_uncertainty", "between_sampler_split"),
    lower = c(0, 18), upper = c(2.5, 18), unit = "ug/m3", averaging = "24 hours",
    source = c(gde_bs, gde_split)
  )
  # NO2: the EU objective alone (the 25 % of indicative measurements of NO2, at its 1-hour limit
  # value); no US EPA targets for NO2 sensors are given here.
  no2 <- tibble::tibble(
    pollutant = "no2", framework = "EU", metric = c("expanded_uncertainty", "limit_value"),
    lower = c(0, 200), upper = c(25, 200), unit = c("%", "ug/m3"), averaging = "1 hour",
    source = c(sub("(as in", "(NO2 25 %; as in", eu_dqo, fixed = TRUE), eu_no2)
  )
  rbind(table[table$pollutant == "pm25", ], between_sampler, table[table$pollutant == "o3", ], no2)
})

# The pass_* columns: TRUE or FALSE only on rows at the averaging the target is specified for;
# NA throughout for a target the table lacks (custom targets may give some metrics only).
judge_targets <- function(result, targets) {
  check <- function(metric, value) {
    target <- targets[targets$metric == metric, ]
    if (nrow(target) == 0L) return(NULL)
    # At 10 significant digits, so that float rounding does not fail a value on the bound.
    value <- signif(value, 10)
    pass <- value >= target$lower & value <= target$upper
    pass[is.na(result$time_step) | result$time_step != target$averaging] <- NA
    pass
  }
  none <- rep(NA, nrow(result))
  either <- function(a, b) if (is.null(a) && is.null(b)) none else if (is.null(b)) a else if (is.null(a)) b else a | b
  result$pass_r2 <- either(check("r2", result$r2), NULL)
  result$pass_slope <- either(check("slope", result$slope), NULL)
  result$pass_intercept <- either(check("intercept", result$intercept), NULL)
  result$pass_error <- either(check("rmse", result$rmse), check("nrmse", result$nrmse))
  result$pass_precision <- either(check("sd", result$sd), check("cv", result$cv))
  result$pass_expanded_uncertainty <- either(check("expanded_uncertainty",
                                                   result$expanded_uncertainty), NULL)
  result$pass_expanded_uncertainty[result$limit_outside] <- NA
  # The whole set and each subset computed must be within the criterion; none for O3.
  between <- lapply(paste0("between_sampler_uncertainty", c("", "_below", "_above")),
                    function(column) check("between_sampler_uncertainty", result[[column]]))
  result$pass_between_sampler_uncertainty <- NA
  if (!is.null(between[[1]])) {
    within <- rowSums(!do.call(cbind, between), na.rm = TRUE) == 0
    result$pass_between_sampler_uncertainty <- ifelse(is.na(between[[1]]), NA, within)
  }
  note_other_steps(result, unique(targets$averaging), framework_words(targets))
}

# "US EPA and EU", or the one framework of the targets.
framework_words <- function(targets) {
  frameworks <- intersect(c("US EPA", "EU"), targets$framework)
  if (length(frameworks)) paste(frameworks, collapse = " and ") else "the"
}

# Rows with metrics at a time step the targets are not set for (hourly data as given, for
# PM2.5): every pass_* is NA, and the note says why, beside any other reason it gives.
note_other_steps <- function(result, averaging, frameworks = "US EPA and EU") {
  judged <- c("r2", "slope", "intercept", "rmse", "nrmse", "sd", "cv", "expanded_uncertainty",
              "between_sampler_uncertainty")
  has_metric <- rowSums(!is.na(as.data.frame(result)[judged])) > 0L
  other <- has_metric & !is.na(result$time_step) & result$time_step != averaging
  set_for <- paste0(frameworks, " targets apply to ", sub(" hours?$", "-hour", averaging), " averages")
  why <- ifelse(result$time_step == "mixed",
                paste0(set_for, ": not judged where the units' time steps differ"),
                paste0(set_for, ": not judged at a time step of ", result$time_step))
  result$note[other] <- vapply(which(other), function(i) paste_notes(why[i], result$note[i]), "")
  result
}

#' Performance targets for air sensors (US EPA and EU)
#'
#' The table of thresholds [sensor_performance()] judges against, with the
#' source of each value. Each is in the unit its source sets it in (column
#' `unit`); [sensor_performance()] converts those of a gas to the units of the
#' data (see its section Units). US EPA base-testing targets (as in EPA's own
#' `sensortoolkit` library): PM2.5 on 24-hour averages in ug/m3, O3 on 1-hour
#' averages in ppb (the O3 report sets no NRMSE target). EU: relative expanded
#' uncertainty at the limit value no larger than the data quality objective for
#' indicative measurements of Directive 2008/50/EC, Annex I (PM2.5 50 %, O3
#' 30 %, NO2 25 %), which CEN/TS 17660-1 (gases) and CEN/TS 17660-2
#' (particulate matter) classify sensors against. The concentration it is
#' evaluated at (`metric == "limit_value"`, in both `lower` and `upper`) is 30
#' ug/m3 for PM2.5, the value the EC Guide (2010) uses for 24-hour PM2.5 (the
#' annual limit value of 2008/50/EC is 25 ug/m3), for O3 the 120 ug/m3 target
#' value (maximum daily 8-hour mean, Annex VII), and for NO2 the 200 ug/m3
#' 1-hour limit value (Annex XI), on 1-hour values as for O3; the Directive
#' gives these at 293 K and 101.3 kPa (Annex VI, Section C).
#' [sensor_performance()] takes another value through `limit_value`. The test
#' looks at the orthogonal line at that one concentration only: a line that
#' crosses y = x near it passes whatever its slope, even one falling as the
#' reference rises (R2 does not see the sign either): the EPA slope target
#' judges the slope. EU, for
#' PM2.5 only: the between-sampler uncertainty of two or more identical units
#' side by side (the candidate method) at most 2.5 ug/m3 on 24-hour values, on
#' the whole data set and on the periods whose reference lies below and at or
#' above 18 ug/m3 (`metric == "between_sampler_split"`, in both `lower` and
#' `upper`), as the EC Guide (2010) sets for particulate matter; it sets none
#' for gases.
#'
#' NO2 has the EU objective only: US EPA announced targets for NO2 sensors in
#' 2024, in a supplement to its 2021 reports, whose values are not in this
#' table; give them, or any other set, to [sensor_performance()] through
#' `targets`, a table of these columns (such as this one with rows changed or
#' added: see the examples).
#'
#' @param pollutant `NULL` (default) for every pollutant, or the names of
#'   those to keep (`"pm25"`, `"o3"`, `"no2"`).
#' @references Duvall R. M. et al. (2021). Performance Testing Protocols, Metrics,
#'   and Target Values for Fine Particulate Matter Air Sensors. U.S. EPA,
#'   EPA/600/R-20/280. Duvall R. M. et al. (2021). Performance Testing
#'   Protocols, Metrics, and Target Values for Ozone Air Sensors. U.S. EPA,
#'   EPA/600/R-20/279. Directive 2008/50/EC of the European Parliament and of
#'   the Council of 21 May 2008 on ambient air quality and cleaner air for
#'   Europe, Annexes I, VI, VII and XI. EC Working Group on Guidance for the
#'   Demonstration of Equivalence (2010). Guide to the Demonstration of
#'   Equivalence of Ambient Air Monitoring Methods. CEN/TS 17660-1:2021, Air
#'   quality - Performance evaluation of air quality sensor systems - Part 1:
#'   Gaseous pollutants. CEN/TS 17660-2:2024, Air quality - Performance
#'   evaluation of air quality sensor systems - Part 2: Particulate matter in
#'   ambient air.
#' @return A tibble with one row per threshold: `pollutant` (`"pm25"`, `"o3"`,
#'   `"no2"`), `framework` (`"US EPA"`, `"EU"`), `metric`, the accepted range
#'   `lower` to `upper` (inclusive), `unit`, `averaging` (that the target applies
#'   to), `source`.
#' @seealso [sensor_performance()] (its argument `targets` takes such a table)
#' @export
#' @examples
#' performance_targets()
#' # Stricter EPA-style targets for O3: change a copy and pass it to sensor_performance().
#' mine <- performance_targets("o3")
#' mine$upper[mine$metric == "rmse"] <- 3
#' mine
performance_targets <- function(pollutant = NULL) {
  if (is.null(pollutant)) return(performance_target_table)
  known <- unique(performance_target_table$pollutant)
  if (!is.character(pollutant) || anyNA(pollutant) || !all(pollutant %in% known)) {
    ncam_abort("{.arg pollutant} must be {.code NULL} or one or more of {.val {known}}.")
  }
  performance_target_table[performance_target_table$pollutant %in% pollutant, ]
}

# The "all" row's R2, slope and intercept are means over units: say how many units fail alone.
note_unit_failures <- function(result) {
  labels <- c(r2 = "R\u00b2", slope = "slope", intercept = "intercept")
  for (avg in unique(result$averaging)) {
    units <- result$averaging == avg & result$unit != "all"
    if (sum(units) < 2L) next
    all_row <- result$averaging == avg & result$unit == "all"
    for (metric in names(labels)) {
      pass <- result[[paste0("pass_", metric)]][units]
      if (any(!pass, na.rm = TRUE)) {
        result$note[all_row] <- paste_notes(result$note[all_row], sprintf(
          "%d of %d units %s the %s target", sum(!pass, na.rm = TRUE), sum(!is.na(pass)),
          if (sum(!pass, na.rm = TRUE) == 1L) "fails" else "fail",
          labels[[metric]]
        ))
      }
    }
  }
  result
}

paste_notes <- function(...) {
  notes <- c(...)
  notes <- unique(notes[!is.na(notes)])
  if (length(notes) == 0L) NA_character_ else paste(notes, collapse = "; ")
}
