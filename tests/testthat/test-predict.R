test_that("predict returns one row per input row, in order, with the documented columns", {
  toy <- simulate_toy(n = 400, seed = 21)
  fit <- quick_fit(toy)
  pred <- predict(fit, toy, interval = "credible", level = 0.8)
  expect_s3_class(pred, "data.frame")
  expect_named(pred, c(".pred", ".pred_sd", ".post_sd", ".n_sensors", ".extrapolation", ".disagreement", ".pred_lower",
                      ".pred_upper"))
  expect_equal(nrow(pred), nrow(toy))
  z <- qnorm(0.9)
  expect_equal(pred$.pred_upper - pred$.pred, z * pred$.pred_sd)
  expect_equal(pred$.pred_sd^2, pred$.post_sd^2 + ncam:::aleatoric_variance(fit))
  reordered <- predict(fit, toy[c(10, 3, 7), ])
  expect_equal(reordered$.pred, pred$.pred[c(10, 3, 7)])
  expect_named(predict(fit, toy), c(".pred", ".pred_sd", ".post_sd", ".n_sensors", ".extrapolation", ".disagreement"))
  expect_equal(predict(fit)$.pred, predict(fit, toy)$.pred)
  expect_equal(fitted(fit), predict(fit, toy)$.pred)
})

test_that("a fit made in a function keeps what its formula names, not the function's data", {
  make <- function(n) {
    toy <- simulate_toy(n = n, seed = 24)
    ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + log_x2(x2), data = toy, hidden = 4L,
         epochs = 2L, seed = 1L, threads = 1L)
  }
  # As when defined at top level by Rscript: neither this file's frames nor its source text
  # (testthat keeps it) come with the function.
  log_x2 <- removeSource(function(x) log(abs(x) + 1))
  environment(log_x2) <- globalenv()
  fit <- suppressWarnings(make(20000))
  expect_lt(length(serialize(fit, NULL)), 1e5)
  # A helper defined inside the function keeps what its body names, not the function's data.
  make_local <- function(n) {
    toy <- simulate_toy(n = n, seed = 24)
    shift <- 1
    log_x2 <- function(x) log(abs(x) + shift)
    ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + log_x2(x2), data = toy, hidden = 4L,
         epochs = 2L, seed = 1L, threads = 1L)
  }
  local_fit <- suppressWarnings(make_local(20000))
  expect_identical(ls(environment(environment(local_fit$formula)$log_x2)), "shift")
  expect_equal(predict(local_fit, simulate_toy(n = 50, seed = 25))$.pred,
               predict(fit, simulate_toy(n = 50, seed = 25))$.pred)
  # A function the formula names from the caller's frames still serves predict().
  new <- simulate_toy(n = 50, seed = 25)
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(fit, path)
  rm(log_x2)
  expect_identical(predict(readRDS(path), new), predict(fit, new))
  gc()  # make() has returned: once its frame is collected, its data is gone
  expect_error(fitted(readRDS(path)), "pass it as")
  expect_error(fitted(fit), "pass it as")
})

test_that("without its data, fitted() names the call's data and says why it is not found", {
  toy <- simulate_toy(n = 300, seed = 31)
  fit <- quick_fit(toy)
  part <- quick_fit(toy[1:200, ])
  flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
  rm(toy)
  msg <- flat(expect_error(fitted(fit), "pass it as"))
  expect_match(msg, "Cannot find `toy`, the data `object` was fitted to, as it was then.", fixed = TRUE)
  expect_match(msg, "No object `toy` exists in the environment of its formula.", fixed = TRUE)
  msg <- flat(expect_error(fitted(part), "pass it as"))
  expect_match(msg, "Cannot find `toy[1:200, ]`, the data `object` was fitted to", fixed = TRUE)
  expect_match(msg, "`toy[1:200, ]` cannot be evaluated in the environment of its formula: object 'toy' not found", fixed = TRUE)
  toy <- "not a data frame"
  expect_match(flat(expect_error(fitted(fit))), "`toy` in the environment of its formula is not a data frame.", fixed = TRUE)
})

test_that("a setting the formula takes from its environment is saved with the fit", {
  skip_if_not_installed("callr")
  toy <- simulate_toy(n = 300, seed = 30)
  literal <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ poly(x1, 3), data = toy, hidden = 4L,
                                   epochs = 2L, seed = 1L, threads = 1L))
  make <- function(d, degree) {
    ncam(sensor_0 + sensor_1 + sensor_2 ~ poly(x1, degree), data = d, hidden = 4L, epochs = 2L,
         seed = 1L, threads = 1L)
  }
  in_function <- withr::local_tempfile(fileext = ".rds")
  saveRDS(suppressWarnings(make(toy, 3)), in_function)
  # At top level, where the fit keeps the global environment, not a copy of it.
  at_top <- withr::local_tempfile(fileext = ".rds")
  callr::r(function(path) {
    evalq({
      degree <- 3
      toy <- ncam::simulate_toy(n = 300, seed = 30)
      fit <- suppressWarnings(ncam::ncam(sensor_0 + sensor_1 + sensor_2 ~ poly(x1, degree), data = toy,
                                         hidden = 4L, epochs = 2L, seed = 1L, threads = 1L))
    }, globalenv())
    saveRDS(get("fit", globalenv()), path)
  }, args = list(at_top), libpath = .libPaths())
  # Each predicts in a fresh R session, which has no `degree`, as the fit with a literal 3 does.
  reloaded <- callr::r(function(paths, newdata) {
    loadNamespace("ncam")
    lapply(paths, function(path) stats::predict(readRDS(path), newdata))
  }, args = list(c(in_function, at_top), toy), libpath = .libPaths())
  expect_identical(reloaded[[1]], predict(literal, toy))
  expect_identical(reloaded[[2]], predict(literal, toy))
})

