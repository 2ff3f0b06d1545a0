# sensor_performance()'s table as an ncam_performance tibble: it stays a data frame, prints a
# summary, and tidy(), glance() and autoplot() give its numbers and the targets' thresholds.

# Three sites, each beside its own reference (not co-located), hourly for 20 days.
sites_perf <- function() {
  d <- simulate_colocation(days = 20, sites = 3, colocation = 20, seed = 4)
  list(data = d, perf = suppressMessages(sensor_performance(d, "pa_a", "ref", unit = "site")))
}

# Two units beside one reference (co-located), hourly for 10 days, as in ?sensor_performance.
colocated_perf <- function() {
  set.seed(1)
  hours <- seq(as.POSIXct("2024-01-01", tz = "UTC"), by = "hour", length.out = 24 * 10)
  truth <- 8 + 4 * sin(seq_along(hours) / 10) + stats::rexp(length(hours))
  obs <- data.frame(date = rep(hours, 2), unit = rep(c("a", "b"), each = length(hours)),
                    ref = rep(truth, 2))
  obs$pm <- 1.1 * obs$ref + 0.5 + stats::rnorm(nrow(obs))
  sensor_performance(obs, estimate = "pm", reference = "ref", unit = "unit")
}

test_that("the table is a tibble of class ncam_performance that works as a data frame", {
  perf <- sites_perf()$perf
  expect_s3_class(perf, c("ncam_performance", "tbl_df", "tbl", "data.frame"), exact = TRUE)
  expect_identical(attr(perf, "pollutant"), "pm25")
  expect_identical(dim(perf), c(8L, 29L))
  # Rows subset with every column keep the class; some columns make the plain tibble.
  all_rows <- perf[perf$unit == "all", ]
  expect_s3_class(all_rows, "ncam_performance")
  expect_identical(all_rows$rmse, perf$rmse[perf$unit == "all"])
  some <- perf[perf$unit == "all", c("averaging", "rmse", "pass_error")]
  expect_s3_class(some, "tbl_df", exact = FALSE)
  expect_false(inherits(some, "ncam_performance"))
  expect_null(attr(some, "pollutant"))
  expect_output(print(some), "A tibble: 2 x 3|A tibble: 2 \u00d7 3")
  plain <- as.data.frame(perf)
  expect_identical(class(plain), "data.frame")
  expect_null(attr(plain, "pollutant"))
  expect_identical(class(tibble::as_tibble(perf)), c("tbl_df", "tbl", "data.frame"))
  expect_null(attr(tibble::as_tibble(perf), "pollutant"))
  expect_identical(plain$nrmse, perf$nrmse)
  # As the vignettes use it: columns picked for a table, rows bound across estimates.
  both <- rbind(cbind(method = "a", perf[perf$unit == "all", c("unit", "rmse")]),
                cbind(method = "b", perf[perf$unit == "all", c("unit", "rmse")]))
  expect_identical(dim(both), c(4L, 3L))
})

