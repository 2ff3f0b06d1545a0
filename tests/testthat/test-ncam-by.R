# ncam_by(): one fit per group, reproducible under any future plan; predict()/augment() route
# rows to their group's model.

by_fixture <- function() {
  toy <- simulate_toy(n = 450, seed = 5)
  # Groups in an order that is not sorted, with a numeric key and a character key.
  toy$site <- rep(c(2, 1, 2), each = 150)
  toy$unit <- rep(c("b", "a"), length.out = 450)
  toy
}

by_formula <- sensor_0 + sensor_1 + sensor_2 ~ x1

test_that("a group keeps its seed and fit when other groups come or its key changes type", {
  toy <- by_fixture()
  two <- short_fit(ncam_by(by_formula, toy[toy$site %in% c(1, 2), ], by = "site", hidden = 4L, epochs = 2L, seed = 7))
  toy$site[1:50] <- 0  # a new group that sorts first
  three <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 7))
  expect_identical(three$.seed[three$site == 1], two$.seed[two$site == 1])
  expect_identical(three$fit[[which(three$site == 1)]]$params, two$fit[[which(two$site == 1)]]$params)
  toy$site <- factor(toy$site)
  as_factor <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 7))
  expect_identical(as_factor$.seed, three$.seed)
  expect_false(identical(short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 8),
                                   also = "ncam_warning_validation_not_improved")$.seed,
                         three$.seed))
})

test_that("each group's fit is ncam() on its rows with the group's seed", {
  toy <- by_fixture()
  fits <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 3L, seed = 11))
  expect_s3_class(fits, c("ncam_by", "tbl_df"))
  expect_identical(fits$site, c(1, 2))  # sorted
  expect_identical(fits$.n, c(150L, 300L))
  expect_false(fits$.seed[1] == fits$.seed[2])
  for (k in 1:2) {
    rows <- toy$site == fits$site[k]
    alone <- short_fit(ncam(by_formula, data = toy[rows, ], hidden = 4L, epochs = 3L, seed = fits$.seed[k],
                            threads = 1L))
    expect_identical(fits$fit[[k]]$params, alone$params)
    expect_identical(stats::predict(fits$fit[[k]], toy[rows, ]), stats::predict(alone, toy[rows, ]))
  }
  # Two key columns: groups are the combinations present.
  two <- short_fit(ncam_by(by_formula, toy, by = c("site", "unit"), hidden = 4L, epochs = 2L, seed = 1))
  expect_identical(two$site, c(1, 1, 2, 2))
  expect_identical(two$unit, c("a", "b", "a", "b"))
  expect_identical(sum(two$.n), 450L)
})

test_that("`~ .` leaves out the by columns, and a formula naming one is refused", {
  toy <- by_fixture()[c("sensor_0", "sensor_1", "sensor_2", "x1", "x2", "site")]
  toy$site <- c("north", "south")[toy$site]  # text: one value per group, which `~ .` would refuse
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ ., toy, by = "site", hidden = 4L, epochs = 2L,
                            seed = 3))
  pred <- stats::predict(fits, toy)  # newdata with the by column, as the data was
  for (k in 1:2) {
    rows <- toy$site == fits$site[k]
    alone <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy[rows, ], hidden = 4L,
                            epochs = 2L, seed = fits$.seed[k], threads = 1L))
    expect_identical(fits$fit[[k]]$params, alone$params)
    expect_identical(as.list(pred[rows, ]), as.list(stats::predict(alone, toy[rows, ])))
  }
  # Constant within each group, a by column named as a covariate could only be dropped.
  expect_error(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1 + site, toy, by = "site"),
               "`formula` names `by` column site, which is constant within each group")
})

test_that("predict() and augment() route rows to their group's model, in order", {
  toy <- by_fixture()
  fits <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 3L, seed = 2))
  newdata <- toy[c(1, 160, 2, 300, 151), ]  # sites 2, 1, 2, 1, 1
  got <- stats::predict(fits, newdata, interval = "credible", level = 0.8)
  want <- rbind(stats::predict(fits$fit[[2]], toy[c(1, 2), ], interval = "credible", level = 0.8),
                stats::predict(fits$fit[[1]], toy[c(160, 300, 151), ], interval = "credible", level = 0.8))
  expect_identical(as.list(got), as.list(want[c(1, 3, 2, 4, 5), ]))
  aug <- augment(fits, newdata)
  expect_identical(aug$x1, newdata$x1)
  expect_identical(aug$.pred, stats::predict(fits, newdata)$.pred)
  # Augmented again without an interval: the earlier bounds go too, with a warning naming them.
  with_interval <- augment(fits, newdata, interval = "credible")
  expect_warning(again <- augment(fits, with_interval), "Dropped.*\\.pred_lower.*\\.pred_upper",
                 class = "ncam_warning_replaced_columns")
  expect_identical(again, aug)
  expect_error(augment(fits, new_data = newdata), "`newdata` is required, and `new_data` was given")
  expect_error(predict(fits, new_data = newdata), "`newdata` is required, and `new_data` was given")
  expect_error(augment(fits, data = newdata), "`newdata` is required, and `data` was given.*broom's `data`")
  expect_error(augment(fits, newdata, data = newdata), "Unknown argument `data`.*broom's `data`")
  # A group without a model: NA with a warning naming it; a site given as integer matches.
  newdata$site <- c(2L, 1L, 9L, 1L, 1L)
  expect_warning(mixed <- stats::predict(fits, newdata), "without a model.*9")
  expect_true(is.na(mixed$.pred[3]))
  expect_identical(mixed$.pred[c(2, 4, 5)], got$.pred[c(2, 4, 5)])
  # Row 1 is now scored alone, which changes only float rounding in the engine.
  expect_equal(mixed$.pred[1], got$.pred[1], tolerance = 1e-6)
  newdata$site <- 9
  expect_error(stats::predict(fits, newdata), "No row")
  # No rows in, no rows out, with the usual columns.
  none <- stats::predict(fits, toy[0, ], interval = "credible")
  expect_identical(nrow(none), 0L)
  expect_named(none, names(got))
})

