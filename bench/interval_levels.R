# Where 90 % intervals of a reference-anchored fit hold and where they do not: coverage of later
# reference readings by band of the estimate (.pred) and by how much the row's sensors disagree,
# for ncam()'s prediction intervals, split conformal intervals (calibrate()) and lm's prediction
# intervals, on the three shared data sets with a contiguous co-location at the start.
#
# Run (about 3 min on this shared 2-core VM):
#   NCAM_LIB=<lib> nice -n 10 Rscript bench/interval_levels.R > bench/interval_levels.out
# Data: $NCAM_SHARED_DATA, else ../shared/data, else /work/shared/data. Every fit: threads = 1,
# package defaults, seeds 1-3 (tables pool the three seeds' rows).
#
# Protocols (as bench/colocation.R): PurpleAir/AQS daily, the first 10 % of each site's days
# keep the reference (purpleair_short_protocol() in bench/common.R), one fit of
# pa_a + pa_b ~ rh + temperature; SensEURCity Antwerp, the three stations with two boxes, the
# first 20 % of each station's hours labelled, one fit per station of box_1 + box_2 ~ 1; EPA
# Toucan, the first 20 % of the hours labelled, rt01 + rt02 + rt03 ~ rh + temperature. Scored:
# the later rows with a reference reading and every sensor read.
# Split conformal: the same model fitted with the reference on the first 70 % of the labelled
# rows only, calibrate(method = "split") on the other 30 %. lm: ref ~ mean of the sensors +
# covariates on the labelled rows, predict.lm(interval = "prediction").
# Bands of .pred: quantiles of the seed-1 estimates of each data set (below the median, to the
# 90th, to the 97.5th, above), the same rows for every method. Disagreement: predict()'s
# `.disagreement` (the low-cost sensors' readings put on the reference's scale by the fit's
# gains and offsets, z_j = (b_j - c_j) / a_j with variance v_j = sigma_j^2 / a_j^2;
# Q = sum (z_j - zbar)^2 / v_j about their precision-weighted mean zbar, divided by its degrees
# of freedom, sensors - 1): about 1 when the sensors disagree as much as the fit's noise levels
# say. Before session 41 this script computed it itself from sensor_params().

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
started <- proc.time()[["elapsed"]]
options(width = 160)
level <- 0.9
seeds <- 1:3
data_dir <- shared_data_dir()
quiet <- function(expr) suppressWarnings(suppressMessages(expr))
covered <- function(truth, lower, upper) truth >= lower & truth <= upper

# One group's rows: `labelled` (indices keeping the reference) and `scored`.
# Split conformal's fit keeps the first 70 % of each site's labelled rows (`labelled` in date
# order within `label_site`).
group_runs <- function(data, labelled, scored, formula, sensors, covariates, seed, label_site = rep(1L, length(labelled))) {
  train <- data
  train$ref[-labelled] <- NA
  fit <- quiet(ncam(formula, data = train, reference = "ref", seed = seed, threads = 1))
  new <- data[scored, ]
  p <- quiet(predict(fit, new, interval = "prediction", level = level))
  first <- unlist(lapply(split(labelled, label_site), function(l) l[seq_len(floor(0.7 * length(l)))]))
  train_first <- data
  train_first$ref[-first] <- NA
  fit_first <- quiet(ncam(formula, data = train_first, reference = "ref", seed = seed, threads = 1))
  cal <- quiet(calibrate(fit_first, data[setdiff(labelled, first), ], method = "split", reference = "ref"))
  pc <- quiet(predict(cal, new, level = level))
  lm_data <- data[labelled, ]
  lm_data$sensor_mean <- rowMeans(as.matrix(lm_data[sensors]))
  new$sensor_mean <- rowMeans(as.matrix(new[sensors]))
  lm_fit <- stats::lm(stats::reformulate(c("sensor_mean", covariates), "ref"), data = lm_data)
  pl <- stats::predict(lm_fit, new, interval = "prediction", level = level)
  data.frame(seed = seed, truth = new$ref, pred = p$.pred, width = p$.pred_upper - p$.pred_lower,
             ncam = covered(new$ref, p$.pred_lower, p$.pred_upper),
             conformal = covered(new$ref, pc$.pred_lower, pc$.pred_upper), conformal_width = pc$.pred_upper - pc$.pred_lower,
             lm_pred = pl[, "fit"], lm = covered(new$ref, pl[, "lwr"], pl[, "upr"]),
             q = p$.disagreement)
}

# First `share` of each group's rows (by date) labelled; scored: later rows with a reference and
# every sensor read.
first_share_runs <- function(data, group, share, formula, sensors, covariates) {
  do.call(rbind, lapply(seeds, function(seed) {
    do.call(rbind, lapply(split(seq_len(nrow(data)), data[[group]]), function(i) {
      i <- i[order(data$date[i])]
      labelled <- i[seq_len(ceiling(share * length(i)))]
      labelled <- labelled[!is.na(data$ref[labelled])]
      later <- setdiff(i, i[seq_len(ceiling(share * length(i)))])
      scored <- later[!is.na(data$ref[later]) & stats::complete.cases(data[later, c(sensors, covariates)])]
      local <- data[i, ]
      group_runs(local, match(labelled, i), match(scored, i), formula, sensors, covariates, seed)
    }))
  }))
}

