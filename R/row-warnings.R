# Warnings about rows of a prediction: rows far outside the calibration range, and rows with a
# missing covariate, whose prediction is NA (and rows beyond the networks' range, also NA:
# R/predict-range.R). predict() gives one warning of each kind, naming the variables;
# predict_chunks() and predict() on ncam_by() fits muffle those of their parts and give one of
# each with the totals.

# Row numbers in messages are rows of the data the user passed. ncam_by() and its predict(),
# calibrate() and sensor_drift() give each group's model the group's rows alone: while one is
# fitted or scored (with_input_rows()), its row i is the input's row `rows[i]`, and each message
# naming rows numbers them with input_rows(). Row fields of conditions of scoring (`rows`) stay
# the part's own, for the code that reads them (score_part()); that of the training warning
# about missing covariates, which no code reads, is the input's, as its message.
input_row_map <- new.env(parent = emptyenv())

with_input_rows <- function(rows, expr) {
  outer <- input_row_map$rows
  on.exit(input_row_map$rows <- outer)
  input_row_map$rows <- input_rows(rows)  # a part of a part: rows of the whole input
  expr
}

input_rows <- function(rows) {
  map <- input_row_map$rows
  if (is.null(map)) rows else map[rows]
}

# Per covariate, how many of the rows without a prediction have it missing.
missing_covariate_counts <- function(object, newdata, no_prediction) {
  if (!any(no_prediction)) return(integer(0))
  counts <- vapply(model_columns(object$terms), function(v) sum(is.na(newdata[[v]][no_prediction])), integer(1))
  counts[counts > 0L]
}

warn_missing_covariates <- function(n_missing, n_rows, counts = integer(0), hint = "", first_rows = NULL,
                                    groups = character()) {
  if (n_missing == 0) return(invisible())
  details <- c(sprintf("%s: %d row%s", names(counts), counts, ifelse(counts == 1L, "", "s")),
               if (length(first_rows)) first_rows_text(first_rows, n_missing), groups)
  cli::cli_warn(c("{n_missing} of {n_rows} row{?s} {cli::qty(n_missing)}{?has a/have a} missing covariate: {?its prediction is/their predictions are} {.code NA}.",
                  stats::setNames(details, rep("*", length(details))),
                  i = paste0("Fill in the missing covariate values, or leave those rows out", hint, ".")),
                class = c("ncam_warning_missing_covariate", "ncam_row_warning", "ncam_warning"), call = NULL)
}

# One warning for the rows of newdata whose factor term has a level not seen in training (their
# predictions are NA, set by at_training_levels()), naming per term the levels and first rows.
warn_unseen_levels <- function(unseen, newdata) {
  rows <- sort(unique(unlist(lapply(unseen, `[[`, "rows"))))
  details <- vapply(names(unseen), function(v) {
    u <- unseen[[v]]
    what <- if (v %in% names(newdata)) "Column" else "Term"
    shown <- paste0(paste(input_rows(utils::head(u$rows, 5)), collapse = ", "), if (length(u$rows) > 5L) ", ..." else "")
    sprintf("%s %s: %s in %s (seen in training: %s)", what, plain_names(v), quoted(u$levels),
            if (length(u$rows) == 1L) paste("row", shown) else paste(length(u$rows), "rows:", shown), quoted(u$seen))
  }, character(1))
  warn_unseen_rows(length(rows), nrow(newdata), "{.arg newdata}", details, rows = rows,
                   levels = lapply(unseen, `[[`, "levels"))
}

# The same warning after scoring in parts (chunks, groups), from the parts' tallies.
warn_unseen_total <- function(beyond, n_rows, parts, of) {
  levels <- beyond$unseen_levels
  details <- sprintf("%s: %s", plain_names(names(levels)), vapply(levels, quoted, character(1)))
  warn_unseen_rows(beyond$unseen_rows, n_rows, of, details, levels = levels,
                   hint = paste0(" ({.fn predict} on one of the ", parts, " names the rows)"))
}

