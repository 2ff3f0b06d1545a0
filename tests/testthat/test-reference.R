# Reference-anchored fits: a co-location period where a reference monitor is observed.

coloc_data <- function(n, seed, n_ref) {
  withr::local_seed(seed)
  rh <- stats::runif(n, 20, 95)
  truth <- stats::rlnorm(n, log(10), 0.5)
  d <- data.frame(
    rh = rh,
    s1 = truth * (1 + 0.01 * pmax(rh - 60, 0)) + 3 + stats::rnorm(n, sd = 1),
    s2 = 0.8 * truth * (1 + 0.015 * pmax(rh - 60, 0)) + 1 + stats::rnorm(n, sd = 1.5),
    truth = truth
  )
  d$ref <- NA_real_
  d$ref[seq_len(n_ref)] <- truth[seq_len(n_ref)] + stats::rnorm(n_ref, sd = 0.5)
  d
}

fit_ref <- function(d, ...) {
  short_fit(ncam(s1 + s2 ~ rh, data = d, reference = "ref", hidden = 8L, epochs = 40L, seed = 3L,
                 threads = 1L, ...))
}

test_that("the reference column's place in the data does not change the fit", {
  d <- coloc_data(600, 1, 200)
  first <- d[c("ref", setdiff(names(d), "ref"))]
  fit_last <- fit_ref(d)
  fit_first <- fit_ref(first)
  expect_identical(fit_first$params, fit_last$params)
  expect_identical(predict(fit_first, first), predict(fit_last, d))
  expect_identical(fit_last$anchor, "ref")
  expect_identical(unname(fit_last$n_reference[["train"]] + fit_last$n_reference[["validation"]]), 200L)
})

test_that("predict() ignores the reference column by default, and folds it in on request", {
  d <- coloc_data(600, 2, 200)
  fit <- fit_ref(d)
  without <- d[setdiff(names(d), "ref")]
  expect_identical(predict(fit, d), predict(fit, without))
  with_ref <- predict(fit, d, use_reference = TRUE)
  expect_false(isTRUE(all.equal(with_ref$.pred[1:200], predict(fit, d)$.pred[1:200])))
  expect_identical(with_ref$.pred[201:600], predict(fit, d)$.pred[201:600])
  expect_true(all(with_ref$.post_sd[1:200] < predict(fit, d)$.post_sd[1:200]))
  expect_error(predict(fit, without, use_reference = TRUE), "ref")
  expect_output(print(fit), "Reference: ref, observed beside the sensors on .* rows; noise from the covariates")
})

test_that("the reference's noise is one learned value unless it should follow the covariates", {
  # The reference reads the truth with noise sd 0.3 at the driest rows rising to 2 at the
  # wettest (rh 20 to 95), so a noise that follows rh fits it and a constant one cannot.
  d <- coloc_data(3000, 5, 3000)
  ref_sd <- 0.3 + 1.7 * (d$rh - 20) / 75
  d$ref <- d$truth + withr::with_seed(6, stats::rnorm(nrow(d), sd = ref_sd))
  fit_with <- function(rule) {
    ncam(s1 + s2 ~ rh, data = d, reference = "ref", hidden = 8L, epochs = 150L, learn_rate = 0.01,
         seed = 3L, threads = 1L, control = ncam_control(reference_noise = rule))
  }
  ref_sigma <- function(fit) {
    p <- sensor_params(fit, d)
    p$sigma[p$sensor == "ref"]
  }
  constant <- ref_sigma(fit_with("constant"))
  covariates <- ref_sigma(fit_with("covariates"))
  expect_lt(diff(range(constant)), 1e-6 * mean(constant))
  # One value for all rows: about the root mean square of the true sds.
  expect_equal(mean(constant), sqrt(mean(ref_sd^2)), tolerance = 0.15)
  dry <- d$rh < 40
  wet <- d$rh > 75
  expect_equal(mean(covariates[dry]), mean(ref_sd[dry]), tolerance = 0.35)
  expect_equal(mean(covariates[wet]), mean(ref_sd[wet]), tolerance = 0.15)
  expect_output(print(fit_with("constant")), "constant noise")
})

