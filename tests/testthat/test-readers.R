write_lines_tmp <- function(lines, name = "data.csv", dir = withr::local_tempdir(.local_envir = parent.frame())) {
  path <- file.path(dir, name)
  writeLines(lines, path)
  path
}

purpleair_header <- "sensor_index,DAILY,conc,A_B_Avg,pm2.5_cf_1_a,pm2.5_cf_1_b,humidity_a,temp_Celsius,dewPoint,n"

test_that("read_purpleair_aqs() renames, types and sorts a small file", {
  path <- write_lines_tmp(c(purpleair_header,
                            "9,2022-01-02,6.1,8.15,8.0,8.3,51,12.5,2.6,24",
                            "10,2022-01-01,4.0,5.5,5.4,5.6,60,9.5,1.9,22",
                            "9,2022-01-01,5.2,7.05,7.1,7.0,55,10.1,1.4,23"))
  out <- read_purpleair_aqs(path)
  expect_named(out, c("date", "site", "pa_a", "pa_b", "ref", "rh", "temperature", "dew_point",
                      "n_hours"))
  expect_s3_class(out$date, "Date")
  expect_identical(out$site, c("10", "9", "9"))
  expect_identical(out$date, as.Date(c("2022-01-01", "2022-01-01", "2022-01-02")))
  expect_identical(out$pa_a, c(5.4, 7.1, 8.0))
  expect_identical(out$pa_b, c(5.6, 7.0, 8.3))
  expect_identical(out$ref, c(4.0, 5.2, 6.1))
  expect_identical(out$dew_point, c(1.9, 1.4, 2.6))
})

test_that("read_purpleair_aqs() names a missing column or a bad value", {
  path <- write_lines_tmp(c(sub(",pm2.5_cf_1_b", "", purpleair_header),
                            "9,2022-01-02,6.1,8.15,8.0,51,12.5,2.6,24"))
  expect_error(read_purpleair_aqs(path), "pm2.5_cf_1_b", class = "rlang_error")
  path <- write_lines_tmp(c(purpleair_header, "9,2022-01-02,6.1,8.15,8.0,8.3,51,hot,2.6,24"),
                          name = "bad.csv")
  expect_error(read_purpleair_aqs(path), "temp_Celsius.*row 1", class = "rlang_error")
  path <- write_lines_tmp(c(purpleair_header, "9,02/01/2022,6.1,8.15,8.0,8.3,51,12,2.6,24"),
                          name = "bad_date.csv")
  expect_error(read_purpleair_aqs(path), "DAILY", class = "rlang_error")
  expect_error(read_purpleair_aqs(file.path(tempdir(), "absent.csv")), "path",
               class = "rlang_error")
  # A folder (read_senseurcity_antwerp() takes one): its files are named.
  folder <- withr::local_tempdir()
  writeLines(purpleair_header, file.path(folder, "daily.csv"))
  expect_error(read_purpleair_aqs(folder), "must be a file, not the folder.*Give one of its files: .*daily.csv",
               class = "ncam_error")
  path <- write_lines_tmp(c(purpleair_header, "9,2022-01-02,6.1,8.15,8.0,8.3,51,12,2.6,24",
                            " ,2022-01-02,6.1,8.15,8.0,8.3,51,12,2.6,24"), name = "no_site.csv")
  expect_error(read_purpleair_aqs(path), "sensor_index.*empty in row 2 \\(line 3\\)", class = "rlang_error")
})

test_that("read_purpleair_aqs() warns when a sensor reads the same day twice", {
  path <- write_lines_tmp(c(purpleair_header,
                            "9,2022-01-02,6.1,8.15,8.0,8.3,51,12.5,2.6,24",
                            "9,2022-01-01,5.2,7.05,7.1,7.0,55,10.1,1.4,23",
                            "9,2022-01-02,6.1,8.15,8.0,8.3,51,12.5,2.6,24"))
  w <- expect_warning(out <- read_purpleair_aqs(path), class = "ncam_warning_repeated_rows")
  expect_match(gsub("\\s+", " ", conditionMessage(w)), "1 row repeats the sensor and day .* line 4 of '.*' \\(sensor 9\\), a repeat of line 2 of")
  expect_identical(nrow(out), 3L)
})

