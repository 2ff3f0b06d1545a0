# read_senseurcity(): per-box files of the SensEURCity Zenodo release, from fixtures
# written here in that layout and, when present, the shared schema samples.

# Absolute humidity (g/m3) by Bolton's saturation pressure, independent of the reader's.
absolute_humidity <- function(t, rh) 6.112 * exp(17.67 * t / (t + 243.5)) * rh * 2.1674 / (273.15 + t)

box_header <- paste0("date,latitude,longitude,altitude,Location.ID,BMP280,SHT31HE,SHT31TE,",
                     "Absolute_humidity,Td_deficit,5325CAT,5325CST,OPCN3PM25,5325CAT_flag,",
                     "5325CST_flag,OPCN3PM25_flag,BMP280_flag,SHT31HE_flag,SHT31TE_flag,",
                     "Ref.PM10,Ref.PM2.5,Ref.Temp,Ref.RH")

# Rows of a box; `swapped` writes temperature under SHT31HE, as releases v1 and v2 do.
# All flags are empty (valid); tests write flags into the rows they need them in.
box_lines <- function(minutes, t, rh, location = "ANT_REF_R801", pm = 10 + seq_along(minutes),
                      swapped = TRUE) {
  date <- format(as.POSIXct("2020-06-01 10:00", tz = "UTC") + 60 * minutes, "%Y-%m-%dT%H:%M:%SZ")
  sht <- if (swapped) cbind(t, rh) else cbind(rh, t)
  rows <- sprintf("%s,51.2097,4.4318,3,%s,1014.5,%s,%s,%s,5,%s,%s,%s,,,,,,,20,9.5,17,60",
                  date, location, sht[, 1], sht[, 2], format(absolute_humidity(t, rh), digits = 15),
                  pm, pm + 0.5, pm / 2)
  c(box_header, rows)
}

write_box <- function(lines, name, dir) {
  path <- file.path(dir, name)
  writeLines(lines, path)
  path
}

test_that("read_senseurcity() applies flags and finds temperature in a v1/v2 file", {
  dir <- withr::local_tempdir()
  lines <- box_lines(0:3, t = c(18, 18.5, 19, 19.2), rh = c(60, 58, 57, 55),
                     location = c("ANT_REF_R801", " ANT_REF_R801 ", "ANT_REF_R801", ""))
  lines[2] <- sub(",,,,,,,20", ",W,,,,,,20", lines[2]) # 5325CAT_flag = W
  lines[3] <- sub(",,,,,,20", ",,X,,,,20", lines[3])   # OPCN3PM25_flag = X
  lines[4] <- sub(",20,9.5", "E,20,9.5", lines[4])     # SHT31TE_flag = E
  path <- write_box(lines, "Antwerp_40AAAA.csv", dir)
  out <- read_senseurcity(path)
  expect_s3_class(out, "tbl_df")
  expect_named(out, c("date", "city", "box", "location", "latitude", "longitude", "pms_pm25_atm",
                      "pms_pm25_cf1", "opc_pm25", "temperature", "rh", "abs_humidity",
                      "dew_point_deficit", "pressure", "ref_pm25", "ref_pm10", "ref_temperature",
                      "ref_rh"))
  expect_identical(out$date, as.POSIXct("2020-06-01 10:00", tz = "UTC") + 60 * (0:3))
  expect_identical(out$city, rep("Antwerp", 4))
  expect_identical(out$box, rep("40AAAA", 4))
  expect_identical(out$location, c("ANT_REF_R801", "ANT_REF_R801", "ANT_REF_R801", NA))
  expect_identical(out$pms_pm25_atm, c(NA, 12, 13, 14))
  expect_identical(out$opc_pm25, c(5.5, NA, 6.5, 7))
  # SHT31HE holds the temperature; the flag of SHT31TE (humidity) voids the humidity and
  # the quantities computed from it.
  expect_identical(out$temperature, c(18, 18.5, 19, 19.2))
  expect_identical(out$rh, c(60, 58, NA, 55))
  expect_identical(is.na(out$abs_humidity), c(FALSE, FALSE, TRUE, FALSE))
  expect_identical(out$dew_point_deficit, c(5, 5, NA, 5))
  expect_identical(out$ref_pm25, rep(9.5, 4))
  expect_identical(out$ref_rh, rep(60, 4))

  kept <- read_senseurcity(path, keep_flags = c("W", "E"))
  expect_identical(kept$pms_pm25_atm, c(11, 12, 13, 14))
  expect_identical(kept$rh, c(60, 58, 57, 55))
  expect_identical(kept$opc_pm25, c(5.5, NA, 6.5, 7))
})