test_that("a constant reference noise starts at the least-squares residual and ends at its best value", {
  d <- coloc_data(800, 9, 400)
  fit <- suppressWarnings(ncam(s1 + s2 ~ rh, data = d, reference = "ref", hidden = 8L, epochs = 30L,
                               validation = 0, seed = 4L, threads = 1L,
                               control = ncam_control(reference_noise = "constant")),
                          classes = "ncam_warning_not_converged")
  # The start: the residual variance of the reference on the other sensors and the covariates,
  # on the working scale, from lm() on the rows where all of them read.
  ls_fit <- stats::lm(ref ~ s1 + s2 + rh, data = d)
  expect_equal(fit$spec$anchor_noise_start,
               log(sum(stats::residuals(ls_fit)^2) / stats::df.residual(ls_fit) / fit$scaling$b_scale^2),
               tolerance = 1e-10)
  # The end: the training objective is larger on either side of the constant (its output bias).
  layout <- ncam:::ncam_layout_cpp(fit$spec)$heads$reliability
  at <- layout$b_offset[length(layout$b_offset)] + fit$spec$anchor + 1
  loss_at <- function(shift) {
    params <- fit$params
    params[at] <- params[at] + shift
    ncam:::ncam_objective_cpp(fit$spec, params, d["rh"], d[c("s1", "s2", "ref")], fit$scaling,
                              seq_len(nrow(d)) - 1L, 1L, "float")$loss
  }
  expect_lt(loss_at(0), loss_at(0.05))
  expect_lt(loss_at(0), loss_at(-0.05))  # The weights held at 0 (one per unit of the last hidden layer) are not counted in df.
  covariates <- suppressWarnings(update(fit, control = ncam_control(reference_noise = "covariates")),
                                 classes = "ncam_warning_not_converged")
  expect_identical(length(fit$params), length(covariates$params))
  expect_identical(attr(logLik(covariates), "df") - attr(logLik(fit), "df"), 8L)
  expect_identical(glance(fit)$df, attr(logLik(fit), "df"))
})

test_that("a constant reference noise is learned in a short fit, as the ?ncam example fits", {
  # Started where initialisation puts it and left where training stopped, it stayed near the
  # reference's whole spread (4.7 against a true 0.76 here).
  fit <- ncam(pa_a + pa_b + opc ~ rh + temperature, data = colocation, reference = "ref",
              hidden = c(16, 16), epochs = 100, seed = 1, threads = 1,
              control = ncam_control(reference_noise = "constant"))
  p <- sensor_params(fit, colocation)
  true_sd <- stats::sd(colocation$ref - colocation$truth, na.rm = TRUE)
  expect_equal(unique(p$sigma[p$sensor == "ref"]), true_sd, tolerance = 0.3)
})

test_that("a fit without a reference is the same whatever reference_noise says", {
  d <- coloc_data(400, 8, 0)
  fit_with <- function(rule) {
    suppressWarnings(ncam(s1 + s2 ~ rh, data = d, anchor = "s1", hidden = 4L, epochs = 5L, seed = 2L, threads = 1L,
                          control = ncam_control(reference_noise = rule)),
                     classes = c("ncam_warning_two_sensors", "ncam_warning_not_converged"))
  }
  expect_identical(fit_with("constant")$params, fit_with("covariates")$params)
})

