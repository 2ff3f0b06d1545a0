# autoplot() of many units or groups: which panels a 7 x 5 inch figure draws by default, what it
# says of the others, `panels` picking them; and the co-location shaded from the periods the fit
# keeps (fit$reference_periods) rather than from newdata's reference column.

skip_if_not_installed("ggplot2")

# Nine sites a to i, each with its first 60 of 90 days beside the reference.
panel_sites <- unit_sites_data(days = 90, site_bias = stats::setNames(seq(-2, 2, length.out = 9), letters[1:9]))
panel_sites$date <- as.Date("2024-01-01") + panel_sites$day - 1
panel_fit <- short_fit(ncam(s1 + s2 ~ rh, panel_sites, reference = "ref", unit = "site", hidden = 4L,
                            epochs = 5L, seed = 1, threads = 1), also = "ncam_warning_clamp")
# The later days, without the reference column the fit read.
panel_later <- panel_sites[panel_sites$day > 60, setdiff(names(panel_sites), "ref")]
panel_count <- function(p) length(unique(ggplot2::ggplot_build(p)$layout$layout$PANEL))
geoms_of <- function(p) vapply(p$layers, function(l) class(l$geom)[1], "")

test_that("a series of more than 6 units draws the first 6, saying how to draw the others", {
  expect_snapshot(p <- ggplot2::autoplot(panel_fit, "series", newdata = panel_sites))
  expect_identical(levels(p$data$group), paste("site =", letters[1:6]))
  expect_identical(panel_count(p), 6L)
  expect_match(p$labels$caption, "Panels 1-6 of 9 shown (one per site); `panels` picks others.", fixed = TRUE)
  # Only the rows of the panels drawn: each drawn unit's rows, once per series (2 sensors, the
  # reference, the fused value).
  fused <- p$data[p$data$series == "NCAM fused", ]
  expect_identical(nrow(fused), sum(panel_sites$site %in% letters[1:6]))
  # The next page, by number; units by value or label, in the order given; all of them.
  expect_no_message(nxt <- ggplot2::autoplot(panel_fit, "series", newdata = panel_sites, panels = 7:9))
  expect_identical(levels(nxt$data$group), paste("site =", letters[7:9]))
  expect_match(nxt$labels$caption, "Panels 7-9 of 9 shown (one per site).", fixed = TRUE)
  picked <- ggplot2::autoplot(panel_fit, "series", newdata = panel_sites, panels = c("h", "site = b", "h"))
  expect_identical(levels(picked$data$group), paste("site =", c("h", "b")))
  expect_match(picked$labels$caption, "Panels 2, 8 of 9 shown", fixed = TRUE)
  every <- ggplot2::autoplot(panel_fit, "series", newdata = panel_sites, panels = 1:9)
  expect_identical(panel_count(every), 9L)
  expect_false(any(grepl("Panels", every$labels$caption)))
  # Up to 3 panels stand in one column, more in two.
  expect_identical(picked$facet$params$ncol, 1L)
  expect_identical(nxt$facet$params$ncol, 1L)
  expect_identical(p$facet$params$ncol, 2L)
})

test_that("scatter and coverage keep their figures over all units when they draw some", {
  p <- ggplot2::autoplot(panel_fit, "scatter", newdata = panel_sites, reference = "truth", panels = c(2, 5))
  expect_identical(levels(droplevels(p$data$group)), paste("site =", c("b", "e")))
  # Of all units' rows outside the co-location (without a reference reading in the fit).
  later <- is.na(panel_sites$ref)
  pred <- predict(panel_fit, panel_sites)
  error <- (pred$.pred - panel_sites$truth)[later]
  expect_match(p$labels$subtitle, sprintf("n = %s, bias = %.3g, RMSE = %.3g", format(sum(later), big.mark = ","),
                                          mean(error), sqrt(mean(error^2))), fixed = TRUE)
  expect_identical(nrow(p$data), sum(panel_sites$site %in% c("b", "e")))
  # Coverage of three units: a line each beside that of all rows, which counts every unit's rows.
  cov <- ggplot2::autoplot(panel_fit, "coverage", newdata = panel_sites, reference = "truth", level = 0.8,
                           panels = c("a", "i", "c"))
  points <- layer_data_of(cov, "GeomPoint")
  interval <- predict(panel_fit, panel_sites, interval = "prediction", level = 0.8)
  inside <- panel_sites$truth >= interval$.pred_lower & panel_sites$truth <= interval$.pred_upper
  expect_identical(levels(cov$data$curve), c("rows outside the co-location", paste("site =", c("a", "i", "c")),
                                             "the 540 co-location rows (ref in the fit)"))
  expected <- c(mean(inside[later]), vapply(c("a", "i", "c"), function(s) mean(inside[later & panel_sites$site == s]), 1),
                mean(inside[!later]))
  expect_equal(points$y[order(points$group)], unname(expected))
  expect_match(cov$labels$caption, "Lines 1, 3, 9 of 9 shown (one per site).", fixed = TRUE)
})

