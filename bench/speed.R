#!/usr/bin/env Rscript
# Speed benchmark of ncam against the PyTorch peer, measured in one run.
#
#   NCAM_LIB=/path/to/lib Rscript bench/speed.R
#
# Environment variables:
#   NCAM_LIB         library holding the installed ncam (default: the normal library path)
#   NCAM_PEER_DIR    folder of the PyTorch peer (default /work/shared/bench/reference)
#   NCAM_PYTHON      python with torch (default /usr/bin/python3)
#   NCAM_BENCH_FULL  "1": also run the paper's toy experiment fully (100 epochs, ~10+ minutes)
#   NCAM_BENCH_PROFILE "0": skip the perf profiles (default: run them when perf works)
#   NCAM_BENCH_OUT   file that receives a copy of the output (default bench/last_run.txt)
#   NCAM_BENCH_REPS  repetitions per timing (median reported; default 5 for ncam, 3 for the peer)
#   NCAM_PROFILE_LIB library used for the perf profiles (default NCAM_LIB); a build that keeps its
#                    debug information gives inlined frames (e.g. the GELU) their own names
#   NCAM_LIB_ALT     optional second build (e.g. installed with NCAM_CXXFLAGS=-march=native) timed
#                    against NCAM_LIB on a few shapes, in child processes
#   NCAM_BENCH_SMOKE "1": tiny sizes, to test the script only
#   NCAM_BENCH_WAIT  minutes to wait at start for the 1-min load to fall below 0.5 (default 10)
# Every figure printed is measured by this run; nothing is typed in.

args_all <- commandArgs(FALSE)
script <- sub("^--file=", "", grep("^--file=", args_all, value = TRUE))
bench_dir <- if (length(script)) dirname(normalizePath(script[1])) else normalizePath("bench")
repo <- dirname(bench_dir)

lib <- Sys.getenv("NCAM_LIB", "")
if (nzchar(lib)) library(ncam, lib.loc = lib) else library(ncam)
peer_dir <- Sys.getenv("NCAM_PEER_DIR", "/work/shared/bench/reference")
python <- Sys.getenv("NCAM_PYTHON", "/usr/bin/python3")
full <- identical(Sys.getenv("NCAM_BENCH_FULL"), "1")
do_profile <- !identical(Sys.getenv("NCAM_BENCH_PROFILE"), "0")
smoke <- identical(Sys.getenv("NCAM_BENCH_SMOKE"), "1")  # tiny sizes, to test the script only
reps <- as.integer(Sys.getenv("NCAM_BENCH_REPS", if (smoke) "1" else "5"))
N_BIG <- if (smoke) 50000L else 1000000L
SCALE_NS <- if (smoke) c(1000L, 10000L, 50000L) else c(10000L, 100000L, 1000000L)
TOY_N <- if (smoke) 20000L else 200000L
ACC_EPOCHS <- if (smoke) 2L else 60L
PEER_POST64 <- if (smoke) 20000L else 100000L
peer_reps <- max(1L, min(reps, 3L))
out_file <- Sys.getenv("NCAM_BENCH_OUT", file.path(bench_dir, "last_run.txt"))
rscript <- file.path(R.home("bin"), "Rscript")
lib_path <- if (nzchar(lib)) normalizePath(lib) else ""
prof_lib <- Sys.getenv("NCAM_PROFILE_LIB", lib_path)
alt_lib <- Sys.getenv("NCAM_LIB_ALT", "")

out_con <- file(out_file, open = "wt")
sink(out_con, split = TRUE)
on.exit({ sink(); close(out_con) }, add = TRUE)
t_start <- Sys.time()
options(width = 250)

# ---------------------------------------------------------------------------------- helpers
say <- function(...) cat(sprintf(...), "\n", sep = "")
load1 <- function() as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
section <- function(title) cat("\n", strrep("=", 100), "\n", title, sprintf("   [load %.2f]", load1()), "\n",
                                strrep("=", 100), "\n", sep = "")
now <- function() as.numeric(Sys.time())
timed <- function(expr) {
  t0 <- now()
  force(expr)
  now() - t0
}
fmt <- function(x, digits = 3) formatC(x, digits = digits, format = "fg", big.mark = ",")
fmt_rate <- function(x) ifelse(is.na(x), "NA", formatC(round(x), format = "d", big.mark = ","))
fmt_ratio <- function(x) ifelse(is.na(x), "NA", sprintf("%.2fx", x))
print_table <- function(df) {
  print(df, row.names = FALSE, right = TRUE)
  invisible(df)
}
status <- function(ok) ifelse(is.na(ok), "n/a", ifelse(ok, "MET", "NOT MET"))

git_commit <- function(repo) {
  head <- file.path(repo, ".git", "HEAD")
  if (!file.exists(head)) return(NA_character_)
  x <- readLines(head, 1L, warn = FALSE)
  if (!startsWith(x, "ref: ")) return(x)
  ref <- sub("^ref: ", "", x)
  f <- file.path(repo, ".git", ref)
  if (file.exists(f)) return(readLines(f, 1L, warn = FALSE))
  pr <- file.path(repo, ".git", "packed-refs")
  if (file.exists(pr)) {
    l <- grep(paste0(" ", ref, "$"), readLines(pr, warn = FALSE), value = TRUE)
    if (length(l)) return(sub(" .*", "", l[1]))
  }
  NA_character_
}
cpu_model <- function() {
  l <- grep("^model name", readLines("/proc/cpuinfo", warn = FALSE), value = TRUE)
  if (length(l)) trimws(sub(".*:", "", l[1])) else NA_character_
}
cpu_flags <- function() {
  l <- grep("^flags", readLines("/proc/cpuinfo", warn = FALSE), value = TRUE)
  f <- strsplit(trimws(sub(".*:", "", l[1])), " ")[[1]]
  paste(intersect(c("sse4_2", "avx", "avx2", "fma", "avx512f"), f), collapse = " ")
}
chunk_rows <- function() {
  f <- file.path(repo, "src", "ncam", "engine.hpp")
  if (!file.exists(f)) return(128L)
  l <- grep("kChunkRows\\s*=", readLines(f, warn = FALSE), value = TRUE)
  v <- suppressWarnings(as.integer(sub(".*kChunkRows\\s*=\\s*([0-9]+).*", "\\1", l[1])))
  if (is.na(v)) 128L else v
}

