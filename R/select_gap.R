# Gap selection from the residual autocorrelation (paper appendix "Residual
# Autocorrelation Analysis for Gap Selection").

#' Select the gap between temporal blocks from residual autocorrelation
#'
#' Computes the autocorrelation function (ACF) of residuals and returns the
#' smallest lag at which it falls inside the confidence band
#' \eqn{\pm z_{(1+level)/2} / \sqrt{n}}{+/- qnorm((1 + level) / 2) / sqrt(n)},
#' the rule the NCAM paper uses to choose the gap of [split_blocks()].
#'
#' The ACF at lag \eqn{k}{k} is that of [stats::acf()] with `na.action = na.pass`,
#' \eqn{r_k = (S_k / (p_k + k)) / (S_0 / n)}{r_k = (S_k / (p_k + k)) / (S_0 / n)}:
#' \eqn{S_k}{S_k} sums the products \eqn{x_t x_{t+k}}{x_t x_(t+k)} of the
#' mean-centred series over the \eqn{p_k}{p_k} pairs of non-missing values
#' \eqn{k}{k} apart and \eqn{n}{n} counts the non-missing values (it also sets the
#' band). Dividing each lag by its own pairs keeps missing values, even half the
#' times missing at random, from pulling the ACF (and the gap) toward 0. Without
#' missing values this is the usual [stats::acf()],
#' \eqn{\sum_t x_t x_{t+k} / \sum_t x_t^2}{sum(x_t x_(t+k)) / sum(x_t^2)}. A lag
#' without any pair has an `NA` ACF; values are clipped to \eqn{[-1, 1]}{[-1, 1]}.
#' The sums are computed by fast Fourier transform, in time proportional to
#' \eqn{m \log m}{m log(m)} for \eqn{m}{m} time points, whatever `max_lag`.
#'
#' When `date` is given the residuals are first placed on a regular grid whose
#' step is the median spacing of the distinct times (a spacing within 0.45
#' seconds and 5 % of a whole number of seconds counts as that number, so that
#' times stamped a fraction of a second off a regular step, 59.996 seconds
#' apart, give a step of one minute): each observation goes to
#' the nearest grid point, observations sharing a grid point are averaged and
#' empty grid points are missing. Lags are then multiples of that step.
#' Irregular times (random spacings) leave many grid points empty, which the
#' per-lag division above allows for: the ACF comes close to that of the same
#' process sampled regularly at the step, shrunk slightly at long lags by the
#' \eqn{+k}{+k} of \eqn{p_k + k}{p_k + k} when few pairs remain. Each
#' time may appear only once per series: residuals of several sites or devices
#' sharing times must be told apart with `group`, otherwise `select_gap()`
#' stops with an error. If the grid would hold more than ten points per
#' observed time and more than 10,000 points (after shortening gaps longer than
#' `max_lag`, which contain no pair of interest), the times are too sparse for
#' the step and an error says so.
#'
#' With `group`, each group (for example each site) is a separate series: its
#' own mean is removed, lags never pair values of different groups, and
#' \eqn{S_k}{S_k}, \eqn{p_k + k}{p_k + k} (over the groups with a pair at lag
#' \eqn{k}{k}), \eqn{S_0}{S_0} and \eqn{n}{n} are added over groups before
#' dividing, giving one pooled ACF with \eqn{n}{n} the total number of values.
#'
#' With a matrix (one column per sensor) each column gets its own ACF and band,
#' and the selected gap is the largest of the per-column lags, so that it is
#' long enough for every sensor.
#'
#' @section Use with the splits:
#' The result can be passed whole as the `gap` of [split_blocks()] or
#' [split_chronological()], `split_blocks(data, "date", gap = select_gap(r,
#' date = data$date))`, when `date` was given: its gap is then a `difftime`. A
#' gap counted in rows (no `date`) is not a time: the splits refuse the whole
#' result with an error, and read its `$gap`, a plain number, as seconds
#' (with a warning of class `ncam_warning_short_gap` when that is no longer
#' than the spacing of the times, so leaves no time out). Give the residuals'
#' times as `date`, or convert the rows to a duration yourself (21 rows of
#' daily data: `gap = "21 days"`).
#'
#' @param residuals Numeric vector, matrix or data frame of residuals (one
#'   column per series, for example per sensor); `NA` allowed. A data frame may
#'   also hold the columns named by `date` and `group`.
#' @param date Optional times (`POSIXct` or `Date`), one per residual (row), or
#'   the name of such a column of `residuals`. Without it the residuals are
#'   taken as equally spaced and lags are counted in rows, which
#'   [split_blocks()] cannot use as a gap (see Use with the splits).
#' @param max_lag Largest lag to examine: a number of rows, or with `date`
#'   also a duration such as `"72 hours"`. Defaults to a quarter of the number
#'   of time points of the longest series (group).
#' @param level Confidence level of the band, strictly between 0 and 1.
#' @param group Optional series identifier (such as a site), one per row, or
#'   the name of such a column of `residuals`. Rows of a group form one series
#'   (in row order when `date` is not given); the ACF is pooled over groups.
#' @param ... Not used: an argument not named above is an error (`data` is pointed to
#'   `residuals`, which takes the data frame).
#' @return An object of class `ncam_gap`: a list with `gap` (the selected lag;
#'   a `difftime` when `date` is given, else a whole number of rows; `NA` if the
#'   ACF never enters the band),
#'   `acf` (data frame with columns `lag`, `acf` and, for several series,
#'   `series`), `band` (half-width of the band, one per series), `level`, `n`
#'   (non-missing values per series), `step` (grid step in seconds, or `NULL`)
#'   and `groups` (number of groups pooled). `tidy()` and `glance()` give the
#'   ACF with its band and the selection as tibbles (see [tidy.ncam_gap()]).
#' @seealso [split_blocks()], [tidy.ncam_gap()]
#' @export
#' @examples
#' set.seed(1)
#' r <- as.numeric(arima.sim(list(ar = 0.6), n = 500))
#' g <- select_gap(r, max_lag = 20)
#' g
#' plot(g)
#'
#' # Two sites measured at the same hours: one pooled ACF.
#' hours <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * (0:249)
#' d <- data.frame(site = rep(c("a", "b"), each = 250), time = c(hours, hours),
#'                 resid = as.numeric(arima.sim(list(ar = 0.6), n = 500)))
#' select_gap(d, date = "time", group = "site", max_lag = "12 hours")
select_gap <- function(residuals, date = NULL, max_lag = NULL, level = 0.95, group = NULL, ...) {
  check_dots_empty_hinted(c(data = "Did you mean {.arg residuals}? {.fn select_gap} takes the residuals (a vector, matrix or data frame) as {.arg residuals}."))
  check_level(level)
  if (length(level) != 1L) ncam_abort("{.arg level} must be a single number.")
  if (is.data.frame(residuals)) {
    check_column_name_args(c("date", "group"))  # names of its columns, here
    named <- c(date = if (is_column_name(date)) date, group = if (is_column_name(group)) group)
    for (arg in names(named)) check_columns(residuals, named[[arg]], arg)
    if ("date" %in% names(named)) date <- residuals[[named[["date"]]]]
    if ("group" %in% names(named)) group <- residuals[[named[["group"]]]]
    residuals <- residuals[setdiff(names(residuals), named)]
  }
  x <- gap_residual_matrix(residuals)
  grouped <- !is.null(group)
  group <- gap_group_codes(group, nrow(x))
  secs <- NULL
  if (!is.null(date)) {
    if (length(date) != nrow(x)) {
      ncam_abort("{.arg date} has {length(date)} element{?s} but {.arg residuals} has {nrow(x)} row{?s}.")
    }
    secs <- date_seconds(date, "date")
  }
  grid <- gap_grid(x, secs, group, date, grouped)
  step <- grid$step
  max_lag <- gap_max_lag(max_lag, grid, step)
  z <- stats::qnorm((1 + level) / 2)

  lags <- 0:max_lag
  acfs <- pooled_acf(grid, max_lag)
  n <- colSums(!is.na(grid$values))
  band <- z / sqrt(n)
  warn_short_groups(grid, n, band)
  # First lag >= 1 inside the band; the paper's rule.
  first_inside <- vapply(seq_len(ncol(x)), function(j) {
    inside <- which(abs(acfs[-1, j]) < band[j])
    if (length(inside) == 0L) NA_integer_ else inside[1]
  }, integer(1))
  gap_steps <- if (anyNA(first_inside)) NA_integer_ else max(first_inside)
  if (is.na(gap_steps)) {
    cli::cli_warn(c("The autocorrelation never enters the {level * 100}% band up to lag {max_lag}.",
                    i = "Increase {.arg max_lag}."), class = c("ncam_warning_no_gap_found", "ncam_warning"))
  }

  lag_out <- if (is.null(step)) lags else as_lag_difftime(lags * step, step)
  acf_df <- data.frame(lag = rep(lag_out, ncol(x)), acf = as.vector(acfs))
  if (ncol(x) > 1L) acf_df$series <- rep(colnames(x), each = length(lags))
  structure(list(
    gap = if (is.null(step)) gap_steps else as_lag_difftime(gap_steps * step, step),
    acf = acf_df,
    band = stats::setNames(band, colnames(x)),
    level = level,
    n = stats::setNames(n, colnames(x)),
    step = step,
    groups = max(group)
  ), class = "ncam_gap")
}

