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
#'   \eqn{z_{(1+level)/2} / \sqrt{n}}{z_((1+level)/2) / sqrt(n)}) and `inside` (`abs(acf) < band`;
#'   the
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

# print() and plot() of a gap selection: the lag chosen, and the ACF with its band.
#' @export
print.ncam_gap <- function(x, ...) {
  gap_txt <- if (is.na(x$gap)) "none found" else format_lag(x$gap)
  groups <- if (isTRUE(x$groups > 1L)) paste0("Groups pooled:    ", x$groups, "\n") else ""
  cat("<ncam_gap> lag where the residual ACF enters the ", x$level * 100, "% band\n",
      "Selected gap:     ", gap_txt, "\n",
      "Series:           ", length(x$band), " (", paste(x$n, collapse = ", "), " values)\n",
      groups,
      "Band half-width:  ", paste(signif(x$band, 3), collapse = ", "), "\n",
      "Lags examined:    0 to ", format_lag(max(x$acf$lag)), "\n", sep = "")
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