warn_unseen_rows <- function(n, n_rows, of, details, rows = NULL, levels = list(), hint = "") {
  if (n == 0) return(invisible())
  cli::cli_warn(c(paste0("{n} of {n_rows} row{?s} of ", of, " {cli::qty(n)}{?has/have} a level of a factor covariate not seen in training", hint, ", of which the model learned nothing: {?its prediction is/their predictions are} {.code NA}."),
                  stats::setNames(gsub("([{}])", "\\1\\1", details), rep("*", length(details))),
                  i = "Leave those rows out, or refit on data with training rows of those levels."),
                class = c("ncam_warning_unseen_level", "ncam_row_warning", "ncam_warning"), call = NULL, rows = rows, levels = levels)
}

# "rows 3, 10, 250, ..." for the first rows of `n` (row numbers of the call's newdata).
first_rows_text <- function(first_rows, n) {
  paste0(if (n == 1L) "row " else "rows ", paste(input_rows(first_rows), collapse = ", "), if (n > length(first_rows)) ", ..." else "")
}

# "pa_b (rows 20, 200 and 3 more); opc (row 7)": per sensor its count (`counts`, named) and the
# rows to name (`shown`, a list by sensor of row numbers of the input, or text such as "5 of
# a.csv"); a sensor without rows to name gives its count alone ("pa_b: 5").
sensor_rows_text <- function(counts, shown) {
  where <- vapply(names(counts), function(s) {
    rows <- shown[[s]]
    if (!length(rows)) return(paste0(s, ": ", counts[[s]]))
    more <- if (counts[[s]] > length(rows)) sprintf(" and %d more", counts[[s]] - length(rows)) else ""
    paste0(s, " (", if (counts[[s]] == 1L) "row " else "rows ", toString(rows), more, ")")
  }, "")
  paste(where, collapse = "; ")
}

# Values in double quotes, listed with commas (at most 10).
quoted <- function(values) {
  paste0(paste0("\"", utils::head(values, 10), "\"", collapse = ", "), if (length(values) > 10L) ", ..." else "")
}

# One warning for the rows of a prediction that lie far outside the calibration range, naming
# the variables (sensor bounds in the user's units).
warn_extrapolation <- function(object, far, n_far, n_rows) {
  on <- if (is.null(object$reference)) "of the fitted rows" else
    paste0("of the co-location rows (those with a reference reading, {.code ", gsub("([{}])", "\\1\\1", object$reference), "})")
  details <- vapply(names(far), function(v) {
    f <- far[[v]]
    shown <- signif(c(f$lower, f$upper, f$farthest), 4)
    if (f$kind == "sensor") shown <- signif(ncam_untransform(object, c(f$lower, f$upper, f$farthest)), 4)
    sprintf("%s: %d row%s outside %s to %s (as %s as %s): %s", plain_names(v), f$rows, if (f$rows == 1L) "" else "s",
            shown[1], shown[2], if (f$farthest < f$lower) "low" else "high", shown[3], first_rows_text(f$first_rows, f$rows))
  }, character(1))
  warn_far_rows(n_far, n_rows, on, stats::setNames(details, rep("*", length(details))), far = extrapolation_tally(object, far, on))
}

# The same warning after scoring in parts (chunks, groups), from the counts alone (and the
# groups' names, `details`); chunks of one model name the variables as predict() does, from
# the tally of their warnings (`far`, of extrapolation_tally()).
warn_extrapolation_total <- function(n_far, n_rows, parts, details = character(), far = NULL) {
  on <- if (parts == "groups") "{cli::qty(n_far)}the model of {?its/their} group learned from" else "the model learned from"
  by_variable <- if (parts == "chunks") far_total_details(far)  # NULL without a tally
  if (!is.null(by_variable)) on <- far$on
  warn_far_rows(n_far, n_rows, on, c(details, by_variable),
                hint = if (is.null(by_variable)) paste0("; {.fn predict} on one of the ", parts, " names the variables") else "")
}

