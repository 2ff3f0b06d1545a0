# Tests of the C++ engine through its internal R entry points. Every check compares the
# engine against an independent computation in R (finite differences, dense multivariate
# normal densities, numerical integration, an R re-implementation of the network), never
# against the engine's own earlier output.

# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------

# `param` 0, 1, 2: anchored, unanchored, no_bias; `anchor` 0-based, as the engine stores it;
# `sensor_level` each sensor's gain and offset on the working scale (NULL: 1 and 0).
eng_spec <- function(p, L, hidden = integer(0), param = 0L, anchor = 0L,
                     lambda_prior = 0.1, lambda_sensor = 0.05,
                     logvar_min = -5, logvar_max = 4, sensor_level = NULL) {
  ncam:::new_model_spec(p, L, hidden, c("anchored", "unanchored", "no_bias")[param + 1L],
                        anchor = anchor + 1L, logvar_range = c(logvar_min, logvar_max),
                        lambda_prior = lambda_prior, lambda_sensor = lambda_sensor, sensor_level = sensor_level)
}

eng_scaling <- function(p, x_center = NULL, x_scale = NULL, b_shift = 0, b_scale = 1) {
  ncam:::new_scaling(x_center = if (is.null(x_center)) rep(0, p) else x_center,
                     x_scale = if (is.null(x_scale)) rep(1, p) else x_scale,
                     b_shift = b_shift, b_scale = b_scale)
}

# Independent parameter layout: heads prior (2 outputs), reliability (L), bias (2 * n_free,
# absent when n_free = 0), each an MLP p -> hidden... -> out with per layer W (out x in,
# column-major) then b, packed contiguously in that order.
eng_n_free <- function(spec) {
  switch(spec$parameterization, anchored = spec$n_sensors - 1L, unanchored = spec$n_sensors, no_bias = 0L)
}

eng_layout <- function(spec) {
  outs <- list(prior = 2L, reliability = spec$n_sensors)
  nf <- eng_n_free(spec)
  if (nf > 0L) outs$bias <- 2L * nf
  offset <- 0
  heads <- list()
  for (nm in names(outs)) {
    widths <- c(spec$n_covariates, spec$hidden, outs[[nm]])
    w_off <- b_off <- numeric(0)
    for (l in seq_len(length(widths) - 1L)) {
      w_off[l] <- offset
      offset <- offset + widths[l + 1L] * widths[l]
      b_off[l] <- offset
      offset <- offset + widths[l + 1L]
    }
    heads[[nm]] <- list(widths = as.integer(widths), w_offset = w_off, b_offset = b_off)
  }
  list(heads = heads, n_params = offset, n_free = nf)
}

# Names of the parameter groups ("prior L1 W", "prior L1 b", ...), one per parameter.
eng_groups <- function(lay) {
  g <- character(lay$n_params)
  for (nm in names(lay$heads)) {
    h <- lay$heads[[nm]]
    for (l in seq_along(h$w_offset)) {
      nw <- h$widths[l + 1L] * h$widths[l]
      if (nw > 0) g[h$w_offset[l] + seq_len(nw)] <- sprintf("%s layer %d W", nm, l)
      g[h$b_offset[l] + seq_len(h$widths[l + 1L])] <- sprintf("%s layer %d b", nm, l)
    }
  }
  g
}

eng_gelu <- function(z) z * stats::pnorm(z)
eng_softplus <- function(u) ifelse(u > 0, u + log1p(exp(-u)), log1p(exp(u)))

# R forward pass of one head on working-scale covariates xw (n x p): raw outputs, n x out.
eng_mlp_forward <- function(h, params, xw) {
  n <- nrow(xw)
  act <- xw
  nl <- length(h$w_offset)
  for (l in seq_len(nl)) {
    w <- matrix(params[h$w_offset[l] + seq_len(h$widths[l + 1L] * h$widths[l])],
                h$widths[l + 1L], h$widths[l])
    bias <- params[h$b_offset[l] + seq_len(h$widths[l + 1L])]
    z <- if (h$widths[l] == 0L) matrix(0, n, h$widths[l + 1L]) else act %*% t(w)
    z <- sweep(z, 2L, bias, `+`)
    act <- if (l < nl) eng_gelu(z) else z
  }
  act
}

# R re-implementation of the head outputs (after transforms): list of mu0, v0, w, a, c
# (matrices n x L for the sensor quantities), plus the raw log-variances. A sensor at level
# (g, o) has gain g softplus(u), offset o + g v and noise log-variance 2 log(g) + clamp(raw).
eng_heads_r <- function(spec, params, X, scaling) {
  lay <- eng_layout(spec)
  L <- spec$n_sensors
  xw <- sweep(sweep(X, 2L, scaling$x_center, `-`), 2L, scaling$x_scale, `/`)
  n <- nrow(X)
  cl <- function(v) pmin(pmax(v, spec$logvar_min), spec$logvar_max)
  pr <- eng_mlp_forward(lay$heads$prior, params, xw)
  rl <- eng_mlp_forward(lay$heads$reliability, params, xw)
  a <- matrix(1, n, L)
  cc <- matrix(0, n, L)
  nf <- lay$n_free
  if (nf > 0L) {
    bi <- eng_mlp_forward(lay$heads$bias, params, xw)
    free <- if (spec$parameterization == "unanchored") seq_len(L) else setdiff(seq_len(L), spec$anchor + 1L)
    g <- if (is.null(spec$sensor_gain)) rep(1, L) else spec$sensor_gain
    o <- if (is.null(spec$sensor_offset)) rep(0, L) else spec$sensor_offset
    a[, free] <- sweep(eng_softplus(bi[, seq_len(nf), drop = FALSE]), 2L, g[free], `*`)
    cc[, free] <- sweep(sweep(bi[, nf + seq_len(nf), drop = FALSE], 2L, g[free], `*`), 2L, o[free], `+`)
  }
  shift <- if (is.null(spec$sensor_gain)) rep(0, L) else 2 * log(spec$sensor_gain)
  list(mu0 = pr[, 1], v0 = cl(pr[, 2]), w = sweep(cl(rl), 2L, shift, `+`), a = a, c = cc,
       raw_v0 = pr[, 2], raw_w = rl, logvar_shift = shift)
}

