#' Optimiser details for ncam()
#'
#' @param beta1,beta2,eps Adam's moment decay rates and denominator constant.
#' @param weight_decay L2 penalty added to the gradient (as in `torch.optim.Adam`).
#' @param clip_norm Clip the gradient to this Euclidean norm; `Inf` for no clipping.
#' @param logvar_range Clamp of the log-variances, on the working scale; a sensor's noise
#'   relative to its level (see `sensor_start`), that is as the noise of the sensor converted
#'   to the anchor's units. Where a noise level sits at the lower end on more than half of the
#'   rows (units of one model side by side often agree that closely), `print()` of the fit says
#'   so: the sensors' weights there come from the clamp and are even, and intervals a little
#'   wide; widening it (`c(-9, 4)`) moved RMSE by -2 % to +1 % on the shared data sets
#'   (`bench/colocation_blocks.out` in the source repository). At the upper end, a sensor
#'   noisier than the range allows would weigh too much: `ncam()` warns (`ncam_warning_clamp`).
#' @param precision `"float"` (single precision networks, the default and fastest) or
#'   `"double"`. The likelihood and posterior are always computed in double precision from
#'   the network outputs; the softplus of the gains runs in the network's precision. In
#'   single precision, the estimate for a row can differ in its last digits (about 1e-7 of
#'   its value) with the rows predicted beside it, as the network's sums are grouped by block;
#'   it does not depend on the thread count.
#' @param min_delta Smallest decrease of the validation NLL that counts as an improvement.
#' @param screen_outliers Readings further than this many robust spreads (the sensor's median
#'   absolute deviation) both from their sensor's median and from where the row's other sensors
#'   put them are spikes, not the air (a real pollution event moves every sensor), and are left
#'   out of training as missing, with a warning that counts them. `predict()` and the other
#'   functions that estimate screen new readings by the same rule, with the medians and
#'   spreads of the training rows (a -999 missing-value code, a stuck channel), and name the
#'   rows. `Inf` keeps every reading, and `ncam()` warns about those the default screen
#'   leaves out (class `ncam_warning_spikes_kept`), naming them. The spread is that of the
#'   sensor's concentrations, not of its noise: a reading tens of noise standard deviations off
#'   the others can lie within it and be kept. A few such readings in a `reference` column
#'   inflate its learned noise, and every interval with it, many times over: look at the
#'   reference's largest differences from the sensors before fitting, or give a smaller
#'   `screen_outliers`. Readings are screened as read, also under `transform = "log"` (on log
#'   readings a 9999 code among readings near 10 would lie within 50 spreads); a log fit, for
#'   sensors that differ by factors, also needs a reading beside others more than 10 times
#'   where they put it (or below a tenth), so a smoke event's 2000 beside 700 and 250 is kept.
#'   A reading near 0 is not a spike by this rule, yet weighs heavily in a log fit: see
#'   `transform` in [ncam()].
#' @param adapt_threads With `threads` above 1, time batches of the training at `threads` and
#'   at one thread as the fit goes and use the faster. On a machine where another program
#'   keeps a core busy, threads that wait for each other at every batch can be several times
#'   slower than one thread. The fitted model does not depend on it (results are identical
#'   whatever the thread count); `FALSE` keeps `threads` throughout, for timing studies.
#' @param sensor_start The level each sensor is fitted at, in fits with an anchor:
#'   `"anchor_level"` the anchor's (gain 1, offset 0 on the working scale, see [ncam()]);
#'   `"own_level"` the sensor's own, where its readings sit against the anchor's on the rows
#'   where both read (the least-squares slope of the sensor on the anchor, and the difference
#'   of their means); `"auto"` (the default) the anchor's unless the sensor's own lies beyond 3
#'   of the anchor's standard deviations or its gain beyond a factor of 3. Training starts the
#'   sensor's gain and offset at its level and learns them relative to it, and its noise
#'   variance is that of the sensor converted to the anchor's units by its level (times the
#'   square of the level's gain): a sensor at its own level fits as that sensor in the anchor's
#'   units, a raw signal in mV as well as one in ug/m3 (`bench/raw_signal.R` in the source
#'   repository). A fit at the anchor's level does not reach a sensor far from it (another scale, a
#'   large baseline); at its own level it does, but on the PurpleAir short co-location of
#'   `vignette("colocation")` it did worse where the anchor's level was within reach
#'   (`bench/sensor_start.R` in the source repository).
#' @param reference_noise How a fit with a `reference` (see [ncam()]) learns the reference's
#'   noise variance: `"covariates"` (the default) a function of the covariates, as every
#'   low-cost sensor's; `"constant"` one value for every row, as a reference monitor's noise
#'   should not depend on the weather. The constant starts at the residual variance of a
#'   least-squares fit of the reference on the other sensors and the covariates and ends at its
#'   best value for the training objective given the networks. Over seeds 1-10 on the PurpleAir
#'   data of `vignette("colocation")` the constant brought 90 % prediction intervals closer to
#'   90 % with one site left out (0.899 against 0.876) and lowered the error with a short
#'   co-location (2.240 against 2.279 ug/m3; lm 2.210), the same within 0.5 % on one site left
#'   out, SensEURCity and Toucan (`bench/colocation.R` in the source repository); but in
#'   `vignette("senseurcity")`, one fit over three stations whose reference monitors differ,
#'   it did worse with each of seeds 1, 3 and 5 (RMSE 3.87 against 3.59, lm 3.60;
#'   `bench/senseurcity_reference_noise.R` in the source repository), so it is not the
#'   default. Fits without a `reference` are not affected.
#' @return A list of class `ncam_control`, as the training engine reads it: `clip_norm = Inf`
#'   is stored as `0`, which the engine takes as no clipping. `print()` shows each setting
#'   with its meaning, `clip_norm` as given.
#' @examples
#' ncam_control(clip_norm = 5)
#' ncam_control()
#' @export
ncam_control <- function(beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0, clip_norm = Inf,
                         logvar_range = c(-5, 4), precision = c("float", "double"), min_delta = 0,
                         screen_outliers = 50, adapt_threads = TRUE,
                         sensor_start = c("auto", "anchor_level", "own_level"),
                         reference_noise = c("covariates", "constant")) {
  check_number(beta1, "beta1", min = 0, max = 1 - 1e-12)
  check_number(beta2, "beta2", min = 0, max = 1 - 1e-12)
  check_number(eps, "eps", min = 0)
  check_number(weight_decay, "weight_decay", min = 0)
  if (!is.numeric(clip_norm) || length(clip_norm) != 1L || is.na(clip_norm) || clip_norm <= 0) {
    ncam_abort("{.arg clip_norm} must be a positive number or {.code Inf}.")
  }
  check_logvar_range(logvar_range)
  check_number(min_delta, "min_delta", min = 0)
  if (!is.numeric(screen_outliers) || length(screen_outliers) != 1L || is.na(screen_outliers) || screen_outliers <= 0) {
    ncam_abort("{.arg screen_outliers} must be a positive number or {.code Inf}.")
  }
  check_flag(adapt_threads, "adapt_threads")
  structure(list(beta1 = beta1, beta2 = beta2, eps = eps, weight_decay = weight_decay,
                 clip_norm = if (is.finite(clip_norm)) clip_norm else 0,
                 logvar_range = as.numeric(logvar_range),
                 precision = match_choice(precision, precisions, "precision"),
                 min_delta = min_delta, screen_outliers = screen_outliers, adapt_threads = adapt_threads,
                 sensor_start = match_choice(sensor_start, sensor_starts, "sensor_start"),
                 reference_noise = match_choice(reference_noise, reference_noises, "reference_noise")),
            class = "ncam_control")
}