# A single width h means the paper's three hidden layers c(h, h, h).
H3 <- function(h) if (length(h) == 1L) rep(as.integer(h), 3L) else as.integer(h)
# The engine's inputs come from the package's own constructors (one definition of each).
spec_for <- function(hidden, p = 4L, L = 3L) ncam:::new_model_spec(p, L, H3(hidden), "anchored")
adam_for <- function(batch) ncam:::new_adam_settings(1e-3, batch)
scaling_for <- function(X, B) {
  ncam:::new_scaling(unname(colMeans(X)), unname(apply(X, 2, sd)), mean(B[, 1]), sd(B[, 1]))
}
as_xb <- function(d) {
  list(X = as.matrix(d[, paste0("x", 1:4)]), B = as.matrix(d[, paste0("sensor_", 0:2)]))
}

# Analytic FLOPs per row of the linear layers, as the peer's flop_count() (bench_timing.py):
# three MLPs p -> H -> H -> H -> {2, L, 2L}; multiply-add = 2 FLOPs; backward has weight and bias
# gradients everywhere and input gradients except for the first layer.
flops_per_row <- function(hidden, p = 4, L = 3) {
  fwd <- 0
  bwd <- 0
  for (o in c(2, L, 2 * L)) {
    w <- c(p, H3(hidden), o)
    for (l in seq_len(length(w) - 1L)) {
      di <- w[l]; do <- w[l + 1L]
      fwd <- fwd + 2 * di * do + do
      bwd <- bwd + 2 * di * do + do + if (l == 1L) 0 else 2 * di * do
    }
  }
  c(fwd = fwd, bwd = bwd, total = fwd + bwd)
}

# GFLOP/s of Eigen's C += A B at (rows x depth) (depth x cols): one probe of ~0.1 GFLOP per
# thread; with threads > 1, that many threads each run their own product at the same time.
gemm_probe_once <- function(rows, depth, cols, precision, threads = 1L) {
  r <- max(20L, as.integer(1e8 / (2 * rows * depth * cols)))
  ncam:::ncam_gemm_probe_cpp(as.integer(rows), as.integer(depth), as.integer(cols), r, precision, as.integer(threads))
}
# Median of 3 such probes.
gemm_gflops <- function(rows, depth, cols, precision, threads = 1L) {
  median(vapply(1:3, function(i) gemm_probe_once(rows, depth, cols, precision, threads), 0))
}

# The GEMMs one chunk of n rows executes in the engine (forward, weight gradient, input gradient),
# from the model's own layer widths; returns the rows/s a pure-GEMM engine would reach at the
# probe's speed on each of these shapes (a composite roofline), and the probe on the main shape.
composite_roofline <- function(hidden, n, precision) {
  lay <- ncam:::ncam_layout_cpp(spec_for(hidden))$heads
  shapes <- list()
  for (h in lay) {
    w <- h$widths
    for (l in seq_len(length(w) - 1L)) {
      di <- w[l]; do <- w[l + 1L]
      shapes[[length(shapes) + 1L]] <- c(do, di, n)                      # forward  W x
      shapes[[length(shapes) + 1L]] <- c(do, n, di)                      # dW = g x^T
      if (l > 1L) shapes[[length(shapes) + 1L]] <- c(di, do, n)          # dx = W^T g
    }
  }
  key <- vapply(shapes, paste, "", collapse = "x")
  uniq <- unique(key)
  speed <- setNames(vapply(uniq, function(k) {
    s <- as.integer(strsplit(k, "x")[[1]])
    gemm_gflops(s[1], s[2], s[3], precision)
  }, 0), uniq)
  fl <- vapply(shapes, function(s) 2 * prod(s), 0)
  secs <- sum(fl / (speed[key] * 1e9))
  list(rows_per_s = n / secs, gflops = sum(fl) / secs / 1e9, flops_per_chunk = sum(fl))
}

vm_status <- function(field) {
  l <- grep(paste0("^", field, ":"), readLines("/proc/self/status", warn = FALSE), value = TRUE)
  as.numeric(sub("^[^0-9]*([0-9]+).*", "\\1", l)) / 1024
}

# Wait (up to NCAM_BENCH_WAIT minutes, default 10) for the machine to be idle: other jobs on the
# two cores distort every figure, two-thread ones most.
wait_max <- as.numeric(Sys.getenv("NCAM_BENCH_WAIT", "10")) * 60
t_wait <- now()
while (load1() > 0.5 && now() - t_wait < wait_max) Sys.sleep(10)
waited <- now() - t_wait

# ---------------------------------------------------------------------------------- header
section("ncam speed benchmark")
say("date:      %s", format(Sys.time(), "%Y-%m-%d %H:%M:%S %Z"))
say("machine:   nproc = %s, CPU = %s (flags: %s), RAM = %s GiB",
    parallel::detectCores(), cpu_model(), cpu_flags(),
    round(as.numeric(sub("[^0-9]*([0-9]+).*", "\\1", grep("^MemTotal", readLines("/proc/meminfo"), value = TRUE))) / 1024^2, 1))
