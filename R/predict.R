#' Fused estimates from a fitted NCAM
#'
#' The posterior of the true value given each row's sensor readings and covariates:
#' precision \eqn{s_0^{-2} + \sum_j a_j^2 / \sigma_j^2}{s_0^-2 + sum_j a_j^2 / sigma_j^2} over the row's observed sensors, the
#' reliability-weighted, bias-corrected mean, and the predictive variance (posterior variance
#' plus `sigma_y2`).
#'
#' With `transform = "log"` the model works on log readings: `.pred` is then the predictive median
#' `exp(mu)`, below the log-normal mean `exp(mu + s^2 / 2)` by that factor (2.5 % at a log sd `s` of
#' 0.22), so averages of `.pred` (daily means, a mean bias against a reference) sit that much low;
#' `.pred_sd` and `.post_sd` are the standard deviations of the log-normal predictive and posterior,
#' and the bounds `exp(mu -/+ z s)`, with `s` the log-scale sd. A reading <= 0 has no log: it is
#' treated as missing, with a warning naming the sensor and rows.
#'
#' The networks run in single precision unless the model was fitted with `ncam_control(precision =
#' "double")`: a row's results can then differ in about the seventh significant digit with the rows
#' predicted beside it (the engine works on blocks of rows), so `predict(fit, d[1:10, ])` and
#' `predict(fit, d)[1:10, ]` agree to about 1e-7 relative (single precision), not bit for bit; with
#' double-precision networks they agree to the last bits (about 1e-15).
#'
#' @param object A fitted [ncam()] model.
#' @param newdata A data frame with the sensor columns (readings may be `NA`) and the covariates. If
#'   omitted, the data the model was fitted to, found again and checked as described under Value in
#'   [ncam()]. Factor terms (a factor or text column, or `factor(site)`, `interaction(site, hour)`
#'   in the formula) are evaluated on it as [stats::lm()] does and coded with the levels of the
#'   training rows. A row with another level, also one of the factor's levels that no training row
#'   had (only on validation rows, or rows without a reading), has no prediction (see Value).
#'   Columns with units (units package) are converted to the units they had in the fit (an error
#'   when they cannot be); a plain number is taken to be in the units of the estimate, and refused
#'   in a column the fit converted from other units (opc given in mg/m3 to a fit in ug/m3), where it
#'   is read: the reference column is read only with `use_reference = TRUE`, and otherwise left as
#'   it is, whatever its units.
#' @param interval `"none"`, `"credible"` or `"prediction"`. A `"credible"` interval is for the true
#'   value: \eqn{\mu \pm z_{(1+level)/2} \, sd}{mu +/- z_((1+level)/2) * sd}, with the posterior variance of \eqn{\Theta}{Theta} plus
#'   `sigma_y2`, the paper's small aleatoric variance of the true value around \eqn{\Theta}{Theta} (so for
#'   \eqn{\Theta}{Theta} itself it is slightly conservative; fit with `sigma_y2 = 0` for an interval for
#'   \eqn{\Theta}{Theta} alone). A `"prediction"` interval is for what the anchor instrument (the
#'   `reference` monitor) would read: the posterior variance plus the anchor's own noise variance
#'   \eqn{\sigma^2_{anchor}(X)}{sigma^2_anchor(X)} (for a `reference` fitted with `ncam_control(reference_noise =
#'   "constant")`, one value for every row); use it to compare with reference readings. Both are
#'   Gaussian: with heavier-tailed sensor noise they are too wide at 50 % and too narrow at 99 %.
#'   Both take the model as right: on [simulate_colocation()]'s data, whose sensor noise grows with
#'   the concentration and whose two Plantower channels share one humidity error, a reference fit's
#'   90 % credible intervals covered 0.837 of the true values on held-out weeks (0.59 in the tenth
#'   with the highest concentrations), its prediction intervals 0.887 of new reference readings
#'   (`bench/coverage_misspecified.R` in the source repository). For conformal intervals, which need
#'   no such assumption, see [calibrate()]: split conformal covered 0.896 of later reference
#'   readings there. With a short co-location of autocorrelated (such as hourly) readings, a few
#'   hundred rows, the model's intervals can be too narrow, as such rows teach it less than their
#'   number suggests: on EPA's Toucan data ([read_toucan()]; three sensors, 233 usable reference
#'   hours in the first 10 days) 90 % prediction intervals covered 0.78-0.82 of the later hours
#'   (three seeds, `bench/toucan_short_colocation.R` in the source repository). Hold some
#'   co-location rows out of the fit (their reference `NA` in its data) and give them to
#'   [calibrate()] with `method = "split", reference = ` the reference column: there (fitted on 7
#'   days, calibrated on the next 3) 0.94-0.96.
#' @param use_reference For a model fitted with a `reference`: `TRUE` folds the reference
#'   readings of `newdata`, where present, into the posterior (gap filling); the default
#'   `FALSE` estimates from the low-cost sensors alone, and `newdata` needs no reference column.
#'   It weighs as a reading with the reference's learned noise: where the sensors share an error
#'   (PurpleAir's two channels in humid air) that noise is learned large, and a reference reading
#'   moves the estimate only part of the way to itself. To keep the reference's value where it
#'   reads, use `dplyr::coalesce(newdata$ref, predict(fit, newdata)$.pred)` instead.
#'   With `unit` offsets, a reference reading is combined with the sensors' estimate after its
#'   unit's offset; a row whose sensors' estimate is beyond what the networks compute with (see
#'   Value) is then `NA` as it is without the reading. `TRUE` is an error for a model fitted
#'   without a reference.
#' @param level Coverage level of the interval (a warning when given without `interval`).
#' @param threads Number of threads; see [ncam_threads()].
#' @param ... Must be empty: a misspelt argument is an error, not ignored.
#' @section Extrapolation:
#' The model learns its calibration from a range of conditions: the readings and covariates of the
#' rows with a reference reading for a model fitted with `reference` (the co-location period), else
#' of all fitted rows. Column `.extrapolation` says how far each row lies outside that range: 0
#' inside it, else the largest distance beyond the range of any of its sensor readings or
#' covariates, as a share of that range (`Inf` beyond a range of width zero, such as a factor level
#' absent from the co-location rows). A warning names the variables when rows lie more than
#' `r 100 * extrapolation_warning_share` % of the range outside. Such rows are where a calibration fails
#' first: on PurpleAir data with a short co-location period (the first 10 % of each site's days), 16
#' of 5090 later days lie that far outside; their root mean squared error was 11.9 ug/m3 against
#' 2.16 inside the range, and 90 % prediction intervals covered 20 % of them. On SensEURCity
#' Antwerp, with the first 20 % of each station's hours as co-location and one fit per station
#' without covariates, 218 of 12771 later hours: 11.9 against 2.88, covered 12 %
#' (`bench/colocation.R` in the source repository; means over 10 seeds). The vignette "SensEURCity
#' Antwerp", with the first 10 % of the hours as co-location, a 36-hour gap and station and hour of
#' day as covariates, warns about 196 of 14261 hours: 11.53 against 3.35 on the hours not warned
#' about, covered 20.9 %. For a model fitted with `transform = "log"` the ranges and distances of
#' the readings are those of their logs (the warning gives the range in the readings' units): a
#' reading of a tenth of the range's lower end lies far outside.
#' @section Sensor disagreement:
#' Column `.disagreement` measures how much a row's readings disagree with one another beyond the
#' noise the model learned for each sensor: the readings are put on the estimate's scale with the
#' row's gains and offsets, \eqn{z_j = (b_j - c_j) / a_j}{z_j = (b_j - c_j) / a_j}, with variance \eqn{v_j = \sigma_j^2 /
#' a_j^2}{v_j = sigma_j^2 / a_j^2}; their squared differences from their precision-weighted mean, each divided by its
#' \eqn{v_j}{v_j}, are summed and divided by one less than the number \eqn{k}{k} of readings (a reduced
#' chi-square). Where the sensors behave as the model says, it is a chi-square variable with
#' \eqn{k - 1}{k - 1} degrees of freedom divided by \eqn{k - 1}{k - 1}, whatever the true value, so values near 1
#' are normal, and values above 6.6 (two readings), 4.6 (three) or 3.8 (four) come on 1 % of rows.
#' It is `NA` with fewer than two readings, which cannot disagree. With `use_reference = TRUE` a
#' reference reading counts as one of them (for a model with `unit` offsets, after its unit's
#' offset and with the offset's variance added to its noise); with `transform = "log"` it compares
#' the logs of the readings. A large value means that at least one sensor does not read as its
#' calibration says on that row (a fault, a drift, a spike, conditions the co-location period did
#' not cover): the estimate then follows the sensors the model trusts most, and its interval, whose
#' width does not grow with the disagreement, is too narrow. After a short co-location
#' (`bench/interval_levels.R` in the source repository, seeds 1-3), 0.5 % of the later PurpleAir
#' days and 2 % of the SensEURCity Antwerp hours had values above 16; 90 % prediction intervals
#' covered 0.390 and 0.232 of them, against 0.903 and 0.757 of the days and hours at 1 or below.
#' Look at such rows' readings (each on the estimate's scale, `(reading - c) / a` with the row's
#' [sensor_params()]), check the sensors against each other over time with [sensor_drift()], and
#' leave the rows out, or take their intervals as too narrow, where honest intervals matter.
#' @return A tibble with one row per row of `newdata`, in order: `.pred` (posterior mean;
#'   median with `transform = "log"`), `.pred_sd` (the standard deviation of the true value,
#'   or with `interval = "prediction"` of a reading of the anchor, the interval's; with
#'   `transform = "log"` of the log-normal, the bounds coming from the log-scale sd; to compare with reference
#'   readings, ask for `"prediction"`: in a model fitted with `reference` the default sd leaves
#'   out the reference's own noise and can be several times smaller), `.post_sd` (posterior,
#'   epistemic, standard deviation), `.n_sensors` (readings used), `.extrapolation` (see the
#'   section), `.disagreement` (how much the readings disagree beyond their learned noise: about 1
#'   where the model holds, `NA` with fewer than two readings; see section Sensor disagreement),
#'   and `.pred_lower`, `.pred_upper` when an interval is asked for. A row without
#'   any sensor reading gets the model's prior from its covariates (`.n_sensors` = 0), with a
#'   warning of class `ncam_warning_no_readings`: a fair guess with a wide interval, but not a
#'   measurement, so leave such rows out before daily means or [sensor_performance()] (they
#'   would count towards a day's completeness). A row with a missing covariate has no
#'   prediction: all its columns are `NA`, and a warning counts such rows per covariate. So is a
#'   row with a level of a factor covariate not seen in training (the model learned nothing of
#'   it), with one warning of class `ncam_warning_unseen_level` naming the term, the levels and
#'   the first rows. A row with a value so far beyond the training data that the networks
#'   overflow, or give a posterior sd below the precision of the mean, is `NA` too, with a
#'   warning naming the variable and rows. Estimates, standard deviations and bounds are in the units of the
#'   anchor's readings (of the reference monitor for a model fitted with `reference`), also for
#'   a model fitted with `transform = "log"`, as plain numbers; with readings in units (the units
#'   package), in the one unit [ncam()] converted them to (see its `data`; `fit$units`, named by
#'   `print(fit)`): with a `reference`, the first sensor's when it has units, not the reference's;
#'   a reading column without units beside them was taken to be in it. A column of `newdata` in
#'   other units than the fit's is converted; plain numbers are taken to be in the fit's units,
#'   except in a column the fit converted (`opc` given in mg/m3, fused in ug/m3; its units as
#'   given are `attr(fit$units, "given")`): they could be in either unit, so such a column must
#'   have units where it is read (a reference given in mg/m3 to a fit in ug/m3 only with
#'   `use_reference = TRUE`). A model fitted with `unit` offsets needs the unit
#'   column in `newdata` (see `unit` in [ncam()]); so do [calibrate()] and [predict_chunks()].
#' @examples
#' # Three sensors beside a reference monitor for their first four weeks (`colocation`,
#' # simulated); predict() needs only the sensors and covariates.
#' fit <- ncam(pa_a + pa_b + opc ~ rh + temperature, data = colocation, reference = "ref",
#'             hidden = c(16, 16), epochs = 100, seed = 1, threads = 1)
#' # predict() warns (class ncam_warning_extrapolation) about a few hours whose readings lie far
#' # beyond any seen beside the reference: listed here from column .extrapolation instead.
#' fused <- suppressWarnings(predict(fit, colocation, interval = "prediction"),
#'                           classes = "ncam_warning_extrapolation")
#' head(fused)
#' fused[fused$.extrapolation > 0.25, ]  # more than 25 % of the range outside
#' # The two months after the co-location, against the simulated truth
#' after <- colocation$date > max(colocation$date[!is.na(colocation$ref)])
#' evaluate_fusion(fused$.pred[after], colocation$truth[after])
#'
#' # Without a reference: a credible interval for the true value, on the anchor's scale
#' toy <- simulate_toy(n = 1000, seed = 2)
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy, hidden = 8,
#'             epochs = 100, learn_rate = 0.02, seed = 1, threads = 1)
#' head(predict(fit, toy, interval = "credible", level = 0.9))
#' @export
predict.ncam <- function(object, newdata, interval = c("none", "credible", "prediction"), level = 0.9,
                         use_reference = FALSE, threads = NULL, ...) {
  check_dots_empty_hinted()
  check_ncam(object)
  interval <- match_choice(interval, c("none", "credible", "prediction"), "interval")
  check_scalar_level(level)
  if (interval == "none" && !missing(level)) warn_level_without_interval()
  check_flag(use_reference, "use_reference")
  if (use_reference && is.null(object$reference)) {
    ncam_abort(c("{.code use_reference = TRUE} folds reference readings into the estimate, and this model was fitted without a reference.",
                 i = "Leave {.arg use_reference} out, or fit with {.code reference = }."))
  }
  from_fit <- missing(newdata)
  if (from_fit) newdata <- fitting_data(object)
  if (interval == "prediction" && is.null(object$anchor)) {
    ncam_abort(c("{.code interval = \"prediction\"} is an interval for a reading of the anchor instrument, and this model has no anchor.",
                 i = "Use {.code interval = \"credible\"}, or fit with {.code parameterization = \"anchored\"}."))
  }
  in_words_of_fit_data(object = object, from_fit = from_fit, {
    post <- ncam_posterior(object, newdata, threads, outputs = if (interval == "prediction") "anchor_noise" else "posterior",
                           use_reference = use_reference, extrapolation = TRUE, disagreement = TRUE)
    if (interval == "prediction") {
      post$var_pred <- post$var_post + anchor_noise_variance(object, post)
    }
    multiplier <- if (interval != "none") stats::qnorm((1 + level) / 2)
    posterior_table(object, post, multiplier)
  })
}

