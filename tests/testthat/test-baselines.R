# A common signal seen by every sensor with its own offset and noise variance.
additive_sensors <- function(n, s2, seed) {
  set.seed(seed)
  theta <- rnorm(n, 20, 5)
  b <- vapply(seq_along(s2), function(j) theta + j + rnorm(n, 0, sqrt(s2[j])), numeric(n))
  colnames(b) <- paste0("s", seq_along(s2))
  data.frame(b, truth = theta)
}

# Mean and variance of a Gaussian x conditioned on y = y_obs, from the joint
# moments (dense Gaussian conditioning).
condition <- function(mu_x, mu_y, s_xx, s_xy, s_yy, y_obs) {
  k <- s_xy %*% solve(s_yy)
  list(mean = drop(mu_x + k %*% (y_obs - mu_y)), var = drop(s_xx - k %*% t(s_xy)))
}

test_that("mean averages the observed readings of each row", {
  d <- data.frame(a = c(1, NA, 3, NA), b = c(3, 5, NA, NA), c = c(5, 7, 9, NA))
  fit <- ncam_baseline(a + b + c ~ 1, d, "mean")
  expect_s3_class(fit, "ncam_baseline")
  expect_warning(out <- predict(fit, d), "1 of 4 rows has no sensor reading.*NA.*row 4", class = "ncam_warning_no_readings")
  expect_s3_class(out, "tbl_df")
  expect_named(out, c(".pred", ".n_sensors"))
  expect_identical(out$.pred, c(3, 6, 6, NA))
  expect_identical(out$.n_sensors, c(3L, 2L, 2L, 0L))
  # cbind() on the left names the same sensors.
  expect_identical(ncam_baseline(cbind(a, b, c) ~ 1, d, "mean"), fit)
})

test_that("ivw equals a hand-computed weighted mean with three-cornered-hat variances", {
  d <- data.frame(a = c(9, 13, 8, 11, 13, 10, NA, NA),
                  b = c(10, 11, 9, 11, 12, NA, 12, NA),
                  c = c(10, 12, 10, 13, 18, 16, 8, NA))
  train <- 1:5
  v <- function(x, y) var(d[[x]][train] - d[[y]][train])
  s2 <- c(a = (v("a", "b") + v("a", "c") - v("b", "c")) / 2,
          b = (v("a", "b") + v("b", "c") - v("a", "c")) / 2,
          c = (v("a", "c") + v("b", "c") - v("a", "b")) / 2)
  expect_true(all(s2 > 0))

  fit <- ncam_baseline(a + b + c ~ 1, d, "ivw", train = train)
  expect_warning(out <- predict(fit, d), "row 8", class = "ncam_warning_no_readings")
  expect_equal(fit$params$sensor_var, s2, tolerance = 1e-12)
  # tidy() gives the error sd as noise, the variance as noise_var.
  expect_equal(tidy(fit)$noise, unname(sqrt(s2)), tolerance = 1e-12)
  expect_equal(tidy(fit)$noise_var, unname(s2), tolerance = 1e-12)
  expected <- expected_sd <- rep(NA_real_, nrow(d))
  for (i in 1:7) {
    obs <- !is.na(unlist(d[i, ]))
    w <- 1 / s2[obs]
    expected[i] <- sum(unlist(d[i, ])[obs] * w) / sum(w)
    expected_sd[i] <- 1 / sqrt(sum(w))
  }
  expect_equal(out$.pred, expected, tolerance = 1e-12)
  expect_equal(out$.pred_sd, expected_sd, tolerance = 1e-12)
  expect_identical(out$.n_sensors, c(3L, 3L, 3L, 3L, 3L, 2L, 2L, 0L))
  expect_identical(fit$method, "ivw")
  expect_identical(nobs(fit), 5L)

  # Logical and index forms of `train` agree.
  expect_identical(ncam_baseline(a + b + c ~ 1, d, "ivw", train = 1:8 <= 5), fit)
})

