#' Methods for fitted NCAM models
#'
#' `print()` shows the sensors, anchor, covariates and training, and for a fit to columns with
#' units the unit of its readings and estimates, naming each reading column converted from another
#' unit or given without units (taken to be in it); `summary()` the per-sensor
#' gain \eqn{a_j}{a_j}, offset \eqn{c_j}{c_j} and noise \eqn{\sigma_j}{sigma_j} averaged over the
#' fitted data, with
#' their spread; `coef()` the network weights; `logLik()` the marginal log-likelihood of the
#' sensor readings in their original units, of the readings the model was trained on: readings
#' screened out as gross outliers at fit time (see `screen_outliers` in [ncam_control()]) count
#' as missing, as they do in `fitted()` and `predict()`, which screen by the same rule
#' (`print()` names how many), so before comparing with a baseline's likelihood set them to `NA`
#' in its data too. Its `df` counts every network weight: right for heads without hidden layers
#' (`hidden = integer(0)`), but far more than the effective number of parameters of an
#' early-stopped network, so with hidden layers [AIC()] and [BIC()] favour any small model
#' whatever the fit; compare such fits with baselines on held-out rows ([evaluate_fusion()]
#' on a [split_blocks()] split) instead. `fitted()` the fused values of the fitted data; `residuals()` the
#' bias-corrected sensor residuals \eqn{(b_j - c_j)/a_j - \hat\mu}{(b_j - c_j)/a_j - mu_hat} (one
#' column per sensor, `NA`
#' where a reading is missing; for a model fitted with a `reference`, its column is the
#' reference reading minus the estimate, which comes from the low-cost sensors alone as in
#' [predict.ncam()]; with `unit` offsets, \eqn{\hat\mu}{mu_hat} includes the row's unit offset, so a
#' unit's sensor residuals show how its sensors differ from the pooled model; in log units
#' for a model fitted with `transform = "log"`);
#' `nobs()` the rows that entered the likelihood; `model.frame()` and `model.matrix()` the columns
#' and the covariate design the fit uses (see [ncam-model-frame]); `plot()` the
#' training and validation loss curves; `update()` fits again from the call with the changes
#' given. Without new `data`, it refits on the call's data as it is where `update()` is
#' called (the refit evaluates the call's data expression once), with a warning (class
#' `ncam_warning_update_data_changed`) saying what changed when that is not the data the fit
#' was made from (such as another `train` in a later session), and an error asking for `data`
#' when the call's data cannot be evaluated there (a fit read back in a session without it).
#'
#' @param x,object A fitted [ncam()] model.
#' @param ... For `plot()`, graphical parameters passed to [graphics::matplot()]; for
#'   `update()`, the arguments to change. `print()` ignores them, as print methods do. The others
#'   take none: an argument they do not know is an error, not ignored (`summary(fit, newdata)`
#'   points to [sensor_params()], which gives the sensors' gains, offsets and noise on other rows).
#' @param use.fallback For `nobs()`: not used, as the number of rows is always known (the
#'   argument of [stats::nobs()], which [step()] and others give).
#' @return `print()` and `plot()` return `x` invisibly; `summary()` an object of class
#'   `summary.ncam` with a `sensors` tibble (per sensor the gain `a`, offset `c` and noise
#'   standard deviation `sigma`, each averaged over the fitted rows with its `_sd`, `_q10` and
#'   `_q90` over them; [tidy.ncam()] gives the same numbers as `gain_mean`, `gain_sd`, ...,
#'   `offset_`, `noise_`: `a` is `gain_mean`, `c` `offset_mean`, `sigma` `noise_mean`) and a
#'   `calibration_range` tibble (lowest and
#'   highest reading of each sensor and value of each covariate over the rows the calibration
#'   was learned from; see the Extrapolation section of [predict.ncam()]) and, for a fit with
#'   `unit` offsets, `unit_offsets` (the unit column, the table of units, as that column holds
#'   them (a factor keeps its levels; numbers and dates their type), with their reference
#'   rows `n`, `mean_difference`, shrunk `offset` and `offset_sd`, the between-unit variance
#'   `tau2` (0 when the units' means differ no more than their noise), `tau2_floor` (the least
#'   between-unit variance those means could show, which `offset_sd` and `new_unit_variance`
#'   use when `tau2` is below it), the variance `new_unit_variance` of a unit without reference rows and the length
#'   `block_rows` of the blocks of rows that gave the noise of a unit's mean; see [ncam()]);
#'   `coef()` a named
#'   list (head, layer) of weight matrices and bias vectors; `logLik()` a `logLik` object;
#'   `fitted()` a numeric vector; `residuals()` a matrix; `nobs()` an integer.
#' @examples
#' toy <- simulate_toy(n = 1000, seed = 3)
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy, hidden = 8,
#'             epochs = 100, learn_rate = 0.02, seed = 1, threads = 1)
#' fit
#' summary(fit)
#' logLik(fit)
#' str(coef(fit)$prior, max.level = 1)
#' head(residuals(fit))
#' plot(fit)
#' @name ncam-methods
NULL

