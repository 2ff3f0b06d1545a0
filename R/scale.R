# Scales and transforms of the readings. The engine applies the working scale on the way in
# and maps its results back (see new_scaling()); this file chooses that scale and owns the
# optional log transform in both directions, with its Jacobian in the likelihood.

# Covariate standardisation and the affine working scale of the sensors: the mean and sd of
# the anchor's training readings (of all sensors pooled when there is no anchor).
working_scale <- function(x, x_sd, readings, train_rows, anchor, call = parent.frame()) {
  ref <- if (!is.null(anchor)) {
    readings[[anchor]][train_rows]
  } else {
    unlist(take_rows(readings, train_rows), use.names = FALSE)
  }
  ref <- ref[!is.na(ref)]
  b_scale <- stats::sd(ref)
  if (length(ref) < 2L || !is.finite(b_scale) || b_scale == 0) {
    which_txt <- if (is.null(anchor)) "The sensors have" else paste0("Anchor sensor `", anchor, "` has")
    ncam_abort("{which_txt} no spread on the training rows, so there is no scale to fuse on.", call = call)
  }
  new_scaling(x_center = unname(vapply(x, function(v) mean(v[train_rows]), numeric(1))),
              x_scale = unname(x_sd), b_shift = mean(ref), b_scale = b_scale)
}

# Extra predictive variance of the true value around Theta, in model units: `sigma_y2` is a
# fraction of the variance of the anchor's training readings (see ncam()).
aleatoric_variance <- function(object) object$sigma_y2 * object$scaling$b_scale^2

# Model-unit means or bounds in the user's units.
ncam_untransform <- function(object, x) {
  if (identical(object$transform, "log")) exp(x) else x
}

# Standard deviation in the user's units; `sd` is sqrt(variance) when the caller has it already.
user_scale_sd <- function(object, mu, variance, sd = NULL) {
  if (identical(object$transform, "log")) return(sqrt(expm1(variance) * exp(2 * mu + variance)))
  if (is.null(sd)) sqrt(variance) else sd
}

# Per-row Jacobian term from the NLL of model-unit readings to the NLL of the readings in
# the user's units: sum(log b) over a row's readings for the log transform, else 0.
transform_nll_offset <- function(readings, transform) {
  if (transform != "log") return(0)
  offset <- 0
  for (v in readings) {
    v[is.na(v)] <- 0
    offset <- offset + v
  }
  offset
}

# The level each sensor is fitted at on the working scale (the model spec's sensor_gain and
# sensor_offset, ModelSpec in src/ncam/types.hpp: its gain and offset start there and are
# learned relative to it, and its noise log-variance sits 2 log(gain) above the anchor's), by
# ncam_control(sensor_start =): the anchor's level (gain 1, offset 0), or the sensor's own,
# where its readings sit against the anchor's: gain the least-squares slope of the sensor on
# the anchor (1 where it is not positive) and offset the difference of the means, on the
# training rows where both read (gain 1 and the difference of all their training means when
# they share fewer than min_start_rows). Adam moves an output bias by about the learning rate
# per step, so a fit at the anchor's level never reached a sensor many of the anchor's sds
# away (a large baseline), nor the noise and covariate effects of a raw signal at gain 1000
# (bench/raw_signal.R); at its own level it did, but on the PurpleAir short co-location that
# level did worse where the anchor's is within reach (bench/sensor_start.R). "auto" fits a
# sensor at its own level only beyond that reach. NULL (every sensor at the anchor's level)
# for "anchor_level" and without an anchor, where every sensor is at the pooled level.
sensor_levels <- function(readings, anchor, train_rows, scaling, rule = "auto") {
  if (is.null(anchor) || rule == "anchor_level") return(NULL)
  # One sensor's training readings on the working scale at a time: at a million rows, all of
  # them at once would add a copy of the readings.
  working <- function(v) (v[train_rows] - scaling$b_shift) / scaling$b_scale
  reference <- working(readings[[anchor]])
  own_level <- function(v) {
    both <- !is.na(v) & !is.na(reference)
    # Too few rows beside the anchor for a slope: gain 1 and the difference of all their means.
    if (sum(both) < min_start_rows) return(c(gain = 1, offset = mean(v, na.rm = TRUE) - mean(reference, na.rm = TRUE)))
    # The slope of the sensor on the anchor: the ratio of their sds would count the sensor's
    # noise as gain (a sensor sharing a few quiet rows with the reference started at gain 3).
    v <- v[both]
    on_anchor <- reference[both]
    gain <- stats::cov(v, on_anchor) / stats::var(on_anchor)
    if (!is.finite(gain) || gain <= 0) gain <- 1
    c(gain = gain, offset = mean(v) - gain * mean(on_anchor))
  }
  # The anchor is at its own level.
  starts <- vapply(names(readings), function(s) if (s == anchor) c(gain = 1, offset = 0) else own_level(working(readings[[s]])),
                   numeric(2))
  within_reach <- abs(starts["offset", ]) <= start_reach[["offset"]] &
    abs(log(starts["gain", ])) <= log(start_reach[["gain"]])
  at_anchor_level <- names(readings) == anchor | (rule == "auto" & within_reach)
  starts[, at_anchor_level] <- c(1, 0)
  list(gain = unname(starts["gain", ]), offset = unname(starts["offset", ]))
}

# Training rows a sensor must share with the anchor before its slope on it sets its start gain.
min_start_rows <- 10L

# How far from the anchor's level sensor_start = "auto" still starts a sensor at it: an offset
# of at most this many working units (the anchor's sds) and a gain within this factor of 1
# (bench/sensor_start.R).
start_reach <- c(offset = 3, gain = 3)
