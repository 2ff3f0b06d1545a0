#!/usr/bin/env Rscript
# Child process of bench/speed.R, run under perf: a workload of the engine alone.
#   Rscript profile_child.R train|predict float|double threads [lib]
# train: 15 trainer epochs on 20,000 toy rows (H=64, batch 256); predict: 3 raw posterior
# passes over 200,000 rows (H=64, freshly initialised weights).
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
a <- commandArgs(TRUE)
what <- a[1]; precision <- a[2]; threads <- as.integer(a[3])
lib <- if (length(a) >= 4 && nzchar(a[4])) a[4] else ""
if (nzchar(lib)) library(ncam, lib.loc = lib) else library(ncam)
n <- if (what == "train") 20000L else 200000L
d <- simulate_toy(n, seed = 1)
inp <- toy_engine_inputs(d)
X <- inp$X; B <- inp$B; spec <- inp$spec; sc <- inp$sc; adam <- inp$adam
if (what == "train") {
  st <- ncam:::ncam_trainer_new(spec, X, B, sc, seq_len(n) - 1L, adam, 1, threads, precision)
  for (e in 1:15) ncam:::ncam_trainer_epoch(st)
} else {
  p <- ncam:::ncam_init_params_cpp(spec, 1)
  for (r in 1:3) ncam:::ncam_predict_cpp(spec, p, X, B, sc, threads, precision, "posterior", FALSE)
}
