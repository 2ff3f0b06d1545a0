#' Fit a Neural Conjugate Aggregation Model
#'
#' Fuses several sensors that measure the same quantity into one estimate of the true
#' value, without reference labels. Each sensor reads
#' \eqn{b_j = a_j(X)\Theta + c_j(X) + N(0, \sigma_j^2(X))} of a latent true value
#' \eqn{\Theta \sim N(\mu_0(X), s_0^2(X))}, where the prior, the gains \eqn{a_j}, offsets
#' \eqn{c_j} and noise levels \eqn{\sigma_j} are small neural networks (GELU multilayer
#' perceptrons) of the covariates \eqn{X}. The networks are trained by minimising the exact
#' negative log marginal likelihood of the readings (rank one plus diagonal Gaussian) plus the
#' variance penalty \eqn{\lambda (\log s_0^2)^2 + \lambda \sum_j (\log \sigma_j^2)^2}, with Adam
#' and early stopping on a validation set. The posterior of \eqn{\Theta} is then closed form.
#'
#' @section Identifiability: the latent value is only defined up to an affine map unless one
#'   sensor is fixed. With `parameterization = "anchored"` (the default) the `anchor` sensor has
#'   \eqn{a = 1, c = 0}, so the fused value is on the anchor's scale: choose the sensor you trust
#'   most for calibration. `"unanchored"` frees every sensor (to demonstrate the drift this
#'   allows) and `"no_bias"` fixes \eqn{a = 1, c = 0} for all sensors (the paper's ablation).
#'
#' @section Scaling: covariates are standardised on the training rows. Sensor readings are put
#'   on a working scale \eqn{(b - m)/k} with \eqn{m, k} the mean and standard deviation of the
#'   anchor (of all sensors pooled when there is no anchor); results are mapped back, so
#'   multiplying every sensor by a constant multiplies the predictions and their standard
#'   deviations by it. The clamp of log-variances to `control$logvar_range` (default
#'   \eqn{[-5, 4]}), the variance penalty and `sigma_y2` all act on this working scale. The
#'   default clamp keeps each noise standard deviation between \eqn{e^{-2.5} \approx 0.08} and
#'   \eqn{e^{2} \approx 7.4} times the standard deviation of the anchor's readings; when
#'   co-located sensors agree more closely than that, [summary.ncam()] shows noise levels at the
#'   floor, and a wider `logvar_range` lets them go lower.
#'
#' @section Missing data: a missing sensor reading (`NA`) simply leaves that sensor out of the
#'   row's likelihood and posterior; a row with no reading gets the prior. Rows with a missing
#'   covariate cannot be used for training and are left out of it with a warning; their
#'   predictions are `NA`.
#'
#' @param formula Sensors on the left (`a + b + c` or `cbind(a, b, c)`), covariates on the
#'   right (`~ rh + temp`, `~ .` for every other column, `~ 1` for none). Factor and character
#'   covariates are one-hot encoded.
#' @param data A data frame.
#' @param anchor Name of the anchor sensor (default: the first sensor). Ignored unless
#'   `parameterization = "anchored"`.
#' @param hidden Widths of the hidden layers of each of the three networks; `integer(0)` for
#'   none (the heads are then affine in the covariates).
#' @param epochs Maximum number of passes over the training rows.
#' @param learn_rate Adam's learning rate.
#' @param batch_size Rows per minibatch.
#' @param validation Rows used for early stopping: a fraction of the rows drawn at random, a
#'   logical vector with one element per row (`TRUE` = validation), or row numbers. `0` turns
#'   early stopping off (the training NLL then decides the best epoch).
#' @param stop_iter Stop after this many epochs without improvement of the validation NLL; the
#'   weights of the best epoch are kept.
#' @param lambda_var Weight of the variance penalty (used for both the prior and the sensors).
#' @param sigma_y2 Variance of the true value around \eqn{\Theta} (aleatoric term added to the
#'   predictive variance), on the working scale.
#' @param parameterization `"anchored"`, `"unanchored"` or `"no_bias"`; see Identifiability.
#' @param transform `"none"`, or `"log"` to model the logarithm of the readings (all readings
#'   must then be positive; predictions are transformed back).
#' @param seed Seed of the initialisation, the batch order and the validation draw. `NULL`
#'   draws one from R's generator, so [set.seed()] makes fits reproducible.
#' @param threads Number of threads; see [ncam_threads()] (also for the choice between the
#'   AVX2 and the portable engine). Results do not depend on the number of threads.
#' @param verbose Show a progress bar with epoch, loss and time left.
#' @param control Optimiser details from [ncam_control()].
#' @return An object of class `ncam`: a list of plain R vectors (no external pointers), so
#'   [saveRDS()] works. It holds the network weights, the scaling, the training history, the
#'   call and the terms. Use [predict.ncam()], [summary.ncam()], [sensor_params()],
#'   [coef.ncam()], [logLik.ncam()], [plot.ncam()].
#' @seealso [calibrate()] for conformal prediction intervals, [split_blocks()] for time series.
#' @examples
#' toy <- simulate_toy(n = 2000, seed = 1)
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, data = toy,
#'             anchor = "sensor_0", hidden = c(16, 16), epochs = 20, seed = 1, threads = 1)
#' fit
#' head(predict(fit, toy, interval = "credible"))
#' @export
ncam <- function(formula, data, anchor = NULL, hidden = c(64L, 64L, 64L), epochs = 300L,
                 learn_rate = 1e-3, batch_size = 256L, validation = 0.1, stop_iter = 30L,
                 lambda_var = 1e-3, sigma_y2 = 1e-3,
                 parameterization = c("anchored", "unanchored", "no_bias"),
                 transform = c("none", "log"), seed = NULL, threads = NULL, verbose = FALSE,
                 control = ncam_control()) {
  call <- match.call()
  check_data_frame(data, "data")
  if (!inherits(formula, "formula") || length(formula) != 3L) {
    cli::cli_abort("{.arg formula} must be a two-sided formula such as {.code a + b ~ rh + temp}.")
  }
  parameterization <- match.arg(parameterization)
  transform <- match.arg(transform)
  if (!inherits(control, "ncam_control")) {
    cli::cli_abort("{.arg control} must come from {.fn ncam_control}.")
  }
  check_number(epochs, "epochs", min = 1, max = 1e6, integer = TRUE)
  check_number(learn_rate, "learn_rate", min = .Machine$double.xmin, max = 10)
  check_number(batch_size, "batch_size", min = 1, max = 2^31 - 1, integer = TRUE)
  check_number(stop_iter, "stop_iter", min = 0, max = 1e6, integer = TRUE)
  check_number(lambda_var, "lambda_var", min = 0)
  check_number(sigma_y2, "sigma_y2", min = 0)
  check_hidden(hidden)
  threads <- ncam_threads(threads)
  seed <- resolve_seed(seed)
  if (nrow(data) < 2L) cli::cli_abort("{.arg data} must have at least 2 rows, not {nrow(data)}.")

  sensors <- sensor_names(formula)
  check_columns(data, sensors, "formula")
  if (length(sensors) < 2L) {
    cli::cli_abort("{.arg formula} must name at least two sensors on its left side, not {length(sensors)}.")
  }
  if (anyDuplicated(sensors)) {
    cli::cli_abort("{.arg formula} names sensor {.val {sensors[duplicated(sensors)]}} more than once.")
  }
  anchor <- resolve_anchor(anchor, sensors, parameterization)
  # Readings and covariates are lists of columns, the data's own when they are plain doubles:
  # the engine reads them in place, so a large data frame is not copied.
  readings <- sensor_columns(data, sensors, transform)

  design <- build_design(formula, data, sensors)
  x <- design$x
  complete_x <- rows_without_na(x, nrow(data))
  if (!all(complete_x)) {
    cli::cli_warn("{sum(!complete_x)} row{?s} with a missing covariate {?is/are} left out of training; {?its/their} predictions are {.val NA}.")
  }
  has_reading <- n_observed(readings) > 0L
  usable <- complete_x & has_reading
  validation_rows <- resolve_validation(validation, nrow(data), usable, seed)
  train_rows <- which(usable & !validation_rows)
  val_rows <- which(usable & validation_rows)
  if (length(train_rows) < 2L) {
    cli::cli_abort("Only {length(train_rows)} training row{?s} {?has/have} complete covariates and a sensor reading; need at least 2.")
  }

  # Constant covariates carry no information and break standardisation: warn and drop.
  x_sd <- vapply(x, function(v) stats::sd(v[train_rows]), numeric(1))
  constant <- !is.finite(x_sd) | x_sd == 0
  if (any(constant)) {
    cli::cli_warn("Dropping constant covariate{?s} {.val {names(x)[constant]}}.")
    x <- x[!constant]
    x_sd <- x_sd[!constant]
  }
  scaling <- working_scale(x, x_sd, readings, train_rows, sensors, anchor, parameterization)

  spec <- list(
    n_covariates = length(x), n_sensors = length(sensors), hidden = as.integer(hidden),
    parameterization = match(parameterization, c("anchored", "unanchored", "no_bias")) - 1L,
    anchor = if (is.null(anchor)) 0L else match(anchor, sensors) - 1L,
    logvar_min = control$logvar_range[1], logvar_max = control$logvar_range[2],
    lambda_prior = lambda_var, lambda_sensor = lambda_var
  )
  adam <- list(learn_rate = learn_rate, beta1 = control$beta1, beta2 = control$beta2, eps = control$eps,
               weight_decay = control$weight_decay, clip_norm = control$clip_norm,
               batch_size = as.integer(batch_size))
  # Offsets turning working-scale NLLs into NLLs of the readings in the user's units.
  unit_offset <- nll_unit_offset(readings, scaling$b_scale, transform)
  train_offset <- mean(unit_offset[train_rows])
  val_offset <- if (length(val_rows)) mean(unit_offset[val_rows]) else NA_real_

  trained <- train_loop(spec, x, readings, scaling, train_rows, val_rows, adam, seed, threads,
                        epochs, stop_iter, verbose, control, train_offset, val_offset, learn_rate)

  fit <- structure(list(
    call = call, formula = formula, terms = design$terms, xlevels = design$xlevels,
    covariates = names(x), sensors = sensors, anchor = anchor,
    parameterization = parameterization, transform = transform, hidden = as.integer(hidden),
    spec = spec, params = trained$params, scaling = scaling,
    sigma_y2 = sigma_y2, sigma_y2_model = sigma_y2 * scaling$b_scale^2,
    history = trained$history, best_epoch = trained$best_epoch,
    epochs_run = nrow(trained$history), stopped_early = trained$stopped_early,
    n_train = length(train_rows), n_validation = length(val_rows),
    settings = list(epochs = as.integer(epochs), learn_rate = learn_rate, batch_size = as.integer(batch_size),
                    stop_iter = as.integer(stop_iter), lambda_var = lambda_var, seed = seed,
                    control = control),
    n_rows = nrow(data)
  ), class = "ncam")

  # Posterior on the data used for fitting: fitted values, residuals, logLik and the summary.
  post <- fitted_posterior(fit, x, readings, usable, threads)
  fit$fitted_posterior <- post[c("mu", "var_post", "n_sensors")]
  fit$residuals <- post$residuals
  fit$loglik <- -sum((post$nll + unit_offset)[usable])
  fit$nobs <- sum(usable)
  fit$sensor_summary <- post$sensor_summary
  fit
}

