# sensor_drift(): the leave-one-sensor-out comparison against dense Gaussian conditioning, the
# per-period aggregation against a hand computation, detection of an injected drift, and its
# input checks.

daily_toy <- function(n = 720, seed = 3) {
  toy <- simulate_toy(n = n, seed = seed)
  toy$date <- as.Date("2024-01-01") + seq_len(n) - 1
  toy
}
# The variance between periods by hand, from each unit's period means in time order (a list)
# and the noise variance of each mean (a list alike): the scale of one mean from capped squared
# differences of consecutive means, stretches cut by recursive binary segmentation, the spread
# within stretches beyond the noise. Returns between, df and the stretch lengths.
between_by_hand <- function(means, noise) {
  steps2 <- unlist(lapply(means, diff))^2
  q99 <- qchisq(0.99, 1)
  cap_mean <- integrate(function(x) x * dchisq(x, 1), 0, q99, rel.tol = 1e-12)$value + q99 * 0.01
  scale <- mean(pmin(steps2, q99 * median(steps2) / qchisq(0.5, 1))) / cap_mean / 2
  cut_up <- function(x) {
    L <- length(x)
    if (L == 1) return(1)
    z2 <- sapply(1:(L - 1), function(k) k * (L - k) / L * (mean(x[1:k]) - mean(x[(k + 1):L]))^2 / scale)
    k <- which.max(z2)
    if (z2[k] <= qchisq(1 - 0.05 / (L - 1), 1)) return(L)
    c(cut_up(x[1:k]), cut_up(x[(k + 1):L]))
  }
  lengths <- lapply(means, cut_up)
  excess <- 0
  for (u in seq_along(means)) {
    stretch <- rep(seq_along(lengths[[u]]), lengths[[u]])
    L <- lengths[[u]][stretch]
    excess <- excess + sum((means[[u]] - ave(means[[u]], stretch))^2 - noise[[u]] * (L - 1) / L)
  }
  df <- sum(lengths(means)) - length(unlist(lengths))
  list(between = max(0, excess / df), df = df, lengths = lengths)
}
drift_fit <- function(data) {
  suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = data, hidden = 8, epochs = 200,
                        learn_rate = 0.02, seed = 1, threads = 1),
                   classes = c("ncam_warning_not_converged", "ncam_warning_clamp"))
}

test_that("each reading is compared with its conditional distribution given the other sensors", {
  toy <- daily_toy(400)
  fit <- drift_fit(toy)
  rows <- toy[c(5, 17, 40, 41), ]
  rows$sensor_1[2] <- NA  # a row with two sensors: each is predicted from the other alone
  post <- ncam:::ncam_posterior(fit, rows)
  loo <- ncam:::leave_one_sensor_out(post, block_rows = 3L)  # rows compared in two blocks
  expect_identical(ncam:::leave_one_sensor_out(post), loo)
  params <- sensor_params(fit, rows)
  sensors <- c("sensor_0", "sensor_1", "sensor_2")
  for (i in seq_len(nrow(rows))) {
    p <- params[params$.row == i, ]
    b <- unlist(rows[i, sensors])
    seen <- which(!is.na(b))
    mean_b <- p$a * post$mu0[i] + p$c
    cov_b <- post$s0_2[i] * tcrossprod(p$a) + diag(p$sigma^2)
    for (j in seen) {
      others <- setdiff(seen, j)
      weights <- solve(cov_b[others, others], cov_b[others, j])
      cond_mean <- mean_b[j] + sum(weights * (b[others] - mean_b[others]))
      cond_var <- cov_b[j, j] - sum(weights * cov_b[others, j])
      theta_mean <- post$mu0[i] + post$s0_2[i] *
        sum(p$a[others] * solve(cov_b[others, others], b[others] - mean_b[others]))
      expect_equal(unname(loo$z[i, j]), unname((b[j] - cond_mean) / sqrt(cond_var)), tolerance = 1e-8)
      expect_equal(unname(loo$shift[i, j]), unname((b[j] - p$c[j]) / p$a[j] - theta_mean), tolerance = 1e-8)
    }
    expect_true(all(is.na(loo$z[i, is.na(b)])))
  }
})

test_that("periods aggregate z with within- and between-period variance, a t test beyond the tolerance and Holm flags", {
  toy <- daily_toy(400)
  fit <- drift_fit(toy)
  # sensor_1 after the fit: a slow wave (variation between periods) and a step (a drift).
  toy$sensor_1 <- toy$sensor_1 + 4 * sin(2 * pi * as.numeric(toy$date) / 120) + 8 * (toy$date >= as.Date("2024-08-01"))
  toy$sensor_2[c(3, 50)] <- NA
  toy$x1[10] <- NA  # no estimate: the row does not count for any sensor
  toy$sensor_0[20] <- toy$sensor_1[20] <- NA  # sensor_2 alone: nothing to compare it with
  drift <- sensor_drift(fit, toy, period = "month")
  z <- ncam:::leave_one_sensor_out(ncam:::ncam_posterior(fit, toy))$z
  month <- format(toy$date, "%Y-%m")
  # By hand for sensor_1, one unit, rows already in time order.
  ok <- !is.na(z[, "sensor_1"])
  z1 <- z[ok, "sensor_1"]
  m1 <- month[ok]
  centred <- z1 - ave(z1, m1)
  lag_products <- 0
  for (t in seq_along(z1)[-1]) if (m1[t] == m1[t - 1]) lag_products <- lag_products + centred[t] * centred[t - 1]
  rho <- max(0, lag_products / sum(centred^2))
  within <- sum(centred^2) / (length(z1) - length(unique(m1))) * (1 + rho) / (1 - rho)
  n <- as.vector(table(m1))
  means <- as.vector(tapply(z1, m1, mean))
  hand <- between_by_hand(list(means), list(within / n))
  expect_equal(hand$lengths[[1]][1], 7)  # the step at August is found (and maybe others)
  expect_gt(hand$between, 0)
  got <- drift[drift$sensor == "sensor_1", ]
  expect_equal(got$period, as.Date(paste0(unique(month), "-01")))
  expect_equal(got$n, n)
  expect_equal(got$mean_z, means)
  expect_equal(got$std_error, sqrt(hand$between + within / n))
  df <- hand$df
  far <- abs(means) / got$std_error
  edge <- 0.1 / got$std_error
  expect_equal(got$p_value, pmin(1, pt(edge - far, df) + pt(-edge - far, df)))
  expect_equal(drift$drift, p.adjust(drift$p_value, "holm") < 0.01)
  expect_equal(drift$n[drift$sensor == "sensor_2"][1], 31L - 3L)  # rows 3, 10, 20 of January
  expect_equal(nrow(drift), 3L * length(unique(month)))
  # tolerance = 0 is the plain two-sided t test.
  plain <- sensor_drift(fit, toy, period = "month", tolerance = 0)
  expect_equal(plain$p_value[plain$sensor == "sensor_1"], 2 * pt(-far, df))
})

