test_that("anchored NCAM beats every raw sensor on the toy data and recovers the reliability order", {
  toy <- simulate_toy(n = 8000, seed = 11)
  is_test <- seq_len(nrow(toy)) > 6000
  fit <- ncam(toy_formula, data = toy[!is_test, ], anchor = "sensor_0", hidden = c(32L, 32L, 32L),
              epochs = 150L, seed = 2, threads = 2)
  pred <- predict(fit, toy[is_test, ])
  rmse <- function(e) sqrt(mean(e^2))
  truth <- toy$truth[is_test]
  ncam_rmse <- rmse(pred$.pred - truth)
  raw_rmse <- vapply(fit$sensors, function(s) rmse(toy[[s]][is_test] - truth), numeric(1))
  expect_lt(ncam_rmse, min(raw_rmse))
  # Relative improvement over the best raw sensor, not only a win by a hair.
  expect_lt(ncam_rmse, 0.9 * min(raw_rmse))
  sigma <- summary(fit)$sensors$sigma
  expect_true(sigma[1] < sigma[2] && sigma[2] < sigma[3])
  # The anchor is fixed at a = 1, c = 0; the others are free and positive.
  sp <- sensor_params(fit, toy[1:50, ])
  expect_true(all(sp$a[sp$sensor == "sensor_0"] == 1) && all(sp$c[sp$sensor == "sensor_0"] == 0))
  expect_true(all(sp$a > 0))
})

test_that("with ~ 1 and no hidden layer the fit is the one-factor model's MLE (moments reproduced)", {
  # Three indicators, one marker: just identified, so the MLE reproduces the sample mean and
  # covariance exactly. This checks the whole training pipeline against closed-form moments.
  set.seed(5)
  n <- 4000
  theta <- rnorm(n, 10, 3)
  d <- data.frame(s1 = theta + rnorm(n, 0, 1), s2 = 2 + 1.5 * theta + rnorm(n, 0, 2),
                  s3 = -1 + 0.7 * theta + rnorm(n, 0, 1.5))
  fit <- ncam(s1 + s2 + s3 ~ 1, data = d, hidden = integer(0), epochs = 400L, learn_rate = 0.02,
              batch_size = 500L, validation = 0, stop_iter = 0L, lambda_var = 0, seed = 1, threads = 1,
              control = ncam_control(precision = "double"))
  post <- ncam:::ncam_posterior(fit, d[1, ])
  a <- post$a[1, ]
  implied_cov <- post$s0_2[1] * tcrossprod(a) + diag(post$sigma2[1, ])
  implied_mean <- a * post$mu0[1] + post$c[1, ]
  b <- as.matrix(d)
  sample_cov <- crossprod(sweep(b, 2, colMeans(b))) / n
  expect_equal(unname(implied_mean), unname(colMeans(b)), tolerance = 1e-3)
  expect_equal(unname(implied_cov), unname(sample_cov), tolerance = 1e-2)
  expect_equal(unname(a), c(1, 1.5, 0.7), tolerance = 0.05)
})

test_that("logLik is the marginal likelihood of the readings in their original units", {
  toy <- simulate_toy(n = 300, seed = 3)
  toy$sensor_1[c(2, 7)] <- NA
  fit <- quick_fit(toy)
  post <- ncam:::ncam_posterior(fit, toy)
  b <- as.matrix(toy[fit$sensors])
  dense <- vapply(seq_len(nrow(b)), function(i) {
    o <- !is.na(b[i, ])
    a <- post$a[i, o]
    mean <- a * post$mu0[i] + post$c[i, o]
    cov <- post$s0_2[i] * tcrossprod(a) + diag(post$sigma2[i, o], sum(o))
    r <- b[i, o] - mean
    -0.5 * (sum(o) * log(2 * pi) + determinant(cov)$modulus + drop(r %*% solve(cov, r)))
  }, numeric(1))
  ll <- logLik(fit)
  expect_equal(as.numeric(ll), sum(dense), tolerance = 1e-6)
  expect_equal(attr(ll, "df"), length(fit$params))
  expect_equal(nobs(fit), nrow(toy))
  expect_equal(AIC(fit), -2 * sum(dense) + 2 * length(fit$params), tolerance = 1e-6)
})

test_that("the same seed gives identical fits; thread count does not change results", {
  toy <- simulate_toy(n = 1500, seed = 4)
  fit_a <- quick_fit(toy, threads = 1L)
  fit_b <- quick_fit(toy, threads = 1L)
  fit_c <- quick_fit(toy, threads = 2L)
  expect_identical(fit_a$params, fit_b$params)
  expect_identical(fit_a$params, fit_c$params)
  expect_identical(predict(fit_a, toy, threads = 1), predict(fit_c, toy, threads = 2))
  fit_d <- quick_fit(toy, seed = 2L)
  expect_false(identical(fit_a$params, fit_d$params))
  # Long enough for the thread chooser to time both counts and switch between them mid-fit.
  toy_big <- simulate_toy(n = 8000, seed = 4)
  fits <- lapply(list(list(1L, TRUE), list(2L, TRUE), list(2L, FALSE)), function(setting) {
    quick_fit(toy_big, hidden = c(32L, 32L), epochs = 8L, threads = setting[[1]],
              control = ncam_control(adapt_threads = setting[[2]]))$params
  })
  expect_identical(fits[[2]], fits[[1]])
  expect_identical(fits[[3]], fits[[1]])
})

test_that("a seed gives the same fit and data whatever R's generator kind, and the kind is kept", {
  toy <- simulate_toy(n = 1500, seed = 4)
  fit_default <- quick_fit(toy, epochs = 2L)
  withr::local_seed(1, .rng_kind = "L'Ecuyer-CMRG")
  expect_identical(simulate_toy(n = 1500, seed = 4), toy)
  expect_identical(quick_fit(toy, epochs = 2L)$params, fit_default$params)
  expect_identical(RNGkind()[1], "L'Ecuyer-CMRG")
})

test_that("seed = NULL follows set.seed()", {
  toy <- simulate_toy(n = 500, seed = 4)
  set.seed(42)
  fit_a <- quick_fit(toy, seed = NULL, epochs = 2L)
  set.seed(42)
  fit_b <- quick_fit(toy, seed = NULL, epochs = 2L)
  expect_identical(fit_a$params, fit_b$params)
})

