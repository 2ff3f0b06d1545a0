# Per-unit offsets of a reference-anchored fit (ncam(unit = )): the estimator against a
# computation written out here, what predict() adds, and the input checks.

# The noise of each unit's mean, written out unit by unit: blocks of about b consecutive rows
# (round(n / b) of them, row i of n in block floor((i - 1) * blocks / n)) for b = 1, 2, 4, ...
# while the blocks leave 20 degrees of freedom (1 row always); the largest long-run variance
# (rows of a block times the squared difference of its mean from the unit's, over the blocks
# less one per unit) over the unit's rows, at most the variance of one row (the squares around
# the units' means plus what centring took out, over all rows).
noise_by_hand <- function(difference, unit) {
  units <- split(difference, factor(unit, levels = unique(unit)))
  n <- lengths(units)
  means <- vapply(units, mean, 0)
  best <- -Inf
  b <- 1
  repeat {
    squares <- 0
    degrees <- 0
    for (u in seq_along(units)) {
      blocks <- max(1, round(n[[u]] / b))
      for (block in split(units[[u]], floor((seq_len(n[[u]]) - 1) * blocks / n[[u]]))) {
        squares <- squares + length(block) * (mean(block) - means[[u]])^2
      }
      degrees <- degrees + blocks - 1
    }
    if (degrees == 0 || (b > 1 && degrees < 20)) break
    if (squares / degrees > best) {
      best <- squares / degrees
      best_rows <- b
    }
    b <- 2 * b
  }
  one_row <- (sum((difference - means[match(unit, names(units))])^2) + length(units) * best) / length(difference)
  list(noise = pmin(best / n, one_row), one_row = one_row, block_rows = best_rows, means = means)
}

# The between-unit variance written out: each unit's mean counts by its precision w = 1 / noise;
# Q = sum of w * mean^2 (means around 0, the pooled model's level) exceeds its K - 1 expected
# under no spread by tau2 times sum of w * (1 - w / sum(w)); the floor is the tau2 that raises Q
# by its null sd sqrt(2 (K - 1)). offset_sd: the error variance of shrink * mean against the
# bias, (1 - shrink)^2 tau2 + shrink^2 noise, at a tau2 of at least the floor.
between_by_hand <- function(means, noise) {
  w <- 1 / noise
  slope <- sum(w * (1 - w / sum(w)))
  tau2 <- max(0, (sum(w * means^2) - (length(means) - 1)) / slope)
  spread <- max(tau2, sqrt(2 * (length(means) - 1)) / slope)
  shrink <- tau2 / (tau2 + noise)
  list(tau2 = tau2, floor = sqrt(2 * (length(means) - 1)) / slope, offset = shrink * means,
       offset_sd = sqrt((1 - shrink)^2 * spread + shrink^2 * noise), new_unit_variance = spread * (1 + 1 / length(means)))
}

unit_fit <- function(d, ...) {
  short_fit(ncam(s1 + s2 ~ rh, d, reference = "ref", hidden = 8L, epochs = 150L, learn_rate = 0.01,
                 seed = 1, threads = 1, ...), also = "ncam_warning_clamp")
}

