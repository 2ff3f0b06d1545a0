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
