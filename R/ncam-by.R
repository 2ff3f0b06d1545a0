# Many independent fits, one per group (a site, a sensor unit), on whatever future plan the
# user set (its helpers in R/future-plan.R).

#' Fit one NCAM per group, in parallel
#'
#' Splits `data` by the `by` columns and fits one [ncam()] model to each group's rows, on
#' the plan set with [future::plan()]: one after the other in this process under the default
#' `plan(sequential)`, on local cores with `plan(multisession)`, on other machines with
#' `plan(cluster)`, on a scheduler with a `future.batchtools` plan. `predict()` and
#' `augment()` route each row of new data to its group's model. The warnings and errors of a
#' group's fit name the group, and the rows they name are rows of `data`, not of the group's
#' share of it.
#'
#' @section Reproducibility: each group's seed is derived from `seed` and the group's key values
#'   alone (with `seed = NULL`, from one number drawn from R's current stream, so [set.seed()]
#'   applies): a group keeps its seed, and so its fit, when other groups are added or removed, and
#'   whether its key column is text, a factor or a number (double, integer or `integer64`) written
#'   the same way, or a date or date-time stored as double or as integer (`data.table::fread()`'s
#'   `IDate`). Each group's fit depends only on its rows and its seed, kept in column `.seed`, never
#'   on the plan, the number of workers or the scheduling, and not on the number of threads (see
#'   [ncam_threads()]): `ncam(formula, data = <the group's rows without the by columns>, seed =
#'   .seed, ...)` reproduces it, as the fit's call says (see Value). The futures also get
#'   parallel-safe random number streams (future.apply's `future.seed`), derived from the same seed.
#'
#' @section Groups without a reference: with `reference`, a group whose reference column holds no
#'   reading (a station without a co-location), or too few, cannot be fitted: `ncam_by()` stops, or
#'   with `errors = "skip"` leaves it without a model, and `predict()` gives its rows `NA`. To
#'   estimate it, fit all groups in one model, `ncam(formula, data, reference = "ref", unit =
#'   "station")`: the groups with reference readings teach it, each gets its own offset, and a
#'   group without them gets the pooled model with the between-unit variance in its intervals (see
#'   `unit` and section Unit offsets in [ncam()]; offsets need reference readings at 3 or more
#'   groups, a pooled fit without `unit` at one). Or predict its rows with a neighbouring group's
#'   model, `predict(fits$fit[[i]], rows)`, choosing one whose sensors they read. Only with two or
#'   more sensors can it be fitted on its own without `reference` (label-free, on the scale of its
#'   anchor sensor). A group with one sensor beside the reference is fitted, but its credible
#'   intervals are not identified: one warning (class `ncam_warning_one_sensor`) names all such groups.
#'
#' @section Workers: under a parallel plan each fit uses 1 thread unless `threads` says
#'   otherwise, so that workers times threads does not oversubscribe the cores. Each worker
#'   receives the rows of its groups only, and must have the same version of ncam installed.
#'   The future.apply package is needed for parallel plans; without it, groups are fitted one
#'   after the other.
#'
#' @param formula,data As for [ncam()]. The `by` columns are constant within a group: `~ .` leaves
#'   them out, and naming one in `formula` is an error. A sensor without any reading in a group (a
#'   station with one of two boxes) is left out of its model, with a message, unless it is the anchor.
#' @param by Names of the columns of `data` that define the groups. A missing value in them is an
#'   error. Numbers are keys by exact value (`0.1 + 0.2` is not `0.3`; `-0` is `0`), 64-bit integers
#'   (bit64's `integer64`, as from `data.table::fread()`) exactly; date-times by instant, so a
#'   `POSIXlt` column groups as the `POSIXct` it denotes and is returned as one. A list column is an
#'   error, and so, with several `by` columns, is text holding a carriage return (`"\r"`, which
#'   joins their keys), here and in the data of `predict()`, `calibrate()` and `sensor_drift()`:
#'   replace the character.
#' @param ... Arguments of [ncam()] (such as `anchor`, `hidden`, `epochs`), the same for every
#'   group; named. A `validation` given as rows of `data` (a logical vector, or row numbers)
#'   gives each group its own rows of it.
#' @param seed `NULL` or a whole number; see Reproducibility.
#' @param threads Threads per fit; see Workers and [ncam_threads()].
#' @param errors `"stop"` (default): a group that cannot be fitted stops the whole call, naming
#'   the group. `"skip"`: such a group keeps `fit = NULL`, one warning names the groups and
#'   their errors, and `predict()` gives `NA` for their rows (with a warning), as for a group
#'   without a model; the other groups' fits are kept.
#' @return A tibble of class `ncam_by` with one row per group, sorted by the `by` columns: those
#'   columns (a `POSIXlt` one as `POSIXct`), `.n` (the group's rows), `.seed` (its seed) and `fit`
#'   (a list of `ncam` models), with attributes `ncam_version` and `object_format` as in [ncam()]. A
#'   group's fit names its rows in its call, as `data` cut to the group (`base::subset(d, site ==
#'   "north", select = <the other columns>)`, each key written so that the call as printed gives it
#'   exactly: `base::as.double("0.30000000000000004")`, `base::as.Date("2024-05-01")`), and finds
#'   them there as a fit of [ncam()] finds its data: `fitted()`, `residuals()`, `augment()` and
#'   `update()` without data, and [calibrate()]'s warning about calibration rows that trained it,
#'   work while `data` is unchanged. With `data` given as a value (`do.call()`) they may not: give
#'   the group's rows as `newdata`, or use `predict(fits, newdata)` for all groups at once.
#' @seealso [calibrate()] of the fits, for conformal intervals by group ([calibrate.ncam_by()]);
#'   [predict_chunks()] of the fits (or of their calibration) for scoring data larger than memory,
#'   each row by its group's model as `predict()` scores it;
#'   [sensor_drift()] to check each group's sensors after the co-location.
#' @examples
#' toy <- simulate_toy(n = 600, seed = 1)
#' toy$site <- rep(c("north", "south"), each = 300)
#' fits <- ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, by = "site",
#'                 hidden = 8, epochs = 300, seed = 1)
#' fits
#' head(predict(fits, toy[c(1, 301, 2), ]))
#' # In parallel: the same fits
#' if (requireNamespace("future.apply", quietly = TRUE)) {
#'   future::plan(future::multisession, workers = 2)
#'   again <- ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, by = "site",
#'                    hidden = 8, epochs = 300, seed = 1)
#'   future::plan(future::sequential)
#'   identical(predict(again, toy), predict(fits, toy))
#' }
#' @export
ncam_by <- function(formula, data, by, ..., seed = NULL, threads = NULL,
                    errors = c("stop", "skip")) {
  check_column_name_args(c("by", "anchor", "reference", "unit"))  # the last three in `...`
  check_data_frame(data, "data")
  errors <- match_choice(errors, c("stop", "skip"), "errors")
  if (!is.character(by) || length(by) == 0L || anyNA(by) || anyDuplicated(by)) {
    ncam_abort("{.arg by} must name one or more distinct columns of {.arg data}.")
  }
  check_columns(data, by, "by")
  if (nrow(data) == 0L) {
    ncam_abort(c("{.arg data} has no rows, so there is no group to fit.",
                 i = "Check the filter or the file that made it."))
  }
  reserved <- intersect(by, c(".n", ".seed", "fit"))
  if (length(reserved)) {
    ncam_abort(c("{.arg by} column {.field {reserved}} has the name of a column of the result ({.field .n}, {.field .seed}, {.field fit}).",
                 i = "Rename it in {.arg data} first."))
  }
  args <- list(...)
  if (length(args) && (is.null(names(args)) || !all(nzchar(names(args))))) {
    ncam_abort("Arguments in {.arg ...} must be named arguments of {.fn ncam}.")
  }
  taken <- intersect(names(args), c("formula", "data"))
  if (length(taken)) ncam_abort("{.arg {taken}} cannot be given in {.arg ...}.")
  if (is.character(args$unit) && any(args$unit %in% by)) {
    ncam_abort(c("{.arg unit} ({.field {args$unit}}) is a {.arg by} column: each group's model would see a single unit.",
                 i = "Give {.arg unit} a column that varies within the groups (sites within a region), or leave it out."))
  }
  unknown <- setdiff(names(args), names(formals(ncam)))
  if (length(unknown)) ncam_abort("{.arg {unknown}} {?is not an argument/are not arguments} of {.fn ncam}.")
  # What does not depend on a group's rows is checked once here, as ncam() checks it, not in
  # every group's fit (where errors = "skip" would skip them all).
  check_fit_formula(formula)
  checked <- check_fit_arguments(args, call = environment())
  # Validation rows given as rows of `data` (a logical vector or row numbers) go to their groups.
  if ("validation" %in% names(args)) check_validation(args$validation, nrow(data))
  validation_rows <- if (is.logical(args$validation)) args$validation else
    if (length(args$validation) > 1L || isTRUE(args$validation >= 1)) seq_len(nrow(data)) %in% args$validation
  in_formula <- intersect(by, all.vars(formula))
  if (length(in_formula)) {
    ncam_abort(c("{.arg formula} names {.arg by} column{?s} {.field {in_formula}}, which {?is/are} constant within each group.",
                 i = "Leave {cli::qty(length(in_formula))}{?it/them} out of {.arg formula}: each group gets its own model."))
  }
  group_columns <- data[0L, !names(data) %in% by, drop = FALSE]  # the columns each fit sees
  sensors <- fit_sensors(formula, group_columns, args$reference)
  # ncam()'s default parameterization is the first.
  parameterization <- if (is.null(checked$parameterization)) parameterizations[1] else checked$parameterization
  resolve_anchor(args$anchor, sensors, parameterization)
  if (!is.null(args$reference)) {
    check_reference(args$reference, group_columns, sensors, args$anchor, parameterization)
  }
  check_formula_terms(formula[[3]])
  if (!"." %in% all.names(formula[[3]])) {
    # Against all of `data`: an object of the formula's environment with one value per row
    # would be cut to no group's rows.
    formula_parameters(stats::delete.response(stats::terms(formula)), data)
  }
  base_seed <- resolve_seed(seed)
  threads <- worker_threads(threads)
  simd <- use_simd()  # chosen here: a multisession worker sees neither options(ncam.simd) nor a later NCAM_SIMD

  groups <- group_rows(data, by)
  seeds <- group_seeds(base_seed, key_strings(groups$keys))
  # What a group's error can advise (a group without reference readings: a pooled fit?).
  context <- list(by = by, formula = formula, data = if (is.symbol(substitute(data))) deparse(substitute(data)) else "data",
                  reference = args$reference,
                  reference_groups = if (!is.null(args$reference)) {
                    sum(vapply(groups$rows, function(rows) any(!is.na(data[[args$reference]][rows])), logical(1)))
                  })
  tasks <- lapply(seq_along(groups$rows), function(k) {
    # Without the `by` columns, constant within the group: `~ .` is then the other columns.
    list(data = data[groups$rows[[k]], !names(data) %in% by, drop = FALSE], seed = seeds[k],
         label = groups$labels[k], validation = validation_rows[groups$rows[[k]]], rows = groups$rows[[k]])
  })
  # Each group's messages (verbose = TRUE) on their own lines, as relayed by future: see
  # with_messages_printed(). The groups with one sensor beside the reference get one warning.
  one_sensor <- list()
  fits <- withCallingHandlers(with_messages_printed(if (requireNamespace("future.apply", quietly = TRUE)) {
    # future.apply can leave the generator switched to L'Ecuyer-CMRG (when there was no
    # .Random.seed yet): the caller's kind and state are put back.
    with_rng_kind(RNGkind(), future.apply::future_lapply(
      tasks, fit_group, formula = formula, args = args, threads = threads, errors = errors,
      simd = simd, context = context, future.seed = base_seed
    ))
  } else {
    lapply(tasks, fit_group, formula = formula, args = args, threads = threads, errors = errors, simd = simd,
           context = context)
  }), ncam_warning_one_sensor = function(w) {
    one_sensor[[length(one_sensor) + 1L]] <<- w
    invokeRestart("muffleWarning")
  })
  warn_one_sensor_groups(one_sensor, groups$labels)
  failed <- vapply(fits, inherits, logical(1), "error")
  if (any(failed)) {
    why <- vapply(fits[failed], function(e) {
      cause <- if (is.null(e$parent)) e else e$parent
      # The headline: cli wraps a message's lines, and its bullets follow the first line break.
      if (inherits(cause, "rlang_error")) rlang::cnd_header(cause) else gsub("\n.*", "", conditionMessage(cause))
    }, "")
    why <- stats::setNames(paste0(groups$labels[failed], ": ", why), rep("*", sum(failed)))
    why <- gsub("([{}])", "\\1\\1", why)
    if (all(failed)) ncam_abort(c("No group could be fitted:", why))
    cli::cli_warn(c("{sum(failed)} of {length(fits)} group{?s} could not be fitted; {cli::qty(sum(failed))}{?its/their} {.field fit} is {.code NULL}:",
                    why), class = c("ncam_warning_group_not_fitted", "ncam_warning"))
    fits[failed] <- list(NULL)
  }
  fits <- name_group_rows(fits, substitute(data), groups$keys, names(group_columns), environment(formula))
  out <- c(as.list(groups$keys), list(.n = lengths(groups$rows), .seed = seeds,
                                      fit = fits))
  do.call(tibble::new_tibble, c(list(out, nrow = length(tasks), by = by, class = "ncam_by"), made_by()))
}