test_that("a covariate constant in training is left out, and predict() says when new values differ", {
  toy <- simulate_toy(n = 300, seed = 26)
  toy$site <- 3
  expect_warning(fit <- quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + site), "Dropping constant")
  new <- toy[1:10, ]
  new$site[4:5] <- 1000
  expect_warning(moved <- predict(fit, new), "2 rows of `newdata` have other values \\(row 4: 1000\\)",
                 class = "ncam_warning_constant_covariate")
  expect_identical(moved, predict(fit, toy[1:10, ]))  # no warning where the value is the training one
  # A transformed covariate goes through the model matrix: the same check, with the values alone
  # (the model matrix names its rows "1", "2", ...: no such names reach the fit or the warning).
  expect_warning(fit_i <- quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + I(2 * site)), "Dropping")
  expect_identical(fit_i$constant_values, list(`I(2 * site)` = 6))
  w <- expect_warning(predict(fit_i, new), class = "ncam_warning_constant_covariate")
  expect_identical(w[c("training_value", "first_value", "rows")], list(training_value = 6, first_value = 2000, rows = 4:5))
  # A text covariate with one value leaves the formula at fit time: the same check.
  toy$kind <- "urban"
  expect_warning(fit_k <- quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + kind), "single value")
  new$kind <- "urban"
  expect_no_warning(predict(fit_k, new))
  new$kind[2] <- "rural"
  expect_warning(predict(fit_k, new), "kind.* was urban on every training row.*row 2: rural",
                 class = "ncam_warning_constant_covariate")
})

test_that("sigma_y2 is a fraction of the variance of the anchor's training readings", {
  toy <- simulate_toy(n = 400, seed = 22)
  fit <- quick_fit(toy, validation = 0, sigma_y2 = 0.05)
  pred <- predict(fit, toy)
  expect_equal(pred$.pred_sd^2 - pred$.post_sd^2, rep(0.05 * var(toy$sensor_0), nrow(toy)))
})

test_that("a fit is small, saves and reloads to identical predictions, and finds its data again", {
  toy <- simulate_toy(n = 5000, seed = 23)
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy, hidden = 8L, epochs = 3L,
                        seed = 1L, threads = 1L))
  expect_lt(as.numeric(utils::object.size(fit)), 1e5)
  expect_lt(as.numeric(utils::object.size(quick_fit(toy))), 1e5)  # do.call() puts data in the call
  # What saveRDS() writes: object.size() leaves out environments, where a fit made in a
  # function (here test_that()'s) kept that function's data.
  expect_lt(length(serialize(fit, NULL)), 1e5)
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(fit, path)
  expect_identical(predict(readRDS(path), toy), predict(fit, toy))
  expect_equal(fitted(fit), predict(fit, toy)$.pred)
  # Read back, it finds its data while the frame it was made in exists, and needs the data
  # named in another session.
  expect_equal(fitted(readRDS(path)), fitted(fit))
  skip_if_not_installed("callr")
  elsewhere <- callr::r(function(path) tryCatch(stats::fitted(readRDS(path)), error = conditionMessage),
                        args = list(path = path), libpath = .libPaths())
  expect_match(elsewhere, "pass it as")
  # The data changed since the fit: fitted() says so instead of answering for other data.
  toy$sensor_1[1] <- toy$sensor_1[1] + 1
  expect_error(fitted(fit), "pass it as")
  expect_equal(fitted(fit, newdata = toy)[2:5], predict(fit, toy)$.pred[2:5])
})

test_that("without newdata, every column the fit read must hold the same values in the same order", {
  toy <- simulate_toy(n = 300, seed = 28)
  toy$kind <- rep(c("a", "b", "c"), length.out = nrow(toy))
  fit <- quick_fit(toy, formula = sensor_1 + sensor_2 ~ x1 + kind, anchor = NULL, reference = "sensor_0")
  original <- toy
  expected <- residuals(fit, newdata = toy)
  expect_equal(residuals(fit), expected)
  # Each change gives other numbers for the rows: residuals() must not answer for the fit's data.
  changes <- list(
    covariate = function(d) within(d, x1 <- x1 / 100),
    reference = function(d) within(d, sensor_0 <- sensor_0 + 5),
    resorted = function(d) d[rev(seq_len(nrow(d))), ],
    swapped = function(d) within(d, sensor_1[1:2] <- sensor_1[2:1]),
    small_edit = function(d) within(d, sensor_2[10] <- sensor_2[10] + 1e-4),
    text = function(d) within(d, kind[1:2] <- kind[2:1])
  )
  # The error says what changed.
  said <- c(covariate = "values of x1 differ", reference = "values of sensor_0 differ",
            resorted = "the rows of sensor_1, sensor_2, sensor_0, x1, and kind are in another order",
            swapped = "the rows of sensor_1 are in another order", small_edit = "values of sensor_2 differ",
            text = "the rows of kind are in another order")
  for (what in names(changes)) {
    toy <- changes[[what]](original)
    expect_gt(max(abs(residuals(fit, newdata = toy) - expected), na.rm = TRUE), 0)
    expect_error(residuals(fit), paste0("`toy` has changed since: ", said[[what]], ".*pass it as"), info = what)
    expect_error(predict(fit), "pass it as", info = what)
  }
  toy <- original[-1, ]
  expect_error(residuals(fit), "`toy` has changed since: it has 299 rows, the fit had 300")
  toy <- original[names(original) != "x1"]
  expect_error(residuals(fit), "`toy` has changed since: it lacks column x1")
  # Columns the fit did not read may change, and text may become a factor of the same values.
  toy <- within(original, {
    x4 <- 0
    kind <- factor(kind)
  })
  expect_equal(residuals(fit), expected)
})