test_that("update() of a fit made with seed = NULL refits the same model; seed = NULL draws anew", {
  toy <- simulate_toy(n = 300, seed = 4)
  set.seed(7)
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, anchor = "sensor_0", hidden = 4L,
                        epochs = 3L, threads = 1L))
  expect_identical(fit$call$seed, fit$settings$seed)
  expect_output(print(fit), paste0("seed: ", fit$settings$seed), fixed = TRUE)
  set.seed(8)  # update() must not depend on R's stream any more
  refit <- short_fit(update(fit))
  expect_identical(refit$params, fit$params)
  redrawn <- short_fit(update(fit, seed = NULL))
  expect_false(identical(redrawn$settings$seed, fit$settings$seed))
  expect_false(identical(redrawn$params, fit$params))
  # A seed given stays in the call as written; one given by an expression, as its value (the
  # loop's variable would have another value, or none, at the update).
  expect_identical(short_fit(update(fit, seed = 5))$call$seed, 5)
  fits <- list()
  for (i in 1:2) fits[[i]] <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, hidden = 4L,
                                             epochs = 3L, seed = i + 10L, threads = 1L))
  expect_identical(fits[[1]]$call$seed, 11L)
  i <- 99L
  expect_identical(short_fit(update(fits[[1]]))$params, fits[[1]]$params)
  via_dots <- function(...) ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, hidden = 4L, epochs = 3L,
                                 threads = 1L, ...)
  expect_identical(short_fit(via_dots(seed = 12L))$call$seed, 12L)
  # A call that does not name its data (do.call(), ncam_by() groups) asks for it
  by_call <- short_fit(do.call(ncam, list(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, hidden = 4L, epochs = 3L,
                                          seed = 2, threads = 1)))
  expect_error(update(by_call, epochs = 4L), "names its data `data`, which is not a data frame here.*update\\(fit, data =")
  expect_identical(short_fit(update(by_call, data = toy))$params, by_call$params)
  expect_identical(update(fit, epochs = 9L, evaluate = FALSE)$epochs, 9L)
})

test_that("update() refits the model fitted, not what the names of its call hold by then", {
  toy <- simulate_toy(n = 300, seed = 4)
  formulas <- list(sensor_0 + sensor_1 + sensor_2 ~ x1, sensor_0 + sensor_1 + sensor_2 ~ x1 + x2)
  f <- formulas[[1]]
  h <- 4L
  fits <- list()
  for (i in 1:2) {
    fits[[i]] <- short_fit(ncam(formulas[[i]], data = toy, hidden = h, epochs = 3L, seed = 1L, threads = 1L))
  }
  by_name <- short_fit(ncam(f, data = toy, hidden = h, epochs = 3L, seed = 1L, threads = 1L))
  f <- formulas[[2]]
  h <- 8L
  refit <- short_fit(update(fits[[1]]))
  expect_identical(refit$covariates, "x1")
  expect_identical(refit$params, fits[[1]]$params)
  expect_identical(short_fit(update(by_name))$params, by_name$params)
  expect_equal(by_name$call$formula, sensor_0 + sensor_1 + sensor_2 ~ x1, ignore_formula_env = TRUE)
  expect_identical(by_name$call$hidden, 4L)
  # Written out, they stay as written; given to update(), the new values are used.
  written <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, hidden = c(4L, 4L), epochs = 3L, seed = 1L,
                            threads = 1L, control = ncam_control(precision = "double")))
  expect_identical(written$call$hidden, quote(c(4L, 4L)))
  expect_identical(written$call$control, quote(ncam_control(precision = "double")))
  expect_identical(short_fit(update(fits[[1]], hidden = h))$hidden, 8L)
})

test_that("update() without data warns when the call's data is no longer the fit's, saying what changed", {
  toy <- simulate_toy(n = 300, seed = 4)
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, anchor = "sensor_0", hidden = 4L,
                        epochs = 3L, seed = 1, threads = 1L))
  expect_no_warning(short_fit(update(fit, epochs = 4L)), class = "ncam_warning_update_data_changed")
  original <- toy
  # Another `toy`, as in a later session: the refit uses it, and says so.
  toy <- simulate_toy(n = 120, seed = 9)
  flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
  warned <- expect_warning(refit <- short_fit(update(fit)), class = "ncam_warning_update_data_changed")
  expect_match(flat(warned), "`toy` is not the data `object` was fitted to: it has 120 rows, the fit had 300.", fixed = TRUE)
  expect_match(flat(warned), "The refit uses `toy` as it is now", fixed = TRUE)
  expect_identical(refit$n_rows, 120L)
  toy <- within(original, x1[7] <- x1[7] + 0.5)
  warned <- expect_warning(short_fit(update(fit)), class = "ncam_warning_update_data_changed")
  expect_match(flat(warned), "`toy` is not the data `object` was fitted to: values of x1 differ.", fixed = TRUE)
  # Data given anew is meant: no warning, and the refit is on it.
  expect_no_warning(given <- short_fit(update(fit, data = toy)), class = "ncam_warning_update_data_changed")
  direct <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, anchor = "sensor_0", hidden = 4L,
                           epochs = 3L, seed = 1, threads = 1L))
  expect_identical(given$params, direct$params)
})

test_that("update() without data, where the call's data cannot be evaluated, asks for it as fitted() does", {
  toy <- simulate_toy(n = 400, seed = 4)
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy[1:300, ], anchor = "sensor_0", hidden = 4L,
                        epochs = 3L, seed = 1, threads = 1L))
  rm(toy)  # as in a session that read the fit back with readRDS()
  flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
  err <- expect_error(update(fit, epochs = 4L), class = "ncam_error")
  expect_match(flat(err), "Cannot find `toy[1:300, ]`, the data `object` was fitted to, to fit it again.", fixed = TRUE)
  expect_match(flat(err), "object 'toy' not found", fixed = TRUE)
  expect_match(flat(err), "A fit keeps no copy of its data: pass it as `data`, `update(object, data = <the rows it was fitted to>)`", fixed = TRUE)
  expect_identical(deparse(err$call[[1]]), "update")
  # With the data given, the refit is made.
  again <- simulate_toy(n = 400, seed = 4)
  expect_identical(short_fit(update(fit, data = again[1:300, ]))$params, fit$params)
})

