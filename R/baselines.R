#' Classical unsupervised fusion baselines
#'
#' Fits one of the label-free baselines used in the NCAM paper to the sensor
#' readings of the training rows, with the same formula interface as [ncam()]
#' but no covariates. No reference values are used. The fitted object holds
#' only the estimated parameters (a small list of plain R vectors, so
#' [saveRDS()] works); [predict.ncam_baseline()] fuses the readings of new
#' rows with them.
#'
#' Missing readings (`NA`) are never dropped: each row is fused from the
#' sensors observed in it, and `.n_sensors` counts them. A row with no
#' observed sensor gets what the method's model says of the true value without
#' a reading, as [predict.ncam()] gives its prior there: the prior mean and sd
#' from `"factor"` and `"ppca"` (the same for every such row), and the one-step
#' prediction from `"kalman"` (the previous row's filtered mean, with the
#' random walk's variance over the step added to its variance). `"mean"` and
#' `"ivw"`, which only combine readings, give `NA`. Such a value is not a
#' measurement: [predict.ncam_baseline()] warns about those rows (class
#' `ncam_warning_no_readings`, naming the first ones); leave them out
#' (`.n_sensors > 0`) before averaging or judging performance.
#'
#' Every method is equivariant under a change of units: readings multiplied by
#' \eqn{k}{k} give `.pred` and `.pred_sd` multiplied by \eqn{k}{k} and a
#' log-likelihood lower by \eqn{\log k}{log(k)} per reading. Training readings too
#' large or too finely spread for double precision are refused as by [ncam()].
#'
#' @section Methods:
#' * `"mean"`: the mean of the row's observed readings. A sensor reading one value on every
#'   training row (stuck) is an error, as for the other methods.
#' * `"ivw"`: inverse-variance weighting,
#'   \eqn{\sum_j b_j / s_j^2 / \sum_j 1 / s_j^2}{sum_j(b_j / s_j^2) / sum_j(1 / s_j^2)}
#'   over the row's observed sensors, with `.pred_sd`
#'   \eqn{= (\sum_j 1/s_j^2)^{-1/2}}{= (sum_j 1/s_j^2)^(-1/2)}.
#'   The error variances \eqn{s_j^2}{s_j^2} come from the three-cornered-hat (Grubbs)
#'   estimator on the training rows: for every pair of sensors observed together
#'   in at least two training rows,
#'   \eqn{\mathrm{Var}(b_j - b_k) = s_j^2 + s_k^2}{Var(b_j - b_k) = s_j^2 + s_k^2}
#'   (sample variance, denominator \eqn{n - 1}{n - 1}); these equations are solved by
#'   least squares (exactly for three sensors). An estimate at or below zero
#'   (a Heywood-like case: the pairwise variances imply a non-positive error
#'   variance, as with sensors of different gains) is raised to \eqn{10^{-6}}{1e-6}
#'   times the largest pairwise variance (at least \eqn{10^{-12}}{1e-12} times the
#'   largest sensor variance) with a warning: that sensor then
#'   takes almost all the weight and the intervals are far too narrow.
#'   [predict.ncam_baseline()] repeats the warning whenever it makes
#'   intervals, and `print()` names such sensors (element `heywood`). A
#'   sensor reading one value on every training row is an error. When the
#'   equations do not identify every variance (always for two sensors), the
#'   minimum-norm least-squares solution is used with a warning; for two
#'   sensors this splits \eqn{\mathrm{Var}(b_1 - b_2)}{Var(b_1 - b_2)} equally, so `"ivw"`
#'   reduces to `"mean"`. Readings are used raw: sensor biases are not corrected.
#' * `"ppca"`: probabilistic PCA with one latent factor (Tipping & Bishop's
#'   closed form) fitted on the training rows with every sensor observed:
#'   \eqn{\mu}{mu} = mean, \eqn{S}{S} = covariance (denominator \eqn{n}{n}) with eigenvalues
#'   \eqn{\lambda_1 \ge \dots \ge \lambda_L}{lambda_1 >= ... >= lambda_L}, noise
#'   \eqn{\sigma^2 = }{sigma^2 =} mean of
#'   \eqn{\lambda_2, \dots, \lambda_L}{lambda_2, ..., lambda_L}, loadings
#'   \eqn{W = u_1 \sqrt{\lambda_1 - \sigma^2}}{W = u_1 sqrt(lambda_1 - sigma^2)}.
#'   Each row's latent posterior given its observed sensors \eqn{O}{O} has mean
#'   \eqn{z = W_O^\top (b_O - \mu_O) / (\sigma^2 + W_O^\top W_O)}{z = W_O' (b_O - mu_O) / (sigma^2 + W_O' W_O)} and variance
#'   \eqn{\sigma^2 / (\sigma^2 + W_O^\top W_O)}{sigma^2 / (sigma^2 + W_O' W_O)} (with no sensor
#'   observed, the
#'   prior: mean 0, variance 1). `z` is mapped to the scale of
#'   the `anchor` sensor by an ordinary least-squares fit of the anchor reading
#'   on \eqn{[1, z]}{[1, z]} over the training rows where the anchor is observed:
#'   `.pred` \eqn{= c_0 + c_1 z}{= c_0 + c_1 z}, `.pred_sd` \eqn{= |c_1|}{= |c_1|} times the latent
#'   posterior sd. `logLik()` is the PPCA likelihood of the complete training rows.
#'   PPCA gives every sensor the same noise variance: with sensors of unequal noise
#'   its weights and intervals are off (93 % coverage at the 90 % level on one-factor
#'   data, `bench/coverage_sim/part4.R` in the source repository); `"factor"` estimates each
#'   sensor's noise.
#' * `"kalman"`: a scalar random-walk Kalman filter over the rows sorted by
#'   the column `order` (one row per time: a time repeated among the `train`
#'   rows is an error at the fit, among the rows of `newdata` in [predict()]),
#'   \eqn{\theta_t = \theta_{t-1} + w_t}{theta_t = theta_(t-1) + w_t},
#'   \eqn{w_t \sim N(0, q \Delta_t)}{w_t ~ N(0, q Delta_t)}, and each observed reading
#'   \eqn{b_{tj} = \theta_t + v_{tj}}{b_tj = theta_t + v_tj},
#'   \eqn{v_{tj} \sim N(0, s_j^2)}{v_tj ~ N(0, s_j^2)}, with the
#'   three-cornered-hat variances above. The initial state \eqn{\theta_0}{theta_0} is
#'   \eqn{N(m_0, P_0)}{N(m_0, P_0)}, the mean and variance of the `"ivw"` estimates over the
#'   training rows. \eqn{q}{q} is the value of the grid \eqn{P_0 \cdot 10^{k/8}}{P_0 * 10^(k/8)},
#'   \eqn{k = -48, \dots, 8}{k = -48, ..., 8}, maximising the innovation log-likelihood of the
#'   filter run over the training rows alone (in the same order); `logLik()`
#'   is that log-likelihood (only \eqn{q}{q} is fitted by likelihood, the other
#'   \eqn{L + 2}{L + 2} parameters by moments, so AIC and BIC are indicative).
#'   \eqn{\Delta_t}{Delta_t} is the time from the previous row in units of the
#'   training rows' median time step (`params$step`, in days for a `Date`,
#'   seconds for a `POSIXct`, the column's units for numbers), so that a gap
#'   (hours missing from an hourly series, a week without data) lets the state
#'   wander, and widens the intervals, in proportion to its length. Without
#'   `order`, or with times as text, every row is one step. Without `order` the rows are
#'   filtered in row order, as one series: a `Date` or date-time column (or one named `date`)
#'   that repeats times among them, as when stations are stacked, gives a warning (class
#'   `ncam_warning_kalman_row_order`) at the fit and in [predict()].
#'   [predict()] runs the filter with these parameters over the rows of
#'   `newdata` in the order of its `order` column: `.pred` and `.pred_sd` are
#'   the filtered (forward) mean and sd, returned in the row order of `newdata`;
#'   for a row without readings, the prediction from the rows before it.
#'   Predicting on a subset of rows therefore gives other values than
#'   predicting on all rows and keeping that subset.
#' * `"factor"`: the linear-Gaussian one-factor measurement model that NCAM
#'   generalises (NCAM with constant heads):
#'   \eqn{\theta \sim N(\mu_0, s_0^2)}{theta ~ N(mu_0, s_0^2)},
#'   \eqn{b_j = a_j \theta + c_j + e_j}{b_j = a_j theta + c_j + e_j},
#'   \eqn{e_j \sim N(0, \sigma_j^2)}{e_j ~ N(0, sigma_j^2)}, with \eqn{a = 1, c = 0}{a = 1, c = 0}
#'   for the `anchor`.
#'   The \eqn{3L}{3L} parameters are estimated by maximum likelihood with missing
#'   readings: the exact marginal likelihood of each row's observed readings,
#'   grouped by pattern of missingness, maximised with analytic gradients from
#'   a moment-based start. `.pred` and `.pred_sd` are the posterior mean and sd
#'   of \eqn{\theta}{theta} given the row's observed readings (the prior \eqn{\mu_0}{mu_0},
#'   \eqn{s_0}{s_0} for a row without any). Standard errors (see
#'   [tidy.ncam_baseline()]) come from the observed information. At least three
#'   sensors are needed, each pair observed together in at least two training
#'   rows: with two sensors, their two variances and one covariance give three
#'   equations for four unknowns. A noise variance estimated at zero (a
#'   Heywood case) is reported with a warning, at the fit and again by
#'   [predict.ncam_baseline()] whenever it makes intervals.
#'
#' @section Intervals and the training rows: the credible intervals of `"ivw"`,
#'   `"factor"` and `"kalman"` take the error variances estimated from the
#'   training rows as known, so with few rows they are too narrow. On data drawn
#'   from each method's own model, 90 % intervals covered 0.70 (ivw), 0.60
#'   (factor) and 0.68 (kalman) of the truth with 50 training rows, 0.84, 0.80
#'   and 0.84 with 200, and 0.89 with 1000 (`bench/baseline_coverage.R` in the source repository).
#'   [predict.ncam_baseline()] warns (class `ncam_warning_few_training_rows`)
#'   when it makes such intervals from a fit on fewer than
#'   `r ncam:::min_interval_training_rows` rows.
#'
#' @param formula Sensors on the left as in [ncam()] (`a + b + c` or
#'   `cbind(a, b, c)`, at least two sensors) and `~ 1` on the right: baselines
#'   take no covariates. `~ .` is taken as `~ 1` when `data` holds no other
#'   columns than the sensors and date-times.
#' @param data A data frame holding the sensor readings. Columns with units (the units package)
#'   are converted to one unit as by [ncam()] (see its `data`): plain ones beside readings whose
#'   numbers were converted are an error; beside columns all in one unit they are taken to be in
#'   it, with warning `ncam_warning_readings_without_units`.
#' @param method The baseline: `"mean"`, `"ivw"`, `"ppca"`, `"kalman"` or
#'   `"factor"` (see Methods).
#' @param train Rows used to estimate the parameters: `NULL` (all rows), a
#'   logical vector with one element per row, or positive row indices.
#' @param anchor For `"ppca"` and `"factor"`: the sensor whose scale the fused
#'   value is on. `NULL` means the first sensor. An error for the other
#'   methods, which use no anchor.
#' @param order For `"kalman"` only: `NULL` (row order) or the name of a
#'   column with one sortable value per row (such as dates) giving the order in
#'   which the filter visits the rows. Its values must not repeat: rows of
#'   several stations sharing times are an error naming the column and rows
#'   (fit one baseline per station). Numbers stored as text are an error, as
#'   are dates as text other than zero-padded ISO 8601: they would be sorted
#'   alphabetically. The column is then required in the `newdata` of
#'   [predict()], with the same rules and the same type as at the fit.
#'
#' @return An object of class `ncam_baseline`: a list with `method`,
#'   `sensors`, `anchor`, `order`, `order_type` (the type of the `order`
#'   column, such as `"numeric"` or `"Date"`, which [predict()] checks),
#'   `params` (the estimates: `sensor_var` for
#'   `"ivw"` and `"kalman"`; `mu`, `loadings`, `sigma2` and `coef`
#'   (\eqn{c_0, c_1}{c_0, c_1}) for `"ppca"`; `q`, `m0`, `P0` and `step` (the time
#'   step q is the variance of; `NULL` when every row is one step) for `"kalman"`;
#'   `prior_mean`, `prior_var`, `gain`, `offset`, `noise_var`, `vcov` and
#'   `se`, the standard errors, for `"factor"`; for readings in units beyond
#'   about \eqn{10^{\pm 75}}{10^(+/-75)} the entries of `vcov` for the variances, which
#'   scale as \eqn{k^4}{k^4}, overflow or underflow, while `se` does not),
#'   `loglik` and `df` (`NULL` for `"mean"` and `"ivw"`) and `nobs`, the
#'   training rows that entered the fit (rows with a reading; for `"ppca"`
#'   the rows with every reading). Use [predict.ncam_baseline()],
#'   `print()`, `logLik()`, `nobs()`, [tidy.ncam_baseline()] and
#'   [glance.ncam_baseline()].
#' @seealso [ncam()], which lets the sensor model depend on covariates.
#' @export
#' @examples
#' toy <- simulate_toy(300, seed = 1)
#' toy$sensor_1[1:5] <- NA
#' f <- sensor_0 + sensor_1 + sensor_2 ~ 1
#' ivw <- ncam_baseline(f, toy, "ivw")
#' ivw$params$sensor_var
#' head(predict(ivw, toy))
#' fa <- ncam_baseline(f, toy, "factor", train = 1:200)
#' fa
#' head(predict(fa, toy[201:300, ], interval = "credible"))
#' kf <- ncam_baseline(f, toy, "kalman", order = "lon")
#' sapply(list(ivw = ivw, factor = fa, kalman = kf),
#'        function(fit) sqrt(mean((predict(fit, toy)$.pred - toy$truth)^2)))
ncam_baseline <- function(formula, data, method = c("mean", "ivw", "ppca", "kalman", "factor"),
                          train = NULL, anchor = NULL, order = NULL) {
  check_column_name_args(c("anchor", "order"))
  check_data_frame(data)
  warn_grouped_data(data)
  method <- match_choice(method, c("mean", "ivw", "ppca", "kalman", "factor"), "method")
  sensors <- baseline_sensors(formula, data)
  in_units <- common_reading_units(data, sensors, anchor)
  b <- baseline_readings(in_units, sensors)
  train <- train_mask(train, nrow(data))
  if (!is.null(anchor) && !method %in% c("ppca", "factor")) {
    ncam_abort(c("{.arg anchor} is used only by {.code method = \"ppca\"} and {.code \"factor\"}, not {.val {method}}.",
                 i = "Leave {.arg anchor} as {.code NULL} for the other methods: they put no sensor's scale first."))
  }
  anchor <- baseline_anchor(anchor, sensors)
  if (!is.null(order)) {
    if (method != "kalman") {
      ncam_abort(c("{.arg order} is used only by {.code method = \"kalman\"}, not {.val {method}}.",
                   i = "Leave {.arg order} as {.code NULL} for the other methods."))
    }
    check_string(order, "order")
  }
  b_train <- b[train, , drop = FALSE]
  empty <- colSums(!is.na(b_train)) == 0L
  if (any(empty)) {
    ncam_abort("Sensor column {.val {sensors[empty][1]}} has no reading in the {.arg train} rows.")
  }

  check_baseline_readings(b_train)

  fit <- switch(method,
    mean = list(params = list()),
    ivw = {
      variances <- three_cornered_hat(b_train)
      list(params = list(sensor_var = variances$sensor_var), heywood = variances$heywood)
    },
    ppca = fit_ppca1(b_train, match(anchor, sensors)),
    kalman = {
      # The training rows are checked and visited in the order of the column.
      if (is.null(order)) warn_kalman_row_order(data, which(train))
      visit <- visit_order(order, data, rows = which(train))
      fit_kalman_rw(b_train, visit, attr(visit, "time"))
    },
    factor = fit_factor1(b_train, match(anchor, sensors))
  )
  structure(c(list(
    method = method, sensors = sensors, anchor = anchor, order = order,
    order_type = if (!is.null(order)) order_type(data[[order]]), params = fit$params,
    loglik = fit$loglik, df = fit$df,
    nobs = if (is.null(fit$nobs)) sum(rowSums(!is.na(b_train)) > 0L) else fit$nobs,
    heywood = as.character(fit$heywood), units = column_units(in_units, sensors)
  ), made_by()), class = "ncam_baseline")
}

