# EPA AQS pre-generated files in their published layouts (every field quoted except
# numbers, as EPA writes them), with fixtures written here.

quoted <- function(...) paste0("\"", c(...), "\"", collapse = ",")

hourly_header <- quoted("State Code", "County Code", "Site Num", "Parameter Code", "POC",
                        "Latitude", "Longitude", "Datum", "Parameter Name", "Date Local",
                        "Time Local", "Date GMT", "Time GMT", "Sample Measurement",
                        "Units of Measure", "MDL", "Uncertainty", "Qualifier", "Method Type",
                        "Method Code", "Method Name", "State Name", "County Name",
                        "Date of Last Change")

hourly_row <- function(state, county, site, parameter, poc, local, gmt, value, qualifier = "") {
  paste0(quoted(state, county, site, parameter), ",", poc, ",34.06659,-118.22688,",
         quoted("WGS84", "PM2.5 - Local Conditions", local[1], local[2], gmt[1], gmt[2]), ",",
         value, ",", quoted("Micrograms/cubic meter (LC)"), ",2,,", quoted(qualifier, "FEM", "209",
         "Teledyne T640 at 5.0 LPM", "California", "Los Angeles", "2023-04-20"))
}

hourly_lines <- c(
  hourly_header,
  # Los Angeles: local standard time is GMT - 8, so local 23:00 on Dec 31 is 07:00 GMT.
  hourly_row("06", "037", "1103", "88101", 3, c("2022-12-31", "23:00"), c("2023-01-01", "07:00"), 12.4),
  hourly_row("06", "037", "1103", "88101", 3, c("2023-01-01", "00:00"), c("2023-01-01", "08:00"), "", "AN"),
  hourly_row("06", "037", "1103", "44201", 1, c("2023-01-01", "00:00"), c("2023-01-01", "08:00"), 0.021),
  hourly_row("6", "65", "12", "88101", 1, c("2023-01-01", "00:00"), c("2023-01-01", "08:00"), 3.5),
  hourly_row("CC", "040", "0001", "88101", 1, c("2023-01-01", "03:00"), c("2023-01-01", "08:00"), 6)
)

write_tmp <- function(lines, name, env = parent.frame()) {
  path <- file.path(withr::local_tempdir(.local_envir = env), name)
  writeLines(lines, path)
  path
}

test_that("read_aqs() reads an hourly file with dates from the GMT columns", {
  out <- read_aqs(write_tmp(hourly_lines, "hourly_88101_2023.csv"))
  expect_s3_class(out, "tbl_df")
  expect_named(out, c("date", "site", "poc", "parameter", "value", "units", "latitude",
                      "longitude", "qualifier", "method_code"))
  expect_identical(out$date, as.POSIXct(c("2023-01-01 07:00", rep("2023-01-01 08:00", 4)), tz = "UTC"))
  # Codes lose leading zeros in some exports; Canadian sites have state code "CC".
  expect_identical(out$site, c("06-037-1103", "06-037-1103", "06-037-1103", "06-065-0012", "CC-040-0001"))
  expect_identical(out$poc, c("3", "3", "1", "1", "1"))
  expect_identical(out$parameter, c("88101", "88101", "44201", "88101", "88101"))
  expect_identical(out$value, c(12.4, NA, 0.021, 3.5, 6))
  expect_identical(out$qualifier, c(NA, "AN", NA, NA, NA))
  expect_identical(out$latitude[1], 34.06659)

  local <- read_aqs(write_tmp(hourly_lines, "h.csv"), tz = "America/Los_Angeles")
  expect_identical(format(local$date[1], "%Y-%m-%d %H:%M"), "2022-12-31 23:00")
  expect_identical(as.numeric(local$date), as.numeric(out$date))
})

test_that("read_aqs() keeps the parameters and sites asked for", {
  path <- write_tmp(hourly_lines, "hourly.csv")
  out <- read_aqs(path, parameter = "88101", site = c("06-037-1103", "06-065-0012"))
  expect_identical(out$value, c(12.4, NA, 3.5))
  expect_identical(read_aqs(path, parameter = 88101), read_aqs(path, parameter = "88101"))
  expect_error(read_aqs(path, parameter = 881.01), "parameter", class = "rlang_error")
})

