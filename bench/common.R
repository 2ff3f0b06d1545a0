# Shared by the child scripts of bench/speed.R: the engine's raw inputs for toy data at
# hidden width 64 (covariates, readings, model spec, working scale, Adam settings).
toy_engine_inputs <- function(d, batch_size = 256L) {
  X <- as.matrix(d[, paste0("x", 1:4)])
  B <- as.matrix(d[, paste0("sensor_", 0:2)])
  list(
    X = X, B = B,
    spec = list(n_covariates = 4L, n_sensors = 3L, hidden = c(64L, 64L, 64L), parameterization = 0L,
                anchor = 0L, logvar_min = -5, logvar_max = 4, lambda_prior = 0, lambda_sensor = 0),
    sc = list(x_center = unname(colMeans(X)), x_scale = unname(apply(X, 2, sd)), b_shift = mean(B[, 1]),
              b_scale = sd(B[, 1])),
    adam = list(learn_rate = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0, clip_norm = 0,
                batch_size = as.integer(batch_size))
  )
}

