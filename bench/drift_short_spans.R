options(width = 250)
# sensor_drift()'s step finder on short series (7 and 12 periods) beside the 26 of
# bench/drift_regimes.R, simulated at the level of the z values as there (168 readings a period,
# z = u_period + e, u AR(1) with lag-1 correlation phi and sd tau), with a drift of `step` over
# the middle 4/7 of the periods (up, then down again) or over the second half ("end"). Four
# step finders, each run through the code sensor_drift() runs on one sensor (Holm over the
# periods at alpha 0.01, tolerance 0): as it is ("current": one cut at a time, scaled by
# capped squared differences of consecutive means); "two_cut": each stretch cut around the
# segment whose mean differs most from the rest (circular binary segmentation; single cuts are
# segments that touch an end), Bonferroni over the L (L - 1) / 2 segments; "robust": the scale
# the smaller of the capped mean and the median of the squared differences (no less than the
# noise of a mean), which the steps' own differences move less; both together. Reported: tau^2
# found over the truth (for tau = 0.05 the drift's own step inflates it where it is not cut),
# the share of data sets with any undrifted period flagged, and the share of drifted periods
# flagged.
#
# Run (about 8 min): NCAM_LIB=<lib> nice -n 10 Rscript bench/drift_short_spans.R > bench/drift_short_spans.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
started <- proc.time()[["elapsed"]]
n_sets <- 300L
per_period <- 168L

# Epidemic (two-cut) binary segmentation: a stretch is cut around the segment whose mean differs
# most from the rest (single cuts are segments touching an end), Bonferroni over the segments.
step_stretches_two_cut <- function(x, mean_variance, step_level = 0.05) {
  first <- integer(length(x))
  pending <- list(seq_along(x))
  while (length(pending)) {
    i <- pending[[1]]; pending <- pending[-1]
    L <- length(i)
    if (L > 1L) {
      s <- c(0, cumsum(x[i]))
      pairs <- which(upper.tri(matrix(0, L + 1, L + 1)), arr.ind = TRUE)  # (a, b): segment a..b-1 (0-based starts)
      a <- pairs[, 1] - 1; b <- pairs[, 2] - 1
      keep <- (b - a) < L
      a <- a[keep]; b <- b[keep]
      k <- b - a
      inside <- (s[b + 1] - s[a + 1]) / k
      outside <- (s[L + 1] - (s[b + 1] - s[a + 1])) / (L - k)
      statistic <- k * (L - k) / L * (inside - outside)^2
      best <- which.max(statistic)
      if (statistic[best] > mean_variance * stats::qchisq(1 - step_level / length(statistic), 1)) {
        cuts <- unique(c(a[best], b[best]))
        cuts <- cuts[cuts > 0 & cuts < L]
        bounds <- c(0, sort(cuts), L)
        for (q in seq_len(length(bounds) - 1)) pending <- c(pending, list(i[(bounds[q] + 1):bounds[q + 1]]))
        next
      }
    }
    first[i] <- i[1]
  }
  first
}

make_between <- function(finder, scale = c("capped", "robust")) {
  scale <- match.arg(scale)
  function(means, unit, n, within) {
    consecutive <- which(unit[-1] == unit[-length(unit)])
    if (length(consecutive) < 3L) return(list(between = NA_real_, df = NA_real_))
    difference2 <- (means[consecutive + 1L] - means[consecutive])^2
    cap <- stats::qchisq(0.99, 1) * stats::median(difference2) / stats::qchisq(0.5, 1)
    mean_variance <- mean(pmin(difference2, cap)) / ncam:::capped_share / 2
    if (scale == "robust") mean_variance <- max(min(mean_variance, stats::median(difference2) / stats::qchisq(0.5, 1) / 2), mean(within[unit] / n))
    first <- unlist(lapply(split(means, unit), finder, mean_variance = mean_variance), use.names = FALSE)
    new_stretch <- c(TRUE, unit[-1] != unit[-length(unit)] | first[-1] != first[-length(first)])
    stretch <- cumsum(new_stretch)
    size <- tabulate(stretch)[stretch]
    df <- length(means) - max(stretch)
    if (df < 3L) return(list(between = NA_real_, df = NA_real_))
    deviation <- means - stats::ave(means, stretch)
    noise <- within[unit] / n
    list(between = max(0, sum(deviation^2 - noise * (1 - 1 / size)) / df), df = df)
  }
}