# `on`: cli text, with n_far at hand for its plural; `...`: fields of the condition.
warn_far_rows <- function(n_far, n_rows, on, details = character(), hint = "", ...) {
  if (n_far == 0) return(invisible())
  cli::cli_warn(c(paste0("{n_far} of {n_rows} row{?s} {cli::qty(n_far)}{?lies/lie} more than {100 * extrapolation_warning_share}% of the range outside the readings and covariates ", on, "; {cli::qty(n_far)}{?its prediction extrapolates/their predictions extrapolate} what the model learned and {?is/are} less reliable."),
                  details,
                  i = paste0("Column {.field .extrapolation} gives each row's distance outside the range, as a share of it (0 inside)", hint, ".")),
                class = c("ncam_warning_extrapolation", "ncam_row_warning", "ncam_warning"), call = NULL, ...)
}

# Which distances (column .extrapolation) are far enough outside to warn about; NA is not.
is_far <- function(distance) !is.na(distance) & distance > extrapolation_warning_share

# Rows of a prediction table far outside the calibration range.
count_far <- function(scored) sum(is_far(scored$.extrapolation))

# Rows of a prediction table to warn about: far outside the calibration range, and without a
# prediction for a missing covariate. .n_sensors is NA there, on the rows beyond the networks'
# range and on those with a level not seen in training (`beyond`, the part's tally from
# score_part()), which have their own warnings.
row_flags <- function(scored, beyond = part_tally()) {
  c(far = count_far(scored), missing = sum(is.na(scored$.n_sensors)) - sum(beyond$counts) - beyond$unseen_rows,
    no_readings = length(rows_without_readings(scored)))
}

# The flags of no rows, the start of a sum of row_flags() over parts.
no_row_flags <- c(far = 0, missing = 0, no_readings = 0)

# Rows of a prediction table whose estimate is the prior alone: no reading, but covariates.
rows_without_readings <- function(scored) which(scored$.n_sensors == 0L)

# One warning for the rows without any reading. Their estimate, `estimate` (cli text: for
# ncam() the model's prior from the covariates; a baseline's prior, Kalman prediction or NA),
# averaged with measured rows (a daily mean, a performance table) passes for a measurement.
warn_no_readings <- function(n, n_rows, first_rows = NULL, hint = "",
                             estimate = "the model's prior from the covariates alone ({.field .n_sensors} = 0), not a measurement",
                             groups = character()) {
  if (n == 0) return(invisible())
  cli::cli_warn(c(paste0("{n} of {n_rows} row{?s} {cli::qty(n)}{?has/have} no sensor reading: {?its estimate is/their estimates are} ", estimate, "."),
                  "*" = if (length(first_rows)) first_rows_text(first_rows, n),
                  stats::setNames(groups, rep("*", length(groups))),
                  i = paste0("Leave them out ({.code .n_sensors > 0}) before averaging or judging performance, as a period's completeness should count measured rows only ({.fn average_estimates}, {.fn sensor_performance} and {.fn evaluate_fusion} do so themselves)", hint, ".")),
                class = c("ncam_warning_no_readings", "ncam_row_warning", "ncam_warning"), call = NULL)
}

# Evaluates expr with the row warnings of its parts muffled (warn_part_totals() sums them up).
without_part_warnings <- function(expr) {
  withCallingHandlers(expr, ncam_row_warning = function(w) invokeRestart("muffleWarning"))
}

