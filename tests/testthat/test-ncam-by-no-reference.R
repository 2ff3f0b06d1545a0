# Fits by group of stations as at SensEURCity Antwerp (helper-one-box.R): one with one box, two
# with two boxes, one without a reference. What ncam_by() and predict() say of them.

flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))

# The code between backticks after `lead` in a message.
code_after <- function(msg, lead) regmatches(msg, regexec(paste0(lead, "`([^`]+)`"), msg))[[1]][2]

test_that("a group without reference readings is pointed to a pooled fit with unit offsets, which estimates it", {
  d <- one_box_data()
  err <- expect_error(one_box_fits(d, errors = "stop"), "Could not fit group site = s4", class = "ncam_error")
  msg <- flat(err)
  expect_match(msg, "Leaving out `reference` would drop ref for every group.", fixed = TRUE)
  # Three groups read the reference: offsets for them, the between-unit variance for site 4.
  pooled <- code_after(msg, "Fit all groups in one model, ")
  # one_box_fits() gives ncam_by() its `data`.
  expect_identical(pooled, 'ncam(pa_a + pa_b ~ 1, data = data, reference = "ref", unit = "site")')
  expect_match(msg, "between-unit variance", fixed = TRUE)
  # Site 4 has two boxes: a label-free fit of its own works too.
  expect_match(msg, "Or give `errors = \"skip\"` to fit the other groups, and fit this group on its own with `ncam()` without `reference` (label-free",
               fixed = TRUE)
  # The advice as given (a few epochs) fits, and estimates every row of site 4 that has a reading.
  call <- str2lang(pooled)
  call[c("hidden", "epochs", "seed", "threads")] <- list(4L, 3L, 1L, 1L)
  fit <- short_fit(eval(call, list(data = d)), also = "ncam_warning_clamp")
  s4 <- d[d$site == "s4", ]
  pred <- suppressWarnings(predict(fit, s4), classes = c("ncam_warning_unknown_unit", "ncam_warning_extrapolation",
                                                          "ncam_warning_no_readings"))
  read <- !is.na(s4$pa_a) | !is.na(s4$pa_b)
  expect_false(anyNA(pred$.pred[read]))
  expect_identical(fit$unit_offsets$unit, "site")
  expect_false("s4" %in% fit$unit_offsets$table$site)
  alone <- short_fit(ncam(pa_a + pa_b ~ 1, data = s4, hidden = 4L, epochs = 3L, seed = 1L, threads = 1L),
                     also = c("ncam_warning_two_sensors", "ncam_warning_clamp"))
  expect_s3_class(alone, "ncam")
})

test_that("a group with one sensor and no reference is not sent to a label-free fit, which would refuse it", {
  d <- one_box_data()
  d$pa_b[d$site == "s4"] <- NA
  msg <- flat(expect_error(one_box_fits(d, errors = "stop"), "Could not fit group site = s4", class = "ncam_error"))
  expect_no_match(msg, "label-free")
  expect_match(msg, "Fit all groups in one model, `ncam(pa_a + pa_b ~ 1, data = data, reference = \"ref\", unit = \"site\")`",
               fixed = TRUE)
  expect_match(msg, "predict its rows with the model of a neighbouring group, `predict(fits$fit[[i]], newdata = <its rows>)`: with one sensor (pa_a) it cannot be fitted without a reference.",
               fixed = TRUE)
  expect_error(ncam(pa_a ~ 1, data = d[d$site == "s4", ]), "at least two sensors")
  # Fewer than 3 groups with reference readings: a pooled fit without offsets; `~ .` leaves out the group column.
  two <- d[d$site %in% c("s2", "s4"), c("site", "rh", "pa_a", "pa_b", "ref")]
  msg <- flat(expect_error(suppressMessages(short_fit(
    ncam_by(pa_a + pa_b ~ ., data = two, by = "site", reference = "ref", hidden = 4L, epochs = 3L, seed = 1L, threads = 1L),
    also = "ncam_warning_clamp"), classes = "ncam_message_sensor_left_out"), "site = s4"))
  expect_match(msg, "`ncam(pa_a + pa_b ~ . - site, data = two, reference = \"ref\")`: the groups with reference readings teach it (`unit` offsets need them at 3 or more groups; 1 has them).",
               fixed = TRUE)
  # ncam() itself, with one sensor and a reference never observed, does not suggest leaving it out.
  msg <- flat(expect_error(ncam(pa_a ~ 1, data = d[d$site == "s4", ], reference = "ref"), "never observed"))
  expect_no_match(msg, "leave `reference` out", fixed = TRUE)
  expect_match(msg, "one sensor cannot be fitted without a reference", fixed = TRUE)
})