# Worker side: one group's fit; errors and warnings say which group, and number rows as rows of
# ncam_by()'s `data` (task$rows). ncam(seed = .seed) fixes R's generator kind itself, so the fit
# is the same on any worker. With errors = "skip"
# a failed fit returns its error condition, for the main side to report.
fit_group <- function(task, formula, args, threads, errors = "stop", simd = use_simd(), context = list()) {
  if (errors == "skip") {
    return(tryCatch(fit_group(task, formula, args, threads, simd = simd, context = context), error = function(e) e))
  }
  # The group's label for the progress bar of verbose = TRUE.
  options_before <- options(ncam.simd = simd, ncam.training_group = task$label); on.exit(options(options_before))
  if (!is.null(task$validation)) {
    args$validation <- task$validation
    # Rows of `data` chosen for validation may all lie in other groups: this one cannot stop early.
    if (!any(task$validation)) {
      cli::cli_warn("Group {task$label}: none of its rows is among the {.arg validation} rows, so its fit does not stop early.",
                    class = c("ncam_warning_no_validation_rows", "ncam_warning"), call = NULL)
    }
  }
  with_present <- without_absent_sensors(task, formula, args)
  withCallingHandlers(
    with_input_rows(task$rows, do.call(ncam, c(list(formula = with_present$formula, data = with_present$task$data), args,
                                               list(seed = task$seed, threads = threads)))),
    warning = function(w) {
      # The same condition, classes, fields and bullets kept, its headline naming the group:
      # handlers for a class (ncam_warning_not_converged) catch it as from ncam().
      w$message[1] <- paste0("Group ", task$label, ": ", w$message[1])
      w["call"] <- list(NULL)
      w$group <- task$label
      warning(w)
      invokeRestart("muffleWarning")
    },
    error = function(e) {
      ncam_abort("Could not fit group {task$label}.", call = NULL,
                 parent = group_error_hint(e, context, sensor_names(with_present$formula)))
    }
  )
}

