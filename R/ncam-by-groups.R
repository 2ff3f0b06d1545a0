# The groups of ncam_by(): each group's rows, label and seed, the rows of new data matched
# to the groups by their keys, and the methods of one model asked of the table of groups.

# One seed per group from the base seed and the group's key string alone. R's generator,
# seeded with a polynomial hash of both, spreads neighbouring keys ("site 1", "site 2") apart.
group_seeds <- function(base_seed, keys) {
  vapply(keys, function(key) {
    hash <- base_seed
    for (byte in as.integer(charToRaw(enc2utf8(key)))) hash <- (hash * 131 + byte) %% 2147483647
    with_local_seed(hash, sample.int(.Machine$integer.max, 1L))
  }, integer(1), USE.NAMES = FALSE)
}

# A sensor of the formula without a single reading in a group (a station with one of two
# boxes) would stop that group's fit. The group is fitted without it, with a message, unless it
# is the anchor, which sets the scale of the group's estimates (the error then stands), or the
# fit is not anchored. The column leaves the group's data too, so that `~ .` does not take it
# as a covariate.
without_absent_sensors <- function(task, formula, args) {
  parameterization <- if (is.null(args$parameterization)) parameterizations[1] else args$parameterization
  if (parameterization != "anchored") return(list(task = task, formula = formula))
  sensors <- sensor_names(formula)
  anchor <- if (is.null(args$reference)) resolve_anchor(args$anchor, sensors, parameterization)
  absent <- setdiff(sensors[vapply(sensors, function(s) all(is.na(task$data[[s]])), logical(1))], anchor)
  if (!length(absent)) return(list(task = task, formula = formula))
  kept <- setdiff(sensors, absent)
  formula[[2]] <- str2lang(paste(sprintf("`%s`", kept), collapse = " + "))
  task$data <- task$data[setdiff(names(task$data), absent)]
  cli::cli_inform("Group {task$label}: {.field {absent}} {?has/have} no reading in this group; its model is fitted without {?it/them}.",
                  class = "ncam_message_sensor_left_out")
  list(task = task, formula = formula)
}

# Rows of each group, groups sorted by their keys: list(keys (a data frame, one row per
# group), rows (a list of row numbers), labels ("site = 3, unit = a")).
group_rows <- function(data, by, call = parent.frame()) {
  keys <- key_columns(data[by], "data", call)
  for (col in by) {
    bad <- which(is.na(keys[[col]]))
    if (length(bad)) {
      ncam_abort(c("Group column {.field {col}} of {.arg data} is missing in {cli::qty(length(bad))}row{?s} {utils::head(bad, 5)}{if (length(bad) > 5) ', ...' else ''}.",
                   i = "Drop those rows or give them a group."), call = call)
    }
  }
  key <- key_strings(keys)
  first <- which(!duplicated(key))
  sortable <- lapply(keys[first, , drop = FALSE], function(v) {
    # order() would sort integer64 by its bits (negative after positive): its ranks by value.
    if (inherits(v, "integer64")) bit64::rank.integer64(v) else v
  })
  first <- first[do.call(order, c(unname(sortable), method = "radix"))]
  rows <- split(seq_len(nrow(data)), factor(key, levels = key[first]))
  group_keys <- keys[first, , drop = FALSE]
  list(keys = tibble::new_tibble(as.list(group_keys), nrow = length(first)), rows = unname(rows),
       labels = group_labels(group_keys))
}

# A group key on more than one row (such as from binding two results of ncam_by() for the
# same groups) is an error: predict() would use the first row's model and ignore the others.
check_unique_groups <- function(object, by, arg, call) {
  keys <- key_columns(object[by], arg, call)
  repeated <- duplicated(key_strings(keys))
  if (any(repeated)) {
    keep <- sprintf("%s[!duplicated(%s[c(%s)]), ]", arg, arg, toString(encodeString(by, quote = "\"")))
    ncam_abort(c("{.arg {arg}} has more than one model for {cli::qty(sum(repeated))}{?a group/some groups}: {shown_labels(keys[repeated, , drop = FALSE])}.",
                 i = "A table of {.fn ncam_by} needs one model per group. Keep one fit per group, such as the first with {.code {keep}}, or fit the groups again with {.fn ncam_by}."),
               call = call)
  }
}

