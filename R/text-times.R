# Dates and times written as text, as a CSV file holds them: typed as the package's readers type
# them (ISO 8601 date-times by iso_seconds(), which parse_timestamp() reads them with too, UTC
# when no zone is written; days as "2024-05-01", as parse_time() reads them). predict_chunks()
# types its kept columns so (and the `by` columns of fits by group as the fits' keys), and the
# checks of a time column (date_column()) say how, given text.

# Days as write.csv() writes a Date (and a POSIXct whose times are all midnights).
text_day_pattern <- "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"

# "Date" when every value of `text` (but missing ones) is a day as "2024-05-01", "POSIXct" when
# every one is an ISO 8601 date-time that parse_timestamp() reads, NULL otherwise (or no value).
text_time_kind <- function(text) {
  if (!is.character(text)) return(NULL)
  values <- unique(text[!missing_time_text(text)])
  if (!length(values)) return(NULL)
  if (all(grepl(text_day_pattern, values)) && !anyNA(text_times(values, "Date"))) return("Date")
  if (!anyNA(text_times(values, "POSIXct"))) return("POSIXct")
  NULL
}

# `text` as `kind` ("Date" or "POSIXct"), NA where a value is missing or not such a time. A time
# without a zone is a clock time of `tz` (UTC, as in the readers), read as as.POSIXct(text, tz =
# tz) reads it (on the days clocks change too); a day alone is its midnight there. Date-times are
# read by iso_seconds(), as parse_timestamp() reads them.
text_times <- function(text, kind, tz = "UTC") {
  padded <- which(grepl("^\\s|\\s$", text, perl = TRUE))
  text[padded] <- trimws(text[padded])
  missing <- missing_time_text(text)
  day <- !missing & nchar(text) == 10L & grepl(text_day_pattern, text, perl = TRUE)
  if (kind == "Date") return(as.Date(ifelse(day, clock_seconds(text) / 86400, NA_real_), origin = "1970-01-01"))
  timed <- !missing & !day
  if (all(timed)) {
    seconds <- iso_seconds(text, tz)  # a column of date-times: without copies of it
    attr(seconds, "form") <- NULL
  } else {
    seconds <- rep(NA_real_, length(text))
    seconds[day] <- clock_in_zone(clock_seconds(text[day]), tz)
    seconds[timed] <- iso_seconds(text[timed], tz)
  }
  as.POSIXct(seconds, origin = "1970-01-01", tz = tz)
}

# ISO 8601 date-times ("2023-05-01T13:00:00Z", "2023-05-01 13:00", "... 13:00:00.25", with a zone
# "Z", "UTC", "GMT", "+02:00", "+0200", "+02" or none) as seconds since 1970-01-01 UTC, NA for
# other text (`x`, the values of a column). A time without a zone is a clock time of `tz`.
# Attribute "form": TRUE where a value has that form, so that NA there is a time not on the clock
# or calendar (24:00, 13:59:60, 2023-02-30, an offset beyond 14:00). parse_timestamp() (the
# readers) and text_times() (predict_chunks()' kept columns, the hints of a time column as text).
iso_seconds <- function(x, tz = "UTC") {
  # As write.csv() and predict_chunks() write them ("2024-05-01 13:00:00", "...T13:00:00Z"): by
  # arithmetic alone, several times as fast as taking the text apart.
  plain <- grepl("^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2})?[Zz]?$", x, perl = TRUE)
  if (all(plain)) {
    out <- clock_seconds(x)
  } else {
    out <- rep(NA_real_, length(x))
    out[plain] <- clock_seconds(x[plain])
  }
  zoned <- plain & grepl("[Zz]$", x, perl = TRUE)
  # RFC 3339 allows "t" and "z" in lower case.
  iso <- "^([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt ]([0-9]{2}:[0-9]{2}(:[0-9]{2})?)(\\.[0-9]+)? *(Z|z|UTC|GMT|[+-][0-9]{2}(:?[0-9]{2})?)?$"
  rest <- which(!plain)
  rest <- rest[grepl(iso, x[rest], perl = TRUE)]
  if (length(rest)) {
    fraction <- sub(iso, "\\4", x[rest], perl = TRUE)
    zone <- gsub(":", "", sub(iso, "\\5", x[rest], perl = TRUE), fixed = TRUE)
    signed <- grepl("^[+-]", zone)
    # An hours-only offset ("+02") has no minutes: the leading "0" makes them 0.
    hours <- as.numeric(substr(zone[signed], 2, 3))
    minutes <- as.numeric(paste0("0", substr(zone[signed], 4, 5)))
    offset <- numeric(length(rest))
    offset[signed] <- ifelse(startsWith(zone[signed], "-"), -1, 1) * (hours * 3600 + minutes * 60)
    offset[signed][minutes >= 60 | hours * 60 + minutes > 14 * 60] <- NA
    out[rest] <- clock_seconds(sub(iso, "\\1 \\2", x[rest], perl = TRUE)) +
      ifelse(nzchar(fraction), suppressWarnings(as.numeric(fraction)), 0) - offset
    zoned[rest] <- nzchar(zone)
  }
  if (tz != "UTC") {
    local <- which(!zoned & !is.na(out))
    out[local] <- clock_in_zone(out[local], tz)
  }
  plain[rest] <- TRUE
  attr(out, "form") <- plain
  out
}