test_that("read_purpleair_aqs() reads a whole-number index written as a decimal as the same sensor", {
  path <- write_lines_tmp(c(purpleair_header,
                            "9,2022-01-02,6.1,8.15,8.0,8.3,51,12.5,2.6,24",
                            "9.0,2022-01-02,6.1,8.15,7.0,8.3,51,12.5,2.6,24",
                            "9.0,2022-01-03,6.1,8.15,7.0,8.3,51,12.5,2.6,24"))
  w <- expect_warning(out <- read_purpleair_aqs(path), class = "ncam_warning_repeated_rows")
  expect_match(gsub("\\s+", " ", conditionMessage(w)), "line 3 of '.*' \\(sensor 9\\), a repeat of line 2 of")
  expect_identical(out$site, c("9", "9", "9"))
})

test_that("read_purpleair_aqs() reads the shared file as its README describes", {
  dir <- shared_data("purpleair-aqs-daily-mathieu")
  skip_if_not(dir.exists(dir), "shared PurpleAir data not available")
  out <- read_purpleair_aqs(file.path(dir, "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv"))
  expect_identical(nrow(out), 5666L)
  expect_false(anyNA(out))
  expect_length(unique(out$site), 18)
  expect_identical(range(out$date), as.Date(c("2021-01-01", "2023-08-27")))
  expect_identical(order(out$site, out$date, method = "radix"), seq_len(nrow(out)))
  expect_equal(unname(colMeans(out[c("ref", "pa_a", "pa_b")])), c(9.13, 13.52, 13.12),
               tolerance = 0.001)
  expect_equal(cor(out$pa_a, out$pa_b), 0.975, tolerance = 0.001)
  expect_true(all(out$n_hours >= 21 & out$n_hours <= 31))
})

colocated_header <- "station,date,ref_pm25,ref_pm10,lcs1_id,lcs1_pm25,lcs2_id,lcs2_pm25"

test_that("read_senseurcity_antwerp() puts a station's boxes side by side in ID order", {
  dir <- withr::local_tempdir()
  writeLines(c(colocated_header,
               "ANT_REF_R801,2020-07-01T01:00:00Z,8.1,14,40499C,12.2,4043B1,11",
               "ANT_REF_R801,2020-07-01T00:00:00Z,7.5,13.1,40499C,11.9,4043B1,",
               "ANT_REF_AL01,2020-07-01T00:00:00Z,6,10.2,4047E5,9.8,,"),
             file.path(dir, "REF_colocated_hourly_all_stations.csv"))
  out <- read_senseurcity_antwerp(dir)
  expect_named(out, c("date", "station", "box_1", "box_2", "ref", "ref_pm10",
                      "box_1_id", "box_2_id"))
  expect_identical(attr(out$date, "tzone"), "UTC")
  expect_identical(out$date, as.POSIXct(c("2020-07-01 00:00", "2020-07-01 00:00",
                                          "2020-07-01 01:00"), tz = "UTC"))
  expect_identical(out$station, c("ANT_REF_AL01", "ANT_REF_R801", "ANT_REF_R801"))
  # "4043B1" sorts before "40499C"; an ID like "4047E5" stays text.
  expect_identical(out$box_1_id, c("4047E5", "4043B1", "4043B1"))
  expect_identical(out$box_2_id, c(NA, "40499C", "40499C"))
  expect_identical(out$box_1, c(9.8, NA, 11))
  expect_identical(out$box_2, c(NA, 11.9, 12.2))
  expect_identical(out$ref, c(6, 7.5, 8.1))
})

