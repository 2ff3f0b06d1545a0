# predict_chunks(): chunked scoring of files and chunk generators, sequential and parallel.

chunk_fixture <- function() {
  toy <- simulate_toy(n = 900, seed = 3)
  # Fitted to all rows, so that no scored row lies outside the fitted range (no warning).
  # Three epochs are enough to score with, not to converge: that warning is expected.
  fit <- withCallingHandlers(
    ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy, hidden = 4L, epochs = 3L,
         seed = 1L, threads = 1L),
    ncam_warning_not_converged = function(w) invokeRestart("muffleWarning"))
  dir <- withr::local_tempdir(.local_envir = parent.frame())
  files <- file.path(dir, c("a.csv", "b.csv"))
  utils::write.csv(toy[401:700, ], files[1], row.names = FALSE)  # 300 rows
  utils::write.csv(toy[701:900, ], files[2], row.names = FALSE)  # 200 rows
  list(fit = fit, toy = toy, dir = dir, files = files,
       # In-memory scoring of each whole file, as read by R.
       expected = function(...) {
         rbind(stats::predict(fit, utils::read.csv(files[1]), ...),
               stats::predict(fit, utils::read.csv(files[2]), ...))
       })
}

# A quick fit with a covariate `flag` constant in training (1), which ncam() drops: rows of new
# data with another flag give a warning that is not about rows' readings.
flag_fit <- function(data) {
  suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + flag, data = data, hidden = 4L, epochs = 3L,
                        seed = 1L, threads = 1L),
                   classes = c("ncam_warning_not_converged", "ncam_warning_dropped_covariate"))
}

test_that("chunks of files give predict() on each whole file, in input order", {
  fx <- chunk_fixture()
  # 128-row chunks: the files' 300 and 200 rows are read in 3 and 2 chunks.
  got <- predict_chunks(fx$fit, fx$files, chunk_rows = 128, keep = c("truth", "x1"),
                        interval = "credible", level = 0.8, verbose = FALSE)
  want <- fx$expected(interval = "credible", level = 0.8)
  expect_s3_class(got, "tbl_df")
  expect_named(got, c("truth", "x1", names(want)))
  expect_identical(got$truth, c(utils::read.csv(fx$files[1])$truth, utils::read.csv(fx$files[2])$truth))
  expect_identical(as.list(got[-(1:2)]), as.list(want))
  # Other sizes are rounded up to whole engine blocks, so results stay identical.
  odd <- predict_chunks(fx$fit, as.list(fx$files), chunk_rows = 37, interval = "credible",
                        level = 0.8, verbose = FALSE)
  expect_identical(as.list(odd), as.list(want))
})

test_that("results go to one CSV file per input, and existing files are kept unless asked", {
  fx <- chunk_fixture()
  out_dir <- file.path(fx$dir, "scored")
  res <- predict_chunks(fx$fit, fx$files, output = out_dir, chunk_rows = 128, keep = "truth",
                        verbose = FALSE)
  expect_identical(basename(res$output), c("a.csv", "b.csv"))
  expect_identical(res$rows, c(300, 200))
  expect_setequal(list.files(out_dir), c("a.csv", "b.csv"))  # no .part file left
  back <- utils::read.csv(res$output[2])
  want <- stats::predict(fx$fit, utils::read.csv(fx$files[2]))
  expect_identical(back$truth, utils::read.csv(fx$files[2])$truth)
  expect_equal(back$.pred, want$.pred, tolerance = 1e-14)  # CSV keeps 15 digits
  expect_identical(back$.n_sensors, want$.n_sensors)
  expect_error(predict_chunks(fx$fit, fx$files, output = out_dir, verbose = FALSE), "overwrite")
  expect_no_error(predict_chunks(fx$fit, fx$files, output = out_dir, overwrite = TRUE, verbose = FALSE))
})

test_that("a chunk generator is scored chunk by chunk, in order", {
  fx <- chunk_fixture()
  starts <- c(401, 561, 801)
  ends <- c(560, 800, 900)
  k <- 0
  gen <- function() {
    k <<- k + 1
    if (k > length(starts)) NULL else fx$toy[starts[k]:ends[k], ]
  }
  got <- predict_chunks(fx$fit, gen, verbose = FALSE)
  want <- do.call(rbind, lapply(1:3, function(i) stats::predict(fx$fit, fx$toy[starts[i]:ends[i], ])))
  expect_identical(as.list(got), as.list(want))
  k <- 0
  res <- predict_chunks(fx$fit, gen, output = file.path(fx$dir, "gen"), verbose = FALSE)
  expect_identical(basename(res$output), "predictions.csv")
  expect_equal(utils::read.csv(res$output)$.pred_sd, want$.pred_sd, tolerance = 1e-14)
  bad <- function() list(1)
  expect_error(predict_chunks(fx$fit, bad, verbose = FALSE), "must return data frames")
})

test_that("calibrations, readers, compressed files and empty columns are scored", {
  fx <- chunk_fixture()
  cal <- calibrate(fx$fit, fx$toy[1:400, ], method = "sensor_anchored")
  got <- predict_chunks(cal, fx$files, chunk_rows = 128, level = 0.8, verbose = FALSE)
  expect_identical(as.list(got), as.list(rbind(stats::predict(cal, utils::read.csv(fx$files[1]), level = 0.8),
                                               stats::predict(cal, utils::read.csv(fx$files[2]), level = 0.8))))
  # A reader of the whole file, here for semicolon-separated text.
  semi <- file.path(fx$dir, "c.txt")
  utils::write.table(fx$toy[401:700, ], semi, sep = ";", row.names = FALSE)
  read_semi <- function(path) utils::read.csv(path, sep = ";")
  expect_identical(predict_chunks(fx$fit, semi, chunk_rows = 128, reader = read_semi, verbose = FALSE)$.pred,
                   stats::predict(fx$fit, read_semi(semi))$.pred)
  # gzip, and a sensor offline (an empty column) throughout the first chunk.
  offline <- fx$toy[401:700, ]
  offline$sensor_2[1:128] <- NA
  gz <- file.path(fx$dir, "d.csv.gz")
  con <- gzfile(gz, "w")
  utils::write.csv(offline, con, row.names = FALSE, na = "")
  close(con)
  got <- predict_chunks(fx$fit, gz, chunk_rows = 128, verbose = FALSE)
  expect_identical(got$.n_sensors[1:128], rep(2L, 128))
  expect_identical(got$.pred, stats::predict(fx$fit, utils::read.csv(gz))$.pred)
})

test_that("progress reports every row and every byte of the files", {
  fx <- chunk_fixture()
  rows <- 0
  bytes <- 0
  withCallingHandlers(
    predict_chunks(fx$fit, fx$files, chunk_rows = 128, verbose = FALSE),
    ncam_chunk_progress = function(cnd) {
      rows <<- rows + cnd$rows
      bytes <<- bytes + cnd$bytes
    })
  expect_identical(rows, 500)
  expect_identical(bytes, sum(file.size(fx$files)))
})

