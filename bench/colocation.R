# Co-location benchmark (issue 8): reference-anchored NCAM against a local lm, the US EPA
# correction and the plain mean of the sensors, on real co-located data, with the diagnostics
# that explain the gap.
#
# Run (about 7 min on this shared 2-core VM: 252 fits at ~1.5 s; `--quick` about 2 min):
#   nice -n 10 Rscript bench/colocation.R > bench/colocation.out
#   NCAM_LIB=/tmp/rlib-dev nice -n 10 Rscript bench/colocation.R [--seeds 1,3,5,10] [--quick] [--no-diagnostics]
#     [--reference-noise constant]
# NCAM_LIB: library holding ncam (default: the normal library path). Data: $NCAM_SHARED_DATA,
# else ../shared/data, else /work/shared/data. Only the public API of ncam is used, except
# ncam:::ncam_objective_cpp and the fit's fields spec, scaling and params in diagnostic b.
# Every fit: threads = 1, package defaults unless named.
#
# Options: --seeds 1,3,5,10 fits seeds 1..10 and reports over seeds 1..1, 1..3, 1..5, 1..10
#   (default); --quick = seed 1 only and no SensEURCity Antwerp; --no-diagnostics skips part 5;
#   --reference-noise constant fits the reference's noise as one value for every row
#   (ncam_control(reference_noise =)), else as the package's default (from the covariates).
#
# PurpleAir A and B beside AQS (18 sites, daily), ncam(pa_a + pa_b ~ rh + temperature,
# reference = "ref"); scored on the reference, predictions from A, B, RH, T alone.
#   loso   leave one site out: train on the 17 other sites (reference on all their rows),
#          predict the held-out site; RMSE, MAE, coverage pooled over the 18 held-out sites.
#   short  short co-location: the first 10 % of each site's days (by date, ceiling) keep the
#          reference, NA afterwards; one fit on all rows; scored on the unlabelled days.
# Peers on the same labelled rows: lm(ref ~ pa_mean + rh + temperature) with its 90 %
# prediction interval, the US EPA correction 0.524 pa_mean - 0.0862 rh + 5.75, the mean of A
# and B, and label-free ncam(pa_a + pa_b ~ rh + temperature, anchor = "pa_a") fitted on all
# rows without the reference (so it reads on channel A's scale).
# Seeds: "n seeds" = mean [min-max] of per-seed RMSE over seeds 1..n; wins = seeds with
# RMSE <= lm; ensemble = RMSE of the mean of the n seeds' predictions.
# External: SensEURCity Antwerp (the 3 stations with two boxes, hourly, no covariates: formula
# box_1 + box_2 ~ 1) and EPA Toucan (3 units, hourly, ~ rh + temperature), reference as the
# anchor. Split: contiguous per station, the first 20 % of hours labelled, the last 80 %
# scored; one fit per station on all its hours (as in "short").
# Each protocol and data set also splits its scored rows by predict()'s .extrapolation (inside the
# co-location range, up to the share predict() warns beyond, beyond it).
# Diagnostics (short protocol, seed 1): a. the training path with early stopping off;
# b. linear heads at the exact optimum of the objective with labelled rows weighted w (BFGS);
# c. ensembles of seeds 1..6; d. error by reference level; e. labelled rows duplicated k times.

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))

args <- commandArgs(TRUE)
quick <- "--quick" %in% args
seed_arg <- if ("--seeds" %in% args) args[match("--seeds", args) + 1L] else "1,3,5,10"
seeds_shown <- if (quick) 1L else sort(unique(as.integer(strsplit(seed_arg, ",", fixed = TRUE)[[1]])))
if (!length(seeds_shown) || anyNA(seeds_shown) || any(seeds_shown < 1L)) stop("--seeds must be positive integers such as 1,3,5")
n_seeds <- max(seeds_shown)
run_diagnostics <- !"--no-diagnostics" %in% args
reference_noise <- if ("--reference-noise" %in% args) args[match("--reference-noise", args) + 1L] else ncam_control()$reference_noise
level <- 0.9
external_label_frac <- 0.2
started <- proc.time()[["elapsed"]]
options(width = 200)

