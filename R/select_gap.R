# Gap selection from the residual autocorrelation (paper appendix "Residual
# Autocorrelation Analysis for Gap Selection").

#' Select the gap between temporal blocks from residual autocorrelation
#'
#' Computes the autocorrelation function (ACF) of residuals and returns the
#' smallest lag at which it falls inside the confidence band
#' \eqn{\pm z_{(1+level)/2} / \sqrt{n}}{+/- qnorm((1 + level) / 2) / sqrt(n)},
#' the rule the NCAM paper uses to choose the gap of [split_blocks()].
#'
#' The ACF at lag \eqn{k} is
#' \eqn{r_k = \sum_t x_t x_{t+k} / \sum_t x_t^2}{r_k = sum(x_t x_(t+k)) / sum(x_t^2)}
#' on the mean-centred series, where missing values contribute nothing to
#' either sum (without missing values this equals [stats::acf()]); \eqn{n} is
#' the number of non-missing values.
#'
#' When `date` is given the residuals are first placed on a regular grid whose
#' step is the median spacing of the distinct times: each observation goes to
#' the nearest grid point, observations sharing a grid point are averaged and
#' empty grid points are missing. Lags are then multiples of that step.
#'
#' With a matrix (one column per sensor) each column gets its own ACF and band,
#' and the selected gap is the largest of the per-column lags, so that it is
#' long enough for every sensor.
#'
#' @param residuals Numeric vector or matrix of residuals (one column per
#'   series, for example per sensor); `NA` allowed.
#' @param date Optional vector of times (`POSIXct` or `Date`), one per
#'   residual (row). Without it the residuals are taken as equally spaced and
#'   lags are counted in rows.
#' @param max_lag Largest lag to examine: a number of rows, or with `date`
#'   also a duration such as `"72 hours"`. Defaults to a quarter of the series
#'   length.
#' @param level Confidence level of the band, strictly between 0 and 1.
#' @return An object of class `ncam_gap`: a list with `gap` (the selected lag;
#'   a `difftime` when `date` is given, `NA` if the ACF never enters the band),
#'   `acf` (data frame with columns `lag`, `acf` and, for several series,
#'   `series`), `band` (half-width of the band, one per series), `level`, `n`
#'   (non-missing values per series) and `step` (grid step in seconds, or
#'   `NULL`).
#' @seealso [split_blocks()]
#' @export
#' @examples
#' set.seed(1)
#' r <- as.numeric(arima.sim(list(ar = 0.6), n = 500))
#' g <- select_gap(r, max_lag = 20)
#' g
#' plot(g)
select_gap <- function(residuals, date = NULL, max_lag = NULL, level = 0.95) {
  x <- gap_residual_matrix(residuals)
  check_level(level)
  if (length(level) != 1L) cli::cli_abort("{.arg level} must be a single number.")
  step <- NULL
  if (!is.null(date)) {
    regular <- regularise_series(x, date)
    x <- regular$x
    step <- regular$step
  }
  max_lag <- gap_max_lag(max_lag, nrow(x), step)
  z <- stats::qnorm((1 + level) / 2)

  lags <- 0:max_lag
  acfs <- apply(x, 2, acf_na, max_lag = max_lag)
  n <- colSums(!is.na(x))
  band <- z / sqrt(n)
  # First lag >= 1 inside the band; the paper's rule.
  first_inside <- vapply(seq_len(ncol(x)), function(j) {
    inside <- which(abs(acfs[-1, j]) < band[j])
    if (length(inside) == 0L) NA_integer_ else inside[1]
  }, integer(1))
  gap_steps <- if (anyNA(first_inside)) NA_integer_ else max(first_inside)
  if (is.na(gap_steps)) {
    cli::cli_warn(c("The autocorrelation never enters the {level * 100}% band up to lag {max_lag}.",
                    i = "Increase {.arg max_lag}."))
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
    step = step
  ), class = "ncam_gap")
}

#' @export
print.ncam_gap <- function(x, ...) {
  rows <- if (is.null(x$step)) " rows" else ""
  gap_txt <- if (is.na(x$gap)) "none found" else paste0(format(x$gap), rows)
  cat("<ncam_gap> lag where the residual ACF enters the ", x$level * 100, "% band\n",
      "Selected gap:     ", gap_txt, "\n",
      "Series:           ", length(x$band), " (", paste(x$n, collapse = ", "), " values)\n",
      "Band half-width:  ", paste(signif(x$band, 3), collapse = ", "), "\n",
      "Lags examined:    0 to ", format(max(x$acf$lag)), rows, "\n", sep = "")
  invisible(x)
}