test_that("reference errors name the cause", {
  d <- coloc_data(300, 3, 100)
  expect_error(ncam(s1 + s2 + ref ~ rh, d, reference = "ref"), "also a sensor")
  expect_error(ncam(s1 + s2 ~ rh + ref, d, reference = "ref"), "ref cannot be both the reference and a covariate")
  expect_error(ncam(s1 + s2 ~ rh + s2, d, reference = "ref"), "s2 cannot be both a sensor and a covariate")
  expect_error(ncam(s1 + s2 ~ rh, d, reference = "ref", anchor = "s1"), "must be .*NULL")
  # An anchor held in a variable is judged by its value (the expression `no_anchor` was taken for one).
  no_anchor <- NULL
  quick <- function(...) suppressWarnings(ncam(s1 + s2 ~ rh, d, reference = "ref", hidden = integer(0), epochs = 3L,
                                              seed = 1, threads = 1, ...))
  pred <- function(fit) suppressWarnings(predict(fit, d)$.pred, classes = "ncam_warning_extrapolation")
  expect_identical(pred(quick(anchor = no_anchor)), pred(quick()))
  some_anchor <- "s1"
  expect_error(ncam(s1 + s2 ~ rh, d, reference = "ref", anchor = some_anchor), "must be .*NULL")
  expect_error(ncam(s1 + s2 ~ rh, d, reference = "nope"), "nope")
  d$chr <- as.character(d$ref)
  expect_error(ncam(s1 + s2 ~ rh, d, reference = "chr"), "must be numeric")
  d$none <- NA_real_
  err <- expect_error(ncam(s1 + s2 ~ rh, d, reference = "none"), "never observed")
  expect_match(gsub("\\s+", " ", cli::ansi_strip(conditionMessage(err))), "never observed.*time zone.*label-free fit")
  d$few <- NA_real_
  d$few[1:5] <- 1:5
  expect_error(ncam(s1 + s2 ~ rh, d, reference = "few"), "at least 20")
  # A time split whose validation rows hold the whole co-location period.
  labelled <- which(!is.na(d$ref))
  expect_error(ncam(s1 + s2 ~ rh, d, reference = "ref", validation = labelled[-(1:10)]),
               "observed beside the sensors on 10 training rows \\(90 more are validation rows\\); at least 20 training rows")
  # 22 co-location rows of 300: a random tenth for validation takes 3 or more of them with
  # some seeds, which left fewer than 20 training and made the fit depend on the seed. Such a
  # draw gives back just enough; one that leaves 20 or more is kept as drawn.
  short <- d
  short$ref[-(1:22)] <- NA
  fit_seed <- function(data, seed) {
    suppressWarnings(ncam(s1 + s2 ~ rh, data, reference = "ref", hidden = integer(0), epochs = 3L, seed = seed, threads = 1))
  }
  n_reference <- vapply(1:10, function(seed) fit_seed(short, seed)$n_reference, integer(2))
  expect_true(all(n_reference["train", ] >= 20L & colSums(n_reference) == 22L))
  drawn_in_validation <- vapply(1:10, function(seed) {
    sum(with_local_seed(seed, sample.int(300, 30)) <= 22L)
  }, integer(1))
  expect_true(any(drawn_in_validation > 2L))  # the seeds include draws that took too many
  expect_identical(n_reference["validation", ], pmin(drawn_in_validation, 2L))
  # Enough co-location rows: the draw is kept (the validation rows are the seed's tenth).
  fit <- fit_seed(d, 4)
  expect_identical(sum(fit$n_reference), 100L)
  expect_identical(fit$n_reference[["validation"]], sum(with_local_seed(4, sample.int(300, 30)) <= 100L))
  # Rows where the reference reads without any sensor tell nothing of its noise: not counted.
  alone <- d
  alone$ref[101:200] <- alone$truth[101:200]
  alone[101:200, c("s1", "s2")] <- NA
  alone$ref[11:100] <- NA
  err <- expect_error(ncam(s1 + s2 ~ rh, alone, reference = "ref"), class = "ncam_error")
  expect_match(gsub("\\s+", " ", cli::ansi_strip(conditionMessage(err))),
               "observed beside the sensors on 10 rows; at least 20 are needed.*100 more rows read the reference without any sensor reading")
  alone$ref[11:30] <- d$ref[11:30]
  expect_error(ncam(s1 + s2 ~ rh, alone, reference = "ref", validation = 11:30),
               "observed beside the sensors on 10 training rows \\(20 more are validation rows\\)")
  expect_error(ncam(s1 + s2 ~ rh, d, reference = "ref", parameterization = "unanchored"), "anchored")
  expect_error(ncam(s1 ~ rh, d), "at least two sensors.*reference")
})

test_that("the hints of the column checks name the data frame the user gave: newdata to predict(), data to calibrate()", {
  flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
  d <- coloc_data(400, 3, 400)
  fit <- fit_ref(d[1:300, ])
  new <- d[301:310, ]
  new$ref <- as.character(new$ref)
  # The review's case: predict(fit, nd, use_reference = TRUE) with the reference as text said
  # "Convert it: `data$ref <- as.numeric(data$ref)`".
  expect_match(flat(expect_error(predict(fit, new, use_reference = TRUE), class = "ncam_error")),
               "Convert it: `newdata$ref <- as.numeric(newdata$ref)`.", fixed = TRUE)
  new$ref[2] <- "<LOD"
  expect_match(flat(expect_error(predict(fit, new, use_reference = TRUE))),
               "then convert the column: `newdata$ref <- as.numeric(newdata$ref)`", fixed = TRUE)
  # calibrate() reads its `data`, in its own code and through predict()'s helpers.
  expect_match(flat(expect_error(calibrate(fit, new, method = "split"))), "`data$ref <- as.numeric(data$ref)`", fixed = TRUE)
  factor_sensor <- d[301:310, ]
  factor_sensor$s1 <- factor(factor_sensor$s1)
  expect_match(flat(expect_error(predict(fit, factor_sensor))), "`newdata$s1 <- as.numeric(as.character(newdata$s1))`", fixed = TRUE)
  expect_match(flat(expect_error(calibrate(fit, factor_sensor, method = "split"))), "`data$s1 <- as.numeric(as.character(data$s1))`",
               fixed = TRUE)
  # Without newdata, the fit's data by its name.
  expect_match(flat(expect_error(fitted(fit, factor_sensor))), "`newdata$s1 <- ", fixed = TRUE)
  twice <- cbind(d[301:310, ], d[301:310, "s1", drop = FALSE])
  expect_match(flat(expect_error(predict(fit, twice))), "`newdata[!duplicated(names(newdata))]`", fixed = TRUE)
  expect_match(flat(expect_error(calibrate(fit, twice, method = "split"))), "`data[!duplicated(names(data))]`", fixed = TRUE)
  expect_match(flat(expect_error(evaluate_fusion(data.frame(.pred = 1:3, .pred = 1:3, check.names = FALSE), 1:3))),
               "`pred[!duplicated(names(pred))]`", fixed = TRUE)
  matrix_column <- d[301:310, ]
  matrix_column$rh <- cbind(matrix_column$rh, matrix_column$rh)
  matrix_text <- flat(expect_error(predict(fit, matrix_column)))
  expect_match(matrix_text, "Covariate rh is a matrix with 2 columns: ncam needs one value per row. i Give `newdata` the model's columns as plain columns",
               fixed = TRUE)
  expect_no_match(matrix_text, "name those in `formula`", fixed = TRUE)
})

