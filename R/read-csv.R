# Shared internals of the file readers: CSV text read byte for byte, checked for
# encoding, ragged rows and duplicated column names, and typed with errors that name the
# file, column, row and line at fault.

# All columns as character (so IDs such as "4047E5" stay text), after checking that the
# file exists and has the required columns. `member` names a CSV inside a zip file; `zip`
# says whether the reader takes zip files at all (for the hint on a binary file). The file
# line on which each row starts is kept in attribute "line" for error messages.
read_csv_columns <- function(path, required, member = NULL, zip = FALSE, call = parent.frame()) {
  check_string(path, "path", call = call)
  if (dir.exists(path)) {
    # As given to read_senseurcity_antwerp(), which takes a folder.
    files <- list.files(path, pattern = "\\.(csv|txt|zip|gz)$", ignore.case = TRUE)
    ncam_abort(c("{.arg path} must be a file, not the folder {.file {path}}.",
                 i = if (length(files)) "Give one of its files: {.file {utils::head(files, 5)}}{if (length(files) > 5) ', ...'}." else
                   "It holds no .csv, .txt, .zip or .gz file."),
               call = call)
  }
  if (!file.exists(path)) ncam_abort("{.arg path} must be an existing file, not {.file {path}}.", call = call)
  label <- if (is.null(member)) path else paste0(path, "[", member, "]")
  lines <- read_utf8_lines(path, member, label, zip, call)
  parse_csv_lines(lines, label, required, call)
}

# The file's lines as UTF-8 strings. The bytes are read undecoded, so a byte that is not
# UTF-8 can neither truncate the file nor pass unnoticed: such lines are decoded as
# Latin-1 (the usual culprit, e.g. from spreadsheet exports) with a warning naming them.
read_utf8_lines <- function(path, member, label, zip, call) {
  con <- if (is.null(member)) gzfile(path, "rb") else unz(path, member, "rb")
  on.exit(close(con))
  chunks <- list()
  repeat {
    chunk <- readBin(con, "raw", 1e7)
    if (length(chunk) == 0L) break
    chunks[[length(chunks) + 1L]] <- chunk
  }
  bytes <- unlist(chunks)
  if (is.null(bytes)) bytes <- raw()
  nul <- which(bytes == as.raw(0L))
  if (length(nul) > 0L) {
    line <- sum(bytes[seq_len(nul[1])] == as.raw(10L)) + 1L
    formats <- if (zip) "plain, gzip or zip (named {.file .zip})" else "plain or gzip-compressed"
    starts_with <- function(signature) length(bytes) >= length(signature) && identical(bytes[seq_along(signature)], signature)
    archive <- starts_with(as.raw(c(0x50, 0x4b, 0x03, 0x04)))
    # An .xlsx workbook is a zip archive holding xl/workbook.xml; an .xls one is an OLE2 file.
    workbook <- (archive && length(grepRaw("xl/workbook.xml", bytes, fixed = TRUE)) > 0L) ||
      starts_with(as.raw(c(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1)))
    hint <- if (workbook) {
      "It looks like an Excel workbook: export it to CSV first (in Excel, Save As {.val CSV UTF-8})."
    } else if (archive && !zip) "It is a zip archive: unzip it first." else "Is it UTF-16 or compressed?"
    ncam_abort(c("File {.file {label}} is not a text CSV file: line {line} holds a NUL byte.",
                 i = paste(hint, "This reader reads", formats, "CSV files.")),
               call = call)
  }
  bom <- as.raw(c(0xef, 0xbb, 0xbf))
  if (length(bytes) >= 3L && identical(bytes[1:3], bom)) bytes <- bytes[-(1:3)]
  text <- rawConnection(bytes)
  on.exit(close(text), add = TRUE)
  lines <- readLines(text, warn = FALSE)
  bad <- which(!validUTF8(lines))
  if (length(bad) > 0L) {
    lines[bad] <- iconv(lines[bad], from = "latin1", to = "UTF-8")
    cli::cli_warn(c("File {.file {label}} is not valid UTF-8: {length(bad)} line{?s} decoded as Latin-1, the first being line {bad[1]}.",
                    i = "Check accented text such as site names; save the file as UTF-8 to silence this warning."),
                  call = call, class = c("ncam_warning_encoding", "ncam_warning"))
  }
  Encoding(lines) <- "UTF-8"
  lines
}

