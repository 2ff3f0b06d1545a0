# The hours read_senseurcity_antwerp(source = "join") keeps that the co-location tables
# (source = "colocated") leave out, and their box readings (the figures of
# ?read_senseurcity_antwerp): how many, per station, how many hold a box reading of exactly 0
# or above 1000 ug/m3, and the median of each box and of the reference there.
#
# Run (a few seconds): NCAM_LIB=<lib> [NCAM_SHARED_DATA=<folder>] Rscript bench/senseurcity_join.R > bench/senseurcity_join.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source("bench/common.R")
dir <- file.path(shared_data_dir(), "senseurcity-antwerp-ineris")
colocated <- as.data.frame(read_senseurcity_antwerp(dir, "colocated"))
warned <- character()  # warnings' classes, counted and shown below
joined <- withCallingHandlers(as.data.frame(read_senseurcity_antwerp(dir, "join")), warning = function(w) {
  warned <<- c(warned, class(w)[1])
  invokeRestart("muffleWarning")
})
hour_key <- function(d) paste(d$station, format(d$date, "%Y-%m-%d %H", tz = "UTC"))
extra <- joined[!hour_key(joined) %in% hour_key(colocated), ]
at_zero <- function(s) s$box_1 %in% 0 | s$box_2 %in% 0
above_1000 <- function(s) (!is.na(s$box_1) & s$box_1 > 1000) | (!is.na(s$box_2) & s$box_2 > 1000)
per_station <- do.call(rbind, lapply(split(extra, extra$station), function(s) data.frame(
  station = s$station[1], hours = nrow(s), with_a_box_at_0 = sum(at_zero(s)), with_a_box_above_1000 = sum(above_1000(s)),
  median_box_1 = stats::median(s$box_1, na.rm = TRUE), median_box_2 = stats::median(s$box_2, na.rm = TRUE),
  median_ref = stats::median(s$ref, na.rm = TRUE))))
cat(sprintf("ncam %s from %s; %s\n\n", getNamespaceVersion("ncam"), dirname(system.file(package = "ncam")),
            format(Sys.time(), "%Y-%m-%d %H:%M")))
cat(sprintf("colocated: %d station-hours; join: %d; in the join only: %d, of which %d hold a box at exactly 0 or above 1000 ug/m3\n\n",
            nrow(colocated), nrow(joined), nrow(extra), sum(at_zero(extra) | above_1000(extra))))
print(per_station, row.names = FALSE, digits = 4)
cat(sprintf("\nReference median over those hours: %.1f ug/m3\n", stats::median(extra$ref, na.rm = TRUE)))
cat("\nWarnings of the join by class:", if (length(warned)) "" else "none", "\n")
if (length(warned)) print(table(warned))
