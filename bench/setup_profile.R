# Where ncam()'s fixed cost goes at 1e6 rows: the CPU time of each step ncam() calls, and of the
# engine's passes, for two builds (the profile behind bench/setup_time.R).
#
#   NCAM_LIB=<library> NCAM_LIB_BEFORE=<older library> nice -n 10 Rscript bench/setup_profile.R [rows]
#
# Data and fits as in bench/setup_time.R (simulate_colocation() with 100 sites at 1e6 rows, the
# reference on 10 % of rows; epochs = 1, seed = 1, threads = 1): kinds "reference" and "log" and
# "factor" (a factor covariate season of 4 levels). Each build and kind runs once in a child
# Rscript that trace()s the functions below (a function missing from a build is skipped) and
# sums the CPU time (user + system, proc.time()) of their calls; a step's time includes that of
# the steps it calls (the table says where a step is called from) and whatever garbage
# collection ran during it. Writes bench/setup_profile.out (NCAM_BENCH_OUT).
#
# Child mode: Rscript bench/setup_profile.R --child <kind> <data.rds> <library>

args <- commandArgs(TRUE)
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
sys.source(file.path(dirname(script), "common.R"), envir = globalenv())
steps <- c("check_positive_readings", "sensor_columns", "reference_readings", "build_design", "rows_without_na",
           "warn_repeated_training_rows", "resolve_validation", "check_reference_training_rows",
           "constant_covariates", "covariate_spread", "check_readings", "check_linked", "screen_readings",
           "working_scale", "sensor_levels", "transform_nll_offset", "train_loop", "ncam_trainer_epoch",
           "ncam_trainer_nll", "capped_validation_nll", "new_ncam_fit", "data_fingerprint", "flag_columns",
           "colocated_rows", "calibration_range", "fitted_summary", "ncam_predict_cpp", "check_training")

if (length(args) && args[1] == "--child") {
  kind <- args[2]
  attach_ncam(args[4])
  d <- setup_fit_data(args[3], kind)
  ns <- asNamespace("ncam")
  spent <- new.env()
  for (step in intersect(steps, ls(ns))) {
    spent[[step]] <- c(calls = 0, cpu = 0)
    # Calls of a step inside itself (none here) would be counted twice.
    suppressMessages(trace(step, where = ns, print = FALSE,
      tracer = bquote(assign(.(paste0("start_", step)), get("cpu_seconds", globalenv())(),
                             envir = get("spent", globalenv()))),
      exit = bquote(local({
        spent <- get("spent", globalenv())
        spent[[.(step)]] <- spent[[.(step)]] + c(1, get("cpu_seconds", globalenv())() - spent[[.(paste0("start_", step))]])
      }))))
  }
  form <- if (kind == "factor") pa_a + pa_b + opc ~ rh + temperature + season else pa_a + pa_b + opc ~ rh + temperature
  invisible(gc())
  start <- cpu_seconds()
  fit <- suppressWarnings(
    ncam(form, data = d, reference = if (kind != "log") "ref", transform = if (kind == "log") "log" else "none",
         epochs = 1L, seed = 1L, threads = 1L))
  total <- cpu_seconds() - start
  for (step in intersect(steps, ls(spent))) {
    cat(sprintf("step %s %d %.3f\n", step, as.integer(spent[[step]][["calls"]]), spent[[step]][["cpu"]]))
  }
  cat(sprintf("step ncam() 1 %.3f\n", total))
  quit(save = "no")
}

rows <- if (length(args)) as.numeric(args[1]) else 1e6
libs <- bench_libraries()
say <- script_logger(script)
say_machine(say, script, libs)
say("CPU s of each step of ncam(..., epochs = 1, threads = 1) at %s rows, one run per build and fit; a step includes the steps it calls ('in': where a step is called from). '-': the build has no such step or did not call it.",
    format(rows, big.mark = ",", scientific = FALSE))

attach_ncam(libs[["after"]])
data_path <- tempfile(fileext = ".rds")
saveRDS(simulate_network(rows, seed = 1), data_path, compress = FALSE)
inside <- c(ncam_trainer_epoch = "train_loop", ncam_trainer_nll = "train_loop", capped_validation_nll = "train_loop",
            data_fingerprint = "new_ncam_fit", ncam_predict_cpp = "train_loop and fitted_summary",
            sensor_columns = "ncam() and reference_readings")
for (kind in c("reference", "log", "factor")) {
  runs <- lapply(libs, function(lib) {
    parts <- child_lines(c(script, "--child", kind, data_path, shQuote(lib)), "step")
    stats::setNames(lapply(parts, function(p) as.numeric(p[3:4])), vapply(parts, `[`, "", 2))
  })
  say("")
  say("## %s", switch(kind, reference = "reference = \"ref\"", log = "transform = \"log\", no reference",
                      factor = "reference = \"ref\", factor covariate season"))
  say_table_head(say, c("step", sprintf("%s: calls, CPU s", names(libs))))
  for (step in c(steps, "ncam()")) {
    cells <- vapply(runs, function(r) if (is.null(r[[step]])) "-" else sprintf("%d, %.2f", as.integer(r[[step]][1]), r[[step]][2]), "")
    if (all(cells == "-")) next
    say("| %s%s | %s |", step, if (step %in% names(inside)) sprintf(" (in %s)", inside[[step]]) else "",
        paste(cells, collapse = " | "))
  }
}
unlink(data_path)
