# How much should the labelled rows weigh? Issue 8's third candidate cause ("how the anchor's
# likelihood is weighted against the other sensors'"), asked of the default network: section 1 of
# bench/colocation_mechanism.R asked it of linear heads only, where giving the sensors' own
# likelihood less weight helped.
# Short co-location protocol of bench/colocation.R (PurpleAir A and B beside AQS, the first 10 %
# of each site's days labelled, scored on the rest; covariates rh and temperature; ncam()
# defaults, seeds 1-5). Weights are whole-row repeats in the training data, so each variant
# weighs a row's whole joint likelihood (its reference and its low-cost readings):
# - labelled training rows repeated 2 or 4 times (more weight on the reference's rows);
# - unlabelled training rows repeated twice (less weight on them, relatively);
# - no repeats, but after early stopping a refit on every row (validation = 0) for the best
#   epoch's number of epochs, so the 10 % validation rows also train (58 of them labelled);
#   without validation rows the refit keeps its epoch of least training loss (best_epochs).
# The validation rows are ncam()'s own default draw for the seed (its resolve_validation())
# and are never repeated, so the first variant is the default fit, row for row (checked below by
# fitting the defaults again).
#
# Run (about 5 min): NCAM_LIB=<lib> nice -n 10 Rscript bench/colocation_weighting.R > bench/colocation_weighting.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
options(width = 200)
rmse <- function(p, y) sqrt(mean((p - y)^2))
protocol <- purpleair_short_protocol()
train <- protocol$train
test <- protocol$test
lm_rmse <- short_protocol_lm(protocol)$rmse
seeds <- 1:5
formula <- pa_a + pa_b ~ rh + temperature

# ncam()'s validation rows for `seed` (every training row here is usable).
default_validation <- function(seed, n) ncam:::resolve_validation(0.1, n, rep(TRUE, n), seed)

# RMSE and 90 % prediction coverage on the scored days of one fit whose training data repeat
# labelled rows `labelled_times` times and unlabelled ones `unlabelled_times` times.
weighted_fit <- function(seed, labelled_times = 1, unlabelled_times = 1) {
  validation <- default_validation(seed, nrow(train))
  labelled <- !is.na(train$ref)
  repeats <- c(rep(which(labelled & !validation), labelled_times - 1),
               rep(which(!labelled & !validation), unlabelled_times - 1))
  data <- rbind(train, train[repeats, ])
  fit <- suppressWarnings(ncam(formula, data = data, reference = "ref", seed = seed, threads = 1,
                               validation = c(validation, logical(length(repeats)))))
  score(fit, seed)
}

score <- function(fit, seed) {
  pr <- suppressWarnings(predict(fit, test, interval = "prediction", level = 0.9))
  data.frame(seed = seed, rmse = rmse(pr$.pred, test$ref),
             cov90 = mean(test$ref >= pr$.pred_lower & test$ref <= pr$.pred_upper),
             best_epoch = fit$best_epoch)
}

refit_on_all_rows <- function(seed) {
  first <- ncam(formula, data = train, reference = "ref", seed = seed, threads = 1)
  # Without validation rows the refit keeps its epoch of least training loss, and warns when
  # that is the last (still improving).
  again <- suppressWarnings(ncam(formula, data = train, reference = "ref", seed = seed, threads = 1,
                                 validation = 0, epochs = max(first$best_epoch, 1L)))
  score(again, seed)
}

variants <- list(
  "no repeats (ncam() defaults)" = function(s) weighted_fit(s),
  "labelled rows x2" = function(s) weighted_fit(s, labelled_times = 2),
  "labelled rows x4" = function(s) weighted_fit(s, labelled_times = 4),
  "unlabelled rows x2" = function(s) weighted_fit(s, unlabelled_times = 2),
  "refit on all rows for the best epoch" = refit_on_all_rows
)
runs <- lapply(variants, function(f) do.call(rbind, lapply(seeds, f)))
stopifnot(isTRUE(all.equal(runs[[1]]$rmse, vapply(seeds, function(s) {
  score(ncam(formula, data = train, reference = "ref", seed = s, threads = 1), s)$rmse
}, numeric(1)))))  # the validation draw above is ncam()'s own

cat(sprintf("%d training rows (%d labelled), %d scored; lm RMSE %.3f; seeds %s\n\n", nrow(train),
            sum(!is.na(train$ref)), nrow(test), lm_rmse, paste(seeds, collapse = ", ")))
table <- do.call(rbind, lapply(names(runs), function(v) {
  r <- runs[[v]]
  data.frame(variant = v, rmse_per_seed = paste(sprintf("%.3f", r$rmse), collapse = " "),
             mean = round(mean(r$rmse), 3), vs_lm = sprintf("%+.1f %%", 100 * (mean(r$rmse) / lm_rmse - 1)),
             seeds_at_or_below_lm = sum(r$rmse <= lm_rmse), cov90 = round(mean(r$cov90), 3),
             best_epochs = paste(r$best_epoch, collapse = " "))
}))
print(table, row.names = FALSE, right = FALSE)
cat(sprintf("\nncam %s from %s; %s\n", utils::packageVersion("ncam"), dirname(system.file(package = "ncam")),
            format(Sys.time(), "%Y-%m-%d %H:%M")))