test_that("read_senseurcity_antwerp(source = 'join') pairs boxes with their station's hour", {
  dir <- withr::local_tempdir()
  con <- gzfile(file.path(dir, "LCS_df_all.csv.gz"), "w")
  writeLines(c("ID,date,latitude,longitude,Location.ID,PMS_PM10,PMS_PM25",
               "Antwerp_40499C,2020-07-01T00:00:00Z,51.2,4.43,ANT_REF_R801,20,11.9",
               "Antwerp_4043B1,2020-07-01T00:00:00Z,51.2,4.43,ANT_REF_R801,19,",
               "Antwerp_4043B1,2020-07-01T01:00:00Z,51.2,4.43,ANT_REF_R801,19,11",
               "Antwerp_40499C,2020-07-01T01:00:00Z,51.2,4.43,ANT_REF_R801,21,12.2",
               "Antwerp_4047E5,2020-07-01T00:00:00Z,51.2,4.38,ANT_REF_AL01,15,9.8",
               "Antwerp_402723,2020-07-01T00:00:00Z,51.2,4.41,ANT_URB_MAER,15,30",
               "Antwerp_4047E5,2020-07-01T05:00:00Z,51.2,4.38,ANT_REF_AL01,15,9"), con)
  close(con)
  writeLines(c("ID,datetime,PM10,PM2.5,X,Y,Representativity_min",
               "ANT_REF_R801,2020-07-01T00:00:00Z,13.1,7.5,1,2,100",
               "ANT_REF_R801,2020-07-01T01:00:00Z,14,8.1,1,2,100",
               "ANT_REF_AL01,2020-07-01T00:00:00Z,10.2,6,1,2,100",
               "ANT_REF_AL01,2020-07-01T03:00:00Z,10.2,6,1,2,100"),
             file.path(dir, "ref_df_all.csv"))
  out <- read_senseurcity_antwerp(dir, source = "join")
  expect_identical(out$station, c("ANT_REF_AL01", "ANT_REF_R801", "ANT_REF_R801"))
  expect_identical(out$box_1, c(9.8, NA, 11))
  expect_identical(out$box_2, c(NA, 11.9, 12.2))
  expect_identical(out$ref_pm10, c(10.2, 13.1, 14))
  expect_identical(out$box_2_id, c(NA, "40499C", "40499C"))
})

test_that("read_senseurcity_antwerp() refuses two different rows for a station-hour", {
  dir <- withr::local_tempdir()
  path <- file.path(dir, "REF_colocated_hourly_all_stations.csv")
  first <- "ANT_REF_R801,2020-07-01T00:00:00Z,7.5,13.1,40499C,11.9,4043B1,10.4"
  writeLines(c(colocated_header, first, "ANT_REF_R801,2020-07-01T00:00:00Z,9.9,15,40499C,30,4043B1,31"),
             path)
  expect_error(read_senseurcity_antwerp(dir),
               "ANT_REF_R801.*2020-07-01T00:00:00Z.*row 1 \\(line 2\\) and row 2 \\(line 3\\)",
               class = "rlang_error")
  # An exact copy counts once.
  writeLines(c(colocated_header, first, first), path)
  out <- read_senseurcity_antwerp(dir)
  expect_identical(out$box_1, 10.4)
  expect_identical(out$ref, 7.5)

  # The joined tables: a reference station-hour given twice with other values.
  writeLines(c("ID,date,Location.ID,PMS_PM25",
               "Antwerp_40499C,2020-07-01T00:00:00Z,ANT_REF_R801,11.9"), file.path(dir, "LCS_df_all.csv.gz"))
  writeLines(c("ID,datetime,PM10,PM2.5", "ANT_REF_R801,2020-07-01T00:00:00Z,13.1,7.5",
               "ANT_REF_R801,2020-07-01T00:00:00Z,13.1,9.9"), file.path(dir, "ref_df_all.csv"))
  expect_error(read_senseurcity_antwerp(dir, source = "join"), "ref_df_all.*row 1 \\(line 2\\)",
               class = "rlang_error")
})

