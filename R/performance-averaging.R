# The time step of the data and the 24-hour means that sensor_performance() judges PM2.5 on.

# The most common gap (seconds) between consecutive time stamps of a unit; NA when no
# unit has two time stamps.
time_step_seconds <- function(obs) {
  gaps <- unlist(lapply(split(obs$time, obs$unit), function(t) diff(sort(t))))
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

# Data one or more whole days apart (24-hour samples, daily or every third or sixth day).
whole_day_step <- function(step) isTRUE(step >= 86400 && step %% 86400 == 0)

# What is done with data one or more days apart, for the message.
coarse_step_message <- function(step, averaging) {
  days <- step / 86400
  taken <- if (days == 1 || !whole_day_step(step)) {
    sprintf("The data have one value per %s already", format_step(step))
  } else {
    sprintf("The data are taken as 24-hour values (one every %d days)", days)
  }
  done <- if (length(averaging) == 2L) {
    ": they are judged as given, with no separate 24-hour block."
  } else if (averaging == "24h") {
    ": the 24-hour block holds them as given."
  } else {
    "."
  }
  paste0(taken, done)
}

# 24-hour means of estimate and reference per unit and calendar day, each column on its own.
# Data of a step below one hour that divides it first become 1-hour means, as in the EPA
# reports: a day then needs `completeness` of its 24 hours, each hour that of its records.
daily_means <- function(obs, step, completeness, call) {
  if (is.na(step) || step > 86400 || 86400 %% step != 0) {
    cli::cli_abort(c("{.arg averaging} {.val 24h} needs a time step that divides a day or is a
                      whole number of days; the data's is {format_step(step)}.",
                     i = "Use {.code averaging = \"as_given\"} or put the data on a regular grid."),
                   call = call)
  }
  if (step < 3600 && 3600 %% step == 0) {
    obs <- block_means(obs, c("unit", "day", "hour"), 3600 / step, completeness)
    step <- 3600
  }
  daily <- block_means(obs, c("unit", "day"), 86400 / step, completeness)
  daily$time <- daily$day * 86400
  daily
}

# Means of estimate and reference per block (rows sharing the `by` columns); a block with
# fewer than `completeness` of its `expected` records gets NA for that column.
block_means <- function(obs, by, expected, completeness) {
  key <- do.call(paste, c(unname(as.list(obs[by])), sep = "\r"))
  first <- !duplicated(key)
  group <- match(key, key[first])
  block_mean <- function(v) {
    present <- !is.na(v)
    sums <- rowsum(cbind(present, ifelse(present, v, 0)), group, reorder = TRUE)
    means <- sums[, 2] / sums[, 1]
    means[sums[, 1] == 0 | sums[, 1] < completeness * expected] <- NA
    unname(means)
  }
  out <- obs[first, c("unit", "time", "day", "hour")]
  out$est <- block_mean(obs$est)
  out$ref <- block_mean(obs$ref)
  rownames(out) <- NULL
  out
}
