# predict(), print(), logLik(), nobs(), tidy() and glance() for fitted baselines.

baseline_data <- function(n = 300, seed = 1) {
  set.seed(seed)
  theta <- rnorm(n, 20, 4)
  d <- data.frame(s1 = theta + rnorm(n, 0, 1), s2 = 1.5 * theta - 3 + rnorm(n, 0, 2),
                  s3 = 0.7 * theta + 5 + rnorm(n, 0, 1.5), day = as.Date("2021-01-01") + sample(n))
  d$s2[c(3, 9)] <- NA
  d[11, c("s1", "s2", "s3")] <- NA
  d
}

# With gains 1, 1.5 and 0.7 the three-cornered hat puts s1's error variance near
# (1.5 - 1) (0.7 - 1) 16 + 1 < 0: "ivw" and "kalman" warn of a Heywood-like case.
fit_all <- function(d) {
  lapply(c(mean = "mean", ivw = "ivw", ppca = "ppca", kalman = "kalman", factor = "factor"), function(m) {
    fit_one <- function() ncam_baseline(s1 + s2 + s3 ~ 1, d, m, order = if (m == "kalman") "day")
    if (!m %in% c("ivw", "kalman")) return(fit_one())
    expect_warning(fit <- fit_one(), "\"s1\"", class = "ncam_warning_heywood")
    fit
  })
}

test_that("credible intervals are the Gaussian interval around .pred", {
  d <- baseline_data()
  fits <- fit_all(d)
  for (m in setdiff(names(fits), "mean")) {
    heywood <- m %in% c("ivw", "kalman")
    expect_warning(out <- without_reading_warning(predict(fits[[m]], d, interval = "credible", level = 0.8)),
                   if (heywood) "\"s1\"" else NA, class = if (heywood) "ncam_warning_heywood")
    expect_named(out, c(".pred", ".pred_sd", ".n_sensors", ".pred_lower", ".pred_upper"))
    expect_equal(out$.pred_lower, out$.pred - qnorm(0.9) * out$.pred_sd)
    expect_equal(out$.pred_upper, out$.pred + qnorm(0.9) * out$.pred_sd)
    expect_identical(without_reading_warning(predict(fits[[m]], d)), out[c(".pred", ".pred_sd", ".n_sensors")])
  }
  expect_error(predict(fits$mean, d, interval = "credible"), "Method \"mean\" has no standard deviation",
               fixed = TRUE)
})

test_that("a Heywood case warns again when predict() makes intervals, and print() shows it", {
  d <- baseline_data()
  fits <- fit_all(d)
  for (m in c("ivw", "kalman")) {
    expect_identical(fits[[m]]$heywood, "s1")
    expect_warning(predict(fits[[m]], d[1:5, ], interval = "credible"), "too narrow", class = "ncam_warning_heywood")
    expect_no_warning(predict(fits[[m]], d[1:5, ]))
    expect_match(capture.output(print(fits[[m]])), "Heywood case: error variance of s1 estimated at zero", all = FALSE)
  }
  expect_identical(fits$factor$heywood, character(0))
  expect_no_match(capture.output(print(fits$factor)), "Heywood")
  # The factor model's own Heywood case: errors of s1 and s3 that cancel make s1 and s3 covary
  # less than the truth does, which the model can only fit with no error on s2.
  set.seed(2)
  theta <- rnorm(300, 10, 3)
  u <- rnorm(300, 0, 1)
  odd <- data.frame(s1 = theta + u, s2 = theta + rnorm(300, 0, 0.3), s3 = theta - u + rnorm(300, 0, 0.5))
  seen <- character(0)
  fit <- withCallingHandlers(ncam_baseline(s1 + s2 + s3 ~ 1, odd, "factor"), warning = function(w) {
    seen <<- c(seen, class(w))
    invokeRestart("muffleWarning")
  })
  expect_true("ncam_warning_heywood" %in% seen)
  expect_identical(fit$heywood, "s2")
  expect_warning(predict(fit, odd[1:3, ], interval = "credible"), "Add sensors", class = "ncam_warning_heywood")
})