test_that("a reference given as values, a column of text, a constant reference and a formula as text say what to do", {
  flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
  d <- coloc_data(300, 3, 100)
  # The column's values, or NA, instead of its name: not an internal error of vctrs.
  by_value <- expect_error(ncam(s1 + s2 ~ rh, tibble::as_tibble(d), reference = d$ref), class = "ncam_error")
  expect_match(flat(by_value), "`reference` must be a single column name, not a double vector (the column's values?). i Give the column's name, such as `reference = \"ref\"`.",
               fixed = TRUE)
  expect_match(flat(expect_error(ncam(s1 + s2 ~ rh, d, reference = NA))), "`reference` must be a single column name, not `NA`",
               fixed = TRUE)
  d$site <- rep(1:2, 150)
  expect_error(ncam_by(s1 + s2 ~ rh, d, by = "site", reference = d$ref), "`reference` must be a single column name")
  # Text: the first entries that are not numbers, and the conversion.
  d$chr <- as.character(d$ref)
  d$chr[c(5, 8, 9, 12)] <- c("<LOD", "12,5", "n/a", "0x1A")
  text <- flat(expect_error(ncam(s1 + s2 ~ rh, d, reference = "chr")))
  expect_match(text, "Reference column chr must be numeric, not a character vector: 4 entries are not a number, the first \"<LOD\" (row 5), \"12,5\" (row 8), \"n/a\" (row 9).",
               fixed = TRUE)
  expect_match(text, "`data$chr <- as.numeric(data$chr)`", fixed = TRUE)
  d$txt <- as.character(d$s1)
  expect_match(flat(expect_error(ncam(txt + s2 ~ rh, d, reference = "ref"))),
               "Sensor column txt must be numeric, not a character vector: it holds numbers stored as text. i Convert it: `data$txt <- as.numeric(data$txt)`.",
               fixed = TRUE)
  # A text column without any entry holds no number to convert: in training it is left out,
  # in new data converted.
  d$empty <- NA_character_
  expect_identical(flat(expect_error(ncam(empty + s2 ~ rh, d, reference = "ref"), class = "ncam_error")),
                   "Sensor column empty must be numeric, not a character vector: every entry is missing (`NA` or empty), so it holds no reading. i Leave the sensor out of `formula`: it has no reading to learn from.")
  d$fac <- factor(d$s1)
  expect_match(flat(expect_error(ncam(fac + s2 ~ rh, d, reference = "ref"))), "as.numeric(as.character(data$fac))", fixed = TRUE)
  # A reference at a missing-value code wherever it is observed is the reference's fault.
  d$code <- ifelse(is.na(d$ref), NA, -999)
  constant <- flat(expect_error(ncam(s1 + s2 ~ rh, d, reference = "code")))
  expect_match(constant, "Reference column code reads -999 on every training row where it is observed", fixed = TRUE)
  expect_match(constant, "`data$code[data$code == -999] <- NA`); if no reading is left, leave out `reference` for a label-free fit.",
               fixed = TRUE)
  expect_no_match(constant, "formula")
  expect_match(flat(expect_error(ncam("s1 + s2 ~ rh", d, reference = "ref"))),
               "`formula` must be a two-sided formula such as `a + b ~ rh + temp`, not a string. i Convert the text first: `stats::as.formula(\"s1 + s2 ~ rh\")`.",
               fixed = TRUE)
})

