# predict_chunks() of fits by group (ncam_by()) and their calibration: each chunk's rows scored by
# their group's model, as predict() of the fits scores the whole data; baselines refused with a way out.

# Three simulated sites, hourly over 20 days; fits for sites 1 and 2 on their first 10 days.
group_chunk_fixture <- function(env = parent.frame()) {
  d <- simulate_colocation(days = 20, sites = 3, seed = 4)
  train <- d$site != 3 & d$date < min(d$date) + 10 * 86400
  fits <- suppressWarnings(ncam_by(pa_a + pa_b + opc ~ rh + temperature, data = d[train, ], by = "site",
                                   reference = "ref", hidden = 4L, epochs = 20L, seed = 1),
                           classes = "ncam_warning_not_converged")
  list(d = d, fits = fits, dir = withr::local_tempdir(.local_envir = env))
}

# A group's rows in a chunk make other blocks of the engine than its rows in the whole data: the
# same predictions to about 1e-7 relative (single-precision networks; see ?predict_chunks).
expect_same_predictions <- function(got, want) {
  expect_named(got, names(want))
  expect_identical(got$.n_sensors, want$.n_sensors)
  expect_equal(as.list(got), as.list(want), tolerance = 1e-6)
}

# Messages of the warnings of `expr`, by class, in words of the input: predict() names its rows
# `newdata`, predict_chunks() `input`.
warning_messages <- function(expr) {
  caught <- caught_warnings(expr)
  texts <- vapply(caught, function(w) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(w))), "")
  stats::setNames(gsub("`newdata`", "`input`", texts, fixed = TRUE), vapply(caught, function(w) class(w)[1], ""))
}

test_that("fits by group are scored chunk by chunk as predict() of the fits scores the whole data", {
  fx <- group_chunk_fixture()
  new <- fx$d[order((seq_len(nrow(fx$d)) * 7919) %% nrow(fx$d)), ]  # sites interleaved
  rownames(new) <- NULL
  # Rows far outside a group's range and rows with a missing covariate in both groups; site 3
  # has no model.
  site_rows <- function(s) which(new$site == s)
  new$rh[c(site_rows(1)[c(3, 300)], site_rows(2)[10])] <- 400
  new$temperature[c(site_rows(1)[5], site_rows(2)[c(7, 400)])] <- NA
  files <- file.path(fx$dir, c("a.csv", "b.csv"))
  utils::write.csv(new[1:700, ], files[1], row.names = FALSE)
  utils::write.csv(new[701:nrow(new), ], files[2], row.names = FALSE)
  want_warnings <- warning_messages(want <- stats::predict(fx$fits, new, interval = "prediction"))
  got_warnings <- warning_messages(got <- predict_chunks(fx$fits, files, chunk_rows = 128, keep = c("date", "site"),
                                                         interval = "prediction", verbose = FALSE))
  expect_named(got, c("date", "site", names(want)))
  expect_same_predictions(got[-(1:2)], want)
  expect_equal(got$site, new$site)
  # The kept time comes back a time (UTC, as the package's readers read text without a zone).
  expect_identical(as.numeric(got$date), as.numeric(new$date))
  expect_identical(attr(got$date, "tzone"), "UTC")
  # One warning of each kind, as predict() gives for the whole data: rows of no group, rows far
  # outside their group's range, rows with a missing covariate, named by group, counted out of
  # the rows with a model. The rows of no group are not at hand at the end to name the
  # neighbouring model whose sensors they read: that hint alone is predict()'s.
  neighbour <- " i Or predict its rows with a neighbouring group's model.*$"
  want_warnings[["ncam_warning_no_group_model"]] <- sub(neighbour, "", want_warnings[["ncam_warning_no_group_model"]])
  expect_match(got_warnings[["ncam_warning_no_group_model"]], "fit all groups in one model", fixed = TRUE)
  expect_identical(sort(names(got_warnings)), sort(names(want_warnings)))
  expect_identical(got_warnings[order(names(got_warnings))], want_warnings[order(names(want_warnings))])
  expect_match(got_warnings[["ncam_warning_no_group_model"]], "^480 rows of `input` belong to 1 group without a model \\(site = 3\\)")
  expect_match(got_warnings[["ncam_warning_missing_covariate"]], "^3 of 960 rows have a missing covariate")
  expect_match(got_warnings[["ncam_warning_missing_covariate"]], "Group site = 1: 1 row", fixed = TRUE)
  expect_match(got_warnings[["ncam_warning_extrapolation"]], "Group site = 2: 1 row", fixed = TRUE)
  # A function input and a calibration of the fits too.
  k <- 0
  chunks <- function() if ((k <<- k + 1) <= 3) new[(k - 1) * 500 + seq_len(min(500, nrow(new) - (k - 1) * 500)), ]
  from_function <- suppressWarnings(predict_chunks(fx$fits, chunks, interval = "prediction", verbose = FALSE))
  expect_same_predictions(from_function, want)
  cal <- calibrate(fx$fits, fx$d[fx$d$site != 3 & fx$d$date >= min(fx$d$date) + 10 * 86400 & !is.na(fx$d$ref), ], method = "split")
  expect_same_predictions(suppressWarnings(predict_chunks(cal, files, chunk_rows = 128, verbose = FALSE)),
                          suppressWarnings(stats::predict(cal, new)))
})