# The posterior of the fitted rows, computed in blocks of rows so that the per-row head
# outputs of all rows never exist at once. The per-sensor means and sds of a, c and sigma
# over the `usable` rows are exact (block moments combined); their 10% and 90% quantiles
# come from all usable rows, or from 100,000 evenly spaced ones when there are more.
# `x` and `readings` are lists of columns (see as_columns()).
fitted_posterior <- function(fit, x, readings, usable, threads, block_rows = 65536L) {
  n <- length(usable)
  sensors <- fit$sensors
  out <- list(mu = rep(NA_real_, n), var_post = rep(NA_real_, n), n_sensors = integer(n),
              nll = rep(NA_real_, n),
              residuals = matrix(NA_real_, n, length(sensors), dimnames = list(NULL, sensors)))
  used <- which(usable)
  quantile_rows <- if (length(used) > 1e5) used[round(seq(1, length(used), length.out = 1e5))] else used
  moments <- list()
  sampled <- list()
  for (start in seq(1L, n, by = block_rows)) {
    idx <- start:min(n, start + block_rows - 1L)
    post <- ncam_posterior_matrices(fit, take_rows(x, idx), take_rows(readings, idx), threads)
    out$mu[idx] <- post$mu
    out$var_post[idx] <- post$var_post
    out$n_sensors[idx] <- post$n_sensors
    out$nll[idx] <- post$nll
    out$residuals[idx, ] <- sensor_residuals(post)
    keep <- usable[idx]
    heads <- list(a = post$a[keep, , drop = FALSE], c = post$c[keep, , drop = FALSE],
                  sigma = sqrt(post$sigma2[keep, , drop = FALSE]))
    in_sample <- idx[keep] %in% quantile_rows
    for (q in names(heads)) {
      moments[[q]] <- combine_moments(moments[[q]], heads[[q]])
      sampled[[q]] <- rbind(sampled[[q]], heads[[q]][in_sample, , drop = FALSE])
    }
  }
  out$sensor_summary <- summarise_heads(moments, sampled, sensors)
  out
}

