# PurpleAir sensor history CSVs as the API's "Get Sensor History (CSV)" endpoint and the
# download tool write them, with fixtures written here.

write_csv_tmp <- function(lines, name, env = parent.frame()) {
  path <- file.path(withr::local_tempdir(.local_envir = env), name)
  writeLines(lines, path)
  path
}

api_lines <- c(
  "time_stamp,sensor_index,humidity,temperature,pm2.5_cf_1_a,pm2.5_cf_1_b,pm2.5_atm_a,pm2.5_atm_b",
  "1682946000,131611,41,68,7.9,8.3,7.5,7.9",
  "1682949600,131611,44,50,9.2,9.0,8.8,8.6",
  "1682946000,2045,,212,12.0,11.2,,"
)

test_that("read_purpleair() reads an API history file: Unix times, several sensors, deg F", {
  out <- read_purpleair(write_csv_tmp(api_lines, "history.csv"))
  expect_s3_class(out, "tbl_df")
  expect_named(out, c("date", "sensor_index", "pm25_cf1_a", "pm25_cf1_b", "pm25_atm_a",
                      "pm25_atm_b", "rh", "temperature"))
  # 1682946000 s after the epoch is 2023-05-01 13:00 UTC.
  expect_identical(out$date, as.POSIXct(c("2023-05-01 13:00", "2023-05-01 14:00",
                                          "2023-05-01 13:00"), tz = "UTC"))
  expect_identical(out$sensor_index, c("131611", "131611", "2045"))
  expect_identical(out$pm25_cf1_b, c(8.3, 9.0, 11.2))
  expect_identical(out$pm25_atm_a, c(7.5, 8.8, NA))
  expect_identical(out$rh, c(41, 44, NA))
  # 68 F = 20 C, 50 F = 10 C, 212 F = 100 C.
  expect_equal(out$temperature, c(20, 10, 100), tolerance = 1e-12)
  expect_type(out$pm25_cf1_a, "double")
})

test_that("read_purpleair() reads download-tool files: ISO times, index from the file name", {
  tool <- c("time_stamp,humidity_a,temperature_a,pressure,pm2.5_cf_1_a,pm2.5_cf_1_b",
            "2023-05-01T13:00:00Z,41,-40,840.2,7.9,8.3",
            "2023-05-01 15:30:00+02:00,44,32,840.1,9.2,9.0",
            "2023-05-01T14:00,45,41,840.0,9.9,9.5")
  path <- write_csv_tmp(tool, "131611 2023-05-01 2023-05-02 60-Minute Average.csv")
  out <- read_purpleair(path, tz = "America/Denver")
  expect_named(out, c("date", "sensor_index", "pm25_cf1_a", "pm25_cf1_b", "rh", "temperature"))
  expect_identical(attr(out$date, "tzone"), "America/Denver")
  # 13:00Z; 15:30 at +02:00 is 13:30Z; a time without zone is UTC.
  expect_identical(as.numeric(out$date), 1682946000 + c(0, 1800, 3600))
  expect_identical(out$sensor_index, rep("131611", 3))
  expect_equal(out$temperature, c(-40, 0, 5), tolerance = 1e-12)
  # RFC 3339's lower-case "t" and "z" are the same times.
  lower <- write_csv_tmp(c(tool[1], sub("T13:00:00Z", "t13:00:00z", tool[2]), tool[3:4]), "131611_lower.csv")
  expect_identical(read_purpleair(lower, tz = "America/Denver")$date, out$date)

  # Several files: columns a file lacks are NA; the argument names files' sensors.
  plain <- write_csv_tmp(tool[1:2], "download.csv")
  both <- read_purpleair(c(write_csv_tmp(api_lines, "api.csv"), plain), sensor_index = c(NA, "77"))
  expect_identical(both$sensor_index, c("131611", "131611", "2045", "77"))
  expect_identical(both$pm25_atm_b, c(7.9, 8.6, NA, NA))
  expect_identical(nrow(read_purpleair(plain, sensor_index = 77)), 1L)
})