test_that("tidy() gives the table's numbers, with the thresholds of performance_targets()", {
  perf <- sites_perf()$perf
  long <- tidy(perf)
  expect_s3_class(long, "tbl_df")
  expect_named(long, c("unit", "averaging", "time_step", "metric", "n", "value", "value_unit",
                       "framework", "target", "lower", "upper", "within", "pass"))
  # 9 metrics per unit row, 14 on each "all" row (inter-unit precision, between-sampler).
  expect_identical(nrow(long), 6L * 9L + 2L * 14L)
  for (k in seq_len(nrow(long))) {
    row <- perf[perf$unit == long$unit[k] & perf$averaging == long$averaging[k], ]
    expect_identical(long$value[k], row[[long$metric[k]]])
    count <- switch(long$metric[k], sd = , cv = "n_precision",
                    between_sampler_uncertainty = , between_sampler_uncertainty_below = ,
                    between_sampler_uncertainty_above = "n_between_sampler", "n")
    expect_identical(long$n[k], row[[count]])
    if (!is.na(long$target[k])) expect_identical(long$pass[k], row[[paste0("pass_", long$target[k])]])
  }
  targets <- performance_targets()
  daily <- long[long$averaging == "24h" & !is.na(long$target), ]
  at <- match(ifelse(daily$metric %in% c("rmse", "nrmse", "sd", "cv"), daily$metric,
                     sub("_(below|above)$", "", daily$metric)),
              targets$metric[targets$pollutant == "pm25"])
  pm25 <- targets[targets$pollutant == "pm25", ]
  expect_identical(daily$lower, pm25$lower[at])
  expect_identical(daily$upper, pm25$upper[at])
  expect_identical(daily$framework, pm25$framework[at])
  expect_identical(sort(unique(daily$metric)),
                   sort(c("r2", "slope", "intercept", "rmse", "nrmse", "sd", "cv", "expanded_uncertainty",
                          "between_sampler_uncertainty", "between_sampler_uncertainty_below",
                          "between_sampler_uncertainty_above")))
  # Hourly rows: PM2.5 targets are set on 24-hour values, so none applies.
  expect_true(all(is.na(long$target[long$averaging == "as_given"])))
  expect_true(all(is.na(long$pass[long$averaging == "as_given"])))
  # `within` is the metric alone in its range where the target is judged.
  judged <- !is.na(daily$pass)
  expect_identical(daily$within[judged],
                   daily$value[judged] >= daily$lower[judged] & daily$value[judged] <= daily$upper[judged])
  expect_true(all(is.na(daily$within[!judged])))
  expect_identical(unique(long$value_unit[long$metric %in% c("rmse", "intercept", "mbe")]), "ug/m3")
  expect_identical(unique(long$value_unit[long$metric %in% c("nrmse", "expanded_uncertainty")]), "%")
})

test_that("tidy()'s 24-hour and hourly metrics match a computation by hand with lm()", {
  both <- sites_perf()
  d <- both$data
  long <- tidy(both$perf)
  value <- function(unit, averaging, metric) {
    long$value[long$unit == unit & long$averaging == averaging & long$metric == metric]
  }
  # 24-hour means of the hours (UTC days), each counting with 18 of its 24 hours.
  day <- as.Date(d$date)
  daily <- function(v) {
    tapply(v, list(d$site, day), function(x) if (sum(!is.na(x)) >= 18) mean(x, na.rm = TRUE) else NA)
  }
  est <- daily(d$pa_a)
  ref <- daily(d$ref)
  pooled <- c()
  for (s in rownames(est)) {
    ok <- !is.na(est[s, ]) & !is.na(ref[s, ])
    e <- est[s, ok]
    r <- ref[s, ok]
    fit <- stats::lm(e ~ r)
    expect_equal(value(s, "24h", "slope"), unname(stats::coef(fit)[2]), tolerance = 1e-10)
    expect_equal(value(s, "24h", "intercept"), unname(stats::coef(fit)[1]), tolerance = 1e-10)
    expect_equal(value(s, "24h", "r2"), summary(fit)$r.squared, tolerance = 1e-10)
    expect_equal(value(s, "24h", "rmse"), sqrt(mean((e - r)^2)), tolerance = 1e-10)
    expect_equal(value(s, "24h", "mbe"), mean(e - r), tolerance = 1e-10)
    pooled <- c(pooled, e - r)
    # The rows as given: the hourly pairs.
    hourly <- d[d$site == s & !is.na(d$pa_a) & !is.na(d$ref), ]
    hourly_fit <- stats::lm(pa_a ~ ref, data = hourly)
    expect_equal(value(s, "as_given", "slope"), unname(stats::coef(hourly_fit)[2]), tolerance = 1e-10)
    expect_equal(value(s, "as_given", "nrmse"),
                 100 * sqrt(mean((hourly$pa_a - hourly$ref)^2)) / mean(hourly$ref), tolerance = 1e-10)
  }
  # The sites are not co-located: the "all" row pools their days for RMSE, and its slope is
  # the mean of theirs.
  expect_match(both$perf$note[both$perf$unit == "all" & both$perf$averaging == "24h"], "not co-located")
  expect_equal(value("all", "24h", "rmse"), sqrt(mean(pooled^2)), tolerance = 1e-10)
  expect_equal(value("all", "24h", "slope"), mean(sapply(rownames(est), value, "24h", "slope")),
               tolerance = 1e-10)
  slope <- performance_targets()
  slope <- slope[slope$pollutant == "pm25" & slope$metric == "slope", ]
  slopes <- sapply(rownames(est), value, "24h", "slope")
  expect_identical(unname(long$pass[long$averaging == "24h" & long$metric == "slope" & long$unit != "all"]),
                   unname(slopes >= slope$lower & slopes <= slope$upper))
})

