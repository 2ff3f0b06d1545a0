#' Read EPA AQS pre-generated hourly or daily data files
#'
#' Reads the pre-generated files of the US EPA Air Quality System (AirData,
#' `https://aqs.epa.gov/aqsweb/airdata/download_files.html`), as CSV or as the
#' zip files EPA ships (read in place, without unpacking). Nothing is
#' downloaded: give the paths of files you have.
#'
#' Two layouts are recognised by their columns:
#' * **Hourly** (`hourly_88101_2023.csv` and the like): `State Code`,
#'   `County Code`, `Site Num`, `Parameter Code`, `POC`, `Latitude`,
#'   `Longitude`, `Date GMT`, `Time GMT`, `Sample Measurement`,
#'   `Units of Measure`, `Qualifier`, `Method Code`, ... `date` is the start
#'   of the hour from the GMT columns (the local columns are ignored, as local
#'   standard time depends on the site).
#' * **Daily** (`daily_88101_2023.csv`): the same site columns, `Sample Duration`,
#'   `Pollutant Standard`, `Date Local`, `Units of Measure`, `Event Type`,
#'   `Observation Count`, `Observation Percent`, `Arithmetic Mean`,
#'   `Method Code`, ... `date` is the local calendar date, of class `Date`
#'   (days at a site are local standard days, midnight to midnight without
#'   summer time). Daily files repeat a monitor's day under
#'   each pollutant standard and event type: choose rows with
#'   `pollutant_standard` and `event_type` before averaging.
#'
#' A `State Code`, `County Code`, `Site Num`, `Parameter Code` or `POC` that is
#' empty, spaces, `NA` or `NaN` is an error naming the row and line: the row's
#' monitor is unknown. These codes and `Method Code` are read without spaces
#' around them, and a whole number written as a decimal, as pandas writes a
#' column that held a missing value, as that number: `6.0`, `37.0`, `1103.0`
#' give site `"06-037-1103"` and `88101.0` parameter `"88101"`.
#'
#' A monitor (site, parameter and POC) given twice for an hour, or in daily
#' files twice for a day under the same sample duration, pollutant standard
#' and event type (as from a file read twice), gives a warning of class
#' `ncam_warning_repeated_rows` naming the line and file of the first repeat:
#' the repeats would weigh twice in a mean.
#'
#' @param path Paths of one or more files (`.csv`, `.csv.gz` or `.zip` holding
#'   one CSV), all hourly or all daily.
#' @param parameter `NULL`, or AQS parameter codes to keep, such as `"88101"`
#'   (PM2.5, local conditions) or `"44201"` (ozone); whole numbers are taken as
#'   codes too.
#' @param site `NULL`, or site ids to keep, as `"SS-CCC-NNNN"` (state, county
#'   and site numbers, such as `"06-037-1103"`). A `parameter` or `site` that no
#'   row has is an error naming those the files have (a warning when others
#'   match), and so is a `parameter` never measured at `site`; files without
#'   data rows give zero rows.
#' @param tz Time zone in which to show `date` (hourly files only).
#' @param ... Not used: an argument not named above is an error (`file` is
#'   pointed to `path`).
#' @return A tibble with one row per kept file row, in file order. Hourly:
#'   `date` (POSIXct, start of the hour), `site`, `poc`, `parameter`, `value`
#'   (the `Sample Measurement`), `units`, `latitude`, `longitude`, `qualifier`
#'   and `method_code`. Daily: `date` (Date), `site`, `poc`, `parameter`,
#'   `sample_duration`, `pollutant_standard`, `event_type`, `value` (the
#'   `Arithmetic Mean`), `units`, `observation_count`, `observation_percent`,
#'   `latitude`, `longitude` and `method_code`. Ids and codes are character;
#'   numbers are double.
#' @eval missing_codes_rd()
#' @seealso [join_reference()] to pair sensor readings with the monitor.
#' @export
#' @examples
#' path <- tempfile(fileext = ".csv")
#' writeLines(c(
#'   paste0('"State Code","County Code","Site Num","Parameter Code","POC","Latitude",',
#'          '"Longitude","Datum","Parameter Name","Date Local","Time Local","Date GMT",',
#'          '"Time GMT","Sample Measurement","Units of Measure","MDL","Uncertainty",',
#'          '"Qualifier","Method Type","Method Code","Method Name","State Name",',
#'          '"County Name","Date of Last Change"'),
#'   paste0('"06","037","1103","88101",3,34.06659,-118.22688,"WGS84",',
#'          '"PM2.5 - Local Conditions","2023-01-01","00:00","2023-01-01","08:00",',
#'          '12.4,"Micrograms/cubic meter (LC)",2,"","","FEM","209","Teledyne T640",',
#'          '"California","Los Angeles","2023-04-20"')
#' ), path)
#' read_aqs(path)
read_aqs <- function(path, parameter = NULL, site = NULL, tz = "UTC", ...) {
  check_dots_empty_hinted()
  check_paths(path)
  check_tz(tz)
  # Parameter codes are five-digit numbers with no leading zero, so 88101 means "88101".
  if (is.numeric(parameter) && !anyNA(parameter) && all(parameter == round(parameter))) {
    parameter <- format(parameter, scientific = FALSE, trim = TRUE)
  }
  for (arg in c("parameter", "site")) {
    value <- get(arg)
    if (!is.null(value) && (!is.character(value) || anyNA(value) || length(value) == 0L)) {
      ncam_abort("{.arg {arg}} must be {.code NULL} or a character vector of codes.")
    }
  }
  files <- lapply(path, read_aqs_file, parameter = parameter, site = site, call = environment())
  check_aqs_filters(do.call(rbind, lapply(files, attr, "seen")), parameter, site)
  layouts <- unique(vapply(files, function(f) if (inherits(f$date, "Date")) "daily" else "hourly", ""))
  if (length(layouts) > 1L) {
    ncam_abort("{.arg path} mixes hourly and daily files; read them separately.")
  }
  out <- lapply(names(files[[1]]), function(col) do.call(c, lapply(files, `[[`, col)))
  names(out) <- names(files[[1]])
  if (layouts == "hourly") attr(out$date, "tzone") <- tz
  # A monitor is a site's instrument (POC) for a parameter; daily files give its day once per
  # sample duration, pollutant standard and event type.
  monitor <- sprintf("%s, parameter %s, POC %s", out$site, out$parameter, out$poc)
  if (layouts == "daily") {
    monitor <- sprintf("%s, %s, %s, event type %s", monitor, out$sample_duration,
                       out$pollutant_standard, out$event_type)
  }
  warn_repeated_readings(monitor, out$date, if (layouts == "hourly") "hour" else "day",
                         unlist(lapply(files, attr, "line")),
                         rep(vapply(files, attr, "", "label"), lengths(lapply(files, `[[`, "date"))),
                         who = "monitor")
  as_tbl(out)
}