test_that("the data check sees a swap of two rows however far apart, and accepts infinite values", {
  # Rows 75025 apart (a Fibonacci number) defeat weights made of the golden ratio's multiples.
  n <- 80000
  d <- data.frame(x = seq_len(n) / 7)
  swapped <- d
  swapped$x[c(1, 75026)] <- d$x[c(75026, 1)]
  expect_false(identical(data_fingerprint(swapped, "x")$order, data_fingerprint(d, "x")$order))
  expect_identical(data_fingerprint(d, "x")$order, data_fingerprint(data.frame(x = d$x + 0), "x")$order)
  # An infinite value the formula takes out (pmin) leaves the data its own.
  toy <- simulate_toy(n = 300, seed = 31)
  toy$w <- toy$x1
  toy$w[3] <- Inf
  fit <- quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ pmin(w, 10) + x2)
  expect_equal(fitted(fit), fitted(fit, newdata = toy))
})

test_that("the order-free hash of the data check is the same for the same values in any order and blocks", {
  x <- c(seq_len(200000) / 7, NA, NaN, 0, -Inf, Inf, 3, 3)
  shuffled <- rev(x)
  shuffled[shuffled %in% 0] <- -0  # the same value
  values <- function(v, block_rows = 65536L) data_fingerprint(data.frame(x = v), "x", block_rows = block_rows)$values
  expect_identical(values(shuffled), values(x))
  expect_identical(values(x, block_rows = 999L), values(x))
  expect_identical(values(x[!is.na(x)]), values(x))  # missing values are not values
  # The last bit of one value, or one value counted twice instead of another, is another hash.
  last_bit <- x
  last_bit[10] <- x[10] * (1 + .Machine$double.eps)
  expect_false(last_bit[10] == x[10])
  expect_false(identical(values(last_bit), values(x)))
  twice <- x
  twice[length(x)] <- 4
  expect_false(identical(values(twice), values(x)))
  # Text enters as the codes of its sorted values.
  expect_identical(data_fingerprint(data.frame(k = c("b", "a", "b")), "k")$values,
                   data_fingerprint(data.frame(k = factor(c("a", "b", "b"))), "k")$values)
})

test_that("a fit saved by an older version, with the old data check, asks for newdata", {
  toy <- simulate_toy(n = 300, seed = 29)
  fit <- quick_fit(toy)
  old <- fit
  # The check of earlier versions: the row count, and each sensor's count and sum of readings.
  old$data_check <- c(n = nrow(toy), vapply(toy[fit$sensors], function(v) c(sum(!is.na(v)), sum(v)), numeric(2)))
  expect_error(fitted(old), "pass it as")
  expect_equal(fitted(old, newdata = toy), fitted(fit))
})

test_that("a fit made in a function is plain data: read back, or made again, it is identical()", {
  toy <- simulate_toy(n = 300, seed = 30)
  make <- function(d) {
    ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d, hidden = 4L, epochs = 2L, seed = 1L, threads = 1L)
  }
  environment(make) <- globalenv()  # as at top level: testthat's frames hold a namespace's copy
  fits <- suppressWarnings(lapply(list(toy, toy), make))
  types <- function(x) c(typeof(x), if (is.list(x)) unlist(lapply(x, types), use.names = FALSE))
  expect_false(any(c("weakref", "externalptr") %in% types(fits[[1]])))
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(fits[[1]], path)
  expect_identical(readRDS(path), fits[[1]])
  expect_identical(fits[[2]], fits[[1]])
})

test_that("predict refuses misspelt arguments and several levels", {
  toy <- simulate_toy(n = 200, seed = 24)
  fit <- quick_fit(toy)
  expect_error(predict(fit, toy, levle = 0.9), "levle")
  expect_error(predict(fit, toy, type = "conf_int"), "type")
  expect_error(predict(fit, toy, interval = "credible", level = c(0.5, 0.9)), "single number")
  expect_error(predict(fit, toy, interval = "credible", level = "0.9"), "not a string")
  expect_error(predict(fit, toy, use_reference = TRUE), "fitted without a reference")
})

test_that("data-dependent terms keep their training coefficients on new data", {
  toy <- simulate_toy(n = 400, seed = 25)
  fit <- quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ poly(x3, 2) + scale(x1))
  expect_equal(predict(fit, toy[1:10, ])$.pred, predict(fit, toy)$.pred[1:10])
})