test_that("group keys are read from a CSV file as the fits hold them: codes as text, days as dates", {
  fx <- group_chunk_fixture()
  d <- fx$d[fx$d$site != 3, ]
  # Codes that a number would not give back, and a key of days.
  d$station <- c("001", "010")[d$site]
  d$campaign <- as.Date(c("2021-04-01", "2021-05-01"))[d$site]
  train <- d$date < min(d$date) + 10 * 86400
  fits <- suppressWarnings(ncam_by(pa_a + pa_b + opc ~ rh + temperature, data = d[train, c("station", "campaign", "rh", "temperature", "pa_a", "pa_b", "opc", "ref")],
                                   by = c("station", "campaign"), reference = "ref", hidden = 4L, epochs = 5L, seed = 1),
                           classes = "ncam_warning_not_converged")
  path <- file.path(fx$dir, "keys.csv")
  utils::write.csv(d, path, row.names = FALSE)
  got <- suppressWarnings(predict_chunks(fits, path, chunk_rows = 128, keep = c("station", "campaign"), verbose = FALSE))
  expect_identical(got$station, d$station)
  expect_identical(got$campaign, d$campaign)
  expect_same_predictions(got[-(1:2)], suppressWarnings(stats::predict(fits, d)))
  # Keys of another type in a function input meet no group: predict()'s error, naming the rows.
  as_text <- d
  as_text$campaign <- format(as_text$campaign)
  given <- FALSE
  one_chunk <- function() if (!given) {
    given <<- TRUE
    as_text
  }
  err <- expect_error(predict_chunks(fits, one_chunk, verbose = FALSE), "Could not score rows 1-960 of the chunks of `input`",
                      class = "ncam_error")
  expect_match(gsub("\\s+", " ", conditionMessage(err$parent)), "Column `campaign` is text in `input` but a date (Date) in `object`",
               fixed = TRUE)
})

test_that("fits by group give the same results under a parallel plan", {
  fx <- group_chunk_fixture()
  files <- file.path(fx$dir, c("a.csv", "b.csv"))
  utils::write.csv(fx$d[1:800, ], files[1], row.names = FALSE)
  utils::write.csv(fx$d[801:nrow(fx$d), ], files[2], row.names = FALSE)
  sequential <- suppressWarnings(predict_chunks(fx$fits, files, chunk_rows = 256, keep = "site", verbose = FALSE))
  local_two_workers("multisession")
  expect_identical(suppressWarnings(predict_chunks(fx$fits, files, chunk_rows = 256, keep = "site", verbose = FALSE)),
                   sequential)
})

test_that("baselines are refused with what to do instead", {
  toy <- simulate_toy(n = 300, seed = 1)
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(toy, path, row.names = FALSE)
  ivw <- suppressWarnings(ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, toy, "ivw"))
  err <- expect_error(predict_chunks(ivw, path, verbose = FALSE), class = "ncam_error")
  expect_snapshot(cat(conditionMessage(err)))
  toy$time <- seq_len(nrow(toy))
  kalman <- suppressWarnings(ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, toy, "kalman", order = "time"))
  expect_error(predict_chunks(kalman, path, verbose = FALSE), "Score each series \\(station\\) whole with `predict\\(\\)`")
})
