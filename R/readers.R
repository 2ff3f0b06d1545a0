#' Read PurpleAir channels beside AQS reference monitors (daily)
#'
#' Reads the daily PurpleAir/AQS co-location file of Mathieu-Campbell et al.
#' (`DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv` in
#' github.com/MartineMathieu/PurpleAir-calibration): PurpleAir sensors within
#' 0.5 km of an AQS monitor, one row per sensor and day. The two Plantower
#' channels A and B of a PurpleAir unit are the two sensors to fuse; the AQS
#' concentration is the reference.
#'
#' The file must have the columns `sensor_index`, `DAILY`, `conc`,
#' `pm2.5_cf_1_a`, `pm2.5_cf_1_b`, `humidity_a`, `temp_Celsius`, `dewPoint`
#' and `n`; the pre-computed channel average `A_B_Avg` is not returned. A
#' sensor given twice for a day gives a warning, as in [read_purpleair()]. A
#' `sensor_index` that is empty, spaces, `NA` or `NaN` (as pandas writes a
#' missing value) names no sensor: an error naming the row and line.
#'
#' @eval missing_codes_rd("`humidity_a`")
#' @param path Path to the CSV file.
#' @param ... Not used: an argument not named above is an error (`file` is
#'   pointed to `path`).
#' @return A tibble sorted by `site` and `date`, with columns `date`
#'   (Date), `site` (the PurpleAir `sensor_index`, character; `131611.0` is
#'   read as `"131611"`), `pa_a`, `pa_b`
#'   (channel A and B PM2.5, CF = 1, ug/m3), `ref` (AQS PM2.5, ug/m3), `rh`
#'   (%), `temperature` (deg C), `dew_point` (deg C) and `n_hours` (hours averaged
#'   in the day).
#' @export
#' @examples
#' path <- tempfile(fileext = ".csv")
#' writeLines(c(
#'   "sensor_index,DAILY,conc,A_B_Avg,pm2.5_cf_1_a,pm2.5_cf_1_b,humidity_a,temp_Celsius,dewPoint,n",
#'   "7,2022-01-02,6.1,8.15,8.0,8.3,51,12.5,2.6,24",
#'   "7,2022-01-01,5.2,7.05,7.1,7.0,55,10.1,1.4,23"
#' ), path)
#' read_purpleair_aqs(path)
read_purpleair_aqs <- function(path, ...) {
  check_dots_empty_hinted()
  raw <- read_csv_columns(path, c("sensor_index", "DAILY", "conc", "pm2.5_cf_1_a", "pm2.5_cf_1_b",
                                  "humidity_a", "temp_Celsius", "dewPoint", "n"))
  raw <- blank_file_values(raw, c("conc", "pm2.5_cf_1_a", "pm2.5_cf_1_b", "humidity_a", "temp_Celsius",
                                  "dewPoint", "n"), path, rh_columns = "humidity_a")
  num <- function(col) as_number(raw[[col]], col, path, attr(raw, "line"))
  check_filled(raw, "sensor_index", path)
  site <- whole_number_id(raw$sensor_index)
  out <- data.frame(
    date = parse_time(raw$DAILY, "%Y-%m-%d", "DAILY", path, date = TRUE, lines = attr(raw, "line")),
    site = site,
    pa_a = num("pm2.5_cf_1_a"),
    pa_b = num("pm2.5_cf_1_b"),
    ref = num("conc"),
    rh = num("humidity_a"),
    temperature = num("temp_Celsius"),
    dew_point = num("dewPoint"),
    n_hours = num("n")
  )
  warn_repeated_readings(out$site, out$date, "day", attr(raw, "line"), path)
  as_tbl(out[order(out$site, out$date, method = "radix"), , drop = FALSE])
}

