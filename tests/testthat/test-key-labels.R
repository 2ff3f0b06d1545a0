# Group and unit keys written in labels, panels and unit columns: different keys read apart,
# and numbers no longer than they need.

label_formula <- sensor_0 + sensor_1 + sensor_2 ~ 1

hourly_units <- function(units, hours = 48) {
  withr::local_seed(3)
  d <- data.frame(date = rep(as.POSIXct("2024-01-01", tz = "UTC") + 3600 * (seq_len(hours) - 1), length(units)),
                  site = rep(units, each = hours))
  d$ref <- stats::rnorm(nrow(d), 10)
  d$est <- d$ref + stats::rnorm(nrow(d))
  d
}

test_that("group panels write 0.3 short and 0.1 + 0.2 with the digits that read back as it", {
  skip_if_not_installed("ggplot2")
  toy <- simulate_toy(400, seed = 1)
  toy$g <- rep(c(0.3, 0.1 + 0.2), 200)
  toy$date <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * rep(1:200, each = 2)
  fits <- short_fit(ncam_by(label_formula, toy, by = "g", hidden = integer(0), epochs = 5L, seed = 1, threads = 1L))
  panels <- levels(factor(ggplot2::ggplot_build(ggplot2::autoplot(fits, type = "series", newdata = toy, date = "date"))$layout$layout$group))
  expect_identical(sort(panels), c("g = 0.3", "g = 0.30000000000000004"))
  # Each label reads back as its own key.
  expect_identical(as.numeric(sub("g = ", "", sort(panels))), c(0.3, 0.1 + 0.2))
  # Rows of one group alone are labelled as beside the other group, as in the fit.
  one <- toy[toy$g != 0.3, ]
  panel <- ggplot2::ggplot_build(ggplot2::autoplot(fits, type = "series", newdata = one, date = "date"))$layout$layout$group
  expect_identical(as.character(panel), "g = 0.30000000000000004")
})

test_that("numbers that print apart keep 15 digits, and text that reads as NA is quoted", {
  expect_identical(ncam:::group_labels(data.frame(g = c(1 / 3, 0.25, 1e5))),
                   c("g = 0.333333333333333", "g = 0.25", "g = 1e+05"))
  keys <- data.frame(k = c(NA, "NA", "\"NA\"", "north"))
  labels <- ncam:::group_labels(keys)
  expect_identical(labels, c("k = NA", "k = \"NA\"", "k = \"\\\"NA\\\"\"", "k = north"))
  expect_false(anyDuplicated(labels) > 0L)
})

test_that("a missing key and the text \"NA\" get their own panels", {
  skip_if_not_installed("ggplot2")
  toy <- simulate_toy(300, seed = 2)
  toy$k <- rep(c("NA", "b"), 150)
  toy$date <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * rep(1:150, each = 2)
  fits <- short_fit(ncam_by(label_formula, toy, by = "k", hidden = integer(0), epochs = 5L, seed = 1, threads = 1L))
  nd <- toy[c(1:20, seq(201, 240, by = 2)), ]
  nd$k[21:40] <- NA
  nd$date[21:40] <- nd$date[21:40] + 30 * 86400  # its own stretch of time
  expect_warning(p <- ggplot2::autoplot(fits, type = "series", newdata = nd, date = "date"),
                 class = "ncam_warning_no_group_model")
  panels <- sort(unique(as.character(ggplot2::ggplot_build(p)$layout$layout$group)))
  expect_identical(panels, sort(c("k = \"NA\"", "k = b", "k = NA")))
})

test_that("sensor_performance() keeps units 0.3 and 0.1 + 0.2 apart, each read back by its text", {
  d <- hourly_units(c(0.3, 0.1 + 0.2, 1 / 3))
  # Before, both were unit "0.3": a time repeated within one unit, an error.
  got <- suppressWarnings(sensor_performance(d, "est", "ref", unit = "site", averaging = "as_given"),
                          classes = "ncam_warning_few_pairs")
  units <- got$unit[got$unit != "all"]
  expect_identical(units, c("0.3", "0.30000000000000004", "0.3333333333333333"))
  expect_identical(as.numeric(units), c(0.3, 0.1 + 0.2, 1 / 3))
  for (u in c(0.3, 0.1 + 0.2, 1 / 3)) {
    rows <- d$site == u
    expect_equal(got$rmse[got$unit == units[match(u, c(0.3, 0.1 + 0.2, 1 / 3))]],
                 sqrt(mean((d$est[rows] - d$ref[rows])^2)), tolerance = 1e-12)
  }
  expect_identical(got$n[got$unit != "all"], rep(48L, 3))
})

test_that("average_estimates() returns each unit's own key, 0.3 and 0.1 + 0.2 apart", {
  d <- hourly_units(c(0.3, 0.1 + 0.2))
  names(d)[names(d) == "est"] <- ".pred"
  means <- average_estimates(d, averaging = "24h", unit = "site")
  expect_identical(means$site, c(0.3, 0.3, 0.1 + 0.2, 0.1 + 0.2))
  first_day <- d$site == 0.1 + 0.2 & d$date < as.POSIXct("2024-01-02", tz = "UTC")
  expect_equal(means$.pred[means$site == 0.1 + 0.2][1], mean(d$.pred[first_day]), tolerance = 1e-12)
})