# A level given without an interval would be silently unused (as lm's predict() does). `hint`
# names the intervals the object has.
warn_level_without_interval <- function(call = parent.frame(),
                                        hint = "Give {.code interval = \"prediction\"} (a new reading of the anchor) or {.code interval = \"credible\"} (the true value).") {
  cli::cli_warn(c("{.arg level} is used only with an interval, and none was asked for.", i = hint),
                call = call, class = c("ncam_warning_level_without_interval", "ncam_warning"))
}

# The prediction table from a model-unit posterior (of ncam_posterior(extrapolation = TRUE,
# disagreement = TRUE)); with `multiplier`, also the interval mu -/+ multiplier * sd_pred,
# mapped to the user's units.
# Warns about the rows far outside the calibration range and those with a missing covariate.
posterior_table <- function(object, post, multiplier = NULL) {
  sd_pred <- sqrt(post$var_pred)
  out <- list(
    .pred = ncam_untransform(object, post$mu),
    .pred_sd = user_scale_sd(object, post$mu, post$var_pred, sd_pred),
    .post_sd = user_scale_sd(object, post$mu, post$var_post),
    .n_sensors = post$n_sensors,
    .extrapolation = post$extrapolation$distance,
    .disagreement = post$disagreement
  )
  if (!is.null(multiplier)) {
    half <- multiplier * sd_pred
    out$.pred_lower <- ncam_untransform(object, post$mu - half)
    out$.pred_upper <- ncam_untransform(object, post$mu + half)
  }
  out <- tibble::new_tibble(out, nrow = length(post$mu))
  warn_extrapolation(object, post$extrapolation$far, count_far(out), nrow(out))
  warn_rows_missing_covariates(post)
  prior_only <- rows_without_readings(out)
  warn_no_readings(length(prior_only), nrow(out), utils::head(prior_only, 5L))
  out
}

