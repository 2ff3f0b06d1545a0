options(width = 200)
# Does averaging ncam() fits from different seeds close the short co-location gap to lm?
# (issue 8; the short protocol of bench/colocation.R: PurpleAir A and B beside AQS, the first
# 10 % of each site's days labelled, scored on the rest, package defaults.) Ten fits, seeds
# 1-10; ensembles of k = 1, 2, 5 and 10 fits from disjoint groups of seeds: the mean of their
# .pred, and a 90 % interval from the moments of the mixture of their "prediction" intervals
# (variance = mean of the variances + variance of the means; each fit's variance is read off
# its own interval as a normal one). If the seeds' errors were independent, averaging would
# shrink their spread; this measures how much of NCAM's error is shared by every seed.
#
# Part 2 fits training settings not tried before, seeds 1-5 each.
#
# Run (about 4 min): NCAM_LIB=<lib> NCAM_SHARED_DATA=<data> nice -n 10 Rscript bench/colocation_ensemble.R > bench/colocation_ensemble.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
protocol <- purpleair_short_protocol()
test <- protocol$test
lm_rmse <- short_protocol_lm(protocol)$rmse
rmse <- function(p, y) sqrt(mean((p - y)^2))
z90 <- stats::qnorm(0.95)

seeds <- 1:10
runs <- lapply(seeds, function(seed) {
  fit <- suppressWarnings(ncam(pa_a + pa_b ~ rh + temperature, data = protocol$train, reference = "ref",
                               seed = seed, threads = 1))
  p <- suppressWarnings(predict(fit, test, interval = "prediction", level = 0.9))
  list(mean = p$.pred, var = ((p$.pred_upper - p$.pred_lower) / (2 * z90))^2)
})
means <- sapply(runs, `[[`, "mean")
vars <- sapply(runs, `[[`, "var")

ensemble_scores <- function(k) {
  groups <- split(seq_along(seeds), ceiling(seq_along(seeds) / k))
  t(vapply(groups, function(g) {
    m <- rowMeans(means[, g, drop = FALSE])
    v <- rowMeans(vars[, g, drop = FALSE]) + if (length(g) > 1) apply(means[, g, drop = FALSE], 1, stats::var) * (length(g) - 1) / length(g) else 0
    c(rmse = rmse(m, test$ref), cov90 = mean(abs(test$ref - m) <= z90 * sqrt(v)))
  }, numeric(2)))
}
cat(sprintf("%d scored days; lm(ref ~ pa_mean + rh + temperature) on the labelled days: RMSE %.3f\n\n",
            nrow(test), lm_rmse))
cat("Ensembles of k fits (disjoint groups of seeds 1-10):\n")
table <- do.call(rbind, lapply(c(1, 2, 5, 10), function(k) {
  s <- ensemble_scores(k)
  data.frame(k = k, ensembles = nrow(s), rmse_per_ensemble = paste(sprintf("%.3f", s[, "rmse"]), collapse = " "),
             mean_rmse = round(mean(s[, "rmse"]), 3), vs_lm = sprintf("%+.1f %%", 100 * (mean(s[, "rmse"]) / lm_rmse - 1)),
             cov90 = round(mean(s[, "cov90"]), 3))
}))
print(table, row.names = FALSE)
errors <- means - test$ref
cat(sprintf("\nCorrelation of the seeds' errors on the scored days: median %.3f (range %.3f-%.3f)\n",
            stats::median(stats::cor(errors)[upper.tri(diag(length(seeds)))]),
            min(stats::cor(errors)[upper.tri(diag(length(seeds)))]), max(stats::cor(errors)[upper.tri(diag(length(seeds)))])))
cat(sprintf("Share of the mean single fit's squared error shared by all seeds (ensemble of 10 / mean of singles): %.3f\n",
            mean(rowMeans(errors)^2) / mean(errors^2)))

# Part 2: training settings not tried in bench/colocation_mechanism.R section 10, seeds 1-5 each.
cat("\nTraining settings not tried in colocation_mechanism.R section 10 (seeds 1-5; default first):\n")
settings <- list(
  "defaults" = list(),
  "lambda_var = 0" = list(lambda_var = 0),
  "lambda_var = 1e-4" = list(lambda_var = 1e-4),
  "learn_rate = 3e-4, epochs = 900" = list(learn_rate = 3e-4, epochs = 900L),
  "hidden = c(128, 128, 128)" = list(hidden = c(128L, 128L, 128L)),
  "hidden = c(32, 32, 32)" = list(hidden = c(32L, 32L, 32L)),
  "hidden = c(64, 64)" = list(hidden = c(64L, 64L)),
  "validation = 0 (300 epochs)" = list(validation = 0),
  "validation = 0, epochs = 100" = list(validation = 0, epochs = 100L),
  "batch_size = 32" = list(batch_size = 32L),
  "batch_size = 1024" = list(batch_size = 1024L),
  "stop_iter = 100, epochs = 1000" = list(stop_iter = 100L, epochs = 1000L)
)
setting_rows <- lapply(names(settings), function(nm) {
  r <- vapply(1:5, function(seed) {
    fit <- suppressWarnings(do.call(ncam, c(list(pa_a + pa_b ~ rh + temperature, data = protocol$train,
                                                 reference = "ref", seed = seed, threads = 1), settings[[nm]])))
    rmse(suppressWarnings(predict(fit, test))$.pred, test$ref)
  }, numeric(1))
  data.frame(setting = nm, rmse_per_seed = paste(sprintf("%.3f", r), collapse = " "), mean = round(mean(r), 3),
             vs_lm = sprintf("%+.1f %%", 100 * (mean(r) / lm_rmse - 1)))
})
print(do.call(rbind, setting_rows), row.names = FALSE)
