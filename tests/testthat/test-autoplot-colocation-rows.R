# autoplot()'s scatter and coverage of a fit with a reference: the rows that carried the reference
# in the fit (its co-location) are marked and scored apart from the others, told from the fit's
# data, else its periods, else newdata's column of the fit's reference; the panel of equal axes
# fills a 7 x 5 inch figure beside its legend.

skip_if_not_installed("ggplot2")

# Three sites, hourly, each with its first 7 of 20 days beside the reference; one model for all
# (their times repeat, so its periods are not those of one series).
co_sites <- as.data.frame(simulate_colocation(days = 20, colocation = 7, sites = 3, seed = 1))
co_fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, co_sites, reference = "ref", hidden = 4L,
                         epochs = 10L, seed = 1, threads = 1))
# A week of co-location does not span the weather of the later days: predict() and the pictures
# warn of rows far outside it (tested elsewhere).
far_ok <- function(expr) suppressWarnings(expr, classes = "ncam_warning_extrapolation")
co_pred <- far_ok(predict(co_fit, co_sites))
co_usable <- !is.na(co_pred$.pred) & co_pred$.n_sensors > 0
co_in_fit <- !is.na(co_sites$ref)
figures <- function(rows) {
  error <- co_pred$.pred[rows] - co_sites$truth[rows]
  sprintf("n = %s, bias = %.3g, RMSE = %.3g, correlation = %.3f", format(sum(rows), big.mark = ","),
          mean(error), sqrt(mean(error^2)), stats::cor(co_sites$truth[rows], co_pred$.pred[rows]))
}
# The points drawn as co-location rows (triangles) and the others, as "x y" text.
drawn_as <- function(p) {
  points <- layer_data_of(p, "GeomPoint")
  split(sprintf("%.6g %.6g", points$x, points$y), points$shape == 17)
}
as_points <- function(rows) sort(sprintf("%.6g %.6g", co_sites$truth[rows], co_pred$.pred[rows]))
flat <- function(text) gsub("\n", " ", text)

test_that("the scatter marks the fit's co-location rows and gives the other rows' figures", {
  p <- far_ok(ggplot2::autoplot(co_fit, "scatter", newdata = co_sites, reference = "truth"))
  drawn <- drawn_as(p)
  expect_identical(sort(drawn[["TRUE"]]), as_points(co_usable & co_in_fit))
  expect_identical(sort(drawn[["FALSE"]]), as_points(co_usable & !co_in_fit))
  expect_identical(flat(p$labels$subtitle), paste("Rows outside the co-location:", figures(co_usable & !co_in_fit)))
  # The co-location rows' figures beside their key.
  colour <- ggplot2::ggplot_build(p)$plot$scales$get_scales("colour")
  expect_identical(flat(colour$get_labels())[1:2],
                   c("other rows", paste("co-location rows (ref in the fit):", figures(co_usable & co_in_fit))))
  # The same figures as a scatter of the later rows alone, which has nothing to mark.
  later <- far_ok(ggplot2::autoplot(co_fit, "scatter", newdata = co_sites[!co_in_fit, ], reference = "truth"))
  expect_identical(flat(later$labels$subtitle), figures(co_usable & !co_in_fit))
  expect_null(drawn_as(later)[["TRUE"]])
  expect_null(later$labels$caption)
  # Every row a co-location row: their figures, said to be such.
  fitted_only <- far_ok(ggplot2::autoplot(co_fit, "scatter", newdata = co_sites[co_in_fit, ], reference = "truth"))
  expect_identical(flat(fitted_only$labels$subtitle),
                   paste("Every row had a reading of ref in the fit (its co-location):", figures(co_usable & co_in_fit)))
})

test_that("the picture of one panel fills the figure beside its legend, the 1:1 line its diagonal", {
  p <- far_ok(ggplot2::autoplot(co_fit, "scatter", newdata = co_sites, reference = "truth"))
  expect_identical(p$theme$legend.position, "right")
  expect_identical(p$coordinates$limits$x, p$coordinates$limits$y)
  expect_identical(p$coordinates$limits$x, range(co_sites$truth[co_usable], co_pred$.pred[co_usable]))
  expect_true(p$theme$aspect.ratio >= 3 / 4 && p$theme$aspect.ratio <= 4 / 3)
  # Drawn at 7 x 5 inches, the panel is wider than tall, and takes more of the figure than a
  # square of its height would (38 %).
  grDevices::pdf(NULL, width = 7, height = 5)
  on.exit(grDevices::dev.off())
  print(p)
  grid::grid.force()
  panel <- grep("^panel", grid::grid.ls(viewports = TRUE, grobs = FALSE, print = FALSE)$name, value = TRUE)[1]
  grid::seekViewport(panel)
  size <- c(grid::convertWidth(grid::unit(1, "npc"), "in", TRUE), grid::convertHeight(grid::unit(1, "npc"), "in", TRUE))
  expect_gt(size[1], size[2])
  expect_gt(prod(size) / 35, 0.42)
  expect_equal(size[2] / size[1], p$theme$aspect.ratio, tolerance = 1e-6)
})

