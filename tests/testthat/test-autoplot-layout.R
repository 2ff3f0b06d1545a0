# autoplot() at 7 x 5 inches: text wrapped rather than cut, strips that name their group in full,
# many groups in panels rather than colours, the sensors' bin lines broken over empty bins, and
# the co-location period shaded in the series.

skip_if_not_installed("ggplot2")

# Nine units with names too long for a strip of a 3 x 3 grid, given in an order that is not
# theirs: each has its first 60 days beside the reference.
long_names <- paste0("ANT_REF_", c("R817", "AL01", "M802", "R801", "R802", "R803", "R804", "R805", "R811"))
layout_sites <- unit_sites_data(days = 90, site_bias = stats::setNames(seq(-2, 2, length.out = 9), long_names))
layout_sites$date <- as.Date("2024-01-01") + layout_sites$day - 1
layout_fit <- short_fit(ncam(s1 + s2 ~ rh, layout_sites, reference = "ref", unit = "site", hidden = 4L,
                             epochs = 5L, seed = 1, threads = 1), also = "ncam_warning_clamp")
strip_texts <- function(p, column, values) unname(p$facet$params$labeller(stats::setNames(data.frame(values), column))[[1]])
subtitle_room <- function() ncam:::chars_in(6.75, 11)  # characters of an 11-point subtitle across 7 inches

test_that("text is wrapped into lines that fit, every word kept", {
  text <- "n = 50,043, bias = -0.435, RMSE = 3.67, correlation = 0.904 (all groups); one panel per station"
  wrapped <- ncam:::wrap_plot_text(text, 40)
  expect_true(all(nchar(strsplit(wrapped, "\n")[[1]]) <= 40))
  expect_identical(gsub("\n", " ", wrapped), text)
  # Given lines stay apart; a word longer than a line is cut, not lost.
  expect_identical(ncam:::wrap_plot_text(c("a b", "c"), 10), "a b\nc")
  expect_identical(ncam:::wrap_plot_text("abcdefghij", 4), "abcd\nefgh\nij")
  # ... after a "/", "_", "-", "." or ":" when one leaves a piece of two characters or more.
  expect_identical(ncam:::wrap_plot_text("101259/2023", 9), "101259/\n2023")
  expect_identical(ncam:::wrap_plot_text("ANT_REF_R801", 9), "ANT_REF_\nR801")
  expect_identical(ncam:::wrap_plot_text("/abcdefgh", 4), "/abc\ndefg\nh")
  expect_identical(ncam:::strip_text(c("site_year = 101259/2023", "site_year = 6008/2021"), 9)$labels,
                   c("101259/\n2023", "6008/2021"))
  # Group labels break between keys, then after " = ".
  expect_identical(ncam:::wrap_group_label("station = ANT_REF_R801, box = a", 24),
                   "station = ANT_REF_R801,\nbox = a")
  expect_identical(ncam:::wrap_group_label("station = ANT_REF_R801", 12), "station =\nANT_REF_R801")
  # Strips too narrow for "site = 101259" show the value, and say which key was left out.
  short <- ncam:::strip_text(c("site = 101259", "site = 6008"), 10)
  expect_identical(short, list(labels = c("101259", "6008"), key = "site"))
  expect_identical(ncam:::strip_text(c("site = 1", "site = 2"), 10), list(labels = c("site = 1", "site = 2"), key = NULL))
})

test_that("many panels: scatter strips name each unit in full with its rows, in the unit's order", {
  p <- ggplot2::autoplot(layout_fit, "scatter", newdata = layout_sites, reference = "truth")
  units <- sort(long_names, method = "radix")
  expect_identical(levels(p$data$group), paste("site =", units))
  strips <- strip_texts(p, "group", levels(p$data$group))
  # A unit's name on a line of its own (the key is in the subtitle), then its number of rows
  # outside the co-location (the 30 days after each unit's 60 beside the reference), which the
  # subtitle's figures count.
  expect_identical(sub("\n.*", "", strips), units)
  expect_identical(sub(".*\n", "", strips), paste("n =", as.vector(table(layout_sites$site[is.na(layout_sites$ref)])[units])))
  subtitle <- p$labels$subtitle
  expect_true(all(nchar(strsplit(subtitle, "\n")[[1]]) <= subtitle_room()))
  expect_match(gsub("\n", " ", subtitle), "correlation = [0-9.]+ \\(all units\\); one panel per site$")
  built <- ggplot2::ggplot_build(p)
  expect_identical(nrow(built$layout$layout), 9L)
  expect_equal(as.vector(table(layer_data_of(p, "GeomPoint")$PANEL)), rep(90L, 9))
})

