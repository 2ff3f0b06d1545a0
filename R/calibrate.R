# Conformal calibration of NCAM prediction intervals (paper sections "Monte
# Carlo Conformal Calibration", "Sensor-Anchored Conformal Calibration" and
# appendix "Adapted Monte Carlo Conformal Algorithm").

# The scores a calibration draws and stores (8 bytes each, a few copies while drawing).
max_calibration_scores <- 1e7

#' Calibrate NCAM prediction intervals by conformal prediction
#'
#' Computes conformity scores on calibration data and stores them so that
#' `predict()` can return intervals
#' \eqn{\hat\mu_i \pm q \hat\sigma_{i,pred}}{mu_i +/- q * sd_pred_i} at any level,
#' whose width follows each row's predictive standard deviation. The coverage
#' promised is marginal: over rows exchangeable with the calibration rows, not
#' for each row or condition (it can be lower at the edges of the covariates'
#' range), and not under drift: calibrated on an early period, the intervals
#' cover later periods less often if the sensors drift (prefer calibration
#' rows spread over time, as [split_blocks()] gives, to one early block).
#' Scores are computed in the model scale (log units when the model was
#' fitted with a log transform); `predict()` of a calibration gives estimates
#' (means; medians with a log transform), standard deviations and bounds in the
#' readings' units, back-transformed as [predict.ncam()] does.
#'
#' @section Methods:
#' All scores are normalised by the predictive standard deviation
#' \eqn{\hat\sigma_{i,pred} = \sqrt{\sigma^2_{post,i} + \sigma^2_y}}{sd_pred_i}.
#' For a model fitted with a `reference`, whose labels are reference readings,
#' \eqn{\sigma^2_y}{sigma_y^2} is the reference's own noise variance
#' \eqn{\sigma^2_{ref}(X_i)}{sigma_ref^2(X_i)}: \eqn{\hat\sigma_{i,pred}}{sd_pred_i} is
#' the standard deviation of a new reference reading, as for
#' `predict(interval = "prediction")`.
#' * `"mc_model"` (MC-CP Model, the default without reference readings, needs
#'   no labels): for each calibration row, `m` pseudo-labels are drawn from the posterior predictive
#'   by two stages, \eqn{\Theta^{(r)} \sim N(\mu_i, \sigma^2_{post,i})}{Theta ~ N(mu, var_post)},
#'   \eqn{Y^{(r)} \sim N(\Theta^{(r)}, \sigma^2_y)}{Y ~ N(Theta, sigma_y^2)};
#'   scores are \eqn{|Y^{(r)} - \mu_i| / \hat\sigma_{i,pred}}{|Y - mu| / sd_pred}.
#'   The labels come from the model itself, so the scores follow
#'   \eqn{|N(0, 1)|}{|N(0, 1)|} whatever the data: the intervals are the
#'   model's own with a finite-sample correction, and cannot correct a model
#'   that is wrong. Only `"split"` learns from real labels.
#' * `"mc_empirical"` (MC-CP Empirical): each pseudo-label is the reading of one
#'   observed sensor of the row, drawn uniformly (in the model scale). Raw readings, biases
#'   and all: the scores measure how much the sensors disagree, so with biased sensors the
#'   intervals are far wider than their level needs.
#' * `"sensor_anchored"`: scores are
#'   \eqn{|(b_{ij} - c_j(X_i)) / a_j(X_i) - \mu_i| / \hat\sigma_{i,pred}}{|(b_ij - c_j) / a_j - mu_i| / sd_pred_i}
#'   pooled over rows and observed sensors, with the ordinary split-conformal
#'   quantile of the pooled set. The scores of one row share its mean and
#'   standard deviation, so they are not exchangeable with each other: the
#'   rows, not the scores, count towards the rows a level needs (see
#'   Threshold).
#' * `"split"`: ordinary split conformal with reference labels from the column
#'   named by `reference` (the idealised oracle of the paper); rows with a
#'   missing reference (or, with a log transform, a non-positive one) are
#'   skipped.
#'
#' Calibrate on rows held out of the fit. Rows that trained it are fitted too
#' closely, so for `"split"`, `"mc_empirical"` and `"sensor_anchored"` their
#' scores are smaller and the intervals too narrow: a warning of class
#' `ncam_warning_in_sample_calibration` says so when `data` is the fit's data,
#' or counts the rows equal in every column to a row of it when that data can
#' be found as by [fitted.ncam()] (the model's columns with units compared in
#' the units it fuses, so a sensor given in mg/m3 to the fit and in ug/m3 to
#' `calibrate()` is the same data). `"mc_model"` draws its labels from the model,
#' so its scores follow \eqn{|N(0, 1)|}{|N(0, 1)|} on any rows: no warning.
#' A model fitted without a reference never saw the reference readings
#' `"split"` scores against: its training rows are fitted closer to the truth
#' only as far as it overfitted their sensor readings (on 300 simulated rows,
#' `bench/calibrate_in_sample.R` in the source repository: a 32 x 32 network trained with
#' `validation = 0`, so without early stopping, and calibrated on its training rows covered 0.88,
#' 0.86 and 0.81 of new rows at level 0.9 after 300, 1000 and 3000 epochs,
#' against 0.90 calibrated on as many held-out rows; with early stopping 0.89
#' either way), so the warning says so and advises held-out rows.
#'
#' The coverage promised is an average over calibration sets. One calibration
#' on the rows of one [split_blocks()] split covers a test set more or less
#' often than `level` by more than its row count suggests, since neighbouring
#' rows are correlated and a few blocks stand for many rows: judge coverage
#' over several blocks or periods (several seeds of the split, or several test
#' periods), not one.
#'
#' Rows with missing covariates are skipped. Rows without any sensor reading
#' have the model's prior as their estimate, not a measurement: they give no
#' score for `"split"` (with a message counting them; their scores, of the
#' prior, would widen the intervals of every measured row), `"mc_empirical"`
#' and `"sensor_anchored"`, as [evaluate_fusion()] leaves them out. They
#' contribute to `"mc_model"`, whose scores follow \eqn{|N(0, 1)|}{|N(0, 1)|}
#' on any row. `predict()` of a calibration still gives such rows an interval,
#' with the warning of class `ncam_warning_no_readings`. For `"split"` that
#' interval has its own threshold: every calibration row with a reference
#' reading is scored a second time against the estimate it would have had
#' without any low-cost reading (the prior from its covariates), and those
#' scores set the multiplier of rows without a reading (`quantile_no_readings`
#' in [tidy.ncam_calibration()]), with the same guarantee when sensors drop
#' out independently of the air. The other methods apply their one threshold,
#' calibrated on rows with readings, which says nothing of how often it covers a
#' prior's (on simulated rows, `bench/calibrate_no_readings.R` in the source
#' repository, 90 % intervals with the threshold of the measured rows covered
#' 0.39 to 0.59 of new rows without a reading).
#'
#' @section Threshold:
#' With \eqn{n}{n} calibration rows, \eqn{m}{m} scores per row and
#' \eqn{\alpha = 1 - level}{alpha = 1 - level}, `correction = "stutz"` (the default) uses the
#' threshold of Algorithm 1 of Stutz et al. (2023): with conformity
#' \eqn{E = -score}{E = -score}, the \eqn{k}{k}-th largest of the \eqn{mn}{mn} scores where
#' \eqn{k = \lfloor \alpha m (n + 1) \rfloor - m + 1}{k = floor(alpha m (n + 1)) - m + 1}.
#' With \eqn{m = 1}{m = 1} this is exactly split conformal, the
#' \eqn{\lceil (1 - \alpha)(n + 1) \rceil}{ceiling((1 - alpha)(n + 1))}-th
#' smallest score, with the usual \eqn{1 - \alpha}{1 - alpha} guarantee (with respect to the
#' pseudo-label distribution); for \eqn{m \ge 2}{m >= 2} the scores of a row are
#' dependent and the guarantee is \eqn{1 - 2\alpha}{1 - 2 alpha}, although coverage is
#' usually close to \eqn{1 - \alpha}{1 - alpha}.
#'
#' `correction = "ecdf"` gives an exact \eqn{1 - \alpha}{1 - alpha} guarantee following the
#' ECDF correction of Stutz et al. (2023): the calibration rows are split at
#' random into two halves. The first half provides the \eqn{m}{m} scores per row;
#' a score \eqn{s}{s} gets the Monte Carlo p-value averaged over the \eqn{m}{m}
#' samples, \eqn{\bar p(s) = (m + \#\{scores \ge s\}) / (m (n_1 + 1))}{pbar(s) = (m + #{scores >= s}) / (m (n1 + 1))}.
#' Each row of the second half draws one fresh pseudo-label, whose p-value
#' \eqn{\bar p_h}{pbar_h} is computed the same way. The corrected p-value of a test
#' label is \eqn{(1 + \#\{h: \bar p_h \le \bar p(s)\}) / (n_2 + 1)}{(1 + #{h: pbar_h <= pbar(s)}) / (n2 + 1)},
#' and the interval keeps the labels whose corrected p-value exceeds
#' \eqn{\alpha}{alpha}; the threshold is the largest score that does so. The
#' correction only applies to `"mc_model"` and `"mc_empirical"`. The threshold
#' is infinite (with the warning below) whenever \eqn{r = \lfloor \alpha (n_2 + 1)
#' \rfloor}{r = floor(alpha (n2 + 1))} holdout scores exceed every score of the
#' first half, which is common just above the minimum rows when \eqn{m = 1}{m = 1}: the
#' \eqn{r}{r} largest of all scores are then all holdout scores with probability
#' \eqn{\binom{n_2}{r} / \binom{n_1 + n_2}{r}}{choose(n2, r) / choose(n1 + n2, r)},
#' one half with 20 rows at level 0.9 and about a quarter with 40. Larger
#' \eqn{m}{m} makes it rare; with \eqn{m = 1}{m = 1} use several times the minimum rows.
#'
#' If the calibration set is too small for the level (for example fewer than
#' 9 rows at level 0.9; rows with a score, not scores, for
#' `"sensor_anchored"` too) the threshold is infinite, so the intervals are
#' unbounded (below at 0 with a log transform), and a warning of class
#' `ncam_warning_small_calibration` says how
#' many rows are needed (also from `predict()` at a level the set is too small
#' for) and, from `calibrate()`, how many rows of `data` were left out for a
#' missing reference, a missing covariate (by column), a level of a factor
#' covariate not seen in training, values beyond what the networks compute
#' with (see Value in [predict.ncam()]) or no sensor reading.
#'
#' @section Warnings: each warning has a class, so that code calibrating many
#'   models can catch or muffle one kind: `ncam_warning_small_calibration` (too
#'   few calibration rows for the level: infinite intervals),
#'   `ncam_warning_in_sample_calibration` (calibration rows that trained the
#'   model) and `ncam_warning_label_free_calibration` (a method other than
#'   `"split"` on a model fitted with a reference); [ncam_warnings] lists every
#'   class.
#'
#' @param object A fitted model from [ncam()]; for fits by group from [ncam_by()], see
#'   [calibrate.ncam_by()].
#' @param data Calibration data: a data frame with the covariates and sensor
#'   columns of the model (for example the calibration rows of
#'   [split_blocks()]).
#' @param method Calibration method, see the Methods section. By default
#'   `"split"` when `reference` is given, or when the model was fitted with a
#'   reference whose column `data` holds with at least one observed value
#'   (`reference` is then that column); otherwise `"mc_model"`. The other
#'   methods warn on a model fitted with a reference: they do not calibrate
#'   against it.
#' @param level Default coverage level of the intervals, strictly between 0
#'   and 1; `predict()` can use another.
#' @param m Number of Monte Carlo pseudo-labels per calibration row (for
#'   `"mc_model"` and `"mc_empirical"` only: an error with the other methods), a
#'   whole number of at least 1; `m` times the rows of `data` may be at most 10
#'   million.
#' @param reference Name of the reference column of `data`, for `"split"`
#'   (by default the model's own reference column, whether `method` is given
#'   as `"split"` or chosen by default; an error if `data` lacks that column);
#'   an error with other methods, and for a sensor or covariate of the model.
#'   Plain numbers are taken to be in the units of the estimate (see Value in
#'   [predict.ncam()]), and refused in the model's reference column when the fit
#'   converted it from other units (with another `method` or `reference`, that
#'   column is not read, and may hold plain numbers); a column with units
#'   (units package) is converted to them, as `predict()` converts the model's
#'   columns: an error when it cannot be (ppb for an estimate in ug/m3), or
#'   when the model was fitted to plain numbers and so does not know the units
#'   of its estimate.
#' @param seed For the Monte Carlo methods, the seed of their draws: a whole
#'   number, used locally without disturbing the global random stream, or
#'   `NULL` to draw one from R's random number generator (so [set.seed()]
#'   applies). The seed used is kept as `seed` and printed: `calibrate()` with
#'   it and the same model and data gives the same calibration. The other
#'   methods draw nothing: a seed other than `NULL` is an error with them.
#' @param correction `"stutz"` (default) for the threshold of Stutz et al.'s
#'   Algorithm 1, or `"ecdf"` for the exact ECDF-corrected variant; for
#'   `"mc_model"` and `"mc_empirical"` only (an error with the other methods).
#' @param threads Number of threads; see [ncam_threads()].
#' @param ... Not used: an argument not named above is an error. `newdata` (or `new_data`) is
#'   pointed to `data`, the calibration rows here; `newdata` is for [predict()] of the
#'   calibration.
#' @return An object of class `ncam_calibration`: a list with the fitted
#'   `model`, `method`, `level`, `correction`, the sorted conformity `scores`,
#'   `holdout` scores (for `"ecdf"`, else `NULL`), `n` (calibration rows that
#'   gave scores; for `"ecdf"` those behind `scores`, the rest are the
#'   holdout), `m` (pseudo-labels drawn per row by the MC methods; stored as 1
#'   for `"split"` and `"sensor_anchored"`, which draw none, and shown as `NA`
#'   for `"sensor_anchored"` by [glance()]), `quantile` (the threshold at
#'   `level`), `seed` (the seed of the Monte Carlo draws; `NULL` for the
#'   other methods), `reference` (the column of `data` whose readings
#'   `"split"` scored against; `NULL` for the other methods), for `"split"`
#'   `prior_scores` and `n_prior` (the scores of the estimates without any
#'   low-cost reading, and the rows behind them; see Details), and
#'   `ncam_version` and `object_format` as in [ncam()].
#'   The scores are kept so that [predict()] can use another `level`: the object
#'   grows by 8 bytes per score, `n * m` of them (about 40 MB for the default
#'   `m = 50` on 100,000 rows), which matters when calibrations are shared as
#'   files.
#' @references Stutz, D., Roy, A. G., Matejovicova, T., Strachan, P., Cemgil,
#'   A. T. and Doucet, A. (2023). Conformal prediction under ambiguous ground
#'   truth. *Transactions on Machine Learning Research*.
#' @seealso [predict.ncam_calibration()], [evaluate_fusion()]
#' @export
#' @examples
#' toy <- simulate_toy(300, seed = 1)
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ 1, data = toy[1:200, ],
#'             anchor = "sensor_0", hidden = integer(0), epochs = 2000,
#'             learn_rate = 0.02, seed = 1, verbose = FALSE)
#' cal <- calibrate(fit, toy[201:250, ], m = 10, seed = 1)
#' cal
#' head(predict(cal, toy[251:300, ]))
#'
#' # With a reference (`colocation`): fit on the first three weeks of co-location and
#' # calibrate on the fourth, reference readings the fit never saw ("split" learns from them)
#' last_week <- !is.na(colocation$ref) & colocation$date >= as.POSIXct("2021-04-22", tz = "UTC")
#' first_weeks <- colocation
#' first_weeks$ref[last_week] <- NA
#' fit_ref <- ncam(pa_a + pa_b + opc ~ rh + temperature, data = first_weeks, reference = "ref",
#'                 hidden = c(16, 16), epochs = 100, seed = 1, threads = 1)
#' cal_ref <- calibrate(fit_ref, colocation[last_week, ], method = "split")
#' cal_ref
#' # Intervals for what the reference would read on the first days of May
#' predict(cal_ref, head(colocation[colocation$date >= as.POSIXct("2021-05-01", tz = "UTC"), ]))
calibrate <- function(object, data, method = NULL, level = 0.9, m = 50, reference = NULL,
                      seed = NULL, correction = c("stutz", "ecdf"), threads = NULL, ...) {
  check_dots_empty_hinted(calibrate_data_hints)
  check_column_name_args("reference")
  if (inherits(object, "ncam_by")) UseMethod("calibrate")  # fits by group: calibrate.ncam_by()
  check_data_given(missing(data))
  if (inherits(object, "ncam_baseline")) {
    ncam_abort(c("{.arg object} is a baseline from {.fn ncam_baseline}: {.fn calibrate} calibrates the intervals of {.fn ncam} fits.",
                 i = "Judge the baseline's intervals with {.fn evaluate_fusion} on rows with reference readings, or fit {.fn ncam} (with {.arg reference} for a co-location period) and calibrate that."))
  }
  check_ncam(object)
  check_data_frame(data)
  data_as_given <- data  # to find the rows that trained the fit, before match_units() converts them
  if (nrow(data) == 0L) ncam_abort("{.arg data} has no rows: calibration needs rows held out from training.")
  if (is.null(method)) {
    # Reference readings, where there are any, are the labels that can correct the model.
    if (is.null(reference) && !is.null(object$reference) && object$reference %in% names(data) &&
        !all(is.na(data[[object$reference]]))) {
      reference <- object$reference
    }
    method <- if (is.null(reference)) "mc_model" else "split"
  }
  method <- match_choice(method, c("mc_model", "split", "mc_empirical", "sensor_anchored"),
                         "method")
  refuse_draw_arguments(method, c(if (!missing(m)) "m", if (!is.null(seed)) "seed", if (!missing(correction)) "correction"))
  correction <- match_choice(correction, c("stutz", "ecdf"), "correction")
  check_scalar_level(level)
  check_number(m, "m", min = 1, integer = TRUE)
  check_seed(seed)
  # The model's reference is read only as the labels of "split": elsewhere it is left as given.
  reads_own_reference <- method == "split" && (is.null(reference) || identical(reference, object$reference))
  data <- in_words_of(match_units(object, data, unread = if (!reads_own_reference) object$reference), "data")
  if (method == "split") {
    if (is.null(reference) && !is.null(object$reference)) {
      # The model's own reference column, whichever way "split" was chosen.
      if (!object$reference %in% names(data)) {
        ncam_abort(c("{.arg data} has no column {.field {object$reference}}, the reference the model was fitted with, for {.code method = \"split\"}.",
                     i = "Add the reference readings to {.arg data}, or name the column holding them in {.arg reference}.",
                     column_hints(object$reference, names(data))))
      }
      reference <- object$reference
    }
    if (is.null(reference)) {
      ncam_abort(c("{.arg reference} is required for {.code method = \"split\"}.",
                   i = "Name the column of {.arg data} with the reference values."))
    }
    check_string(reference, "reference")
    check_columns(data, reference, "reference")
    # A column the model fuses or conditions on would score the model against itself.
    role <- if (reference %in% object$sensors) "a sensor" else if (reference %in% model_columns(object$terms)) "a covariate"
    if (!is.null(role)) {
      ncam_abort(c("{.arg reference} column {.field {reference}} is {role} of the model, not reference readings to calibrate against.",
                   i = "Name the column of {.arg data} holding the reference monitor's readings."))
    }
    # match_units() converted the model's own columns; another is compared with the estimate.
    if (inherits(data[[reference]], "units") && !reference %in% names(object$units)) {
      data[[reference]] <- reference_in_estimate_units(object, data[[reference]], reference, environment(), "data")
    }
    reference_values <- new_reference_readings(data, reference, object$transform, data_arg = "data")
    unlabelled <- sum(is.na(reference_values))
    if (unlabelled == nrow(data)) {
      # Numeric columns with values that the model does not read, which might hold the readings.
      others <- setdiff(names(data), c(reference, object$sensors, object$reference, model_columns(object$terms)))
      others <- others[vapply(others, function(v) is.numeric(data[[v]]) && !all(is.na(data[[v]])), logical(1))]
      ncam_abort(c("Reference column {.field {reference}} has no observed value in {.arg data}: split conformal needs reference readings.",
                   i = if (length(others)) "If another column of {.arg data} holds them, name it in {.arg reference}, such as {.code reference = \"<column>\"}; numeric columns with values: {.field {others}}.",
                   i = "Or calibrate on rows with reference readings in {.field {reference}}, such as co-location rows the model did not train on."))
    }
    labelled <- which(!is.na(reference_values))
    warn_in_sample_calibration(object, data_as_given, method, labelled)
    if (unlabelled > 0L) {
      cli::cli_inform("{unlabelled} row{?s} of {.arg data} without a reference value ({.field {reference}}) {cli::qty(unlabelled)}{?is/are} left out of the calibration.")
    }
  } else if (!is.null(reference)) {
    ncam_abort(c("{.arg reference} is used only by {.code method = \"split\"}, not {.val {method}}.",
                 i = "Leave {.arg reference} out, or choose {.code method = \"split\"} to calibrate against the reference."))
  }
  if (!method %in% c("mc_model", "mc_empirical")) {
    # One score per label: the Stutz threshold with m = 1 is split conformal.
    m <- 1L
    correction <- "stutz"
  }
  # The other methods score what data holds, one score per reading at most.
  if (method %in% c("mc_model", "mc_empirical") && m * nrow(data) > max_calibration_scores) {
    ncam_abort(c("{.arg m} = {m} pseudo-labels for each of {nrow(data)} rows would draw {signif(m * nrow(data), 3)} scores, more than the {max_calibration_scores / 1e6} million a calibration keeps in memory.",
                 i = "Lower {.arg m} to at most {max(1, floor(max_calibration_scores / nrow(data)))}: the threshold's Monte Carlo error is already small at the default 50."))
  }
  # Warned once the arguments are known to be usable.
  if (method != "split" && !is.null(object$reference)) {
    cli::cli_warn(c("Method {.val {method}} calibrates against the model's own draws or the low-cost sensors, not against the reference monitor {.field {object$reference}} the model was fitted with.",
                    i = "Calibrate on rows with reference readings with {.code method = \"split\"} (the default when {.arg data} has reference readings)."),
                  class = c("ncam_warning_label_free_calibration", "ncam_warning"))
  }

  if (method != "split") warn_in_sample_calibration(object, data_as_given, method, seq_len(nrow(data)))

  rows <- seq_len(nrow(data))
  if (method == "split") {
    # Only labelled rows give scores: after a short co-location nine rows in ten have no label,
    # and their posterior took most of the time and memory. Warnings name rows of `data`.
    rows <- labelled
    data <- data[labelled, , drop = FALSE]
    reference_values <- reference_values[labelled]
  }
  post <- label_variance(object, in_words_of(with_input_rows(rows, ncam_posterior(object, data, threads)), "data"))
  # Rows beyond the networks' range or with an unseen level have their own warnings, those
  # without a reference were counted: the others are counted here.
  scored <- if (method == "split") !is.na(reference_values) else rep(TRUE, nrow(data))
  unseen_level <- sum(scored[post$unseen_rows])
  beyond_range <- sum(scored[setdiff(post$beyond_rows, post$unseen_rows)])
  scored[c(post$beyond_rows, post$unseen_rows)] <- FALSE
  no_prediction <- is.na(post$mu) & scored
  counts <- missing_covariate_counts(object, data, no_prediction)
  by_column <- if (length(counts)) paste0(" (", paste0(names(counts), ": ", counts, collapse = ", "), ")")
  # A row without a sensor reading has the prior as its estimate: it gives no sensor-based score,
  # and for "split" its score, of the prior, would widen the intervals of measured rows.
  without_reading <- post$ok & rowSums(!is.na(post$b)) == 0L & scored
  prior <- if (method == "split") prior_only_scores(object, data, reference_values, scored, threads)
  if (method == "split") reference_values[without_reading] <- NA
  no_reading <- if (method == "mc_model") 0L else sum(without_reading)
  if (method == "split" && no_reading > 0L) {
    cli::cli_inform("{no_reading} row{?s} of {.arg data} with a reference value but no sensor reading {cli::qty(no_reading)}{?is/are} left out of the calibration: {?its estimate is/their estimates are} the model's prior, not a measurement.")
  }
  # Named in the warning when too few rows are left for the level.
  left_out <- c(
    if (method == "split" && unlabelled > 0L) paste0(unlabelled, " without a reference reading (", reference, ")"),
    if (any(no_prediction)) paste0(sum(no_prediction), " with a missing covariate", by_column),
    if (unseen_level > 0L) paste(unseen_level, "with a level of a factor covariate not seen in training"),
    if (beyond_range > 0L) paste(beyond_range, "with values beyond what the networks compute with"),
    if (no_reading > 0L) paste(no_reading, "without any sensor reading")
  )
  if (any(no_prediction)) {
    cli::cli_inform("{sum(no_prediction)} row{?s} of {.arg data} with a missing covariate{by_column} {cli::qty(sum(no_prediction))}{?is/are} left out of the calibration.")
  }
  sd_pred <- sqrt(post$var_pred)
  # The Monte Carlo methods draw: without a seed they draw one, kept to reproduce them.
  seed <- if (method %in% c("mc_model", "mc_empirical")) resolve_seed(seed)
  draws <- with_seed_or_global(seed, calibration_scores(
    method, post, sd_pred, m, correction,
    reference = if (method == "split") reference_values
  ))

  out <- structure(c(list(
    model = object, method = method, level = level, correction = correction,
    scores = sort(draws$scores), holdout = draws$holdout,
    n = draws$n, m = as.integer(m), seed = seed, reference = if (method == "split") reference,
    prior_scores = prior$scores, n_prior = prior$n
  ), made_by()), class = "ncam_calibration")
  out$quantile <- calibration_quantile(out, level, left_out)
  out
}