test_that("unit offsets are the shrunk mean differences on each unit's reference rows", {
  d <- unit_sites_data()
  fit <- unit_fit(d, unit = "site")
  offsets <- fit$unit_offsets
  expect_identical(offsets$unit, "site")
  # By hand: the estimate from the sensors alone (an unknown unit gets no offset) on the
  # co-location rows, per-site means and the noise of each mean from blocks of rows.
  labelled <- d[!is.na(d$ref), ]
  alone <- suppressWarnings(predict(fit, transform(labelled, site = NA))$.pred, classes = "ncam_warning_unknown_unit")
  by_hand <- noise_by_hand(labelled$ref - alone, labelled$site)
  means <- by_hand$means
  noise <- by_hand$noise
  # the pooled model absorbed the units' mean bias: K - 1 degrees of freedom; with equal rows
  # per unit the weighted estimator is the plain spread of the means less their noise
  between <- between_by_hand(means, noise)
  tau2 <- between$tau2
  expect_equal(tau2, max(0, sum(means^2) / (length(means) - 1) - mean(noise)))
  expect_equal(offsets$block_rows, by_hand$block_rows)
  expect_equal(offsets$tau2, tau2)
  expect_equal(offsets$tau2_floor, between$floor)
  expect_lt(offsets$tau2_floor, tau2)
  expect_equal(offsets$table$site, names(means))
  expect_equal(offsets$table$mean_difference, unname(means))
  expect_equal(offsets$table$offset, unname(means * tau2 / (tau2 + noise)))
  expect_equal(offsets$table$offset_sd, unname(sqrt(noise * tau2 / (tau2 + noise))))
  # a new unit's offset from the pooled model, which sits at the mean of the 5 units' biases
  expect_equal(offsets$new_unit_variance, tau2 * (1 + 1 / 5))
  # The offsets follow the sites' biases (the sensors read high: the reference is lower).
  expect_gt(tau2, 1)
  expect_true(all(diff(offsets$table$offset[order(c(-3, -1, 0, 1.5, 3))]) < 0))
  # summary() and glance() report them
  expect_identical(summary(fit)$unit_offsets, offsets)
  expect_s3_class(offsets$table, "tbl_df")
  printed <- capture.output(print(summary(fit)))
  expect_true(any(grepl("^Unit offsets per unit of site", printed)))
  expect_true(any(grepl(sprintf("between-unit sd %s", format(sqrt(tau2), digits = 3)), printed)))
  expect_identical(sum(grepl("^ +[a-e] +60 ", printed)), 5L)
  g <- glance(fit)
  expect_identical(c(g$n_reference, g$n_units), c(300L, 5L))
  expect_equal(g$unit_sd, sqrt(tau2))
})

test_that("offset_sd is the error of an offset against the unit's bias when the error wanders between weeks", {
  # Differences at 8 units, 10 weeks of 24 rows each: the unit's bias, a weekly level (sd 0.4)
  # and row noise (sd 1). The mean of a unit's 240 rows errs by sqrt(0.16 / 10 + 1 / 240) = 0.14
  # (a lag-1 autocorrelation of about 0.14 would say 0.08). Two units have 2 and 8 rows of a
  # single week, where a mean can err by as much as one row.
  withr::local_seed(7)
  rows <- c(rep(240, 8), 2, 8)
  errors <- claimed <- NULL
  for (replication in 1:150) {
    bias <- stats::rnorm(10)
    bias <- bias - mean(bias)
    unit <- rep(paste0("u", 1:10), rows)
    week <- unlist(lapply(rows, function(n) rep(stats::rnorm(ceiling(n / 24), sd = 0.4), each = 24)[seq_len(n)]))
    difference <- bias[match(unit, paste0("u", 1:10))] + week + stats::rnorm(length(unit))
    offsets <- ncam:::shrunk_offsets(difference, unit)
    by_hand <- noise_by_hand(difference, unit)
    if (replication == 1) {
      between <- between_by_hand(by_hand$means, by_hand$noise)
      expect_gt(between$tau2, between$floor)
      expect_equal(offsets$tau2, between$tau2)
      expect_equal(offsets$table$offset_sd, unname(sqrt(by_hand$noise * between$tau2 / (between$tau2 + by_hand$noise))))
      # the unit with 2 rows gets one row's variance, the one with 8 the long-run variance
      expect_equal(unname(by_hand$noise[9:10]), c(by_hand$one_row, by_hand$noise[[1]] * 240 / 8))
      expect_lt(by_hand$noise[[10]], by_hand$one_row)
    }
    errors <- rbind(errors, offsets$table$offset - bias)
    claimed <- rbind(claimed, offsets$table$offset_sd)
  }
  long <- 1:8
  actual <- sqrt(mean(errors[, long]^2))
  expect_equal(sqrt(mean(claimed[, long]^2)), actual, tolerance = 0.15)
  expect_gt(actual, 0.12)
  # the short units' intervals hold their biases as often as they say
  inside <- abs(errors[, 9:10]) <= stats::qnorm(0.95) * claimed[, 9:10]
  expect_gt(mean(inside), 0.85)
})