test_that("a unit's periods are cut into stretches at steps beyond the corrected 95 % quantile, and nowhere else", {
  x <- c(0.1, -0.2, 0.05, 0, 4.1, 3.9, 4.2, 4, 3.8, 0.2, -0.1, 0)  # up after 4 periods, back after 9
  expect_equal(ncam:::step_stretches(x, mean_variance = 0.04), rep(c(1L, 5L, 10L), c(4, 5, 3)))
  expect_equal(ncam:::step_stretches(x[1:4], mean_variance = 0.04), rep(1L, 4))
  # Two periods: cut where (difference)^2 / 2 exceeds the 95 % quantile of chi-square(1), 3.84.
  edge <- sqrt(2 * qchisq(0.95, 1))
  expect_equal(ncam:::step_stretches(c(0, edge - 0.01), mean_variance = 1), c(1L, 1L))
  expect_equal(ncam:::step_stretches(c(0, edge + 0.01), mean_variance = 1), c(1L, 2L))
  # Four periods with a step: 3 pairs of consecutive periods, but only 2 within stretches: no test.
  expect_equal(ncam:::between_periods(c(0, 0.1, 5, 5.1), rep(1L, 4), rep(30L, 4), 1), list(between = NA_real_, df = NA_real_))
  expect_equal(ncam:::between_periods(c(0, 0.1, 0.3, 0.2), rep(1L, 4), rep(30L, 4), 1)$df, 3)
})

test_that("a sensor that starts reading high is flagged there, and the largest mean_z is its own", {
  toy <- daily_toy(720)
  fit <- drift_fit(toy[1:360, ])
  clean <- sensor_drift(fit, toy, period = "quarter")
  expect_false(any(clean$drift))
  clean_months <- sensor_drift(fit, toy, period = "month")
  later <- toy$date >= as.Date("2025-01-01")
  toy$sensor_2[later] <- toy$sensor_2[later] + 8
  drift <- sensor_drift(fit, toy, period = "quarter")
  # The step is cut out of the variation between periods: sensor_2's std_error by month hardly
  # moves (the capped differences of consecutive months let it grow by 12 to 18 % here).
  months <- sensor_drift(fit, toy, period = "month")
  own_month <- months$sensor == "sensor_2"
  expect_equal(months$std_error[own_month], clean_months$std_error[own_month], tolerance = 0.01)
  own <- drift[drift$sensor == "sensor_2", ]
  expect_true(all(own$drift[own$period >= as.Date("2025-01-01")]))
  expect_false(any(drift$drift[drift$period < as.Date("2025-01-01")]))
  after <- drift[drift$period >= as.Date("2025-01-01"), ]
  largest <- tapply(seq_len(nrow(after)), after$period, function(i) after$sensor[i][which.max(abs(after$mean_z[i]))])
  expect_true(all(largest == "sensor_2"))
  expect_true(all(own$shift[own$period >= as.Date("2025-01-01")] > 3))
})

test_that("units are checked separately and keep their values; POSIXct periods follow the zone", {
  toy <- daily_toy(400)
  fit <- drift_fit(toy)
  toy$site <- factor(rep(c("north", "south"), each = 200), levels = c("south", "north"))
  drift <- sensor_drift(fit, toy, unit = "site", period = "quarter")
  expect_s3_class(drift$site, "factor")
  expect_equal(levels(drift$site), c("south", "north"))
  expect_equal(sum(drift$n[drift$site == "north" & drift$sensor == "sensor_0"]), 200L)
  # One unit of three quarters has 2 pairs of consecutive quarters: too few to test, pooled 4.
  expect_warning(one <- sensor_drift(fit, toy[toy$site == "north", ], period = "quarter"),
                 class = "ncam_warning_few_periods")
  expect_equal(drift$mean_z[drift$site == "north"], one$mean_z)
  toy$date <- as.POSIXct(paste(toy$date, "23:30"), tz = "America/New_York")
  hourly <- sensor_drift(fit, toy, period = "month")
  expect_equal(attr(hourly$period, "tzone"), "America/New_York")
  expect_equal(format(hourly$period[1], "%Y-%m-%d %H:%M"), "2024-01-01 00:00")
})

