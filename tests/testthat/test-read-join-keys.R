# join_reference() keys and sensor_performance() units given as numbers: matched and shown by
# their digits.

utc <- function(x) as.POSIXct(x, tz = "UTC")

test_that("numeric keys match as whole numbers up to 2^53 and by their full digits otherwise", {
  t0 <- utc("2024-03-01 00:00")
  sensors <- data.frame(date = t0 + 60 * (0:119), site = 1e15, pm = 1)
  reference <- data.frame(date = t0 + 3600 * (0:1), site = "1000000000000000", ref = c(5, 6))
  expect_identical(join_reference(sensors, reference, keys = "site")$ref, c(5, 6))
  big <- 2^53
  expect_identical(join_reference(transform(sensors, site = big),
                                  transform(reference, site = "9007199254740992"), keys = "site")$ref, c(5, 6))
  # 0.1 + 0.2 is 0.30000000000000004: another key than 0.3.
  expect_warning(apart <- join_reference(transform(sensors, site = 0.1 + 0.2), transform(reference, site = 0.3),
                                         keys = "site"), class = "ncam_warning_no_overlap")
  expect_identical(apart$ref, c(NA_real_, NA_real_))
  # A unit of sensor_performance() keyed 1e15 is shown by its digits.
  hours <- t0 + 3600 * (0:47)
  data <- data.frame(date = hours, unit = 1e15, est = 1:48 + 0.5, ref = 1:48)
  res <- sensor_performance(data, "est", "ref", unit = "unit", averaging = "as_given")
  expect_identical(res$unit[1], "1000000000000000")
})

test_that("repeated numeric keys get the text of each value, whatever the values around them", {
  x <- c(1e5, 0.1 + 0.2, 0.3, -0, 1e5, NA, 2.5, 0.1 + 0.2, 0, NaN, 2^53, 2.5)
  expected <- c("100000", "0.30000000000000004", "0.3", "0", "100000", NA, "2.5",
                "0.30000000000000004", "0", "NaN", "9007199254740992", "2.5")
  expect_identical(ncam:::key_text(x), expected)
  expect_identical(ncam:::key_text(rev(x)), rev(expected))
  expect_identical(ncam:::key_text(c(7L, NA, 7L, 100000L)), c("7", NA, "7", "100000"))
})