say("repo:      %s, commit %s (HEAD of the checkout; uncommitted changes are not detected)", repo, git_commit(repo))
src_files <- sort(c(Sys.glob(file.path(repo, "src", "ncam", "*.hpp")), Sys.glob(file.path(repo, "src", "*.cpp"))))
src_md5 <- if (length(src_files)) {
  tf <- tempfile(); writeLines(unname(tools::md5sum(src_files)), tf); unname(tools::md5sum(tf))
} else NA
say("engine source md5 (src/ncam/*.hpp + src/*.cpp of the checkout, now): %s", src_md5)
say("ncam:      %s from %s", as.character(utils::packageVersion("ncam")), dirname(system.file(package = "ncam")))
say("compiler:  R's CXXFLAGS = '%s' (+ package Makevars: OpenMP, EIGEN_NO_DEBUG; NCAM_CXXFLAGS at install time not visible here)",
    paste(system2(file.path(R.home("bin"), "R"), c("CMD", "config", "CXXFLAGS"), stdout = TRUE), collapse = " "))
say("R:         %s; peer: %s with python %s", R.version.string, peer_dir, python)
say("engine chunk rows (kChunkRows in src/ncam/engine.hpp): %d", chunk_rows())
say("waited %.0f s for the 1-min load to drop below 0.5; load at start (1/5/15 min): %s", waited, paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " "))
say("statistic: median of %d repetitions for ncam, %d for the peer; rows/s = rows processed / seconds",
    reps, peer_reps)

# ---------------------------------------------------------------------------------- data
big <- simulate_toy(N_BIG, seed = 1)
xb_big <- as_xb(big)
n_train <- 20000L
X20 <- xb_big$X[seq_len(n_train), , drop = FALSE]
B20 <- xb_big$B[seq_len(n_train), , drop = FALSE]
sc20 <- scaling_for(X20, B20)

# ---------------------------------------------------------------------------------- peer (one child)
section("Running the PyTorch peer (same data, same shapes) ...")
peer_file <- tempfile("ncam_peer_", fileext = ".bin")
writeBin(as.vector(cbind(xb_big$X, xb_big$B)), peer_file, endian = "little")
peer_jobs <- list()
add_job <- function(...) peer_jobs[[length(peer_jobs) + 1L]] <<- list(...)
for (th in 1:2) {
  for (bs in c(256L, 1024L)) add_job(kind = "train", hidden = 64L, batch = bs, threads = th, rows = n_train, reps = peer_reps)
  add_job(kind = "train", hidden = 4L, batch = 64L, threads = th, rows = n_train, reps = peer_reps)
  add_job(kind = "posterior", hidden = 64L, threads = th, rows = PEER_POST64, reps = peer_reps)
  add_job(kind = "posterior", hidden = 4L, threads = th, rows = N_BIG, reps = peer_reps)
  add_job(kind = "train", hidden = 128L, batch = 1024L, threads = th, rows = n_train, reps = 1L)
}
jobs_file <- tempfile("ncam_peer_jobs_", fileext = ".json")
writeLines(jsonlite::toJSON(peer_jobs, auto_unbox = TRUE), jobs_file)
peer_t <- timed(peer_out <- system2(python, c(file.path(bench_dir, "peer_timing.py"), "--data", peer_file,
                                                "--n", nrow(xb_big$X), "--p", 4, "--L", 3,
                                                "--jobs", paste0("@", jobs_file), "--peer-dir", peer_dir),
                                      stdout = TRUE, stderr = FALSE))
peer <- tryCatch(jsonlite::fromJSON(paste(peer_out, collapse = "\n"), simplifyDataFrame = TRUE),
                 error = function(e) NULL)
unlink(peer_file)
if (is.null(peer)) {
  say("peer run FAILED; ratios will be NA")
  peer_res <- data.frame(kind = character(), hidden = integer(), batch = integer(), threads = integer(),
                         rows_per_s = numeric())
} else {
  peer_res <- peer$results
  if (is.null(peer_res$batch)) peer_res$batch <- NA_integer_
  say("peer: torch %s, %s; took %.0f s", peer$torch, peer$peer_dir, peer_t)
  pf <- peer$flops[["64"]]$linear_fwd_bwd
  say("FLOP check: peer flop_count(H=64) = %s fwd+bwd FLOPs/row; this script's count = %s",
      fmt_rate(pf), fmt_rate(flops_per_row(64)[["total"]]))
}
peer_rate <- function(kind, hidden, threads, batch = NA) {
  k <- peer_res$kind == kind & peer_res$hidden == hidden & peer_res$threads == threads
  if (!is.na(batch)) k <- k & peer_res$batch == batch
  if (any(k)) peer_res$rows_per_s[which(k)[1]] else NA_real_
}

