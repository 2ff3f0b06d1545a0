# `~ .`: every column but the sensors, the reference, the unit and date-times; with none left, `~ 1`.

dot_rows <- function() {
  d <- colocation[seq_len(24 * 40), c("date", "pa_a", "pa_b", "ref")]
  d$ref[seq_len(nrow(d)) > 24 * 20] <- NA
  d
}

fit_dot <- function(formula, data, ...) {
  short_fit(ncam(formula, data, hidden = 4L, epochs = 5L, seed = 1L, threads = 1L, ...),
            also = "ncam_warning_two_sensors")
}

test_that("`~ .` on sensors, a reference and a date alone is `~ 1`", {
  d <- dot_rows()
  dot <- fit_dot(pa_a + pa_b ~ ., d, reference = "ref")
  one <- fit_dot(pa_a + pa_b ~ 1, d, reference = "ref")
  expect_identical(dot$covariates, character())
  expect_identical(attr(dot$terms, "term.labels"), character())
  expect_identical(predict(dot, d[1:100, ]), predict(one, d[1:100, ]))
  # Without the date too, and label-free.
  sensors_only <- d[c("pa_a", "pa_b")]
  free <- fit_dot(pa_a + pa_b ~ ., sensors_only, anchor = "pa_a")
  expect_identical(predict(free, sensors_only), predict(fit_dot(pa_a + pa_b ~ 1, sensors_only, anchor = "pa_a"), sensors_only))
  # `. - date` still reads, though the date was never among the columns of `.`.
  expect_identical(fit_dot(pa_a + pa_b ~ . - date, d, reference = "ref")$covariates, character())
  # update() of such a fit keeps `~ 1`.
  expect_identical(short_fit(update(dot, formula. = . ~ ., data = d), also = "ncam_warning_two_sensors")$covariates, character())
})

test_that("`~ .` leaves out date-times and the unit column, and takes the other columns", {
  s <- simulate_colocation(days = 40, sites = 3, seed = 1)[c("date", "site", "rh", "pa_a", "pa_b", "ref")]
  s$day <- as.Date(s$date)
  fit <- fit_dot(pa_a + pa_b ~ ., s, reference = "ref", unit = "site")
  expect_identical(fit$covariates, "rh")
  # Without `unit`, the site is a covariate like any other column.
  expect_setequal(fit_dot(pa_a + pa_b ~ ., s, reference = "ref")$covariates, c("site", "rh"))
  # Named, a date-time is still refused.
  expect_error(fit_dot(pa_a + pa_b ~ . + date, s, reference = "ref"), "date.*is a date-time", class = "ncam_error")
})

test_that("ncam_by() and ncam_baseline() read `~ .` on sensors alone as `~ 1`", {
  d <- dot_rows()
  d$half <- rep(1:2, length.out = nrow(d))
  fits <- short_fit(ncam_by(pa_a + pa_b ~ ., d, by = "half", reference = "ref", hidden = 4L, epochs = 5L,
                            seed = 1L, threads = 1L), also = "ncam_warning_two_sensors")
  expect_true(all(vapply(fits$fit, function(f) length(f$covariates) == 0L, logical(1))))
  b <- colocation[c("date", "pa_a", "pa_b", "opc")]
  expect_identical(predict(ncam_baseline(pa_a + pa_b + opc ~ ., b, "mean"), b),
                   predict(ncam_baseline(pa_a + pa_b + opc ~ 1, b, "mean"), b))
  # With another column, `.` would be a covariate, which baselines take none of.
  expect_error(ncam_baseline(pa_a + pa_b ~ ., colocation[c("pa_a", "pa_b", "rh")], "mean"),
               "`~ \\.` takes column `rh`", class = "ncam_error")
})