test_that("read_aqs() names what the files have when `parameter` or `site` matches nothing", {
  path <- write_tmp(hourly_lines, "hourly.csv")
  expect_error(read_aqs(path, site = "6-37-1103"),
               "`site` \"6-37-1103\" matches no row.*\"06-037-1103\", \"06-065-0012\", and \"CC-040-0001\"",
               class = "rlang_error")
  expect_error(read_aqs(path, parameter = "88502"), "`parameter` \"88502\".*\"44201\" and \"88101\"",
               class = "rlang_error")
  expect_error(read_aqs(path, parameter = "44201", site = "06-065-0012"),
               "both.*44201.*06-065-0012.*parameter code \"88101\"", class = "rlang_error")
  # One of several codes matching nothing is a warning; the others are read.
  expect_warning(out <- read_aqs(path, parameter = c("88101", "42101")), "\"42101\" matches no row")
  expect_identical(out$value, c(12.4, NA, 3.5, 6))
  # A file without data rows gives zero rows, whatever is asked.
  expect_identical(nrow(read_aqs(write_tmp(hourly_lines[1], "empty.csv"), site = "06-037-1103")), 0L)
})

test_that("read_aqs() reads the zip files EPA ships and several files at once", {
  skip_if(!nzchar(Sys.which("zip")), "no zip program")
  dir <- withr::local_tempdir()
  csv <- file.path(dir, "hourly_88101_2023.csv")
  writeLines(hourly_lines, csv)
  zipped <- file.path(dir, "hourly_88101_2023.zip")
  withr::with_dir(dir, utils::zip(zipped, basename(csv), flags = "-q"))
  # The same readings twice: each monitor-hour repeats, named by line and file.
  w <- expect_warning(out <- read_aqs(c(zipped, csv)), class = "ncam_warning_repeated_rows")
  expect_match(gsub("\\s+", " ", conditionMessage(w)),
               "5 rows repeat the monitor and hour of an earlier row, the first being line 2 of '.*hourly_88101_2023.csv' \\(monitor 06-037-1103, parameter 88101, POC 3\\), a repeat of line 2 of '.*hourly_88101_2023.zip\\[hourly_88101_2023.csv\\]'")
  expect_identical(nrow(out), 10L)
  expect_identical(out$value[1:5], out$value[6:10])
  expect_identical(read_aqs(zipped, parameter = "88101", site = "06-037-1103")$value, c(12.4, NA))
  bad <- sub("12.4", "12,4", hourly_lines)
  writeLines(bad, csv)
  unlink(zipped)
  withr::with_dir(dir, utils::zip(zipped, basename(csv), flags = "-q"))
  expect_error(read_aqs(zipped), "Line 2 of .*hourly_88101_2023.zip\\[hourly_88101_2023.csv\\]",
               class = "rlang_error")
})

test_that("read_aqs() warns of a monitor-hour given twice, and reads codes written as decimals", {
  # As pandas writes the codes of a column that held a missing value.
  lines <- c(hourly_header, sub('^"06","037","1103","88101",3', '6.0,37.0,1103.0,88101.0,3.0', hourly_lines[2]),
             hourly_lines[2:3], sub('"209"', '"209.0"', hourly_lines[4]))
  path <- write_tmp(lines, "hourly.csv")
  w <- expect_warning(out <- read_aqs(path, parameter = "88101"), class = "ncam_warning_repeated_rows")
  expect_match(gsub("\\s+", " ", conditionMessage(w)),
               "1 row repeats the monitor and hour of an earlier row, the first being line 3 of '.*hourly.csv' \\(monitor 06-037-1103, parameter 88101, POC 3\\), a repeat of line 2 of")
  expect_identical(out$site, rep("06-037-1103", 3))
  expect_identical(out$parameter, rep("88101", 3))
  expect_identical(out$poc, rep("3", 3))
  expect_identical(out$value, c(12.4, 12.4, NA))
  # Another POC, or the same hour of another parameter, is another series: no warning.
  other <- c(hourly_lines[1:2], sub('"88101",3,', '"88101",1,', hourly_lines[2]),
             sub('"88101",3,', '"44201",3,', hourly_lines[2]))
  expect_no_warning(read_aqs(write_tmp(other, "other.csv")))
  expect_identical(read_aqs(path, parameter = "44201")$method_code, "209")
})