test_that("the three-cornered hat recovers known noise variances", {
  s2 <- c(1, 4, 9)
  d <- additive_sensors(1e5, s2, seed = 1)
  fit <- ncam_baseline(s1 + s2 + s3 ~ 1, d, "ivw")
  expect_equal(unname(fit$params$sensor_var), s2, tolerance = 0.05)

  # Four sensors, a fifth of the readings missing: least squares over 6 pairs.
  s2 <- c(1, 2, 4, 8)
  d <- additive_sensors(1e5, s2, seed = 2)
  d[1:4][matrix(runif(4e5) < 0.2, ncol = 4)] <- NA
  fit <- ncam_baseline(s1 + s2 + s3 + s4 ~ 1, d, "ivw")
  expect_equal(unname(fit$params$sensor_var), s2, tolerance = 0.05)
})

test_that("two sensors split the difference variance equally, with a warning", {
  d <- additive_sensors(200, c(1, 9), seed = 3)
  expect_warning(fit <- ncam_baseline(s1 + s2 ~ 1, d, "ivw"),
                 "With two sensors the variance of their difference is split equally", fixed = TRUE)
  s2 <- fit$params$sensor_var
  expect_equal(unname(s2), rep(var(d$s1 - d$s2) / 2, 2), tolerance = 1e-12)
  expect_equal(predict(fit, d)$.pred, (d$s1 + d$s2) / 2, tolerance = 1e-12)
})

test_that("ppca matches the closed form and dense conditioning with missing readings", {
  set.seed(4)
  n <- 400
  z <- rnorm(n)
  d <- data.frame(s1 = 10 + 3 * z + rnorm(n), s2 = 5 + 2 * z + rnorm(n, 0, 2),
                  s3 = 20 + 4 * z + rnorm(n, 0, 1.5), s4 = 1 * z + rnorm(n, 0, 0.5))
  d[matrix(runif(4 * n) < 0.05, ncol = 4)] <- NA
  d[17, ] <- NA
  train <- 1:300
  fit <- ncam_baseline(s1 + s2 + s3 + s4 ~ 1, d, "ppca", train = train, anchor = "s3")
  expect_warning(out <- predict(fit, d), "prior of the PPCA model.*row 17", class = "ncam_warning_no_readings")
  p <- fit$params

  # Tipping & Bishop on the complete training rows.
  b_fit <- as.matrix(d[train, ])[complete.cases(d[train, ]), ]
  mu <- colMeans(b_fit)
  s <- cov(b_fit) * (nrow(b_fit) - 1) / nrow(b_fit)
  e <- eigen(s)
  sigma2 <- mean(e$values[2:4])
  w <- e$vectors[, 1] * sqrt(e$values[1] - sigma2)
  expect_equal(p$mu, mu, tolerance = 1e-12)
  expect_equal(p$sigma2, sigma2, tolerance = 1e-10)
  expect_equal(unname(tcrossprod(p$loadings)), tcrossprod(w), tolerance = 1e-10)

  # logLik: Gaussian density of the complete training rows, one row at a time.
  c_bb <- tcrossprod(w) + diag(sigma2, 4)
  dens <- apply(b_fit, 1, function(x) {
    r <- x - mu
    -0.5 * (4 * log(2 * pi) + determinant(c_bb)$modulus + sum(r * solve(c_bb, r)))
  })
  ll <- logLik(fit)
  expect_equal(as.numeric(ll), sum(dens), tolerance = 1e-10)
  expect_identical(attr(ll, "df"), 9L)
  expect_identical(nobs(fit), nrow(b_fit))

  # Posterior of z given the observed coordinates of each row, from the joint
  # Gaussian of (z, b): Cov(b) = W W' + sigma2 I, Cov(z, b) = W'; without readings, the prior.
  w <- p$loadings
  c_bb <- tcrossprod(w) + diag(sigma2, 4)
  b <- as.matrix(d)
  post <- t(vapply(seq_len(n), function(i) {
    o <- !is.na(b[i, ])
    if (!any(o)) return(c(0, 1))
    unlist(condition(0, mu[o], 1, t(w[o]), c_bb[o, o, drop = FALSE], b[i, o]))
  }, numeric(2)))
  used <- train[!is.na(d$s3[train])]
  coef <- unname(coef(lm(d$s3[used] ~ post[used, 1])))
  expect_equal(unname(p$coef), coef, tolerance = 1e-10)
  expect_equal(out$.pred, coef[1] + coef[2] * post[, 1], tolerance = 1e-10)
  expect_equal(out$.pred_sd, abs(coef[2]) * sqrt(post[, 2]), tolerance = 1e-10)
  expect_equal(c(out$.pred[17], out$.pred_sd[17]), c(coef[1], abs(coef[2])), tolerance = 1e-10)
  expect_identical(out$.n_sensors, as.integer(rowSums(!is.na(b))))
  # The anchor's scale: z maps back to roughly the anchor's own reading.
  expect_gt(cor(out$.pred, d$s3, use = "complete.obs"), 0.9)
})