# The engine's head outputs of every sensor (ncam_predict_cpp(outputs = "sensors")) by name.
eng_heads <- function(pr) {
  list(mu0 = pr$prior_mean, v0 = pr$prior_log_variance, w = pr$noise_log_variance, a = pr$gain, c = pr$offset)
}

# Dense -log N(b; a mu0 + c, s0^2 a a' + diag(sigma^2)) over the observed entries of b.
eng_dense_nll <- function(b, mu0, v0, w, a, cc) {
  o <- !is.na(b)
  k <- sum(o)
  if (k == 0L) return(0)
  a <- a[o]
  S <- exp(v0) * tcrossprod(a) + diag(exp(w[o]), k)
  r <- b[o] - (a * mu0 + cc[o])
  ld <- determinant(S, logarithm = TRUE)$modulus[[1]]
  0.5 * (k * log(2 * pi) + ld + sum(r * solve(S, r)))
}

eng_objective <- function(spec, params, X, B, scaling, rows0 = seq_len(nrow(B)) - 1L,
                          threads = 1L, precision = "double") {
  ncam:::ncam_objective_cpp(spec, params, X, B, scaling, as.integer(rows0), as.integer(threads), precision)
}

# The engine returns results in the readings' units; the checks below compare with working-
# scale computations, so map them back: with b' = (b - m) / k, Theta' = (Theta - m) / k,
# c' = (c - m (1 - a)) / k, log-variances minus 2 log k, NLL minus |O| log k.
eng_predict <- function(spec, params, X, B, scaling, threads = 1L, precision = "double") {
  pr <- eng_predict_units(spec, params, X, B, scaling, threads, precision)
  m <- scaling$b_shift
  k <- scaling$b_scale
  pr$mean <- (pr$mean - m) / k
  pr$variance <- pr$variance / k^2
  pr$nll <- pr$nll - pr$n_observed * log(k)
  pr$prior_mean <- (pr$prior_mean - m) / k
  pr$prior_log_variance <- pr$prior_log_variance - 2 * log(k)
  pr$noise_log_variance <- pr$noise_log_variance - 2 * log(k)
  pr$offset <- (pr$offset - m * (1 - pr$gain)) / k
  pr
}

eng_predict_units <- function(spec, params, X, B, scaling, threads = 1L, precision = "double") {
  ncam:::ncam_predict_cpp(spec, params, X, B, scaling, as.integer(threads), precision, "sensors", TRUE)
}

# Simulated data in raw units: n x p covariates, n x L readings with missing cells and one
# fully missing row.
eng_data <- function(n, p, L, seed, na_frac = 0.15) {
  withr::local_seed(seed)
  X <- matrix(stats::rnorm(n * p, mean = 3, sd = 2), n, p)
  theta <- stats::rnorm(n, 10, 3)
  gains <- seq(0.8, 1.3, length.out = L)
  B <- sapply(seq_len(L), function(j) gains[j] * theta + j - 1 + stats::rnorm(n, sd = 0.5 + 0.3 * j))
  B <- matrix(B, n, L)
  B[matrix(stats::runif(n * L) < na_frac, n, L)] <- NA
  B[2, ] <- NA
  if (L > 1L) {
    B[3, ] <- NA
    B[3, L] <- 10.5  # a row with a single reading
  }
  list(X = X, B = B,
       scaling = eng_scaling(p, x_center = rep(3, p), x_scale = rep(2, p), b_shift = 10, b_scale = 3))
}

# Generic parameters: the initialisation plus noise, so that nothing sits at a special value.
eng_params <- function(spec, seed, noise = 0.3) {
  p0 <- ncam:::ncam_init_params_cpp(spec, seed)
  withr::local_seed(seed + 1000)
  p0 + stats::rnorm(length(p0), sd = noise)
}

# ---------------------------------------------------------------------------------------
# 0. Layout and forward pass against the R re-implementation
# ---------------------------------------------------------------------------------------

test_that("parameter layout matches an independent computation", {
  cases <- list(eng_spec(2, 3, c(5, 3), 0L), eng_spec(2, 3, c(5, 3), 1L), eng_spec(2, 3, c(5, 3), 2L),
                eng_spec(0, 4, integer(0), 1L), eng_spec(3, 1, 4L, 0L), eng_spec(0, 2, 3L, 0L, anchor = 1L))
  for (spec in cases) {
    mine <- eng_layout(spec)
    lay <- ncam:::ncam_layout_cpp(spec)
    expect_identical(names(lay$heads), names(mine$heads))
    expect_equal(lay$n_params, mine$n_params)
    expect_equal(lay$n_free, mine$n_free)
    for (nm in names(mine$heads)) {
      expect_equal(as.integer(lay$heads[[nm]]$widths), mine$heads[[nm]]$widths)
      expect_equal(as.numeric(lay$heads[[nm]]$w_offset), mine$heads[[nm]]$w_offset)
      expect_equal(as.numeric(lay$heads[[nm]]$b_offset), mine$heads[[nm]]$b_offset)
    }
    expect_length(ncam:::ncam_init_params_cpp(spec, 1), mine$n_params)
  }
})

