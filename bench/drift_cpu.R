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
  work <- read_scale_rows_work(args[2], args[3])
  cpu <- function(expr) {
    start <- cpu_seconds()
    suppressWarnings(expr)
    cpu_seconds() - start
  }
  for (r in seq_len(as.integer(args[4]))) {
    cat(sprintf("cpu site_month %.3f\n", cpu(sensor_drift(work$fit, work$d, unit = "site", threads = 1))))
    cat(sprintf("cpu none_week %.3f\n", cpu(sensor_drift(work$fit, work$d, period = "week", threads = 1))))
  }
  quit(save = "no")
}

rounds <- if (length(args) >= 1) as.integer(args[1]) else 2L
reps <- if (length(args) >= 2) as.integer(args[2]) else 3L
libs <- bench_libraries(both = TRUE)
say <- script_logger(script)
say_machine(say, script, libs, after_libraries = sprintf("%d rounds of %d calls", rounds, reps))

work <- scale_rows_work(file.path(dirname(script), "scale_rows.R"), libs[["after"]], 1e6, "ncam-drift-cpu-")$dir
cases <- c("site_month", "none_week")
times <- list()
for (round in seq_len(rounds)) {
  for (label in names(libs)) {
    lines <- child_lines(c(script, "--child", work, shQuote(libs[[label]]), reps), "cpu")
    got <- data.frame(build = label, case = vapply(lines, `[`, "", 2), cpu = as.numeric(vapply(lines, `[`, "", 3)))
    say("  round %d %-6s %s", round, label, paste(vapply(cases, function(k) {
      sprintf("%s: %s", k, paste(sprintf("%.2f", got$cpu[got$case == k]), collapse = " "))
    }, ""), collapse = " | "))
    times[[length(times) + 1L]] <- got
  }
}
unlink(work, recursive = TRUE)
times <- do.call(rbind, times)
say("")
say("Median CPU seconds per call (user + system, 1 thread):")
say_table_head(say, c("call", "before", "after"))
for (k in cases) {
  med <- function(label) stats::median(times$cpu[times$build == label & times$case == k])
  say("| %s | %.2f | %.2f |", k, med("before"), med("after"))
}