#' Read the SensEURCity Antwerp co-location tables assembled by INERIS (hourly)
#'
#' Reads the hourly PM2.5 of the SensEURCity low-cost sensor boxes (Plantower
#' PMS5003, column `PMS_PM25`) placed at the nine Antwerp reference stations
#' (Palas FIDAS200), as distributed with the INERIS scripts
#' (github.com/LaurentSpi/SensEURCity_Ineris) and exported to CSV. For the
#' per-box files of the SensEURCity Zenodo release use [read_senseurcity()].
#'
#' The repository ships R data files, not these CSVs: the files read here are
#' exports of them, with times written as `2020-07-01T00:00:00Z` (UTC). Two
#' sources are supported, giving the same layout:
#' * `"colocated"`: `REF_colocated_hourly_all_stations.csv`, the nine
#'   per-station tables `OUTPUTS/df_correlations_timeplots_RefSensData_ALL/REF_<station>_data.Rda`
#'   stacked into one, with columns `station` (their `ID`), `date`, `ref_pm25`,
#'   `ref_pm10` (their `PM2.5`, `PM10`), `lcs1_id`, `lcs1_pm25`, `lcs2_id`,
#'   `lcs2_pm25` (each `PM2.5_<box>` column as a box ID and its values; the
#'   second pair empty at stations with one box).
#' * `"join"`: joins the box table `LCS_df_all.csv.gz` (columns `ID`, `date`,
#'   `Location.ID`, `PMS_PM25`) with the reference table `ref_df_all.csv`
#'   (`ID`, `datetime`, `PM10`, `PM2.5`), the CSV exports of
#'   `INPUTS/LCS_df_all.Rda` and `INPUTS/ref_df_all.Rda`, pairing a box reading
#'   with the reference station named by its `Location.ID` in the same hour.
#'   This keeps every such hour, including about 2,400 the co-location tables
#'   leave out, and they leave them out for a reason: half of those hours hold
#'   broken box readings, stuck at exactly 0 or in the thousands of ug/m3 while
#'   the reference reads about 15 (a box at station R811 has a median of
#'   over 2,000 there; `bench/senseurcity_join.R` in the source repository). Drop such hours before
#'   use (a box at exactly 0, or far above the other box and the reference;
#'   `screen_outliers` of [ncam_control()] catches a single box's spikes, not a
#'   box stuck for days), or keep to `"colocated"`.
#'
#' Layout: one row per station and hour having a reference PM2.5 value and at
#' least one box reading. A station's boxes are numbered in alphabetical order
#' of their IDs (without the `Antwerp_` prefix): `box_1` is the PM2.5 of the
#' first box, `box_2` of the second (`NA` at stations with a single box, and
#' in hours that box did not report). `box_1_id` and `box_2_id` say which box
#' each column holds at that station. Stations R801, R802 and R804 have two
#' boxes, so at those stations `box_1` and `box_2` are two co-located sensors
#' of the same quantity. A station that had more than two boxes over the
#' record (a box replaced, or moved in) gets `box_3`, `box_3_id` and so on:
#' there are as many box columns as the station with most boxes has, and at
#' least two (none of the nine Antwerp stations has more than two).
#'
#' Two rows of a file for the same station (or box, or reference station) and
#' hour count once if they are exact copies, and are an error otherwise: which
#' one is right is unknown. These are errors naming the row and line too: a
#' box reading without its box ID (`lcs1_pm25` given, `lcs1_id` empty, spaces,
#' `NA` or `NaN`), the same box in both `lcs1_id` and `lcs2_id` of a row, a
#' `station` or `ID` that is empty, spaces, `NA` or `NaN`, and a time that is
#' not the start of an hour (`2020-07-01T00:30:00Z`; the tables are hourly).
#' Station, box and reference station IDs (`station`, `lcs1_id`, `lcs2_id`,
#' `ID`, `Location.ID`) are read without spaces around them, so
#' `"ANT_REF_R801 "` is station `"ANT_REF_R801"`.
#'
#' @eval missing_codes_rd()
#' @param dir Folder holding the files.
#' @param source `"colocated"` or `"join"` (see Details).
#' @param ... Not used: an argument not named above is an error (`path` and
#'   `file` are pointed to `dir`).
#' @return A tibble sorted by `station` and `date`, with columns `date`
#'   (POSIXct, UTC, start of the hour: daily means of it, in
#'   [sensor_performance()] or [join_reference()], run midnight to midnight
#'   UTC unless you set the zone first, e.g.
#'   `attr(x$date, "tzone") <- "Europe/Brussels"` for Belgian days), `station` (such as `"ANT_REF_R801"`),
#'   `box_1`, `box_2` (box PM2.5, ug/m3; `box_3` and on where a station had
#'   more boxes), `ref` (reference PM2.5, ug/m3), `ref_pm10`, `box_1_id` and
#'   `box_2_id` (and on).
#' @export
#' @examples
#' dir <- tempfile()
#' dir.create(dir)
#' writeLines(c(
#'   "station,date,ref_pm25,ref_pm10,lcs1_id,lcs1_pm25,lcs2_id,lcs2_pm25",
#'   "ANT_REF_R801,2020-07-01T01:00:00Z,8.1,14.0,40499C,12.2,4043B1,11.0",
#'   "ANT_REF_R801,2020-07-01T00:00:00Z,7.5,13.1,40499C,11.9,4043B1,10.4",
#'   "ANT_REF_AL01,2020-07-01T00:00:00Z,6.0,10.2,4065DA,9.8,,"
#' ), file.path(dir, "REF_colocated_hourly_all_stations.csv"))
#' read_senseurcity_antwerp(dir)
read_senseurcity_antwerp <- function(dir, source = c("colocated", "join"), ...) {
  check_dots_empty_hinted(stats::setNames(rep("Did you mean {.arg dir}? {.fn read_senseurcity_antwerp} takes the folder holding the files as {.arg dir}.", 2),
                                          c("path", "file")))
  check_string(dir, "dir")
  if (!dir.exists(dir)) {
    ncam_abort("{.arg dir} must be an existing folder, not {.file {dir}}.")
  }
  source <- match_choice(source, c("colocated", "join"), "source")
  call <- environment()  # errors of the helpers below name read_senseurcity_antwerp()
  long <- if (source == "colocated") senseurcity_colocated(dir, call) else senseurcity_join(dir, call)
  senseurcity_wide(long)
}