test_that("the reference is checked when newdata holds it, and only then", {
  fit <- suppressWarnings(ncam(pa_a + pa_b + opc ~ rh + temperature, data = colocation, reference = "ref",
                               hidden = 8, epochs = 30, seed = 1, threads = 1),
                          classes = "ncam_warning_not_converged")
  with_ref <- sensor_drift(fit, colocation, period = "week")
  without <- sensor_drift(fit, colocation[setdiff(names(colocation), "ref")], period = "week")
  expect_equal(unique(with_ref$sensor), c("pa_a", "pa_b", "opc", "ref"))
  expect_equal(unique(without$sensor), c("pa_a", "pa_b", "opc"))
  expect_equal(sum(with_ref$n[with_ref$sensor == "ref"]), sum(!is.na(colocation$ref)))
  # The reference's z: the reference against the estimate from the low-cost sensors alone.
  post <- ncam:::ncam_posterior(fit, colocation, use_reference = TRUE)
  est <- suppressWarnings(predict(fit, colocation, interval = "prediction", level = 0.9),
                          classes = "ncam_warning_extrapolation")
  z_ref <- ncam:::leave_one_sensor_out(post)$z[, "ref"]
  pred_sd <- (est$.pred_upper - est$.pred_lower) / (2 * qnorm(0.95))
  expect_equal(z_ref, (colocation$ref - est$.pred) / pred_sd, tolerance = 1e-8)
})

test_that("bad input gets errors that name the argument and column", {
  toy <- daily_toy(100)
  fit <- drift_fit(toy)
  expect_error(sensor_drift(lm(sensor_0 ~ x1, toy), toy), "fitted by")
  expect_error(sensor_drift(fit, toy, date = "when"), "when")
  expect_error(sensor_drift(fit, transform(toy, date = as.character(date))), "POSIXct or Date")
  bad_date <- toy
  bad_date$date[7] <- NA
  expect_error(sensor_drift(fit, bad_date), "row 7")
  expect_error(sensor_drift(fit, toy, period = "fortnight"), "period")
  expect_error(sensor_drift(fit, toy, period = c("week", "month")), "period")
  expect_error(sensor_drift(fit, toy, unit = "site"), "site")
  toy$site <- c(NA, rep("a", 99))
  expect_error(sensor_drift(fit, toy, unit = "site"), "row 1")
  expect_error(sensor_drift(fit, toy, alpha = 2), "alpha")
  expect_error(sensor_drift(fit, toy[setdiff(names(toy), "sensor_2")]), "sensor_2")
  # Two columns of one name: the hint's code names the argument that holds them, `newdata`, for
  # the date column as for the others (it said `data[!duplicated(names(data))]` for the date).
  toy$site <- "a"
  fix <- "Keep one column of each name (e.g. with `newdata[!duplicated(names(newdata))]`)."
  flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
  for (column in c("date", "site", "sensor_1")) {
    twice <- cbind(toy, toy[column])
    text <- flat(expect_error(sensor_drift(fit, twice, unit = "site"), class = "ncam_error"))
    expect_match(text, paste0("Column ", column, " appears more than once in the data."), fixed = TRUE)
    expect_match(text, fix, fixed = TRUE)
  }
})

test_that("autoplot draws one panel per unit", {
  skip_if_not_installed("ggplot2")
  toy <- daily_toy(400)
  fit <- drift_fit(toy)
  toy$site <- rep(c("north", "south"), each = 200)
  p <- ggplot2::autoplot(sensor_drift(fit, toy, unit = "site"))
  expect_s3_class(p, "ggplot")
  built <- ggplot2::ggplot_build(p)
  expect_equal(length(unique(built$layout$layout$PANEL)), 2L)
  # Panels and colours as in the other pictures: "site = north", sensors in Okabe-Ito order.
  expect_identical(levels(built$layout$layout$unit_panel), c("site = north", "site = south"))
  colour <- built$plot$scales$get_scales("colour")
  expect_identical(unname(colour$map(c("sensor_0", "sensor_1", "sensor_2"))), c("#0072B2", "#D55E00", "#009E73"))
  empty <- sensor_drift(fit, toy[0, ])
  expect_equal(nrow(empty), 0L)
  expect_named(empty, c("sensor", "period", "n", "shift", "mean_z", "std_error", "p_value", "drift"))
  expect_identical(vapply(empty[c("shift", "mean_z", "std_error", "p_value")], typeof, ""),
                   c(shift = "double", mean_z = "double", std_error = "double", p_value = "double"))
  expect_error(ggplot2::autoplot(empty), "no rows")
})

test_that("periods too short to hold 3 readings warn; untested periods are drawn as such", {
  toy <- daily_toy(400)
  fit <- drift_fit(toy)
  expect_warning(short <- sensor_drift(fit, toy, period = "1 day"),
                 "No period \\(\"1 day\"\\) holds 3 or more readings of sensor_0, sensor_1, and sensor_2",
                 class = "ncam_warning_few_periods")
  expect_true(all(short$n == 1L) && all(is.na(short$drift)))
  skip_if_not_installed("ggplot2")
  points <- ggplot2::ggplot_build(ggplot2::autoplot(short))$data[[3]]
  expect_true(all(points$shape == 1))
  # Two sensors tested, one with too few periods: each drawn as what it is.
  toy$sensor_2[toy$date >= as.Date("2024-01-20")] <- NA
  expect_warning(mixed <- sensor_drift(fit, toy, period = "week"), "Too few periods to test sensor_2",
                 class = "ncam_warning_few_periods")
  plot <- ggplot2::autoplot(mixed)
  shapes <- ggplot2::ggplot_build(plot)$data[[3]]$shape
  expect_equal(sort(unique(shapes[!is.na(mixed$drift)])), 16)
  expect_equal(unique(shapes[is.na(mixed$drift)]), 1)
  expect_match(gsub("\n", " ", plot$labels$subtitle), "open circles: not tested")  # wrapped at 7 inches
})

