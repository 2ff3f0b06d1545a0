# CPU seconds of predict() at a million rows, without an interval and with interval =
# "prediction", for two builds: in a child Rscript per build and round (the builds alternating,
# `rounds` rounds), each call repeated `reps` times; the median over all calls of a build. Data
# and fit as in bench/predict_memory.R.
#
#   NCAM_LIB_BEFORE=<older library> NCAM_LIB=<library> nice -n 10 Rscript bench/predict_cpu.R [rounds reps]
#
# Threads: ncam's default (2), or NCAM_THREADS (the children inherit it).
#
# Writes bench/predict_cpu.out (NCAM_BENCH_OUT).
# Child mode: Rscript bench/predict_cpu.R --child <work dir> <library> <reps>

args <- commandArgs(TRUE)
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
sys.source(file.path(dirname(script), "common.R"), envir = globalenv())

if (length(args) && args[1] == "--child") {
  cpu_bench_child(args, list(none = function(work) predict(work$fit, work$d),
                             prediction = function(work) predict(work$fit, work$d, interval = "prediction")))
}
cpu_bench_parent(script, args, cases = c("none", "prediction"), default_reps = 5L,
                 work_prefix = "ncam-predict-cpu-", threads_txt = sprintf("%s thread(s)", Sys.getenv("NCAM_THREADS", "2")))
