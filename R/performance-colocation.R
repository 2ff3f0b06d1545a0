# Whether the units of one block of sensor_performance() (the rows as given, 1-hour or 24-hour
# means) stand beside one reference: EPA's RMSE over common times and its inter-unit SD and CV
# presume co-located units.

#' @section Co-location of units with jittered time stamps:
#' The 1-hour means of a unit whose time stamps wander around a step that
#' divides an hour (see Time step in Details) hold the readings of their own
#' stamps, so that two such units beside one reference can have hourly and
#' daily reference means that differ slightly (one hour holds 59 minutes, the
#' other's 60). Their references are then also compared with each stamp taken
#' at its nominal time, leaving out stamps of a unit that share one nominal
#' time. A stamp's nominal time is the time nearest it, on the local clock (in
#' the time zone of the `date` column), at the unit's phase: the mean position
#' of its stamps within the step, rounded to a quarter step, at most a quarter
#' hour. So hourly stamps around :57 take the next hour's :00 (05:57 is the
#' reading of 06:00), while stamps around :48 to :52 take :45 and stay in the
#' hour of their stamp. On the local clock, daily stamps around midnight in a
#' zone with summer time keep their day in winter and summer alike; a unit has
#' a phase for each offset from UTC that differs by part of its step, so that
#' readings every elapsed hour in Lord Howe (on the hour in summer, UTC+11, on
#' the half hour in winter, UTC+10:30) each keep their hour. The units are
#' co-located when their references agree in either comparison and the one on
#' nominal times compares every unit the other does; units at different sites
#' differ in both. In the `"1h"` block the rows of hourly units with such
#' stamps, and in the `"24h"` block those of daily units, taken as they stand,
#' are timed at their nominal hour or day, so that they share periods with the
#' other units (a stamp that shares its nominal time with another of its
#' unit's keeps its own). Readings of a step that does not divide an hour
#' (hourly, 3-hourly) form the 24-hour means at their nominal times (two at
#' one nominal time are averaged first), so that a reading stamped 23:58 for
#' the hour from 00:00 counts in the day that hour starts, and a complete day
#' holds all its nominal times.
#' @rdname sensor_performance
#' @name sensor_performance
NULL

# How far the units' references agree: `shared` periods (times of the frame) at which two or
# more units have a complete reference (every record of the period present, so that two means
# cover the same records; but for a jittered unit's spared record), `differ` of those where the
# values disagree, the largest difference `by` and the `units` compared.
reference_agreement <- function(frame) {
  keep <- frame$ref_complete
  ref <- frame$ref[keep]
  if (length(ref) == 0L) return(list(shared = 0L, differ = 0L, by = 0, units = character()))
  time <- factor(frame$time[keep])
  shared <- tabulate(time, nlevels(time)) >= 2L
  spread <- (tapply(ref, time, max) - tapply(ref, time, min))[shared]
  list(shared = sum(shared), differ = sum(spread > 1e-8 * (1 + max(abs(ref)))),
       by = if (any(shared)) max(spread) else 0, units = unique(frame$unit[keep][shared[time]]))
}

