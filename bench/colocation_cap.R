# Early stopping's capped validation NLL (R/train.R, capped_validation_nll): one cap for all
# validation rows (sessions up to 30) against one cap per pattern of observed readings (now).
# Short co-location protocol of bench/colocation.R (PurpleAir A and B beside AQS, the first 10 %
# of each site's days labelled, scored on the rest; covariates rh and temperature; ncam()
# defaults, seeds 1-10), with the reference's noise from the covariates (the default) and
# constant (ncam_control(reference_noise = "constant")). For each fit: RMSE, coverage of the
# 90 % prediction interval, best epoch and epochs run. Then the mechanism, on the pooled run of
# seed 6 with constant noise: per epoch, the labelled validation rows' mean NLL (working
# scale) as it is and as each cap leaves it.
# The pooled criterion is put in place of ncam()'s for this script only.
#
# Run (about 6 min): NCAM_LIB=<lib> nice -n 10 Rscript bench/colocation_cap.R > bench/colocation_cap.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
options(width = 200)
rmse <- function(p, y) sqrt(mean((p - y)^2))
protocol <- purpleair_short_protocol()
train <- protocol$train
test <- protocol$test
lm_rmse <- short_protocol_lm(protocol)$rmse
seeds <- 1:10

ns <- asNamespace("ncam")
per_pattern_criterion <- get("capped_validation_nll", ns)
# The criterion as it was: one median and MAD over all validation rows. Also records, per
# call, the labelled validation rows' mean NLL: plain, under the pooled cap, under a cap of
# their own (as per pattern).
trace <- new.env()
trace$rows <- list()
pooled_criterion <- function(spec, inputs, val_rows, nll_offset, precision, threads) {
  x <- lapply(inputs$x, `[`, val_rows)
  readings <- lapply(inputs$readings, `[`, val_rows)
  offset <- if (length(nll_offset) == 1L) rep(nll_offset, length(val_rows)) else nll_offset[val_rows]
  to_working <- log(inputs$scaling$b_scale) * Reduce(`+`, lapply(readings, function(v) !is.na(v)), 0)
  labelled <- !is.na(readings[[length(readings)]])
  function(params) {
    raw <- ns$call_engine(ns$ncam_predict_cpp(spec, params, x, readings, inputs$scaling, threads, precision, "posterior", FALSE, ns$use_simd()))$nll
    ok <- is.finite(raw)
    working <- raw - to_working
    cap <- stats::median(working[ok]) + 10 * stats::mad(working[ok])
    own_cap <- stats::median(working[labelled]) + 10 * stats::mad(working[labelled])
    trace$rows[[length(trace$rows) + 1L]] <- data.frame(
      labelled_rows = sum(labelled), mean_nll = mean(working[labelled]), pooled_cap = cap,
      capped_mean_pooled = mean(pmin(working[labelled], cap)), clipped_pooled = sum(working[labelled] > cap),
      own_cap = own_cap, capped_mean_own = mean(pmin(working[labelled], own_cap)), clipped_own = sum(working[labelled] > own_cap))
    c(capped = mean(pmin(working[ok], cap) + to_working[ok] + offset[ok]), plain = sum(raw[ok]) / length(raw) + mean(offset))
  }
}

fit_with <- function(criterion, noise, seed) {
  assignInNamespace("capped_validation_nll", criterion, ns)
  on.exit(assignInNamespace("capped_validation_nll", per_pattern_criterion, ns))
  fit <- ncam(pa_a + pa_b ~ rh + temperature, data = train, reference = "ref", seed = seed, threads = 1,
              control = ncam_control(reference_noise = noise))
  p <- suppressWarnings(predict(fit, test, interval = "prediction", level = 0.9), classes = "ncam_warning_extrapolation")
  data.frame(rmse = rmse(p$.pred, test$ref), cov90 = mean(test$ref >= p$.pred_lower & test$ref <= p$.pred_upper),
             best = fit$best_epoch, run = fit$epochs_run)
}

cat(sprintf("%d training rows (%d labelled), %d scored; lm(ref ~ pa_mean + rh + temperature) on the labelled days: RMSE %.3f\n",
            nrow(train), sum(!is.na(train$ref)), nrow(test), lm_rmse))
cat(sprintf("ncam %s from %s; R %s; %s\n", getNamespaceVersion("ncam"), dirname(system.file(package = "ncam")),
            getRversion(), format(Sys.time(), "%Y-%m-%d %H:%M")))
summary_rows <- list()
for (noise in c("covariates", "constant")) {
  per_seed <- do.call(rbind, lapply(seeds, function(s) {
    trace$rows <- list()
    pooled <- fit_with(pooled_criterion, noise, s)
    if (noise == "constant" && s == 6L) {
      mechanism <<- do.call(rbind, trace$rows)
      mechanism_best <<- pooled$best
    }
    own <- fit_with(per_pattern_criterion, noise, s)
    data.frame(seed = s, pooled_rmse = pooled$rmse, pooled_cov90 = pooled$cov90, pooled_best = pooled$best, pooled_run = pooled$run,
               pattern_rmse = own$rmse, pattern_cov90 = own$cov90, pattern_best = own$best, pattern_run = own$run)
  }))
  cat(sprintf("\nReference noise: %s\n", noise))
  print(per_seed, row.names = FALSE, digits = 4)
  for (cap in c("pooled", "pattern")) {
    r <- per_seed[[paste0(cap, "_rmse")]]
    summary_rows[[length(summary_rows) + 1L]] <- data.frame(
      reference_noise = noise, cap = cap, rmse = sprintf("%.3f [%.3f-%.3f]", mean(r), min(r), max(r)),
      vs_lm = sprintf("%+.1f %%", 100 * (mean(r) / lm_rmse - 1)), wins_vs_lm = sprintf("%d/%d", sum(r <= lm_rmse), length(r)),
      cov90 = sprintf("%.3f", mean(per_seed[[paste0(cap, "_cov90")]])),
      stopped_before_20 = sum(per_seed[[paste0(cap, "_best")]] < 20))
  }
}
cat("\nSeeds 1-10 (mean [min-max] RMSE; stopped_before_20 = fits whose best epoch is below 20):\n")
print(do.call(rbind, summary_rows), row.names = FALSE)

cat("\nMechanism: the pooled run of seed 6, constant noise; the labelled validation rows' NLL (working scale) per epoch\n")
cat("(epoch 0 = before training): mean as it is, the pooled cap and their mean under it (clipped: rows above it), and\n")
cat(sprintf("the same with a cap of their own. Early stopping kept epoch %d.\n", mechanism_best))
mechanism <- cbind(epoch = seq_len(nrow(mechanism)) - 1L, mechanism)
print(mechanism[mechanism$epoch <= 40 & (mechanism$epoch <= 10 | mechanism$epoch %% 5 == 0), ], row.names = FALSE, digits = 4)