test_that("predict() of rows without a model points to what estimates them", {
  d <- one_box_data()
  fits <- one_box_fits(d)
  w <- expect_warning(predict(fits, d[d$site == "s4", ]), class = "ncam_warning_no_group_model")
  msg <- flat(w)
  expect_match(msg, "fit all groups in one model, `ncam(formula, data, reference = \"ref\", unit = \"site\")`, which gives it the pooled model and the between-unit variance",
               fixed = TRUE)
  # Site 4 reads both boxes: the model of site 2, the first that has both.
  neighbour <- code_after(msg, "whose sensors they read: ")
  expect_identical(neighbour, "predict(object$fit[[2]], newdata[rows, ])")
  expect_match(msg, "such as that of site = s2,", fixed = TRUE)
  rows <- which(d$site == "s4")
  object <- fits
  newdata <- d
  pred <- suppressWarnings(eval(str2lang(neighbour)), classes = c("ncam_warning_extrapolation", "ncam_warning_no_readings"))
  expect_identical(nrow(pred), length(rows))
  expect_false(anyNA(pred$.pred[!is.na(d$pa_a[rows]) | !is.na(d$pa_b[rows])]))
  # A station reading one box: the first model reads it.
  d1 <- d[rows, ]
  d1$pa_b <- NA
  expect_match(flat(expect_warning(predict(fits, d1), class = "ncam_warning_no_group_model")),
               "such as that of site = s1, whose sensors they read: `predict(object$fit[[1]], newdata[rows, ])`", fixed = TRUE)
  # Without any model for the keys, the error gives the same advice.
  msg <- flat(expect_error(predict(fits[1:2, ], d[rows, ]), "No row of `newdata` belongs to a group of `object`"))
  expect_match(msg, "`ncam(formula, data, reference = \"ref\")`.", fixed = TRUE)  # 2 groups: no offsets
  expect_match(msg, "predict(object$fit[[2]], newdata[rows, ])", fixed = TRUE)
})

test_that("the row warnings of predict() count the rows that have a model", {
  d <- one_box_data()
  fits <- one_box_fits(d)
  # Readings far above the co-location's at sites 1 and 2.
  far <- which(d$site %in% c("s1", "s2"))[c(100, 101, 200)]
  d$pa_a[far] <- 20 * max(d$pa_a, na.rm = TRUE)
  warnings <- caught_warnings(pred <- predict(fits, d))
  classes <- vapply(warnings, function(w) class(w)[1], "")
  expect_setequal(classes, c("ncam_warning_no_group_model", "ncam_warning_extrapolation", "ncam_warning_no_readings"))
  with_model <- sum(d$site != "s4")
  n_far <- sum(pred$.extrapolation > 0.25, na.rm = TRUE)
  expect_gte(n_far, 3L)
  expect_match(flat(warnings[[which(classes == "ncam_warning_extrapolation")]]),
               sprintf("^%d of %d rows lie more than 25%%", n_far, with_model))
  n_none <- sum(!is.na(pred$.n_sensors) & pred$.n_sensors == 0L)
  expect_match(flat(warnings[[which(classes == "ncam_warning_no_readings")]]), sprintf("^%d of %d rows have no sensor reading", n_none, with_model))
})

test_that("the groups beyond the fifth are counted in the singular and the plural", {
  flags <- function(n) stats::setNames(lapply(seq_len(n), function(i) c(far = i)), paste0("site = ", seq_len(n)))
  expect_identical(unname(ncam:::group_bullets(flags(6), "far")[6]), "and 1 more group")
  expect_identical(unname(ncam:::group_bullets(flags(7), "far")[6]), "and 2 more groups")
  expect_identical(unname(ncam:::group_bullets(flags(2), "far")), c("Group site = 1: 1 row", "Group site = 2: 2 rows"))
})