# Whether the units of `frame`, a block whose periods are called `period` ("time", "hour",
# "day"), are taken as co-located, and a note when that is not plainly so. Units sharing no
# period are not. Otherwise their references decide, compared at the periods of the block
# where two units have complete references, else at the times of the rows as given (`raw`,
# the reference_agreement() of those rows: 55 of 60 minutes make an hour's mean differ from
# another unit's 60), and, for a block with jittered units, also as the frame's attribute
# `nominal_reference` (nominal_reference_agreement()) compares them on their nominal times;
# a unit with a reference complete in no shared period is compared at those times too.
# References never compared leave the units taken as co-located, said in the note.
judge_colocation <- function(frame, raw, period) {
  units <- unique(frame$unit)
  yes <- list(colocated = TRUE, note = NA_character_)
  if (length(units) < 2L) return(yes)
  pooled <- "RMSE, NRMSE and MBE pool the pairs of every unit, no inter-unit SD or CV"
  reported <- !is.na(frame$est)
  if (length(unique(frame$unit[reported])) >= 2L && !anyDuplicated(frame$time[reported])) {
    return(list(colocated = FALSE, note = sprintf("units share no %s: %s", period, pooled)))
  }
  check <- reference_agreement(frame)
  where <- sprintf("shared %ss", period)
  if (check$shared == 0L && period != "time") {
    check <- raw
    where <- "shared times of the rows as given"
  }
  # Jittered units' means cover their own records: compared on the nominal grid too, their
  # references agree if either comparison finds them equal, the nominal one comparing every
  # unit the other did (one may lack a nominal time every day, yet have complete days).
  nominal <- attr(frame, "nominal_reference")
  if (!is.null(nominal) && nominal$shared > 0L && (check$shared == 0L || check$differ > 0L) &&
      all(intersect(check$units, units) %in% nominal$units)) {
    check <- nominal
    where <- sprintf("shared %ss on the nominal time grid", nominal$period)
  }
  # A unit whose reference is complete in no shared period (one lacking an hour every day, or a
  # 1-minute unit lacking a minute every hour) is compared at the times of the rows as given (or
  # for jittered units the nominal times), when they compare it and every unit compared so far.
  # There a 1-minute unit's readings may meet an hourly unit's means, which differ at the
  # hourly stamps only: a reference differing at most of the shared times is another's, one
  # differing at few is taken as co-located, with a note naming it.
  unseen <- setdiff(unique(frame$unit[!is.na(frame$ref)]), check$units)
  wider <- Filter(function(alt) !is.null(alt) && all(c(check$units, unseen) %in% alt$units),
                  list(c(raw, where = "shared times of the rows as given"), nominal$times))
  unseen_note <- NULL
  if (check$shared > 0L && length(unseen) && length(wider)) {
    if (wider[[1]]$differ > wider[[1]]$shared / 2) {
      check <- wider[[1]]
      where <- check$where
    } else {
      unseen_note <- sprintf("reference of unit%s %s, complete in no shared %s, differs at %d of %d %s: taken as co-located",
                             if (length(unseen) > 1L) "s" else "", paste(unseen, collapse = ", "), period,
                             wider[[1]]$differ, wider[[1]]$shared, wider[[1]]$where)
    }
  }
  if (check$shared == 0L) {
    with_reference <- unique(frame$unit[!is.na(frame$ref)])
    why <- if (length(with_reference) == 1L) {
      sprintf("only unit %s has a reference", with_reference)
    } else {
      sprintf("no two units have a reference for one %s", period)
    }
    yes$note <- sprintf("co-location not checked (%s): units taken as co-located", why)
    return(yes)
  }
  if (check$differ == 0L) return(list(colocated = TRUE, note = if (is.null(unseen_note)) NA_character_ else unseen_note))
  note <- sprintf("units not co-located: their references differ at %d of %d %s (by up to %s)",
                  check$differ, check$shared, where, format(signif(check$by, 3)))
  list(colocated = FALSE, note = paste0(note, "; ", pooled))
}

# The reference_agreement() of block `block` ("1h" or "24h") of sensor_performance() with the
# stamps of the `jittered` units moved to their nominal_times() in zone `tz`: a complete
# jittered day then holds the same 24 hours as another unit's, where by its stamps it may hold
# 23 of them and an hour of the next day. Stamps of a unit that share a nominal time are left
# out (snap_jittered()). Compared at the block's periods, else at the nominal times; `period`
# says which, and `times` holds the comparison at the nominal times (with `where`, for the note).
# `obs`: performance_input(); `steps`: the units' steps, of the block's units only.
nominal_reference_agreement <- function(obs, steps, block, completeness, jittered, tz) {
  obs <- obs[obs$unit %in% names(steps), setdiff(names(obs), "est")]
  obs <- snap_jittered(obs, jittered, unname(steps)[match(obs$unit, names(steps))], tz,
                       shared = "drop")
  check <- reference_agreement(block_frame(obs, steps, block, completeness, tz, columns = "ref"))
  check$period <- c("1h" = "hour", "24h" = "day")[[block]]
  times <- c(reference_agreement(obs), period = "time", where = "shared times on the nominal time grid")
  if (check$shared == 0L) check <- times
  check$times <- times
  check
}