test_that("update() evaluates the call's data once, and the refit keeps the call as written", {
  toy <- simulate_toy(n = 300, seed = 4)
  evaluations <- 0
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = {evaluations <- evaluations + 1; toy},
                        anchor = "sensor_0", hidden = 4L, epochs = 3L, seed = 1, threads = 1L))
  expect_identical(evaluations, 1)
  refit <- short_fit(update(fit))
  expect_identical(evaluations, 2)
  # The same data and seed: the same fit, call included.
  expect_identical(refit, fit)
  expect_output(print(summary(refit)), "evaluations <- evaluations + 1", fixed = TRUE)
  # Other data under the same expression: one evaluation still, which the warning and the refit share.
  toy <- simulate_toy(n = 120, seed = 9)
  warned <- expect_warning(refit <- short_fit(update(fit, epochs = 4L)), class = "ncam_warning_update_data_changed")
  expect_identical(evaluations, 3)
  expect_match(gsub("\\s+", " ", conditionMessage(warned)), "it has 120 rows, the fit had 300", fixed = TRUE)
  expect_identical(refit$n_rows, 120L)
  expect_identical(refit$call$data, fit$call$data)
  # New data given to update() is evaluated once too, and kept in the call as written.
  refit <- short_fit(update(fit, data = {evaluations <- evaluations + 1; toy[1:100, ]}))
  expect_identical(evaluations, 4)
  expect_identical(refit$n_rows, 100L)
  expect_identical(deparse(refit$call$data), deparse(quote({evaluations <- evaluations + 1; toy[1:100, ]})))
})

test_that("update() of a fit made inside a function, on an expression of its local data", {
  toy <- simulate_toy(n = 300, seed = 4)
  refit_inside <- function(d) {
    fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = subset(d, x1 > 0), anchor = "sensor_0",
                          hidden = 4L, epochs = 3L, seed = 1, threads = 1L))
    same <- short_fit(update(fit))
    same_fitted <- fitted(same)  # found again from the call, in this frame
    d$x1 <- d$x1 - 0.1
    expect_warning(changed <- short_fit(update(fit)), class = "ncam_warning_update_data_changed")
    list(fit = fit, same = same, changed = changed, fitted = same_fitted, rows = sum(d$x1 > 0))
  }
  made <- refit_inside(toy)
  expect_identical(made$same, made$fit)
  expect_identical(made$same$call$data, quote(subset(d, x1 > 0)))
  expect_length(made$fitted, sum(toy$x1 > 0))
  expect_identical(made$changed$n_rows, made$rows)
  expect_identical(made$changed$call$data, quote(subset(d, x1 > 0)))
})

test_that("the fitted object survives saveRDS()", {
  toy <- simulate_toy(n = 500, seed = 5)
  fit <- quick_fit(toy)
  f <- withr::local_tempfile(fileext = ".rds")
  saveRDS(fit, f)
  back <- readRDS(f)
  expect_identical(predict(back, toy), predict(fit, toy))
  expect_false(any(vapply(unlist(back, recursive = TRUE), typeof, "") == "externalptr"))
})

test_that("multiplying every sensor by 1000 multiplies .pred and .pred_sd by 1000", {
  toy <- simulate_toy(n = 1000, seed = 6)
  scaled <- toy
  scaled[c("sensor_0", "sensor_1", "sensor_2")] <- 1000 * toy[c("sensor_0", "sensor_1", "sensor_2")]
  fit <- quick_fit(toy, epochs = 10L)
  fit_scaled <- quick_fit(scaled, epochs = 10L)
  p <- predict(fit, toy)
  p_scaled <- predict(fit_scaled, scaled)
  expect_equal(p_scaled$.pred, 1000 * p$.pred, tolerance = 1e-4)
  expect_equal(p_scaled$.pred_sd, 1000 * p$.pred_sd, tolerance = 1e-4)
  expect_equal(as.numeric(logLik(fit_scaled)), as.numeric(logLik(fit)) - 3 * nrow(toy) * log(1000),
               tolerance = 1e-4)
})

test_that("early stopping keeps the best epoch's weights and records the history", {
  toy <- simulate_toy(n = 1000, seed = 7)
  fit <- quick_fit(toy, epochs = 40L, stop_iter = 3L, learn_rate = 0.05)
  h <- fit$history
  expect_equal(nrow(h), fit$epochs_run)
  expect_equal(fit$best_epoch, which.min(h$validation_criterion))
  if (fit$stopped_early) expect_equal(fit$epochs_run, fit$best_epoch + 3L)
  # The criterion caps rows' NLL: never above the plain validation NLL.
  expect_true(all(is.finite(h$validation_criterion)) && all(h$validation_criterion <= h$validation_nll + 1e-12))
  # The kept weights reproduce the best epoch's validation NLL.
  expect_true(all(is.finite(h$train_nll)))
})

test_that("without validation rows every epoch runs and the lowest training NLL picks the weights", {
  # Review 27: validation = 0 stopped after stop_iter epochs without a lower training NLL,
  # though the help and the warning say it trains without early stopping.
  toy <- simulate_toy(n = 1000, seed = 7)
  for (validation in c(0, 0.0001)) {
    fit <- suppressWarnings(quick_fit(toy, epochs = 40L, stop_iter = 2L, learn_rate = 0.05, validation = validation),
                            classes = "ncam_warning_no_validation_rows")
    expect_identical(fit$epochs_run, 40L)
    expect_false(fit$stopped_early)
    expect_identical(nrow(fit$history), 40L)
    expect_equal(fit$best_epoch, which.min(fit$history$train_nll))
  }
})

test_that("parameterizations: unanchored frees every sensor, no_bias fixes them all", {
  toy <- simulate_toy(n = 800, seed = 8)
  un <- quick_fit(toy, anchor = NULL, parameterization = "unanchored")
  nb <- quick_fit(toy, anchor = NULL, parameterization = "no_bias")
  expect_null(un$anchor)
  expect_null(coef(nb)$bias)
  expect_equal(ncol(coef(un)$bias[[length(coef(un)$bias)]]$weight), 8L)
  expect_equal(nrow(coef(un)$bias[[length(coef(un)$bias)]]$weight), 6L)
  sp <- sensor_params(nb, toy[1:20, ])
  expect_true(all(sp$a == 1) && all(sp$c == 0))
  expect_equal(length(coef(quick_fit(toy))$bias$layer3$bias), 4L)
})

test_that("transform = 'log' models log readings and maps predictions back", {
  set.seed(9)
  n <- 1500
  theta <- rnorm(n, 2, 0.5)
  d <- data.frame(a = exp(theta + rnorm(n, 0, 0.1)), b = exp(0.2 + theta + rnorm(n, 0, 0.2)),
                  rh = runif(n))
  # Two sensors without a reference: fine for checking the transform, though not identified.
  fit <- short_fit(ncam(a + b ~ rh, data = d, hidden = 4L, epochs = 30L, transform = "log", seed = 1, threads = 1),
                   also = "ncam_warning_two_sensors")
  pred <- predict(fit, d, interval = "credible")
  post <- ncam:::ncam_posterior(fit, d)
  expect_equal(pred$.pred, exp(post$mu))
  expect_true(all(pred$.pred_lower < pred$.pred & pred$.pred < pred$.pred_upper))
  expect_equal(pred$.pred_sd, sqrt(expm1(post$var_pred) * exp(2 * post$mu + post$var_pred)))
  expect_gt(cor(log(pred$.pred), theta), 0.9)
})