test_that("a grouped tibble without unit is an error naming its groups", {
  toy <- daily_toy(400)
  fit <- drift_fit(toy)
  toy$site <- rep(c("north", "south"), each = 200)
  # A grouped tibble as dplyr::group_by(toy, site) makes it (dplyr is not among the package's
  # dependencies): class grouped_df, the groups in attribute "groups".
  grouped <- tibble::as_tibble(toy)
  attr(grouped, "groups") <- tibble::new_tibble(list(site = c("north", "south"), .rows = list(1:200, 201:400)), nrow = 2L)
  class(grouped) <- c("grouped_df", class(grouped))
  expect_error(sensor_drift(fit, grouped), "grouped by site.*unit = \"site\"")
  expect_equal(sensor_drift(fit, grouped, unit = "site"), sensor_drift(fit, toy, unit = "site"))
})

test_that("the drift plot's axis names the unit of the shift when the fit knows it", {
  skip_if_not_installed("ggplot2")
  skip_if_not_installed("units")
  toy <- daily_toy(400)
  expect_identical(ggplot2::autoplot(sensor_drift(drift_fit(toy), toy))$labels$y, "Shift (units of the fused value)")
  for (v in c("sensor_0", "sensor_1", "sensor_2")) toy[[v]] <- units::set_units(toy[[v]], "ug/m3", mode = "standard")
  drift <- sensor_drift(drift_fit(toy), toy)
  expect_identical(ggplot2::autoplot(drift)$labels$y, "Shift (ug/m3)")
  expect_identical(ggplot2::autoplot(drift[drift$sensor == "sensor_1", ])$labels$y, "Shift (ug/m3)")
})

test_that("autoplot of a drift table subset or renamed names the columns it lacks", {
  skip_if_not_installed("ggplot2")
  toy <- daily_toy(400)
  drift <- sensor_drift(drift_fit(toy), toy)
  subset <- drift[c("sensor", "period", "mean_z")]
  expect_s3_class(subset, "ncam_drift")
  expect_error(ggplot2::autoplot(subset), "`object` lacks columns shift and drift, which the drift plot needs")
  renamed <- drift
  names(renamed)[names(renamed) == "period"] <- "when"
  expect_error(ggplot2::autoplot(renamed), "`object` lacks column period")
})

test_that("the plot's lines break where a period has no rows, and only there", {
  skip_if_not_installed("ggplot2")
  toy <- daily_toy(400)
  fit <- drift_fit(toy)
  # Weeks 3 and 4 of 2024 without rows; every other period (also Feb 2024, 29 days) has rows.
  gappy <- toy[!toy$date %in% (as.Date("2024-01-15") + 0:13), ]
  line_groups <- function(period) {
    built <- ggplot2::ggplot_build(ggplot2::autoplot(sensor_drift(fit, gappy, period = period)))
    length(unique(built$data[[2]]$group))
  }
  expect_equal(line_groups("week"), 3L * 2L)  # three sensors, each line broken once
  expect_equal(line_groups("month"), 3L)      # no month is empty: one line per sensor
  no_june <- toy[format(toy$date, "%Y-%m") != "2024-06", ]
  built <- ggplot2::ggplot_build(ggplot2::autoplot(sensor_drift(fit, no_june, period = "month")))
  expect_equal(length(unique(built$data[[2]]$group)), 3L * 2L)
  # A week alone between two gaps is a point without a line, and ggplot2 has nothing to say.
  isolated <- toy[!toy$date %in% (as.Date("2024-01-15") + c(0:13, 21:34)), ]
  expect_silent(built <- ggplot2::ggplot_build(ggplot2::autoplot(sensor_drift(fit, isolated, period = "week"))))
  expect_equal(length(unique(built$data[[2]]$group)), 3L * 2L)
  expect_true(as.numeric(as.Date("2024-01-29")) %in% built$data[[3]]$x)
  expect_false(as.numeric(as.Date("2024-01-29")) %in% built$data[[2]]$x)
  expect_identical(ncam:::longest_period("2 weeks"), 14 * 86400 + 3600)
  expect_identical(ncam:::longest_period("30 min"), 1800)
})

test_that("fits by group check each group's rows against its own model", {
  toy <- daily_toy(600)
  toy$site <- rep(c("north", "south"), each = 300)
  fits <- suppressWarnings(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, by = "site", hidden = 8,
                                   epochs = 200, learn_rate = 0.02, seed = 1, threads = 1),
                           classes = c("ncam_warning_not_converged", "ncam_warning_clamp"))
  drift <- sensor_drift(fits, toy, period = "quarter")
  expect_named(drift, c("site", "sensor", "period", "n", "shift", "mean_z", "std_error", "p_value", "drift"))
  for (g in c("north", "south")) {
    one <- sensor_drift(fits$fit[[match(g, fits$site)]], toy[toy$site == g, ], period = "quarter")
    expect_equal(drift$mean_z[drift$site == g], one$mean_z)
    expect_equal(drift$p_value[drift$site == g], one$p_value)
  }
  expect_equal(drift$drift, p.adjust(drift$p_value, "holm") < 0.01)
  expect_error(sensor_drift(fits, toy, unit = "site"), "NULL")
  expect_error(sensor_drift(fits), "newdata")
  toy$n <- 1
  fit <- drift_fit(toy)
  expect_error(sensor_drift(fit, toy, unit = "n"), "name of a column of the result")
})

