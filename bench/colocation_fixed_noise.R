options(width = 200)
# Issue 8's short co-location (bench/colocation.R's protocol, seeds 1-5) with the reference's
# noise held at a fixed sd instead of learned: section 4 of colocation_mechanism.R found linear
# heads level with lm at a small fixed sd (0.224 ug/m3: 2.21, slope on pa_mean 0.471 against
# 0.43 for lm and 0.40 for the default network). This asks the same of the default network.
# Holding the noise needs an engine change that the package does not carry: build a throwaway
# copy with bench/colocation_fixed_noise.patch applied (`git apply`), which holds the anchor's
# noise output bias where it starts when NCAM_FIX_REF is set and starts it at
# getOption("ncam.fix_ref_sd") (ug/m3) under ncam_control(reference_noise = "constant"). An sd
# of 0 below is the package's own constant (learned, then profiled), for comparison.
#
# Run (about 8 min): NCAM_LIB=<patched build> NCAM_SHARED_DATA=<data> nice -n 10 Rscript bench/colocation_fixed_noise.R > bench/colocation_fixed_noise.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
protocol <- purpleair_short_protocol()
test <- protocol$test
lm_rmse <- short_protocol_lm(protocol)$rmse
rmse <- function(p, y) sqrt(mean((p - y)^2))
cat(sprintf("%d scored days; lm(ref ~ pa_mean + rh + temperature) on the labelled days: RMSE %.3f\n\n", nrow(test), lm_rmse))

# The clamp's floor is lowered so that the smallest sd is reachable on the working scale.
control <- ncam_control(reference_noise = "constant", logvar_range = c(-9, 4))
rows <- lapply(c(0.224, 0.5, 1, 0), function(sd) {
  if (sd > 0) {
    Sys.setenv(NCAM_FIX_REF = "1")
    options(ncam.fix_ref_sd = sd)
  } else {
    Sys.unsetenv("NCAM_FIX_REF")
    options(ncam.fix_ref_sd = NULL)
  }
  r <- vapply(1:5, function(seed) {
    fit <- suppressWarnings(ncam(pa_a + pa_b ~ rh + temperature, data = protocol$train, reference = "ref",
                                 seed = seed, threads = 1, control = control))
    p <- suppressWarnings(predict(fit, test, interval = "prediction", level = 0.9))
    c(rmse(p$.pred, test$ref), mean(test$ref >= p$.pred_lower & test$ref <= p$.pred_upper))
  }, numeric(2))
  data.frame(reference_sd = if (sd > 0) sprintf("%.3f (fixed)", sd) else "learned constant",
             rmse_per_seed = paste(sprintf("%.3f", r[1, ]), collapse = " "), mean = round(mean(r[1, ]), 3),
             vs_lm = sprintf("%+.1f %%", 100 * (mean(r[1, ]) / lm_rmse - 1)), cov90 = round(mean(r[2, ]), 3))
})
print(do.call(rbind, rows), row.names = FALSE)
