# Network scale through future (issue 13): chunked scoring and fits by group on this 2-core
# machine, and a projection from the measured costs to a 30,000-sensor network.
#
#   NCAM_LIB=<library holding ncam> nice -n 10 Rscript bench/scaling.R [millions of rows]
#
# writes bench/scaling.out (NCAM_BENCH_OUT to change). The big run scores <millions> (default
# 50) million simulated rows from 1M-row CSV files in a temporary folder, in a child process
# measured with /usr/bin/time -v, then deletes the files. At most 2 future workers, 1 thread each.
# When the installed ncam predates predict_chunks(), the package's R files are sourced on top
# of it (the workers get them with the functions).
#
# Child mode (used by the big run): Rscript bench/scaling.R --child <fit.rds> <input dir> <output dir>

args <- commandArgs(TRUE)
lib <- Sys.getenv("NCAM_LIB", "")
if (nzchar(lib)) .libPaths(c(lib, .libPaths()))  # workers inherit the library path
suppressMessages(library(ncam))
repo <- normalizePath(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))), ".."))
if (!exists("predict_chunks", envir = asNamespace("ncam"))) {
  dev <- new.env(parent = asNamespace("ncam"))
  for (f in c("checks.R", "predict-chunks.R", "ncam-by.R", "future-plan.R")) sys.source(file.path(repo, "R", f), envir = dev)
  registerS3method("predict", "ncam_by", dev$predict.ncam_by, envir = asNamespace("ncam"))
  predict_chunks <- dev$predict_chunks
  ncam_by <- dev$ncam_by
}

if (length(args) && args[1] == "--child") {
  fit <- readRDS(args[2])
  files <- sort(list.files(args[3], full.names = TRUE))
  t <- system.time(res <- predict_chunks(fit, files, output = args[4], threads = 1L, verbose = FALSE))
  cat(sprintf("child: %d files, %.0f rows, %.1f s elapsed, %.1f s CPU\n", length(files), sum(res$rows),
              t[["elapsed"]], t[["user.self"]] + t[["sys.self"]]))
  quit(save = "no")
}

millions <- if (length(args)) as.integer(args[1]) else 50L
out_path <- Sys.getenv("NCAM_BENCH_OUT", file.path(repo, "bench", "scaling.out"))
source(file.path(repo, "bench", "common.R"))
say <- bench_logger(out_path)
work <- tempfile("ncam-scaling-")
dir.create(work)
load_average <- function() strsplit(readLines("/proc/loadavg"), " ")[[1]][1]
elapsed <- function(expr) system.time(expr)[["elapsed"]]
cols <- c(paste0("x", 1:4), paste0("sensor_", 0:2))
write_toy <- function(path, n, seed) {
  d <- simulate_toy(n, seed = seed)[cols]
  data.table::fwrite(lapply(d, round, 4), path)
}

say("# bench/scaling.R, %s", format(Sys.time(), "%Y-%m-%d %H:%M %Z"))
say("Machine: %d cores (%s), R %s, ncam at git %s; 1-minute load average at start %s",
    parallel::detectCores(), sub(".*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
    getRversion(), system2("git", c("-C", repo, "rev-parse", "--short", "HEAD"), stdout = TRUE),
    load_average())
say("The machine is shared: wall times are from one run each and carry that noise.")

# The scoring model: default architecture (3 hidden layers of 64), 4 covariates, 3 sensors.
train <- simulate_toy(20000, seed = 1)
fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, data = train, epochs = 5L,
            seed = 1L, threads = 1L)
fit_path <- file.path(work, "fit.rds")
saveRDS(fit, fit_path)
say("Scoring model: hidden = c(64, 64, 64), 4 covariates, 3 sensors; %.0f kB serialized",
    length(serialize(fit, NULL)) / 1024)

# 1. Throughput against chunk size: one 1M-row file, sequential, 1 thread.
one <- file.path(work, "one")
dir.create(one)
write_toy(file.path(one, "part-01.csv"), 1e6, seed = 101)
in_memory <- utils::read.csv(file.path(one, "part-01.csv"))
t_engine <- elapsed(predict(fit, in_memory, threads = 1L))
say("")
say("## 1. Scoring throughput against chunk size (1 file of 1,000,000 rows, CSV in and out, 1 thread)")
say("predict() on the rows already in memory: %.2f s (%.0f rows/s): the engine alone", t_engine, 1e6 / t_engine)
say("| chunk_rows (asked -> used) | wall s | rows/s |")
say("|---|---|---|")
for (chunk in c(1e4, 1e5, 1e6)) {
  used <- 128 * ceiling(chunk / 128)
  t <- elapsed(predict_chunks(fit, file.path(one, "part-01.csv"), output = file.path(work, "out1"),
                              chunk_rows = chunk, threads = 1L, overwrite = TRUE, verbose = FALSE))
  say("| %s -> %s | %.2f | %.0f |", format(chunk, big.mark = ",", scientific = FALSE),
      format(used, big.mark = ",", scientific = FALSE), t, 1e6 / t)
}
rm(in_memory)

