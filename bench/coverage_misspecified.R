options(width = 200)
# How honest are a reference fit's intervals when the model is misspecified in the ways real
# PM2.5 sensors are? simulate_colocation() (the package's simulator) makes sensor noise grow
# with the concentration and gives both Plantower channels one humidity growth; NCAM's noise
# depends on the covariates only and its sensors' errors are independent given the truth.
# Per replication: 56 days at one site; training rows the even weeks with the reference
# (ncam(pa_a + pa_b + opc ~ rh + temperature, reference = "ref"), hidden 8, 300 epochs,
# learn_rate 0.01); scored the odd weeks. Coverage of
#   credible     the truth;
#   prediction   a new reading of the reference (drawn as the simulator draws `ref`);
#   split        split conformal (calibrate(method = "split")) on the scored weeks' first
#                half of days, scored on the second half, against the observed reference;
# at levels 0.5, 0.8, 0.9, 0.95; and the 0.9 credible interval on the tenth of scored rows with
# the highest truth. Mean and standard error over replications (rows within one are correlated).
#
# Run (about 10 s): NCAM_LIB=<lib> nice -n 10 Rscript bench/coverage_misspecified.R [replications] > bench/coverage_misspecified.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
args <- commandArgs(TRUE)
replications <- if (length(args)) as.integer(args[1]) else 40L
levels <- c(0.5, 0.8, 0.9, 0.95)
inside <- function(p, y) mean(p$.pred_lower <= y & y <= p$.pred_upper, na.rm = TRUE)
quiet <- function(expr) suppressMessages(suppressWarnings(expr))

one_replication <- function(r) {
  d <- simulate_colocation(days = 56, colocation = 56, seed = 2000 + r)
  week <- as.integer(difftime(d$date, d$date[1], units = "days")) %/% 7
  train <- d[week %% 2 == 0, ]
  test <- d[week %% 2 == 1, ]
  fit <- quiet(ncam(pa_a + pa_b + opc ~ rh + temperature, data = train, reference = "ref", hidden = 8,
                    epochs = 300, learn_rate = 0.01, seed = r, threads = 1))
  withr::local_seed(7000 + r)
  new_reading <- pmax(test$truth + (0.3 + 0.03 * test$truth) * stats::rnorm(nrow(test)), 0)
  day <- as.integer(difftime(test$date, test$date[1], units = "days"))
  first_half <- day < stats::median(day)
  cal <- quiet(calibrate(fit, test[first_half, ], method = "split", reference = "ref"))
  later <- test[!first_half, ]
  top <- test$truth > stats::quantile(test$truth, 0.9)
  c(credible = vapply(levels, function(l) inside(quiet(predict(fit, test, interval = "credible", level = l)), test$truth), 1),
    prediction = vapply(levels, function(l) inside(quiet(predict(fit, test, interval = "prediction", level = l)), new_reading), 1),
    split = vapply(levels, function(l) inside(quiet(predict(cal, later, level = l)), later$ref), 1),
    credible_top_tenth = inside(quiet(predict(fit, test[top, ], interval = "credible", level = 0.9)), test$truth[top]))
}

started <- proc.time()[["elapsed"]]
runs <- vapply(seq_len(replications), one_replication, numeric(13))
cat(sprintf("ncam %s, %d replications, %.1f min\n\n", utils::packageVersion("ncam"), replications,
            (proc.time()[["elapsed"]] - started) / 60))
show <- function(rows) sprintf("%.3f (%.3f)", rowMeans(runs[rows, , drop = FALSE]),
                               apply(runs[rows, , drop = FALSE], 1, stats::sd) / sqrt(replications))
table <- data.frame(level = levels, credible_vs_truth = show(1:4), prediction_vs_new_reference = show(5:8),
                    split_conformal_vs_reference = show(9:12))
cat("Coverage, mean (standard error) over replications:\n")
print(table, row.names = FALSE)
cat(sprintf("\n0.9 credible interval on the tenth of scored rows with the highest truth: %s\n", show(13)))
