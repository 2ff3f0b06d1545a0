# "split" calibration on a label-free fit's own training rows against held-out rows, with and
# without early stopping (the figure of ?calibrate, section on rows held out of the fit).
# simulate_toy(2600, seed = s), seeds 1-12: a 32 x 32 network fitted without a reference to
# rows 1-300; calibrate(method = "split", reference = "truth") on those training rows or on the
# held-out rows 301-600; coverage of the truth by the 90 % intervals on rows 601-2600.
# Early stopping off: validation = 0 (every epoch runs and no rows are held out to choose one;
# stop_iter = 0 alone would still keep the epoch best on the validation rows), for 300 (the
# default), 1000 and 3000 epochs. On: the defaults (validation = 0.1, stop_iter = 30, at most
# 300 epochs).
#
# Run (under 1 min): NCAM_LIB=<lib> Rscript bench/calibrate_in_sample.R > bench/calibrate_in_sample.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
started <- Sys.time()
cover <- function(cal, test) {
  # A few test rows lie beyond the fitted range (predict() warns): they count as any other.
  p <- suppressWarnings(predict(cal, test, level = 0.9), classes = "ncam_warning_extrapolation")
  mean(test$truth >= p$.pred_lower & test$truth <= p$.pred_upper)
}
settings <- list("off, 300 epochs" = list(validation = 0), "off, 1000 epochs" = list(validation = 0, epochs = 1000L),
                 "off, 3000 epochs" = list(validation = 0, epochs = 3000L), "on (defaults)" = list())
rows <- list()
warned <- character()  # other warnings' classes, counted and shown below
withCallingHandlers(for (seed in 1:12) {
  toy <- simulate_toy(2600, seed = seed)
  train <- toy[1:300, ]
  held_out <- toy[301:600, ]
  test <- toy[601:2600, ]
  for (mode in names(settings)) {
    fit <- do.call(ncam, c(list(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, data = train,
                                hidden = c(32L, 32L), seed = seed, threads = 1), settings[[mode]]))
    on_training <- suppressWarnings(calibrate(fit, train, method = "split", reference = "truth"),
                                    classes = "ncam_warning_in_sample_calibration")
    on_held_out <- calibrate(fit, held_out, method = "split", reference = "truth")
    rows[[length(rows) + 1L]] <- data.frame(
      seed = seed, early_stopping = mode, epochs_run = nrow(fit$history), best_epoch = fit$best_epoch,
      cov90_calibrated_on_training = cover(on_training, test), cov90_calibrated_on_held_out = cover(on_held_out, test))
  }
}, warning = function(w) {
  warned <<- c(warned, class(w)[1])
  invokeRestart("muffleWarning")
})
runs <- do.call(rbind, rows)
cat(sprintf("ncam %s from %s; %s\n\n", getNamespaceVersion("ncam"), dirname(system.file(package = "ncam")),
            format(Sys.time(), "%Y-%m-%d %H:%M")))
cat("Coverage of the truth at level 0.9 (2000 test rows per seed), mean over seeds 1-12 (standard error):\n")
summary_of <- function(x) sprintf("%.3f (%.3f)", mean(x), stats::sd(x) / sqrt(length(x)))
by_mode <- lapply(split(runs, factor(runs$early_stopping, names(settings))), function(r) data.frame(
  early_stopping = r$early_stopping[1], mean_epochs_run = round(mean(r$epochs_run)),
  calibrated_on_training = summary_of(r$cov90_calibrated_on_training),
  calibrated_on_held_out = summary_of(r$cov90_calibrated_on_held_out)))
print(do.call(rbind, by_mode), row.names = FALSE)
cat("\nPer seed:\n")
print(runs, row.names = FALSE, digits = 3)
cat("\nOther warnings by class:", if (length(warned)) "" else "none", "\n")
if (length(warned)) print(table(warned))
cat(sprintf("\nelapsed %.1f min\n", as.numeric(difftime(Sys.time(), started, units = "mins"))))