test_that("a log fit's likelihood is that of the readings as given: the log readings' less their Jacobian", {
  set.seed(9)
  n <- 400
  theta <- rnorm(n, 2, 0.5)
  d <- data.frame(a = exp(theta + rnorm(n, 0, 0.1)), b = exp(0.2 + theta + rnorm(n, 0, 0.2)),
                  c = exp(theta - 0.1 + rnorm(n, 0, 0.15)), rh = runif(n))
  d$a[c(3, 40)] <- NA
  d$b[c(3, 77)] <- NA
  fit <- short_fit(ncam(a + b + c ~ rh, data = d, hidden = 4L, epochs = 3L, transform = "log", seed = 1, threads = 1,
                        control = ncam_control(precision = "double")))
  readings <- d[c("a", "b", "c")]
  nll_of_logs <- ncam:::ncam_predict_cpp(fit$spec, fit$params, list(rh = d$rh), lapply(readings, log), fit$scaling,
                                         1L, "double", "posterior", FALSE)$nll
  # The density of a reading b is that of log b times 1 / b: each row's NLL gains the sum of
  # the log readings it has.
  expect_equal(as.numeric(logLik(fit)), -(sum(nll_of_logs) + sum(log(unlist(readings)), na.rm = TRUE)), tolerance = 1e-10)
})

test_that("factor and character covariates are one-hot encoded", {
  toy <- simulate_toy(n = 600, seed = 10)
  toy$site <- rep(c("north", "south", "east"), length.out = nrow(toy))
  toy$season <- factor(rep(c("summer", "winter"), length.out = nrow(toy)))
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + site + season, data = toy, hidden = 4L,
                        epochs = 2L, seed = 1, threads = 1))
  expect_setequal(fit$covariates, c("x1", "siteeast", "sitenorth", "sitesouth", "seasonsummer", "seasonwinter"))
  expect_equal(nrow(predict(fit, toy[c(3, 1), ])), 2L)
})

test_that("missing covariates in training rows are left out with a warning", {
  toy <- simulate_toy(n = 500, seed = 12)
  toy$x1[c(5, 9)] <- NA
  expect_warning(fit <- quick_fit(toy), "2 rows with a missing covariate")
  expect_equal(fit$n_train + fit$n_validation, 498L)
  expect_warning(pred <- predict(fit, toy), "2 of 500 rows have a missing covariate")
  expect_equal(nrow(pred), 500L)
  expect_true(all(is.na(pred$.pred[c(5, 9)])) && !anyNA(pred$.pred[-c(5, 9)]))
})

test_that("bad input gives clear errors", {
  toy <- simulate_toy(n = 200, seed = 13)
  expect_snapshot(error = TRUE, ncam(toy_formula, data = as.matrix(toy)))
  expect_snapshot(error = TRUE, ncam(sensor_0 + sensor_9 ~ x1, data = toy))
  expect_snapshot(error = TRUE, ncam(sensor_0 + sensor_1 ~ x1 + humidity, data = toy))
  bad <- toy
  bad$sensor_1 <- as.character(bad$sensor_1)
  expect_snapshot(error = TRUE, ncam(sensor_0 + sensor_1 ~ x1, data = bad))
  expect_snapshot(error = TRUE, ncam(sensor_0 ~ x1, data = toy))
  expect_snapshot(error = TRUE, ncam(sensor_0 + sensor_1 ~ x1, data = toy, anchor = "sensor_2"))
  bad <- toy
  bad$sensor_1 <- NA_real_
  expect_snapshot(error = TRUE, ncam(sensor_0 + sensor_1 ~ x1, data = bad))
  bad <- toy
  bad$sensor_0[c(3, 8)] <- Inf
  expect_snapshot(error = TRUE, ncam(sensor_0 + sensor_1 ~ x1, data = bad))
  bad <- toy
  bad$x1[4] <- -Inf
  expect_snapshot(error = TRUE, ncam(sensor_0 + sensor_1 ~ x1, data = bad))
  bad <- toy
  bad$x2 <- 1
  expect_snapshot(fit <- ncam(sensor_0 + sensor_1 ~ x1 + x2, data = bad, hidden = 2L, epochs = 1L, seed = 1,
                              threads = 1))
  expect_equal(fit$covariates, "x1")
  expect_snapshot(error = TRUE, ncam(toy_formula, data = toy, epochs = 0))
  expect_snapshot(error = TRUE, ncam(toy_formula, data = toy, learn_rate = -1))
  expect_snapshot(error = TRUE, ncam(toy_formula, data = toy, batch_size = 2.5))
  expect_snapshot(error = TRUE, ncam(toy_formula, data = toy, threads = 0))
  expect_snapshot(error = TRUE, ncam(toy_formula, data = toy, hidden = c(8, -1)))
  expect_snapshot(error = TRUE, ncam(toy_formula, data = toy, validation = 1.5))
  expect_snapshot(error = TRUE, ncam(log(sensor_0) + sensor_1 ~ x1, data = toy))
  bad <- toy
  bad$sensor_0[2] <- 0
  expect_snapshot(error = TRUE, ncam(sensor_0 + sensor_1 ~ x1, data = bad, transform = "log"))
})

test_that("a reading that would overflow the likelihood is refused before training, saying what to change", {
  toy <- simulate_toy(n = 300, seed = 14)
  toy$sensor_1[1] <- 1e300
  expect_error(ncam(toy_formula, data = toy, hidden = 4L, epochs = 3L, seed = 1, threads = 1),
               "sensor_1.*too large.*power of ten")
})

test_that("covariates that would become one dummy per row, and stray anchors, are refused", {
  toy <- simulate_toy(n = 300, seed = 27)
  toy$stamp <- format(as.POSIXct("2024-01-01", tz = "UTC") + 3600 * seq_len(300))
  expect_error(quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + stamp),
               "dates or times stored as text")
  toy$day <- factor(as.Date("2024-01-01") + seq_len(300) %/% 2)  # 151 dates as a factor
  expect_error(quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + day),
               "dates or times stored as text")
  toy$id <- sprintf("unit-%03d", seq_len(300))
  expect_error(quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + id),
               "300 distinct values in 300 rows")
  # A factor with an NA level (addNA()) fitted, then every predict() failed on its column.
  toy$site <- addNA(factor(rep(c("a", "b", NA), 100)))
  expect_error(quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + site),
               "site.*factor with `NA` as a level.*named level")
  toy$kit <- I(as.list(seq_len(300)))
  expect_error(quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ .), "kit.*list column")
  expect_error(quick_fit(toy, anchor = "sensor_1", parameterization = "unanchored"),
               "applies to .*anchored.* only")
})

