# Hand-written versions of the documented sensor formulas, used as the reference below.
years_since <- function(date) as.numeric(difftime(date, min(date), units = "days")) / 365.25

expected_plantower <- function(d, p, kappa, site = 1L) {
  water <- pmin(d$rh, 90) / 100
  growth <- 1 + kappa / 1.65 * water / (1 - water)
  gain <- p$unit_gain[site] * (1 + p$drift_per_year[site] * years_since(d$date)) * growth
  pmax(gain * d$truth + p$unit_offset[site], 0)
}

expected_heated <- function(d, p, site = 1L) {
  gain <- p$unit_gain[site] * (1 + p$drift_per_year[site] * years_since(d$date)) *
    exp(p$temp_gain[site] * (d$temperature - 20))
  pmax(gain * d$truth + p$unit_offset[site] + p$temp_offset[site] * (d$temperature - 20), 0)
}

test_that("simulate_colocation() returns hourly UTC rows with the documented columns", {
  d <- simulate_colocation(days = 10, colocation = 3, seed = 1)
  expect_s3_class(d, "tbl_df")
  expect_named(d, c("date", "rh", "temperature", "pa_a", "pa_b", "opc", "ref", "truth"))
  expect_identical(nrow(d), 240L)
  expect_s3_class(d$date, "POSIXct")
  expect_identical(attr(d$date, "tzone"), "UTC")
  expect_identical(format(d$date[1], "%Y-%m-%d %H:%M"), "2021-04-01 00:00")
  expect_true(all(diff(as.numeric(d$date)) == 3600))
  expect_true(all(vapply(d[-1], is.double, logical(1))))
  expect_false(anyNA(d[c("date", "rh", "temperature", "truth")]))
  expect_true(all(d$rh > 0 & d$rh < 100))
  expect_true(all(d$truth > 0))
  expect_true(all(d[c("pa_a", "pa_b", "opc", "ref")] >= 0, na.rm = TRUE))

  models <- attr(d, "sensor_models")
  expect_named(models, c("pa_a", "pa_b", "opc"))
  expect_identical(vapply(models, `[[`, "", "type"),
                   c(pa_a = "plantower", pa_b = "plantower", opc = "heated"))
  expect_true(all(vapply(models, function(m) all(vapply(m[c("gain", "offset", "noise_sd")],
                                                         is.function, TRUE)), TRUE)))

  unnamed <- simulate_colocation(days = 2, sensors = c("heated", "plantower"), seed = 1)
  expect_named(unnamed, c("date", "rh", "temperature", "sensor_1", "sensor_2", "ref", "truth"))
})

test_that("the reference is present only inside the co-location window", {
  d <- simulate_colocation(days = 60, colocation = 20, seed = 2)
  inside <- d$date < as.POSIXct("2021-04-21", tz = "UTC")
  expect_identical(sum(inside), 20L * 24L)
  expect_true(all(is.na(d$ref[!inside])))
  expect_gt(mean(!is.na(d$ref[inside])), 0.9)

  # A window given as c(from, to) days; 0 means no reference at all.
  w <- simulate_colocation(days = 20, colocation = c(5, 12), seed = 2)
  present <- w$date[!is.na(w$ref)]
  expect_gte(min(present), as.POSIXct("2021-04-06", tz = "UTC"))
  expect_lt(max(present), as.POSIXct("2021-04-13", tz = "UTC"))
  expect_true(all(is.na(simulate_colocation(days = 5, colocation = 0, seed = 2)$ref)))
  expect_identical(attr(w, "settings")$colocation,
                   as.POSIXct(c("2021-04-06", "2021-04-13"), tz = "UTC"))
})

test_that("a seed reproduces the data without touching the caller's random stream", {
  set.seed(42)
  before <- .Random.seed
  a <- simulate_colocation(days = 5, seed = 7)
  expect_identical(.Random.seed, before)
  expect_identical(simulate_colocation(days = 5, seed = 7)$pa_a, a$pa_a)
  # Whole objects, sensor functions included, in a fresh R process as well.
  expect_identical(simulate_colocation(days = 5, seed = 7), a)
  skip_if_not_installed("callr")
  expect_identical(callr::r(function() ncam::simulate_colocation(days = 5, seed = 7), libpath = .libPaths()), a)
  expect_false(identical(simulate_colocation(days = 5, seed = 8)$truth, a$truth))

  # seed = NULL draws from the current stream, so set.seed() applies.
  set.seed(3)
  b <- simulate_colocation(days = 5)
  set.seed(3)
  expect_identical(simulate_colocation(days = 5)$opc, b$opc)
  expect_false(identical(.Random.seed, before))
})

