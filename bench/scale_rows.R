# ncam end to end at 1e5, 3e5 and 1e6 rows: wall time and peak memory of each step, each in its
# own child Rscript under /usr/bin/time -v, and the growth from the smallest to the largest size.
#
#   NCAM_LIB=<library holding ncam> nice -n 10 Rscript bench/scale_rows.R [rows ...]
#
# Data: simulate_colocation(days = 417, sites = rows / 10008, colocation = 42): a network of
# sites, 3 sensors (pa_a, pa_b, opc), rh and temperature, a `date` column, the reference on the
# first 42 of 417 days (10 % of rows); a second network (seed 2) for calibrate(). Fits use the
# package defaults (hidden 64 x 3, batch 256, 10 % validation) with 1 and 4 epochs: the time per
# epoch is the difference over 3, the rest is the fixed cost of a fit. The later steps use the
# 4-epoch reference fit. With NCAM_LIB_BEFORE set, every step also runs with that library (the
# two alternating) and the table shows both. Writes bench/scale_rows.out (NCAM_BENCH_OUT).
#
# Child mode: Rscript bench/scale_rows.R --child <step> <work dir> <library>

args <- commandArgs(TRUE)
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
sys.source(file.path(dirname(script), "common.R"), envir = globalenv())

# ---- child: one step, timed; prints one line "result <seconds> <input MB> <warnings> <note>"
if (length(args) && args[1] == "--child") {
  step <- args[2]
  work <- args[3]
  attach_ncam(args[4])
  at <- function(name) file.path(work, name)
  inputs <- switch(step,
    simulate = list(),
    fit_ref_1 = , fit_ref_4 = , fit_noref_1 = , fit_noref_4 = list(d = "data.rds"),
    calibrate_split = list(new = "new.rds", fit = "fit.rds"),
    sensor_performance = , average_estimates = , evaluate_fusion = list(a = "augment.rds"),
    predict_chunks = list(fit = "fit.rds"),
    list(d = "data.rds", fit = "fit.rds"))
  for (name in names(inputs)) assign(name, readRDS(at(inputs[[name]])))
  invisible(gc())
  input_mb <- status_mb("VmRSS")
  form <- pa_a + pa_b + opc ~ rh + temperature
  note <- ""
  seen <- character()
  run <- function(expr) {
    withCallingHandlers(expr, warning = function(w) {
      seen <<- c(seen, class(w)[1])
      invokeRestart("muffleWarning")
    }, message = function(m) invokeRestart("muffleMessage"))
  }
  t0 <- proc.time()
  result <- run(switch(step,
    simulate = simulate_network(as.numeric(args[5]), seed = 1),
    fit_ref_1 = ncam(form, data = d, reference = "ref", epochs = 1L, seed = 1L),
    fit_ref_4 = ncam(form, data = d, reference = "ref", epochs = 4L, seed = 1L),
    fit_noref_1 = ncam(form, data = d, epochs = 1L, seed = 1L),
    fit_noref_4 = ncam(form, data = d, epochs = 4L, seed = 1L),
    predict = predict(fit, d),
    predict_prediction = predict(fit, d, interval = "prediction"),
    predict_use_reference = predict(fit, d, use_reference = TRUE),
    calibrate_split = calibrate(fit, new, method = "split"),
    augment = augment(fit, d, interval = "prediction"),
    sensor_performance = sensor_performance(a, ".pred", "ref", unit = "site", averaging = "24h"),
    average_estimates = average_estimates(a, "24h", unit = "site"),
    evaluate_fusion = evaluate_fusion(a, a$truth),
    sensor_drift = sensor_drift(fit, d, unit = "site"),
    predict_chunks = predict_chunks(fit, at("data.csv"), output = at("scored.csv"), overwrite = TRUE,
                                    verbose = FALSE),
    stop("unknown step ", step)))
  spent <- proc.time() - t0
  secs <- spent[["elapsed"]]
  cpu <- spent[["user.self"]] + spent[["sys.self"]]
  if (step == "simulate") {
    saveRDS(result, at("data.rds"), compress = FALSE)
    saveRDS(simulate_network(as.numeric(args[5]), seed = 2), at("new.rds"), compress = FALSE)
    utils::write.csv(result, at("data.csv"), row.names = FALSE)
    note <- sprintf("data_mb=%.1f", as.numeric(object.size(result)) / 2^20)
  }
  if (step == "fit_ref_4") {
    saveRDS(result, at("fit.rds"))
    note <- sprintf("rds_kb=%.1f", file.size(at("fit.rds")) / 1024)
  }
  if (step == "fit_noref_4") {
    saveRDS(result, at("fit_noref.rds"))
    note <- sprintf("rds_kb=%.1f", file.size(at("fit_noref.rds")) / 1024)
  }
  if (step == "augment") saveRDS(result, at("augment.rds"), compress = FALSE)
  counts <- table(seen)
  warned <- if (length(counts)) paste0(names(counts), "x", counts, collapse = ",") else "-"
  cat(sprintf("result %.3f %.1f %s %s %.3f\n", secs, input_mb, warned, if (nzchar(note)) note else "-", cpu))
  quit(save = "no")
}