# The training readings of each sensor, checked as ncam() checks them (check_sensor_readings()):
# a stuck sensor would pull every mean towards its one value and take the whole pairwise
# variance off its partners, and readings beyond double precision's range make a fit depend on
# the units.
check_baseline_readings <- function(b, call = parent.frame()) {
  for (j in seq_len(ncol(b))) {
    v <- b[!is.na(b[, j]), j]
    if (length(v)) check_sensor_readings(v, colnames(b)[j], call)
  }
}

# Sensor names from the formula's left side (as ncam() reads them); the right side must be ~ 1
# (or `~ .` standing for no column).
baseline_sensors <- function(formula, data, call = parent.frame()) {
  if (!inherits(formula, "formula") || length(formula) != 3L) {
    ncam_abort("{.arg formula} must be a two-sided formula such as {.code a + b + c ~ 1}.",
               call = call)
  }
  rhs <- formula[[3]]
  if (identical(rhs, quote(.)) && is.data.frame(data)) {
    # `~ .` as in ncam(): every column but the sensors and date-times, here none.
    dot <- dot_columns(data, sensor_names(formula, call = call))
    if (length(dot)) {
      ncam_abort(c("Baselines take no covariates, but {.code ~ .} takes column{?s} {.code {dot}} of {.arg data}.",
                   i = "Write {.code ~ 1}, or use {.fn ncam} for a sensor model that depends on covariates."), call = call)
    }
  } else if (!(is.numeric(rhs) && length(rhs) == 1L && rhs == 1)) {
    rhs_txt <- paste(deparse(rhs), collapse = " ")
    ncam_abort(c("Baselines take no covariates: the right side of {.arg formula} must be {.code ~ 1}.",
                 x = "Found {.code ~ {rhs_txt}}.",
                 i = "Use {.fn ncam} for a sensor model that depends on covariates."), call = call)
  }
  sensors <- sensor_names(formula, call = call)
  if (length(sensors) < 2L) {
    ncam_abort("{.arg formula} must name at least two sensors on its left side, not {length(sensors)}.",
               call = call)
  }
  if (anyDuplicated(sensors)) {
    ncam_abort("{.arg formula} names sensor {.val {sensors[duplicated(sensors)]}} more than once.",
               call = call)
  }
  check_columns(data, sensors, "formula", call = call)
  sensors
}

