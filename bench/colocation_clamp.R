# Is the short co-location's loss the networks extrapolating in the covariates? Issue 8's short
# protocol (bench/colocation.R: PurpleAir A and B beside AQS, the first 10 % of each site's days
# labelled, scored on the rest; covariates rh and temperature; ncam() defaults, seeds 1-5), fitted
# and predicted with rh and temperature clamped to their range on the labelled days, so that
# every head sees, beyond that range, its value at the range's edge (as a tree would) rather than
# the network's extrapolation. lm(ref ~ pa_mean + rh + temperature) on the same clamped
# covariates beside it.
#
# Run (about 1 min): NCAM_LIB=<lib> nice -n 10 Rscript bench/colocation_clamp.R > bench/colocation_clamp.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
rmse <- function(p, y) sqrt(mean((p - y)^2))
protocol <- purpleair_short_protocol()
labelled <- protocol$data[protocol$first_days, ]
covariates <- c("rh", "temperature")
ranges <- lapply(stats::setNames(covariates, covariates), function(v) range(labelled[[v]], na.rm = TRUE))
clamp <- function(d) {
  for (v in covariates) d[[v]] <- pmin(pmax(d[[v]], ranges[[v]][1]), ranges[[v]][2])
  d
}
outside <- Reduce(`|`, lapply(covariates, function(v) protocol$test[[v]] < ranges[[v]][1] | protocol$test[[v]] > ranges[[v]][2]))
cat(sprintf("ncam %s; %d labelled days, %d scored, %d of them (%.1f %%) with rh or temperature outside the labelled range\n",
            utils::packageVersion("ncam"), length(protocol$first_days), nrow(protocol$test), sum(outside), 100 * mean(outside)))
seeds <- 1:5
fit_score <- function(train, test, seed) {
  fit <- ncam(pa_a + pa_b ~ rh + temperature, data = train, reference = "ref", seed = seed, threads = 1)
  rmse(suppressWarnings(predict(fit, test), classes = "ncam_warning_extrapolation")$.pred, protocol$test$ref)
}
as_given <- vapply(seeds, function(s) fit_score(protocol$train, protocol$test, s), numeric(1))
clamped <- vapply(seeds, function(s) fit_score(clamp(protocol$train), clamp(protocol$test), s), numeric(1))
lm_given <- short_protocol_lm(protocol)$rmse
lm_clamped <- rmse(stats::predict(stats::lm(ref ~ pa_mean + rh + temperature, data = clamp(labelled)), clamp(protocol$test)),
                   protocol$test$ref)
out <- data.frame(covariates = c("as given", "clamped to the labelled range"),
                  ncam_rmse_seeds_1_5 = c(paste(sprintf("%.3f", as_given), collapse = " "), paste(sprintf("%.3f", clamped), collapse = " ")),
                  ncam_mean = round(c(mean(as_given), mean(clamped)), 3), lm_rmse = round(c(lm_given, lm_clamped), 3))
print(out, row.names = FALSE)