test_that("predict() keeps one row per row of newdata, in order, for any subset", {
  d <- baseline_data()
  fits <- fit_all(d)
  rows <- c(50, 11, 3, 200, 3)
  for (m in setdiff(names(fits), "kalman")) {
    # Row 11 has no reading: row 2 of newdata.
    expect_warning(out <- predict(fits[[m]], d[rows, ]), "1 of 5 rows has no sensor reading.*row 2", class = "ncam_warning_no_readings")
    expect_equal(out, without_reading_warning(predict(fits[[m]], d))[rows, ])
    expect_no_warning(empty <- predict(fits[[m]], d[0, ]))
    expect_identical(nrow(empty), 0L)
    expect_named(empty, names(out))
  }
  # The filter visits newdata in its own `day` order: shuffling the rows only permutes them.
  shuffled <- sample(nrow(d))
  expect_equal(without_reading_warning(predict(fits$kalman, d[shuffled, ])),
               without_reading_warning(predict(fits$kalman, d))[shuffled, ], tolerance = 1e-12)
  expect_identical(nrow(predict(fits$kalman, d[0, ])), 0L)
  # Readings may be integers; a tibble works as newdata.
  d_int <- tibble::as_tibble(d)
  d_int$s1 <- as.integer(round(d_int$s1))
  d_round <- d
  d_round$s1 <- round(d_round$s1)
  expect_equal(without_reading_warning(predict(fits$factor, d_int)), without_reading_warning(predict(fits$factor, d_round)))
})

test_that("predict() rejects bad input", {
  d <- baseline_data()
  fits <- fit_all(d)
  fit <- fits$factor
  expect_error(predict(fit), "`newdata` is required", fixed = TRUE)
  expect_error(predict(fit, as.matrix(d)), "`newdata` must be a data frame", fixed = TRUE)
  expect_error(predict(fit, d[c("s1", "s2")]), "`newdata` lacks column \"s3\" used by the model", fixed = TRUE)
  expect_error(predict(fit, d, level = 1.5), "`level` must be a number strictly between 0 and 1", fixed = TRUE)
  expect_error(predict(fit, d, interval = "confidence"), "`interval` must be one of", fixed = TRUE)
  expect_error(predict(fit, d, type = "response"), "must be empty", fixed = TRUE)
  bad <- d
  bad$s2 <- as.character(bad$s2)
  expect_error(predict(fit, bad), "Sensor column \"s2\" of `newdata` must be numeric", fixed = TRUE)
  bad <- d
  bad$s3[4] <- -Inf
  expect_error(predict(fit, bad), "Sensor column \"s3\" of `newdata` has an infinite value in row 4", fixed = TRUE)
  bad <- d
  bad$day[7] <- NA
  expect_error(predict(fits$kalman, bad), "Column \"day\" of `newdata` is missing in row 7", fixed = TRUE)
})

test_that("logLik(), nobs(), AIC() and glance() agree", {
  d <- baseline_data()
  fits <- fit_all(d)
  for (m in c("ppca", "kalman", "factor")) {
    ll <- logLik(fits[[m]])
    expect_s3_class(ll, "logLik")
    g <- generics::glance(fits[[m]])
    expect_identical(g$method, m)
    expect_identical(g$n_sensors, 3L)
    expect_identical(g$nobs, nobs(fits[[m]]))
    expect_identical(g$df, attr(ll, "df"))
    expect_equal(g$logLik, as.numeric(ll))
    expect_equal(g$AIC, AIC(fits[[m]]))
    expect_equal(g$BIC, -2 * as.numeric(ll) + log(nobs(fits[[m]])) * attr(ll, "df"))
  }
  # Rows with a reading enter the fit; ppca uses the rows with every reading.
  expect_identical(nobs(fits$factor), 299L)
  expect_identical(nobs(fits$ppca), 297L)
  expect_identical(attr(logLik(fits$factor), "df"), 9L)
  for (m in c("mean", "ivw")) {
    expect_error(logLik(fits[[m]]), paste0("Method \"", m, "\" has no likelihood"), fixed = TRUE)
    g <- generics::glance(fits[[m]])
    expect_identical(c(g$df, g$logLik, g$AIC, g$BIC), rep(NA_real_, 4))
    expect_identical(g$nobs, 299L)
  }
  expect_identical(names(generics::glance(fits$mean)), names(generics::glance(fits$factor)))
  expect_error(generics::glance(fits$factor, digits = 3), "must be empty", fixed = TRUE)
})