# Chan et al.'s pairwise update of column counts, means and sums of squared deviations.
combine_moments <- function(acc, block) {
  n_b <- nrow(block)
  if (n_b == 0L) return(acc)
  mean_b <- colMeans(block)
  m2_b <- colSums(sweep(block, 2L, mean_b)^2)
  if (is.null(acc)) return(list(n = n_b, mean = mean_b, m2 = m2_b))
  n <- acc$n + n_b
  delta <- mean_b - acc$mean
  list(n = n, mean = acc$mean + delta * n_b / n, m2 = acc$m2 + m2_b + delta^2 * acc$n * n_b / n)
}

#' Optimiser details for ncam()
#'
#' @param beta1,beta2,eps Adam's moment decay rates and denominator constant.
#' @param weight_decay L2 penalty added to the gradient (as in `torch.optim.Adam`).
#' @param clip_norm Clip the gradient to this Euclidean norm; `Inf` for no clipping.
#' @param logvar_range Clamp of the log-variances, on the working scale.
#' @param precision `"float"` (single precision networks, the default and fastest) or
#'   `"double"`. The likelihood and posterior are always computed in double precision from
#'   the network outputs; the softplus of the gains runs in the network's precision.
#' @param min_delta Smallest decrease of the validation NLL that counts as an improvement.
#' @return A list of class `ncam_control`.
#' @examples
#' ncam_control(clip_norm = 5)
#' @export
ncam_control <- function(beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0, clip_norm = Inf,
                         logvar_range = c(-5, 4), precision = c("float", "double"), min_delta = 0) {
  check_number(beta1, "beta1", min = 0, max = 1 - 1e-12)
  check_number(beta2, "beta2", min = 0, max = 1 - 1e-12)
  check_number(eps, "eps", min = 0)
  check_number(weight_decay, "weight_decay", min = 0)
  if (!is.numeric(clip_norm) || length(clip_norm) != 1L || is.na(clip_norm) || clip_norm <= 0) {
    cli::cli_abort("{.arg clip_norm} must be a positive number or {.code Inf}.")
  }
  if (!is.numeric(logvar_range) || length(logvar_range) != 2L || anyNA(logvar_range) ||
      any(!is.finite(logvar_range)) || logvar_range[1] >= logvar_range[2]) {
    cli::cli_abort("{.arg logvar_range} must be two finite increasing numbers, such as {.code c(-5, 4)}.")
  }
  check_number(min_delta, "min_delta", min = 0)
  structure(list(beta1 = beta1, beta2 = beta2, eps = eps, weight_decay = weight_decay,
                 clip_norm = if (is.finite(clip_norm)) clip_norm else 0,
                 logvar_range = as.numeric(logvar_range), precision = match.arg(precision),
                 min_delta = min_delta), class = "ncam_control")
}