test_that("64-bit integer readings are converted by value", {
  skip_if_not_installed("bit64")
  toy <- simulate_toy(n = 300, seed = 26)
  fit <- quick_fit(toy)
  toy64 <- toy
  toy64$sensor_1 <- bit64::as.integer64(round(toy$sensor_1))
  toy$sensor_1 <- round(toy$sensor_1)
  expect_equal(predict(fit, toy64), predict(fit, toy))
})

test_that("the fast design path for plain numeric covariates equals model.matrix", {
  toy <- simulate_toy(n = 300, seed = 27)
  toy$x2 <- as.integer(round(10 * toy$x2))
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3, data = toy, hidden = 4L, epochs = 2L,
                        seed = 1, threads = 1))
  fast <- ncam:::new_design(fit, toy)  # the columns themselves, for the engine to read in place
  full <- stats::model.matrix(~ x1 + x2 + x3, toy)[, -1]
  expect_type(fast, "list")
  expect_true(all(vapply(fast, is.double, logical(1))))
  expect_equal(unname(do.call(cbind, fast)), unname(full))
  expect_equal(names(fast), colnames(full))
  fit_tr <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ log(x2 + 20) + x1:x3, data = toy, hidden = 4L,
                           epochs = 2L, seed = 1, threads = 1))
  expect_equal(unname(ncam:::new_design(fit_tr, toy)),
               unname(stats::model.matrix(~ log(x2 + 20) + x1:x3, toy)[, -1]))
})

test_that("the posterior is the closed-form conjugate update of the heads", {
  toy <- simulate_toy(n = 200, seed = 22)
  toy$sensor_2[c(1, 4)] <- NA
  fit <- quick_fit(toy)
  post <- ncam:::ncam_posterior(fit, toy)
  b <- as.matrix(toy[fit$sensors])
  obs <- !is.na(b)
  w <- ifelse(obs, post$a^2 / post$sigma2, 0)
  precision <- 1 / post$s0_2 + rowSums(w)
  num <- post$mu0 / post$s0_2 + rowSums(ifelse(obs, post$a * (b - post$c) / post$sigma2, 0))
  expect_equal(post$var_post, 1 / precision, tolerance = 1e-10)
  expect_equal(post$mu, num / precision, tolerance = 1e-10)
  expect_equal(post$n_sensors, as.integer(rowSums(obs)))
})

test_that("missing readings are used, not dropped; a row with none gets the prior", {
  toy <- simulate_toy(n = 300, seed = 23)
  fit <- quick_fit(toy)
  nd <- toy[1:5, ]
  nd$sensor_1[2] <- NA
  nd[3, c("sensor_0", "sensor_1", "sensor_2")] <- NA
  nd$sensor_0 <- NA_real_
  expect_warning(pred <- predict(fit, nd), "1 of 5 rows has no sensor reading.*row 3.*n_sensors > 0",
                 class = "ncam_warning_no_readings")
  expect_equal(nrow(pred), 5L)
  expect_equal(pred$.n_sensors, c(2L, 1L, 0L, 2L, 2L))
  post <- ncam:::ncam_posterior(fit, nd)
  expect_equal(post$mu[3], post$mu0[3])
  expect_equal(post$var_post[3], post$s0_2[3])
})

test_that("rows whose covariates are missing give NA, never an error or a dropped row", {
  toy <- simulate_toy(n = 300, seed = 24)
  fit <- quick_fit(toy)
  nd <- toy[1:4, ]
  nd$x3[2] <- NA
  expect_warning(pred <- predict(fit, nd, interval = "credible"), "x3: 1 row", class = "ncam_warning_missing_covariate")
  expect_equal(nrow(pred), 4L)
  expect_true(all(is.na(unlist(pred[2, ]))))
  expect_false(anyNA(pred[-2, ]))
})

test_that("sensor_params gives per-row a, c, sigma for every sensor in long format", {
  toy <- simulate_toy(n = 100, seed = 25)
  fit <- quick_fit(toy)
  sp <- sensor_params(fit, toy[1:10, ])
  expect_s3_class(sp, "tbl_df")  # as every other table of the package (a data.frame before)
  expect_named(sp, c(".row", "sensor", "a", "c", "sigma"))
  expect_equal(nrow(sp), 30L)
  expect_equal(sp$.row, rep(1:10, 3))
  post <- ncam:::ncam_posterior(fit, toy[1:10, ])
  expect_equal(sp$sigma[sp$sensor == "sensor_2"], sqrt(post$sigma2[, 3]))
})

test_that("predict checks newdata", {
  toy <- simulate_toy(n = 200, seed = 26)
  toy$site <- rep(c("a", "b"), 100)
  # Two sensors keep the snapshots' messages; their noise levels are beside the point here.
  fit <- suppressWarnings(ncam(sensor_0 + sensor_1 ~ x1 + site, data = toy, hidden = 2L, epochs = 1L, seed = 1,
                               threads = 1), classes = "ncam_warning_two_sensors")
  nd <- toy[1:3, ]
  expect_snapshot(error = TRUE, predict(fit, nd[setdiff(names(nd), "x1")]))
  nd$site[2] <- "c"
  expect_warning(pred <- predict(fit, nd), class = "ncam_warning_unseen_level")
  expect_true(all(is.na(unlist(pred[2, ]))))
  expect_snapshot(error = TRUE, predict(fit, toy, level = 1.2))
  expect_snapshot(error = TRUE, predict(fit, toy[setdiff(names(toy), "sensor_1")]))
  expect_snapshot(error = TRUE, predict(fit, toy, threads = -2))
})