test_that("read_purpleair() names the file, column and line of bad input", {
  expect_error(read_purpleair(write_csv_tmp(sub(",pm2.5_cf_1_b", "", api_lines[1]), "nob.csv")),
               "pm2.5_cf_1_b", class = "rlang_error")
  bad <- api_lines
  bad[3] <- sub(",50,", ",warm,", bad[3])
  expect_error(read_purpleair(write_csv_tmp(bad, "warm.csv")), "temperature.*row 2 \\(line 3\\)",
               class = "rlang_error")
  bad <- api_lines
  bad[3] <- sub("^1682949600", "2023-05-01T14:00:00Z", bad[3])
  expect_error(read_purpleair(write_csv_tmp(bad, "mixed.csv")), "time_stamp.*row 1",
               class = "rlang_error")
  bad <- api_lines
  bad[3] <- sub("^1682949600", "2023-02-30T14:00:00Z", bad[3])
  expect_error(read_purpleair(write_csv_tmp(bad, "feb30.csv")), "time_stamp", class = "rlang_error")
  no_humidity <- c("time_stamp,temperature,pm2.5_cf_1_a,pm2.5_cf_1_b", "1682946000,68,7.9,8.3")
  expect_error(read_purpleair(write_csv_tmp(no_humidity, "1.csv")), "humidity", class = "rlang_error")
  one_atm <- c("time_stamp,humidity,temperature,pm2.5_cf_1_a,pm2.5_cf_1_b,pm2.5_atm_a",
               "1682946000,41,68,7.9,8.3,7.5")
  expect_error(read_purpleair(write_csv_tmp(one_atm, "2.csv")), "pm2.5_atm_a", class = "rlang_error")
})

test_that("read_purpleair() refuses times in milliseconds", {
  ms <- c(api_lines[1:2], sub("^1682949600", "1682949600000", api_lines[3]))
  expect_error(read_purpleair(write_csv_tmp(ms, "ms.csv")),
               "time_stamp.*row 2 \\(line 3\\) is \"1682949600000\", in the year 55300.*milliseconds.*1000",
               class = "rlang_error")
  # Seconds from before 2000 (here 1990) are refused too, without the milliseconds hint.
  old <- c(api_lines[1], sub("^1682946000", "631152000", api_lines[2]))
  expect_error(read_purpleair(write_csv_tmp(old, "old.csv")), "year 1990.*seconds since 1970",
               class = "rlang_error")
})

test_that("read_purpleair() reads whole Unix seconds in scientific notation", {
  # write.csv() writes 1674000000 and 1674003600 as "1.674e+09" and "1674003600".
  sci <- c(api_lines[1], sub("^1682946000", "1.674e+09", api_lines[2]),
           sub("^1682949600", "1674003600", api_lines[3]), sub("^1682946000", "1.6740036E9", api_lines[4]))
  out <- read_purpleair(write_csv_tmp(sci, "sci.csv"))
  # 1674000000 s = 19375 days of 86400 s (2023-01-18) and 0 s; 1674003600 is one hour later.
  expect_identical(out$date, as.POSIXct(c("2023-01-18 00:00", "2023-01-18 01:00", "2023-01-18 01:00"),
                                        tz = "UTC"))
  # 1.6740000005e+09 is 1674000000.5: a rounded time, refused.
  frac <- c(api_lines[1:2], sub("^1682949600", "1.6740000005e+09", api_lines[3]))
  expect_error(read_purpleair(write_csv_tmp(frac, "frac.csv")),
               "time_stamp.*must hold ISO 8601 times or Unix seconds: row 2 \\(line 3\\) is \"1.6740000005e\\+09\"",
               class = "rlang_error")
})

