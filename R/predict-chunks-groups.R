# predict_chunks() of fits by group (ncam_by(), and calibrate() of them): each chunk's rows
# scored by their group's model as predict() of the fits scores them, the row warnings of every
# group and chunk summed into one of each kind naming the groups, and the rows of no group with
# a model counted over the chunks into one warning. Also which models predict_chunks() reads
# its columns from, and the objects it refuses.

is_chunk_groups <- function(object) inherits(object, c("ncam_by", "ncam_by_calibration"))

# The ncam fits behind `object`: the fit, a calibration's fit, or the fit of each group with a
# model. The first gives what they share (units, the formula's columns).
chunk_fits <- function(object) {
  models <- if (is_chunk_groups(object)) group_models(object)[has_fit(object)] else list(object)
  lapply(models, function(m) if (inherits(m, "ncam_calibration")) m$model else m)
}
chunk_fit <- function(object) chunk_fits(object)[[1]]

# The columns predict() reads as numbers, with the arguments `predict_args`: the sensors, the
# variables of the covariates and, with `use_reference = TRUE`, the reference (of every group).
columns_predict_reads <- function(object, predict_args) {
  unique(unlist(lapply(chunk_fits(object), function(model) {
    c(model$sensors, model_columns(model$terms), if (isTRUE(predict_args$use_reference)) model$reference)
  })))
}

# predict_chunks()'s `object`: a fit, a calibration, or fits by group and their calibration.
check_chunk_object <- function(object, call = parent.frame()) {
  if (inherits(object, "ncam_baseline")) {
    filter <- if (identical(object$method, "kalman")) {
      "The {.val kalman} filter runs through the rows in time order, from one row to the next: chunks scored apart would each start it again. Score each series (station) whole with {.fn predict}, reading its rows with a {.arg reader} or {.fn utils::read.csv}."
    } else {
      "Its estimates take each row's readings alone, without networks to run: read the input in parts that fit in memory and give each to {.fn predict}, such as {.code lapply(files, function(f) predict(fit, utils::read.csv(f)))}."
    }
    ncam_abort(c("{.arg object} is a baseline from {.fn ncam_baseline}: {.fn predict_chunks} scores models of {.fn ncam} and {.fn ncam_by}.",
                 i = filter), call = call)
  }
  if (!inherits(object, c("ncam", "ncam_calibration", "ncam_by", "ncam_by_calibration"))) {
    ncam_abort("{.arg object} must be a model fitted by {.fn ncam} or {.fn ncam_by}, or a calibration of one from {.fn calibrate}, not {.obj_type_friendly {object}}.",
               call = call)
  }
  if (inherits(object, "ncam_by")) check_ncam_by(object, call = call)
  if (inherits(object, "ncam_by_calibration")) check_ncam_by_calibration(object, call = call)
  if (is_chunk_groups(object) && !any(has_fit(object))) {
    ncam_abort("No group of {.arg object} has a model, so there is no model to predict with.", call = call)
  }
  invisible(object)
}

# The `by` columns as a CSV input's reader reads them (see csv_chunks()): as text where the
# fits' keys are text or factors (a key "001" read as the number 1 would be no group's), and as
# the keys' dates or date-times where they are such (`times`: a zero-length key column each).
group_key_columns <- function(object) {
  if (!is_chunk_groups(object)) return(list(text = character(), times = list()))
  by <- attr(object, "by")
  types <- vapply(by, function(col) key_type(object[[col]]), "")
  times <- by[types %in% c("Date", "POSIXct")]
  list(text = by[types %in% c("text", "factor")], times = lapply(stats::setNames(nm = times), function(col) object[[col]][0]))
}