aqs_site_columns <- c("State Code", "County Code", "Site Num", "Parameter Code", "POC",
                      "Latitude", "Longitude", "Units of Measure", "Method Code")
aqs_hourly_columns <- c("Date GMT", "Time GMT", "Sample Measurement", "Qualifier")
aqs_daily_columns <- c("Sample Duration", "Pollutant Standard", "Date Local", "Event Type",
                       "Observation Count", "Observation Percent", "Arithmetic Mean")

read_aqs_file <- function(path, parameter, site, call) {
  member <- NULL
  if (grepl("\\.zip$", path, ignore.case = TRUE)) {
    listing <- utils::unzip(path, list = TRUE)$Name
    member <- listing[grepl("\\.csv$", listing, ignore.case = TRUE)]
    if (length(member) != 1L) {
      ncam_abort("Zip file {.file {path}} must hold exactly one CSV file, not {length(member)}.",
                 call = call)
    }
  }
  raw <- read_csv_columns(path, aqs_site_columns, member = member, zip = TRUE, call = call)
  label <- if (is.null(member)) path else paste0(path, "[", member, "]")
  # Hourly files have a measurement and a time of day; either one tells the layout.
  hourly <- any(c("Sample Measurement", "Time GMT", "Time Local") %in% names(raw))
  needed <- if (hourly) aqs_hourly_columns else aqs_daily_columns
  missing <- setdiff(needed, names(raw))
  if (length(missing) > 0L) {
    layout <- if (hourly) "hourly" else "daily"
    ncam_abort(c("File {.file {label}} looks like an AQS {layout} file but lacks {cli::qty(length(missing))}column{?s} {.val {missing}}.",
                 i = "AQS hourly files have {.val Sample Measurement}; daily files {.val Arithmetic Mean}."),
               call = call)
  }
  # A monitor's readings are told apart by these codes: a row without one would join another
  # series ("NA-037-1103", "NaN-037-1103"), or none.
  for (col in c("State Code", "County Code", "Site Num", "Parameter Code", "POC")) {
    check_filled(raw, col, label, call = call)
  }
  # Codes written as decimals, as pandas writes a column that held a missing value ("6.0",
  # "88101.0"), are the same codes: kept as written, "88101.0" would match no `parameter`.
  for (col in c("State Code", "County Code", "Site Num", "Parameter Code", "POC", "Method Code")) {
    raw[[col]] <- whole_number_id(raw[[col]])
  }
  lines <- attr(raw, "line")
  site_id <- paste(pad_code(raw[["State Code"]], 2L), pad_code(raw[["County Code"]], 3L),
                   pad_code(raw[["Site Num"]], 4L), sep = "-")
  seen <- unique(data.frame(parameter = raw[["Parameter Code"]], site = site_id))
  keep <- (is.null(parameter) | raw[["Parameter Code"]] %in% parameter) &
    (is.null(site) | site_id %in% site)
  raw <- raw[keep, , drop = FALSE]
  lines <- lines[keep]
  site_id <- site_id[keep]
  attr(raw, "line") <- lines
  measured <- if (hourly) "Sample Measurement" else c("Arithmetic Mean", "Observation Count", "Observation Percent")
  raw <- blank_file_values(raw, c(measured, "Latitude", "Longitude"), label, call = call)
  num <- function(col) as_number(raw[[col]], col, label, lines, call = call)
  out <- if (hourly) {
    time <- paste(raw[["Date GMT"]], raw[["Time GMT"]])
    list(date = parse_time(time, "%Y-%m-%d %H:%M", "Date GMT and Time GMT", label,
                           lines = lines, call = call))
  } else {
    list(date = parse_time(raw[["Date Local"]], "%Y-%m-%d", "Date Local", label, date = TRUE,
                           lines = lines, call = call))
  }
  out$site <- site_id
  out$poc <- raw[["POC"]]
  out$parameter <- raw[["Parameter Code"]]
  if (hourly) {
    out$value <- num("Sample Measurement")
    out$units <- raw[["Units of Measure"]]
  } else {
    out$sample_duration <- raw[["Sample Duration"]]
    out$pollutant_standard <- raw[["Pollutant Standard"]]
    out$event_type <- raw[["Event Type"]]
    out$value <- num("Arithmetic Mean")
    out$units <- raw[["Units of Measure"]]
    out$observation_count <- num("Observation Count")
    out$observation_percent <- num("Observation Percent")
  }
  out$latitude <- num("Latitude")
  out$longitude <- num("Longitude")
  if (hourly) out$qualifier <- raw[["Qualifier"]]
  out$method_code <- raw[["Method Code"]]
  structure(out, seen = seen, line = lines, label = label)
}