test_that("a formula takes settings from its environment, as lm() does, and covariates from the data only", {
  toy <- simulate_toy(n = 300, seed = 29)
  k <- 2
  w <- 10
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ poly(x1, k) + I(x2 * w), data = toy,
                        hidden = 4L, epochs = 2L, seed = 1, threads = 1))
  literal <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ poly(x1, 2) + I(x2 * 10), data = toy,
                            hidden = 4L, epochs = 2L, seed = 1, threads = 1))
  expect_identical(fit$params, literal$params)
  expect_identical(predict(fit, toy), predict(literal, toy))
  # The fit's k, not a column of newdata that happens to have its name.
  expect_identical(predict(fit, transform(toy, k = 5)), predict(fit, toy))
  # One value per row is a covariate, which lm() would take from the session: refused.
  per_row <- toy$x3
  expect_error(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + log(abs(per_row)), data = toy),
               "per_row.*is not a column of `data` but an object of the formula's environment with one value per row")
  # A term on its own is a covariate: a column, whatever the environment holds.
  expect_error(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + k, data = toy), "names column not found in the data: \"k\"")
  expect_error(ncam(sensor_0 + sensor_1 + sensor_2 ~ poly(x1, not_here), data = toy), "not found in the data: \"not_here\"")
})

test_that("sensor_params() without newdata uses the data the model was fitted to", {
  toy <- simulate_toy(n = 300, seed = 28)
  fit <- quick_fit(toy)
  expect_identical(sensor_params(fit), sensor_params(fit, toy))
})

test_that("a varying covariate beyond double precision's range is refused, never dropped as constant", {
  toy <- simulate_toy(n = 400, seed = 3)
  big <- toy
  big$x1[7] <- 1e200
  expect_error(quick_fit(big), "Covariate x1 has a value as large as 1e+200 in row 7", fixed = TRUE)
  # Inside a transformation (the model-matrix path) the design column is named.
  expect_error(quick_fit(big, formula = sensor_0 + sensor_1 + sensor_2 ~ I(x1/2) + x2),
               "Covariate I(x1/2) has a value as large as 5e+199 in row 7", fixed = TRUE)
  tiny <- toy
  tiny$x1 <- tiny$x1 * 1e-200
  expect_error(quick_fit(tiny), "Covariate x1 varies by only", fixed = TRUE)
  # Within the range, a covariate's units do not matter: it is standardised.
  fit <- quick_fit(toy)
  for (k in c(1e-140, 1e140)) {
    scaled <- toy
    scaled$x1 <- scaled$x1 * k
    fit_k <- quick_fit(scaled)
    expect_identical(fit_k$covariates, fit$covariates)
    expect_equal(predict(fit_k, scaled)$.pred, predict(fit, toy)$.pred, tolerance = 1e-6)
  }
})

test_that("64-bit integer covariates are read by value in every kind of formula", {
  skip_if_not_installed("bit64")
  toy <- simulate_toy(n = 400, seed = 3)
  toy$site <- rep(c("a", "b"), 200)
  toy$count <- round(toy$x1 * 100)
  as64 <- toy
  as64$count <- bit64::as.integer64(toy$count)
  formulas <- list(sensor_0 + sensor_1 + sensor_2 ~ count + site, sensor_0 + sensor_1 + sensor_2 ~ I(count^2) + x2,
                   sensor_0 + sensor_1 + sensor_2 ~ count:x2)
  for (f in formulas) {
    as_double <- quick_fit(toy, formula = f)
    fit <- quick_fit(as64, formula = f)
    expect_identical(fit$covariates, as_double$covariates)
    expect_identical(fit$params, as_double$params)
    # And in new data.
    expect_equal(predict(as_double, as64), predict(as_double, toy))
  }
})

test_that("matrix and data-frame columns, and offset() terms, are refused, naming them", {
  toy <- simulate_toy(n = 400, seed = 3)
  with_matrix <- toy
  with_matrix$m <- I(matrix(rnorm(800), 400))
  expect_error(quick_fit(with_matrix, formula = sensor_0 + sensor_1 + sensor_2 ~ m + x1),
               "Covariate m is a matrix with 2 columns", fixed = TRUE)
  with_matrix$sensor_1 <- I(cbind(toy$sensor_1, toy$sensor_1 + 1))
  expect_error(quick_fit(with_matrix, formula = sensor_0 + sensor_1 + sensor_2 ~ x1),
               "Sensor column sensor_1 is a matrix with 2 columns", fixed = TRUE)
  fit <- quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1)
  new <- toy[1:5, ]
  new$x1 <- I(cbind(new$x1, new$x1))
  expect_error(predict(fit, new), "Covariate x1 is a matrix with 2 columns", fixed = TRUE)
  expect_error(quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + offset(x2)),
               "has an offset term `offset(x2)`: ncam has no offsets", fixed = TRUE)
  # Mixed-model syntax entered as the logical OR of its sides, a constant, dropped with a warning.
  expect_error(quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 | x2), "`|` in a term.*ncam_by")
  # Inside I() it is the logical covariate the user asked for.
  toy$rain <- toy$x1 > 0.5
  toy$snow <- toy$x2 < -0.5
  expect_no_error(quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + I(rain | snow)))
  # A logical flag read back from a file as text "TRUE"/"FALSE": as.logical(), not as.numeric().
  toy$flag <- toy$x1 > 0
  flagged <- quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + flag)
  as_text <- toy[1:5, ]
  as_text$flag <- as.character(as_text$flag)
  expect_error(predict(flagged, as_text), "Convert flag with `as.logical()`", fixed = TRUE)
})

