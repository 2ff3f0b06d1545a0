# How long predict() on many rows runs on after Ctrl-C (SIGINT): a child R process predicts
# 3e6 rows with a wide network, this script interrupts it `delay` seconds in and reports the
# child's time from the start of predict() to its interrupt (or its end), and the time of an
# uninterrupted run. Linux/macOS only (tools::pskill). Run with two libraries to compare:
#   R_LIBS=<lib> Rscript bench/predict_interrupt.R [rows] [delay]
args <- as.numeric(commandArgs(trailingOnly = TRUE))
n <- if (length(args) >= 1) args[1] else 3e6
delay <- if (length(args) >= 2) args[2] else 3
work <- tempfile("interrupt")
dir.create(work)
child <- file.path(work, "child.R")
writeLines(c(
  "suppressPackageStartupMessages(library(ncam))",
  sprintf("n <- %.0f", n),
  "set.seed(1); d <- data.frame(x = runif(n), y = runif(n))",
  "d$a <- d$x + rnorm(n, sd = 0.3); d$b <- 2 * d$x + 1 + rnorm(n, sd = 0.5); d$c <- d$x + rnorm(n, sd = 0.4)",
  "fit <- suppressWarnings(ncam(a + b + c ~ x + y, data = d[1:2000, ], hidden = c(256, 256, 256), epochs = 2, seed = 1, threads = 2))",
  "args <- commandArgs(TRUE)",
  "writeLines('ready', args[1])",
  "t0 <- proc.time()[['elapsed']]",
  "outcome <- tryCatch({ predict(fit, d, threads = 2); 'finished' }, interrupt = function(i) 'interrupted')",
  "writeLines(sprintf('%s %.1f', outcome, proc.time()[['elapsed']] - t0), args[2])"
), child)
run <- function(interrupt) {
  ready <- file.path(work, "ready")
  result <- file.path(work, "result")
  unlink(c(ready, result))
  process <- callr::process$new(file.path(R.home("bin"), "Rscript"), c(child, ready, result))
  while (!file.exists(ready)) Sys.sleep(0.1)
  if (interrupt) {
    Sys.sleep(delay)
    process$signal(tools::SIGINT)
  }
  process$wait()
  readLines(result)
}
cat(sprintf("ncam %s from %s, %g rows, hidden 256 x 3, 2 threads\n", utils::packageVersion("ncam"),
            dirname(find.package("ncam")), n))
cat("uninterrupted:", run(FALSE), "s\n")
cat(sprintf("SIGINT %g s after predict() started: %s s\n", delay, run(TRUE)))