test_that("rows without a group: the model's groups and newdata's keys as written, and a key of another type", {
  toy <- by_fixture()
  toy$day <- as.Date("2022-01-01") + 31 * (toy$site - 1)  # 2022-01-01 and 2022-02-01
  fits <- short_fit(ncam_by(by_formula, toy, by = "day", hidden = 4L, epochs = 2L, seed = 1))
  groups <- paste("day =", format(fits$day), collapse = "; ")
  flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
  # The same days as date-times match no group: the error says why and how to convert.
  as_time <- transform(toy, day = as.POSIXct(day))
  msg <- flat(expect_error(stats::predict(fits, as_time), "No row of `newdata` belongs to a group"))
  keys <- paste("day =", unique(format(toy$day)), collapse = "; ")  # in the order of the rows
  expect_match(msg, paste0("Keys in `newdata`: ", keys, "."), fixed = TRUE)
  expect_match(msg, paste0("Groups of `object`: ", groups, "."), fixed = TRUE)
  hint <- "`day` is a date-time (POSIXct) in `newdata` but a date (Date) in `object`: convert it with `as.Date(format(day, \"%Y-%m-%d\"))`"
  expect_match(msg, hint, fixed = TRUE)
  conversion <- str2lang('as.Date(format(day, "%Y-%m-%d"))')
  follow_hint <- function(newdata) within(newdata, day <- eval(conversion))
  expect_identical(stats::predict(fits, follow_hint(as_time)), stats::predict(fits, toy))
  # Local midnights east of Greenwich, in a time zone of the column or of the session: the
  # hint keeps their calendar day (as.Date() of a POSIXct took the day in UTC, the day before).
  tokyo <- transform(toy, day = as.POSIXct(format(day), tz = "Asia/Tokyo"))
  expect_match(flat(expect_error(stats::predict(fits, tokyo), "No row")), hint, fixed = TRUE)
  expect_identical(follow_hint(tokyo)$day, toy$day)
  expect_identical(stats::predict(fits, follow_hint(tokyo)), stats::predict(fits, toy))
  withr::local_timezone("Europe/Brussels")
  brussels <- transform(toy, day = as.POSIXct(format(day)))
  expect_match(flat(expect_error(stats::predict(fits, brussels), "No row")), hint, fixed = TRUE)
  expect_identical(follow_hint(brussels)$day, toy$day)
  # A Date is a number of days underneath; the number does not find the day's group.
  msg <- flat(expect_error(stats::predict(fits, transform(toy, day = as.numeric(day))), "No row of `newdata` belongs"))
  expect_match(msg, "`day` is a number in `newdata` but a date (Date) in `object`: numbers do not say which dates they stand for; write the keys as dates, as `object` has them (such as 2022-01-01)",
               fixed = TRUE)
  expect_no_match(msg, "as.Date", fixed = TRUE)
  # Date keys as text: as.Date() only for text that reads as dates.
  as_date_text <- transform(toy, day = format(day))
  msg <- flat(expect_error(stats::predict(fits, as_date_text), "No row of `newdata` belongs"))
  expect_match(msg, "`day` is text in `newdata` but a date (Date) in `object`: convert it with `as.Date(day)`", fixed = TRUE)
  expect_identical(stats::predict(fits, within(as_date_text, day <- as.Date(day))), stats::predict(fits, toy))
  for (names in list(paste0("site", toy$site), factor(paste0("site", toy$site)))) {
    msg <- flat(expect_error(stats::predict(fits, transform(toy, day = names)), "No row of `newdata` belongs"))
    expect_match(msg, "in `newdata` but a date (Date) in `object`: its text (such as \"site2\") does not read as dates; write the keys as dates, as `object` has them (such as 2022-01-01), or fit the groups again with these keys.",
                 fixed = TRUE)
    expect_no_match(msg, "as.Date", fixed = TRUE)
  }
  # Days written in two formats: as.Date() reads them all with the format of the first (row 1 is
  # of site 2), so it cannot convert them all.
  mixed_formats <- transform(toy, day = ifelse(site == 1, format(day), format(day, "%Y/%m/%d")))
  msg <- flat(expect_error(stats::predict(fits, mixed_formats), "No row of `newdata` belongs"))
  expect_match(msg, "its text (such as \"2022-01-01\") does not read as dates in one format", fixed = TRUE)
  # Date-time keys and names: no as.POSIXct().
  fits_time <- short_fit(ncam_by(by_formula, transform(toy, day = as.POSIXct(format(day), tz = "UTC")), by = "day",
                                 hidden = 4L, epochs = 2L, seed = 1))
  msg <- flat(expect_error(stats::predict(fits_time, transform(toy, day = paste0("site", site))), "No row"))
  expect_match(msg, "its text (such as \"site2\") does not read as date-times; write the keys as date-times", fixed = TRUE)
  msg <- flat(expect_error(stats::predict(fits_time, transform(toy, day = format(day))), "No row"))
  expect_match(msg, "convert it with `as.POSIXct(format(day), tz = \"UTC\")`", fixed = TRUE)
  # Number keys given as text: converted when the text reads as numbers, not when it is a name.
  by_site <- short_fit(ncam_by(by_formula, by_fixture(), by = "site", hidden = 4L, epochs = 2L, seed = 1))
  as_text <- transform(by_fixture(), site = as.character(site))
  msg <- flat(expect_error(stats::predict(by_site, as_text), "No row of `newdata` belongs"))
  expect_match(msg, "`site` is text in `newdata` but a number in `object`: convert it with `as.numeric(as.character(site))`", fixed = TRUE)
  expect_identical(stats::predict(by_site, within(as_text, site <- as.numeric(as.character(site)))), stats::predict(by_site, by_fixture()))
  named <- transform(by_fixture(), site = paste0("site", site))
  msg <- flat(expect_error(stats::predict(by_site, named), "No row of `newdata` belongs"))
  expect_match(msg, "`site` is text in `newdata` but a number in `object`: its text (such as \"site2\") does not read as numbers; write the keys as numbers, as `object` has them (such as 1), or fit the groups again with these keys.",
               fixed = TRUE)
  expect_no_match(msg, "as.numeric", fixed = TRUE)
  # Dates for number keys: no as.numeric(as.character()), which gives NA; text keys take as.character().
  msg <- flat(expect_error(stats::predict(by_site, transform(by_fixture(), site = as.Date("2024-01-01") + site)), "No row"))
  expect_match(msg, "`site` is a date (Date) in `newdata` but a number in `object`: dates are not numbers; write the keys as numbers, as `object` has them (such as 1)",
               fixed = TRUE)
  expect_no_match(msg, "as.numeric", fixed = TRUE)
  by_name <- short_fit(ncam_by(by_formula, named, by = "site", hidden = 4L, epochs = 2L, seed = 1))
  msg <- flat(expect_error(stats::predict(by_name, transform(named, site = as.Date("2024-01-01"))), "No row"))
  expect_match(msg, "`site` is a date (Date) in `newdata` but text in `object`: convert it with `as.character(site)`", fixed = TRUE)
  # Some rows of an unknown day: their key, as a date, in the warning.
  new <- toy[toy$site == 1, ]
  new$day[2] <- as.Date("2023-05-06")
  msg <- flat(expect_warning(mixed <- stats::predict(fits, new), "1 row of `newdata` belongs to 1 group without a model"))
  expect_match(msg, paste0("Not a group of `object`: day = 2023-05-06; its groups: ", groups, "."), fixed = TRUE)
  expect_true(is.na(mixed$.pred[2]))
})