# ---------------------------------------------------------------------------------- training
section("Training throughput: ncam trainer epochs (forward + backward + Adam), 20,000 toy rows")
# Rows/s (median over repetitions). With probe = TRUE, each repetition is preceded by a GEMM
# probe on 64x64 * 64xbatch with the same number of threads, and `fraction` is the median of
# the per-repetition GFLOP/s ratios: the roofline is measured next to the work it bounds, so a
# drift in the machine's speed (other guests, clock) moves both.
train_rate <- function(hidden, batch, threads, precision, X = X20, B = B20, sc = sc20, n_reps = reps,
                       min_rep = 0.25, probe = FALSE) {
  st <- ncam:::ncam_trainer_new(spec_for(hidden), X, B, sc, seq_len(nrow(X)) - 1L, adam_for(batch), 1,
                                as.integer(threads), precision)
  t1 <- timed(r1 <- ncam:::ncam_trainer_epoch(st))  # warm-up
  if (!isTRUE(r1$finite)) stop("training diverged in the benchmark")
  k <- max(1L, ceiling(min_rep / t1))
  ts <- pr <- rep(NA_real_, n_reps)
  for (i in seq_len(n_reps)) {
    if (probe) pr[i] <- gemm_probe_once(64, 64, batch, precision, threads)
    ts[i] <- timed(for (e in seq_len(k)) ncam:::ncam_trainer_epoch(st)) / k
  }
  gflops <- nrow(X) / ts * flops_per_row(hidden)[["total"]] / 1e9
  c(rows_per_s = nrow(X) / median(ts), probe_same_threads = median(pr), fraction = median(gflops / pr))
}
configs <- expand.grid(threads = 1:2, precision = c("float", "double"), stringsAsFactors = FALSE)
shapes <- data.frame(hidden = c(64L, 64L, 4L), batch = c(256L, 1024L, 64L))
train_tab <- NULL
for (i in seq_len(nrow(shapes))) for (j in seq_len(nrow(configs))) {
  h <- shapes$hidden[i]; bs <- shapes$batch[i]; th <- configs$threads[j]; pr <- configs$precision[j]
  r <- train_rate(h, bs, th, pr, probe = h == 64L)
  train_tab <- rbind(train_tab, data.frame(hidden = h, batch = bs, threads = th, precision = pr,
                                           rows_per_s = r[["rows_per_s"]], probe_same_threads = r[["probe_same_threads"]],
                                           frac_probe_interleaved = r[["fraction"]]))
}
train_tab$peer_rows_per_s <- mapply(function(h, bs, th) peer_rate("train", h, th, bs),
                                    train_tab$hidden, train_tab$batch, train_tab$threads)
train_tab$ratio_vs_peer <- train_tab$rows_per_s / train_tab$peer_rows_per_s
train_tab$flops_row <- vapply(train_tab$hidden, function(h) flops_per_row(h)[["total"]], 0)
train_tab$gflops <- train_tab$rows_per_s * train_tab$flops_row / 1e9

# Roofline: probe on the same layer shapes (per thread; the 2-thread roofline is 2x).
chunk <- chunk_rows()
roof <- NULL
for (pr in c("float", "double")) for (bs in c(256L, 1024L)) {
  n_chunk <- min(bs, chunk)
  comp <- composite_roofline(64L, n_chunk, pr)
  roof <- rbind(roof, data.frame(precision = pr, batch = bs,
                                 probe_64x64x64xbatch = gemm_gflops(64, 64, bs, pr),
                                 probe_64x64x64xchunk = gemm_gflops(64, 64, n_chunk, pr),
                                 composite_gflops = comp$gflops, composite_rows_per_s = comp$rows_per_s))
}
train_tab <- merge(train_tab, roof, by = c("precision", "batch"), all.x = TRUE, sort = FALSE)
train_tab <- train_tab[order(-train_tab$hidden, train_tab$batch, train_tab$precision != "float", train_tab$threads), ]
h64 <- train_tab$hidden == 64
train_tab$frac_probe_batch <- ifelse(h64, train_tab$gflops / (train_tab$threads * train_tab$probe_64x64x64xbatch), NA)
train_tab$frac_probe_chunk <- ifelse(h64, train_tab$gflops / (train_tab$threads * train_tab$probe_64x64x64xchunk), NA)
train_tab$frac_composite <- ifelse(h64, train_tab$rows_per_s / (train_tab$threads * train_tab$composite_rows_per_s), NA)

say("FLOPs/row (fwd+bwd, linear layers, peer's count): H=64 %s, H=4 %s, H=128 %s",
    fmt_rate(flops_per_row(64)[["total"]]), fmt_rate(flops_per_row(4)[["total"]]), fmt_rate(flops_per_row(128)[["total"]]))
say("roofline = Eigen GEMM probe (ncam_gemm_probe_cpp, C += A B, package flags). Two measurements:")
say("  * '/probe(thr)': before every timed repetition, the probe on 64x64 * 64xbatch run by as many threads as the")
say("    training (each thread its own product, at the same time); median of the per-repetition ratios. The target.")
say("  * below, single-thread probes taken once, scaled by the thread count: probe(64x64 * 64xbatch), probe(64x64 *")
say("    64x%d = the engine's chunk), and 'composite' = the rows/s a pure-GEMM engine would reach running every GEMM", chunk)
say("    of a chunk (fwd, dW, dX of all 12 layers) at its probed speed")
print_table(data.frame(
  precision = roof$precision, batch = roof$batch,
  `probe 64xbatch` = fmt(roof$probe_64x64x64xbatch), `probe 64xchunk` = fmt(roof$probe_64x64x64xchunk),
  `composite GFLOP/s` = fmt(roof$composite_gflops), `composite rows/s` = fmt_rate(roof$composite_rows_per_s),
  check.names = FALSE))
cat("\n")
print_table(data.frame(
  hidden = train_tab$hidden, batch = train_tab$batch, thr = train_tab$threads, prec = train_tab$precision,
  `ncam rows/s` = fmt_rate(train_tab$rows_per_s), `peer rows/s` = fmt_rate(train_tab$peer_rows_per_s),
  `x peer` = fmt_ratio(train_tab$ratio_vs_peer), `GFLOP/s` = fmt(train_tab$gflops),
  `probe(thr) GFLOP/s` = ifelse(is.na(train_tab$probe_same_threads), "", fmt(train_tab$probe_same_threads)),
  `/probe(thr)` = ifelse(is.na(train_tab$frac_probe_interleaved), "", sprintf("%.2f", train_tab$frac_probe_interleaved)),
  `/probe(batch)` = ifelse(is.na(train_tab$frac_probe_batch), "", sprintf("%.2f", train_tab$frac_probe_batch)),
  `/probe(chunk)` = ifelse(is.na(train_tab$frac_probe_chunk), "", sprintf("%.2f", train_tab$frac_probe_chunk)),
  `/composite` = ifelse(is.na(train_tab$frac_composite), "", sprintf("%.2f", train_tab$frac_composite)),
  check.names = FALSE))
