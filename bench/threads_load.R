#!/usr/bin/env Rscript
# Two threads against one, on an idle machine and with one core kept busy (issue 9, "Under load").
#
#   NCAM_LIB=/path/to/lib nice -n 10 Rscript bench/threads_load.R
#
# Workload: a default ncam() fit (hidden 64-64-64, batch 256, float) on simulate_toy(20000, seed = 1),
# anchor "sensor_0", a fixed number of epochs (stop_iter = 0: no early stopping), seed 1, threads
# 1 or 2. Every fit runs in a fresh child process (callr::r) and times only the ncam() call,
# with system.time()[["elapsed"]]: no fit inherits another's OpenMP threads or memory. The
# children inherit this process's environment (OMP_WAIT_POLICY, GOMP_SPINCOUNT, ...).
#
# Each round: an idle phase (threads 1, 2, 1, 2, 1, 2; nothing else started), then a busy phase
# (the same, while ONE other process, `Rscript -e "repeat {}"`, keeps one core at 100 %).
# Targets: busy median(2 threads) / median(1 thread) <= 1.15; idle median(1) / median(2) >= 1.6.
#
# Environment variables:
#   NCAM_LIB                 library holding the installed ncam (default: the normal library path)
#   NCAM_LOAD_ROUNDS         rounds of (idle phase, busy phase) (default 1)
#   NCAM_LOAD_FIXED          "0" skips the comparison busy phase with ncam_control(adapt_threads = FALSE)
#                            (the thread count fixed, as before the thread chooser; default: run it)
#   NCAM_LOAD_WAIT_POLICIES  optional comma-separated OMP_WAIT_POLICY values (e.g. "passive,active"):
#                            after the rounds, one more busy phase per value, set in the children only
#   NCAM_BENCH_WAIT          minutes to wait at start for the 1-min load to fall below 0.5 (default 5)
#   NCAM_BENCH_SMOKE         "1": n = 2000, 3 epochs, to test the script only (under a minute)
#   NCAM_BENCH_OUT           file receiving a copy of the output (default bench/threads_load.out;
#                            a temporary file in smoke mode)
# Every figure printed is measured by this run.

args_all <- commandArgs(FALSE)
script <- sub("^--file=", "", grep("^--file=", args_all, value = TRUE))
bench_dir <- if (length(script)) dirname(normalizePath(script[1])) else normalizePath("bench")
repo <- dirname(bench_dir)

lib <- Sys.getenv("NCAM_LIB", "")
lib_path <- if (nzchar(lib)) normalizePath(lib) else character()
library(ncam, lib.loc = if (length(lib_path)) lib_path else NULL)
smoke <- identical(Sys.getenv("NCAM_BENCH_SMOKE"), "1")
n_rows <- if (smoke) 2000L else 20000L
n_epochs <- if (smoke) 3L else 30L
n_reps <- 3L
rounds <- as.integer(Sys.getenv("NCAM_LOAD_ROUNDS", "1"))
if (is.na(rounds) || rounds < 1L) stop("NCAM_LOAD_ROUNDS must be a whole number of at least 1")
policies <- trimws(strsplit(Sys.getenv("NCAM_LOAD_WAIT_POLICIES", ""), ",")[[1]])
policies <- policies[nzchar(policies)]
target_busy <- 1.15
target_idle <- 1.6
rscript <- file.path(R.home("bin"), "Rscript")
out_file <- Sys.getenv("NCAM_BENCH_OUT", if (smoke) tempfile("threads_load_", fileext = ".out")
                       else file.path(bench_dir, "threads_load.out"))

out_con <- file(out_file, open = "wt")
sink(out_con, split = TRUE)
options(width = 200)

# ---------------------------------------------------------------------------------- helpers
say <- function(...) cat(sprintf(...), "\n", sep = "")
loadavg <- function() strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3]
load1 <- function() as.numeric(loadavg()[1])
section <- function(title) cat("\n", strrep("=", 90), "\n", title, sprintf("   [1-min load %.2f]", load1()), "\n",
                               strrep("=", 90), "\n", sep = "")