heading <- function(txt) cat("\n", strrep("=", 96), "\n", txt, "\n", strrep("=", 96), "\n", sep = "")
show <- function(df) print(df, row.names = FALSE, right = FALSE)
f3 <- function(x) ifelse(is.na(x), "-", sprintf("%.3f", x))
rmse <- function(pred, truth) sqrt(mean((pred - truth)^2))
mae <- function(pred, truth) mean(abs(pred - truth))
coverage <- function(run, truth) mean(truth >= run$lower & truth <= run$upper)
pct <- function(x, ref) sprintf("%+.1f %%", 100 * (x / ref - 1))

# Every fit goes through here so that the run can report the time per fit.
fit_times <- numeric(0)
fit_ncam <- function(...) {
  t0 <- proc.time()[["elapsed"]]
  fit <- ncam(..., threads = 1, control = ncam_control(reference_noise = reference_noise))
  fit_times <<- c(fit_times, proc.time()[["elapsed"]] - t0)
  fit
}
# Predictions as (pred, lower, upper): NCAM's interval is for a reference reading. NCAM's runs
# also keep .extrapolation (distance outside the co-location range); the warning predict()
# gives about rows far outside is reported per data set as a table instead.
ncam_run <- function(fit, newdata) {
  p <- suppressWarnings(predict(fit, newdata, interval = "prediction", level = level),
                        classes = "ncam_warning_extrapolation")
  data.frame(pred = p$.pred, lower = p$.pred_lower, upper = p$.pred_upper, extrapolation = p$.extrapolation)
}
lm_run <- function(model, newdata) {
  p <- stats::predict(model, newdata, interval = "prediction", level = level)
  data.frame(pred = p[, "fit"], lower = p[, "lwr"], upper = p[, "upr"])
}
point_run <- function(pred) data.frame(pred = pred, lower = NA_real_, upper = NA_real_)

# A protocol is a list of tasks: `train` (reference NA where unlabelled) and the scored rows
# `test` of `data`. Returns the pooled predictions of NCAM for one seed, and of the local lm.
protocol_ncam <- function(tasks, data, formula, seed) {
  do.call(rbind, lapply(tasks, function(tk) {
    ncam_run(fit_ncam(formula, data = tk$train, reference = "ref", seed = seed), data[tk$test, ])
  }))
}
protocol_lm <- function(tasks, data, lm_formula) {
  do.call(rbind, lapply(tasks, function(tk) lm_run(stats::lm(lm_formula, data = tk$train[!is.na(tk$train$ref), ]), data[tk$test, ])))
}
# First `frac` of each group's rows by date keep the reference; the rest are scored.
first_share_tasks <- function(data, group, frac) {
  lapply(split(seq_len(nrow(data)), data[[group]]), function(i) {
    i <- i[order(data$date[i])]
    labelled <- i[seq_len(ceiling(frac * length(i)))]
    train <- data[i, ]
    train$ref[!i %in% labelled] <- NA
    test <- setdiff(i, labelled)
    list(train = train, test = test[!is.na(data$ref[test])], n_labelled = sum(!is.na(train$ref)))
  })
}

