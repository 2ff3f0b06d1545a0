# A column name that the data lacks: the error names the closest columns ("Did you mean ...?",
# case first, then a few edits, then names holding it), and lists the columns in full only when
# few (cli cut a list of 40 after its 20th name, hiding the right one behind "...").

# The openair layout of a user review: 40 columns, an ozone sensor per site.
wide_ozone <- function(n = 60) {
  d <- data.frame(date = as.POSIXct("2024-06-01", tz = "UTC") + 3600 * seq_len(n),
                  air_temp = 20 + sin(seq_len(n) / 5))
  for (s in 1:3) d[[paste0("o3_s", s)]] <- 30 + s + cos(seq_len(n) / 3)
  for (i in 1:35) d[[paste0("extra_", i)]] <- as.double(i + seq_len(n) %% 7)
  d
}

test_that("close_names() finds a name differing in case, then in a few edits, then one holding it", {
  cols <- c("date", "air_temp", "o3_s1", "o3_s2", "o3_s3", "temperature", "ref_pm10")
  expect_identical(ncam:::close_names("O3_s3", cols), "o3_s3")
  expect_identical(ncam:::close_names("air_tmp", cols), "air_temp")
  expect_identical(ncam:::close_names("temprature", cols), "temperature")
  # One edit from three names, nearest first and in column order among equals.
  expect_identical(ncam:::close_names("o3_s4", cols), c("o3_s1", "o3_s2", "o3_s3"))
  # Held in other names, when no name is within a few edits.
  expect_identical(ncam:::close_names("temp", cols), c("air_temp", "temperature"))
  # Two edits is too far for a name of 8 characters: ref_pm10 is another quantity.
  expect_identical(ncam:::close_names("ref_pm25", cols), character())
  # Names of 2 or 3 characters: one edit is another quantity.
  expect_identical(ncam:::close_names("ws", c("wd", "date")), character())
  expect_identical(ncam:::close_names("x1", c("x2", "x3", "X1")), "X1")
  expect_identical(ncam:::close_names("pm25", c("pm10", "pm2.5")), "pm2.5")
  expect_identical(ncam:::close_names("x", character()), character())
})

test_that("ncam() suggests the column meant, among 40, without cutting the list", {
  d <- wide_ozone()
  expect_snapshot(error = TRUE, ncam(o3_s1 + o3_s2 + O3_s3 ~ air_temp, data = d))
  expect_snapshot(error = TRUE, ncam(o3_s1 + o3_s2 + o3_s3 ~ air_tmp, data = d))
  expect_snapshot(error = TRUE, ncam(o3_s1 + o3_s2 + O3_s3 + o3_s4 ~ air_temp, data = d))
  expect_snapshot(error = TRUE, ncam(o3_s1 + o3_s2 + wind ~ air_temp, data = d))
  # Every column of the data appears in neither list: no "..." stands for the right one.
  msg <- cli::ansi_strip(conditionMessage(expect_error(ncam(o3_s1 + O3_s3 ~ 1, data = d), class = "ncam_error")))
  expect_no_match(msg, "\u2026|\\.\\.\\.")
})

test_that("few columns are listed in full beside the suggestion", {
  d <- simulate_colocation(days = 5, sites = 2, seed = 1)
  expect_snapshot(error = TRUE, ncam(pa_a + PA_B ~ rh, data = d, reference = "ref"))
  expect_snapshot(error = TRUE, ncam(pa_a + pa_b ~ rh, data = d, reference = "Ref"))
  expect_snapshot(error = TRUE, ncam_by(pa_a + pa_b ~ rh, data = d, by = "sites", reference = "ref"))
  expect_snapshot(error = TRUE, sensor_performance(d, estimate = "pa_a", reference = "ref", date = "Date"))
})

test_that("predict() and calibrate() suggest the column of newdata or data meant", {
  d <- simulate_colocation(days = 10, sites = 1, seed = 2)
  fit <- short_fit(ncam(pa_a + pa_b ~ rh, data = d, reference = "ref", hidden = 4L, epochs = 2L, seed = 1, threads = 1),
                   also = c("ncam_warning_clamp", "ncam_warning_validation_not_improved"))
  renamed <- d
  names(renamed)[names(renamed) == "pa_b"] <- "PA_B"
  expect_snapshot(error = TRUE, predict(fit, newdata = renamed))
  names(renamed)[names(renamed) == "ref"] <- "REF"
  names(renamed)[names(renamed) == "PA_B"] <- "pa_b"
  expect_snapshot(error = TRUE, calibrate(fit, renamed, method = "split"))
})