band_table <- function(runs, band) {
  rows <- split(seq_len(nrow(runs)), band)
  do.call(rbind, lapply(names(rows), function(b) {
    r <- runs[rows[[b]], ]
    data.frame(band = b, rows = nrow(r) / length(seeds), pred = sprintf("%.1f-%.1f", min(r$pred), max(r$pred)),
               ncam_rmse = sqrt(mean((r$pred - r$truth)^2)), ncam_bias = mean(r$truth - r$pred),
               lm_rmse = sqrt(mean((r$lm_pred - r$truth)^2)), cov_ncam = mean(r$ncam), width_ncam = mean(r$width),
               cov_conformal = mean(r$conformal), width_conformal = mean(r$conformal_width), cov_lm = mean(r$lm))
  }))
}

report <- function(title, runs) {
  cat("\n", strrep("=", 100), "\n", title, "\n", strrep("=", 100), "\n", sep = "")
  first_seed <- runs$pred[runs$seed == 1]
  cuts <- stats::quantile(first_seed, c(0.5, 0.9, 0.975))
  pred_band <- cut(runs$pred, c(-Inf, cuts, Inf), labels = c("below the median", "median to 90th", "90th to 97.5th", "above 97.5th"))
  cat(sprintf("scored rows %d per seed; .pred quantiles (seed 1) 50/90/97.5 %%: %s\n", nrow(runs) / length(seeds),
              paste(sprintf("%.1f", cuts), collapse = " / ")))
  cat("by band of the estimate (.pred), 90 % intervals:\n")
  print(band_table(runs, pred_band), row.names = FALSE, digits = 3)
  q_band <- cut(runs$q, c(0, 1, 4, 16, Inf), include.lowest = TRUE, labels = c("Q <= 1", "1-4", "4-16", "> 16"))
  cat("by the sensors' disagreement Q per degree of freedom (about 1 where the fit's noise levels hold):\n")
  print(band_table(runs, q_band), row.names = FALSE, digits = 3)
  cat(sprintf("all rows: coverage ncam %.3f, conformal %.3f, lm %.3f\n", mean(runs$ncam), mean(runs$conformal), mean(runs$lm)))
}

short <- purpleair_short_protocol()
pa <- short$data
pa_rows <- which(stats::complete.cases(pa[c("rh", "temperature", "pa_a", "pa_b")]))
pa <- pa[pa_rows, ]
pa$all_sites <- "all"
# One fit over every site, labelled: each site's first 10 % of days (the protocol's rows).
pa_labelled <- match(intersect(short$first_days, pa_rows), pa_rows)
pa_labelled <- pa_labelled[!is.na(pa$ref[pa_labelled])]
pa_scored <- setdiff(which(!is.na(pa$ref)), match(short$first_days, pa_rows))
pa_runs <- do.call(rbind, lapply(seeds, function(seed) {
  labelled <- pa_labelled[order(pa$date[pa_labelled])]
  group_runs(pa, labelled, pa_scored, pa_a + pa_b ~ rh + temperature, c("pa_a", "pa_b"), c("rh", "temperature"), seed,
             label_site = pa$site[labelled])
}))
report("PurpleAir/AQS daily, the first 10 % of each site's days labelled (split conformal: the first 70 % of those by date, calibrated on the rest)", pa_runs)

antwerp <- as.data.frame(read_senseurcity_antwerp(file.path(data_dir, "senseurcity-antwerp-ineris")))
two_box <- unique(antwerp$station[!is.na(antwerp$box_2)])
antwerp <- antwerp[antwerp$station %in% two_box, ]
report("SensEURCity Antwerp, three stations with two boxes, the first 20 % of each station's hours labelled, box_1 + box_2 ~ 1",
       first_share_runs(antwerp, "station", 0.2, box_1 + box_2 ~ 1, c("box_1", "box_2"), character(0)))

toucan <- as.data.frame(read_toucan(file.path(data_dir, "epa-sensortoolkit-toucan", "toucan_hourly_merged.csv")))
toucan <- toucan[stats::complete.cases(toucan[c("rh", "temperature")]), ]
toucan$unit <- "all units"
report("EPA Toucan, the first 20 % of the hours labelled, rt01 + rt02 + rt03 ~ rh + temperature",
       first_share_runs(toucan, "unit", 0.2, rt01 + rt02 + rt03 ~ rh + temperature, c("rt01", "rt02", "rt03"), c("rh", "temperature")))

cat(sprintf("\nncam %s; elapsed %.1f min\n", getNamespaceVersion("ncam"), (proc.time()[["elapsed"]] - started) / 60))
