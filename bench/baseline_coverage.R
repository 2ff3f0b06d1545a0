options(width = 200)
# Coverage of the baselines' credible intervals for the truth (ncam_baseline(), methods ivw,
# factor and kalman) against the number of training rows, on data drawn from each method's own
# model, so that only the estimation of its parameters can make intervals miss:
#   ivw        theta ~ N(20, 5^2), three sensors theta + N(0, s_j^2), s = 1, 2, 3
#   factor     the same truth, sensors a_j theta + c_j + noise, a = (1, 1.3, 0.7), c = (0, -2, 3)
#   kalman     a random walk theta_t = theta_{t-1} + N(0, 0.7^2) from 20, sensors as for ivw
# Each replication draws n training rows and 1000 rows to score (after them), fits, predicts
# credible intervals at 0.9 and counts the scored rows whose truth they cover. Fits that warn
# (Heywood cases) count as they are. Mean coverage and its standard error over replications.
#
# Run (about 2 min): NCAM_LIB=<lib> nice -n 10 Rscript bench/baseline_coverage.R [replications] > bench/baseline_coverage.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
args <- commandArgs(TRUE)
replications <- if (length(args)) as.integer(args[1]) else 300L
sizes <- c(20, 50, 200, 1000)
formula <- s1 + s2 + s3 ~ 1

draw <- function(n, truth, gains = c(1, 1, 1), offsets = c(0, 0, 0)) {
  d <- data.frame(t = seq_len(n), theta = truth)
  for (j in 1:3) d[[paste0("s", j)]] <- gains[j] * truth + offsets[j] + stats::rnorm(n, 0, j)
  d
}
designs <- list(
  ivw = function(n) list(data = draw(n, stats::rnorm(n, 20, 5)), method = "ivw"),
  factor = function(n) list(data = draw(n, stats::rnorm(n, 20, 5), c(1, 1.3, 0.7), c(0, -2, 3)), method = "factor"),
  kalman = function(n) list(data = draw(n, 20 + cumsum(stats::rnorm(n, 0, 0.7))), method = "kalman")
)
coverage_of <- function(design, n_train, replication) {
  set.seed(replication * 7 + n_train)
  drawn <- design(n_train + 1000)
  train <- seq_len(n_train)
  fit <- suppressWarnings(ncam_baseline(formula, drawn$data, drawn$method, train = train,
                                        order = if (drawn$method == "kalman") "t"))
  scored <- drawn$data[-train, ]
  p <- suppressWarnings(predict(fit, scored, interval = "credible", level = 0.9))
  mean(p$.pred_lower <= scored$theta & scored$theta <= p$.pred_upper)
}

started <- proc.time()[["elapsed"]]
rows <- list()
for (method in names(designs)) for (n_train in sizes) {
  cov <- vapply(seq_len(replications), function(r) coverage_of(designs[[method]], n_train, r), numeric(1))
  rows[[length(rows) + 1L]] <- data.frame(method = method, training_rows = n_train,
                                          coverage_at_0.9 = sprintf("%.3f", mean(cov)),
                                          std_error = sprintf("%.3f", stats::sd(cov) / sqrt(replications)))
}
cat(sprintf("ncam %s, %d replications per cell, %.1f min\n\n", utils::packageVersion("ncam"), replications,
            (proc.time()[["elapsed"]] - started) / 60))
print(do.call(rbind, rows), row.names = FALSE)
