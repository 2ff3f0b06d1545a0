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
  Reduce(`+`, lapply(readings, function(v) ifelse(is.na(v), 0, v)), 0)
}