say("(the peer always runs float32; its ratio is shown against both ncam precisions)")
fd <- merge(train_tab[train_tab$precision == "float", c("hidden", "batch", "threads", "rows_per_s")],
            train_tab[train_tab$precision == "double", c("hidden", "batch", "threads", "rows_per_s")],
            by = c("hidden", "batch", "threads"), suffixes = c("_float", "_double"))
say("\nfloat / double training throughput:")
print_table(data.frame(hidden = fd$hidden, batch = fd$batch, thr = fd$threads,
                       float = fmt_rate(fd$rows_per_s_float), double = fmt_rate(fd$rows_per_s_double),
                       `float/double` = fmt_ratio(fd$rows_per_s_float / fd$rows_per_s_double), check.names = FALSE))

# ---------------------------------------------------------------------------------- posterior
section(sprintf("Posterior throughput: predict(interval = 'credible') and raw ncam_predict_cpp, %s rows", fmt_rate(N_BIG)))
say("(batch size does not apply to the posterior: rows are processed in %d-row chunks; peer = ncam_torch.predict,", chunk)
say(" 65,536-row chunks, on %s rows at H=64 and %s rows at H=4)", fmt_rate(PEER_POST64), fmt_rate(N_BIG))
toy20 <- big[seq_len(n_train), ]
post_tab <- NULL
fits <- list()
for (h in c(64L, 4L)) {
  fits[[as.character(h)]] <- fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, data = toy20,
                                         anchor = "sensor_0", hidden = rep(h, 3), epochs = 2, seed = 1, threads = 2)
  for (th in 1:2) {
    predict(fit, big[1:1000, ], interval = "credible", threads = th)  # warm-up
    t_pred <- median(vapply(seq_len(reps), function(i) timed(predict(fit, big, interval = "credible", threads = th)), 0))
    t_raw <- median(vapply(seq_len(reps), function(i)
      timed(ncam:::ncam_predict_cpp(fit$spec, fit$params, xb_big$X, xb_big$B, fit$scaling, th,
                                    fit$settings$control$precision, "posterior", FALSE)), 0))
    post_tab <- rbind(post_tab, data.frame(hidden = h, threads = th, precision = fit$settings$control$precision,
                                           predict = nrow(big) / t_pred, raw = nrow(big) / t_raw,
                                           peer = peer_rate("posterior", h, th)))
  }
}
post_tab$ratio_predict <- post_tab$predict / post_tab$peer
post_tab$ratio_raw <- post_tab$raw / post_tab$peer
print_table(data.frame(hidden = post_tab$hidden, thr = post_tab$threads, prec = post_tab$precision,
                       `predict() rows/s` = fmt_rate(post_tab$predict), `raw C++ rows/s` = fmt_rate(post_tab$raw),
                       `peer rows/s` = fmt_rate(post_tab$peer), `predict x peer` = fmt_ratio(post_tab$ratio_predict),
                       `raw x peer` = fmt_ratio(post_tab$ratio_raw),
                       `raw fwd GFLOP/s` = fmt(post_tab$raw * vapply(post_tab$hidden, function(h) flops_per_row(h)[["fwd"]], 0) / 1e9),
                       check.names = FALSE))

# ---------------------------------------------------------------------------------- scaling + memory
section("Linear scaling and peak memory (child processes; trainer, H=64, batch 256, float, 2 threads, 2 epochs)")
child <- file.path(bench_dir, "scale_child.R")
run_child <- function(mode, n, epochs, reps_child) {
  out_f <- tempfile("ncam_child_", fileext = ".txt")
  err_f <- tempfile("ncam_child_time_", fileext = ".txt")
  status <- system2("/usr/bin/time", c("-v", "-o", err_f, rscript, child, mode, n, epochs, reps_child, lib_path),
                    stdout = out_f, stderr = FALSE)
  res <- tryCatch(jsonlite::fromJSON(readLines(out_f, warn = FALSE)[length(readLines(out_f, warn = FALSE))]),
                  error = function(e) NULL)
  tv <- readLines(err_f, warn = FALSE)
  maxrss <- as.numeric(sub(".*: *", "", grep("Maximum resident set size", tv, value = TRUE))) / 1024
  if (is.null(res)) res <- list()
  res$time_maxrss_mb <- if (length(maxrss)) maxrss else NA_real_
  res
}
scale_tab <- NULL
for (n in SCALE_NS) {
  # Medians of several repetitions at every size: one slow moment of this shared VM in a single
  # repetition moved the largest size by 20-30% in some runs.
  r <- run_child("trainer", n, 2L, if (n == SCALE_NS[1]) reps else min(reps, 3L))
  scale_tab <- rbind(scale_tab, data.frame(n = n, seconds = r$seconds, sec_per_row = r$seconds / (2 * n),
                                           data_mb = n * 7 * 8 / 2^20, base_mb = r$rss_before_mb,
                                           hwm_mb = r$hwm_mb, engine_mb = r$hwm_mb - r$rss_before_mb,
                                           process_peak_mb = r$time_maxrss_mb))
}
ref <- scale_tab$sec_per_row[2]
scale_tab$relative <- scale_tab$sec_per_row / ref
print_table(data.frame(rows = fmt_rate(scale_tab$n), `s (2 epochs)` = fmt(scale_tab$seconds),
                       `us/row/epoch` = fmt(1e6 * scale_tab$sec_per_row),
                       `rel. to middle` = sprintf("%.3f", scale_tab$relative),
                       `data MB` = fmt(scale_tab$data_mb), `RSS before MB` = fmt(scale_tab$base_mb),
                       `peak during training MB` = fmt(scale_tab$hwm_mb),
                       `training extra MB` = fmt(scale_tab$engine_mb),
                       `process peak MB (time -v)` = fmt(scale_tab$process_peak_mb), check.names = FALSE))
