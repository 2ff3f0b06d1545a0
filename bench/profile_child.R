#!/usr/bin/env Rscript
# Child process of bench/speed.R, run under perf: a workload of the engine alone.
#   Rscript profile_child.R train|predict float|double threads [lib]
# train: 15 trainer epochs on 20,000 toy rows (H=64, batch 256); predict: 3 raw posterior
# passes over 200,000 rows (H=64, freshly initialised weights).
a <- commandArgs(TRUE)
what <- a[1]; precision <- a[2]; threads <- as.integer(a[3])
lib <- if (length(a) >= 4 && nzchar(a[4])) a[4] else ""
if (nzchar(lib)) library(ncam, lib.loc = lib) else library(ncam)
n <- if (what == "train") 20000L else 200000L
d <- simulate_toy(n, seed = 1)
X <- as.matrix(d[, paste0("x", 1:4)]); B <- as.matrix(d[, paste0("sensor_", 0:2)])
spec <- list(n_covariates = 4L, n_sensors = 3L, hidden = c(64L, 64L, 64L), parameterization = 0L, anchor = 0L,
             logvar_min = -5, logvar_max = 4, lambda_prior = 0, lambda_sensor = 0)
sc <- list(x_center = unname(colMeans(X)), x_scale = unname(apply(X, 2, sd)), b_shift = mean(B[, 1]),
           b_scale = sd(B[, 1]))
if (what == "train") {
  adam <- list(learn_rate = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0, clip_norm = 0,
               batch_size = 256L)
  st <- ncam:::ncam_trainer_new(spec, X, B, sc, seq_len(n) - 1L, adam, 1, threads, precision)
  for (e in 1:15) ncam:::ncam_trainer_epoch(st)
} else {
  p <- ncam:::ncam_init_params_cpp(spec, 1)
  for (r in 1:3) ncam:::ncam_predict_cpp(spec, p, X, B, sc, threads, precision, FALSE)
}
