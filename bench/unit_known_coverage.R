# Coverage of "prediction" intervals at units with reference rows when the units differ much (the
# figure of ?ncam, argument unit): 8 simulated sites biased by -3 to 3 (both sensors alike, on
# top of gains 1.5 and 1.3), 240 days each with the reference on the first 60; ncam(s1 + s2 ~ rh,
# reference = "ref", unit = "site", hidden = 8, epochs = 150, learn_rate = 0.01), one fit per data
# set (seeds 1-10); scored on days 61-240 against new reference readings (the truth plus the
# reference's noise, sd 0.3), from the simulator of the tests (tests/testthat/helper-unit-sites.R).
#
# Run (under 1 min): NCAM_LIB=<lib> Rscript bench/unit_known_coverage.R > bench/unit_known_coverage.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
started <- Sys.time()
# The simulator of the tests (tests/testthat/helper-unit-sites.R), with eight sites.
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))),
                 "..", "tests", "testthat", "helper-unit-sites.R"))
site_data <- function(seed) unit_sites_data(seed, site_bias = stats::setNames(seq(-3, 3, length.out = 8), letters[1:8]))
warned <- character()  # warnings' classes, counted and shown below
runs <- withCallingHandlers(do.call(rbind, lapply(1:10, function(seed) {
  d <- site_data(seed)
  fit <- ncam(s1 + s2 ~ rh, d, reference = "ref", unit = "site", hidden = 8L, epochs = 150L,
              learn_rate = 0.01, seed = 1, threads = 1)
  later <- d[d$day > 60, ]
  new_reading <- later$truth + stats::rnorm(nrow(later), sd = 0.3)
  p <- predict(fit, later, interval = "prediction", level = 0.9)
  data.frame(seed = seed, between_unit_sd = sqrt(fit$unit_offsets$tau2),
             cov90 = mean(new_reading >= p$.pred_lower & new_reading <= p$.pred_upper))
})), warning = function(w) {
  warned <<- c(warned, class(w)[1])
  invokeRestart("muffleWarning")
})
cat(sprintf("ncam %s from %s; %s\n\n", getNamespaceVersion("ncam"), dirname(system.file(package = "ncam")),
            format(Sys.time(), "%Y-%m-%d %H:%M")))
print(runs, row.names = FALSE, digits = 3)
cat(sprintf("\nCoverage at level 0.9 of new reference readings at the 8 known sites: mean %.3f, range %.3f-%.3f over 10 data sets\n",
            mean(runs$cov90), min(runs$cov90), max(runs$cov90)))
cat("\nWarnings by class:", if (length(warned)) "" else "none", "\n")
if (length(warned)) print(table(warned))
cat(sprintf("\nelapsed %.1f min\n", as.numeric(difftime(Sys.time(), started, units = "mins"))))