test_that("panels of equal axes fill the room, no side more than 4/3 of the other, with room for their ticks", {
  # 18 units in 3.4 inches of height: 3 rows of 6 panels, each wider than tall; square panels
  # (as before) were as small as the height allowed, leaving the sides blank.
  labels <- paste("site =", 1:18)
  square <- ncam:::panel_grid(labels, 3.4, extra = "n = 100")
  filled <- ncam:::equal_grid(labels, 3.4, extra = "n = 100")
  expect_identical(filled$ncol, 6L)
  expect_gt(filled$width, filled$height)
  expect_gt(filled$width * filled$height, 1.2 * square$side^2)
  expect_true(filled$aspect >= 3 / 4 && filled$aspect <= 4 / 3)
  # Panels of more than an inch keep ggplot2's breaks; tick labels that would touch are dropped.
  p <- ggplot2::autoplot(layout_fit, "scatter", newdata = layout_sites, reference = "truth")
  expect_null(p$scales$get_scales("x")$n.breaks)
  expect_true(p$scales$get_scales("x")$guide$check.overlap)
  expect_true(p$theme$aspect.ratio >= 3 / 4 && p$theme$aspect.ratio <= 4 / 3)
  expect_identical(p$coordinates$limits$x, p$coordinates$limits$y)
})

test_that("coverage of more than seven units: a panel each, its line over the grey line of all rows", {
  p <- ggplot2::autoplot(layout_fit, "coverage", newdata = layout_sites, reference = "truth", level = c(0.5, 0.9))
  expect_identical(levels(p$data$curve), paste("site =", sort(long_names, method = "radix")))
  built <- ggplot2::ggplot_build(p)
  expect_identical(nrow(built$layout$layout), 9L)
  # Each panel's points: the share of its unit's rows whose truth lies inside the interval.
  points <- layer_data_of(p, "GeomPoint")
  for (level in c(0.5, 0.9)) {
    pred <- predict(layout_fit, layout_sites, interval = "prediction", level = level)
    inside <- layout_sites$truth >= pred$.pred_lower & layout_sites$truth <= pred$.pred_upper
    # Of the rows outside the co-location (those without a reference reading in the fit).
    later <- is.na(layout_sites$ref)
    by_unit <- tapply(inside[later], layout_sites$site[later], mean)[sort(long_names, method = "radix")]
    expect_equal(points$y[points$x == level], unname(as.vector(by_unit)))
  }
  # The line of all rows, the same in every panel.
  geoms <- vapply(p$layers, function(l) class(l$geom)[1], character(1))
  all_rows <- built$data[[which(geoms == "GeomLine")[1]]]
  expect_equal(as.vector(table(all_rows$PANEL)), rep(2L, 9))
  pred <- predict(layout_fit, layout_sites, interval = "prediction", level = 0.9)
  expect_equal(unique(all_rows$y[all_rows$x == 0.9]),
               mean((layout_sites$truth >= pred$.pred_lower & layout_sites$truth <= pred$.pred_upper)[later]))
  expect_setequal(unique(all_rows$colour), "grey55")
  # The co-location rows, left out of the lines, in the caption.
  expect_match(gsub("\n", " ", p$labels$caption),
               sprintf("Left out: the %d co-location rows (ref in the fit), %.1f%% inside the 90%% interval.", sum(!later),
                       100 * mean((layout_sites$truth >= pred$.pred_lower & layout_sites$truth <= pred$.pred_upper)[!later])),
               fixed = TRUE)
  expect_match(p$labels$subtitle, "one panel per site")
  # Up to seven units, a colour each, and the co-location rows' line, in a legend beside the panel.
  few <- layout_sites[layout_sites$site %in% long_names[1:4], ]
  lines <- ggplot2::autoplot(layout_fit, "coverage", newdata = few, reference = "truth")
  expect_identical(nrow(ggplot2::ggplot_build(lines)$layout$layout), 1L)
  expect_identical(levels(lines$data$curve), c("rows outside the co-location", paste("site =", sort(long_names[1:4], method = "radix")),
                                               "the 240 co-location rows (ref in the fit)"))
  expect_identical(lines$theme$legend.position, "right")
})