test_that("tidy() and glance() give each group's tables behind its keys", {
  toy <- by_fixture()
  fits <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 3L, seed = 2))
  g <- glance(fits)
  expect_identical(g$site, fits$site)
  expect_identical(as.list(g[-1]), as.list(rbind(glance(fits$fit[[1]]), glance(fits$fit[[2]]))))
  t <- tidy(fits)
  n_sensors <- nrow(tidy(fits$fit[[1]]))
  expect_identical(t$site, rep(fits$site, each = n_sensors))
  expect_identical(as.list(t[-1]), as.list(rbind(tidy(fits$fit[[1]]), tidy(fits$fit[[2]]))))
  expect_error(glance(fits, 1), class = "rlib_error_dots_nonempty")
})

test_that("the same seed gives the same fits, leaving R's generator alone; bad input is refused", {
  toy <- by_fixture()
  set.seed(99)
  kind <- RNGkind()
  state <- .Random.seed
  a <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 3))
  expect_identical(RNGkind(), kind)
  expect_identical(.Random.seed, state)
  b <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 3, threads = 1))
  expect_identical(lapply(a$fit, `[[`, "params"), lapply(b$fit, `[[`, "params"))
  set.seed(4)
  c1 <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L))
  set.seed(4)
  c2 <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L))
  expect_identical(c1$.seed, c2$.seed)
  expect_error(ncam_by(by_formula, toy, by = "station"), "station")
  expect_error(ncam_by(by_formula, toy, by = "site", epoch = 2), "epoch")
  expect_error(ncam_by(by_formula, toy, by = "site", 2), "named")
  expect_error(ncam_by(by_formula, transform(toy, fit = site), by = "fit"), "Rename it")
  toy$site[c(4, 9)] <- NA
  expect_error(ncam_by(by_formula, toy, by = "site"), "rows 4 and 9")
  toy$site[c(4, 9)] <- c(3, 1)  # a group of one row cannot be fitted
  expect_error(short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 1)), "site = 3")
})

test_that("ncam()'s arguments that no group's rows decide are checked once, up front, as ncam() checks them", {
  toy <- by_fixture()
  group_data <- toy[setdiff(names(toy), "site")]  # the columns each group's fit sees
  # The error is ncam()'s own, from ncam_by() itself: a group's fit would give "Could not fit
  # group ..." (with the error as its parent), or "No group could be fitted" with "skip".
  bad <- list(list(hidden = -1), list(epochs = "a"), list(learn_rate = 0), list(batch_size = 0.5),
              list(stop_iter = -1), list(lambda_var = NA), list(sigma_y2 = -1), list(transform = "sqrt"),
              list(verbose = NA), list(control = list()), list(parameterization = "free"),
              list(anchor = "nonexistent"), list(anchor = 2), list(reference = 3), list(reference = "nope"),
              list(reference = "site"), list(reference = "sensor_1"), list(anchor = "sensor_0", reference = "x2"),
              list(parameterization = "unanchored", anchor = "sensor_1"),
              list(parameterization = "no_bias", reference = "x2"), list(validation = 1))
  for (args in bad) {
    alone <- expect_error(rlang::inject(ncam(by_formula, group_data, !!!args)))
    for (errors in c("stop", "skip")) {
      by_group <- expect_error(rlang::inject(ncam_by(by_formula, toy, by = "site", errors = errors, !!!args)))
      expect_identical(conditionMessage(by_group), conditionMessage(alone))
      expect_identical(by_group$call[[1]], quote(ncam_by))
      expect_null(by_group$parent)
    }
  }
  # Errors ncam() words with a group's row count or in R's words: ncam_by()'s own.
  expect_error(ncam_by(by_formula, toy, by = "site", validation = rep(c(TRUE, NA), 225), errors = "skip"),
               "^`validation` must not contain `NA`\\.$")
  expect_error(ncam_by(by_formula, toy, by = "site", validation = "a", errors = "skip"),
               "^`validation` must be a fraction in \\[0, 1\\), a logical vector with one element per row \\(450\\), or row numbers\\.$")
  expect_error(ncam_by(by_formula, toy, by = "site", hiden = 4, errors = "skip"), "`hiden` is not an argument of `ncam\\(\\)`")
  err <- expect_error(ncam_by(by_formula, toy, by = "site", seed = NA, errors = "skip"), "`seed` must be a whole number")
  expect_identical(err$call[[1]], quote(ncam_by))
})

