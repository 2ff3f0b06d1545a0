# Per-unit offsets: when every unit (site, device) had its own co-location period, the mean
# difference between the reference and the estimate on that unit's co-location rows says how
# far the pooled model is off for the unit; a random effect, shrunk towards 0 by how much the
# units differ (empirical Bayes), added to the unit's estimates afterwards, with its
# uncertainty; a unit without reference rows gets no offset and the variance of a new unit in
# its intervals.

#' @section Unit offsets: a known unit's `offset_sd` is the error of its offset as an estimate of
#'   the unit's long-run bias less the pooled model's, the departure the offset stands for (the
#'   pooled model sits at the mean of the units' biases). The noise of a unit's mean difference comes
#'   from blocks of its consecutive reference rows: the spread of the blocks' means, pooled over
#'   units, for block lengths of 1, 2, 4, ... rows while they leave 20 degrees of freedom, the largest
#'   kept (`block_rows`), so that it counts how the model's error at a unit wanders from day to day and
#'   week to week; a unit's mean is given at most the variance of one row.
#'
#'   The blocks follow the order of the rows: give each unit's rows in time order (earliest or
#'   latest first; how the units' rows interleave does not matter). Rows out of time order mix days
#'   and weeks in every block, and `offset_sd` comes out too small: at 18 PurpleAir sites with the
#'   first 10 % of each site's days beside the reference, shuffled rows gave 0.55 to 0.65 times the
#'   `offset_sd` of rows in order (the median over sites, in five shuffles;
#'   `bench/unit_time_order.R` in the source repository). `ncam()` has no time argument to sort them
#'   by, but a date-time column of `data` (`Date` or `POSIXct`) shows the order: when no such column
#'   (among those varying within a unit) runs forwards or backwards through each unit's reference
#'   rows, `ncam()` warns (class `ncam_warning_unit_time_order`), naming the units out of order;
#'   sort the data and fit again. Without such a column (time as numbers or text) the order cannot
#'   be checked.
#'
#'   That noise also holds the wandering that units co-located at the same time share (the weather),
#'   which the pooled model's level takes up rather than their offsets: `offset_sd` is then
#'   conservative. On simulated sites whose offsets are learned from alternate weeks
#'   (`bench/unit_offsets_sim.R` in the source repository, 160 replications) the offsets err by
#'   0.043 (standard error 0.006) where `offset_sd` says 0.061.
#'
#'   It leaves out what the reference rows cannot show:
#'   * The pooled model's own level moving on rows it was not fitted to: the same at every unit, with
#'     offsets or without, and at units without reference rows. On the simulated sites it was off by
#'     0.145 on the scored weeks (root mean square; 0.107 of it from week to week), by 0.150 at the
#'     sites without reference rows. That is the pooled model's error, not the offsets'; with it, the
#'     offset and the pooled level together miss the site's long-run bias by 0.105 (0.111 in a run of
#'     40, which this page gave before as the offsets' error).
#'   * A unit's bias moving after its co-location (drift, seasons it did not see). At SensEURCity
#'     Antwerp's three stations, co-located in summer and scored until February
#'     (`bench/unit_offsets.R` in the source repository), the offsets err by 0.49 on the later
#'     months where `offset_sd` says 0.20 (a rough figure from three stations); at 18 PurpleAir
#'     sites by 0.785 where it says 0.759.
#' @rdname ncam
#' @name ncam
NULL

# Fewer units with reference rows than this cannot tell the spread between units from noise.
min_offset_units <- 3L