test_that("tidy() lists each sensor's parameters", {
  d <- baseline_data()
  fits <- fit_all(d)
  expect_identical(generics::tidy(fits$mean), tibble::tibble(sensor = c("s1", "s2", "s3"), weight = rep(1 / 3, 3)))
  s2 <- fits$ivw$params$sensor_var
  # noise is the error sd (as noise_mean of tidy() of an ncam fit), noise_var its square.
  expect_equal(generics::tidy(fits$ivw),
               tibble::tibble(sensor = c("s1", "s2", "s3"), noise = sqrt(unname(s2)), noise_var = unname(s2),
                              weight = unname((1 / s2) / sum(1 / s2))))
  expect_equal(generics::tidy(fits$kalman),
               tibble::tibble(sensor = c("s1", "s2", "s3"), noise = sqrt(unname(s2)), noise_var = unname(s2)))
  p <- fits$ppca$params
  expect_equal(generics::tidy(fits$ppca),
               tibble::tibble(sensor = c("s1", "s2", "s3"), anchor = c(TRUE, FALSE, FALSE), mean = unname(p$mu),
                              loading = unname(p$loadings), noise = rep(sqrt(p$sigma2), 3),
                              noise_var = rep(p$sigma2, 3)))
  p <- fits$factor$params
  tidied <- generics::tidy(fits$factor)
  expect_named(tidied, c("sensor", "anchor", "gain", "gain_se", "offset", "offset_se", "noise", "noise_var",
                         "noise_var_se"))
  expect_equal(tidied$gain, unname(p$gain))
  expect_equal(tidied$noise, sqrt(unname(p$noise_var)))
  expect_equal(tidied$offset_se[2:3], unname(sqrt(diag(p$vcov))[c("offset_s2", "offset_s3")]))
  expect_equal(tidied$noise_var_se, unname(sqrt(diag(p$vcov))[c("noise_var_s1", "noise_var_s2", "noise_var_s3")]))
  expect_error(generics::tidy(fits$factor, conf.int = TRUE), "must be empty", fixed = TRUE)
})

test_that("print() writes a summary to standard output", {
  d <- baseline_data()
  fits <- fit_all(d)
  expect_output(print(fits$factor), "one-factor measurement model")
  expect_output(print(fits$factor), "Sensors: s1, s2, s3 (anchor: s1)", fixed = TRUE)
  expect_output(print(fits$factor), paste("Log-likelihood:", format(fits$factor$loglik, digits = 7)), fixed = TRUE)
  expect_output(print(fits$factor), "noise_var_se")
  expect_output(print(fits$kalman), "Order: day", fixed = TRUE)
  expect_output(print(fits$mean), "Training rows used: 299", fixed = TRUE)
  utils::capture.output(shown <- withVisible(print(fits$ivw)))
  expect_false(shown$visible)
  expect_identical(shown$value, fits$ivw)
  # Plain output, not condition messages.
  expect_silent(utils::capture.output(print(fits$ppca)))
})

test_that("a fitted baseline holds only small plain data and survives saveRDS()", {
  d <- baseline_data(20000)
  fits <- fit_all(d)
  for (m in names(fits)) {
    fit <- fits[[m]]
    expect_lt(as.numeric(utils::object.size(fit)), 20000)
    # No environments (formulas, closures) or external pointers anywhere inside.
    leaves <- rapply(unclass(fit), function(x) typeof(x), how = "unlist")
    expect_true(all(leaves %in% c("double", "integer", "character", "logical")))
    path <- withr::local_tempfile(fileext = ".rds")
    saveRDS(fit, path)
    expect_identical(without_reading_warning(predict(readRDS(path), d[1:50, ])), without_reading_warning(predict(fit, d[1:50, ])))
  }
})