# A `parameter` or `site` that no file has is more likely a typo ("6-37-1103") than an
# empty result: say so, with what the files do have, rather than return zero rows.
check_aqs_filters <- function(seen, parameter, site, call = parent.frame()) {
  if (nrow(seen) == 0L) return(invisible())
  hint <- c(parameter = "{.arg path} has parameter code{?s} {.val {have}}; codes are five digits, such as {.val 88101} (PM2.5).",
            site = "{.arg path} has site{?s} {.val {have}}; ids are {.val SS-CCC-NNNN} with leading zeros, such as {.val 06-037-1103}.")
  for (arg in c("parameter", "site")) {
    asked <- get(arg)
    have <- cli::cli_vec(sort(unique(seen[[arg]])), list("vec-trunc" = 6))
    absent <- setdiff(asked, seen[[arg]])
    if (length(absent) > 0L) {
      message <- c("{.arg {arg}} {.val {absent}} {cli::qty(length(absent))}match{?es/} no row of {.arg path}.",
                   i = hint[[arg]])
      if (length(absent) == length(asked)) ncam_abort(message, call = call)
      cli::cli_warn(message, call = call, class = c("ncam_warning_unmatched_filter", "ncam_warning"))
    }
  }
  if (!is.null(parameter) && !is.null(site) && !any(seen$parameter %in% parameter & seen$site %in% site)) {
    measured <- cli::cli_vec(sort(unique(seen$parameter[seen$site %in% site])), list("vec-trunc" = 6))
    ncam_abort(c("No row of {.arg path} has both {.arg parameter} {.val {parameter}} and {.arg site} {.val {site}}.",
                 i = "{cli::qty(length(site))}The site{?s} asked for {?has/have} parameter code{?s} {.val {measured}}."),
               call = call)
  }
}

# Codes written as numbers lose their leading zeros in some exports ("6" for "06"); codes
# that are not numbers, such as "CC" for Canadian sites, are kept as they are.
pad_code <- function(code, width) {
  digits <- grepl("^[0-9]+$", code)
  code[digits] <- formatC(as.integer(code[digits]), width = width, flag = "0")
  code
}
