# Helpers of bench/paper_toy.R: the paper's published toy figures, the fits (one job per
# fit, so that they can run in parallel), the baselines with the variants that explain the
# paper's numbers, conformal calibration and table formatting.

# The paper's toy figures (ncam-paper.tex: Tables 1-4 and 6, appendix tables).
paper <- list(
  table1 = data.frame(
    method = c("NCAM anchored", "Kalman filter", "PPCA", "Mean", "IVW", "VELI"),
    rmse = c(1.754, 3.574, 4.629, 5.023, 3.348, 2.644),
    mae = c(1.398, 3.104, 4.212, 4.337, 2.733, 2.117)),
  no_bias = c(rmse = 3.206, mae = 2.675),
  anchor = data.frame(anchor = paste0("sensor_", 0:2), rmse = c(1.774, 3.033, 10.297),
                      mae = c(1.412, 2.558, 9.851), raw_rmse = c(2.434, 4.691, 12.032),
                      raw_mae = c(1.939, 3.757, 10.254)),
  efficiency = data.frame(fraction = c(1, 0.5, 0.25, 0.125), rmse = c(1.774, 1.772, 1.782, 1.816),
                          mae = c(1.412, 1.411, 1.418, 1.442)),
  spearman = c(rho = 0.94, lower = 0.91, upper = 0.97),
  conformal = data.frame(
    method = c("split", "credible", "mc_empirical", "mc_model", "sensor_anchored"),
    coverage = c(0.901, 0.889, 1.000, 0.888, 0.994), width = c(5.798, 5.606, 23.185, 5.593, 9.824)),
  mc = data.frame(m = c(1, 5, 10, 50, 100, 500),
                  coverage = c(0.8915, 0.8931, 0.8921, 0.8910, 0.8909, 0.8909),
                  width = c(5.613, 5.646, 5.627, 5.603, 5.600, 5.601),
                  seconds = c(0.026, 0.023, 0.028, 0.049, 0.073, 0.343)),
  hp = data.frame(axis = c("hidden width", "learning rate"),
                  grid = c("32, 64, 128, 256, 512", "1e-5, 2e-5, 4e-5, 1e-4, 2e-4"),
                  rmse_min = c(1.772, 1.772), rmse_max = c(1.787, 1.779), span_percent = c(0.9, 0.4))
)

sensors <- paste0("sensor_", 0:2)
toy_formula <- sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4
baseline_formula <- sensor_0 + sensor_1 + sensor_2 ~ 1

rmse <- function(pred, truth) sqrt(mean((pred - truth)^2))
mae <- function(pred, truth) mean(abs(pred - truth))
raw_errors <- function(d) {
  vapply(sensors, function(s) c(rmse = rmse(d[[s]], d$truth), mae = mae(d[[s]], d$truth)), numeric(2))
}

# The data seed whose raw sensor errors (over all rows) are closest to the paper's, by the sum
# of squared log ratios of the six raw RMSE/MAE figures. The dataset-level offsets are drawn
# first, so the search at a small n carries over to any n.
match_data_seed <- function(candidates, n = 20000) {
  target <- log(c(paper$anchor$raw_rmse, paper$anchor$raw_mae))
  raw <- t(vapply(candidates, function(s) {
    e <- raw_errors(simulate_toy(n, seed = s))
    c(e["rmse", ], e["mae", ])
  }, numeric(6)))
  distance <- rowSums(sweep(log(raw), 2, target)^2)
  list(seed = candidates[which.min(distance)], raw = raw, distance = distance)
}

# The paper's split: 60/10/15/15 at random, drawn with the model seed.
toy_split <- function(d, seed) split_random(d, seed = seed)

# True per-row noise sd of each sensor (simulate_toy's formulas; sensor 2 with its 5% of
# outliers of 3 sigma, variance 1 + 0.05 * 9 times sigma^2).
true_noise_sd <- function(truth, ambiguity = 3) {
  cbind(sensor_0 = rep(0.8 * ambiguity, length(truth)),
        sensor_1 = (1 + 0.02 * truth) * ambiguity,
        sensor_2 = (1.3 + 0.03 * truth) * ambiguity * sqrt(1.45))
}