test_that("the AVX2 and portable engines agree to float precision", {
  skip_if_not(ncam:::ncam_backend_cpp(TRUE) == "avx2", "this machine has no AVX2 engine")
  expect_equal(ncam:::ncam_backend_cpp(FALSE), "portable")
  toy <- simulate_toy(n = 1000, seed = 30)
  fit_simd <- quick_fit(toy)
  fit_port <- withr::with_options(list(ncam.simd = FALSE), quick_fit(toy))
  # Training follows the same path to float rounding; predictions agree closely.
  expect_equal(fit_port$params, fit_simd$params, tolerance = 1e-3)
  p_simd <- predict(fit_simd, toy)
  p_port <- withr::with_envvar(c(NCAM_SIMD = "0"), predict(fit_simd, toy))
  expect_equal(p_port, p_simd, tolerance = 1e-5)
  expect_false(identical(p_port$.pred, p_simd$.pred))  # really two engines
})

test_that("infinite values in newdata are errors that name the column and row", {
  toy <- simulate_toy(n = 300, seed = 28)
  fit <- quick_fit(toy, epochs = 1L)
  bad <- toy
  bad$x3[17] <- Inf
  expect_error(predict(fit, bad), "Covariate x3 has an infinite value in row 17")
  bad <- toy
  bad$sensor_1[c(5, 9)] <- -Inf
  expect_error(predict(fit, bad), "sensor_1 has infinite values in rows 5 and 9")
})

test_that("infinite values in several columns are all named, with their rows", {
  toy <- simulate_toy(n = 200, seed = 22)
  fit <- quick_fit(toy)
  bad <- toy
  bad$sensor_1[c(4, 9)] <- Inf
  bad$sensor_2[7] <- -Inf
  err <- tryCatch(predict(fit, bad), error = identity)
  msg <- conditionMessage(err)
  expect_match(msg, "sensor_1 has infinite values in rows 4 and 9", fixed = TRUE)
  expect_match(msg, "sensor_2 has an infinite value in row 7", fixed = TRUE)
  expect_match(msg, "Replace infinite values with", fixed = TRUE)
  expect_false(grepl("sensor_0", msg, fixed = TRUE))
})

test_that("a flag covariate may come as TRUE/FALSE in one table and 1/0 in the other", {
  toy <- simulate_toy(300, seed = 1)
  toy$wet <- toy$x1 > 0
  as_numbers <- transform(toy, wet = as.integer(wet))
  fit_logical <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x2 + wet, toy, hidden = 4L,
                                       epochs = 3L, seed = 1, threads = 1))
  expect_identical(predict(fit_logical, as_numbers), predict(fit_logical, toy))
  fit_numeric <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x2 + wet, as_numbers,
                                       hidden = 4L, epochs = 3L, seed = 1, threads = 1))
  expect_identical(predict(fit_numeric, toy), predict(fit_numeric, as_numbers))
  # The same model either way: a logical enters the design as 0/1.
  expect_equal(predict(fit_numeric, toy)$.pred, predict(fit_logical, toy)$.pred)
  as_numbers$wet[5] <- 2L
  expect_error(predict(fit_logical, as_numbers), "Column wet of `newdata` holds numbers other than 0 and 1")
})

test_that("a log model predicts rows with a reading <= 0 from the other sensors, with a warning", {
  toy <- simulate_toy(300, seed = 3)
  positive <- toy
  for (s in c("sensor_0", "sensor_1", "sensor_2")) positive[[s]] <- pmax(abs(positive[[s]]), 0.5)
  fit <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, positive, transform = "log",
                               hidden = 4L, epochs = 3L, seed = 1, threads = 1))
  newdata <- positive[1:20, ]
  newdata$sensor_1[c(2, 7)] <- c(0, -1)
  as_missing <- newdata
  as_missing$sensor_1[c(2, 7)] <- NA
  expect_warning(got <- predict(fit, newdata), "sensor_1: 2 rows \\(2, 7\\)", class = "ncam_warning_nonpositive_reading")
  expect_identical(got, predict(fit, as_missing))
  expect_identical(got$.n_sensors[c(2, 7)], c(2L, 2L))
  # Training still refuses them: the model would be fitted to something else.
  expect_error(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, newdata, transform = "log", hidden = 4L,
                    epochs = 2L, seed = 1, threads = 1), "needs positive readings")
})