# Data frame of character columns from CSV lines. The header must name the `required`
# columns, each once; every record must have as many fields as the header (a truncated
# last line is an error, never a row of NAs). Blank lines and lines of blanks alone are
# skipped; quoted fields may span lines, and a quote within a field is a literal character.
parse_csv_lines <- function(lines, label, required, call) {
  # Before the quotes are read: a quoted semicolon- or tab-separated header (as write.csv2() and
  # Excel write it) is not CSV with a stray quote.
  first <- lines[grepl("[^ \t]", lines)][1]
  if (length(required) && !is.na(first) && !grepl(",", first, fixed = TRUE)) check_separator(first, label, call)
  lines <- protect_literal_quotes(lines, label, call)
  placeholder <- attr(lines, "placeholder")
  lines[!attr(lines, "inside") & grepl("^[ \t]+$", lines)] <- ""
  counts <- if (length(lines) == 0L) integer() else {
    con <- textConnection(lines, encoding = "UTF-8")
    on.exit(close(con))
    utils::count.fields(con, sep = ",", quote = "\"", blank.lines.skip = FALSE, comment.char = "")
  }
  # NA marks a line whose quoted field continues on the next line; 0 a blank line.
  continued <- is.na(counts)
  blank <- !continued & counts == 0L
  starts <- which(!blank & c(TRUE, !continued[-length(counts)]))
  ends <- which(!continued & !blank)
  if (length(ends) == 0L) {
    ncam_abort("File {.file {label}} is empty: it has no header line.", call = call)
  }
  header <- utils::read.csv(text = lines[starts[1]:ends[1]], header = FALSE, colClasses = "character",
                            na.strings = character(), comment.char = "", quote = "\"")
  header <- unlist(restore_literal_quotes(header, placeholder)[1, ], use.names = FALSE)
  missing <- setdiff(required, header)
  if (length(missing) > 0L) {
    check_separator(header, label, call)
    # Two slips that hide the names: blanks around them, and Excel's "sep=," line above them.
    padded <- all(missing %in% trimws(header))
    excel <- grepl("^sep=", header[1])
    ncam_abort(c("File {.file {label}} lacks required {cli::qty(length(missing))}column{?s} {.val {missing}}.",
                 i = "It has {cli::qty(length(header))}column{?s} {.val {header}}.",
                 i = if (padded) "The names have blanks around them: remove the blanks after the commas of the header line.",
                 i = if (excel) "Its first line, {.val {lines[starts[1]]}}, is the separator line Excel writes: remove it."),
               call = call)
  }
  named <- header[nzchar(header)]
  duplicated_names <- unique(named[duplicated(named)])
  if (length(duplicated_names) > 0L) {
    ncam_abort(c("File {.file {label}} has duplicated column name{?s} {.val {duplicated_names}}.",
                 i = "Which copy to read is ambiguous: rename or remove the duplicates."),
               call = call)
  }
  n_fields <- counts[ends[1]]
  wrong <- which(counts[ends[-1]] != n_fields)
  if (length(wrong) > 0L) {
    line <- starts[wrong[1] + 1L]
    ncam_abort(c("Line {line} of {.file {label}} has {counts[ends[wrong[1] + 1L]]} field{?s} but the header has {n_fields}.",
                 i = "{length(wrong)} line{?s} {?is/are} ragged. A truncated or malformed row cannot be read safely: repair or remove it."),
               call = call)
  }
  raw <- utils::read.csv(text = lines, colClasses = "character", check.names = FALSE,
                         na.strings = c("", "NA"), strip.white = FALSE, comment.char = "",
                         quote = "\"", blank.lines.skip = TRUE)
  if (nrow(raw) != length(ends) - 1L || ncol(raw) != n_fields) {
    ncam_abort("File {.file {label}} holds {length(ends) - 1L} record{?s} of {n_fields} field{?s} but {nrow(raw)} row{?s} of {ncol(raw)} were read.",
               call = call)
  }
  raw <- restore_literal_quotes(raw, placeholder)
  # The header again (two downloads pasted together) would fail as a bad value of one column.
  again <- which(Reduce(`&`, Map(function(v, name) !is.na(v) & v == name, raw, names(raw)), TRUE))
  if (length(again) > 0L) {
    ncam_abort(c("Line {starts[again[1] + 1L]} of {.file {label}} repeats the header ({length(again)} line{?s} do{?es/}): files pasted together?",
                 i = "Remove the repeated header lines, or give the files one by one."), call = call)
  }
  attr(raw, "line") <- starts[-1]
  raw
}

# A header read as one field holding tabs or ";" is from write.csv2() or a European Excel: the
# separator's name, else NULL (readers and predict_chunks() name it in their errors).
foreign_separator <- function(header_fields) {
  if (length(header_fields) != 1L) return(NULL)
  if (grepl("\t", header_fields)) "tab" else if (grepl(";", header_fields, fixed = TRUE)) "semicolon"
}