test_that("noise-free readings follow the documented formulas to machine precision", {
  d <- simulate_colocation(days = 40, sites = 2L, noise = FALSE, seed = 5)
  expect_named(d, c("date", "site", "rh", "temperature", "pa_a", "pa_b", "opc", "ref", "truth"))
  expect_identical(d$site, rep(1:2, each = 40L * 24L))
  one <- d[d$site == 1L, ]
  two <- d[d$site == 2L, ]
  expect_identical(one$rh, two$rh)
  expect_false(isTRUE(all.equal(one$truth, two$truth)))

  models <- attr(d, "sensor_models")
  kappa <- attr(d, "settings")$kappa
  for (s in 1:2) {
    site_rows <- d[d$site == s, ]
    expected <- list(pa_a = expected_plantower(site_rows, models$pa_a$params, kappa, s),
                     pa_b = expected_plantower(site_rows, models$pa_b$params, kappa, s),
                     opc = expected_heated(site_rows, models$opc$params, s))
    for (sensor in names(expected)) {
      seen <- !is.na(site_rows[[sensor]])
      expect_gt(mean(seen), 0.5)
      expect_equal(site_rows[[sensor]][seen], expected[[sensor]][seen], tolerance = 1e-14)
      # The attached functions give the same noise-free readings.
      m <- models[[sensor]]
      from_functions <- pmax(m$gain(site_rows$rh, site_rows$temperature, site_rows$date, s) *
                               site_rows$truth +
                               m$offset(site_rows$rh, site_rows$temperature, site_rows$date, s), 0)
      expect_equal(site_rows[[sensor]][seen], from_functions[seen], tolerance = 1e-14)
    }
    expect_equal(site_rows$ref[!is.na(site_rows$ref)], site_rows$truth[!is.na(site_rows$ref)],
                 tolerance = 1e-15)
  }

  # Turning the noise on changes the readings but not the weather or the truth.
  noisy <- simulate_colocation(days = 40, sites = 2L, noise = TRUE, seed = 5)
  expect_identical(noisy$truth, d$truth)
  expect_identical(noisy$rh, d$rh)
  expect_identical(is.na(noisy$pa_a), is.na(d$pa_a))
  expect_false(isTRUE(all.equal(noisy$pa_a, d$pa_a)))
})

test_that("noise is heteroscedastic with rare spikes", {
  d <- simulate_colocation(days = 120, sensors = c(pa = "plantower"), colocation = 0, seed = 9)
  clean <- simulate_colocation(days = 120, sensors = c(pa = "plantower"), colocation = 0,
                               noise = FALSE, seed = 9)
  # Readings truncated at zero or missing carry no usable residual.
  usable <- !is.na(d$pa) & d$pa > 0 & clean$pa > 0
  residual <- (d$pa - clean$pa)[usable]
  truth <- d$truth[usable]
  sd_model <- 0.5 + 0.05 * truth
  z <- residual / sd_model
  spikes <- abs(z) > 6
  # Gaussian noise at the documented scale; about 0.2 % of hours carry a spike.
  expect_equal(stats::sd(z[!spikes]), 1, tolerance = 0.05)
  expect_gt(sum(spikes), 0)
  expect_lt(mean(spikes), 0.01)
  low <- truth < stats::quantile(truth, 0.25)
  high <- truth > stats::quantile(truth, 0.75)
  expect_gt(stats::sd(residual[high & !spikes]), 1.5 * stats::sd(residual[low & !spikes]))
})

test_that("Plantower channels read high at high humidity; the heated sensor does not", {
  d <- simulate_colocation(days = 90, seed = 11)
  humid <- d$rh > 85
  dry <- d$rh < 50
  expect_gt(sum(humid), 50)
  expect_gt(sum(dry), 50)
  ratio <- function(b, rows) stats::median(b[rows] / d$truth[rows], na.rm = TRUE)
  expect_gt(ratio(d$pa_a, humid) / ratio(d$pa_a, dry), 1.5)
  expect_gt(ratio(d$pa_b, humid) / ratio(d$pa_b, dry), 1.5)
  expect_lt(ratio(d$opc, humid) / ratio(d$opc, dry), 1.2)

  # Without hygroscopic growth the humidity effect is gone.
  flat <- simulate_colocation(days = 90, kappa = 0, noise = FALSE, seed = 11)
  p <- attr(flat, "sensor_models")$pa_a$params
  seen <- !is.na(flat$pa_a)
  gain <- p$unit_gain * (1 + p$drift_per_year * years_since(flat$date))
  expect_equal(flat$pa_a[seen], pmax(gain * flat$truth + p$unit_offset, 0)[seen], tolerance = 1e-14)
})

