# Helpers shared by the bench scripts.

# For long scripts: say(fmt, ...) prints a line and rewrites `out_path` with every line so far,
# so that a run stopped midway leaves its figures.
bench_logger <- function(out_path) {
  lines <- character()
  function(...) {
    line <- sprintf(...)
    cat(line, "\n", sep = "")
    lines <<- c(lines, line)
    writeLines(lines, out_path)
  }
}

# For the child scripts of bench/speed.R: the engine's raw inputs for toy data at hidden
# width 64 (covariates, readings, model spec, working scale, Adam settings).
toy_engine_inputs <- function(d, batch_size = 256L) {
  X <- as.matrix(d[, paste0("x", 1:4)])
  B <- as.matrix(d[, paste0("sensor_", 0:2)])
  list(
    X = X, B = B,
    spec = ncam:::new_model_spec(4L, 3L, c(64L, 64L, 64L), "anchored"),
    sc = ncam:::new_scaling(unname(colMeans(X)), unname(apply(X, 2, sd)), mean(B[, 1]), sd(B[, 1])),
    adam = ncam:::new_adam_settings(1e-3, batch_size)
  )
}


# Shared by bench/colocation.R and bench/colocation_mechanism.R: scored rows split by their
# distance outside the co-location range (predict()'s .extrapolation, the same for every seed
# as it depends on the data alone) at `breaks` (shares of the range; the last one should be
# ncam:::extrapolation_warning_share, beyond which predict() warns). Per band and for all rows:
# RMSE and 90 % coverage of NCAM (mean over the runs, one per seed) and of lm, and NCAM's share
# of its squared error. Runs are data frames with columns pred, lower, upper.
extrapolation_bands <- function(distance, ncam_runs, lm_run, truth, breaks) {
  labels <- c("inside", sprintf("%g to %g", c(0, head(breaks, -1)), breaks), sprintf("above %g (warned)", tail(breaks, 1)))
  band <- cut(distance, c(-Inf, 0, breaks, Inf), labels = labels)
  rmse <- function(run, rows) sqrt(mean((run$pred[rows] - truth[rows])^2))
  cover <- function(run, rows) mean(truth[rows] >= run$lower[rows] & truth[rows] <= run$upper[rows])
  total_sq <- vapply(ncam_runs, function(r) sum((r$pred - truth)^2), numeric(1))
  groups <- c(split(seq_along(distance), band), list(all = seq_along(distance)))
  rows <- lapply(groups, function(i) {
    if (!length(i)) return(data.frame(rows = 0L, share_of_rows = 0, ncam_rmse = NA, lm_rmse = NA,
                                      ncam_share_of_squared_error = 0, ncam_cov90 = NA, lm_cov90 = NA))
    data.frame(rows = length(i), share_of_rows = length(i) / length(distance),
               ncam_rmse = mean(vapply(ncam_runs, rmse, numeric(1), rows = i)), lm_rmse = rmse(lm_run, i),
               ncam_share_of_squared_error = mean(vapply(ncam_runs, function(r) sum((r$pred[i] - truth[i])^2), numeric(1)) / total_sq),
               ncam_cov90 = mean(vapply(ncam_runs, cover, numeric(1), rows = i)), lm_cov90 = cover(lm_run, i))
  })
  cbind(band = names(groups), do.call(rbind, rows), row.names = NULL)
}

# The folder of the shared real data: $NCAM_SHARED_DATA, else ../shared/data, else /work/shared/data.
shared_data_dir <- function() {
  env <- Sys.getenv("NCAM_SHARED_DATA")
  hit <- Filter(dir.exists, c(if (nzchar(env)) env, file.path("..", "shared", "data"), "/work/shared/data"))
  if (!length(hit)) stop("No shared data: set NCAM_SHARED_DATA to the folder holding purpleair-aqs-daily-mathieu/.")
  normalizePath(hit[[1]])
}

# The short co-location protocol on the PurpleAir/AQS daily data (bench/colocation.R,
# bench/colocation_mechanism.R, bench/colocation_stopping.R): the first `label_frac` (10 %) of
# each site's days (ceiling) keep the reference. Returns the file's path, the share, the data
# with pa_mean, the labelled rows' indices, the training rows (reference NA after the
# co-location; rows with complete covariates and readings) and the scored rows (with a
# reference), as indices of the data and as its rows.
purpleair_short_protocol <- function() {
  path <- file.path(shared_data_dir(), "purpleair-aqs-daily-mathieu",
                    "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv")
  label_frac <- 0.1
  d <- as.data.frame(ncam::read_purpleair_aqs(path))
  d$pa_mean <- (d$pa_a + d$pa_b) / 2
  site_rows <- split(seq_len(nrow(d)), d$site)
  first_days <- unlist(lapply(site_rows, function(i) i[order(d$date[i])][seq_len(ceiling(label_frac * length(i)))]))
  train <- d
  train$ref[-first_days] <- NA
  train <- train[stats::complete.cases(train[c("rh", "temperature", "pa_a", "pa_b")]), ]
  test_rows <- setdiff(seq_len(nrow(d)), first_days)
  test_rows <- test_rows[!is.na(d$ref[test_rows])]
  list(path = path, label_frac = label_frac, data = d, first_days = first_days, train = train,
       test_rows = test_rows, test = d[test_rows, ])
}