# The error for a header that is one field holding semicolons or tabs. The conversion keeps the
# column names as written (check.names = FALSE): read.csv2() would make "5325CAT" "X5325CAT".
check_separator <- function(header, label, call) {
  separator <- foreign_separator(header)
  if (is.null(separator)) return(invisible())
  convert <- if (separator == "tab") "read.delim" else "read.csv2"
  ncam_abort(c("File {.file {label}} looks {separator}-separated: its header is the single field {.val {header}}.",
               i = "ncam's readers read comma-separated CSV. Convert the file first, e.g. with {.code write.csv({convert}(file, check.names = FALSE), new_file, row.names = FALSE)} or {.code data.table::fwrite(data.table::fread(file), new_file)}."),
             call = call)
}

# `raw` without rows that repeat the `keys` of an earlier row. An exact copy (as from a file
# appended twice) is dropped; a repeat with other values is an error, as which row is right is
# unknown. Rows with a missing key are left for the column checks to report.
drop_repeated_rows <- function(raw, keys, label, call = parent.frame()) {
  key <- do.call(paste, c(unname(as.list(raw[keys])), sep = "\r"))
  key[rowSums(is.na(raw[keys])) > 0L] <- NA
  again <- duplicated(key, incomparables = NA)
  if (!any(again)) return(raw)
  lines <- attr(raw, "line")
  copy <- again & duplicated(raw)
  clash <- which(again & !copy)
  if (length(clash) > 0L) {
    first <- match(key[clash[1]], key)
    what <- paste(keys, encodeString(unlist(raw[clash[1], keys]), quote = "\""), collapse = ", ")
    ncam_abort(c("File {.file {label}} has two rows for {what} with different values: {row_at(first, lines)} and {row_at(clash[1], lines)}.",
                 i = "{length(clash)} row{?s} repeat{?s/} an earlier row's {.val {keys}} with other values; which is right is unknown. Remove the wrong ones (exact copies are dropped)."),
               call = call)
  }
  out <- raw[!copy, , drop = FALSE]
  attr(out, "line") <- lines[!copy]
  out
}

# Column `col` of `raw` must name something in every row: an error naming the first row and
# line that does not. Spaces name nothing, and neither do NA and NaN (pandas writes a missing ID
# as NaN), which would otherwise become an ID of their own.
check_filled <- function(raw, col, label, call = parent.frame()) {
  missing <- which(is_missing_value_text(raw[[col]]))
  if (length(missing) == 0L) return(invisible())
  row <- missing[1]
  text <- raw[[col]][row]
  where <- row_at(row, attr(raw, "line"))
  message <- if (is.na(text) || !nzchar(trimws(text))) {
    "Column {.val {col}} of {.file {label}} is empty in {where}."
  } else {
    "Column {.val {col}} of {.file {label}} is missing in {where}: it holds {.val {text}}, a missing value."
  }
  ncam_abort(c(message, i = "Every row needs its {.val {col}}: fill it in, or remove the rows without one ({length(missing)} row{?s})."),
             call = call)
}

# Where a row sits, for messages: "row 3 (line 4)" when the file line is known.
row_at <- function(row, lines) {
  if (is.null(lines)) paste("row", row) else sprintf("row %d (line %d)", row, lines[row])
}

# Numeric column as double. Text must be a decimal number (as "12.5" or "1e-3"), or NA, NaN,
# empty or spaces alone (missing); numbers pass through, NaN as NA; integer64 (e.g. from
# data.table::fread) is converted by value, never by its raw bits.
as_number <- function(x, col, path, lines = NULL, call = parent.frame()) {
  if (inherits(x, "integer64")) return(integer64_to_double(x, col, call))
  if (is.numeric(x)) return(replace(as.double(x), is.nan(x), NA))
  out <- decimal_numbers(x)
  bad <- which((is.na(out) & !is_missing_value_text(x)) | is.infinite(out))
  if (length(bad) > 0L) {
    ncam_abort("Column {.val {col}} of {.file {path}} is not numeric: {row_at(bad[1], lines)} is {.val {x[bad[1]]}}.",
               call = call)
  }
  out
}

# Whether each text stands for a missing value, in a numeric column or an ID column alike: NA,
# an empty field or spaces alone, and NaN in any case or sign ("NaN" from MATLAB, "nan" from
# numpy, a missing ID from pandas). Readers return NA for all of them: downstream, NA is the
# missing value.
is_missing_value_text <- function(text) {
  text <- trimws(text)
  is.na(text) | !nzchar(text) | text == "NA" | grepl("^[+-]?nan$", text, ignore.case = TRUE)
}

