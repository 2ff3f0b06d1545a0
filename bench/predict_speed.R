options(width = 160)
# predict() throughput of several builds of ncam, measured in one run: hidden width 4 (as in the
# README's figure), 2 million rows of simulate_toy(), 1 and 2 threads, the median of 5 timings
# in a child process per build and setting, builds alternating over rounds so that a change
# of load on the machine touches all of them alike. Then the share of one predict() call of
# the first build spent in each R-side stage (Rprof).
#
#   NCAM_LIBS="label=/path/lib,label2=/path/lib2" Rscript bench/predict_speed.R > bench/predict_speed.out
#
# (about 2 min for three builds). Builds are installed with R CMD INSTALL --library=<lib> from
# a checkout of the commit named in the label.

spec <- strsplit(strsplit(Sys.getenv("NCAM_LIBS"), ",")[[1]], "=")
if (!length(spec)) stop("Set NCAM_LIBS to label=library pairs, the build to profile first.")
libs <- stats::setNames(vapply(spec, `[`, "", 2), vapply(spec, `[`, "", 1))
rows <- 2e6
rounds <- 3L
child <- function(lib, threads) {
  code <- sprintf('suppressMessages(library(ncam, lib.loc = "%s")); toy <- simulate_toy(n = 2000, seed = 1)
    fit <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, toy, anchor = "sensor_0",
                                 hidden = 4L, epochs = 5L, seed = 1, threads = 1))
    big <- simulate_toy(n = %d, seed = 2); invisible(suppressWarnings(predict(fit, big[1:1000, ], threads = %d)))
    t <- replicate(5, system.time(suppressWarnings(predict(fit, big, threads = %d)))[["elapsed"]]); cat(%d / median(t))',
    lib, as.integer(rows), threads, threads, as.integer(rows))
  as.numeric(system2("Rscript", c("-e", shQuote(code)), stdout = TRUE, stderr = FALSE))
}
cat(sprintf("%s; load average at start %s\n", format(Sys.time(), "%Y-%m-%d %H:%M"),
            paste(readLines("/proc/loadavg", warn = FALSE), collapse = "")))
results <- expand.grid(build = names(libs), threads = 1:2, round = seq_len(rounds), stringsAsFactors = FALSE)
results$rows_per_s <- NA_real_
for (i in seq_len(nrow(results))) results$rows_per_s[i] <- child(libs[[results$build[i]]], results$threads[i])
table <- do.call(rbind, lapply(split(results, list(results$build, results$threads), drop = TRUE), function(r) {
  data.frame(build = r$build[1], threads = r$threads[1],
             million_rows_per_s = sprintf("%.2f [%.2f-%.2f]", median(r$rows_per_s) / 1e6, min(r$rows_per_s) / 1e6, max(r$rows_per_s) / 1e6))
}))
table <- table[order(table$threads, match(table$build, names(libs))), ]
cat(sprintf("\npredict(), hidden 4, %s rows; median [range] over %d rounds (each the median of 5 timings):\n",
            format(as.integer(rows), big.mark = ","), rounds))
print(table, row.names = FALSE)
ratio <- function(b, th) {
  r <- results[results$threads == th, ]
  sprintf("%.2f", median(r$rows_per_s[r$build == b]) / median(r$rows_per_s[r$build == names(libs)[1]]))
}
for (th in 1:2) cat(sprintf("threads %d, each build / %s: %s\n", th, names(libs)[1],
                            paste(sprintf("%s %s", names(libs), vapply(names(libs), ratio, "", th = th)), collapse = ", ")))

# Where the time goes in the first build (one thread).
suppressMessages(library(ncam, lib.loc = libs[[1]]))
toy <- simulate_toy(n = 2000, seed = 1)
fit <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, toy, anchor = "sensor_0",
                             hidden = 4L, epochs = 5L, seed = 1, threads = 1))
big <- simulate_toy(n = rows, seed = 2)
profile <- tempfile()
utils::Rprof(profile, interval = 0.005)
for (i in 1:3) invisible(suppressWarnings(predict(fit, big, threads = 1)))
utils::Rprof(NULL)
by_total <- utils::summaryRprof(profile)$by.total
stages <- c("ncam_predict_cpp", "screen_new_spikes", "extrapolation_distance", "drop_beyond_range", "new_design",
            "posterior_table", "sensor_columns")
shares <- by_total[intersect(paste0("\"", stages, "\""), rownames(by_total)), "total.pct", drop = FALSE]
cat(sprintf("\nShare of predict() time by stage, build %s, 1 thread (Rprof, 3 calls):\n", names(libs)[1]))
print(data.frame(stage = gsub("\"", "", rownames(shares)), percent = shares$total.pct), row.names = FALSE)
