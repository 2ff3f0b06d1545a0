# The 1-hour and 24-hour means of sensor_performance() and average_estimates(): per unit at its
# own time step (unit_time_steps(), R/performance-averaging.R), each period counting only with
# `completeness` of its records.

# 1-hour means of estimate and reference per unit and hour, each column on its own, for the
# rows of the units with time step `step`, below one hour and dividing it. Hours are spans of
# elapsed time starting on the local clock's hour (clock_columns()), each mean timed at its
# start; an hour counts only with `completeness` of its records, as in the EPA reports.
# `spare`: per row, the records a complete hour may lack (block_means()).
hourly_means <- function(obs, step, completeness, columns = c("est", "ref"), totals = NULL,
                         spare = 0) {
  hourly <- block_means(obs, c("unit", "day", "hour"), rep(3600 / step, nrow(obs)), completeness,
                        columns, totals, spare)
  hourly$time <- hourly$hour
  hourly
}

# 24-hour means of estimate and reference per unit and calendar day, each column on its own,
# for the rows of the units with time step `step`.
# Data of a step below one hour that divides it first become 1-hour means, as in the EPA
# reports: a day then needs `completeness` of its hours (24, or 23 or 25 on a clock change),
# each hour that of its records; `spare` applies to the stage that counts records, not hours.
# Readings an hour or more apart of the `jittered` units are first taken at their nominal times
# in zone `tz` (snap_jittered(); two there make one mean), as the "1h" block of
# average_estimates() takes hourly ones, so that days of hours agree with days of its 1-hour
# means: a reading stamped 23:58 for the hour from 00:00 is of the next day.
daily_means <- function(obs, step, completeness, columns = c("est", "ref"), totals = NULL,
                        spare = 0, jittered = character(), tz = "") {
  if (step < 3600 && 3600 %% step == 0) {
    obs <- hourly_means(obs, step, completeness, columns, totals, spare)
    step <- 3600
    spare <- 0
  } else if (any(obs$unit %in% jittered)) {
    obs <- block_means(snap_jittered(obs, jittered, step, tz, shared = "move"), c("unit", "time"),
                       rep(1, nrow(obs)), completeness, columns, totals)
    spare <- 0
  }
  # A local day holds as many records as fit its length, not always 24 hours' worth.
  block_means(obs, c("unit", "day"), obs$day_seconds / step, completeness, columns, totals,
              spare)
}

# The records a period of `expected` records needs at `completeness`, at 10 significant digits:
# in floating point 0.56 * 25 is 14.000000000000002, and a day of 14 of its 25 hours would fall
# short (0.55 * 720 and 0.07 * 3600 likewise). Also for join_reference()'s periods.
records_needed <- function(completeness, expected) signif(completeness * expected, 10)

# Means of each of `columns` per block (rows sharing the `by` columns); a block with
# fewer than `completeness` of its `expected` records (given per row, the same within a
# block) gets NA for that column. `totals`: columns summed, not averaged (counts of rows).
# `ref_complete` (when `obs` has it): every expected reference record is there, but for the
# `spare` ones (for daily means of hourly means, every hour complete), so two units' means
# cover the same.
# `spare` (per row, or one number): records a block may lack and still be complete. Jittered
# stamps (unit_time_steps()) put a complete hour's 60 minutes at 59 to 61 records, as one may
# fall across either edge; only blocks of at least `min_spared_records` expected records spare
# one (2 half-hours would count as complete with 1, 3 20-minute records with 2).
min_spared_records <- 4