# The models of a table by group: its fits, or for a calibration its calibrations.
group_models <- function(x) if (inherits(x, "ncam_by_calibration")) x$calibration else x$fit

# Which groups have a model (with errors = "skip", a group that failed has fit = NULL).
has_fit <- function(x) !vapply(group_models(x), is.null, logical(1))

# "site = 3, unit = a" for each row of the key columns. Plain numbers as number_labels() writes
# them beside the same column of `beside` (keys shown with them, such as the groups of a fit);
# text as it is, but quoted where it would read as a missing key or as quoted text, so that the
# text "NA" is not taken for NA.
group_labels <- function(keys, beside = NULL) {
  label_rows(lapply(stats::setNames(nm = names(keys)), function(col) {
    v <- keys[[col]]
    if (is_plain_double(v)) return(number_labels(v, if (is_plain_double(beside[[col]])) beside[[col]]))
    if (!is.character(v) && !is.factor(v)) return(v)
    text <- as.character(v)
    quoted <- which(text == "NA" | startsWith(text, "\""))
    text[quoted] <- encodeString(text[quoted], quote = "\"")
    text
  }))
}

label_rows <- function(written) {
  do.call(paste, c(lapply(names(written), function(col) paste(col, "=", written[[col]])), sep = ", "))
}

# Plain numbers as R prints them (15 significant digits) and, where that writes different numbers
# of `x` and `beside` alike (0.3 and 0.1 + 0.2, both "0.3"), those numbers with the fewest digits
# that read back as each ("0.3" and "0.30000000000000004"), so that different keys read apart.
number_labels <- function(x, beside = NULL) {
  text <- as.character(x)
  clash <- text %in% clashing_number_text(c(x, beside))
  for (digits in 16:17) {
    redo <- which(clash & as.numeric(text) != x)
    text[redo] <- sprintf("%.*g", digits, x[redo])
  }
  text
}

# The texts of 15 significant digits that different numbers of `x` share.
clashing_number_text <- function(x) {
  text <- as.character(unique(x[!is.na(x)]))
  unique(text[duplicated(text)])
}

# Key columns as they are compared: a POSIXlt as the POSIXct instants it denotes (keyed by its
# text, it would meet no POSIXct key); integer64 only with bit64 loaded, whose methods read the
# values rather than the bits.
key_columns <- function(keys, arg, call = parent.frame()) {
  for (col in names(keys)) {
    if (is_list_column(keys[[col]]) || length(dim(keys[[col]])) > 1L) {
      kind <- if (is_list_column(keys[[col]])) "a list column" else "a matrix or data frame column"
      ncam_abort(c("{.arg by} column {.field {col}} of {.arg {arg}} is {kind}: a group key needs one value per row.",
                   i = "Make it a plain column first, such as with {.code unlist()}."), call = call)
    }
    if (inherits(keys[[col]], "POSIXlt")) keys[[col]] <- as.POSIXct(keys[[col]])
    # -0 equals 0 but is written "-0": made 0, so that both are one group. Not integer64, whose
    # NA has the bits of -0.
    if (typeof(keys[[col]]) == "double" && !inherits(keys[[col]], "integer64")) {
      plain <- unclass(keys[[col]])
      plain[which(plain == 0)] <- 0
      attributes(plain) <- attributes(keys[[col]])
      keys[[col]] <- plain
    }
    if (inherits(keys[[col]], "integer64") && !requireNamespace("bit64", quietly = TRUE)) {
      ncam_abort(c("Group column {.field {col}} of {.arg {arg}} is an {.cls integer64} column but package {.pkg bit64} is not installed.",
                   i = "Install {.pkg bit64}: without it, R reads the column's bits, not its values."),
                 call = call)
    }
  }
  refuse_key_separator(keys, arg, call)
  keys
}