test_that("bad input gives errors naming the argument, file and rows", {
  fx <- chunk_fixture()
  expect_error(predict_chunks(fx$fit, file.path(fx$dir, "nope.csv")), "not exist")
  expect_error(predict_chunks(list(), fx$files), "object")
  expect_error(predict_chunks(fx$fit, fx$files, levle = 0.8), "levle")
  expect_error(predict_chunks(fx$fit, fx$files, chunk_rows = 0), "chunk_rows")
  expect_error(predict_chunks(fx$fit, fx$files, keep = "site", verbose = FALSE), "rows 1-300 of .*a.csv")
  broken <- file.path(fx$dir, "broken.csv")
  lines <- readLines(fx$files[2])
  lines[150] <- sub("^[^,]*", "oops", lines[150])
  writeLines(lines, broken)
  err <- expect_error(predict_chunks(fx$fit, broken, chunk_rows = 128, verbose = FALSE), "broken.csv")
  expect_match(conditionMessage(err), "after row 128")
  expect_error(predict_chunks(fx$fit, fx$files, reader = function(p) 1, verbose = FALSE), "data frame")
  if (!requireNamespace("nanoparquet", quietly = TRUE) && !requireNamespace(streaming_parquet_package, quietly = TRUE)) {
    parquet <- file.path(fx$dir, "e.parquet")
    file.create(parquet)
    expect_error(predict_chunks(fx$fit, parquet), "nanoparquet")
  }
})

test_that("predict()'s errors and warnings name the argument `input` and rows of the file, not newdata's", {
  fx <- chunk_fixture()
  no_sensor <- file.path(fx$dir, "no_sensor.csv")
  utils::write.csv(fx$toy[401:700, setdiff(names(fx$toy), "sensor_2")], no_sensor, row.names = FALSE)
  err <- expect_error(predict_chunks(fx$fit, no_sensor, verbose = FALSE), "`input` lacks column \"sensor_2\" used by the model")
  expect_no_match(conditionMessage(err), "newdata")
  err <- expect_error(predict_chunks(fx$fit, row_chunks(fx$toy[, setdiff(names(fx$toy), "x2")], 300), verbose = FALSE),
                      "rows 1-300 of the chunks of `input`.*`input` lacks column \"x2\"")
  expect_no_match(conditionMessage(err), "newdata")
  # A covariate constant in training (flag, left out of the model) with another value on row
  # 200 of a file: in its second 128-row chunk, as row 72 of the chunk.
  flagged <- fx$toy[1:300, ]
  flagged$flag <- 1
  fit <- flag_fit(flagged)
  flagged$flag[200] <- 2
  path <- file.path(fx$dir, "flagged.csv")
  utils::write.csv(flagged, path, row.names = FALSE)
  expect_warning(predict_chunks(fit, path, chunk_rows = 128, verbose = FALSE),
                 "1 row of `input` has other values \\(row 200 of flagged.csv: 2\\)", class = "ncam_warning_constant_covariate")
  expect_warning(predict(fit, flagged), "1 row of `newdata` has other values \\(row 200: 2\\)",
                 class = "ncam_warning_constant_covariate")
})

# The messages of those of `warnings` of class `class`, each on one line.
warning_texts <- function(warnings, class) {
  of_class <- Filter(function(w) inherits(w, class), warnings)
  vapply(of_class, function(w) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(w))), "")
}

test_that("warnings of predict() that are not about rows come once per call, counting the rows of every chunk", {
  fx <- chunk_fixture()
  # Files of 300 and 200 rows in 128-row chunks: 3 and 2 chunks, each warned once per chunk before.
  files <- file.path(fx$dir, c("first.csv", "second.csv"))
  # A covariate constant in training (flag, left out of the model), other on rows of 4 chunks.
  flagged <- fx$toy
  flagged$flag <- 1
  fit <- flag_fit(flagged[1:400, ])
  new <- flagged[401:900, ]
  new$flag[c(10, 160, 290, 320, 490)] <- c(3, 2, 2, 2, 2)
  utils::write.csv(new[1:300, ], files[1], row.names = FALSE)
  utils::write.csv(new[301:500, ], files[2], row.names = FALSE)
  other <- which(new$flag != 1)
  for (plan in c("sequential", "multisession")) {
    local({
      if (plan == "multisession") local_two_workers(plan)  # one file per worker
      warnings <- caught_warnings(predict_chunks(fit, files, chunk_rows = 128, verbose = FALSE))
      texts <- warning_texts(warnings, "ncam_warning_constant_covariate")
      expect_length(texts, 1L)
      expect_match(texts, sprintf("Covariate flag was 1 on every training row, so the model left it out; %d rows of `input` have other values (row %d of first.csv: 3), which the predictions ignore.",
                                  length(other), other[1]), fixed = TRUE)
    })
  }
  # A function input: rows of all its chunks.
  warnings <- caught_warnings(predict_chunks(fit, row_chunks(new, 100), verbose = FALSE))
  expect_length(warning_texts(warnings, "ncam_warning_constant_covariate"), 1L)
  expect_match(warning_texts(warnings, "ncam_warning_constant_covariate"),
               sprintf("^Covariate flag .* %d rows of `input` have other values \\(row 10: 3\\)", length(other)))

  # Readings <= 0 given to a log model, in several chunks of both files, and in two sensors.
  positive <- fx$toy
  for (s in c("sensor_0", "sensor_1", "sensor_2")) positive[[s]] <- pmax(abs(positive[[s]]), 0.5)
  log_fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = positive[1:400, ], transform = "log",
                            hidden = 4L, epochs = 3L, seed = 1, threads = 1))
  new <- positive[401:900, ]
  new$sensor_1[c(5, 130, 260, 261, 300, 307, 450)] <- c(0, -1, 0, 0, -2, 0, 0)
  new$sensor_2[490] <- 0
  utils::write.csv(new[1:300, ], files[1], row.names = FALSE)
  utils::write.csv(new[301:500, ], files[2], row.names = FALSE)
  file_rows <- function(rows) ifelse(rows <= 300, paste(rows, "of first.csv"), paste(rows - 300, "of second.csv"))
  bad_1 <- which(new$sensor_1 <= 0)
  bad_2 <- which(new$sensor_2 <= 0)
  warnings <- caught_warnings(predict_chunks(log_fit, files, chunk_rows = 128, verbose = FALSE))
  texts <- warning_texts(warnings, "ncam_warning_nonpositive_reading")
  expect_length(texts, 1L)
  expect_match(texts, "^The model was fitted to log readings, so readings <= 0 are treated as missing:")
  expect_match(texts, sprintf("sensor_1: %d rows (%s, ...)", length(bad_1), paste(file_rows(bad_1[1:5]), collapse = ", ")), fixed = TRUE)
  expect_match(texts, sprintf("sensor_2: row %s$", file_rows(bad_2)))
  warnings <- caught_warnings(predict_chunks(log_fit, row_chunks(new, 100), verbose = FALSE))
  texts <- warning_texts(warnings, "ncam_warning_nonpositive_reading")
  expect_length(texts, 1L)
  expect_match(texts, sprintf("sensor_1: %d rows (%s, ...)", length(bad_1), paste(bad_1[1:5], collapse = ", ")), fixed = TRUE)
  expect_match(texts, sprintf("sensor_2: row %d$", bad_2))

  # A warning without rows: a calibration too small for the level, once, not once per chunk.
  cal <- calibrate(fx$fit, fx$toy[1:20, ], method = "sensor_anchored")
  warnings <- caught_warnings(predict_chunks(cal, fx$files, chunk_rows = 128, level = 0.99, verbose = FALSE))
  expect_length(warning_texts(warnings, "ncam_warning_small_calibration"), 1L)
  expect_identical(warning_texts(warnings, "ncam_warning_small_calibration"),
                   warning_texts(caught_warnings(predict(cal, fx$toy[1:5, ], level = 0.99)), "ncam_warning_small_calibration"))
  # Also for a file of a header alone (no chunk), and a generator that gives no chunk.
  header <- file.path(fx$dir, "header.csv")
  writeLines(readLines(fx$files[1], n = 1L), header)
  expect_warning(predict_chunks(cal, header, level = 0.99, verbose = FALSE), class = "ncam_warning_small_calibration")
  expect_warning(predict_chunks(cal, function() NULL, level = 0.99, verbose = FALSE), class = "ncam_warning_small_calibration")
})