test_that("glance() gives the rows 'all', one per averaging, with the verdicts by framework", {
  perf <- colocated_perf()
  g <- glance(perf)
  all_rows <- perf[perf$unit == "all", ]
  expect_identical(g$averaging, c("as_given", "24h"))
  expect_identical(g$n_units, c(2L, 2L))
  for (column in c("time_step", "n", "r2", "slope", "intercept", "rmse", "nrmse", "mbe", "sd", "cv",
                   "expanded_uncertainty", "limit_value", "between_sampler_uncertainty")) {
    expect_identical(g[[column]], all_rows[[column]])
  }
  epa <- unlist(all_rows[2, c("pass_r2", "pass_slope", "pass_intercept", "pass_error", "pass_precision")])
  eu <- unlist(all_rows[2, c("pass_expanded_uncertainty", "pass_between_sampler_uncertainty")])
  expect_identical(g$pass_epa, c(NA, all(epa, na.rm = TRUE)))
  expect_identical(g$pass_eu, c(NA, if (all(is.na(eu))) NA else all(eu, na.rm = TRUE)))
  one <- suppressMessages(sensor_performance(sites_perf()$data[1:480, ], "pa_a", "ref"))
  expect_identical(glance(one)$n_units, c(1L, 1L))
})

test_that("print() summarises each averaging with its verdicts and the notes in full", {
  expect_snapshot(print(sites_perf()$perf))
  expect_snapshot(print(colocated_perf()))
  withr::local_options(width = 100)
  out <- capture.output(print(colocated_perf()))
  expect_lte(max(nchar(out, type = "width")), 100L)
  # Every note is printed whole.
  perf <- sites_perf()$perf
  printed <- paste(capture.output(print(perf)), collapse = " ")
  printed <- gsub("\\s+", " ", printed)
  for (part in unique(unlist(strsplit(stats::na.omit(perf$note), "; ", fixed = TRUE)))) {
    expect_true(grepl(part, printed, fixed = TRUE), label = part)
  }
  expect_invisible(print(perf))
})

test_that("the methods refuse a table lacking the columns they read", {
  perf <- colocated_perf()
  renamed <- perf
  names(renamed)[names(renamed) == "rmse"] <- "RMSE"
  expect_error(tidy(renamed), class = "ncam_error", regexp = "lacks column")
  expect_error(glance(renamed), class = "ncam_error", regexp = "lacks column")
  expect_output(print(renamed), "A tibble")
  expect_error(tidy(perf, type = "x"), class = "ncam_error")
})

test_that("autoplot() draws each judged metric against its target's range", {
  skip_if_not_installed("ggplot2")
  perf <- colocated_perf()
  p <- ggplot2::autoplot(perf)
  expect_s3_class(ggplot2::ggplot_build(p), "ggplot_built")
  long <- tidy(perf)
  shown <- long[!is.na(long$target) & !is.na(long$value), ]
  # The 24-hour rows only: the targets of PM2.5 are set on them.
  expect_identical(unique(shown$averaging), "24h")
  points <- layer_data_of(p, "GeomPoint")
  expect_identical(nrow(points), nrow(shown))
  expect_setequal(unique(points$colour), c("#009E73", "#D55E00", "grey55")[
    c(any(shown$within, na.rm = TRUE), any(!shown$within, na.rm = TRUE), anyNA(shown$within))])
  bands <- layer_data_of(p, "GeomRect")
  expect_identical(nrow(bands), length(unique(shown$metric)))
  expect_identical(length(unique(points$PANEL)), length(unique(shown$metric)))
  # Hourly PM2.5 rows alone: no target applies, nothing to draw.
  hourly <- suppressMessages(sensor_performance(sites_perf()$data, "pa_a", "ref", unit = "site",
                                                averaging = "as_given"))
  expect_error(ggplot2::autoplot(hourly), class = "ncam_error", regexp = "24-hour")
})

