# Times written as text: kept columns of predict_chunks() typed as the package's readers type them,
# and the checks of a time column saying how to convert text.

test_that("kept times of a CSV input come back as times, so the result averages", {
  d <- simulate_colocation(days = 12, seed = 2)
  fit <- suppressWarnings(ncam(pa_a + pa_b + opc ~ rh + temperature, data = d, reference = "ref", hidden = 4L,
                               epochs = 5L, seed = 1), classes = "ncam_warning_not_converged")
  d$day <- as.Date(d$date)
  d$note <- rep(c("a", "b"), length.out = nrow(d))
  d$written <- format(d$date, "%Y-%m-%dT%H:%M:%SZ")
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(d, path, row.names = FALSE)
  got <- predict_chunks(fit, path, chunk_rows = 128, keep = c("date", "day", "note", "written"), verbose = FALSE)
  expect_s3_class(got$date, "POSIXct")
  expect_identical(attr(got$date, "tzone"), "UTC")
  expect_identical(as.numeric(got$date), as.numeric(d$date))
  expect_identical(got$day, d$day)
  expect_identical(got$written, got$date)  # ISO 8601 with its zone
  expect_identical(got$note, d$note)        # text that is no time stays text
  daily <- average_estimates(got)
  expect_identical(daily$date, sort(unique(d$day)))
  # A file of predict_chunks()'s own output (times as ISO 8601 in UTC) reads back the same.
  out <- predict_chunks(fit, path, output = withr::local_tempdir(), keep = c("date", "rh", "temperature", "pa_a", "pa_b", "opc"),
                        verbose = FALSE)
  expect_match(readLines(out$output, n = 2L)[2], "^\"?2021-04-01T00:00:00Z\"?,")
  again <- predict_chunks(fit, out$output, keep = "date", verbose = FALSE)
  expect_identical(again$date, got$date)
})

test_that("a kept time column with a later value that is no time is an error naming its row", {
  d <- simulate_toy(n = 300, seed = 1)
  fit <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d, hidden = 4L, epochs = 3L, seed = 1),
                          classes = "ncam_warning_not_converged")
  d$day <- format(as.Date("2024-01-01") + seq_len(nrow(d)))
  d$day[200] <- "soon"
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(d, path, row.names = FALSE)
  err <- expect_error(predict_chunks(fit, path, chunk_rows = 128, keep = "day", verbose = FALSE),
                      "Could not read the rows after row 128", class = "ncam_error")
  expect_match(gsub("\\s+", " ", conditionMessage(err$parent)), "data row 200 is \"soon\"", fixed = TRUE)
  # In the first chunk, the column is text: it stays text.
  d$day[200] <- format(as.Date("2024-01-01") + 200)
  d$day[5] <- "soon"
  utils::write.csv(d, path, row.names = FALSE)
  expect_type(predict_chunks(fit, path, chunk_rows = 128, keep = "day", verbose = FALSE)$day, "character")
})

test_that("a time column of text gets the conversion that reads it, in average_estimates() and sensor_drift()", {
  d <- simulate_colocation(days = 12, seed = 2)
  fit <- suppressWarnings(ncam(pa_a + pa_b + opc ~ rh + temperature, data = d, reference = "ref", hidden = 4L,
                               epochs = 5L, seed = 1), classes = "ncam_warning_not_converged")
  scored <- cbind(d, predict(fit, d))
  scored$date <- format(scored$date, "%Y-%m-%d %H:%M:%S")
  expect_snapshot(average_estimates(scored), error = TRUE)
  # The code of the hint gives the times back.
  fixed <- scored
  fixed$date <- as.POSIXct(fixed$date, tz = "UTC")
  expect_identical(as.numeric(fixed$date), as.numeric(d$date))
  iso <- d
  iso$date <- format(iso$date, "%Y-%m-%dT%H:%M:%SZ")
  expect_snapshot(sensor_drift(fit, iso, period = "week"), error = TRUE)
  days <- d
  days$date <- format(as.Date(days$date))
  err <- expect_error(sensor_drift(fit, days, period = "week"), class = "ncam_error")
  expect_match(conditionMessage(err), "newdata$date <- as.Date(newdata$date)", fixed = TRUE)
  # Text that is no time gets no conversion.
  days$date <- paste("day", seq_len(nrow(days)))
  expect_no_match(conditionMessage(expect_error(sensor_drift(fit, days), class = "ncam_error")), "convert")
})

test_that("times written as write.csv() and predict_chunks() write them are read by value, other forms as the readers read them", {
  steps <- seq(0, 60000, by = 7)
  instants <- as.POSIXct("1899-12-25", tz = "UTC") + 86400 * steps + 3671 * (seq_along(steps) %% 24)
  expect_identical(as.numeric(ncam:::text_times(format(instants), "POSIXct")), as.numeric(instants))
  expect_identical(as.numeric(ncam:::text_times(format(instants, "%Y-%m-%dT%H:%M:%SZ"), "POSIXct")), as.numeric(instants))
  days <- as.Date("1899-12-25") + 0:60000
  expect_identical(ncam:::text_times(format(days), "Date"), days)
  # Not on the calendar or clock: NA, as parse_time() and parse_timestamp() refuse them.
  expect_identical(is.na(ncam:::text_times(c("2024-02-29", "2023-02-29", "2024-04-31", "2024-13-01", " NA ", "nan"), "Date")),
                   c(FALSE, TRUE, TRUE, TRUE, TRUE, TRUE))
  got <- ncam:::text_times(c("2024-01-01 24:00:00", "2024-01-01 23:59:60", "2024-01-01 23:59", " 2024-01-01 10:00:00+02:00",
                             "2024-01-01T10:00Z", "2024-01-01 10:00:00.5 UTC", "2024-01-01"), "POSIXct")
  expect_identical(format(got, "%Y-%m-%d %H:%M:%OS1"),
                   c(NA, NA, "2024-01-01 23:59:00.0", "2024-01-01 08:00:00.0", "2024-01-01 10:00:00.0",
                     "2024-01-01 10:00:00.5", "2024-01-01 00:00:00.0"))
  # In a zone: clock times of that zone, times with an offset as written.
  paris <- ncam:::text_times(c("2024-07-01 12:00:00", "2024-07-01T12:00:00Z", "2024-07-01"), "POSIXct", tz = "Europe/Paris")
  expect_identical(as.numeric(paris), as.numeric(as.POSIXct(c("2024-07-01 10:00", "2024-07-01 12:00", "2024-06-30 22:00"), tz = "UTC")))
})