test_that("a call ended by an error still gives the warnings of the chunks scored before it, once", {
  fx <- chunk_fixture()
  flagged <- fx$toy
  flagged$flag <- 1
  fit <- flag_fit(flagged[1:400, ])
  # first.csv: other flags in two chunks; failing.csv: one in its first chunk (rows 1-128), then
  # a short line in its second, and one after it, never scored.
  new <- flagged[401:900, ]
  new$flag[c(10, 200, 310, 460)] <- c(3, 2, 2, 2)
  files <- file.path(fx$dir, c("first.csv", "failing.csv"))
  utils::write.csv(new[1:300, ], files[1], row.names = FALSE)
  utils::write.csv(new[301:500, ], files[2], row.names = FALSE)
  lines <- readLines(files[2])
  writeLines(c(lines[1:150], "1,2", lines[151:201]), files[2])
  scored_before <- sum(new$flag[c(1:300, 301:428)] != 1)  # first.csv, and failing.csv's first chunk
  for (plan in c("sequential", "multisession")) {
    local({
      if (plan == "multisession") local_two_workers(plan)  # one file per worker
      out_dir <- file.path(fx$dir, paste0("out-", plan))
      warnings <- caught_warnings(expect_error(
        predict_chunks(fit, files, output = out_dir, chunk_rows = 128, verbose = FALSE),
        "Could not read the rows after row 128 of"))
      texts <- warning_texts(warnings, "ncam_warning_constant_covariate")
      expect_length(texts, 1L)
      expect_match(texts, sprintf("; %d rows of `input` have other values (row 10 of first.csv: 3)", scored_before),
                   fixed = TRUE)
      expect_identical(list.files(out_dir), "first.csv")  # the file finished before the error stays
    })
  }
  # A warning without rows, from a calibration too small for the level, when the first file fails.
  cal <- calibrate(fx$fit, fx$toy[1:20, ], method = "sensor_anchored")
  warnings <- caught_warnings(expect_error(
    predict_chunks(cal, rev(files), chunk_rows = 128, level = 0.99, verbose = FALSE), "failing.csv"))
  expect_identical(warning_texts(warnings, "ncam_warning_small_calibration"),
                   warning_texts(caught_warnings(predict(cal, fx$toy[1:5, ], level = 0.99)), "ncam_warning_small_calibration"))
  # A function input whose third chunk fails: the rows of the two before it.
  chunks <- list(new[1:100, ], new[101:200, ], new[201:300, c("sensor_0", "x1", "flag")])
  i <- 0
  warnings <- caught_warnings(expect_error(
    predict_chunks(fit, function() if ((i <<- i + 1) <= 3) chunks[[i]], verbose = FALSE),
    "Could not score rows 201-300 of the chunks of `input`"))
  texts <- warning_texts(warnings, "ncam_warning_constant_covariate")
  expect_length(texts, 1L)
  expect_match(texts, sprintf("; %d rows of `input` have other values (row 10: 3)", sum(new$flag[1:200] != 1)), fixed = TRUE)
})

test_that("every output file kept after a failure has had its warnings given, under every plan", {
  fx <- chunk_fixture()
  flagged <- fx$toy
  flagged$flag <- 1
  # Fitted to all rows, so that only the rows made so lie beyond the fitted range.
  fit <- flag_fit(flagged)
  # Four files of 200 rows (two 128-row chunks each), with 1, 2 + 4, 8 and 16 rows of other
  # flags, so that the count says which were scored; b.csv has a short line in its second chunk
  # (after row 128), and its 4 rows there are never scored.
  new <- flagged[1:800, ]
  new$flag[c(7, 200 + c(5, 90), 200 + c(140, 150, 180, 190), 400 + 11 * 1:8, 600 + 11 * 1:16)] <- 2
  # And one row far beyond the fitted range of x1 in each: a warning about rows of kept files.
  new$x1[200 * 0:3 + 3] <- 1e6
  files <- file.path(fx$dir, c("a.csv", "b.csv", "c.csv", "d.csv"))
  for (k in 1:4) utils::write.csv(new[(k - 1) * 200 + 1:200, ], files[k], row.names = FALSE)
  lines <- readLines(files[2])
  writeLines(c(lines[1:135], "1,2", lines[136:201]), files[2])
  other_in <- function(rows) sum(new$flag[rows] != 1)
  scored_b <- other_in(200 + 1:128)  # b.csv's first chunk, scored before its error
  for (plan in c("sequential", "multisession")) {
    local({
      # Under two workers, a.csv and b.csv make one block and c.csv and d.csv the other, which
      # its worker scores to the end while b.csv fails.
      if (plan == "multisession") local_two_workers(plan)
      out_dir <- file.path(fx$dir, paste0("kept-", plan))
      warnings <- caught_warnings(expect_error(
        predict_chunks(fit, files, output = out_dir, chunk_rows = 128, verbose = FALSE),
        "Could not read the rows after row 128 of .*b\\.csv"))
      kept <- if (plan == "sequential") "a.csv" else c("a.csv", "c.csv", "d.csv")
      expect_identical(list.files(out_dir, all.files = TRUE, no.. = TRUE), kept)
      counted <- other_in(unlist(lapply(match(kept, basename(files)), function(k) (k - 1) * 200 + 1:200))) + scored_b
      texts <- warning_texts(warnings, "ncam_warning_constant_covariate")
      expect_length(texts, 1L)
      expect_match(texts, sprintf("; %d rows of `input` have other values (row 7 of a.csv: 2)", counted), fixed = TRUE)
      far <- warning_texts(warnings, "ncam_warning_extrapolation")
      expect_length(far, 1L)
      expect_match(far, sprintf("^%d of %d rows? lies? more than 25%% of the range outside", length(kept), 200 * length(kept)))
      # The kept files are complete: predict() on each whole file.
      for (name in kept) {
        expect_equal(utils::read.csv(file.path(out_dir, name))$.pred,
                     suppressWarnings(stats::predict(fit, utils::read.csv(files[basename(files) == name])))$.pred,
                     tolerance = 1e-12)
      }
    })
  }
  # c.csv failing too, in its first chunk: the error is b.csv's, the first in input order, and
  # only a.csv is kept under both plans (the second worker stops at c.csv, before d.csv). Under
  # two workers c.csv has failed too, and the error says so (it said nothing of c.csv before);
  # under the sequential plan c.csv is never read.
  writeLines(c(lines[1:20], "1,2", lines[21:201]), files[3])
  for (plan in c("sequential", "multisession")) {
    local({
      if (plan == "multisession") local_two_workers(plan)
      out_dir <- file.path(fx$dir, paste0("both-", plan))
      error <- expect_error(suppressWarnings(predict_chunks(fit, files, output = out_dir, chunk_rows = 128, verbose = FALSE)),
                            "Could not read the rows after row 128 of .*b\\.csv", class = "ncam_error")
      other_failed <- "1 other input file failed as well: c.csv (Could not read the rows after row 0 of"
      if (plan == "sequential") {
        expect_no_match(conditionMessage(error), "other input file", fixed = TRUE)
      } else {
        expect_match(gsub("\\s+", " ", conditionMessage(error)), other_failed, fixed = TRUE)
      }
      expect_identical(list.files(out_dir, all.files = TRUE, no.. = TRUE), "a.csv")
    })
  }
})