# Sensors of gains 1, 1.2 and 0.9 (no Heywood case) with some missing readings, and a
# function that multiplies the readings by k (a change of units).
unit_data <- function(n = 300, seed = 11) {
  set.seed(seed)
  theta <- rgamma(n, 3, 0.3)
  d <- data.frame(s1 = theta + rnorm(n), s2 = 1.2 * theta + 2 + rnorm(n, 0, 1.5),
                  s3 = 0.9 * theta + rnorm(n, 0, 2), t = rnorm(n))
  d$s2[c(3, 40, 77)] <- NA
  d$s1[c(5, 90)] <- NA
  d
}
in_units <- function(d, k) {
  d[c("s1", "s2", "s3")] <- d[c("s1", "s2", "s3")] * k
  d
}

test_that("every baseline is equivariant under a change of units", {
  # Variance floors must be relative: absolute ones (1e-12) made readings in units 1e-8 times
  # smaller give ivw sds 100 times too wide with a false Heywood warning, move kalman's .pred
  # by sds and make ppca fail.
  d <- unit_data()
  train <- 1:200
  # Powers of k by tidy() column: variances scale as k^2, gains and weights not at all.
  power <- c(weight = 0, gain = 0, gain_se = 0, mean = 1, loading = 1, offset = 1, offset_se = 1,
             noise = 1, noise_var = 2, noise_var_se = 2)
  for (m in c("mean", "ivw", "ppca", "kalman", "factor")) {
    fit_in <- function(k) ncam_baseline(s1 + s2 + s3 ~ 1, in_units(d, k), m, train = train,
                                        order = if (m == "kalman") "t")
    base <- fit_in(1)
    base_out <- predict(base, d)
    base_tidy <- tidy(base)
    # The readings whose density the likelihood is: for ppca those of the complete rows.
    used <- as.matrix(d[train, c("s1", "s2", "s3")])
    if (m == "ppca") used <- used[stats::complete.cases(used), ]
    for (k in c(1e-100, 1e-8, 1e8, 1e100)) {
      expect_no_warning(fit <- fit_in(k))
      out <- predict(fit, in_units(d, k))
      expect_equal(out$.pred / k, base_out$.pred, tolerance = 1e-10, info = paste(m, k))
      if (m != "mean") expect_equal(out$.pred_sd / k, base_out$.pred_sd, tolerance = 1e-10, info = paste(m, k))
      expect_identical(out$.n_sensors, base_out$.n_sensors)
      numeric_cols <- intersect(names(power), names(base_tidy))
      for (col in numeric_cols) {
        expect_equal(tidy(fit)[[col]] / k^power[[col]], base_tidy[[col]], tolerance = 1e-8,
                     info = paste(m, k, col))
      }
      # The density of readings in units 1/k is that of the originals over k per reading.
      if (!is.null(base$loglik)) {
        expect_equal(as.numeric(logLik(fit)) + sum(!is.na(used)) * log(k), base$loglik,
                     tolerance = 1e-10, info = paste(m, k))
        expect_equal(glance(fit)$AIC - 2 * sum(!is.na(used)) * log(k), glance(base)$AIC,
                     tolerance = 1e-10, info = paste(m, k))
      }
    }
  }
  # By hand at k = 1e-8: the three-cornered hat and inverse-variance weights on the small
  # readings, with no floor in the way.
  small <- in_units(d, 1e-8)
  v <- function(x, y) var(small[[x]] - small[[y]], na.rm = TRUE)
  s2 <- c(s1 = v("s1", "s2") + v("s1", "s3") - v("s2", "s3"), s2 = v("s1", "s2") + v("s2", "s3") - v("s1", "s3"),
          s3 = v("s1", "s3") + v("s2", "s3") - v("s1", "s2")) / 2
  fit <- ncam_baseline(s1 + s2 + s3 ~ 1, small, "ivw")
  expect_equal(fit$params$sensor_var, s2, tolerance = 1e-12)
  b <- as.matrix(small[c("s1", "s2", "s3")])
  w <- sweep(!is.na(b), 2L, 1 / s2, `*`)
  expect_equal(predict(fit, small)$.pred, rowSums(w * replace(b, is.na(b), 0)) / rowSums(w), tolerance = 1e-12)
  expect_equal(predict(fit, small)$.pred_sd, 1 / sqrt(rowSums(w)), tolerance = 1e-12)
})

