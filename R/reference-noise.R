# A reference's noise as one learned value (ncam_control(reference_noise = "constant"),
# ModelSpec::constant_anchor_noise): where training starts it, and where the fit leaves it.
# The constant is one output bias, which Adam moves by about the learning rate per step,
# where a noise that follows the covariates moves a whole layer's weights: from where
# initialisation puts it (about the anchor's whole variance) a fit of the ?ncam example reached
# 4.7 ug/m3 against a true 0.76.

# Where it starts (ModelSpec::anchor_noise_start): the log of the residual variance of a
# least-squares fit of the anchor's training readings on the other sensors and the covariates,
# on the working scale, within the clamp. The residual holds the reference's noise and what the
# sensors miss of the true value, so training starts above the noise and lowers it. NA (no
# start) on fewer than min_start_rows rows beyond the least-squares fit's coefficients where
# the anchor and every other sensor read.
anchor_noise_start <- function(readings, anchor, x, train_rows, scaling, logvar_range) {
  working <- (readings[[anchor]][train_rows] - scaling$b_shift) / scaling$b_scale
  inputs <- do.call(cbind, c(list(rep(1, length(train_rows))),
                             lapply(c(readings[names(readings) != anchor], x), function(v) v[train_rows])))
  complete <- !is.na(working) & stats::complete.cases(inputs)
  if (sum(complete) < ncol(inputs) + min_start_rows) return(NA_real_)
  ls_fit <- stats::lm.fit(inputs[complete, , drop = FALSE], working[complete])
  residual_variance <- sum(ls_fit$residuals^2) / ls_fit$df.residual
  min(max(log(residual_variance), logvar_range[1]), logvar_range[2])
}

# Where the fit leaves it: at its best value for the training objective given the trained networks
# (one-dimensional, over the clamp), which training, stopped early, leaves it above (the ?ncam
# example 1.10 against a true 0.76 from the start above). The estimate from the low-cost sensors
# does not depend on it; the prediction intervals, use_reference and unit offsets do.
profile_reference_noise <- function(spec, params, data, train_rows, threads, precision) {
  reliability <- call_engine(ncam_layout_cpp(spec))$heads$reliability
  at <- reliability$b_offset[length(reliability$b_offset)] + spec$anchor + 1
  loss_at <- function(value) {
    params[at] <- value
    call_engine(ncam_objective_cpp(spec, params, data$x, data$readings, data$scaling, train_rows - 1L,
                                   threads, precision))$loss
  }
  best <- stats::optimize(loss_at, c(spec$logvar_min, spec$logvar_max), tol = 1e-4)
  if (best$objective < loss_at(params[at])) params[at] <- best$minimum
  params
}

# Weights the spec holds at 0, which are not parameters of the model (logLik()'s df): the
# weights into a constant reference noise, one per unit of the last hidden layer (per covariate
# without hidden layers).
n_held_params <- function(spec) {
  if (!isTRUE(spec$constant_anchor_noise)) return(0L)
  widths <- c(spec$n_covariates, spec$hidden)
  widths[length(widths)]
}