test_that("offset_sd counts the wandering units share, which the pooled level takes up: conservative then", {
  # 8 units beside the reference over the same 10 weeks of 24 rows: the unit's bias, a weekly
  # level every unit shares (sd 0.4, the weather), one of the unit's own (sd 0.2) and row noise
  # (sd 1), less the mean of all rows (the pooled model's level). The blocks count both weekly
  # levels: a unit's mean errs by sqrt((0.16 + 0.04) / 10 + 1 / 240) = 0.156 by them. But the
  # shared level moves every unit's mean alike and the pooled level takes it out, so an offset
  # errs against its bias less the mean bias by sqrt(7 / 8 * (0.04 / 10 + 1 / 240)) = 0.085.
  withr::local_seed(9)
  units <- paste0("u", 1:8)
  unit <- rep(units, each = 240)
  week <- rep(rep(1:10, each = 24), 8)
  errors <- claimed <- NULL
  for (replication in 1:150) {
    bias <- stats::rnorm(8)
    shared <- stats::rnorm(10, sd = 0.4)[week]
    own <- stats::rnorm(80, sd = 0.2)[(match(unit, units) - 1) * 10 + week]
    difference <- bias[match(unit, units)] + shared + own + stats::rnorm(length(unit))
    difference <- difference - mean(difference)
    offsets <- ncam:::shrunk_offsets(difference, unit)
    errors <- rbind(errors, offsets$table$offset - (bias - mean(bias)))
    claimed <- rbind(claimed, offsets$table$offset_sd)
  }
  expect_equal(sqrt(mean(claimed^2)), sqrt(0.2 / 10 + 1 / 240), tolerance = 0.15)
  expect_equal(sqrt(mean(errors^2)), sqrt(7 / 8 * (0.04 / 10 + 1 / 240)), tolerance = 0.15)
  expect_gt(sqrt(mean(claimed^2)), 1.5 * sqrt(mean(errors^2)))
})

test_that("a unit with a few reference rows counts little in the between-unit variance", {
  # Three units with 300 rows each and biases of sd 0.5, wandering by day; a fourth with 3
  # rows, whose mean is as noisy as a row. The unweighted spread less the mean noise (the
  # estimator before) is zeroed by the fourth unit's noise, and with it every offset.
  withr::local_seed(3)
  tau2_with <- tau2_without <- unweighted <- numeric()
  for (replication in 1:200) {
    bias <- stats::rnorm(4, sd = 0.5)
    rows <- c(300, 300, 300, 3)
    unit <- rep(paste0("u", 1:4), rows)
    day <- unlist(lapply(rows, function(n) rep(stats::rnorm(ceiling(n / 24), sd = 0.3), each = 24)[seq_len(n)]))
    difference <- bias[match(unit, paste0("u", 1:4))] + day + stats::rnorm(length(unit), sd = 1)
    difference <- difference - mean(difference)  # the pooled model's level
    with_few <- ncam:::shrunk_offsets(difference, unit)
    without <- ncam:::shrunk_offsets(difference[unit != "u4"], unit[unit != "u4"])
    by_hand <- noise_by_hand(difference, unit)
    if (replication == 1) {
      between <- between_by_hand(by_hand$means, by_hand$noise)
      expect_equal(with_few$tau2, between$tau2)
      expect_equal(with_few$table$offset, unname(between$offset))
      expect_equal(with_few$table$offset_sd, unname(between$offset_sd))
      expect_equal(with_few$new_unit_variance, between$new_unit_variance)
      # the 3-row unit's mean is 100 times noisier than the others'
      expect_gt(by_hand$noise[[4]], 50 * by_hand$noise[[1]])
    }
    tau2_with[replication] <- with_few$tau2
    tau2_without[replication] <- without$tau2
    unweighted[replication] <- max(0, sum(by_hand$means^2) / 3 - mean(by_hand$noise))
  }
  # Adding the 3-row unit leaves tau2 nearly as it was; the unweighted spread often fell to 0.
  expect_lt(max(abs(tau2_with - tau2_without)), 0.05)
  expect_lt(mean(tau2_with == 0), 0.15)
  expect_gt(mean(unweighted == 0), mean(tau2_with == 0) + 0.1)
  # unbiased before the truncation at 0: near the biases' variance less what the level took
  expect_equal(mean(tau2_with), 0.25, tolerance = 0.25)
})

