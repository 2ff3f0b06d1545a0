# Arguments that name columns, given unquoted (`reference = ref`): an error naming the argument
# and the fix, before anything evaluates them (ncam() evaluated `reference` in mget() and leaked
# "Error in mget(...): object 'ref' not found"; calibrate() and ncam_by() said "object 'ref' not
# found").

flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
unquoted <- function(arg, name) sprintf("`%s` takes a column name as a string: `%s = \"%s\"`, not `%s = %s`.", arg, arg, name, arg, name)

test_that("ncam(), calibrate() and ncam_by() say that a column is named by a string", {
  d <- simulate_colocation(days = 20, sites = 2, seed = 1)
  expect_snapshot(error = TRUE, ncam(pa_a + pa_b ~ rh, data = d, reference = ref, epochs = 2))
  expect_match(flat(expect_error(ncam(pa_a + pa_b ~ rh, data = d, anchor = pa_a, epochs = 2), class = "ncam_error")),
               unquoted("anchor", "pa_a"), fixed = TRUE)
  expect_match(flat(expect_error(ncam(pa_a + pa_b ~ rh, data = d, reference = "ref", unit = site, epochs = 2), class = "ncam_error")),
               unquoted("unit", "site"), fixed = TRUE)
  fit <- short_fit(ncam(pa_a + pa_b ~ rh, data = d, reference = "ref", hidden = 4L, epochs = 2L, seed = 1, threads = 1),
                   also = c("ncam_warning_clamp", "ncam_warning_validation_not_improved"))
  expect_snapshot(error = TRUE, calibrate(fit, d, method = "split", reference = ref))
  # ncam_by(): its own `by`, and ncam()'s arguments passed on in `...`.
  expect_snapshot(error = TRUE, ncam_by(pa_a + pa_b ~ rh, data = d, by = "site", reference = ref, epochs = 2))
  expect_match(flat(expect_error(ncam_by(pa_a + pa_b ~ rh, data = d, by = site, reference = "ref"), class = "ncam_error")),
               unquoted("by", "site"), fixed = TRUE)
  expect_match(flat(expect_error(ncam_by(pa_a + pa_b ~ rh, data = d, by = c(site, "day")), class = "ncam_error")),
               "`by` takes column names as strings: `by = c(\"site\", \"day\")`, not `by = c(site, \"day\")`.", fixed = TRUE)
  expect_match(flat(expect_error(ncam_by(pa_a + pa_b ~ rh, data = d, by = "site", anchor = pa_a), class = "ncam_error")),
               unquoted("anchor", "pa_a"), fixed = TRUE)
  # A name R finds as a function (base::date) is no column either.
  expect_match(flat(expect_error(ncam(pa_a + pa_b ~ rh, data = d, reference = date), class = "ncam_error")),
               paste(unquoted("reference", "date"), "x R found `date` as a function, not a column name."), fixed = TRUE)
  # The column's name held in a variable, or its values, are what they were.
  ref_column <- "ref"
  expect_s3_class(short_fit(ncam(pa_a + pa_b ~ rh, data = d, reference = ref_column, hidden = 4L, epochs = 2L, seed = 1, threads = 1),
                            also = c("ncam_warning_clamp", "ncam_warning_validation_not_improved")), "ncam")
  expect_error(ncam(pa_a + pa_b ~ rh, data = d, reference = d$ref), "`reference` must be a single column name")
})

test_that("the other functions that take column names say so too", {
  d <- simulate_colocation(days = 20, sites = 2, seed = 1)
  fit <- short_fit(ncam(pa_a + pa_b ~ rh, data = d, reference = "ref", hidden = 4L, epochs = 2L, seed = 1, threads = 1),
                   also = c("ncam_warning_clamp", "ncam_warning_validation_not_improved"))
  expect_match(flat(expect_error(ncam_baseline(pa_a + pa_b ~ 1, d, "factor", anchor = pa_a), class = "ncam_error")),
               unquoted("anchor", "pa_a"), fixed = TRUE)
  expect_match(flat(expect_error(ncam_baseline(pa_a + pa_b ~ 1, d, "kalman", order = when), class = "ncam_error")),
               unquoted("order", "when"), fixed = TRUE)
  expect_match(flat(expect_error(split_blocks(d, date = when), class = "ncam_error")), unquoted("date", "when"), fixed = TRUE)
  expect_match(flat(expect_error(split_chronological(d, date), class = "ncam_error")), unquoted("date", "date"), fixed = TRUE)
  expect_match(flat(expect_error(split_blocks(d), class = "ncam_error")), "`date` is required: the name of a column of `data`, as a string.",
               fixed = TRUE)
  estimates <- data.frame(date = d$date, site = d$site, .pred = d$pa_a, ref = d$ref)
  expect_match(flat(expect_error(average_estimates(estimates, columns = c(ref, pa_b)), class = "ncam_error")),
               "`columns` takes column names as strings: `columns = c(\"ref\", \"pa_b\")`", fixed = TRUE)
  expect_match(flat(expect_error(join_reference(d, d, by = when), class = "ncam_error")), unquoted("by", "when"), fixed = TRUE)
  expect_match(flat(expect_error(join_reference(d, d, keys = site), class = "ncam_error")), unquoted("keys", "site"), fixed = TRUE)
  expect_match(flat(expect_error(predict_chunks(fit, tempfile(), keep = site), class = "ncam_error")), unquoted("keep", "site"),
               fixed = TRUE)
})