# The offsets of `fit` (fitted with `reference`) from the reference rows of `data` among
# `rows` (its training and validation rows), as kept in fit$unit_offsets: the unit column's
# name, a table of units with their reference rows `n`, mean difference, shrunk `offset` and
# its sd, the between-unit variance `tau2` and the variance of a unit without reference rows
# `new_unit_variance` (shrunk_offsets()), all in the model's units (log units for
# transform = "log"). Differences are of the estimate from the low-cost sensors alone.
estimate_unit_offsets <- function(fit, data, unit, rows, threads, call = parent.frame()) {
  # The reference in the estimate's units: given in mg/m3 beside sensors in ug/m3, its numbers
  # as given made every offset minus the estimate.
  data <- match_units(fit, data, call)
  units <- unit_values(data, unit, "data", call)
  labelled <- rows[!is.na(data[[fit$reference]][rows]) & !is.na(units[rows])]
  # Its messages name rows of `data`, not of the labelled rows alone.
  post <- in_words_of(with_input_rows(labelled, ncam_posterior(fit, data[labelled, , drop = FALSE], threads, call = call)), "data")
  ref <- new_reference_readings(data[labelled, , drop = FALSE], fit$reference, fit$transform, data_arg = "data", call = call)
  keep <- !is.na(post$mu) & !is.na(ref)
  difference <- (ref - post$mu)[keep]
  unit_of_row <- units[labelled][keep]
  check_offset_units(unit_of_row, unit, call)
  warn_units_out_of_time_order(data, labelled[keep], unit_of_row, unit, call)
  shrunk <- shrunk_offsets(difference, unit_of_row, call)
  # The units as the user's column holds them (a factor with its levels, numbers, dates), so that
  # the table joins back to the data; predict() matches them as text (key_text()).
  given <- unit_column(data, unit, "data", call)
  shrunk$table$unit <- given[match(shrunk$table$unit, units)]
  shrunk$table <- shrunk$table[unit_order(shrunk$table$unit), ]
  names(shrunk$table)[1] <- unit
  c(list(unit = unit), shrunk)
}

# The order in which units are listed (the table) and drawn (autoplot()'s panels): the unit
# column's, a factor's levels, numbers and dates by value, text byte by byte (the same in every
# locale).
unit_order <- function(values) order(values, method = "radix")

# Reference rows at min_offset_units or more units, and min_block_degrees degrees of freedom
# for the noise of a unit's mean: the rows beyond the first of each unit, less those `repeated`
# (a copy of another row of its unit in every column the model reads gives the same
# difference, so no noise to tell). A variance on fewer swings by chance (on 1, a chance-small
# one in 10 tries is under a 60th of the truth) and makes every offset over-confident.
check_offset_units <- function(unit_of_row, unit, call, repeated = rep(FALSE, length(unit_of_row))) {
  unit_names <- unique(unit_of_row)
  if (length(unit_names) < min_offset_units) {
    have <- paste(length(unit_names), if (length(unit_names) == 1L) "has" else "have")
    ncam_abort(c("{.arg unit} needs reference readings at {min_offset_units} or more units of {.field {unit}} to tell how much units differ; only {have} them.",
                 i = "Leave {.arg unit} out, or give reference readings at more units."), call = call)
  }
  if (length(unit_of_row) == length(unit_names)) {
    ncam_abort(c("{.arg unit}: every unit of {.field {unit}} has a single reference row, which leaves nothing to tell a unit's offset from the noise of its rows.",
                 i = "Give some units two or more reference rows, or leave {.arg unit} out."), call = call)
  }
  degrees <- sum(!repeated) - length(unit_names)
  n_repeated <- sum(repeated)
  if (degrees < min_block_degrees) {
    ncam_abort(c("{.arg unit}: the reference rows at the units of {.field {unit}} leave {degrees} degree{?s} of freedom (rows beyond the first of each unit) to estimate the noise of a unit's mean; it needs {min_block_degrees}, or a chance-small noise makes the offsets and their {.field offset_sd} over-confident.",
                 "!" = if (n_repeated) "{n_repeated} of the reference rows repeat{?s/} another row of {?its/their} unit in every column the model reads (duplicated rows): {?it gives/they give} the same difference, no noise to tell.",
                 i = if (n_repeated) "Remove the repeated rows (such as with {.fn unique}).",
                 i = "Give more units two or more reference rows (a longer co-location), or leave {.arg unit} out."), call = call)
  }
}