test_that("read_senseurcity() reads a file whose SHT31 columns are as labelled", {
  dir <- withr::local_tempdir()
  path <- write_box(box_lines(0:2, t = c(5, 6, 30), rh = c(90, 85, 20), swapped = FALSE),
                    "Oslo_64A291.csv", dir)
  out <- read_senseurcity(path)
  expect_identical(out$temperature, c(5, 6, 30))
  expect_identical(out$rh, c(90, 85, 20))
  expect_identical(out$city, rep("Oslo", 3))
  expect_identical(read_senseurcity(path, sht31 = "swapped")$temperature, c(90, 85, 20))
  # A winter v1/v2 file: temperatures below zero must not upset the check.
  cold <- write_box(box_lines(0:2, t = c(-8, -3, 0.5), rh = c(95, 88, 80)), "Oslo_64A293.csv", dir)
  expect_identical(read_senseurcity(cold)$temperature, c(-8, -3, 0.5))

  no_ah <- sub(",Absolute_humidity,", ",AH_not_given,", box_lines(0, t = 5, rh = 90, swapped = FALSE))
  path <- write_box(no_ah, "Oslo_64A292.csv", dir)
  warnings <- capture_warnings(out <- read_senseurcity(path))
  expect_match(warnings, "Absolute_humidity", all = TRUE)
  expect_match(warnings[2], "swapped")
  expect_identical(out$temperature, 90)
  expect_warning(out <- read_senseurcity(path, sht31 = "as_labelled"), "lacks column")
  expect_identical(out$temperature, 5)
})

test_that("read_senseurcity() averages per box, location and hour", {
  dir <- withr::local_tempdir()
  minutes <- c(0:59, 60:89)
  location <- c(rep("ANT_REF_R801", 80), rep("ANT_URB_PARK", 10))
  pm <- (minutes %% 7) + 1
  pm[c(3, 9)] <- NA # two gaps in the first hour
  lines <- box_lines(minutes, t = 20 + minutes / 100, rh = 50, location = location, pm = pm)
  path <- write_box(lines, "Antwerp_40BBBB.csv", dir)
  out <- read_senseurcity(path, average = "1 hour")
  expect_identical(out$location, c("ANT_REF_R801", "ANT_REF_R801", "ANT_URB_PARK"))
  expect_identical(out$date, as.POSIXct("2020-06-01 10:00", tz = "UTC") + 3600 * c(0, 1, 1))
  # Hour 1 at R801 holds 20 of 60 expected minutes: below 0.75, so NA.
  expect_equal(out$pms_pm25_atm, c(mean(pm[1:60], na.rm = TRUE), NA, NA))
  expect_equal(out$temperature, c(20 + mean(0:59) / 100, NA, NA))
  loose <- read_senseurcity(path, average = "1 hour", completeness = 0)
  expect_equal(loose$pms_pm25_atm, c(mean(pm[1:60], na.rm = TRUE), mean(pm[61:80]), mean(pm[81:90])))
  expect_equal(loose$latitude, rep(51.2097, 3))
})

