# The engine's posterior for new data: the readings and design checked and built, the engine
# called on them, and the per-row outputs in model units that predict() and the other methods
# read (split from R/predict.R).

# The anchor's own noise variance per row (of a posterior with outputs "anchor_noise" or
# "sensors"): added to Theta's posterior variance, the variance of a new reading of the anchor
# instrument.
anchor_noise_variance <- function(object, post) {
  if (!is.null(post$anchor_sigma2)) return(post$anchor_sigma2)
  post$sigma2[, match(object$anchor, model_sensors(object))]
}

# A reference column of newdata in model units, checked as a sensor's readings are: an error
# for text or infinite values, a warning and NA for values <= 0 of a log model.
new_reference_readings <- function(data, reference, transform, data_arg = "newdata", call = parent.frame()) {
  sensor_columns(data, reference, transform, training = FALSE, label = "Reference column", data_arg = data_arg, call = call)[[1]]
}

# Posterior and the per-row `outputs` of ncam_posterior_columns() for newdata, in model units
# (the user's units, or log units for transform = "log"). Rows with a missing covariate, or
# beyond what the networks compute with (see drop_beyond_range()), are NA. raw = TRUE gives the
# sensor model alone: readings as given (no spike screen) and no unit offsets. disagreement =
# TRUE adds predict()'s `.disagreement` per row (`disagreement`, see ncam_posterior_columns()),
# over the readings of the posterior, the reference's after its unit's offset (add_unit_offsets()).
ncam_posterior <- function(object, newdata, threads = NULL, outputs = "sensors", use_reference = FALSE,
                           extrapolation = FALSE, raw = FALSE, prior_only = FALSE, disagreement = FALSE,
                           call = parent.frame()) {
  check_ncam(object, call = call)
  check_data_frame(newdata, "newdata", call = call)
  # The reference is read only with use_reference: plain numbers there are then no question.
  newdata <- match_units(object, newdata, call, unread = if (!use_reference) object$reference)
  threads <- resolve_threads(threads, call)
  check_columns(newdata, object$sensors, "object", call = call, data_arg = "newdata", hint = missing_sensor_hint)
  readings <- sensor_columns(newdata, object$sensors, object$transform, training = FALSE, call = call)
  # prior_only: each row's estimate as it would be without any low-cost reading (calibrate()).
  if (prior_only) readings[object$sensors] <- list(rep(NA_real_, nrow(newdata)))
  if (!is.null(object$reference)) {
    # The reference instrument is the model's last sensor; by default the estimate comes from
    # the low-cost sensors alone, so its readings are treated as missing.
    ref <- if (use_reference) {
      check_columns(newdata, object$reference, "use_reference", call = call)
      new_reference_readings(newdata, object$reference, object$transform, call = call)
    } else {
      rep(NA_real_, nrow(newdata))
    }
    readings[[object$reference]] <- ref
  }
  warn_reading_scale(object, readings, call)  # mg/m3 given to a fit made in ug/m3 (the reference too, if read), before the spike screen
  if (!raw) readings <- screen_new_spikes(object, readings, call)
  reference_used <- if (use_reference && !is.null(object$reference)) !is.na(readings[[object$reference]]) else
    rep(FALSE, nrow(newdata))
  x <- if (nrow(newdata) == 0L) empty_design(object, newdata, call) else new_design(object, newdata, call = call)
  unseen <- attr(x, "unseen_rows")  # NA for a level not seen in training, and warned about
  if (!is.null(unseen)) attr(x, "unseen_rows") <- NULL
  post <- ncam_posterior_columns(object, x, readings, threads, outputs, disagreement = disagreement)
  # With unit offsets, a row's reference reading is combined with the sensors' own estimate:
  # where that is beyond range, so is the row.
  sensors <- if (!raw) sensors_only_posterior(object, x, readings, reference_used, threads, disagreement)
  post <- drop_beyond_range(object, post, x, readings, call, also = sensors$beyond_rows)
  if (!raw) {
    post <- add_unit_offsets(object, post, newdata, reference_used, readings[[object$reference]], sensors, call)
  }
  post$unseen_rows <- unseen
  if (extrapolation) {
    post$extrapolation <- extrapolation_distance(object, x, readings, ok = !is.na(post$mu))
    no_prediction <- is.na(post$mu)
    no_prediction[unseen] <- FALSE
    post$missing_covariates <- missing_covariate_counts(object, newdata, no_prediction)
  }
  post
}

