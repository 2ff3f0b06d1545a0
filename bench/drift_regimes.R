# sensor_drift(): what its variance between periods (tau^2) estimates when the ordinary
# variation from period to period persists over several periods (weather regimes that the
# model's error follows), against a known truth. Simulated at the level of the z values, so
# that nothing but the period statistics is measured: 26 periods (a half-year of weeks) of
# 168 readings (hours), z = u_period + e, e ~ N(0, 1) independent, u an AR(1) series over the
# periods with lag-1 correlation phi and marginal sd 0.3 (its variance, 0.09, is the truth
# tau^2 should find), plus, for the power rows, a step of `step` from period 14 on (a drift).
# The z values go through the code sensor_drift() runs on each sensor (period_means(),
# period_spread(), beyond_tolerance(), Holm over the 26 rows at alpha 0.01).
#
# Reported per phi and step: tau^2 / 0.09 (mean over data sets); the same for the spread of
# the means, the known step taken out, around their overall mean less the noise (no cuts: what
# centring alone costs under persistence); the share of the 13 periods before the step with p < 0.01 at tolerance 0
# (nominal 0.01); the share of data sets with any of them flagged (Holm); the share of the 13
# drifted periods flagged. And the same with the step finder scaled by the long-run variance of
# the means, estimated from capped differences at lags 1 and 2 (an alternative tried, not kept).
#
# Run (about 2 min): NCAM_LIB=<lib> nice -n 10 Rscript bench/drift_regimes.R > bench/drift_regimes.out

options(width = 200)
lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
started <- proc.time()[["elapsed"]]
n_sets <- 500L
periods <- 26L
per_period <- 168L
tau <- 0.3

one_set <- function(seed, phi, step) {
  set.seed(seed)
  u <- if (phi == 0) stats::rnorm(periods, 0, tau) else
    as.numeric(stats::arima.sim(list(ar = phi), periods, sd = tau * sqrt(1 - phi^2)))
  drifted <- seq_len(periods) > periods / 2
  u <- u + step * drifted
  period <- rep(seq_len(periods), each = per_period)
  z <- u[period] + stats::rnorm(periods * per_period)
  cell <- paste(1L, period, sep = "\r")
  means <- ncam:::period_means(z, z, cell, unique(cell), rep(1L, periods), seq_len(periods))
  spread <- ncam:::period_spread(z, cell, rep(1L, length(z)), seq_along(z), means)
  std_error <- sqrt(spread$between + spread$within[1] / means$n)
  p <- ncam:::beyond_tolerance(means$mean_z, std_error, 0, spread$df)
  flag <- stats::p.adjust(p, "holm") < 0.01
  c(between = spread$between, uncut = stats::var(means$mean_z - step * drifted) - 1 / per_period,
    rows = mean(p[!drifted] < 0.01), any = any(flag[!drifted]), power = mean(flag[drifted]))
}

# The alternative: the scale of the step finder is the long-run variance of the means under an
# AR(1) between periods, lag-1 correlation from capped differences at lags 1 and 2.
long_run_scale <- function(means, unit, n, within) {
  capped <- function(d2) {
    cap <- stats::qchisq(0.99, 1) * stats::median(d2) / stats::qchisq(0.5, 1)
    mean(pmin(d2, cap)) / ncam:::capped_share / 2
  }
  consecutive <- which(unit[-1] == unit[-length(unit)])
  if (length(consecutive) < 3L) return(list(between = NA_real_, df = NA_real_))
  noise <- mean(within[unit] / n)
  lag1 <- capped(diff(means)^2) - noise
  lag2 <- capped(diff(means, lag = 2)^2) - noise
  phi <- if (lag1 > 0) min(max(lag2 / lag1 - 1, 0), 0.9) else 0
  scale <- if (lag1 > 0) lag1 * (1 + phi) / (1 - phi)^2 + noise else lag1 + noise
  first <- ncam:::step_stretches(means, scale)
  stretch <- cumsum(c(TRUE, first[-1] != first[-length(first)]))
  df <- length(means) - max(stretch)
  if (df < 3L) return(list(between = NA_real_, df = NA_real_))
  deviation <- means - stats::ave(means, stretch)
  size <- tabulate(stretch)[stretch]
  list(between = max(0, sum(deviation^2 - within[unit] / n * (1 - 1 / size)) / df), df = df)
}

table_of <- function() {
  rows <- list()
  for (phi in c(0, 0.5, 0.8)) for (step in c(0, 0.6, 1.2)) {
    sets <- t(vapply(seq_len(n_sets), function(s) suppressWarnings(one_set(s, phi, step)), numeric(5)))
    rows[[length(rows) + 1L]] <- data.frame(
      phi = phi, step_in_tau = step / tau, tau2_found = mean(sets[, "between"], na.rm = TRUE) / tau^2,
      tau2_uncut = mean(sets[, "uncut"]) / tau^2, rows_p_below_0.01 = mean(sets[, "rows"]),
      sets_flagged_before = mean(sets[, "any"]), drifted_flagged = mean(sets[, "power"]))
  }
  do.call(rbind, rows)
}

cat(sprintf("ncam %s; %d data sets per row; %d periods of %d readings; sd of u %.1f\n\n",
            utils::packageVersion("ncam"), n_sets, periods, per_period, tau))
cat("sensor_drift() as it is:\n")
print(table_of(), row.names = FALSE, digits = 3)
assignInNamespace("between_periods", long_run_scale, "ncam")
cat("\nAlternative (not kept): step finder scaled by the long-run variance of the means:\n")
print(table_of(), row.names = FALSE, digits = 3)
cat(sprintf("\nelapsed %.0f s\n", proc.time()[["elapsed"]] - started))