#' Predictions and augmented data from fits by group
#'
#' Each row of `newdata` is scored by the model of its group (the `by` columns of
#' [ncam_by()]); the result keeps the rows of `newdata` in order. A group's warnings and
#' errors name it, and the rows they name are rows of `newdata` (as are those of
#' [sensor_drift()] on fits by group).
#'
#' @param object,x A result of [ncam_by()].
#' @param newdata A data frame with the `by` columns and the sensor and covariate columns of
#'   the models.
#' @param ... Arguments of [predict.ncam()], such as `interval` and `level`.
#' @param threads Number of threads; see [ncam_threads()].
#' @return `predict()`: the tibble of [predict.ncam()], one row per row of `newdata`, in
#'   order; rows of a group without a model (a key no group has, a missing key, or a group
#'   that could not be fitted) get `NA`, with a warning naming the groups. When no row has a group, as with a
#'   key column of another type than in the fit (a `Date` given as `POSIXct`), it is an error
#'   naming the groups, the keys and the conversion; so is an `object` with two models for
#'   one group (two results bound together), in every method.
#'   `augment()`: `newdata` with those columns added (in the units of the estimate beside columns
#'   with units, as for [augment.ncam()]). `tidy()` and `glance()`: the `by`
#'   columns followed by [tidy.ncam()]'s rows (one per sensor) or [glance.ncam()]'s row for
#'   each group that has a model, groups in the order of `object` (a group left without one
#'   by `errors = "skip"` has no rows: see [ncam_by()]'s warning for it).
#' @examples
#' toy <- simulate_toy(n = 600, seed = 1)
#' toy$site <- rep(1:2, each = 300)
#' fits <- ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, by = "site",
#'                 hidden = 8, epochs = 600, seed = 1)
#' augment(fits, toy[c(1, 301), ], interval = "credible")
#' glance(fits)
#' tidy(fits)
#' @name ncam_by-predict
NULL