test_that("head outputs match an R forward pass (GELU, softplus, clamp, anchor, scaling)", {
  d <- eng_data(30, 2, 3, seed = 11)
  for (param in 0:2) {
    spec <- eng_spec(2, 3, c(5, 3), param, anchor = 1L)
    params <- eng_params(spec, 7, noise = 0.8)
    # Push some outputs beyond the clamp so the clamp is exercised too.
    lay <- eng_layout(spec)
    params[lay$heads$reliability$b_offset[3] + 1] <- 4.5
    params[lay$heads$prior$b_offset[3] + 2] <- -5.2
    pr <- eng_predict(spec, params, d$X, d$B, d$scaling)
    H <- eng_heads(pr)
    R <- eng_heads_r(spec, params, d$X, d$scaling)
    expect_true(any(R$raw_w > 4) || any(R$raw_v0 < -5))
    expect_equal(H$mu0, R$mu0, tolerance = 1e-12)
    expect_equal(H$v0, R$v0, tolerance = 1e-12)
    expect_equal(unname(H$w), R$w, tolerance = 1e-12)
    expect_equal(unname(H$a), R$a, tolerance = 1e-12)
    expect_equal(unname(H$c), R$c, tolerance = 1e-12)
    if (param == 0L) {
      expect_true(all(H$a[, 2] == 1) && all(H$c[, 2] == 0))
    }
    if (param == 2L) expect_true(all(H$a == 1) && all(H$c == 0))
  }
  # Sensors at other levels (a gain of 1000 and of 0.05, on the working scale).
  for (param in 0:1) {
    level <- list(gain = c(1000, if (param == 0L) 1 else 3, 0.05), offset = c(300, if (param == 0L) 0 else -2, -7))
    spec <- eng_spec(2, 3, c(5, 3), param, anchor = 1L, sensor_level = level)
    params <- eng_params(spec, 8, noise = 0.8)
    params[eng_layout(spec)$heads$reliability$b_offset[3] + 1] <- 4.5  # beyond the clamp
    H <- eng_heads(eng_predict(spec, params, d$X, d$B, d$scaling))
    R <- eng_heads_r(spec, params, d$X, d$scaling)
    expect_true(any(R$raw_w[, 1] > 4))
    expect_equal(unname(H$w), R$w, tolerance = 1e-12)
    expect_equal(unname(H$a), R$a, tolerance = 1e-12)
    expect_equal(unname(H$c), R$c, tolerance = 1e-12)
    expect_equal(H$mu0, R$mu0, tolerance = 1e-12)
  }
})

test_that("the engine reports the rows whose noise the clamp sets, by the raw value at each sensor's level", {
  d <- eng_data(60, 2, 3, seed = 31)
  d$X[5, 1] <- NA  # a row without a covariate has no noise to report
  level <- list(gain = c(1000, 1, 0.05), offset = c(300, 0, -7))
  spec <- eng_spec(2, 3, c(5, 3), 0L, anchor = 1L, sensor_level = level)
  params <- eng_params(spec, 9, noise = 1.5)
  # Sensor 1's raw noise straddles the upper bound, sensor 3's the lower one.
  out_bias <- eng_layout(spec)$heads$reliability$b_offset[3]
  params[out_bias + c(1, 3)] <- c(3.8, -4.75)
  # With levels, and without (a fit saved before levels existed: the engine reads gain 1).
  for (s in list(spec, spec[setdiff(names(spec), c("sensor_gain", "sensor_offset"))])) {
    R <- eng_heads_r(s, params, d$X, d$scaling)
    expected <- (R$raw_w > s$logvar_max) - (R$raw_w < s$logvar_min)
    expected[5, ] <- 0
    expect_true(any(expected < 0) && any(expected > 0) && any(expected == 0))
    # Sensor 1, at gain 1000, has noise log-variances above logvar_max that the clamp left.
    if (!is.null(s$sensor_gain)) expect_true(any(expected[, 1] == 0 & R$w[, 1] > s$logvar_max))
    # In float a raw value within its rounding of a bound may fall on either side.
    near <- abs(R$raw_w - s$logvar_min) < 1e-4 | abs(R$raw_w - s$logvar_max) < 1e-4
    near[5, ] <- FALSE
    expect_lt(sum(near), 3)
    for (precision in c("double", "float")) {
      report <- eng_predict_units(s, params, d$X, d$B, d$scaling, precision = precision)$noise_clamp
      expect_identical(dim(report), dim(expected))
      expect_identical(report[!near], as.integer(expected[!near]))
      far <- rowSums(near) == 0
      expect_equal(unname(ncam:::at_logvar_clamp(report[far, ])),
                   rbind(colSums(expected[far, ] < 0), colSums(expected[far, ] > 0)))
    }
  }
})

test_that("the clamp report of rows past the glue's first block of 32768 rows lands on those rows", {
  d <- eng_data(33000, 1, 2, seed = 32)
  spec <- eng_spec(1, 2, integer(0), 1L)
  params <- numeric(eng_layout(spec)$n_params)
  rel <- eng_layout(spec)$heads$reliability
  # Raw noise log-variances 3 x' and -3 x' of the working-scale covariate x' ~ N(0, 1).
  params[rel$w_offset[1] + 1:2] <- c(3, -3)
  report <- eng_predict_units(spec, params, d$X, d$B, d$scaling)$noise_clamp
  raw <- eng_heads_r(spec, params, d$X, d$scaling)$raw_w
  expected <- (raw > spec$logvar_max) - (raw < spec$logvar_min)
  late <- 32769:33000
  expect_true(any(expected[late, ] != 0) && any(expected[late, ] == 0))
  expect_identical(report, matrix(as.integer(expected), nrow(expected)))
})

