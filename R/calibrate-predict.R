# Methods of a calibration from calibrate(): intervals for new data, and printing.

#' Calibrated prediction intervals
#'
#' Returns the fused predictions of the model with conformal interval bounds
#' at the requested level, computed from the stored calibration scores.
#'
#' @param object An `ncam_calibration` object from [calibrate()].
#' @param newdata A data frame with the covariates and sensor columns of the
#'   model.
#' @param level Coverage level, strictly between 0 and 1; defaults to the
#'   level given to [calibrate()].
#' @param threads Number of threads; see [ncam_threads()].
#' @param ... Must be empty: a misspelt argument is an error, not ignored.
#' @return The tibble of `predict()` for the model (one row per row of
#'   `newdata`, in order) with columns `.pred_lower` and `.pred_upper` added;
#'   `NA` for rows with missing covariates, infinite when the calibration set
#'   is too small for `level` (the lower bound 0 with a log transform). Rows
#'   without any sensor reading (`.n_sensors` = 0) have the model's prior as
#'   their estimate; a `"split"` calibration gives them the threshold of its
#'   prior-only scores (see [calibrate()]), the other methods their one
#'   threshold.
#' @seealso [calibrate()]
#' @export
#' @examples
#' toy <- simulate_toy(300, seed = 2)
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ 1, data = toy[1:200, ],
#'             anchor = "sensor_0", hidden = integer(0), epochs = 2000,
#'             learn_rate = 0.02, seed = 1, verbose = FALSE)
#' cal <- calibrate(fit, toy[201:250, ], method = "sensor_anchored")
#' head(predict(cal, toy[251:300, ], level = 0.8))
predict.ncam_calibration <- function(object, newdata, level = object$level, threads = NULL, ...) {
  check_dots_empty_hinted(calibrated_interval_hint)
  check_calibration(object)
  check_augment_newdata(newdata, missing(newdata))
  check_data_frame(newdata)
  check_scalar_level(level)
  q <- calibration_quantile(object, level)
  model <- object$model
  post <- ncam_posterior(model, newdata, threads, outputs = label_outputs(model), extrapolation = TRUE, disagreement = TRUE)
  no_readings <- which(post$n_sensors == 0L)
  if (length(no_readings)) {
    q <- rep(q, length(post$mu))
    q[no_readings] <- no_readings_quantile(object, level, q[1])
  }
  posterior_table(model, label_variance(model, post), q)
}

# A calibration's predictions are its interval: there is no interval to choose.
calibrated_interval_hint <- c(interval = "Calibrated predictions always carry their conformal bounds, {.field .pred_lower} and {.field .pred_upper}: leave {.arg interval} out, and set their coverage with {.arg level}.")

# What a calibration's labels are, around Theta: for a model fitted with a reference, new
# readings of the reference (its own noise variance, per row), else the true value up to
# sigma_y2. Sets the labels' variance around Theta and var_pred, which normalises the scores
# and scales the intervals.
label_variance <- function(object, post) {
  post$label_var <- if (is.null(object$reference)) {
    rep(aleatoric_variance(object), length(post$mu))
  } else anchor_noise_variance(object, post)
  post$var_pred <- post$var_post + post$label_var
  post
}

# The posterior outputs label_variance() reads: the anchor's noise for a model with a reference.
label_outputs <- function(object) if (is.null(object$reference)) "posterior" else "anchor_noise"

#' @export
print.ncam_calibration <- function(x, ...) {
  check_calibration(x, "x")
  labels <- c(mc_model = "MC-CP (model)", mc_empirical = "MC-CP (empirical)",
              sensor_anchored = "sensor-anchored conformal", split = "split conformal")
  corr <- if (x$method %in% c("mc_model", "mc_empirical")) {
    paste0(", ", x$correction, " threshold")
  } else ""
  cat("<ncam_calibration> ", labels[[x$method]], corr, "\n",
      "Calibration rows: ", x$n,
      if (!is.null(x$holdout)) paste0(" (+ ", length(x$holdout), " ECDF holdout)"), "\n",
      "Scores per row:   ", if (x$method == "sensor_anchored") "one per observed sensor" else x$m,
      "\n",
      "Quantile at level ", x$level, ": ", format(x$quantile, digits = 4), "\n",
      if (!is.null(x$prior_scores)) {
        paste0("  rows without a reading: ", format(no_readings_quantile(x, x$level, x$quantile), digits = 4),
               " (prior-only scores of ", x$n_prior, " rows)\n")
      },
      if (!is.null(x$seed)) paste0("Seed:             ", x$seed, "\n"), sep = "")
  invisible(x)
}

# A calibration's parts that its methods read; a damaged object gets an error naming them.
check_calibration <- function(x, arg = "object", call = parent.frame()) {
  check_object_format(x, arg, call)
  parts <- c("model", "method", "level", "scores", "n", "m")
  missing <- if (is.list(x)) setdiff(parts, names(x)[!vapply(x, is.null, TRUE)]) else parts
  if (length(missing) || !x$method %in% c("mc_model", "split", "mc_empirical", "sensor_anchored") ||
      !is.numeric(x$scores)) {
    what <- if (length(missing)) cli::format_inline("{.field {missing}} {?is/are} missing") else "its method or scores are invalid"
    ncam_abort(c("{.arg {arg}} is not a usable calibration from {.fn calibrate}: {what}.",
                 i = "Run {.fn calibrate} again."), call = call)
  }
  check_ncam(x$model, arg = paste0(arg, "$model"), call = call)
}
