# Readers of the inputs of predict_chunks(), chunk by chunk (CSV, optionally compressed;
# Parquet; any whole-file reader), and the hint, when a reader read text codes as numbers.

# Chunk readers: next_chunk() gives a data frame or NULL at the end, position() the bytes of
# the file read so far (0 when unknown, as for compressed files), close() frees the file.
# `strict`: the columns where a CSV file's infinite numbers (`finite`) and hexadecimal text
# (`decimal`) are an error (see csv_chunks()), and those read as text (`text`).
open_chunks <- function(path, chunk_rows, reader, strict) {
  chunks <- if (!is.null(reader)) {
    whole_file_chunks(path, chunk_rows, reader)
  } else if (grepl("\\.parquet$", path, ignore.case = TRUE)) {
    parquet_chunks(path, chunk_rows)
  } else {
    csv_chunks(path, chunk_rows, strict)
  }
  # read.csv() reads "NaN" as NaN, and so may a reader; downstream, NA is the missing value.
  next_chunk <- chunks$next_chunk
  chunks$next_chunk <- function() nan_as_na(next_chunk())
  chunks
}

nan_as_na <- function(chunk) {
  if (is.null(chunk)) return(NULL)
  has_nan <- vapply(chunk, function(v) is.double(v) && any(is.nan(v)), logical(1))
  chunk[has_nan] <- lapply(chunk[has_nan], function(v) replace(v, is.nan(v), NA))
  chunk
}