# The peer of the short protocol: lm(ref ~ pa_mean + rh + temperature) on the labelled days, and
# its RMSE on the scored days.
short_protocol_lm <- function(protocol) {
  fit <- stats::lm(ref ~ pa_mean + rh + temperature, data = protocol$data[protocol$first_days, ])
  list(fit = fit, rmse = sqrt(mean((stats::predict(fit, protocol$test) - protocol$test$ref)^2)))
}

# ---- For the scripts that measure builds of ncam in child Rscripts (bench/scale_rows.R,
# predict_memory.R, predict_cpu.R, drift_memory_phases.R, setup_time.R, setup_profile.R). Their
# children read this file with sys.source(): source() alone adds about 2 MB to the resident size
# they measure.

# The libraries to compare, named by build: $NCAM_LIB as "after" ("" for R's default), with
# $NCAM_LIB_BEFORE as "before" ahead of it when set; `both`: stop unless both are set.
bench_libraries <- function(both = FALSE) {
  libs <- c(after = Sys.getenv("NCAM_LIB", ""))
  if (nzchar(Sys.getenv("NCAM_LIB_BEFORE"))) libs <- c(before = Sys.getenv("NCAM_LIB_BEFORE"), libs)
  if (both && (length(libs) < 2L || !nzchar(libs[["after"]]))) stop("set NCAM_LIB_BEFORE and NCAM_LIB")
  libs
}

# The logger (bench_logger()) of the script at `script`: bench/NAME.out beside it, or $NCAM_BENCH_OUT.
script_logger <- function(script) bench_logger(Sys.getenv("NCAM_BENCH_OUT", sub("\\.R$", ".out", script)))

# The 1-minute load average now, as /proc/loadavg writes it.
load_average <- function() strsplit(readLines("/proc/loadavg"), " ")[[1]][1]

# The first two lines of the output: the script and the date, then the machine, the git commit of
# the script's checkout, the libraries and the load average; `before_libraries` and
# `after_libraries`: the run's settings, written before or after the libraries.
say_machine <- function(say, script, libs, before_libraries = NULL, after_libraries = NULL) {
  setting <- function(text) if (is.null(text)) "" else paste0(text, "; ")
  say("# bench/%s, %s", basename(script), format(Sys.time(), "%Y-%m-%d %H:%M %Z"))
  say("Machine: %d cores, R %s, ncam at git %s; %slibraries: %s; %s1-minute load average at start %s",
      parallel::detectCores(), getRversion(),
      system2("git", c("-C", dirname(dirname(script)), "rev-parse", "--short", "HEAD"), stdout = TRUE),
      setting(before_libraries), paste(names(libs), libs, sep = " = ", collapse = ", "), setting(after_libraries),
      load_average())
}

# A markdown table's first two lines: the column names and the rule under them.
say_table_head <- function(say, columns) {
  say("| %s |", paste(columns, collapse = " | "))
  say("|%s", strrep("---|", length(columns)))
}

# In a child Rscript: ncam attached from library `lib` ("" for R's default).
attach_ncam <- function(lib) {
  if (nzchar(lib)) .libPaths(c(lib, .libPaths()))
  suppressPackageStartupMessages(library(ncam))
}

# A field of /proc/self/status in MB: VmRSS, the resident size now; VmHWM, its high-water mark.
status_mb <- function(field = "VmRSS") {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", line)) / 1024
}

# The CPU seconds (user + system) this process has spent so far.
cpu_seconds <- function() {
  spent <- proc.time()
  spent[["user.self"]] + spent[["sys.self"]]
}

# Runs Rscript with `args` (under /usr/bin/time -v writing to `timing`, when given) and returns
# the lines of its output that start with the word `tag`, each split at its spaces; stops with
# the whole output when there are none.
child_lines <- function(args, tag, timing = NULL) {
  rscript <- file.path(R.home("bin"), "Rscript")
  out <- if (is.null(timing)) {
    system2(rscript, args, stdout = TRUE, stderr = TRUE)
  } else {
    system2("/usr/bin/time", c("-v", "-o", timing, rscript, args), stdout = TRUE, stderr = TRUE)
  }
  lines <- grep(paste0("^", tag, " "), out, value = TRUE)
  if (!length(lines)) stop(paste(args, collapse = " "), " failed:\n", paste(out, collapse = "\n"))
  strsplit(lines, " ")
}

# The figure scripts' parent: one child per library in `libs` (`script --child <out_dir>/<label>
# <library>`), each library's lines tagged by `tag` echoed under a "## <label>" heading.
say_child_figures <- function(say, script, libs, out_dir, tag) {
  for (label in names(libs)) {
    lines <- child_lines(c(script, "--child", file.path(out_dir, label), shQuote(libs[[label]])), tag)
    say("")
    say("## %s", label)
    for (words in lines) say("%s", paste(words, collapse = " "))
  }
}