#' @rdname ncam-methods
#' @export
print.ncam <- function(x, ...) {
  check_ncam(x, "x")
  line <- function(...) cat(cli::format_inline(..., .envir = parent.frame()), "\n", sep = "")
  line("{.strong Neural Conjugate Aggregation Model}")
  line("Sensors: {.field {x$sensors}}")
  anchor_txt <- if (is.null(x$anchor)) x$parameterization else paste0(x$anchor, " (a = 1, c = 0)")
  line("Anchor: {anchor_txt}")
  if (!is.null(x$reference)) {
    noise_txt <- if (isTRUE(x$spec$constant_anchor_noise)) "constant noise" else "noise from the covariates"
    # Fits saved before rows of the reference alone were told apart have no n_reference_alone.
    alone <- if (isTRUE(x$n_reference_alone > 0)) paste0(" (", x$n_reference_alone, " more without a sensor reading)") else ""
    when <- reference_periods_text(x)  # "" for fits without a date column, or saved before periods were kept
    line("Reference: {.field {x$reference}}, observed beside the sensors on {x$n_reference[['train']]} training and {x$n_reference[['validation']]} validation rows{alone}{when}; {noise_txt}")
  }
  units_txt <- reading_units_text(x)
  if (!is.null(units_txt)) line("Units: {units_txt}")
  if (!is.null(x$unit_offsets)) {
    offsets <- x$unit_offsets
    scale_txt <- if (identical(x$transform, "log")) " (log units)" else ""
    line("Unit offsets{scale_txt}: {nrow(offsets$table)} units of {.field {offsets$unit}} with reference rows, from {format(min(offsets$table$offset), digits = 3)} to {format(max(offsets$table$offset), digits = 3)}; {between_unit_text(offsets)}")
  }
  cov_txt <- if (length(x$covariates)) covariate_labels(x) else "none (constant heads)"
  line("Covariates: {cov_txt}")
  hidden_txt <- if (length(x$hidden)) paste(x$hidden, collapse = " x ") else "none"
  line("Hidden layers: {hidden_txt}; transform: {x$transform}")
  line("Rows: {fit_rows_text(x)}; seed: {x$settings$seed}")
  screened <- x$n_screened[x$n_screened > 0L]
  if (length(screened)) line("Readings left out as gross outliers: {paste(names(screened), screened, collapse = ', ')}")
  at_floor <- lower_clamp_shares(x)
  if (length(at_floor)) {
    line("Noise at the lower clamp of {.code logvar_range} (agreeing more closely than it allows; see {.code ?ncam_control}): {paste(names(at_floor), paste0(round(100 * at_floor), '%'), collapse = ', ')} of rows")
  }
  stop_txt <- if (x$stopped_early) " (early stopping)" else ""
  line("Epochs run: {x$epochs_run}{stop_txt}; best epoch: {x$best_epoch}")
  best <- x$history[x$best_epoch, ]
  if (x$n_validation > 0L) {
    # The plain NLL beside the capped one on which early stopping chose the best epoch.
    line("Validation NLL per row at best epoch: {validation_nll_text(best$validation_nll, best$validation_criterion)}")
  } else {
    line("Training NLL per row at best epoch: {format(best$train_nll, digits = 5)}")
  }
  invisible(x)
}

# The sensors (and reference) whose noise sits at the lower log-variance clamp on more than
# max_clamped_share of the fitted rows, with those shares (none for fits saved before they were kept).
lower_clamp_shares <- function(x) {
  low <- x$clamped_share["low", ]
  low[!is.na(low) & low > max_clamped_share]
}

# The rows a fit trained and validated on, and those of its data it left out and why.
fit_rows_text <- function(x) {
  used <- paste(x$n_train, "training,", x$n_validation, "validation")
  left <- x$n_left_out[x$n_left_out > 0L]  # NULL for fits saved before it was kept
  if (!length(left)) return(used)
  why <- c(missing_covariate = "with a missing covariate", no_reading = "without a reading")[names(left)]
  paste0(used, "; ", sum(left), " of ", x$n_rows, " left out (", paste(left, why, collapse = ", "), ")")
}