# Infinite numbers are refused in the columns predict() reads (`strict$finite`), as it refuses
# them, but with the value and row as written; hexadecimal text, which read.csv() reads as a number
# ("0x1A" as 26), there and in the kept columns (`strict$decimal`), which it would silently
# change. Other columns are read as read.csv() reads them: they are not the model's business.
csv_chunks <- function(path, chunk_rows, strict) {
  con <- file(path, "r")  # also reads gzip, bzip2 and xz files
  header <- sub("^\xef\xbb\xbf", "", readLines(con, n = 1L, warn = FALSE), useBytes = TRUE)
  if (!length(header) || !nzchar(trimws(header))) {
    close(con)
    ncam_abort("File {.file {path}} is empty: a CSV input needs a header line naming its columns.", call = NULL)
  }
  columns <- names(utils::read.csv(text = header, check.names = FALSE))
  separator <- foreign_separator(columns)
  if (!is.null(separator)) {
    close(con)
    ncam_abort(c("File {.file {path}} looks {separator}-separated (its header is one column, {.val {header}}); CSV inputs must be comma-separated.",
                 i = "Pass a reader, such as {.code reader = function(p) utils::read.csv2(p, check.names = FALSE)} (decimal commas) or {.code reader = function(p) utils::read.delim(p, check.names = FALSE)}, or rewrite the file with {.fn utils::write.csv}."),
               call = NULL)
  }
  # write.csv() names its row-name column "": give it a name, as read.csv() does.
  columns[!nzchar(columns)] <- paste0("...", which(!nzchar(columns)))
  text_columns <- intersect(strict$text, columns)
  classes <- NA
  quoted <- NA
  rows_read <- 0
  seekable <- !grepl("\\.(gz|bz2|xz)$", path, ignore.case = TRUE)
  # scan() reads hexadecimal as a number ("0x1A" as 26), and "Inf", "inf", "Infinity" or 1e999 as
  # infinite. A binary twin of `con`, kept at the same byte, shows the text of each chunk read
  # with numbers: one holding "0x" or an infinite number is read again as text, to name the
  # value as written. Where the position is unknown (bzip2 and xz files) every chunk is read as
  # text.
  header_bytes <- tryCatch(seek(con), error = function(e) NA)
  twin <- if (!is.na(header_bytes)) gzfile(path, "rb")  # reads uncompressed files too
  if (!is.null(twin)) readBin(twin, "raw", header_bytes)
  read_rows <- function(connection, classes) {
    utils::read.csv(connection, header = FALSE, nrows = chunk_rows, col.names = columns,
                    colClasses = classes, check.names = FALSE, fill = FALSE, stringsAsFactors = FALSE)
  }
  next_chunk <- function() {
    start <- if (!is.null(twin)) seek(con) else NA
    line <- readLines(con, n = 1L, warn = FALSE)
    while (length(line) == 1L && !nzchar(trimws(line))) line <- readLines(con, n = 1L, warn = FALSE)
    if (length(line) == 0L || is.null(columns)) return(NULL)
    if (is.na(quoted)) quoted <<- grepl("\"", line, fixed = TRUE)
    pushBack(line, con)
    # scan() reads a number in quotes only as text: a quoted file is read as text and converted.
    as_text <- isTRUE(quoted) || is.null(twin)
    # Logical columns are read as text and converted, so that a value that is not TRUE or FALSE
    # (or a quoted "T", which scan() does not take as logical) is named with its column.
    read_classes <- if (as_text) "character" else replace(classes, classes %in% c("logical", "Date", "POSIXct"), "character")
    # Before the first chunk fixes the types, the fit's code columns are read as text.
    if (!as_text && identical(classes, NA) && length(text_columns)) {
      read_classes <- stats::setNames(rep("character", length(text_columns)), text_columns)
    }
    chunk <- tryCatch(read_rows(con, read_classes), error = function(e) {
      # Numbers quoted only from a later line on: read this chunk again, and the rest of the
      # file, as a quoted file (an uncompressed file can go back; others get the error).
      if (as_text || !seekable || !grepl("got '\"", conditionMessage(e), fixed = TRUE)) stop(e)
      NULL
    })
    if (is.null(chunk)) {
      seek(con, start)
      quoted <<- TRUE
      return(next_chunk())
    }
    if (!as_text) {
      text <- readBin(twin, "raw", seek(con) - start)
      finite <- chunk[intersect(strict$finite, names(chunk))]
      infinite <- any(vapply(finite, function(v) is.double(v) && any(is.infinite(v)), logical(1)))
      as_text <- infinite || length(grepRaw("0x", text, fixed = TRUE)) + length(grepRaw("0X", text, fixed = TRUE)) > 0L
      if (as_text) {
        text_con <- textConnection(rawToChar(text))
        chunk <- tryCatch(read_rows(text_con, "character"), finally = close(text_con))
      }
    }
    if (as_text) chunk <- types_from_text(chunk, classes, path, rows_read, strict)
    # Columns neither read by the model nor kept stay text: they never stop a prediction.
    logical_columns <- intersect(names(classes)[classes %in% "logical"], c(strict$finite, strict$decimal))
    chunk <- logicals_from_text(chunk, logical_columns, chunk_rows, rows_read)
    chunk <- chunk_times_from_text(chunk, strict$times, classes, path, rows_read)  # kept and key times
    rows_read <<- rows_read + nrow(chunk)
    # A column empty throughout a chunk reads as logical NA; in a CSV file that is a column
    # of missing numbers (an offline sensor).
    empty <- vapply(chunk, is_all_missing, logical(1))
    chunk[empty] <- lapply(chunk[empty], as.double)
    # The first chunk fixes the types (numbers stay numbers where a later chunk is all whole).
    if (identical(classes, NA)) {
      classes <<- vapply(chunk, function(v) {
        if (all(is.na(v))) NA_character_ else if (is.numeric(v)) "numeric" else class(v)[1]
      }, character(1))
    }
    chunk
  }
  list(next_chunk = next_chunk, position = function() if (seekable) seek(con) else 0,
       close = function() {
         close(con)
         if (!is.null(twin)) close(twin)
       },
       columns = columns)
}

# A chunk read all as text, typed as read.csv() would have typed it: columns of no type yet (all
# of the first chunk's) by utils::type.convert(), those the first chunk fixed as numbers by
# numbers_from_text(); hexadecimal and infinite numbers are refused in both, in the `strict`
# columns of csv_chunks() (`before` rows precede the chunk).
types_from_text <- function(chunk, classes, path, before, strict) {
  untyped <- if (identical(classes, NA)) setdiff(names(chunk), strict$text) else names(classes)[is.na(classes)]
  for (col in untyped) {
    value <- utils::type.convert(chunk[[col]], as.is = TRUE, na.strings = character())
    if (is.numeric(value)) refuse_unreadable_numbers(chunk[[col]], value, col, path, before, strict)
    chunk[[col]] <- value
  }
  numbers_from_text(chunk, names(classes)[classes %in% "numeric"], path, before, strict)
}