is_column_name <- function(x) is.character(x) && length(x) == 1L && !is.na(x)

gap_residual_matrix <- function(residuals, call = parent.frame()) {
  if (is.data.frame(residuals)) {
    other <- names(residuals)[!vapply(residuals, is.numeric, logical(1))]
    if (length(other) > 0L) {
      ncam_abort(c("{.arg residuals} has non-numeric column{?s} {.field {other}}.",
                   i = "Name a time column in {.arg date} and a series column in
                            {.arg group}; drop other columns."), call = call)
    }
    residuals <- as.matrix(residuals)
  }
  if (!is.numeric(residuals) || length(residuals) < 3L) {
    ncam_abort("{.arg residuals} must be a numeric vector or matrix with at least 3 values,
                    not {.obj_type_friendly {residuals}}.", call = call)
  }
  x <- as.matrix(residuals)
  if (is.null(colnames(x))) colnames(x) <- paste0("series_", seq_len(ncol(x)))
  infinite <- which(is.infinite(x), arr.ind = TRUE)
  if (length(infinite)) {
    ncam_abort("{.arg residuals} has infinite values (series {.val {colnames(x)[infinite[1, 2]]}}, row {infinite[1, 1]}): an autocorrelation needs finite residuals.",
               call = call)
  }
  few <- colnames(x)[colSums(!is.na(x)) < 3L]
  if (length(few) > 0L) {
    ncam_abort("{.arg residuals} needs at least 3 non-missing values per series;
                    {.val {few}} {?has/have} fewer.", call = call)
  }
  # The ACF is scale-free: each series divided by the power of two nearest its largest value
  # (exact) keeps the sums of squares from overflowing (1e300) or underflowing (1e-300).
  size <- apply(abs(x), 2L, max, na.rm = TRUE)
  sweep(x, 2L, ifelse(size > 0, 2^floor(log2(size)), 1), "/")
}

# Group identifiers as integer codes 1, 2, ... in order of first appearance.
gap_group_codes <- function(group, n, call = parent.frame()) {
  if (is.null(group)) return(rep(1L, n))
  if (!is.atomic(group) || length(group) != n) {
    ncam_abort(c("{.arg group} must have one element per row of {.arg residuals} ({n}),
                      not {length(group)}.",
                 i = "A column name works only when {.arg residuals} is a data frame."),
               call = call)
  }
  if (anyNA(group)) {
    ncam_abort("{.arg group} is missing in {cli::qty(sum(is.na(group)))}row{?s}
                    {which(is.na(group))}.", call = call)
  }
  match(group, unique(group))
}

# The rows of `x` as series on a regular grid, sorted by group then grid index `cell`: without
# times a group's rows in order; with times (seconds) the nearest point of a grid whose step is
# the median spacing of the distinct times within groups, averaging rows that share a grid point.
# Not step_of_gaps(), the step sensor_performance() counts records by: that takes the most
# common gap when it is common enough, while the grid here is defined by the median.
# Only occupied grid points are kept, so a sparse time axis costs nothing here.
gap_grid <- function(x, secs, group, date, grouped, call = parent.frame()) {
  ord <- if (is.null(secs)) order(group) else order(group, secs)
  group <- group[ord]
  x <- x[ord, , drop = FALSE]
  if (is.null(secs)) {
    return(list(values = x, group = group, cell = sequence(tabulate(group)), step = NULL))
  }
  secs <- secs[ord]
  same_group <- group[-1] == group[-length(group)]
  spacing <- diff(secs)[same_group]
  repeated <- which(same_group & diff(secs) == 0)
  if (length(repeated) > 0L) {
    rows <- ord[repeated[1] + 0:1]
    ncam_abort(c("{.arg date} repeats times{if (grouped) ' within a group'}: {length(repeated)}
                      row{?s} share{?s/} a time with another, for example rows {rows} at
                      {format(date[rows[1]])}.",
                 i = if (grouped) {
                   "Give one row per time in each group, or identify the series fully in {.arg group}."
                 } else {
                   "If these are several series (such as sites), pass their identifier as
                        {.arg group}: each gets its own ACF and the ACFs are pooled."
                 }), call = call)
  }
  if (length(spacing) < 2L) {
    ncam_abort("{.arg date} needs at least 3 distinct times.", call = call)
  }
  step <- stats::median(whole_second_gaps(spacing))
  cell <- round((secs - secs[1]) / step)
  # A new grid point wherever the group or the cell changes; average within.
  starts <- c(TRUE, !same_group | diff(cell) != 0)
  point <- cumsum(starts)
  observed <- !is.na(x)
  x[!observed] <- 0
  counts <- rowsum(observed * 1, point, reorder = FALSE)
  values <- rowsum(x, point, reorder = FALSE) / counts
  values[counts == 0] <- NA_real_
  dimnames(values) <- list(NULL, colnames(x))
  list(values = values, group = group[starts], cell = cell[starts], step = step)
}

gap_max_lag <- function(max_lag, grid, step, call = parent.frame()) {
  first <- !duplicated(grid$group)
  last <- !duplicated(grid$group, fromLast = TRUE)
  longest_span <- max(grid$cell[last] - grid$cell[first]) + 1
  if (longest_span < 2) {
    ncam_abort("Every series has a single time point, so no lag can be examined.",
               call = call)
  }
  if (is.null(max_lag)) {
    points <- max(tabulate(grid$group))
    return(as.integer(max(1, min(longest_span - 1, floor(points / 4)))))
  }
  if (is.character(max_lag) || inherits(max_lag, "difftime")) {
    if (is.null(step)) {
      ncam_abort("{.arg max_lag} can be a duration only when {.arg date} is given.",
                 call = call)
    }
    max_lag <- floor(parse_duration(max_lag, "max_lag", call = call) / step + 1e-8)
  }
  check_number(max_lag, "max_lag", min = 1, max = longest_span - 1, integer = TRUE, call = call)
  as.integer(max_lag)
}

# ACF (max_lag + 1 rows, one column per series) pooled over groups, as stats::acf(na.pass):
# (S_k / (p_k + k)) / (S_0 / n), each lag divided by its own pairs p_k so that missing values
# do not shrink it. Per group, the products S_k and the pairs p_k (products of the observed
# indicators) come from one FFT each; a group without a pair at lag k adds nothing. Gaps
# longer than max_lag are shortened to max_lag + 1 steps (they hold no pair of interest), so
# the FFT length stays near the number of points however sparse the times.
pooled_acf <- function(grid, max_lag, call = parent.frame()) {
  rows_of_group <- split(seq_along(grid$group), grid$group)
  positions <- lapply(rows_of_group, function(rows) {
    c(1, 1 + cumsum(pmin(diff(grid$cell[rows]), max_lag + 1)))
  })
  grid_length <- sum(vapply(positions, function(pos) pos[length(pos)], numeric(1)))
  points <- length(grid$group)
  if (grid_length > max(10 * points, 1e4)) {
    ncam_abort(c("The times are too sparse for a regular grid: it would need
                      {format(grid_length, big.mark = ',')} points for
                      {format(points, big.mark = ',')} observed {cli::qty(points)}time{?s}.",
                 i = "The grid step is the median spacing of the times,
                          {format_lag(as_lag_difftime(grid$step, grid$step))}.",
                 i = "Use a smaller {.arg max_lag}, or average the residuals to a coarser
                          regular time step first."), call = call)
  }
  lags <- 0:max_lag
  lag_sums <- lag_counts <- matrix(0, max_lag + 1L, ncol(grid$values))
  squares <- observed <- numeric(ncol(grid$values))
  for (g in seq_along(rows_of_group)) {
    pos <- positions[[g]]
    v <- grid$values[rows_of_group[[g]], , drop = FALSE]
    seen <- !is.na(v)
    v <- sweep(v, 2L, colMeans(v, na.rm = TRUE))
    v[!seen] <- 0
    pairs <- round(lag_products(seen * 1, pos, max_lag))
    lag_sums <- lag_sums + lag_products(v, pos, max_lag)
    lag_counts <- lag_counts + pairs + lags * (pairs > 0)
    squares <- squares + colSums(v^2)
    observed <- observed + colSums(seen)
  }
  constant <- colnames(grid$values)[squares == 0]
  if (length(constant) > 0L) {
    within <- if (length(rows_of_group) > 1L) " within every group" else ""
    ncam_abort(c("{.arg residuals} series {.val {constant}} {?is/are} constant{within},
                      so the autocorrelation is undefined.",
                 i = "Check that the residuals come from a fitted model."), call = call)
  }
  # A lag without any pair has no estimate; with missing values a ratio can pass +/- 1 (clipped).
  r <- sweep(lag_sums / ifelse(lag_counts == 0, NA, lag_counts), 2L, squares / observed, "/")
  r[1L, ] <- 1
  pmin(pmax(r, -1), 1)
}

# Sums over t of v_t v_(t+k) for k = 0..max_lag, one column per column of `v` (its rows at grid
# positions `pos`), by FFT. Zero padding to at least length + max_lag keeps the circular
# correlation equal to the linear one for lags up to max_lag.
lag_products <- function(v, pos, max_lag) {
  padded <- matrix(0, stats::nextn(pos[length(pos)] + max_lag), ncol(v))
  padded[pos, ] <- v
  power <- Mod(stats::mvfft(padded))^2
  Re(stats::mvfft(power, inverse = TRUE))[seq_len(max_lag + 1L), , drop = FALSE] / nrow(padded)
}

# Centring each group on its own mean biases the pooled ACF by about
# -groups / n (minus one over the mean group length); warn when that is a
# sizeable part of the band, since the ACF may then never enter it.
warn_short_groups <- function(grid, n, band) {
  observed <- rowsum((!is.na(grid$values)) * 1, grid$group) > 0
  bias <- colSums(observed) / n
  short <- names(bias)[bias > band / 4]
  if (length(short) > 0L) {
    cli::cli_warn(c("The groups of series {.val {short}} are short (on average
                     {format(signif(1 / max(bias[short]), 3))} values): centring each
                     on its own mean biases the pooled ACF by about {format(-signif(max(bias[short]), 2))},
                     against a band of {format(signif(min(band), 2))}.",
                    i = "The selected gap may be too long; use fewer, longer groups."), class = c("ncam_warning_short_series", "ncam_warning"))
  }
}

# Lag in seconds as a difftime in the coarsest unit dividing the grid step.
as_lag_difftime <- function(secs, step) {
  scales <- c(days = 86400, hours = 3600, mins = 60, secs = 1)
  units <- names(scales)[step %% scales == 0][1]
  if (is.na(units)) units <- "secs"
  as.difftime(secs / scales[[units]], units = units)
}

# A lag as a user reads it: "1 hour", "3 hours" for a duration, "1 row", "2 rows" for a count
# of rows (format() of a difftime says "1 hours").
format_lag <- function(lag) {
  unit <- if (inherits(lag, "difftime")) units(lag) else "rows"
  value <- as.numeric(lag)
  paste(format(value), if (value == 1) sub("s$", "", unit) else unit)
}