test_that("read_senseurcity_antwerp() reads station, box and reference IDs without spaces around them", {
  dir <- withr::local_tempdir()
  path <- file.path(dir, "REF_colocated_hourly_all_stations.csv")
  writeLines(c(colocated_header,
               "ANT_REF_R801,2020-07-01T00:00:00Z,7.5,13.1,40499C,11.9,4043B1,10.4",
               "ANT_REF_R801 ,2020-07-01T01:00:00Z,8.1,14, 40499C,12.2,4043B1 ,11",
               " ANT_REF_R801,2020-07-01T02:00:00Z,7,13,40499C,11,,"), path)
  out <- read_senseurcity_antwerp(dir)
  # One station, its two boxes in the same columns at every hour.
  expect_identical(out$station, rep("ANT_REF_R801", 3))
  expect_identical(out$box_1, c(10.4, 11, NA))
  expect_identical(out$box_2, c(11.9, 12.2, 11))
  expect_identical(out$box_1_id, rep("4043B1", 3))
  # A station-hour given twice, once with a space, is two rows for one station-hour.
  writeLines(c(colocated_header, "ANT_REF_R801,2020-07-01T00:00:00Z,7.5,13.1,40499C,11.9,,",
               "ANT_REF_R801 ,2020-07-01T00:00:00Z,9.9,13.1,40499C,30,,"), path)
  expect_error(read_senseurcity_antwerp(dir), "row 1 \\(line 2\\) and row 2 \\(line 3\\)", class = "rlang_error")

  # The joined tables: a box's Location.ID and the reference ID with spaces still pair.
  con <- gzfile(file.path(dir, "LCS_df_all.csv.gz"), "w")
  writeLines(c("ID,date,Location.ID,PMS_PM25", "Antwerp_40499C ,2020-07-01T00:00:00Z, ANT_REF_R801,5",
               "Antwerp_4043B1,2020-07-01T00:00:00Z,ANT_REF_R801,6",
               "Antwerp_40499C,2020-07-01T01:00:00Z,ANT_REF_R801 ,7"), con)
  close(con)
  writeLines(c("ID,datetime,PM10,PM2.5", "ANT_REF_R801,2020-07-01T00:00:00Z,10,4",
               "ANT_REF_R801 ,2020-07-01T01:00:00Z,11,4.5"), file.path(dir, "ref_df_all.csv"))
  out <- read_senseurcity_antwerp(dir, source = "join")
  expect_identical(out$station, rep("ANT_REF_R801", 2))
  expect_identical(out$box_1, c(6, NA))
  expect_identical(out$box_2, c(5, 7))
  expect_identical(out$box_2_id, rep("40499C", 2))
  expect_identical(out$ref, c(4, 4.5))
})

test_that("read_senseurcity_antwerp() reports missing files and columns", {
  dir <- withr::local_tempdir()
  expect_error(read_senseurcity_antwerp(dir), "REF_colocated_hourly_all_stations.csv",
               class = "rlang_error")
  expect_error(read_senseurcity_antwerp(file.path(dir, "nowhere")), "dir", class = "rlang_error")
  expect_error(read_senseurcity_antwerp(dir, source = "zenodo"), "source", class = "rlang_error")
  writeLines(c(sub(",lcs2_pm25", "", colocated_header), "A,2020-07-01T00:00:00Z,1,2,x,3,y"),
             file.path(dir, "REF_colocated_hourly_all_stations.csv"))
  expect_error(read_senseurcity_antwerp(dir), "lcs2_pm25", class = "rlang_error")
})

test_that("read_senseurcity_antwerp() reads the shared files as their README describes", {
  dir <- shared_data("senseurcity-antwerp-ineris")
  skip_if_not(dir.exists(dir), "shared SensEURCity data not available")
  out <- read_senseurcity_antwerp(dir)
  expect_identical(nrow(out), 50043L)
  expect_identical(sum(!is.na(out$box_2)), 15966L)
  expect_false(anyNA(out[c("date", "station", "box_1", "ref", "box_1_id")]))
  expect_length(unique(out$station), 9)
  expect_identical(range(out$date), as.POSIXct(c("2020-06-18 01:00", "2021-02-16 01:00"),
                                                tz = "UTC"))
  pairs <- unique(out[!is.na(out$box_2_id), c("station", "box_1_id", "box_2_id")])
  expect_identical(pairs$station, paste0("ANT_REF_R80", c(1, 2, 4)))
  expect_identical(pairs$box_1_id, c("4043B1", "4043A7", "4043AE"))
  expect_identical(pairs$box_2_id, c("40499C", "4049A6", "40499F"))
  r <- vapply(split(out, out$station), function(s) cor(s$ref, s$box_1), numeric(1))
  expect_true(all(r > 0.85 & r < 0.97))
  expect_gt(mean(out$box_1), mean(out$ref))

  # Joining the box and reference tables keeps every reference hour; the
  # co-location tables are a subset with the same values.
  joined <- read_senseurcity_antwerp(dir, source = "join")
  expect_identical(nrow(joined), 52421L)
  rows <- match(paste(out$station, out$date), paste(joined$station, joined$date))
  expect_false(anyNA(rows))
  expect_equal(joined[rows, ], out, ignore_attr = TRUE)
})

toucan_header <- function() {
  units <- paste0("RT0", 1:3)
  cols <- paste(rep(units, each = 4), c("pm25", "temp", "rh", "dp"), sep = "_")
  paste(c("time_lst_utc-5", cols, "ref_pm25", "ref_temp"), collapse = ",")
}

