# The time step of the data and the 24-hour means that sensor_performance() judges PM2.5 on.

# The most common gap (seconds) between consecutive time stamps of each unit, named by unit in
# order of first appearance. A unit with one time stamp takes the most common gap of all units;
# NA when no unit has two time stamps.
unit_time_steps <- function(obs) {
  units <- unique(obs$unit)
  gaps <- lapply(split(obs$time, factor(obs$unit, units)), function(t) diff(sort(t)))
  steps <- vapply(gaps, most_common_gap, numeric(1))
  steps[is.na(steps)] <- most_common_gap(unlist(gaps))
  steps
}

most_common_gap <- function(gaps) {
  gaps <- round(gaps[gaps > 0], 3)
  if (length(gaps) == 0L) return(NA_real_)
  as.numeric(names(which.max(table(gaps))))
}

format_step <- function(seconds) {
  if (is.na(seconds)) return(NA_character_)
  sizes <- c(hour = 3600, minute = 60, second = 1)
  size <- sizes[which(seconds %% sizes == 0)[1]]
  if (is.na(size)) return(paste(seconds, "seconds"))
  count <- seconds / size
  paste(count, paste0(names(size), if (count != 1) "s"))
}

# The `time_step` of the units' rows and of the "all" row: "mixed" when the units' steps differ.
step_labels <- function(steps, unit_rows) {
  labels <- vapply(steps, format_step, character(1))
  all <- if (length(unique(labels)) > 1L) "mixed" else labels[[1]]
  unname(c(if (unit_rows) labels, all))
}

# Data one or more whole days apart (24-hour samples, daily or every third or sixth day).
whole_day_step <- function(step) isTRUE(step >= 86400 && step %% 86400 == 0)

# What is done with data one or more days apart, for the message; `dropped` when no separate
# 24-hour block is given.
coarse_step_message <- function(step, averaging, dropped) {
  days <- step / 86400
  taken <- if (days == 1 || !whole_day_step(step)) {
    sprintf("The data have one value per %s already", format_step(step))
  } else {
    sprintf("The data are taken as 24-hour values (one every %d days)", days)
  }
  done <- if (dropped) {
    ": they are judged as given, with no separate 24-hour block."
  } else if ("24h" %in% averaging) {
    ": the 24-hour block holds them as given."
  } else {
    "."
  }
  paste0(taken, done)
}

# Calendar columns of each time in zone `tz`: `day` (days since 1970-01-01 of the local date),
# `hour` (the hour of elapsed time holding it, numbered from the epoch) and `day_seconds` (the
# length of its local day: 23 or 25 hours on a clock change). Hours are instants, so the two
# 01:00s of an autumn clock change stay apart; they start on the local clock's hour, also
# where the offset from UTC is not whole hours (India, UTC+05:30).
clock_columns <- function(time, tz) {
  if (inherits(time, "Date")) {
    day <- as.numeric(time)
    return(list(day = day, hour = day * 24, day_seconds = rep(86400, length(day))))
  }
  seconds <- as.numeric(time)
  offset <- as.POSIXlt(time, tz = tz)$gmtoff
  if (is.null(offset)) offset <- 0
  offset[is.na(offset)] <- 0
  day <- as.numeric(as.Date(time, tz = tz))
  days <- unique(day)
  starts <- as.numeric(day_start(as.Date(c(days, days + 1), origin = "1970-01-01"), tz))
  span <- starts[length(days) + seq_along(days)] - starts[seq_along(days)]
  list(day = day, hour = floor((seconds + offset %% 3600) / 3600),
       day_seconds = span[match(day, days)])
}

# Steps 24-hour means can be taken at: a divisor of a day, or whole days (rows as given).
fits_day <- function(steps) {
  vapply(steps, function(s) isTRUE(whole_day_step(s) || (s <= 86400 && 86400 %% s == 0)),
         logical(1))
}

# Why a unit of step `step` has no 24-hour means, for its note.
unfit_reason <- function(step) {
  if (is.na(step)) return("one time stamp per unit: no time step, no 24-hour means")
  sprintf("time step %s does not divide a day: no 24-hour means", format_step(step))
}