test_that("a between-unit variance of 0 zeroes the offsets, not their sd, and says so", {
  withr::local_seed(5)
  unit <- rep(paste0("u", 1:6), each = 100)
  difference <- stats::rnorm(600)  # no bias between units
  difference <- difference - mean(difference)
  offsets <- ncam:::shrunk_offsets(difference, unit)
  by_hand <- noise_by_hand(difference, unit)
  between <- between_by_hand(by_hand$means, by_hand$noise)
  expect_identical(offsets$tau2, 0)
  expect_equal(offsets$table$offset, rep(0, 6))
  # the offsets of 0 err by the units' biases, whose spread these means could not rule out
  # below the floor: one sd of Q (sqrt(2 * 5)) over the slope of its expectation
  expect_equal(offsets$tau2_floor, sqrt(10) / sum(1 / by_hand$noise * (1 - (1 / by_hand$noise) / sum(1 / by_hand$noise))))
  expect_equal(offsets$table$offset_sd, rep(sqrt(offsets$tau2_floor), 6))
  expect_gt(min(offsets$table$offset_sd), 0)
  expect_equal(offsets$new_unit_variance, between$floor * (1 + 1 / 6))
  expect_match(ncam:::between_unit_text(offsets),
               sprintf("^between-unit sd 0 \\(the units' means differ no more than their noise: every offset is 0; offset_sd and a new unit's variance use sd %s", format(sqrt(offsets$tau2_floor), digits = 3)))
  expect_identical(ncam:::between_unit_text(list(tau2 = 0.25)), "between-unit sd 0.5")
})

test_that("predict() adds each unit's offset and its variance; an unknown unit gets the between-unit variance", {
  d <- unit_sites_data()
  fit <- unit_fit(d, unit = "site")
  new <- d[d$day > 60, ][c(1, 200, 400, 600, 900), ]
  new$site[5] <- "z"  # a site without a co-location
  unknown <- transform(new, site = NA)
  for (interval in c("credible", "prediction")) {
    expect_warning(with_units <- predict(fit, new, interval = interval), "1 row of `newdata` has 1 unit of site without reference rows in the fit \\(\"z\"\\)",
                   class = "ncam_warning_unknown_unit")
    # a missing unit is no unit: the same, with its own warning
    expect_warning(without <- predict(fit, unknown, interval = interval), "5 rows of `newdata` have no site \\(5 rows with NA\\)",
                   class = "ncam_warning_unknown_unit")
    hit <- match(new$site, fit$unit_offsets$table$site)
    offset <- ifelse(is.na(hit), 0, fit$unit_offsets$table$offset[hit])
    unknown_variance <- fit$unit_offsets$tau2 * (1 + 1 / nrow(fit$unit_offsets$table))
    extra <- ifelse(is.na(hit), unknown_variance, fit$unit_offsets$table$offset_sd[hit]^2)
    expect_equal(with_units$.pred, without$.pred + offset)
    expect_equal(with_units$.pred_sd^2, without$.pred_sd^2 - unknown_variance + extra)
    expect_equal(with_units$.post_sd^2, without$.post_sd^2 - unknown_variance + extra)
  }
  # Scored in chunks: one warning with the totals of the whole input, and the same numbers.
  many <- d[rep(seq_len(nrow(d)), length.out = 1000), ]
  many$site <- rep(c("z", "a", NA, "b"), length.out = 1000)
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(many, path, row.names = FALSE)
  chunk_warnings <- testthat::capture_warnings(scored <- predict_chunks(fit, path, chunk_rows = 128L, verbose = FALSE))
  expect_length(chunk_warnings, 1L)
  expect_match(chunk_warnings, "500 rows of `input` have 1 unit of site without reference rows in the fit \\(\"z\"\\) or no site \\(250 rows with NA\\)")
  expect_equal(scored$.pred, suppressWarnings(predict(fit, utils::read.csv(path)), classes = "ncam_warning_unknown_unit")$.pred,
               tolerance = 1e-6)
  # With use_reference, the sensors' estimate after the unit's offset is combined with the
  # reference reading by their precisions (Gaussian product, written out).
  labelled <- d[!is.na(d$ref) & !is.na(d$site) & !is.na(d$rh), ][c(1, 50, 100, 150), ]
  corrected <- predict(fit, labelled, interval = "credible")
  reading_variance <- subset(sensor_params(fit, labelled), sensor == "ref")$sigma^2
  precision <- 1 / corrected$.post_sd^2 + 1 / reading_variance
  expected <- (corrected$.pred / corrected$.post_sd^2 + labelled$ref / reading_variance) / precision
  used <- predict(fit, labelled, interval = "prediction", use_reference = TRUE)
  expect_equal(used$.pred, expected)
  expect_equal(used$.post_sd, sqrt(1 / precision))
  expect_equal(used$.pred_sd, sqrt(1 / precision + reading_variance))
  # The unit matters: the same rows as another site's are combined after that site's offset.
  moved <- transform(labelled, site = "a")
  expect_false(isTRUE(all.equal(predict(fit, moved, use_reference = TRUE)$.pred, used$.pred)))
  expect_error(predict(fit, new[setdiff(names(new), "site")]), "site")
  # The error of the estimate after the co-location falls by the sites' spread.
  later <- d[d$day > 60, ]
  rmse <- function(p) sqrt(mean((p - later$truth)^2))
  pooled <- unit_fit(d)
  expect_lt(rmse(predict(fit, later)$.pred), 0.7 * rmse(predict(pooled, later)$.pred))
})