test_that("the glue returns the per-row outputs asked for, on rows past its first block too", {
  # 33000 rows: the glue's first block holds 32768. The anchor is sensor 3. Sensor 1's raw gain
  # is x' times the largest double (x' ~ N(0, 1), the working-scale covariate): its gain, or its
  # offset in the readings' units, is not finite where x' is well above 0; sensor 1 has no
  # reading there, so the posterior stays finite beside heads that are not.
  d <- eng_data(33000, 1, 3, seed = 33)
  spec <- eng_spec(1, 3, integer(0), 0L, anchor = 2L)
  params <- eng_params(spec, 34)
  bias <- eng_layout(spec)$heads$bias
  params[bias$w_offset[1] + 1] <- .Machine$double.xmax
  params[bias$b_offset[1] + 1] <- 0
  d$B[(d$X[, 1] - 3) / 2 > 0, 1] <- NA
  run <- function(outputs) ncam:::ncam_predict_cpp(spec, params, d$X, d$B, d$scaling, 2L, "double", outputs, FALSE)
  posterior <- run("posterior")
  anchor <- run("anchor_noise")
  sensors <- run("sensors")
  expect_named(posterior, c("mean", "variance", "n_observed", "nll", "interrupted"))
  expect_named(anchor, c(names(posterior), "noise_log_variance", "heads_not_finite"))
  expect_named(sensors, c(names(posterior), "prior_mean", "prior_log_variance", "noise_log_variance", "gain",
                          "offset", "heads_not_finite"))
  for (out in list(anchor, sensors)) expect_identical(out[names(posterior)], posterior)
  expect_identical(anchor$noise_log_variance, sensors$noise_log_variance[, 3])
  # Not finite: a head output, or a variance exp(log-variance), as R reads them.
  finite <- is.finite(sensors$prior_mean) & is.finite(exp(sensors$prior_log_variance)) &
    rowSums(!is.finite(cbind(exp(sensors$noise_log_variance), sensors$gain, sensors$offset))) == 0
  late <- 32769:33000
  expect_true(any(!finite[late]) && any(finite[late]) && all(is.finite(posterior$mean)))
  expect_identical(anchor$heads_not_finite, which(!finite))
  expect_identical(sensors$heads_not_finite, which(!finite))
  # The clamp report is asked for apart, with any outputs.
  with_clamp <- ncam:::ncam_predict_cpp(spec, params, d$X, d$B, d$scaling, 2L, "double", "posterior", TRUE)
  expect_identical(dim(with_clamp$noise_clamp), c(33000L, 3L))
  # The anchor's noise needs an anchor; other outputs are unknown.
  unanchored <- eng_spec(1, 3, integer(0), 1L)
  expect_error(ncam:::ncam_predict_cpp(unanchored, eng_params(unanchored, 1), d$X, d$B, d$scaling, 1L, "double",
                                       "anchor_noise", FALSE), "need a model with an anchor")
  expect_error(run("heads"), "unknown outputs 'heads'")
})

test_that("rows with a missing covariate give NA predictions", {
  d <- eng_data(10, 2, 3, seed = 3)
  d$X[4, 2] <- NA
  spec <- eng_spec(2, 3, 4L, 0L)
  pr <- eng_predict(spec, eng_params(spec, 1), d$X, d$B, d$scaling)
  expect_true(is.na(pr$mean[4]) && is.na(pr$variance[4]) && is.na(pr$nll[4]))
  expect_true(all(is.na(unlist(lapply(eng_heads(pr), function(h) if (is.matrix(h)) h[4, ] else h[4])))))
  expect_false(anyNA(pr$mean[-4]))
})

test_that("the engine returns results in the readings' units, whatever the working scale", {
  # The same network on readings given as b, with working scale (m, k), and on b* = (b - m) / k
  # with the identity scale: the posterior is the same up to the affine map, and the NLL of
  # b is the NLL of b* plus |O| log k (the Jacobian). Checked with a plain affine map in R.
  d <- eng_data(25, 2, 3, seed = 15)
  m <- d$scaling$b_shift
  k <- d$scaling$b_scale
  unit_scaling <- eng_scaling(2, x_center = rep(3, 2), x_scale = rep(2, 2))
  for (param in 0:2) {
    spec <- eng_spec(2, 3, 4L, param, anchor = 1L)
    params <- eng_params(spec, 16)
    raw <- eng_predict_units(spec, params, d$X, d$B, d$scaling)
    std <- eng_predict_units(spec, params, d$X, (d$B - m) / k, unit_scaling)
    expect_equal(raw$mean, m + k * std$mean, tolerance = 1e-12)
    expect_equal(raw$variance, k^2 * std$variance, tolerance = 1e-12)
    expect_equal(raw$nll, std$nll + rowSums(!is.na(d$B)) * log(k), tolerance = 1e-12)
    H <- eng_heads(raw)
    S <- eng_heads(std)
    expect_equal(H$a, S$a, tolerance = 1e-12)
    expect_equal(H$c, k * S$c + m * (1 - S$a), tolerance = 1e-12)
    expect_equal(exp(H$w), k^2 * exp(S$w), tolerance = 1e-12)
    expect_equal(H$mu0, m + k * S$mu0, tolerance = 1e-12)
  }
})

test_that("specs and precisions are checked names, not positions", {
  spec <- eng_spec(2, 3, 4L, 0L)
  expect_identical(spec$parameterization, "anchored")
  expect_error(ncam:::new_model_spec(2, 3, 4L, "anchor"), "parameterization")
  bad <- spec
  bad$parameterization <- "anchor"
  d <- eng_data(5, 2, 3, seed = 1)
  expect_error(eng_predict(bad, eng_params(spec, 1), d$X, d$B, d$scaling), "unknown parameterization")
  expect_error(eng_predict(spec, eng_params(spec, 1), d$X, d$B, d$scaling, precision = "single"),
               "unknown precision")
})

# ---------------------------------------------------------------------------------------
# 1. Gradient against central finite differences, per parameter group
# ---------------------------------------------------------------------------------------

eng_fd_check <- function(spec, d, seed, h = 1e-5, rows0 = seq_len(nrow(d$B)) - 1L, noise = 0.3) {
  params <- eng_params(spec, seed, noise)
  # FD is valid only away from the clamp edges: check that first.
  R <- eng_heads_r(spec, params, d$X, d$scaling)
  margin <- 0.5
  expect_true(all(R$raw_v0 > spec$logvar_min + margin & R$raw_v0 < spec$logvar_max - margin))
  expect_true(all(R$raw_w > spec$logvar_min + margin & R$raw_w < spec$logvar_max - margin))
  obj <- eng_objective(spec, params, d$X, d$B, d$scaling, rows0)
  f <- function(th) eng_objective(spec, th, d$X, d$B, d$scaling, rows0)$loss
  fd <- vapply(seq_along(params), function(k) {
    e <- numeric(length(params))
    e[k] <- h
    (f(params + e) - f(params - e)) / (2 * h)
  }, numeric(1))
  groups <- eng_groups(eng_layout(spec))
  expect_length(obj$gradient, length(params))
  err <- abs(obj$gradient - fd) / pmax(1, abs(fd))
  worst <- tapply(err, groups, max)
  for (g in names(worst)) {
    expect_lt(worst[[g]], 1e-6, label = sprintf("max FD error of group '%s' (param %s, hidden %s, p %d)", g,
                                                spec$parameterization, paste(spec$hidden, collapse = ","),
                                                spec$n_covariates))
  }
  # Every group must carry some gradient (a group stuck at zero would pass trivially).
  for (g in unique(groups)) {
    expect_gt(max(abs(fd[groups == g])), 1e-8, label = sprintf("FD magnitude of group '%s'", g))
  }
  invisible(list(grad = obj$gradient, fd = fd, groups = groups))
}

