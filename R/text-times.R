# Dates and times written as text, as a CSV file holds them: typed as the package's readers type
# them (parse_timestamp(): ISO 8601 date-times, UTC when no zone is written; parse_time(): days
# as "2024-05-01"). predict_chunks() types its kept columns so (and the `by` columns of fits by
# group as the fits' keys), and the checks of a time column (date_column()) say how, given text.

# Days as write.csv() writes a Date (and a POSIXct whose times are all midnights).
text_day_pattern <- "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"

# "Date" when every value of `text` (but missing ones) is a day as "2024-05-01", "POSIXct" when
# every one is an ISO 8601 date-time that parse_timestamp() reads, NULL otherwise (or no value).
text_time_kind <- function(text) {
  if (!is.character(text)) return(NULL)
  values <- unique(text[!is_missing_value_text(text)])
  if (!length(values)) return(NULL)
  if (all(grepl(text_day_pattern, values)) && !anyNA(text_times(values, "Date"))) return("Date")
  if (!anyNA(text_times(values, "POSIXct"))) return("POSIXct")
  NULL
}

# `text` as `kind` ("Date" or "POSIXct"), NA where a value is missing or not such a time. A time
# without a zone is one of `tz` (UTC, as in the readers); a day alone is its midnight there.
text_times <- function(text, kind, tz = "UTC") {
  text <- trimws(text)
  missing <- is_missing_value_text(text)
  if (kind == "Date") {
    out <- as.Date(text, format = "%Y-%m-%d")
    out[missing | is.na(out) | format(out) != text] <- NA  # 2024-02-30 is no day
    return(out)
  }
  seconds <- rep(NA_real_, length(text))
  day <- !missing & grepl(text_day_pattern, text)
  seconds[day] <- as.numeric(as.POSIXct(text[day], format = "%Y-%m-%d", tz = tz))
  seconds[day & format(as.POSIXct(seconds, origin = "1970-01-01", tz = tz), "%Y-%m-%d", tz = tz) != text] <- NA
  iso <- which(!missing & !day & grepl("^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]", text))
  # parse_timestamp() refuses a whole column for one value; each is read alone only then.
  read <- function(x) tryCatch(as.numeric(parse_timestamp(x, "", "")), error = function(e) NA_real_)
  if (length(iso)) {
    together <- read(text[iso])
    seconds[iso] <- if (length(together) == length(iso)) together else vapply(text[iso], read, 1)
  }
  # Times without a zone are clock times of `tz`, which parse_timestamp() reads as UTC.
  local <- iso[!grepl("([Zz]|UTC|GMT|[+-][0-9]{2}(:?[0-9]{2})?)$", text[iso])]
  if (length(local) && tz != "UTC") {
    clock <- format(as.POSIXct(seconds[local], origin = "1970-01-01", tz = "UTC"), "%Y-%m-%d %H:%M:%OS6", tz = "UTC")
    seconds[local] <- as.numeric(as.POSIXct(clock, format = "%Y-%m-%d %H:%M:%OS", tz = tz))
  }
  as.POSIXct(seconds, origin = "1970-01-01", tz = tz)
}

# The columns of a chunk read from a CSV file that hold times as text (`times`: a list by column
# of NULL, to type a column whose values are all days or all date-times, or a key column of the
# fit, to type it as the key), typed; `classes` are the types the first chunk fixed (NA before
# it), `before` the rows before the chunk. A value that does not read as the column's type is an
# error naming it and its data row, as a number that is not one.
chunk_times_from_text <- function(chunk, times, classes, path, before) {
  for (col in intersect(names(times), names(chunk))) {
    text <- chunk[[col]]
    if (!is.character(text)) next
    key <- times[[col]]
    fixed <- if (!identical(classes, NA) && !is.na(classes[[col]])) classes[[col]]
    kind <- if (!is.null(key)) key_type(key) else if (!is.null(fixed)) fixed else text_time_kind(text)
    if (is.null(kind) || !kind %in% c("Date", "POSIXct")) next
    tz <- if (kind == "POSIXct" && !is.null(key)) c(attr(key, "tzone"), "")[1] else "UTC"
    value <- text_times(text, kind, tz)  # "": the session's zone
    bad <- which(is.na(value) & !is_missing_value_text(text))
    if (length(bad)) {
      what <- if (kind == "Date") "days such as {.val 2024-05-01}" else
        "ISO 8601 date-times such as {.val 2024-05-01 13:00:00} or {.val 2024-05-01T13:00:00Z}"
      why <- if (!is.null(key)) "The fit's groups have {.cls {kind}} keys in it" else
        "The first chunk read it as times, which fixes the column types"
      written <- if (make.names(col) == col) col else paste0("`", col, "`")
      ncam_abort(c(paste0("Column {.field {col}} of {.file {path}} must hold ", what, ": data row {before + bad[1]} is {.val {text[bad[1]]}}."),
                   i = paste0(why, ". Write such a time there, leave the field empty, or read the column as text with {.code reader = function(p) utils::read.csv(p, colClasses = c({written} = \"character\"))}.")),
                 class = "ncam_chunk_not_numeric", call = NULL)
    }
    chunk[[col]] <- value
  }
  chunk
}

# The code that makes a time column of text (`x`, column `date` of the data frame `data_arg`)
# a time column, when the package's readers read its text as times, and a note on the time
# zone: NULL otherwise. The code is checked to give those times.
time_text_fix <- function(x, date, data_arg) {
  kind <- text_time_kind(if (is.factor(x)) as.character(x) else x)
  if (is.null(kind)) return(NULL)
  column <- sprintf("%s$%s", data_arg, if (make.names(date) == date) date else paste0("`", date, "`"))
  text <- utils::head(as.character(x), 1000)
  want <- text_times(text, kind)
  candidates <- if (kind == "Date") list(c("as.Date(%s)", "")) else list(
    c("as.POSIXct(%s, tz = \"UTC\")", " (times without a zone are taken as UTC, as the package's readers take them)"),
    c("as.POSIXct(%s, format = \"%%Y-%%m-%%dT%%H:%%M:%%OSZ\", tz = \"UTC\")", ""))
  for (candidate in candidates) {
    got <- tryCatch(eval(str2lang(sprintf(candidate[1], "text")), list(text = text), baseenv()), error = function(e) NULL)
    if (!is.null(got) && identical(as.numeric(got), as.numeric(want))) {
      return(list(code = sprintf("%s <- %s", column, sprintf(candidate[1], column)), note = candidate[2]))
    }
  }
  NULL
}