test_that("read_toucan() converts local standard time to UTC and averages units", {
  path <- write_lines_tmp(c(toucan_header(),
                            "2019-08-01T19:00,4,25,70,19,5,26,72,20,3,,,,7.5,24",
                            "2019-08-01T20:00,,,,,,,,,,,,,8,23"))
  out <- read_toucan(path)
  expect_named(out, c("date", "rt01", "rt02", "rt03", "ref", "temperature", "rh", "dew_point"))
  expect_identical(out$date, as.POSIXct(c("2019-08-02 00:00", "2019-08-02 01:00"), tz = "UTC"))
  expect_identical(out$rt01, c(4, NA))
  expect_identical(out$rt03, c(3, NA))
  expect_identical(out$ref, c(7.5, 8))
  expect_identical(out$temperature, c(25.5, NA))
  expect_identical(out$rh, c(71, NA))
  expect_identical(out$dew_point, c(19.5, NA))
  # A file with its header alone: the same columns, numeric.
  empty <- read_toucan(write_lines_tmp(toucan_header(), name = "header_only.csv"))
  expect_identical(nrow(empty), 0L)
  expect_true(all(vapply(empty[-1], is.double, logical(1))))

  path <- write_lines_tmp(c(sub(",ref_pm25", "", toucan_header()), "2019-08-01T19:00"),
                          name = "no_ref.csv")
  expect_error(read_toucan(path), "ref_pm25", class = "rlang_error")
  # an hour written twice (here with another reference value) would count twice
  path <- write_lines_tmp(c(toucan_header(), "2019-08-01T19:00,4,25,70,19,5,26,72,20,3,,,,7.5,24",
                            "2019-08-01T19:00,4,25,70,19,5,26,72,20,3,,,,9.9,24"), name = "twice.csv")
  w <- expect_warning(twice <- read_toucan(path), class = "ncam_warning_repeated_rows")
  expect_match(gsub("\\s+", " ", conditionMessage(w)),
               "1 row repeats the hour of an earlier row, the first being line 3 of '.*twice.csv', a repeat of line 2 of '.*twice.csv'\\.")
  expect_identical(twice$ref, c(7.5, 9.9))
})

test_that("read_toucan() refuses a time that is not the start of an hour", {
  # Each row is an hour's means, stamped with its start: 19:30 would be paired as if hourly.
  for (time in c("2019-08-01T19:30", "2019-08-01T20:59")) {
    path <- write_lines_tmp(c(toucan_header(), "2019-08-01T19:00,4,25,70,19,5,26,72,20,3,,,,7.5,24",
                              paste0(time, ",4,25,70,19,5,26,72,20,3,,,,7.5,24")))
    expect_error(read_toucan(path), paste0("time_lst_utc-5.*starts of hours: row 2 \\(line 3\\) is \"", time),
                 class = "rlang_error")
  }
})

test_that("read_toucan() reads the shared file as its README describes", {
  dir <- shared_data("epa-sensortoolkit-toucan")
  skip_if_not(dir.exists(dir), "shared Toucan data not available")
  out <- read_toucan(file.path(dir, "toucan_hourly_merged.csv"))
  expect_identical(nrow(out), 737L)
  expect_identical(out$date[1], as.POSIXct("2019-08-01 05:00", tz = "UTC"))
  steps <- diff(as.numeric(out$date))
  expect_true(all(steps > 0 & steps %% 3600 == 0))
  both <- complete.cases(out[c("rt01", "rt02", "rt03", "ref")])
  expect_identical(sum(both), 710L)
  expect_equal(unname(colMeans(out[both, c("rt01", "rt02", "rt03", "ref")])),
               c(4.71, 4.69, 4.17, 7.80), tolerance = 0.002)
  expect_equal(unname(vapply(out[both, c("rt01", "rt02", "rt03")], cor, numeric(1),
                             y = out$ref[both])),
               c(0.72, 0.74, 0.75), tolerance = 0.01)
  expect_false(anyNA(out$temperature[both]))
})