test_that("the Kalman filter equals dense Gaussian conditioning on a tiny series", {
  b <- rbind(c(10, 12, 9), c(NA, 11, 13), c(NA, NA, NA), c(12, NA, 15),
             c(9, 10, NA), c(11, 14, 10))
  s2 <- c(1, 2, 4)
  q <- 0.7
  m0 <- 10.5
  p0 <- 3
  kf <- kalman_rw_filter(b, s2, q, m0, p0, keep = TRUE)

  # theta_t = theta_0 + w_1 + ... + w_t: Cov(theta_s, theta_t) = P0 + q min(s, t).
  n_t <- nrow(b)
  sig <- p0 + q * outer(seq_len(n_t), seq_len(n_t), pmin)
  obs <- which(!is.na(b), arr.ind = TRUE)
  obs <- obs[order(obs[, "row"], obs[, "col"]), , drop = FALSE]
  h <- matrix(0, nrow(obs), n_t)
  h[cbind(seq_len(nrow(obs)), obs[, "row"])] <- 1
  y <- b[obs]
  c_yy <- h %*% sig %*% t(h) + diag(s2[obs[, "col"]])
  c_ty <- sig %*% t(h)
  for (t in seq_len(n_t)) {
    k <- obs[, "row"] <= t
    post <- condition(m0, rep(m0, sum(k)), sig[t, t], c_ty[t, k, drop = FALSE],
                      c_yy[k, k, drop = FALSE], y[k])
    expect_equal(kf$mean[t], post$mean, tolerance = 1e-10)
    expect_equal(kf$sd[t]^2, post$var, tolerance = 1e-10)
  }
  # The innovation log-likelihood is the joint log density of all readings.
  r <- y - m0
  loglik <- -0.5 * (length(y) * log(2 * pi) + determinant(c_yy)$modulus + sum(r * solve(c_yy, r)))
  expect_equal(kf$loglik, as.numeric(loglik), tolerance = 1e-10)

  # Vectorised over q: the same as one q at a time.
  qs <- c(0.01, 0.7, 30)
  expect_equal(kalman_rw_filter(b, s2, qs, m0, p0)$loglik,
               vapply(qs, function(qq) kalman_rw_filter(b, s2, qq, m0, p0)$loglik, numeric(1)))
})