# key_strings() joins the keys of several columns with "\r": text holding it would make two keys
# one string (("a\rb", "c") and ("a", "b\rc")), so two groups one, silently. An error instead of
# another separator, which would change every key string and with it the seed of every group.
refuse_key_separator <- function(keys, arg, call) {
  if (length(keys) < 2L) return(invisible())
  for (col in names(keys)) {
    v <- keys[[col]]
    if (!is.factor(v) && typeof(v) %in% c("double", "integer", "logical")) next  # written without it
    bad <- which(grepl("\r", as.character(v), fixed = TRUE))
    if (!length(bad)) next
    shown <- paste0(toString(utils::head(bad, 5)), if (length(bad) > 5) ", ...")
    fix <- sprintf("%s$%s <- gsub(\"\\r\", \" \", %s$%s, fixed = TRUE)", arg, col, arg, col)
    ncam_abort(c("Group column {.field {col}} of {.arg {arg}} holds a carriage return ({.code \\r}) in {length(bad)} row{?s} ({shown}).",
                 x = "The keys of several {.arg by} columns are joined by that character: keys {.code (\"a\\rb\", \"c\")} and {.code (\"a\", \"b\\rc\")} would be one group.",
                 i = "Replace the character in {.field {col}}, such as with {.code {fix}}, in the data of the fits and in new data alike."),
               call = call)
  }
}

# One string per row of the key columns (from key_columns()), equal exactly when all keys are
# equal. Numbers are written by value, so a number, an integer and an integer64 of one value
# share their string (and seed), as does the same number written as text. A Date or POSIXct
# is its number of days or seconds whether stored as double or integer (data.table's IDate):
# as.character() would write an integer one as text, which no double one's string equals.
key_strings <- function(keys) {
  parts <- lapply(keys, function(v) {
    if (inherits(v, "integer64")) return(integer64_key_strings(v))
    if (is.integer(v) && !is.factor(v)) v <- as.double(unclass(v))
    if (is.double(v)) sprintf("%.17g", v) else as.character(v)
  })
  do.call(paste, c(unname(parts), sep = "\r"))
}

# 64-bit integers as a double of the same value is written, when a double holds that value
# exactly; otherwise (beyond 2^53) as their exact digits, which no double's string equals.
integer64_key_strings <- function(v) {
  digits <- as.character(v)
  as_double <- suppressWarnings(as.double(v))  # precision lost beyond 2^53: checked next
  exact <- !is.na(as_double) & sprintf("%.0f", as_double) == digits
  ifelse(exact, sprintf("%.17g", as_double), digits)
}

# The group in `object` of each row of `keys` (the key columns of newdata, or of `arg`), NA for
# a row without a model: its key is no group's, or its group could not be fitted (errors =
# "skip"), with one warning naming them and saying what becomes of them (`outcome`). A key
# matches only a key of the same type: a Date given as POSIXct never does. No row in any group is
# an error, most likely the wrong column or type. With `keep_failed`, a row of a group that could
# not be fitted keeps that group (still warned about). `hint(rows)`, for the rows without a model
# (a logical vector), gives bullets saying what else estimates them.
match_groups <- function(object, keys, arg = "newdata", outcome = "{cli::qty(n_rows)}{?its/their} predictions are {.code NA}",
                         keep_failed = FALSE, hint = function(rows) NULL, call = parent.frame()) {
  keys <- key_columns(keys, arg, call)
  groups <- key_columns(object[names(keys)], "object", call)
  group <- match(key_strings(keys), key_strings(groups))
  # A missing key is written "NA", as is the text "NA": such a row has no group.
  missing_key <- Reduce(`|`, lapply(keys, is.na))
  group[missing_key] <- NA_integer_
  type_hints <- key_type_hints(groups, keys, arg)
  # A Date is a number of days underneath: the number 18993 would find the group of 2022-01-01.
  if (length(type_hints)) group[] <- NA_integer_
  print_alike <- any(vapply(names(keys), function(col) is_plain_double(keys[[col]]) && is_plain_double(groups[[col]]) &&
                              length(clashing_number_text(c(keys[[col]], groups[[col]]))) > 0L, logical(1)))
  fitted_data <- if (arg == "data") "the data of the fits" else "{.arg data}"
  exact_hint <- if (print_alike) c(i = paste0("Number keys match exactly, to all 17 significant digits: round them the same way in ", fitted_data, " and {.arg {arg}}."))
  unknown <- is.na(group)
  if (all(unknown)) {
    ncam_abort(c("No row of {.arg {arg}} belongs to a group of {.arg object}.",
                 x = "Keys in {.arg {arg}}: {shown_labels(keys, beside = groups)}.",
                 i = "Groups of {.arg object}: {shown_labels(groups, beside = keys)}.",
                 i = if (any(missing_key)) "{sum(missing_key)} row{?s} {?has a/have a} missing key, {.code NA}: give {?it its/them their} group.",
                 type_hints, exact_hint,
                 if (!length(type_hints) && is.null(exact_hint) && !any(missing_key)) escape_cli(hint(unknown))), call = call)
  }
  failed <- !unknown & !has_fit(object)[group]
  missing <- unknown | failed
  if (any(missing)) {
    n_rows <- sum(missing)
    n_groups <- length(unique(key_strings(keys[missing, , drop = FALSE])))
    cli::cli_warn(c(paste0("{n_rows} row{?s} of {.arg {arg}} {cli::qty(n_rows)}belong{?s/} to {n_groups} group{?s} without a model ({shown_labels(keys[missing, , drop = FALSE], beside = groups)}): ", outcome, "."),
                    i = if (any(unknown)) "Not a group of {.arg object}: {shown_labels(keys[unknown, , drop = FALSE], beside = groups)}; its groups: {shown_labels(groups, beside = keys)}.",
                    if (any(unknown)) c(type_hints, exact_hint),
                    i = if (any(missing_key)) "{sum(missing_key)} of them {cli::qty(sum(missing_key))}{?has/have} a missing key, {.code NA}: give {?it its/them their} group, or leave {?it/them} out.",
                    escape_cli(hint(missing & !missing_key))),
                class = c("ncam_warning_no_group_model", "ncam_warning"), call = call)
  }
  if (!keep_failed) group[failed] <- NA
  group
}