test_that("a worker lost under a parallel plan: the other workers' finished files come with their warnings", {
  fx <- chunk_fixture()
  local_two_workers("multisession")
  # Four files of 100 rows, each with one row far beyond the fitted range of x1; the two workers
  # take a.csv and b.csv, and c.csv and d.csv. The worker's R process ends while reading b.csv.
  new <- fx$toy[1:400, ]
  new$x1[100 * 0:3 + 3] <- 1e6
  files <- file.path(fx$dir, c("a.csv", "b.csv", "c.csv", "d.csv"))
  for (k in 1:4) utils::write.csv(new[(k - 1) * 100 + 1:100, ], files[k], row.names = FALSE)
  main_process <- Sys.getpid()
  reader <- function(path) {
    if (basename(path) == "b.csv" && Sys.getpid() != main_process) tools::pskill(Sys.getpid(), tools::SIGKILL)
    utils::read.csv(path)
  }
  out_dir <- file.path(fx$dir, "lost")
  warnings <- caught_warnings(expect_error(
    predict_chunks(fx$fit, files, output = out_dir, reader = reader, verbose = FALSE), class = "FutureError"))
  # c.csv and d.csv were finished by the other worker and stay; their rows beyond the range are
  # warned about (they were not: the block in flight was waited for and dropped). a.csv's output
  # stays too, its warnings lost with the worker that scored it.
  expect_setequal(list.files(out_dir), c("a.csv", "c.csv", "d.csv"))
  far <- warning_texts(warnings, "ncam_warning_extrapolation")
  expect_length(far, 1L)
  expect_match(far, "^2 of 200 rows lie more than 25% of the range outside")
})

test_that("a bad level or interval is refused before any file is read", {
  fx <- chunk_fixture()
  cal <- calibrate(fx$fit, fx$toy[1:100, ], m = 2, seed = 1)
  read <- 0L
  counting_reader <- function(path) {
    read <<- read + 1L
    utils::read.csv(path)
  }
  for (err in list(expect_error(predict_chunks(cal, fx$files, reader = counting_reader, level = 95, verbose = FALSE)),
                   expect_error(predict_chunks(fx$fit, fx$files, reader = counting_reader, interval = "credible",
                                               level = 95, verbose = FALSE)))) {
    expect_match(conditionMessage(err), "`level` must be a number strictly between 0 and 1, not 95.", fixed = TRUE)
    expect_no_match(conditionMessage(err), "rows")
  }
  expect_error(predict_chunks(cal, fx$files, reader = counting_reader, level = c(0.8, 0.9), verbose = FALSE),
               "`level` must be a single number")
  expect_error(predict_chunks(fx$fit, fx$files, reader = counting_reader, interval = "bogus", verbose = FALSE),
               "`interval` must be one of")
  expect_identical(read, 0L)
})

test_that("a folder as input, and repeated or clashing keep columns, are refused by name", {
  fx <- chunk_fixture()
  expect_error(predict_chunks(fx$fit, c(fx$files[1], fx$dir)),
               "names 1 folder, not a file.*list.files\\(folder, full.names = TRUE\\)")
  expect_error(predict_chunks(fx$fit, fx$files, keep = c("x1", "truth", "x1")),
               "`keep` names column \"x1\" more than once")
  expect_error(predict_chunks(fx$fit, fx$files, keep = c("truth", ".pred")),
               "`keep` must not name a prediction column; it names \"\\.pred\"")
  # The prediction columns follow predict()'s arguments: the interval bounds only with one.
  with_interval <- fx$files
  for (i in seq_along(with_interval)) {
    d <- utils::read.csv(fx$files[i])
    d$.pred_lower <- 0
    with_interval[i] <- file.path(fx$dir, paste0("lower_", i, ".csv"))
    utils::write.csv(d, with_interval[i], row.names = FALSE)
  }
  expect_error(predict_chunks(fx$fit, with_interval, keep = ".pred_lower", interval = "credible"),
               "it names \"\\.pred_lower\"")
  kept <- predict_chunks(fx$fit, with_interval, keep = ".pred_lower", verbose = FALSE)
  expect_identical(names(kept), c(".pred_lower", names(fx$expected())))
  expect_equal(kept$.pred_lower, rep(0, 500))
})

test_that("multisession and cluster plans give the sequential results", {
  fx <- chunk_fixture()
  sequential <- predict_chunks(fx$fit, fx$files, chunk_rows = 128, keep = "truth", verbose = FALSE)
  k <- 0
  gen <- function() {
    k <<- k + 1
    if (k > 3) NULL else fx$toy[400 + (k - 1) * 100 + 1:100, ]
  }
  sequential_gen <- predict_chunks(fx$fit, gen, verbose = FALSE)
  for (kind in c("multisession", "cluster")) {
    local({
      local_two_workers(kind)
      expect_identical(worker_threads(NULL), 1L)
      expect_identical(predict_chunks(fx$fit, fx$files, chunk_rows = 128, keep = "truth", verbose = FALSE),
                       sequential)
      k <<- 0
      expect_identical(predict_chunks(fx$fit, gen, verbose = FALSE), sequential_gen)
    })
  }
})

test_that("quoted numbers, header-only files, failed files and mixed text/factor chunks", {
  fx <- chunk_fixture()
  # Every field quoted (as many exporters write): read as numbers in every chunk.
  quoted <- file.path(fx$dir, "quoted.csv")
  utils::write.csv(format(utils::read.csv(fx$files[1]), digits = 15), quoted, row.names = FALSE)
  got <- predict_chunks(fx$fit, quoted, chunk_rows = 128, verbose = FALSE)
  expect_equal(got$.pred, stats::predict(fx$fit, utils::read.csv(fx$files[1]))$.pred, tolerance = 1e-12)
  bad <- readLines(quoted)
  bad[200] <- sub("^\"[^\"]*\"", "\"n/a\"", bad[200])
  writeLines(bad, quoted)
  expect_error(predict_chunks(fx$fit, quoted, chunk_rows = 128, verbose = FALSE), "n/a")

  # A header-only file gives a header-only output, readable by read.csv().
  header_only <- file.path(fx$dir, "empty.csv")
  writeLines(readLines(fx$files[1], n = 1), header_only)
  out_dir <- file.path(fx$dir, "out")
  predict_chunks(fx$fit, header_only, output = out_dir, verbose = FALSE)
  back <- utils::read.csv(file.path(out_dir, "empty.csv"))
  expect_identical(nrow(back), 0L)
  expect_true(".pred" %in% names(back))

  # A file that fails leaves neither output nor a partial file.
  broken <- file.path(fx$dir, "broken.csv")
  lines <- readLines(fx$files[2])
  writeLines(c(lines[1:150], "1,2", lines[151:201]), broken)
  fail_dir <- file.path(fx$dir, "fail")
  expect_error(predict_chunks(fx$fit, broken, output = fail_dir, chunk_rows = 128, verbose = FALSE))
  expect_identical(list.files(fail_dir, all.files = TRUE, no.. = TRUE), character(0))

  # A keep column that is text in one chunk and a factor in another stays text.
  chunks <- list(transform(fx$toy[1:128, ], site = "a"), transform(fx$toy[129:256, ], site = factor("b")))
  i <- 0
  got <- predict_chunks(fx$fit, function() if ((i <<- i + 1) <= 2) chunks[[i]], keep = "site", verbose = FALSE)
  expect_identical(got$site, rep(c("a", "b"), each = 128))
})