#' @export
plot.ncam_gap <- function(x, ...) {
  lag <- as.numeric(x$acf$lag)
  xlab <- if (is.null(x$step)) "Lag (rows)" else paste0("Lag (", units(x$acf$lag), ")")
  series <- if (is.null(x$acf$series)) rep("1", nrow(x$acf)) else x$acf$series
  groups <- unique(series)
  cols <- seq_along(groups)
  graphics::plot(range(lag), range(c(x$acf$acf, x$band, -x$band), na.rm = TRUE),
                 type = "n", xlab = xlab, ylab = "ACF", ...)
  for (g in seq_along(groups)) {
    keep <- series == groups[g]
    type <- if (length(groups) == 1L) "h" else "b"
    graphics::lines(lag[keep], x$acf$acf[keep], type = type, col = cols[g], pch = 20)
    graphics::abline(h = c(-1, 1) * x$band[g], lty = 2, col = cols[g])
  }
  graphics::abline(h = 0)
  if (!is.na(x$gap)) graphics::abline(v = as.numeric(x$gap), col = "red", lty = 3)
  if (length(groups) > 1L) {
    graphics::legend("topright", legend = groups, col = cols, lty = 1, bty = "n")
  }
  invisible(x)
}

gap_residual_matrix <- function(residuals, call = parent.frame()) {
  if (is.data.frame(residuals)) residuals <- as.matrix(residuals)
  if (!is.numeric(residuals) || length(residuals) < 3L) {
    cli::cli_abort("{.arg residuals} must be a numeric vector or matrix with at least 3 values,
                    not {.obj_type_friendly {residuals}}.", call = call)
  }
  x <- as.matrix(residuals)
  if (is.null(colnames(x))) colnames(x) <- paste0("series_", seq_len(ncol(x)))
  few <- colnames(x)[colSums(!is.na(x)) < 3L]
  if (length(few) > 0L) {
    cli::cli_abort("{.arg residuals} needs at least 3 non-missing values per series;
                    {.val {few}} {?has/have} fewer.", call = call)
  }
  x
}

# Places the rows of `x` on a grid with the median spacing of the distinct times.
regularise_series <- function(x, date, call = parent.frame()) {
  if (!inherits(date, c("Date", "POSIXt"))) {
    cli::cli_abort("{.arg date} must be a {.cls Date} or {.cls POSIXct} vector, not
                    {.obj_type_friendly {date}}.", call = call)
  }
  if (length(date) != nrow(x)) {
    cli::cli_abort("{.arg date} has {length(date)} element{?s} but {.arg residuals} has
                    {nrow(x)} row{?s}.", call = call)
  }
  secs <- if (inherits(date, "Date")) as.numeric(date) * 86400 else as.numeric(as.POSIXct(date))
  if (anyNA(secs)) {
    cli::cli_abort("{.arg date} has missing times at position{?s} {which(is.na(secs))}.",
                   call = call)
  }
  distinct <- sort(unique(secs))
  if (length(distinct) < 3L) {
    cli::cli_abort("{.arg date} needs at least 3 distinct times.", call = call)
  }
  step <- stats::median(diff(distinct))
  cell <- round((secs - distinct[1]) / step) + 1
  n_cells <- max(cell)
  out <- matrix(NA_real_, n_cells, ncol(x), dimnames = list(NULL, colnames(x)))
  for (j in seq_len(ncol(x))) {
    ok <- !is.na(x[, j])
    sums <- rowsum(x[ok, j], cell[ok])
    counts <- rowsum(rep(1, sum(ok)), cell[ok])
    out[as.integer(rownames(sums)), j] <- sums / counts
  }
  list(x = out, step = step)
}

gap_max_lag <- function(max_lag, n, step, call = parent.frame()) {
  if (is.null(max_lag)) return(max(1L, min(n - 1L, floor(n / 4))))
  if (is.character(max_lag) || inherits(max_lag, "difftime")) {
    if (is.null(step)) {
      cli::cli_abort("{.arg max_lag} can be a duration only when {.arg date} is given.",
                     call = call)
    }
    max_lag <- floor(parse_duration(max_lag, "max_lag", call = call) / step + 1e-8)
  }
  check_number(max_lag, "max_lag", min = 1, max = n - 1, integer = TRUE, call = call)
  as.integer(max_lag)
}

acf_na <- function(x, max_lag) {
  x <- x - mean(x, na.rm = TRUE)
  x[is.na(x)] <- 0
  n <- length(x)
  denom <- sum(x^2)
  vapply(0:max_lag, function(k) sum(x[seq_len(n - k)] * x[seq_len(n - k) + k]) / denom,
         numeric(1))
}

# Lag in seconds as a difftime in the coarsest unit dividing the grid step.
as_lag_difftime <- function(secs, step) {
  scales <- c(days = 86400, hours = 3600, mins = 60, secs = 1)
  units <- names(scales)[step %% scales == 0][1]
  if (is.na(units)) units <- "secs"
  as.difftime(secs / scales[[units]], units = units)
}