# offset_sd reads blocks of each unit's consecutive rows (block_variance()): rows out of time
# order mix days and weeks in every block and hide how the error wanders, so it comes out too
# small (about 0.6 times when shuffled, see ?ncam). ncam() has no time argument, but a date-time
# column of `data` (Date or POSIXct) shows the order. The reference rows `rows` of `data`, of
# units `unit_of_row`, are in order when such a column runs forwards or backwards within every
# unit; a column constant within every unit tells nothing. When none tells the rows are in
# order, a warning names the first telling column and the units it finds out of order.
warn_units_out_of_time_order <- function(data, rows, unit_of_row, unit, call) {
  time_columns <- names(data)[vapply(data, inherits, TRUE, what = c("Date", "POSIXt"))]
  out_of_order <- lapply(time_columns, function(column) {
    by_unit <- split(xtfrm(data[[column]][rows]), factor(unit_of_row, unique(unit_of_row)))
    steps <- lapply(by_unit, function(time) sign(diff(time[!is.na(time)])))
    if (all(vapply(steps, function(step) all(step == 0), TRUE))) return(NULL)
    names(steps)[vapply(steps, function(step) any(step > 0) && any(step < 0), TRUE)]
  })
  telling <- !vapply(out_of_order, is.null, TRUE)
  if (!any(telling) || any(lengths(out_of_order[telling]) == 0L)) return(invisible())
  column <- time_columns[telling][1]
  units <- out_of_order[telling][[1]]
  shown <- utils::head(units, 5)
  cli::cli_warn(c("The reference rows of {length(units)} unit{?s} of {.field {unit}} ({.val {shown}}{if (length(units) > 5) ', ...'}) are not in time order by {.field {column}}: their {.field offset_sd} comes out too small.",
                  i = "{.field offset_sd} is estimated from blocks of each unit's consecutive rows, which must follow the time to show how the error wanders.",
                  i = "Sort {.arg data} by time within each unit, e.g. {.code data[order(data${unit}, data${column}), ]}, and fit again."),
                class = c("ncam_warning_unit_time_order", "ncam_warning"), call = call)
}

# The estimator itself, for any estimate (bench/unit_offsets.R applies it to lm): per unit of
# `unit_of_row` (rows in time order within a unit), the mean of `difference` (reference minus
# estimate), shrunk towards 0 by tau2 / (tau2 + its noise variance). The noise of a unit's mean
# is the long-run variance per row (block_variance()) over its rows, at most the variance of
# one row: the model's error at a unit wanders over days and weeks, which a lag-1
# autocorrelation does not see. tau2, the variance between units: between_unit_variance().
shrunk_offsets <- function(difference, unit_of_row, call = parent.frame()) {
  unit_names <- unique(unit_of_row)
  code <- match(unit_of_row, unit_names)
  ordered <- order(code, seq_along(code))
  difference <- difference[ordered]
  code <- code[ordered]
  n <- tabulate(code, length(unit_names))
  means <- as.vector(rowsum(difference, code, reorder = TRUE)) / n
  long_run <- block_variance(difference, code, n, means)
  # A noise of 0 would take every mean for exact: weights 1 / 0, and tau2 NaN.
  if (isTRUE(long_run$variance == 0)) {
    ncam_abort(c("The noise of the unit offsets cannot be estimated: the difference between the reference and the estimate does not vary within any unit.",
                 i = "Rows repeated within units (the same readings and covariates) give the same difference: remove them (such as with {.fn unique}), or leave {.arg unit} out."),
               call = call)
  }
  # Centring on each unit's mean takes its noise out of the squares: add it back.
  row_variance <- (sum((difference - means[code])^2) + length(n) * long_run$variance) / length(difference)
  noise <- if (is.finite(long_run$variance)) pmin(long_run$variance / n, row_variance) else rep(Inf, length(n))
  between <- between_unit_variance(means, noise)
  tau2 <- between$tau2
  shrink <- if (tau2 > 0) tau2 / (tau2 + noise) else rep(0, length(n))
  # The error of shrink * mean against the unit's bias has variance (1 - shrink)^2 tau2 +
  # shrink^2 noise, here at a between-unit variance of at least tau2_floor: tau2 / (tau2 +
  # noise) * noise when tau2 is above it, and not 0 when tau2 is 0 because the means could not
  # show a spread smaller than the floor.
  spread <- max(tau2, between$tau2_floor)
  table <- tibble::tibble(unit = unit_names, n = n, mean_difference = means, offset = shrink * means,
                          offset_sd = sqrt((1 - shrink)^2 * spread + shrink^2 * noise))
  # A unit without reference rows differs from the pooled model, which sits at the mean of the
  # K units' biases, by tau2 (1 + 1 / K).
  list(table = table, tau2 = tau2, tau2_floor = between$tau2_floor, block_rows = long_run$block_rows,
       new_unit_variance = spread * (1 + 1 / length(means)))
}