test_that("a log model screens spikes as read, as the same data without the transform", {
  d <- simulate_colocation(days = 30, seed = 1)
  d$opc[d$opc <= 0] <- NA
  coded <- d
  coded$pa_b[c(20, 200, 400)] <- 9999  # a logger's missing-value code
  fits <- lapply(c("log", "none"), function(tr) {
    suppressWarnings(ncam(pa_a + pa_b + opc ~ rh, data = coded, reference = "ref", transform = tr,
                          hidden = 4L, epochs = 2L, seed = 1, threads = 1))
  })
  # On log readings the code lies ~7 log units out, within 50 robust spreads of log levels.
  log_b <- log(d$pa_b)
  expect_lt(abs(log(9999) - stats::median(log_b, na.rm = TRUE)) / stats::mad(log_b, na.rm = TRUE), 50)
  expect_identical(fits[[1]]$n_screened[["pa_b"]], 3L)
  expect_identical(fits[[1]]$n_screened, fits[[2]]$n_screened)
  # predict() screens a new code by the same rule: the row is estimated from its other sensors.
  new <- d[1:5, ]
  with_code <- new
  with_code$pa_b[2] <- 9999
  without <- new
  without$pa_b[2] <- NA
  expect_warning(got <- predict(fits[[1]], with_code), "pa_b \\(row 2\\)", class = "ncam_warning_spikes")
  expect_identical(got, predict(fits[[1]], without))
  # A smoke event whose sensors differ by factors: as read pa_a lies (2000 - median) / spread
  # robust spreads out and the others about 46, more than 50 apart, but only 2.7 times where they
  # put it. Without the transform it is screened; a log fit, for readings that differ by factors,
  # keeps it.
  smoke <- list(pa_a = 2000, pa_b = 700, opc = 250)
  scales <- fits[[1]]$spike_scales
  z <- (unlist(smoke) - scales$centre[names(smoke)]) / scales$spread[names(smoke)]
  put <- scales$centre[["pa_a"]] + mean(z[c("pa_b", "opc")]) * scales$spread[["pa_a"]]
  expect_gt(z[["pa_a"]] - mean(z[c("pa_b", "opc")]), 50)
  expect_lt(2000 / put, 10)
  expect_identical(ncam:::screen_readings(smoke, 1L, 50, "none", scales)$rows$pa_a, 1L)
  expect_length(ncam:::screen_readings(lapply(smoke, log), 1L, 50, "log", scales)$rows$pa_a, 0L)
  expect_identical(ncam:::screen_readings(list(pa_a = log(9999), pa_b = log(20), opc = log(8)), 1L, 50, "log", scales)$rows$pa_a, 1L)
})

test_that("a log model refuses infinite and overflowing readings as read, as without the transform", {
  toy <- simulate_toy(300, seed = 3)
  for (s in c("sensor_0", "sensor_1", "sensor_2")) toy[[s]] <- pmax(abs(toy[[s]]), 0.5)
  fit <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, transform = "log",
                               hidden = 4L, epochs = 2L, seed = 1, threads = 1))
  huge <- toy[1:3, ]
  huge$sensor_0[2] <- 1e200  # its log, 460, is finite; the estimate back-transformed is not
  expect_error(predict(fit, huge), "sensor_0 has a reading of 1e\\+200 in row 2: too large")
  # -Inf is infinite, not a reading <= 0 to treat as missing.
  negative <- toy[1:3, ]
  negative$sensor_1[3] <- -Inf
  expect_error(predict(fit, negative), "sensor_1 has an infinite value in row 3")
  training <- toy
  training$sensor_2[7] <- 1e200
  expect_error(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, training, transform = "log", epochs = 2L, seed = 1, threads = 1),
               "sensor_2 has a reading of 1e\\+200 in row 7")
})

test_that("a log fit names the readings <= 0 of the sensors and the reference in one error", {
  d <- simulate_colocation(days = 20, seed = 2)
  d$opc <- NULL
  d$pa_a[5] <- 0
  d$ref[which(!is.na(d$ref))[3]] <- -1
  expect_snapshot(error = TRUE, ncam(pa_a + pa_b ~ rh, data = d, reference = "ref", transform = "log"))
})

test_that("a row's prediction does not depend on the rows beside it beyond float rounding", {
  toy <- simulate_toy(n = 300, seed = 2)
  fits <- lapply(c("float", "double"), function(p) {
    suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy, hidden = 8,
                          epochs = 5, seed = 1, threads = 1, control = ncam_control(precision = p)))
  })
  # Ten rows alone are a partial block of the engine; the whole data set holds them in full ones.
  alone <- lapply(fits, predict, newdata = toy[1:10, ], interval = "prediction")
  beside <- lapply(fits, function(f) predict(f, toy, interval = "prediction")[1:10, ])
  expect_equal(alone[[1]], beside[[1]], tolerance = 1e-6)
  expect_equal(alone[[2]], beside[[2]], tolerance = 1e-13)
})

test_that("a covariate beyond what the networks compute with gives an NA row and a warning naming it", {
  toy <- simulate_toy(n = 400, seed = 3)
  fit <- quick_fit(toy, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, epochs = 20L)
  new <- toy[1:5, ]
  alone <- predict(fit, new[-4, ], interval = "credible")
  for (value in c(1e20, 1e50)) {
    new$x1[4] <- value
    warned <- list()
    p <- withCallingHandlers(predict(fit, new, interval = "credible"),
                             warning = function(w) {
                               warned[[length(warned) + 1L]] <<- w
                               invokeRestart("muffleWarning")
                             })
    expect_length(warned, 1L)
    expect_s3_class(warned[[1]], "ncam_warning_beyond_range")
    expect_match(conditionMessage(warned[[1]]), "x1: row 4 (1e+", fixed = TRUE)
    # Nothing is missing: no confident number and no "missing covariate", the other rows untouched.
    expect_true(all(is.na(unlist(p[4, ]))))
    expect_equal(p[-4, ], alone, tolerance = 1e-6)
  }
  # Beyond double precision's range: the error of training, naming covariate and row.
  new$x1[4] <- 1e200
  expect_error(predict(fit, new), "Covariate x1 has a value as large as 1e+200 in row 4", fixed = TRUE)
})

