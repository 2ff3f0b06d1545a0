#' Read PurpleAir sensor history files
#'
#' Reads the CSV files of PurpleAir sensor history, as returned by the
#' PurpleAir API endpoint "Get Sensor History (CSV)"
#' (`https://api.purpleair.com/v1/sensors/:sensor_index/history/csv`) or saved
#' by the PurpleAir data download tool. Nothing is downloaded: give the paths
#' of files you have.
#'
#' Each file must have the columns `time_stamp` (Unix seconds, between the years
#' 2000 and 2100 so that milliseconds are caught, also in scientific notation
#' as [write.csv()] writes some, `1.674e+09`, when that is a whole second; or ISO 8601
#' such as `2023-05-01T13:00:00Z` or `2023-05-01 15:00:00+02:00`, with zone
#' `Z`, `UTC`, `GMT`, `+02:00`, `+0200` or `+02`; a time without zone is taken as UTC;
#' a time that is not on the clock or calendar, such as `24:00:00`, a 60th second,
#' `2023-02-30` or an offset beyond 14:00 such as `+25:00` or `+02:75`, is an error naming
#' the row and line),
#' `pm2.5_cf_1_a` and `pm2.5_cf_1_b` (channel A and B PM2.5, CF = 1),
#' `humidity` (or `humidity_a`) and `temperature` (or `temperature_a`), the
#' sensor's readings in % and degrees Fahrenheit. The channels' `pm2.5_atm_a`
#' and `pm2.5_atm_b` are returned when a file has them (`NA` for files without).
#'
#' The sensor comes from the file's `sensor_index` column (a whole number
#' written as a decimal, `131611.0` as pandas writes a column holding a missing
#' value, is read as `"131611"`; one that is empty, spaces, `NA` or `NaN`, as
#' pandas writes a missing value, is an error naming the row and line). Files
#' without it (single-sensor downloads) take it from the argument `sensor_index`, else
#' from the file name, which must then start with the index (optionally after
#' `sensor`), such as `"131611.csv"` or `"sensor_131611_2023.csv"`; a name
#' starting with a date or a year, such as `"2023-05_131611.csv"`,
#' `"20230501_131611.csv"` or `"2023_131611.csv"`, is an error.
#'
#' Rows keep the order of the files and of the rows within each file. A sensor
#' reading the same time twice (as from overlapping downloads) gives a warning
#' of class `ncam_warning_repeated_rows` naming the line and file of the first
#' repeat and of the reading it repeats.
#'
#' @param path Paths of one or more CSV files.
#' @param sensor_index `NULL`, or the sensor index of files without a
#'   `sensor_index` column, a whole number of at least 0 or its digits as text:
#'   one value, or one per file (`NA` for files with the column).
#' @param tz Time zone in which to show `date`.
#' @param ... Not used: an argument not named above is an error (`file` is
#'   pointed to `path`).
#' @return A tibble with one row per file row and columns `date` (POSIXct in
#'   `tz`), `sensor_index` (character), `pm25_cf1_a`, `pm25_cf1_b`, and, if any
#'   file has them, `pm25_atm_a`, `pm25_atm_b` (ug/m3), then `rh` (%) and
#'   `temperature` (degrees C, converted from Fahrenheit).
#' @eval missing_codes_rd("`humidity` or `humidity_a`")
#' @seealso [join_reference()] to pair the readings with a reference monitor.
#' @export
#' @examples
#' path <- file.path(tempdir(), "131611.csv")
#' writeLines(c(
#'   "time_stamp,humidity,temperature,pm2.5_cf_1_a,pm2.5_cf_1_b",
#'   "1682946000,41,68,7.9,8.3",
#'   "1682949600,44,65.3,9.2,9.0"
#' ), path)
#' read_purpleair(path)
read_purpleair <- function(path, sensor_index = NULL, tz = "UTC", ...) {
  check_dots_empty_hinted()
  check_paths(path)
  check_tz(tz)
  sensor_index <- check_sensor_index(sensor_index, length(path))
  here <- environment()
  files <- lapply(seq_along(path), function(i) read_purpleair_file(path[i], sensor_index[i], here))
  has_atm <- any(vapply(files, function(f) "pm25_atm_a" %in% names(f), logical(1)))
  columns <- c("date", "sensor_index", "pm25_cf1_a", "pm25_cf1_b",
               if (has_atm) c("pm25_atm_a", "pm25_atm_b"), "rh", "temperature")
  out <- lapply(columns, function(col) {
    parts <- lapply(files, function(f) if (is.null(f[[col]])) rep(NA_real_, length(f$date)) else f[[col]])
    do.call(c, parts)
  })
  names(out) <- columns
  attr(out$date, "tzone") <- tz
  warn_repeated_readings(out$sensor_index, out$date, "time", unlist(lapply(files, `[[`, "line")),
                         rep(path, lengths(lapply(files, `[[`, "date"))))
  as_tbl(out)
}

