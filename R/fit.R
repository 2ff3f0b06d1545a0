#' Fit a Neural Conjugate Aggregation Model
#'
#' Fuses several sensors that measure the same quantity into one estimate of the true
#' value, from the sensors' agreement alone or anchored to a reference monitor observed
#' during a co-location period (`reference`). Each sensor reads
#' \eqn{b_j = a_j(X)\Theta + c_j(X) + N(0, \sigma_j^2(X))}{b_j = a_j(X) Theta + c_j(X) + N(0, sigma_j^2(X))} of a
#' latent true value
#' \eqn{\Theta \sim N(\mu_0(X), s_0^2(X))}{Theta ~ N(mu_0(X), s_0^2(X))}, where the prior, the gains \eqn{a_j}{a_j},
#' offsets
#' \eqn{c_j}{c_j} and noise levels \eqn{\sigma_j}{sigma_j} are small neural networks (GELU multilayer
#' perceptrons) of the covariates \eqn{X}{X}. The networks are trained by minimising the exact
#' negative log marginal likelihood of the readings (rank one plus diagonal Gaussian) plus the
#' variance penalty \eqn{\lambda (\log s_0^2)^2 + \lambda \sum_j (\log \sigma_j^2)^2}{lambda (log s_0^2)^2 + lambda sum_j (log sigma_j^2)^2} (log-variances
#' on the working scale, a sensor's relative to its level; see Scaling), with Adam and early
#' stopping on a validation set. The posterior of \eqn{\Theta}{Theta} is then closed form.
#'
#' @section Identifiability: the latent value is only defined up to an affine map unless one
#'   sensor is fixed. With `parameterization = "anchored"` (the default) the `anchor` sensor has
#'   \eqn{a = 1, c = 0}{a = 1, c = 0}, so the fused value is on the anchor's scale: choose the sensor you trust
#'   most for calibration. `"unanchored"` frees every sensor (to demonstrate the drift this
#'   allows) and `"no_bias"` fixes \eqn{a = 1, c = 0}{a = 1, c = 0} for all sensors (the paper's ablation).
#'
#' @section Scaling: covariates are standardised on the training rows. Sensor readings are put
#'   on a working scale \eqn{(b - m)/k}{(b - m)/k} with \eqn{m, k}{m, k} the mean and standard deviation of the
#'   anchor (of all sensors pooled when there is no anchor); results are mapped back, so
#'   multiplying every sensor by a constant multiplies the predictions and their standard
#'   deviations by it. The clamp of log-variances to `control$logvar_range` (default
#'   \eqn{[-5, 4]}{[-5, 4]}), the variance penalty and `sigma_y2` all act on this working scale. The
#'   default clamp keeps each noise standard deviation between \eqn{e^{-2.5} \approx 0.08}{exp(-2.5) (about 0.08)} and
#'   \eqn{e^{2} \approx 7.4}{exp(2) (about 7.4)} times the standard deviation of the anchor's readings (times its
#'   level's gain for a sensor at its own level, below); when co-located sensors agree more
#'   closely than that, [summary.ncam()] shows noise levels at the floor, and a wider
#'   `logvar_range` lets them go lower. Every sensor is fitted at the anchor's level (gain 1,
#'   offset 0 on the working scale) unless its own level lies beyond 3 of the anchor's standard
#'   deviations or its gain beyond a factor of 3 (a large baseline, another scale, a raw signal
#'   in mV or counts). Such a sensor is fitted at its own level, where its readings sit against
#'   the anchor's: its gain and offset start there and are learned relative to it, and its noise
#'   (with the clamp and the penalty on it) is that of the sensor converted to the anchor's units
#'   by that level, so it fits as well as the same sensor in the anchor's units. PurpleAir
#'   shifted by 150 ug/m3 gave RMSE 6.7 from the anchor's level, 2.3 at its own
#'   (`bench/sensor_start.R` in the source repository); as 1000 times its reading plus 2000, RMSE
#'   2.28 over seeds 1-3 against 2.29 as it is (2.73 when only its gain and offset started at its
#'   own level; `bench/raw_signal.R` in the source repository). See `sensor_start` in
#'   [ncam_control()]. Sensors whose spreads differ by more than 50 times where a fit takes them at
#'   one scale (without an anchor or reference, with `sensor_start = "anchor_level"`, or beside
#'   fewer than 10 of the anchor's readings) get warning `ncam_warning_units`: convert them to one
#'   unit first.
#'
#' @section Missing data: a missing sensor reading (`NA`) simply leaves that sensor out of the
#'   row's likelihood and posterior; a row with no reading gets the prior. Rows with a missing
#'   covariate cannot be used for training and are left out of it with a warning; their
#'   predictions are `NA`. A missing-value code in a numeric covariate (-999, -9999, 9999 and
#'   the like) beyond its other values and more than 10 robust spreads (MADs) from their median
#'   is an error: set it to `NA` first.
#'
#' @section Warnings: each warning has a class, so that code fitting many models (loops over
#'   sites, [ncam_by()]) can catch or muffle one kind, e.g.
#'   `withCallingHandlers(ncam(...), ncam_warning_not_converged = function(w) invokeRestart("muffleWarning"))`.
#'   [ncam_warnings] lists every class, with the functions that give it and when.
#'
#' @param formula Sensors on the left (`a + b + c` or `cbind(a, b, c)`; at least two, or one
#'   with a `reference`), covariates on the right (`~ rh + temp`, `~ 1` for none). `~ .` stands
#'   for every column but the sensors, the `reference`, the `unit` and date-times (`Date`,
#'   `POSIXct`); with no such column it is `~ 1` (a label-free or reference fit without
#'   covariates). It refuses durations, list columns and text with one value or more than 20:
#'   take them out (`~ . - station`) or name the covariates. Factor and character covariates
#'   are one-hot encoded; a date-time column named on the right is refused (use features of the
#'   time, such as the hour of day). Covariates are columns of
#'   `data`; other names on the right are settings taken from the formula's environment, as
#'   [lm()] does (`k` in `poly(rh, k)`), and kept with the fit for `predict()`. An object there
#'   with one value per row of `data` is refused: add it to `data`.
#' @param data A data frame. Sensor and reference columns with `units` (the units package) in
#'   different units of one quantity are converted, with a message, to the unit of the anchor or,
#'   without one (as with a `reference`), of the first sensor on the formula's left; if that column
#'   has none, of the first sensor (then the reference) that has. Estimates are in that unit
#'   (`fit$units`, named by `print()`), even where the reference was in another, and new data are
#'   read in it; plain numbers of new data too, except in a column that was converted (its
#'   units as given are kept in `attr(fit$units, "given")`): those need units where they are
#'   read (see [predict.ncam()]). Units of another quantity (ppb beside ug/m3) are an error. So are sensor
#'   or reference columns without units beside readings whose numbers were converted: their unit
#'   is not known, so neither is whether they match the converted readings; give them units, or
#'   convert every reading column yourself and give none units. Beside columns with units all in
#'   one unit, plain ones are taken to be in it (nothing is converted), with warning
#'   `ncam_warning_readings_without_units`. If they are in another unit, the estimates are off by
#'   the conversion factor (when on such a column's scale), or the unit `fit$units` gives their
#'   readings is wrong (sensors in ug/m3 beside a reference in mg/m3 fit with gains near 1000).
#'   Give every reading column units, or none.
#' @param anchor Name of the anchor sensor (default: the first sensor). Ignored unless
#'   `parameterization = "anchored"`; must be `NULL` when `reference` is given.
#' @param reference Name of a column holding a reference monitor's readings during a co-location
#'   period (`NA` elsewhere), not on the formula's left side. The reference becomes the anchor (a = 1, c
#'   = 0), so the fused value is on the reference's scale, and its noise is learned from the rows where
#'   it reads beside at least one low-cost sensor (at least 20 such training rows: a random
#'   `validation` draw leaves 20 of them to training whenever there are 20; rows where it reads
#'   alone inform the prior only; below 200, warning `ncam_warning_few_reference_rows`: credible intervals
#'   ignore the calibration's own error; judge them by [calibrate()] `method = "split"` on held-back
#'   co-location rows). [predict.ncam()] does not need the column (by default it estimates from the
#'   low-cost sensors alone); `interval = "prediction"` gives intervals for a reference reading. With a
#'   single low-cost sensor only those are identified: `predict(interval = "credible")` still returns an
#'   interval for the true value, but it is not meaningful.
#' @param unit With `reference`: the column telling units (sites, devices) apart, when each unit had
#'   its own co-location period. After training, each unit's mean difference between the reference and
#'   the estimate on its reference rows, shrunk towards 0 by how much units differ (empirical Bayes),
#'   becomes the unit's offset: [predict.ncam()] adds it to the unit's estimates and its variance to
#'   their intervals. A unit without reference rows (or `NA`) gets no offset and in its intervals the
#'   between-unit variance times \eqn{1 + 1/K}{1 + 1/K} (the pooled model's level is itself the mean of the K
#'   units' biases), with a warning of class `ncam_warning_unknown_unit` naming it. A known unit's
#'   `offset_sd` is the error of its offset, from how the model's error wanders over the unit's
#'   reference rows (give each unit's rows in time order); section Unit offsets says what it counts and
#'   what it cannot. The between-unit variance `tau2` is the spread of the units' means net of
#'   their noise, weighted by their precision so that a unit with few reference rows counts little; at 0
#'   every offset is 0 (`print()` says so) and `offset_sd` and a new unit's variance use `tau2_floor`,
#'   the least spread those means could show. Where units share the seasons that move the error it comes
#'   out small (PurpleAir sites left out one at a time, `bench/unit_offsets.R` in the source
#'   repository: 92 % of their readings inside 90 % intervals). The reference's noise, learned
#'   without units, keeps the spread between them: `"prediction"` intervals of known units are then
#'   conservative where units differ much (99.7 % at 90 % for simulated units biased by -3 to 3,
#'   `bench/unit_known_coverage.R` in the source repository; 91 % on PurpleAir's later days,
#'   `bench/unit_offsets.R` in the source repository); [calibrate()] with later reference rows
#'   recalibrates them, as far as those rows are like the days to come. Needs reference readings at
#'   3 or more units, with 20 degrees of freedom for the noise of a unit's mean: 20 reference rows
#'   beyond the first of each unit, not counting rows that repeat another of their unit in every
#'   column the model reads (checked before training). On fewer the noise swings by chance (on 1
#'   degree, one fit in 10 takes it for under a 60th of what it is) and every offset comes out
#'   unshrunk with a tiny `offset_sd`; 20 keep its relative error near 0.32, as for the longer
#'   blocks. `newdata` then needs the column. The offsets are
#'   in `fit$unit_offsets` (its `table` holds the units as the unit column does, a factor with its
#'   levels, so that it joins back to the data, in that column's order; text sorted byte by
#'   byte, as `autoplot()` draws the units), tabled by `summary()`, counted by `glance()` (`n_units`, `unit_sd`), not
#'   by `logLik()`.
#' @param hidden Widths of the hidden layers of each of the three networks; `integer(0)` for
#'   none (the heads are then affine in the covariates).
#' @param epochs Maximum number of passes over the training rows.
#' @param learn_rate Adam's learning rate.
#' @param batch_size Rows per minibatch.
#' @param validation Rows used for early stopping: a fraction of the rows drawn at random, a
#'   logical vector with one element per row (`TRUE` = validation), or row numbers. `0` turns
#'   early stopping off (the training NLL then decides the best epoch), as does a fraction too
#'   small to give one usable row (with a warning of class `ncam_warning_no_validation_rows`).
#'   A single `1` is an error (all rows, or row 1?). Rows drawn at random
#'   from an hourly series sit next to training rows and flatter the validation loss; for such
#'   data give whole blocks of time: with `split <- split_blocks(data, "date")` and
#'   `fit_rows <- split %in% c("train", "validation")`, fit `data[fit_rows, ]` with
#'   `validation = split[fit_rows] == "validation"` (see [split_blocks()]).
#' @param stop_iter Stop after this many epochs without improvement of the validation NLL (rows'
#'   NLLs capped at their median plus 10 MADs (`stats::mad()`, scaled to a normal sd): a spike's grows without bound as the model grows
#'   confident); the best epoch's weights are kept. `0`, or no validation rows, never stops early.
#' @param lambda_var Weight \eqn{\lambda}{lambda} of the variance penalty (see Description). The
#'   default `1e-3` barely pulls; the paper used `0` on its toy data and `1.0` on SensEURCity and
#'   CAIRSENSE: give that value to reproduce its real-data settings.
#' @param sigma_y2 Variance of the true value around \eqn{\Theta}{Theta} (the aleatoric term added to
#'   the predictive variance), as a fraction of the variance of the anchor's readings on the
#'   training rows (of all sensors' readings pooled without an anchor; of log readings with
#'   `transform = "log"`): the default `1e-3` adds a standard deviation of about 3% of the
#'   anchor's spread.
#' @param parameterization `"anchored"`, `"unanchored"` or `"no_bias"`; see Identifiability.
#' @param transform `"none"`, or `"log"` to model the logarithm of the readings: readings
#'   must then be positive (an error naming every column and row with readings <= 0;
#'   [predict()] treats such new readings as missing), and estimates are transformed back as
#'   medians, `exp()` of the posterior mean of the log (see [predict.ncam()]). Readings near 0
#'   weigh heavily on the log scale: a reading of 0.01 beside others near 20 is as far below
#'   them as 40000 is above and pulls the estimate down; set readings below a sensor's
#'   detection limit to `NA` first.
#' @param seed Seed of the initialisation, the batch order and the validation draw. `NULL`
#'   draws one from R's generator, so [set.seed()] makes fits reproducible. The seed used,
#'   drawn or given, is printed with the fit and kept in its call, so [update()] refits the
#'   same model (`update(fit, seed = NULL)` draws a new one); so are the values of other
#'   arguments given as names or expressions (`formulas[[i]]`, `hidden = h` in a loop), not the
#'   names, which may hold something else by the time of `update()`. A seed reproduces a fit of the same
#'   data as given: the order of the rows, of the sensors, of the covariates and of a factor's
#'   levels enters the initialisation and the mini-batches, so reordering any of them changes
#'   the fit about as much as another seed does.
#' @param threads Number of threads; see [ncam_threads()] (also for the choice between the
#'   AVX2 and the portable engine). Results do not depend on the number of threads. Training
#'   times its batches and falls back to one thread while that is faster (another program
#'   busy on a core); see `adapt_threads` in [ncam_control()].
#' @param verbose Show a progress bar with epoch, NLL and time left (cli shows it once training
#'   has run for 2 seconds), and at the end, however short the fit, one line with the epochs
#'   run, the time they took, the best epoch and its NLL. The bar shows the validation NLL
#'   early stopping watches, each row's NLL capped (see `stop_iter`), so it can lie below the
#'   uncapped `validation_nll` of the history and of `glance()`; the last line gives the best
#'   epoch's validation NLL uncapped and capped; without validation rows, the training NLL.
#'   Under [ncam_by()] the bar and the line name the group that trains.
#' @param control Optimiser details from [ncam_control()].
#' @return An object of class `ncam`: a list of plain R vectors (no external pointers), so
#'   [saveRDS()] works. It holds the network weights, the scaling, the training history, the
#'   call and the terms, a per-sensor summary, the 1st and 99th percentiles of each sensor's
#'   training readings and the reference's (`reading_scale`, which [predict.ncam()] compares new readings with), with `unit`, the table of unit offsets
#'   (`unit_offsets`) and, with `reference`, when the rows that carried it were (`reference_periods`, when
#'   `data` has a `Date` or `POSIXct` column: `date` if it is one, else the first that varies over those
#'   rows, named in `column`; `periods`, the first and last time of each run of those rows, per unit
#'   with `unit`, a run broken where they pause for more than 10 times their median spacing and more
#'   than a 20th of their whole span, with its rows `n`; `one_series`, `FALSE` when their times repeat
#'   within a unit, as for several sites in one model without `unit`), which `print()` names,
#'   [glance()] gives as `reference_from` and `reference_to` and the `"series"` of [autoplot.ncam()]
#'   shades; but no per-row results: its size does not grow with the data. It
#'   records the ncam version that made it (`ncam_version`) and its `object_format`; methods
#'   refuse an object of a newer format than the installed ncam reads. `fitted()`, `residuals()`, `predict()`, `augment()` and
#'   `sensor_params()` without `newdata` find the data again by evaluating the call's `data`
#'   where the model was fitted, and check that the columns the fit read (the sensors, the
#'   `reference`, the `unit` and the variables of the covariates) are unchanged: the same number of rows
#'   and, per column, exactly the same values in the same order (compared by a hash; text and
#'   factors by their values). Other columns may change; a re-sorted, converted, rounded or
#'   edited column, even in its last digit (as writing and reading a CSV file does), is an error
#'   asking for `newdata` that says which: values changed, or the same values in another order. A model fitted inside a function that has
#'   returned, or read back in a session without its data, needs `newdata`. Use
#'   [predict.ncam()], [summary.ncam()], [sensor_params()], [coef.ncam()], [logLik.ncam()],
#'   [plot.ncam()].
#' @seealso [calibrate()] for conformal prediction intervals, [split_blocks()] for time series.
#' @examples
#' # Three sensors beside a reference monitor for their first four weeks (`colocation`,
#' # simulated): the reference is the anchor, so the fused value is on its scale.
#' fit <- ncam(pa_a + pa_b + opc ~ rh + temperature, data = colocation, reference = "ref",
#'             hidden = c(16, 16), epochs = 100, seed = 1, threads = 1)
#' fit
#' # After the co-location weeks, from the sensors alone: intervals for a reference reading
#' later <- colocation[colocation$date >= as.POSIXct("2021-05-01", tz = "UTC"), ]
#' predict(fit, head(later), interval = "prediction")
#' # Sites that each had their own co-location weeks: an offset per site
#' sites <- simulate_colocation(days = 60, sites = 4, seed = 1)
#' update(fit, data = sites, unit = "site")$unit_offsets$table
#'
#' # Without a reference: from the sensors' agreement alone, on the anchor's scale
#' toy <- simulate_toy(n = 2000, seed = 1)
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, data = toy,
#'             anchor = "sensor_0", hidden = c(16, 16), epochs = 200, seed = 1, threads = 1)
#' fit
#' head(predict(fit, toy, interval = "credible"))
#' @export
ncam <- function(formula, data, anchor = NULL, reference = NULL, hidden = c(64L, 64L, 64L), epochs = 300L,
                 learn_rate = 1e-3, batch_size = 256L, validation = 0.1, stop_iter = 30L,
                 lambda_var = 1e-3, sigma_y2 = 1e-3,
                 parameterization = c("anchored", "unanchored", "no_bias"),
                 transform = c("none", "log"), seed = NULL, threads = NULL, verbose = FALSE,
                 control = ncam_control(), unit = NULL) {
  check_column_name_args(c("anchor", "reference", "unit"))  # before mget() below evaluates them
  call <- lean_call(match.call())
  check_fit_data(data, call$data)
  warn_grouped_data(data, unit)
  call <- freeze_call_arguments(call, mget(intersect(frozen_arguments, names(call)), envir = environment()))
  check_fit_formula(formula)
  checked <- check_fit_arguments(mget(names(fit_argument_rules), envir = environment()),
                                 call = environment())
  parameterization <- checked$parameterization; transform <- checked$transform; control <- checked$control
  adam <- new_adam_settings(learn_rate, batch_size, control)
  threads <- checked$threads
  seed <- checked$seed
  # The seed used, drawn or the value of an expression (`seed = i` of a loop), so that update(fit) refits the same model.
  if (is.null(call$seed) || is.language(call$seed)) call$seed <- seed
  if (nrow(data) < 2L) ncam_abort("{.arg data} must have at least 2 rows, not {nrow(data)}.")

  # Stage 1, design: sensors, anchor, covariates. Readings and covariates are lists of
  # columns, the data's own when they are plain doubles: the engine reads them in place.
  sensors <- fit_sensors(formula, data, reference)
  anchor_given <- anchor  # resolve_anchor() picks one when none is given; a reference refuses one given
  anchor <- resolve_anchor(anchor, sensors, parameterization)
  # Readings with units in one unit; `data` itself stays as given, to be found again by fitted().
  in_units <- common_reading_units(data, sensors, anchor, reference)
  if (transform == "log") check_positive_readings(in_units, c(sensors, reference))
  readings <- sensor_columns(in_units, sensors, transform)
  if (!is.null(reference)) {
    readings <- c(readings, reference_readings(reference, in_units, sensors, anchor = anchor_given,
                                               parameterization, transform))
    anchor <- reference
  }
  design <- build_design(formula, data, c(sensors, reference), reference, unit)

  # Stage 2, rows: which rows train and which validate.
  complete_x <- rows_without_na(design$x, nrow(data))
  if (!all(complete_x)) warn_missing_training_covariates(which(!complete_x), data, design$terms)
  usable <- complete_x & n_observed(readings) > 0L
  warn_repeated_training_rows(data, which(usable))
  validation_rows <- resolve_validation(validation, nrow(data), usable, seed)
  if (!is.null(reference) && is_validation_fraction(validation)) {
    validation_rows <- reference_rows_to_training(validation_rows, usable, readings, reference, seed)
  }
  rows <- list(train = which(usable & !validation_rows), validation = which(usable & validation_rows),
               n = nrow(data))
  check_training_rows(rows, sum(usable))
  check_unit(unit, reference, sensors, data, c(rows$train, rows$validation), readings, design$x)
  if (!is.null(reference)) check_reference_training_rows(readings, rows, reference)
  warn_two_sensors(sensors, reference, call = NULL)  # once the arguments have passed their checks
  design <- drop_unused_levels(design, rows$train, call = NULL)

  # Stage 3, scale: constant covariates carry no information and break standardisation.
  constant <- constant_covariates(design$x, rows$train)
  if (any(constant)) {
    cli::cli_warn("Dropping constant covariate{?s} {.val {names(design$x)[constant]}}.",
                  class = c("ncam_warning_dropped_covariate", "ncam_warning"))
    design$constant_values <- c(design$constant_values, lapply(design$x[constant], function(v) v[rows$train[1]]))
    design$x <- design$x[!constant]
    design$covariates <- names(design$x)
  }
  x_sd <- covariate_spread(design$x, rows$train)
  spreads <- check_readings(readings, rows$train)
  check_linked(readings, rows$train, anchor)
  fitted_rows <- sort(c(rows$train, rows$validation))
  screened <- screen_readings(readings, fitted_rows, control$screen_outliers, transform)
  readings <- screened$readings
  warn_spikes(screened$counts, screened$rows, control$screen_outliers, call = NULL)
  warn_spikes_kept(readings, fitted_rows, control$screen_outliers, transform)
  scaling <- working_scale(design$x, x_sd, readings, rows$train, anchor)

  # Stage 4, train.
  constant_reference_noise <- !is.null(reference) && control$reference_noise == "constant"
  sensor_level <- if (parameterization == "anchored") sensor_levels(readings, anchor, rows$train, scaling, control$sensor_start)
  spec <- new_model_spec(length(design$x), length(readings), hidden, parameterization,
                         anchor = if (is.null(anchor)) 1L else match(anchor, names(readings)),
                         logvar_range = control$logvar_range, lambda_prior = lambda_var, sensor_level = sensor_level,
                         constant_anchor_noise = constant_reference_noise,
                         anchor_noise_start = if (constant_reference_noise) {
                           anchor_noise_start(readings, anchor, design$x, rows$train, scaling, control$logvar_range)
                         } else NA_real_)
  warn_units(spreads, sensor_level)
  schedule <- list(epochs = as.integer(epochs), stop_iter = as.integer(stop_iter), seed = seed,
                   precision = control$precision, min_delta = control$min_delta)
  nll_offset <- transform_nll_offset(readings, transform)
  engine_data <- list(x = design$x, readings = readings, scaling = scaling)
  trained <- train_loop(spec, adam, engine_data, rows, schedule, nll_offset, threads, verbose)
  if (constant_reference_noise) {
    trained$params <- profile_reference_noise(spec, trained$params, engine_data, rows$train, threads, control$precision)
  }

  # Stage 5, the fit object and what it keeps about the fitted rows.
  settings <- list(epochs = as.integer(epochs), learn_rate = learn_rate, batch_size = as.integer(batch_size),
                   stop_iter = as.integer(stop_iter), lambda_var = lambda_var, seed = seed, control = control)
  fit <- new_ncam_fit(call, formula, design, sensors, anchor, parameterization, transform, spec,
                      trained$params, scaling, sigma_y2, trained, rows, settings,
                      fitted_summary = NULL,
                      data_check = data_fingerprint(data, c(fitted_columns(data, sensors, reference, design), unit)),
                      data_columns = names(data))
  fit$n_left_out <- c(missing_covariate = sum(!complete_x), no_reading = sum(complete_x & !usable))
  fit$n_screened <- screened$counts
  fit$spike_scales <- screened$scales
  fit$units <- column_units(in_units, fitted_columns(data, sensors, reference, design))
  fit$flag_columns <- flag_columns(data, model_columns(design$terms))
  calibration_rows <- fitted_rows
  if (!is.null(reference)) {
    colocated <- colocated_rows(readings, reference)
    fit$reference <- reference
    fit$n_reference <- c(train = sum(colocated[rows$train]), validation = sum(colocated[rows$validation]))
    fit$n_reference_alone <- sum(!is.na(readings[[reference]][calibration_rows])) - sum(fit$n_reference)
    calibration_rows <- calibration_rows[colocated[calibration_rows]]
    fit$reference_periods <- reference_periods(data, calibration_rows, unit)
  }
  fit$calibration_range <- calibration_range(design$x, readings[sensors], calibration_rows)
  fit$reading_scale <- reading_scale(readings[c(sensors, reference)], fitted_rows, transform)
  summary_rows <- fitted_summary(fit, design$x, readings, usable, nll_offset, threads)
  fit[c("loglik", "nobs", "sensor_summary", "clamped_share")] <- summary_rows[c("loglik", "nobs", "sensor_summary", "clamped_share")]
  if (!is.null(unit)) {
    # The fit warned about its spikes already.
    fit$unit_offsets <- suppressWarnings(estimate_unit_offsets(fit, data, unit, calibration_rows, threads),
                                         classes = "ncam_warning_spikes")
  }
  check_training(fit, trained, summary_rows$clamped_share, call = NULL)
  fit
}