test_that("read_senseurcity() averages days in the zone of `tz`, UTC by default", {
  dir <- withr::local_tempdir()
  # Three days of minutes from 2020-06-01 00:00 UTC (02:00 in Brussels, summer time), with
  # PM2.5 of 100 in the first two hours of each Brussels day and 10 otherwise.
  minutes <- -600 + 0:(3 * 1440 - 1)
  time <- as.POSIXct("2020-06-01 10:00", tz = "UTC") + 60 * minutes
  pm <- ifelse(as.numeric(format(time, "%H", tz = "Europe/Brussels")) < 2, 100, 10)
  path <- write_box(box_lines(minutes, t = 20, rh = 50, pm = pm), "Antwerp_40CCCC.csv", dir)
  daily_means <- function(day) {
    means <- tapply(pm, day, mean)
    means[tapply(pm, day, length) < 0.75 * 1440] <- NA  # completeness 0.75 of 1440 minutes
    unname(c(means))
  }
  utc <- read_senseurcity(path, average = "1 day")
  expect_identical(utc$date, as.POSIXct(c("2020-06-01", "2020-06-02", "2020-06-03"), tz = "UTC"))
  expect_equal(utc$pms_pm25_atm, daily_means(format(time, "%Y-%m-%d", tz = "UTC")))
  local <- read_senseurcity(path, average = "1 day", tz = "Europe/Brussels")
  expect_identical(local$date, as.POSIXct(c("2020-06-01", "2020-06-02", "2020-06-03", "2020-06-04"),
                                          tz = "Europe/Brussels"))
  # The first Brussels day lacks its first two hours (1320 of 1440 minutes, all of 10); the
  # last holds only those two hours: too few for a mean.
  expect_equal(local$pms_pm25_atm, daily_means(format(time, "%Y-%m-%d", tz = "Europe/Brussels")))
  expect_equal(local$pms_pm25_atm, c(10, 17.5, 17.5, NA))
  # The minutes themselves are the same instants, shown in `tz`.
  minute_rows <- read_senseurcity(path, tz = "Europe/Brussels")
  expect_identical(attr(minute_rows$date, "tzone"), "Europe/Brussels")
  expect_identical(as.numeric(minute_rows$date), as.numeric(time))
  expect_error(read_senseurcity(path, tz = "Antwerp"), "tz", class = "rlang_error")
})

test_that("read_senseurcity() refuses a minute read twice with other values", {
  dir <- withr::local_tempdir()
  lines <- box_lines(0:1, t = c(18, 19), rh = c(60, 61))
  out <- read_senseurcity(write_box(c(lines, lines[2]), "Antwerp_40AAAA.csv", dir))
  expect_identical(nrow(out), 2L)
  other <- sub(",1014.5,", ",1000,", lines[2], fixed = TRUE)
  expect_error(read_senseurcity(write_box(c(lines, other), "Antwerp_40BBBB.csv", dir)),
               "2020-06-01T10:00:00Z.*row 1 \\(line 2\\) and row 3 \\(line 4\\)",
               class = "rlang_error")
})

test_that("read_senseurcity() reads a folder and names what is wrong", {
  dir <- withr::local_tempdir()
  write_box(box_lines(0, t = 18, rh = 60), "Antwerp_40AAAA.csv", dir)
  write_box(box_lines(0:1, t = c(18, 19), rh = c(60, 61)), "Antwerp_40CCCC.csv", dir)
  writeLines("not a box", file.path(dir, "README.txt"))
  out <- read_senseurcity(dir)
  expect_identical(out$box, c("40AAAA", "40CCCC", "40CCCC"))

  ineris <- withr::local_tempdir()
  writeLines("station,date", file.path(ineris, "REF_colocated_hourly_all_stations.csv"))
  expect_error(read_senseurcity(ineris), "read_senseurcity_antwerp", class = "rlang_error")
  expect_error(read_senseurcity(withr::local_tempdir()), "per-box files", class = "rlang_error")

  no_location <- sub("Location.ID", "Site", box_lines(0, t = 18, rh = 60))
  expect_error(read_senseurcity(write_box(no_location, "Antwerp_40DDDD.csv", dir)), "Location.ID",
               class = "rlang_error")
  no_opc <- sub(",OPCN3PM25,", ",OPC,", box_lines(0, t = 18, rh = 60))
  expect_warning(out <- read_senseurcity(write_box(no_opc, "Antwerp_40EEEE.csv", dir)), "OPCN3PM25")
  expect_identical(out$opc_pm25, NA_real_)
  bad_time <- sub("2020-06-01T10:00:00Z", "2020-06-01 10:00", box_lines(0, t = 18, rh = 60))
  expect_error(read_senseurcity(write_box(bad_time, "Antwerp_40FFFF.csv", dir)),
               "date.*row 1 \\(line 2\\)", class = "rlang_error")
  expect_error(read_senseurcity(dir, sht31 = "guess"), "sht31", class = "rlang_error")
})