test_that("kalman follows `order`, predicts empty rows and returns row order", {
  d <- additive_sensors(300, c(1, 4, 9), seed = 5)
  set.seed(6)
  d$date <- as.Date("2020-01-01") + sample(300)
  d[c(10, 50), c("s1", "s2", "s3")] <- NA
  d$s2[20:40] <- NA
  sensors <- c("s1", "s2", "s3")
  train <- d$date < as.Date("2020-08-01")
  fit <- ncam_baseline(s1 + s2 + s3 ~ 1, d, "kalman", train = train, order = "date")
  expect_warning(out <- predict(fit, d), "filter's prediction.*order of date.*rows 10, 50", class = "ncam_warning_no_readings")
  p <- fit$params
  expect_named(out, c(".pred", ".pred_sd", ".n_sensors"))
  expect_identical(nrow(out), 300L)

  # Sorting the data first gives the same estimates, row for row.
  ord <- order(d$date)
  sorted_fit <- ncam_baseline(s1 + s2 + s3 ~ 1, d[ord, ], "kalman", train = train[ord])
  expect_identical(p$step, 1)  # consecutive days: the filter's step is a day
  expect_null(sorted_fit$params$step)  # row order: every row one step
  without_step <- function(params) params[names(params) != "step"]
  expect_equal(without_step(sorted_fit$params), without_step(p), tolerance = 1e-12)
  expect_equal(out[ord, ], without_reading_warning(predict(sorted_fit, d[ord, ])), tolerance = 1e-12)

  # A POSIXlt order is a time; times as text would be sorted as text, so are refused.
  lt <- d
  lt$date <- as.POSIXlt(as.POSIXct(lt$date))
  expect_equal(without_reading_warning(predict(ncam_baseline(s1 + s2 + s3 ~ 1, lt, "kalman", train = train, order = "date"), lt)), out)
  lt$date <- format(lt$date, "%d/%m/%Y")
  expect_error(ncam_baseline(s1 + s2 + s3 ~ 1, lt, "kalman", train = train, order = "date"),
               "times as text")
  lt$date <- format(d$date, "%Y-%m-%d 00:00")  # ISO text sorts as time does
  expect_equal(without_reading_warning(predict(ncam_baseline(s1 + s2 + s3 ~ 1, lt, "kalman", train = train, order = "date"), lt)), out)

  # Rows without readings get the one-step prediction.
  for (i in c(10, 50)) {
    prev <- ord[match(i, ord) - 1]
    expect_equal(out$.pred[i], out$.pred[prev])
    expect_equal(out$.pred_sd[i]^2, out$.pred_sd[prev]^2 + p$q)
    expect_identical(out$.n_sensors[i], 0L)
  }

  # q maximises the training innovation log-likelihood over its grid.
  b_train <- unname(as.matrix(d[ord[train[ord]], sensors]))
  ll <- function(q) kalman_rw_filter(b_train, p$sensor_var, q, p$m0, p$P0)$loglik
  expect_equal(as.numeric(logLik(fit)), ll(p$q))
  expect_identical(attr(logLik(fit), "df"), 6L)
  expect_gte(fit$loglik, ll(p$q * 10^(1 / 8)))
  expect_gte(fit$loglik, ll(p$q / 10^(1 / 8)))
  # Initial state from the ivw estimates of the training rows.
  init <- without_reading_warning(predict(ncam_baseline(s1 + s2 + s3 ~ 1, d[train, ], "ivw"), d[train, ]))$.pred
  expect_equal(c(p$m0, p$P0), c(mean(init, na.rm = TRUE), var(init, na.rm = TRUE)))

  # New data are filtered on their own from the fitted initial state: the earliest row's
  # estimate is the update of N(m0, P0 + q) by its readings.
  new_rows <- ord[c(200, 150, 120)]
  new_out <- predict(fit, d[new_rows, ])
  first <- unlist(d[ord[120], sensors])
  precision <- 1 / (p$P0 + p$q) + sum(1 / p$sensor_var)
  expected <- (p$m0 / (p$P0 + p$q) + sum(first / p$sensor_var)) / precision
  expect_equal(new_out$.pred[3], expected, tolerance = 1e-12)
  expect_equal(new_out$.pred_sd[3], 1 / sqrt(precision), tolerance = 1e-12)
  expect_error(predict(fit, d[sensors]), "`newdata` lacks column \"date\"", fixed = TRUE)
})

test_that("kalman lets the state wander over a gap in time as over hours without readings", {
  d <- additive_sensors(400, c(1, 4, 9), seed = 11)
  d$time <- as.POSIXct("2024-03-01", tz = "UTC") + 3600 * (0:399)
  gap <- c(150:190, 300:302)
  with_na <- d
  with_na[gap, c("s1", "s2", "s3")] <- NA
  rows <- setdiff(seq_len(400), gap)
  train <- seq_len(400) <= 250
  # Fitted on the rows with a gap in time, or on all hours with the gap's readings missing:
  # the same q per hour, the same likelihood, the same estimates for the rows both have.
  fit_gap <- ncam_baseline(s1 + s2 + s3 ~ 1, d[rows, ], "kalman", train = train[rows], order = "time")
  fit_na <- ncam_baseline(s1 + s2 + s3 ~ 1, with_na, "kalman", train = train, order = "time")
  expect_identical(fit_gap$params$step, 3600)
  expect_equal(fit_gap$params$q, fit_na$params$q)
  expect_equal(fit_gap$loglik, fit_na$loglik, tolerance = 1e-10)
  expect_equal(predict(fit_gap, d[rows, ]), without_reading_warning(predict(fit_na, with_na))[rows, ], tolerance = 1e-10)
  # The first hour after the gap has the one-step variance of 42 hours without readings.
  after <- match(191, rows)
  out_gap <- predict(fit_gap, d[rows, ])
  p <- fit_gap$params
  prior_var <- out_gap$.pred_sd[after - 1]^2 + 42 * p$q
  expect_equal(out_gap$.pred_sd[after]^2, 1 / (1 / prior_var + sum(1 / p$sensor_var)), tolerance = 1e-10)
  expect_output(print(fit_gap), "per step of 1 hour;")
})