# Text as numbers, NA where it is not a number in decimal or scientific notation: as.numeric()
# also takes hexadecimal ("0x1A" is 26), in which no reading is written.
decimal_numbers <- function(x) {
  if (is.numeric(x)) return(as.double(x))
  text <- trimws(x)
  number <- grepl("^[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?$", text)
  out <- rep(NA_real_, length(x))
  out[number] <- as.numeric(text[number])
  out
}

# Values that data loggers, portals and exports write for "no reading". No reading of air or
# weather takes them, while small negative readings are real (reference PM monitors report
# them, temperatures fall below zero, electrochemical signals in mV reach -61), so only these
# exact values count: not every negative, nor -99. Positive codes (9999) are left alone, as a
# concentration can be that large.
missing_value_codes <- c(-999, -9999, -99999, -999999, -999.9, -9999.9)

# Relative humidity (%) beyond which a reading is impossible: sensors read a little above 100 in
# fog and a little below 0 after calibration, never 10 points beyond.
possible_rh <- c(-10, 110)

# `data` with the values of `columns` (text or numbers) that are missing-value codes, or lie
# outside their `ranges` (such as a humidity of 250 %), set to NA, with one classed warning per
# kind naming the columns, counts and first rows: averaged as a number, one -999 among sixty
# readings of 10 gives a mean of -6.8, silently. `where` names the table (formatted text),
# `lines` the file line of each row; `fix` may use `{class}`, the warning's class. Ranges are
# given for relative humidity alone, as the warning says.
blank_unusable_values <- function(data, columns, where, lines = NULL, ranges = list(), fix,
                                  call = parent.frame()) {
  found <- list(code = list(), outside = list())
  for (col in columns) {
    x <- decimal_numbers(data[[col]])
    range <- if (is.null(ranges[[col]])) c(-Inf, Inf) else ranges[[col]]
    is_code <- x %in% missing_value_codes
    is_outside <- !is_code & !is.na(x) & (x < range[1] | x > range[2])
    for (kind in names(found)) {
      rows <- which(if (kind == "code") is_code else is_outside)
      if (length(rows)) {
        found[[kind]][[col]] <- unusable_detail(col, rows, x[rows], lines, if (kind == "outside") range)
      }
    }
    data[[col]][is_code | is_outside] <- NA
  }
  if (length(found$code)) {
    n <- sum(vapply(found$code, attr, 1, "n"))
    class <- "ncam_warning_missing_code"  # for `fix`
    cli::cli_warn(c("{where}: {n} value{?s} {?is a/are} missing-value code{?s} ({missing_value_codes}), read as {.code NA}.",
                    stats::setNames(unlist(found$code), rep("*", length(found$code))),
                    i = "Loggers and data portals write such codes for a missing reading; averaged as numbers, they would drag means far off.",
                    i = fix),
                  class = c("ncam_warning_missing_code", "ncam_warning"), call = call)
  }
  if (length(found$outside)) {
    n <- sum(vapply(found$outside, attr, 1, "n"))
    class <- "ncam_warning_impossible_value"  # for `fix`
    cli::cli_warn(c("{where}: {n} value{?s} {?lies/lie} outside the possible range, read as {.code NA}.",
                    stats::setNames(unlist(found$outside), rep("*", length(found$outside))),
                    i = "Relative humidity lies between 0 and 100 %, read a few points beyond at most: such values are faults or codes of the sensor.",
                    i = fix),
                  class = c("ncam_warning_impossible_value", "ncam_warning"), call = call)
  }
  data
}

# The readers' use of blank_unusable_values(): missing-value codes in a file's numeric `columns`,
# and impossible humidities in `rh_columns`, become NA with a warning naming the file.
blank_file_values <- function(raw, columns, label, rh_columns = character(), call = parent.frame()) {
  ranges <- rep(list(possible_rh), length(rh_columns))
  names(ranges) <- rh_columns
  lines <- attr(raw, "line")
  raw <- blank_unusable_values(raw, columns, cli::format_inline("File {.file {label}}"), lines, ranges,
                               fix = "They are left out as missing readings; if that is expected, muffle this warning with {.code suppressWarnings(..., classes = \"{class}\")}.",
                               call = call)
  attr(raw, "line") <- lines
  raw
}

