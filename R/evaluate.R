#' Evaluate fused predictions against a reference
#'
#' Computes point and, when interval bounds are present, interval metrics of
#' fused predictions against reference (ground-truth) values.
#'
#' Rows where `truth` or `.pred` is missing are dropped, with a message saying
#' how many. Coverage is the share of rows with
#' `.pred_lower <= truth <= .pred_upper`; infinite bounds count as covering and
#' give an infinite `mean_width`.
#'
#' @param pred A data frame from `predict()` (with column `.pred` and optionally
#'   `.pred_lower` and `.pred_upper`), or a numeric vector of predictions.
#' @param truth Numeric vector of reference values, one per prediction.
#' @return A one-row data frame with `rmse`, `mae`, `coverage` and `mean_width`
#'   (the last two only when `pred` has interval bounds) and `n`, the number of
#'   rows used.
#' @export
#' @examples
#' pred <- data.frame(.pred = c(1, 2, 3), .pred_lower = c(0, 1, 2.5),
#'                    .pred_upper = c(2, 3, 3.5))
#' evaluate_fusion(pred, truth = c(1.5, 3.2, 3))
evaluate_fusion <- function(pred, truth) {
  if (is.data.frame(pred)) {
    check_columns(pred, ".pred", "pred")
    estimate <- pred$.pred
  } else if (is.numeric(pred)) {
    estimate <- pred
  } else {
    cli::cli_abort("{.arg pred} must be a data frame from {.fn predict} or a numeric vector,
                    not {.obj_type_friendly {pred}}.")
  }
  if (!is.numeric(truth)) {
    cli::cli_abort("{.arg truth} must be a numeric vector, not {.obj_type_friendly {truth}}.")
  }
  if (length(truth) != length(estimate)) {
    cli::cli_abort("{.arg truth} has {length(truth)} value{?s} but {.arg pred} has
                    {length(estimate)} prediction{?s}; they must match.")
  }
  keep <- !is.na(truth) & !is.na(estimate)
  dropped <- sum(!keep)
  if (dropped > 0L) {
    cli::cli_inform("Dropped {dropped} row{?s} with a missing {.arg truth} or {.field .pred}.")
  }
  err <- estimate[keep] - truth[keep]
  out <- data.frame(rmse = sqrt(mean(err^2)), mae = mean(abs(err)))
  if (is.data.frame(pred) && all(c(".pred_lower", ".pred_upper") %in% names(pred))) {
    lower <- pred$.pred_lower[keep]
    upper <- pred$.pred_upper[keep]
    y <- truth[keep]
    out$coverage <- mean(y >= lower & y <= upper)
    out$mean_width <- mean(upper - lower)
  }
  out$n <- sum(keep)
  out
}