# Table rows: one per reported seed count for NCAM-like methods, one row for a single run.
seed_table <- function(method, runs, truth, lm_rmse) {
  per_seed <- vapply(runs, function(r) c(rmse = rmse(r$pred, truth), mae = mae(r$pred, truth), cov = coverage(r, truth)), numeric(3))
  do.call(rbind, lapply(seeds_shown, function(n) {
    k <- seq_len(n)
    r <- per_seed["rmse", k]
    ensemble <- rowMeans(matrix(vapply(runs[k], `[[`, numeric(length(truth)), "pred"), ncol = n))
    data.frame(method = method, seeds = n, rmse = sprintf("%.3f [%.3f-%.3f]", mean(r), min(r), max(r)),
               mae = f3(mean(per_seed["mae", k])), cov90 = f3(mean(per_seed["cov", k])), vs_lm = pct(mean(r), lm_rmse),
               wins_vs_lm = sprintf("%d/%d", sum(r <= lm_rmse), n), ensemble_rmse = f3(rmse(ensemble, truth)))
  }))
}
single_row <- function(method, run, truth, lm_rmse) {
  data.frame(method = method, seeds = "-", rmse = f3(rmse(run$pred, truth)), mae = f3(mae(run$pred, truth)),
             cov90 = f3(coverage(run, truth)), vs_lm = pct(rmse(run$pred, truth), lm_rmse), wins_vs_lm = "-", ensemble_rmse = "-")
}
mean_rmse <- function(runs, truth, n = length(runs)) mean(vapply(runs[seq_len(n)], function(r) rmse(r$pred, truth), 1))
mean_cov <- function(runs, truth, n = length(runs)) mean(vapply(runs[seq_len(n)], coverage, 1, truth = truth))
# Scored rows by distance outside the co-location range: inside, up to the share predict()
# warns beyond, and beyond it (extrapolation_bands() in bench/common.R).
extrapolation_table <- function(runs, lm_pred, truth) {
  tab <- extrapolation_bands(runs[[1]]$extrapolation, runs, lm_pred, truth, ncam:::extrapolation_warning_share)
  cat("by distance outside the co-location range (share of the range):\n")
  print(tab, row.names = FALSE, digits = 3)
}

# ---- Settings -------------------------------------------------------------------------------
data_dir <- shared_data_dir()
# The short co-location protocol of bench/common.R, shared with colocation_mechanism.R and
# colocation_stopping.R.
short <- purpleair_short_protocol()
pa_path <- short$path
d <- short$data
pa_formula <- pa_a + pa_b ~ rh + temperature
pa_lm <- ref ~ pa_mean + rh + temperature
site_rows <- split(seq_len(nrow(d)), d$site)
loso_tasks <- lapply(site_rows, function(test) list(train = d[-test, ], test = test))
short_train <- short$train
short_tasks <- list(list(train = short_train, test = short$test_rows))
n_labelled_short <- length(short$first_days)
defaults <- formals(ncam)

heading("Settings")
cat(sprintf("ncam %s from %s; R %s; %s\n", getNamespaceVersion("ncam"), dirname(system.file(package = "ncam")),
            getRversion(), format(Sys.time(), "%Y-%m-%d %H:%M")))
cat(sprintf("data: %s\n  %d rows, %d sites (%d-%d days each), %s to %s\n", pa_path, nrow(d), length(site_rows),
            min(lengths(site_rows)), max(lengths(site_rows)), min(d$date), max(d$date)))
cat(sprintf("loso: %d-%d labelled training rows per fold; short: %d labelled rows (first %.0f %% of each site's days, ceiling), %d scored\n",
            nrow(d) - max(lengths(site_rows)), nrow(d) - min(lengths(site_rows)), n_labelled_short, 100 * short$label_frac,
            length(short_tasks[[1]]$test)))
cat(sprintf("Reference noise: %s (ncam_control(reference_noise =))\n", reference_noise))
cat(sprintf("NCAM: ncam(%s, reference = \"ref\", seed = s, threads = 1), defaults hidden %s, epochs %s, validation %s, stop_iter %s, lambda_var %s\n",
            deparse(pa_formula), deparse(defaults$hidden), defaults$epochs, defaults$validation, defaults$stop_iter, defaults$lambda_var))
cat(sprintf("seeds fitted 1..%d, reported over 1..%s; level %.2f; quick %s; diagnostics %s\n", n_seeds,
            paste(seeds_shown, collapse = ", 1.."), level, quick, run_diagnostics))

