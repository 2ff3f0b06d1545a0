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
repo <- dirname(dirname(script))
rows <- if (length(args)) as.numeric(args[1]) else 1e6
libs <- c(before = Sys.getenv("NCAM_LIB_BEFORE"), after = Sys.getenv("NCAM_LIB"))
if (!all(nzchar(libs))) stop("set NCAM_LIB_BEFORE and NCAM_LIB")
out_path <- Sys.getenv("NCAM_BENCH_OUT", file.path(repo, "bench", "predict_memory.out"))
source(file.path(repo, "bench", "common.R"))
say <- bench_logger(out_path)
child_script <- file.path(repo, "bench", "scale_rows.R")

# One step in a child process (bench/scale_rows.R --child): its seconds, CPU seconds, the RSS
# with its inputs read and the peak RSS.
run_child <- function(step, work, lib) {
  timing <- tempfile()
  out <- system2("/usr/bin/time", c("-v", "-o", timing, file.path(R.home("bin"), "Rscript"), child_script,
                                    "--child", step, work, shQuote(lib), format(rows, scientific = FALSE)),
                 stdout = TRUE, stderr = TRUE)
  line <- grep("^result ", out, value = TRUE)
  if (!length(line)) stop("step ", step, " failed:\n", paste(out, collapse = "\n"))
  parts <- strsplit(line, " ")[[1]]
  peak <- as.numeric(sub(".*: ", "", grep("Maximum resident set size", readLines(timing), value = TRUE))) / 1024
  data.frame(step = step, seconds = as.numeric(parts[2]), input_mb = as.numeric(parts[3]), peak_mb = peak,
             warnings = parts[4], cpu = as.numeric(parts[6]), load = strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
}

say("# bench/predict_memory.R, %s", format(Sys.time(), "%Y-%m-%d %H:%M %Z"))
say("Machine: %d cores, R %s, ncam at git %s; %g rows; libraries: %s; 1-minute load average at start %s",
    parallel::detectCores(), getRversion(),
    system2("git", c("-C", repo, "rev-parse", "--short", "HEAD"), stdout = TRUE), rows,
    paste(names(libs), libs, sep = " = ", collapse = ", "), strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
say("One run per cell on a shared machine. peak MB: Maximum resident set size of the child; input MB: its resident size with the data and fit read; extra MB: peak - input; CPU: user + system seconds of the step alone")

work <- tempfile("ncam-predict-memory-")
dir.create(work)
# The data and the fit, made once by the newer build (a fit is plain data that either reads).
for (step in c("simulate", "fit_ref_4")) {
  r <- run_child(step, work, libs[["after"]])
  say("  made %-10s %7.2f s", step, r$seconds)
}
results <- list()
for (step in c("predict", "predict_prediction", "augment", "sensor_drift")) {
  for (label in names(libs)) {
    r <- run_child(step, work, libs[[label]])
    r$build <- label
    results[[length(results) + 1L]] <- r
    say("  %-6s %-20s %6.2f s (CPU %6.2f s, load %s)  peak %7.1f MB  input %7.1f MB  extra %7.1f MB  warnings %s",
        label, step, r$seconds, r$cpu, r$load, r$peak_mb, r$input_mb, r$peak_mb - r$input_mb, r$warnings)
  }
}
unlink(work, recursive = TRUE)
res <- do.call(rbind, results)

say("")
say("| step | peak MB before | peak MB after | extra MB before | extra MB after | CPU s before | CPU s after |")
say("|---|---|---|---|---|---|---|")
for (step in unique(res$step)) {
  b <- res[res$step == step & res$build == "before", ]
  a <- res[res$step == step & res$build == "after", ]
  say("| %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f |", step, b$peak_mb, a$peak_mb, b$peak_mb - b$input_mb,
      a$peak_mb - a$input_mb, b$cpu, a$cpu)
}