test_that("a short co-location warns that credible intervals ignore the calibration's error", {
  # 199 reference rows, training and validation together, warn; 200 do not.
  # Not through fit_ref(): short_fit() muffles this very warning.
  fit_few <- function(d, ...) {
    suppressWarnings(ncam(s1 + s2 ~ rh, data = d, reference = "ref", hidden = 8L, epochs = 40L, seed = 3L,
                          threads = 1L, ...), classes = "ncam_warning_not_converged")
  }
  d <- coloc_data(400, 5, 200)
  expect_no_warning(fit_few(d), class = "ncam_warning_few_reference_rows")
  d$ref[200] <- NA
  expect_warning(fit_few(d, validation = 0.3),
                 "observed beside the sensors on only 199 training and validation rows: credible intervals ignore the error",
                 class = "ncam_warning_few_reference_rows")
  # Reference readings without a sensor reading do not make up the count; print() tells them apart.
  d$ref[200] <- d$truth[200]
  d$ref[201:260] <- d$truth[201:260]
  d[c(200, 201:260), c("s1", "s2")] <- NA
  expect_warning(fit <- fit_few(d, validation = 0), "observed beside the sensors on only 199 training",
                        class = "ncam_warning_few_reference_rows")
  expect_identical(fit$n_reference, c(train = 199L, validation = 0L))
  expect_identical(fit$n_reference_alone, 61L)
  expect_identical(glance(fit)$n_reference, 199L)
  expect_match(paste(capture.output(print(fit)), collapse = " "),
               "observed beside the sensors on 199 training and 0 validation rows (61 more without a sensor reading)", fixed = TRUE)
  expect_warning(fit_few(d), "calibrate\\(method = \"split\"\\)", class = "ncam_warning_few_reference_rows")
})

test_that("residuals() give the reference minus the estimate from the low-cost sensors", {
  d <- coloc_data(600, 2, 200)
  fit <- fit_ref(d)
  res <- residuals(fit, d)
  expect_identical(colnames(res), c("s1", "s2", "ref"))
  estimate <- predict(fit, d)$.pred
  expect_equal(res[1:200, "ref"], d$ref[1:200] - estimate[1:200])
  expect_true(all(is.na(res[201:600, "ref"])))
  # A low-cost sensor's: its bias-corrected reading minus the same estimate.
  heads <- sensor_params(fit, d)
  s1 <- heads[heads$sensor == "s1", ]
  expect_equal(res[, "s1"], (d$s1 - s1$c) / s1$a - estimate)
  expect_true(all(is.na(residuals(fit, d[setdiff(names(d), "ref")])[, "ref"])))
})

test_that("new reference readings are checked as sensor readings are", {
  d <- coloc_data(600, 4, 200)
  d$s2 <- pmax(d$s2, 0.1)  # a log model needs positive training readings
  log_fit <- fit_ref(d, transform = "log")
  new <- d[201:203, ]
  new$ref <- c(0, -1, 12)
  as_missing <- new
  as_missing$ref[1:2] <- NA
  # A reading <= 0 has no log: missing, with the warning sensors get (it gave .pred 0 and sd 0).
  expect_warning(zero <- predict(log_fit, new, use_reference = TRUE, interval = "prediction"),
                 class = "ncam_warning_nonpositive_reading")
  expect_identical(zero, predict(log_fit, as_missing, use_reference = TRUE, interval = "prediction"))
  expect_identical(zero$.n_sensors, c(2L, 2L, 3L))
  expect_warning(res <- residuals(log_fit, new), class = "ncam_warning_nonpositive_reading")
  expect_identical(res[1:2, "ref"], c(NA_real_, NA_real_))
  # An infinite reference reading is an error naming it (it gave .pred Inf).
  fit <- fit_ref(d)
  new$ref[1] <- Inf
  expect_error(predict(fit, new, use_reference = TRUE), "Reference column .*ref.* infinite value in row 1")
  # Split calibration counts every unusable reference reading it leaves out, with the right verb.
  held_out <- d[1:100, ]
  held_out$ref[1:3] <- c(NA, 0, -2)
  expect_message(expect_warning(cal <- calibrate(log_fit, held_out, method = "split", reference = "ref"),
                                class = "ncam_warning_nonpositive_reading"),
                 "3 rows of `data` without a reference value .* are left out")
  expect_identical(cal$n, 97L)
})

