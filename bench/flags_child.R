#!/usr/bin/env Rscript
# Child process of bench/speed.R: the same few timings against one installed build, so that
# builds with different compiler flags (e.g. NCAM_CXXFLAGS=-march=native) can be compared.
#   Rscript flags_child.R lib reps
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
a <- commandArgs(TRUE)
lib <- a[1]; reps <- as.integer(a[2])
library(ncam, lib.loc = lib)
d <- simulate_toy(200000, seed = 1)
inp <- toy_engine_inputs(d)
X <- inp$X; B <- inp$B; spec <- inp$spec; sc <- inp$sc; adam <- inp$adam
el <- function(f) { t0 <- proc.time()[["elapsed"]]; f; proc.time()[["elapsed"]] - t0 }
out <- list()
for (pr in c("float", "double")) {
  st <- ncam:::ncam_trainer_new(spec, X[1:20000, ], B[1:20000, ], sc, 0:19999, adam, 1, 1L, pr)
  ncam:::ncam_trainer_epoch(st)
  out[[paste0("train_", pr)]] <- 20000 / median(vapply(seq_len(reps), function(i) el(ncam:::ncam_trainer_epoch(st)), 0))
  p <- ncam:::ncam_trainer_params(st)
  out[[paste0("post_", pr)]] <- 200000 / median(vapply(seq_len(reps), function(i)
    el(ncam:::ncam_predict_cpp(spec, p, X, B, sc, 1L, pr, "posterior", FALSE)), 0))
  out[[paste0("probe_", pr)]] <- median(vapply(1:3, function(i) ncam:::ncam_gemm_probe_cpp(64L, 64L, 128L, 200L, pr), 0))
}
cat(jsonlite::toJSON(out, auto_unbox = TRUE, digits = NA), "\n")