test_that("NaN in a CSV file is a missing value in every chunk, quoted or not, and from a reader", {
  fx <- chunk_fixture()
  d <- fx$toy[401:700, ]
  d$sensor_1[c(5, 250)] <- NA  # in the first chunk of 128 rows and in the second
  expected <- stats::predict(fx$fit, d)$.pred
  plain <- file.path(fx$dir, "nan.csv")
  utils::write.csv(d, plain, row.names = FALSE, na = "NaN")  # as MATLAB writes it
  quoted <- file.path(fx$dir, "nan_quoted.csv")
  utils::write.csv(cbind(note = "x", d), quoted, row.names = FALSE, na = "nan")  # as numpy does
  expect_match(readLines(quoted)[251], ",nan,")
  runs <- list(predict_chunks(fx$fit, plain, chunk_rows = 128, keep = "sensor_1", verbose = FALSE),
               predict_chunks(fx$fit, quoted, chunk_rows = 128, keep = "sensor_1", verbose = FALSE),
               predict_chunks(fx$fit, plain, chunk_rows = 128, keep = "sensor_1", verbose = FALSE,
                              reader = utils::read.csv))
  for (got in runs) {
    expect_equal(got$.pred, expected, tolerance = 1e-12)
    # NA, never NaN, is what reaches the model and the output.
    expect_identical(which(is.na(got$sensor_1)), c(5L, 250L))
    expect_false(any(is.nan(got$sensor_1)))
  }
})

test_that("kept dates and times stay dates and times when a chunk has none", {
  fx <- chunk_fixture()
  first <- fx$toy[1:128, ]
  second <- fx$toy[129:300, ]
  # Missing throughout the first chunk, as logical NA; dates and local times in the second.
  first$day <- NA
  first$time <- NA
  second$day <- as.Date("2024-03-30") + seq_len(nrow(second))
  second$time <- as.POSIXct("2024-03-31 01:30", tz = "Europe/Paris") + 3600 * seq_len(nrow(second))
  parts <- list(first, second)
  i <- 0
  got <- predict_chunks(fx$fit, function() if ((i <<- i + 1) <= 2) parts[[i]], keep = c("day", "time"),
                        verbose = FALSE)
  expect_s3_class(got$day, "Date")
  expect_identical(format(got$day[c(128, 129, 300)]), c(NA, "2024-03-31", "2024-09-18"))
  expect_s3_class(got$time, "POSIXct")
  # 01:30 CET plus an hour is 03:30 CEST (the clocks go forward at 02:00), 01:30 UTC.
  expect_identical(as.numeric(got$time[129]), as.numeric(as.POSIXct("2024-03-31 01:30", tz = "UTC")))
  expect_true(all(is.na(got$day[1:128])) && all(is.na(got$time[1:128])))
  expect_equal(got$.pred, stats::predict(fx$fit, fx$toy[1:300, ])$.pred, tolerance = 1e-6)
})

test_that("a generator that returns no chunk gives the columns of a prediction with no rows", {
  fx <- chunk_fixture()
  want <- stats::predict(fx$fit, fx$toy[0, ], interval = "credible")
  got <- predict_chunks(fx$fit, function() NULL, keep = c("site", "x1"), interval = "credible",
                        verbose = FALSE)
  expect_s3_class(got, "tbl_df")
  expect_identical(nrow(got), 0L)
  expect_named(got, c("site", "x1", names(want)))
  expect_identical(as.list(got[-(1:2)]), as.list(want))
  out_dir <- file.path(fx$dir, "none")
  res <- predict_chunks(fx$fit, function() NULL, output = out_dir, verbose = FALSE)
  expect_identical(res$rows, 0)
  back <- utils::read.csv(res$output)
  expect_identical(nrow(back), 0L)
  expect_named(back, names(stats::predict(fx$fit, fx$toy[0, ])))
  # A calibration scores as its model.
  cal <- calibrate(fx$fit, fx$toy[1:200, ], method = "sensor_anchored")
  expect_named(predict_chunks(cal, function() NULL, verbose = FALSE),
               names(stats::predict(cal, fx$toy[0, ])))
})

test_that("write.csv()'s row-name column, semicolon files and late quoted numbers", {
  fx <- chunk_fixture()
  # write.csv() with its default row names: a first column named "".
  with_names <- file.path(fx$dir, "row_names.csv")
  utils::write.csv(fx$toy[401:700, ], with_names)
  got <- predict_chunks(fx$fit, with_names, chunk_rows = 128, verbose = FALSE)
  expect_identical(got$.pred, stats::predict(fx$fit, utils::read.csv(with_names))$.pred)
  # A European export: semicolons and decimal commas.
  european <- file.path(fx$dir, "european.csv")
  utils::write.csv2(fx$toy[401:450, ], european, row.names = FALSE)
  expect_error(predict_chunks(fx$fit, european, verbose = FALSE), "looks semicolon-separated")
  got <- predict_chunks(fx$fit, european, reader = utils::read.csv2, verbose = FALSE)
  expect_equal(got$.pred, stats::predict(fx$fit, fx$toy[401:450, ])$.pred, tolerance = 1e-6)
  # Numbers quoted only after the first chunk: read as numbers all the same.
  late <- file.path(fx$dir, "late_quotes.csv")
  lines <- readLines(fx$files[1])
  lines[c(200, 280)] <- gsub("([0-9.e-]+)", "\"\\1\"", lines[c(200, 280)])
  writeLines(lines, late)
  got <- predict_chunks(fx$fit, late, chunk_rows = 128, verbose = FALSE)
  expect_identical(got$.pred, predict_chunks(fx$fit, fx$files[1], chunk_rows = 128, verbose = FALSE)$.pred)
  # A compressed file cannot go back: the error says why.
  late_gz <- file.path(fx$dir, "late_quotes.csv.gz")
  gz <- gzfile(late_gz, "w")
  writeLines(lines, gz)
  close(gz)
  expect_error(predict_chunks(fx$fit, late_gz, chunk_rows = 128, verbose = FALSE),
               "quotes no number, and a later one does")
})

test_that("hexadecimal in a numeric column is refused in every chunk, as the readers refuse it", {
  fx <- chunk_fixture()
  # Field 3 is x1, a covariate of the model; read.csv() reads "0x1A" as 26.
  with_x1 <- function(lines, row, value) {
    fields <- strsplit(lines[row + 1], ",", fixed = TRUE)[[1]]
    fields[3] <- value
    replace(lines, row + 1, paste(fields, collapse = ","))
  }
  plain <- readLines(fx$files[1])
  quoted <- file.path(fx$dir, "quoted.csv")
  utils::write.csv(format(utils::read.csv(fx$files[1]), digits = 15), quoted, row.names = FALSE)
  quoted <- readLines(quoted)
  cases <- list(list(plain, 2, "0x1A"), list(plain, 250, "0x1A"), list(plain, 250, "-0X1a"),
                list(quoted, 2, "\"0x1A\""), list(quoted, 250, "\"0x1A\""))
  for (case in cases) {
    lines <- with_x1(case[[1]], case[[2]], case[[3]])
    expect_identical(utils::read.csv(text = lines)$x1[case[[2]]], if (grepl("-", case[[3]])) -26 else 26)
    # Plain and gzip files are read with numbers, bzip2 ones as text.
    for (ext in c("", ".gz", ".bz2")) {
      path <- file.path(fx$dir, paste0("hex.csv", ext))
      con <- switch(ext, .gz = gzfile(path, "w"), .bz2 = bzfile(path, "w"), file(path, "w"))
      writeLines(lines, con)
      close(con)
      err <- expect_error(predict_chunks(fx$fit, path, chunk_rows = 128, verbose = FALSE),
                          class = "ncam_chunk_not_numeric")
      value <- gsub("\"", "", case[[3]])
      expect_match(conditionMessage(err), sprintf("Column x1 of .*hex.csv.* is not numeric: data row %d is \"%s\"",
                                                  case[[2]], value), info = ext)
      expect_match(conditionMessage(err), sprintf("after row %d", if (case[[2]] > 128) 128 else 0), info = ext)
    }
  }
  # Text with "0x" in it is text: the chunks are read as predict() reads the file.
  notes <- utils::read.csv(fx$files[1])
  notes$note <- sprintf("box0x%d", seq_len(nrow(notes)))
  path <- file.path(fx$dir, "notes.csv")
  utils::write.csv(notes, path, row.names = FALSE, quote = FALSE)
  got <- predict_chunks(fx$fit, path, chunk_rows = 128, keep = "note", verbose = FALSE)
  expect_identical(got$note, notes$note)
  expect_identical(got$.pred, predict_chunks(fx$fit, fx$files[1], chunk_rows = 128, verbose = FALSE)$.pred)
  # Hexadecimal codes in a column of their own: refused with the reader that keeps them text.
  notes$note <- sprintf("0x%X", seq_len(nrow(notes)))
  utils::write.csv(notes, path, row.names = FALSE, quote = FALSE)
  err <- expect_error(predict_chunks(fx$fit, path, chunk_rows = 128, keep = "note", verbose = FALSE),
                      class = "ncam_chunk_not_numeric")
  expect_match(conditionMessage(err), "Column note of .* is not numeric: data row 1 is \"0x1\"")
  expect_match(conditionMessage(err), "colClasses = c(note = \"character\")", fixed = TRUE)
  got <- predict_chunks(fx$fit, path, chunk_rows = 128, keep = "note", verbose = FALSE,
                        reader = function(p) utils::read.csv(p, colClasses = c(note = "character")))
  expect_identical(got$note, notes$note)
})

