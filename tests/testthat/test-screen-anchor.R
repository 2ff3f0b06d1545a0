# Sensors whose level lies so far from the anchor's that the fit may not reach their offsets:
# a warning naming them, their medians and the baseline to take off, instead of a fit far off
# without a word.

anchor_data <- function(n = 401, seed = 5) {
  withr::local_seed(seed)
  truth <- stats::rgamma(n, 4, 0.4)
  rh <- stats::runif(n, 20, 95)
  d <- data.frame(rh = rh, s1 = truth + stats::rnorm(n), s2 = 1.2 * truth + 1 + stats::rnorm(n),
                  s3 = 0.9 * truth + stats::rnorm(n))
  d$ref <- NA_real_
  d$ref[1:250] <- truth[1:250] + stats::rnorm(250, sd = 0.5)
  d
}

# A condition's message on one line, without styles: cli wraps it at the console's width.
flat_message <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))

# Few epochs: the warning is decided before the fit's quality can tell.
anchor_fit <- function(d, formula = s1 + s2 ~ rh, ...) {
  short_fit(ncam(formula, d, hidden = 4L, epochs = 3L, validation = 0, seed = 1L, threads = 1L, ...),
            also = "ncam_warning_clamp")
}

# A shift of `sensor` that puts its median `k` of the anchor's sds from the anchor's mean.
shifted_to <- function(d, sensor, anchor, k) {
  d[[sensor]] <- d[[sensor]] + k * stats::sd(d[[anchor]], na.rm = TRUE) + mean(d[[anchor]], na.rm = TRUE) -
    stats::median(d[[sensor]])
  d
}

test_that("a sensor far from the reference's level is named with its median and the baseline to take off", {
  d <- anchor_data()
  d$s2 <- d$s2 + 150
  # Independently: the anchor's mean and sd on the training rows (all rows: no validation), the
  # sensor's median, its distance and the difference of the medians.
  distance <- (stats::median(d$s2) - mean(d$ref, na.rm = TRUE)) / stats::sd(d$ref, na.rm = TRUE)
  baseline <- stats::median(d$s2) - stats::median(d$ref, na.rm = TRUE)
  w <- expect_warning(anchor_fit(d, reference = "ref"), class = "ncam_warning_far_from_anchor")
  message <- flat_message(w)
  expect_match(message, "Sensor s2 reads far from the level of the anchor ref", fixed = TRUE)
  expect_match(message, sprintf("mean %s, sd %s on the training rows", signif(mean(d$ref, na.rm = TRUE), 3),
                                signif(stats::sd(d$ref, na.rm = TRUE), 3)), fixed = TRUE)
  expect_match(message, sprintf("s2: median %s, %s sds above the anchor's mean", signif(stats::median(d$s2), 3),
                                signif(distance, 3)), fixed = TRUE)
  expect_match(message, sprintf("`s2 - %s`", signif(baseline, 3)), fixed = TRUE)
  expect_no_match(message, "s1:")
  # Taking that baseline off brings the sensor back: no warning.
  d$s2 <- d$s2 - signif(baseline, 3)
  expect_no_warning(anchor_fit(d, reference = "ref"), class = "ncam_warning_far_from_anchor")
})

test_that("the warning starts beyond 5 of the anchor's sds, on either side, and needs an anchor", {
  d <- anchor_data()
  expect_no_warning(anchor_fit(shifted_to(d, "s1", "ref", 4.9), reference = "ref"), class = "ncam_warning_far_from_anchor")
  expect_warning(anchor_fit(shifted_to(d, "s1", "ref", 5.1), reference = "ref"), "s1: median .* sds above",
                 class = "ncam_warning_far_from_anchor")
  expect_warning(anchor_fit(shifted_to(d, "s1", "ref", -5.1), reference = "ref"), "s1: median .* sds below",
                 class = "ncam_warning_far_from_anchor")
  # Without a reference the anchor sensor sets the level; unanchored fits have none.
  far <- shifted_to(d, "s2", "s1", 8)
  expect_warning(anchor_fit(far, s1 + s2 + s3 ~ rh, anchor = "s1"), "anchor s1.*s2: median",
                 class = "ncam_warning_far_from_anchor")
  expect_no_warning(anchor_fit(far, s1 + s2 + s3 ~ rh, parameterization = "unanchored"),
                    class = "ncam_warning_far_from_anchor")
})

test_that("on log readings the baseline is a ratio", {
  d <- anchor_data()
  d[c("s1", "s2", "ref")] <- lapply(d[c("s1", "s2", "ref")], abs)  # log readings need positive ones
  d$s2 <- d$s2 * 1000
  ratio <- exp(stats::median(log(d$s2)) - stats::median(log(d$ref), na.rm = TRUE))
  w <- expect_warning(anchor_fit(d, reference = "ref", transform = "log"), class = "ncam_warning_far_from_anchor")
  message <- flat_message(w)
  expect_match(message, sprintf("`s2 / %s`", format(signif(ratio, 3), scientific = FALSE)), fixed = TRUE)
  expect_match(message, sprintf("s2: median %s", signif(stats::median(d$s2), 3)), fixed = TRUE)
})

test_that("the clamp warnings blame a sensor far from the anchor, not the clamp", {
  # check_training() on a fit's record: the reference at the upper clamp on every row, s2's median
  # 40 of the anchor's sds above its mean.
  record <- list(settings = list(epochs = 20L, learn_rate = 1e-3, control = list(logvar_range = c(-5, 4))),
                 best_epoch = 10L, epochs_run = 20L, n_validation = 0L, anchor = "ref", reference = "ref",
                 spike_scales = list(centre = c(s1 = 10, s2 = 210, ref = 9)), scaling = list(b_shift = 10, b_scale = 5))
  trained <- list(initial_nll = 9, best_nll = 3, initial_train_nll = 9)
  clamped <- matrix(c(0, 0, 0, 0, 0, 1), 2, 3, dimnames = list(c("low", "high"), c("s1", "s2", "ref")))
  warnings <- caught_warnings(ncam:::check_training(record, trained, clamped))
  classes <- vapply(warnings, function(w) class(w)[1], "")
  expect_identical(classes, c("ncam_warning_far_from_anchor", "ncam_warning_clamp"))
  clamp <- flat_message(warnings[[2]])
  expect_match(clamp, "Sensor s2 lies far from the anchor's level .*widening the clamp does not help")
  expect_no_match(clamp, "logvar_range")
  # Without a far sensor the advice is the clamp's, in the singular for one sensor.
  record$spike_scales$centre[["s2"]] <- 12
  clamp <- flat_message(expect_warning(ncam:::check_training(record, trained, clamped), class = "ncam_warning_clamp"))
  expect_match(clamp, "This sensor is noisier than the clamp allows; widen it, e.g. `control = ncam_control(logvar_range = c(-5, 8))`, or leave it out.",
               fixed = TRUE)
})