# A sensor read twice at one time (as from overlapping downloads) would weigh twice in any
# average: warn, naming the first repeat and the row it repeats by line and file. `lines` and
# `files` give each row's line and file (`files` may be one file for all rows). `sensor` NULL:
# one instrument per file (one row per time); else `who` and `sensor` say which instrument.
warn_repeated_readings <- function(sensor, time, what, lines, files, who = "sensor", call = parent.frame()) {
  key <- paste(sensor, as.numeric(time))
  repeated <- which(duplicated(key))
  if (length(repeated) == 0L) return(invisible())
  first <- repeated[1]
  files <- rep_len(files, length(key))
  at <- function(row) cli::format_inline("line {lines[row]} of {.file {files[row]}}")
  which_sensor <- if (is.null(sensor)) "" else sprintf(" (%s %s)", who, sensor[first])
  repeats <- if (is.null(sensor)) what else paste(who, "and", what)
  cli::cli_warn(c("{length(repeated)} row{?s} repeat{?s/} the {repeats} of an earlier row, the first being {at(first)}{which_sensor}, a repeat of {at(match(key[first], key))}.",
                  i = "Overlapping downloads? Remove the repeats before averaging, or they weigh twice."),
                call = call, class = c("ncam_warning_repeated_rows", "ncam_warning"))
}

# The sensor_index argument as one string of digits (or NA) per file.
check_sensor_index <- function(sensor_index, n_files, call = parent.frame()) {
  if (is.null(sensor_index)) return(rep(NA_character_, n_files))
  counts_ok <- length(sensor_index) %in% c(1L, n_files)
  if (!counts_ok || !(is.numeric(sensor_index) || is.character(sensor_index) || all(is.na(sensor_index)))) {
    ncam_abort("{.arg sensor_index} must give one index, or one per file in {.arg path} ({n_files}; {.code NA} for files with the column).",
               call = call)
  }
  numeric <- is.numeric(sensor_index)
  valid <- if (numeric) {
    is.finite(sensor_index) & sensor_index >= 0 & sensor_index == round(sensor_index)
  } else grepl("^[0-9]+$", trimws(sensor_index))
  bad <- which(!is.na(sensor_index) & !valid)
  if (length(bad)) {
    shown <- sprintf("sensor_index[%d] = %s", bad,
                     if (numeric) format(sensor_index[bad]) else paste0("\"", sensor_index[bad], "\""))
    ncam_abort(c("{.arg sensor_index} must hold PurpleAir sensor indexes: whole numbers of at least 0, or their digits as text.",
                 x = "Got {utils::head(shown, 5)}."), call = call)
  }
  text <- if (numeric) sprintf("%.0f", sensor_index) else trimws(sensor_index)
  text[is.na(sensor_index)] <- NA_character_
  rep_len(text, n_files)
}

