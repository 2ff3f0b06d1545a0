# Knit the precomputed real-data vignettes.
#
# vignettes/{colocation,senseurcity,air-quality}.Rmd.orig need the real data sets, which are
# not part of the package; this script knits each into vignettes/<name>.Rmd (plain markdown
# with the results and figures under vignettes/figures/<name>-*.png), which R CMD build then
# renders without the data.
#
# Run from the package root, with the package installed:
#   NCAM_SHARED_DATA=/path/to/shared/data Rscript vignettes/precompute.R [name ...]
# where the names (default: all three) are colocation, senseurcity and air-quality.
# Without NCAM_SHARED_DATA, "../shared/data" (relative to the package root) and
# "/work/shared/data" are tried.

vignettes <- c("colocation", "senseurcity", "air-quality")
chosen <- commandArgs(trailingOnly = TRUE)
if (length(chosen) == 0L) chosen <- vignettes
unknown <- setdiff(chosen, vignettes)
if (length(unknown)) {
  stop("Unknown vignette name(s): ", toString(unknown), ". Choose from ", toString(vignettes), ".")
}
if (!all(file.exists(file.path("vignettes", paste0(chosen, ".Rmd.orig"))))) {
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
message("ncam ", packageVersion("ncam"), " from ", dirname(find.package("ncam")))

old <- setwd("vignettes")
on.exit(setwd(old), add = TRUE)
dir.create("figures", showWarnings = FALSE)
for (name in chosen) {
  unlink(Sys.glob(sprintf("figures/%s-*", name)))
  start <- Sys.time()
  knitr::knit(paste0(name, ".Rmd.orig"), output = paste0(name, ".Rmd"), envir = new.env(),
              quiet = TRUE)
  message(sprintf("Knitted %s.Rmd in %.1f minutes", name,
                  as.numeric(difftime(Sys.time(), start, units = "mins"))))
  # The knitted vignette must not need the data: no R chunks may remain.
  out <- readLines(paste0(name, ".Rmd"))
  if (any(grepl("^```\\{r", out))) stop(name, ".Rmd still contains R chunks.")
  figs <- Sys.glob(sprintf("figures/%s-*", name))
  message(sprintf("Figures: %d files, %.0f KB", length(figs), sum(file.size(figs)) / 1024))
}