# The variance between units, tau2, from their mean differences `means` and the noise variance
# of each: a moment estimator in the manner of DerSimonian and Laird, with weights w = 1 / noise
# so that a unit with few rows counts little (the unweighted spread let one 3-row unit's noise
# zero it). The pooled model, fitted to these units' rows, has absorbed their mean bias, so the
# means scatter around 0 with K - 1 degrees of freedom: Q = sum(w * means^2) has expectation
# K - 1 + tau2 (S1 - S2 / S1) (S1 = sum(w), S2 = sum(w^2)), tau2 the excess over K - 1 (at
# least 0); with equal noises it is sum(means^2) / (K - 1) - noise. Closed form, unlike
# Paule-Mandel's iteration, and unbiased before the truncation at 0. tau2_floor is the tau2
# that would raise Q by one standard deviation of Q under none, sqrt(2 (K - 1)): the smallest
# spread these means could tell from noise, used for the intervals when tau2 is below it.
between_unit_variance <- function(means, noise) {
  if (!all(is.finite(noise))) return(list(tau2 = 0, tau2_floor = Inf))
  weight <- 1 / noise
  degrees <- max(1, length(means) - 1L)
  scale <- sum(weight) - sum(weight^2) / sum(weight)
  list(tau2 = max(0, (sum(weight * means^2) - degrees) / scale), tau2_floor = sqrt(2 * degrees) / scale)
}

# The between-unit sd for print() and summary(); a tau2 of 0 said as such, with the floor its
# intervals use (fits saved before tau2_floor was kept have none).
between_unit_text <- function(offsets) {
  sd_txt <- paste("between-unit sd", format(sqrt(offsets$tau2), digits = 3))
  if (offsets$tau2 > 0) return(sd_txt)
  floor_txt <- if (is.null(offsets$tau2_floor)) "" else
    paste0("; offset_sd and a new unit's variance use sd ", format(sqrt(offsets$tau2_floor), digits = 3),
           ", the least spread they could show")
  paste0(sd_txt, " (the units' means differ no more than their noise: every offset is 0", floor_txt, ")")
}

# Blocks of consecutive rows must leave this many degrees of freedom around the units' means
# for their length to be tried (relative standard error of the variance sqrt(2 / 20) = 0.32).
min_block_degrees <- 20L

# The long-run variance per row of `difference` (sorted by unit `code`, `n` rows and mean
# `means` per unit) from batch means: each unit's rows cut into blocks of about `block_rows`
# consecutive rows, the variance of a block's mean around its unit's mean times its rows,
# with the sum of blocks less one per unit as degrees of freedom (unbiased for independent
# blocks). Block lengths double from 1 while they leave min_block_degrees (1 row is always
# tried); the largest variance is kept, with its block length: the variance grows with the
# length until blocks outlast the error's memory (weather regimes of days), so the largest is
# the least understated, and slightly conservative where rows are independent.
block_variance <- function(difference, code, n, means) {
  position <- sequence(n) - 1L
  best <- list(variance = NA_real_, block_rows = NA_real_)
  block_rows <- 1
  repeat {
    blocks <- pmax(1L, round(n / block_rows))
    degrees <- sum(blocks - 1L)
    if (degrees == 0 || (block_rows > 1 && degrees < min_block_degrees)) break
    block <- (cumsum(blocks) - blocks)[code] + floor(position * blocks[code] / n[code]) + 1
    rows <- tabulate(block, sum(blocks))
    block_means <- as.vector(rowsum(difference, block, reorder = TRUE)) / rows
    variance <- sum(rows * (block_means - rep(means, blocks))^2) / degrees
    if (is.na(best$variance) || variance > best$variance) best <- list(variance = variance, block_rows = block_rows)
    block_rows <- 2 * block_rows
  }
  best
}

