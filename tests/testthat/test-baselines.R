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
  out <- fuse_baseline(d, c("a", "b", "c"), "mean")
  expect_named(out, c(".pred", ".n_sensors"))
  expect_identical(out$.pred, c(3, 6, 6, NA))
  expect_identical(out$.n_sensors, c(3L, 2L, 2L, 0L))
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

  out <- fuse_baseline(d, c("a", "b", "c"), "ivw", train = train)
  expect_equal(attr(out, "fit")$sensor_var, s2, tolerance = 1e-12)
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
  expect_identical(attr(out, "fit")$method, "ivw")

  # Logical and index forms of `train` agree.
  expect_identical(fuse_baseline(d, c("a", "b", "c"), "ivw", train = 1:8 <= 5), out)
})

test_that("the three-cornered hat recovers known noise variances", {
  s2 <- c(1, 4, 9)
  d <- additive_sensors(1e5, s2, seed = 1)
  out <- fuse_baseline(d, c("s1", "s2", "s3"), "ivw")
  expect_equal(unname(attr(out, "fit")$sensor_var), s2, tolerance = 0.05)

  # Four sensors, a fifth of the readings missing: least squares over 6 pairs.
  s2 <- c(1, 2, 4, 8)
  d <- additive_sensors(1e5, s2, seed = 2)
  d[1:4][matrix(runif(4e5) < 0.2, ncol = 4)] <- NA
  out <- fuse_baseline(d, paste0("s", 1:4), "ivw")
  expect_equal(unname(attr(out, "fit")$sensor_var), s2, tolerance = 0.05)
})

test_that("two sensors split the difference variance equally, with a warning", {
  d <- additive_sensors(200, c(1, 9), seed = 3)
  expect_snapshot(out <- fuse_baseline(d, c("s1", "s2"), "ivw"))
  s2 <- attr(out, "fit")$sensor_var
  expect_equal(unname(s2), rep(var(d$s1 - d$s2) / 2, 2), tolerance = 1e-12)
  expect_equal(out$.pred, (d$s1 + d$s2) / 2, tolerance = 1e-12)
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
  sensors <- paste0("s", 1:4)
  out <- fuse_baseline(d, sensors, "ppca", train = train, anchor = "s3")
  fit <- attr(out, "fit")

  # Tipping & Bishop on the complete training rows.
  b_fit <- as.matrix(d[train, ])[complete.cases(d[train, ]), ]
  mu <- colMeans(b_fit)
  s <- cov(b_fit) * (nrow(b_fit) - 1) / nrow(b_fit)
  e <- eigen(s)
  sigma2 <- mean(e$values[2:4])
  w <- e$vectors[, 1] * sqrt(e$values[1] - sigma2)
  expect_equal(fit$mu, mu, tolerance = 1e-12)
  expect_equal(fit$sigma2, sigma2, tolerance = 1e-10)
  expect_equal(unname(tcrossprod(fit$loadings)), tcrossprod(w), tolerance = 1e-10)

  # Posterior of z given the observed coordinates of each row, from the joint
  # Gaussian of (z, b): Cov(b) = W W' + sigma2 I, Cov(z, b) = W'.
  w <- fit$loadings
  c_bb <- tcrossprod(w) + diag(sigma2, 4)
  b <- as.matrix(d)
  post <- t(vapply(seq_len(n), function(i) {
    o <- !is.na(b[i, ])
    if (!any(o)) return(c(NA, NA))
    unlist(condition(0, mu[o], 1, t(w[o]), c_bb[o, o, drop = FALSE], b[i, o]))
  }, numeric(2)))
  used <- train[!is.na(d$s3[train])]
  coef <- unname(coef(lm(d$s3[used] ~ post[used, 1])))
  expect_equal(unname(fit$coef), coef, tolerance = 1e-10)
  expect_equal(out$.pred, coef[1] + coef[2] * post[, 1], tolerance = 1e-10)
  expect_equal(out$.pred_sd, abs(coef[2]) * sqrt(post[, 2]), tolerance = 1e-10)
  expect_true(is.na(out$.pred[17]))
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
    expect_equal(kf$var[t], post$var, tolerance = 1e-10)
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
  out <- fuse_baseline(d, sensors, "kalman", train = train, order = "date")
  fit <- attr(out, "fit")
  expect_named(out, c(".pred", ".pred_sd", ".n_sensors"))
  expect_identical(nrow(out), 300L)

  # Sorting the data first gives the same estimates, row for row.
  ord <- order(d$date)
  sorted <- fuse_baseline(d[ord, ], sensors, "kalman", train = train[ord])
  expect_equal(out[ord, ], sorted, ignore_attr = TRUE, tolerance = 1e-12)
  expect_identical(fuse_baseline(d, sensors, "kalman", train = train, order = d$date), out)

  # Rows without readings get the one-step prediction.
  for (i in c(10, 50)) {
    prev <- ord[match(i, ord) - 1]
    expect_equal(out$.pred[i], out$.pred[prev])
    expect_equal(out$.pred_sd[i]^2, out$.pred_sd[prev]^2 + fit$q)
    expect_identical(out$.n_sensors[i], 0L)
  }

  # q maximises the training innovation log-likelihood over its grid.
  b_train <- unname(as.matrix(d[ord[train[ord]], sensors]))
  ll <- function(q) kalman_rw_filter(b_train, fit$sensor_var, q, fit$m0, fit$P0)$loglik
  expect_equal(fit$loglik, ll(fit$q))
  expect_gte(fit$loglik, ll(fit$q * 10^(1 / 8)))
  expect_gte(fit$loglik, ll(fit$q / 10^(1 / 8)))
  # Initial state from the ivw estimates of the training rows.
  init <- fuse_baseline(d[train, ], sensors, "ivw")$.pred
  expect_equal(c(fit$m0, fit$P0), c(mean(init, na.rm = TRUE), var(init, na.rm = TRUE)))
})

