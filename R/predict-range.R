# Rows of new data so far outside the training range (a covariate of 1e50 where it was 20 to 95
# in training) that the networks' arithmetic breaks down: they overflow (the engine returns
# NaN, its mark for a missing covariate too), or saturate into a posterior sd below the
# precision the mean is computed with, a confident number from nothing. Such rows get NA, as a
# row with a missing covariate does, and a warning naming the variable and rows.

# `post` from ncam_posterior_columns(), `x` and `readings` what it was computed from; `also`
# rows found beyond range by another posterior the rows' estimates are built from (the
# sensors-only posterior of unit offsets with use_reference), dropped and named alike.
drop_beyond_range <- function(object, post, x, readings, call = parent.frame(), also = integer()) {
  rows <- sort(union(rows_beyond_range(object, post, x), also))
  post$beyond_rows <- rows
  if (!length(rows)) return(post)
  for (field in c("mu", "var_post", "var_pred", "nll", "mu0", "s0_2", "anchor_sigma2", "disagreement")) {
    if (!is.null(post[[field]])) post[[field]][rows] <- NA_real_
  }
  post$n_sensors[rows] <- NA_integer_
  for (field in c("a", "c", "sigma2", "noise_clamp")) {
    if (!is.null(post[[field]])) post[[field]][rows, ] <- NA
  }
  if (!is.null(post$ok)) post$ok[rows] <- FALSE
  warn_beyond_range(object, x, readings, rows, call)
  post
}

# The rows of `post` (from ncam_posterior_columns() on design `x`) beyond what the networks
# compute with: a posterior or head output not finite, or a posterior sd below the precision of
# the mean.
rows_beyond_range <- function(object, post, x) {
  eps <- if (identical(object$settings$control$precision, "double")) .Machine$double.eps else 2^-23
  scaling <- object$scaling
  rows <- call_engine(ncam_rows_unresolved_cpp(post$mu, post$var_post, scaling$b_shift, scaling$b_scale, eps))
  if (!is.null(post$heads_not_finite)) rows <- sort(union(rows, post$heads_not_finite))
  rows[!row_has_na(x, rows)]  # those are rows with a missing covariate
}

# TRUE for each of `rows` with a missing value in the design `x` (a matrix or list of columns).
row_has_na <- function(x, rows) {
  if (is.matrix(x)) return(rowSums(is.na(x[rows, , drop = FALSE])) > 0)
  Reduce(`|`, lapply(x, function(v) is.na(v[rows])), logical(length(rows)))
}

# Names, per row, the variable farthest from its training values in training standard
# deviations (the covariates' standardisation, the anchor's working scale for readings).
warn_beyond_range <- function(object, x, readings, rows, call) {
  scaling <- object$scaling
  cols <- if (is.matrix(x)) as_columns(x[rows, , drop = FALSE]) else take_rows(x, rows)
  distance <- c(
    Map(function(v, centre, scale) abs(v - centre) / scale, cols, scaling$x_center, scaling$x_scale),
    lapply(take_rows(readings, rows), function(v) abs(v - scaling$b_shift) / scaling$b_scale)
  )
  values <- c(cols, take_rows(readings, rows))
  distance <- matrix(unlist(distance, use.names = FALSE), length(rows))
  distance[is.na(distance)] <- -1
  farthest <- max.col(distance, ties.method = "first")
  value <- unlist(values, use.names = FALSE)[(farthest - 1L) * length(rows) + seq_along(rows)]
  variable <- plain_names(names(values))[farthest]
  cli::cli_warn(c("{length(rows)} row{?s} of {.arg newdata} {cli::qty(length(rows))}{?has a value/have values} so far outside the training data that the networks cannot compute with {?it/them}: {?its prediction is/their predictions are} {.code NA}.",
                  beyond_range_details(input_rows(rows), variable, value),
                  i = "Check those rows for a unit or parsing error, or leave them out."),
                class = c("ncam_warning_beyond_range", "ncam_warning"), call = call,
                # For scoring in parts, which gives one warning with the rows of the whole input.
                rows = rows, variables = variable, values = value)
}

# Bullets "x1: rows 4 (1e+50), 9 (1e+50)": per variable, its first 5 rows (`rows`, numbers or
# labels) and values; "..." when `counts` (rows per variable) says there are more.
beyond_range_details <- function(rows, variable, value, counts = table(variable)) {
  details <- vapply(unique(variable), function(v) {
    at <- which(variable == v)
    shown <- at[seq_len(min(5L, length(at)))]
    sprintf("%s: row%s %s%s", v, if (counts[[v]] == 1L) "" else "s",
            paste0(rows[shown], " (", signif(value[shown], 3), ")", collapse = ", "),
            if (counts[[v]] > length(shown)) ", ..." else "")
  }, character(1))
  details <- gsub("([{}])", "\\1\\1", details)  # already formatted: braces in names stay text
  stats::setNames(details, rep("*", length(details)))
}