# The design of zero rows: terms such as splines::ns(x) cannot be evaluated on no data, and
# ncam_by()'s predict() builds its column template from zero rows.
empty_design <- function(object, newdata, call) {
  check_columns(newdata, model_columns(object$terms), "object", call = call, data_arg = "newdata")
  matrix(numeric(0), 0L, length(object$covariates), dimnames = list(NULL, object$covariates))
}

# The engine's posterior for lists of columns (or matrices), already in model units, and per
# row what `outputs` asks for (each head output is a double per row, and per sensor for the
# sensors' own, so ask for no more than is used): "posterior" nothing more; "anchor_noise"
# the anchor's noise variance (`anchor_sigma2`, all a prediction interval needs); "sensors"
# every head (prior mean `mu0` and variance `s0_2`; gains `a`, offsets `c` and noise variances
# `sigma2`, rows x sensors), the readings `b` and `ok`. Both add `heads_not_finite` (for
# drop_beyond_range()). With
# noise_clamp, the engine's report of where the clamp sets each sensor's noise (`noise_clamp`,
# rows x sensors: -1 at its lower end, 1 at its upper end, 0 inside). With disagreement, how
# much each row's readings disagree beyond their noise (`disagreement`: Q / (k - 1) over its k
# readings, NA for k < 2; see row_disagreement() in src/ncam/likelihood.hpp), one double per row
# from the engine's pass.
ncam_posterior_columns <- function(object, x, readings, threads, outputs = "sensors", noise_clamp = FALSE,
                                   disagreement = FALSE) {
  raw <- call_engine(ncam_predict_cpp(object$spec, object$params, x, readings, object$scaling, threads,
                                      object$settings$control$precision, outputs, noise_clamp, use_simd(),
                                      disagreement))
  if (raw$interrupted) rlang::interrupt()  # Ctrl-C between blocks of rows
  missing_x <- is.nan(raw$mean)  # the engine's mark for a row with a missing covariate
  any_missing <- any(missing_x)
  if (any_missing) {
    for (field in setdiff(names(raw), c("interrupted", "heads_not_finite"))) {
      if (is.matrix(raw[[field]])) raw[[field]][missing_x, ] <- NA else raw[[field]][missing_x] <- NA
    }
  }
  post <- list(mu = raw$mean, var_post = raw$variance, var_pred = raw$variance + aleatoric_variance(object),
               n_sensors = raw$n_observed, nll = raw$nll)
  post$heads_not_finite <- raw$heads_not_finite
  post$noise_clamp <- raw$noise_clamp
  post$disagreement <- raw$disagreement
  if (outputs == "anchor_noise") post$anchor_sigma2 <- exp(raw$noise_log_variance)
  if (outputs != "sensors") return(post)
  b <- readings
  if (is.list(readings)) {  # one matrix, without a copy beside it: dim<- on the fresh vector
    b <- unlist(readings, use.names = FALSE)
    dim(b) <- c(length(raw$mean), length(readings))
    dimnames(b) <- list(NULL, names(readings))
  }
  c(post, list(mu0 = raw$prior_mean, s0_2 = exp(raw$prior_log_variance), a = raw$gain, c = raw$offset,
               sigma2 = exp(raw$noise_log_variance), b = b, ok = !missing_x))
}

# Bias-corrected residuals (b_j - c_j) / a_j - mu, in the units of the fused value.
sensor_residuals <- function(post) {
  (post$b - post$c) / post$a - post$mu
}

# The model's sensors: the formula's, then the reference instrument when there is one.
model_sensors <- function(object) c(object$sensors, object$reference)