test_that("errors from the Antwerp reader's steps name read_senseurcity_antwerp()", {
  dir <- withr::local_tempdir()
  expect_error(read_senseurcity_antwerp(dir), class = "rlang_error")
  err <- tryCatch(read_senseurcity_antwerp(dir), error = identity)
  expect_identical(rlang::call_name(err$call), "read_senseurcity_antwerp")
  writeLines(c("station,date,ref_pm25,ref_pm10,lcs1_id,lcs1_pm25,lcs2_id,lcs2_pm25",
               "ANT_REF_R801,2020-07-01T00:00:00Z,7.5,13.1,40499C,eleven,4043B1,10.4"),
             file.path(dir, "REF_colocated_hourly_all_stations.csv"))
  err <- tryCatch(read_senseurcity_antwerp(dir), error = identity)
  expect_match(conditionMessage(err), "lcs1_pm25")
  expect_identical(rlang::call_name(err$call), "read_senseurcity_antwerp")
  err <- tryCatch(read_senseurcity_antwerp(dir, source = "join"), error = identity)
  expect_identical(rlang::call_name(err$call), "read_senseurcity_antwerp")
})

test_that("read_purpleair_aqs() and read_toucan() read missing-value codes as NA, not as numbers", {
  path <- write_lines_tmp(c(purpleair_header,
                            "9,2022-01-01,-999,8.15,8.0,8.3,-50,-3.5,-9.2,24",
                            "9,2022-01-02,-1.2,7.05,7.1,7.0,55,10.1,1.4,23"))
  expect_warning(
    expect_warning(out <- read_purpleair_aqs(path), "Column \"conc\": 1 value, row 1 \\(line 2\\) is -999\\.",
                   class = "ncam_warning_missing_code"),
    "Column \"humidity_a\" \\(possible: -10 to 110\\): 1 value, row 1 \\(line 2\\) is -50\\.",
    class = "ncam_warning_impossible_value")
  expect_identical(out$ref, c(NA, -1.2))
  expect_identical(out$rh, c(NA, 55))
  expect_identical(out$temperature, c(-3.5, 10.1))
  expect_identical(out$dew_point, c(-9.2, 1.4))

  # Unit RT02 writes -999 for its weather; RT03's humidity is impossible. Each mean is over the
  # units with a reading (before, RT02's -999 gave a temperature of -316.3).
  path <- write_lines_tmp(c(toucan_header(),
                            "2019-08-01T19:00,4,25,70,19,5,-999,-999,-999,3,26,250,18,7.5,24",
                            "2019-08-01T20:00,4,25,70,19,-9999,25.5,71,19.5,3,26,72,18,8,23"),
                          name = "codes.csv")
  expect_warning(
    expect_warning(out <- read_toucan(path),
                   "4 values are missing-value codes.*RT02_pm25.*row 2 \\(line 3\\) is -9999.*RT02_temp.*row 1 \\(line 2\\) is -999",
                   class = "ncam_warning_missing_code"),
    "Column \"RT03_rh\".*row 1 \\(line 2\\) is 250", class = "ncam_warning_impossible_value")
  expect_identical(out$rt02, c(5, NA))
  expect_identical(out$temperature, c(mean(c(25, 26)), mean(c(25, 25.5, 26))))
  expect_identical(out$rh, c(70, mean(c(70, 71, 72))))
  expect_identical(out$dew_point, c(mean(c(19, 18)), mean(c(19, 19.5, 18))))
})

