# Reading and covariate columns with units (units package): the one unit ncam() fuses the
# readings in, and new data converted to the units of the fit.

# Columns with units (units package). A fit records the units of the columns it read (NULL when
# none has any); predict() converts a newdata column given in other units (K for a fit in
# degrees C) and refuses units it cannot convert. A plain number is taken as in the fit's units,
# except in a column the fit converted (attribute "given", from common_reading_units(): the
# units it was given in), where it could mean either.
column_units <- function(data, cols) {
  with_units <- Filter(function(v) inherits(data[[v]], "units"), cols)
  if (!length(with_units)) return(NULL)
  out <- vapply(stats::setNames(nm = with_units), function(v) unit_text(data[[v]]), character(1))
  given <- attr(data, "units_given")
  given <- given[intersect(names(given), cols)]
  if (length(given)) attr(out, "given") <- given
  out
}

# A column's units as set_units() reads them back ("ug/m3"; deparse_unit()'s "ug m3-1" is not).
unit_text <- function(col) {
  check_suggested("units", "to read columns with units.")
  loadNamespace("units")  # units() dispatches to the package's method
  as.character(units(col))
}

# `unread` names columns the caller does not read (the model's reference, which the estimate
# leaves out unless asked): they are left as given, as their units cannot make an answer wrong.
match_units <- function(object, newdata, call = parent.frame(), unread = NULL) {
  fitted <- object$units
  # A column the model read as plain numbers, now with units: their units in training are not
  # known, so neither is the conversion (mg/m3 for ug/m3 would be 1000 times off).
  read <- if (is.list(object$data_check) && is.matrix(object$data_check$sums)) colnames(object$data_check$sums) else
    c(object$sensors, object$reference)
  plain <- setdiff(intersect(read, names(newdata)), c(names(fitted), unread))
  now_with_units <- Filter(function(v) inherits(newdata[[v]], "units"), plain)
  if (length(now_with_units)) {
    v <- now_with_units[1]
    ncam_abort(c("Column {.field {v}} of {.arg newdata} is in {.val {unit_text(newdata[[v]])}}, but the model was fitted to plain numbers in it, whose units it does not know.",
                 i = "Give {.field {v}} as plain numbers in the units of the training data (such as with {.fn units::drop_units} after converting), or fit with units columns."),
               call = call)
  }
  refuse_plain_converted(object, newdata, unread, call)
  for (v in setdiff(intersect(names(fitted), names(newdata)), unread)) {
    col <- newdata[[v]]
    if (!inherits(col, "units")) next
    given <- unit_text(col)
    if (identical(given, fitted[[v]])) next
    newdata[[v]] <- convert_units(col, fitted[[v]], c(
      "Column {.field {v}} of {.arg newdata} is in {.val {given}}, which cannot be converted to {.val {fitted[[v]]}}, its units in training.",
      i = "Give {.field {v}} in {.val {fitted[[v]]}} or units convertible to it."), call)
  }
  newdata
}

# The columns of `data` that the fit converted (opc given in mg/m3, fused in ug/m3) and that hold
# plain numbers, which could be in the units it was given in or in those it was fused in. None
# of no rows: they hold no number to misread (predict_chunks() scores a header as no rows).
plain_converted_columns <- function(object, data) {
  if (nrow(data) == 0L) return(character())
  given <- attr(object$units, "given")
  Filter(function(v) !inherits(data[[v]], "units"), intersect(names(given), names(data)))
}

# Plain numbers in a column the fit converted could mean either unit (mg/m3 and ug/m3 are 1000
# times apart): an error, not a guess, unless the caller does not read the column (`unread`).
refuse_plain_converted <- function(object, newdata, unread, call) {
  plain <- setdiff(plain_converted_columns(object, newdata), unread)
  if (!length(plain)) return(invisible())
  v <- plain[1]
  given <- attr(object$units, "given")
  fitted <- object$units
  ncam_abort(c("Column {.field {v}} of {.arg newdata} has no units, and the model was fitted to it in {.val {given[[v]]}}, converted to {.val {fitted[[v]]}}: plain numbers could be in either.",
               i = "Give {.field {v}} its units, such as with {.code units::set_units(newdata${v}, \"{given[[v]]}\", mode = \"standard\")}."),
             call = call)
}

# The reading columns (sensors and reference) of `data` that carry units, converted to one unit:
# that of the anchor (else the first sensor) when it has units, else of the first sensor (then
# the reference) that has: the sensors' unit, in which plain numbers of new data are then read.
# Readings in units that cannot be converted to it (ppb beside ug/m3) are an error: fused as they
# are, they would be wrong by the conversion factor. So are plain reading columns beside readings
# whose numbers a conversion changes: the plain ones' unit cannot be known, and taken to be the
# new unit, they no longer match the readings they were given beside. Beside columns all in one
# unit, plain ones are taken to be in it (the fit is that of the plain numbers), with a warning
# (see warn_readings_without_units()). The returned data's attribute "units_given" keeps the
# units of the columns converted.
common_reading_units <- function(data, sensors, anchor = NULL, reference = NULL, call = parent.frame()) {
  columns <- c(sensors, reference)
  with_units <- Filter(function(v) inherits(data[[v]], "units"), columns)
  if (!length(with_units)) return(data)
  target <- if (is.null(anchor)) sensors[1] else anchor
  goal_column <- if (is.character(target) && length(target) == 1L && target %in% with_units) target else with_units[1]
  goal <- unit_text(data[[goal_column]])
  given <- vapply(stats::setNames(nm = setdiff(with_units, goal_column)), function(v) unit_text(data[[v]]), character(1))
  for (v in names(given)[given != goal]) {
    data[[v]] <- convert_units(data[[v]], goal, c(
      "Column {.field {v}} is in {.val {given[[v]]}}, which cannot be converted to {.val {goal}}, the units of {.field {goal_column}}: the sensors must measure one quantity.",
      i = "Fuse only sensors of the same quantity, or give {.field {v}} in units convertible to {.val {goal}}."), call)
  }
  # A change of spelling ("ug/m^3" to "ug/m3") leaves the numbers, and plain ones, as they are.
  converted <- given[given != goal & !vapply(given, same_scale, logical(1), goal)]
  plain <- setdiff(columns, with_units)
  if (length(converted) && length(plain)) refuse_readings_without_units(plain, converted, goal, goal_column, call)
  if (length(converted)) {
    shown <- paste0(names(converted), " (", converted, ")")
    cli::cli_inform("Readings converted to {.val {goal}}, the units of {.field {goal_column}}: {shown}.")
    attr(data, "units_given") <- converted
  }
  # The estimates are on the scale of the reference, else of the anchor, else of all sensors.
  on_scale <- if (!is.null(reference)) reference else if (!is.null(anchor)) anchor else sensors
  warn_readings_without_units(plain, with_units, goal, on_scale, call)
  data
}