# Distinct rows of key columns as the user would write them ('site = "north"; day = 2024-05-01'),
# the first five and how many more; plain numbers as number_labels() writes them beside the
# same column of `beside` (the keys named in the same message).
shown_labels <- function(keys, most = 5L, beside = NULL) {
  written <- lapply(stats::setNames(nm = names(keys)), function(col) {
    v <- keys[[col]]
    if (is.character(v) || is.factor(v)) return(encodeString(as.character(v), quote = "\""))
    if (is_plain_double(v)) return(number_labels(v, if (is_plain_double(beside[[col]])) beside[[col]]))
    v
  })
  labels <- unique(label_rows(written))
  more <- length(labels) - most
  paste0(paste(utils::head(labels, most), collapse = "; "), if (more > 0L) sprintf("; and %d more", more))
}

is_plain_double <- function(v) is.double(v) && !is.object(v)

# predict() of a table by group: each row of newdata scored by its group's model (a fit, or a
# calibration), in order; rows of a group without one NA, with match_groups()'s warning; the
# row warnings of the groups summed into one of each kind. `...` goes to the models' predict().
predict_by_group <- function(object, newdata, ..., threads = NULL, call = parent.frame()) {
  by <- attr(object, "by")
  check_columns(newdata, by, "object", data_arg = "newdata", call = call)
  models <- group_models(object)
  if (!any(has_fit(object))) {
    # A subset of a fit by groups: its groups could not be fitted (errors = "skip"), or none.
    ncam_abort(c(if (nrow(object) == 0L) "{.arg object} has no group, so no model to predict with." else
                   "No group of {.arg object} has a model ({shown_labels(object[by])}): {cli::qty(nrow(object))}{?it/they} could not be fitted, so there is no model to predict with.",
                 i = if (nrow(object) > 0L) "{.fn ncam_by} with {.code errors = \"skip\"} warned why each group could not be fitted."),
               call = call)
  }
  # The first fitted group's model gives the columns, for no rows or rows without a model. A
  # calibration too small for the level is said by each group that has rows, naming it.
  template <- suppressWarnings(stats::predict(models[[which(has_fit(object))[1]]], newdata[0, , drop = FALSE], ...,
                                              threads = threads), classes = "ncam_warning_small_calibration")
  if (nrow(newdata) == 0L) return(template)
  group <- match_groups(object, newdata[by], hint = function(rows) no_model_hint(object, newdata, rows), call = call)
  labels <- group_labels(object[by])
  out <- lapply(template, function(col) col[rep(NA_integer_, nrow(newdata))])  # NA until filled
  beyond <- part_tally()
  group_flags <- list()  # per group, to name the groups in the totals
  for (g in unique(group[!is.na(group)])) {
    rows <- which(group == g)
    # Row warnings are summed over the groups; the others name their group, and rows of newdata.
    part <- with_group_name(score_part(
      with_input_rows(rows, stats::predict(models[[g]], newdata[rows, , drop = FALSE], ..., threads = threads)),
      input_rows = rows), labels[g])
    group_flags[[labels[g]]] <- row_flags(part$value, part$beyond)
    beyond <- add_part_tallies(beyond, part$beyond)
    for (col in names(out)) out[[col]][rows] <- part$value[[col]]
  }
  flags <- Reduce(`+`, group_flags, no_row_flags)
  # Out of the rows that have a model: match_groups() warned of the others.
  warn_part_totals(flags, sum(!is.na(group)), "groups", beyond, part_flags = group_flags)
  tibble::new_tibble(out, nrow = nrow(newdata))
}