test_that("infinite numbers are refused in every chunk, naming the column, value and data row", {
  fx <- chunk_fixture()
  # x1 is a covariate of the model, sensor_2 one of its sensors.
  with_field <- function(lines, row, column, value) {
    fields <- strsplit(lines[row + 1], ",", fixed = TRUE)[[1]]
    fields[match(column, gsub("\"", "", strsplit(lines[1], ",", fixed = TRUE)[[1]]))] <- value
    replace(lines, row + 1, paste(fields, collapse = ","))
  }
  plain <- readLines(fx$files[1])
  quoted <- file.path(fx$dir, "quoted.csv")
  utils::write.csv(format(utils::read.csv(fx$files[1]), digits = 15), quoted, row.names = FALSE)
  quoted <- readLines(quoted)
  # Row 2 lies in the first chunk, which fixes the types; row 250 in the second.
  cases <- list(list(plain, 2, "x1", "Inf"), list(plain, 250, "x1", "-Inf"), list(plain, 250, "x1", "inf"),
                list(plain, 250, "x1", "Infinity"), list(plain, 2, "x1", "1e999"), list(plain, 250, "sensor_2", "-inf"),
                list(quoted, 2, "x1", "\"-Infinity\""), list(quoted, 250, "x1", "\"Inf\""))
  for (case in cases) {
    lines <- with_field(case[[1]], case[[2]], case[[3]], case[[4]])
    column <- case[[3]]
    # read.csv() reads them all as infinite numbers, which predict() would refuse.
    read <- utils::read.csv(text = lines)[[column]]
    expect_true(is.double(read) && is.infinite(read[case[[2]]]))
    for (ext in c("", ".gz", ".bz2")) {
      path <- file.path(fx$dir, paste0("inf.csv", ext))
      con <- switch(ext, .gz = gzfile(path, "w"), .bz2 = bzfile(path, "w"), file(path, "w"))
      writeLines(lines, con)
      close(con)
      err <- expect_error(predict_chunks(fx$fit, path, chunk_rows = 128, keep = "truth", verbose = FALSE),
                          class = "ncam_chunk_not_numeric")
      expect_match(conditionMessage(err),
                   sprintf("Column %s of .*inf.csv.* is not a finite number: data row %d is \"%s\"",
                           column, case[[2]], gsub("\"", "", case[[4]])), info = paste(case[[4]], ext))
    }
  }
  # From a reader or a function, the data row of an infinite value in a column the model reads.
  with_inf <- function(p) replace(utils::read.csv(p), "sensor_1", list(replace(utils::read.csv(p)$sensor_1, 250, -Inf)))
  expect_error(predict_chunks(fx$fit, fx$files[1], chunk_rows = 128, reader = with_inf, verbose = FALSE),
               "Column sensor_1 of .*a.csv.* is not a finite number: data row 250 is -Inf", class = "ncam_chunk_not_numeric")
  d <- utils::read.csv(fx$files[1])
  calls <- 0
  chunks <- function() {
    if (calls == 3) return(NULL)
    calls <<- calls + 1
    part <- d[(calls - 1) * 100 + 1:100, ]
    if (calls == 3) part$x2[50] <- Inf
    part
  }
  expect_error(predict_chunks(fx$fit, chunks, verbose = FALSE),
               "Column x2 of `input` is not a finite number: data row 250 is Inf", class = "ncam_chunk_not_numeric")
  # A column the model does not read is passed through, as predict() ignores it.
  with_truth <- function(p) replace(utils::read.csv(p), "truth", list(replace(utils::read.csv(p)$truth, 250, Inf)))
  got <- predict_chunks(fx$fit, fx$files[1], chunk_rows = 128, keep = "truth", reader = with_truth, verbose = FALSE)
  expect_identical(got$truth[250], Inf)
  expect_identical(got$.pred, stats::predict(fx$fit, d)$.pred)
})

test_that("infinite numbers and hexadecimal text in columns the model does not read never stop it", {
  fx <- chunk_fixture()
  d <- utils::read.csv(fx$files[1])
  # truth is kept, x3 and note are read by no one; rows 2 and 250 lie in the first and second chunk.
  d$truth[c(2, 250)] <- c(Inf, -Inf)
  d$x3[250] <- Inf
  d$note <- 1
  plain <- file.path(fx$dir, "unread.csv")
  utils::write.csv(d, plain, row.names = FALSE)
  lines <- sub(",1$", ",0x1A", readLines(plain))
  lines[251] <- sub("-Inf", "-infinity", lines[251], fixed = TRUE)
  expect_identical(utils::read.csv(text = lines)$note[1], 26)
  expect_identical(utils::read.csv(text = lines)$truth[c(2, 250)], c(Inf, -Inf))
  expected <- stats::predict(fx$fit, d)$.pred
  quoted <- file.path(fx$dir, "unread_quoted.csv")
  utils::write.csv(format(d, digits = 15), quoted, row.names = FALSE)
  for (ext in c("", ".gz", ".bz2", "quoted")) {
    path <- if (ext == "quoted") quoted else file.path(fx$dir, paste0("unread.csv", ext))
    if (ext != "quoted") {
      con <- switch(ext, .gz = gzfile(path, "w"), .bz2 = bzfile(path, "w"), file(path, "w"))
      writeLines(lines, con)
      close(con)
    }
    got <- predict_chunks(fx$fit, path, chunk_rows = 128, keep = "truth", verbose = FALSE)
    expect_identical(got$truth[c(2, 250)], c(Inf, -Inf), info = ext)
    expect_equal(got$.pred, expected, tolerance = 1e-12, info = ext)
  }
  # The same text in x1, a covariate, is still refused, named with its data row.
  fields <- strsplit(lines[251], ",", fixed = TRUE)[[1]]
  fields[3] <- "-infinity"
  lines[251] <- paste(fields, collapse = ",")
  writeLines(lines, plain)
  expect_error(predict_chunks(fx$fit, plain, chunk_rows = 128, keep = "truth", verbose = FALSE),
               "Column x1 of .*unread.csv.* is not a finite number: data row 250 is \"-infinity\"",
               class = "ncam_chunk_not_numeric")
})

