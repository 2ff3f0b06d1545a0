#' Read the per-box files of the SensEURCity data set
#'
#' Reads the 1-minute CSV files of the SensEURCity low-cost sensor boxes
#' (Zenodo, doi 10.5281/zenodo.7256405; one file per box, such as
#' `Antwerp_402B00.csv`), with the flags applied, the location and the
#' meteorological columns kept, and optionally averaged over periods. Nothing
#' is downloaded: give the paths of files you have, or their folder. For the
#' co-location tables assembled by INERIS for Antwerp use
#' [read_senseurcity_antwerp()].
#'
#' Each file must have the columns `date` (`2020-04-02T12:15:00Z`, UTC),
#' `Location.ID` (where the box stood: a reference station such as
#' `ANT_REF_R801`, another site, or empty), `latitude` and `longitude`. These
#' columns are read when present (a column missing from a file is `NA`, with a
#' warning): `5325CAT`, `5325CST` (Plantower PMS5003 PM2.5, atmospheric and
#' CF = 1), `OPCN3PM25` (Alphasense OPC-N3 PM2.5), `SHT31TE`, `SHT31HE`
#' (Sensirion SHT31 external temperature and humidity), `Absolute_humidity`,
#' `Td_deficit` (temperature minus dew point), `BMP280` (pressure) and the
#' reference columns `Ref.PM2.5`, `Ref.PM10`, `Ref.Temp`, `Ref.RH`.
#'
#' A file row repeating an earlier row's minute is dropped if it is an exact
#' copy, and is an error otherwise (which row is right is unknown).
#'
#' **Flags.** A measurement column `X` may have a flag column `X_flag`. An empty
#' flag, one of spaces alone, or `NA` (as R writes a missing value) marks a
#' valid value; any other flag (a letter code, such as the `W` on the first
#' minutes of a box's record; spaces around it do not count) marks a value to
#' be set to `NA`, unless the flag is listed in `keep_flags`.
#' `Absolute_humidity` and `Td_deficit`, computed from the SHT31 readings, take
#' the flags of `SHT31TE` and `SHT31HE`, and are `NA` too where one of those is
#' a missing-value code or an impossible humidity (see below). Reference
#' columns have no flags.
#'
#' **Temperature and humidity.** In releases v1 and v2, `SHT31TE` holds the
#' relative humidity and `SHT31HE` the temperature (a known issue of the
#' data set, listed by github.com/CaderIdris/SensEURCity-ETL). With `sht31 = "auto"` each file is checked: the pairing that
#' reproduces the file's `Absolute_humidity` (Magnus formula) is used; a file
#' with no row to decide on is read as `"swapped"`, with a warning.
#'
#' @eval missing_codes_rd("the SHT31 humidity and `Ref.RH`")
#' @param path Paths of per-box CSV files, or one folder: its files named
#'   `City_ID.csv`, such as `Antwerp_402B00.csv`, are read.
#' @param keep_flags Flag codes whose values are kept, such as `"W"`.
#' @param sht31 `"auto"`, `"swapped"` (`SHT31HE` is temperature) or `"as_labelled"`.
#' @param average `NULL` for the 1-minute rows, or a period such as `"1 hour"`
#'   to average them per box and location (see [join_reference()] for periods;
#'   one shorter than the spacing of the readings, 1 minute, is an error).
#'   Periods of whole days (`"1 day"`) run from midnight to midnight in `tz`:
#'   UTC days unless `tz` says otherwise, such as `"Europe/Brussels"` for the
#'   local days of Antwerp (23 or 25 hours on the days the clocks change).
#'   Shorter periods start on their multiples in UTC, whole hours in every zone
#'   of the SensEURCity cities.
#' @param completeness Fraction of the expected readings a period needs for its
#'   mean, when averaging. The expected count follows each box and location's
#'   1-minute step; a location with a single reading (a box that moved) takes
#'   the step of the other series, so that lone minute is not an hourly mean.
#' @param tz Time zone of `date`, in whose calendar periods of whole days run.
#' @param ... Not used: an argument not named above is an error (`file` is
#'   pointed to `path`).
#' @return A tibble, one row per file row (or per box, location and period when
#'   averaging), files in the order given: `date` (POSIXct in `tz`; when
#'   averaging, the start of the period), `city` and
#'   `box` (from the file name), `location`, `latitude`, `longitude`,
#'   `pms_pm25_atm`, `pms_pm25_cf1`, `opc_pm25` (ug/m3), `temperature` (deg C),
#'   `rh` (%), `abs_humidity` (g/m3), `dew_point_deficit` (deg C), `pressure`
#'   (hPa), `ref_pm25`, `ref_pm10` (ug/m3), `ref_temperature` (deg C) and
#'   `ref_rh` (%).
#' @export
#' @examples
#' path <- file.path(tempdir(), "Antwerp_40AAAA.csv")
#' writeLines(c(
#'   paste0("date,latitude,longitude,Location.ID,5325CAT,5325CST,OPCN3PM25,SHT31TE,",
#'          "SHT31HE,Absolute_humidity,Td_deficit,BMP280,Ref.PM2.5,Ref.PM10,Ref.Temp,",
#'          "Ref.RH,5325CAT_flag"),
#'   "2020-06-01T10:00:00Z,51.21,4.43,ANT_REF_R801,12.5,13,6.1,61,18.2,9.5,7.6,1013,8,14,17.9,63,W",
#'   "2020-06-01T10:01:00Z,51.21,4.43,ANT_REF_R801,12.1,12.6,5.8,60,18.3,9.4,7.9,1013,8,14,17.9,63,"
#' ), path)
#' read_senseurcity(path)
read_senseurcity <- function(path, keep_flags = character(), sht31 = c("auto", "swapped", "as_labelled"),
                             average = NULL, completeness = 0.75, tz = "UTC", ...) {
  check_dots_empty_hinted()
  path <- senseurcity_paths(path)
  check_tz(tz)
  if (!is.character(keep_flags) || anyNA(keep_flags)) {
    ncam_abort("{.arg keep_flags} must be a character vector of flag codes.")
  }
  sht31 <- match_choice(sht31, c("auto", "swapped", "as_labelled"), "sht31")
  period <- if (is.null(average)) NULL else parse_period(average, "average")
  check_number(completeness, "completeness", min = 0, max = 1)
  files <- lapply(path, read_senseurcity_box, keep_flags = keep_flags, sht31 = sht31,
                  call = environment())
  out <- lapply(names(files[[1]]), function(col) do.call(c, lapply(files, `[[`, col)))
  names(out) <- names(files[[1]])
  attr(out$date, "tzone") <- tz
  out <- as_tbl(out)
  if (is.null(period)) return(out)
  average_over_time(out, "date", c("city", "box", "location"), period, completeness, "path")
}