# Long table (station, date, box, pm25, ref, ref_pm10) from the co-location tables.
senseurcity_colocated <- function(dir, call) {
  path <- senseurcity_file(dir, "REF_colocated_hourly_all_stations.csv", call)
  raw <- read_csv_columns(path, c("station", "date", "ref_pm25", "ref_pm10", "lcs1_id",
                                  "lcs1_pm25", "lcs2_id", "lcs2_pm25"), call = call)
  # Spaces around a name make no other station (the box IDs are trimmed below too).
  raw$station <- trimws(raw$station)
  raw <- drop_repeated_rows(raw, c("station", "date"), path, call)
  raw <- blank_file_values(raw, c("ref_pm25", "ref_pm10", "lcs1_pm25", "lcs2_pm25"), path, call = call)
  lines <- attr(raw, "line")
  check_filled(raw, "station", path, call = call)
  num <- function(col) as_number(raw[[col]], col, path, lines, call)
  date <- parse_time(raw$date, "%Y-%m-%dT%H:%M:%SZ", "date", path, lines = lines, call = call)
  check_hour_starts(date, raw$date, "date", path, lines, call)
  ref <- num("ref_pm25")
  ref_pm10 <- num("ref_pm10")
  # An ID of spaces, NA or NaN names no box.
  box <- lapply(c(lcs1 = "lcs1_id", lcs2 = "lcs2_id"), function(col) {
    id <- trimws(raw[[col]])
    id[is_missing_value_text(id)] <- NA_character_
    id
  })
  pm25 <- lapply(c(lcs1 = "lcs1_pm25", lcs2 = "lcs2_pm25"), num)
  check_colocated_boxes(box, pm25, raw, path, lines, call)
  long <- lapply(c("lcs1", "lcs2"), function(slot) {
    data.frame(station = raw$station, date = date, box = box[[slot]], pm25 = pm25[[slot]],
               ref = ref, ref_pm10 = ref_pm10)
  })
  do.call(rbind, long)
}