# The epoch loop: Adam epochs in C++, early stopping, progress and interrupts here.
train_loop <- function(spec, x, readings, scaling, train_rows, val_rows, adam, seed, threads, epochs,
                       stop_iter, verbose, control, train_offset, val_offset, learn_rate) {
  state <- ncam_trainer_new(spec, x, readings, scaling, train_rows - 1L, adam, seed, threads,
                            control$precision, use_simd())
  has_val <- length(val_rows) > 0L
  history <- data.frame(epoch = seq_len(epochs), train_loss = NA_real_, train_nll = NA_real_,
                        validation_nll = NA_real_)
  best <- Inf
  best_epoch <- 0L
  best_params <- ncam_trainer_params(state)
  since_best <- 0L
  stopped_early <- FALSE
  min_delta <- control$min_delta
  if (verbose) {
    loss_txt <- ""
    cli::cli_progress_bar("Training", total = epochs,
                          format = "Epoch {cli::pb_current}/{cli::pb_total} {cli::pb_bar} ETA {cli::pb_eta} | {loss_txt}",
                          clear = FALSE)
  }
  for (epoch in seq_len(epochs)) {
    res <- ncam_trainer_epoch(state)
    if (isTRUE(res$interrupted)) {
      cli::cli_abort("Training interrupted at epoch {epoch}; no model was returned.", call = NULL)
    }
    if (!isTRUE(res$finite)) {
      cli::cli_abort(c("Training diverged: the loss became non-finite at epoch {epoch}.",
                       i = "Try a smaller {.arg learn_rate} (now {learn_rate}), gradient clipping with {.code control = ncam_control(clip_norm = 1)}, a larger {.arg lambda_var}, or {.code transform = \"log\"} for heavy-tailed readings."),
                     call = NULL)
    }
    val <- if (has_val) ncam_trainer_nll(state, val_rows - 1L) + val_offset else NA_real_
    history[epoch, 2:4] <- c(res$train_loss, res$train_nll + train_offset, val)
    criterion <- if (has_val) val else history$train_nll[epoch]
    if (!is.finite(criterion)) {
      cli::cli_abort(c("Training diverged: the validation NLL became non-finite at epoch {epoch}.",
                       i = "Try a smaller {.arg learn_rate} (now {learn_rate}) or gradient clipping."), call = NULL)
    }
    if (criterion < best - min_delta) {
      best <- criterion
      best_epoch <- epoch
      best_params <- ncam_trainer_params(state)
      since_best <- 0L
    } else {
      since_best <- since_best + 1L
    }
    if (verbose) {
      loss_txt <- sprintf("NLL train %.4g%s", history$train_nll[epoch],
                          if (has_val) sprintf(", val %.4g", val) else "")
      cli::cli_progress_update()
    }
    if (stop_iter > 0L && since_best >= stop_iter) {
      stopped_early <- epoch < epochs
      break
    }
  }
  if (verbose) cli::cli_progress_done()
  list(params = best_params, history = history[seq_len(epoch), , drop = FALSE], best_epoch = best_epoch,
       stopped_early = stopped_early)
}