# Columns that the first chunk fixed as logical (a text column whose first chunk held only T,
# F, TRUE or FALSE), read as text and converted; another value is an error naming the column,
# the value and its data row (`before` rows precede the chunk).
logicals_from_text <- function(chunk, logical_columns, chunk_rows, before) {
  for (col in logical_columns) {
    text <- trimws(chunk[[col]])
    text[text %in% c("", "NA")] <- NA
    value <- c(T = TRUE, F = FALSE, `TRUE` = TRUE, `FALSE` = FALSE, true = TRUE, false = FALSE,
               True = TRUE, False = FALSE)[text]
    bad <- which(is.na(value) & !is.na(text))
    if (length(bad)) {
      written <- if (make.names(col) == col) col else paste0("`", col, "`")
      ncam_abort(c("Column {.field {col}} was read as logical ({.code TRUE}/{.code FALSE}) from the first chunk of {chunk_rows} rows, which fixes the column types, but data row {before + bad[1]} holds {.val {text[bad[1]]}}, which is not {.code TRUE} or {.code FALSE}.",
                   i = "Text such as {.val T} or {.val F} in every row of the first chunk reads as logical. Read the column as text with {.code reader = function(p) utils::read.csv(p, colClasses = c({written} = \"character\"))}."),
                 class = "ncam_chunk_logical_column", call = NULL)
    }
    chunk[[col]] <- unname(value)
  }
  chunk
}

# Columns read as text that the first chunk had as numbers, converted as read.csv() would (an
# empty field, spaces, NA and NaN are missing), but for hexadecimal and infinite numbers in the
# `strict` columns, which the readers refuse too; other text that is not a number is an error
# rather than a silent NA.
numbers_from_text <- function(chunk, numeric_columns, path, before, strict) {
  for (col in numeric_columns) {
    text <- chunk[[col]]
    value <- suppressWarnings(as.numeric(text))
    unread <- which(is.na(value))
    bad <- unread[!is_missing_value_text(text[unread])]
    if (length(bad)) {
      ncam_abort(c("Column {.field {col}} of {.file {path}} is not numeric: data row {before + bad[1]} is {.val {text[bad[1]]}}.",
                   i = "The first chunk read it as numbers, which fixes the column types. Write a number there, or leave the field empty for a missing one."),
                 class = "ncam_chunk_not_numeric", call = NULL)
    }
    refuse_unreadable_numbers(text, value, col, path, before, strict)
    value[unread] <- NA
    chunk[[col]] <- value
  }
  chunk
}

# as.numeric(), scan() and type.convert() read hexadecimal ("0x1A" as 26), in which no reading
# is written, and "Inf", "-inf", "Infinity" or 1e999 as infinite, which no reading is and
# predict() refuses: in the `strict` columns of csv_chunks(), an error naming the column, the
# value and its data row, as the readers give.
refuse_unreadable_numbers <- function(text, value, col, path, before, strict) {
  written <- if (make.names(col) == col) col else paste0("`", col, "`")
  # Of the letters R reads in numbers (e, Inf, NaN, hexadecimal digits), only hexadecimal has x.
  hex <- if (col %in% strict$decimal) which(!is.na(value) & grepl("[xX]", text, perl = TRUE)) else integer()
  if (length(hex)) {
    ncam_abort(c("Column {.field {col}} of {.file {path}} is not numeric: data row {before + hex[1]} is {.val {text[hex[1]]}}.",
                 i = "Hexadecimal text is not read as a number, as in ncam's readers ({.fn utils::read.csv} reads it as {value[hex[1]]}). If the column holds codes, read it as text with {.code reader = function(p) utils::read.csv(p, colClasses = c({written} = \"character\"))}."),
               class = "ncam_chunk_not_numeric", call = NULL)
  }
  infinite <- if (col %in% strict$finite) which(is.infinite(value)) else integer()
  if (length(infinite)) {
    ncam_abort(c("Column {.field {col}} of {.file {path}} is not a finite number: data row {before + infinite[1]} is {.val {text[infinite[1]]}}{if (length(infinite) > 1) paste0(' (', length(infinite), ' such rows in this chunk)')}.",
                 i = "{.fn utils::read.csv} reads it as {value[infinite[1]]}, which is not a reading: the model reads this column, and {.fn predict} refuses infinite readings and covariates. Write the reading there, or leave the field empty for a missing one."),
               class = "ncam_chunk_not_numeric", call = NULL)
  }
}

