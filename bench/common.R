# Helpers shared by the bench scripts.

# For long scripts: say(fmt, ...) prints a line and rewrites `out_path` with every line so far,
# so that a run stopped midway leaves its figures.
bench_logger <- function(out_path) {
  lines <- character()
  function(...) {
    line <- sprintf(...)
    cat(line, "\n", sep = "")
    lines <<- c(lines, line)
    writeLines(lines, out_path)
  }
}

# For the child scripts of bench/speed.R: the engine's raw inputs for toy data at hidden
# width 64 (covariates, readings, model spec, working scale, Adam settings).
toy_engine_inputs <- function(d, batch_size = 256L) {
  X <- as.matrix(d[, paste0("x", 1:4)])
  B <- as.matrix(d[, paste0("sensor_", 0:2)])
  list(
    X = X, B = B,
    spec = ncam:::new_model_spec(4L, 3L, c(64L, 64L, 64L), "anchored"),
    sc = ncam:::new_scaling(unname(colMeans(X)), unname(apply(X, 2, sd)), mean(B[, 1]), sd(B[, 1])),
    adam = ncam:::new_adam_settings(1e-3, batch_size)
  )
}


# Shared by bench/colocation.R and bench/colocation_mechanism.R: scored rows split by their
# distance outside the co-location range (predict()'s .extrapolation, the same for every seed
# as it depends on the data alone) at `breaks` (shares of the range; the last one should be
# ncam:::extrapolation_warning_share, beyond which predict() warns). Per band and for all rows:
# RMSE and 90 % coverage of NCAM (mean over the runs, one per seed) and of lm, and NCAM's share
# of its squared error. Runs are data frames with columns pred, lower, upper.
extrapolation_bands <- function(distance, ncam_runs, lm_run, truth, breaks) {
  labels <- c("inside", sprintf("%g to %g", c(0, head(breaks, -1)), breaks), sprintf("above %g (warned)", tail(breaks, 1)))
  band <- cut(distance, c(-Inf, 0, breaks, Inf), labels = labels)
  rmse <- function(run, rows) sqrt(mean((run$pred[rows] - truth[rows])^2))
  cover <- function(run, rows) mean(truth[rows] >= run$lower[rows] & truth[rows] <= run$upper[rows])
  total_sq <- vapply(ncam_runs, function(r) sum((r$pred - truth)^2), numeric(1))
  groups <- c(split(seq_along(distance), band), list(all = seq_along(distance)))
  rows <- lapply(groups, function(i) {
    if (!length(i)) return(data.frame(rows = 0L, share_of_rows = 0, ncam_rmse = NA, lm_rmse = NA,
                                      ncam_share_of_squared_error = 0, ncam_cov90 = NA, lm_cov90 = NA))
    data.frame(rows = length(i), share_of_rows = length(i) / length(distance),
               ncam_rmse = mean(vapply(ncam_runs, rmse, numeric(1), rows = i)), lm_rmse = rmse(lm_run, i),
               ncam_share_of_squared_error = mean(vapply(ncam_runs, function(r) sum((r$pred[i] - truth[i])^2), numeric(1)) / total_sq),
               ncam_cov90 = mean(vapply(ncam_runs, cover, numeric(1), rows = i)), lm_cov90 = cover(lm_run, i))
  })
  cbind(band = names(groups), do.call(rbind, rows), row.names = NULL)
}

# The folder of the shared real data: $NCAM_SHARED_DATA, else ../shared/data, else /work/shared/data.
shared_data_dir <- function() {
  env <- Sys.getenv("NCAM_SHARED_DATA")
  hit <- Filter(dir.exists, c(if (nzchar(env)) env, file.path("..", "shared", "data"), "/work/shared/data"))
  if (!length(hit)) stop("No shared data: set NCAM_SHARED_DATA to the folder holding purpleair-aqs-daily-mathieu/.")
  normalizePath(hit[[1]])
}

# The short co-location protocol on the PurpleAir/AQS daily data (bench/colocation.R,
# bench/colocation_mechanism.R, bench/colocation_stopping.R): the first `label_frac` (10 %) of
# each site's days (ceiling) keep the reference. Returns the file's path, the share, the data
# with pa_mean, the labelled rows' indices, the training rows (reference NA after the
# co-location; rows with complete covariates and readings) and the scored rows (with a
# reference), as indices of the data and as its rows.
purpleair_short_protocol <- function() {
  path <- file.path(shared_data_dir(), "purpleair-aqs-daily-mathieu",
                    "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv")
  label_frac <- 0.1
  d <- as.data.frame(ncam::read_purpleair_aqs(path))
  d$pa_mean <- (d$pa_a + d$pa_b) / 2
  site_rows <- split(seq_len(nrow(d)), d$site)
  first_days <- unlist(lapply(site_rows, function(i) i[order(d$date[i])][seq_len(ceiling(label_frac * length(i)))]))
  train <- d
  train$ref[-first_days] <- NA
  train <- train[stats::complete.cases(train[c("rh", "temperature", "pa_a", "pa_b")]), ]
  test_rows <- setdiff(seq_len(nrow(d)), first_days)
  test_rows <- test_rows[!is.na(d$ref[test_rows])]
  list(path = path, label_frac = label_frac, data = d, first_days = first_days, train = train,
       test_rows = test_rows, test = d[test_rows, ])
}

# The peer of the short protocol: lm(ref ~ pa_mean + rh + temperature) on the labelled days, and
# its RMSE on the scored days.
short_protocol_lm <- function(protocol) {
  fit <- stats::lm(ref ~ pa_mean + rh + temperature, data = protocol$data[protocol$first_days, ])
  list(fit = fit, rmse = sqrt(mean((stats::predict(fit, protocol$test) - protocol$test$ref)^2)))
}