test_that("arguments that pass the checks reach each group's fit unchanged", {
  toy <- by_fixture()
  toy$ref <- ifelse(seq_len(nrow(toy)) %% 3 == 0, toy$truth, NA)
  settings <- list(
    list(anchor = "sensor_1", hidden = 4L, learn_rate = 0.01, batch_size = 64, validation = 0.2, stop_iter = 2L,
         lambda_var = 0.01, sigma_y2 = 0.01, control = ncam_control(clip_norm = 5), verbose = FALSE),
    list(reference = "ref", parameterization = "anchored", hidden = c(3, 2), validation = c(2, 5, 7, 152, 155, 157)),
    list(parameterization = "unanchored", transform = "none", hidden = integer(0), validation = 0)
  )
  for (args in settings) {
    fits <- short_fit(rlang::inject(ncam_by(by_formula, toy, by = "site", epochs = 3L, seed = 2,
                                            threads = 1, !!!args)))
    for (k in seq_len(nrow(fits))) {
      rows <- toy$site == fits$site[k]
      # Row numbers are rows of the whole data: the group gets those among its rows.
      group_args <- args
      if (length(args$validation) > 1L) group_args$validation <- (seq_len(nrow(toy)) %in% args$validation)[rows]
      alone <- short_fit(rlang::inject(ncam(by_formula, toy[rows, names(toy) != "site"], epochs = 3L,
                                            seed = fits$.seed[k], threads = 1, !!!group_args)))
      expect_identical(fits$fit[[k]]$params, alone$params)
      expect_identical(fits$fit[[k]]$n_validation, alone$n_validation)
    }
  }
})

test_that("a group without reference readings: the hint keeps the reference for the other groups", {
  d <- as.data.frame(simulate_colocation(days = 6, sites = 2, colocation = 3, seed = 4))
  d$ref[d$site == 2] <- NA
  err <- expect_error(short_fit(ncam_by(pa_a + pa_b ~ rh, d, by = "site", reference = "ref", hidden = 4L, epochs = 2L,
                                        seed = 1, threads = 1L)),
                      "Could not fit group site = 2", class = "ncam_error")
  msg <- gsub("\\s+", " ", cli::ansi_strip(conditionMessage(err)))
  expect_match(msg, "Reference column ref is never observed", fixed = TRUE)
  expect_match(msg, "Leaving out `reference` would drop ref for every group.", fixed = TRUE)
  # One group with reference readings: a pooled fit without unit offsets; site 2 reads two sensors.
  expect_match(msg, "Fit all groups in one model, `ncam(pa_a + pa_b ~ rh, data = d, reference = \"ref\")`", fixed = TRUE)
  expect_match(msg, "Or give `errors = \"skip\"` to fit the other groups, and fit this group on its own with `ncam()` without `reference`", fixed = TRUE)
  expect_no_match(msg, "leave `reference` out for a label-free fit", fixed = TRUE)
})

test_that("a sensor one group lacks: that group is fitted without it, unless it is the anchor", {
  # A station with one of two boxes: the group's model is ncam() on its rows without the sensor
  # (it stopped the whole call before), with a message naming it.
  toy <- by_fixture()
  toy$sensor_2[toy$site == 2] <- NA
  messages <- testthat::capture_messages(fits <- suppressWarnings(
    ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 1, threads = 1L),
    classes = c("ncam_warning_not_converged", "ncam_warning_two_sensors")))
  expect_match(messages, "Group site = 2: sensor_2 has no reading in this group; its model is fitted without it.", fixed = TRUE)
  expect_length(messages, 1L)
  expect_identical(fits$fit[[1]]$sensors, c("sensor_0", "sensor_1", "sensor_2"))
  alone <- short_fit(ncam(sensor_0 + sensor_1 ~ x1, toy[toy$site == 2, ], hidden = 4L, epochs = 2L, seed = fits$.seed[2],
                          threads = 1L), also = "ncam_warning_two_sensors")
  expect_identical(fits$fit[[2]]$sensors, c("sensor_0", "sensor_1"))
  expect_identical(fits$fit[[2]]$params, alone$params)
  pred <- stats::predict(fits, toy)
  expect_identical(nrow(pred), nrow(toy))
  expect_identical(pred$.pred[toy$site == 2], stats::predict(alone, toy[toy$site == 2, ])$.pred)
  # With a reference as the anchor, a group with one low-cost sensor beside it.
  d <- as.data.frame(simulate_colocation(days = 8, sites = 2, colocation = 6, seed = 4))
  d$pa_b[d$site == 1] <- NA
  expect_message(with_ref <- suppressWarnings(
    ncam_by(pa_a + pa_b ~ rh, d, by = "site", reference = "ref", hidden = 4L, epochs = 2L, seed = 1, threads = 1L),
    classes = c("ncam_warning_not_converged", "ncam_warning_few_reference_rows", "ncam_warning_two_sensors",
                "ncam_warning_validation_not_improved")),
    "site = 1: pa_b has no reading", class = "ncam_message_sensor_left_out")
  expect_identical(with_ref$fit[[1]]$sensors, "pa_a")
  expect_identical(with_ref$fit[[2]]$sensors, c("pa_a", "pa_b"))
  # ncam()'s hint, to leave the column out of the formula, would drop it for every group: where
  # the column cannot be left out of one group (the anchor, a covariate), the hint says so.
  flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
  no_anchor <- by_fixture()
  no_anchor$sensor_0[no_anchor$site == 2] <- NA
  msg <- flat(expect_error(short_fit(ncam_by(by_formula, no_anchor, by = "site", hidden = 4L, epochs = 2L, seed = 1, threads = 1L)),
                           "Could not fit group site = 2", class = "ncam_error"))
  expect_match(msg, "Sensor column sensor_0 is entirely `NA`.", fixed = TRUE)
  expect_match(msg, "Leaving sensor_0 out of `formula` would drop it for every group: give `errors = \"skip\"` to fit the other groups, and fit this group on its own with `ncam()` and a formula without sensor_0.",
               fixed = TRUE)
  expect_no_match(msg, "Leave it out of the formula")
  # A covariate all NA in one group, and a sensor stuck at one value, alike.
  no_x1 <- by_fixture()
  no_x1$x1[no_x1$site == 1] <- NA
  expect_match(flat(expect_error(short_fit(ncam_by(by_formula, no_x1, by = "site", hidden = 4L, epochs = 2L, seed = 1, threads = 1L)),
                                 "Could not fit group site = 1")),
               "Covariate x1 is entirely `NA`. i Leaving x1 out of `formula` would drop it for every group")
  stuck <- by_fixture()
  stuck$sensor_0[stuck$site == 1] <- 5
  expect_match(flat(expect_error(short_fit(ncam_by(by_formula, stuck, by = "site", hidden = 4L, epochs = 2L, seed = 1, threads = 1L)),
                                 "Could not fit group site = 1")),
               "Leaving sensor_0 out of `formula` would drop it for every group")
  # Following the hint: the other group fits.
  fits <- suppressWarnings(ncam_by(by_formula, no_anchor, by = "site", hidden = 4L, epochs = 2L, seed = 1, threads = 1L, errors = "skip"),
                           classes = c("ncam_warning_group_not_fitted", "ncam_warning_not_converged"))
  expect_null(fits$fit[[2]])
  expect_s3_class(fits$fit[[1]], "ncam")
})

