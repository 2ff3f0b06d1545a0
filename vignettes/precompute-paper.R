# Knit the vignette "Reproducing the NCAM paper".
#
# vignettes/paper.Rmd.orig reads the results that bench/paper_toy.R saved (it refits nothing);
# this script knits it into vignettes/paper.Rmd (plain markdown, figures under
# vignettes/figures/paper-*.png), which R CMD build then renders without the bench run.
#
# Run from the package root, with the package and ggplot2 installed:
#   nice -n 10 Rscript bench/paper_toy.R --cores 2 --save vignettes/paper-toy-results.rds
#   Rscript vignettes/precompute-paper.R
# NCAM_PAPER_RESULTS names another results file.

if (!file.exists("vignettes/paper.Rmd.orig")) {
  stop("Run this script from the package root: Rscript vignettes/precompute-paper.R")
}
results <- Sys.getenv("NCAM_PAPER_RESULTS", "vignettes/paper-toy-results.rds")
if (!file.exists(results)) {
  stop("Results not found: run bench/paper_toy.R --save ", results, " first, or set NCAM_PAPER_RESULTS.")
}
Sys.setenv(NCAM_PAPER_RESULTS = normalizePath(results))
if (readRDS(results)$settings$quick) warning("These results come from a --quick run (n = 20,000).")

old <- setwd("vignettes")
on.exit(setwd(old), add = TRUE)
unlink(Sys.glob("figures/paper-*"))
dir.create("figures", showWarnings = FALSE)
invisible(knitr::knit("paper.Rmd.orig", output = "paper.Rmd", envir = new.env(), quiet = TRUE))

# The knitted vignette must not need the results: no R chunks may remain.
out <- readLines("paper.Rmd")
if (any(grepl("^```\\{r", out))) stop("paper.Rmd still contains R chunks.")
figs <- Sys.glob("figures/paper-*")
message(sprintf("Knitted paper.Rmd; figures: %d files, %.0f KB", length(figs), sum(file.size(figs)) / 1024))
