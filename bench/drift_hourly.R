options(width = 200)
# sensor_drift() on hourly data without drift: how often does it flag? simulate_colocation()
# (182 days, hourly, co-location the first 28 days) with each sensor's drift removed (its gain
# and offset held at their values of the first hour, its noise redrawn), a label-free fit
# (ncam(pa_a + pa_b + opc ~ rh + temperature), hidden 8, 300 epochs, learn_rate 0.01), checked
# by week with the default tolerance (0.1) and with tolerance = 0. Reported, over data sets:
# the share with any flag (sensor_drift() aims at alpha = 0.01 over all its rows, Holm), and
# over all rows with tolerance = 0 the share of p-values below 0.05 and 0.01 and the sd of
# mean_z / std_error (1 if std_error is right and there is no drift). The fit is label-free and
# leaves each sensor's z a little off 0 over the whole half-year (the model's own estimation
# error, which `tolerance` is for): also reported, the sd over sensors of that offset (each
# sensor's mean of mean_z), and the sd of mean_z / std_error with each sensor's rows centred on
# it (about sqrt(1 - 1/27) = 0.98 if std_error is right around the sensor's own level).
#
# Run (about 2 min for 600): NCAM_LIB=<lib> nice -n 10 Rscript bench/drift_hourly.R [data sets] > bench/drift_hourly.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
args <- commandArgs(TRUE)
n_sets <- if (length(args)) as.integer(args[1]) else 600L
started <- proc.time()[["elapsed"]]

one_set <- function(r) {
  d <- simulate_colocation(days = 182, colocation = 28, seed = 5000 + r)
  models <- attr(d, "sensor_models")
  start <- rep(d$date[1], nrow(d))
  withr::local_seed(r)
  for (s in names(models)) {
    m <- models[[s]]
    steady <- m$gain(d$rh, d$temperature, start) * d$truth + m$offset(d$rh, d$temperature, start) +
      m$noise_sd(d$truth) * stats::rnorm(nrow(d))
    d[[s]] <- ifelse(is.na(d[[s]]), NA, pmax(steady, 0))
  }
  fit <- suppressWarnings(ncam(pa_a + pa_b + opc ~ rh + temperature, data = d, hidden = 8, epochs = 300,
                               learn_rate = 0.01, seed = r, threads = 1))
  default <- suppressWarnings(sensor_drift(fit, d, period = "week", threads = 1))
  strict <- suppressWarnings(sensor_drift(fit, d, period = "week", tolerance = 0, threads = 1))
  offset <- tapply(strict$mean_z, strict$sensor, mean, na.rm = TRUE)
  list(any_default = any(default$drift, na.rm = TRUE), any_strict = any(strict$drift, na.rm = TRUE),
       p = strict$p_value, ratio = strict$mean_z / strict$std_error, offset = as.vector(offset),
       centred = (strict$mean_z - offset[strict$sensor]) / strict$std_error)
}

sets <- lapply(seq_len(n_sets), one_set)
p <- unlist(lapply(sets, `[[`, "p"))
ratio <- unlist(lapply(sets, `[[`, "ratio"))
share_se <- function(x) sprintf("%.3f (%.3f)", mean(x), stats::sd(x) / sqrt(length(x)))
cat(sprintf("ncam %s, %d data sets, %.1f min\n\n", utils::packageVersion("ncam"), n_sets,
            (proc.time()[["elapsed"]] - started) / 60))
cat("Share of data sets with any flag (nominal 0.01), mean (standard error):\n")
cat("  tolerance = 0.1 (default):", share_se(vapply(sets, `[[`, TRUE, "any_default")), "\n")
cat("  tolerance = 0:            ", share_se(vapply(sets, `[[`, TRUE, "any_strict")), "\n")
cat(sprintf("\ntolerance = 0, over %d rows: p < 0.05 %.4f, p < 0.01 %.4f; sd(mean_z / std_error) %.3f\n",
            sum(!is.na(p)), mean(p < 0.05, na.rm = TRUE), mean(p < 0.01, na.rm = TRUE), stats::sd(ratio, na.rm = TRUE)))
cat(sprintf("sd over sensors of their mean of mean_z %.3f; sd(mean_z / std_error) centred on each sensor's mean %.3f\n",
            stats::sd(unlist(lapply(sets, `[[`, "offset"))), stats::sd(unlist(lapply(sets, `[[`, "centred")), na.rm = TRUE)))