test_that("panels are drawn by default while they keep the area of a 0.7-inch square, at most 20", {
  sites <- sprintf("s%02d", 1:24)
  many <- unit_sites_data(days = 100, site_bias = stats::setNames(seq(-2, 2, length.out = 24), sites))
  many$date <- as.Date("2024-01-01") + many$day - 1
  fit <- short_fit(ncam(s1 + s2 ~ rh, many, reference = "ref", unit = "site", hidden = 4L, epochs = 3L, seed = 1,
                        threads = 1), also = "ncam_warning_clamp")
  # The 40 days after the co-location: no legend of co-location rows.
  many <- many[many$day > 60, ]
  expect_message(p <- ggplot2::autoplot(fit, "scatter", newdata = many, reference = "truth"),
                 class = "ncam_message_panels")
  shown <- levels(droplevels(p$data$group))
  k <- length(shown)
  expect_identical(shown, paste("site =", sites[seq_len(k)]))
  expect_lte(k, 20L)
  # k panels have the room, one more would not (the strips name the site and its 40 rows; the
  # figure's height less its titles, a subtitle of two lines and a caption of one).
  side <- function(n) ncam:::equal_grid(sites[seq_len(n)], 5 - 0.8 - 0.19 * 2 - 0.15, extra = "n = 40")$side
  expect_gte(side(k), 0.7)
  if (k < 20L) expect_lt(side(k + 1L), 0.7)
  expect_snapshot(writeLines(p$labels$caption))
  # Panels under an inch wide: three breaks a side (not "0102030 40").
  expect_identical(p$scales$get_scales("x")$n.breaks, 3L)
  expect_identical(p$scales$get_scales("y")$n.breaks, 3L)
  cov <- suppressMessages(ggplot2::autoplot(fit, "coverage", newdata = many, reference = "truth"))
  expect_lte(length(unique(layer_data_of(cov, "GeomPoint")$PANEL)), 20L)
  # Coverage: quarters from the first above the axis's start.
  lower <- min(0.5, cov$data$empirical)
  expect_equal(cov$scales$get_scales("x")$breaks, seq(ceiling(4 * lower) / 4, 1, by = 0.25))
  expect_match(cov$labels$caption, "of 24 shown (one per site); `panels` picks others.", fixed = TRUE)
})

test_that("fits by group pick their groups' panels, also for the training curves", {
  toy <- simulate_toy(600, seed = 31)
  toy$date <- as.Date("2024-01-01") + rep(0:199, 3)
  toy$site <- rep(c("north", "south", "west"), each = 200)
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, by = "site", anchor = "sensor_0",
                            hidden = 4, epochs = 5, seed = 3, threads = 1))
  loss <- ggplot2::autoplot(fits, panels = c("west", "north"))
  expect_identical(levels(loss$data$group), c("site = west", "site = north"))
  expect_match(loss$labels$caption, "Panels 1, 3 of 3 shown (one per site).", fixed = TRUE)
  series <- ggplot2::autoplot(fits, "series", newdata = toy, panels = 2)
  expect_identical(levels(series$data$group), "site = south")
})

test_that("`panels` that pick nothing, or no panels to pick, are errors", {
  expect_snapshot(error = TRUE, {
    ggplot2::autoplot(panel_fit, "series", newdata = panel_sites, panels = 10)
    ggplot2::autoplot(panel_fit, "scatter", newdata = panel_sites, reference = "truth", panels = c("b", "zz"))
    ggplot2::autoplot(panel_fit, "series", newdata = panel_sites, panels = NA)
    ggplot2::autoplot(panel_fit, "sensors", newdata = panel_sites, panels = 1)
  })
  one <- short_fit(ncam(s1 + s2 ~ rh, panel_sites[panel_sites$site == "a", ], reference = "ref", hidden = 4L,
                        epochs = 3L, seed = 1, threads = 1), also = "ncam_warning_clamp")
  expect_snapshot(ggplot2::autoplot(one, "series", newdata = panel_sites[panel_sites$site == "a", ], panels = 1),
                  error = TRUE)
})