# Evaluates expr, the scoring of one part (a chunk, a group), with its row warnings muffled,
# as without_part_warnings(), and its warning about rows beyond the networks' range too, whose
# row numbers are the part's: `input_rows[i]` is the row of the whole input for the part's row i.
# Returns list(value, beyond), with the tally of those rows in the input's numbering.
score_part <- function(expr, input_rows) {
  beyond <- part_tally()
  value <- withCallingHandlers(expr,
    # given once for the whole input (by predict_chunks() or the first call of ncam_by's predict())
    ncam_warning_level_without_interval = function(w) invokeRestart("muffleWarning"),
    ncam_row_warning = function(w) {
      if (inherits(w, "ncam_warning_unseen_level")) {
        beyond <<- add_part_tallies(beyond, part_tally(unseen_rows = length(w$rows), unseen_levels = w$levels))
      }
      if (!is.null(w$far)) beyond <<- add_part_tallies(beyond, part_tally(far = far_in_input_rows(w$far, input_rows)))
      invokeRestart("muffleWarning")
    },
    ncam_warning_beyond_range = function(w) {
      found <- data.frame(row = input_rows[w$rows], file = NA_character_, variable = w$variables,
                          value = w$values, stringsAsFactors = FALSE)
      beyond <<- add_part_tallies(beyond, part_tally(c(table(factor(w$variables, unique(w$variables)))), found))
      invokeRestart("muffleWarning")
    },
    ncam_warning_unknown_unit = function(w) {
      beyond <<- add_part_tallies(beyond, part_tally(unknown_units = list(unit = w$unit, values = w$values,
                                                                          n_unknown = w$n_unknown, n_missing = w$n_missing)))
      invokeRestart("muffleWarning")
    },
    ncam_warning_spikes = function(w) {
      if (is.null(w$rows)) return()  # not a screen of new readings
      shown <- lapply(w$rows, utils::head, 5L)
      spikes <- data.frame(row = input_rows[unlist(shown, use.names = FALSE)], file = NA_character_,
                           sensor = rep(names(shown), lengths(shown)), stringsAsFactors = FALSE)
      beyond <<- add_part_tallies(beyond, part_tally(spike_counts = lengths(w$rows), spikes = spikes,
                                                     spike_threshold = w$threshold))
      invokeRestart("muffleWarning")
    })
  list(value = value, beyond = beyond)
}

# What the parts scored so far warned about: the rows beyond the networks' range (their number
# per variable, and the first 5 of each, as row of the input, its file when there are files, and
# value), and the rows with a level not seen in training (their number, the levels per term).
part_tally <- function(counts = c(x = 0)[0],
                         shown = data.frame(row = numeric(0), file = character(0), variable = character(0),
                                            value = numeric(0), stringsAsFactors = FALSE),
                         unseen_rows = 0, unseen_levels = list(), spike_counts = c(x = 0L)[0],
                         spikes = data.frame(row = numeric(0), file = character(0), sensor = character(0),
                                             stringsAsFactors = FALSE),
                         spike_threshold = NULL,
                         unknown_units = list(unit = NULL, values = character(0), n_unknown = 0, n_missing = 0),
                         far = NULL, groups = NULL) {
  list(counts = counts, shown = shown, unseen_rows = unseen_rows, unseen_levels = unseen_levels,
       spike_counts = spike_counts, spikes = spikes, spike_threshold = spike_threshold,
       unknown_units = unknown_units, far = far, groups = groups)
}

# Two tallies in one (`a`'s files before `b`'s).
add_part_tallies <- function(a, b) {
  counts <- sum_counts(a$counts, b$counts)
  variables <- names(counts)
  shown <- rbind(a$shown, b$shown)
  # In input order: files in their order, rows within them (groups come in any order).
  shown <- shown[order(match(shown$file, unique(shown$file)), shown$row), , drop = FALSE]
  keep <- unlist(lapply(split(seq_len(nrow(shown)), factor(shown$variable, variables)), utils::head, 5L))
  terms <- union(names(a$unseen_levels), names(b$unseen_levels))
  levels <- lapply(stats::setNames(nm = terms), function(v) union(a$unseen_levels[[v]], b$unseen_levels[[v]]))
  # Readings screened as spikes: their number and the first 5 rows per sensor, as above.
  spike_counts <- sum_counts(a$spike_counts, b$spike_counts)
  spikes <- rbind(a$spikes, b$spikes)
  spikes <- spikes[order(match(spikes$file, unique(spikes$file)), spikes$row), , drop = FALSE]
  first_spikes <- unlist(lapply(split(seq_len(nrow(spikes)), factor(spikes$sensor, names(spike_counts))), utils::head, 5L))
  # Rows of units without an offset: the units and the counts.
  first_units <- a$unknown_units
  second_units <- b$unknown_units
  unknown_units <- list(unit = if (is.null(first_units$unit)) second_units$unit else first_units$unit,
                        values = union(first_units$values, second_units$values),
                        n_unknown = first_units$n_unknown + second_units$n_unknown,
                        n_missing = first_units$n_missing + second_units$n_missing)
  part_tally(counts, shown[sort(keep), , drop = FALSE], a$unseen_rows + b$unseen_rows, levels,
             spike_counts, spikes[sort(first_spikes), , drop = FALSE],
             if (is.null(a$spike_threshold)) b$spike_threshold else a$spike_threshold, unknown_units,
             add_far_tallies(a$far, b$far), add_group_tallies(a$groups, b$groups))
}