# Rows beyond the networks' range, or with a level not seen in training, have no estimate
# either, and their own warnings: the others without one had a missing covariate.
warn_rows_missing_covariates <- function(post) {
  rows <- setdiff(which(is.na(post$n_sensors)), c(post$beyond_rows, post$unseen_rows))
  warn_missing_covariates(length(rows), length(post$mu), post$missing_covariates, first_rows = utils::head(rows, 5L))
}

#' Per-row sensor gains, offsets and noise
#'
#' The sensor model \eqn{b_j = a_j(X)\Theta + c_j(X) + N(0, \sigma_j^2(X))}{b_j = a_j(X) Theta + c_j(X) + N(0, sigma_j^2(X))} evaluated at every
#' row, for inspection and plots. With `transform = "log"` these act on log readings.
#'
#' @inheritParams predict.ncam
#' @param newdata A data frame with the sensor columns (readings may be `NA`) and the
#'   covariates, checked as for [predict.ncam()]; a reference column is not read. If omitted,
#'   the data the model was fitted to.
#' @return A long tibble with one row per row of `newdata` and sensor: `.row`, `sensor`,
#'   `a` (gain), `c` (offset), `sigma` (noise standard deviation), in the model's units.
#' @examples
#' toy <- simulate_toy(n = 1000, seed = 2)
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, hidden = 8, epochs = 300,
#'             seed = 1, threads = 1)
#' head(sensor_params(fit, toy))
#' @export
sensor_params <- function(object, newdata, threads = NULL, ...) {
  check_dots_empty_hinted()
  if (inherits(object, "ncam_by")) UseMethod("sensor_params") else check_ncam(object)  # by group: R/sensor-params-by-group.R
  from_fit <- missing(newdata)
  if (from_fit) newdata <- fitting_data(object)
  post <- in_words_of_fit_data(object = object, from_fit = from_fit, {
    post <- ncam_posterior(object, newdata, threads, raw = TRUE)  # checks newdata
    warn_rows_missing_covariates(post)
    post
  })
  n <- length(post$mu)
  sensors <- model_sensors(object)
  tibble::tibble(.row = rep(seq_len(n), times = length(sensors)), sensor = rep(sensors, each = n),
                 a = as.vector(post$a), c = as.vector(post$c), sigma = sqrt(as.vector(post$sigma2)))
}