daily_header <- quoted("State Code", "County Code", "Site Num", "Parameter Code", "POC", "Latitude",
                       "Longitude", "Datum", "Parameter Name", "Sample Duration",
                       "Pollutant Standard", "Date Local", "Units of Measure", "Event Type",
                       "Observation Count", "Observation Percent", "Arithmetic Mean",
                       "1st Max Value", "1st Max Hour", "AQI", "Method Code", "Method Name",
                       "Local Site Name", "Address", "State Name", "County Name", "City Name",
                       "CBSA Name", "Date of Last Change")

daily_row <- function(standard, date, mean, count) {
  paste0(quoted("06", "037", "1103", "88101"), ",3,34.06659,-118.22688,",
         quoted("WGS84", "PM2.5 - Local Conditions", "1 HOUR", standard, date,
                "Micrograms/cubic meter (LC)", "None"), ",", count, ",", round(100 * count / 24),
         ",", mean, ",20.1,9,51,", quoted("209", "Teledyne T640", "Los Angeles-North Main Street",
         "1630 N MAIN ST", "California", "Los Angeles", "Los Angeles",
         "Los Angeles-Long Beach-Anaheim, CA", "2023-04-20"))
}

test_that("read_aqs() reads a daily file with local calendar dates", {
  lines <- c(daily_header,
             daily_row("PM25 24-hour 2012", "2023-01-01", 9.8125, 24),
             daily_row("PM25 Annual 2012", "2023-01-01", 9.8125, 24),
             daily_row("PM25 24-hour 2012", "2023-01-02", 11.2, 22))
  out <- read_aqs(write_tmp(lines, "daily_88101_2023.csv"))
  expect_named(out, c("date", "site", "poc", "parameter", "sample_duration", "pollutant_standard",
                      "event_type", "value", "units", "observation_count", "observation_percent",
                      "latitude", "longitude", "method_code"))
  expect_identical(out$date, as.Date(c("2023-01-01", "2023-01-01", "2023-01-02")))
  expect_identical(out$value, c(9.8125, 9.8125, 11.2))
  expect_identical(out$observation_count, c(24, 24, 22))
  expect_identical(out$pollutant_standard[2], "PM25 Annual 2012")
  # A day given twice under the same standard and event type repeats; under another, it does not.
  w <- expect_warning(read_aqs(write_tmp(lines[c(1:4, 2)], "twice.csv")), class = "ncam_warning_repeated_rows")
  expect_match(gsub("\\s+", " ", conditionMessage(w)),
               "1 row repeats the monitor and day .* line 5 of '.*twice.csv' \\(monitor 06-037-1103, parameter 88101, POC 3, 1 HOUR, PM25 24-hour 2012, event type None\\), a repeat of line 2 of")
  expect_error(read_aqs(c(write_tmp(lines, "d.csv"), write_tmp(hourly_lines, "h.csv"))),
               "mixes hourly and daily", class = "rlang_error")
})

test_that("read_aqs() names what is wrong with a file", {
  no_time <- sub(",\"Time GMT\"", "", hourly_lines[1])
  expect_error(read_aqs(write_tmp(no_time, "a.csv")), "hourly.*Time GMT",
               class = "rlang_error")
  misspelt <- sub("\"Sample Measurement\"", "\"Sample.Measurement\"", hourly_lines[1])
  expect_error(read_aqs(write_tmp(misspelt, "m.csv")), "hourly.*Sample Measurement", class = "rlang_error")
  expect_error(read_aqs(write_tmp(sub("\"Arithmetic Mean\"", "\"Mean\"", daily_header), "b.csv")),
               "daily.*Arithmetic Mean", class = "rlang_error")
  expect_error(read_aqs(write_tmp("a,b\n1,2", "c.csv")), "State Code", class = "rlang_error")
  bad <- hourly_lines
  bad[3] <- sub("\"08:00\"", "\"8h\"", bad[3])
  expect_error(read_aqs(write_tmp(bad, "d.csv")), "Time GMT.*row 2 \\(line 3\\)", class = "rlang_error")
  bad <- hourly_lines
  bad[4] <- sub(",0.021,", ",<LOD,", bad[4])
  expect_error(read_aqs(write_tmp(bad, "e.csv")), "Sample Measurement.*row 3 \\(line 4\\)",
               class = "rlang_error")
})