# Whether numbers in `from` are the same numbers in `to` (a change of spelling, not of scale).
same_scale <- function(from, to) {
  ones <- units::set_units(units::set_units(c(1, 2), from, mode = "standard"), to, mode = "standard")
  isTRUE(all.equal(as.numeric(ones), c(1, 2)))
}

refuse_readings_without_units <- function(plain, converted, goal, goal_column, call) {
  shown <- paste0(names(converted), " (", converted, ")")
  ncam_abort(c("{cli::qty(length(plain))}Reading column{?s} {.field {plain}} of {.arg data} {?has/have} no units, beside readings converted to {.val {goal}} (the units of {.field {goal_column}}) from other units: {shown}.",
               x = "{cli::qty(length(plain))}The unit of {?its/their} numbers is not known, so neither is whether {?it matches/they match} the converted readings.",
               i = "{cli::qty(length(plain))}Give {?it/them} the units {?it is/they are} in (with {.fn units::set_units}), or convert every reading column to one unit yourself and give none of them units (with {.fn units::drop_units})."),
             call = call)
}

# Plain reading columns beside columns with units (`with_units`) all in one unit, `goal`, are
# taken to be in it, as fit$units and print() then say. Wrong where their numbers are in another
# unit: on a plain column's scale the estimates are off by the conversion factor; beside a
# reference with units in mg/m3, plain sensors in ug/m3 fit with gains near 1000 (the estimates,
# on the reference's scale, stay right, but the unit said for the readings is wrong). The fix is
# the same either way, one rule for every reading column, so any plain one beside units warns.
warn_readings_without_units <- function(plain, with_units, goal, on_scale, call) {
  if (!length(plain)) return(invisible())
  effect <- if (any(on_scale %in% plain)) "the estimates are off by the conversion factor" else
    "their gains and offsets take up the conversion factor, and {.code fit$units} and {.fn print} give the wrong unit for {?its/their} readings"
  cli::cli_warn(c("{cli::qty(length(plain))}Reading column{?s} {.field {plain}} {?has/have} no units, beside {.field {with_units}} with units: {cli::qty(length(plain))}{?it is/they are} taken to be in {.val {goal}}, the unit the estimates are given in.",
                  i = paste0("{cli::qty(length(plain))}If {?it is/they are} in another unit, ", effect, "."),
                  i = "Give every reading column its units (with {.fn units::set_units}), or none (with {.fn units::drop_units})."),
                class = c("ncam_warning_readings_without_units", "ncam_warning"), call = call,
                columns = plain, assumed = goal)
}

# A units column in `goal`, or the error `message` (cli text, glued in the caller's frame) for
# units that cannot be converted to it.
convert_units <- function(x, goal, message, call, env = parent.frame()) {
  tryCatch(units::set_units(x, goal, mode = "standard"),
           error = function(e) ncam_abort(message, call = call, .envir = env))
}

# print()'s account of the readings' units (the text after "Units: "), NULL for a fit to plain
# numbers: the one unit of the readings and estimates, and each reading column given otherwise,
# converted from another unit or plain numbers taken to be in it (as ncam() said when fitting).
# Reading columns of a fit in several units (none of ncam()'s own) are named each with its unit.
reading_units_text <- function(x) {
  readings <- c(x$sensors, x$reference)
  units <- x$units[intersect(readings, names(x$units))]
  if (!length(units)) return(NULL)
  # An unanchored fit's latent value is on no reading's scale.
  estimates <- if (!identical(x$parameterization, "unanchored")) estimate_unit(x)
  if (length(unique(units)) > 1L) {
    each <- paste0(names(units), " ", encodeString(units, quote = "\""), collapse = ", ")
    estimates_txt <- if (!is.null(estimates)) cli::format_inline("; estimates in {.val {estimates}}") else ""
    return(cli::format_inline("the reading columns differ ({each}){estimates_txt}"))
  }
  goal <- unname(units[1])
  given <- attr(x$units, "given")
  given <- given[intersect(names(given), readings)]
  plain <- setdiff(readings, names(units))
  own <- c(
    if (length(given)) paste(names(given), "converted from", encodeString(given, quote = "\"")),
    if (length(plain)) cli::format_inline("{plain} without units, taken to be in it")
  )
  paste0(cli::format_inline("readings{if (is.null(estimates)) '' else ' and estimates'} in {.val {goal}}"),
         if (length(own)) paste0(" (", paste(own, collapse = "; "), ")"))
}
