# The warnings of predict() that are not about rows (those score_part() sums up) come once per
# call, so once per chunk: predict_chunks() gathers them from its chunks and gives each once for
# the whole input, with the rows counted over all chunks where the warning counts them. And when
# files fail, the error it ends with names them all (with_other_failures()).

# Evaluates `expr`, the score_part() of one chunk, with its other warnings muffled and kept:
# returns its value with `warnings` added, a list of chunk_warning() records.
gather_chunk_warnings <- function(expr, input_rows) {
  gathered <- list()
  scored <- withCallingHandlers(expr, warning = function(w) {
    gathered <<- add_chunk_warnings(gathered, list(chunk_warning(w, input_rows)))
    invokeRestart("muffleWarning")
  })
  scored$warnings <- gathered
  scored
}

# One warning of a chunk: the condition (without its call, which holds the chunk's data), the
# key that makes warnings of several chunks one, and for those counting rows (readings <= 0 of a
# log model, another value of a constant covariate), their number per column (`counts`) and the
# first rows (`shown`: row of the input, file, column), `input_rows[i]` being the chunk's row i.
chunk_warning <- function(w, input_rows) {
  w["call"] <- list(NULL)
  no_rows <- data.frame(row = numeric(0), file = character(0), column = character(0), stringsAsFactors = FALSE)
  counted <- function(rows) {
    first <- lapply(rows, utils::head, 5L)
    shown <- data.frame(row = input_rows[unlist(first, use.names = FALSE)], file = NA_character_,
                        column = rep(names(first), lengths(first)), stringsAsFactors = FALSE)
    list(condition = w, key = class(w)[1], counts = lengths(rows), shown = shown)
  }
  if (inherits(w, "ncam_warning_nonpositive_reading") && is.list(w$rows)) return(counted(w$rows))
  if (inherits(w, "ncam_warning_constant_covariate") && !is.null(w$rows)) {
    record <- counted(stats::setNames(list(w$rows), w$covariate))
    record$key <- paste(record$key, w$covariate)
    return(record)
  }
  # Readings on another scale give each chunk's median: one warning per column, the first chunk's.
  key <- if (inherits(w, "ncam_warning_reading_scale")) paste(c(class(w)[1], w$columns), collapse = " ") else
    paste(class(w)[1], conditionMessage(w))
  list(condition = w, key = key, counts = integer(0), shown = no_rows)
}

# The records of `a`, then those of `b`, one per key: the first condition of a key, its counts
# summed and its first 5 rows per column.
add_chunk_warnings <- function(a, b) {
  for (record in b) {
    i <- match(record$key, vapply(a, `[[`, "", "key"))
    if (is.na(i)) {
      a[[length(a) + 1L]] <- record
      next
    }
    if (!length(record$counts)) next  # the same warning again
    counts <- sum_counts(a[[i]]$counts, record$counts)
    shown <- rbind(a[[i]]$shown, record$shown)
    first <- unlist(lapply(split(seq_len(nrow(shown)), factor(shown$column, names(counts))), utils::head, 5L))
    a[[i]]$counts <- counts
    a[[i]]$shown <- shown[sort(first), , drop = FALSE]
  }
  a
}

# The records' rows are those of the file `label`.
in_file_chunk_warnings <- function(gathered, label) {
  lapply(gathered, function(record) {
    record$shown$file <- rep(label, nrow(record$shown))
    record
  })
}

# Each gathered warning once, for the whole input: those counting rows with the totals, naming
# rows of the input (of their file, for files); the others as the first chunk gave them.
warn_gathered_chunks <- function(gathered) {
  for (record in gathered) {
    w <- record$condition
    shown <- record$shown
    labels <- split(input_row_labels(shown$row, shown$file), factor(shown$column, names(record$counts)))
    if (inherits(w, "ncam_warning_nonpositive_reading") && length(record$counts)) {
      warn_nonpositive_readings(nonpositive_details(record$counts, labels))
    } else if (inherits(w, "ncam_warning_constant_covariate") && length(record$counts)) {
      warn_constant_covariate(w$covariate, w$training_value, record$counts[[1]], labels[[1]][1], w$first_value,
                              of = "{.arg input}")
    } else {
      warning(w)
    }
  }
}

# The error of the first failing file, naming the other files that failed (under a parallel plan
# the other workers' blocks run on, and may fail too), so that one fix does not hide the next.
# Every file's failure is an rlang error (read_chunk(), score_chunk()), which carries the note.
with_other_failures <- function(failure, results, labels) {
  failed <- which(vapply(results, function(result) !is.null(result$error), logical(1)))[-1]
  if (!length(failed) || !inherits(failure, "rlang_error")) return(failure)
  shown <- utils::head(failed, 5L)
  first_lines <- sub("\n.*", "", vapply(results[shown], function(result) conditionMessage(result$error), ""))
  listing <- paste0(labels[shown], " (", first_lines, ")", collapse = "; ")
  more <- if (length(failed) > 5L) sprintf(" and %d more", length(failed) - 5L) else ""
  failure$footer <- c(failure$footer, "!" = cli::format_inline(
    "{length(failed)} other input file{?s} failed as well: {listing}{more}."))
  failure
}
