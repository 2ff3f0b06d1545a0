# Pieces of the tallies of parts scored one at a time (part_tally() in R/row-warnings.R): the
# rows far outside the calibration range per variable, for predict_chunks()'s warning to name
# the variables as predict() does, and the rows of each group of fits by group.

# Two named counts in one, by name.
sum_counts <- function(a, b) {
  names_ab <- union(names(a), names(b))
  stats::setNames(vapply(names_ab, function(v) sum(a[v], b[v], na.rm = TRUE), 1), names_ab)
}

# Rows of the input as text: the row, and "of <file>" when the input is files.
input_row_labels <- function(row, file) {
  labels <- format(row, scientific = FALSE, trim = TRUE)
  in_file <- !is.na(file)
  labels[in_file] <- paste(labels[in_file], "of", file[in_file])
  labels
}

# predict()'s rows far outside the calibration range (`far` of extrapolation_distance()), as a
# tally that adds up over parts: per variable its rows (`counts`), its range and farthest value
# in the user's units with that value's distance (`bounds`, `position` its place in the
# model's range table), its first rows (`shown`, rows of the part until far_in_input_rows()) and
# the warning's words for the rows the model learned from (`on`).
extrapolation_tally <- function(object, far, on) {
  if (!length(far)) return(NULL)
  values <- vapply(far, function(f) {
    v <- c(f$lower, f$upper, f$farthest)
    if (f$kind == "sensor") ncam_untransform(object, v) else v
  }, numeric(3))
  first_rows <- lapply(far, `[[`, "first_rows")
  list(counts = vapply(far, `[[`, 1, "rows"),
       bounds = data.frame(variable = names(far), position = match(names(far), object$calibration_range$variable),
                           lower = values[1, ], upper = values[2, ], farthest = values[3, ],
                           share = vapply(far, function(f) max(f$lower - f$farthest, f$farthest - f$upper) / (f$upper - f$lower), 1),
                           stringsAsFactors = FALSE, row.names = NULL),
       shown = data.frame(row = as.numeric(unlist(first_rows, use.names = FALSE)), file = NA_character_,
                          variable = rep(names(far), lengths(first_rows)), stringsAsFactors = FALSE),
       on = on)
}

# The tally's rows as rows of the input: `input_rows[i]` is the input's row of the part's row i.
far_in_input_rows <- function(far, input_rows) {
  far$shown$row <- input_rows[far$shown$row]
  far
}

# Two tallies of extrapolation_tally() in one (`a`'s files first): counts summed, the farthest
# value of each variable (the first of equals), the first 5 rows of each in input order.
add_far_tallies <- function(a, b) {
  if (is.null(a)) return(b)
  if (is.null(b)) return(a)
  counts <- sum_counts(a$counts, b$counts)
  bounds <- rbind(a$bounds, b$bounds)
  bounds <- bounds[order(bounds$position, -bounds$share), , drop = FALSE]
  shown <- rbind(a$shown, b$shown)
  shown <- shown[order(match(shown$file, unique(shown$file)), shown$row), , drop = FALSE]
  first <- unlist(lapply(split(seq_len(nrow(shown)), factor(shown$variable, names(counts))), utils::head, 5L))
  list(counts = counts, bounds = bounds[!duplicated(bounds$variable), , drop = FALSE],
       shown = shown[sort(first), , drop = FALSE], on = a$on)
}

# The bullets of predict()'s warning (warn_extrapolation()) from a tally over parts, variables in
# the order of the model's range table; NULL without a tally.
far_total_details <- function(far) {
  if (is.null(far) || !length(far$counts)) return(NULL)
  bounds <- far$bounds[order(far$bounds$position), , drop = FALSE]
  details <- vapply(seq_len(nrow(bounds)), function(i) {
    v <- bounds$variable[i]
    n <- far$counts[[v]]
    shown <- signif(c(bounds$lower[i], bounds$upper[i], bounds$farthest[i]), 4)
    rows <- far$shown[far$shown$variable == v, , drop = FALSE]
    # Rows of one file together: "rows 3, 7 of a.csv, 2 of b.csv".
    in_file <- split(format(rows$row, scientific = FALSE, trim = TRUE), factor(rows$file, unique(rows$file), exclude = NULL))
    files <- names(in_file)
    listed <- paste0(vapply(in_file, paste, "", collapse = ", "), ifelse(is.na(files), "", paste(" of", files)))
    listed <- paste0(if (n == 1) "row " else "rows ", paste(listed, collapse = ", "), if (n > nrow(rows)) ", ..." else "")
    sprintf("%s: %s row%s outside %s to %s (as %s as %s): %s", plain_names(v), format(n, scientific = FALSE),
            if (n == 1) "" else "s", shown[1], shown[2], if (bounds$farthest[i] < bounds$lower[i]) "low" else "high",
            shown[3], listed)
  }, character(1))
  stats::setNames(gsub("([{}])", "\\1\\1", details), rep("*", length(details)))
}

# The groups' part of a tally of fits by group scored in chunks: each group's row_flags() by its
# label (`flags`), and the rows of no group with a model (`missing`: their distinct keys, the
# `by` columns, with `.rows` their number and `.failed` whether the key is a group of the fits
# that could not be fitted).
add_group_tallies <- function(a, b) {
  if (is.null(a)) return(b)
  if (is.null(b)) return(a)
  flags <- a$flags
  for (label in names(b$flags)) flags[[label]] <- if (is.null(flags[[label]])) b$flags[[label]] else flags[[label]] + b$flags[[label]]
  missing <- rbind(a$missing, b$missing)
  if (is.null(missing)) return(list(flags = flags, missing = NULL))
  key <- key_strings(missing[setdiff(names(missing), c(".rows", ".failed"))])
  rows <- vapply(split(missing$.rows, factor(key, unique(key))), sum, 1)
  missing <- missing[!duplicated(key), , drop = FALSE]
  missing$.rows <- unname(rows)
  list(flags = flags, missing = missing)
}