#' @rdname ncam-methods
#' @export
summary.ncam <- function(object, ...) {
  check_dots_empty_hinted(summary_rows_hints)
  check_ncam(object)
  range_table <- user_calibration_range(object)
  unit_offsets <- object$unit_offsets
  # Tibbles, as ncam's other tables (fits saved by earlier versions keep data frames).
  if (!is.null(unit_offsets)) unit_offsets$table <- tibble::as_tibble(unit_offsets$table)
  structure(list(call = object$call, sensors = tibble::as_tibble(object$sensor_summary), anchor = object$anchor,
                 loglik = logLik(object), best_epoch = object$best_epoch, transform = object$transform,
                 reference = object$reference,
                 calibration_range = if (!is.null(range_table)) tibble::as_tibble(range_table),
                 unit_offsets = unit_offsets, rows = fit_rows_text(object), epochs_run = object$epochs_run,
                 stopped_early = object$stopped_early),
            class = "summary.ncam")
}

#' @export
print.summary.ncam <- function(x, ...) {
  cat("Call:\n")
  print(x$call)
  cat("\nRows: ", x$rows, "; best epoch ", x$best_epoch, " of ", x$epochs_run,
      if (isTRUE(x$stopped_early)) " (early stopping)", "\n", sep = "")
  unit_txt <- if (identical(x$transform, "log")) " (log readings)" else ""
  cat("\nSensor model b = a * theta + c + N(0, sigma^2)", unit_txt,
      ", averaged over the fitted rows (sd, 10% and 90% quantiles):\n", sep = "")
  # Printed as data frames: all columns, without the tibble's header.
  print(format(as.data.frame(x$sensors), digits = 4), row.names = FALSE)
  cat("\nlog-likelihood of the readings: ", format(as.numeric(x$loglik), digits = 7),
      " (df = ", attr(x$loglik, "df"), ", nobs = ", attr(x$loglik, "nobs"), ")\n", sep = "")
  if (!is.null(x$calibration_range)) {
    rows_txt <- if (is.null(x$reference)) "the fitted rows" else paste0("the rows with the reference (", x$reference, ")")
    cat("\nRange of ", rows_txt, "; predictions outside it extrapolate (column .extrapolation of predict()):\n", sep = "")
    print(format(as.data.frame(x$calibration_range), digits = 4), row.names = FALSE)
  }
  if (!is.null(x$unit_offsets)) {
    offsets <- x$unit_offsets
    # Fits saved before block_rows was kept have a lag-1 autocorrelation rho instead.
    noise_txt <- if (is.null(offsets$block_rows)) paste0("lag-1 autocorrelation ", format(offsets$rho, digits = 2)) else
      paste0("noise of a mean from blocks of ", offsets$block_rows, if (offsets$block_rows == 1) " row" else " rows")
    cat("\nUnit offsets", unit_txt, " per unit of ", offsets$unit, ": the mean difference reference - estimate on its\n",
        "reference rows, shrunk towards 0; ", between_unit_text(offsets),
        ", ", noise_txt, ":\n", sep = "")
    shown <- utils::head(as.data.frame(offsets$table), 20L)
    print(format(shown, digits = 4), row.names = FALSE)
    if (nrow(offsets$table) > nrow(shown)) cat("... and", nrow(offsets$table) - nrow(shown), "more units\n")
  }
  invisible(x)
}

#' @rdname ncam-methods
#' @export
coef.ncam <- function(object, ...) {
  check_dots_empty_hinted()
  check_ncam(object)
  layout <- call_engine(ncam_layout_cpp(object$spec))
  lapply(layout$heads, function(head) {
    w <- head$widths
    layers <- lapply(seq_len(length(w) - 1L), function(l) {
      n_w <- w[l + 1L] * w[l]
      list(weight = matrix(object$params[head$w_offset[l] + seq_len(n_w)], w[l + 1L], w[l]),
           bias = object$params[head$b_offset[l] + seq_len(w[l + 1L])])
    })
    stats::setNames(layers, paste0("layer", seq_along(layers)))
  })
}

#' @section No covariance matrix or single residual sd: the weights of a fit's networks have no
#'   covariance matrix that would mean anything to a user, and its noise is one sd per sensor
#'   and row, so `vcov()` (and with it `confint()`) and `sigma()` are errors saying where the
#'   uncertainty is: in [predict.ncam()]'s intervals for the estimate, and in [tidy.ncam()]'s
#'   `noise_` columns and [sensor_params()] for each sensor's noise.
#' @rdname ncam-methods
#' @export
vcov.ncam <- function(object, ...) no_single_uncertainty("vcov", check_ncam(object))