test_that("every method keeps all rows in order and handles missing readings", {
  d <- additive_sensors(200, c(1, 4, 9), seed = 7)
  d$s1[5] <- NA
  d[8, 1:3] <- NA
  sensors <- c("s1", "s2", "s3")
  for (m in c("mean", "ivw", "ppca", "kalman")) {
    out <- fuse_baseline(d, sensors, m)
    expect_identical(nrow(out), 200L)
    expect_identical(out$.n_sensors[c(4, 5, 8)], c(3L, 2L, 0L))
    expect_false(is.na(out$.pred[5]))
    expect_identical(is.na(out$.pred[8]), m != "kalman")
    expect_gt(cor(out$.pred, d$truth, use = "complete.obs"), 0.95)
    # Reversing the rows reverses the estimates (kalman aside: the filter
    # then runs the other way round).
    if (m != "kalman") {
      rev_out <- fuse_baseline(d[200:1, ], sensors, m)
      expect_equal(rev_out$.pred, rev(out$.pred), tolerance = 1e-10)
    }
  }
})

test_that("fuse_baseline() rejects bad input", {
  d <- data.frame(a = c(1, 2, 3, 4), b = c(2, 1, 4, 3), c = c(1, 3, 2, 5),
                  txt = letters[1:4], day = as.Date("2024-01-01") + c(0, 1, NA, 3))
  expect_snapshot(error = TRUE, fuse_baseline(as.matrix(d), c("a", "b")))
  expect_snapshot(error = TRUE, fuse_baseline(d, "a"))
  expect_snapshot(error = TRUE, fuse_baseline(d, c("a", "a")))
  expect_snapshot(error = TRUE, fuse_baseline(d, c("a", "zz")))
  expect_snapshot(error = TRUE, fuse_baseline(d, c("a", "txt")))
  d_inf <- d
  d_inf$b[3] <- Inf
  expect_snapshot(error = TRUE, fuse_baseline(d_inf, c("a", "b")))
  expect_snapshot(error = TRUE, fuse_baseline(d, c("a", "b"), method = "median"))
  expect_snapshot(error = TRUE, fuse_baseline(d, c("a", "b"), train = c(TRUE, FALSE)))
  expect_snapshot(error = TRUE, fuse_baseline(d, c("a", "b"), train = c(1, 7)))
  expect_snapshot(error = TRUE, fuse_baseline(d, c("a", "b"), train = 2))
  expect_snapshot(error = TRUE, fuse_baseline(d, c("a", "b"), anchor = "c"))
  expect_snapshot(error = TRUE, fuse_baseline(d, c("a", "b", "c"), "kalman", order = "date"))
  expect_snapshot(error = TRUE, fuse_baseline(d, c("a", "b", "c"), "kalman", order = "day"))
  expect_snapshot(error = TRUE, fuse_baseline(d, c("a", "b", "c"), "kalman", order = 1:3))
  expect_snapshot(error = TRUE, fuse_baseline(d, c("a", "b", "c"), "ppca", train = 1:3))
  d_sparse <- data.frame(a = c(1, NA, 3), b = c(NA, 2, NA))
  expect_snapshot(error = TRUE, fuse_baseline(d_sparse, c("a", "b"), "ivw"))
})