test_that("read_senseurcity() reads the shared schema samples as the raw columns say", {
  dirs <- shared_data("senseurcity-raw-schema-samples")
  skip_if_not(dir.exists(dirs), "shared SensEURCity schema samples not available")
  files <- file.path(dirs[1], c("Antwerp_402B00.csv", "Antwerp_402B01.csv"))
  out <- read_senseurcity(files)
  expect_identical(nrow(out), 38L)
  expect_identical(unique(out$box), c("402B00", "402B01"))
  # The two samples have different column sets: take each column from both.
  tables <- lapply(files, utils::read.csv, check.names = FALSE)
  raw <- function(col) unlist(lapply(tables, `[[`, col))
  valid <- function(col) {
    flag <- raw(paste0(col, "_flag"))
    ifelse(is.na(flag) | flag == "", raw(col), NA)
  }
  expect_identical(out$pms_pm25_atm, valid("5325CAT"))
  expect_identical(out$opc_pm25, valid("OPCN3PM25"))
  # The samples are the first minutes of each box: its PM readings carry the flag W.
  expect_true(all(is.na(out$pms_pm25_atm)))
  expect_identical(read_senseurcity(files, keep_flags = "W")$pms_pm25_atm, raw("5325CAT"))
  # Releases v1 and v2 swap the SHT31 columns: SHT31HE is the temperature.
  expect_identical(out$temperature, raw("SHT31HE"))
  expect_identical(out$rh, raw("SHT31TE"))
  expect_identical(out$latitude, raw("latitude"))
  expect_identical(out$ref_temperature, raw("Ref.Temp"))
  expect_identical(out$location, trimws(raw("Location.ID")))
})

test_that("a location with one minute in an hour gets no hourly mean (shared sample)", {
  dirs <- shared_data("senseurcity-raw-schema-samples")
  skip_if_not(dir.exists(dirs), "shared SensEURCity schema samples not available")
  file <- file.path(dirs[1], "Antwerp_402B00.csv")
  minutes <- read_senseurcity(file)
  # The box spends 18 minutes of the hour at R801 (one without readings) and its last
  # minute at R802.
  expect_identical(as.vector(table(minutes$location)), c(18L, 1L))
  cols <- c("temperature", "rh", "pressure")
  # Means of the non-missing minutes (R801 misses one: 17 of 60 minutes, 0.28).
  by_hand <- aggregate(minutes[cols], list(location = minutes$location), mean, na.rm = TRUE)
  hourly <- read_senseurcity(file, average = "1 hour")
  expect_identical(hourly$location, by_hand$location)
  # 17 and 1 of 60 minutes are both below the default 0.75.
  expect_true(all(is.na(as.matrix(hourly[cols]))))
  # At 0.25, R801 (17 of 60) has its means; R802's single minute is still 1 of 60.
  loose <- read_senseurcity(file, average = "1 hour", completeness = 0.25)
  expect_equal(as.matrix(loose[1, cols]), as.matrix(by_hand[1, cols]), ignore_attr = TRUE)
  expect_true(all(is.na(as.matrix(loose[2, cols]))))
  # With no threshold both locations are averaged.
  all_in <- read_senseurcity(file, average = "1 hour", completeness = 0)
  expect_equal(as.matrix(all_in[cols]), as.matrix(by_hand[cols]), ignore_attr = TRUE)
})

