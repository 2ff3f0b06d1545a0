# Quotes in CSV text, as RFC 4180 reads them: a quote opens a quoted field only at the start of
# a field (after blanks at most); elsewhere it is a literal character, such as the inch mark of
# a note `5" inlet`. R's parser (read.csv(), count.fields()) opens and closes a quoted field at
# every quote, so two such notes a few lines apart would make the lines between one field, and
# those rows would vanish without a word. parse_csv_lines() hands R's parser the lines with
# those literal quotes replaced by a placeholder, and restore_literal_quotes() puts them back.
# Blanks between a quoted field's quotes and its commas are not part of the value (`a, "b"` reads
# `b`), as readr::read_csv() and data.table::fread() read them; R's parser would keep them.

# `lines` with their literal quotes replaced by a placeholder character found nowhere in them,
# and the blanks around quoted fields removed; attributes "placeholder" (NULL when there was none
# to replace) and "inside" (whether each line lies within a quoted field that spans lines). A
# quoted field that never closes, or text after a closing quote (`"5" inlet`), is an error naming
# the line.
protect_literal_quotes <- function(lines, label, call) {
  inside <- logical(length(lines))
  has_quote <- grepl("\"", lines, fixed = TRUE)
  # Lines of whole fields, each quoted and closed, or not starting with a quote; `plain`
  # fields hold no quote at all. Possessive quantifiers keep the match linear in the line's
  # length. The parse is unique: a field starting with a quote is a quoted one.
  whole_fields <- function(plain) {
    field <- paste0("(?:[ \t]*\"(?:[^\"]++|\"\")*+\"[ \t]*|(?![ \t]*\")[^,", if (plain) "\"", "]*+)")
    paste0("^", field, "(?:,", field, ")*$")
  }
  # Most lines quote whole fields alone: they need nothing.
  clean <- has_quote
  clean[has_quote] <- grepl(whole_fields(plain = TRUE), lines[has_quote], perl = TRUE)
  # Lines of whole fields with a quote within a field that does not start with one.
  literal <- has_quote & !clean
  literal[literal] <- grepl(whole_fields(plain = FALSE), lines[literal], perl = TRUE)
  whole <- clean | literal
  placeholder <- NULL
  if (any(literal) || any(has_quote & !whole)) placeholder <- unused_character(lines)
  # A line with a quote but not of whole fields opens a field that spans lines, or is malformed:
  # read character by character, with the lines its record spans.
  scanned <- logical(length(lines))
  for (i in which(has_quote & !whole)) {
    if (scanned[i]) next
    record <- scan_csv_record(lines, i, placeholder, label, call)
    lines[i:record$end] <- record$lines
    scanned[i:record$end] <- TRUE
    inside[seq_len(record$end - i) + i] <- TRUE
  }
  # In the other lines of whole fields, the quotes outside the quoted fields are literal.
  literal <- literal & !scanned
  if (any(literal)) {
    lines[literal] <- gsub("(?:^|,)[ \t]*\"(?:[^\"]++|\"\")*+\"[ \t]*(?=,|$)(*SKIP)(*FAIL)|\"",
                           placeholder, lines[literal], perl = TRUE)
  }
  # Their quotes now all delimit quoted fields: the blanks around those go.
  padded <- whole & !scanned
  padded[padded] <- grepl("[ \t]\"|\"[ \t]", lines[padded], perl = TRUE)
  lines[padded] <- gsub("(^|,)[ \t]*(\"(?:[^\"]++|\"\")*+\")[ \t]*(?=,|$)", "\\1\\2", lines[padded], perl = TRUE)
  structure(lines, inside = inside, placeholder = placeholder)
}

# The record starting on line `start`: its lines with literal quotes replaced by `placeholder`
# and the blanks around quoted fields removed, and `end`, its last line.
scan_csv_record <- function(lines, start, placeholder, label, call) {
  blanks <- c(" ", "\t")
  state <- "field_start"
  i <- start
  repeat {
    chars <- strsplit(lines[i], "", fixed = TRUE)[[1]]
    k <- 1L
    field_begin <- 1L  # where the current field starts on this line
    while (k <= length(chars)) {
      char <- chars[k]
      if (state == "quoted") {
        if (char == "\"") {
          # A doubled quote is a quote within the field; a single one closes it.
          if (k < length(chars) && chars[k + 1L] == "\"") k <- k + 1L else state <- "closed"
        }
      } else if (char == ",") {
        state <- "field_start"
        field_begin <- k + 1L
      } else if (state == "closed") {
        if (!char %in% blanks) {
          field <- if (opened == i) "a quoted field" else "the quoted field opened on line {opened}"
          ncam_abort(c(paste0("Line {i} of {.file {label}} has text after the closing quote of ", field, ": {.val {lines[i]}}."),
                       i = "A quote opens a quoted field only at the start of a field, and within one a quote is written twice ({.val \"\"}). Repair the line."),
                     call = call)
        }
        chars[k] <- ""  # a blank after the closing quote
      } else if (char == "\"") {
        if (state == "field_start") {
          state <- "quoted"
          opened <- i
          chars[seq_len(k - field_begin) + field_begin - 1L] <- ""  # the blanks before it
        } else {
          chars[k] <- placeholder
        }
      } else if (!char %in% blanks) {
        state <- "unquoted"
      }
      k <- k + 1L
    }
    lines[i] <- paste(chars, collapse = "")
    if (state != "quoted") break
    if (i == length(lines)) {
      ncam_abort("File {.file {label}}: the quoted field opened on line {opened} never closes.",
                 call = call)
    }
    i <- i + 1L
  }
  list(lines = lines[start:i], end = i)
}

# A character of Unicode's private use area that none of `lines` holds.
unused_character <- function(lines) {
  for (code in 0xE000:0xF8FF) {
    char <- intToUtf8(code)
    if (!any(grepl(char, lines, fixed = TRUE))) return(char)
  }
  ncam_abort("The lines hold every character of Unicode's private use area; none is free to stand for a quote.")
}

# Character columns and names of `raw` with the placeholder turned back into quotes.
restore_literal_quotes <- function(raw, placeholder) {
  if (is.null(placeholder)) return(raw)
  names(raw) <- gsub(placeholder, "\"", names(raw), fixed = TRUE)
  for (col in seq_along(raw)) raw[[col]] <- gsub(placeholder, "\"", raw[[col]], fixed = TRUE)
  raw
}