check_hidden <- function(hidden, call = parent.frame()) {
  ok <- is.numeric(hidden) && !anyNA(hidden) && all(hidden >= 1) && all(hidden == round(hidden)) &&
    all(hidden <= 4096)
  if (!ok) {
    cli::cli_abort("{.arg hidden} must be whole numbers between 1 and 4096 (or {.code integer(0)} for no hidden layer).",
                   call = call)
  }
}

# Sensor column names from the left side of the formula: a + b + c or cbind(a, b, c).
sensor_names <- function(formula, call = parent.frame()) {
  walk <- function(e) {
    if (is.name(e)) return(as.character(e))
    if (is.call(e) && (identical(e[[1]], as.name("+")) || identical(e[[1]], as.name("cbind")))) {
      return(unlist(lapply(as.list(e)[-1], walk)))
    }
    cli::cli_abort(c("The left side of {.arg formula} must list sensor columns as {.code a + b} or {.code cbind(a, b)}.",
                     x = "Found {.code {deparse(e)}}."), call = call)
  }
  walk(formula[[2]])
}

resolve_anchor <- function(anchor, sensors, parameterization, call = parent.frame()) {
  if (parameterization != "anchored") return(NULL)
  if (is.null(anchor)) return(sensors[1])
  check_string(anchor, "anchor", call = call)
  if (!anchor %in% sensors) {
    cli::cli_abort(c("{.arg anchor} must be one of the sensors: {.val {sensors}}.",
                     x = "{.val {anchor}} is not on the left side of the formula."), call = call)
  }
  anchor
}