test_that("coverage scores the co-location rows apart, a line of their own or a caption line", {
  p <- far_ok(ggplot2::autoplot(co_fit, "coverage", newdata = co_sites, reference = "truth", level = 0.9))
  interval <- far_ok(predict(co_fit, co_sites, interval = "prediction", level = 0.9))
  inside <- co_sites$truth >= interval$.pred_lower & co_sites$truth <= interval$.pred_upper
  n_fit <- sum(co_usable & co_in_fit)
  expect_identical(levels(p$data$curve), c("rows outside the co-location", sprintf("the %d co-location rows (ref in the fit)", n_fit)))
  points <- layer_data_of(p, "GeomPoint")
  expect_equal(points$y[order(points$group)], c(mean(inside[co_usable & !co_in_fit]), mean(inside[co_usable & co_in_fit])))
  expect_identical(p$labels$subtitle, sprintf("%s rows outside the co-location with both a reference value and an estimate",
                                              format(sum(co_usable & !co_in_fit), big.mark = ",")))
  expect_identical(p$theme$legend.position, "right")
})

test_that("without the fit's data, the periods it keeps tell a unit's co-location rows", {
  changed <- co_sites
  fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, changed, reference = "ref", unit = "site", hidden = 4L,
                        epochs = 10L, seed = 1, threads = 1))
  exact <- far_ok(ggplot2::autoplot(fit, "scatter", newdata = co_sites, reference = "truth"))
  pred <- far_ok(predict(fit, co_sites))
  usable <- !is.na(pred$.pred) & pred$.n_sensors > 0
  points_of <- function(rows) sort(sprintf("%.6g %.6g", co_sites$truth[rows], pred$.pred[rows]))
  expect_identical(sort(drawn_as(exact)[["TRUE"]]), points_of(usable & co_in_fit))
  # The data changed since the fit: each site's rows from its first to its last reference reading.
  changed$rh[1] <- changed$rh[1] + 1
  expect_identical(nrow(fit$reference_periods$periods), 3L)
  first_last <- sapply(split(co_sites$date[co_in_fit], co_sites$site[co_in_fit]), range)
  within <- co_sites$date >= .POSIXct(first_last[1, as.character(co_sites$site)], tz = "UTC") &
    co_sites$date <= .POSIXct(first_last[2, as.character(co_sites$site)], tz = "UTC")
  by_period <- far_ok(ggplot2::autoplot(fit, "scatter", newdata = co_sites, reference = "truth"))
  expect_identical(sort(drawn_as(by_period)[["TRUE"]]), points_of(usable & within))
  expect_gt(sum(within), sum(co_in_fit))  # the reference's gaps within the period
})

test_that("without the fit's data or periods of one series, newdata's column of the fit's reference, else a caption", {
  changed <- co_sites
  fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, changed, reference = "ref", hidden = 4L,
                        epochs = 10L, seed = 1, threads = 1))
  changed$rh[1] <- changed$rh[1] + 1
  expect_false(fit$reference_periods$one_series)
  pred <- far_ok(predict(fit, co_sites))
  usable <- !is.na(pred$.pred) & pred$.n_sensors > 0
  by_column <- far_ok(ggplot2::autoplot(fit, "scatter", newdata = co_sites, reference = "truth"))
  expect_identical(sort(drawn_as(by_column)[["TRUE"]]),
                   sort(sprintf("%.6g %.6g", co_sites$truth[usable & co_in_fit], pred$.pred[usable & co_in_fit])))
  # Compared with the fit's own reference column, complete: nothing tells the rows apart.
  complete <- co_sites
  complete$ref <- complete$truth
  unknown <- far_ok(ggplot2::autoplot(fit, "scatter", newdata = complete, reference = "ref"))
  expect_null(drawn_as(unknown)[["TRUE"]])
  expect_match(flat(unknown$labels$caption), "The rows with a reading of ref in the fit are not told apart", fixed = TRUE)
  expect_match(flat(unknown$labels$subtitle), "^n = ")
  # A fit without a reference has none to mark, and says nothing of it.
  plain <- far_ok(ggplot2::autoplot(short_fit(ncam(pa_a + pa_b + opc ~ rh, co_sites, anchor = "opc", hidden = 4L, epochs = 3L,
                                            seed = 1, threads = 1)),
                             "scatter", newdata = co_sites, reference = "truth"))
  expect_null(plain$labels$caption)
  expect_identical(plain$theme$legend.position, "right")
})

test_that("fits by group mark each group's co-location rows", {
  fits <- short_fit(ncam_by(pa_a + pa_b + opc ~ rh, co_sites, by = "site", reference = "ref", hidden = 4L, epochs = 5L,
                            seed = 1, threads = 1))
  p <- far_ok(ggplot2::autoplot(fits, "scatter", newdata = co_sites, reference = "truth"))
  pred <- far_ok(predict(fits, co_sites))
  usable <- !is.na(pred$.pred) & pred$.n_sensors > 0
  expect_identical(sort(drawn_as(p)[["TRUE"]]),
                   sort(sprintf("%.6g %.6g", co_sites$truth[usable & co_in_fit], pred$.pred[usable & co_in_fit])))
  # Each strip counts its group's rows outside the co-location, as the subtitle does.
  strips <- unname(p$facet$params$labeller(data.frame(group = levels(p$data$group)))[[1]])
  expect_identical(sub(".*\n", "", strips), paste("n =", as.vector(table(co_sites$site[usable & !co_in_fit]))))
})