# `unit` needs reference readings at enough units among `rows` (the training and validation
# rows), and is neither a sensor nor the reference. `readings` (the reference's too) and the
# covariate columns `x` are what the model reads: rows of a unit alike in all of them are alike
# in their differences too.
check_unit <- function(unit, reference, sensors, data, rows, readings, x, call = parent.frame()) {
  if (is.null(unit)) return(invisible())
  check_columns(data, unit, "unit", call = call)
  if (is.null(reference)) {
    ncam_abort(c("{.arg unit} offsets are learned from reference readings: give {.arg reference} too.",
                 i = "Without a reference, fit one model per unit with {.fn ncam_by}."), call = call)
  }
  if (unit %in% c(sensors, reference)) {
    ncam_abort("{.arg unit} column {.field {unit}} is a sensor or the reference, not a column telling units apart.",
               call = call)
  }
  units <- unit_values(data, unit, "data", call)
  # Checked before training, on the co-location rows with a unit, which the offsets read.
  labelled <- rows[colocated_rows(readings, reference)[rows] & !is.na(units[rows])]
  repeated <- labelled %in% repeated_rows(c(list(units), readings, x), labelled)
  check_offset_units(units[labelled], unit, call, repeated)
}

# The column `unit` of `data` (table `arg`), one value per row as it is (sensor_drift() keeps
# the values in its result).
unit_column <- function(data, unit, arg, call) {
  check_columns(data, unit, "unit", call = call, data_arg = arg)
  check_single_columns(data, unit, call, arg)
  values <- data[[unit]]
  if (!is.atomic(values) || is.list(values)) {
    ncam_abort("Column {.field {unit}} (from {.arg unit}) of {.arg {arg}} must hold one value per row, not {.obj_type_friendly {values}}.",
               call = call)
  }
  values
}

# The unit column as text to match units by (key_text()); NA is a unit without an offset.
unit_values <- function(data, unit, arg, call) key_text(unit_column(data, unit, arg, call))

# The low-cost sensors' own posterior (without the reference reading) on the rows whose
# reference reading enters the posterior (`reference_used`), for a fit with unit offsets, which
# correct that estimate; NULL without offsets or such rows. `rows` numbers its rows in newdata,
# `beyond_rows` those of them beyond what the networks compute with (rows_beyond_range()).
# With disagreement, also what add_unit_offsets() needs for the rows' `disagreement`: the
# sensors' own, and their prior (outputs "sensors").
sensors_only_posterior <- function(object, x, readings, reference_used, threads, disagreement = FALSE) {
  rows <- which(reference_used)
  if (is.null(object$unit_offsets) || !length(rows)) return(NULL)
  row_readings <- lapply(readings, `[`, rows)
  row_readings[[object$reference]] <- rep(NA_real_, length(rows))
  row_x <- if (is.list(x)) lapply(x, `[`, rows) else x[rows, , drop = FALSE]
  sensors <- ncam_posterior_columns(object, row_x, row_readings, threads, outputs = if (disagreement) "sensors" else "anchor_noise",
                                    disagreement = disagreement)
  sensors$rows <- rows
  sensors$beyond_rows <- rows[rows_beyond_range(object, sensors, row_x)]
  sensors
}

# The posterior with each row's unit offset added to its mean and the offset's variance (the
# variance of a new unit for a unit without reference rows) to its variances. The offset
# corrects the estimate of the low-cost sensors: on rows whose reference reading entered the
# posterior (`reference_used`), that estimate (`sensors`, from sensors_only_posterior()) is
# corrected, then combined with the reading by their precisions, the reading's variance from
# the reference's noise head. So is the rows' `disagreement`, when there is one: the reading
# taken as a reading of the corrected estimate (offset_reference_disagreement()).
add_unit_offsets <- function(object, post, newdata, reference_used, reference, sensors, call) {
  offsets <- object$unit_offsets
  if (is.null(offsets)) return(post)
  units <- unit_values(newdata, offsets$unit, "newdata", call)
  hit <- match(units, key_text(offsets$table[[offsets$unit]]))  # fits saved before kept the units as text
  warn_unknown_units(units, hit, offsets$unit, call)
  shift <- ifelse(is.na(hit), 0, offsets$table$offset[hit])
  # Fits saved before new_unit_variance was kept have tau2 alone.
  unknown_variance <- if (is.null(offsets$new_unit_variance)) offsets$tau2 else offsets$new_unit_variance
  extra <- ifelse(is.na(hit), unknown_variance, offsets$table$offset_sd[hit]^2)
  aleatoric <- post$var_pred - post$var_post
  post$mu <- post$mu + shift
  post$var_post <- post$var_post + extra
  blended <- which(reference_used & !is.na(post$mu))
  if (length(blended)) {
    at <- match(blended, sensors$rows)
    corrected_precision <- 1 / (sensors$var_post[at] + extra[blended])
    reading_precision <- 1 / anchor_noise_variance(object, sensors)[at]  # the reference is the anchor
    post$var_post[blended] <- 1 / (corrected_precision + reading_precision)
    post$mu[blended] <- post$var_post[blended] *
      (corrected_precision * (sensors$mu[at] + shift[blended]) + reading_precision * reference[blended])
    if (!is.null(post$disagreement)) {
      post$disagreement[blended] <- offset_reference_disagreement(sensors, at, reference[blended] - shift[blended],
                                                                  1 / reading_precision + extra[blended])
    }
  }
  post$var_pred <- post$var_post + aleatoric
  post
}