# The readers' help on missing-value codes (roxygen @eval), from the codes they use; `rh` names
# the humidity columns checked for impossible values.
missing_codes_rd <- function(rh = NULL) {
  codes <- paste(paste(utils::head(missing_value_codes, -1), collapse = ", "), "or",
                 utils::tail(missing_value_codes, 1))
  c("@section Missing values:",
    paste0("A value of exactly ", codes, " in a numeric column, as loggers and data portals ",
           "write for a missing reading, is read as `NA`, with a warning of class ",
           "`ncam_warning_missing_code` naming the file, the column, the count and the first ",
           "rows and lines: averaged as numbers, such codes drag means far off. Other values, ",
           "such as small negative readings, are kept, and so are positive codes such as 9999: ",
           "set those to `NA` yourself. [join_reference()] does the same."),
    "",
    paste0("Empty fields, fields of spaces alone, `NA` and `NaN` (in any case, as MATLAB, numpy ",
           "and pandas write it) are missing values, read as `NA`. Other text in a numeric ",
           "column, such as `12,5`, `<LOD` or hexadecimal `0x1A`, is an error naming the file, ",
           "the column, the row and the line."),
    if (!is.null(rh)) {
      c("", paste0("A relative humidity (", rh, ") below ", possible_rh[1], " or above ", possible_rh[2],
             " % is impossible (sensors read a few points beyond 0 and 100 at most) and is read ",
             "as `NA` too, with a warning of class `ncam_warning_impossible_value`."))
    })
}

# One column's unusable values for a message (braces doubled, as cli interpolates the text):
# the column, how many, and the first three with their rows; attribute "n" is the count.
unusable_detail <- function(col, rows, values, lines, range) {
  more <- if (length(rows) > 3L) sprintf(" and %d more", length(rows) - 3L) else ""
  first <- utils::head(seq_along(rows), 3L)
  text <- sprintf("Column \"%s\"%s: %d value%s, %s%s.", col,
                  if (is.null(range)) "" else sprintf(" (possible: %s to %s)", range[1], range[2]),
                  length(rows), if (length(rows) == 1L) "" else "s",
                  paste(row_at(rows[first], lines), "is", as.character(values[first]), collapse = ", "),
                  more)
  structure(gsub("([{}])", "\\1\\1", text), n = length(rows))
}

integer64_to_double <- function(x, col, call) {
  if (!requireNamespace("bit64", quietly = TRUE)) {
    ncam_abort(c("Column {.val {col}} is an {.cls integer64} column but package {.pkg bit64} is not installed.",
                 i = "Install {.pkg bit64}, or convert the column with {.code as.numeric()} where it is loaded."),
               call = call)
  }
  out <- as.double(x)
  if (any(abs(out) > 2^53, na.rm = TRUE)) {
    cli::cli_warn("Column {.val {col}} holds integers beyond 2^53 that a double cannot represent exactly.",
                  call = call, class = c("ncam_warning_integer_precision", "ncam_warning"))
  }
  out
}

# Dates (`date = TRUE`) or UTC times in a fixed format. Unparseable or missing values are an
# error, and so is text beyond the format (strptime() would silently ignore it).
parse_time <- function(x, format, col, path, date = FALSE, lines = NULL, call = parent.frame()) {
  out <- if (date) as.Date(x, format = format) else as.POSIXct(x, format = format, tz = "UTC")
  bad <- which(is.na(out) | format(out, format = format) != x)
  if (length(bad) > 0L) {
    ncam_abort("Column {.val {col}} of {.file {path}} must hold times as {.val {format}}: {row_at(bad[1], lines)} is {.val {x[bad[1]]}}.",
               call = call)
  }
  out
}

# The first of `candidates` that is a column of `raw`, or an error naming them all.
pick_column <- function(raw, candidates, path, call = parent.frame()) {
  found <- intersect(candidates, names(raw))
  if (length(found) == 0L) {
    ncam_abort(c("File {.file {path}} has no column {.or {.val {candidates}}}.",
                 i = "It has column{?s} {.val {names(raw)}}."), call = call)
  }
  found[1]
}

# Paths to read: a character vector of existing files.
check_paths <- function(path, arg = "path", call = parent.frame()) {
  if (!is.character(path) || length(path) == 0L || anyNA(path) || !all(nzchar(path))) {
    ncam_abort("{.arg {arg}} must be a character vector of file paths.", call = call)
  }
  absent <- path[!file.exists(path) | dir.exists(path)]
  if (length(absent) > 0L) {
    ncam_abort("{.arg {arg}} must name existing files; {.file {absent}} {?is/are} not.", call = call)
  }
  invisible(path)
}

# A tibble from a data frame or list of equal-length columns.
as_tbl <- function(x) {
  x <- as.list(x)
  n <- if (length(x) == 0L) 0L else length(x[[1]])
  tibble::new_tibble(x, nrow = n)
}