test_that("errors = \"skip\" keeps the groups that fit and leaves the others NA", {
  toy <- by_fixture()
  toy$site[4] <- 3  # a group of one row cannot be fitted
  warnings <- testthat::capture_warnings(
    fits <- ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 1, errors = "skip")
  )
  expect_match(warnings, "1 of 3 groups could not be fitted.*site = 3", all = FALSE)
  expect_identical(fits$site, c(1, 2, 3))
  expect_null(fits$fit[[3]])
  # A group that fits is ncam() on its rows with its seed, as without errors = "skip".
  expect_identical(fits$fit[[1]]$params, short_fit(ncam(by_formula, toy[toy$site == 1, ],
    hidden = 4L, epochs = 2L, seed = fits$.seed[1], threads = 1))$params)
  expect_warning(pred <- stats::predict(fits, toy[c(4, 1), ]), "without a model")
  expect_true(is.na(pred$.pred[1]))
  expect_false(is.na(pred$.pred[2]))
  expect_identical(glance(fits)$site, c(1, 2))
  # methods of one model point to the group's fit, instead of a tibble's NULL column, summary.data.frame()
  # or update()'s "need an object with call component"
  for (method in list(fitted, residuals, coef, summary, update, model.frame, terms, model.matrix)) {
    expect_error(method(fits), "works on one model.*fits\\$fit\\[\\[i\\]\\]", class = "ncam_error")
  }
  # ... as vcov() and sigma(), which one fit has not either (they were the tibble's NULL column
  # with a warning, or "no applicable method").
  for (method in list(vcov, sigma)) {
    expect_error(method(fits), "has no meaning for NCAM fits, one or by group.*`tidy\\(fits\\)`", class = "ncam_error")
  }
  # deviance(), df.residual() and weights() are NULL, as for one fit, without the tibble's
  # "Unknown or uninitialised column" warning.
  for (method in list(deviance, df.residual, weights)) {
    expect_no_warning(expect_null(method(fits)))
    expect_null(method(fits$fit[[1]]))
  }
  expect_error(update(fits, epochs = 5), "call `ncam_by\\(\\)` again", class = "ncam_error")
  # nobs() and logLik() total the groups with a model: the skipped group counts for nothing.
  expect_identical(nobs(fits), nobs(fits$fit[[1]]) + nobs(fits$fit[[2]]))
  ll <- logLik(fits)
  expect_equal(as.numeric(ll), fits$fit[[1]]$loglik + fits$fit[[2]]$loglik)
  expect_identical(attr(ll, "df"), as.numeric(length(fits$fit[[1]]$params) + length(fits$fit[[2]]$params)))
  expect_equal(AIC(fits), -2 * as.numeric(ll) + 2 * attr(ll, "df"))
  expect_equal(BIC(fits), -2 * as.numeric(ll) + log(nobs(fits)) * attr(ll, "df"))
  # Rows of skipped groups only: NA rows with the warning, not an error.
  expect_warning(alone <- stats::predict(fits, toy[4, ]), "1 row of `newdata` belongs to 1 group without a model .*: its predictions")
  expect_identical(names(alone), names(pred))
  expect_true(is.na(alone$.pred))
  expect_error(stats::predict(fits, transform(toy[1:2, ], site = 9)), "No row of `newdata` belongs to a group of `object`")
  # The reason of a skipped group is its whole first sentence, however cli wraps it.
  long <- by_fixture()
  long$ref <- NA_real_
  long$ref[long$site == 1] <- long$truth[long$site == 1]
  long$ref[which(long$site == 2)[1:5]] <- 10
  warnings <- testthat::capture_warnings(
    ncam_by(by_formula, long, by = "site", reference = "ref", hidden = 4L, epochs = 2L, seed = 1, errors = "skip")
  )
  expect_match(warnings, "site = 2: Reference column ref is observed beside the sensors on 5 rows; at least 20 are needed to learn its noise level", all = FALSE)
  toy$site <- 1:nrow(toy)  # every group one row
  expect_error(ncam_by(by_formula, toy[1:3, ], by = "site", epochs = 2L, errors = "skip"),
               "No group could be fitted")
  # plot() draws each fitted group's training and validation curves (it was R's "'list' object
  # cannot be coerced to type 'double'"), as autoplot() does.
  skip_if_not_installed("ggplot2")
  grDevices::pdf(NULL)
  withr::defer(grDevices::dev.off())
  expect_identical(withVisible(plot(fits)), list(value = fits, visible = FALSE))
  drawn <- ggplot2::last_plot()$data
  for (g in 1:2) {
    history <- fits$fit[[g]]$history
    train <- drawn[drawn$group == paste("site =", fits$site[g]) & drawn$curve == "training", ]
    expect_identical(train$epoch, history$epoch)
    expect_identical(train$nll, history$train_nll)
  }
  expect_false(any(grepl("site = 3", drawn$group)))
  expect_error(plot(fits, colour = "red"), "`...` must be empty")
  # A positional second argument was ignored: plot(fits, 1) drew every group, not the first.
  expect_error(plot(fits, 1), "`plot\\(\\)` of fits by group takes no `y`; it was given `1`.*`plot\\(fits\\$fit\\[\\[i\\]\\]\\)` draws group `i`'s alone",
               class = "ncam_error")
  expect_error(plot(fits[3, ]), "`x` has no fitted group to plot", class = "ncam_error")
  expect_error(check_ggplot2(installed = FALSE, needing = "{.fn plot} of fits by group",
                             otherwise = "{.code plot(fits$fit[[i]])} draws one group's training curves without it."),
               "`plot\\(\\)` of fits by group needs the ggplot2 package.*`plot\\(fits\\$fit\\[\\[i\\]\\]\\)` draws one group's")
})