# The row warnings after scoring in parts (chunks, groups) of `of` (the whole input), from the
# summed row_flags() and the parts' part_tally(); with `part_flags`, each group's row_flags()
# named by its label, the warnings name the groups as their other warnings do.
warn_part_totals <- function(flags, n_rows, parts, beyond = part_tally(), of = "{.arg newdata}",
                             part_flags = list()) {
  flags <- as_count(flags)
  n_rows <- as_count(n_rows)
  beyond$counts <- as_count(beyond$counts)
  beyond$spike_counts <- as_count(beyond$spike_counts)
  beyond$unseen_rows <- as_count(beyond$unseen_rows)
  beyond$unknown_units[c("n_unknown", "n_missing")] <- lapply(beyond$unknown_units[c("n_unknown", "n_missing")], as_count)
  warn_beyond_range_total(beyond, n_rows, of)
  if (sum(beyond$spike_counts) > 0) {
    spikes <- beyond$spikes
    shown <- split(input_row_labels(spikes$row, spikes$file), factor(spikes$sensor, names(beyond$spike_counts)))
    warn_new_spikes(beyond$spike_counts, shown, beyond$spike_threshold, of)
  }
  unknown <- beyond$unknown_units
  warn_unknown_unit_rows(unknown$unit, unknown$values, unknown$n_unknown, unknown$n_missing, of)
  warn_extrapolation_total(flags[["far"]], n_rows, parts, group_bullets(part_flags, "far"), beyond$far)
  warn_unseen_total(beyond, n_rows, parts, of)
  warn_missing_covariates(flags[["missing"]], n_rows,
                          hint = paste0("; {.fn predict} on one of the ", parts, " names the covariates"),
                          groups = group_bullets(part_flags, "missing"))
  warn_no_readings(flags[["no_readings"]], n_rows, hint = paste0("; {.fn predict} on one of the ", parts, " names the rows"),
                   groups = group_bullets(part_flags, "no_readings"))
}

# Counts summed over parts are doubles, which cli writes as 1e+05: whole ones as integers.
as_count <- function(n) {
  if (is.numeric(n) && all(n == round(n) & abs(n) <= .Machine$integer.max)) storage.mode(n) <- "integer"
  n
}

# "Group site = east: 3 rows", a bullet for each of the first 5 groups with rows of one flag.
group_bullets <- function(part_flags, flag) {
  counts <- vapply(part_flags, function(f) f[[flag]], numeric(1))
  counts <- counts[counts > 0]
  if (!length(counts)) return(character())
  shown <- utils::head(counts, 5L)
  more <- length(counts) - length(shown)
  text <- c(sprintf("Group %s: %d row%s", names(shown), shown, ifelse(shown == 1, "", "s")),
            if (more > 0L) cli::pluralize("and {more} more group{?s}"))
  stats::setNames(gsub("([{}])", "\\1\\1", text), rep("*", length(text)))  # labels are text, not cli markup
}