test_that("a Heywood floor and copies of one sensor give the same fusion in any units", {
  # Near the smallest spreads ncam() accepts, 1 / floor overflowed in the Kalman filter.
  set.seed(6)
  theta <- rnorm(500, 20, 5)
  d <- data.frame(s1 = 0.8 * theta + rnorm(500, 0, 1), s2 = theta + rnorm(500, 0, 0.5),
                  s3 = 1.2 * theta + rnorm(500, 0, 1))
  copies <- data.frame(s1 = theta, s2 = theta + 1, s3 = theta + 2)
  for (m in c("ivw", "kalman")) {
    for (readings in list(d, copies)) {
      expect_warning(base <- ncam_baseline(s1 + s2 + s3 ~ 1, readings, m), class = "ncam_warning_heywood")
      base_out <- predict(base, readings)
      for (k in c(1e-148, 1e148)) {
        expect_warning(fit <- ncam_baseline(s1 + s2 + s3 ~ 1, readings * k, m), class = "ncam_warning_heywood")
        out <- predict(fit, readings * k)
        expect_equal(out$.pred / k, base_out$.pred, tolerance = 1e-10, info = paste(m, k))
        expect_equal(out$.pred_sd / k, base_out$.pred_sd, tolerance = 1e-10, info = paste(m, k))
      }
    }
  }
  # Copies get equal weights: the fused value is their mean.
  expect_equal(predict(base, copies)$.pred, theta + 1, tolerance = 1e-12)
})

test_that("readings beyond what ncam() accepts get its error, naming the column", {
  d <- unit_data()
  # ncam()'s message, up to the numbers (its training rows leave out the validation rows).
  words <- function(expr) gsub("[0-9][-+.e0-9]*", "#", conditionMessage(tryCatch(expr, error = identity)))
  for (k in c(1e200, 1e-200)) {
    expected <- words(ncam(s1 + s2 + s3 ~ 1, in_units(d, k)))
    expect_match(expected, if (k > 1) "s# has readings as large as" else "s# varies by only", fixed = TRUE)
    for (m in c("mean", "ivw", "ppca", "kalman", "factor")) {
      expect_identical(words(ncam_baseline(s1 + s2 + s3 ~ 1, in_units(d, k), m,
                                           order = if (m == "kalman") "t")), expected, info = paste(m, k))
    }
  }
  # Only the readings of the named column, and only the training rows, count.
  big <- d
  big$s3[250] <- 1e160
  expect_error(ncam_baseline(s1 + s2 + s3 ~ 1, big, "ivw"), "Sensor column s3 has readings as large as 1e+160",
               fixed = TRUE)
  expect_no_error(fit <- ncam_baseline(s1 + s2 + s3 ~ 1, big, "ivw", train = 1:200))
  # Readings that vary by less than double precision can hold, though not all equal.
  tiny <- d
  tiny$s2 <- c(rep(1e-200, 299), 2e-200)
  expect_error(ncam_baseline(s1 + s2 + s3 ~ 1, tiny, "factor"), "Sensor column s2 varies by only 0", fixed = TRUE)
  # New readings too large fused to a huge .pred with a tiny sd; predict() of ncam() refuses them.
  expect_error(predict(fit, big), "Sensor column s3 has a reading of 1e+160 in row 250", fixed = TRUE)
})

test_that("ppca says when the readings have no common factor", {
  iso <- data.frame(s1 = c(1, -1, 0, 0), s2 = c(0, 0, 1, -1))
  expect_error(ncam_baseline(s1 + s2 ~ 1, iso, "ppca"), "vary equally in every direction", fixed = TRUE)
})

