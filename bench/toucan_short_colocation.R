# A short co-location of hourly readings (the figures of ?predict.ncam, argument interval): EPA's
# Toucan data (read_toucan(); three units, August 2019), rows with RH, temperature and at least
# one unit's reading. The reference is kept for the first 10 days from the file's first hour;
# ncam(rt01 + rt02 + rt03 ~ rh + temperature, reference = "ref"), package defaults, seeds 1-3.
# (a) Fitted with the reference of days 0-10: coverage of the later reference hours by the 90 %
# "prediction" intervals. (b) Fitted with the reference of days 0-7 only, calibrate(method =
# "split") on days 7-10: coverage of the same later hours.
#
# Run (under 1 min): NCAM_LIB=<lib> [NCAM_SHARED_DATA=<folder>] Rscript bench/toucan_short_colocation.R > bench/toucan_short_colocation.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source("bench/common.R")
started <- Sys.time()
toucan <- as.data.frame(read_toucan(file.path(shared_data_dir(), "epa-sensortoolkit-toucan", "toucan_hourly_merged.csv")))
first_hour <- min(toucan$date)
sensors <- c("rt01", "rt02", "rt03")
toucan <- toucan[stats::complete.cases(toucan[c("rh", "temperature")]) & rowSums(!is.na(toucan[sensors])) > 0, ]
day <- as.numeric(difftime(toucan$date, first_hour, units = "days"))
later <- toucan[day >= 10 & !is.na(toucan$ref), ]
with_reference_until <- function(days) transform(toucan, ref = ifelse(day < days, ref, NA))
covered <- function(p) mean(later$ref >= p$.pred_lower & later$ref <= p$.pred_upper)
fit_on <- function(data, seed) {
  ncam(rt01 + rt02 + rt03 ~ rh + temperature, data = data, reference = "ref", seed = seed, threads = 1)
}
warned <- character()  # warnings' classes, counted and shown below
runs <- withCallingHandlers(do.call(rbind, lapply(1:3, function(seed) {
  ten_days <- fit_on(with_reference_until(10), seed)
  seven_days <- fit_on(with_reference_until(7), seed)
  cal <- calibrate(seven_days, toucan[day >= 7 & day < 10, ], method = "split", reference = "ref")
  data.frame(seed = seed,
             cov90_prediction_interval = covered(predict(ten_days, later, interval = "prediction", level = 0.9)),
             cov90_split_conformal = covered(predict(cal, later, level = 0.9)))
})), warning = function(w) {
  warned <<- c(warned, class(w)[1])
  invokeRestart("muffleWarning")
})
cat(sprintf("ncam %s from %s; %s\n\n", getNamespaceVersion("ncam"), dirname(system.file(package = "ncam")),
            format(Sys.time(), "%Y-%m-%d %H:%M")))
cat(sprintf("%d usable rows; %d with a reference in the first 10 days (%d in the first 7, %d in days 7-10); %d later reference hours scored\n\n",
            nrow(toucan), sum(day < 10 & !is.na(toucan$ref)), sum(day < 7 & !is.na(toucan$ref)),
            sum(day >= 7 & day < 10 & !is.na(toucan$ref)), nrow(later)))
print(runs, row.names = FALSE, digits = 3)
cat("\nWarnings by class:\n")
print(table(warned))
cat(sprintf("\nelapsed %.1f min\n", as.numeric(difftime(Sys.time(), started, units = "mins"))))