# The disagreement (Q / (k - 1), see ncam_posterior_columns()) of rows `at` of the sensors-only
# posterior `sensors` with a reference reading `z` (less its unit's offset) of variance `v` around
# Theta (its noise plus the offset's) as one more reading: the sensors' Q gains
# (z - zbar)^2 / (V + v), zbar being their readings' precision-weighted mean on the reference's
# scale and V its variance, found from their posterior by taking its prior out (1 / var_post =
# 1 / s0^2 + 1 / V, mu / var_post = mu0 / s0^2 + zbar / V). NA without a sensor reading.
offset_reference_disagreement <- function(sensors, at, z, v) {
  k <- sensors$n_sensors[at]
  precision <- 1 / sensors$var_post[at] - 1 / sensors$s0_2[at]
  zbar <- (sensors$mu[at] / sensors$var_post[at] - sensors$mu0[at] / sensors$s0_2[at]) / precision
  q_sensors <- ifelse(k >= 2, sensors$disagreement[at] * (k - 1), 0)
  ifelse(k >= 1, (q_sensors + (z - zbar)^2 / (1 / precision + v)) / k, NA_real_)
}

# Rows of units without reference rows in the fit: no offset, the variance of a new unit in
# their intervals; said once, since a unit written differently (leading zeros lost by a
# reader) would silently lose its offset.
warn_unknown_units <- function(units, hit, unit, call) {
  unknown <- !is.na(units) & is.na(hit)
  warn_unknown_unit_rows(unit, unique(units[unknown]), sum(unknown), sum(is.na(units)), call = call)
}

# The warning from its counts: `values` the unknown units, on `n_unknown` rows, and `n_missing`
# rows without a unit, of `of` (the call's newdata, or the whole input scored in parts).
warn_unknown_unit_rows <- function(unit, values, n_unknown, n_missing, of = "{.arg newdata}", call = NULL) {
  if (n_unknown + n_missing == 0) return(invisible())
  shown <- utils::head(values, 5)
  which_units <- c(
    if (length(values)) cli::format_inline("{length(values)} unit{?s} of {.field {unit}} without reference rows in the fit ({.val {shown}}{if (length(values) > 5) ', ...'})"),
    if (n_missing) cli::format_inline("no {.field {unit}} ({n_missing} row{?s} with NA)"))
  n_rows <- n_unknown + n_missing
  cli::cli_warn(c(paste0("{n_rows} row{?s} of ", of, " {cli::qty(n_rows)}{?has/have} {paste(which_units, collapse = ' or ')}: no offset, and the variance of a new unit in their intervals."),
                  i = if (length(values)) paste0("If they are units of the fit written differently (codes that lost their leading zeros when read as numbers), read {.field {unit}} as text, e.g. ",
                                                 if (of == "{.arg newdata}") "{.code colClasses = c({unit} = \"character\")}." else
                                                   "{.code reader = function(p) utils::read.csv(p, colClasses = c({unit} = \"character\"))}.")),
                class = c("ncam_warning_unknown_unit", "ncam_warning"), call = call,
                # For scoring in parts, which gives one warning for the whole input.
                unit = unit, values = values, n_unknown = n_unknown, n_missing = n_missing)
}
