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

if (length(args) && args[1] == "--child") {
  .libPaths(c(args[3], .libPaths()))
  suppressPackageStartupMessages(library(ncam))
  d <- readRDS(file.path(args[2], "data.rds"))
  fit <- readRDS(file.path(args[2], "fit.rds"))
  cpu <- function(expr) {
    t0 <- proc.time()
    suppressWarnings(expr)
    t <- proc.time() - t0
    t[["user.self"]] + t[["sys.self"]]
  }
  for (r in seq_len(as.integer(args[4]))) {
    cat(sprintf("cpu none %.3f\n", cpu(predict(fit, d))))
    cat(sprintf("cpu prediction %.3f\n", cpu(predict(fit, d, interval = "prediction"))))
  }
  quit(save = "no")
}

repo <- dirname(dirname(script))
rounds <- if (length(args) >= 1) as.integer(args[1]) else 2L
reps <- if (length(args) >= 2) as.integer(args[2]) else 5L
libs <- c(before = Sys.getenv("NCAM_LIB_BEFORE"), after = Sys.getenv("NCAM_LIB"))
if (!all(nzchar(libs))) stop("set NCAM_LIB_BEFORE and NCAM_LIB")
out_path <- Sys.getenv("NCAM_BENCH_OUT", file.path(repo, "bench", "predict_cpu.out"))
source(file.path(repo, "bench", "common.R"))
say <- bench_logger(out_path)
say("# bench/predict_cpu.R, %s", format(Sys.time(), "%Y-%m-%d %H:%M %Z"))
say("Machine: %d cores, R %s, ncam at git %s; libraries: %s; %d rounds of %d calls; 1-minute load average at start %s",
    parallel::detectCores(), getRversion(), system2("git", c("-C", repo, "rev-parse", "--short", "HEAD"), stdout = TRUE),
    paste(names(libs), libs, sep = " = ", collapse = ", "), rounds, reps, strsplit(readLines("/proc/loadavg"), " ")[[1]][1])

work <- tempfile("ncam-predict-cpu-")
dir.create(work)
for (step in c("simulate", "fit_ref_4")) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c(file.path(repo, "bench", "scale_rows.R"), "--child", step, work,
                                                         shQuote(libs[["after"]]), "1000000"), stdout = TRUE, stderr = TRUE)
  if (!length(grep("^result ", out))) stop(step, " failed:\n", paste(out, collapse = "\n"))
}
times <- list()
for (round in seq_len(rounds)) {
  for (label in names(libs)) {
    out <- system2(file.path(R.home("bin"), "Rscript"), c(script, "--child", work, shQuote(libs[[label]]), reps),
                   stdout = TRUE, stderr = TRUE)
    lines <- strsplit(grep("^cpu ", out, value = TRUE), " ")
    if (!length(lines)) stop("child failed:\n", paste(out, collapse = "\n"))
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
say("| interval | before | after |")
say("|---|---|---|")
for (interval in c("none", "prediction")) {
  med <- function(label) stats::median(times$cpu[times$build == label & times$interval == interval])
  say("| %s | %.2f | %.2f |", interval, med("before"), med("after"))
}