test_that("multisession and cluster plans give the sequential fits", {
  toy <- by_fixture()
  sequential <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 3L, seed = 7))
  for (kind in c("multisession", "cluster")) {
    local({
      local_two_workers(kind)
      kind <- RNGkind()
      parallel <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 3L, seed = 7))
      expect_identical(RNGkind(), kind)
      expect_identical(parallel$.seed, sequential$.seed)
      expect_identical(lapply(parallel$fit, `[[`, "params"), lapply(sequential$fit, `[[`, "params"))
      expect_identical(stats::predict(parallel, toy), stats::predict(sequential, toy))
    })
  }
  # The engine the session chose, also in workers that do not share its options.
  withr::local_options(ncam.simd = FALSE)
  portable <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 3L, seed = 7))
  local_two_workers("multisession")
  parallel <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 3L, seed = 7))
  expect_identical(lapply(parallel$fit, `[[`, "params"), lapply(portable$fit, `[[`, "params"))
})

test_that("fits by group made in a function are plain data: read back, they are identical()", {
  toy <- by_fixture()
  make <- function(d) {
    ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, d, by = "site", hidden = 4L, epochs = 2L, seed = 3)
  }
  environment(make) <- globalenv()  # as at top level: testthat's frames hold a namespace's copy
  fits <- short_fit(make(toy))
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(fits, path)
  expect_identical(readRDS(path), fits)
})

test_that("an object outside the data with one value per row of all the data is refused up front", {
  toy <- simulate_toy(n = 200, seed = 41)
  toy$site <- rep(c("n", "s"), 100)
  w <- seq_len(nrow(toy))
  expect_error(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ I(x1 * w), data = toy, by = "site", hidden = 4L,
                       epochs = 2L, seed = 1, threads = 1),
               "one value per row", fixed = TRUE)
})

test_that("a group's warning keeps its classes and bullets behind the group's name, under any plan", {
  toy <- by_fixture()
  caught_warnings <- function() {
    caught <- list()
    withCallingHandlers(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 7),
                        warning = function(w) {
                          caught[[length(caught) + 1L]] <<- w
                          invokeRestart("muffleWarning")
                        })
    caught
  }
  check <- function(caught) {
    not_converged <- Filter(function(w) inherits(w, "ncam_warning_not_converged"), caught)
    expect_length(not_converged, 2L)
    messages <- vapply(not_converged, conditionMessage, "")
    expect_match(messages, "^Group site = [12]: Not converged")
    # The bullet stays on a line of its own.
    expect_match(messages, "\n\u2139 Give more `epochs`|\ni Give more `epochs`")
    expect_true(all(vapply(not_converged, function(w) is.null(conditionCall(w)), logical(1))))
    # The idiom of ?ncam muffles that kind only.
    left <- testthat::capture_warnings(withCallingHandlers(
      ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 7),
      ncam_warning_not_converged = function(w) invokeRestart("muffleWarning")))
    expect_false(any(grepl("Not converged", left)))
    expect_length(left, length(caught) - 2L)
    # Every group's warning keeps the common class too, which muffles them all.
    expect_true(all(vapply(caught, inherits, logical(1), "ncam_warning")))
    expect_length(testthat::capture_warnings(suppressWarnings(
      ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 7), classes = "ncam_warning")), 0L)
  }
  check(caught_warnings())
  local({
    local_two_workers("multisession")
    check(caught_warnings())
  })
})

test_that("zero rows, and fits by group without a model, are clear errors", {
  toy <- by_fixture()
  expect_error(ncam_by(by_formula, toy[toy$site == 9, ], by = "site", hidden = 4L, epochs = 2L, seed = 1),
               "`data` has no rows")
  toy$site[4] <- 3  # a group of one row cannot be fitted
  fits <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 1, errors = "skip"),
                    also = "ncam_warning_group_not_fitted")
  failed <- fits[fits$site == 3, ]
  expect_s3_class(failed, "ncam_by")
  expect_error(stats::predict(failed, toy[4, ]), "No group of `object` has a model \\(site = 3\\)")
  expect_error(augment(failed, toy[c(4, 1), ]), "No group of `object` has a model")
  expect_error(stats::predict(fits[0, ], toy[4, ]), "`object` has no group")
})

test_that("ncam_by()'s own warnings have classes", {
  toy <- by_fixture()
  toy$site[4] <- 3  # a group of one row cannot be fitted
  expect_warning(fits <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 1,
                                           errors = "skip")),
                 "1 of 3 groups could not be fitted", class = "ncam_warning_group_not_fitted")
  expect_warning(stats::predict(fits, toy[c(4, 1), ]), "without a model", class = "ncam_warning_no_group_model")
  expect_warning(stats::predict(fits, transform(toy[1:2, ], site = c(1, 9))), "Not a group of `object`",
                 class = "ncam_warning_no_group_model")
})