test_that("a numeric covariate given as a date-time, as TRUE/FALSE or as complex numbers is refused", {
  toy <- simulate_toy(300, seed = 1)
  fit <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, toy, hidden = 4, epochs = 5,
                               learn_rate = 0.05, threads = 1, seed = 1))
  expect_identical(fit$flag_columns, character(0))
  nd <- toy[1:3, ]
  nd$x1 <- as.Date("2026-11-24") + 1:3
  expect_error(predict(fit, nd), "Column x1 of `newdata` is a date-time .*Date.*numeric in training")
  nd$x1 <- as.POSIXct("2024-01-01", tz = "UTC") + 1:3
  expect_error(predict(fit, nd), "Column x1 of `newdata` is a date-time .*POSIXct")
  nd$x1 <- as.difftime(toy$x1[1:3], units = "days")
  expect_error(predict(fit, nd), "Column x1 of `newdata` is a duration .*difftime.*in days.*as.numeric\\(x1, units = \"hours\"\\)")
  nd$x1 <- c(TRUE, FALSE, TRUE)
  expect_error(predict(fit, nd), "Column x1 of `newdata` is logical .*numeric in training, with values other than 0 and 1")
  nd$x1 <- complex(real = toy$x1[1:3])
  expect_error(predict(fit, nd), "Column x1 of `newdata` is a complex vector, but it was numeric")
  # An entirely missing column (read as logical by file readers) stays a missing covariate.
  nd$x1 <- NA
  expect_true(all(is.na(suppressWarnings(predict(fit, nd))$.pred)))
})

test_that("fits made in a function keep neither its data nor copies of the data's columns", {
  toy <- simulate_toy(n = 5000, seed = 23)
  toy$site <- rep(1:2, 2500)
  data_bytes <- length(serialize(toy, NULL))
  quiet <- function(expr) suppressWarnings(expr, classes = c("ncam_warning_not_converged", "ncam_warning_clamp"))
  # A local object named like a column: model.frame() uses the column, so the fit need not keep it.
  shadowed_column <- function(d) {
    x1 <- d$x1
    sensor_0 <- d
    ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d, hidden = 4, epochs = 3, seed = 1, threads = 1)
  }
  # do.call() puts the formula object, and with it the function's frame, in the call.
  formula_in_call <- function(d) {
    fo <- sensor_0 + sensor_1 + sensor_2 ~ x1
    do.call(ncam, list(fo, data = d, hidden = 4, epochs = 3, seed = 1, threads = 1))
  }
  by_site <- function(d) {
    ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = d, by = "site", hidden = 4, epochs = 3, seed = 1, threads = 1)
  }
  fits <- list(quiet(shadowed_column(toy)), quiet(formula_in_call(toy)), quiet(by_site(toy)))
  for (fit in fits) expect_lt(length(serialize(fit, NULL)), data_bytes / 10)
  direct <- quiet(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, hidden = 4, epochs = 3, seed = 1, threads = 1))
  expect_identical(predict(fits[[1]], toy), predict(direct, toy))
  expect_identical(predict(fits[[2]], toy), predict(direct, toy))
})

test_that("seeds beyond the integer range are refused by name everywhere", {
  toy <- simulate_toy(n = 300, seed = 1)
  fit <- quick_fit(toy)
  expect_error(split_random(toy, seed = 2^31), "`seed` must be a whole number between 0 and 2147483647")
  toy$date <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * seq_len(nrow(toy))
  expect_error(split_blocks(toy, date = "date", seed = 2^31), "`seed` must be a whole number")
  expect_error(calibrate(fit, toy, seed = 2^31), "`seed` must be a whole number between")
})

test_that("an option ncam.simd other than TRUE or FALSE is an error, not a silent engine choice", {
  toy <- simulate_toy(n = 300, seed = 1)
  fit <- quick_fit(toy)
  withr::with_options(list(ncam.simd = "no"), expect_error(predict(fit, toy), "ncam.simd.*TRUE.*FALSE"))
  withr::with_options(list(ncam.simd = 0), expect_error(predict(fit, toy), "ncam.simd"))
  expect_identical(withr::with_options(list(ncam.simd = TRUE), predict(fit, toy)), predict(fit, toy))
})

test_that("NCAM_SIMD other than 0 or 1 is an error", {
  toy <- simulate_toy(n = 300, seed = 1)
  fit <- quick_fit(toy)
  withr::with_envvar(c(NCAM_SIMD = "no"), expect_error(predict(fit, toy), "NCAM_SIMD"))
  expect_identical(withr::with_envvar(c(NCAM_SIMD = "1"), predict(fit, toy)), predict(fit, toy))
})