# The sensors on the left of `formula`, which must be distinct columns of `data` and at least
# two unless there is a `reference`.
fit_sensors <- function(formula, data, reference, call = parent.frame()) {
  sensors <- sensor_names(formula, call = call)
  check_columns(data, sensors, "formula", call = call)
  if (length(sensors) < 2L && is.null(reference)) {
    ncam_abort(c("{.arg formula} must name at least two sensors on its left side, not {length(sensors)}.",
                 i = "With one low-cost sensor, give a reference monitor's readings over a co-location period with {.arg reference}."),
               call = call)
  }
  if (anyDuplicated(sensors)) {
    ncam_abort("{.arg formula} names sensor {.val {sensors[duplicated(sensors)]}} more than once.", call = call)
  }
  sensors
}

# One warning for the rows left out of training for a missing covariate, naming per column of
# `data` the rows (the first 5) where it is missing; rows whose term is NA with its columns
# present (log() of a negative value) are counted as such.
warn_missing_training_covariates <- function(rows, data, terms) {
  shown_rows <- function(r) paste0(paste(input_rows(utils::head(r, 5)), collapse = ", "), if (length(r) > 5) ", ..." else "")
  counted <- function(label, r) {
    sprintf("%s: %s", label, if (length(r) == 1L) paste("row", input_rows(r)) else sprintf("%d rows (%s)", length(r), shown_rows(r)))
  }
  details <- character()
  covered <- integer()
  for (v in intersect(model_columns(terms), names(data))) {
    missing <- rows[is.na(data[[v]][rows])]
    if (length(missing)) details <- c(details, counted(v, missing))
    covered <- union(covered, missing)
  }
  other <- setdiff(rows, covered)
  if (length(other)) details <- c(details, counted("a term that is NA although its columns are given", sort(other)))
  n <- length(rows)
  cli::cli_warn(c("{n} row{?s} with a missing covariate {?is/are} left out of training; {?its/their} predictions are {.code NA}:",
                  stats::setNames(gsub("([{}])", "\\1\\1", details), rep("*", length(details)))),
                class = c("ncam_warning_missing_covariate", "ncam_warning"), rows = input_rows(rows), call = NULL)
}
