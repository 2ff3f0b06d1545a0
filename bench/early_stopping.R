options(width = 200)
# Early stopping with spikes among the validation rows. simulate_colocation(days = 56, seed = 10)
# holds a few spike readings (6-65 noise sd off) that the screen keeps (under its 50 robust
# spreads); with random validation rows, some seeds draw one into them. Each seed: ncam() with
# package defaults and the reference, scored after the co-location (days 29-56) against the
# truth: best epoch, RMSE and the coverage of the truth by 90 % credible intervals (the
# reference is not observed after the co-location in these data).
#
# Run (under 1 min): NCAM_LIB=<lib> [NCAM_LIB_OLD=<lib of an earlier build>] Rscript bench/early_stopping.R > bench/early_stopping.out
# With NCAM_LIB_OLD, each build runs in its own child process, the same seeds, one after the other.

one_build <- function(lib) {
  code <- sprintf('
    suppressPackageStartupMessages(library(ncam, lib.loc = %s))
    d <- simulate_colocation(days = 56, seed = 10)
    after <- d$date >= min(d$date) + 28 * 86400
    rows <- lapply(1:6, function(s) {
      fit <- suppressWarnings(ncam(pa_a + pa_b + opc ~ rh + temperature, data = d, reference = "ref", seed = s, threads = 1))
      p <- suppressWarnings(predict(fit, d[after, ], interval = "credible"))
      truth <- d$truth[after]
      data.frame(seed = s, best_epoch = fit$best_epoch, rmse_truth = sqrt(mean((p$.pred - truth)^2)),
                 cov90_truth = mean(truth >= p$.pred_lower & truth <= p$.pred_upper),
                 mean_width = mean(p$.pred_upper - p$.pred_lower))
    })
    out <- do.call(rbind, rows)
    cat(sprintf("ncam %%s from %%s\\n", getNamespaceVersion("ncam"), dirname(system.file(package = "ncam"))))
    print(out, row.names = FALSE, digits = 3)
  ', if (nzchar(lib)) deparse(lib) else "NULL")
  system2(file.path(R.home("bin"), "Rscript"), c("-e", shQuote(code)))
}
cat("early stopping with spikes among the validation rows;", format(Sys.time(), "%Y-%m-%d %H:%M"), "\n\n")
cat("This build:\n")
one_build(Sys.getenv("NCAM_LIB"))
if (nzchar(Sys.getenv("NCAM_LIB_OLD"))) {
  cat("\nThe build before (NCAM_LIB_OLD):\n")
  one_build(Sys.getenv("NCAM_LIB_OLD"))
}