test_that("read_aqs() reads NaN as NA and refuses hexadecimal", {
  lines <- hourly_lines[1:4]
  lines[2] <- sub(",12.4,", ",NaN,", lines[2], fixed = TRUE)
  lines[4] <- sub(",0.021,", ",nan,", lines[4], fixed = TRUE)
  out <- read_aqs(write_tmp(lines, "nan.csv"))
  expect_identical(out$value, c(NA_real_, NA_real_, NA_real_))
  # as.numeric("0x1A") is 26.
  lines[3] <- hourly_row("06", "037", "1103", "88101", 3, c("2023-01-01", "00:00"), c("2023-01-01", "08:00"), "0x1A")
  expect_error(read_aqs(write_tmp(lines, "hex.csv")),
               "Sample Measurement.*not numeric: row 2 \\(line 3\\) is \"0x1A\"", class = "rlang_error")
})

test_that("read_aqs() refuses a monitor code that is a missing value", {
  # Before, "NaN" made the site "NaN-037-1103", and an empty code "NA-037-1103".
  lines <- hourly_lines[1:3]
  lines[3] <- hourly_row("NaN", "037", "1103", "88101", 3, c("2023-01-01", "00:00"), c("2023-01-01", "08:00"), 5)
  expect_error(read_aqs(write_tmp(lines, "nan_state.csv")),
               "\"State Code\".*missing in row 2 \\(line 3\\): it holds \"NaN\"", class = "rlang_error")
  lines[3] <- hourly_row("06", "037", "", "88101", 3, c("2023-01-01", "00:00"), c("2023-01-01", "08:00"), 5)
  expect_error(read_aqs(write_tmp(lines, "no_site.csv"), site = "06-037-1103"),
               "\"Site Num\".*empty in row 2 \\(line 3\\)", class = "rlang_error")
  lines[3] <- hourly_row("06", "037", "1103", "88101", "nan", c("2023-01-01", "00:00"), c("2023-01-01", "08:00"), 5)
  expect_error(read_aqs(write_tmp(lines, "nan_poc.csv")),
               "\"POC\".*missing in row 2 \\(line 3\\): it holds \"nan\"", class = "rlang_error")
})

test_that("read_aqs() reads a measurement or coordinate of spaces alone as NA", {
  lines <- hourly_lines[1:3]
  lines[3] <- hourly_row("06", "037", "1103", "88101", 3, c("2023-01-01", "00:00"), c("2023-01-01", "08:00"), "   ")
  lines[2] <- sub(",34.06659,", ",  ,", lines[2], fixed = TRUE)
  out <- read_aqs(write_tmp(lines, "blank.csv"))
  expect_identical(out$value, c(12.4, NA))
  expect_identical(out$latitude, c(NA, 34.06659))
})

test_that("read_aqs() reads missing-value codes as NA and keeps small negative readings", {
  lines <- c(hourly_header,
             hourly_row("06", "037", "1103", "88101", 3, c("2023-01-01", "00:00"), c("2023-01-01", "08:00"), -2.1),
             hourly_row("06", "037", "1103", "88101", 3, c("2023-01-01", "01:00"), c("2023-01-01", "09:00"), "-999.0"))
  path <- write_tmp(lines, "hourly_88101_2023.csv")
  expect_warning(out <- read_aqs(path),
                 "Column \"Sample Measurement\": 1 value, row 2 \\(line 3\\) is -999\\.",
                 class = "ncam_warning_missing_code")
  expect_identical(out$value, c(-2.1, NA))
  # Rows left out by `site` are not counted; rows are those kept.
  other <- c(lines[1], hourly_row("06", "065", "0012", "88101", 1, c("2023-01-01", "00:00"),
                                  c("2023-01-01", "08:00"), -9999), lines[3])
  expect_warning(out <- read_aqs(write_tmp(other, "h2.csv"), site = "06-037-1103"),
                 "1 value is a missing-value code.*row 1 \\(line 3\\) is -999\\.",
                 class = "ncam_warning_missing_code")
  expect_identical(out$value, NA_real_)
})