# Output column <- source column; the SHT31 pair is placed by `sht31`.
senseurcity_measures <- c(pms_pm25_atm = "5325CAT", pms_pm25_cf1 = "5325CST", opc_pm25 = "OPCN3PM25",
                          temperature = "SHT31TE", rh = "SHT31HE", abs_humidity = "Absolute_humidity",
                          dew_point_deficit = "Td_deficit", pressure = "BMP280",
                          ref_pm25 = "Ref.PM2.5", ref_pm10 = "Ref.PM10",
                          ref_temperature = "Ref.Temp", ref_rh = "Ref.RH")

read_senseurcity_box <- function(path, keep_flags, sht31, call) {
  raw <- read_csv_columns(path, c("date", "Location.ID", "latitude", "longitude"), call = call)
  raw <- drop_repeated_rows(raw, "date", path, call = call)
  lines <- attr(raw, "line")
  absent <- setdiff(senseurcity_measures, names(raw))
  if (length(absent) > 0L) {
    cli::cli_warn("File {.file {path}} lacks {cli::qty(length(absent))}column{?s} {.val {absent}}; read as {.code NA}.", call = call, class = c("ncam_warning_missing_columns", "ncam_warning"))
  }
  value <- function(col) {
    if (!col %in% names(raw)) return(rep(NA_real_, nrow(raw)))
    as_number(raw[[col]], col, path, lines, call = call)
  }
  # A flag of spaces, or NA (as R writes a missing value; read_csv_columns() reads it as NA), is
  # no flag.
  flagged <- function(cols) {
    cols <- intersect(paste0(cols, "_flag"), names(raw))
    Reduce(`|`, lapply(cols, function(f) {
      flag <- trimws(raw[[f]])
      !is.na(flag) & nzchar(flag) & flag != "NA" & !flag %in% keep_flags
    }), rep(FALSE, nrow(raw)))
  }
  measures <- senseurcity_measures
  if (senseurcity_sht31_swapped(value, sht31, path, call)) {
    measures[c("temperature", "rh")] <- c("SHT31HE", "SHT31TE")
  }
  # From here value() reads `raw` with codes and impossible humidities set to NA.
  as_read <- raw
  raw <- blank_file_values(raw, intersect(c(measures, "latitude", "longitude"), names(raw)), path,
                           rh_columns = intersect(measures[c("rh", "ref_rh")], names(raw)), call = call)
  # Absolute humidity and the dew point deficit are computed from the SHT31 readings: a flag
  # there voids them, and so does a reading set to NA.
  sht31_void <- Reduce(`|`, lapply(intersect(c("SHT31TE", "SHT31HE"), names(raw)),
                                   function(col) is.na(raw[[col]]) & !is.na(as_read[[col]])),
                       flagged(c("SHT31TE", "SHT31HE")))
  stem <- sub("\\.csv(\\.gz)?$", "", basename(path), ignore.case = TRUE)
  named <- grepl("^[A-Za-z]+_[^_]+$", stem)
  out <- list(
    date = parse_time(raw$date, "%Y-%m-%dT%H:%M:%SZ", "date", path, lines = lines, call = call),
    city = rep(if (named) sub("_.*$", "", stem) else NA_character_, nrow(raw)),
    box = rep(if (named) sub("^[^_]+_", "", stem) else stem, nrow(raw)),
    location = trimws(raw$Location.ID),
    latitude = value("latitude"),
    longitude = value("longitude")
  )
  for (name in names(measures)) {
    x <- value(measures[[name]])
    invalid <- if (name %in% c("abs_humidity", "dew_point_deficit")) sht31_void else flagged(measures[[name]])
    x[invalid] <- NA_real_
    out[[name]] <- x
  }
  out
}