say("'RSS before' = after building the data (X, B) and gc(); 'peak during training' = VmHWM after resetting it")
say("via /proc/self/clear_refs; 'process peak' includes simulating the data and R itself.")
mem_fit <- run_child("ncam", N_BIG, 1L, 1L)
say("\nncam() end to end at %s rows (H=64, 1 epoch, 2 threads, incl. validation and fitted posterior):", fmt_rate(N_BIG))
say("  data frame %.0f MB (X + B %.0f MB); RSS before ncam() %.0f MB; peak during ncam() %.0f MB; extra %.0f MB = %.1fx the X + B size; %.1f s",
    mem_fit$df_mb, N_BIG * 7 * 8 / 2^20, mem_fit$rss_before_mb, mem_fit$hwm_mb, mem_fit$hwm_mb - mem_fit$rss_before_mb,
    (mem_fit$hwm_mb - mem_fit$rss_before_mb) / (N_BIG * 7 * 8 / 2^20), mem_fit$seconds)

say("\nOpenMP wait policy (child processes, trainer H=64, batch 256, float, 2 threads, 20,000 rows, 2 epochs, median of 3):")
wp <- NULL
for (pol in c("(default)", "passive", "active")) {
  env <- if (pol == "(default)") character() else paste0("OMP_WAIT_POLICY=", pol)
  out_f <- tempfile()
  system2(rscript, c(child, "trainer", 20000L, 2L, 3L, lib_path), stdout = out_f, stderr = FALSE, env = env)
  r <- tryCatch(jsonlite::fromJSON(tail(readLines(out_f, warn = FALSE), 1)), error = function(e) list(seconds = NA))
  wp <- rbind(wp, data.frame(OMP_WAIT_POLICY = pol, rows_per_s = fmt_rate(2 * 20000 / r$seconds)))
}
print_table(wp)
say("load now (1/5/15 min): %s  (spin-waiting threads collapse when another process competes for the 2 cores)",
    paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " "))

# ---------------------------------------------------------------------------------- toy experiment
section(sprintf("The paper's toy experiment: simulate_toy(%d), hidden c(128,128,128), batch 1024, 100 epochs", TOY_N))
toy200 <- simulate_toy(TOY_N, seed = 1)
fit_toy <- function(epochs, threads, stop_iter = 30L) {
  ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, data = toy200, anchor = "sensor_0",
       hidden = c(128, 128, 128), epochs = epochs, batch_size = 1024, seed = 1, threads = threads,
       stop_iter = stop_iter)
}
t_e1 <- timed(f1 <- fit_toy(1L, 2L))
t_e3 <- timed(f3 <- fit_toy(3L, 2L))
per_epoch <- (t_e3 - t_e1) / 2
fixed <- t_e1 - per_epoch
n_tr_toy <- f3$n_train
peer128 <- c(peer_rate("train", 128, 1, 1024), peer_rate("train", 128, 2, 1024))
say("ncam(), 2 threads: 1 epoch %.1f s, 3 epochs %.1f s -> %.2f s per epoch (%s training rows/s incl. validation NLL), %.1f s fixed",
    t_e1, t_e3, per_epoch, fmt_rate(n_tr_toy / per_epoch), fixed)
say("EXTRAPOLATED 100 epochs (no early stop): %.0f s = %.1f min", fixed + 100 * per_epoch, (fixed + 100 * per_epoch) / 60)
say("peer at the same shape (H=128, batch 1024, training epochs on 20,000 rows): %s rows/s (1 thr), %s rows/s (2 thr)",
    fmt_rate(peer128[1]), fmt_rate(peer128[2]))
say("EXTRAPOLATED peer, 100 epochs x %s training rows at its best thread count: %.0f s = %.1f min (training only)",
    fmt_rate(n_tr_toy), 100 * n_tr_toy / max(peer128), 100 * n_tr_toy / max(peer128) / 60)
say("ratio ncam / peer at the toy shape (training rows/s, 2 threads each): %s",
    fmt_ratio((n_tr_toy / per_epoch) / peer128[2]))
if (full) {
  t_full <- timed(ffull <- fit_toy(100L, 2L, stop_iter = 0L))
  pr_full <- predict(ffull, toy200)
  say("FULL RUN (NCAM_BENCH_FULL=1): 100 epochs in %.0f s = %.1f min; RMSE vs truth %.3f", t_full, t_full / 60,
      sqrt(mean((pr_full$.pred - toy200$truth)^2)))
} else {
  say("(set NCAM_BENCH_FULL=1 to run the 100 epochs; not run here)")
}

