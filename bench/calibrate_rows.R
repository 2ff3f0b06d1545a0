# Time of calibrate(method = "split") on a reference fit, which checks whether calibration rows
# are rows the model was fitted to (count_fitted_rows()): held-out rows, the whole fitted data
# and half of it. Run with two libraries to compare versions:
#   R_LIBS=<lib> Rscript bench/calibrate_rows.R [rows]
args <- as.numeric(commandArgs(trailingOnly = TRUE))
n <- if (length(args)) args[1] else 5e5
suppressPackageStartupMessages(library(ncam))
set.seed(1)
d <- data.frame(date = as.POSIXct("2020-01-01", tz = "UTC") + 3600 * seq_len(2 * n),
                rh = stats::runif(2 * n, 20, 90), temperature = stats::rnorm(2 * n, 15, 5))
truth <- stats::rlnorm(2 * n, log(10), 0.5)
d$a <- truth * 1.3 + stats::rnorm(2 * n)
d$b <- truth * 0.9 + 1 + stats::rnorm(2 * n)
d$ref <- truth + stats::rnorm(2 * n, sd = 0.3)
train <- d[1:n, ]
fit <- suppressWarnings(ncam(a + b ~ rh + temperature, data = train, reference = "ref",
                             hidden = 4L, epochs = 2L, seed = 1L))
held <- d[(n + 1):(2 * n), ]
timed <- function(rows) system.time(suppressWarnings(calibrate(fit, rows)))[["elapsed"]]
cat(sprintf("ncam %s, %g fitted rows: calibrate() on %g held-out rows %.2f s, on the fitted data %.2f s, on half of it %.2f s\n",
            utils::packageVersion("ncam"), n, n, timed(held), timed(train), timed(train[seq_len(n / 2), ])))
