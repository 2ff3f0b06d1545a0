# Where sensor_drift(unit = "site") reaches its peak memory at a million rows, for two builds:
# its steps run one by one in a child Rscript (the internals of drift_rows(), in its order),
# with after each the resident size (VmRSS), its high-water mark since the step before
# (VmHWM, reset through /proc/self/clear_refs), R's heap in use after gc() and its peak since
# the step before (gc()'s "max used", reset), and the heap R then keeps ("gc trigger"): R
# collects when its heap reaches that, so a step that allocates more than the limit less what
# is in use fills it, whatever it holds at once. Data and fit as in bench/predict_memory.R.
# Both builds need drift_cells() (session 38 on). A build with drift_table() (session 39 on)
# runs its own steps: the posterior trimmed by drift_posterior(), the rows ordered once in
# drift_cells(), each sensor's table by drift_table(); an older one the steps of its drift_rows().
#
#   NCAM_LIB_BEFORE=<older library> NCAM_LIB=<library> nice -n 10 Rscript bench/drift_memory_phases.R
#
# Writes bench/drift_memory_phases.out (NCAM_BENCH_OUT).
# Child mode: Rscript bench/drift_memory_phases.R --child <work dir> <library>

args <- commandArgs(TRUE)
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
sys.source(file.path(dirname(script), "common.R"), envir = globalenv())

if (length(args) && args[1] == "--child") {
  work <- read_scale_rows_work(args[2], args[3])
  ns <- asNamespace("ncam")
  step <- function(label) {
    g <- gc()
    cat(sprintf("phase %s %.1f %.1f %.1f %.1f %.1f\n", label, status_mb("VmRSS"), status_mb("VmHWM"), sum(g[, 2]),
                sum(g[, 6]), sum(g[, 4])))
    cat("5", file = "/proc/self/clear_refs")
    invisible(gc(reset = TRUE))
  }
  time <- ns$drift_times(work$d, "date")
  starts <- ns$drift_periods(time, "month")
  unit_values <- ns$drift_units(work$d, "site")
  step("inputs")
  stepwise <- exists("drift_table", envir = ns, inherits = FALSE)
  post <- suppressWarnings(if (stepwise) ns$drift_posterior(work$fit, work$d, TRUE, NULL, globalenv()) else
    ns$ncam_posterior(work$fit, work$d, NULL, use_reference = TRUE, raw = TRUE))
  step("posterior")
  loo <- ns$leave_one_sensor_out(post)
  step("leave_one_sensor_out")
  rm(post)
  step("posterior_freed")
  # The cells of unit and period, as drift_rows() codes them (drift_cells(), from session 38).
  if (!exists("drift_cells", envir = ns, inherits = FALSE)) stop("The ncam in ", args[3], " predates drift_cells(): use a build from session 38 or later.")
  cells <- ns$drift_cells(unit_values, starts, time)
  for (s in colnames(loo$z)) {
    if (stepwise) {
      table <- ns$drift_table(s, loo, cells, unit_values, starts, 0.1)
    } else {
      ord <- order(cells$unit_code, cells$seconds, loo$z[, s], loo$shift[, s])
      periods <- ns$period_means(loo$z[ord, s], loo$shift[ord, s], cells$cell[ord], cells$cell[cells$first],
                                 cells$unit_code[cells$first], starts[cells$first])
      spread <- ns$period_spread(loo$z[ord, s], cells$cell[ord], cells$unit_code[ord], cells$seconds[ord], periods)
    }
    step(paste0("table_", s))
  }
  quit(save = "no")
}

libs <- bench_libraries(both = TRUE)
say <- script_logger(script)
say_machine(say, script, libs)
say("MB after each step of sensor_drift(unit = \"site\") on 1e6 rows: RSS now, RSS high-water mark during the step, R heap in use now, R heap peak during the step, R heap limit after the step's gc()")

work <- scale_rows_work(file.path(dirname(script), "scale_rows.R"), libs[["after"]], 1e6, "ncam-drift-phases-")$dir
say_table_head(say, c("step", "build", "RSS now", "RSS peak", "R heap now", "R heap peak", "R heap limit"))
for (label in names(libs)) {
  for (line in child_lines(c(script, "--child", work, shQuote(libs[[label]])), "phase")) {
    v <- as.numeric(line[3:7])
    say("| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f |", line[2], label, v[1], v[2], v[3], v[4], v[5])
  }
}
unlink(work, recursive = TRUE)