# A matrix as a named list of its columns, the form in which ncam() hands covariates and
# readings to the engine (a data frame's own columns need no copy).
as_columns <- function(m) {
  cols <- lapply(seq_len(ncol(m)), function(k) m[, k])
  names(cols) <- colnames(m)
  cols
}

take_rows <- function(cols, idx) lapply(cols, `[`, idx)

# Per row: TRUE when no column is NA; the number of non-NA columns.
rows_without_na <- function(cols, n) Reduce(`&`, lapply(cols, Negate(is.na)), rep(TRUE, n))
n_observed <- function(cols) Reduce(`+`, lapply(cols, Negate(is.na)), 0L)

# Sensor readings in the model scale (log readings for transform = "log") as a named list
# of double columns: the columns of `data` themselves when they are already double and
# untransformed, so the engine reads them without a copy.
sensor_columns <- function(data, sensors, transform, training = TRUE, call = parent.frame()) {
  cols <- lapply(sensors, function(s) {
    v <- data[[s]]
    if (!is.numeric(v)) {
      cli::cli_abort("Sensor column {.field {s}} must be numeric, not {.obj_type_friendly {v}}.", call = call)
    }
    if (training && all(is.na(v))) cli::cli_abort("Sensor column {.field {s}} is entirely {.val NA}.", call = call)
    if (length(ncam_first_infinite_cpp(list(v)))) {
      bad <- which(is.infinite(v))
      cli::cli_abort("Sensor column {.field {s}} has infinite values in {cli::qty(length(bad))}row{?s} {utils::head(bad, 5)}{if (length(bad) > 5) ', ...' else ''}.",
                     call = call)
    }
    if (transform == "log") {
      bad <- which(!is.na(v) & v <= 0)
      if (length(bad)) {
        cli::cli_abort(c("{.code transform = \"log\"} needs positive readings, but sensor column {.field {s}} has {length(bad)} reading{?s} <= 0 (row{?s} {utils::head(bad, 5)}{if (length(bad) > 5) ', ...' else ''}).",
                         i = "Set those readings to {.val NA} or add an offset before fitting."), call = call)
      }
      return(log(v))
    }
    if (is.double(v)) v else as.double(v)
  })
  names(cols) <- sensors
  cols
}

# Design matrix of the covariates with full one-hot coding of factors and characters.
build_design <- function(formula, data, sensors, call = parent.frame()) {
  rhs <- stats::delete.response(stats::terms(formula, data = data[setdiff(names(data), sensors)]))
  vars <- all.vars(rhs)
  check_columns(data, vars, "formula", call = call)
  clash <- intersect(vars, sensors)
  if (length(clash)) {
    cli::cli_abort("{.field {clash}} cannot be both a sensor and a covariate.", call = call)
  }
  if (plain_covariates(rhs, data)) {
    return(list(terms = rhs, xlevels = list(), x = covariate_columns(data, attr(rhs, "term.labels"), call)))
  }
  mf <- stats::model.frame(rhs, data, na.action = stats::na.pass)
  for (v in names(mf)) if (is.character(mf[[v]])) mf[[v]] <- factor(mf[[v]])
  xlevels <- stats::.getXlevels(rhs, mf)
  x <- as_columns(design_matrix(rhs, mf, call = call))
  list(terms = rhs, xlevels = xlevels, x = x)
}

