# CPU seconds of predict_chunks() on a CSV file of a million rows (bench/scale_rows.R's network and
# its 4-epoch reference fit), 1 thread, without kept columns and keeping `date` and `site`, for two
# builds: session 40 reads a kept column of times as times (R/text-times.R; before, as text), so
# `keep_date` shows what typing the times costs. In a child Rscript per build and round (the
# builds alternating, `rounds` rounds), each call repeated `reps` times; the median over all calls
# of a build. The first child writes the file (utils::write.csv(), outside the timing). Session
# 41 reads ISO 8601 times by one parser (iso_seconds()) in predict_chunks() and in the readers'
# parse_timestamp(): `read_times` is parse_timestamp() of the million times as PurpleAir writes
# them ("2021-04-01T00:00:00Z"), `type_times` text_times() of them as write.csv() writes them (the
# typing of `keep_date`'s times, without reading the file), both made before the timing.
#
#   NCAM_LIB_BEFORE=<older library> NCAM_LIB=<library> nice -n 10 Rscript bench/chunks_kept_times.R [rounds reps]
#
# Writes bench/chunks_kept_times.out (NCAM_BENCH_OUT).
# Child mode: Rscript bench/chunks_kept_times.R --child <work dir> <library> <reps>

args <- commandArgs(TRUE)
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
sys.source(file.path(dirname(script), "common.R"), envir = globalenv())

if (length(args) && args[1] == "--child") {
  csv <- function(work) {
    path <- file.path(args[2], "data.csv")
    if (!file.exists(path)) utils::write.csv(work$d, path, row.names = FALSE)
    path
  }
  made <- new.env()
  written <- function(work, format) {
    if (is.null(made[[format]])) made[[format]] <- format(work$d$date, format, tz = "UTC")
    made[[format]]
  }
  iso <- function(work) written(work, "%Y-%m-%dT%H:%M:%SZ")
  cpu_bench_child(args, list(
    csv_first = function(work) csv(work),  # untimed in effect: the file exists after the first child
    keep_none = function(work) predict_chunks(work$fit, csv(work), threads = 1, verbose = FALSE),
    keep_date = function(work) predict_chunks(work$fit, csv(work), keep = c("date", "site"), threads = 1, verbose = FALSE),
    # Last, so that the memory these take does not change the collections of the calls above.
    iso_first = function(work) iso(work),  # untimed in effect, as csv_first
    csv_times_first = function(work) written(work, "%Y-%m-%d %H:%M:%S"),  # untimed in effect
    read_times = function(work) ncam:::parse_timestamp(iso(work), "time_stamp", "x.csv"),
    type_times = function(work) ncam:::text_times(written(work, "%Y-%m-%d %H:%M:%S"), "POSIXct")))
}
cpu_bench_parent(script, args, cases = c("keep_none", "keep_date", "read_times", "type_times"), default_reps = 2L,
                 work_prefix = "ncam-chunks-kept-", threads_txt = "1 thread")