test_that("without newdata, the warning about units without an offset names the fit's data", {
  # Site f was never beside the reference: its rows of the fit's own data get no offset.
  sites <- unit_sites_data(site_bias = c(a = -3, b = -1, c = 0, d = 1.5, e = 3, f = 0))
  sites$ref[sites$site == "f"] <- NA
  fit <- short_fit(ncam(s1 + s2 ~ rh, sites, reference = "ref", unit = "site", hidden = 8L, epochs = 20L, learn_rate = 0.01,
                        seed = 1, threads = 1), also = "ncam_warning_clamp")
  said <- "^240 rows of `sites` \\(the fit's data\\) have 1 unit of site without reference rows in the fit \\(\"f\"\\)"
  for (method in list(predict, fitted, residuals, augment)) {
    w <- expect_warning(method(fit), said, class = "ncam_warning_unknown_unit")
    expect_no_match(conditionMessage(w), "newdata")
  }
  # Given as newdata, they are newdata's rows, as before.
  expect_warning(predict(fit, sites), "^240 rows of `newdata` have", class = "ncam_warning_unknown_unit")
  # A fit whose data is no name (a call) says the fit's data.
  fit$call$data <- quote(sites[seq_len(nrow(sites)), ])
  expect_warning(fitted(fit), "^240 rows of the fit's data have", class = "ncam_warning_unknown_unit")
})

test_that("a reference in other units than the sensors gives offsets in the estimate's units", {
  skip_if_not_installed("units")
  d <- unit_sites_data()
  in_units <- d
  for (s in c("s1", "s2")) in_units[[s]] <- units::set_units(d[[s]], "ug/m3")
  in_units$ref <- units::set_units(d$ref / 1000, "mg/m3")  # converted to the sensors' ug/m3
  fit <- suppressMessages(unit_fit(in_units, unit = "site"))
  # By hand, in ug/m3: the reference less the sensors' own estimate, per site. Before, the mg/m3
  # numbers were taken as they are: every mean difference was about minus the estimate.
  labelled <- d[!is.na(d$ref), ]
  alone <- suppressWarnings(predict(fit, transform(in_units[!is.na(d$ref), ], site = NA))$.pred,
                            classes = "ncam_warning_unknown_unit")
  means <- tapply(labelled$ref - alone, labelled$site, mean)
  expect_equal(fit$unit_offsets$table$mean_difference, unname(as.vector(means)), tolerance = 1e-10)
  expect_gt(max(abs(means)), 1)
})

test_that("unit needs a reference, reference rows at 3 or more units, and a column that is not a sensor", {
  d <- unit_sites_data()
  expect_error(ncam(s1 + s2 ~ rh, d, unit = "site"), "give `reference` too")
  expect_error(ncam(s1 + s2 ~ rh, d, reference = "ref", unit = "s1"), "is a sensor or the reference")
  expect_error(ncam(s1 + s2 ~ rh, d, reference = "ref", unit = c("site", "day")), "unit")
  expect_error(ncam(s1 + s2 ~ rh, d, reference = "ref", unit = "nope"), "nope")
  two <- d
  two$ref[two$site %in% c("c", "d", "e")] <- NA
  expect_error(unit_fit(two, unit = "site"), "3 or more units of site to tell how much units differ; only 2 have them")
})

