# The AVX2+FMA engine against the portable one, in one run: ncam() training and predict()
# on toy data (default network), one thread, alternating the engines (options(ncam.simd)) so that load on the
# shared machine hits both alike. Prints each repeat's times and the ratios' range.
#   R_LIBS=<lib with ncam> Rscript bench/simd.R [rows] [repeats]
args <- as.numeric(commandArgs(trailingOnly = TRUE))
rows <- if (length(args) >= 1) args[1] else 20000
repeats <- if (length(args) >= 2) args[2] else 3
suppressPackageStartupMessages(library(ncam))
toy <- simulate_toy(n = rows, seed = 1)
formula <- sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4

time_engine <- function(simd) {
  old <- options(ncam.simd = simd)
  on.exit(options(old))
  train <- system.time(fit <- suppressWarnings(
    ncam(formula, data = toy, epochs = 30L, stop_iter = 100L, seed = 1L, threads = 1L)
  ))[["elapsed"]]
  score <- system.time(for (i in 1:20) stats::predict(fit, toy, threads = 1L))[["elapsed"]] / 20
  c(train = train, predict = score)
}

cat(sprintf("%d rows, default hidden = c(64, 64, 64), 30 epochs, 1 thread; CPU: %s\n", rows,
            trimws(sub(".*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]))))
runs <- do.call(rbind, lapply(seq_len(repeats), function(r) {
  simd <- time_engine(TRUE)
  portable <- time_engine(FALSE)
  data.frame(repeat_no = r, train_avx2 = simd[["train"]], train_portable = portable[["train"]],
             train_ratio = portable[["train"]] / simd[["train"]],
             predict_avx2 = simd[["predict"]], predict_portable = portable[["predict"]],
             predict_ratio = portable[["predict"]] / simd[["predict"]])
}))
print(format(runs, digits = 3), row.names = FALSE)
cat(sprintf("AVX2 engine speed-up (portable time / AVX2 time): training %.1f-%.1fx, predict %.1f-%.1fx\n",
            min(runs$train_ratio), max(runs$train_ratio), min(runs$predict_ratio), max(runs$predict_ratio)))