# Each reading of a co-location table must name its box, and the two boxes of a row must differ:
# otherwise whose reading it is is unknown (it was dropped, or one of the two, silently).
check_colocated_boxes <- function(box, pm25, raw, path, lines, call) {
  for (slot in names(box)) {
    nameless <- which(is.na(box[[slot]]) & !is.na(pm25[[slot]]))
    if (length(nameless) > 0L) {
      id <- trimws(raw[[paste0(slot, "_id")]][nameless[1]])
      what <- if (is.na(id) || !nzchar(id)) "is empty" else cli::format_inline("holds {.val {id}}, a missing value,")
      ncam_abort(c("Column {.val {slot}_id} of {.file {path}} {what} in {row_at(nameless[1], lines)}, whose {.val {slot}_pm25} is {pm25[[slot]][nameless[1]]}: which box read it is unknown.",
                   i = "{length(nameless)} row{?s} {?has/have} a reading without a box. Give the box ID, or remove the reading."),
                 call = call)
    }
  }
  same <- which(!is.na(box$lcs1) & !is.na(box$lcs2) & box$lcs1 == box$lcs2)
  if (length(same) > 0L) {
    row <- same[1]
    ncam_abort(c("File {.file {path}}, {row_at(row, lines)}, station {raw$station[row]}: box {.val {box$lcs1[row]}} is in both {.val lcs1_id} and {.val lcs2_id}, with readings {.val {raw$lcs1_pm25[row]}} and {.val {raw$lcs2_pm25[row]}}; which is the box's is unknown.",
                 i = "{length(same)} row{?s} {?names/name} one box twice. Correct the IDs, or remove one of the two readings."),
               call = call)
  }
}

# The hourly tables stamp each row with the start of its hour; a time within an hour (00:30)
# belongs to data of another spacing, which would be paired as if hourly.
check_hour_starts <- function(time, text, col, path, lines, call) {
  within <- which(as.numeric(time) %% 3600 != 0)
  if (length(within) == 0L) return(invisible())
  ncam_abort(c("Column {.val {col}} of {.file {path}} must hold the starts of hours: {row_at(within[1], lines)} is {.val {text[within[1]]}}.",
               i = "{length(within)} time{?s} {?is/are} not on the hour. The table must be hourly: average finer data to hours first, each stamped with its hour's start."),
             call = call)
}

# Long table from the box and reference tables, paired by station and hour.
senseurcity_join <- function(dir, call) {
  lcs_path <- senseurcity_file(dir, "LCS_df_all.csv.gz", call)
  ref_path <- senseurcity_file(dir, "ref_df_all.csv", call)
  lcs <- read_csv_columns(lcs_path, c("ID", "date", "Location.ID", "PMS_PM25"), call = call)
  ref <- read_csv_columns(ref_path, c("ID", "datetime", "PM10", "PM2.5"), call = call)
  # Spaces around a name make no other box or station: they would split one, or leave a box
  # reading without its station's reference.
  for (col in c("ID", "Location.ID")) lcs[[col]] <- trimws(lcs[[col]])
  ref$ID <- trimws(ref$ID)
  lcs <- drop_repeated_rows(lcs, c("ID", "date"), lcs_path, call)
  ref <- drop_repeated_rows(ref, c("ID", "datetime"), ref_path, call)
  lcs <- blank_file_values(lcs, "PMS_PM25", lcs_path, call = call)
  ref <- blank_file_values(ref, c("PM2.5", "PM10"), ref_path, call = call)
  check_filled(lcs, "ID", lcs_path, call = call)
  check_filled(ref, "ID", ref_path, call = call)
  lcs_date <- parse_time(lcs$date, "%Y-%m-%dT%H:%M:%SZ", "date", lcs_path, lines = attr(lcs, "line"),
                        call = call)
  ref_date <- parse_time(ref$datetime, "%Y-%m-%dT%H:%M:%SZ", "datetime", ref_path,
                         lines = attr(ref, "line"), call = call)
  check_hour_starts(lcs_date, lcs$date, "date", lcs_path, attr(lcs, "line"), call)
  check_hour_starts(ref_date, ref$datetime, "datetime", ref_path, attr(ref, "line"), call)
  ref_row <- match(paste(lcs$Location.ID, as.numeric(lcs_date)),
                   paste(ref$ID, as.numeric(ref_date)))
  at_ref <- !is.na(ref_row)
  ref_row <- ref_row[at_ref]
  data.frame(station = lcs$Location.ID[at_ref], date = lcs_date[at_ref],
             box = sub("^Antwerp_", "", lcs$ID[at_ref]),
             pm25 = as_number(lcs$PMS_PM25, "PMS_PM25", lcs_path, attr(lcs, "line"), call)[at_ref],
             ref = as_number(ref$PM2.5, "PM2.5", ref_path, attr(ref, "line"), call)[ref_row],
             ref_pm10 = as_number(ref$PM10, "PM10", ref_path, attr(ref, "line"), call)[ref_row])
}