# Sensor readings as a numeric matrix; `data_arg` names the data frame in messages.
baseline_readings <- function(data, sensors, data_arg = "data", call = parent.frame()) {
  for (s in sensors) {
    x <- data[[s]]
    if (!is.numeric(x)) {
      ncam_abort("Sensor column {.val {s}} of {.arg {data_arg}} must be numeric, not {.obj_type_friendly {x}}.",
                 call = call)
    }
    bad <- which(is.infinite(x))
    if (length(bad) > 0L) {
      ncam_abort("Sensor column {.val {s}} of {.arg {data_arg}} has an infinite value in row {bad[1]}.",
                 call = call)
    }
  }
  columns <- lapply(sensors, function(s) plain_double(data[[s]]))
  matrix(unlist(columns, use.names = FALSE), nrow(data), length(sensors), dimnames = list(NULL, sensors))
}

baseline_anchor <- function(anchor, sensors, call = parent.frame()) {
  resolve_anchor(anchor, sensors, "anchored", call = call)
}

# Logical mask of the training rows.
train_mask <- function(train, n, call = parent.frame()) {
  if (is.null(train)) {
    mask <- rep(TRUE, n)
  } else if (is.logical(train)) {
    if (length(train) != n) {
      ncam_abort("{.arg train} must have one element per row of {.arg data} ({n}), not {length(train)}.",
                 call = call)
    }
    if (anyNA(train)) {
      ncam_abort("{.arg train} is missing in row {which(is.na(train))[1]}.", call = call)
    }
    mask <- train
  } else if (is.numeric(train)) {
    bad <- which(is.na(train) | train < 1 | train > n | train != round(train))
    if (length(bad) > 0L) {
      ncam_abort("{.arg train} must hold row numbers between 1 and {n}; element {bad[1]} is {train[bad[1]]}.",
                 call = call)
    }
    mask <- seq_len(n) %in% train
  } else {
    ncam_abort("{.arg train} must be NULL, a logical vector or row numbers, not {.obj_type_friendly {train}}.",
               call = call)
  }
  if (sum(mask) < 2L) {
    ncam_abort("{.arg train} must select at least 2 rows, not {sum(mask)}.", call = call)
  }
  mask
}