# ---- 1-3. PurpleAir: leave one site out and short co-location ---------------------------------
label_free <- lapply(seq_len(n_seeds), function(s) {
  predict(fit_ncam(pa_formula, data = d, anchor = "pa_a", seed = s), d)$.pred
})
protocols <- list(loso = loso_tasks, short = short_tasks)
outcome <- list()
for (name in names(protocols)) {
  tasks <- protocols[[name]]
  test <- unlist(lapply(tasks, `[[`, "test"))
  truth <- d$ref[test]
  t0 <- length(fit_times)
  runs <- lapply(seq_len(n_seeds), function(s) protocol_ncam(tasks, d, pa_formula, s))
  lm_pred <- protocol_lm(tasks, d, pa_lm)
  lm_rmse <- rmse(lm_pred$pred, truth)
  epa <- point_run(0.524 * d$pa_mean[test] - 0.0862 * d$rh[test] + 5.75)
  outcome[[name]] <- list(test = test, truth = truth, runs = runs, lm = lm_pred, epa = epa, lm_rmse = lm_rmse,
                          free = lapply(label_free, function(p) point_run(p[test])))
  heading(sprintf("%s: %d scored rows, %d NCAM fits (%.1f s per fit)", name, length(truth), length(fit_times) - t0,
                  mean(fit_times[(t0 + 1):length(fit_times)])))
  show(rbind(seed_table("ncam reference", runs, truth, lm_rmse), single_row("lm (local)", lm_pred, truth, lm_rmse),
             single_row("EPA correction", epa, truth, lm_rmse), single_row("mean(A, B)", point_run(d$pa_mean[test]), truth, lm_rmse),
             seed_table("ncam label-free", outcome[[name]]$free, truth, lm_rmse)))
  extrapolation_table(runs, lm_pred, truth)
}
cat("\ncov90: coverage of the 90 % prediction interval (ncam: interval = \"prediction\"; lm: predict.lm); '-' = none.\n")
cat("label-free ncam: one fit per seed on all rows without the reference, scored on the same rows.\n")

# ---- 4. SensEURCity Antwerp and EPA Toucan ----------------------------------------------------
external <- function(title, data, group, sensors, covariates) {
  data$sensor_mean <- rowMeans(as.matrix(data[sensors]), na.rm = TRUE)
  formula <- stats::as.formula(paste(paste(sensors, collapse = " + "), "~", if (length(covariates)) paste(covariates, collapse = " + ") else "1"))
  lm_formula <- stats::reformulate(c("sensor_mean", covariates), "ref")
  tasks <- first_share_tasks(data, group, external_label_frac)
  test <- unlist(lapply(tasks, `[[`, "test"))
  truth <- data$ref[test]
  runs <- lapply(seq_len(n_seeds), function(s) protocol_ncam(tasks, data, formula, s))
  lm_pred <- protocol_lm(tasks, data, lm_formula)
  lm_rmse <- rmse(lm_pred$pred, truth)
  heading(sprintf("%s: %s, reference as anchor; %d labelled rows (first %.0f %% of each %s's hours), %d scored rows",
                  title, deparse(formula), sum(vapply(tasks, `[[`, 1L, "n_labelled")), 100 * external_label_frac, group, length(truth)))
  show(rbind(seed_table("ncam reference", runs, truth, lm_rmse), single_row(sprintf("lm(%s)", deparse(lm_formula)), lm_pred, truth, lm_rmse),
             single_row("mean of sensors", point_run(data$sensor_mean[test]), truth, lm_rmse)))
  per_group <- vapply(tasks, function(tk) {
    y <- data$ref[tk$test]
    at <- match(tk$test, test)
    c(ncam = mean_rmse(lapply(runs, function(r) r[at, ]), y), lm = rmse(lm_pred$pred[at], y), n = length(y))
  }, numeric(3))
  cat(sprintf("by %s (RMSE; ncam mean over seeds): %s\n", group,
              paste(sprintf("%s ncam %.3f lm %.3f (n %d)", colnames(per_group), per_group["ncam", ], per_group["lm", ], per_group["n", ]), collapse = "; ")))
  extrapolation_table(runs, lm_pred, truth)
  list(title = title, ncam = mean_rmse(runs, truth), lm = lm_rmse, cov = mean_cov(runs, truth), lm_cov = coverage(lm_pred, truth))
}
externals <- list()
if (!quick) {
  antwerp <- as.data.frame(read_senseurcity_antwerp(file.path(data_dir, "senseurcity-antwerp-ineris")))
  two_box <- unique(antwerp$station[!is.na(antwerp$box_2)])
  externals$antwerp <- external("SensEURCity Antwerp (stations with two boxes; no covariates, formula ~ 1)",
                                antwerp[antwerp$station %in% two_box, ], "station", c("box_1", "box_2"), character(0))
}
toucan <- as.data.frame(read_toucan(file.path(data_dir, "epa-sensortoolkit-toucan", "toucan_hourly_merged.csv")))
toucan$unit <- "all units"
usable <- stats::complete.cases(toucan[c("rh", "temperature")]) & rowSums(!is.na(toucan[c("rt01", "rt02", "rt03")])) > 0
cat(sprintf("\nToucan: %d of %d hours kept (RH, T and at least one unit present)\n", sum(usable), nrow(toucan)))
externals$toucan <- external("EPA Toucan (3 units, one fit)", toucan[usable, ], "unit", c("rt01", "rt02", "rt03"), c("rh", "temperature"))