block_means <- function(obs, by, expected, completeness, columns = c("est", "ref"), totals = NULL,
                        spare = 0) {
  key <- do.call(paste, c(unname(as.list(obs[by])), sep = "\r"))
  first <- !duplicated(key)
  group <- match(key, key[first])
  # rowsum() sorts by group, numbered in order of first appearance, as are `first` rows.
  expected <- expected[first]
  complete <- expected - rep_len(spare, length(first))[first] * (expected >= min_spared_records)
  needed <- pmin(records_needed(completeness, expected), complete)
  block_mean <- function(v) {
    present <- !is.na(v)
    sums <- rowsum(cbind(present, ifelse(present, v, 0)), group, reorder = TRUE)
    means <- sums[, 2] / sums[, 1]
    means[sums[, 1] == 0 | sums[, 1] < needed] <- NA
    unname(means)
  }
  out <- obs[first, c("unit", "time", "day", "hour", "day_seconds")]
  for (column in columns) out[[column]] <- block_mean(obs[[column]])
  for (column in totals) out[[column]] <- unname(rowsum(obs[[column]], group, reorder = TRUE)[, 1])
  if ("ref_complete" %in% names(obs)) {
    out$ref_complete <- unname(rowsum(as.numeric(obs$ref_complete), group, reorder = TRUE)[, 1]) >=
      complete
  }
  rownames(out) <- NULL
  out
}

# The rows of block `block` ("1h" or "24h") for the units whose step fits it (fits_span()): per
# unit, the means of `columns` at its own time step, with the sums of `totals`, readings that
# share a step first averaged into one (one_reading_per_step()). Units already at the block's
# averaging (hourly; a whole number of days apart) have their rows averaged per period, one
# record expected (two readings in one hour, such as one stamped a second early, become one
# mean); their jittered ones keep their rows as they stand unless `average_given`. Units named
# in `jittered` have complete periods with one record fewer (block_means()) at a step below an hour, their
# readings an hour or more apart form days at their nominal times (daily_means()); already at the block's
# averaging, their stamps are taken at their nominal hour or day (snap_jittered() in zone `tz`),
# where other units' periods start: a stamp at 05:57 of hourly readings around the hour is the
# reading of 06:00, not a second one of the hour from 05:00. With `ref` among `columns`, the
# frame's attribute `nominal_reference` compares the references of jittered units on their
# nominal times (nominal_reference_agreement(), for judge_colocation()).
# One pass per distinct step (block_means() groups by unit): subsetting unit by unit cost
# 17 s on 1e6 rows of 1000 units.
block_frame <- function(obs, steps, block, completeness, tz, columns = c("est", "ref"),
                        totals = NULL, average_given = FALSE, jittered = character()) {
  span <- block_span(block)
  steps <- steps[fits_span(steps, span)]
  row_step <- unname(steps)[match(obs$unit, names(steps))]
  parts <- lapply(unique(unname(steps)), function(step) {
    rows <- obs[row_step %in% step, ]
    # Two readings in one step are one record of it (R/performance-step-slots.R).
    if (step < span) rows <- one_reading_per_step(rows, step, jittered, tz, columns, totals)
    spare <- as.numeric(rows$unit %in% jittered)
    if (step < span && block == "1h") {
      return(hourly_means(rows, step, completeness, columns, totals, spare))
    }
    if (step < span) {
      return(daily_means(rows, step, completeness, columns, totals, spare, jittered, tz))
    }
    rows <- snap_jittered(rows, jittered, span, tz, shared = if (average_given) "move" else "keep")
    averaged <- average_given | !(rows$unit %in% jittered)
    if (!any(averaged)) return(rows)
    by <- if (block == "1h") c("unit", "day", "hour") else c("unit", "day")
    means <- block_means(rows[averaged, ], by, rep(1, sum(averaged)), completeness, columns, totals)
    rbind(means, rows[!averaged, names(means)])
  })
  frame <- do.call(rbind, c(list(obs[0, ]), parts))
  # Units in order of first appearance, as the rows of the result.
  frame <- frame[order(match(frame$unit, names(steps))), ]
  rownames(frame) <- NULL
  frame <- time_by_period(frame, block, tz)
  if ("ref" %in% columns && length(steps) >= 2L && any(names(steps) %in% jittered)) {
    attr(frame, "nominal_reference") <- nominal_reference_agreement(obs, steps, block,
                                                                    completeness, jittered, tz)
  }
  frame
}