test_that("periods follow the local calendar across clock changes", {
  spring <- as.POSIXct("2024-03-30 00:00", tz = "Europe/Berlin") + 3600 * (0:70)
  starts <- ncam:::drift_periods(spring, "day")
  expect_equal(format(unique(starts), "%Y-%m-%d %H:%M"), c("2024-03-30 00:00", "2024-03-31 00:00", "2024-04-01 00:00"))
  expect_equal(as.vector(table(factor(format(starts, "%d"), c("30", "31", "01")))), c(24L, 23L, 24L))  # the short day of the change
  weeks <- ncam:::drift_periods(spring, "week")
  expect_equal(format(unique(weeks), "%Y-%m-%d %H:%M %Z"), c("2024-03-25 00:00 CET", "2024-04-01 00:00 CEST"))
  autumn <- as.POSIXct("2024-10-27 00:00", tz = "Europe/Berlin") + 3600 * (0:5)
  expect_length(unique(ncam:::drift_periods(autumn, "1 hour")), 6L)  # both 02:00 hours
  days <- as.Date("2024-01-01") + 0:40
  # Two-week periods counted from Monday 1970-01-05.
  expect_equal(unique(ncam:::drift_periods(days, "2 weeks")), as.Date(c("2023-12-25", "2024-01-08", "2024-01-22", "2024-02-05")))
  expect_error(ncam:::drift_periods(days, "1 hour"), "whole days")
  expect_error(ncam:::drift_periods(days, "1.5 month"), "period")
  expect_error(ncam:::drift_periods(days, "0 weeks"), "period")
  # Multiples count from a fixed origin, not from the data's first date.
  expect_equal(ncam:::drift_periods(days[-(1:7)], "2 weeks"), ncam:::drift_periods(days, "2 weeks")[-(1:7)])
  months <- as.Date(c("2023-12-31", "2024-01-15", "2024-02-01", "2024-03-31", "2024-04-01"))
  expect_equal(ncam:::drift_periods(months, "2 months"), as.Date(c("2023-11-01", "2024-01-01", "2024-01-01", "2024-03-01", "2024-03-01")))
  expect_equal(ncam:::drift_periods(months, "quarter"), as.Date(c("2023-10-01", "2024-01-01", "2024-01-01", "2024-01-01", "2024-04-01")))
})

test_that("periods of a network's rows (times repeated, out of order) are those of each row's local date", {
  zone <- "Europe/Berlin"
  times <- as.POSIXct("2024-03-29 22:00", tz = zone) + 1800 * (0:200)
  set.seed(4)
  time <- sample(rep(times, 3))  # three units at the same times, rows shuffled
  by_row <- function(pattern) as.POSIXct(format(time, pattern, tz = zone), tz = zone)
  expect_identical(ncam:::drift_periods(time, "day"), by_row("%Y-%m-%d"))
  expect_identical(ncam:::drift_periods(time, "month"), by_row("%Y-%m-01"))
  monday <- as.Date(format(time, "%Y-%m-%d", tz = zone)) - (as.POSIXlt(time, tz = zone)$wday + 6) %% 7
  expect_identical(ncam:::drift_periods(time, "week"), as.POSIXct(format(monday), tz = zone))
})

test_that("lag-1 products without ties are the products of consecutive readings of a cell", {
  x <- c(0.5, -1.2, 2.0, 0.3, -0.7, 1.1)
  cell <- c(3L, 3L, 3L, 1L, 1L, 2L)
  lags <- ncam:::tie_lag_products(x, cell, time = c(1, 2, 3, 1, 2, 1))
  expect_identical(lags$products, c(0.5 * -1.2, -1.2 * 2.0, 0, 0.3 * -0.7, 0, 0))
  expect_identical(lags$first, 1:6)
})

test_that("fits by group: no rows give an empty table, rows of no group are left unchecked with a warning", {
  toy <- daily_toy(400)
  toy$site <- rep(c("north", "south"), each = 200)
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy[toy$site == "north", ], by = "site",
                            hidden = 4, epochs = 20, seed = 1, threads = 1), also = "ncam_warning_clamp")
  empty <- sensor_drift(fits, toy[0, ])
  expect_equal(nrow(empty), 0L)
  expect_named(empty, c("site", "sensor", "period", "n", "shift", "mean_z", "std_error", "p_value", "drift"))
  expect_warning(drift <- sensor_drift(fits, toy), "200 rows.*not checked", class = "ncam_warning_no_group_model")
  expect_equal(unique(drift$site), "north")
  expect_equal(sum(drift$n[drift$sensor == "sensor_0"]), 200L)
})