#' @rdname ncam_control
#' @param x An `ncam_control` object.
#' @param ... Not used.
#' @export
print.ncam_control <- function(x, ...) {
  # The engine reads a clip norm of 0 as no clipping: show the user's Inf.
  clip <- if (x$clip_norm > 0) format(x$clip_norm) else "Inf (no clipping)"
  screen <- if (is.finite(x$screen_outliers)) format(x$screen_outliers) else "Inf (no screening)"
  rows <- rbind(
    c("beta1", format(x$beta1), "Adam's decay rate of the gradient mean"),
    c("beta2", format(x$beta2), "Adam's decay rate of the squared gradient mean"),
    c("eps", format(x$eps), "Adam's denominator constant"),
    c("weight_decay", format(x$weight_decay), "L2 penalty added to the gradient"),
    c("clip_norm", clip, "largest Euclidean norm of the gradient"),
    c("logvar_range", paste(format(x$logvar_range, trim = TRUE), collapse = ", "),
      "clamp of the log-variances (working scale)"),
    c("precision", x$precision, "precision of the networks"),
    c("min_delta", format(x$min_delta), "smallest validation NLL decrease that counts"),
    c("screen_outliers", screen, "robust spreads beyond which a reading is a spike"),
    c("adapt_threads", format(x$adapt_threads), "switch to one thread when it is faster"),
    c("sensor_start", x$sensor_start, "where training starts each sensor's gain and offset"),
    c("reference_noise", x$reference_noise, "whether a reference's noise follows the covariates")
  )
  cat("ncam optimiser settings (ncam_control)\n")
  cat(paste0("  ", format(rows[, 1]), "  ", format(rows[, 2]), "  ", rows[, 3], "\n"), sep = "")
  invisible(x)
}