# ---- parent
sizes <- if (length(args)) as.numeric(args) else c(1e5, 3e5, 1e6)
libs <- bench_libraries()
say <- script_logger(script)
steps <- c("simulate", "fit_ref_1", "fit_ref_4", "fit_noref_1", "fit_noref_4", "predict",
           "predict_prediction", "predict_use_reference", "calibrate_split", "augment",
           "sensor_performance", "average_estimates", "evaluate_fusion", "sensor_drift", "predict_chunks")

say_machine(say, script, libs)
say("Shared machine: one run per cell, so wall times carry the noise of other work.")
say("seconds: wall time of the step alone (inside the child), CPU its user + system time (both threads of a fit), load the 1-minute load average after it; peak MB: Maximum resident set size of the child (R, ncam, the step's inputs and the step); input MB: resident size once the inputs are read")

results <- list()
for (rows in sizes) {
  work <- tempfile("ncam-scale-")
  dir.create(work)
  for (step in steps) {
    for (label in names(libs)) {
      # The data are made once, by the last library.
      if (step == "simulate" && label != tail(names(libs), 1)) next
      r <- scale_rows_step(script, step, work, libs[[label]], rows)
      r$build <- label
      results[[length(results) + 1L]] <- r
      say("  %-6s %-22s %8.0f rows %8.2f s (CPU %6.2f s, load %s)  peak %7.1f MB  input %7.1f MB  warnings %s  %s",
          label, step, rows, r$seconds, r$cpu, r$load, r$peak_mb, r$input_mb, r$warnings, r$note)
    }
  }
  unlink(work, recursive = TRUE)
}
res <- do.call(rbind, results)

say("")
say("## Seconds and peak MB per step and size, with the ratio of the largest size to the smallest")
lo <- min(sizes)
hi <- max(sizes)
cells <- function(r) {
  paste(vapply(sizes, function(n) {
    x <- r[r$rows == n, ]
    if (nrow(x)) sprintf("%.2f s (CPU %.2f) / %.0f MB", x$seconds, x$cpu, x$peak_mb) else "-"
  }, ""), collapse = " | ")
}
say_table_head(say, c("step", "build", format(sizes, big.mark = ",", scientific = FALSE),
                      sprintf("%s %g/%g", c("wall", "CPU", "extra MB"), hi, lo), sprintf("warnings at %g", hi)))
for (step in steps) {
  for (label in unique(res$build[res$step == step])) {
    r <- res[res$step == step & res$build == label, ]
    a <- r[r$rows == lo, ]
    b <- r[r$rows == hi, ]
    say("| %s | %s | %s | %.1f | %.1f | %.1f | %s |", step, label, cells(r), b$seconds / a$seconds, b$cpu / a$cpu,
        (b$peak_mb - b$input_mb) / max(a$peak_mb - a$input_mb, 1), b$warnings)
  }
}

say("")
say("## Training: seconds per epoch ((4 epochs - 1 epoch) / 3) and the fixed cost of a fit (1 epoch - one epoch)")
say_table_head(say, c("fit", "build", format(sizes, big.mark = ",", scientific = FALSE)))
for (kind in c("ref", "noref")) {
  for (label in names(libs)) {
    row <- vapply(sizes, function(n) {
      one <- res$seconds[res$step == paste0("fit_", kind, "_1") & res$rows == n & res$build == label]
      three <- res$seconds[res$step == paste0("fit_", kind, "_4") & res$rows == n & res$build == label]
      per <- (three - one) / 3
      cpu <- function(step) res$cpu[res$step == paste0("fit_", kind, "_", step) & res$rows == n & res$build == label]
      sprintf("%.2f s/epoch (%.0f rows/s; CPU %.2f s/epoch), fixed %.2f s", per, n / per, (cpu(4) - cpu(1)) / 3, one - per)
    }, "")
    say("| %s | %s | %s |", if (kind == "ref") "reference = \"ref\"" else "no reference", label, paste(row, collapse = " | "))
  }
}
say("")
fitted <- res[res$step == "fit_ref_4", ]
say("Fitted object as .rds (4 epochs): %s",
    paste(sprintf("%g rows, %s: %s KB", fitted$rows, fitted$build, sub("rds_kb=", "", fitted$note)), collapse = "; "))
say("Data in memory (simulate_colocation() result): %s",
    paste(sprintf("%g rows: %s MB", res$rows[res$step == "simulate"], sub("data_mb=", "", res$note[res$step == "simulate"])), collapse = "; "))
