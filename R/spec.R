# The objects every fit is made of, each spelled out once: the model spec the engine reads,
# the optimiser settings it trains with, the scaling of its inputs, and the fitted model.
# ncam(), the tests and bench/ build them only through these constructors, and the glue
# (src/ncam_glue.cpp) reads exactly these fields.

parameterizations <- c("anchored", "unanchored", "no_bias")
precisions <- c("float", "double")

# The network and likelihood the engine evaluates. `anchor` is the anchor's position among
# the sensors (1-based here, stored 0-based for the engine); it matters only when anchored.
# `sensor_level` (from sensor_levels(); NULL: gain 1 and offset 0 for every sensor) is the level
# each sensor's heads are relative to on the working scale: its gain and offset heads start
# there, and its noise log-variance sits 2 log(gain) above the anchor's, the clamp
# `logvar_range` and the penalty acting relative to that (ModelSpec in src/ncam/types.hpp).
# `constant_anchor_noise`: the anchor's noise log-variance is one learned value, not a function
# of the covariates (ncam_control(reference_noise =) for a reference as the anchor), starting at
# `anchor_noise_start` (a log-variance on the working scale; NA: where initialisation puts it).
new_model_spec <- function(n_covariates, n_sensors, hidden = integer(0), parameterization = "anchored",
                           anchor = 1L, logvar_range = c(-5, 4), lambda_prior = 0,
                           lambda_sensor = lambda_prior, sensor_level = NULL, constant_anchor_noise = FALSE,
                           anchor_noise_start = NA_real_, call = parent.frame()) {
  check_number(n_covariates, "n_covariates", min = 0, integer = TRUE, call = call)
  check_number(n_sensors, "n_sensors", min = 1, integer = TRUE, call = call)
  check_hidden(hidden, call = call)
  parameterization <- match_choice(parameterization, parameterizations, "parameterization", call = call)
  check_number(anchor, "anchor", min = 1, max = n_sensors, integer = TRUE, call = call)
  check_logvar_range(logvar_range, call = call)
  check_number(lambda_prior, "lambda_prior", min = 0, call = call)
  check_number(lambda_sensor, "lambda_sensor", min = 0, call = call)
  check_flag(constant_anchor_noise, "constant_anchor_noise", call = call)
  if (!identical(anchor_noise_start, NA_real_)) check_number(anchor_noise_start, "anchor_noise_start", call = call)
  if (is.null(sensor_level)) sensor_level <- list(gain = rep(1, n_sensors), offset = numeric(n_sensors))
  list(n_covariates = as.integer(n_covariates), n_sensors = as.integer(n_sensors),
       hidden = as.integer(hidden), parameterization = parameterization,
       anchor = as.integer(anchor) - 1L, logvar_min = as.numeric(logvar_range[1]),
       logvar_max = as.numeric(logvar_range[2]), lambda_prior = lambda_prior,
       lambda_sensor = lambda_sensor, sensor_gain = as.numeric(sensor_level$gain),
       sensor_offset = as.numeric(sensor_level$offset), constant_anchor_noise = constant_anchor_noise,
       anchor_noise_start = as.numeric(anchor_noise_start))
}

# Adam's settings for the engine, from the user's learning rate and batch size and the
# details in ncam_control().
new_adam_settings <- function(learn_rate = 1e-3, batch_size = 256L, control = ncam_control(),
                              call = parent.frame()) {
  check_number(learn_rate, "learn_rate", min = .Machine$double.xmin, max = 10, call = call)
  check_number(batch_size, "batch_size", min = 1, max = 2^31 - 1, integer = TRUE, call = call)
  list(learn_rate = learn_rate, beta1 = control$beta1, beta2 = control$beta2, eps = control$eps,
       weight_decay = control$weight_decay, clip_norm = control$clip_norm,
       batch_size = as.integer(batch_size), adapt_threads = !isFALSE(control$adapt_threads))
}

# The affine maps the engine applies on the way in: covariates x' = (x - x_center) / x_scale,
# readings b' = (b - b_shift) / b_scale. The engine also maps every result back to the
# readings' units (src/ncam/types.hpp, ReadingScale): R never undoes the scale itself.
new_scaling <- function(x_center = numeric(0), x_scale = rep(1, length(x_center)), b_shift = 0,
                        b_scale = 1) {
  stopifnot(length(x_center) == length(x_scale), all(x_scale > 0), b_scale > 0)
  list(x_center = as.numeric(x_center), x_scale = as.numeric(x_scale), b_shift = b_shift,
       b_scale = b_scale)
}