# ---------------------------------------------------------------------------------- threads
section("Two threads vs one: speed-up and identical parameters")
Xt <- as.matrix(toy200[, paste0("x", 1:4)]); Bt <- as.matrix(toy200[, paste0("sensor_", 0:2)])
sct <- scaling_for(Xt, Bt)
rows_t <- seq_len(round(0.9 * TOY_N)) - 1L
thr_tab <- NULL
ident <- NULL
for (pr in c("float", "double")) {
  p_by_thr <- list()
  secs <- c()
  for (th in 1:2) {
    st <- ncam:::ncam_trainer_new(spec_for(128L), Xt, Bt, sct, rows_t, adam_for(1024L), 1, th, pr)
    secs[th] <- timed(ncam:::ncam_trainer_epoch(st))
    p_by_thr[[th]] <- ncam:::ncam_trainer_params(st)
  }
  thr_tab <- rbind(thr_tab, data.frame(shape = sprintf("toy: H=128, batch 1024, %s rows, 1 epoch", fmt_rate(length(rows_t))), precision = pr,
                                       t1 = secs[1], t2 = secs[2], identical = identical(p_by_thr[[1]], p_by_thr[[2]])))
}
for (pr in c("float", "double")) {
  sub <- train_tab[train_tab$hidden == 64 & train_tab$batch == 256 & train_tab$precision == pr, ]
  p_by_thr <- lapply(1:2, function(th) {
    st <- ncam:::ncam_trainer_new(spec_for(64L), X20, B20, sc20, seq_len(n_train) - 1L, adam_for(256L), 1, th, pr)
    for (e in 1:3) ncam:::ncam_trainer_epoch(st)
    ncam:::ncam_trainer_params(st)
  })
  thr_tab <- rbind(thr_tab, data.frame(shape = "H=64, batch 256, 20,000 rows, 3 epochs (rates from the training table)",
                                       precision = pr, t1 = n_train / sub$rows_per_s[sub$threads == 1],
                                       t2 = n_train / sub$rows_per_s[sub$threads == 2],
                                       identical = identical(p_by_thr[[1]], p_by_thr[[2]])))
}
fit_thr <- lapply(1:2, function(th) ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, data = toy20,
                                         epochs = 3, seed = 7, threads = th))
thr_tab$speedup <- thr_tab$t1 / thr_tab$t2
print_table(data.frame(shape = thr_tab$shape, prec = thr_tab$precision, `1 thr s` = fmt(thr_tab$t1),
                       `2 thr s` = fmt(thr_tab$t2), `speed-up` = fmt_ratio(thr_tab$speedup),
                       `identical params` = thr_tab$identical, check.names = FALSE))
ident_fit <- identical(fit_thr[[1]]$params, fit_thr[[2]]$params) &&
  identical(predict(fit_thr[[1]], toy20, threads = 1), predict(fit_thr[[2]], toy20, threads = 2))
say("ncam() 3 epochs, threads 1 vs 2 (default settings, H=64): identical params and predictions: %s", ident_fit)

# ---------------------------------------------------------------------------------- accuracy
section("Accuracy: float vs double, ncam() defaults, 20,000 toy rows, epochs capped at 60, 3 seeds, 2 threads")
acc <- NULL
toy_acc <- simulate_toy(20000, seed = 1)
for (seed in 1:3) for (pr in c("float", "double")) {
  t_fit <- timed(f <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, data = toy_acc, anchor = "sensor_0",
                           epochs = ACC_EPOCHS, seed = seed, threads = 2, control = ncam_control(precision = pr)))
  p <- predict(f, toy_acc)
  acc <- rbind(acc, data.frame(seed = seed, precision = pr, rmse = sqrt(mean((p$.pred - toy_acc$truth)^2)), prec_used = f$settings$control$precision,
                               epochs = f$epochs_run, best = f$best_epoch, seconds = t_fit))
}
raw_rmse <- sqrt(mean((toy_acc$sensor_0 - toy_acc$truth)^2))
print_table(data.frame(seed = acc$seed, prec = acc$precision, RMSE = sprintf("%.5f", acc$rmse), `precision used` = acc$prec_used,
                       `epochs run` = acc$epochs, `best epoch` = acc$best, `fit s` = fmt(acc$seconds), check.names = FALSE))
agg <- aggregate(rmse ~ precision, acc, function(v) c(mean = mean(v), sd = sd(v)))
wide <- reshape(acc[, c("seed", "precision", "rmse")], idvar = "seed", timevar = "precision", direction = "wide")
say("RMSE mean +- sd over seeds: float %.4f +- %.4f, double %.4f +- %.4f; raw sensor_0 RMSE %.4f",
    agg$rmse[agg$precision == "float", "mean"], agg$rmse[agg$precision == "float", "sd"],
    agg$rmse[agg$precision == "double", "mean"], agg$rmse[agg$precision == "double", "sd"], raw_rmse)
float_diff <- abs(wide$rmse.float - wide$rmse.double)
seed_spread <- max(agg$rmse[, "sd"])
say("per-seed |float - double| RMSE: %s (max %.1e) vs seed sd %.4f",
    paste(sprintf("%.1e", float_diff), collapse = ", "), max(float_diff), seed_spread)

# ---------------------------------------------------------------------------------- build flags
if (nzchar(alt_lib)) {
  section("Build comparison (child processes, 1 thread, H=64, batch 256; posterior on 200,000 rows)")
  fl <- NULL
  for (l in c(if (nzchar(lib_path)) lib_path else .libPaths()[1], alt_lib)) {
    o <- system2(rscript, c(file.path(bench_dir, "flags_child.R"), l, reps), stdout = TRUE, stderr = FALSE)
    r <- jsonlite::fromJSON(tail(o, 1))
    fl <- rbind(fl, data.frame(library = l, `train float` = fmt_rate(r$train_float), `train double` = fmt_rate(r$train_double),
                               `posterior float` = fmt_rate(r$post_float), `posterior double` = fmt_rate(r$post_double),
                               `probe float GFLOP/s` = fmt(r$probe_float), `probe double GFLOP/s` = fmt(r$probe_double),
                               check.names = FALSE))
  }
  print_table(fl)
  say("(compiler flags of each build are not recorded in the library; see the README for how they were built)")
}

