# Peak memory and CPU time of the steps that hold per-row head outputs, at a million rows, for
# two builds: predict() (no interval, as a yardstick), predict(interval = "prediction"),
# augment(interval = "prediction") and sensor_drift(unit = "site"). Each step runs in its own
# child Rscript under /usr/bin/time -v (the child mode of bench/scale_rows.R, on the same data:
# simulate_colocation(days = 417, sites = 100, colocation = 42), the reference fit of 4 epochs),
# the builds alternating step by step.
#
#   NCAM_LIB_BEFORE=<older library> NCAM_LIB=<library> nice -n 10 Rscript bench/predict_memory.R [rows]
#
# Writes bench/predict_memory.out (NCAM_BENCH_OUT).

args <- commandArgs(TRUE)
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
sys.source(file.path(dirname(script), "common.R"), envir = globalenv())
rows <- if (length(args)) as.numeric(args[1]) else 1e6
libs <- bench_libraries(both = TRUE)
say <- script_logger(script)
child_script <- file.path(dirname(script), "scale_rows.R")

say_machine(say, script, libs, before_libraries = sprintf("%g rows", rows))
say("One run per cell on a shared machine. peak MB: Maximum resident set size of the child; input MB: its resident size with the data and fit read; extra MB: peak - input; CPU: user + system seconds of the step alone")

# The data and the fit, made once by the newer build (a fit is plain data that either reads).
work <- scale_rows_work(child_script, libs[["after"]], rows, "ncam-predict-memory-")
for (i in seq_len(nrow(work$made))) say("  made %-10s %7.2f s", work$made$step[i], work$made$seconds[i])
results <- list()
for (step in c("predict", "predict_prediction", "augment", "sensor_drift")) {
  for (label in names(libs)) {
    r <- scale_rows_step(child_script, step, work$dir, libs[[label]], rows)
    r$build <- label
    results[[length(results) + 1L]] <- r
    say("  %-6s %-20s %6.2f s (CPU %6.2f s, load %s)  peak %7.1f MB  input %7.1f MB  extra %7.1f MB  warnings %s",
        label, step, r$seconds, r$cpu, r$load, r$peak_mb, r$input_mb, r$peak_mb - r$input_mb, r$warnings)
  }
}
unlink(work$dir, recursive = TRUE)
res <- do.call(rbind, results)

say("")
say_table_head(say, c("step", "peak MB before", "peak MB after", "extra MB before", "extra MB after", "CPU s before",
                      "CPU s after"))
for (step in unique(res$step)) {
  b <- res[res$step == step & res$build == "before", ]
  a <- res[res$step == step & res$build == "after", ]
  say("| %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f |", step, b$peak_mb, a$peak_mb, b$peak_mb - b$input_mb,
      a$peak_mb - a$input_mb, b$cpu, a$cpu)
}