test_that("the fit's warnings about covariates name the columns and rows, and have classes", {
  toy <- simulate_toy(n = 500, seed = 12)
  toy$x1[c(5, 9)] <- NA
  toy$x2[c(9, 20, 30, 40, 50, 60, 70)] <- NA
  toy$x3 <- 5
  caught <- list()
  withCallingHandlers(quick_fit(toy), warning = function(w) {
    caught[[length(caught) + 1L]] <<- w
    invokeRestart("muffleWarning")
  })
  classes <- vapply(caught, function(w) class(w)[1], "")
  missing <- caught[[which(classes == "ncam_warning_missing_covariate")]]
  # Rows 5 and 9 (x1) and 9, 20, ..., 70 (x2): 8 rows, per column the first 5.
  expect_identical(missing$rows, c(5L, 9L, 20L, 30L, 40L, 50L, 60L, 70L))
  expect_match(conditionMessage(missing), "^8 rows with a missing covariate are left out of training")
  expect_match(conditionMessage(missing), "x1: 2 rows (5, 9)", fixed = TRUE)
  expect_match(conditionMessage(missing), "x2: 7 rows (9, 20, 30, 40, 50, ...)", fixed = TRUE)
  dropped <- caught[[which(classes == "ncam_warning_dropped_covariate")]]
  expect_match(conditionMessage(dropped), "Dropping constant covariate \"x3\"", fixed = TRUE)
  # A term NA with its columns given, and a single row.
  toy <- simulate_toy(n = 300, seed = 12)
  toy$x1[4] <- NA
  toy$x2 <- abs(toy$x2)
  toy$x2[7] <- -1
  expect_warning(withCallingHandlers(
    quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + sqrt(x2)),
    simpleWarning = function(w) if (grepl("NaNs produced", conditionMessage(w))) invokeRestart("muffleWarning")),
    "^2 rows .*x1: row 4.*a term that is NA although its columns are given: row 7",
    class = "ncam_warning_missing_covariate")
})

test_that("`validation` taking every usable row, and a list column, are clear errors", {
  toy <- simulate_toy(n = 300, seed = 14)
  toy$x1[3] <- NA
  # Row 3, without x1, is left out (with its warning) before the rows are counted.
  left_out <- "ncam_warning_missing_covariate"
  expect_warning(expect_error(quick_fit(toy, validation = rep(TRUE, 300)),
                              "`validation` takes 299 of the 299 usable rows .*leaving 0 for training"),
                 "x1: row 3", class = left_out)
  expect_warning(expect_error(quick_fit(toy[1:10, ], validation = 0.99), "`validation` takes 9 of the 9 usable rows"),
                 "x1: row 3", class = left_out)
  expect_warning(expect_error(quick_fit(toy[1:10, ], validation = 2:10),
                              "`validation` takes 8 of the 9 usable rows .*leaving 1 "),
                 "x1: row 3", class = left_out)
  # Too few usable rows for any split: the old error.
  expect_warning(expect_error(quick_fit(toy[3:4, ]), "Only 1 training row has complete covariates"),
                 "x1: row 1", class = left_out)
  listed <- simulate_toy(n = 300, seed = 14)
  listed$x2 <- as.list(listed$x2)
  expect_error(quick_fit(listed, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + x2),
               "Covariate x2 is a list column: ncam needs one value per row")
  expect_error(quick_fit(listed, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + log(x2)), "x2 is a list column")
})

test_that("`verbose` must be TRUE or FALSE, in ncam() and ncam_by()", {
  toy <- simulate_toy(300, seed = 1)
  expect_error(quick_fit(toy, verbose = NA), "`verbose` must be `TRUE` or `FALSE`")
  expect_error(quick_fit(toy, verbose = "yes"), "`verbose` must be `TRUE` or `FALSE`")
  toy$g <- rep(c("a", "b"), 150)
  expect_error(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, by = "g", verbose = NA),
               "`verbose` must be `TRUE` or `FALSE`")
})

# The lines of the progress bars of verbose = TRUE, each update shown: cli otherwise shows one
# only when its 200 ms timer has ticked. cli's own tests stop the timer so.
progress_lines <- function(expr, width = 200) {
  skip_if_not(exists("cli_with_ticks", asNamespace("cli")), "cli without cli_with_ticks()")
  withr::local_options(cli.dynamic = FALSE, cli.width = width)
  lines <- character()
  utils::getFromNamespace("cli_with_ticks", "cli")(withCallingHandlers(expr, message = function(m) {
    lines <<- c(lines, conditionMessage(m))
    invokeRestart("muffleMessage")
  }))
  trimws(grep("Epoch", lines, value = TRUE))
}

test_that("verbose = TRUE shows each epoch's training and one validation NLL; under ncam_by() the group", {
  toy <- simulate_toy(300, seed = 1)
  fit <- NULL
  lines <- progress_lines(suppressWarnings(fit <- quick_fit(toy, verbose = TRUE)))
  expect_length(lines, 5)
  expect_false(any(grepl("and NLL", lines)))
  expect_true(all(lengths(regmatches(lines, gregexpr("val", lines))) == 1L))
  expect_match(lines, "^Epoch [1-5]/5 .*\\| NLL train [0-9.]+, val capped [0-9.]+$")
  shown_train <- as.numeric(sub(".*NLL train ([0-9.]+),.*", "\\1", lines))
  expect_equal(shown_train, signif(fit$history$train_nll, 4))
  no_validation <- progress_lines(suppressWarnings(quick_fit(toy, verbose = TRUE, validation = 0)))
  expect_match(no_validation, "\\| NLL train [0-9.]+$")
  toy$site <- rep(c("east", "west"), 150)
  by_lines <- progress_lines(suppressWarnings(
    ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, by = "site", hidden = 4, epochs = 3, seed = 1, verbose = TRUE)
  ))
  expect_equal(sub(": Epoch.*", "", by_lines), rep(c("Group site = east", "Group site = west"), each = 3))
})

test_that("after early stopping the progress bar ends on the last epoch run, not on `epochs`", {
  toy <- simulate_toy(600, seed = 1)
  fit <- NULL
  lines <- progress_lines(suppressWarnings(
    fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, hidden = 4L, epochs = 400L, stop_iter = 3L,
                learn_rate = 0.05, seed = 1L, threads = 1L, verbose = TRUE)))
  expect_true(fit$stopped_early)
  expect_lt(fit$epochs_run, 400L)
  expect_match(lines[length(lines)], sprintf("^Epoch %d/400 ", fit$epochs_run))
  expect_false(any(grepl("^Epoch 400/400", lines)))
})

test_that("at 80 columns the progress line shows both NLLs, the bar taking the room left", {
  toy <- simulate_toy(300, seed = 1)
  # cli cuts a line at the console's width: a bar of 30 columns cut off the validation NLL.
  lines <- progress_lines(suppressWarnings(quick_fit(toy, verbose = TRUE)), width = 80)
  toy$site <- rep(c("a site with a long name", "west"), 150)
  by_lines <- progress_lines(suppressWarnings(
    ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, by = "site", hidden = 4, epochs = 2, seed = 1, verbose = TRUE)
  ), width = 80)
  expect_lte(max(nchar(c(lines, by_lines), type = "width")), 80L)
  expect_snapshot(writeLines(c(lines, by_lines)), transform = function(x) sub("ETA +[0-9?]+[smh]?", "ETA <eta>", x))
})