sensor_starts <- c("auto", "anchor_level", "own_level")
reference_noises <- c("covariates", "constant")

# A control object as ncam() reads it: one edited after ncam_control() made it (ctrl$beta1 <- 5,
# ctrl$precision <- "half") goes through ncam_control()'s checks again, and is returned as
# ncam_control() makes it.
check_control <- function(control, call = parent.frame()) {
  if (!inherits(control, "ncam_control")) {
    ncam_abort("{.arg control} must come from {.fn ncam_control}.", call = call)
  }
  fields <- names(formals(ncam_control))
  if (!is.list(control) || !setequal(names(control), fields)) {
    ncam_abort(c("{.arg control} does not have the fields of {.fn ncam_control}: {.field {fields}}.",
                 i = "Make it with {.fn ncam_control} rather than by editing one."), call = call)
  }
  settings <- unclass(control)[fields]
  if (identical(settings$clip_norm, 0)) settings$clip_norm <- Inf  # stored as 0 for no clipping
  tryCatch(do.call("ncam_control", settings), error = function(e) {
    ncam_abort(c("{.arg control} holds an invalid setting (was it edited after {.fn ncam_control} made it?).",
                 i = "Give the settings as arguments of {.fn ncam_control}, which checks them."),
               parent = e, call = call)
  })
}

check_logvar_range <- function(logvar_range, call = parent.frame()) {
  if (!is.numeric(logvar_range) || length(logvar_range) != 2L || anyNA(logvar_range) ||
      any(!is.finite(logvar_range)) || logvar_range[1] >= logvar_range[2]) {
    ncam_abort("{.arg logvar_range} must be two finite increasing numbers, such as {.code c(-5, 4)}.",
               call = call)
  }
}

check_hidden <- function(hidden, call = parent.frame()) {
  ok <- is.numeric(hidden) && !anyNA(hidden) && all(hidden >= 1) && all(hidden == round(hidden)) &&
    all(hidden <= 4096)
  if (!ok) {
    ncam_abort("{.arg hidden} must be whole numbers between 1 and 4096 (or {.code integer(0)} for no hidden layer).",
               call = call)
  }
}