test_that("one low-cost sensor with a reference predicts reference readings as a regression would", {
  # Simulated from the model with affine heads: Theta ~ N(10 + 2x, 3^2), the sensor reads
  # 1.5 Theta + 2 + 0.5x + N(0, 1), the reference Theta + N(0, 0.7^2) on the first 1500 rows.
  withr::local_seed(42)
  n <- 6000
  x <- stats::runif(n, -1, 1)
  theta <- stats::rnorm(n, 10 + 2 * x, 3)
  d <- data.frame(x = x, s1 = 1.5 * theta + 2 + 0.5 * x + stats::rnorm(n), ref = theta + stats::rnorm(n, sd = 0.7))
  new_reading <- theta + stats::rnorm(n, sd = 0.7)
  labelled <- 1:1500
  d$ref[-labelled] <- NA
  expect_warning(fit <- ncam(s1 ~ x, data = d, reference = "ref", hidden = integer(0), epochs = 300L,
                             learn_rate = 0.02, seed = 1L, threads = 1L),
                 "not identified", class = "ncam_warning_two_sensors")
  test <- -labelled
  pi <- predict(fit, d[test, ], interval = "prediction", level = 0.9)
  cover <- mean(new_reading[test] >= pi$.pred_lower & new_reading[test] <= pi$.pred_upper)
  expect_lt(abs(cover - 0.9), 4 * sqrt(0.9 * 0.1 / length(new_reading[test])))
  # The best predictor of a reference reading is linear here: the lm on the labelled rows.
  peer <- stats::lm(ref ~ s1 + x, data = d[labelled, ])
  rmse <- function(p) sqrt(mean((p - new_reading[test])^2))
  expect_lt(rmse(pi$.pred), 1.02 * rmse(stats::predict(peer, d[test, ])))
  expect_equal(pi$.pred, unname(stats::predict(peer, d[test, ])), tolerance = 0.05)
})

test_that("a prediction interval is the posterior widened by the anchor's own noise variance", {
  # The interval by hand from the posterior (predict() without an interval) and the anchor's
  # noise sd per row (sensor_params()), on rows with and without sensor readings and a row
  # without its covariate.
  d <- coloc_data(600, 11, 300)
  rows <- d[c(1:5, 301:305), ]
  rows$s1[2] <- NA
  rows$rh[7] <- NA
  by_hand <- function(fit, anchor, ..., level = 0.8) {
    post <- predict(fit, rows, ...)
    sigma <- with(sensor_params(fit, rows), sigma[sensor == anchor])
    sd <- sqrt(post$.post_sd^2 + sigma^2)
    z <- stats::qnorm((1 + level) / 2)
    got <- predict(fit, rows, interval = "prediction", level = level, ...)
    expect_equal(got$.pred, post$.pred)
    expect_equal(got$.pred_sd, sd, tolerance = 1e-12)
    expect_equal(got$.pred_lower, post$.pred - z * sd, tolerance = 1e-12)
    expect_equal(got$.pred_upper, post$.pred + z * sd, tolerance = 1e-12)
    expect_identical(which(is.na(got$.pred_sd)), 7L)
  }
  missing_rh <- "ncam_warning_missing_covariate"
  suppressWarnings(classes = missing_rh, {
    fit <- fit_ref(d)
    # The reference's noise follows rh: a prediction interval's width varies with it.
    expect_gt(stats::sd(with(sensor_params(fit, rows), sigma[sensor == "ref"]), na.rm = TRUE), 0)
    by_hand(fit, "ref")
    by_hand(fit, "ref", use_reference = TRUE)
    by_hand(fit_ref(d, control = ncam_control(reference_noise = "constant")), "ref", level = 0.95)
    # Without a reference: the anchor sensor's noise.
    anchored <- short_fit(ncam(s1 + s2 + ref ~ rh, data = d, anchor = "s2", hidden = 8L, epochs = 40L, seed = 3L,
                               threads = 1L))
    by_hand(anchored, "s2")
  })
})

test_that("prediction intervals cover a new anchor reading and credible ones cover Theta", {
  # Data simulated from the model itself, with constant heads: Theta ~ N(10, 2^2); the anchor
  # reads Theta + N(0, 1.5^2); the other sensors their own gain, offset and noise.
  withr::local_seed(7)
  n <- 16000
  theta <- stats::rnorm(n, 10, 2)
  d <- data.frame(s1 = 1.2 * theta + 2 + stats::rnorm(n, sd = 1),
                  s2 = 0.9 * theta - 1 + stats::rnorm(n, sd = 0.8),
                  ref = theta + stats::rnorm(n, sd = 1.5))
  new_reading <- theta + stats::rnorm(n, sd = 1.5)
  train <- 1:8000
  test <- d[-train, c("s1", "s2")]
  for (rule in c("covariates", "constant")) {
    fit <- ncam(s1 + s2 ~ 1, data = d[train, ], reference = "ref", hidden = integer(0),
                epochs = 200L, learn_rate = 0.02, seed = 1L, threads = 1L, sigma_y2 = 0,
                control = ncam_control(reference_noise = rule))
    pi <- predict(fit, test, interval = "prediction", level = 0.9)
    ci <- predict(fit, test, interval = "credible", level = 0.9)
    cover_pi <- mean(new_reading[-train] >= pi$.pred_lower & new_reading[-train] <= pi$.pred_upper)
    cover_ci <- mean(theta[-train] >= ci$.pred_lower & theta[-train] <= ci$.pred_upper)
    tol <- 4 * sqrt(0.9 * 0.1 / 8000)  # four binomial standard errors
    expect_equal(unique(round(sensor_params(fit, test)$sigma[sensor_params(fit, test)$sensor == "ref"], 8)), 1.5,
                 tolerance = 0.05)
    expect_lt(abs(cover_pi - 0.9), tol)
    expect_lt(abs(cover_ci - 0.9), tol)
    expect_true(all(pi$.pred_upper - pi$.pred_lower > ci$.pred_upper - ci$.pred_lower))
  }
  # Without an anchor there is no instrument to predict a reading of.
  un <- short_fit(ncam(s1 + s2 ~ 1, data = d[train, ], parameterization = "unanchored", hidden = integer(0),
                       epochs = 2L, seed = 1L, threads = 1L), also = "ncam_warning_two_sensors")
  expect_error(predict(un, test, interval = "prediction"), "no anchor")
})

