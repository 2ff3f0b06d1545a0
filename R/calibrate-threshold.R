# The conformal threshold of a calibration at a level (calibrate(), predict() and tidy() of a
# calibration), and the warning when the calibration set is too small for the level.

# The threshold at `level`. Sensor-anchored scores are pooled over the rows and their sensors,
# but the scores of a row share its mean and sd and are not exchangeable with each other: the
# rows, not the scores, must suffice for the level; the threshold is then the pooled set's
# split-conformal one.
calibration_quantile <- function(cal, level, left_out = NULL) {
  if (cal$method == "sensor_anchored") {
    needed <- rows_needed(level)
    if (cal$n < needed) return(too_small(needed, cal$n, level, left_out))
    return(conformal_threshold(cal$scores, length(cal$scores), 1L, level))
  }
  conformal_threshold(cal$scores, cal$n, cal$m, level, cal$correction, cal$holdout, left_out = left_out)
}

# The threshold of rows without any low-cost reading, beside the calibration's own `q` at
# `level`: from the prior-only scores of "split" (prior_only_scores()). The other methods, and
# calibrations made before those scores were kept, have the one threshold; so does a set too
# small for `level` (q infinite, as its warning said), whose prior-only rows are as few.
no_readings_quantile <- function(cal, level, q) {
  if (is.null(cal$prior_scores) || !is.finite(q)) return(q)
  conformal_threshold(cal$prior_scores, cal$n_prior, 1L, level)
}

# conformal_threshold()'s ranks are floors of products of alpha that are whole numbers in
# decimals but not always in doubles (0.29 * 100 is 28.999999999999996): raised by this share.
rank_fuzz <- 1e-12

# 1 - level as the level was written: the shortest decimal within the level's rounding. The
# double 1 - 1e-10 is 1 - 1.0000000827e-10, which asks for 9999999172 rows, not 9999999999.
level_alpha <- function(level) {
  alpha <- 1 - level
  for (digits in 1:16) {
    written <- signif(alpha, digits)
    if (abs(written - alpha) <= .Machine$double.eps / 2) return(written)
  }
  alpha
}

# Rows needed at `level`: the smallest n with floor(alpha * (n + 1)) >= 1, as conformal_threshold()
# computes it.
rows_needed <- function(level) ceiling(1 / (level_alpha(level) * (1 + rank_fuzz))) - 1

#' Conformal threshold from calibration scores
#'
#' @param scores Nonconformity scores, `n * m` of them (`m` per row).
#' @param n Number of calibration rows (or pooled scores of several per row, when `m = 1`).
#' @param m Scores per row.
#' @param level Coverage level.
#' @param correction `"stutz"` or `"ecdf"`, see [calibrate()].
#' @param holdout For `"ecdf"`, one score per holdout row.
#' @param left_out Calibration rows left out and why (such as `"3 with a missing covariate
#'   (x1: 3)"`), for the warning.
#' @return The threshold `q`, or `Inf` (with a warning) when there are too few
#'   scores for the level.
#' @noRd
conformal_threshold <- function(scores, n, m, level, correction = "stutz",
                                holdout = NULL, left_out = NULL) {
  alpha <- level_alpha(level)
  needed <- rows_needed(level)
  total <- n * m
  sorted <- sort(scores)
  if (correction == "stutz") {
    k <- floor(alpha * m * (n + 1) * (1 + rank_fuzz)) - m + 1
    if (k < 1) return(too_small(needed, n, level, left_out))
    return(sorted[total - k + 1])
  }
  n_hold <- length(holdout)
  r <- floor(alpha * (n_hold + 1) * (1 + rank_fuzz))
  if (r < 1) {
    # Half the rows (rounded up) form the holdout, so 2 * needed - 1 suffice.
    return(too_small(2 * needed - 1, n + n_hold, level, left_out))
  }
  # The averaged p-value (m + count) / (m (n + 1)) is monotone in count =
  # #{scores >= s}, so compare counts: keep s with count >= the r-th smallest
  # holdout count.
  counts <- total - findInterval(holdout, sorted, left.open = TRUE)
  c_r <- sort(counts)[r]
  if (c_r < 1) {
    cli::cli_warn(c("The ECDF-corrected threshold at level {level} is infinite.",
                    i = "Holdout scores exceed every calibration score; use more calibration rows."), class = c("ncam_warning_small_calibration", "ncam_warning"))
    return(Inf)
  }
  sorted[total - c_r + 1]
}

too_small <- function(needed, n, level, left_out = NULL) {
  cli::cli_warn(c("The calibration set is too small for level {level}: intervals are infinite.",
                  i = "Level {level} needs at least {needed} calibration rows; {cli::qty(n)}there {?is/are} {n}.",
                  if (length(left_out)) c(i = "Rows of {.arg data} left out of the calibration: {left_out}.")),
                class = c("ncam_warning_small_calibration", "ncam_warning"))
  Inf
}