cpu_model <- function() {
  l <- grep("^model name", readLines("/proc/cpuinfo", warn = FALSE), value = TRUE)
  if (length(l)) trimws(sub(".*:", "", l[1])) else NA_character_
}
git_commit <- function(repo) {
  x <- suppressWarnings(system2("git", c("-C", repo, "rev-parse", "HEAD"), stdout = TRUE, stderr = FALSE))
  if (length(x)) x[1] else NA_character_
}
# CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat.
cpu_seconds <- function(pid) {
  f <- sprintf("/proc/%d/stat", pid)
  if (is.na(pid) || !file.exists(f)) return(NA_real_)
  fields <- strsplit(sub("^.*\\) ", "", readLines(f, warn = FALSE)), " ")[[1]]
  sum(as.numeric(fields[12:13])) / 100  # utime, stime (fields 14, 15 of stat) in clock ticks
}

# One fit in a fresh child process; `env` adds environment variables for that child only.
# Around the timed call the child also reads the machine's CPU counters (/proc/stat) and the
# busy process's, so that CPU used by anything else during the fit (other users) is visible.
run_fit <- function(threads, env = character(), busy_pid = NA_integer_, adapt = TRUE) {
  res <- callr::r(
    function(lib_path, n_rows, n_epochs, threads, busy_pid, cpu_seconds, adapt) {
      library(ncam, lib.loc = if (length(lib_path)) lib_path else NULL)
      toy <- simulate_toy(n = n_rows, seed = 1)
      machine_cpu <- function() {  # busy and stolen CPU seconds of all cores so far
        v <- as.numeric(strsplit(readLines("/proc/stat", n = 1L), " +")[[1]][-1])
        c(busy = sum(v[c(1:3, 6:7)]) / 100, steal = v[8] / 100)
      }
      warnings_seen <- character()
      machine0 <- machine_cpu()
      busy0 <- cpu_seconds(busy_pid)
      timing <- withCallingHandlers(
        system.time(fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, data = toy,
                                anchor = "sensor_0", epochs = n_epochs, stop_iter = 0L, seed = 1,
                                threads = threads, control = ncam_control(adapt_threads = adapt))),
        # A fixed, short schedule ends before convergence: ncam() says so; keep the text.
        warning = function(w) {
          warnings_seen <<- c(warnings_seen, conditionMessage(w))
          invokeRestart("muffleWarning")
        })
      machine <- machine_cpu() - machine0
      busy_cpu <- cpu_seconds(busy_pid) - busy0
      fit_cpu <- timing[["user.self"]] + timing[["sys.self"]]
      list(elapsed = timing[["elapsed"]], cpu = fit_cpu, busy_cpu = busy_cpu,
           other_cpu = machine[["busy"]] - fit_cpu - (if (is.na(busy_cpu)) 0 else busy_cpu),
           steal = machine[["steal"]], params = fit$params, epochs_run = fit$epochs_run,
           warnings = warnings_seen)
    },
    args = list(lib_path = lib_path, n_rows = n_rows, n_epochs = n_epochs, threads = threads,
                busy_pid = busy_pid, cpu_seconds = cpu_seconds, adapt = adapt),
    libpath = c(lib_path, .libPaths()), env = c(callr::rcmd_safe_env(), env)
  )
  if (res$epochs_run != n_epochs) stop("the fit ran ", res$epochs_run, " epochs, not ", n_epochs)
  res
}

fit_warnings <- character()
params_seen <- list()

# 3 alternating repetitions (1, 2, 1, 2, 1, 2); returns the times and prints each fit.
alternating_fits <- function(label, env = character(), busy_pid = NA_integer_, adapt = TRUE) {
  rows <- list()
  say("phase rep threads elapsed_s  cpu_s cpu_per_wall busy_proc_cpu_s other_cpu_s steal_s load1_before")
  for (rep in seq_len(n_reps)) {
    for (threads in 1:2) {
      load_before <- load1()
      res <- run_fit(threads, env, busy_pid, adapt)
      fit_warnings <<- unique(c(fit_warnings, res$warnings))
      params_seen[[as.character(threads)]] <<- res$params
      rows[[length(rows) + 1L]] <- data.frame(phase = label, rep = rep, threads = threads, elapsed_s = res$elapsed,
                                              cpu_s = res$cpu, busy_proc_cpu_s = res$busy_cpu,
                                              other_cpu_s = res$other_cpu, load1_before = load_before)
      say("%5s %3d %7d %9.3f %6.2f %12.2f %15s %11.2f %7.2f %12.2f", label, rep, threads, res$elapsed, res$cpu,
          res$cpu / res$elapsed, if (is.na(res$busy_cpu)) "-" else sprintf("%.2f", res$busy_cpu),
          res$other_cpu, res$steal, load_before)
    }
  }
  do.call(rbind, rows)
}