test_that("calibrate() on a reference fit uses the reference: split by default, scaled as a reference reading", {
  d <- coloc_data(900, 6, 600)
  fit <- fit_ref(d[1:300, ])
  held_out <- d[301:600, ]
  cal <- calibrate(fit, held_out)
  expect_identical(cal$method, "split")
  # Scores by hand: |reference - estimate| / sd of a new reference reading.
  pred <- predict(fit, held_out, interval = "prediction")
  scores <- sort(abs(held_out$ref - pred$.pred) / pred$.pred_sd)
  expect_equal(cal$quantile, scores[ceiling(0.9 * 301)])
  later <- predict(cal, d[601:900, ])
  expect_equal(later$.pred_upper - later$.pred,
               cal$quantile * predict(fit, d[601:900, ], interval = "prediction")$.pred_sd)
  # On the data of the fit itself, split conformal says that its labels trained the model.
  expect_warning(calibrate(fit, d[1:300, ]), class = "ncam_warning_in_sample_calibration")
  expect_warning(calibrate(fit, d[300:1, ]), class = "ncam_warning_in_sample_calibration")  # in any order
  # Some of the fitted rows among new ones: counted, when the fitted data can be found (fit's
  # was made in fit_ref(), whose frame is gone).
  first_rows <- d[1:300, ]
  fit_here <- short_fit(ncam(s1 + s2 ~ rh, data = first_rows, reference = "ref", hidden = 8L,
                             epochs = 40L, seed = 3L, threads = 1L))
  expect_warning(calibrate(fit_here, d[c(1:100, 301:600), ]), "100 of the 400 rows .* are rows")
  expect_no_warning(calibrate(fit_here, d[301:600, ]))
  # Rows the model was fitted to without their reference reading taught it nothing about the
  # reference: calibrating on them, against that column filled in later or another column, is
  # out of sample (with or without the fitted data at hand).
  unlabelled_fit <- transform(first_rows, ref = ifelse(seq_along(ref) <= 150, ref, NA))
  fit_half <- short_fit(ncam(s1 + s2 ~ rh, data = unlabelled_fit, reference = "ref", hidden = 8L,
                             epochs = 40L, seed = 3L, threads = 1L), also = "ncam_warning_few_reference_rows")
  later_truth <- transform(unlabelled_fit, truth = first_rows$ref)[151:300, ]
  expect_no_warning(calibrate(fit_half, later_truth, reference = "truth"))
  expect_no_warning(calibrate(fit_half, first_rows[151:300, ]))
  expect_warning(calibrate(fit_half, first_rows[101:300, ]), "50 of the 200 rows .* are rows")
  expect_warning(calibrate(fit_half, transform(unlabelled_fit, truth = first_rows$ref), reference = "truth"),
                 "150 of the 300 rows .* are rows", class = "ncam_warning_in_sample_calibration")
  # Without reference readings, a label-free method says what it cannot do.
  expect_warning(calibrate(fit, held_out[names(held_out) != "ref"], m = 5, seed = 1),
                 class = "ncam_warning_label_free_calibration")
  expect_warning(calibrate(fit, held_out, method = "sensor_anchored"), "not against the reference monitor")
})

