# CPU seconds of sensor_drift() at a million rows for two builds: by site and month (each
# site's rows one per hour), and without `unit` by week (the 100 sites' rows share their
# times: each sensor's rows are then ordered by z and shift within a time). In a child Rscript
# per build and round (the builds alternating, `rounds` rounds), each call repeated `reps`
# times, one thread; the median over all calls of a build. Data and fit as in
# bench/predict_memory.R.
#
#   NCAM_LIB_BEFORE=<older library> NCAM_LIB=<library> nice -n 10 Rscript bench/drift_cpu.R [rounds reps]
#
# Writes bench/drift_cpu.out (NCAM_BENCH_OUT).
# Child mode: Rscript bench/drift_cpu.R --child <work dir> <library> <reps>

args <- commandArgs(TRUE)
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
sys.source(file.path(dirname(script), "common.R"), envir = globalenv())

if (length(args) && args[1] == "--child") {
  cpu_bench_child(args, list(site_month = function(work) sensor_drift(work$fit, work$d, unit = "site", threads = 1),
                             none_week = function(work) sensor_drift(work$fit, work$d, period = "week", threads = 1)))
}
cpu_bench_parent(script, args, cases = c("site_month", "none_week"), default_reps = 3L,
                 work_prefix = "ncam-drift-cpu-", threads_txt = "1 thread")
