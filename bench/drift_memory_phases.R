# Where sensor_drift(unit = "site") reaches its peak memory at a million rows, for two builds:
# its steps run one by one in a child Rscript (the internals of drift_rows(), in its order),
# with after each the resident size (VmRSS), its high-water mark since the step before
# (VmHWM, reset through /proc/self/clear_refs), R's heap in use after gc() and its peak since
# the step before (gc()'s "max used", reset). Data and fit as in bench/predict_memory.R.
#
#   NCAM_LIB_BEFORE=<older library> NCAM_LIB=<library> nice -n 10 Rscript bench/drift_memory_phases.R
#
# Writes bench/drift_memory_phases.out (NCAM_BENCH_OUT).
# Child mode: Rscript bench/drift_memory_phases.R --child <work dir> <library>

args <- commandArgs(TRUE)
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))

if (length(args) && args[1] == "--child") {
  .libPaths(c(args[3], .libPaths()))
  suppressPackageStartupMessages(library(ncam))
  d <- readRDS(file.path(args[2], "data.rds"))
  fit <- readRDS(file.path(args[2], "fit.rds"))
  ns <- asNamespace("ncam")
  vm <- function(field) {
    line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
    as.numeric(gsub("[^0-9]", "", line)) / 1024
  }
  step <- function(label) {
    g <- gc()
    cat(sprintf("phase %s %.1f %.1f %.1f %.1f\n", label, vm("VmRSS"), vm("VmHWM"), sum(g[, 2]), sum(g[, 6])))
    cat("5", file = "/proc/self/clear_refs")
    invisible(gc(reset = TRUE))
  }
  time <- ns$drift_times(d, "date")
  starts <- ns$drift_periods(time, "month")
  unit_values <- ns$drift_units(d, "site")
  step("inputs")
  post <- suppressWarnings(ns$ncam_posterior(fit, d, NULL, use_reference = TRUE, raw = TRUE))
  step("posterior")
  loo <- ns$leave_one_sensor_out(post)
  step("leave_one_sensor_out")
  rm(post)
  step("posterior_freed")
  unit_code <- match(unit_values, sort(unique(unit_values), method = "radix"))
  period_code <- match(as.numeric(starts), unique(as.numeric(starts)))
  pair <- (unit_code - 1) * max(c(period_code, 0L)) + period_code
  cell <- match(pair, unique(pair))
  first <- !duplicated(cell)
  seconds <- as.numeric(time)
  for (s in colnames(loo$z)) {
    ord <- order(unit_code, seconds, loo$z[, s], loo$shift[, s])
    periods <- ns$period_means(loo$z[ord, s], loo$shift[ord, s], cell[ord], cell[first], unit_code[first],
                               starts[first])
    spread <- ns$period_spread(loo$z[ord, s], cell[ord], unit_code[ord], seconds[ord], periods)
    step(paste0("table_", s))
  }
  quit(save = "no")
}

repo <- dirname(dirname(script))
libs <- c(before = Sys.getenv("NCAM_LIB_BEFORE"), after = Sys.getenv("NCAM_LIB"))
if (!all(nzchar(libs))) stop("set NCAM_LIB_BEFORE and NCAM_LIB")
out_path <- Sys.getenv("NCAM_BENCH_OUT", file.path(repo, "bench", "drift_memory_phases.out"))
source(file.path(repo, "bench", "common.R"))
say <- bench_logger(out_path)
say("# bench/drift_memory_phases.R, %s", format(Sys.time(), "%Y-%m-%d %H:%M %Z"))
say("Machine: %d cores, R %s, ncam at git %s; libraries: %s; 1-minute load average at start %s",
    parallel::detectCores(), getRversion(), system2("git", c("-C", repo, "rev-parse", "--short", "HEAD"), stdout = TRUE),
    paste(names(libs), libs, sep = " = ", collapse = ", "), strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
say("MB after each step of sensor_drift(unit = \"site\") on 1e6 rows: RSS now, RSS high-water mark during the step, R heap in use now, R heap peak during the step")

work <- tempfile("ncam-drift-phases-")
dir.create(work)
for (step in c("simulate", "fit_ref_4")) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c(file.path(repo, "bench", "scale_rows.R"), "--child", step, work,
                                                         shQuote(libs[["after"]]), "1000000"), stdout = TRUE, stderr = TRUE)
  if (!length(grep("^result ", out))) stop(step, " failed:\n", paste(out, collapse = "\n"))
}
say("| step | build | RSS now | RSS peak | R heap now | R heap peak |")
say("|---|---|---|---|---|---|")
for (label in names(libs)) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c(script, "--child", work, shQuote(libs[[label]])),
                 stdout = TRUE, stderr = TRUE)
  lines <- grep("^phase ", out, value = TRUE)
  if (!length(lines)) stop("child failed:\n", paste(out, collapse = "\n"))
  for (line in strsplit(lines, " ")) {
    v <- as.numeric(line[3:6])
    say("| %s | %s | %.0f | %.0f | %.0f | %.0f |", line[2], label, v[1], v[2], v[3], v[4])
  }
}
unlink(work, recursive = TRUE)
