# Co-location on a block split (issue 8: "SensEURCity and Toucan with their reference as anchor
# on a block split beside the mean and lm"). bench/colocation.R scores these two data sets with
# the first 20 % of each group's hours labelled, a contiguous split; here split_blocks() cuts the
# timeline into blocks and deals them at random to a labelled share and a scored share, with a
# gap between blocks of different shares, as the paper's temporal block split does.
#
# For each split seed s: the reference is kept on the labelled blocks and set to NA on all other
# rows; one ncam(..., reference = "ref", seed = s) per group on all its rows (the gap rows and
# scored rows carry readings but no reference, as after a co-location); the scored blocks' rows
# with a reference reading are predicted from the sensors and covariates alone. Peers fitted on
# the same labelled rows: lm(ref ~ sensor_mean [+ covariates]) and the plain mean of the sensors.
#   SensEURCity Antwerp: the three stations with two boxes, one fit per station,
#     box_1 + box_2 ~ 1 (the extract has no covariates); blocks of 7 days, gap 36 hours.
#   EPA Toucan: three units, one fit, rt01 + rt02 + rt03 ~ rh + temperature; the record is one
#     month, so blocks of 2 days and a gap of 12 hours.
# Two labelled shares: "scarce" (prop train 0.2, test 0.8) and "paper" (the paper's split with
# train, validation and calibration blocks all labelled, 85 %, test 15 %).
# Last, the paper's split as a user judges intervals with it (score_conformal() below).
# Every fit: package defaults, threads = 1. Prints per split seed and the mean [min-max], with the
# warnings the fits gave (counted by class). Each configuration is fitted a second time with
# ncam_control(logvar_range = c(-9, 4)), what the warning ncam_warning_clamp advises when a
# sensor's noise sits at the lower clamp.
#
# Run (about 1-2 min on the shared 2-core VM):
#   NCAM_LIB=<lib> [NCAM_SHARED_DATA=<folder>] nice -n 10 Rscript bench/colocation_blocks.R > bench/colocation_blocks.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
started <- proc.time()[["elapsed"]]
options(width = 160)
data_dir <- shared_data_dir()
split_seeds <- 1:5
level <- 0.9
shares <- list(
  scarce = c(train = 0.2, test = 0.8),
  paper = c(train = 0.6, validation = 0.1, calibration = 0.15, test = 0.15)
)

rmse <- function(pred, truth) sqrt(mean((pred - truth)^2))
covers <- function(lower, upper, truth) mean(truth >= lower & truth <= upper)

# One split seed on one data set: the scored rows' truth and each method's predictions.
score_split <- function(data, group, sensors, covariates, block, gap, prop, seed, control) {
  formula <- stats::as.formula(paste(paste(sensors, collapse = " + "), "~",
                                     if (length(covariates)) paste(covariates, collapse = " + ") else "1"))
  lm_formula <- stats::reformulate(c("sensor_mean", covariates), "ref")
  per_group <- lapply(split(data, data[[group]]), function(g) {
    g <- g[order(g$date), ]
    share <- split_blocks(g, "date", block = block, gap = gap, prop = prop, seed = seed)
    labelled <- !is.na(share) & share != "test" & !is.na(g$ref)
    scored <- !is.na(share) & share == "test" & !is.na(g$ref)
    train <- g
    train$ref[!labelled] <- NA
    warned <- character(0)
    fit <- withCallingHandlers(ncam(formula, data = train, reference = "ref", seed = seed, threads = 1, control = control),
                               warning = function(cnd) {
                                 warned <<- c(warned, paste0(g[[group]][1], ": ", class(cnd)[1]))
                                 invokeRestart("muffleWarning")
                               })
    p <- suppressWarnings(predict(fit, g[scored, ], interval = "prediction", level = level),
                          classes = "ncam_warning_extrapolation")
    local <- stats::lm(lm_formula, data = g[labelled, ])
    q <- stats::predict(local, g[scored, ], interval = "prediction", level = level)
    data.frame(truth = g$ref[scored], ncam = p$.pred, ncam_lower = p$.pred_lower, ncam_upper = p$.pred_upper,
               lm = q[, "fit"], lm_lower = q[, "lwr"], lm_upper = q[, "upr"], mean = g$sensor_mean[scored],
               labelled_rows = c(sum(labelled), rep(0L, sum(scored) - 1L)),
               warned = c(paste(warned, collapse = "; "), rep("", sum(scored) - 1L)))
  })
  do.call(rbind, per_group)
}