test_that("read_senseurcity_antwerp() refuses readings it cannot place, and times within hours", {
  dir <- withr::local_tempdir()
  path <- file.path(dir, "REF_colocated_hourly_all_stations.csv")
  colocated <- function(...) writeLines(c(colocated_header, ...), path)
  # A reading without its box (before: dropped, 0 rows back).
  colocated("ANT_REF_R801,2020-07-01T00:00:00Z,7.5,13.1,,11.9,,")
  expect_error(read_senseurcity_antwerp(dir),
               "\"lcs1_id\".*empty in row 1 \\(line 2\\), whose \"lcs1_pm25\" is 11.9", class = "rlang_error")
  # An ID of spaces names no box either (it made a box called "").
  colocated("ANT_REF_R801,2020-07-01T00:00:00Z,7.5,13.1,40499C,11.9,  ,10.4")
  expect_error(read_senseurcity_antwerp(dir),
               "\"lcs2_id\".*empty in row 1 \\(line 2\\), whose \"lcs2_pm25\" is 10.4", class = "rlang_error")
  # One box in both slots (before: 10.4 dropped).
  colocated("ANT_REF_R801,2020-07-01T01:00:00Z,8.1,14,4043B1,12,40499C,11",
            "ANT_REF_R801,2020-07-01T00:00:00Z,7.5,13.1,40499C,11.9,40499C,10.4")
  expect_error(read_senseurcity_antwerp(dir),
               "row 2 \\(line 3\\), station ANT_REF_R801: box \"40499C\" is in both \"lcs1_id\" and \"lcs2_id\", with readings \"11.9\" and \"10.4\".*1 row names one box twice",
               class = "rlang_error")
  # A time within the hour: the tables are hourly.
  colocated("ANT_REF_R801,2020-07-01T00:30:00Z,7.5,13.1,40499C,11.9,4043B1,10.4")
  expect_error(read_senseurcity_antwerp(dir), "\"date\".*starts of hours: row 1 \\(line 2\\) is \"2020-07-01T00:30:00Z\"",
               class = "rlang_error")
  colocated(",2020-07-01T00:00:00Z,7.5,13.1,40499C,11.9,4043B1,10.4")
  expect_error(read_senseurcity_antwerp(dir), "\"station\".*empty in row 1 \\(line 2\\)", class = "rlang_error")
  # A missing-value code is no reading; an empty box ID beside no reading is a one-box station.
  colocated("ANT_REF_AL01,2020-07-01T00:00:00Z,6,10.2,4047E5,-999,,",
            "ANT_REF_AL01,2020-07-01T01:00:00Z,6.5,-999,4047E5,9.8,,")
  expect_warning(out <- read_senseurcity_antwerp(dir), "2 values are missing-value codes",
                 class = "ncam_warning_missing_code")
  expect_identical(out$box_1, 9.8)
  expect_identical(out$ref_pm10, NA_real_)

  # The joined tables: a box without ID, a time within the hour.
  writeLines(c("ID,date,Location.ID,PMS_PM25", ",2020-07-01T00:00:00Z,ANT_REF_R801,11.9"),
             file.path(dir, "LCS_df_all.csv.gz"))
  writeLines(c("ID,datetime,PM10,PM2.5", "ANT_REF_R801,2020-07-01T00:00:00Z,13.1,7.5"),
             file.path(dir, "ref_df_all.csv"))
  expect_error(read_senseurcity_antwerp(dir, source = "join"), "\"ID\" of .*LCS_df_all.*empty in row 1 \\(line 2\\)",
               class = "rlang_error")
  writeLines(c("ID,date,Location.ID,PMS_PM25", "Antwerp_40499C,2020-07-01T00:00:00Z,ANT_REF_R801,11.9"),
             file.path(dir, "LCS_df_all.csv.gz"))
  writeLines(c("ID,datetime,PM10,PM2.5", "ANT_REF_R801,2020-07-01T00:59:00Z,13.1,7.5"),
             file.path(dir, "ref_df_all.csv"))
  expect_error(read_senseurcity_antwerp(dir, source = "join"), "\"datetime\".*row 1 \\(line 2\\) is \"2020-07-01T00:59:00Z\"",
               class = "rlang_error")
})

test_that("read_senseurcity_antwerp() gives a station's third box its own columns, as documented", {
  dir <- withr::local_tempdir()
  # Box 4043B1 is replaced by 4049ZZ at R801 in the second hour.
  writeLines(c(colocated_header,
               "ANT_REF_R801,2020-07-01T00:00:00Z,7.5,13.1,40499C,11.9,4043B1,10.4",
               "ANT_REF_R801,2020-07-01T01:00:00Z,8.1,14,40499C,12.2,4049ZZ,11",
               "ANT_REF_AL01,2020-07-01T00:00:00Z,6,10.2,4047E5,9.8,,"),
             file.path(dir, "REF_colocated_hourly_all_stations.csv"))
  out <- read_senseurcity_antwerp(dir)
  expect_named(out, c("date", "station", "box_1", "box_2", "box_3", "ref", "ref_pm10",
                      "box_1_id", "box_2_id", "box_3_id"))
  # IDs in alphabetical order: 4043B1, 40499C, 4049ZZ.
  expect_identical(out$box_1_id, c("4047E5", "4043B1", "4043B1"))
  expect_identical(out$box_3_id, c(NA, "4049ZZ", "4049ZZ"))
  expect_identical(out$box_1, c(9.8, 10.4, NA))
  expect_identical(out$box_2, c(NA, 11.9, 12.2))
  expect_identical(out$box_3, c(NA, NA, 11))
  help <- paste(capture.output(tools::Rd2txt(tools::Rd_db("ncam")[["read_senseurcity_antwerp.Rd"]])), collapse = " ")
  expect_match(help, "box_3", fixed = TRUE)
})