# Zero-padded ISO 8601 dates and times, whose alphabetical order is their order in time.
iso_time_pattern <- "^[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}(:[0-9]{2}(:[0-9]{2}([.][0-9]+)?)?)?)?$"

# The type of an order column, kept by the fit: predict() refuses another (numbers at the fit
# but text in newdata would be sorted alphabetically).
order_type <- function(key) {
  if (inherits(key, "POSIXlt")) return("POSIXct")
  if (is.numeric(key)) "numeric" else class(key)[1]
}

# Permutation in which the Kalman filter visits the rows `rows` of `data` (all rows when NULL):
# row order, or the order of column `order`, whose values must not repeat among those rows and
# must be of type `type` when given (that of the fit). Errors name rows of `data`.
visit_order <- function(order, data, data_arg = "data", rows = NULL, type = NULL, call = parent.frame()) {
  if (is.null(rows)) rows <- seq_len(nrow(data))
  if (is.null(order)) return(seq_along(rows))
  check_columns(data, order, "order", call = call, data_arg = if (data_arg != "data") data_arg)
  key <- data[[order]][rows]
  if (!is.null(type) && order_type(key) != type) {
    ncam_abort(c("Column {.val {order}} of {.arg {data_arg}} holds {.cls {order_type(key)}} values, but the baseline was fitted with {.cls {type}} values in it.",
                 i = "Convert it to the type it had at the fit, so that the filter visits the rows in the same kind of order."),
               call = call)
  }
  if (inherits(key, "POSIXlt")) key <- as.POSIXct(key)
  if (!is.atomic(key) || is.complex(key)) {
    ncam_abort("Column {.val {order}} of {.arg {data_arg}} must hold sortable values (numbers, dates, times or strings), not {.obj_type_friendly {key}}.",
               call = call)
  }
  if (anyNA(key)) {
    ncam_abort(c("Column {.val {order}} of {.arg {data_arg}} is missing in row {rows[which(is.na(key))[1]]}.",
                 i = "The filter cannot place that row in time: fill it in or drop the row."), call = call)
  }
  # Text sorts letter by letter: "02/01/2024" before "31/12/2023"; zero-padded ISO 8601 text
  # ("2024-01-02 10:00") sorts as time does.
  if ((is.character(key) || is.factor(key)) && any(grepl(text_time_pattern, utils::head(as.character(key), 1000))) &&
      !all(grepl(iso_time_pattern, key) | is.na(key))) {
    ncam_abort(c("Column {.val {order}} of {.arg {data_arg}} holds times as text ({.val {as.character(key[1])}}), which would be put in alphabetical order.",
                 i = "Convert it to a date-time first, e.g. {.code as.POSIXct({order}, format = \"%d/%m/%Y %H:%M\", tz = \"UTC\")}."),
               call = call)
  }
  # Numbers as text sort letter by letter too: "10" before "2". A factor sorts by its levels.
  text <- if (is.factor(key)) levels(key) else if (is.character(key)) key
  numbers <- suppressWarnings(as.numeric(text))
  if (length(text) && !anyNA(numbers) && (is.character(key) || is.unsorted(numbers))) {
    ncam_abort(c("Column {.val {order}} of {.arg {data_arg}} holds numbers as text ({.val {as.character(key[1])}}), which would be put in alphabetical order ({.val 10} before {.val 2}).",
                 i = "Convert it to numbers first, e.g. {.code {data_arg}${order} <- as.numeric(as.character({data_arg}${order}))}."),
               call = call)
  }
  # Rows sharing a time (two stations stacked) would be filtered as successive steps of one
  # series, with the random walk's variance between them and results that follow row order.
  repeated <- which(duplicated(key))
  if (length(repeated) > 0L) {
    first <- match(key[repeated[1]], key)
    ncam_abort(c("Column {.val {order}} of {.arg {data_arg}} repeats times: row {rows[repeated[1]]} has the time of row {rows[first]} ({format(key[first])}); {length(repeated)} row{?s} repeat{?s/} an earlier time.",
                 i = if (data_arg == "newdata") "The filter follows one series through time. Predict one series (station) at a time, e.g. {.code predict(fit, newdata[newdata$site == \"A\", ])}." else
                   "The filter follows one series through time. If the rows are several series (such as stations), fit one baseline per station, e.g. {.code lapply(split({data_arg}, {data_arg}$site), function(d) ncam_baseline(..., d, \"kalman\", order = \"{order}\"))}, or train on one station with {.code train = {data_arg}$site == \"A\"}."),
               call = call)
  }
  visit <- base::order(key)
  # Times the filter can measure gaps between: the random walk's variance grows with them.
  if (is.numeric(key) || inherits(key, c("Date", "POSIXct"))) attr(visit, "time") <- as.double(key)[visit]
  visit
}