# ---- 5. Diagnostics: the mechanism (short protocol, seed 1) -----------------------------------
short_test <- d[short_tasks[[1]]$test, ]
labelled <- short_train[!is.na(short_train$ref), ]
short_lm <- stats::lm(pa_lm, data = labelled)
lm_test_rmse <- rmse(stats::predict(short_lm, short_test), short_test$ref)
lm_lab_rmse <- rmse(stats::fitted(short_lm), labelled$ref)
fit_short <- function(data = short_train, seed = 1, ...) fit_ncam(pa_formula, data = data, reference = "ref", seed = seed, ...)
diag <- list()

diagnostic_path <- function(epochs = c(20, 40, 60, 100, 150, 200, 300)) {
  fits <- lapply(epochs, function(e) fit_short(validation = 0, stop_iter = 0, epochs = e))
  tab <- data.frame(epochs = epochs, best_epoch = vapply(fits, `[[`, 1L, "best_epoch"),
                    test_rmse = vapply(fits, function(f) rmse(predict(f, short_test)$.pred, short_test$ref), 1),
                    labelled_rmse = vapply(fits, function(f) rmse(predict(f, labelled)$.pred, labelled$ref), 1))
  heading("5a. Training path, early stopping off (validation = 0, stop_iter = 0, epochs = E); short, seed 1")
  print(format(tab, digits = 4), row.names = FALSE)
  i40 <- match(40, epochs); i60 <- match(60, epochs)
  same <- max(abs(fits[[i60]]$history$train_loss[1:40] - fits[[i40]]$history$train_loss))
  cat(sprintf("prefix check: max |train loss of E = 60 run - E = 40 run| over epochs 1-40 = %g (0 = the runs share the path)\n", same))
  cat(sprintf("best_epoch = epoch of min training NLL (validation = 0). lm: test %.3f, labelled (in-sample) %.3f\n", lm_test_rmse, lm_lab_rmse))
  tab
}