summarise_phase <- function(times) {
  m1 <- median(times$elapsed_s[times$threads == 1L])
  m2 <- median(times$elapsed_s[times$threads == 2L])
  say("median elapsed: 1 thread %.3f s, 2 threads %.3f s; speed-up median(1)/median(2) = %.2fx; ratio median(2)/median(1) = %.3f",
      m1, m2, m1 / m2, m2 / m1)
  c(median_1 = m1, median_2 = m2, speedup = m1 / m2, ratio = m2 / m1)
}

idle_phase <- function(round) {
  section(sprintf("Round %d, idle phase: nothing started besides the fits", round))
  say("load before the phase (1/5/15 min): %s", paste(loadavg(), collapse = " "))
  s <- summarise_phase(alternating_fits("idle"))
  say("idle speed-up %.2fx vs target >= %.1fx: %s", s[["speedup"]], target_idle,
      if (s[["speedup"]] >= target_idle) "PASS" else "MISS")
  s
}

# One core kept busy by one other process, killed on leaving (also on error or interrupt).
busy_phase <- function(title, env = character(), adapt = TRUE) {
  section(title)
  say("load before starting the busy process (1/5/15 min): %s", paste(loadavg(), collapse = " "))
  busy <- processx::process$new(rscript, c("--vanilla", "-e", "repeat {}"))
  on.exit(busy$kill(), add = TRUE)
  Sys.sleep(2)
  say("busy process: pid %d, `Rscript -e \"repeat {}\"`, alive: %s, nice %s, %s (its own session, as a second login would be)",
      busy$get_pid(), busy$is_alive(), trimws(system2("ps", c("-o", "ni=", "-p", busy$get_pid()), stdout = TRUE)),
      readLines(sprintf("/proc/%d/autogroup", busy$get_pid()), warn = FALSE))
  t0 <- Sys.time()
  cpu0 <- cpu_seconds(busy$get_pid())
  times <- alternating_fits("busy", env, busy$get_pid(), adapt)
  busy_share <- (cpu_seconds(busy$get_pid()) - cpu0) / as.numeric(difftime(Sys.time(), t0, units = "secs"))
  say("busy process got %.0f%% of one core during the phase (CPU seconds / wall seconds)", 100 * busy_share)
  s <- summarise_phase(times)
  say("busy ratio median(2)/median(1) = %.3f vs target <= %.2f: %s", s[["ratio"]], target_busy,
      if (s[["ratio"]] <= target_busy) "PASS" else "MISS")
  s
}

# ---------------------------------------------------------------------------------- header
wait_max <- as.numeric(Sys.getenv("NCAM_BENCH_WAIT", "5")) * 60
t_wait <- Sys.time()
while (load1() >= 0.5 && difftime(Sys.time(), t_wait, units = "secs") < wait_max) Sys.sleep(10)
waited <- as.numeric(difftime(Sys.time(), t_wait, units = "secs"))

section("ncam: two threads vs one, idle and with one core busy (issue 9)")
say("date:      %s", format(Sys.time(), "%Y-%m-%d %H:%M:%S %Z"))
say("machine:   nproc = %s, CPU = %s", parallel::detectCores(), cpu_model())
say("repo:      %s, commit %s", repo, git_commit(repo))
say("ncam:      %s from %s", as.character(utils::packageVersion("ncam")), dirname(system.file(package = "ncam")))
say("R:         %s; kernel %s, sched_autogroup_enabled = %s (callr/processx children each get their own session)",
    R.version.string, Sys.info()[["release"]], readLines("/proc/sys/kernel/sched_autogroup_enabled", warn = FALSE))
omp_env <- Sys.getenv(c("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OMP_PROC_BIND", "OMP_NUM_THREADS", "NCAM_THREADS"))
say("OpenMP environment: %s", paste(names(omp_env), ifelse(nzchar(omp_env), omp_env, "(unset)"), sep = "=", collapse = ", "))
say("waited %.0f s (at most %.0f) for the 1-min load to fall below 0.5; load at start (1/5/15 min): %s",
    waited, wait_max, paste(loadavg(), collapse = " "))