check_ncam <- function(object, arg = "object", call = parent.frame()) {
  if (!inherits(object, "ncam")) {
    ncam_abort("{.arg {arg}} must be a model fitted by {.fn ncam}, not {.obj_type_friendly {object}}.",
               call = call)
  }
  check_object_format(object, arg, call)
  check_ncam_parts(object, arg, call)
}

# A fitted model's parts that every method reads; a list edited by hand or a damaged file
# gets an error naming what is wrong, not a failure deep inside a method.
ncam_required_parts <- c("terms", "sensors", "transform", "spec", "params", "scaling", "settings",
                         "history", "best_epoch", "epochs_run", "n_train", "n_validation", "loglik",
                         "nobs", "sensor_summary")

check_ncam_parts <- function(object, arg = "object", call = parent.frame()) {
  damaged <- function(what) {
    ncam_abort(c("{.arg {arg}} is not a usable {.cls ncam} fit: {what}.",
                 i = "Refit it with {.fn ncam}, or read it again with {.fn readRDS} from an undamaged file."),
               call = call)
  }
  if (!is.list(object)) damaged("it is not a list")
  missing <- setdiff(ncam_required_parts, names(object)[!vapply(object, is.null, TRUE)])
  if (length(missing)) damaged(cli::format_inline("{.field {missing}} {?is/are} missing"))
  if (!is.numeric(object$params) || anyNA(object$params)) damaged("its weights are not numbers")
  # An infinite weight would make every row's prediction NA, blamed on the rows' values.
  if (!all(is.finite(object$params))) damaged("some of its weights are infinite")
  sigma_y2 <- object$sigma_y2
  if (!(is.numeric(sigma_y2) && length(sigma_y2) == 1L && is.finite(sigma_y2) && sigma_y2 >= 0)) {
    damaged(cli::format_inline("its {.field sigma_y2} is not a number of at least 0"))
  }
  expected <- tryCatch(call_engine(ncam_layout_cpp(object$spec))$n_params, error = function(e) NA)
  if (is.na(expected)) damaged("its model specification is invalid")
  if (length(object$params) != expected) {
    damaged(sprintf("it has %d weights where its specification needs %d", length(object$params), expected))
  }
  range_table <- object$calibration_range  # absent from fits saved before it was recorded
  if (!is.null(range_table) && !(is.data.frame(range_table) &&
                                 all(c("variable", "kind", "lower", "upper") %in% names(range_table)) &&
                                 is.numeric(range_table$lower) && is.numeric(range_table$upper))) {
    damaged("its calibration range is not a table of lower and upper bounds")
  }
  invisible(object)
}
