options(width = 160)
# The gross-outlier screen of a log fit (session 36) on the real data sets: readings left out by
# the screen as read without the transform ("none"), by a log fit's rule (as read, and 10 times
# off where the row's other sensors put it), and by the rule of before session 36 (the same 50
# robust spreads on log readings). Each sensor is screened against the others of its row, with
# the medians and spreads of all rows, as ncam() screens its training rows. Only positive readings
# enter (a log fit treats the others as missing). No fit; under a minute.
#
# Run: NCAM_LIB=<lib> NCAM_SHARED_DATA=<data> Rscript bench/log_screen.R > bench/log_screen.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
data_dir <- Sys.getenv("NCAM_SHARED_DATA", "../shared/data")
sets <- list(
  "PurpleAir/AQS daily (pa_a, pa_b, ref)" = list(
    data = read_purpleair_aqs(file.path(data_dir, "purpleair-aqs-daily-mathieu",
                                        "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv")),
    columns = c("pa_a", "pa_b", "ref")),
  "EPA Toucan hourly (rt01-rt03, ref)" = list(
    data = read_toucan(file.path(data_dir, "epa-sensortoolkit-toucan", "toucan_hourly_merged.csv")), columns = c("rt01", "rt02", "rt03", "ref")),
  "SensEURCity Antwerp hourly (box_1, box_2, ref)" = list(
    data = read_senseurcity_antwerp(file.path(data_dir, "senseurcity-antwerp-ineris")),
    columns = c("box_1", "box_2", "ref")))
threshold <- formals(ncam_control)$screen_outliers
rows <- lapply(names(sets), function(name) {
  d <- sets[[name]]$data
  readings <- lapply(d[sets[[name]]$columns], function(v) ifelse(!is.na(v) & v > 0, as.double(v), NA_real_))
  all_rows <- seq_len(nrow(d))
  count <- function(screened) sum(lengths(screened$rows))
  data.frame(data = name, rows = nrow(d), readings = sum(vapply(readings, function(v) sum(!is.na(v)), 0)),
             none = count(ncam:::screen_readings(readings, all_rows, threshold, "none")),
             log_now = count(ncam:::screen_readings(lapply(readings, log), all_rows, threshold, "log")),
             log_before = count(ncam:::screen_spikes(lapply(readings, log), all_rows, threshold)))
})
cat(sprintf("Readings screened as gross outliers (threshold %g robust spreads):\n", threshold))
print(do.call(rbind, rows), row.names = FALSE)