test_that("ncam_by panels follow the values of the key columns, not their labels as text", {
  toy <- simulate_toy(200, seed = 5)
  toy$date <- as.Date("2024-01-01") + rep(0:99, 2)
  toy$site <- rep(c(10, 2), each = 100)
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, by = "site", anchor = "sensor_0",
                            hidden = 4, epochs = 3, seed = 1, threads = 1),
                    also = c("ncam_warning_clamp", "ncam_warning_validation_not_improved"))
  scatter <- ggplot2::autoplot(fits, "scatter", newdata = toy, reference = "truth")
  expect_identical(levels(scatter$data$group), c("site = 2", "site = 10"))
  series <- ggplot2::autoplot(fits, "series", newdata = toy)
  expect_identical(levels(series$data$group), c("site = 2", "site = 10"))
})

test_that("subtitles that used to run off a 7-inch figure are wrapped, in full", {
  toy <- simulate_toy(300, seed = 2)
  toy$date <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * (seq_len(nrow(toy)) - 1)
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = transform(toy, site = rep(1:3, 100)),
                            by = "site", anchor = "sensor_0", hidden = 4, epochs = 3, seed = 1, threads = 1),
                    also = c("ncam_warning_clamp", "ncam_warning_validation_not_improved"))
  loss <- ggplot2::autoplot(fits)$labels$subtitle
  expect_identical(gsub("\n", " ", loss),
                   "Dashed: the best epoch, chosen on the capped validation NLL, whose weights each model keeps")
  expect_true(all(nchar(strsplit(loss, "\n")[[1]]) <= subtitle_room()))
})

test_that("the sensors picture names its covariate and breaks its bin lines over empty bins", {
  toy <- simulate_toy(300, seed = 7)
  toy$date <- as.Date("2024-01-01") + c(0:149, 250:399)  # 100 days without rows
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, anchor = "sensor_0", hidden = 4L,
                        epochs = 3L, seed = 1, threads = 1), also = "ncam_warning_clamp")
  p <- ggplot2::autoplot(fit, "sensors", newdata = toy, covariate = "date")
  expect_match(gsub("\n", " ", p$labels$caption), "means in 30 equal-width bins of date, broken where a bin has no rows")
  lines <- layer_data_of(p, "GeomLine")
  # 30 bins of 13.3 days: days 0-149 fill bins 1-12 (the 12th reaches day 159.6), 250-399 bins
  # 19-30. Each sensor and panel has two runs, neither across the gap.
  expect_identical(length(unique(lines$group)), 2L * 3L * 4L)
  start <- as.numeric(as.Date("2024-01-01"))
  expect_true(all(tapply(lines$x, lines$group, function(x) all(x < start + 160) || all(x > start + 240))))
  # Four panels in two columns.
  expect_identical(max(ggplot2::ggplot_build(p)$layout$layout$COL), 2L)
})

test_that("bin means mark the runs of bins between empty ones, a lone bin spanning its rows", {
  long <- data.frame(.row = 1:100, sensor = factor("s"), parameter = factor("gain"), x = c(1:30, 55:60, 90:153))
  long$value <- long$x
  means <- bin_means(long)
  # 10 bins of 15.2 over 1 to 153: x 1-30 in bins 1-2, 55-60 in bin 4, 90-92 in bin 6 (3 rows,
  # too few for a mean, but not empty: the run goes on), 93-153 in bins 7-10.
  expect_identical(attr(means, "bins"), 10L)
  expect_equal(means$bin, c(1, 2, 4, 7, 8, 9, 10))
  expect_identical(means$run, c(1L, 1L, 2L, 3L, 3L, 3L, 3L))
  expect_equal(c(means$x_from[3], means$x_to[3], means$x[3]), c(55, 60, 57.5))
})