test_that("ncam_by() gives one warning for all its groups with one sensor beside the reference", {
  d <- one_box_data()
  d$pa_b[d$site == "s3"] <- NA
  warnings <- caught_warnings(one_box_fits(d, keep = "ncam_warning_two_sensors"))
  one <- Filter(function(w) inherits(w, "ncam_warning_two_sensors"), warnings)
  expect_length(one, 1L)
  expect_s3_class(one[[1]], c("ncam_warning_one_sensor", "ncam_warning_two_sensors", "ncam_warning"))
  expect_identical(one[[1]]$groups, c("site = s1", "site = s3"))
  expect_identical(one[[1]]$sensors, c("pa_a", "pa_a"))
  msg <- flat(one[[1]])
  expect_match(msg, "^2 groups have one low-cost sensor beside the reference")
  expect_match(msg, "Group site = s1: pa_a . Group site = s3: pa_a i Use `interval = \"prediction\"`")
  # ncam() gives it with both classes; a handler of the old class still catches it.
  s1 <- d[d$site == "s1", ]
  w <- expect_warning(short_fit(ncam(pa_a ~ 1, data = s1, reference = "ref", hidden = 4L, epochs = 3L, seed = 1L, threads = 1L),
                                also = "ncam_warning_clamp"),
                      class = "ncam_warning_one_sensor")
  expect_s3_class(w, "ncam_warning_two_sensors")
  expect_identical(w$sensors, "pa_a")
})

test_that("the one-sensor warning is one for the groups from parallel workers too", {
  local_two_workers("multisession")
  d <- one_box_data()
  d$pa_b[d$site == "s3"] <- NA
  warnings <- caught_warnings(one_box_fits(d, keep = "ncam_warning_two_sensors"))
  one <- Filter(function(w) inherits(w, "ncam_warning_two_sensors"), warnings)
  expect_length(one, 1L)
  expect_identical(one[[1]]$groups, c("site = s1", "site = s3"))
})

test_that("SensEURCity Antwerp: six stations with four weeks of reference, three without", {
  dir <- shared_data("senseurcity-antwerp-ineris")
  skip_if_not(dir.exists(dir), "shared SensEURCity data not available")
  d <- read_senseurcity_antwerp(dir)
  stations <- sort(unique(d$station))
  for (s in stations) {
    rows <- d$station == s
    later <- d$date >= min(d$date[rows]) + 28 * 86400
    d$ref[rows & (later | s %in% stations[7:9])] <- NA
  }
  d <- d[c("date", "station", "box_1", "box_2", "ref")]
  warnings <- caught_warnings(suppressMessages(
    fits <- ncam_by(box_1 + box_2 ~ 1, data = d, by = "station", reference = "ref", hidden = 4L, epochs = 3L,
                    seed = 1L, threads = 1L, errors = "skip"),
    classes = "ncam_message_sensor_left_out"))
  one <- Filter(function(w) inherits(w, "ncam_warning_one_sensor"), warnings)
  expect_length(one, 1L)
  expect_identical(one[[1]]$groups, paste("station =", c("ANT_REF_AL01", "ANT_REF_M802", "ANT_REF_R803")))
  expect_identical(sum(!vapply(fits$fit, is.null, logical(1))), 6L)
  warnings <- caught_warnings(pred <- predict(fits, d))
  classes <- vapply(warnings, function(w) class(w)[1], "")
  expect_match(flat(warnings[[which(classes == "ncam_warning_no_group_model")]]),
               "^16902 rows of `newdata` belong to 3 groups without a model .*`ncam\\(formula, data, reference = \"ref\", unit = \"station\"\\)`")
  far <- flat(warnings[[which(classes == "ncam_warning_extrapolation")]])
  expect_match(far, sprintf("^%d of 33141 rows lie", sum(pred$.extrapolation > 0.25, na.rm = TRUE)))
  expect_match(far, "and 1 more group i")
  # Station R801's panel draws both its boxes, AL01's its one.
  skip_if_not_installed("ggplot2")
  week <- d[d$station %in% c("ANT_REF_AL01", "ANT_REF_R801") & d$date >= as.POSIXct("2020-09-01", tz = "UTC") &
              d$date < as.POSIXct("2020-09-08", tz = "UTC"), ]
  p <- suppressWarnings(ggplot2::autoplot(fits, "series", newdata = week), classes = "ncam_warning_extrapolation")
  series <- split(as.character(p$data$series), p$data$group)
  expect_setequal(unique(series[["station = ANT_REF_R801"]]), c("box_1", "box_2", "NCAM fused"))
  expect_setequal(unique(series[["station = ANT_REF_AL01"]]), c("box_1", "NCAM fused"))
})