# Infinite values, from a reader, a Parquet file or a function input (CSV text is refused as it
# is read), in the columns predict() reads: it refuses them too, but names the row within the
# chunk; this names the row of the input. `first_row` is the input row of the chunk's first.
refuse_infinite_inputs <- function(chunk, object, predict_args, first_row, source) {
  for (col in intersect(columns_predict_reads(object, predict_args), names(chunk))) {
    infinite <- if (is.double(chunk[[col]])) which(is.infinite(chunk[[col]])) else integer()
    if (length(infinite) == 0L) next
    value <- as.double(chunk[[col]][infinite[1]])
    ncam_abort(c("Column {.field {col}} of {source} is not a finite number: data row {format(first_row - 1 + infinite[1], scientific = FALSE)} is {value}{if (length(infinite) > 1) paste0(' (', length(infinite), ' such rows in this chunk)')}.",
                 i = "{.fn predict} refuses infinite readings and covariates. Replace infinite values with {.code NA}: a missing reading or covariate is handled row by row."),
               class = "ncam_chunk_not_numeric", call = NULL)
  }
}

# Plain numbers, as a CSV file holds them, in a column predict() reads that the fit converted
# (opc given in mg/m3, fused in ug/m3) could be in either unit: predict() refuses them, and this
# says how to give them units here: by `units`, a `reader` or from the function input.
refuse_plain_converted_inputs <- function(chunk, object, predict_args, source, from_function) {
  model <- chunk_fit(object)
  plain <- intersect(plain_converted_columns(model, chunk), columns_predict_reads(object, predict_args))
  if (!length(plain)) return(invisible())
  v <- plain[1]
  given <- attr(model$units, "given")[[v]]
  set_units <- sprintf("units::set_units(chunk$%s, \"%s\", mode = \"standard\")", v, given)
  ncam_abort(c("Column {.field {v}} of {source} has no units, and the model was fitted to it in {.val {given}}, converted to {.val {model$units[[v]]}}: plain numbers could be in either.",
               i = "Give the unit its numbers are in with {.arg units}, such as {.code units = list({v} = \"{given}\")}.",
               i = if (from_function) "Or have {.arg input} return {.field {v}} with its units: {.code chunk${v} <- {set_units}}." else
                 "Or give a {.arg reader} that sets its units, such as {.code function(path) {{ chunk <- utils::read.csv(path); chunk${v} <- {set_units}; chunk }}}.",
               i = if (identical(v, model$reference)) "Or leave {.arg use_reference} out: without it, the reference is not read."),
             call = NULL)
}

# The chunk with its columns named in `units` (of check_chunk_units()) given those units. One
# that has units already, from a `reader` or the function input, is an error: which is right?
set_chunk_units <- function(chunk, units, source) {
  for (v in intersect(names(units), names(chunk))) {
    column <- chunk[[v]]
    if (inherits(column, "units")) {
      ncam_abort(c("Column {.field {v}} of {source} has units already, {.val {unit_text(column)}}, and {.arg units} gives it {.val {units[[v]]}}.",
                   i = "Give its units in one place: leave it out of {.arg units}, or give it as plain numbers."), call = NULL)
    }
    column <- all_missing_as_numeric(column)  # no reading at all
    if (!is.numeric(column)) {
      ncam_abort("Column {.field {v}} of {source} must hold numbers to take the unit {.val {units[[v]]}} of {.arg units}, not {.obj_type_friendly {column}}.",
                 call = NULL)
    }
    chunk[[v]] <- units::set_units(as.double(column), units[[v]], mode = "standard")
  }
  chunk
}