test_that("read_senseurcity() refuses an `average` shorter than the minutes it reads", {
  dir <- withr::local_tempdir()
  minutes <- 0:9
  path <- write_box(box_lines(minutes, t = 20, rh = 50), "Antwerp_40CCCC.csv", dir)
  expect_error(read_senseurcity(path, average = "30 sec"),
               "`path` has readings 1 min apart.*longer than `average` \\(30 sec\\).*average = \"1 min\"")
  # At one minute each reading is its own mean.
  expect_equal(read_senseurcity(path, average = "1 min")$pms_pm25_atm, 10 + seq_along(minutes))
})

test_that("read_senseurcity(): blank flags, and NA as R writes it, mark valid values", {
  dir <- withr::local_tempdir()
  lines <- box_lines(0:4, t = 18, rh = 60)
  # 5325CAT_flag: a space, NA, " W " (spaces around a code), E, and empty.
  lines[2:5] <- mapply(sub, ",,,,,,,20", c(", ,,,,,,20", ",NA,,,,,,20", ", W ,,,,,,20", ",E,,,,,,20"),
                       lines[2:5])
  path <- write_box(lines, "Antwerp_40AAAA.csv", dir)
  pm <- 10 + 1:5
  expect_identical(read_senseurcity(path)$pms_pm25_atm, c(pm[1:2], NA, NA, pm[5]))
  expect_identical(read_senseurcity(path, keep_flags = "W")$pms_pm25_atm, c(pm[1:3], NA, pm[5]))
})

test_that("read_senseurcity() reads missing-value codes and impossible humidities as NA", {
  dir <- withr::local_tempdir()
  t <- c(18, 18.5, -5, 19)
  rh <- c(60, 250, 57, 55)
  pm <- c(-999, 12, -0.5, 14)
  path <- write_box(box_lines(0:3, t = t, rh = rh, pm = pm), "Antwerp_40AAAA.csv", dir)
  expect_warning(
    expect_warning(out <- read_senseurcity(path),
                   "1 value is a missing-value code.*Column \"5325CAT\": 1 value, row 1 \\(line 2\\) is -999\\.",
                   class = "ncam_warning_missing_code"),
    "Column \"SHT31TE\" \\(possible: -10 to 110\\): 1 value, row 2 \\(line 3\\) is 250\\.",
    class = "ncam_warning_impossible_value")
  expect_identical(out$pms_pm25_atm, c(NA, 12, -0.5, 14))
  expect_identical(out$pms_pm25_cf1, pm + 0.5)  # -998.5 is no code
  expect_identical(out$temperature, t)
  expect_identical(out$rh, c(60, NA, 57, 55))
  # Computed from the SHT31 humidity, they go with it.
  expect_identical(is.na(out$abs_humidity), c(FALSE, TRUE, FALSE, FALSE))
  expect_identical(out$dew_point_deficit, c(5, NA, 5, 5))
})

test_that("read_senseurcity() reads numeric fields of spaces alone as NA, as read.csv() does", {
  dir <- withr::local_tempdir()
  lines <- box_lines(0:2, t = 18, rh = 60)
  lines[3] <- sub(",5,12,12.5,", ",5,   ,12.5,", lines[3], fixed = TRUE)  # 5325CAT
  lines[4] <- sub(",1014.5,", ",\" \",", lines[4], fixed = TRUE)          # BMP280
  path <- write_box(lines, "Antwerp_40AAAA.csv", dir)
  out <- read_senseurcity(path)
  expect_identical(out$pms_pm25_atm, c(11, NA, 13))
  expect_identical(out$pressure, c(1014.5, 1014.5, NA))
  expect_identical(which(is.na(read.csv(path, check.names = FALSE)[["5325CAT"]])), 2L)
})
