#' Tidy summaries of a gap selection
#'
#' `tidy()` returns the autocorrelation function that [select_gap()] examined,
#' one row per lag (and series), with the confidence band and whether the ACF
#' lies inside it; `glance()` returns the selection in one row.
#'
#' @param x An `ncam_gap` object from [select_gap()].
#' @param ... Must be empty.
#' @return `tidy()`: a tibble with columns `lag` (rows, or a `difftime` when
#'   `select_gap()` was given `date`), `acf`, `series` (only with several
#'   series), `band` (half-width of the series' band
#'   \eqn{z_{(1+level)/2} / \sqrt{n}}) and `inside` (`abs(acf) < band`; the
#'   selected gap is the first lag of at least 1 inside the band, the largest
#'   over series). `glance()`: a one-row tibble with `gap` (`NA` when the ACF
#'   never enters the band), `level`, `n_series`, `groups` (number of groups
#'   pooled) and `max_lag` (the largest lag examined), lags in the units of
#'   `tidy()`.
#' @seealso [select_gap()]
#' @examples
#' set.seed(1)
#' g <- select_gap(as.numeric(arima.sim(list(ar = 0.6), n = 500)), max_lag = 10)
#' tidy(g)
#' glance(g)
#' @name ncam_gap-tidy
NULL

#' @rdname ncam_gap-tidy
#' @export
tidy.ncam_gap <- function(x, ...) {
  check_dots_empty_hinted()
  out <- x$acf
  series <- if (is.null(out$series)) rep(1L, nrow(out)) else match(out$series, names(x$band))
  out$band <- unname(x$band[series])
  # Strictly inside, as select_gap() decides.
  out$inside <- abs(out$acf) < out$band
  tibble::as_tibble(out)
}

#' @rdname ncam_gap-tidy
#' @export
glance.ncam_gap <- function(x, ...) {
  check_dots_empty_hinted()
  tibble::tibble(gap = x$gap, level = x$level, n_series = length(x$band),
                 groups = as.integer(x$groups), max_lag = max(x$acf$lag))
}
