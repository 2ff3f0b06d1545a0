# CPU seconds of predict() at a million rows, without an interval and with interval =
# "prediction", for two builds: in a child Rscript per build and round (the builds alternating,
# `rounds` rounds), each call repeated `reps` times; the median over all calls of a build. Data
# and fit as in bench/predict_memory.R.
#
#   NCAM_LIB_BEFORE=<older library> NCAM_LIB=<library> nice -n 10 Rscript bench/predict_cpu.R [rounds reps]
#
# Writes bench/predict_cpu.out (NCAM_BENCH_OUT).
# Child mode: Rscript bench/predict_cpu.R --child <work dir> <library> <reps>

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
    cat(sprintf("cpu none %.3f\n", cpu(predict(work$fit, work$d))))
    cat(sprintf("cpu prediction %.3f\n", cpu(predict(work$fit, work$d, interval = "prediction"))))
  }
  quit(save = "no")
}

rounds <- if (length(args) >= 1) as.integer(args[1]) else 2L
reps <- if (length(args) >= 2) as.integer(args[2]) else 5L
libs <- bench_libraries(both = TRUE)
say <- script_logger(script)
say_machine(say, script, libs, after_libraries = sprintf("%d rounds of %d calls", rounds, reps))

work <- scale_rows_work(file.path(dirname(script), "scale_rows.R"), libs[["after"]], 1e6, "ncam-predict-cpu-")$dir
times <- list()
for (round in seq_len(rounds)) {
  for (label in names(libs)) {
    lines <- child_lines(c(script, "--child", work, shQuote(libs[[label]]), reps), "cpu")
    got <- data.frame(build = label, interval = vapply(lines, `[`, "", 2), cpu = as.numeric(vapply(lines, `[`, "", 3)))
    say("  round %d %-6s none: %s | prediction: %s", round, label,
        paste(sprintf("%.2f", got$cpu[got$interval == "none"]), collapse = " "),
        paste(sprintf("%.2f", got$cpu[got$interval == "prediction"]), collapse = " "))
    times[[length(times) + 1L]] <- got
  }
}
unlink(work, recursive = TRUE)
times <- do.call(rbind, times)
say("")
say("Median CPU seconds per call (user + system, 2 threads):")
say_table_head(say, c("interval", "before", "after"))
for (interval in c("none", "prediction")) {
  med <- function(label) stats::median(times$cpu[times$build == label & times$interval == interval])
  say("| %s | %.2f | %.2f |", interval, med("before"), med("after"))
}
