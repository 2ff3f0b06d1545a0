# predict_chunks()'s warning about rows far outside the calibration range names the variables as
# predict() does: rows per variable, its range, its farthest value and its first rows, summed
# over the chunks.

far_message <- function(expr) {
  caught <- Filter(function(w) inherits(w, "ncam_warning_extrapolation"), caught_warnings(expr))
  expect_length(caught, 1L)
  gsub("\\s+", " ", cli::ansi_strip(conditionMessage(caught[[1]])))
}

test_that("rows far outside the range are counted per variable over the chunks, as predict() counts them", {
  d <- simulate_colocation(days = 30, seed = 5)
  # Fitted to every row (all co-location rows have a reference): only the rows changed below lie
  # outside its range.
  fit <- suppressWarnings(ncam(pa_a + pa_b + opc ~ rh + temperature, data = d, reference = "ref",
                               hidden = 4L, epochs = 5L, seed = 1), classes = "ncam_warning_not_converged")
  new <- d[1:420, ]
  # Far temperatures in several chunks, the farthest in the last; a far rh in one.
  co <- !is.na(d$ref)
  range_t <- diff(range(d$temperature[co]))
  hot <- c(10, 140, 141, 142, 300, 301, 410)
  new$temperature[hot] <- max(d$temperature[co]) + range_t * c(0.5, 0.6, 0.7, 0.8, 0.9, 1, 3)
  new$rh[200] <- min(d$rh[co]) - 2 * diff(range(d$rh[co]))
  want <- far_message(stats::predict(fit, new))
  k <- 0
  chunks <- function() if ((k <<- k + 1) <= 4) new[(k - 1) * 128 + seq_len(min(128, nrow(new) - (k - 1) * 128)), ]
  got <- far_message(predict_chunks(fit, chunks, verbose = FALSE))
  expect_identical(got, want)
  expect_match(got, "^8 of 420 rows lie more than 25% of the range")
  expect_match(got, sprintf("temperature: 7 rows outside [0-9.]+ to [0-9.]+ \\(as high as %s\\): rows 10, 140, 141, 142, 300, \\.\\.\\.",
                            signif(new$temperature[410], 4)))
  expect_match(got, "rh: 1 row outside .* \\(as low as [-0-9.]+\\): row 200", fixed = FALSE)
  expect_no_match(got, "names the variables")
  # From files: rows of their file.
  dir <- withr::local_tempdir()
  files <- file.path(dir, c("a.csv", "b.csv"))
  utils::write.csv(new[1:250, ], files[1], row.names = FALSE)
  utils::write.csv(new[251:420, ], files[2], row.names = FALSE)
  from_files <- far_message(predict_chunks(fit, files, chunk_rows = 128, verbose = FALSE))
  expect_match(from_files, "rows 10, 140, 141, 142 of a.csv, 50 of b.csv, ...", fixed = TRUE)
  expect_match(from_files, "row 200 of a.csv", fixed = TRUE)
  expect_identical(sub(":[^:]*$", "", sub(".*temperature", "temperature", from_files)),
                   sub(":[^:]*$", "", sub(".*temperature", "temperature", want)))
})