#' @rdname ncam_by-predict
#' @export
predict.ncam_by <- function(object, newdata, ..., threads = NULL) {
  check_ncam_by(object)
  check_augment_newdata(newdata, missing(newdata))
  predict_by_group(object, newdata, ..., threads = threads)
}

#' @rdname ncam_by-predict
#' @export
augment.ncam_by <- function(x, newdata, ...) {
  check_augment_newdata(newdata, missing(newdata))
  bind_predictions(newdata, stats::predict(x, newdata, ...), group_models(x)[[which(has_fit(x))[1]]])
}

#' @rdname ncam_by-predict
#' @export
tidy.ncam_by <- function(x, ...) per_group_table(x, tidy.ncam, ...)

#' @rdname ncam_by-predict
#' @export
glance.ncam_by <- function(x, ...) per_group_table(x, glance.ncam, ...)

# A result of ncam_by() as its methods read it: a data frame with attribute `by` naming its
# key columns and a list column `fit` of ncam models (NULL for a group not fitted). A list
# edited by hand or a damaged file gets this error, not a failure inside a method.
check_ncam_by <- function(object, arg = "object", call = parent.frame()) {
  check_group_table(object, "fit", "ncam", check_object_format, arg, call,
                    what = "a valid result of {.fn ncam_by}",
                    fix = "It needs its {.code by} attribute, those key columns and a list column {.field fit} of {.cls ncam} models: fit it again with {.fn ncam_by}.")
}

# A data frame of groups: attribute `by` naming its key columns, unique keys, and a list column
# `column` of objects of class `class` (NULL for a group without one), each passing `check_each`.
check_group_table <- function(object, column, class, check_each, arg, call, what, fix) {
  check_object_format(object, arg, call)
  by <- attr(object, "by")
  items <- if (is.data.frame(object) && column %in% names(object)) object[[column]]
  ok <- is.character(by) && length(by) > 0L && all(by %in% names(object)) && is.list(items) &&
    all(vapply(items, function(item) is.null(item) || inherits(item, class), logical(1)))
  if (!ok) ncam_abort(c(paste0("{.arg {arg}} is not ", what, "."), i = fix), call = call)
  for (item in items[!vapply(items, is.null, logical(1))]) check_each(item, arg, call)
  check_unique_groups(object, by, arg, call)
  invisible(object)
}