# With `unfit` (the steps of units that do not fit a day, named by unit) not empty: an error
# when no unit fits and "24h" is all that was asked, else a warning naming the units.
check_unfit <- function(unfit, steps, averaging, call) {
  if (length(unfit) == 0L || !"24h" %in% averaging) return(invisible())
  named <- !identical(names(steps), "all")
  whose <- if (named) cli::format_inline("of unit{?s} {.val {names(unfit)}}") else "of the data"
  shown <- toString(vapply(unique(unname(unfit)), format_step, character(1)))
  n <- cli::qty(length(unfit))
  if (length(unfit) == length(steps) && identical(averaging, "24h")) {
    cli::cli_abort(c("{.arg averaging} {.val 24h} needs a time step that divides a day or is a
                      whole number of days; that {whose} is {shown}.",
                     i = "Use {.code averaging = \"as_given\"} or put the data on a regular grid."),
                   call = call)
  }
  cli::cli_warn(c("The time step {whose} ({shown}) does not divide a day: {n}{?its/their}
                   24-hour metrics are NA (see column {.field note}).",
                  i = "Put {n}{?that unit/those units} on a regular grid to judge {?it/them} on
                       24-hour means."))
}

# Notes on the 24-hour rows of units left out for their step, and on the "all" row.
note_unfit <- function(out, unfit) {
  own <- match(out$unit, names(unfit))
  out$note[!is.na(own)] <- vapply(unfit[own[!is.na(own)]], unfit_reason, character(1))
  all_row <- out$unit == "all" & is.na(own)
  if (length(unfit) > 0L && any(all_row)) {
    out$note[all_row] <- if (all(out$unit[!all_row] %in% names(unfit))) {
      "no unit has a time step that divides a day: no 24-hour means"
    } else {
      paste_notes(out$note[all_row], sprintf("%s left out: time step does not divide a day",
                                             paste(if (length(unfit) == 1L) "unit" else "units", toString(names(unfit)))))
    }
  }
  out
}

# 24-hour means of estimate and reference per unit and calendar day, each column on its own,
# for the rows of the units with time step `step`.
# Data of a step below one hour that divides it first become 1-hour means, as in the EPA
# reports: a day then needs `completeness` of its hours (24, or 23 or 25 on a clock change),
# each hour that of its records.
daily_means <- function(obs, step, completeness) {
  if (step < 3600 && 3600 %% step == 0) {
    obs <- block_means(obs, c("unit", "day", "hour"), rep(3600 / step, nrow(obs)), completeness)
    step <- 3600
  }
  # A local day holds as many records as fit its length, not always 24 hours' worth.
  daily <- block_means(obs, c("unit", "day"), obs$day_seconds / step, completeness)
  daily$time <- daily$day * 86400
  daily
}

# Means of estimate and reference per block (rows sharing the `by` columns); a block with
# fewer than `completeness` of its `expected` records (given per row, the same within a
# block) gets NA for that column.
block_means <- function(obs, by, expected, completeness) {
  key <- do.call(paste, c(unname(as.list(obs[by])), sep = "\r"))
  first <- !duplicated(key)
  group <- match(key, key[first])
  # rowsum() sorts by group, numbered in order of first appearance, as are `first` rows.
  expected <- expected[first]
  block_mean <- function(v) {
    present <- !is.na(v)
    sums <- rowsum(cbind(present, ifelse(present, v, 0)), group, reorder = TRUE)
    means <- sums[, 2] / sums[, 1]
    means[sums[, 1] == 0 | sums[, 1] < completeness * expected] <- NA
    unname(means)
  }
  out <- obs[first, c("unit", "time", "day", "hour", "day_seconds")]
  out$est <- block_mean(obs$est)
  out$ref <- block_mean(obs$ref)
  rownames(out) <- NULL
  out
}

# The rows of the 24-hour block: per unit, daily means at its own time step, or its rows as
# they stand when they are a whole number of days apart; units whose step fits neither
# (fits_day()) are left out.
# One pass per distinct step (block_means() groups by unit): subsetting unit by unit cost
# 17 s on 1e6 rows of 1000 units.
daily_frame <- function(obs, steps, completeness) {
  steps <- steps[fits_day(steps)]
  row_step <- unname(steps)[match(obs$unit, names(steps))]
  parts <- lapply(unique(unname(steps)), function(step) {
    rows <- obs[row_step %in% step, ]
    if (whole_day_step(step)) rows else daily_means(rows, step, completeness)
  })
  frame <- do.call(rbind, c(list(obs[0, ]), parts))
  # Units in order of first appearance, as the rows of the result.
  frame <- frame[order(match(frame$unit, names(steps))), ]
  rownames(frame) <- NULL
  frame
}