# 2. One against two local workers: 4 files of 1M rows.
four <- file.path(work, "four")
dir.create(four)
for (i in 1:4) write_toy(file.path(four, sprintf("part-%02d.csv", i)), 1e6, seed = 200 + i)
four_files <- sort(list.files(four, full.names = TRUE))
future::plan(future::sequential)
load_before_2 <- load_average()
t_seq <- elapsed(seq_res <- predict_chunks(fit, four_files, threads = 1L, verbose = FALSE))
future::plan(future::multisession, workers = 2)
t_par <- elapsed(par_res <- predict_chunks(fit, four_files, verbose = FALSE))
future::plan(future::sequential)
say("")
say("## 2. One against two local workers (4 files of 1,000,000 rows, results returned, 1 thread per worker)")
say("1-minute load average before: %s (2 cores; above 0 means other work competes for them)", load_before_2)
say("| plan | wall s | rows/s |")
say("|---|---|---|")
say("| sequential | %.2f | %.0f |", t_seq, 4e6 / t_seq)
say("| multisession, 2 workers | %.2f | %.0f |", t_par, 4e6 / t_par)
say("Speed-up %.2fx; results identical: %s", t_seq / t_par, identical(seq_res, par_res))
rm(seq_res, par_res)

# 3. Fits per minute for a network of 200 simulated units.
net <- simulate_colocation(days = 30, sites = 200, colocation = 0, seed = 1)
net_fit <- function() {
  ncam_by(pa_a + pa_b + opc ~ rh + temperature, data = net, by = "site", epochs = 100L,
          stop_iter = 10L, seed = 1, threads = 1L)
}
load_before_3 <- load_average()
t_fit <- system.time(fits_seq <- net_fit())
t_fit_seq <- t_fit[["elapsed"]]
cpu_fit_seq <- t_fit[["user.self"]] + t_fit[["sys.self"]]
future::plan(future::multisession, workers = 2)
t_fit_par <- elapsed(fits_par <- net_fit())
future::plan(future::sequential)
epochs_run <- vapply(fits_seq$fit, function(f) f$epochs_run, numeric(1))
same <- identical(lapply(fits_seq$fit, `[[`, "params"), lapply(fits_par$fit, `[[`, "params"))
say("")
say("## 3. Fits by group: 200 units of simulate_colocation(days = 30), 720 hourly rows each")
say("ncam_by(pa_a + pa_b + opc ~ rh + temperature, by = \"site\", epochs = 100, stop_iter = 10); default hidden layers")
say("1-minute load average before: %s", load_before_3)
say("Epochs run per fit (early stopping): median %.0f, range %.0f-%.0f", stats::median(epochs_run),
    min(epochs_run), max(epochs_run))
say("| plan | wall s | fits per minute |")
say("|---|---|---|")
say("| sequential, 1 thread | %.1f | %.0f |", t_fit_seq, 200 / t_fit_seq * 60)
say("| multisession, 2 workers x 1 thread | %.1f | %.0f |", t_fit_par, 200 / t_fit_par * 60)
say("Speed-up %.2fx; fits identical under both plans: %s", t_fit_seq / t_fit_par, same)
train_cost <- cpu_fit_seq / sum(epochs_run * 720 * 0.9)  # CPU s per training row-epoch (10% validation)

# 4. The big run: <millions> files of 1M rows, scored to CSV in a child under /usr/bin/time -v.
big_in <- file.path(work, "big-in")
big_out <- file.path(work, "big-out")
dir.create(big_in)
t_gen <- elapsed(for (i in seq_len(millions)) write_toy(file.path(big_in, sprintf("part-%03d.csv", i)), 1e6, seed = 1000 + i))
big_files <- sort(list.files(big_in, full.names = TRUE))
say("")
say("## 4. Scoring %d million rows from %d CSV files (%.2f GB; written in %.0f s)", millions, millions,
    sum(file.size(big_files)) / 1e9, t_gen)
cmd <- c("-v", "nice", "-n", "10", file.path(R.home("bin"), "Rscript"), file.path(repo, "bench", "scaling.R"),
         "--child", fit_path, big_in, big_out)