test_that("hexadecimal unit codes: text where the fit has them as text, refused where it has numbers", {
  withr::local_seed(4)
  sites <- c("0x1A", "0x2B", "0x3C")
  d <- do.call(rbind, lapply(seq_along(sites), function(k) {
    truth <- stats::rlnorm(100, log(10), 0.4)
    data.frame(site = sites[k], rh = stats::runif(100, 30, 90), s1 = truth + k + stats::rnorm(100),
               s2 = truth + k + stats::rnorm(100), ref = ifelse(1:100 <= 40, truth + stats::rnorm(100, sd = 0.3), NA))
  }))
  fit <- suppressWarnings(ncam(s1 + s2 ~ rh, d, reference = "ref", unit = "site", hidden = 4L, epochs = 5L,
                               seed = 1, threads = 1))
  dir <- withr::local_tempdir()
  path <- file.path(dir, "sites.csv")
  utils::write.csv(d, path, row.names = FALSE, quote = FALSE)
  # read.csv() reads 0x1A as 26, a unit the fit does not know: its offset would be lost. The
  # default reader reads the unit column as text, as the fit's codes are.
  expect_identical(utils::read.csv(path)$site[1], 26)
  got <- predict_chunks(fit, path, chunk_rows = 128, verbose = FALSE)
  expect_equal(got$.pred, stats::predict(fit, d)$.pred, tolerance = 1e-12)
  # Where the fit's codes read back as numbers, the column is read as read.csv() reads it, and
  # hexadecimal text there is an error.
  numbered <- transform(d, site = match(site, sites))
  fit_numbered <- suppressWarnings(ncam(s1 + s2 ~ rh, numbered, reference = "ref", unit = "site", hidden = 4L,
                                        epochs = 5L, seed = 1, threads = 1))
  utils::write.csv(numbered, path, row.names = FALSE)
  writeLines(sub("^1,", "0x1,", readLines(path)), path)
  expect_error(predict_chunks(fit_numbered, path, chunk_rows = 128, verbose = FALSE),
               "Column site of .*sites.csv.* is not numeric: data row 1 is \"0x1\"", class = "ncam_chunk_not_numeric")
})

test_that("unit codes with leading zeros keep their offsets; a reader that drops the zeros is named", {
  withr::local_seed(5)
  sites <- c("0101259", "0603712", "0604100")  # AQS-style codes
  d <- do.call(rbind, lapply(seq_along(sites), function(k) {
    truth <- stats::rlnorm(100, log(10), 0.4)
    data.frame(site = sites[k], rh = stats::runif(100, 30, 90), s1 = truth + 2 * k + stats::rnorm(100),
               s2 = truth + 2 * k + stats::rnorm(100), ref = ifelse(1:100 <= 40, truth + stats::rnorm(100, sd = 0.3), NA))
  }))
  fit <- suppressWarnings(ncam(s1 + s2 ~ rh, d, reference = "ref", unit = "site", hidden = 4L, epochs = 5L,
                               seed = 1, threads = 1))
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(d, path, row.names = FALSE)
  # A few later readings lie beyond the co-location's, which is not the point here.
  beyond <- "ncam_warning_extrapolation"
  expected <- suppressWarnings(stats::predict(fit, d, interval = "prediction"), classes = beyond)
  got <- suppressWarnings(predict_chunks(fit, path, chunk_rows = 128, keep = "site", interval = "prediction",
                                         verbose = FALSE), classes = beyond)
  expect_identical(got$site, d$site)
  expect_equal(got[names(expected)], expected, tolerance = 1e-12)
  # read.csv() reads them as numbers: no offsets, and the warning names the reader that keeps them.
  w <- suppressWarnings(expect_warning(
    predict_chunks(fit, path, chunk_rows = 128, verbose = FALSE, reader = utils::read.csv),
    class = "ncam_warning_unknown_unit"
  ), classes = beyond)
  expect_match(conditionMessage(w), "\"101259\".*reader = function\\(p\\) utils::read.csv\\(p, colClasses = c\\(site = \"character\"\\)\\)")
})

test_that("numeric fields of spaces alone are missing values in every chunk, quoted or not", {
  fx <- chunk_fixture()
  d <- utils::read.csv(fx$files[1])
  expected <- stats::predict(fx$fit, replace(d, "sensor_1", list(replace(d$sensor_1, c(5, 250), NA))))$.pred
  for (quote in c(FALSE, TRUE)) {
    path <- file.path(fx$dir, "blank.csv")
    utils::write.csv(d, path, row.names = FALSE, quote = quote)
    lines <- readLines(path)
    lines[c(6, 251)] <- sub("^(([^,]*,){7})[^,]*", if (quote) "\\1\"   \"" else "\\1   ", lines[c(6, 251)])
    writeLines(lines, path)
    expect_identical(which(is.na(utils::read.csv(path)$sensor_1)), c(5L, 250L))
    got <- predict_chunks(fx$fit, path, chunk_rows = 128, keep = "sensor_1", verbose = FALSE)
    expect_identical(which(is.na(got$sensor_1)), c(5L, 250L))
    expect_equal(got$.pred, expected, tolerance = 1e-12)
  }
})

test_that("codes read as numbers, and a text column read as logical, are named with the fix", {
  toy <- simulate_toy(n = 600, seed = 4)
  toy$site <- sprintf("%03d", rep(1:3, length.out = 600))  # "001", "002", "003"
  fit <- withCallingHandlers(
    ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + factor(site), data = toy, hidden = 4L, epochs = 3L, seed = 1L,
         threads = 1L),
    ncam_warning_not_converged = function(w) invokeRestart("muffleWarning"))
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(toy, path, row.names = FALSE)
  # The default reader reads the codes as text, as the fit has them: read.csv() reads "001" as 1.
  expect_equal(predict_chunks(fit, path, chunk_rows = 256, verbose = FALSE), predict(fit, toy), tolerance = 1e-10)
  # A reader that reads them as numbers makes every row a level never seen.
  expect_warning(got <- predict_chunks(fit, path, chunk_rows = 256, verbose = FALSE, reader = utils::read.csv),
                 "Levels of factor\\(site\\) in training: \"001\", \"002\", \"003\".*which changes codes such as \"001\" \\(read as 1\\).*reader = function\\(p\\) utils::read.csv\\(p, colClasses = c\\(site = \"character\"\\)\\)",
                 class = "ncam_warning_unseen_level")
  expect_true(all(is.na(got$.pred)))
  # The reader it suggests scores as predict() does.
  fixed <- predict_chunks(fit, path, chunk_rows = 256, verbose = FALSE,
                          reader = function(p) utils::read.csv(p, colClasses = c(site = "character")))
  expect_identical(fixed, predict(fit, utils::read.csv(path, colClasses = c(site = "character"))))
  expect_equal(fixed, predict(fit, toy), tolerance = 1e-10)
  expect_warning(predict_chunks(fit, row_chunks(utils::read.csv(path), 300), verbose = FALSE),
                 "Levels of factor\\(site\\) in training.*The chunks hold `site` as numbers",
                 class = "ncam_warning_unseen_level")
  # Levels that are not codes with zeros: the training levels only.
  other <- transform(toy[1:5, ], site = "009")
  other_path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(other, other_path, row.names = FALSE)
  warnings <- testthat::capture_warnings(predict_chunks(fit, other_path, verbose = FALSE))
  expect_match(warnings, "Levels of factor\\(site\\) in training: \"001\", \"002\", \"003\"")
  expect_no_match(warnings, "changes codes")
  # Codes that numbers write back ("100000", which as.character() of the double writes "1e+05")
  # score as text whatever the type of the chunks; an unseen one is not blamed on the reader.
  round_toy <- transform(toy, site = rep(c("100000", "200000", "300000"), length.out = 600))
  round_fit <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + factor(site), data = round_toy,
                                     hidden = 4L, epochs = 3L, seed = 1L, threads = 1L),
                                classes = "ncam_warning_not_converged")
  as_numbers <- transform(round_toy, site = as.numeric(site))
  # (Within float precision: a row's place in the engine's SIMD packets moves its last digits.)
  expect_equal(predict_chunks(round_fit, row_chunks(as_numbers, 300), verbose = FALSE), predict(round_fit, round_toy),
               tolerance = 1e-6)
  as_numbers$site[1:3] <- 4e5
  warnings <- testthat::capture_warnings(predict_chunks(round_fit, row_chunks(as_numbers, 300), verbose = FALSE))
  expect_match(warnings, "factor\\(site\\): \"4e\\+05\"")
  expect_no_match(warnings, "1e\\+05")
  expect_match(warnings, "Levels of factor\\(site\\) in training: \"100000\", \"200000\", \"300000\"")
  expect_no_match(warnings, "changes codes")
  # A text column whose first chunk reads as logical (every value "T"), of a fit whose codes read
  # back as numbers (so read as read.csv() reads them).
  toy$site <- as.character(rep(1:3, length.out = 600))
  fit <- suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + factor(site), data = toy, hidden = 4L,
                               epochs = 3L, seed = 1L, threads = 1L), classes = "ncam_warning_not_converged")
  toy$site[1:130] <- "T"
  logical_path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(toy, logical_path, row.names = FALSE)
  err <- expect_error(predict_chunks(fit, logical_path, chunk_rows = 128, verbose = FALSE),
                      class = "rlang_error")
  message <- conditionMessage(err)
  expect_match(message, "Column site was read as logical .* from the first chunk of 128 rows")
  expect_match(message, "colClasses = c\\(site = \"character\"\\)")
  expect_match(message, "data row 131 holds \"2\", which is not `TRUE` or `FALSE`", fixed = TRUE)
  expect_no_match(message, "compressed")
})