# ncam() on the train + validation rows, optionally tracing the validation NLL and the
# validation MAE against the truth at every epoch. The traced fit re-runs ncam()'s epoch loop
# (R/train.R) on the engine, with ncam()'s own setup from a one-epoch fit, so its best
# weights are those ncam() returns (checked in --quick mode).
fit_toy <- function(d, split, cfg, seed, parameterization = "anchored", anchor = "sensor_0",
                    train_keep = NULL, trace = FALSE) {
  rows <- split %in% c("train", "validation")
  if (!is.null(train_keep)) rows <- rows & (split == "validation" | train_keep)
  tv <- d[rows, ]
  is_val <- split[rows] == "validation"
  args <- list(formula = toy_formula, data = tv, anchor = if (parameterization == "anchored") anchor,
               hidden = cfg$hidden,
               epochs = cfg$epochs, learn_rate = cfg$learn_rate, batch_size = cfg$batch_size,
               validation = is_val, stop_iter = cfg$stop_iter, lambda_var = cfg$lambda_var,
               parameterization = parameterization, seed = seed, threads = 1L)
  if (!trace) return(list(fit = do.call(ncam, args), trace = NULL))
  args$epochs <- 1L
  fit <- do.call(ncam, args)
  engine <- asNamespace("ncam")
  state <- engine$ncam_trainer_new(fit$spec, lapply(tv[fit$covariates], as.double),
                                   lapply(tv[sensors], as.double), fit$scaling, which(!is_val) - 1L,
                                   engine$new_adam_settings(cfg$learn_rate, cfg$batch_size),
                                   fit$settings$seed, 1L, fit$settings$control$precision,
                                   engine$use_simd())
  val <- tv[is_val, ]
  # ncam()'s criterion: the mean validation NLL with each row's capped (R/train.R); the trace
  # keeps the plain mean, as fit$history does.
  inputs <- list(x = lapply(tv[fit$covariates], as.double), readings = lapply(tv[sensors], as.double),
                 scaling = fit$scaling)
  criterion_of <- engine$capped_validation_nll(fit$spec, inputs, which(is_val), 0, fit$settings$control$precision, 1L)
  trace <- data.frame(epoch = seq_len(cfg$epochs), validation_nll = NA_real_, validation_mae = NA_real_)
  best <- Inf
  since_best <- 0L
  for (epoch in seq_len(cfg$epochs)) {
    engine$ncam_trainer_epoch(state)
    params <- engine$ncam_trainer_params(state)
    nll <- criterion_of(params)
    fit$params <- params
    trace[epoch, 2:3] <- c(nll[["plain"]], mae(predict(fit, val, threads = 1L)$.pred, val$truth))
    if (nll[["capped"]] < best) {
      best <- nll[["capped"]]
      best_params <- params
      best_epoch <- epoch
      since_best <- 0L
    } else {
      since_best <- since_best + 1L
    }
    if (since_best >= cfg$stop_iter) break
  }
  fit$params <- best_params
  fit$best_epoch <- best_epoch
  fit$epochs_run <- epoch
  list(fit = fit, trace = trace[seq_len(epoch), ])
}

# One fit and what the tables need from it: test errors, epochs, learned noise against the
# true noise (anchored fits), and the fit itself for conformal calibration.
run_job <- function(job, data, cfg) {
  d <- data[[as.character(job$data_seed)]]
  split <- toy_split(d, job$seed)
  train_keep <- NULL
  if (job$fraction < 1) {
    train_rows <- which(split == "train")
    keep <- with_seed(job$seed, sample(train_rows, round(job$fraction * length(train_rows))))
    train_keep <- seq_len(nrow(d)) %in% keep
  }
  cfg$hidden <- rep(job$width, length(cfg$hidden))
  cfg$learn_rate <- job$learn_rate
  t0 <- proc.time()[["elapsed"]]
  res <- fit_toy(d, split, cfg, job$seed, job$parameterization, job$anchor, train_keep, job$trace)
  seconds <- proc.time()[["elapsed"]] - t0
  test <- d[split == "test", ]
  pred <- predict(res$fit, test, threads = 1L)$.pred
  out <- c(job, list(rmse = rmse(pred, test$truth), mae = mae(pred, test$truth),
                     best_epoch = res$fit$best_epoch, epochs_run = res$fit$epochs_run,
                     seconds = seconds, history = list(res$trace)))
  sp <- sensor_params(res$fit, test, threads = 1L)
  learned <- matrix(sp$sigma, ncol = 3, dimnames = list(NULL, sensors))
  out$noise_var <- list(colMeans(learned^2))
  if (job$parameterization == "anchored") {
    truth_sd <- true_noise_sd(test$truth)
    out$true_var <- list(colMeans(truth_sd^2))
    out$spearman_sensors <- stats::cor(colMeans(learned^2), colMeans(truth_sd^2), method = "spearman")
    out$spearman_rows <- stats::cor(as.vector(learned), as.vector(truth_sd), method = "spearman")
  }
  if (job$keep_fit) out$fit <- list(res$fit)
  out
}

