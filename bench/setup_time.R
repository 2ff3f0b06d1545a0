# ncam()'s fixed cost, what a fit spends beside its epochs (checks of the inputs, the design,
# scaling, the spike screen, the summary of the fitted rows kept in the fit, unit offsets), at
# 1e5 and 1e6 rows, for two builds; and whether the two builds fit the same models to the bit.
#
#   NCAM_LIB=<library> NCAM_LIB_BEFORE=<older library> nice -n 10 Rscript bench/setup_time.R [rows ...]
#
# Data as bench/scale_rows.R makes them: simulate_colocation(days = 417, sites = rows / 10008,
# colocation = 42, seed = 1), 3 sensors, rh and temperature, the reference on the first 42 of
# 417 days (10 % of rows). Four fits of pa_a + pa_b + opc ~ rh + temperature, each with
# epochs = 1, seed = 1, threads = 1 (one thread: the engine's passes then cost the same CPU
# whatever else the shared machine runs) and the package defaults otherwise:
#   reference  reference = "ref"
#   log        transform = "log" (readings <= 0 set to NA first), no reference
#   unit       reference = "ref", unit = "site" (100 sites at 1e6 rows)
#   factor     reference = "ref", and a factor covariate season (quarters(date), 4 levels)
# Each fit runs in its own child Rscript under /usr/bin/time -v, the two builds alternating,
# `reps` times (NCAM_BENCH_REPS, default 3). The child traces the engine's epoch
# (ncam_trainer_epoch) and train_loop(), and reports the CPU time (user + system, from
# proc.time()) of the whole ncam() call, of its epoch, before training (set-up: from the call
# to train_loop()) and after it (the fit object, the summary of the fitted rows, unit offsets);
# the fixed cost is the whole minus the epoch. Peak MB is the child's maximum resident set
# size (R, ncam, the data and the fit), input MB its resident size once the data are read.
#
# Then both builds fit 17 small models and make 8 predictions (bench/setup_time.R --fits) and
# the parent compares them with identical(): params, sensor_summary, history, the whole
# object, and the text of every warning.
#
# Writes bench/setup_time.out (NCAM_BENCH_OUT).
#
# Child modes: Rscript bench/setup_time.R --time <kind> <data.rds> <library>
#              Rscript bench/setup_time.R --fits <out.rds> <library>

args <- commandArgs(TRUE)
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
sys.source(file.path(dirname(script), "common.R"), envir = globalenv())

# ---- child: one fit, timed; prints "result <total cpu> <epoch cpu> <before cpu> <after cpu> <wall> <input MB>"
if (length(args) && args[1] == "--time") {
  kind <- args[2]
  attach_ncam(args[4])
  d <- setup_fit_data(args[3], kind)
  clock <- new.env()
  clock$epoch <- 0
  ns <- asNamespace("ncam")
  suppressMessages({
    trace("ncam_trainer_epoch", where = ns, print = FALSE,
          tracer = quote(assign("epoch_start", get("cpu_seconds", globalenv())(), envir = get("clock", globalenv()))),
          exit = quote(local({
            clock <- get("clock", globalenv())
            clock$epoch <- clock$epoch + get("cpu_seconds", globalenv())() - clock$epoch_start
          })))
    trace("train_loop", where = ns, print = FALSE,
          tracer = quote(assign("train_start", get("cpu_seconds", globalenv())(), envir = get("clock", globalenv()))),
          exit = quote(assign("train_end", get("cpu_seconds", globalenv())(), envir = get("clock", globalenv()))))
  })
  form <- pa_a + pa_b + opc ~ rh + temperature
  invisible(gc())
  rss <- status_mb("VmRSS")
  wall <- proc.time()[["elapsed"]]
  start <- cpu_seconds()
  fit <- suppressWarnings(switch(kind,
    reference = ncam(form, data = d, reference = "ref", epochs = 1L, seed = 1L, threads = 1L),
    log = ncam(form, data = d, transform = "log", epochs = 1L, seed = 1L, threads = 1L),
    unit = ncam(form, data = d, reference = "ref", unit = "site", epochs = 1L, seed = 1L, threads = 1L),
    factor = ncam(pa_a + pa_b + opc ~ rh + temperature + season, data = d, reference = "ref", epochs = 1L,
                  seed = 1L, threads = 1L),
    stop("unknown kind ", kind)))
  end <- cpu_seconds()
  wall <- proc.time()[["elapsed"]] - wall
  cat(sprintf("result %.3f %.3f %.3f %.3f %.3f %.1f\n", end - start, clock$epoch, clock$train_start - start,
              end - clock$train_end, wall, rss))
  quit(save = "no")
}

