# Whether the units of one block of sensor_performance() (the rows as given, 1-hour or 24-hour
# means) stand beside one reference: EPA's RMSE over common times and its inter-unit SD and CV
# presume co-located units.

# How far the units' references agree: `shared` periods (times of the frame) at which two or
# more units have a complete reference (every record of the period present, so that two means
# cover the same records), `differ` of those where the values disagree, and the largest
# difference `by`.
reference_agreement <- function(frame) {
  keep <- frame$ref_complete
  ref <- frame$ref[keep]
  if (length(ref) == 0L) return(list(shared = 0L, differ = 0L, by = 0))
  time <- frame$time[keep]
  shared <- tapply(ref, time, length) >= 2L
  spread <- (tapply(ref, time, max) - tapply(ref, time, min))[shared]
  list(shared = sum(shared), differ = sum(spread > 1e-8 * (1 + max(abs(ref)))),
       by = if (any(shared)) max(spread) else 0)
}

# Whether the units of `frame`, a block whose periods are called `period` ("time", "hour",
# "day"), are taken as co-located, and a note when that is not plainly so. Units sharing no
# period are not. Otherwise their references decide, compared at the periods of the block
# where two units have complete references, else at the times of the rows as given (`raw`,
# the reference_agreement() of those rows: 55 of 60 minutes make an hour's mean differ from
# another unit's 60); references never compared leave the units taken as co-located, said in
# the note.
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
  if (check$differ == 0L) return(yes)
  note <- sprintf("units not co-located: their references differ at %d of %d %s (by up to %s)",
                  check$differ, check$shared, where, format(signif(check$by, 3)))
  list(colocated = FALSE, note = paste0(note, "; ", pooled))
}