test_that("autoplot() draws in a PDF device without warnings, whatever the console shows", {
  skip_if_not_installed("ggplot2")
  # A console that shows Unicode (print() then writes "R\u00b2" and "\u2265"): the figure keeps to
  # ASCII, which every device draws (pdf() warned "conversion failure" for each sign).
  local_reproducible_output(unicode = TRUE)
  expect_true(cli::is_utf8_output())
  perf <- colocated_perf()
  p <- ggplot2::autoplot(perf)
  built <- ggplot2::ggplot_build(p)
  text <- c(levels(built$plot$data$panel), p$labels$title, p$labels$subtitle, p$labels$caption)
  expect_identical(grep("[^ -~\n]", text, value = TRUE), character())
  expect_true(any(grepl("R-squared\n>= 0.7", levels(built$plot$data$panel), fixed = TRUE)))
  path <- tempfile(fileext = ".pdf")
  grDevices::pdf(path)
  expect_no_warning(print(p))
  grDevices::dev.off()
  expect_gt(file.size(path), 0)
  unlink(path)
})

test_that("autoplot() builds on the PurpleAir and Toucan data", {
  skip_if_not_installed("ggplot2")
  pa_path <- file.path(shared_data("purpleair-aqs-daily-mathieu"),
                       "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv")
  toucan_path <- file.path(shared_data("epa-sensortoolkit-toucan"), "toucan_hourly_merged.csv")
  skip_if_not(file.exists(pa_path) && file.exists(toucan_path), "shared data not found")
  pa <- read_purpleair_aqs(pa_path)
  pa$epa <- 0.524 * (pa$pa_a + pa$pa_b) / 2 - 0.0862 * pa$rh + 5.75
  pa_perf <- suppressMessages(sensor_performance(pa, "epa", "ref", unit = "site"))
  p <- ggplot2::autoplot(pa_perf)
  expect_s3_class(ggplot2::ggplot_build(p), "ggplot_built")
  # One row of panels, so that 18 sites have room for their labels.
  expect_identical(nrow(unique(ggplot2::ggplot_build(p)$layout$layout["ROW"])), 1L)
  tc <- read_toucan(toucan_path)
  long <- do.call(rbind, lapply(c("rt01", "rt02", "rt03"), function(u) {
    data.frame(date = tc$date, unit = u, pm = tc[[u]], ref = tc$ref)
  }))
  tc_perf <- suppressMessages(sensor_performance(long, "pm", "ref", unit = "unit"))
  tp <- ggplot2::autoplot(tc_perf)
  expect_s3_class(ggplot2::ggplot_build(tp), "ggplot_built")
  shown <- tidy(tc_perf)
  expect_identical(nrow(layer_data_of(tp, "GeomPoint")), sum(!is.na(shown$target) & !is.na(shown$value)))
})

test_that("print() shows the first n units, and says how many it leaves out", {
  perf <- sites_perf()$perf
  out <- capture.output(print(perf, n = 2))
  expect_length(grep("^3 ", out), 0L)
  expect_length(grep("^all ", out), 2L)
  expect_true(any(grepl("1 more unit, and its notes, not shown", out, fixed = TRUE)))
  expect_identical(capture.output(print(perf, n = Inf)), capture.output(print(perf)))
  expect_error(print(perf, n = 0), class = "ncam_error")
})