# One row per station-hour with a reference value and at least one box
# reading; boxes numbered within each station in alphabetical order.
senseurcity_wide <- function(long) {
  long <- long[!is.na(long$pm25) & !is.na(long$ref) & !is.na(long$box), , drop = FALSE]
  boxes <- unique(long[c("station", "box")])
  boxes <- boxes[order(boxes$station, boxes$box, method = "radix"), , drop = FALSE]
  boxes$slot <- stats::ave(seq_along(boxes$box), boxes$station, FUN = seq_along)
  long$slot <- boxes$slot[match(paste(long$station, long$box), paste(boxes$station, boxes$box))]

  key <- paste(long$station, as.numeric(long$date))
  first <- !duplicated(key)
  out <- data.frame(date = long$date[first], station = long$station[first])
  n_slots <- max(2L, boxes$slot)
  for (k in seq_len(n_slots)) {
    in_slot <- long$slot == k
    out[[paste0("box_", k)]] <- long$pm25[in_slot][match(key[first], key[in_slot])]
  }
  out$ref <- long$ref[first]
  out$ref_pm10 <- long$ref_pm10[first]
  for (k in seq_len(n_slots)) {
    in_slot <- boxes$slot == k
    out[[paste0("box_", k, "_id")]] <- boxes$box[in_slot][match(out$station, boxes$station[in_slot])]
  }
  as_tbl(out[order(out$station, out$date, method = "radix"), , drop = FALSE])
}

senseurcity_file <- function(dir, name, call = parent.frame()) {
  path <- file.path(dir, name)
  if (!file.exists(path)) {
    ncam_abort("{.arg dir} must contain the file {.file {name}}; it is not in {.file {dir}}.",
               call = call)
  }
  path
}

