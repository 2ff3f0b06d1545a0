# read_toucan(pollutant = , tz = ): the file's ozone channels (RT0k_o3 beside ref_o3, in ppb)
# as well as its PM2.5, the default, which stays as it was; `date` shown in any zone.

toucan_file <- function(lines, name, env = parent.frame(2)) {
  path <- file.path(withr::local_tempdir(.local_envir = env), name)
  writeLines(lines, path)
  path
}

# A file of the merge's layout with both pollutants (and NO2, which is not read).
toucan_both <- function() {
  units <- paste0("RT0", 1:3)
  cols <- paste(rep(units, each = 6), c("no2", "o3", "pm25", "temp", "rh", "dp"), sep = "_")
  header <- paste(c("time_lst_utc-5", cols, "ref_pm25", "ref_o3", "ref_no2"), collapse = ",")
  toucan_file(c(header,
                # RT01: no2 o3 pm25 temp rh dp, then RT02, RT03, then the reference's
                paste0("2019-08-01T19:00,", "3,31.5,4.1,25,70,19,", "4,30.5,4.3,26,72,20,",
                       "5,27.25,3.9,,,,", "7.5,33,6"),
                paste0("2019-08-01T20:00,", "3,,4.4,24,75,18,", "4,28,,24.5,74,18.5,",
                       "5,25.5,4.0,25,,19,", "8.1,29,7")),
              name = "toucan_both.csv")
}

test_that("read_toucan(pollutant = \"o3\") reads the units' and the reference's ozone", {
  path <- toucan_both()
  o3 <- read_toucan(path, pollutant = "o3")
  expect_named(o3, c("date", "rt01", "rt02", "rt03", "ref", "temperature", "rh", "dew_point"))
  expect_identical(o3$rt01, c(31.5, NA))
  expect_identical(o3$rt02, c(30.5, 28))
  expect_identical(o3$rt03, c(27.25, 25.5))
  expect_identical(o3$ref, c(33, 29))
  # The weather of the units, whichever pollutant: means over the units reporting.
  expect_identical(o3$temperature, c(25.5, mean(c(24, 24.5, 25))))
  expect_identical(o3$rh, c(71, 74.5))
  expect_identical(o3$dew_point, c(19.5, mean(c(18, 18.5, 19))))
  expect_identical(o3$date, as.POSIXct(c("2019-08-02 00:00", "2019-08-02 01:00"), tz = "UTC"))

  pm <- read_toucan(path)
  expect_identical(pm$rt01, c(4.1, 4.4))
  expect_identical(pm$rt02, c(4.3, NA))
  expect_identical(pm$ref, c(7.5, 8.1))
  expect_identical(pm[c("date", "temperature", "rh", "dew_point")], o3[c("date", "temperature", "rh", "dew_point")])
  expect_identical(read_toucan(path, pollutant = "pm25"), pm)

  # The ozone columns are needed for ozone only: a file without them reads PM2.5 as before.
  no_o3 <- toucan_file(env = environment(), c("time_lst_utc-5,RT01_pm25,RT01_temp,RT01_rh,RT01_dp,RT02_pm25,RT02_temp,RT02_rh,RT02_dp,RT03_pm25,RT03_temp,RT03_rh,RT03_dp,ref_pm25",
                             "2019-08-01T19:00,4,25,70,19,5,26,72,20,3,,,,7.5"), name = "pm_only.csv")
  expect_identical(read_toucan(no_o3)$rt02, 5)
  expect_error(read_toucan(no_o3, pollutant = "o3"), "RT01_o3", class = "ncam_error")
  expect_snapshot(error = TRUE, read_toucan(path, pollutant = "no2"))
})

test_that("read_toucan(tz = ) shows the same instants in the zone given", {
  path <- toucan_both()
  utc <- read_toucan(path)
  lst <- read_toucan(path, tz = "Etc/GMT+5")
  expect_identical(attr(lst$date, "tzone"), "Etc/GMT+5")
  expect_identical(as.numeric(lst$date), as.numeric(utc$date))
  # Local standard time is the file's own clock.
  expect_identical(format(lst$date, "%Y-%m-%dT%H:%M"), c("2019-08-01T19:00", "2019-08-01T20:00"))
  expect_identical(format(read_toucan(path, tz = "America/New_York")$date, "%H:%M %Z"), c("20:00 EDT", "21:00 EDT"))
  expect_error(read_toucan(path, tz = "EST5"), "`tz` must be a time zone name", class = "ncam_error")
})

test_that("read_toucan() reads the shared file's PM2.5 as before and its ozone as the file holds it", {
  dir <- shared_data("epa-sensortoolkit-toucan")
  skip_if_not(dir.exists(dir), "shared Toucan data not available")
  path <- file.path(dir, "toucan_hourly_merged.csv")
  raw <- utils::read.csv(path, check.names = FALSE)
  instants <- as.POSIXct(raw[["time_lst_utc-5"]], format = "%Y-%m-%dT%H:%M", tz = "Etc/GMT+5")
  units <- paste0("RT0", 1:3)
  unit_mean <- function(measure) {
    m <- rowMeans(raw[paste(units, measure, sep = "_")], na.rm = TRUE)
    m[is.nan(m)] <- NA
    unname(m)
  }

  # PM2.5, the default: the file's columns, dates in UTC, as before `pollutant` and `tz`.
  pm <- read_toucan(path)
  expect_identical(as.numeric(pm$date), as.numeric(instants))
  expect_identical(attr(pm$date, "tzone"), "UTC")
  expect_identical(pm$rt01, raw$RT01_pm25)
  expect_identical(pm$rt02, raw$RT02_pm25)
  expect_identical(pm$rt03, raw$RT03_pm25)
  expect_identical(pm$ref, raw$ref_pm25)
  expect_equal(pm$temperature, unit_mean("temp"))
  expect_equal(pm$rh, unit_mean("rh"))
  expect_equal(pm$dew_point, unit_mean("dp"))

  # Ozone in ppb: the reference's hourly values are whole ppb, from -3 to 71 in August 2019.
  o3 <- read_toucan(path, pollutant = "o3", tz = "Etc/GMT+5")
  expect_identical(o3$rt01, raw$RT01_o3)
  expect_identical(o3$rt03, raw$RT03_o3)
  expect_identical(o3$ref, raw$ref_o3)
  expect_identical(range(o3$ref, na.rm = TRUE), c(-3, 71))
  expect_identical(o3[c("temperature", "rh", "dew_point")], pm[c("temperature", "rh", "dew_point")])
  expect_identical(format(o3$date[1], "%Y-%m-%d %H:%M"), "2019-08-01 00:00")
  # As the data's README says: 665 hours with all four, correlations 0.98-0.99 with the reference.
  both <- stats::complete.cases(o3[c("rt01", "rt02", "rt03", "ref")])
  expect_identical(sum(both), 665L)
  r <- vapply(o3[both, c("rt01", "rt02", "rt03")], stats::cor, numeric(1), y = o3$ref[both])
  expect_true(all(r > 0.98 & r < 0.995))
})