one_set <- function(seed, periods, tau, phi, step, shape) {
  set.seed(seed)
  u <- if (phi == 0) stats::rnorm(periods, 0, tau) else as.numeric(stats::arima.sim(list(ar = phi), periods, sd = tau * sqrt(1 - phi^2)))
  drifted <- if (shape == "end") seq_len(periods) > periods / 2 else {
    len <- ceiling(periods * 4 / 7); st <- floor((periods - len) / 2) + 1; seq_len(periods) %in% st:(st + len - 1) }
  u <- u + step * drifted
  period <- rep(seq_len(periods), each = per_period)
  z <- u[period] + stats::rnorm(periods * per_period)
  cell <- paste(1L, period, sep = "\r")
  means <- ncam:::period_means(z, z, cell, unique(cell), rep(1L, periods), seq_len(periods))
  spread <- ncam:::period_spread(z, cell, rep(1L, length(z)), seq_along(z), means)
  if (is.na(spread$df)) return(c(between = NA, rows = NA, any = NA, power = NA))
  std_error <- sqrt(spread$between + spread$within[1] / means$n)
  p <- ncam:::beyond_tolerance(means$mean_z, std_error, 0, spread$df)
  flag <- stats::p.adjust(p, "holm") < 0.01
  c(between = spread$between, rows = mean(p[!drifted] < 0.01), any = any(flag[!drifted]), power = mean(flag[drifted]))
}

variants <- list(current = NULL, two_cut = make_between(step_stretches_two_cut),
                 robust = make_between(ncam:::step_stretches, "robust"), two_cut_robust = make_between(step_stretches_two_cut, "robust"))
original <- ncam:::between_periods
grid <- expand.grid(step = c(0, 0.6, 1.2), shape = c("middle", "end"), phi = c(0, 0.5, 0.8), tau = c(0.05, 0.3), periods = c(7L, 12L, 26L), stringsAsFactors = FALSE)
grid <- grid[!(grid$step == 0 & grid$shape == "end"), ]
for (v in names(variants)) {
  assignInNamespace("between_periods", if (is.null(variants[[v]])) original else variants[[v]], "ncam")
  res <- t(vapply(seq_len(nrow(grid)), function(r) {
    g <- grid[r, ]
    s <- t(vapply(seq_len(n_sets), function(i) suppressWarnings(one_set(i, g$periods, g$tau, g$phi, g$step, g$shape)), numeric(4)))
    c(tested = mean(!is.na(s[, "between"])), tau2 = mean(s[, "between"], na.rm = TRUE) / g$tau^2, rows = mean(s[, "rows"], na.rm = TRUE),
      any = mean(s[, "any"], na.rm = TRUE), power = mean(s[, "power"], na.rm = TRUE))
  }, numeric(5)))
  grid[paste0(v, c("_tested", "_tau2", "_rowsp01", "_anyflag", "_power"))] <- res
}
cat(sprintf("ncam %s; %d data sets per row\n\n", utils::packageVersion("ncam"), n_sets))
for (what in c("tau2", "anyflag", "power")) {
  cat(switch(what, tau2 = "tau^2 found / tau^2:", anyflag = "Share of data sets with an undrifted period flagged:",
             power = "Share of drifted periods flagged:"), "\n")
  shown <- grid[c("periods", "tau", "phi", "shape", "step", paste0(names(variants), "_", what))]
  names(shown) <- sub(paste0("_", what, "$"), "", names(shown))
  if (what == "power") shown <- shown[shown$step > 0, ]
  print(shown[order(shown$periods, shown$tau, shown$phi), ], row.names = FALSE, digits = 3)
  cat("\n")
}
# The case of session 34 through sensor_drift() itself: 3-hourly toy readings, sensor_2 read 10
# units high over 4 of 7 weeks, checked by week and by day.
assignInNamespace("between_periods", original, "ncam")
toy <- simulate_toy(n = 2000, seed = 3)
toy$date <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * 3 * (seq_len(2000) - 1)
fit <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy[1:800, ], hidden = 8, epochs = 100,
                             learn_rate = 0.02, seed = 1, threads = 1))
new <- toy[801:1600, ]
drifted <- new$date >= as.POSIXct("2024-05-10", tz = "UTC") & new$date < as.POSIXct("2024-06-10", tz = "UTC")
new$sensor_2[drifted] <- new$sensor_2[drifted] + 10
new <- new[new$date >= as.POSIXct("2024-04-29", tz = "UTC") & new$date < as.POSIXct("2024-06-15", tz = "UTC"), ]
for (period in c("week", "day")) {
  d <- suppressWarnings(sensor_drift(fit, new, period = period))
  d <- d[d$sensor == "sensor_2", ]
  inside <- d$period >= as.POSIXct("2024-05-10", tz = "UTC") & d$period < as.POSIXct("2024-06-10", tz = "UTC")
  cat(sprintf("sensor_drift(period = \"%s\"), the toy's 10-unit drift of sensor_2 over 4 of 7 weeks: %d of %d periods inside it flagged, %d of %d outside\n",
              period, sum(d$drift[inside] %in% TRUE), sum(inside), sum(d$drift[!inside] %in% TRUE), sum(!inside)))
}
cat(sprintf("elapsed %.0f s\n", proc.time()[["elapsed"]] - started))