test_that("kalman refuses repeated times in `order`, at the fit and in predict()", {
  toy <- simulate_toy(40, seed = 1)
  f <- sensor_0 + sensor_1 + sensor_2 ~ 1
  # Two stations stacked: each day appears twice.
  toy$day <- as.Date("2024-01-01") + rep(0:19, 2)
  err <- expect_error(ncam_baseline(f, toy, "kalman", order = "day"),
                      "Column \"day\" of `data` repeats times: row 21 has the time of row 1 (2024-01-01); 20 rows repeat an earlier time.",
                      fixed = TRUE, class = "rlang_error")
  expect_match(conditionMessage(err), "fit one baseline per station", fixed = TRUE)
  expect_match(conditionMessage(err), "train = data$site == \"A\"", fixed = TRUE)
  # One fit per station works, also as `train` on the stacked data: only the training rows
  # are checked (the rows of the other station repeat their times), and the fit is the one
  # on those rows alone, whatever the other rows hold (even no time at all).
  fit <- ncam_baseline(f, toy[1:20, ], "kalman", order = "day")
  toy$site <- rep(c("A", "B"), each = 20)
  stacked_fit <- ncam_baseline(f, toy, "kalman", train = toy$site == "A", order = "day")
  expect_equal(stacked_fit$params, fit$params, tolerance = 1e-12)
  expect_equal(predict(stacked_fit, toy[1:20, ]), predict(fit, toy[1:20, ]), tolerance = 1e-12)
  no_time <- toy
  no_time$day[30] <- NA
  expect_equal(ncam_baseline(f, no_time, "kalman", train = 1:20, order = "day")$params, fit$params,
               tolerance = 1e-12)
  # A repeat among the training rows is refused, naming rows of `data`.
  expect_error(ncam_baseline(f, toy, "kalman", train = c(1:20, 25), order = "day"),
               "row 25 has the time of row 5 (2024-01-05); 1 row repeats", fixed = TRUE)
  expect_error(ncam_baseline(f, no_time, "kalman", train = 21:40, order = "day"),
               "Column \"day\" of `data` is missing in row 30.", fixed = TRUE)
  # predict() refuses stacked stations in `newdata`.
  err <- expect_error(predict(fit, toy), "Column \"day\" of `newdata` repeats times: row 21 has the time of row 1",
                      fixed = TRUE)
  expect_match(conditionMessage(err), "Predict one series (station) at a time", fixed = TRUE)
  stacked <- toy[c(1:5, 3), ]
  expect_error(predict(fit, stacked), "row 6 has the time of row 3 (2024-01-03); 1 row repeats",
               fixed = TRUE)
  # Distinct times in any row order give the same estimates row for row.
  set.seed(2)
  o <- sample(20)
  expect_equal(predict(fit, toy[o, ]), predict(fit, toy[1:20, ])[o, ], ignore_attr = TRUE)
})

test_that("credible intervals from few training rows warn that they are too narrow", {
  set.seed(4)
  theta <- rnorm(600, 20, 5)
  d <- data.frame(s1 = theta + rnorm(600, 0, 1), s2 = theta + rnorm(600, 0, 2), s3 = theta + rnorm(600, 0, 3))
  for (method in c("ivw", "factor")) {
    few <- suppressWarnings(ncam_baseline(s1 + s2 + s3 ~ 1, d, method, train = 1:50), classes = "ncam_warning_heywood")
    expect_identical(few$nobs, 50L)
    expect_warning(predict(few, d[51:60, ], interval = "credible"), "estimated from only 50 training rows",
                   class = "ncam_warning_few_training_rows")
    expect_no_warning(predict(few, d[51:60, ]))  # no interval, nothing to warn about
    enough <- suppressWarnings(ncam_baseline(s1 + s2 + s3 ~ 1, d, method, train = 1:200), classes = "ncam_warning_heywood")
    expect_no_warning(predict(enough, d[201:210, ], interval = "credible"), class = "ncam_warning_few_training_rows")
  }
})