# Seconds since 1970 of ISO 8601 clock times without a zone, as as.POSIXct() reads them in zone `tz`.
by_r <- function(clock, tz) {
  clock <- sub("^(.{10})[Tt]", "\\1 ", clock)
  clock <- ifelse(nchar(clock) == 16L, paste0(clock, ":00"), clock)
  as.numeric(as.POSIXct(clock, format = "%Y-%m-%d %H:%M:%OS", tz = tz))
}

test_that("the readers' parse_timestamp() and text_times() read ISO 8601 alike, as as.POSIXct() reads it", {
  clock <- c("2024-05-01 13:00:00", "2024-05-01T13:00:00", "2024-05-01t13:00", "1999-12-31 23:59:59", "2024-02-29 00:00:01",
             "2024-05-01 13:00:00.5", "2024-05-01T13:00:00.123", "2024-05-01 13:00:00.000001", "2071-01-01 06:07:08.75")
  written <- c(clock, paste0(clock, "Z"), paste0(clock[1:3], "z"), paste(clock[6:7], "UTC"), paste0(clock[1:2], " GMT"),
               paste0(clock[c(1, 7)], "+02:00"), paste0(clock[c(2, 9)], "-0530"), paste0(clock[4], "+14"))
  from_readers <- as.numeric(ncam:::parse_timestamp(written, "t", "x.csv"))
  expect_identical(as.numeric(ncam:::text_times(written, "POSIXct")), from_readers)
  # By hand: the clock time read by R in UTC, less the offset written.
  base <- by_r(sub(" ?(Z|z|UTC|GMT|[+-][0-9:]+)$", "", written), "UTC")
  offset <- rep(0, length(written))
  offset[endsWith(written, "+02:00")] <- 7200
  offset[endsWith(written, "-0530")] <- -19800
  offset[endsWith(written, "+14")] <- 50400
  expect_identical(from_readers, base - offset)
  # Times off the clock or calendar are refused by both.
  off <- c("2024-01-01 24:00:00", "2024-01-01 23:59:60", "2023-02-29 10:00", "2024-01-01 10:00:00.5+14:30", "2024-01-01 10:00+02:60")
  expect_true(all(is.na(ncam:::text_times(off, "POSIXct"))))
  for (value in off) expect_error(ncam:::parse_timestamp(value, "t", "x.csv"), "not on the clock or calendar")
})

test_that("in a time zone, clock times and days are read as as.POSIXct() reads them, on the days clocks change too", {
  zones <- list(
    `America/New_York` = c("2024-03-10 01:59:59", "2024-03-10 02:30:00", "2024-03-10 03:00:00", "2024-11-03 01:30:00",
                           "2024-11-03 02:00:00", "2024-03-10 02:30:00.25", "2024-05-01 13:00:00.123", "2024-05-01T13:00:00.1"),
    `Europe/Paris` = c("2024-03-31 02:30:00", "2024-10-27 02:30:00", "2024-10-27 02:30:00.5", "2024-07-01 12:00"),
    # Clocks went from 00:00 to 01:00: that day has no midnight.
    `America/Sao_Paulo` = c("2018-11-04 00:30:00", "2018-11-04 01:00:00", "2019-02-16 23:30:00"),
    # Half an hour of daylight saving time.
    `Australia/Lord_Howe` = c("2024-10-06 02:15:00", "2024-04-07 01:45:00.5"))
  days <- list(`America/New_York` = c("2024-03-10", "2024-11-03"), `Europe/Paris` = c("2024-03-31", "2024-10-27"),
               `America/Sao_Paulo` = c("2018-11-04", "2019-02-17"), `Australia/Lord_Howe` = c("2024-10-06", "2024-04-07"))
  for (tz in names(zones)) {
    x <- zones[[tz]]
    want <- by_r(x, tz)
    got <- ncam:::text_times(x, "POSIXct", tz = tz)
    expect_identical(attr(got, "tzone"), tz)
    expect_identical(as.numeric(got), want, label = tz)
    # A written zone wins over `tz`.
    expect_identical(as.numeric(ncam:::text_times(paste0(x, "Z"), "POSIXct", tz = tz)),
                     as.numeric(ncam:::parse_timestamp(paste0(x, "Z"), "t", "x.csv")))
    expect_identical(as.numeric(ncam:::text_times(days[[tz]], "POSIXct", tz = tz)), as.numeric(as.POSIXct(days[[tz]], tz = tz)),
                     label = paste(tz, "days"))
    expect_identical(ncam:::text_times(days[[tz]], "Date", tz = tz), as.Date(days[[tz]]))
  }
  # The session's zone, as chunk_times_from_text() gives "" for a key without one.
  withr::local_timezone("America/New_York")
  expect_identical(as.numeric(ncam:::text_times(zones$`America/New_York`, "POSIXct", tz = "")),
                   by_r(zones$`America/New_York`, ""))
})