test_that("read_purpleair() needs a sensor index it can trust", {
  tool <- c("time_stamp,humidity,temperature,pm2.5_cf_1_a,pm2.5_cf_1_b", "1682946000,41,68,7.9,8.3")
  # A date before the index would give the year as the sensor.
  expect_error(read_purpleair(write_csv_tmp(tool, "2023-05_131611.csv")), "starts with a date.*sensor_index",
               class = "rlang_error")
  for (dated in c("20230501_131611.csv", "2023_131611.csv", "sensor_2023_05.csv", "01-05-2023_131611.csv",
                  "05-2023_131611.csv")) {
    expect_error(read_purpleair(write_csv_tmp(tool, dated)), "starts with a date or a year", class = "rlang_error")
  }
  expect_identical(read_purpleair(write_csv_tmp(tool, "2023-05_131611.csv"), sensor_index = 131611)$sensor_index,
                   "131611")
  # an index of 8 digits that is no date, and an index before a year, are read
  expect_identical(read_purpleair(write_csv_tmp(tool, "20231399.csv"))$sensor_index, "20231399")
  expect_identical(read_purpleair(write_csv_tmp(tool, "131611_2023.csv"))$sensor_index, "131611")
  expect_identical(read_purpleair(write_csv_tmp(tool, "sensor-131611_2023-05.csv"))$sensor_index, "131611")
  # The index then a date, joined by a dash.
  for (indexed in c("131611-2023-05.csv", "131611-20230501.csv")) {
    expect_identical(read_purpleair(write_csv_tmp(tool, indexed))$sensor_index, "131611")
  }
  expect_error(read_purpleair(write_csv_tmp(tool, "history_2023.csv")), "sensor_index",
               class = "rlang_error")
  expect_error(read_purpleair(write_csv_tmp(api_lines, "a.csv"), sensor_index = 5),
               "sensor_index", class = "rlang_error")
  expect_error(read_purpleair(write_csv_tmp(tool, "b.csv"), sensor_index = c(1, 2)),
               "sensor_index", class = "rlang_error")
  # The argument is checked as a sensor index, and a large one keeps all its digits.
  for (bad in list(1.5, "abc", -1, "", Inf)) {
    expect_error(read_purpleair(write_csv_tmp(tool, "b.csv"), sensor_index = bad),
                 "`sensor_index` must hold PurpleAir sensor indexes.*sensor_index\\[1\\] =",
                 class = "rlang_error")
  }
  expect_error(read_purpleair(rep(write_csv_tmp(tool, "b.csv"), 2), sensor_index = c("12", "x7")),
               "sensor_index\\[2\\] = \"x7\"", class = "rlang_error")
  expect_identical(read_purpleair(write_csv_tmp(tool, "b.csv"), sensor_index = 1e6)$sensor_index, "1000000")
  expect_identical(read_purpleair(write_csv_tmp(tool, "b.csv"), sensor_index = " 77")$sensor_index, "77")
  expect_error(read_purpleair(file.path(tempdir(), "absent.csv")), "path", class = "rlang_error")
  expect_error(read_purpleair(write_csv_tmp(api_lines, "c.csv"), tz = "Mars/Olympus"), "tz",
               class = "rlang_error")
})

test_that("read_purpleair() warns when a sensor reads the same time twice", {
  path <- write_csv_tmp(api_lines, "history.csv")
  w <- expect_warning(out <- read_purpleair(c(path, path)), class = "ncam_warning_repeated_rows")
  expect_match(gsub("\\s+", " ", conditionMessage(w)), "3 rows repeat .* the first being line 2 of '.*history.csv' \\(sensor 131611\\), a repeat of line 2 of")
  expect_identical(nrow(out), 6L)
})

test_that("the repeated-readings warning of several files names the file and line of each reading", {
  hdr <- "time_stamp,humidity,temperature,pm2.5_cf_1_a,pm2.5_cf_1_b"
  a <- write_csv_tmp(c(hdr, "1682946000,1,1,1,1", "1682949600,1,1,1,1"), "131611_a.csv")
  b <- write_csv_tmp(c(hdr, "1682953200,1,1,1,1", "", "1682949600,1,1,2,2"), "131611_b.csv")
  # Row 4 of the result is line 4 of b (after a blank line); it repeats line 3 of a.
  w <- expect_warning(read_purpleair(c(a, b)), class = "ncam_warning_repeated_rows")
  expect_match(gsub("\\s+", " ", conditionMessage(w)),
               "1 row repeats the sensor and time of an earlier row, the first being line 4 of '.*131611_b.csv' \\(sensor 131611\\), a repeat of line 3 of '.*131611_a.csv'\\.")
})

test_that("read_purpleair() reads a whole-number index written as a decimal as the same sensor", {
  hdr <- "time_stamp,sensor_index,humidity,temperature,pm2.5_cf_1_a,pm2.5_cf_1_b"
  a <- write_csv_tmp(c(hdr, "1682946000,131611,40,50,5,6", "1682949600,131611,40,50,5,6"), "a.csv")
  # As pandas writes an integer column that held a missing value.
  b <- write_csv_tmp(c(hdr, "1682949600,131611.0,40,50,7,6", "1682953200,131611.00,40,50,7,6",
                       "1682953200,131611.5,40,50,7,6"), "b.csv")
  w <- expect_warning(out <- read_purpleair(c(a, b)), class = "ncam_warning_repeated_rows")
  expect_match(gsub("\\s+", " ", conditionMessage(w)), "line 2 of '.*b.csv' \\(sensor 131611\\), a repeat of line 3 of '.*a.csv'")
  # A fraction is not a whole number: that index is kept as written.
  expect_identical(out$sensor_index, c("131611", "131611", "131611", "131611", "131611.5"))
})