# One file as a list of columns (date in UTC), with the file line of each row in `line`.
read_purpleair_file <- function(path, sensor_index, call) {
  raw <- read_csv_columns(path, c("time_stamp", "pm2.5_cf_1_a", "pm2.5_cf_1_b"), call = call)
  lines <- attr(raw, "line")
  num <- function(col) as_number(raw[[col]], col, path, lines, call = call)
  humidity <- pick_column(raw, c("humidity", "humidity_a"), path, call = call)
  temperature <- pick_column(raw, c("temperature", "temperature_a"), path, call = call)
  # Before the conversion from Fahrenheit, which would hide a -999 code.
  raw <- blank_file_values(raw, intersect(c("pm2.5_cf_1_a", "pm2.5_cf_1_b", "pm2.5_atm_a", "pm2.5_atm_b",
                                            humidity, temperature), names(raw)),
                           path, rh_columns = humidity, call = call)
  out <- list(
    date = parse_timestamp(raw$time_stamp, "time_stamp", path, lines, call = call),
    sensor_index = purpleair_sensor(raw, path, sensor_index, call),
    pm25_cf1_a = num("pm2.5_cf_1_a"),
    pm25_cf1_b = num("pm2.5_cf_1_b")
  )
  atm <- intersect(c("pm2.5_atm_a", "pm2.5_atm_b"), names(raw))
  if (length(atm) == 1L) {
    ncam_abort("File {.file {path}} has {.val {atm}} without its other channel; give both or neither.",
               call = call)
  }
  if (length(atm) == 2L) {
    out$pm25_atm_a <- num("pm2.5_atm_a")
    out$pm25_atm_b <- num("pm2.5_atm_b")
  }
  out$rh <- num(humidity)
  out$temperature <- (num(temperature) - 32) * 5 / 9
  out$line <- lines  # for messages, not returned
  out
}

# ISO 8601 date-times ("2023-05-01T13:00:00Z", "2023-05-01 13:00:00+02:00", "... +0200",
# "... +02", "... UTC", "... GMT") or Unix seconds (digits, or whole seconds in scientific
# notation) to POSIXct in UTC. A time without zone is UTC. A time that is not on the clock or
# calendar (24:00, 13:59:60, 2023-02-30, an offset of +25:00) is an error, as in parse_time().
parse_timestamp <- function(x, col, path, lines = NULL, call = parent.frame()) {
  unix <- grepl("^-?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?$", x)
  out <- rep(NA_real_, length(x))
  out[unix] <- as.numeric(x[unix])
  # R's write.csv() writes 1674000000 as "1.674e+09"; a fraction of a second in that notation is
  # a rounded time, not one written by a logger.
  scientific <- unix & grepl("[eE]", x)
  out[scientific & out != round(out)] <- NA
  # ISO 8601, read as text_times() reads it (R/text-times.R).
  iso <- iso_seconds(x)
  is_iso <- attr(iso, "form")
  impossible <- is_iso & is.na(iso)
  out[is_iso] <- iso[is_iso]
  bad <- which(is.na(out))
  if (length(bad) > 0L) {
    ncam_abort(c("Column {.val {col}} of {.file {path}} must hold ISO 8601 times or Unix seconds: {row_at(bad[1], lines)} is {.val {x[bad[1]]}}.",
                 x = if (impossible[bad[1]]) "That time is not on the clock or calendar: hours run 00 to 23, minutes and seconds 00 to 59, days to the end of their month, and zone offsets to 14:00 at most.",
                 i = "ISO 8601 is as {.val 2023-05-01T13:00:00Z} or {.val 2023-05-01 15:00+02:00} (zone {.val Z}, {.val UTC}, {.val GMT}, {.val +02:00}, {.val +0200}, {.val +02}, or none for UTC); Unix seconds as {.val 1682946000} (or whole seconds as {.val 1.674e+09})."),
               call = call)
  }
  if (any(unix) && any(is_iso)) {
    first <- sort(c(which(unix)[1], which(is_iso)[1]))
    ncam_abort(c("Column {.val {col}} of {.file {path}} mixes ISO 8601 times and Unix seconds: {row_at(first[1], lines)} is {.val {x[first[1]]}} and {row_at(first[2], lines)} is {.val {x[first[2]]}}.",
                 i = "Write the whole column in one form."),
               call = call)
  }
  # Unix seconds outside 2000-2100 are in another unit, typically milliseconds.
  odd <- which(unix & (out < 946684800 | out >= 4102444800))
  if (length(odd) > 0L) {
    value <- out[odd[1]]
    year <- floor(1970 + value / 31556952)
    hint <- if (value / 1000 >= 946684800 && value / 1000 < 4102444800) {
      "They look like milliseconds since 1970: divide the column by 1000."
    } else {
      "Unix times must be seconds since 1970-01-01 UTC."
    }
    ncam_abort(c("Column {.val {col}} of {.file {path}} holds Unix seconds outside the years 2000 to 2100: {row_at(odd[1], lines)} is {.val {x[odd[1]]}}, in the year {year}.",
                 i = hint),
               call = call)
  }
  as.POSIXct(out, origin = "1970-01-01", tz = "UTC")
}