# TRUE when every term of the formula's right side is a numeric column of `data` on its own
# (no factor, transformation or interaction): the design is then those columns.
plain_covariates <- function(rhs, data) {
  vars <- all.vars(rhs)
  labels <- attr(rhs, "term.labels")
  identical(sort(labels), sort(vars)) && all(vapply(data[vars], is.numeric, logical(1)))
}

# Plain numeric covariates as a named list of double columns (integers converted), after
# checking for infinite values.
covariate_columns <- function(data, covariates, call = parent.frame()) {
  x <- lapply(data[covariates], function(v) if (is.double(v)) v else as.double(v))
  names(x) <- covariates
  bad <- ncam_first_infinite_cpp(x)
  if (length(bad)) {
    cli::cli_abort("Covariate {.field {covariates[bad[1]]}} has an infinite value in row {bad[2]}.", call = call)
  }
  x
}

design_matrix <- function(rhs, mf, call = parent.frame()) {
  factors <- names(mf)[vapply(mf, is.factor, logical(1))]
  contrasts <- lapply(mf[factors], function(f) stats::contrasts(f, contrasts = FALSE))
  x <- stats::model.matrix(rhs, mf, contrasts.arg = if (length(contrasts)) contrasts)
  x <- x[, colnames(x) != "(Intercept)", drop = FALSE]
  storage.mode(x) <- "double"
  bad <- which(is.infinite(x), arr.ind = TRUE)
  if (nrow(bad)) {
    cli::cli_abort("Covariate {.field {colnames(x)[bad[1, 2]]}} has an infinite value in row {bad[1, 1]}.",
                   call = call)
  }
  attr(x, "assign") <- NULL
  attr(x, "contrasts") <- NULL
  x
}

resolve_validation <- function(validation, n, usable, seed, call = parent.frame()) {
  if (is.logical(validation) && length(validation) == n) {
    if (anyNA(validation)) cli::cli_abort("{.arg validation} must not contain {.val NA}.", call = call)
    return(validation)
  }
  if (is.numeric(validation) && length(validation) == 1L && !is.na(validation) &&
      validation >= 0 && validation < 1) {
    out <- logical(n)
    candidates <- which(usable)
    n_val <- round(validation * length(candidates))
    if (n_val > 0) out[with_local_seed(seed, candidates[sample.int(length(candidates), n_val)])] <- TRUE
    return(out)
  }
  if (is.numeric(validation) && length(validation) >= 1L && !anyNA(validation) &&
      all(validation == round(validation)) && all(validation >= 1 & validation <= n)) {
    out <- logical(n)
    out[validation] <- TRUE
    return(out)
  }
  cli::cli_abort("{.arg validation} must be a fraction in [0, 1), a logical vector with one element per row ({n}), or row numbers.",
                 call = call)
}

# Covariate standardisation and the affine working scale of the sensors.
working_scale <- function(x, x_sd, readings, train_rows, sensors, anchor, parameterization,
                          call = parent.frame()) {
  ref <- if (parameterization == "anchored") {
    readings[[anchor]][train_rows]
  } else {
    unlist(take_rows(readings, train_rows), use.names = FALSE)
  }
  ref <- ref[!is.na(ref)]
  b_scale <- stats::sd(ref)
  if (length(ref) < 2L || !is.finite(b_scale) || b_scale == 0) {
    which_txt <- if (is.null(anchor)) "The sensors have" else paste0("Anchor sensor `", anchor, "` has")
    cli::cli_abort("{which_txt} no spread on the training rows, so there is no scale to fuse on.", call = call)
  }
  list(x_center = unname(vapply(x, function(v) mean(v[train_rows]), numeric(1))), x_scale = unname(x_sd),
       b_shift = mean(ref), b_scale = b_scale)
}

# Per-row offset from the working-scale NLL to the NLL of the readings in user units:
# |O| log k for the scale k, plus sum(log b) for the log transform's Jacobian.
nll_unit_offset <- function(readings, b_scale, transform) {
  offset <- n_observed(readings) * log(b_scale)
  if (transform == "log") {
    offset <- offset + Reduce(`+`, lapply(readings, function(v) ifelse(is.na(v), 0, v)), 0)
  }
  offset
}