test_that("read_purpleair() reads NaN as NA and refuses hexadecimal", {
  hdr <- "time_stamp,sensor_index,humidity,temperature,pm2.5_cf_1_a,pm2.5_cf_1_b"
  # NaN as MATLAB, numpy and C write it; NA as R does.
  nan <- c(hdr, "1682946000,131611,NaN,50,5,nan", "1682949600,131611,40,-nan,NAN,NA")
  out <- read_purpleair(write_csv_tmp(nan, "nan.csv"))
  expect_identical(out$rh, c(NA, 40))
  expect_identical(out$temperature, c(10, NA))  # 50 F is 10 C
  expect_identical(out$pm25_cf1_a, c(5, NA))
  expect_identical(out$pm25_cf1_b, c(NA_real_, NA_real_))
  expect_false(any(is.nan(unlist(out[-(1:2)]))))
  # as.numeric() reads "0x1A" as 26; like "12,5", it is no reading.
  for (value in c("0x1A", "12,5", "Inf")) {
    bad <- c(hdr, "1682946000,131611,40,50,5,6", paste0("1682949600,131611,40,50,\"", value, "\",6"))
    expect_error(read_purpleair(write_csv_tmp(bad, "bad.csv")),
                 paste0("pm2.5_cf_1_a.*not numeric: row 2 \\(line 3\\) is \"", value, "\""),
                 class = "rlang_error")
  }
})

test_that("read_purpleair() refuses a sensor_index that is a missing value", {
  hdr <- "time_stamp,sensor_index,humidity,temperature,pm2.5_cf_1_a,pm2.5_cf_1_b"
  # pandas writes a missing index as NaN: no sensor is called "NaN" (nor "NA").
  for (id in c("NaN", " nan ", "-NaN", " NA")) {
    rows <- c(hdr, "1682946000,131611,40,50,5,6", paste0("1682949600,", id, ",40,50,5,6"))
    expect_error(read_purpleair(write_csv_tmp(rows, "nan_id.csv")),
                 paste0("\"sensor_index\" of .*missing in row 2 \\(line 3\\): it holds \"", id, "\""),
                 class = "rlang_error")
  }
  # Spaces alone are empty, as before.
  rows <- c(hdr, "1682946000,131611,40,50,5,6", "1682949600,   ,40,50,5,6")
  expect_error(read_purpleair(write_csv_tmp(rows, "blank_id.csv")),
               "\"sensor_index\" of .*empty in row 2 \\(line 3\\)", class = "rlang_error")
})

test_that("read_purpleair() reads numeric fields of spaces alone as NA", {
  hdr <- "time_stamp,sensor_index,humidity,temperature,pm2.5_cf_1_a,pm2.5_cf_1_b"
  # Missing, as read.csv() reads them (quoted or not).
  rows <- c(hdr, "1682946000,131611,   ,50,5,6", "1682949600,131611,40,\"  \",\t,6")
  path <- write_csv_tmp(rows, "blank.csv")
  out <- read_purpleair(path)
  expect_identical(is.na(read.csv(path)[c("humidity", "temperature", "pm2.5_cf_1_a")]),
                   is.na(as.data.frame(out[c("rh", "temperature", "pm25_cf1_a")])), ignore_attr = TRUE)
  expect_identical(out$rh, c(NA, 40))
  expect_identical(out$temperature, c(10, NA))  # 50 F is 10 C
  expect_identical(out$pm25_cf1_a, c(5, NA))
})

test_that("read_purpleair() reads missing-value codes and impossible humidities as NA", {
  lines <- c(api_lines[1],
             "1682946000,131611,41,-999,7.9,-9999,7.5,7.9",    # codes, in deg F and ug/m3
             "1682949600,131611,250,-4,9.2,9.0,8.8,-0.3",      # an impossible humidity
             "1682953200,131611,103,50,9.2,9.0,8.8,8.6")       # 103 % is a sensor's reading
  path <- write_csv_tmp(lines, "codes.csv")
  expect_warning(
    expect_warning(out <- read_purpleair(path),
                   "2 values are missing-value codes.*Column \"pm2.5_cf_1_b\": 1 value, row 1 \\(line 2\\) is -9999\\..*Column \"temperature\": 1 value, row 1 \\(line 2\\) is -999\\.",
                   class = "ncam_warning_missing_code"),
    "Column \"humidity\" \\(possible: -10 to 110\\): 1 value, row 2 \\(line 3\\) is 250\\.",
    class = "ncam_warning_impossible_value")
  # Before, -999 deg F came back as -572.8 deg C.
  expect_equal(out$temperature, c(NA, (-4 - 32) * 5 / 9, 10), tolerance = 1e-12)
  expect_identical(out$pm25_cf1_b, c(NA, 9, 9))
  expect_identical(out$pm25_atm_b, c(7.9, -0.3, 8.6))
  expect_identical(out$rh, c(41, NA, 103))
})