test_that("IDs written as missing values (NaN, NA) name no sensor, box or station", {
  # pandas writes a missing ID as NaN; before, it became a sensor or station called "NaN".
  path <- write_lines_tmp(c(purpleair_header, "9,2022-01-02,6.1,8.15,8.0,8.3,51,12,2.6,24",
                            "NaN,2022-01-02,6.1,8.15,8.0,8.3,51,12,2.6,24"), name = "nan_site.csv")
  expect_error(read_purpleair_aqs(path), "\"sensor_index\".*missing in row 2 \\(line 3\\): it holds \"NaN\"",
               class = "rlang_error")

  dir <- withr::local_tempdir()
  colocated <- function(...) writeLines(c(colocated_header, ...), file.path(dir, "REF_colocated_hourly_all_stations.csv"))
  colocated("ANT_REF_R801,2020-07-01T00:00:00Z,7.5,13.1,40499C,11.9,4043B1,10.4",
            "nan,2020-07-01T00:00:00Z,7.5,13.1,40499C,11.9,4043B1,10.4")
  expect_error(read_senseurcity_antwerp(dir), "\"station\".*missing in row 2 \\(line 3\\): it holds \"nan\"",
               class = "rlang_error")
  colocated("ANT_REF_R801,2020-07-01T00:00:00Z,7.5,13.1,40499C,11.9,NaN,10.4")
  expect_error(read_senseurcity_antwerp(dir),
               "\"lcs2_id\".*holds \"NaN\", a missing value, in row 1 \\(line 2\\), whose \"lcs2_pm25\" is 10.4",
               class = "rlang_error")
  # A missing ID beside no reading is a one-box station, as an empty one is.
  colocated("ANT_REF_AL01,2020-07-01T00:00:00Z,6,10.2,4047E5,9.8,NaN,NaN")
  out <- read_senseurcity_antwerp(dir)
  expect_identical(out$box_1, 9.8)
  expect_identical(out$box_2_id, NA_character_)

  writeLines(c("ID,date,Location.ID,PMS_PM25", "Antwerp_40499C,2020-07-01T00:00:00Z,ANT_REF_R801,11.9"),
             file.path(dir, "LCS_df_all.csv.gz"))
  writeLines(c("ID,datetime,PM10,PM2.5", "ANT_REF_R801,2020-07-01T00:00:00Z,13.1,7.5",
               "-nan,2020-07-01T00:00:00Z,13.1,7.5"), file.path(dir, "ref_df_all.csv"))
  expect_error(read_senseurcity_antwerp(dir, source = "join"),
               "\"ID\" of .*ref_df_all.*missing in row 2 \\(line 3\\): it holds \"-nan\"", class = "rlang_error")
})

test_that("numeric fields of spaces alone are missing values, as read.csv() reads them", {
  path <- write_lines_tmp(c(purpleair_header, "9,2022-01-01,   ,8.15,8.0,8.3,55,10.1,1.4,23",
                            "9,2022-01-02,6.1,8.15,8.0,\" \",51,12.5,2.6,\t"), name = "blank.csv")
  out <- read_purpleair_aqs(path)
  expect_identical(out$ref, c(NA, 6.1))
  expect_identical(out$pa_b, c(8.3, NA))
  expect_identical(out$n_hours, c(23, NA))
  expect_identical(which(is.na(read.csv(path)$conc)), 1L)

  path <- write_lines_tmp(c(toucan_header(), "2019-08-01T19:00,4,25,70,19,  ,25.2,69,19,3.9,24.8,71,19.2,  ,24"),
                          name = "blank_toucan.csv")
  out <- read_toucan(path)
  expect_identical(out$rt02, NA_real_)
  expect_identical(out$ref, NA_real_)
  expect_identical(out$temperature, mean(c(25, 25.2, 24.8)))

  dir <- withr::local_tempdir()
  writeLines(c(colocated_header, "ANT_REF_AL01,2020-07-01T00:00:00Z,6,   ,4047E5,9.8,  ,  "),
             file.path(dir, "REF_colocated_hourly_all_stations.csv"))
  out <- read_senseurcity_antwerp(dir)
  expect_identical(out$ref_pm10, NA_real_)
  expect_identical(out$box_1, 9.8)
})