test_that("integer64 keys are grouped by exact value, with the seeds of the same numbers", {
  skip_if_not_installed("bit64")
  toy <- by_fixture()
  fit_by_site <- function(site) {
    toy$site <- site
    short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 5L, seed = 1, threads = 1))
  }
  numeric <- fit_by_site(toy$site)
  as64 <- fit_by_site(bit64::as.integer64(toy$site))
  expect_identical(as64$.seed, numeric$.seed)
  expect_identical(as64$.seed, fit_by_site(as.character(toy$site))$.seed)
  expect_identical(as64$fit[[1]]$params, numeric$fit[[1]]$params)
  # Scoring matches by value across number types, as a number and an integer do.
  expect_identical(stats::predict(as64, toy), stats::predict(numeric, toy))
  expect_identical(stats::predict(numeric, transform(toy, site = bit64::as.integer64(site))),
                   stats::predict(numeric, toy))
  # Negative ids are two groups (their bits once read as one NaN), sorted by value.
  negative <- fit_by_site(-bit64::as.integer64(toy$site))
  expect_identical(as.character(negative$site), c("-2", "-1"))
  expect_identical(negative$.n, c(300L, 150L))
  expect_identical(negative$.seed, fit_by_site(-toy$site)$.seed)
  # Beyond 2^53, where doubles skip odd numbers, ids one apart are two groups.
  big <- fit_by_site(bit64::as.integer64("9007199254740991") + bit64::as.integer64(toy$site))
  expect_identical(as.character(big$site), c("9007199254740992", "9007199254740993"))
  expect_identical(big$.seed, fit_by_site(c("9007199254740992", "9007199254740993")[toy$site])$.seed)
})

test_that("POSIXlt keys are the POSIXct instants they denote", {
  toy <- by_fixture()
  toy$day <- as.POSIXct(c("2024-03-30", "2024-03-31"), tz = "Europe/Athens")[toy$site]
  lt <- transform(toy, day = as.POSIXlt(day))
  fit_by_day <- function(data) {
    short_fit(ncam_by(by_formula, data, by = "day", hidden = 4L, epochs = 5L, seed = 1, threads = 1))
  }
  ct_fits <- fit_by_day(toy)
  lt_fits <- fit_by_day(lt)
  expect_identical(lt_fits$.seed, ct_fits$.seed)
  expect_identical(lt_fits$day, ct_fits$day)  # returned as POSIXct
  expect_identical(lt_fits$fit[[2]]$params, ct_fits$fit[[2]]$params)
  expect_identical(stats::predict(lt_fits, toy), stats::predict(ct_fits, toy))
  expect_identical(stats::predict(ct_fits, lt), stats::predict(ct_fits, toy))
})

test_that("a key is the same group, with the same seed, whatever type stores its value", {
  toy <- as.data.frame(by_fixture())  # a tibble would store an integer Date as double
  days <- as.Date("2024-03-30") + toy$site - 1
  as_integer <- function(x) structure(as.integer(unclass(x)), class = class(x), tzone = attr(x, "tzone"))
  fit_by_day <- function(day) {
    toy$day <- day
    short_fit(ncam_by(by_formula, toy[names(toy) != "site"], by = "day", hidden = 4L, epochs = 5L,
                      seed = 1, threads = 1))
  }
  # A Date stored as integer (data.table::fread()'s IDate) is the same day as one stored as double.
  double_days <- fit_by_day(days)
  integer_days <- fit_by_day(as_integer(days))
  expect_true(is.integer(unclass(integer_days$day)))
  expect_identical(integer_days$.seed, double_days$.seed)
  expect_identical(integer_days$fit[[2]]$params, double_days$fit[[2]]$params)
  new <- toy[c(1, 151, 2), ]
  new$day <- as_integer(days[c(1, 151, 2)])
  by_double <- stats::predict(double_days, transform(new, day = days[c(1, 151, 2)]))
  expect_false(anyNA(by_double$.pred))
  expect_identical(stats::predict(double_days, new), by_double)
  expect_identical(stats::predict(integer_days, transform(new, day = days[c(1, 151, 2)])), by_double)
  expect_identical(augment(double_days, new)$.pred, by_double$.pred)
  toy$date <- as.Date("2024-01-01") + (seq_len(nrow(toy)) - 1L) %% 150L
  drift <- function(day) {
    suppressWarnings(sensor_drift(double_days, transform(toy, day = day), period = "week"),
                     classes = "ncam_warning_few_periods")
  }
  expect_identical(drift(as_integer(days)), drift(days))
  # So are date-times stored as integer seconds, factors and their labels, integers and doubles.
  times <- as.POSIXct("2024-03-30 10:00", tz = "UTC") + 3600 * (toy$site - 1)
  expect_identical(fit_by_day(as_integer(times))$.seed, fit_by_day(times)$.seed)
  numbers <- c(100000, -3)[toy$site]
  expect_identical(fit_by_day(as.integer(numbers))$.seed, fit_by_day(numbers)$.seed)
  expect_identical(fit_by_day(factor(c("north", "south"))[toy$site])$.seed,
                   fit_by_day(c("north", "south")[toy$site])$.seed)
})

test_that("a list column as `by` is refused naming it", {
  d <- transform(simulate_toy(300, seed = 1), g = rep(c("a", "b"), 150))
  d$gl <- as.list(d$g)
  expect_error(ncam_by(by_formula, d, by = "gl", hidden = 4, epochs = 5, threads = 1),
               "`by` column gl of `data` is a list column")
})

test_that("number keys that print alike are shown with the digits that tell them apart", {
  d <- transform(simulate_toy(300, seed = 1), gn = rep(c(0.1 + 0.2, 1), 150))
  fits <- short_fit(ncam_by(by_formula, d, by = "gn", hidden = 4, epochs = 5, threads = 1, seed = 1))
  nd <- d[1:4, ]
  nd$gn <- c(0.3, 0.3, 1, 1)
  w <- expect_warning(predict(fits, nd), class = "ncam_warning_no_group_model")
  # Each with the fewest digits that read back as it: 0.3 short, 0.1 + 0.2 with all 17.
  expect_match(conditionMessage(w), "Not a group of `object`: gn = 0.3; its groups: gn = 0.30000000000000004; gn = 1.",
               fixed = TRUE)
  expect_identical(as.numeric("0.30000000000000004"), 0.1 + 0.2)
  expect_match(conditionMessage(w), "Number keys match exactly")
  nd$gn <- 0.3
  expect_error(predict(fits, nd), "Keys in `newdata`: gn = 0.3.", fixed = TRUE)
  # Keys that print apart in 15 digits are shown as before.
  nd$gn <- 2
  err <- expect_error(predict(fits, nd), "Keys in `newdata`: gn = 2.")
  expect_no_match(conditionMessage(err), "Number keys match exactly")
})