test_that("a saved fit whose formula calls a package's function says to attach it", {
  skip_if_not_installed("callr")
  toy <- simulate_toy(n = 300, seed = 1)
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ splines::ns(x1, 3), data = toy, hidden = 4,
                        epochs = 3, seed = 1, threads = 1), also = "ncam_warning_clamp")
  library(splines)
  on.exit(detach("package:splines"), add = TRUE)
  attached <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ ns(x1, 3), data = toy, hidden = 4,
                             epochs = 3, seed = 1, threads = 1), also = "ncam_warning_clamp")
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(list(qualified = fit, attached = attached, toy = toy), path)
  child <- callr::r(function(path, lib) {
    .libPaths(lib)
    loadNamespace("ncam")
    objects <- readRDS(path)
    list(splines_attached = "package:splines" %in% search(),
         qualified = nrow(stats::predict(objects$qualified, objects$toy)),
         attached = tryCatch(stats::predict(objects$attached, objects$toy), error = conditionMessage))
  }, args = list(path = path, lib = .libPaths()))
  expect_false(child$splines_attached)
  expect_equal(child$qualified, 300L)
  expect_match(child$attached, "ns\\(\\).*not found in this session.*library\\(splines\\)")
})

test_that("a level without an interval warns once, wherever it is given, and changes nothing", {
  toy <- simulate_toy(n = 200, seed = 24)
  fit <- quick_fit(toy)
  new <- toy[1:5, ]
  expect_warning(p <- predict(fit, new, level = 0.5), "only with an interval",
                 class = "ncam_warning_level_without_interval")
  expect_identical(p, predict(fit, new))
  expect_no_warning(predict(fit, new, interval = "credible", level = 0.5))
  expect_no_warning(augment(fit, new))
  expect_length(testthat::capture_warnings(augment(fit, new, level = 0.5)), 1L)
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(toy, path, row.names = FALSE)
  chunk_warnings <- testthat::capture_warnings(predict_chunks(fit, path, chunk_rows = 128L, level = 0.5, verbose = FALSE))
  expect_length(chunk_warnings, 1L)
  expect_match(chunk_warnings, "only with an interval")
  toy$site <- rep(1:2, each = 100)
  by_fit <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, by = "site", hidden = 4L, epochs = 2L, seed = 7))
  expect_length(testthat::capture_warnings(predict(by_fit, toy, level = 0.5)), 1L)
  # Baselines warn the same way, naming the interval they have.
  ivw <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, toy, "ivw")
  expect_warning(p <- predict(ivw, new, level = 0.5), "interval = \"credible\"",
                 class = "ncam_warning_level_without_interval")
  expect_identical(p, predict(ivw, new))
  expect_no_warning(predict(ivw, new, interval = "credible", level = 0.5))
  expect_no_warning(augment(ivw, new))
  expect_length(testthat::capture_warnings(augment(ivw, new, level = 0.5)), 1L)
  mean_fit <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, toy, "mean")
  expect_warning(predict(mean_fit, new, level = 0.5), "\"mean\" has no interval",
                 class = "ncam_warning_level_without_interval")
  skip_if_not_installed("ggplot2")
  new$date <- as.Date("2024-01-01") + 0:4
  expect_no_warning(ggplot2::autoplot(mean_fit, "series", newdata = new, reference = "truth"))
  expect_no_warning(ggplot2::autoplot(ivw, "scatter", newdata = new, reference = "truth"))
})

test_that("without newdata, values changed in their last digits are told apart from rows in another order", {
  toy <- simulate_toy(n = 300, seed = 32)
  fit <- quick_fit(toy, formula = sensor_1 + sensor_2 ~ x1, anchor = NULL, reference = "sensor_0")
  original <- toy
  read_cols <- c("sensor_1", "sensor_2", "sensor_0", "x1")
  # Written to a file and read back: the values of 15 significant digits, rows in their order.
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(original, path, row.names = FALSE)
  toy <- utils::read.csv(path)
  diffs <- vapply(read_cols, function(v) max(abs(toy[[v]] - original[[v]]), na.rm = TRUE), numeric(1))
  expect_true(all(diffs > 0 & diffs < 1e-12 * vapply(original[read_cols], function(v) max(abs(v), na.rm = TRUE), numeric(1))))
  expect_error(residuals(fit), paste0("`toy` has changed since: values of sensor_1, sensor_2, sensor_0, and x1 differ slightly ",
                                      "\\(their sums agree to 1e-12 of their size\\), as after writing to a file and reading it back\\."))
  expect_equal(residuals(fit, newdata = toy), residuals(fit, newdata = original), tolerance = 1e-10)
  # Only re-sorted, the values exactly as fitted: another order.
  toy <- original[c(2:1, 3:300), ]
  expect_error(residuals(fit), "`toy` has changed since: the rows of sensor_1, sensor_2, sensor_0, and x1 are in another order\\.")
  # Both at once, each column named for its change: x1 a last digit, the reference swapped, a sensor edited.
  toy <- original
  toy$x1[5] <- toy$x1[5] * (1 + 1e-15)
  toy$sensor_0[1:2] <- toy$sensor_0[2:1]
  toy$sensor_2[7] <- toy$sensor_2[7] + 1
  expect_error(residuals(fit), paste0("`toy` has changed since: values of sensor_2 differ; values of x1 differ slightly ",
                                      "\\(.*\\), as after writing to a file and reading it back; the rows of sensor_0 are in another order\\."))
  # A fit saved before the sorted values were kept cannot tell the two apart, and says so.
  old <- fit
  old$data_check$values <- NULL
  toy <- original[c(2:1, 3:300), ]
  expect_error(residuals(old), "the rows of sensor_1, sensor_2, sensor_0, and x1 are in another order, or their values differ slightly\\.")
})