say("Command: /usr/bin/time %s", paste(cmd, collapse = " "))
timed <- system2("/usr/bin/time", cmd, stdout = TRUE, stderr = TRUE)
field <- function(name) sub(".*: ", "", grep(name, timed, value = TRUE, fixed = TRUE)[1])
rss_mb <- as.numeric(field("Maximum resident set size")) / 1024
say("%s", grep("^child:", timed, value = TRUE))
say("Peak RSS (Maximum resident set size): %.0f MB; wall clock %s; user %s s, system %s s",
    rss_mb, field("Elapsed (wall clock) time"), field("User time (seconds)"), field("System time (seconds)"))
baseline_script <- file.path(work, "baseline.R")
writeLines(c(sprintf(".libPaths(c(%s, .libPaths()))", deparse(lib)), "suppressMessages(library(ncam))",
             sprintf("invisible(readRDS(%s))", deparse(fit_path))), baseline_script)
baseline <- system2("/usr/bin/time", c("-v", file.path(R.home("bin"), "Rscript"), baseline_script),
                    stdout = TRUE, stderr = TRUE)
say("For scale: R with ncam loaded and the model read: %.0f MB", as.numeric(sub(".*: ", "", grep("Maximum resident", baseline, value = TRUE))) / 1024)
child_line <- grep("^child:", timed, value = TRUE)
big_wall <- as.numeric(sub(".* rows, ([0-9.]+) s elapsed.*", "\\1", child_line))
big_cpu <- as.numeric(sub(".* elapsed, ([0-9.]+) s CPU.*", "\\1", child_line))

# Agreement on a sample of files: in-memory predict() of each whole file.
sample_files <- big_files[unique(c(1, ceiling(millions / 2), millions))]
agree <- vapply(sample_files, function(path) {
  whole <- predict(fit, utils::read.csv(path), threads = 1L)
  chunked <- predict_chunks(fit, path, threads = 1L, verbose = FALSE)
  written <- utils::read.csv(file.path(big_out, basename(path)))
  c(identical = identical(as.list(chunked), as.list(whole)),
    max_rel = max(abs(written$.pred - whole$.pred) / abs(whole$.pred)),
    same_rows = nrow(written) == nrow(whole))
}, numeric(3))
say("Sample of %d files against in-memory predict() of each whole file: predict_chunks() results identical: %s; written CSV (15 digits) max relative difference of .pred: %.1e; same rows: %s",
    length(sample_files), all(agree["identical", ] == 1), max(agree["max_rel", ]), all(agree["same_rows", ] == 1))
unlink(c(big_in, big_out), recursive = TRUE)

# 5. Projection to a 30,000-sensor network.
# CPU time is the basis: on this shared machine wall time also counts other people's work.
rate <- millions * 1e6 / big_cpu  # rows per CPU second, CSV in and out
rows_year <- 30000 * 365 * 24 * 30
price <- 0.05  # assumed USD per vCPU-hour
say("")
say("## 5. Projection: one year of a 30,000-sensor network at two-minute resolution")
say("Assumptions: one row per sensor unit and two minutes (%.3g rows a year), each with the 3 sensor channels and 4 covariates of the model above; scoring from and to CSV at the %.0f rows per CPU second measured in section 4 (1 thread; %.0f rows/s of wall time there, on a shared machine); one dedicated vCPU per worker and linear scaling over files (each worker reads its own files; section 2 is the local check, limited by this machine's 2 shared cores); storage and transfer not included; USD %.2f per vCPU-hour (an on-demand cloud price, an assumption).",
    rows_year, rate, millions * 1e6 / big_wall, price)
say("| workers | scoring wall time | vCPU-hours | cost USD |")
say("|---|---|---|---|")
for (n in c(1, 2, 16, 64, 256)) {
  hours <- rows_year / rate / n / 3600
  say("| %d | %s | %.1f | %.2f |", n, if (hours >= 1) sprintf("%.1f h", hours) else sprintf("%.0f min", hours * 60),
      hours * n, hours * n * price)
}
fit_rows <- 30 * 24 * 30  # a 30-day window at two minutes
fit_s <- train_cost * fit_rows * 0.9 * 100
say("Training: measured %.2e CPU s per training row and epoch (section 3, 720-row fits). Refitting every sensor once on its last 30 days at two minutes (%d rows, 100 epochs, no early stop) costs %.0f s per fit, %.0f vCPU-hours for 30,000 fits (USD %.0f), %.1f h on 64 workers; monthly refits for a year: 12 times that.",
    train_cost, fit_rows, fit_s, 30000 * fit_s / 3600, 30000 * fit_s / 3600 * price, 30000 * fit_s / 3600 / 64)
say("Memory per worker stays at the section 4 peak whatever the number of rows, since each worker holds one chunk at a time.")
unlink(work, recursive = TRUE)