test_that("sensor_drift() and select_gap() say that a column is named by a string", {
  d <- simulate_colocation(days = 20, sites = 2, seed = 1)
  fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh, data = d, hidden = 4L, epochs = 2L, seed = 1, threads = 1),
                   also = c("ncam_warning_clamp", "ncam_warning_validation_not_improved"))
  # sensor_drift() said "object 'site' not found" from inside drift_units().
  expect_snapshot(error = TRUE, sensor_drift(fit, d, unit = site))
  expect_match(flat(expect_error(sensor_drift(fit, d, date = when), class = "ncam_error")), unquoted("date", "when"), fixed = TRUE)
  expect_match(flat(expect_error(sensor_drift(fit, d, date = date), class = "ncam_error")),
               paste(unquoted("date", "date"), "x R found `date` as a function, not a column name."), fixed = TRUE)
  # select_gap(): `date` and `group` name columns of a data frame of residuals.
  res <- data.frame(r = d$pa_a - d$ref, when = d$date, where = d$site)
  expect_match(flat(expect_error(select_gap(res, date = when), class = "ncam_error")), unquoted("date", "when"), fixed = TRUE)
  expect_match(flat(expect_error(select_gap(res, date = "when", group = where), class = "ncam_error")),
               unquoted("group", "where"), fixed = TRUE)
  # Their values, or the name held in a variable, are what they were.
  when_column <- "when"
  expect_identical(select_gap(res, date = when_column, group = "where")$gap,
                   select_gap(res["r"], date = res$when, group = res$where)$gap)
})

test_that("autoplot() says that a column is named by a string, for every kind of object", {
  skip_if_not_installed("ggplot2")
  d <- simulate_colocation(days = 20, sites = 2, seed = 1)
  one_site <- d[d$site == d$site[1], ]
  fit <- short_fit(ncam(pa_a + pa_b + opc ~ rh, data = one_site, hidden = 4L, epochs = 2L, seed = 1, threads = 1),
                   also = c("ncam_warning_clamp", "ncam_warning_validation_not_improved"))
  expect_snapshot(error = TRUE, ggplot2::autoplot(fit, "scatter", newdata = one_site, reference = ref))
  expect_match(flat(expect_error(ggplot2::autoplot(fit, "sensors", newdata = one_site, covariate = rh), class = "ncam_error")),
               unquoted("covariate", "rh"), fixed = TRUE)
  expect_match(flat(expect_error(ggplot2::autoplot(fit, "series", newdata = one_site, date = when), class = "ncam_error")),
               unquoted("date", "when"), fixed = TRUE)
  base <- ncam_baseline(pa_a + pa_b + opc ~ 1, one_site, "mean")
  expect_match(flat(expect_error(ggplot2::autoplot(base, "scatter", newdata = one_site, reference = ref), class = "ncam_error")),
               unquoted("reference", "ref"), fixed = TRUE)
  fits <- short_fit(ncam_by(pa_a + pa_b + opc ~ rh, data = d, by = "site", hidden = 4L, epochs = 2L, seed = 1, threads = 1),
                    also = c("ncam_warning_clamp", "ncam_warning_validation_not_improved"))
  expect_match(flat(expect_error(ggplot2::autoplot(fits, "series", newdata = d, date = when), class = "ncam_error")),
               unquoted("date", "when"), fixed = TRUE)
  # Calibrations: the arguments are checked before the object is read.
  cal <- structure(list(), class = "ncam_calibration")
  expect_match(flat(expect_error(ggplot2::autoplot(cal, "scatter", newdata = one_site, reference = ref), class = "ncam_error")),
               unquoted("reference", "ref"), fixed = TRUE)
  cals <- structure(list(), class = "ncam_by_calibration")
  expect_match(flat(expect_error(ggplot2::autoplot(cals, "series", newdata = d, date = when), class = "ncam_error")),
               unquoted("date", "when"), fixed = TRUE)
})
