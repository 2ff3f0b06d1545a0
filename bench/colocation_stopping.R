# Is early stopping on a validation NLL dominated by unlabelled rows why the reference-anchored
# model loses to lm with a short co-location period (one of issue 8's candidate causes)?
# Short co-location protocol of bench/colocation.R (PurpleAir A and B beside AQS, the first 10 %
# of each site's days labelled, scored on the rest; covariates rh and temperature; ncam()
# defaults, seeds 1-5). Two early-stopping criteria on the same validation rows:
# - ncam()'s own: the validation rows' mean joint NLL (capped), about 90 % of them unlabelled;
# - the labelled validation rows' mean -log p(ref | A, B, x), the NLL of what predict() is
#   scored on: the joint NLL of the row minus that of its low-cost readings alone.
# The second is put in place of ncam()'s internal criterion function for this script only
# (ncam:::capped_validation_nll; the reference is the engine's last reading column).
#
# Run (about 1 min): NCAM_LIB=<lib> nice -n 10 Rscript bench/colocation_stopping.R > bench/colocation_stopping.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
options(width = 200)
rmse <- function(p, y) sqrt(mean((p - y)^2))
protocol <- purpleair_short_protocol()
train <- protocol$train
test <- protocol$test
lm_rmse <- rmse(stats::predict(stats::lm(ref ~ pa_mean + rh + temperature, data = protocol$data[protocol$first_days, ]), test), test$ref)

ns <- asNamespace("ncam")
joint_criterion <- get("capped_validation_nll", ns)
conditional_criterion <- function(spec, inputs, val_rows, nll_offset, precision, threads) {
  x <- lapply(inputs$x, `[`, val_rows)
  readings <- lapply(inputs$readings, `[`, val_rows)
  ref_col <- length(readings)
  labelled <- !is.na(readings[[ref_col]])
  sensors_only <- readings
  sensors_only[[ref_col]] <- rep(NA_real_, length(val_rows))
  row_nll <- function(params, cols) {
    ns$call_engine(ns$ncam_predict_cpp(spec, params, x, cols, inputs$scaling, threads, precision, "posterior", FALSE, ns$use_simd()))$nll
  }
  function(params) {
    full <- row_nll(params, readings)
    conditional <- mean((full - row_nll(params, sensors_only))[labelled])
    c(capped = conditional, plain = mean(full[is.finite(full)]))
  }
}
fit_with <- function(criterion, seed) {
  unlockBinding("capped_validation_nll", ns)
  assign("capped_validation_nll", criterion, envir = ns)
  on.exit(assign("capped_validation_nll", joint_criterion, envir = ns))
  suppressWarnings(ncam(pa_a + pa_b ~ rh + temperature, data = train, reference = "ref", seed = seed, threads = 1))
}
seeds <- 1:5
tab <- do.call(rbind, lapply(list(joint = joint_criterion, conditional = conditional_criterion), function(criterion) {
  runs <- lapply(seeds, function(s) {
    fit <- fit_with(criterion, s)
    c(rmse = rmse(suppressWarnings(predict(fit, test))$.pred, test$ref), best_epoch = glance(fit)$best_epoch)
  })
  r <- vapply(runs, `[[`, 1, "rmse")
  data.frame(rmse_per_seed = paste(sprintf("%.3f", r), collapse = " "), mean = round(mean(r), 3),
             vs_lm = sprintf("%+.1f %%", 100 * (mean(r) / lm_rmse - 1)), wins = sprintf("%d/%d", sum(r < lm_rmse), length(r)),
             best_epochs = paste(vapply(runs, `[[`, 1, "best_epoch"), collapse = " "))
}))
tab <- cbind(criterion = c("joint NLL of all validation rows (ncam())", "-log p(ref | A, B, x), labelled validation rows"), tab)
cat(sprintf("%d training rows (%d labelled), %d scored; lm(ref ~ pa_mean + rh + temperature) on the labelled days: RMSE %.3f\n\n",
            nrow(train), sum(!is.na(train$ref)), nrow(test), lm_rmse))
cat("Early-stopping criterion, ncam() defaults otherwise (seeds 1-5):\n")
print(tab, row.names = FALSE)
cat(sprintf("\nncam %s from %s; R %s; %s\n", utils::packageVersion("ncam"), dirname(find.package("ncam")),
            getRversion(), format(Sys.time(), "%Y-%m-%d %H:%M")))