# The paper's split used as a user would to judge intervals: the reference kept on the train and
# validation blocks only, calibrate(method = "split") on the calibration blocks' reference
# readings, and the 90 % intervals scored on the test blocks: the fit's own "prediction" interval,
# the conformal one, and lm's (fitted on the same labelled rows) with coverage and mean width;
# then the test rows with every sensor reading removed (the estimate is the prior), with the
# calibration's threshold for rows without a reading and with that of the measured rows.
score_conformal <- function(data, group, sensors, covariates, block, gap, seed) {
  formula <- stats::as.formula(paste(paste(sensors, collapse = " + "), "~",
                                     if (length(covariates)) paste(covariates, collapse = " + ") else "1"))
  lm_formula <- stats::reformulate(c("sensor_mean", covariates), "ref")
  per_group <- lapply(split(data, data[[group]]), function(g) {
    g <- g[order(g$date), ]
    share <- split_blocks(g, "date", block = block, gap = gap, prop = shares$paper, seed = seed)
    labelled <- !is.na(share) & share %in% c("train", "validation") & !is.na(g$ref)
    calibration <- !is.na(share) & share == "calibration" & !is.na(g$ref)
    scored <- !is.na(share) & share == "test" & !is.na(g$ref)
    train <- g
    train$ref[!labelled] <- NA
    fit <- suppressWarnings(ncam(formula, data = train, reference = "ref", seed = seed, threads = 1))
    own <- suppressWarnings(predict(fit, g[scored, ], interval = "prediction", level = level))
    cal <- suppressMessages(suppressWarnings(calibrate(fit, g[calibration, ], method = "split", reference = "ref", level = level)))
    conformal <- suppressWarnings(predict(cal, g[scored, ]))
    q <- stats::predict(stats::lm(lm_formula, data = g[labelled, ]), g[scored, ], interval = "prediction", level = level)
    y <- g$ref[scored]
    # The same test rows as if every sensor had dropped out: the estimate is the prior from the
    # covariates; calibrate()'s threshold for such rows, and the measured rows' one by hand.
    blank <- g[scored, ]
    blank[sensors] <- NA
    prior <- suppressWarnings(predict(cal, blank))
    half <- cal$quantile * (prior$.pred_upper - prior$.pred_lower) / (2 * tidy(cal, level = level)$quantile_no_readings)
    rbind(data.frame(method = "ncam prediction interval", covered = y >= own$.pred_lower & y <= own$.pred_upper, width = own$.pred_upper - own$.pred_lower),
          data.frame(method = "ncam calibrate(split)", covered = y >= conformal$.pred_lower & y <= conformal$.pred_upper,
                     width = conformal$.pred_upper - conformal$.pred_lower),
          data.frame(method = "no readings, calibrated", covered = y >= prior$.pred_lower & y <= prior$.pred_upper,
                     width = prior$.pred_upper - prior$.pred_lower),
          data.frame(method = "no readings, measured q", covered = abs(y - prior$.pred) <= half, width = 2 * half),
          data.frame(method = "lm prediction interval", covered = y >= q[, "lwr"] & y <= q[, "upr"], width = q[, "upr"] - q[, "lwr"]))
  })
  do.call(rbind, per_group)
}

run_conformal <- function(title, data, group, sensors, covariates, block, gap) {
  data$sensor_mean <- rowMeans(as.matrix(data[sensors]), na.rm = TRUE)
  runs <- lapply(split_seeds, function(seed) cbind(seed = seed, score_conformal(data, group, sensors, covariates, block, gap, seed)))
  all <- do.call(rbind, runs)
  per_seed <- stats::aggregate(cbind(coverage = covered, width = width) ~ method + seed, data = all, FUN = mean)
  cat(sprintf("\n== %s: 90 %% intervals on the test blocks, reference on the train and validation blocks, calibration blocks for calibrate()\n", title))
  for (m in unique(per_seed$method)) {
    r <- per_seed[per_seed$method == m, ]
    cat(sprintf("%-26s coverage %s  mean [min-max] %.3f [%.3f-%.3f]; mean width %.2f ug/m3\n", m,
                paste(sprintf("%.3f", r$coverage), collapse = " "), mean(r$coverage), min(r$coverage), max(r$coverage), mean(r$width)))
  }
}

controls <- list(defaults = ncam_control(), "logvar_range = c(-9, 4)" = ncam_control(logvar_range = c(-9, 4)))