#' Read the EPA sensortoolkit "Toco Toucan" co-location data (hourly)
#'
#' Reads an hourly merge of the EPA sensortoolkit example data set: three
#' units (RT01, RT02, RT03) of one sensor model beside FEM reference monitors
#' (AirNowTech), August 2019, for PM2.5 or ozone. sensortoolkit ships 1-minute
#' files per unit (`toco_toucan_RT0k_raw.csv`) and a long reference file
#' (`airnowtech_example_reference_data.csv`), not this merge: the file read
#' here (such as `toucan_hourly_merged.csv`) is derived from them, each unit's
#' hourly means of its 1-minute data (empty for hours with under 45 minutes)
#' joined with the reference's hourly values on the local standard time hour.
#' It has one row per hour, the start of the hour in local standard time
#' (UTC-5) in column `time_lst_utc-5` (as `2019-08-01T19:00`), and the
#' columns `RT0k_temp`, `RT0k_rh`, `RT0k_dp` (k = 1, 2, 3) with, for PM2.5,
#' `RT0k_pm25` and `ref_pm25` (ug/m3) or, for ozone, `RT0k_o3` and `ref_o3`
#' (ppb, as sensortoolkit's files and AirNowTech give them). Other columns of
#' the file (such as the units' NO2, which does not follow the reference) are
#' not read.
#'
#' The units' ozone follows the reference closely (correlation 0.98 to 0.99
#' over the 665 hours with all four in the shared file), their PM2.5 less so
#' (0.72 to 0.75, reading about 40 % low): the ozone channels are the easier
#' case for a fusion, and a check of a workflow on a gas. For
#' [sensor_performance()], `pollutant = "o3"` judges them by the targets for
#' ozone (in ppb, hourly).
#'
#' The meteorological covariates are taken from the sensor units, not the
#' reference site: each is the mean over the units reporting in that hour (a
#' missing-value code or an impossible humidity counts as not reporting).
#'
#' `date` is shown in `tz`, UTC by default. Calendar days, such as the 24-hour
#' means of [sensor_performance()], are taken in the column's time zone; for
#' days in local standard time, as in EPA's evaluations, give
#' `tz = "Etc/GMT+5"` (the same instants, shown at UTC-5; note the sign of
#' the Etc zones), and `tz = "America/New_York"` for the local clock time,
#' daylight saving included.
#'
#' An hour that repeats in the file gives a warning (the repeats would weigh
#' twice in a fit). A time that is not the start of an hour (`2019-08-01T19:30`)
#' is an error naming the row and line: each row is an hour's means, stamped
#' with its start.
#'
#' @eval missing_codes_rd("`RT0k_rh`, before the mean over units")
#' @param path Path to the CSV file.
#' @param pollutant `"pm25"` (default) for PM2.5 or `"o3"` for ozone: which
#'   columns of the units and the reference are read as `rt01`, `rt02`,
#'   `rt03` and `ref`, as `pollutant` of [sensor_performance()] names them.
#' @param tz Time zone in which to show `date`, as for [read_purpleair()]
#'   and [read_aqs()]: the instants are the same in every zone.
#' @param ... Not used: an argument not named above is an error (`file` is
#'   pointed to `path`).
#' @return A tibble with one row per hour in file order, with columns
#'   `date` (POSIXct in `tz`, start of the hour), `rt01`, `rt02`, `rt03` (the
#'   units' PM2.5 in ug/m3, or ozone in ppb), `ref` (the reference's PM2.5 in
#'   ug/m3, or ozone in ppb), `temperature` (deg C), `rh` (%) and `dew_point`
#'   (deg C).
#' @export
#' @examples
#' path <- tempfile(fileext = ".csv")
#' units <- paste0("RT0", 1:3)
#' vars <- c("o3", "pm25", "temp", "rh", "dp")
#' header <- c("time_lst_utc-5", paste(rep(units, each = 5), vars, sep = "_"), "ref_pm25", "ref_o3")
#' writeLines(c(paste(header, collapse = ","),
#'              paste0("2019-08-01T19:00,31.2,4.1,25,70,19,30.8,4.3,25.2,69,19,",
#'                     "26.9,3.9,24.8,71,19.2,7.5,33")), path)
#' read_toucan(path)
#' read_toucan(path, pollutant = "o3", tz = "Etc/GMT+5")
read_toucan <- function(path, pollutant = c("pm25", "o3"), tz = "UTC", ...) {
  check_dots_empty_hinted()
  pollutant <- match_choice(pollutant, c("pm25", "o3"), "pollutant")
  check_tz(tz)
  units <- paste0("RT0", 1:3)
  measures <- c(pollutant, "temp", "rh", "dp")
  unit_cols <- paste(rep(units, each = length(measures)), measures, sep = "_")
  reference <- paste0("ref_", pollutant)
  raw <- read_csv_columns(path, c("time_lst_utc-5", unit_cols, reference))
  # Before the means over units, which would take a -999 in.
  raw <- blank_file_values(raw, c(unit_cols, reference), path, rh_columns = paste0(units, "_rh"))
  num <- function(col) as_number(raw[[col]], col, path, attr(raw, "line"))
  # Local standard time is UTC-5 all year.
  lst <- parse_time(raw[["time_lst_utc-5"]], "%Y-%m-%dT%H:%M", "time_lst_utc-5", path,
                    lines = attr(raw, "line"))
  check_hour_starts(lst, raw[["time_lst_utc-5"]], "time_lst_utc-5", path, attr(raw, "line"),
                    environment())
  warn_repeated_readings(NULL, lst, "hour", attr(raw, "line"), path)
  unit_mean <- function(measure) {
    x <- vapply(paste(units, measure, sep = "_"), num, numeric(nrow(raw)))
    m <- rowMeans(matrix(x, nrow(raw)), na.rm = TRUE)
    m[is.nan(m)] <- NA_real_  # ifelse() of no rows would be logical
    m
  }
  date <- lst + 5 * 3600
  attr(date, "tzone") <- tz
  reading <- function(unit) num(paste(unit, pollutant, sep = "_"))
  as_tbl(list(
    date = date,
    rt01 = reading("RT01"),
    rt02 = reading("RT02"),
    rt03 = reading("RT03"),
    ref = num(reference),
    temperature = unit_mean("temp"),
    rh = unit_mean("rh"),
    dew_point = unit_mean("dp")
  ))
}