test_that("the noise of a unit's mean needs 20 degrees of freedom, repeated rows not counted", {
  # Reference rows on the first days of each of the 5 sites: the noise of a unit's mean rests
  # on the rows beyond each site's first, sum(n) - 5 degrees of freedom.
  colocated <- function(n) {
    d <- unit_sites_data(days = 40)
    d$ref[d$day > n[match(d$site, letters[1:5])]] <- NA
    d
  }
  fit <- unit_fit(colocated(c(5, 5, 5, 5, 5)), unit = "site")
  expect_identical(sum(fit$unit_offsets$table$n) - 5L, 20L)
  expect_error(unit_fit(colocated(c(5, 5, 5, 5, 4)), unit = "site"),
               "the reference rows at the units of site leave 19 degrees of freedom .* it needs 20", class = "ncam_error")
  # One pair at one site beside single rows elsewhere: a single degree of freedom, whose chance-small
  # variance left every offset unshrunk with an offset_sd near 0.
  pair <- unit_sites_data(days = 40, site_bias = stats::setNames(seq(-3, 3, length.out = 21), paste0("s", 1:21)))
  pair$ref[pair$day > ifelse(pair$site == "s1", 2, 1)] <- NA
  expect_error(unit_fit(pair, unit = "site"), "leave 1 degree of freedom", class = "ncam_error")
  # A row copied at a unit tells no noise: 20 rows beyond the first, 19 of them distinct.
  copied <- colocated(c(5, 5, 5, 5, 5))
  copied[copied$site == "e" & copied$day == 5, c("rh", "s1", "s2", "ref")] <- copied[copied$site == "e" & copied$day == 4, c("rh", "s1", "s2", "ref")]
  err <- expect_error(unit_fit(copied, unit = "site"), "leave 19 degrees of freedom", class = "ncam_error")
  expect_match(conditionMessage(err), "1 of the reference rows repeats another row of its unit in every column the model reads")
})

test_that("reference rows that repeat within every unit are an error before training, not a crash after it", {
  # 30 units with one reference row each, and one row copied: the copy's difference is the
  # original's, so the noise of the units' means would be 0 (if (tau2 > 0) on NaN, before).
  d <- as.data.frame(simulate_colocation(days = 20, sites = 1, colocation = 20, seed = 7))
  d$unit <- rep(1:30, length.out = nrow(d))
  first <- match(1:30, d$unit)
  d$ref[-first] <- NA
  d2 <- rbind(d, d[first[1], ])
  d2 <- d2[order(d2$unit, d2$date), ]
  expect_warning(err <- expect_error(ncam(pa_a + pa_b + opc ~ rh + temperature, data = d2, reference = "ref", unit = "unit",
                                          hidden = 8, epochs = 30, seed = 1, threads = 1),
                                     "leave 0 degrees of freedom", class = "ncam_error"),
                 class = "ncam_warning_repeated_rows")
  expect_match(conditionMessage(err), "1 of the reference rows repeats another row of its unit")
  expect_match(conditionMessage(err), "Remove the repeated rows")
})

test_that("differences that do not vary within any unit are an error, not a crash", {
  # Each unit's differences the same on all its rows: the noise of their means would be 0, and
  # weights of 1 / 0 made tau2 NaN (if (tau2 > 0) failed, before).
  expect_error(ncam:::shrunk_offsets(rep(c(1, 2, 3), each = 10), rep(1:3, each = 10)),
               "The noise of the unit offsets cannot be estimated: the difference between the reference and the estimate does not vary within any unit",
               class = "ncam_error")
})

test_that("intervals of known units are not too narrow for new reference readings", {
  d <- unit_sites_data(site_bias = stats::setNames(seq(-3, 3, length.out = 8), letters[1:8]))
  fit <- unit_fit(d, unit = "site")
  later <- d[d$day > 60, ]
  withr::local_seed(11)
  new_reading <- later$truth + stats::rnorm(nrow(later), sd = 0.3)  # the reference's noise
  interval <- suppressWarnings(predict(fit, later, interval = "prediction"), classes = "ncam_warning_extrapolation")
  covered <- mean(new_reading >= interval$.pred_lower & new_reading <= interval$.pred_upper)
  # The reference's noise, learned without units, keeps their spread: conservative (0.996
  # here); the offset's own variance must not make them narrower than nominal.
  expect_gt(covered, 0.9)
})