# The fitted model: plain R data (weights, scaling, history, call and terms, a small
# summary), so that saveRDS() works and the object stays small whatever the data's size.
new_ncam_fit <- function(call, formula, design, sensors, anchor, parameterization, transform, spec,
                         params, scaling, sigma_y2, trained, rows, settings, fitted_summary,
                         data_check, data_columns = character(0)) {
  caller_env <- environment(formula)
  kept_env <- formula_environment(caller_env, formula, attr(design$terms, "parameters"), data_columns)
  environment(formula) <- kept_env
  # do.call(ncam, list(formula, ...)) puts the formula object itself in the call, and with it
  # the caller's frame: the call keeps the lightened one.
  if (inherits(call$formula, "formula")) call$formula <- formula
  terms <- design$terms
  attr(terms, ".Environment") <- kept_env
  # kept_env reaches the caller's data itself when it is the caller's environment or a child of it.
  reaches_data <- identical(kept_env, caller_env) || identical(parent.env(kept_env), caller_env)
  structure(c(list(
    call = call, formula = formula, terms = terms, xlevels = design$xlevels,
    constant_values = design$constant_values,
    data_key = if (!reaches_data) remember_frame(caller_env, call, data_check),
    covariates = design$covariates, sensors = sensors, anchor = anchor,
    parameterization = parameterization, transform = transform, hidden = spec$hidden,
    spec = spec, params = params, scaling = scaling, sigma_y2 = sigma_y2,
    history = trained$history, best_epoch = trained$best_epoch,
    epochs_run = nrow(trained$history), stopped_early = trained$stopped_early,
    n_train = length(rows$train), n_validation = length(rows$validation), n_rows = rows$n,
    settings = settings, loglik = fitted_summary$loglik, nobs = fitted_summary$nobs,
    sensor_summary = fitted_summary$sensor_summary, data_check = data_check
  ), made_by()), class = "ncam")
}

# The format of the fitted objects ncam makes (ncam, ncam_by, ncam_calibration,
# ncam_baseline). Raise it when a change would make an older ncam misread a newer object:
# check_object_format() then refuses such an object instead of reading it wrongly. Format 2:
# the model spec's sensor levels, which an older engine would ignore.
ncam_object_format <- 2L

# Stored in every fitted object: the package version and object format that made it.
made_by <- function() {
  list(ncam_version = as.character(utils::packageVersion("ncam")), object_format = ncam_object_format)
}

# An object of a newer format than this ncam reads is refused before any part of it is read.
# Objects saved before the fields were stored have neither, and are read as before. A table
# (ncam_by) keeps them as attributes.
check_object_format <- function(object, arg = "object", call = parent.frame()) {
  fields <- if (is.data.frame(object)) attributes(object) else if (is.list(object)) object
  format <- fields[["object_format"]]
  if (is.null(format)) return(invisible(object))
  made <- fields[["ncam_version"]]
  made <- if (is.character(made) && length(made) == 1L && !is.na(made)) paste("ncam", made) else "an unknown version of ncam"
  if (!(is.numeric(format) && length(format) == 1L && !is.na(format))) {
    ncam_abort(c("{.arg {arg}} is not a usable ncam object: its {.field object_format} is not a number.",
                 i = "Read it again with {.fn readRDS} from an undamaged file, or fit it again."), call = call)
  }
  if (format > ncam_object_format) {
    this <- as.character(utils::packageVersion("ncam"))
    ncam_abort(c("{.arg {arg}} was made by {made}, in object format {format}; this ncam ({this}) reads formats up to {ncam_object_format}.",
                 i = "Update ncam to use it (or fit it again with this version)."), call = call)
  }
  invisible(object)
}

# A fit made inside a function (or a purrr lambda) would keep that function's frame as the
# environment of its formula and terms, and with it every object there, its data included:
# saveRDS() would write them all. The formula keeps only the objects it names from such
# frames, above the first global, package or namespace environment; the frame itself is kept
# out of the fit, in fit_frames under the fit's data_key, for fitting_data() while it exists.
# The formula's `parameters` (k in poly(x1, k), see formula_parameters()) are copied wherever
# they live, the global environment included: a saved fit predicts in a session that never
# had them.
formula_environment <- function(env, formula, parameters = NULL, data_columns = character(0)) {
  kept <- light_environment(env, all.names(formula), skip = data_columns)
  if (!is_top_environment(kept)) parameters <- setdiff(parameters, names(kept))  # kept already
  if (!length(parameters)) return(kept)
  list2env(mget(parameters, envir = kept, inherits = TRUE), envir = new.env(parent = kept))
}

# `env` cut down to the objects called `names` found in its function frames, above its first
# global, package or namespace environment, except objects other than functions named in `skip`
# (the data's columns). A function found there would carry its own frame
# along: it gets the same treatment for the names of its body and defaults (a few levels deep).
light_environment <- function(env, names, depth = 0L, skip = character(0)) {
  if (!is.environment(env)) return(env)
  frames <- frames_below_top(env)
  if (!length(frames)) return(env)
  top <- parent.env(frames[[length(frames)]])
  named <- list()
  for (name in unique(names)) {
    holder <- Find(function(frame) exists(name, envir = frame, inherits = FALSE), frames)
    if (is.null(holder)) next
    value <- get(name, envir = holder)
    # model.frame() takes a data column before any object of that name (functions aside).
    if (name %in% skip && !is.function(value)) next
    if (is.function(value) && !is.primitive(value) && depth < 3L) {
      used <- c(all.names(body(value)), unlist(lapply(formals(value), all.names)))
      environment(value) <- light_environment(environment(value), used, depth + 1L)
    }
    named[name] <- list(value)
  }
  if (!length(named)) return(top)
  list2env(named, envir = new.env(parent = top))
}

# `env` and its enclosing environments up to (not including) the first top one.
frames_below_top <- function(env) {
  frames <- list()
  while (!is_top_environment(env)) {
    frames <- c(frames, env)
    env <- parent.env(env)
  }
  frames
}

is_top_environment <- function(env) {
  identical(env, globalenv()) || identical(env, baseenv()) || identical(env, emptyenv()) ||
    isNamespace(env) || !is.null(attr(env, "name"))
}