test_that("gradient matches finite differences for every group (anchored, unanchored, no_bias)", {
  d <- eng_data(25, 2, 3, seed = 21)
  for (param in 0:2) {
    spec <- eng_spec(2, 3, c(5, 3), param, anchor = 1L, lambda_prior = 0.2, lambda_sensor = 0.07)
    eng_fd_check(spec, d, seed = 5 + param)
  }
})

test_that("gradient matches finite differences with no hidden layer and with no covariates", {
  d <- eng_data(25, 2, 3, seed = 22)
  for (param in 0:2) {
    eng_fd_check(eng_spec(2, 3, integer(0), param, lambda_prior = 0.2, lambda_sensor = 0.07), d, seed = 9)
  }
  d0 <- eng_data(25, 0, 3, seed = 23)
  expect_identical(dim(d0$X), c(25L, 0L))
  for (param in 0:2) {
    eng_fd_check(eng_spec(0, 3, integer(0), param, lambda_prior = 0.2, lambda_sensor = 0.07), d0, seed = 10)
    eng_fd_check(eng_spec(0, 3, 4L, param, lambda_prior = 0.2, lambda_sensor = 0.07), d0, seed = 12)
  }
})

test_that("gradient matches finite differences with sensors at other levels", {
  d <- eng_data(25, 2, 3, seed = 26)
  level <- list(gain = c(1000, 1, 0.05), offset = c(300, 0, -7))
  # The readings at those levels: sensor j reads g_j b' + o_j on the working scale.
  m <- d$scaling$b_shift
  k <- d$scaling$b_scale
  d$B <- sweep(sweep((d$B - m) / k, 2L, level$gain, `*`), 2L, level$offset, `+`) * k + m
  eng_fd_check(eng_spec(2, 3, c(5, 3), 0L, anchor = 1L, lambda_prior = 0.2, lambda_sensor = 0.07, sensor_level = level),
               d, seed = 13)
  level$gain[2] <- 4
  eng_fd_check(eng_spec(2, 3, 4L, 1L, lambda_prior = 0.2, lambda_sensor = 0.07, sensor_level = level), d, seed = 14)
})

test_that("gradient matches finite differences on a row subset with repeats", {
  d <- eng_data(25, 2, 3, seed = 24)
  spec <- eng_spec(2, 3, 4L, 1L)
  eng_fd_check(spec, d, seed = 4, rows0 = c(0L, 1L, 2L, 5L, 5L, 17L, 24L))
})

test_that("the clamp of log variances has zero gradient where active", {
  d <- eng_data(20, 2, 3, seed = 25)
  spec <- eng_spec(2, 3, 3L, 0L, lambda_prior = 0.2, lambda_sensor = 0.07)
  lay <- eng_layout(spec)
  params <- eng_params(spec, 3, noise = 0.1)
  pr_l2 <- lay$heads$prior
  rl_l2 <- lay$heads$reliability
  params[pr_l2$b_offset[2] + 2] <- 7       # v0 raw far above logvar_max for every row
  params[rl_l2$b_offset[2] + 3] <- -9      # w_3 raw far below logvar_min for every row
  R <- eng_heads_r(spec, params, d$X, d$scaling)
  expect_true(all(R$raw_v0 > spec$logvar_max) && all(R$raw_w[, 3] < spec$logvar_min))
  obj <- eng_objective(spec, params, d$X, d$B, d$scaling)
  # Output-layer bias and weights of the clamped outputs: exactly zero.
  idx_v0 <- c(pr_l2$b_offset[2] + 2, pr_l2$w_offset[2] + seq(2, by = 2, length.out = 3))
  idx_w3 <- c(rl_l2$b_offset[2] + 3, rl_l2$w_offset[2] + seq(3, by = 3, length.out = 3))
  expect_true(all(obj$gradient[c(idx_v0, idx_w3)] == 0))
  # And the loss is flat there (finite difference of the bias).
  f <- function(k, h) {
    e <- numeric(length(params)); e[k] <- h
    eng_objective(spec, params + e, d$X, d$B, d$scaling)$loss
  }
  expect_equal(f(idx_v0[1], 0.1), f(idx_v0[1], -0.1), tolerance = 1e-14)
  expect_equal(f(idx_w3[1], 0.1), f(idx_w3[1], -0.1), tolerance = 1e-14)
  # The loss uses the clamped value: v0 = logvar_max in the penalty.
  H <- eng_heads(eng_predict(spec, params, d$X, d$B, d$scaling))
  expect_true(all(H$v0 == spec$logvar_max) && all(H$w[, 3] == spec$logvar_min))
})

# ---------------------------------------------------------------------------------------
# 2. NLL against dense multivariate normal densities; loss and nll_sum
# ---------------------------------------------------------------------------------------