test_that("the table of offsets keeps the unit column's type: a factor with its levels, numbers, dates", {
  d <- unit_sites_data()
  as_text <- unit_fit(d, unit = "site")
  d$site_f <- factor(d$site, levels = c("e", "d", "c", "b", "a", "z"))
  d$site_i <- match(d$site, letters)
  d$site_date <- as.Date("2024-01-01") + d$site_i
  later <- d[d$day > 60, ]
  for (column in c("site_f", "site_i", "site_date")) {
    fit <- unit_fit(d, unit = column)
    table <- fit$unit_offsets$table
    # In the column's order (levels e to a here; numbers and dates a to e), the rows of the text fit.
    same_units <- match(as.character(table[[column]]), as.character(d[[column]][match(as_text$unit_offsets$table$site, d$site)]))
    expect_identical(table[[column]], sort(unique(d[[column]][!is.na(d$ref)])))
    expect_equal(table[names(table) != column], as_text$unit_offsets$table[same_units, -1])
    # Joined back to the data by the column, every row finds its unit's offset.
    joined <- merge(d, table, by = column)
    expect_identical(nrow(joined), nrow(d))
    expect_equal(joined$offset, as_text$unit_offsets$table$offset[match(joined$site, as_text$unit_offsets$table$site)])
    # predict() matches the units as before.
    expect_identical(predict(fit, later), predict(as_text, later))
  }
  # Fits saved before kept the units as text: predict() matches them all the same.
  old <- fit
  old$unit_offsets$table$site_date <- as.character(old$unit_offsets$table$site_date)
  expect_identical(predict(old, later), predict(fit, later))
})

test_that("units match by value across types; edge cases are errors that say why", {
  d <- unit_sites_data()
  d$site <- c(a = 100000L, b = 2L, c = 3L, d = 4L, e = 5L)[d$site]
  fit <- unit_fit(d, unit = "site")
  later <- d[d$day > 60, ][1:5, ]
  as_double <- transform(later, site = as.numeric(site))  # as.character(1e5) is "1e+05"
  expect_no_warning(twin <- predict(fit, as_double), class = "ncam_warning_unknown_unit")
  expect_identical(twin, predict(fit, later))
  # predict_chunks() with no chunk at all builds its empty input with the unit column.
  expect_identical(nrow(predict_chunks(fit, function() NULL, verbose = FALSE)), 0L)
  single <- unit_sites_data(days = 40, site_bias = stats::setNames(seq(-3, 3, length.out = 25), paste0("s", 1:25)))
  single$ref[single$day > 1] <- NA  # 25 reference rows, one per site
  expect_error(unit_fit(single, unit = "site"), "every unit of site has a single reference row")
  # Checked before training: reference rows without a unit do not count.
  unnamed <- unit_sites_data()
  unnamed$site[!is.na(unnamed$ref)] <- NA
  expect_error(unit_fit(unnamed, unit = "site"), "only 0 have them")
  grouped <- transform(unit_sites_data(), region = "north")
  expect_error(ncam_by(s1 + s2 ~ rh, grouped, by = "site", reference = "ref", unit = "site"),
               "`unit` \\(site\\) is a `by` column")
})

test_that("a reference reading screened as a spike leaves its row to the sensors and the unit offset", {
  d <- unit_sites_data()
  fit <- unit_fit(d, unit = "site")
  rows <- d[!is.na(d$ref), ][c(1, 100, 200), ]
  faulty <- rows
  faulty$ref[1] <- -999
  expect_warning(used <- predict(fit, faulty, use_reference = TRUE), class = "ncam_warning_spikes")
  expect_identical(used[1, ], predict(fit, transform(rows, ref = NA))[1, ])
})