# One warning of warn_beyond_range()'s class for the whole input, naming rows of the input
# (within their file, for files).
warn_beyond_range_total <- function(beyond, n_rows, of) {
  n <- sum(beyond$counts)
  if (n == 0) return(invisible())
  shown <- beyond$shown
  rows <- input_row_labels(shown$row, shown$file)
  cli::cli_warn(c(paste0("{n} of {n_rows} row{?s} of ", of, " {cli::qty(n)}{?has a value/have values} so far outside the training data that the networks cannot compute with {?it/them}: {?its prediction is/their predictions are} {.code NA}."),
                  beyond_range_details(rows, shown$variable, shown$value, beyond$counts),
                  i = "Check those rows for a unit or parsing error, or leave them out."),
                class = c("ncam_warning_beyond_range", "ncam_warning"), call = NULL, counts = beyond$counts)
}

# `expr` with its warnings and messages (and errors, with `errors = TRUE`) signalled again after
# `edit`, their classes and fields kept, so that handlers for a class still catch them.
with_conditions_edited <- function(expr, edit, errors = FALSE) {
  resignal_error <- if (errors) function(e) rlang::cnd_signal(edit(e)) else function(e) NULL
  withCallingHandlers(expr,
    warning = function(w) {
      w <- edit(w)
      warning(w)  # a symbol: the check of warning classes sees a condition passed on
      invokeRestart("muffleWarning")
    },
    message = function(m) {
      signal_message(edit(m))
      invokeRestart("muffleMessage")
    },
    error = resignal_error
  )
}

# A message condition signalled again and, unless muffled, printed. message() prints its text as
# it is, but cli and rlang keep theirs without the final newline, which rlang adds in printing:
# given to message(), the next output ran onto its line.
signal_message <- function(m) {
  if (!inherits(m, "rlang_message")) return(message(m))
  withRestarts({
    signalCondition(m)
    cat(conditionMessage(m), "\n", sep = "", file = stderr())
  }, muffleMessage = function() NULL)
  invisible()
}

# `expr` with its messages printed by signal_message(). future relays a worker's messages by
# giving the condition to message(), which ran a cli message onto the next output's line (one
# verbose summary line per group of ncam_by() became one line, ending in "Warning messages:").
with_messages_printed <- function(expr) {
  withCallingHandlers(expr, message = function(m) {
    signal_message(m)
    invokeRestart("muffleMessage")
  })
}

# predict() and its helpers call the rows they read `newdata`: their errors, warnings and
# messages are given again naming `arg`, the argument the user passed the rows as (or `words`),
# classes and fields kept. With `in_code`, also `newdata$opc`, `newdata[...]` and `names(newdata)`
# in a hint's code (`arg` is then a data frame).
in_words_of <- function(expr, arg, in_code = TRUE, words = paste0("`", arg, "`")) {
  renamed <- function(text) {
    text <- gsub("`newdata`", words, text, fixed = TRUE)
    if (in_code) gsub("\\bnewdata(?=[$[)])", arg, text, perl = TRUE) else text
  }
  with_conditions_edited(expr, function(cnd) {
    cnd$message[] <- renamed(cnd$message)
    if (is.character(cnd$body)) cnd$body[] <- renamed(cnd$body)  # the bullets of an rlang error
    cnd
  }, errors = TRUE)
}

# A picture's predictions (autoplot()) call predict() on the user's behalf: its errors and
# warnings, which named that inner call in their "In ..." line, are given again naming the
# user's call, the frame `env` (classes and fields kept). Those without a call keep none.
in_call_of <- function(expr, env) {
  user_call <- rlang::error_call(env)  # as rlang names it in errors: the generic's call, not its method's
  with_conditions_edited(expr, function(cnd) {
    if (!is.null(cnd$call)) cnd$call <- user_call
    cnd
  }, errors = TRUE)
}

# Without `newdata`, predict(), fitted() and the like read the data the model was fitted to
# (when `from_fit`): their conditions name that data, `d` of ncam(data = d), not the `newdata`
# the user did not give.
in_words_of_fit_data <- function(expr, object, from_fit = TRUE) {
  if (!from_fit) return(expr)
  data <- object$call$data
  if (!is.symbol(data)) return(in_words_of(expr, "data", words = "the fit's data"))
  in_words_of(expr, as.character(data), words = sprintf("`%s` (the fit's data)", as.character(data)))
}