#' @rdname ncam-methods
#' @export
sigma.ncam <- function(object, ...) no_single_uncertainty("sigma", check_ncam(object))

# vcov() and sigma() of a fit: errors pointing to the uncertainty it does have (not vcov()'s
# "no applicable method" or sigma()'s empty numeric from stats' default).
no_single_uncertainty <- function(what, object) {
  has_it <- switch(what,
    vcov = "An NCAM fit has no covariance matrix: its weights are those of neural networks.",
    sigma = "An NCAM fit has no single residual sd: each sensor's noise sd depends on the covariates.")
  ncam_abort(c(has_it,
               i = "For the uncertainty of the estimate use {.code predict(fit, newdata, interval = \"prediction\")} (or {.val credible}).",
               i = "For each sensor's noise use {.code tidy(fit)} (columns {.field noise_mean}, {.field noise_sd}, ...) or {.code sensor_params(fit, newdata)} (one row per row and sensor)."),
             call = NULL)
}

#' @rdname ncam-methods
#' @export
logLik.ncam <- function(object, ...) {
  check_dots_empty_hinted()
  check_ncam(object)
  structure(object$loglik, df = length(object$params) - n_held_params(object$spec), nobs = object$nobs,
            class = "logLik")
}

#' @rdname ncam-methods
#' @export
nobs.ncam <- function(object, use.fallback = FALSE, ...) {
  check_dots_empty_hinted()
  check_ncam(object)$nobs
}

# summary() of a fit is over the rows it was fitted to; sensor_params() takes other rows.
summary_rows_hints <- stats::setNames(rep("{.fn summary} averages over the rows the model was fitted to; {.code sensor_params(fit, newdata)} gives each sensor's gain, offset and noise on other rows.", 3),
                                      c("newdata", "new_data", "data"))

#' @rdname ncam-methods
#' @param newdata For `fitted()` and `residuals()`: the data to compute them on; by default
#'   the data the model was fitted to, found again from the call (a fit keeps no copy) and
#'   checked as described under Value in [ncam()].
#' @export
fitted.ncam <- function(object, newdata, ...) {
  check_dots_empty_hinted()
  from_fit <- missing(newdata)
  if (from_fit) newdata <- fitting_data(object)
  in_words_of_fit_data(object = object, from_fit = from_fit, {
    post <- ncam_posterior(object, newdata, outputs = "posterior")
    warn_rows_missing_covariates(post)
    ncam_untransform(object, post$mu)
  })
}

#' @rdname ncam-methods
#' @export
residuals.ncam <- function(object, newdata, ...) {
  check_dots_empty_hinted()
  from_fit <- missing(newdata)
  if (from_fit) newdata <- fitting_data(object)
  in_words_of_fit_data(object = object, from_fit = from_fit, {
    newdata <- match_units(object, newdata)
    post <- ncam_posterior(object, newdata)
    warn_rows_missing_covariates(post)
    if (!is.null(object$reference) && object$reference %in% names(newdata)) {
      # The reference against the estimate from the low-cost sensors, which leaves it out.
      post$b[, object$reference] <- new_reference_readings(newdata, object$reference, object$transform)
    }
    sensor_residuals(post)
  })
}

#' @rdname ncam-methods
#' @param y Not used: `plot()` draws the training curves; [autoplot.ncam()] draws the other
#'   pictures.
#' @export
plot.ncam <- function(x, y, ...) {
  check_ncam(x, "x")
  # A second argument would otherwise be ignored: plot(fit, "series") drew the training curves.
  if (!missing(y)) {
    given <- deparse1(substitute(y))
    ncam_abort(c("{.fn plot} of a fit takes no {.arg y}; it was given {.code {given}}.",
                 i = "{.code plot(fit)} draws the training curves; {.code ggplot2::autoplot(fit, type)} draws the other pictures (type {.val sensors}, {.val series}, {.val scatter} or {.val coverage})."))
  }
  h <- x$history
  # The capped validation NLL is the one the best epoch was chosen on (see autoplot()).
  curves <- cbind(train = h$train_nll, validation = h$validation_nll,
                  `validation, capped` = if (is.null(h$validation_criterion)) NA_real_ else h$validation_criterion)
  keep <- colSums(is.finite(curves)) > 0
  colours <- c(1, 2, 6)[keep]
  graphics::matplot(h$epoch, curves[, keep, drop = FALSE], type = "l", lty = 1, col = colours,
                    xlab = "epoch", ylab = "NLL per row", main = "NCAM training", ...)
  graphics::abline(v = x$best_epoch, lty = 3, col = "grey40")
  graphics::legend("topright", legend = c(colnames(curves)[keep], "best epoch"),
                   lty = c(rep(1, sum(keep)), 3), col = c(colours, "grey40"), bty = "n")
  invisible(x)
}