test_that("the noise is per unit (pooled for a small one), the between-period variance pools units; too few periods give no test", {
  toy <- daily_toy(400)
  fit <- drift_fit(toy)
  toy$site <- rep(c("a", "b"), times = 200)  # interleaved rows: each unit's series is every other day
  toy$site[1:20] <- "c"  # 20 readings in one month: under 30 degrees of freedom, the pooled noise
  toy$sensor_0 <- toy$sensor_0 + 4 * sin(2 * pi * as.numeric(toy$date) / 120)  # variation between months
  units <- c("a", "b", "c")
  drift <- sensor_drift(fit, toy, unit = "site", period = "month")
  z <- ncam:::leave_one_sensor_out(ncam:::ncam_posterior(fit, toy))$z[, "sensor_0"]
  month <- format(toy$date, "%Y-%m")
  parts <- lapply(units, function(u) {
    zu <- z[toy$site == u]
    mu <- month[toy$site == u]
    centred <- zu - ave(zu, mu)
    same <- mu[-1] == mu[-length(mu)]
    c(squares = sum(centred^2), lagged = sum((centred[-1] * centred[-length(centred)])[same]),
      degrees = length(zu) - length(unique(mu)))
  })
  noise_variance <- function(p) {
    rho <- max(0, p[["lagged"]] / p[["squares"]])
    p[["squares"]] / p[["degrees"]] * (1 + rho) / (1 - rho)
  }
  within <- c(a = noise_variance(parts[[1]]), b = noise_variance(parts[[2]]),
              c = noise_variance(Reduce(`+`, parts)))
  expect_lt(parts[[3]][["degrees"]], 30)
  # Months with at least 3 readings of the unit (the last month has 3 days, so 1 or 2 per unit).
  kept <- lapply(units, function(u) table(month[toy$site == u]) >= 3)
  means <- lapply(1:3, function(k) as.vector(tapply(z[toy$site == units[k]], month[toy$site == units[k]], mean)[kept[[k]]]))
  noise <- lapply(1:3, function(k) within[[k]] / as.vector(table(month[toy$site == units[k]]))[kept[[k]]])
  hand <- between_by_hand(means, noise)
  expect_gt(hand$between, 0)
  got <- drift[drift$sensor == "sensor_0", ]
  expect_equal(got$std_error, ifelse(got$n >= 3, sqrt(hand$between + within[got$site] / got$n), NA))
  got_p <- got$p_value[got$n >= 3]
  far <- abs(got$mean_z[got$n >= 3]) / got$std_error[got$n >= 3]
  edge <- 0.1 / got$std_error[got$n >= 3]
  expect_equal(got_p, pmin(1, pt(edge - far, hand$df) + pt(-edge - far, hand$df)))
  # Two months: one pair of consecutive periods, too few to judge the spread between them.
  short <- toy[toy$date < as.Date("2024-03-01"), ]
  expect_warning(few <- sensor_drift(fit, short, period = "month"), "Too few periods to test sensor_0, sensor_1, and sensor_2", class = "ncam_warning_few_periods")
  expect_true(all(is.na(few$p_value)) && all(is.na(few$drift)) && all(!is.na(few$mean_z)))
})

test_that("readings of a unit at one time count in every order alike: shuffled rows give the same table", {
  # The lag-1 products of a tie are their mean over every order of its readings.
  x <- c(1.2, -0.5, 0.3, 2.0, -1.1, 0.7, 0.4)
  cell <- c("a", "a", "a", "a", "a", "b", "b")
  time <- c(1, 1, 1, 2, 2, 3, 4)
  orders <- list(c(1, 2, 3), c(1, 3, 2), c(2, 1, 3), c(2, 3, 1), c(3, 1, 2), c(3, 2, 1))
  sums <- unlist(lapply(orders, function(first) lapply(list(c(4, 5), c(5, 4)), function(second) {
    y <- x[c(first, second, 6, 7)]
    sum((y[-1] * y[-7])[cell[-1] == cell[-7]])
  })))
  expect_equal(sum(ncam:::tie_lag_products(x, cell, time)$products), mean(sums))
  # Two boxes at the same times, checked without `unit`: the same table in any row order.
  toy <- daily_toy(400)
  fit <- drift_fit(toy)
  set.seed(11)
  two <- rbind(toy, transform(toy, sensor_0 = sensor_0 + rnorm(400, 0, 3)))
  drift <- sensor_drift(fit, two, period = "month")
  expect_identical(sensor_drift(fit, two[sample(800), ], period = "month"), drift)
  expect_identical(sensor_drift(fit, two[800:1, ], period = "month"), drift)
  # By hand for sensor_0: within a day the product of the two boxes, across days the product
  # of the days' means.
  z <- ncam:::leave_one_sensor_out(ncam:::ncam_posterior(fit, two))$z[, "sensor_0"]
  month <- format(two$date, "%Y-%m")
  centred <- z - ave(z, month)
  box_1 <- centred[1:400]
  box_2 <- centred[401:800]
  day_mean <- (box_1 + box_2) / 2
  same <- month[2:400] == month[1:399]
  rho <- max(0, (sum(box_1 * box_2) + sum((day_mean[-1] * day_mean[-400])[same])) / sum(centred^2))
  within <- sum(centred^2) / (800 - length(unique(month))) * (1 + rho) / (1 - rho)
  n <- as.vector(table(month))
  hand <- between_by_hand(list(as.vector(tapply(z, month, mean))), list(within / n))
  expect_equal(drift$std_error[drift$sensor == "sensor_0"], sqrt(hand$between + within / n))
})

test_that("a failed unit does not hide drift at the others: their standard errors hardly move", {
  toy <- daily_toy(720)
  toy$date <- as.Date("2024-01-01") + rep(0:359, 2)
  toy$site <- rep(c("north", "south"), each = 360)
  fit <- drift_fit(toy)
  clean <- sensor_drift(fit, toy, unit = "site", period = "month")
  failed <- toy
  hit <- failed$site == "north" & failed$date >= as.Date("2024-07-01")
  failed$sensor_1[hit] <- failed$sensor_1[hit] * 3  # its z vary row by row: a noisy unit
  checked <- sensor_drift(fit, failed, unit = "site", period = "month")
  south <- clean$site == "south"
  ratio <- checked$std_error[south] / clean$std_error[south]
  expect_true(all(ratio > 0.85 & ratio < 1.15))  # pooled noise: up to 2.25 times
  expect_true(all(checked$drift[checked$site == "north" & checked$sensor == "sensor_1" &
                                  checked$period >= as.Date("2024-07-01")]))
})