test_that("the series of a fit that kept no periods shades the rows with a reference reading, run by run", {
  sim <- simulate_colocation(days = 30, colocation = 10, seed = 3)
  sim$ref[c(50:52, 100, 102)] <- NA  # dropouts of the reference: hour 101 alone between two
  fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh, data = sim, reference = "ref", hidden = 4L, epochs = 3L,
                        seed = 1, threads = 1), also = "ncam_warning_clamp")
  fit$reference_periods <- NULL  # as saved before fits kept them
  far <- "ncam_warning_extrapolation"  # the later weeks reach above the co-location's readings
  p <- suppressWarnings(ggplot2::autoplot(fit, "series", newdata = sim, reference = "truth"), classes = far)
  rect <- layer_data_of(p, "GeomRect")
  # Runs of hours with a reference reading, from the first to the last; a lone hour, half an hour
  # either side.
  runs <- rle(!is.na(sim$ref))
  last <- cumsum(runs$lengths)[runs$values]
  first <- last - runs$lengths[runs$values] + 1L
  half <- ifelse(first == last, 1800, 0)
  expect_identical(sum(first == last), 1L)
  expect_equal(rect$xmin, as.numeric(sim$date[first]) - half)
  expect_equal(rect$xmax, as.numeric(sim$date[last]) + half)
  expect_true(all(is.infinite(c(rect$ymin, rect$ymax))))
  built <- ggplot2::ggplot_build(p)
  fill_scale <- built$plot$scales$get_scales("fill")
  expect_identical(c(fill_scale$get_breaks()), c("co-location: rows with a reading of ref", "90% prediction interval"))
  # A reference on every row, or on more rows than the fit had, tells nothing of the co-location.
  sim$ref <- sim$truth
  every <- suppressWarnings(ggplot2::autoplot(fit, "series", newdata = sim), classes = far)
  expect_false("GeomRect" %in% vapply(every$layers, function(l) class(l$geom)[1], ""))
  expect_match(every$labels$caption, "No co-location shaded: ref has a reading on every row.", fixed = TRUE)
  sim$ref[1] <- NA
  more <- suppressWarnings(ggplot2::autoplot(fit, "series", newdata = sim), classes = far)
  expect_match(gsub("\n", " ", more$labels$caption), "ref has readings on more rows (719) than the fit learned from",
               fixed = TRUE)
  # Without a reference in the fit, nothing is shaded.
  free <- short_fit(ncam(pa_a + pa_b + opc ~ rh, data = sim, anchor = "opc", hidden = 4L, epochs = 3L,
                         seed = 1, threads = 1), also = c("ncam_warning_clamp", "ncam_warning_two_sensors"))
  free_plot <- suppressWarnings(ggplot2::autoplot(free, "series", newdata = sim), classes = far)
  expect_false("GeomRect" %in% vapply(free_plot$layers, function(l) class(l$geom)[1], ""))
})

test_that("each unit's panel shades its own co-location, from newdata for a fit that kept no periods", {
  later_ref <- layout_sites[layout_sites$site %in% long_names[1:3], ]
  # One unit's co-location starts late.
  later_ref$ref[later_ref$site == long_names[2] & later_ref$day <= 30] <- NA
  old_fit <- layout_fit
  old_fit$reference_periods <- NULL
  p <- ggplot2::autoplot(old_fit, "series", newdata = later_ref)
  rect <- layer_data_of(p, "GeomRect")
  panels <- levels(p$data$group)
  expect_identical(nrow(rect), 3L)
  for (unit in long_names[1:3]) {
    rows <- later_ref[later_ref$site == unit & !is.na(later_ref$ref), ]
    in_panel <- rect[rect$PANEL == match(paste("site =", unit), panels), ]
    expect_equal(c(in_panel$xmin, in_panel$xmax), as.numeric(range(rows$date)), info = unit)
  }
})