# Runs Rscript with `args` under /usr/bin/time -v: the words after "result" on the line the child
# prints, and the child's peak resident size in MB.
timed_child <- function(args) {
  timing <- tempfile()
  words <- child_lines(args, "result", timing)[[1]][-1]
  peak_mb <- as.numeric(sub(".*: ", "", grep("Maximum resident set size", readLines(timing), value = TRUE))) / 1024
  unlink(timing)
  list(result = words, peak_mb = peak_mb)
}

# The network of bench/scale_rows.R at `rows` rows: 417 days of hourly readings, the reference on
# the first 42, at rows / 10008 sites.
simulate_network <- function(rows, seed) {
  ncam::simulate_colocation(days = 417, sites = round(rows / (417 * 24)), colocation = 42, seed = seed)
}

# One step of bench/scale_rows.R's child mode (`scale_rows_script`) on the files in `work`, with
# library `lib`, at `rows` rows: its wall and CPU seconds, its resident MB with the inputs read,
# its peak MB, the classes of its warnings and its note; load: the load average after it.
scale_rows_step <- function(scale_rows_script, step, work, lib, rows) {
  run <- timed_child(c(scale_rows_script, "--child", step, work, shQuote(lib), format(rows, scientific = FALSE)))
  x <- run$result
  data.frame(step = step, rows = rows, seconds = as.numeric(x[1]), input_mb = as.numeric(x[2]), peak_mb = run$peak_mb,
             warnings = x[3], note = x[4], cpu = as.numeric(x[5]), load = load_average())
}

# bench/scale_rows.R's data at `rows` rows (data.rds) and its reference fit of 4 epochs (fit.rds),
# made with library `lib` in a new folder: the folder, and the two steps as scale_rows_step() gives them.
scale_rows_work <- function(scale_rows_script, lib, rows, prefix) {
  work <- tempfile(prefix)
  dir.create(work)
  made <- lapply(c("simulate", "fit_ref_4"), function(step) scale_rows_step(scale_rows_script, step, work, lib, rows))
  list(dir = work, made = do.call(rbind, made))
}

# In a child Rscript: ncam attached from library `lib`, and the data (d) and fit that
# scale_rows_work() made in `work`.
read_scale_rows_work <- function(work, lib) {
  attach_ncam(lib)
  list(d = readRDS(file.path(work, "data.rds")), fit = readRDS(file.path(work, "fit.rds")))
}

# The data `d` with the readings of pa_a, pa_b, opc and ref that are <= 0 set to NA (for
# transform = "log").
nonpositive_readings_as_na <- function(d) {
  for (s in c("pa_a", "pa_b", "opc", "ref")) d[[s]][which(d[[s]] <= 0)] <- NA
  d
}

# The data of a fit of `kind` in bench/setup_time.R and bench/setup_profile.R, read from `path`:
# for "log", readings <= 0 set to NA; for "factor", a factor covariate season (date's quarter).
setup_fit_data <- function(path, kind) {
  d <- readRDS(path)
  if (kind == "log") d <- nonpositive_readings_as_na(d)
  if (kind == "factor") d$season <- factor(quarters(d$date))
  d
}

# The CPU benches of one call or two at a million rows (predict_cpu.R, drift_cpu.R), both halves
# of the script: the child times each of `calls` (functions of the work read by
# read_scale_rows_work()) `reps` times and prints "cpu <case> <seconds>"; the parent alternates
# the two builds over `rounds` rounds of a child each and writes the medians per case.
cpu_bench_child <- function(args, calls) {
  work <- read_scale_rows_work(args[2], args[3])
  for (r in seq_len(as.integer(args[4]))) {
    for (case in names(calls)) {
      start <- cpu_seconds()
      suppressWarnings(calls[[case]](work))
      cat(sprintf("cpu %s %.3f\n", case, cpu_seconds() - start))
    }
  }
  quit(save = "no")
}

cpu_bench_parent <- function(script, args, cases, default_reps, work_prefix, threads_txt) {
  rounds <- if (length(args) >= 1) as.integer(args[1]) else 2L
  reps <- if (length(args) >= 2) as.integer(args[2]) else default_reps
  libs <- bench_libraries(both = TRUE)
  say <- script_logger(script)
  say_machine(say, script, libs, after_libraries = sprintf("%d rounds of %d calls", rounds, reps))
  work <- scale_rows_work(file.path(dirname(script), "scale_rows.R"), libs[["after"]], 1e6, work_prefix)$dir
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
  say("Median CPU seconds per call (user + system, %s):", threads_txt)
  say_table_head(say, c("call", "before", "after"))
  for (k in cases) {
    med <- function(label) stats::median(times$cpu[times$build == label & times$case == k])
    say("| %s | %.2f | %.2f |", k, med("before"), med("after"))
  }
}