test_that("kalman refuses numbers stored as text, and an `order` of another type in predict()", {
  d <- additive_sensors(300, c(1, 4, 9), seed = 7)
  d$t <- 1:300
  fit <- ncam_baseline(s1 + s2 + s3 ~ 1, d, "kalman", order = "t")
  expect_identical(fit$order_type, "numeric")
  # As text "10" sorts before "2", in a character column and in a factor with such levels.
  txt <- transform(d, t = as.character(t))
  expect_error(ncam_baseline(s1 + s2 + s3 ~ 1, txt, "kalman", order = "t"),
               "Column \"t\" of `data` holds numbers as text (\"1\")", fixed = TRUE)
  txt$t <- factor(txt$t)
  expect_error(ncam_baseline(s1 + s2 + s3 ~ 1, txt, "kalman", order = "t"), "holds numbers as text", fixed = TRUE)
  # A factor whose levels are in numeric order visits the rows in the order of the numbers.
  fac <- ncam_baseline(s1 + s2 + s3 ~ 1, transform(d, t = factor(t)), "kalman", order = "t")
  expect_identical(fac$order_type, "factor")
  expect_null(fac$params$step)  # levels are no times: every row one step
  expect_equal(fac$params[names(fac$params) != "step"], fit$params[names(fit$params) != "step"], tolerance = 1e-12)

  nd <- d[c(100, 2, 10, 1), ]
  out <- predict(fit, nd)
  # The filter visits the rows by t, from the fitted state, whatever their order in newdata;
  # the gaps in t are steps without readings.
  sorted <- ncam_baseline(s1 + s2 + s3 ~ 1, d, "kalman")
  gappy <- d[1:100, ]
  gappy[-c(1, 2, 10, 100), c("s1", "s2", "s3")] <- NA
  expect_equal(out, without_reading_warning(predict(sorted, gappy))[c(100, 2, 10, 1), ], tolerance = 1e-12)
  expect_error(predict(fit, transform(nd, t = as.character(t))),
               "Column \"t\" of `newdata` holds <character> values, but the baseline was fitted with <numeric> values",
               fixed = TRUE)
  expect_error(predict(fac, nd), "holds <numeric> values, but the baseline was fitted with <factor> values",
               fixed = TRUE)
  # Integers and doubles are both numbers.
  expect_equal(predict(fit, transform(nd, t = t + 0.5)), out)
  # A baseline saved before `order_type` was kept still predicts.
  old <- fit
  old$order_type <- NULL
  expect_equal(predict(old, nd), out)
})

test_that("`anchor` is an error for the methods that use none", {
  d <- additive_sensors(50, c(1, 4, 9), seed = 3)
  for (m in c("mean", "ivw", "kalman")) {
    expect_error(ncam_baseline(s1 + s2 + s3 ~ 1, d, m, anchor = "s2"),
                 sprintf("`anchor` is used only by `method = \"ppca\"` and `\"factor\"`, not \"%s\"", m), fixed = TRUE)
  }
  expect_identical(ncam_baseline(s1 + s2 + s3 ~ 1, d, "ppca", anchor = "s2")$anchor, "s2")
})