with_seed <- function(seed, expr) {
  old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv())
  on.exit(if (is.null(old)) rm(".Random.seed", envir = globalenv()) else assign(".Random.seed", old, globalenv()))
  set.seed(seed)
  expr
}

# The baselines of Table 1 on one split (fitted on the training rows, no labels), with the
# variants that test why the paper's numbers differ from ours.
run_baselines <- function(d, split) {
  # The filter along longitude, one row per step: the Kalman baseline refuses repeated order
  # values (a few rows of the toy data share a longitude), so ties go by row.
  d$lon_rank <- rank(d$lon, ties.method = "first")
  train <- split == "train"
  test <- d[split == "test", ]
  fit <- function(method, ...) ncam_baseline(baseline_formula, d, method, train = train, ...)
  score <- function(pred) c(rmse = rmse(pred, test$truth), mae = mae(pred, test$truth))
  b_train <- as.matrix(d[train, sensors])
  b_test <- as.matrix(test[sensors])
  ivw_with_rows <- function(b, s2) drop(b %*% (1 / s2)) / sum(1 / s2)
  ivw_with <- function(s2) ivw_with_rows(b_test, s2)
  ppca <- fit("ppca", anchor = "sensor_0")
  p <- ppca$params
  z <- (predict(ppca, test)$.pred - p$coef[[1]]) / p$coef[[2]]
  anchor_sd <- stats::sd(b_train[, "sensor_0"])
  z_train <- (predict(ppca, d[train, ])$.pred - p$coef[[1]]) / p$coef[[2]]
  kalman <- fit("kalman")
  # The same filter with each sensor's reading variance as its noise variance, q re-chosen
  # by the innovation likelihood on the training rows (ncam_baseline()'s internal filter).
  kalman_rv <- kalman
  s2 <- apply(b_train, 2, stats::var)
  init <- ivw_with_rows(b_train, s2)
  kalman_rv$params[c("sensor_var", "m0", "P0")] <- list(s2, mean(init), stats::var(init))
  q_grid <- stats::var(init) * 10^(seq(-48, 8) / 8)
  ll <- asNamespace("ncam")$kalman_rw_filter(b_train, s2, q_grid, mean(init), stats::var(init))$loglik
  kalman_rv$params$q <- q_grid[which.max(ll)]
  list(
    mean = score(predict(fit("mean"), test)$.pred),
    ivw = score(predict(fit("ivw"), test)$.pred),
    ivw_reading_var = score(ivw_with(apply(b_train, 2, stats::var))),
    ppca = score(predict(ppca, test)$.pred),
    ppca_reconstruction = score(rowMeans(sweep(outer(z, p$loadings), 2, p$mu, `+`))),
    ppca_standardised = score(mean(b_train[, "sensor_0"]) + anchor_sd * (z - mean(z_train)) / stats::sd(z_train)),
    kalman = score(predict(kalman, test)$.pred),
    kalman_q = kalman$params$q,
    kalman_reading_var = score(predict(kalman_rv, test)$.pred),
    kalman_lon = score(predict(fit("kalman", order = "lon_rank"), test)$.pred),
    factor = score(predict(fit("factor", anchor = "sensor_0"), test)$.pred),
    raw = raw_errors(test)
  )
}

# Conformal intervals at 0.9 on the test rows for one fit, calibrated on the calibration rows.
run_conformal <- function(fit, d, split, seed, m = 50) {
  cal <- d[split == "calibration", ]
  test <- d[split == "test", ]
  one <- function(pred) unlist(evaluate_fusion(pred, test$truth)[c("coverage", "mean_width")])
  out <- list(credible = one(predict(fit, test, interval = "credible", level = 0.9, threads = 1L)))
  for (method in c("split", "mc_model", "mc_empirical", "sensor_anchored")) {
    # The Monte Carlo arguments only for the methods that draw.
    draws <- if (method %in% c("mc_model", "mc_empirical")) list(m = m, seed = seed)
    cb <- do.call(calibrate, c(list(fit, cal, method = method, level = 0.9,
                                    reference = if (method == "split") "truth", threads = 1L), draws))
    out[[method]] <- one(predict(cb, test, threads = 1L))
  }
  out
}