# The `strict` columns of csv_chunks() for a task of predict_chunks(): infinite numbers in those
# predict() reads as numbers; hexadecimal text there, in the unit column of a fit with unit
# offsets (a code read as a number would be an unknown unit) and in the kept columns; `times`
# (chunk_times_from_text()) the kept columns and the `by` columns of fits by group.
strict_csv_columns <- function(task) {
  read <- columns_predict_reads(task$object, task$predict_args)
  keys <- group_key_columns(task$object)
  times <- c(stats::setNames(vector("list", length(task$keep)), task$keep), keys$times)
  list(finite = read, decimal = c(read, chunk_fit(task$object)$unit_offsets$unit, task$keep),
       text = unique(c(unlist(lapply(chunk_fits(task$object), code_columns)), keys$text)),
       times = times[!duplicated(names(times), fromLast = TRUE)])
}

# Parquet files: in record batches with arrow when it is installed, else whole with nanoparquet
# (a small package, in Suggests), handed out in chunks.
parquet_chunks <- function(path, chunk_rows) {
  check_parquet_reader()
  if (!requireNamespace(streaming_parquet_package, quietly = TRUE)) {
    return(whole_file_chunks(path, chunk_rows, read_whole_parquet))
  }
  arrow_fn <- function(name) getExportedValue(streaming_parquet_package, name)
  dataset <- arrow_fn("open_dataset")(path, format = "parquet")
  batches <- arrow_fn("Scanner")$create(dataset, batch_size = chunk_rows)$ToRecordBatchReader()
  next_chunk <- function() {
    batch <- batches$read_next_batch()
    if (!is.null(batch)) as.data.frame(batch)
  }
  list(next_chunk = next_chunk, position = function() 0, close = function() NULL)
}

# A reader's whole file, handed out in chunks.
whole_file_chunks <- function(path, chunk_rows, reader) {
  data <- reader(path)
  if (!is.data.frame(data)) {
    ncam_abort("{.arg reader} must return a data frame; for {.file {path}} it returned {.obj_type_friendly {data}}.",
               call = NULL)
  }
  done <- 0
  next_chunk <- function() {
    if (done >= nrow(data)) return(NULL)
    rows <- seq(done + 1, min(done + chunk_rows, nrow(data)))
    done <<- max(rows)
    data[rows, , drop = FALSE]
  }
  list(next_chunk = next_chunk, position = function() 0, close = function() NULL)
}

read_whole_parquet <- function(path) {
  tryCatch(as.data.frame(nanoparquet::read_parquet(path)), error = function(e) {
    ncam_abort(c("Could not read {.file {path}} as a Parquet file.", x = conditionMessage(e)),
               call = NULL)
  })
}

# arrow is a long source build, so it is not in DESCRIPTION (R CMD check --as-cran would then
# look it up on CRAN); it is used only when installed.
streaming_parquet_package <- "arrow"

check_parquet_reader <- function(call = parent.frame()) {
  if (!requireNamespace("nanoparquet", quietly = TRUE) &&
      !requireNamespace(streaming_parquet_package, quietly = TRUE)) {
    ncam_abort(c("Reading Parquet files needs the {.pkg nanoparquet} or the {.pkg arrow} package; neither is installed.",
                 i = "Install one with {.code install.packages(\"nanoparquet\")} (small; reads each file whole) or {.code install.packages(\"arrow\")} (reads large files in parts), or convert the files to CSV."),
               call = call)
  }
}