test_that("per-row NLL equals the dense multivariate normal computation", {
  # Case 3: anchored, with sensors at other levels (gains 1000, 0.05 and 4) and readings there.
  for (case in 0:3) {
    d <- eng_data(40, 2, 4, seed = 30 + case)
    level <- NULL
    if (case == 3L) {
      level <- list(gain = c(1000, 0.05, 1, 4), offset = c(300, -7, 0, 2))
      d$B <- sweep(sweep((d$B - 10) / 3, 2L, level$gain, `*`), 2L, level$offset, `+`) * 3 + 10
    }
    param <- c(0L, 1L, 2L, 0L)[case + 1L]
    spec <- eng_spec(2, 4, c(5, 3), param, anchor = 2L, sensor_level = level)
    params <- eng_params(spec, 31, noise = 0.5)
    pr <- eng_predict(spec, params, d$X, d$B, d$scaling)
    H <- eng_heads(pr)
    Bw <- (d$B - d$scaling$b_shift) / d$scaling$b_scale
    dense <- vapply(seq_len(nrow(Bw)), function(i) {
      eng_dense_nll(Bw[i, ], H$mu0[i], H$v0[i], H$w[i, ], H$a[i, ], H$c[i, ])
    }, numeric(1))
    expect_equal(pr$nll, dense, tolerance = 1e-10)
    expect_equal(pr$nll[2], 0)  # no readings: empty likelihood
    expect_equal(pr$n_observed, as.integer(rowSums(!is.na(d$B))))

    obj <- eng_objective(spec, params, d$X, d$B, d$scaling)
    expect_equal(obj$nll_sum, sum(dense), tolerance = 1e-10)
    # The penalty acts on each sensor's noise relative to its level.
    shift <- if (is.null(level)) rep(0, 4) else 2 * log(level$gain)
    pen <- spec$lambda_prior * H$v0^2 + spec$lambda_sensor * rowSums(sweep(H$w, 2L, shift)^2)
    expect_equal(obj$loss, mean(dense + pen), tolerance = 1e-10)
    # A subset of rows with a repeat.
    rows0 <- c(0L, 3L, 3L, 10L, 39L)
    obj2 <- eng_objective(spec, params, d$X, d$B, d$scaling, rows0)
    expect_equal(obj2$nll_sum, sum(dense[rows0 + 1L]), tolerance = 1e-10)
    expect_equal(obj2$loss, mean((dense + pen)[rows0 + 1L]), tolerance = 1e-10)
  }
})

# ---------------------------------------------------------------------------------------
# 3. Posterior against numerical integration over Theta
# ---------------------------------------------------------------------------------------

test_that("posterior mean, variance and marginal likelihood match numerical integration", {
  d <- eng_data(12, 2, 3, seed = 40)
  spec <- eng_spec(2, 3, 4L, 1L)
  params <- eng_params(spec, 41, noise = 0.5)
  pr <- eng_predict(spec, params, d$X, d$B, d$scaling)
  H <- eng_heads(pr)
  Bw <- (d$B - d$scaling$b_shift) / d$scaling$b_scale
  full <- which(rowSums(is.na(d$B)) == 0)[1]
  partial <- which(rowSums(is.na(d$B)) == 1)[1]
  rows <- c(2L, 3L, full, partial)  # none observed, one observed, all, one missing
  expect_false(anyNA(rows))
  expect_equal(pr$n_observed[rows[1:2]], c(0L, 1L))
  for (i in rows) {
    o <- which(!is.na(Bw[i, ]))
    s0 <- exp(H$v0[i] / 2)
    logf <- function(th) {
      out <- stats::dnorm(th, H$mu0[i], s0, log = TRUE)
      for (j in o) out <- out + stats::dnorm(Bw[i, j], H$a[i, j] * th + H$c[i, j], exp(H$w[i, j] / 2), log = TRUE)
      out
    }
    mode <- stats::optimize(logf, c(H$mu0[i] - 30 * s0, H$mu0[i] + 30 * s0), maximum = TRUE, tol = 1e-10)$maximum
    curv <- -(logf(mode + 1e-3) - 2 * logf(mode) + logf(mode - 1e-3)) / 1e-6
    sc <- 1 / sqrt(curv)
    lo <- mode - 30 * sc
    hi <- mode + 30 * sc
    m0 <- logf(mode)
    g <- function(th, k) th^k * exp(logf(th) - m0)
    I <- vapply(0:2, function(k) {
      stats::integrate(g, lo, hi, k = k, rel.tol = 1e-12, abs.tol = 0, subdivisions = 500L)$value
    }, numeric(1))
    mean_i <- I[2] / I[1]
    var_i <- I[3] / I[1] - mean_i^2
    expect_equal(pr$mean[i], mean_i, tolerance = 1e-8)
    expect_equal(pr$variance[i], var_i, tolerance = 1e-7)
    expect_equal(pr$nll[i], -(log(I[1]) + m0), tolerance = 1e-8)
  }
  # No readings: the posterior is the prior.
  expect_equal(pr$mean[2], H$mu0[2], tolerance = 1e-14)
  expect_equal(pr$variance[2], exp(H$v0[2]), tolerance = 1e-14)
})

# ---------------------------------------------------------------------------------------
# 4. Missing readings
# ---------------------------------------------------------------------------------------

test_that("a missing reading is marginalised out of the row's Gaussian", {
  d <- eng_data(5, 2, 3, seed = 50, na_frac = 0)
  spec <- eng_spec(2, 3, 3L, 1L)
  params <- eng_params(spec, 51, noise = 0.5)
  i <- 1L
  k <- 2L
  Bm <- d$B[i, , drop = FALSE]
  Bm[1, k] <- NA
  Xi <- d$X[i, , drop = FALSE]
  nll_missing <- eng_predict(spec, params, Xi, Bm, d$scaling)$nll
  # Integrate the engine's fully observed density over the missing reading (raw units; the
  # engine's NLL is in the working scale b' = (b - shift) / scale, so the density in raw
  # units carries a Jacobian 1 / b_scale for the integrated coordinate).
  dens <- function(t) {
    Bt <- matrix(rep(d$B[i, ], each = length(t)), length(t))
    Bt[, k] <- t
    Xt <- Xi[rep(1L, length(t)), , drop = FALSE]
    exp(-eng_predict(spec, params, Xt, Bt, d$scaling)$nll) / d$scaling$b_scale
  }
  ctr <- d$scaling$b_shift
  Z <- stats::integrate(dens, ctr - 200, ctr + 200, rel.tol = 1e-12, subdivisions = 1000L)$value
  expect_equal(nll_missing, -log(Z), tolerance = 1e-8)
  # Dense marginal: drop row/column k of the full covariance.
  H <- eng_heads(eng_predict(spec, params, Xi, d$B[i, , drop = FALSE], d$scaling))
  bw <- (d$B[i, ] - d$scaling$b_shift) / d$scaling$b_scale
  mu <- H$a[1, ] * H$mu0 + H$c[1, ]
  S <- exp(H$v0) * tcrossprod(H$a[1, ]) + diag(exp(H$w[1, ]))
  r <- (bw - mu)[-k]
  Sk <- S[-k, -k]
  dense <- 0.5 * (2 * log(2 * pi) + determinant(Sk)$modulus[[1]] + sum(r * solve(Sk, r)))
  expect_equal(nll_missing, dense, tolerance = 1e-10)
  # NaN behaves like NA.
  Bn <- Bm
  Bn[1, k] <- NaN
  expect_equal(eng_predict(spec, params, Xi, Bn, d$scaling)$nll, nll_missing, tolerance = 0)
})