test_that("coef() gives the estimated parameters, as many as logLik()'s df; update() says the call to make again", {
  d <- baseline_data()
  fits <- fit_all(d)
  for (m in c("ppca", "kalman", "factor")) {
    expect_length(coef(fits[[m]]), attr(logLik(fits[[m]]), "df"))
  }
  # The factor model's as its standard errors name them, the anchor's fixed gain and offset left out.
  expect_identical(names(coef(fits$factor)), names(fits$factor$params$se))
  expect_identical(unname(coef(fits$factor)[c("gain_s2", "offset_s3", "noise_var_s1")]),
                   unname(c(fits$factor$params$gain["s2"], fits$factor$params$offset["s3"],
                            fits$factor$params$noise_var["s1"])))
  expect_named(coef(fits$ppca), c("mean_s1", "mean_s2", "mean_s3", "loading_s1", "loading_s2", "loading_s3", "noise_var"))
  expect_named(coef(fits$kalman), c("noise_var_s1", "noise_var_s2", "noise_var_s3", "q", "m0", "P0"))
  # ivw: the three-cornered hat, var(s2) = (var(s1 - s2) + var(s2 - s3) - var(s1 - s3)) / 2.
  v <- function(a, b) var(d[[a]] - d[[b]], na.rm = TRUE)
  expect_equal(coef(fits$ivw)[["noise_var_s2"]], (v("s1", "s2") + v("s2", "s3") - v("s1", "s3")) / 2)
  expect_equal(coef(fits$ivw)[["noise_var_s3"]], (v("s1", "s3") + v("s2", "s3") - v("s1", "s2")) / 2)
  expect_error(coef(fits$mean), "Method \"mean\" estimates no parameters", class = "ncam_error")
  expect_error(update(fits$factor, method = "ppca"),
               "keeps only its parameters, not its call.*ncam_baseline\\(s1 \\+ s2 \\+ s3 ~ 1, <the training rows>, \"factor\", anchor = \"s1\"\\)",
               class = "ncam_error")
  expect_error(update(fits$kalman), "\"kalman\", order = \"day\"\\)", class = "ncam_error")
})

test_that("formula(), terms() and vcov() of a baseline; the methods it has no use for say what to use", {
  d <- baseline_data()
  fits <- fit_all(d)
  # R's defaults: "invalid formula", "no terms component nor attribute", "no applicable method".
  for (m in names(fits)) {
    expect_identical(deparse(formula(fits[[m]])), "s1 + s2 + s3 ~ 1")
    expect_identical(attr(terms(fits[[m]]), "response"), 1L)
  }
  v <- vcov(fits$factor)
  expect_identical(dimnames(v), list(names(coef(fits$factor)), names(coef(fits$factor))))
  expect_equal(v, t(v))
  # The standard errors tidy() gives are the roots of its diagonal.
  expect_equal(unname(sqrt(diag(v))[c("gain_s2", "gain_s3")]), tidy(fits$factor)$gain_se[2:3])
  expect_equal(unname(sqrt(diag(v))[paste0("noise_var_s", 1:3)]), tidy(fits$factor)$noise_var_se)
  for (m in setdiff(names(fits), "factor")) {
    expect_error(vcov(fits[[m]]), paste0("Method \"", m, "\" has no covariance matrix.*Only \"factor\" has one"),
                 class = "ncam_error")
  }
  for (m in names(fits)) {
    # sigma() was stats' empty numeric, or coef()'s error for "mean".
    expect_error(sigma(fits[[m]]), "no single residual sd.*`tidy\\(object\\)`", class = "ncam_error")
    for (what in list(model.frame, model.matrix)) {
      expect_error(what(fits[[m]]), "has no meaning for a baseline: it keeps only its sensors and parameters",
                   class = "ncam_error")
    }
    # plot.default()'s "'x' is a list, but does not have components 'x' and 'y'".
    expect_error(plot(fits[[m]]), "no training curves.*autoplot", class = "ncam_error")
  }
})