# Linear heads at the optimum of the weighted training objective: per-row losses of the
# labelled rows count w times those of the unlabelled rows (the engine's loss is a mean over
# rows of NLL + penalty, so the weighted mean is exact).
diagnostic_linear <- function(weights = c(1, 3, 10, 30, 1000)) {
  base <- fit_short(hidden = integer(0), epochs = 1)
  x <- lapply(short_train[base$covariates], as.double)
  b <- lapply(short_train[c(base$sensors, base$reference)], as.double)
  lab0 <- which(!is.na(short_train$ref)) - 1L
  unl0 <- which(is.na(short_train$ref)) - 1L
  objective <- function(p, rows) ncam:::ncam_objective_cpp(base$spec, p, x, b, base$scaling, rows, 1L, "double")
  adam <- fit_short(hidden = integer(0))
  slope <- function(pred) stats::coef(stats::lm(pred ~ pa_mean + rh + temperature, data = short_test))[["pa_mean"]]
  row_of <- function(what, fit, converged = NA) {
    pred <- ncam_run(fit, short_test)
    data.frame(heads = what, converged = converged, labelled_rmse = rmse(predict(fit, labelled)$.pred, labelled$ref),
               test_rmse = rmse(pred$pred, short_test$ref), cov90 = coverage(pred, short_test$ref), slope_on_pa_mean = slope(pred$pred))
  }
  tab <- do.call(rbind, lapply(weights, function(w) {
    total <- length(unl0) + w * length(lab0)
    both <- function(p) {
      u <- objective(p, unl0)
      l <- objective(p, lab0)
      list(loss = (length(unl0) * u$loss + w * length(lab0) * l$loss) / total,
           gradient = (length(unl0) * u$gradient + w * length(lab0) * l$gradient) / total)
    }
    opt <- stats::optim(base$params, function(p) both(p)$loss, function(p) both(p)$gradient, method = "BFGS",
                        control = list(maxit = 20000, reltol = 1e-14))
    fit <- base
    fit$params <- opt$par
    cbind(w = w, row_of("linear, BFGS optimum", fit, opt$convergence == 0))
  }))
  tab <- rbind(tab, cbind(w = 1, row_of(sprintf("linear, Adam defaults (epoch %d)", adam$best_epoch), adam)))
  heading(sprintf("5b. Linear heads (hidden = integer(0)) at the optimum of the training objective, labelled rows weighted w; short, seed 1 (%d labelled, %d unlabelled rows)",
                  length(lab0), length(unl0)))
  print(format(tab, digits = 4), row.names = FALSE)
  cat(sprintf("lm: test %.3f, labelled %.3f, slope on pa_mean %.3f. slope_on_pa_mean: coefficient of pa_mean when the test predictions are regressed on pa_mean + rh + temperature\n",
              lm_test_rmse, lm_lab_rmse, stats::coef(short_lm)[["pa_mean"]]))
  tab
}

diagnostic_ensemble <- function(n = 6L) {
  runs <- outcome$short$runs[seq_len(min(n, n_seeds))]
  if (length(runs) < n) runs <- c(runs, lapply((length(runs) + 1L):n, function(s) ncam_run(fit_short(seed = s), short_test)))
  single <- vapply(runs, function(r) rmse(r$pred, short_test$ref), 1)
  ensemble <- rmse(rowMeans(vapply(runs, `[[`, numeric(nrow(short_test)), "pred")), short_test$ref)
  heading(sprintf("5c. Ensemble of seeds 1..%d (short): RMSE of the mean prediction", n))
  cat(sprintf("single seeds: %s (mean %.3f); ensemble %.3f; lm %.3f\n", paste(f3(single), collapse = " "), mean(single), ensemble, lm_test_rmse))
  list(single = single, ensemble = ensemble)
}

diagnostic_bins <- function() {
  ncam_pred <- outcome$short$runs[[1]]$pred
  lm_pred <- outcome$short$lm$pred
  bins <- cut(short_test$ref, c(-Inf, 5, 10, 20, 40, Inf), labels = c("<5", "5-10", "10-20", "20-40", ">40"), right = FALSE)
  tab <- do.call(rbind, lapply(levels(bins), function(bin) {
    i <- which(bins == bin)
    data.frame(ref_bin = bin, n = length(i), ncam_rmse = rmse(ncam_pred[i], short_test$ref[i]), lm_rmse = rmse(lm_pred[i], short_test$ref[i]),
               ncam_bias = mean(ncam_pred[i] - short_test$ref[i]), lm_bias = mean(lm_pred[i] - short_test$ref[i]))
  }))
  heading("5d. Error by reference level (ug/m3), short, seed 1; bias = mean(prediction - reference)")
  print(format(tab, digits = 3), row.names = FALSE)
  tab
}

# Validation rows are drawn once, before duplication, and passed as a logical vector, so no
# copy of a validation row trains.
diagnostic_duplicates <- function(ks = c(1, 3, 10)) {
  n <- nrow(short_train)
  validation <- logical(n)
  set.seed(1)
  validation[sample.int(n, round(0.1 * n))] <- TRUE
  copy_rows <- which(!is.na(short_train$ref) & !validation)
  tab <- do.call(rbind, lapply(ks, function(k) {
    extra <- rep(copy_rows, k - 1)
    fit <- fit_short(data = short_train[c(seq_len(n), extra), ], validation = c(validation, logical(length(extra))))
    data.frame(k = k, rows = n + length(extra), best_epoch = fit$best_epoch, labelled_rmse = rmse(predict(fit, labelled)$.pred, labelled$ref),
               test_rmse = rmse(predict(fit, short_test)$.pred, short_test$ref))
  }))
  heading(sprintf("5e. Labelled training rows duplicated k times (%d labelled rows train, %d validate); short, seed 1",
                  length(copy_rows), sum(validation & !is.na(short_train$ref))))
  print(format(tab, digits = 4), row.names = FALSE)
  tab
}

