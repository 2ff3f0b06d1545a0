# Knit the precomputed real-data vignette.
#
# vignettes/air-quality.Rmd.orig needs the real data sets, which are not part of the
# package; this script knits it into vignettes/air-quality.Rmd (plain markdown with the
# results and figures under vignettes/figures/), which R CMD build then renders without
# the data.
#
# Run from the package root, with the package installed:
#   NCAM_SHARED_DATA=/path/to/shared/data Rscript vignettes/precompute.R
# Without NCAM_SHARED_DATA, "../shared/data" (relative to the package root) and
# "/work/shared/data" are tried.

if (!file.exists("vignettes/air-quality.Rmd.orig")) {
  stop("Run this script from the package root: Rscript vignettes/precompute.R")
}
if (!nzchar(Sys.getenv("NCAM_SHARED_DATA"))) {
  candidates <- c("../shared/data", "/work/shared/data")
  found <- candidates[dir.exists(candidates)]
  if (!length(found)) {
    stop("Data folder not found: set NCAM_SHARED_DATA to the folder holding the data sets.")
  }
  Sys.setenv(NCAM_SHARED_DATA = normalizePath(found[1]))
}
message("Reading data from ", Sys.getenv("NCAM_SHARED_DATA"))

old <- setwd("vignettes")
on.exit(setwd(old), add = TRUE)
unlink(Sys.glob("figures/air-quality-*"))
dir.create("figures", showWarnings = FALSE)
start <- Sys.time()
invisible(knitr::knit("air-quality.Rmd.orig", output = "air-quality.Rmd", envir = new.env(), quiet = TRUE))
message(sprintf("Knitted air-quality.Rmd in %.1f minutes",
                as.numeric(difftime(Sys.time(), start, units = "mins"))))

# The knitted vignette must not need the data: no R chunks may remain.
out <- readLines("air-quality.Rmd")
if (any(grepl("^```\\{r", out))) stop("air-quality.Rmd still contains R chunks.")
figs <- Sys.glob("figures/air-quality-*")
message(sprintf("Figures: %d files, %.0f KB", length(figs), sum(file.size(figs)) / 1024))