# ---------------------------------------------------------------------------------- summary
section("Targets (issue 4)")
g <- function(h, bs, th, pr = "float", col = "ratio_vs_peer")
  train_tab[[col]][train_tab$hidden == h & train_tab$batch == bs & train_tab$threads == th & train_tab$precision == pr]
rows <- list()
addt <- function(target, measured, ok) rows[[length(rows) + 1L]] <<- data.frame(target = target, measured = measured, status = status(ok))
for (bs in c(256L, 1024L)) for (th in 1:2) {
  r <- g(64, bs, th)
  addt(sprintf("1a train H=64 b=%d %d thr float: >= 8x peer", bs, th), fmt_ratio(r), r >= 8)
}
for (bs in c(256L, 1024L)) for (th in 1:2) {
  r <- g(64, bs, th, col = "frac_probe_interleaved"); r1 <- g(64, bs, th, col = "frac_probe_batch")
  r2 <- g(64, bs, th, col = "frac_composite")
  addt(sprintf("1b train H=64 b=%d %d thr float: >= 0.5 of GEMM probe", bs, th),
       sprintf("%.2f of probe(64x64*64x%d, %d thr, interleaved); %.2f of %dx 1-thr probe; %.2f of composite",
               r, bs, th, r1, th, r2), r >= 0.5)
}
for (th in 1:2) {
  r <- g(4, 64, th)
  addt(sprintf("2  train H=4 b=64 %d thr float: >= 50x peer", th), fmt_ratio(r), r >= 50)
}
for (th in 1:2) {
  k <- post_tab$hidden == 64 & post_tab$threads == th
  addt(sprintf("3a posterior H=64 %d thr: >= 10x peer (predict(); raw)", th),
       sprintf("%s; %s", fmt_ratio(post_tab$ratio_predict[k]), fmt_ratio(post_tab$ratio_raw[k])), post_tab$ratio_predict[k] >= 10)
  k <- post_tab$hidden == 4 & post_tab$threads == th
  addt(sprintf("3b posterior H=4 %d thr: >= 5M rows/s (predict(); raw)", th),
       sprintf("%s; %s", fmt_rate(post_tab$predict[k]), fmt_rate(post_tab$raw[k])), post_tab$predict[k] >= 5e6)
}
dev <- max(abs(scale_tab$relative - 1))
addt(sprintf("4a linear scaling %s rows: s/row within 20%%", paste(SCALE_NS, collapse = "/")), sprintf("max deviation %.1f%%", 100 * dev), dev <= 0.2)
addt(sprintf("4b peak memory vs data (%s rows, trainer)", fmt_rate(N_BIG)), sprintf("extra %.0f MB = %.2fx data (%.0f MB)",
     scale_tab$engine_mb[3], scale_tab$engine_mb[3] / scale_tab$data_mb[3], scale_tab$data_mb[3]), NA)
addt("5  toy experiment (H=128, 200k rows, b=1024, 100 ep)",
     if (full) sprintf("run in full: %.1f min (peer, extrapolated, %.1f min)", t_full / 60, 100 * n_tr_toy / max(peer128) / 60)
     else sprintf("EXTRAPOLATED %.1f min (peer %.1f min)", (fixed + 100 * per_epoch) / 60, 100 * n_tr_toy / max(peer128) / 60),
     NA)
for (pr in c("float", "double")) {
  k <- thr_tab$precision == pr & grepl("^toy", thr_tab$shape)
  addt(sprintf("6  2 vs 1 threads, toy shape, %s: >= 1.6x and identical", pr),
       sprintf("%s, identical = %s", fmt_ratio(thr_tab$speedup[k]), thr_tab$identical[k]),
       thr_tab$speedup[k] >= 1.6 && thr_tab$identical[k])
}
addt("   float vs double RMSE within seed spread", sprintf("max |diff| %.1e vs seed sd %.4f", max(float_diff), seed_spread),
     max(float_diff) <= 2 * seed_spread)
print_table(do.call(rbind, rows))
say("\ntotal benchmark time (before profiles): %.1f min; load at end: %s", (now() - as.numeric(t_start)) / 60,
    paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " "))

# ---------------------------------------------------------------------------------- profile
if (do_profile) {
  section("Profile (perf record -e cpu-clock --call-graph dwarf; bench/profile_child.R + bench/perf_attrib.py)")
  perf_ok <- nzchar(Sys.which("perf")) &&
    system2("perf", c("record", "-e", "cpu-clock", "-o", tempfile(), "true"), stdout = FALSE, stderr = FALSE) == 0
  if (!perf_ok) {
    say("perf not usable here; skipped")
  } else {
    say("library profiled: %s", if (nzchar(prof_lib)) prof_lib else "(default)")
    for (what in c("train float 1", "train double 1", "train float 2", "predict float 1")) {
      w <- strsplit(what, " ")[[1]]
      pdata <- tempfile("ncam_perf_", fileext = ".data")
      system2("perf", c("record", "-e", "cpu-clock", "-F", "499", "--call-graph", "dwarf,65528", "-o", pdata,
                        rscript, file.path(bench_dir, "profile_child.R"), w[1], w[2], w[3], prof_lib),
              stdout = FALSE, stderr = FALSE)
      say("\n--- %s: H=64, batch 256, %s, %s thread(s)%s", if (w[1] == "train") "one training run of 15 epochs" else "raw ncam_predict_cpp x 3 on 200,000 rows",
          w[2], w[3], if (w[1] == "train") ", 20,000 rows" else "")
      res <- system(paste("perf script -i", shQuote(pdata), "2>/dev/null |", python,
                          shQuote(file.path(bench_dir, "perf_attrib.py")), "12"), intern = TRUE)
      cat(res, sep = "\n")
      unlink(pdata)
    }
  }
}
say("\ntotal time: %.1f min", (now() - as.numeric(t_start)) / 60)