# ---- child: the models compared across builds, saved with the text of their warnings
if (length(args) && args[1] == "--fits") {
  attach_ncam(args[3])
  d <- as.data.frame(simulate_colocation(days = 60, sites = 4, seed = 1))
  d$pa_a[c(100, 2000)] <- 900  # spikes for the screen
  d$site_f <- factor(paste0("s", d$site))
  d_log <- nonpositive_readings_as_na(d)
  toy <- simulate_toy(300, seed = 1)
  form <- pa_a + pa_b + opc ~ rh + temperature
  warned <- list()
  run <- function(name, expr) {
    seen <- character()
    value <- withCallingHandlers(expr, warning = function(w) {
      seen <<- c(seen, paste(class(w)[1], conditionMessage(w)))
      invokeRestart("muffleWarning")
    })
    warned[[name]] <<- seen
    value
  }
  toy_fit <- function(validation, learn_rate, seed) {
    ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, validation = validation, epochs = 1L, hidden = 8L,
         learn_rate = learn_rate, seed = seed)
  }
  every_tenth <- seq_len(300) %% 10 == 0
  fits <- list(
    default = run("default", ncam(form, d, epochs = 5L, seed = 1L)),
    reference = run("reference", ncam(form, d, reference = "ref", epochs = 5L, seed = 1L)),
    log = run("log", ncam(form, d_log, transform = "log", epochs = 5L, seed = 1L)),
    log_reference = run("log_reference", ncam(form, d_log, reference = "ref", transform = "log", epochs = 5L, seed = 1L)),
    unit = run("unit", ncam(form, d, reference = "ref", unit = "site", epochs = 5L, seed = 1L)),
    factor = run("factor", ncam(pa_a + pa_b + opc ~ rh + temperature + site_f, d, reference = "ref", epochs = 5L,
                                seed = 1L)),
    factor_constant = run("factor_constant", ncam(pa_a + pa_b + opc ~ rh + constant + site_f, transform(d, constant = 5),
                                                  reference = "ref", epochs = 5L, seed = 1L)),
    no_validation = run("no_validation", ncam(form, d, reference = "ref", validation = 0, epochs = 5L, seed = 1L)),
    spikes_kept = run("spikes_kept", ncam(form, d, reference = "ref", epochs = 5L, seed = 1L,
                                          control = ncam_control(screen_outliers = Inf))),
    log_spikes_kept = run("log_spikes_kept", ncam(form, d_log, transform = "log", epochs = 5L, seed = 1L,
                                                  control = ncam_control(screen_outliers = Inf))),
    constant_noise = run("constant_noise", ncam(form, d, reference = "ref", epochs = 5L, seed = 1L,
                                                control = ncam_control(reference_noise = "constant"))),
    own_level = run("own_level", ncam(form, transform(d, opc = 1000 * opc + 2000), reference = "ref", epochs = 5L,
                                      seed = 1L)),
    # Validation that never improves (learning rate 0.5 on 40 rows; 1e-20, weights as drawn),
    # and a loss that never improves without validation rows.
    never_improved = run("never_improved", ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, toy[1:40, ], validation = 0.1,
                                                epochs = 5L, hidden = 8L, seed = 3L, learn_rate = 0.5)),
    never_improved_seed1 = run("never_improved_seed1", toy_fit(every_tenth, 1e-20, 1L)),
    never_improved_seed2 = run("never_improved_seed2", toy_fit(every_tenth, 1e-20, 2L)),
    never_improved_noval = run("never_improved_noval", ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, toy[1:40, ],
                                                            validation = 0, epochs = 5L, hidden = 8L, seed = 3L,
                                                            learn_rate = 5)),
    two_threads = run("two_threads", ncam(form, d, reference = "ref", epochs = 5L, seed = 1L, threads = 2L))
  )
  new <- d
  new$pa_b[c(5, 50)] <- 5000
  new_log <- d_log
  new_log$opc[c(7, 70)] <- 3000
  made <- list(
    predict_reference = run("predict_reference", predict(fits$reference, new, interval = "prediction")),
    predict_log = run("predict_log", predict(fits$log, new_log, interval = "credible")),
    predict_unit = run("predict_unit", predict(fits$unit, new, interval = "prediction")),
    predict_factor = run("predict_factor", predict(fits$factor, new, interval = "prediction")),
    augment_factor = run("augment_factor", augment(fits$factor, new)),
    model_matrix_factor = run("model_matrix_factor", model.matrix(fits$factor, new)),
    sensor_params_factor = run("sensor_params_factor", sensor_params(fits$factor, new)),
    predict_factor_constant = run("predict_factor_constant", predict(fits$factor_constant, transform(new, constant = 6)))
  )
  saveRDS(list(objects = c(fits, made), warned = warned), args[2])
  quit(save = "no")
}

# ---- parent
sizes <- if (length(args)) as.numeric(args) else c(1e5, 1e6)
libs <- bench_libraries()
reps <- as.integer(Sys.getenv("NCAM_BENCH_REPS", "3"))
kinds <- c("reference", "log", "unit", "factor")
say <- script_logger(script)