test_that("verbose = TRUE ends with one line of epochs, time, best epoch and NLL, however short the fit", {
  toy <- simulate_toy(300, seed = 1)
  messages <- function(expr) {
    lines <- character()
    withCallingHandlers(expr, message = function(m) {
      lines <<- c(lines, conditionMessage(m))
      invokeRestart("muffleMessage")
    })
    lines
  }
  # Five epochs take far less than the 2 s after which cli shows a progress bar.
  fit <- NULL
  lines <- messages(suppressWarnings(fit <- quick_fit(toy, verbose = TRUE)))
  trained <- grep("^Trained", lines, value = TRUE)
  expect_length(trained, 1L)
  expect_identical(as.integer(sub(".*best epoch ([0-9]+),.*", "\\1", trained)), fit$best_epoch)
  # The plain NLL, as print() gives it, beside the capped one that chose the best epoch (one
  # number when they agree to five digits).
  best <- fit$history[fit$best_epoch, ]
  plain <- format(best$validation_nll, digits = 5)
  capped <- format(best$validation_criterion, digits = 5)
  shown <- if (plain == capped) paste(plain, "(uncapped and capped alike)") else
    paste0(plain, " uncapped, ", capped, " capped (early stopping's criterion)")
  expect_identical(sub("^Trained 5 epochs in [0-9.]+ s; best epoch [1-5], validation NLL ", "", trained), paste0(shown, "."))
  expect_output(print(fit), paste0("Validation NLL per row at best epoch: ", shown), fixed = TRUE)
  # No row's NLL reached the cap (or not at five digits): one number, not the same one twice.
  expect_identical(validation_nll_text(10.24112, 10.24109), "10.241 (uncapped and capped alike)")
  expect_identical(validation_nll_text(10.3, NA_real_), "10.3")
  no_validation <- grep("^Trained", messages(suppressWarnings(quick_fit(toy, verbose = TRUE, validation = 0))), value = TRUE)
  expect_match(no_validation, "^Trained 5 epochs in [0-9.]+ s; best epoch [1-5], training NLL [0-9.]+\\.$")
  expect_length(messages(suppressWarnings(quick_fit(toy))), 0L)
  toy$site <- rep(c("east", "west"), 150)
  by_lines <- messages(suppressWarnings(
    ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, by = "site", hidden = 4, epochs = 3, seed = 1, verbose = TRUE)
  ))
  expect_match(grep("Trained", by_lines, value = TRUE), "^Group site = (east|west): Trained 3 epochs")
  expect_length(grep("Trained", by_lines), 2L)
})

test_that("a formula term that is a constant, and a complex covariate, are errors naming them", {
  toy <- simulate_toy(300, seed = 1)
  expect_error(ncam(sensor_0 + sensor_1 ~ x1 + NA, toy), "right side of `formula` has a term `NA`")
  expect_error(ncam(sensor_0 + sensor_1 ~ x1 + 3, toy), "right side of `formula` has a term `3`")
  expect_error(ncam(sensor_0 + sensor_1 ~ x1 + "x2", toy), "right side of `formula` has a term `\"x2\"`")
  toy$z <- complex(real = toy$x1, imaginary = 1)
  expect_error(ncam(sensor_0 + sensor_1 ~ x1 + z, toy), "`formula` names covariate z, which is a complex vector")
  # The intercept's 0 and 1, and a power of a sum, are formula syntax.
  fit <- quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ (x1 + x2)^2 - 1)
  expect_identical(fit$covariates, c("x1", "x2", "x1:x2"))
})

test_that("`validation = 1` is ambiguous, and a fraction giving no row warns with the count", {
  toy <- simulate_toy(300, seed = 1)
  expect_error(quick_fit(toy, validation = 1), "`validation` = 1 is ambiguous")
  expect_error(quick_fit(toy, validation = 1L), "`validation` = 1 is ambiguous")
  # Row 1 is given as a logical vector; round(0.001 * 300) is 0 rows.
  expect_identical(quick_fit(toy, validation = seq_len(300) == 1)$n_validation, 1L)
  expect_warning(fit <- quick_fit(toy, validation = 0.001),
                 "`validation` = 0.001 of the 300 usable rows .* is no row", class = "ncam_warning_no_validation_rows")
  expect_identical(fit$n_validation, 0L)
  expect_identical(fit$n_train, 300L)
  expect_identical(quick_fit(toy, validation = 0.002)$n_validation, 1L)  # round(0.6)
  # The fraction the warning suggests gives a row, on 4 and 5 rows too (it said 0.12 and 0.1:
  # round(0.48) and round(0.5) are 0).
  on_few_rows <- c("ncam_warning_few_readings", "ncam_warning_validation_not_improved")
  for (n in c(4L, 5L, 300L)) {
    w <- suppressWarnings(expect_warning(quick_fit(toy[seq_len(n), ], validation = 0.05 / n),
                                         class = "ncam_warning_no_validation_rows"), classes = on_few_rows)
    suggested <- as.numeric(sub(".*at least ([0-9.]+) for validation rows.*", "\\1", conditionMessage(w)))
    small <- suppressWarnings(quick_fit(toy[seq_len(n), ], validation = suggested), classes = on_few_rows)
    expect_identical(small$n_validation, 1L)
  }
  # Only a number 1 is ambiguous: TRUE, text and factors keep the general error, without warnings.
  for (bad in list(TRUE, "1", factor("0.5"), "abc")) {
    expect_no_warning(err <- expect_error(quick_fit(toy, validation = bad), "must be a fraction"))
  }
  expect_error(quick_fit(toy, validation = c(1:10, 400, 0)), "row numbers 400 and 0 are outside the data's 300 rows")
  expect_error(quick_fit(toy, validation = c(2, 2, 3:40, 7)), "`validation` names rows 2 and 7 more than once")
  d <- transform(toy, site = rep(c("a", "b"), 150))
  expect_error(ncam_by(sensor_0 + sensor_1 ~ x1, d, by = "site", validation = 1, errors = "skip"),
               "`validation` = 1 is ambiguous")
})