# `expr` with its warnings and messages given again behind the group's name (`label`), their
# classes and fields kept, so that handlers for a class catch them as from one model.
with_group_name <- function(expr, label) {
  with_conditions_edited(expr, function(cnd) {
    cnd$message[1] <- paste0("Group ", label, ": ", cnd$message[1])
    cnd["call"] <- list(NULL)
    cnd
  })
}

# A table of each group's model (fit or calibration), `summarise` applied to it, behind the
# group's `by` columns.
per_group_table <- function(x, summarise, ...) {
  check_dots_empty_hinted()
  call <- rlang::caller_env()
  if (inherits(x, "ncam_by_calibration")) check_ncam_by_calibration(x, "x", call) else check_ncam_by(x, "x", call)
  by <- attr(x, "by")
  models <- group_models(x)
  labels <- group_labels(x[by])
  parts <- lapply(which(has_fit(x)), function(g) {
    table <- with_group_name(summarise(models[[g]]), labels[g])
    keys <- lapply(x[by], function(col) rep(col[g], nrow(table)))
    tibble::new_tibble(c(keys, as.list(table)), nrow = nrow(table))
  })
  tibble::as_tibble(do.call(rbind, parts))
}

# Each group's fit names its rows in its call, as ncam_by()'s `data` expression cut to the group
# (`base::subset(d, site == "north", select = c(...))`, each key written by key_literal()), so that
# fitting_data() finds them as for a fit of ncam(): fitted() and update() without data, and
# calibrate()'s count of calibration rows that trained the fit, work while that data is
# unchanged (its fingerprint tells). A `data` given as a value (do.call()) names no rows.
name_group_rows <- function(fits, data_expr, keys, columns, formula_env) {
  if (!is.language(data_expr)) return(fits)
  for (k in which(!vapply(fits, is.null, logical(1)))) {
    conditions <- lapply(names(keys), function(col) call("==", as.name(col), key_literal(keys[[col]][k])))
    fit <- fits[[k]]
    # base::subset, not whichever `subset` the formula's environment sees.
    fit$call$data <- as.call(list(quote(base::subset), data_expr,
                                  Reduce(function(a, b) call("&", a, b), conditions), select = columns))
    # The frames that ncam() registered under the fit's key, for data local to a function.
    if (!is.null(fit$data_key)) fit$data_key <- remember_frame(formula_env, fit$call, fit$data_check)
    fits[[k]] <- fit
  }
  fits
}

# A group's key as code that, printed and parsed back (as a user copies the call), gives the
# value exactly: a call prints numbers in 15 digits (0.1 + 0.2 as 0.3) and without their class
# (a Date as its day number, an integer64 as the double of its bits).
key_literal <- function(key) {
  if (is.factor(key)) return(as.character(key))
  if (inherits(key, "integer64")) return(as.call(list(quote(bit64::as.integer64), as.character(key))))
  # base::, as for base::subset: not whatever the formula's environment sees.
  readable <- if (inherits(key, "Date")) as.call(list(quote(base::as.Date), format(key))) else
    if (inherits(key, "POSIXct")) {
      # In the key's own time zone (a time in another would warn in `==`); a local one in UTC.
      tz <- c(attr(key, "tzone"), "")[1]
      if (!nzchar(tz)) tz <- "UTC"
      as.call(list(quote(base::as.POSIXct), format(key, "%Y-%m-%d %H:%M:%S", tz = tz), tz = tz))
    }
  # A day or second with a fraction (or an hour a clock change repeats) is written as its
  # number, which compares equal.
  if (!is.null(readable) && isTRUE(as.double(eval(readable, baseenv())) == as.double(key))) return(readable)
  if (!is.double(key)) return(as.vector(key))
  number <- as.double(key)
  if (identical(as.double(sprintf("%.15g", number)), number)) return(number)
  as.call(list(quote(base::as.double), sprintf("%.17g", number)))
}