#' @rdname ncam-methods
#' @param formula. For `update()`: changes to the formula, as in [stats::update()].
#' @param evaluate For `update()`: `FALSE` returns the updated call without fitting.
#' @export
update.ncam <- function(object, formula., ..., evaluate = TRUE) {
  # As stats::update.default(), which cannot be called from a method: its match.call() would
  # give the changed arguments as ..1, ..2.
  call <- stats::getCall(object)
  if (!missing(formula.)) {
    # update.formula() cannot expand a `.` of the fitted formula: the columns it stood for, as
    # lm's formula() gives them.
    fitted_formula <- object$formula
    if ("." %in% all.names(fitted_formula[[3]])) {
      labels <- attr(object$terms, "term.labels")
      fitted_formula <- stats::reformulate(if (length(labels)) labels else "1", response = fitted_formula[[2]],
                                           env = environment(fitted_formula))
    }
    call$formula <- stats::update(fitted_formula, formula.)
  }
  extras <- match.call(expand.dots = FALSE)$...
  for (name in names(extras)) call[name] <- list(extras[[name]])
  if (!evaluate) return(call)
  check_ncam(object)
  env <- parent.frame()
  # do.call() (into ncam() or ncam_by()) leaves `data` in the call, which here would find utils::data().
  if (is.symbol(call$data) && !is.data.frame(get0(as.character(call$data), envir = env))) {
    ncam_abort(c("The call of this fit names its data {.code {deparse(call$data)}}, which is not a data frame here: the fit cannot be made again from its call (a fit made inside a function names its local data; fits made through {.fn do.call}, into {.fn ncam} or {.fn ncam_by}, do not name theirs).",
                 i = "Give the data: {.code update(fit, data = <the rows it was fitted to>)}."))
  }
  if (!"data" %in% names(extras)) {
    # The refit's ncam() compares its data with the fit's (check_fit_data()): the call's data
    # expression is evaluated once, by the refit, as it may be costly or have effects.
    refit_in_progress$pending <- list(object = object, frame = environment())
    on.exit(refit_in_progress$pending <- NULL)
  }
  eval(call, env)
}

# The fit update() is refitting without new data, and update()'s frame, until the refit's
# ncam() takes them.
refit_in_progress <- new.env(parent = emptyenv())

# ncam()'s check of `data`, its argument, and in a refit by update() without new data the
# comparison of it with the data of the fit refitted.
check_fit_data <- function(data, data_expr, call = parent.frame()) {
  # Taken before `data` is evaluated, so that a fit made while evaluating it is not the refit.
  refit <- refit_in_progress$pending
  refit_in_progress$pending <- NULL
  if (!is.null(refit)) {
    # As fitted() says when it cannot find the data, not R's bare "object 'd' not found".
    tryCatch(data, error = function(e) {
      name <- data_label(data_expr)
      why <- conditionMessage(e)
      ncam_abort(c("Cannot find {name}, the data {.arg object} was fitted to, to fit it again.", x = "{why}",
                   i = "A fit keeps no copy of its data: pass it as {.arg data}, {.code update(object, data = <the rows it was fitted to>)}."),
                 call = refit$frame)
    })
  }
  check_data_frame(data, "data", call = call)
  if (!is.null(refit)) warn_changed_update_data(refit$object, data, data_expr, refit$frame)
}

# update() without new data refits on whatever the call's data names now, such as another
# `train` in a later session: a warning says how it differs from the fit's, when the fit's
# fingerprint (of this version's kind) tells.
warn_changed_update_data <- function(object, data, data_expr, call) {
  if (!has_fingerprint(object) || is_fitting_data(object, data)) return(invisible())
  name <- data_label(data_expr)
  cli::cli_warn(c("{name} is not the data {.arg object} was fitted to: {data_change(object, data)}.",
                  i = "The refit uses {name} as it is now; to refit on the original rows, give them: {.code update(object, data = <those rows>)}."),
                class = c("ncam_warning_update_data_changed", "ncam_warning"), call = call)
}
