# What ncam_by() and its predict() say of groups that cannot be fitted as the others are (a
# station without a co-location, or with one box): advice that works for the group at hand.

# An error whose fix for ncam() is to leave a column out of the formula or out of `reference`
# (its fields `leave_out` and `leave_out_of`): under ncam_by() that would drop the column for
# every group, where one group lacks it. `context` (from ncam_by()): the `by` columns, the
# formula, the name of `data`, the reference and how many groups read it; `sensors`: those of
# the group's model, the ones it reads. An error's field `kept_hint` is advice that holds under
# ncam_by() too, kept before the hint for a group without reference readings.
group_error_hint <- function(e, context = list(), sensors = character()) {
  if (is.null(e$leave_out)) return(e)
  skip <- "give {.code errors = \"skip\"} to fit the other groups"
  e$body <- if (identical(e$leave_out_of, "reference")) {
    c(e$kept_hint, no_reference_hint(e$leave_out, context, sensors))
  } else if (e$leave_out %in% sensors && length(sensors) == 2L && is.null(context$reference)) {
    c(i = cli::format_inline("Leaving {.field {e$leave_out}} out of {.arg formula} would drop it for every group, and this group would keep one sensor, {.field {setdiff(sensors, e$leave_out)}}, which needs a reference: ", skip, "."))
  } else {
    c(i = cli::format_inline("Leaving {.field {e$leave_out}} out of {.arg formula} would drop it for every group: ", skip, ", and fit this group on its own with {.fn ncam} and a formula without {.field {e$leave_out}}."))
  }
  e
}

# A group with no reference reading, or too few, beside groups that have them: one model of all
# groups (with unit offsets when 3 or more groups read the reference), another group's model, or,
# with two sensors or more, a label-free fit of its own.
no_reference_hint <- function(reference, context, sensors) {
  with_reference <- if (is.null(context$reference_groups)) 0L else context$reference_groups
  by <- context$by
  pooled <- NULL
  if (with_reference > 0L && !is.null(context$formula)) {
    formula <- context$formula
    # `~ .` would take the group columns as covariates.
    if ("." %in% all.names(formula[[3]])) formula[[3]] <- str2lang(paste(c(deparse(formula[[3]]), by), collapse = " - "))
    unit <- if (with_reference < min_offset_units) "" else
      sprintf(", unit = %s", if (length(by) == 1L) encodeString(by, quote = "\"") else "<a column naming the groups>")
    pooled <- sprintf("ncam(%s, data = %s, reference = %s%s)", paste(deparse(formula, width.cutoff = 500L), collapse = " "),
                      context$data, encodeString(reference, quote = "\""), unit)
  }
  alone <- if (length(sensors) >= 2L) {
    "fit this group on its own with {.fn ncam} without {.arg reference} (label-free, on the scale of its anchor sensor)"
  } else if (with_reference > 0L) {
    "predict its rows with the model of a neighbouring group, {.code predict(fits$fit[[i]], newdata = <its rows>)}: with one sensor ({.field {sensors}}) it cannot be fitted without a reference"
  }
  c(i = cli::format_inline("Leaving out {.arg reference} would drop {.field {reference}} for every group."),
    i = if (!is.null(pooled)) cli::format_inline("Fit all groups in one model, {.code {pooled}}: ", if (nzchar(unit)) {
      "a group without reference readings gets the pooled model and the between-unit variance in its intervals (see {.arg unit} in {.fn ncam})."
    } else "the groups with reference readings teach it ({.arg unit} offsets need them at {min_offset_units} or more groups; {with_reference} {?has/have} them)."),
    i = if (!is.null(alone)) cli::format_inline(if (is.null(pooled)) "Give" else "Or give", " {.code errors = \"skip\"} to fit the other groups, and ", alone, "."),
    i = if (is.null(alone)) cli::format_inline("With one sensor ({.field {sensors}}) and no group with reference readings, there is nothing to calibrate it by: check the join that brought in {.field {reference}}."))
}

# One warning for the groups whose model has one sensor beside the reference (each group's
# ncam_warning_one_sensor, `warnings`, gathered by ncam_by()), naming them and their sensor, in
# the order of the groups (`labels`).
warn_one_sensor_groups <- function(warnings, labels) {
  if (!length(warnings)) return(invisible())
  groups <- vapply(warnings, function(w) w$group, "")
  sensors <- vapply(warnings, function(w) w$sensors[1], "")
  order <- order(match(groups, labels))
  groups <- groups[order]
  sensors <- sensors[order]
  n <- length(groups)
  shown <- utils::head(seq_len(n), 5L)
  more <- n - length(shown)
  bullets <- c(escape_cli(sprintf("Group %s: %s", groups[shown], sensors[shown])),
               if (more > 0L) cli::pluralize("and {more} more group{?s}"))
  cli::cli_warn(c("{n} group{?s} {?has/have} one low-cost sensor beside the reference: the data cannot tell the reference's own noise from the spread of the true value, so intervals for the true value ({.code interval = \"credible\"}) are not identified in {?its/their} model{?s}.",
                  stats::setNames(bullets, rep("*", length(bullets))),
                  i = one_sensor_hint),
                class = c("ncam_warning_one_sensor", "ncam_warning_two_sensors", "ncam_warning"), call = NULL,
                groups = groups, sensors = sensors)
}

# For the rows of `newdata` (`missing`) of groups without a model, in predict() of reference
# fits by group: one model of all groups, or the model of the group whose sensors those rows
# read most.
no_model_hint <- function(object, newdata, missing) {
  if (inherits(object, "ncam_by_calibration")) return(NULL)
  fitted <- which(has_fit(object))
  models <- object$fit[fitted]
  reference <- models[[1]]$reference
  if (is.null(reference)) return(NULL)
  by <- attr(object, "by")
  sensors <- intersect(unique(unlist(lapply(models, `[[`, "sensors"))), names(newdata))
  read <- sensors[vapply(sensors, function(s) any(!is.na(newdata[[s]][missing])), logical(1))]
  unit <- if (length(fitted) < min_offset_units) "" else
    sprintf(", unit = %s", if (length(by) == 1L) encodeString(by, quote = "\"") else "<a column naming the groups>")
  pooled <- sprintf("ncam(formula, data, reference = %s%s)", encodeString(reference, quote = "\""), unit)
  shared <- vapply(models, function(m) length(intersect(m$sensors, read)), 1)
  best <- fitted[which.max(shared)]
  neighbour <- sprintf("predict(object$fit[[%d]], newdata[rows, ])", best)
  c(i = cli::format_inline("For a group without reference readings, fit all groups in one model, {.code {pooled}}", if (nzchar(unit)) {
      ", which gives it the pooled model and the between-unit variance in its intervals (see {.arg unit} in {.fn ncam})."
    } else "."),
    i = if (any(shared > 0)) cli::format_inline("Or predict its rows with a neighbouring group's model, such as that of {group_labels(object[best, by, drop = FALSE])}, whose sensors they read: {.code {neighbour}}."))
}

# Text already formatted by cli (named bullets) given to cli again: its braces kept as text.
escape_cli <- function(text) if (is.null(text)) text else stats::setNames(gsub("([{}])", "\\1\\1", text), names(text))
