# sensor_params() of fits by group (the generic and the method for one fit are in R/predict.R):
# each row of newdata evaluated by its group's model, as predict() scores it, in one table
# behind the group's key columns.

#' @section Fits by group: For fits by group from [ncam_by()], each row of `newdata` (required,
#'   with the `by` columns) is evaluated by its group's model, as [predict.ncam_by()] scores it:
#'   the result has the `by` columns first (the row's keys as `newdata` gives them), then the
#'   columns above, one row per row of `newdata` and sensor, in the order a single fit gives
#'   them: the sensors in the order of the models (the first fitted group's, then any that only
#'   later groups have), and within each sensor the rows of `newdata` in order, `.row` numbering
#'   them. Rows of a group without a model (a key no group has, a missing key, or a group that
#'   could not be fitted) get `NA`, with warning `ncam_warning_no_group_model` naming the groups,
#'   as do the rows of a sensor that their group's model was fitted without (see [ncam_by()]),
#'   without a warning. A group's warnings name it, and the rows they name are rows of `newdata`.
#' @param object A model fitted by [ncam()], or fits by group from [ncam_by()] (see Fits by group).
#' @examples
#' # Fits by group: each row by its group's model, behind its key
#' sites <- simulate_toy(n = 600, seed = 2)
#' sites$site <- rep(c("north", "south"), each = 300)
#' fits <- ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = sites, by = "site", hidden = 8,
#'                 epochs = 300, learn_rate = 0.02, seed = 1, threads = 1)
#' sensor_params(fits, sites[c(1, 301), ])
#' @rdname sensor_params
#' @export
sensor_params.ncam_by <- function(object, newdata, threads = NULL, ...) {
  check_dots_empty_hinted()
  check_ncam_by(object)
  if (missing(newdata)) {
    ncam_abort(c("{.arg newdata} is required for fits by group.",
                 i = "Give the rows to evaluate with their {.field {attr(object, 'by')}} column{?s}, such as the data given to {.fn ncam_by}."))
  }
  check_data_frame(newdata, "newdata")
  by <- attr(object, "by")
  check_columns(newdata, by, "object", data_arg = "newdata")
  clash <- intersect(by, c(".row", "sensor", "a", "c", "sigma"))
  if (length(clash)) {
    ncam_abort(c("The key column {.val {clash}} of {.arg object} has the name of a column of the result.",
                 i = "Rename it in the data and fit again, or use {.code sensor_params(object$fit[[i]], newdata)} group by group."))
  }
  fitted <- which(has_fit(object))
  if (!length(fitted)) {
    ncam_abort(c("No group of {.arg object} has a model, so there are no sensor models to evaluate.",
                 i = if (nrow(object) > 0L) "{.fn ncam_by} with {.code errors = \"skip\"} warned why each group could not be fitted."))
  }
  sensors <- unique(unlist(lapply(object$fit[fitted], model_sensors)))
  n <- nrow(newdata)
  group <- if (n) {
    match_groups(object, newdata[by], outcome = "{cli::qty(n_rows)}{?its/their} gains, offsets and noise are {.code NA}")
  } else integer(0)
  unset <- function() matrix(NA_real_, n, length(sensors), dimnames = list(NULL, sensors))
  params <- list(a = unset(), c = unset(), sigma = unset())
  labels <- group_labels(object[by])
  for (g in unique(group[!is.na(group)])) {
    rows <- which(group == g)
    # Warnings name the group, and rows of newdata, not of the group's share.
    part <- with_group_name(with_input_rows(rows, sensor_params(object$fit[[g]], newdata[rows, , drop = FALSE],
                                                                threads = threads)), labels[g])
    at <- cbind(rows[part$.row], match(part$sensor, sensors))
    for (p in names(params)) params[[p]][at] <- part[[p]]
  }
  each <- rep(seq_len(n), times = length(sensors))
  keys <- lapply(newdata[by], function(col) col[each])
  tibble::new_tibble(c(keys, list(.row = each, sensor = rep(sensors, each = n)), lapply(params, as.vector)),
                     nrow = length(each))
}