test_that("weather and truth have realistic ranges and cycles", {
  d <- simulate_colocation(days = 90, colocation = 0, seed = 13)
  expect_lt(stats::cor(d$rh, d$temperature), -0.3)
  hour <- as.POSIXlt(d$date)$hour
  by_hour <- tapply(d$temperature, hour, mean)
  expect_true(as.integer(names(which.max(by_hour))) %in% 13:17)
  expect_true(as.integer(names(which.max(tapply(d$rh, hour, mean)))) %in% c(0:7, 22:23))
  expect_true(stats::median(d$truth) > 4 && stats::median(d$truth) < 25)
  expect_true(stats::sd(log(d$truth)) > 0.35 && stats::sd(log(d$truth)) < 0.9)
  expect_gt(stats::cor(log(d$truth[-1]), log(d$truth[-nrow(d)])), 0.8)
})

test_that("sensors have dropout runs of hours to days", {
  d <- simulate_colocation(days = 90, seed = 17)
  runs <- unlist(lapply(d[c("pa_a", "pa_b", "opc")], function(b) {
    r <- rle(is.na(b))
    r$lengths[r$values]
  }))
  expect_gt(length(runs), 3)
  expect_gt(max(runs), 12)
  expect_lte(max(runs), 72)
})

test_that("invalid arguments are refused with the argument named", {
  expect_error(simulate_colocation(days = 0), "`days`")
  expect_error(simulate_colocation(days = 2.5), "`days`")
  expect_error(simulate_colocation(sensors = c(a = "plantower", b = "laser")), "sensors\\[2\\] = \"laser\"")
  expect_error(simulate_colocation(sensors = c(a = "plantower", a = "heated")), "`sensors`")
  expect_error(simulate_colocation(sensors = c(truth = "heated")), "`sensors`")
  expect_error(simulate_colocation(days = 10, colocation = 11), "`colocation`")
  expect_error(simulate_colocation(days = 10, colocation = c(5, 2)), "`colocation`")
  expect_error(simulate_colocation(sites = 0), "`sites`")
  # Sizes whose hours overflow an integer are refused before anything is drawn.
  expect_error(simulate_colocation(days = 1e9), "`days` must be a whole number between 1 and 89478485")
  expect_error(simulate_colocation(sites = 1e10), "`sites` must be a whole number between 1 and 89478485")
  expect_error(simulate_colocation(days = 1e6, sites = 100),
               "`days` \\(1e\\+06\\) times 24 hours times `sites` \\(100\\) is 2.4e\\+09 rows")
  expect_error(simulate_colocation(start = "April"), "`start`")
  expect_error(simulate_colocation(kappa = -1), "`kappa`")
  expect_error(simulate_colocation(noise = NA), "`noise`")
  expect_error(simulate_colocation(seed = -1), "`seed`")
})

test_that("the bundled colocation data set loads with its reference window", {
  # The installed data set, as users get it (lazy-loaded from the saved file).
  d <- ncam::colocation
  expect_s3_class(d, "tbl_df")
  expect_named(d, c("date", "rh", "temperature", "pa_a", "pa_b", "opc", "ref", "truth"))
  expect_identical(nrow(d), 90L * 24L)
  expect_identical(attr(d$date, "tzone"), "UTC")
  expect_true(all(diff(as.numeric(d$date)) == 3600))
  inside <- d$date < as.POSIXct("2021-04-29", tz = "UTC")
  expect_true(all(is.na(d$ref[!inside])))
  expect_gt(mean(!is.na(d$ref[inside])), 0.9)
  # The attached functions still reproduce the gains after a save and load.
  m <- attr(d, "sensor_models")$pa_a
  water <- pmin(d$rh, 90) / 100
  expected_gain <- m$params$unit_gain * (1 + m$params$drift_per_year * years_since(d$date)) *
    (1 + attr(d, "settings")$kappa / 1.65 * water / (1 - water))
  expect_equal(m$gain(d$rh, d$temperature, d$date), expected_gain, tolerance = 1e-14)
})