# One fit of `kind` in a child under /usr/bin/time -v: its CPU s, wall s, input and peak MB.
run_child <- function(kind, data_path, lib) {
  run <- timed_child(c(script, "--time", kind, data_path, shQuote(lib)))
  x <- as.numeric(run$result)
  data.frame(cpu = x[1], epoch = x[2], before_training = x[3], after_training = x[4], wall = x[5], input_mb = x[6],
             peak_mb = run$peak_mb, load = load_average())
}

say_machine(say, script, libs)
say("CPU s (user + system) of ncam(..., epochs = 1, threads = 1) in a child Rscript: whole call, its one epoch, fixed = whole - epoch, before training (from the call to train_loop()), after training; %d runs per cell, the two builds alternating. Peak MB: maximum resident set size of the child; input MB: its resident size with the data read.", reps)

attach_ncam(libs[["after"]])
results <- list()
for (rows in sizes) {
  data_path <- tempfile(fileext = ".rds")
  saveRDS(simulate_network(rows, seed = 1), data_path, compress = FALSE)
  for (kind in kinds) {
    for (rep in seq_len(reps)) {
      for (label in names(libs)) {
        r <- run_child(kind, data_path, libs[[label]])
        r <- cbind(rows = rows, kind = kind, build = label, rep = rep, r)
        results[[length(results) + 1L]] <- r
        say("  %-6s %-9s %8.0f rows  run %d: CPU %6.2f s (epoch %5.2f, fixed %5.2f: before training %5.2f, after %5.2f), wall %6.2f s, peak %6.1f MB, input %6.1f MB, load %s",
            label, kind, rows, rep, r$cpu, r$epoch, r$cpu - r$epoch, r$before_training, r$after_training, r$wall,
            r$peak_mb, r$input_mb, r$load)
      }
    }
  }
  unlink(data_path)
}
res <- do.call(rbind, results)
res$fixed <- res$cpu - res$epoch

say("")
say("## Medians over the runs: CPU s of the fixed cost (before training / after), of the epoch, and peak MB")
say_table_head(say, c("rows", "fit", "build", "fixed CPU s", "before training", "after training", "epoch CPU s",
                      "peak MB (input MB)"))
med <- function(x) stats::median(x)
cells <- list()
for (rows in sizes) {
  for (kind in kinds) {
    for (label in names(libs)) {
      r <- res[res$rows == rows & res$kind == kind & res$build == label, ]
      cells[[paste(rows, kind, label)]] <- c(fixed = med(r$fixed), peak = med(r$peak_mb), input = med(r$input_mb))
      say("| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.0f (%.0f) |", format(rows, big.mark = ",", scientific = FALSE),
          kind, label, med(r$fixed), med(r$before_training), med(r$after_training), med(r$epoch), med(r$peak_mb),
          med(r$input_mb))
    }
  }
}
if (length(libs) == 2L) {
  say("")
  say("## After / before: fixed CPU s and peak MB beyond the input (medians)")
  say_table_head(say, c("rows", "fit", "fixed CPU s, before -> after (ratio)",
                        "peak MB beyond input, before -> after (ratio)"))
  for (rows in sizes) {
    for (kind in kinds) {
      b <- cells[[paste(rows, kind, "before")]]
      a <- cells[[paste(rows, kind, "after")]]
      say("| %s | %s | %.2f -> %.2f (%.2f) | %.0f -> %.0f (%.2f) |", format(rows, big.mark = ",", scientific = FALSE), kind,
          b[["fixed"]], a[["fixed"]], a[["fixed"]] / b[["fixed"]], b[["peak"]] - b[["input"]], a[["peak"]] - a[["input"]],
          (a[["peak"]] - a[["input"]]) / (b[["peak"]] - b[["input"]]))
    }
  }

  say("")
  say("## The same models? Both builds fit 17 small models and make 8 predictions (--fits); identical() of each")
  made <- lapply(libs, function(lib) {
    path <- tempfile(fileext = ".rds")
    out <- system2(file.path(R.home("bin"), "Rscript"), c(script, "--fits", path, shQuote(lib)), stdout = TRUE,
                   stderr = TRUE)
    if (!file.exists(path)) stop("--fits failed:\n", paste(out, collapse = "\n"))
    readRDS(path)
  })
  say_table_head(say, c("object", "params", "sensor_summary", "history", "whole object", "warnings' text",
                        "parts that differ"))
  for (name in names(made$before$objects)) {
    b <- made$before$objects[[name]]
    a <- made$after$objects[[name]]
    fit <- inherits(b, "ncam")
    same <- function(part) if (fit) identical(b[[part]], a[[part]]) else NA
    differ <- if (fit && !identical(a, b)) paste(names(b)[!mapply(identical, b, a[names(b)])], collapse = ", ") else ""
    say("| %s | %s | %s | %s | %s | %s | %s |", name, same("params"), same("sensor_summary"), same("history"),
        identical(a, b), identical(made$before$warned[[name]], made$after$warned[[name]]), differ)
  }
}
