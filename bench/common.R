# Shared by the child scripts of bench/speed.R: the engine's raw inputs for toy data at
# hidden width 64 (covariates, readings, model spec, working scale, Adam settings).
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