say("workload:  ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, simulate_toy(n = %d, seed = 1),", n_rows)
say("           anchor = \"sensor_0\", epochs = %d, stop_iter = 0, seed = 1, threads = 1 or 2), other arguments default", n_epochs)
say("timing:    system.time(ncam(...))[[\"elapsed\"]] inside a fresh callr::r() child per fit; %d alternating repetitions per phase", n_reps)
say("columns:   cpu_s = user + system seconds of the child during ncam(); cpu_per_wall = cpu_s / elapsed_s;")
say("           busy_proc_cpu_s = CPU seconds the busy process got during ncam(); other_cpu_s = CPU seconds all other")
say("           processes (other users) used during ncam() (/proc/stat busy minus the two above; ~0 when alone);")
say("           steal_s = CPU seconds the hypervisor gave to other guests; load1_before = 1-min load before the fit")
if (smoke) say("SMOKE MODE: n = %d, %d epochs; figures test the script only", n_rows, n_epochs)

# ---------------------------------------------------------------------------------- rounds
results <- list()
identical_params <- logical()
for (round in seq_len(rounds)) {
  idle <- idle_phase(round)
  identical_params <- c(identical_params, identical(params_seen[["1"]], params_seen[["2"]]))
  busy <- busy_phase(sprintf("Round %d, busy phase: one other process keeps one core at 100%%", round))
  identical_params <- c(identical_params, identical(params_seen[["1"]], params_seen[["2"]]))
  results[[round]] <- data.frame(round = round, idle_speedup = round(idle[["speedup"]], 3),
                                 busy_ratio = round(busy[["ratio"]], 3))
}

# The same busy phase with the thread chooser off: the behaviour before it, for comparison.
fixed_result <- NULL
if (!identical(Sys.getenv("NCAM_LOAD_FIXED", "1"), "0")) {
  busy <- busy_phase("Comparison, busy phase with control = ncam_control(adapt_threads = FALSE) (threads fixed)",
                     adapt = FALSE)
  identical_params <- c(identical_params, identical(params_seen[["1"]], params_seen[["2"]]))
  fixed_result <- busy
}

policy_results <- list()
for (policy in policies) {
  busy <- busy_phase(sprintf("Diagnosis, busy phase with OMP_WAIT_POLICY=%s set in the children", policy),
                     env = c(OMP_WAIT_POLICY = policy))
  identical_params <- c(identical_params, identical(params_seen[["1"]], params_seen[["2"]]))
  policy_results[[policy]] <- data.frame(OMP_WAIT_POLICY = policy, median_1_s = busy[["median_1"]],
                                         median_2_s = busy[["median_2"]], busy_ratio = round(busy[["ratio"]], 3))
}

# ---------------------------------------------------------------------------------- summary
section("Summary")
results <- do.call(rbind, results)
print(results, row.names = FALSE)
say("over %d round(s): idle speed-up %.2fx to %.2fx (target >= %.1fx); busy ratio %.3f to %.3f (target <= %.2f)",
    rounds, min(results$idle_speedup), max(results$idle_speedup), target_idle,
    min(results$busy_ratio), max(results$busy_ratio), target_busy)
say("idle target: %s; busy target: %s",
    if (all(results$idle_speedup >= target_idle)) "PASS" else "MISS",
    if (all(results$busy_ratio <= target_busy)) "PASS" else "MISS")
say("fits at 1 and 2 threads bit-identical (identical(fit1$params, fit2$params), every phase): %s",
    all(identical_params))
if (!is.null(fixed_result)) {
  say("busy phase with adapt_threads = FALSE (threads fixed, as before the thread chooser): ratio %.3f (1 thread %.3f s, 2 threads %.3f s)",
      fixed_result[["ratio"]], fixed_result[["median_1"]], fixed_result[["median_2"]])
}
if (length(policy_results)) {
  say("\nbusy phase by OMP_WAIT_POLICY in the children (diagnosis):")
  print(do.call(rbind, policy_results), row.names = FALSE)
}
if (length(fit_warnings)) say("warnings from ncam() (muffled in the timed fits): %s", paste(unique(gsub("\n", " ", fit_warnings)), collapse = " | "))
say("load at end (1/5/15 min): %s", paste(loadavg(), collapse = " "))
say("output also written to %s", out_file)
sink()
close(out_con)