# MC-CP (model) for several sample counts m on one fit, with the calibration time.
run_mc_counts <- function(fit, d, split, seed, counts) {
  # calibrate() keeps at most max_calibration_scores draws: at the largest m, the first rows of
  # the (randomly ordered) calibration split that fit, the same rows for every m.
  cal <- d[split == "calibration", ]
  cal <- cal[seq_len(min(nrow(cal), floor(ncam:::max_calibration_scores / max(counts)))), ]
  test <- d[split == "test", ]
  out <- do.call(rbind, lapply(counts, function(m) {
    t0 <- proc.time()[["elapsed"]]
    cb <- calibrate(fit, cal, method = "mc_model", level = 0.9, m = m, seed = seed, threads = 1L)
    seconds <- proc.time()[["elapsed"]] - t0
    e <- evaluate_fusion(predict(cb, test, threads = 1L), test$truth)
    data.frame(m = m, coverage = e$coverage, width = e$mean_width, seconds = seconds)
  }))
  structure(out, calibration_rows = nrow(cal))
}

# Each anchor fit's errors beside its anchor sensor's raw errors on the same test rows, and the
# anchor's dataset-level offset.
anchor_run_errors <- function(runs, data) {
  do.call(rbind, lapply(seq_len(nrow(runs)), function(i) {
    r <- runs[i, ]
    d <- data[[as.character(r$data_seed)]]
    raw <- raw_errors(d[toy_split(d, r$seed) == "test", ])[, r$anchor]
    prm <- attr(d, "params")
    offset <- c(sensor_0 = prm$beta0, sensor_1 = prm$beta1, sensor_2 = prm$beta2)[[r$anchor]]
    data.frame(data_seed = r$data_seed, anchor = r$anchor, seed = r$seed, offset_beta = offset, rmse = r$rmse,
               mae = r$mae, raw_rmse = raw[["rmse"]], raw_mae = raw[["mae"]])
  }))
}

# One row per point of the two hyperparameter grids (the default point belongs to both).
hp_point_table <- function(runs, cfg) {
  one <- function(axis, r) {
    data.frame(axis = axis, width = r$width[1], learn_rate = r$learn_rate[1], seeds = nrow(r), rmse = pm(r$rmse),
               rmse_mean = mean(r$rmse), mae = pm(r$mae), best_epochs = paste(r$best_epoch, collapse = ","),
               epochs_run = paste(r$epochs_run, collapse = ","), capped = sum(r$epochs_run >= cfg$epochs),
               seconds_per_fit = round(stats::median(r$seconds)))
  }
  by_width <- runs[runs$learn_rate == cfg$learn_rate, ]
  by_rate <- runs[runs$width == cfg$hidden[1], ]
  rbind(do.call(rbind, lapply(split(by_width, by_width$width), function(r) one("hidden width", r))),
        do.call(rbind, lapply(split(by_rate, by_rate$learn_rate), function(r) one("learning rate", r))))
}

# The paper's summary of each grid: range of the points' mean RMSE and its span max/min - 1.
hp_span_table <- function(points) {
  do.call(rbind, lapply(c("hidden width", "learning rate"), function(a) {
    pt <- points[points$axis == a, ]
    grid <- if (a == "hidden width") pt$width else pt$learn_rate
    lo <- min(pt$rmse_mean)
    hi <- max(pt$rmse_mean)
    p <- paper$hp[paper$hp$axis == a, ]
    shown <- vapply(grid, function(g) sub("e-0", "e-", format(g, scientific = a == "learning rate")), character(1))
    data.frame(axis = a, grid = paste(shown, collapse = ", "),
               rmse_min = round(lo, 3), rmse_max = round(hi, 3), span_percent = round(100 * (hi / lo - 1), 2),
               best_at = shown[which.min(pt$rmse_mean)], paper_grid = p$grid,
               paper_rmse_min = p$rmse_min, paper_rmse_max = p$rmse_max, paper_span_percent = p$span_percent)
  }))
}

seed_range <- function(seeds) {
  if (length(seeds) > 1L && all(diff(seeds) == 1L)) paste(range(seeds), collapse = "-") else paste(seeds, collapse = ", ")
}

# "mean +- sd" of a vector, or the value when there is one.
pm <- function(x, digits = 3) {
  x <- x[!is.na(x)]
  if (length(x) == 0L) return("")
  if (length(x) == 1L) return(formatC(x, digits = digits, format = "f"))
  sprintf("%.*f \u00b1 %.*f", digits, mean(x), digits, stats::sd(x))
}

print_table <- function(title, df, note = NULL) {
  cat("\n## ", title, "\n", sep = "")
  if (!is.null(note)) cat(strwrap(note, width = 100), sep = "\n")
  shown <- format(df)
  shown[is.na(df)] <- ""
  print(shown, row.names = FALSE, right = FALSE)
}