test_that("units are told apart by value, and one low-cost sensor needs the reference", {
  toy <- daily_toy(400)
  fit <- drift_fit(toy)
  toy$site <- rep(c(1, 1 + 1e-15), each = 200)
  drift <- sensor_drift(fit, toy, unit = "site", period = "quarter")
  expect_equal(length(unique(drift$site)), 2L)
  one <- short_fit(ncam(pa_a ~ rh, data = colocation, reference = "ref", hidden = 4, epochs = 5, seed = 1, threads = 1),
                   also = c("ncam_warning_clamp", "ncam_warning_extrapolation", "ncam_warning_two_sensors"))
  expect_error(sensor_drift(one, colocation[setdiff(names(colocation), "ref")], period = "week"),
               "one low-cost sensor.*reference")
  expect_equal(unique(sensor_drift(one, colocation, period = "week")$sensor), c("pa_a", "ref"))
})

test_that("units are sorted by their bytes: the same table, to the last digit, in every locale", {
  # "a", "B" and "_c" sort otherwise by the C locale's rules than by ICU's or English ones.
  units <- c("a", "B", "_c")
  other <- Filter(function(locale) {
    sorted <- suppressWarnings(withr::with_collate(locale, sort(units)))
    !identical(sorted, withr::with_collate("C", sort(units)))
  }, c(Sys.getlocale("LC_COLLATE"), "en_US.UTF-8", "C.UTF-8", "en_US.utf8"))
  skip_if(length(other) == 0L, "no locale here collates otherwise than C")
  toy <- daily_toy(420)
  fit <- drift_fit(toy)
  toy$site <- rep(units, times = 140)
  toy$sensor_0 <- toy$sensor_0 + 4 * sin(2 * pi * as.numeric(toy$date) / 120)
  in_c <- withr::with_collate("C", sensor_drift(fit, toy, unit = "site", period = "month"))
  in_other <- suppressWarnings(withr::with_collate(other[1], sensor_drift(fit, toy, unit = "site", period = "month")))
  expect_identical(in_other, in_c)
  expect_identical(unique(in_c$site), c("B", "_c", "a"))  # bytes 0x42, 0x5F, 0x61
})

test_that("a stuck sensor is flagged, not screened out as spikes; a table without its period still plots", {
  toy <- daily_toy(720)
  fit <- drift_fit(toy[1:240, ])
  stuck <- toy
  october <- stuck$date >= as.Date("2024-10-01") & stuck$date < as.Date("2024-11-01")
  stuck$sensor_2[october] <- -999  # a missing-value code for a whole month
  drift <- expect_no_warning(sensor_drift(fit, stuck, period = "month"), class = "ncam_warning_spikes")
  row <- drift[drift$sensor == "sensor_2" & drift$period == as.Date("2024-10-01"), ]
  expect_identical(row$n, 31L)
  expect_true(row$drift)
  skip_if_not_installed("ggplot2")
  attr(drift, "period") <- NULL  # as saved by the version before the period was kept
  built <- ggplot2::ggplot_build(ggplot2::autoplot(drift))
  expect_identical(length(unique(built$data[[2]]$group)), 3L)
})

test_that("without TZ, the session's zone is read from /etc/timezone when /etc/localtime is a copy of its file", {
  skip_on_os("windows")
  withr::local_envvar(c(TZ = NA))
  dir <- withr::local_tempdir()
  zoneinfo <- file.path(dir, "zoneinfo")
  dir.create(file.path(zoneinfo, "Europe"), recursive = TRUE)
  dir.create(file.path(zoneinfo, "Etc"))
  writeBin(as.raw(c(1:40, 0)), file.path(zoneinfo, "Europe", "Brussels"))
  writeBin(as.raw(41:90), file.path(zoneinfo, "Etc", "UTC"))
  copied <- file.path(dir, "localtime")
  file.copy(file.path(zoneinfo, "Europe", "Brussels"), copied)
  timezone_file <- file.path(dir, "timezone")
  writeLines("Europe/Brussels ", timezone_file)
  zone_of <- function(localtime) ncam:::session_zone_name(localtime, timezone_file, zoneinfo)
  expect_identical(zone_of(copied), "Europe/Brussels")
  # A link names its zone, whatever /etc/timezone says.
  linked <- file.path(dir, "linked")
  file.symlink("/usr/share/zoneinfo/Asia/Tokyo", linked)
  expect_identical(zone_of(linked), "Asia/Tokyo")
  # A stale /etc/timezone beside a copy of another zone's file, a name that is no zone, no
  # /etc/timezone, or no /etc/localtime (the C library's clock is then UTC): no name.
  writeLines("Etc/UTC", timezone_file)
  expect_identical(zone_of(copied), "")
  writeLines("Europe/Nowhere", timezone_file)
  expect_identical(zone_of(copied), "")
  unlink(timezone_file)
  expect_identical(zone_of(copied), "")
  writeLines("Europe/Brussels", timezone_file)
  expect_identical(zone_of(file.path(dir, "absent")), "")
  # TZ, when set, comes first.
  withr::with_envvar(c(TZ = "America/Chicago"), expect_identical(zone_of(copied), "America/Chicago"))
})