# warn_part_totals() for the chunks of `input`, after the warnings `gathered` from them (see
# warn_gathered_chunks()). Its warning about levels not seen in training also names the
# training levels, and, where text codes were read as numbers ("001" as 1), how to read them as text.
warn_chunk_totals <- function(flags, n_rows, beyond, object, files, gathered) {
  warn_gathered_chunks(gathered)
  model <- chunk_fit(object)
  if (is_chunk_groups(object)) {
    warn_chunk_rows_without_group(object, beyond$groups$missing)
    # As predict() of fits by group: the row warnings count the rows that have a model.
    if (!is.null(beyond$groups$missing)) n_rows <- n_rows - sum(beyond$groups$missing$.rows)
  }
  withCallingHandlers(
    warn_part_totals(flags, n_rows, if (is_chunk_groups(object)) "groups" else "chunks", beyond, of = "{.arg input}",
                     part_flags = if (is.null(beyond$groups$flags)) list() else beyond$groups$flags),
    ncam_warning_unseen_level = function(w) {
      hints <- unseen_level_hints(model, w$levels, files)
      if (length(hints)) {
        # The message is formatted text: the bullets go in before its closing advice.
        text <- cli::format_message(gsub("([{}])", "\\1\\1", hints))
        at <- regexpr("\n[^\n]*Leave those rows out", w$message)
        w$message <- if (at > 0) paste0(substr(w$message, 1, at), text, substring(w$message, at)) else
          paste0(w$message, "\n", text)
      }
      warning(w)
      invokeRestart("muffleWarning")
    })
}

# Per factor term with unseen levels, its training levels; and when the unseen levels are
# numbers equal to training codes that numbers would not write back ("001"), the reader that
# keeps them text.
unseen_level_hints <- function(model, levels, files) {
  hints <- character()
  as_text <- character()
  as_logical <- character()
  for (v in names(levels)) {
    seen <- model$xlevels[[v]]
    if (is.null(seen)) next
    hints <- c(hints, "*" = sprintf("Levels of %s in training: %s", plain_names(v), quoted(seen)))
    seen_numbers <- suppressWarnings(as.numeric(seen))
    unseen_numbers <- suppressWarnings(as.numeric(levels[[v]]))
    zeros <- number_rewrites_code(seen)
    if (any(zeros) && any(unseen_numbers %in% seen_numbers[zeros])) {
      as_text <- c(as_text, intersect(all.vars(str2lang(v)), model_columns(model$terms)))
      example <- seen[zeros][1]
      example_read <- key_text(as.numeric(example))
    }
    # Text "T"/"F" read as logical: its levels are "TRUE" and "FALSE".
    if (all(levels[[v]] %in% c("TRUE", "FALSE")) && any(seen %in% c("T", "F", "true", "false"))) {
      as_logical <- c(as_logical, intersect(all.vars(str2lang(v)), model_columns(model$terms)))
    }
  }
  if (length(as_logical)) {
    as_logical <- unique(as_logical)
    written <- ifelse(make.names(as_logical) == as_logical, as_logical, paste0("`", as_logical, "`"))
    hints <- c(hints, i = sprintf("%s %s as logical: read %s as text (for example with `reader = function(p) utils::read.csv(p, colClasses = c(%s))`).",
                                  if (files) "The file reader read" else "The chunks hold", paste0("`", as_logical, "`", collapse = ", "),
                                  if (length(as_logical) == 1L) "it" else "them", paste0(written, " = \"character\"", collapse = ", ")))
  }
  if (!length(as_text)) return(hints)
  as_text <- unique(as_text)
  written <- ifelse(make.names(as_text) == as_text, as_text, paste0("`", as_text, "`"))
  classes <- sprintf("colClasses = c(%s)", paste0(written, " = \"character\"", collapse = ", "))
  fix <- if (files) {
    sprintf("The file reader read %s as numbers, which changes codes such as \"%s\" (read as %s): read %s as text with `reader = function(p) utils::read.csv(p, %s)`.",
            paste0("`", as_text, "`", collapse = ", "), example, example_read, if (length(as_text) == 1L) "it" else "them", classes)
  } else {
    sprintf("The chunks hold %s as numbers, which changes codes such as \"%s\" (read as %s): give %s as text (for example read with `%s`).",
            paste0("`", as_text, "`", collapse = ", "), example, example_read, if (length(as_text) == 1L) "it" else "them", classes)
  }
  c(hints, i = fix)
}