test_that("an ncam_control object edited by hand is checked again by ncam()", {
  toy <- simulate_toy(300, seed = 1)
  ctrl <- ncam_control()
  ctrl$beta1 <- 5
  expect_error(quick_fit(toy, control = ctrl), "`control` holds an invalid setting")
  expect_error(quick_fit(toy, control = ctrl), "`beta1` must be a number between 0 and 1, not 5")
  ctrl <- ncam_control()
  ctrl$precision <- "half"
  expect_error(quick_fit(toy, control = ctrl), "`precision` must be one of")
  ctrl <- ncam_control()
  ctrl$beta3 <- 1
  expect_error(quick_fit(toy, control = ctrl), "`control` does not have the fields of `ncam_control\\(\\)`")
  # An unedited object passes as it is, clip_norm = Inf stored as 0 included.
  expect_identical(ncam:::check_control(ncam_control(clip_norm = 3)), ncam_control(clip_norm = 3))
  expect_identical(ncam:::check_control(ncam_control()), ncam_control())
})

test_that("a fit with an infinite weight or an invalid sigma_y2 is not a usable fit", {
  toy <- simulate_toy(300, seed = 1)
  fit <- quick_fit(toy)
  damaged <- fit
  damaged$params[5] <- Inf
  expect_error(predict(damaged, toy[1:3, ]), "not a usable <ncam> fit: some of its weights are infinite")
  damaged <- fit
  damaged$sigma_y2 <- -1
  expect_error(predict(damaged, toy[1:3, ], interval = "credible"), "sigma_y2 is not a number of at least 0")
  damaged$sigma_y2 <- NA_real_
  expect_error(predict(damaged, toy[1:3, ]), "sigma_y2 is not a number of at least 0")
})

test_that("every argument of ncam() that needs no data has one rule, shared with ncam_by()", {
  # anchor is checked against the formula's sensors, validation against the rows; reference is a
  # single name by its rule, then checked against the sensors and the data.
  expect_setequal(names(ncam:::fit_argument_rules),
                  setdiff(names(formals(ncam)), c("formula", "data", "anchor", "validation")))
  expect_identical(ncam:::check_fit_arguments(list(parameterization = c("anchored", "unanchored", "no_bias"),
                                                   seed = 3.0, batch_size = 64, hidden = 4), call = NULL),
                   list(parameterization = "anchored", seed = 3L, batch_size = 64L, hidden = 4))
})

test_that("early stopping caps each validation row's NLL, so that a spike cannot stop training", {
  d <- simulate_colocation(days = 56, seed = 10)  # holds a few spike readings the screen keeps
  fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, data = d, reference = "ref",
                        hidden = c(16L, 16L), epochs = 60L, stop_iter = 0L, seed = 1L, threads = 1L),
                   also = "ncam_warning_clamp")
  # The criterion, recomputed from the engine's per-row NLL at the kept weights, on rows whose
  # reference ends after a week (a short co-location).
  short <- d
  short$ref[short$date >= min(short$date) + 7 * 86400] <- NA
  inputs <- list(x = lapply(short[fit$covariates], as.double), readings = lapply(short[c(fit$sensors, "ref")], as.double),
                 scaling = fit$scaling)
  row_nll <- ncam:::ncam_predict_cpp(fit$spec, fit$params, inputs$x, inputs$readings, fit$scaling, 1L,
                                     fit$settings$control$precision, "posterior", FALSE)$nll
  criterion <- ncam:::capped_validation_nll(fit$spec, inputs, seq_len(nrow(short)), 0, fit$settings$control$precision, 1L)
  # The cap is set on the working scale (each reading's NLL there is log(b_scale) smaller), per
  # pattern of observed readings; patterns of fewer than 20 rows share one.
  observed <- !is.na(as.data.frame(inputs$readings))
  to_working <- log(fit$scaling$b_scale) * rowSums(observed)
  working <- row_nll - to_working
  pattern <- apply(observed, 1, paste, collapse = " ")
  counts <- table(pattern)
  expect_identical(sort(as.vector(counts)), c(3L, 7L, 9L, 9L, 30L, 38L, 124L, 1124L))
  pattern[pattern %in% names(counts)[counts < 20]] <- "pooled"
  cap <- ave(working, pattern, FUN = function(w) median(w) + if (mad(w) > 0) 10 * mad(w) else Inf)
  expect_equal(criterion(fit$params)[["capped"]], mean(pmin(working, cap) + to_working))
  expect_equal(criterion(fit$params)[["plain"]], mean(row_nll))
  expect_gt(sum(working > cap), 0)  # the spikes are capped
  # One cap for all rows would give another criterion here.
  pooled_cap <- median(working) + 10 * mad(working)
  expect_gt(abs(criterion(fit$params)[["capped"]] - mean(pmin(working, pooled_cap) + to_working)), 1e-4)
  # With defaults, the seeds whose validation rows hold a spike no longer stop within a few
  # epochs at several times the error of the others.
  after <- d$date >= min(d$date) + 28 * 86400
  rmse <- vapply(c(1L, 5L), function(s) {
    f <- short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, data = d, reference = "ref", seed = s, threads = 1L),
                   also = "ncam_warning_clamp")
    pred <- suppressWarnings(predict(f, d[after, ]), classes = "ncam_warning_extrapolation")
    sqrt(mean((pred$.pred - d$truth[after])^2))
  }, numeric(1))
  expect_true(all(rmse < 1))
})

test_that("a change of unit rescales a reference fit and changes nothing else", {
  # Rows with a reference reading carry one more reading's NLL than the others; capping in the
  # readings' units set them further apart the larger the unit, so that a unit 1000 times
  # smaller capped other validation rows, stopped training at another epoch and gave another fit.
  d <- simulate_colocation(days = 56, seed = 10)
  d$ref[d$date >= min(d$date) + 7 * 86400] <- NA
  fit_in <- function(k) {
    scaled <- d
    scaled[c("pa_a", "pa_b", "opc", "ref")] <- scaled[c("pa_a", "pa_b", "opc", "ref")] * k
    short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, data = scaled, reference = "ref", hidden = c(16L, 16L),
                   seed = 1L, threads = 1L), also = c("ncam_warning_clamp", "ncam_warning_few_reference_rows"))
  }
  unit_fit <- fit_in(1)
  milli_fit <- fit_in(1000)
  expect_identical(milli_fit$best_epoch, unit_fit$best_epoch)
  newdata <- d[d$date >= min(d$date) + 7 * 86400, ]
  scaled_newdata <- newdata
  scaled_newdata[c("pa_a", "pa_b", "opc")] <- newdata[c("pa_a", "pa_b", "opc")] * 1000
  pred_unit <- suppressWarnings(predict(unit_fit, newdata, interval = "prediction"))
  pred_milli <- suppressWarnings(predict(milli_fit, scaled_newdata, interval = "prediction"))
  expect_equal(pred_milli$.pred / 1000, pred_unit$.pred, tolerance = 1e-6)
  expect_equal(pred_milli$.pred_upper / 1000, pred_unit$.pred_upper, tolerance = 1e-6)
})