test_that("with use_reference, a row whose sensors' own estimate is beyond range is NA, as without the reading", {
  # The reading is combined with the sensors' estimate after the offset: where that estimate is
  # beyond what the networks compute with (predict() without the reading drops the row), the
  # combination is no estimate either, even where the posterior with the reading is resolved.
  d <- unit_sites_data()
  fit <- unit_fit(d, unit = "site")
  before_offsets <- fit
  before_offsets$unit_offsets <- NULL
  rows <- d[!is.na(d$ref), ][rep(1, 12), ]
  rows$rh <- 10^(3:14)
  far <- c("ncam_warning_beyond_range", "ncam_warning_extrapolation")
  alone <- suppressWarnings(predict(fit, rows), classes = far)
  with_reading <- suppressWarnings(predict(before_offsets, rows, use_reference = TRUE), classes = far)
  # Some rows have a posterior with the reading but none from the sensors alone.
  expect_gt(sum(is.na(alone$.pred) & !is.na(with_reading$.pred)), 0L)
  dropped <- which(is.na(alone$.pred) | is.na(with_reading$.pred))
  warned <- list()
  used <- withCallingHandlers(predict(fit, rows, use_reference = TRUE, interval = "prediction"), warning = function(w) {
    warned[[length(warned) + 1L]] <<- w
    invokeRestart("muffleWarning")
  })
  beyond <- Filter(function(w) inherits(w, "ncam_warning_beyond_range"), warned)
  expect_length(beyond, 1L)
  expect_identical(beyond[[1]]$rows, dropped)
  expect_identical(unique(beyond[[1]]$variables), "rh")
  expect_true(all(is.na(as.matrix(used[dropped, ]))))
  expect_false(anyNA(as.matrix(used[-dropped, ])))
  # The rows kept are the reading and the corrected sensors' estimate by their precisions.
  reading_variance <- subset(sensor_params(fit, rows[-dropped, ]), sensor == "ref")$sigma^2
  precision <- 1 / alone$.post_sd[-dropped]^2 + 1 / reading_variance
  expect_equal(used$.pred[-dropped], (alone$.pred[-dropped] / alone$.post_sd[-dropped]^2 + rows$ref[-dropped] / reading_variance) / precision,
               tolerance = 1e-6)  # single-precision networks: rows predicted beside others agree to ~1e-7
})

test_that("a unit's reference rows out of time order by a date-time column are warned about", {
  # Four sites beside the reference for their first 20 days: the sensors' error wanders with the
  # weather, which blocks of consecutive hours show and shuffled hours hide.
  d <- as.data.frame(simulate_colocation(days = 30, sites = 4, colocation = 20, seed = 1))
  d$truth <- NULL
  fit_site <- function(data) {
    short_fit(ncam(pa_a + pa_b + opc ~ rh + temperature, data, reference = "ref", hidden = 8L, epochs = 20L,
                   learn_rate = 0.01, seed = 1, threads = 1, unit = "site"),
              also = c("ncam_warning_clamp", "ncam_warning_spikes"))
  }
  withr::local_seed(4)
  shuffled <- d[sample(nrow(d)), ]
  expect_warning(fit_site(shuffled), "The reference rows of 4 units of site \\(.*\\) are not in time order by date",
                 class = "ncam_warning_unit_time_order")
  # In order within each unit: site by site, hour by hour across sites, or latest first.
  interleaved <- d[order(d$date, d$site), ]
  for (ordered in list(d, interleaved, d[rev(seq_len(nrow(d))), ])) {
    expect_no_warning(fit_site(ordered), class = "ncam_warning_unit_time_order")
  }
  # One unit out of order is named; a date-time column constant within units tells no order.
  one_swapped <- d
  at <- which(d$site == 3 & !is.na(d$ref))[c(10, 200)]
  one_swapped[at, ] <- d[rev(at), ]
  one_swapped$installed <- as.Date("2021-01-01") + one_swapped$site
  expect_warning(fit_site(one_swapped), "1 unit of site \\(\"3\"\\)", class = "ncam_warning_unit_time_order")
  # Why: with the same pooled model, each unit's differences in another order give the same
  # means but a smaller noise of each mean when shuffled; the interleaving of units is neutral.
  fit <- fit_site(d)
  fit$unit_offsets <- NULL
  offsets_of <- function(data) {
    table <- ncam:::estimate_unit_offsets(fit, data, "site", seq_len(nrow(data)), threads = 1)$table
    table[order(table$site), ]
  }
  in_order <- offsets_of(d)
  expect_equal(offsets_of(interleaved), in_order)
  expect_warning(out_of_order <- offsets_of(shuffled), class = "ncam_warning_unit_time_order")
  expect_equal(out_of_order$mean_difference, in_order$mean_difference)
  expect_lt(max(out_of_order$offset_sd / in_order$offset_sd), 0.8)
})