# The sensor index of each row: the file's column, else the argument, else the file name.
purpleair_sensor <- function(raw, path, sensor_index, call) {
  n <- nrow(raw)
  if ("sensor_index" %in% names(raw)) {
    if (!is.na(sensor_index)) {
      ncam_abort("{.arg sensor_index} is given but {.file {path}} has a {.val sensor_index} column; drop the argument.",
                 call = call)
    }
    check_filled(raw, "sensor_index", path, call = call)
    return(whole_number_id(raw$sensor_index))
  }
  if (!is.na(sensor_index)) return(rep(sensor_index, n))
  pattern <- "^(sensor[ _-]?)?([0-9]+)([^0-9].*)?$"
  name <- basename(path)
  # A date first ("2023-05_131611.csv", "20230501_131611.csv", "2023_131611.csv", "01-05-2023_1.csv")
  # would give the date, its year or its day as the index; an index first ("131611-2023-05.csv")
  # is read.
  leading <- sub(pattern, "\\2", name, ignore.case = TRUE)
  compact_date <- grepl("^(19|20)[0-9]{6}$", leading) && !is.na(as.Date(leading, "%Y%m%d"))
  year_then_number <- grepl("^(sensor[ _-]?)?(19|20)[0-9]{2}[ _.-][0-9]+([^0-9]|$)", name, ignore.case = TRUE)
  day_month_first <- grepl("^(sensor[ _-]?)?[0-9]{1,2}[_.-]([0-9]{1,2}[_.-])?(19|20)?[0-9]{2}([^0-9]|$)", name, ignore.case = TRUE)
  if (compact_date || year_then_number || day_month_first) {
    ncam_abort(c("File {.file {path}} has no {.val sensor_index} column and its name starts with a date or a year, not clearly the sensor index.",
                 i = "Give the index with {.arg sensor_index}, or rename the file to start with it, such as {.file 131611_2023-05.csv}."),
               call = call)
  }
  if (!grepl(pattern, name, ignore.case = TRUE)) {
    ncam_abort(c("File {.file {path}} has no {.val sensor_index} column and its name does not start with the sensor index.",
                 i = "Give the index with {.arg sensor_index}."), call = call)
  }
  rep(sub(pattern, "\\2", name, ignore.case = TRUE), n)
}

# pandas writes a whole-number column holding a missing value as floats: "131611.0" is sensor
# "131611", and must not count as another sensor (repeated readings would go unnoticed).
whole_number_id <- function(id) {
  sub("^([0-9]+)\\.0+$", "\\1", trimws(id))
}

check_tz <- function(tz, call = parent.frame()) {
  check_string(tz, "tz", call = call)
  if (!tz %in% c("UTC", OlsonNames())) {
    ncam_abort("{.arg tz} must be a time zone name such as {.val UTC} or {.val America/Denver}, not {.val {tz}}.",
               call = call)
  }
  invisible(tz)
}