test_that("a sensor missing everywhere gets no likelihood gradient (only the penalty's)", {
  d <- eng_data(30, 2, 3, seed = 52)
  d$B[, 3] <- NA
  spec <- eng_spec(2, 3, c(4, 3), 1L, lambda_prior = 0.1, lambda_sensor = 0.3)
  lay <- eng_layout(spec)
  params <- eng_params(spec, 53)
  obj <- eng_objective(spec, params, d$X, d$B, d$scaling)
  out_b <- lay$heads$bias$b_offset[3]
  out_w <- lay$heads$bias$w_offset[3]
  nf <- 3L
  # gain u_3 and offset c_3 outputs: bias and output-layer weight rows exactly zero.
  expect_identical(obj$gradient[out_b + c(3, nf + 3)], c(0, 0))
  expect_true(all(obj$gradient[out_w + c(seq(3, by = 2 * nf, length.out = 3),
                                         seq(nf + 3, by = 2 * nf, length.out = 3))] == 0))
  # log sigma_3^2 output bias: only the penalty, d/dw mean(ls * w^2) = 2 ls mean(w).
  H <- eng_heads(eng_predict(spec, params, d$X, d$B, d$scaling))
  expect_equal(obj$gradient[lay$heads$reliability$b_offset[3] + 3], 2 * spec$lambda_sensor * mean(H$w[, 3]),
               tolerance = 1e-12)
  # Changing sensor 3's head outputs does not change the NLL.
  p2 <- params
  p2[out_b + c(3, nf + 3)] <- p2[out_b + c(3, nf + 3)] + c(0.7, -1.1)
  expect_equal(eng_objective(spec, p2, d$X, d$B, d$scaling)$nll_sum, obj$nll_sum, tolerance = 1e-13)
})

# ---------------------------------------------------------------------------------------
# 5. Unanchored non-identifiability; anchored identifiability
# ---------------------------------------------------------------------------------------

test_that("an affine reparameterisation of Theta leaves the unanchored likelihood unchanged", {
  L <- 3L
  d <- eng_data(15, 0, L, seed = 60)
  spec <- eng_spec(0, L, integer(0), 1L)
  lay <- eng_layout(spec)
  expect_equal(lay$n_params, 2 + L + 2 * L)  # the heads are their output biases
  mu0 <- 0.3; v0 <- log(0.8^2)
  w <- c(-1.2, -0.5, 0.1)
  a <- c(0.9, 1.2, 0.7)
  cc <- c(0.1, -0.2, 0.4)
  pack <- function(mu0, v0, w, a, cc) c(mu0, v0, w, log(expm1(a)), cc)
  par1 <- pack(mu0, v0, w, a, cc)
  e <- 1.7; f <- -0.4
  par2 <- pack(e * mu0 + f, v0 + 2 * log(e), w, a / e, cc - a * f / e)
  pr1 <- eng_predict(spec, par1, d$X, d$B, d$scaling)
  pr2 <- eng_predict(spec, par2, d$X, d$B, d$scaling)
  H2 <- eng_heads(pr2)
  expect_equal(H2$a[1, ], a / e, tolerance = 1e-12)  # the softplus inverse was right
  expect_equal(pr2$nll, pr1$nll, tolerance = 1e-10)
  expect_equal(pr2$mean, e * pr1$mean + f, tolerance = 1e-10)
  expect_equal(pr2$variance, e^2 * pr1$variance, tolerance = 1e-10)
  o1 <- eng_objective(spec, par1, d$X, d$B, d$scaling)
  o2 <- eng_objective(spec, par2, d$X, d$B, d$scaling)
  expect_equal(o2$nll_sum, o1$nll_sum, tolerance = 1e-10)
  # The transformation is a real change: mu0 and the gains differ.
  expect_gt(abs(H2$mu0[1] - mu0), 0.1)

  # Anchored (anchor = sensor 1, a = 1, c = 0 fixed): the same transformation of the prior
  # and of the free sensors cannot move the anchor, so the likelihood changes.
  spec_a <- eng_spec(0, L, integer(0), 0L, anchor = 0L)
  pack_a <- function(mu0, v0, w, a, cc) c(mu0, v0, w, log(expm1(a[-1])), cc[-1])
  a1 <- c(1, a[-1]); c1 <- c(0, cc[-1])
  pa1 <- pack_a(mu0, v0, w, a1, c1)
  pa2 <- pack_a(e * mu0 + f, v0 + 2 * log(e), w, a1 / e, c1 - a1 * f / e)
  pra1 <- eng_predict(spec_a, pa1, d$X, d$B, d$scaling)
  pra2 <- eng_predict(spec_a, pa2, d$X, d$B, d$scaling)
  Ha <- eng_heads(pra2)
  expect_true(all(Ha$a[, 1] == 1 & Ha$c[, 1] == 0))
  expect_gt(abs(sum(pra2$nll) - sum(pra1$nll)), 1e-2)
  # ... and the anchored NLL agrees with the unanchored model whose sensor 1 has a = 1, c = 0.
  pu <- pack(mu0, v0, w, a1, c1)
  expect_equal(eng_predict(spec, pu, d$X, d$B, d$scaling)$nll, pra1$nll, tolerance = 1e-12)
})

# ---------------------------------------------------------------------------------------
# 6. float versus double
# ---------------------------------------------------------------------------------------