# One chunk (`newdata`, whose row i is the input's row input_rows[i]) of fits by group, within
# with_input_rows(input_rows, ...): predict()'s table of the fits, the score_part() tally of
# every group (and the groups' part of it, add_group_tallies()) and the summed row_flags().
score_groups_chunk <- function(object, newdata, predict_args, threads, input_rows) {
  by <- attr(object, "by")
  check_columns(newdata, by, "object", data_arg = "newdata", call = NULL)
  models <- group_models(object)
  predict_group <- function(g, rows) {
    do.call(stats::predict, c(list(models[[g]], newdata[rows, , drop = FALSE]), predict_args, list(threads = threads)))
  }
  # A calibration too small for the level is said by each group that has rows, naming it.
  template <- suppressWarnings(predict_group(which(has_fit(object))[1], integer(0)), classes = "ncam_warning_small_calibration")
  tally <- part_tally(groups = list(flags = list(), missing = NULL))
  if (nrow(newdata) == 0L) return(list(value = template, beyond = tally, flags = no_row_flags))
  keys <- key_columns(newdata[by], "newdata", call = NULL)
  groups <- key_columns(object[by], "object", call = NULL)
  # Keys of another type than the fits' (a Date given as POSIXct) meet no group: predict()'s error.
  if (length(key_type_hints(groups, keys))) match_groups(object, newdata[by], call = NULL)
  group <- match(key_strings(keys), key_strings(groups))
  group[Reduce(`|`, lapply(keys, is.na))] <- NA_integer_
  failed <- !is.na(group) & !has_fit(object)[group]
  without <- is.na(group) | failed
  if (any(without)) {
    key <- key_strings(keys[without, , drop = FALSE])
    first <- which(without)[!duplicated(key)]
    missing <- as.data.frame(keys[first, , drop = FALSE])
    missing$.rows <- as.vector(table(factor(key, unique(key))))
    missing$.failed <- failed[first]
    tally$groups$missing <- missing
  }
  group[failed] <- NA_integer_
  out <- lapply(template, function(col) col[rep(NA_integer_, nrow(newdata))])  # NA until filled
  labels <- group_labels(object[by])
  flags <- no_row_flags
  for (g in unique(group[!is.na(group)])) {
    rows <- which(group == g)
    part <- with_group_name(score_part(with_input_rows(rows, predict_group(g, rows)), input_rows = input_rows[rows]), labels[g])
    group_flags <- row_flags(part$value, part$beyond)
    tally$groups$flags[[labels[g]]] <- group_flags
    flags <- flags + group_flags
    tally <- add_part_tallies(tally, part$beyond)
    for (col in names(out)) out[[col]][rows] <- part$value[[col]]
  }
  list(value = tibble::new_tibble(out, nrow = nrow(newdata)), beyond = tally, flags = flags)
}

# One warning for the rows of the input of no group with a model (`missing`, of
# add_group_tallies()), as predict() of the fits gives for its rows (match_groups()).
warn_chunk_rows_without_group <- function(object, missing) {
  if (is.null(missing) || nrow(missing) == 0L) return(invisible())
  by <- attr(object, "by")
  keys <- missing[by]
  groups <- key_columns(object[by], "object", call = NULL)
  n_rows <- as_count(sum(missing$.rows))
  unknown <- !missing$.failed
  missing_key <- Reduce(`|`, lapply(keys, is.na))
  n_missing_key <- as_count(sum(missing$.rows[missing_key]))
  cli::cli_warn(c("{n_rows} row{?s} of {.arg input} {cli::qty(n_rows)}belong{?s/} to {nrow(keys)} group{?s} without a model ({shown_labels(keys, beside = groups)}): {cli::qty(n_rows)}{?its prediction is/their predictions are} {.code NA}.",
                  i = if (any(unknown)) "Not a group of {.arg object}: {shown_labels(keys[unknown, , drop = FALSE], beside = groups)}; its groups: {shown_labels(groups, beside = keys)}.",
                  i = if (n_missing_key > 0) "{n_missing_key} of them {cli::qty(n_missing_key)}{?has/have} a missing key, {.code NA}: give {?it its/them their} group, or leave {?it/them} out.",
                  # The pooled fit; the rows are not at hand to name the neighbouring model whose sensors they read.
                  escape_cli(no_model_hint(object, NULL, NULL))),
                class = c("ncam_warning_no_group_model", "ncam_warning"), call = NULL)
}