test_that("every method keeps all rows in order and handles missing readings", {
  d <- additive_sensors(200, c(1, 4, 9), seed = 7)
  d$s1[5] <- NA
  d[8, 1:3] <- NA
  for (m in c("mean", "ivw", "ppca", "kalman", "factor")) {
    fit <- ncam_baseline(s1 + s2 + s3 ~ 1, d, m)
    expect_warning(out <- predict(fit, d), "row 8", class = "ncam_warning_no_readings")
    expect_identical(nrow(out), 200L)
    expect_identical(out$.n_sensors[c(4, 5, 8)], c(3L, 2L, 0L))
    expect_false(is.na(out$.pred[5]))
    expect_identical(is.na(out$.pred[8]), m %in% c("mean", "ivw"))
    expect_gt(cor(out$.pred, d$truth, use = "complete.obs"), 0.95)
    # Reversing the rows reverses the estimates (kalman aside: the filter
    # then runs the other way round).
    if (m != "kalman") {
      rev_fit <- ncam_baseline(s1 + s2 + s3 ~ 1, d[200:1, ], m)
      expect_equal(without_reading_warning(predict(rev_fit, d[200:1, ]))$.pred, rev(out$.pred), tolerance = 1e-8)
    }
  }
  # A row without readings gets the factor model's prior.
  fit <- ncam_baseline(s1 + s2 + s3 ~ 1, d, "factor")
  expect_equal(unlist(without_reading_warning(predict(fit, d[8, ]))[1:2]),
               c(.pred = fit$params$prior_mean, .pred_sd = sqrt(fit$params$prior_var)))
})

test_that("on data simulated from its own model, each baseline beats every raw sensor", {
  set.seed(8)
  n <- 3000
  rmse <- function(e) sqrt(mean(e^2))
  theta <- rnorm(n, 20, 4)
  walk <- 20 + cumsum(rnorm(n, 0, 0.3))
  z <- rnorm(n)
  own_model <- list(
    # Equal noise around the truth.
    mean = data.frame(s1 = theta + rnorm(n, 0, 2), s2 = theta + rnorm(n, 0, 2), s3 = theta + rnorm(n, 0, 2),
                      truth = theta),
    # Unequal noise around the truth.
    ivw = data.frame(s1 = theta + rnorm(n, 0, 1), s2 = theta + rnorm(n, 0, 2), s3 = theta + rnorm(n, 0, 3),
                     truth = theta),
    # Loadings on a latent factor, equal noise; the truth is the anchor's signal.
    ppca = data.frame(s1 = 10 + 3 * z + rnorm(n, 0, 1.5), s2 = 5 + 2 * z + rnorm(n, 0, 1.5),
                      s3 = 4 * z + rnorm(n, 0, 1.5), truth = 10 + 3 * z),
    # A random walk read with unequal noise, rows in time order.
    kalman = data.frame(s1 = walk + rnorm(n, 0, 1), s2 = walk + rnorm(n, 0, 2), s3 = walk + rnorm(n, 0, 3),
                        truth = walk),
    # Gains, offsets and unequal noise; the anchor s1 is unbiased.
    factor = data.frame(s1 = theta + rnorm(n, 0, 1.5), s2 = 1.5 * theta - 3 + rnorm(n, 0, 2),
                        s3 = 0.7 * theta + 5 + rnorm(n, 0, 1), truth = theta)
  )
  for (m in names(own_model)) {
    d <- own_model[[m]]
    fused <- rmse(predict(ncam_baseline(s1 + s2 + s3 ~ 1, d, m), d)$.pred - d$truth)
    raw <- vapply(d[c("s1", "s2", "s3")], function(b) rmse(b - d$truth), numeric(1))
    expect_lt(fused, min(raw))
  }
})