test_that("predict(), tidy() and glance() of an object that is no ncam_by result are clear errors", {
  fake <- structure(list(a = 1), class = c("ncam_by", "tbl_df", "tbl", "data.frame"))
  toy <- simulate_toy(300, seed = 1)
  expect_error(predict(fake, toy), "`object` is not a valid result of `ncam_by\\(\\)`")
  expect_error(tidy(fake), "`x` is not a valid result of `ncam_by\\(\\)`")
  expect_error(glance(fake), "`x` is not a valid result of `ncam_by\\(\\)`")
})

test_that("a table with two models for a group (two results bound together) is refused naming the group", {
  toy <- by_fixture()
  fits <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 1))
  refits <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 2))
  # What dplyr::bind_rows(fits, refits) gives: each site twice, first with fits' model.
  object <- fits[c(1, 2, 1, 2), ]
  object$fit[3:4] <- refits$fit
  expect_s3_class(object, "ncam_by")
  flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
  msg <- flat(expect_error(predict(object, toy), "`object` has more than one model for some groups: site = 1; site = 2."))
  keep <- 'object[!duplicated(object[c("site")]), ]'
  expect_match(msg, paste0("Keep one fit per group, such as the first with `", keep, "`"), fixed = TRUE)
  expect_identical(predict(eval(str2lang(keep)), toy), predict(fits, toy))
  expect_error(tidy(object[c(1, 2, 2), ]), "`x` has more than one model for a group: site = 2.")
  expect_error(glance(object), "`x` has more than one model")
  skip_if_not_installed("ggplot2")
  expect_error(ggplot2::autoplot(object), "`object` has more than one model")
})

test_that("validation given as rows of data gives each group its own rows of it", {
  toy <- by_fixture()
  chosen <- rep(c(TRUE, FALSE, FALSE), length.out = nrow(toy))
  fits <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 3L, seed = 7, validation = chosen))
  for (k in seq_len(nrow(fits))) {
    rows <- which(toy$site == fits$site[k])
    expect_identical(fits$fit[[k]]$n_validation, sum(chosen[rows]))
    alone <- short_fit(ncam(by_formula, toy[rows, names(toy) != "site"], hidden = 4L, epochs = 3L, seed = fits$.seed[k],
                            validation = chosen[rows], threads = 1))
    expect_identical(fits$fit[[k]]$params, alone$params)
  }
  # Row numbers of data are the same rows
  by_number <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 3L, seed = 7, validation = which(chosen)))
  expect_identical(lapply(by_number$fit, `[[`, "params"), lapply(fits$fit, `[[`, "params"))
  expect_error(ncam_by(by_formula, toy, by = "site", validation = chosen[-1]), "one element per row \\(450\\)")
  # a group none of whose rows is a validation row is told that it cannot stop early
  only_site_2 <- which(toy$site == 2)[1:30]
  expect_warning(short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 3L, seed = 7, validation = only_site_2)),
                 "Group site = 1: none of its rows is among the `validation` rows", class = "ncam_warning_no_validation_rows")
})

test_that("0 and -0 are one group, keyed 0, and rows of either go to its model", {
  toy <- by_fixture()[c("sensor_0", "sensor_1", "sensor_2", "x1")]
  toy$g <- rep(c(0, -0, 1), 150)
  fits <- short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, by = "g", hidden = 4L, epochs = 3L, seed = 4, threads = 1L))
  expect_identical(fits$g, c(0, 1))
  expect_identical(1 / fits$g[1], Inf)  # +0, whichever came first
  expect_identical(fits$.n, c(300L, 150L))
  # The same group, seed and fit as with every key written 0.
  plus <- short_fit(ncam_by(by_formula, transform(toy, g = abs(g)), by = "g", hidden = 4L, epochs = 3L, seed = 4,
                            threads = 1L))
  expect_identical(fits$.seed, plus$.seed)
  expect_identical(fits$fit[[1]]$params, plus$fit[[1]]$params)
  new <- toy[1:4, ]  # keys 0, -0, 1, 0
  expect_no_warning(got <- stats::predict(fits, new))
  expect_identical(got$.pred[c(1, 2, 4)], stats::predict(fits$fit[[1]], new[c(1, 2, 4), ])$.pred)
  expect_identical(got$.pred[3], stats::predict(fits$fit[[2]], new[3, ])$.pred)
  # The group's call finds its rows, of both keys (the formula is written here, where `toy` is).
  expect_identical(fitted(fits$fit[[1]]), fitted(fits$fit[[1]], toy[toy$g == 0, ]))
})

test_that("verbose = TRUE prints each group's summary on its own line, as ncam() does", {
  toy <- by_fixture()
  # future hands a group's message to message(), which printed a cli message without its
  # final newline: the groups' lines ran together, and the last into the next output.
  printed <- capture.output(type = "message", {
    fits <- short_fit(ncam_by(by_formula, toy, by = "site", hidden = 4L, epochs = 2L, seed = 7, verbose = TRUE))
    message("next output")
  })
  expect_snapshot(writeLines(printed),
                  transform = function(x) gsub("[0-9.]+ s\\b", "<seconds> s", x))
})

test_that("?ncam_by sends predict_chunks() the fits by group, which it scores, not one group's fit", {
  help <- paste(capture.output(tools::Rd2txt(tools::Rd_db("ncam")[["ncam_by.Rd"]], options = list(underline_titles = FALSE))),
                collapse = " ")
  help <- gsub("\\s+", " ", gsub("[\u2018\u2019'](predict_chunks\\(\\))[\u2018\u2019']", "\\1", help))
  expect_no_match(help, "predict_chunks() on a group's fit", fixed = TRUE)
  expect_match(help, "predict_chunks() of the fits (or of their calibration) for scoring data larger than memory, each row by its group's model",
               fixed = TRUE)
})