test_that("calibrate() takes for fitted rows only rows equal in every shared column, times as instants", {
  d <- simulate_colocation(days = 40, colocation = 40, seed = 3)
  for (v in c("pa_a", "pa_b", "ref")) d[[v]] <- round(d[[v]])  # whole-number readings repeat
  d$site <- factor(rep(c("north", "south"), length.out = nrow(d)))
  early <- d[1:480, ]
  fit <- short_fit(ncam(pa_a + pa_b ~ site, data = early, reference = "ref", hidden = 4L,
                        epochs = 10L, seed = 1L, threads = 1L))
  # Later days repeat many fitted readings, but not their times: no warning.
  expect_no_warning(suppressMessages(calibrate(fit, d[481:960, ])))
  # Fitted rows are found whatever the factor's codes, and counted among new ones.
  mixed <- d[c(1:40, 481:600), ]
  mixed$site <- factor(as.character(mixed$site), levels = c("south", "north"))
  labelled <- sum(!is.na(mixed$ref))
  fitted_labelled <- sum(!is.na(d$ref[1:40]))
  expect_warning(suppressMessages(calibrate(fit, mixed)),
                 sprintf("%d of the %d rows .* are rows", fitted_labelled, labelled))
  # A time column in another class or zone is compared as the same instants.
  other_zone <- mixed
  attr(other_zone$date, "tzone") <- "America/New_York"
  expect_warning(suppressMessages(calibrate(fit, other_zone)),
                 sprintf("%d of the %d rows .* are rows", fitted_labelled, labelled))
  # Times as text still tell equal readings on other days apart.
  as_text <- transform(d, date = format(date))
  fit_text <- short_fit(ncam(pa_a + pa_b ~ site, data = as_text[1:480, ], reference = "ref", hidden = 4L,
                             epochs = 10L, seed = 1L, threads = 1L))
  expect_no_warning(suppressMessages(calibrate(fit_text, as_text[481:960, ])))
  by_day <- transform(early, date = as.Date(date))
  fit_by_day <- short_fit(ncam(pa_a + pa_b ~ site, data = by_day, reference = "ref", hidden = 4L,
                               epochs = 10L, seed = 1L, threads = 1L))
  expect_warning(suppressMessages(calibrate(fit_by_day, transform(by_day[1:40, ], date = as.POSIXct(date)))),
                 sprintf("%d of the %d rows .* are rows", fitted_labelled, fitted_labelled))
  expect_no_warning(suppressMessages(calibrate(fit_by_day, transform(by_day[1:40, ], date = as.POSIXct(date) + 3600))))
})

test_that("a reference noise at the lower clamp is printed, not warned about", {
  d <- coloc_data(600, 3, 300)
  d$ref[1:300] <- d$truth[1:300] + withr::with_seed(4, stats::rnorm(300, sd = 0.01))
  warnings <- list()
  # A noise that follows the covariates: a constant one, the default, moves by about the
  # learning rate per step and stops (early) above the clamp here.
  fit <- withCallingHandlers(
    ncam(s1 + s2 ~ rh, data = d, reference = "ref", hidden = 8L, epochs = 150L, learn_rate = 0.01,
         seed = 3L, threads = 1L, control = ncam_control(reference_noise = "covariates")),
    warning = function(w) {
      warnings[[length(warnings) + 1L]] <<- w
      invokeRestart("muffleWarning")
    })
  expect_length(Filter(function(w) inherits(w, "ncam_warning_clamp"), warnings), 0L)
  expect_gt(fit$clamped_share["low", "ref"], 0.5)
  printed <- paste(cli::ansi_strip(utils::capture.output(print(fit))), collapse = " ")
  expect_match(printed, "Noise at the lower clamp of `logvar_range` .*: ref [0-9]+% of rows")
})

test_that("a text column of new data without any entry is a sensor that did not read: convert it", {
  d <- simulate_colocation(days = 10, colocation = 5, seed = 2)
  fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh, data = d, reference = "ref", hidden = 4L, epochs = 3L, seed = 1L, threads = 1L),
                   also = "ncam_warning_clamp")
  nd <- d
  nd$opc <- NA_character_
  err <- expect_error(predict(fit, nd), class = "ncam_error")
  expect_identical(gsub("\\s+", " ", cli::ansi_strip(conditionMessage(err))),
                   "Sensor column opc must be numeric, not a character vector: every entry is missing (`NA` or empty), so it holds no reading. i Without readings, it is a column of missing numbers: convert it, `newdata$opc <- as.numeric(newdata$opc)`.")
  # The conversion as given gives the predictions without opc.
  newdata <- nd
  eval(str2lang("newdata$opc <- as.numeric(newdata$opc)"))
  without <- d
  without$opc <- NA_real_
  expect_identical(suppressWarnings(predict(fit, newdata)), suppressWarnings(predict(fit, without)))
  nd$opc <- c("", " NA", "nan")[rep_len(1:3, nrow(nd))]  # missing-value text, as a file writes it
  expect_error(predict(fit, nd), "every entry is missing")
})