test_that("ncam_baseline() rejects bad input", {
  d <- data.frame(a = c(1, 2, 3, 4), b = c(2, 1, 4, 3), c = c(1, 3, 2, 5),
                  txt = letters[1:4], day = as.Date("2024-01-01") + c(0, 1, NA, 3))
  expect_error(ncam_baseline(a + b ~ 1, as.matrix(d)), "`data` must be a data frame", fixed = TRUE)
  expect_error(ncam_baseline("a + b", d), "`formula` must be a two-sided formula", fixed = TRUE)
  expect_error(ncam_baseline(~ a + b, d), "`formula` must be a two-sided formula", fixed = TRUE)
  expect_error(ncam_baseline(a + b ~ c, d), "Baselines take no covariates", fixed = TRUE)
  # `~ .` stands for every column but the sensors and date-times (`day`).
  expect_error(ncam_baseline(a + b ~ ., d), "Baselines take no covariates, but `~ .` takes columns `c` and `txt`", fixed = TRUE)
  expect_error(ncam_baseline(log(a) + b ~ 1, d), "must list sensor columns", fixed = TRUE)
  expect_error(ncam_baseline(a ~ 1, d), "at least two sensors on its left side, not 1", fixed = TRUE)
  expect_error(ncam_baseline(a + a ~ 1, d), "names sensor \"a\" more than once", fixed = TRUE)
  expect_error(ncam_baseline(a + zz ~ 1, d), "`formula` names column not found in the data: \"zz\"",
               fixed = TRUE)
  expect_error(ncam_baseline(a + txt ~ 1, d), "Sensor column \"txt\" of `data` must be numeric", fixed = TRUE)
  d_inf <- d
  d_inf$b[3] <- Inf
  expect_error(ncam_baseline(a + b ~ 1, d_inf), "Sensor column \"b\" of `data` has an infinite value in row 3",
               fixed = TRUE)
  expect_error(ncam_baseline(a + b ~ 1, d, method = "median"), "`method` must be one of", fixed = TRUE)
  expect_error(ncam_baseline(a + b ~ 1, d, train = c(TRUE, FALSE)),
               "`train` must have one element per row of `data` (4), not 2", fixed = TRUE)
  expect_error(ncam_baseline(a + b ~ 1, d, train = c(1, 7)), "element 2 is 7", fixed = TRUE)
  expect_error(ncam_baseline(a + b ~ 1, d, train = 2), "`train` must select at least 2 rows, not 1", fixed = TRUE)
  expect_error(ncam_baseline(a + b ~ 1, d, train = "all"), "`train` must be NULL", fixed = TRUE)
  expect_error(ncam_baseline(a + b ~ 1, d, "ppca", anchor = "c"), "`anchor` must be one of the sensors", fixed = TRUE)
  expect_error(ncam_baseline(a + b + c ~ 1, d, "kalman", order = "date"),
               "`order` names column not found in the data: \"date\"", fixed = TRUE)
  expect_error(ncam_baseline(a + b + c ~ 1, d, "kalman", order = "day"),
               "Column \"day\" of `data` is missing in row 3", fixed = TRUE)
  expect_error(ncam_baseline(a + b + c ~ 1, d, "kalman", order = 1:3), "`order` must be a single non-empty string",
               fixed = TRUE)
  expect_error(ncam_baseline(a + b + c ~ 1, d, "ivw", order = "day"), "`order` is used only by", fixed = TRUE)
  expect_error(ncam_baseline(a + b + c ~ 1, d, "ppca", train = 1:3), "more than 3 rows with every sensor",
               fixed = TRUE)
  d_sparse <- data.frame(a = c(1, NA, 3), b = c(NA, 2, NA))
  expect_error(ncam_baseline(a + b ~ 1, d_sparse, "ivw"), "No two sensors are observed together", fixed = TRUE)
  d_empty <- data.frame(a = c(1, 2, 3, 4), b = c(NA, NA, 3, 4))
  expect_error(ncam_baseline(a + b ~ 1, d_empty, "ivw", train = 1:2),
               "Sensor column \"b\" has no reading in the `train` rows", fixed = TRUE)
})

test_that("ivw and kalman refuse a constant sensor, as ncam() does", {
  d <- additive_sensors(50, c(1, 4, 9), seed = 5)
  d$s3 <- 3
  d$s3[c(2, 7)] <- NA
  for (m in c("ivw", "kalman")) {
    expect_error(ncam_baseline(s1 + s2 + s3 ~ 1, d, m), "s3 reads 3 on every training row")
  }
  # Constant on the training rows only is refused too.
  d$s3 <- c(rep(3, 30), d$s1[31:50])
  expect_error(ncam_baseline(s1 + s2 + s3 ~ 1, d, "ivw", train = 1:30), "s3 reads 3 on every training row")
})