test_that("a text column read as logical: only the column concerned and its value are named (quoted CSV)", {
  toy <- simulate_toy(n = 600, seed = 1)
  set.seed(3)
  toy$flag <- sample(c("T", "F"), 600, TRUE)
  toy$flag2 <- sample(c("T", "F"), 600, TRUE)
  toy$flag2[450] <- "x"
  fit <- withCallingHandlers(
    ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + flag + flag2, data = toy, hidden = 4L, epochs = 3L, seed = 1L,
         threads = 1L),
    ncam_warning_not_converged = function(w) invokeRestart("muffleWarning"))
  expect_identical(which(!toy$flag2 %in% c("T", "F")), 450L)
  for (quote in c(TRUE, FALSE)) {
    # The fit's text covariates are read as text, as it has them.
    path <- withr::local_tempfile(fileext = ".csv")
    utils::write.csv(toy, path, row.names = FALSE, quote = quote)
    expect_equal(predict_chunks(fit, path, chunk_rows = 200, verbose = FALSE), predict(fit, toy), tolerance = 1e-10,
                 info = quote)
    # Other columns of the same text are read as read.csv() reads them: they stop nothing unless
    # kept.
    utils::write.csv(transform(toy, note = flag, note2 = flag2), path, row.names = FALSE, quote = quote)
    expect_identical(grepl("\"T\"", readLines(path, n = 2)[2]), quote)
    expect_equal(predict_chunks(fit, path, chunk_rows = 200, verbose = FALSE), predict(fit, toy), tolerance = 1e-10,
                 info = quote)
    err <- expect_error(predict_chunks(fit, path, chunk_rows = 200, keep = c("note", "note2"), verbose = FALSE),
                        class = "ncam_chunk_logical_column")
    message <- conditionMessage(err)
    expect_match(message, "Column note2 was read as logical", fixed = TRUE, info = quote)
    expect_match(message, "data row 450 holds \"x\", which is not `TRUE` or `FALSE`", fixed = TRUE, info = quote)
    expect_match(message, "colClasses = c(note2 = \"character\")", fixed = TRUE, info = quote)
    expect_no_match(message, "Columns|note and|note =|in quotes|\"[TF]\" \\(", info = quote)
    # The reader it suggests keeps the column as written.
    fixed <- predict_chunks(fit, path, chunk_rows = 200, keep = c("note", "note2"), verbose = FALSE,
                            reader = function(p) {
                              utils::read.csv(p, colClasses = c(flag = "character", flag2 = "character", note = "character",
                                                                note2 = "character"))
                            })
    expect_identical(fixed$note2, toy$flag2, info = quote)
    expect_equal(fixed$.pred, predict(fit, toy)$.pred, tolerance = 1e-10, info = quote)
  }
  # A reader that reads T and F throughout as logical: the warning about unseen levels says so,
  # with the fix.
  toy$flag2[450] <- "T"
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(toy, path, row.names = FALSE)
  w <- expect_warning(got <- predict_chunks(fit, path, chunk_rows = 200, verbose = FALSE, reader = utils::read.csv),
                      class = "ncam_warning_unseen_level")
  expect_match(conditionMessage(w), "The file reader read `flag`, `flag2` as logical: read them as text", fixed = TRUE)
  expect_true(all(is.na(got$.pred)))
})

test_that("date-times are written as the same UTC instants whichever CSV writer runs", {
  skip_if_not_installed("withr")
  dir <- withr::local_tempdir()
  x <- data.frame(date = as.POSIXct(c("2024-01-01 00:00:00", "2024-07-01 12:30:00", NA), tz = "America/New_York"),
                  .pred = c(1.5, NA, 2))
  base <- file.path(dir, "base.csv")
  ncam:::write_csv_chunk(x, base, append = FALSE, fwrite = FALSE)
  lines <- readLines(base)
  expect_match(lines[2], "2024-01-01T05:00:00Z", fixed = TRUE)
  expect_match(lines[3], "2024-07-01T16:30:00Z", fixed = TRUE)
  expect_match(lines[4], "^NA,2$")
  read_back <- as.POSIXct(sub("Z$", "", utils::read.csv(base)$date), format = "%Y-%m-%dT%H:%M:%S", tz = "UTC")
  expect_equal(as.numeric(read_back), as.numeric(x$date))
  skip_if_not_installed("data.table")
  fast <- file.path(dir, "fast.csv")
  ncam:::write_csv_chunk(x, fast, append = FALSE, fwrite = TRUE)
  expect_identical(gsub('"', "", readLines(fast)), gsub('"', "", lines))
})

test_that("row counts summed over chunks are written as whole numbers", {
  # Counts summed over chunks are doubles; cli wrote 100000 of them as "1e+05".
  fx <- chunk_fixture()
  big <- fx$toy[rep(seq_len(nrow(fx$toy)), length.out = 1e5), ]
  big$sensor_0[c(1, 50001)] <- NA
  big$sensor_1[c(1, 50001)] <- NA
  big$sensor_2[c(1, 50001)] <- NA
  warnings <- caught_warnings(predict_chunks(fx$fit, row_chunks(big, 25000), interval = "none", verbose = FALSE))
  no_readings <- Filter(function(w) inherits(w, "ncam_warning_no_readings"), warnings)
  expect_length(no_readings, 1L)
  expect_match(conditionMessage(no_readings[[1]]), "2 of 100000 rows", fixed = TRUE)
  expect_no_match(conditionMessage(no_readings[[1]]), "e+0", fixed = TRUE)
})