test_that("periods of the session's clock carry its zone, subsets keep their colours, new_data is pointed to newdata", {
  withr::local_timezone("Europe/Brussels")
  toy <- simulate_toy(n = 600, seed = 3)
  toy$date <- as.POSIXct("2024-01-01 00:00") + 3600 * 6 * (seq_len(600) - 1)
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, hidden = 8, epochs = 20,
                        learn_rate = 0.02, seed = 1, threads = 1))
  dr <- sensor_drift(fit, toy, period = "week")
  expect_identical(attr(dr$period, "tzone"), "Europe/Brussels")
  expect_identical(format(dr$period[1], "%Y-%m-%d %H:%M"), "2024-01-01 00:00")
  # Read in another zone, a period still shows the midnight it starts at in Brussels.
  withr::with_timezone("America/New_York", expect_identical(format(dr$period[1], "%H:%M %Z"), "00:00 CET"))
  # The zone of TZ as set now, not the one Sys.timezone() remembers from earlier in the session.
  invisible(suppressWarnings(Sys.timezone()))
  withr::with_envvar(c(TZ = "Asia/Tokyo"), {
    tokyo <- toy
    tokyo$date <- as.POSIXct("2024-01-01 00:00") + 3600 * 6 * (seq_len(600) - 1)
    in_tokyo <- sensor_drift(fit, tokyo, period = "week")
    expect_identical(attr(in_tokyo$period, "tzone"), "Asia/Tokyo")
    expect_identical(format(in_tokyo$period[1], "%Y-%m-%d %H:%M"), "2024-01-01 00:00")
  })
  # Without TZ, the zone /etc/localtime names, found without Sys.timezone(), whose timedatectl
  # prints systemd errors in a container: nothing on the console.
  link <- Sys.readlink("/etc/localtime")
  if (requireNamespace("callr", quietly = TRUE) && nzchar(link)) {
    messages <- withr::local_tempfile()
    zone <- callr::r(function(fit, data) {
      Sys.unsetenv("TZ")
      data$date <- as.POSIXct("2024-01-01 00:00") + 3600 * 6 * (seq_len(nrow(data)) - 1)
      attr(suppressWarnings(ncam::sensor_drift(fit, data, period = "week"))$period, "tzone")
    }, args = list(fit = fit, data = toy), stderr = messages)
    expect_identical(zone, sub(".*zoneinfo/", "", link))
    expect_identical(readLines(messages), character(0))
  }
  expect_identical(attr(dr, "sensors"), c("sensor_0", "sensor_1", "sensor_2"))
  expect_identical(attr(dr[dr$sensor == "sensor_2", ], "sensors"), c("sensor_0", "sensor_1", "sensor_2"))
  expect_error(sensor_drift(fit, new_data = toy), "Did you mean `newdata`")
  skip_if_not_installed("ggplot2")
  colour_of <- function(table, s) {
    ggplot2::ggplot_build(ggplot2::autoplot(table))$plot$scales$get_scales("colour")$map(s)
  }
  expect_identical(colour_of(dr[dr$sensor == "sensor_2", ], "sensor_2"), colour_of(dr, "sensor_2"))
  expect_false(identical(colour_of(dr, "sensor_2"), colour_of(dr, "sensor_0")))
})

test_that("the plot's lines break at a unit's gap also beside a unit whose key writes alike", {
  skip_if_not_installed("ggplot2")
  toy <- simulate_toy(n = 720, seed = 3)
  toy$date <- as.Date("2024-01-01") + rep(0:359, each = 2)
  toy$unit <- rep(c(0.3, 0.1 + 0.2), 360)  # both written "0.3" in 15 digits
  fit <- drift_fit(toy[1:240, ])
  gappy <- toy[!(toy$unit > 0.3 & format(toy$date, "%m") == "03"), ]  # no March for 0.1 + 0.2
  drift <- sensor_drift(fit, gappy, unit = "unit", period = "month")
  lines <- ggplot2::ggplot_build(ggplot2::autoplot(drift))$data[[2]]
  runs <- vapply(split(lines$group, lines$PANEL), function(g) length(unique(g)), 1L)
  # One line per sensor in the unit with every month; two (January-February, April on) in the other.
  months <- split(as.numeric(format(gappy$date, "%m")), gappy$unit > 0.3)  # split() by text would merge them
  gaps <- vapply(months, function(m) sum(diff(sort(unique(m))) > 1), 1)
  expect_equal(sort(unname(runs)), sort(3 * (1 + unname(gaps))))
  expect_equal(sort(unname(runs)), c(3, 6))
})

test_that("rows repeated in every column are warned about, naming them", {
  toy <- daily_toy()
  fx <- list(toy = toy, fit = drift_fit(toy[1:240, ]))
  twice <- fx$toy[c(seq_len(nrow(fx$toy)), 5, 700), ]
  warnings <- caught_warnings(drift <- sensor_drift(fx$fit, twice, period = "month"))
  expect_length(warnings, 1L)
  expect_s3_class(warnings[[1]], "ncam_warning_repeated_rows")
  expect_match(gsub("\\s+", " ", conditionMessage(warnings[[1]])),
               "2 rows of `newdata` repeat an earlier row in every column (rows 721, 722; row 721 repeats row 5)", fixed = TRUE)
  # The copies count again, for each sensor.
  once <- sensor_drift(fx$fit, fx$toy, period = "month")
  expect_identical(sum(drift$n) - sum(once$n), 2L * 3L)
  # Two boxes of one unit at one time are not copies.
  boxes <- fx$toy[c(1:10, 1:10), ]
  boxes$box <- rep(1:2, each = 10)
  expect_no_warning(suppressWarnings(sensor_drift(fx$fit, boxes, period = "1 day"), classes = "ncam_warning_few_periods"))
})