test_that("a non-positive three-cornered-hat variance is floored with a Heywood warning", {
  # Gains 0.8, 1 and 1.2: the hand solution for s2 is about (0.8 - 1) (1.2 - 1) Var(theta)
  # + 0.5^2 = -0.75, negative.
  set.seed(6)
  theta <- rnorm(500, 20, 5)
  d <- data.frame(s1 = 0.8 * theta + rnorm(500, 0, 1), s2 = theta + rnorm(500, 0, 0.5),
                  s3 = 1.2 * theta + rnorm(500, 0, 1))
  v <- function(x, y) var(d[[x]] - d[[y]])
  raw <- c(s1 = (v("s1", "s2") + v("s1", "s3") - v("s2", "s3")) / 2,
           s2 = (v("s1", "s2") + v("s2", "s3") - v("s1", "s3")) / 2,
           s3 = (v("s1", "s3") + v("s2", "s3") - v("s1", "s2")) / 2)
  expect_lt(raw[["s2"]], 0)
  expect_true(all(raw[c("s1", "s3")] > 0))
  least <- 1e-6 * max(v("s1", "s2"), v("s1", "s3"), v("s2", "s3"))
  for (m in c("ivw", "kalman")) {
    expect_warning(fit <- ncam_baseline(s1 + s2 + s3 ~ 1, d, m),
                   "error variance of sensor \"s2\" is estimated at zero or below (a Heywood-like case)",
                   fixed = TRUE, class = "ncam_warning_heywood")
    expect_equal(fit$params$sensor_var, replace(raw, "s2", least), tolerance = 1e-10)
  }
  # Well-behaved sensors fit silently.
  expect_no_warning(ncam_baseline(s1 + s2 + s3 ~ 1, additive_sensors(500, c(1, 4, 9), seed = 7), "ivw"))
})

test_that("the mean baseline refuses a stuck sensor, and many groups get colours told apart", {
  toy <- simulate_toy(200, seed = 3)
  toy$sensor_2 <- 7
  expect_error(ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, toy, "mean"), "sensor_2.*reads 7 on every training row")
  colours <- ncam:::sensor_palette(18)
  expect_identical(length(unique(colours)), 18L)
  # No two of them closer than a visible step in RGB.
  rgb <- t(grDevices::col2rgb(colours))
  expect_gt(min(stats::dist(rgb)), 40)
})

test_that("fitted() and residuals() of a baseline are clear errors, not NULL", {
  toy <- simulate_toy(300, seed = 1)
  base <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, toy, "ivw")
  expect_error(fitted(base), "predict\\(object, newdata\\)")
  expect_error(residuals(base), "no residuals")
})

test_that("kalman without `order` on stacked sites (times repeated) warns, at the fit and in predict()", {
  d <- additive_sensors(300, c(1, 4, 9), seed = 3)
  d$site <- rep(1:2, each = 150)
  d$date <- as.POSIXct("2021-04-01", tz = "UTC") + 3600 * rep(0:149, 2)
  expect_snapshot(fit <- ncam_baseline(s1 + s2 + s3 ~ 1, d, "kalman"))
  expect_warning(predict(fit, d), "Predict one series at a time", class = "ncam_warning_kalman_row_order")
  # One site, or the times as `order`: no warning.
  one <- d[d$site == 1, ]
  expect_no_warning(fit <- ncam_baseline(s1 + s2 + s3 ~ 1, one, "kalman"))
  expect_no_warning(predict(fit, one))
  expect_no_warning(ncam_baseline(s1 + s2 + s3 ~ 1, one, "kalman", order = "date"))
  # A column named date as text counts too, among the training rows; other methods filter nothing.
  d$date <- format(d$date)
  expect_warning(ncam_baseline(s1 + s2 + s3 ~ 1, d, "kalman", train = 101:300), "column date repeats times: row 251 has the time of row 101",
                 class = "ncam_warning_kalman_row_order")
  expect_no_warning(ncam_baseline(s1 + s2 + s3 ~ 1, d, "kalman", train = 1:150))
  expect_no_warning(ncam_baseline(s1 + s2 + s3 ~ 1, d, "factor"))
})
