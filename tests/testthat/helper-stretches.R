# A PurpleAir logger moving from 80 s to 120 s after `days` days (`days` at each step from
# `t0`), its stamps wandering by up to 2 s, ten seconds into the hour (so that none falls before
# the first hour); `edges` (pairs of hour since t0 and readings kept) thin hours to a count at
# the edge of completeness. Shared by test-performance-stretches.R and test-read-join-stretches.R.
wander_stamps <- function(t) t + sample(-2:2, length(t), replace = TRUE)
purpleair_80_then_120 <- function(t0, days, edges) {
  change <- t0 + days * 86400
  moved <- wander_stamps(10 + c(t0 + 80 * (0:(days * 1080 - 1)), change + 120 * (0:(days * 720 - 1))))
  for (edge in edges) {
    within <- which(moved >= t0 + 3600 * edge[1] & moved < t0 + 3600 * (edge[1] + 1))
    moved <- moved[-within[seq_len(length(within) - edge[2])]]
  }
  moved
}