# Whether SHT31HE holds the temperature. "auto" asks which pairing reproduces the file's
# absolute humidity: AH = 216.7 * RH/100 * e_s(T) / (T + 273.15), e_s by Magnus in hPa.
senseurcity_sht31_swapped <- function(value, sht31, path, call) {
  if (sht31 != "auto") return(sht31 == "swapped")
  te <- value("SHT31TE")
  he <- value("SHT31HE")
  ah <- value("Absolute_humidity")
  if (all(is.na(te)) && all(is.na(he))) return(TRUE)
  absolute <- function(t, rh) 216.7 * rh / 100 * 6.112 * exp(17.62 * t / (243.12 + t)) / (t + 273.15)
  # Above -60 either column keeps the formula finite; below it neither is a temperature.
  # Absolute humidity is never negative (a -999 code is).
  usable <- is.finite(te) & is.finite(he) & is.finite(ah) & te > -60 & he > -60 & ah >= 0
  if (!any(usable)) {
    cli::cli_warn(c("File {.file {path}} has no row with {.val SHT31TE}, {.val SHT31HE} and {.val Absolute_humidity} to tell temperature from humidity.",
                    i = "Read as {.code sht31 = \"swapped\"} (releases v1 and v2); set {.arg sht31} to choose."),
                  call = call, class = c("ncam_warning_sht31_order", "ncam_warning"))
    return(TRUE)
  }
  misfit <- function(t, rh) stats::median(abs(absolute(t[usable], rh[usable]) - ah[usable]))
  misfit(he, te) < misfit(te, he)
}

# Files to read: the given files, or the per-box files of one folder.
senseurcity_paths <- function(path, call = parent.frame()) {
  if (is.character(path) && length(path) == 1L && !is.na(path) && dir.exists(path)) {
    if (file.exists(file.path(path, "REF_colocated_hourly_all_stations.csv"))) {
      ncam_abort(c("Folder {.file {path}} holds the INERIS co-location tables, not per-box files.",
                   i = "Read it with {.code read_senseurcity_antwerp()}."), call = call)
    }
    files <- list.files(path, pattern = "^[A-Za-z]+_[^_]+\\.csv(\\.gz)?$", full.names = TRUE)
    if (length(files) == 0L) {
      ncam_abort("Folder {.file {path}} has no per-box files named like {.file Antwerp_402B00.csv}.",
                 call = call)
    }
    return(files)
  }
  check_paths(path, call = call)
  path
}