test_that("the series shades each unit's co-location from the fit, with newdata holding no reference", {
  p <- ggplot2::autoplot(panel_fit, "series", newdata = panel_sites[panel_sites$site %in% c("a", "c"), c("site", "date", "rh", "s1", "s2")])
  rect <- layer_data_of(p, "GeomRect")
  expect_identical(nrow(rect), 2L)
  for (s in c("a", "c")) {
    in_panel <- rect[rect$PANEL == match(paste("site =", s), levels(p$data$group)), ]
    expect_equal(c(in_panel$xmin, in_panel$xmax),
                 as.numeric(range(panel_sites$date[panel_sites$site == s & !is.na(panel_sites$ref)])), info = s)
  }
  fill_scale <- ggplot2::ggplot_build(p)$plot$scales$get_scales("fill")
  expect_identical(c(fill_scale$get_breaks())[1], "co-location: the fit's rows with a reading of ref")
  # The later days alone: the co-location lies before them, and the caption says when it was.
  later <- ggplot2::autoplot(panel_fit, "series", newdata = panel_later[panel_later$site == "a", ])
  expect_false("GeomRect" %in% geoms_of(later))
  expect_match(gsub("\n", " ", later$labels$caption),
               "No co-location shaded: the fit's rows with a reading of ref (date 2024-01-01 to 2024-02-29) lie outside the times shown.",
               fixed = TRUE)
  # A period reaching into the times shown is cut at them: days 51 to 90 show days 51 to 60.
  cut <- ggplot2::autoplot(panel_fit, "series", newdata = panel_sites[panel_sites$site == "b" & panel_sites$day > 50, ])
  rect <- layer_data_of(cut, "GeomRect")
  expect_equal(c(rect$xmin, rect$xmax), as.numeric(as.Date("2024-01-01") + c(50, 59)) + c(-0.5, 0))
  # The fit's periods are of its `date` column: another column named by `date` shades from newdata.
  renamed <- panel_sites[panel_sites$site == "a", ]
  renamed$day_date <- renamed$date
  other <- ggplot2::autoplot(panel_fit, "series", newdata = renamed, date = "day_date")
  fill_scale <- ggplot2::ggplot_build(other)$plot$scales$get_scales("fill")
  expect_identical(c(fill_scale$get_breaks())[1], "co-location: rows with a reading of ref")
})

test_that("each group of fits by group shades its own co-location; pooled series shade from newdata", {
  d <- unit_sites_data(days = 80)
  d$date <- as.POSIXct("2024-01-01", tz = "UTC") + (d$day - 1) * 3600
  d$ref[d$site == "b" & d$day <= 20] <- NA  # b's co-location starts late
  fits <- short_fit(ncam_by(s1 + s2 ~ rh, d, by = "site", reference = "ref", hidden = 4L, epochs = 3L, seed = 1),
                    also = c("ncam_warning_clamp", "ncam_warning_two_sensors", "ncam_warning_few_readings"))
  shown <- d[d$site %in% c("a", "b"), c("site", "date", "rh", "s1", "s2")]
  p <- ggplot2::autoplot(fits, "series", newdata = shown)
  rect <- layer_data_of(p, "GeomRect")
  expect_identical(nrow(rect), 2L)
  expect_equal(rect$xmin[order(rect$PANEL)], as.numeric(as.POSIXct("2024-01-01", tz = "UTC") + c(0, 20) * 3600))
  expect_equal(rect$xmax, rep(as.numeric(as.POSIXct("2024-01-01", tz = "UTC") + 59 * 3600), 2))
  # One model of all sites without `unit`: its periods are of no one site's series.
  pooled <- short_fit(ncam(s1 + s2 ~ rh, d, reference = "ref", hidden = 4L, epochs = 3L, seed = 1, threads = 1),
                      also = c("ncam_warning_clamp", "ncam_warning_two_sensors"))
  site_b <- d[d$site == "b", ]
  from_rows <- ggplot2::autoplot(pooled, "series", newdata = site_b)
  rect <- layer_data_of(from_rows, "GeomRect")
  expect_equal(c(rect$xmin, rect$xmax), as.numeric(range(site_b$date[!is.na(site_b$ref)])))
})