run_data_set <- function(title, data, group, sensors, covariates, block, gap) {
  data$sensor_mean <- rowMeans(as.matrix(data[sensors]), na.rm = TRUE)
  for (share_name in names(shares)) for (control_name in names(controls)) {
    prop <- shares[[share_name]]
    rows <- lapply(split_seeds, function(seed) {
      s <- score_split(data, group, sensors, covariates, block, gap, prop, seed, controls[[control_name]])
      data.frame(seed = seed, labelled = sum(s$labelled_rows), scored = nrow(s),
                 ncam = rmse(s$ncam, s$truth), lm = rmse(s$lm, s$truth), mean = rmse(s$mean, s$truth),
                 ncam_cov90 = covers(s$ncam_lower, s$ncam_upper, s$truth), lm_cov90 = covers(s$lm_lower, s$lm_upper, s$truth),
                 warnings = paste(s$warned[nzchar(s$warned)], collapse = "; "))
    })
    tab <- do.call(rbind, rows)
    cat(sprintf("\n== %s, %s blocks (prop %s), blocks of %s, gap %s; ncam control: %s\n", title, share_name,
                paste(names(prop), prop, sep = " = ", collapse = ", "), block, gap, control_name))
    shown <- tab
    shown[c("ncam", "lm", "mean", "ncam_cov90", "lm_cov90")] <- lapply(shown[c("ncam", "lm", "mean", "ncam_cov90", "lm_cov90")], sprintf, fmt = "%.3f")
    shown$ncam_vs_lm <- sprintf("%+.1f %%", 100 * (tab$ncam / tab$lm - 1))
    shown <- shown[c(setdiff(names(shown), "warnings"), "warnings")]
    print(shown, row.names = FALSE)
    span <- function(x) sprintf("%.3f [%.3f-%.3f]", mean(x), min(x), max(x))
    cat(sprintf("mean [min-max] over split seeds %s: ncam %s, lm %s, mean of sensors %s; ncam - lm %+.1f %%; splits with ncam <= lm %d/%d; 90 %% coverage ncam %s, lm %s\n",
                paste(range(split_seeds), collapse = "-"), span(tab$ncam), span(tab$lm), span(tab$mean),
                100 * (mean(tab$ncam) / mean(tab$lm) - 1), sum(tab$ncam <= tab$lm), nrow(tab),
                span(tab$ncam_cov90), span(tab$lm_cov90)))
  }
}

cat("RMSE on the scored blocks' reference readings (ug/m3); ncam predicts from the sensors (and covariates) alone.\n")
cat("labelled: rows with the reference kept; scored: rows of the test blocks with a reference reading.\n")

antwerp <- as.data.frame(read_senseurcity_antwerp(file.path(data_dir, "senseurcity-antwerp-ineris")))
two_box <- unique(antwerp$station[!is.na(antwerp$box_2)])
run_data_set("SensEURCity Antwerp (stations with two boxes, one fit per station, box_1 + box_2 ~ 1)",
             antwerp[antwerp$station %in% two_box, ], "station", c("box_1", "box_2"), character(0),
             block = "7 days", gap = "36 hours")

toucan <- as.data.frame(read_toucan(file.path(data_dir, "epa-sensortoolkit-toucan", "toucan_hourly_merged.csv")))
toucan$unit <- "all units"
usable <- stats::complete.cases(toucan[c("rh", "temperature")]) & rowSums(!is.na(toucan[c("rt01", "rt02", "rt03")])) > 0
cat(sprintf("\nToucan: %d of %d hours kept (RH, T and at least one unit present)\n", sum(usable), nrow(toucan)))
run_data_set("EPA Toucan (3 units, one fit, rt01 + rt02 + rt03 ~ rh + temperature)", toucan[usable, ], "unit",
             c("rt01", "rt02", "rt03"), c("rh", "temperature"), block = "2 days", gap = "12 hours")

cat("\nIntervals judged as a user would on the paper's split (split seeds 1-5, coverage per seed):\n")
run_conformal("SensEURCity Antwerp", antwerp[antwerp$station %in% two_box, ], "station", c("box_1", "box_2"), character(0),
              block = "7 days", gap = "36 hours")
run_conformal("EPA Toucan", toucan[usable, ], "unit", c("rt01", "rt02", "rt03"), c("rh", "temperature"),
              block = "2 days", gap = "12 hours")

cat(sprintf("\nncam %s; %.1f min\n", utils::packageVersion("ncam"), (proc.time()[["elapsed"]] - started) / 60))