test_that("float and double precision agree", {
  d <- eng_data(300, 3, 4, seed = 70)
  for (param in 0:2) {
    spec <- eng_spec(3, 4, c(8, 8), param)
    params <- eng_params(spec, 71)
    od <- eng_objective(spec, params, d$X, d$B, d$scaling, precision = "double")
    of <- eng_objective(spec, params, d$X, d$B, d$scaling, precision = "float")
    expect_equal(of$loss, od$loss, tolerance = 1e-4)
    expect_equal(of$nll_sum, od$nll_sum, tolerance = 1e-4)
    cosine <- sum(od$gradient * of$gradient) / sqrt(sum(od$gradient^2) * sum(of$gradient^2))
    expect_gt(cosine, 0.9999)
    pd <- eng_predict(spec, params, d$X, d$B, d$scaling, precision = "double")
    pf <- eng_predict(spec, params, d$X, d$B, d$scaling, precision = "float")
    expect_equal(pf$mean, pd$mean, tolerance = 1e-4)
    expect_equal(pf$variance, pd$variance, tolerance = 1e-4)
  }
})

# ---------------------------------------------------------------------------------------
# 7. Thread-count invariance
# ---------------------------------------------------------------------------------------

test_that("results do not depend on the number of threads", {
  d <- eng_data(1000, 2, 3, seed = 80)  # 8 chunks of 128 rows
  spec <- eng_spec(2, 3, c(6, 4), 0L)
  params <- eng_params(spec, 81)
  withr::local_seed(82)
  rows0 <- sample.int(1000L, 900L, replace = TRUE) - 1L
  for (prec in c("double", "float")) {
    o1 <- eng_objective(spec, params, d$X, d$B, d$scaling, rows0, threads = 1L, precision = prec)
    o2 <- eng_objective(spec, params, d$X, d$B, d$scaling, rows0, threads = 2L, precision = prec)
    expect_identical(o2, o1)  # 3 threads: tests/cpp (CRAN allows R tests 2)
    p1 <- eng_predict(spec, params, d$X, d$B, d$scaling, threads = 1L, precision = prec)
    p2 <- eng_predict(spec, params, d$X, d$B, d$scaling, threads = 2L, precision = prec)
    expect_identical(p2, p1)
  }
})

test_that("columns given as a list are read in place and give the matrix results", {
  d <- eng_data(300, 2, 3, seed = 83)
  spec <- eng_spec(2, 3, c(6, 4), 0L)
  params <- eng_params(spec, 84)
  as_cols <- function(m) lapply(seq_len(ncol(m)), function(k) m[, k])
  for (prec in c("double", "float")) {
    expect_identical(eng_predict(spec, params, as_cols(d$X), as_cols(d$B), d$scaling, precision = prec),
                     eng_predict(spec, params, d$X, d$B, d$scaling, precision = prec))
  }
  # Shapes that do not match the model are errors, not out-of-bounds reads.
  predict_raw <- function(x, b) ncam:::ncam_predict_cpp(spec, params, x, b, d$scaling, 1L, "double", "posterior", FALSE)
  expect_error(predict_raw(d$X[, 1, drop = FALSE], d$B), "covariate columns")
  expect_error(predict_raw(d$X, d$B[, 1:2]), "sensor columns")
  expect_error(predict_raw(d$X[1:10, ], d$B), "rows")
  expect_error(predict_raw(as_cols(d$X), list(d$B[, 1], d$B[1:5, 2], d$B[, 3])), "wrong length")
  expect_error(predict_raw(list(d$X[, 1], as.integer(d$X[, 2])), d$B), "not a double vector")
  expect_error(predict_raw("x", d$B), "double matrix or a list")
})

# ---------------------------------------------------------------------------------------
# 8. Initialisation
# ---------------------------------------------------------------------------------------

test_that("initialisation follows PyTorch bounds and starts at mu0 = 0, a = 1, c = 0", {
  cases <- list(eng_spec(3, 4, c(6, 5), 0L, anchor = 2L), eng_spec(3, 4, c(6, 5), 1L),
                eng_spec(3, 4, c(6, 5), 2L), eng_spec(2, 3, integer(0), 1L))
  for (spec in cases) {
    lay <- eng_layout(spec)
    p1 <- ncam:::ncam_init_params_cpp(spec, 123)
    expect_identical(ncam:::ncam_init_params_cpp(spec, 123), p1)
    p2 <- ncam:::ncam_init_params_cpp(spec, 124)
    expect_false(isTRUE(all.equal(p1, p2)))
    for (nm in names(lay$heads)) {
      h <- lay$heads[[nm]]
      nl <- length(h$w_offset)
      for (l in seq_len(nl)) {
        bound <- 1 / sqrt(h$widths[l])
        W <- p1[h$w_offset[l] + seq_len(h$widths[l + 1] * h$widths[l])]
        b <- p1[h$b_offset[l] + seq_len(h$widths[l + 1])]
        expect_true(all(abs(W) <= bound))
        # Not degenerate: the weights fill a good part of the interval.
        expect_gt(max(abs(W)), bound / 4)
        if (l < nl) expect_true(all(abs(b) <= bound))
      }
      out_b <- p1[h$b_offset[nl] + seq_len(h$widths[nl + 1])]
      bound <- 1 / sqrt(h$widths[nl])
      if (nm == "prior") {
        expect_identical(out_b[1], 0)
        expect_true(abs(out_b[2]) <= bound)
      } else if (nm == "reliability") {
        expect_true(all(abs(out_b) <= bound))
      } else {
        nf <- lay$n_free
        expect_equal(out_b[seq_len(nf)], rep(log(exp(1) - 1), nf), tolerance = 1e-15)
        expect_identical(out_b[nf + seq_len(nf)], rep(0, nf))
      }
    }
  }
  # Intercept-only model: everything but the output biases is empty; gains start at a = 1.
  spec <- eng_spec(0, 3, integer(0), 1L)
  p0 <- ncam:::ncam_init_params_cpp(spec, 5)
  H <- eng_heads(eng_predict(spec, p0, matrix(0, 2, 0), matrix(1, 2, 3), eng_scaling(0)))
  expect_equal(H$a, matrix(1, 2, 3), tolerance = 1e-15)
  expect_equal(H$c, matrix(0, 2, 3))
  expect_equal(H$mu0, c(0, 0))
})