# Clock times written as seconds since 1970 of the UTC clock (clock_seconds(), with a fraction)
# as the instants those clock times are in zone `tz`, as as.POSIXct(<the clock time>, tz = tz)
# reads them (a clock time skipped when clocks go forward is taken as R takes it).
clock_in_zone <- function(seconds, tz) {
  if (tz == "UTC" || !length(seconds)) return(seconds)
  whole <- floor(seconds)
  clock <- format(as.POSIXct(whole, origin = "1970-01-01", tz = "UTC"), "%Y-%m-%d %H:%M:%S", tz = "UTC")
  as.numeric(as.POSIXct(clock, format = "%Y-%m-%d %H:%M:%S", tz = tz)) + (seconds - whole)
}

# is_missing_value_text() (an empty field, spaces, NA, NaN), faster on columns of times.
missing_time_text <- function(text) {
  out <- is.na(text) | nchar(text) <= 4L
  short <- which(out & !is.na(text))
  out[short] <- is_missing_value_text(text[short])
  spaced <- which(!out & grepl("^\\s|\\s$", text, perl = TRUE))
  out[spaced] <- is_missing_value_text(text[spaced])
  out
}

# Seconds since 1970-01-01 UTC of text that starts "YYYY-MM-DD", followed by nothing or by a time
# "HH:MM" or "HH:MM:SS" (after "T" or a space; a final "Z" allowed), NA for a day or time not on
# the calendar or clock (2024-02-30, 24:00), as parse_time() and parse_timestamp() refuse them.
clock_seconds <- function(text) {
  number <- function(from, to) suppressWarnings(as.integer(substr(text, from, to)))
  y <- number(1, 4)
  m <- number(6, 7)
  d <- number(9, 10)
  timed <- nchar(text) > 10L
  h <- ifelse(timed, number(12, 13), 0L)
  mi <- ifelse(timed, number(15, 16), 0L)
  s <- ifelse(substr(text, 17, 17) == ":", number(18, 19), 0L)
  leap <- (y %% 4L == 0L & y %% 100L != 0L) | y %% 400L == 0L
  month_days <- c(31L, 28L, 31L, 30L, 31L, 30L, 31L, 31L, 30L, 31L, 30L, 31L)[m] + (m == 2L & leap)
  ok <- !is.na(month_days) & d >= 1L & d <= month_days & h <= 23L & mi <= 59L & s <= 59L
  # Days from the civil date (H. Hinnant's algorithm), for years from 0 on.
  y <- y - (m <= 2L)
  era <- y %/% 400L
  yoe <- y - era * 400L
  doy <- (153L * (m + ifelse(m > 2L, -3L, 9L)) + 2L) %/% 5L + d - 1L
  days <- era * 146097 + yoe * 365 + yoe %/% 4L - yoe %/% 100L + doy - 719468
  ifelse(ok %in% TRUE, days * 86400 + h * 3600 + mi * 60 + s, NA_real_)
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
    bad <- which(is.na(value) & !missing_time_text(text))
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