if (run_diagnostics) {
  diag$path <- diagnostic_path()
  diag$linear <- diagnostic_linear()
  diag$ensemble <- diagnostic_ensemble()
  diag$bins <- diagnostic_bins()
  diag$duplicates <- diagnostic_duplicates()
}

# ---- 6. Conclusion, computed from the numbers above -------------------------------------------
heading("Conclusion")
for (name in names(outcome)) {
  o <- outcome[[name]]
  m <- mean_rmse(o$runs, o$truth)
  cat(sprintf("%-5s: NCAM mean RMSE %.3f over %d seed%s vs lm %.3f (%s), EPA %.3f, mean(A, B) %.3f, label-free NCAM %.3f: target <= lm %s; 90 %% coverage NCAM %.3f, lm %.3f\n",
              name, m, n_seeds, if (n_seeds > 1) "s" else "", o$lm_rmse, pct(m, o$lm_rmse), rmse(o$epa$pred, o$truth),
              rmse(d$pa_mean[o$test], o$truth), mean_rmse(o$free, o$truth), if (m <= o$lm_rmse) "met" else "not met",
              mean_cov(o$runs, o$truth), coverage(o$lm, o$truth)))
}
for (e in externals) {
  cat(sprintf("%s: NCAM mean RMSE %.3f vs lm %.3f (%s): target <= lm %s; 90 %% coverage NCAM %.3f, lm %.3f\n", sub(" \\(.*", "", e$title),
              e$ncam, e$lm, pct(e$ncam, e$lm), if (e$ncam <= e$lm) "met" else "not met", e$cov, e$lm_cov))
}
if (run_diagnostics) {
  p <- diag$path
  best <- which.min(p$test_rmse)
  last <- nrow(p)
  cat(sprintf("path: min test RMSE %.3f at E = %d (lm %.3f); from there to E = %d the labelled-row RMSE goes %.3f -> %.3f and test RMSE %.3f -> %.3f: %s\n",
              p$test_rmse[best], p$epochs[best], lm_test_rmse, p$epochs[last], p$labelled_rmse[best], p$labelled_rmse[last],
              p$test_rmse[best], p$test_rmse[last],
              if (p$labelled_rmse[last] < p$labelled_rmse[best] && p$test_rmse[last] > p$test_rmse[best]) "over-fitting of the labelled rows" else "no over-fitting seen"))
  lin <- diag$linear[!is.na(diag$linear$converged), ]
  cat(sprintf("linear heads at the optimum: test RMSE %s for w = %s (lm %.3f)\n", paste(f3(lin$test_rmse), collapse = ", "),
              paste(lin$w, collapse = ", "), lm_test_rmse))
  high <- diag$bins[diag$bins$ref_bin %in% c("20-40", ">40"), ]
  cat(sprintf("ensemble of %d seeds %.3f vs single seeds %.3f-%.3f; bias NCAM vs lm at reference %s ug/m3: %s; duplication k = %s: test RMSE %s\n",
              length(diag$ensemble$single), diag$ensemble$ensemble, min(diag$ensemble$single), max(diag$ensemble$single),
              paste(high$ref_bin, collapse = " and "), paste(sprintf("%.2f vs %.2f", high$ncam_bias, high$lm_bias), collapse = " and "),
              paste(diag$duplicates$k, collapse = ", "), paste(f3(diag$duplicates$test_rmse), collapse = ", ")))
}
cat(sprintf("\n%d fits, %.1f s per fit on average (%.1f min of fitting); total wall time %.1f min\n", length(fit_times), mean(fit_times),
            sum(fit_times) / 60, (proc.time()[["elapsed"]] - started) / 60))
