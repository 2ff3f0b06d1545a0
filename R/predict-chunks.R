# Scoring data larger than memory: files (or a chunk generator) read `chunk_rows` rows at a
# time, scored, and written out or combined, on whatever future plan the user set.

#' Score data larger than memory, chunk by chunk
#'
#' Reads the input `chunk_rows` rows at a time, scores each chunk with [predict.ncam()] (or
#' [predict.ncam_calibration()], or for fits by group from [ncam_by()] with their
#' [predict()][predict.ncam_by()]) and writes the results to one CSV file per input, or returns
#' them combined. Memory stays bounded by a few chunks per process, whatever the size of the
#' input, unless `output = NULL` asks for the whole result in memory.
#'
#' @section Parallel work: the work runs on the plan set with [future::plan()]: in this
#'   process under the default `plan(sequential)`, on local cores with `plan(multisession)`,
#'   on other machines with `plan(cluster)`, on a scheduler with a `future.batchtools` plan.
#'   File inputs are split into one contiguous block of files per worker, so the model is sent
#'   to each worker once; workers read their files themselves, under the same paths. With a
#'   function input the chunks are made in this process and sent to the workers with the model.
#'   At most one task per worker is in flight, and results are collected in input order.
#'   Results are the same under every plan and number of workers, and identical to
#'   `predict()` on each whole file: `chunk_rows` is rounded up to a multiple of 128, the
#'   engine's block of rows (other chunk boundaries would change the last bits of the float
#'   arithmetic). A function input makes its own chunks: they give `predict()`'s results to the
#'   last bits when their rows are multiples of 128, and to about 1e-7 relative otherwise
#'   (single-precision networks; see [predict.ncam()]). Fits by group give them to about 1e-7
#'   relative too: a group's rows in a chunk are a part of its rows in the whole input.
#'
#' @section Reading and writing: files ending in `.parquet` are read in parts with the arrow
#'   package when it is installed, else each whole with the smaller nanoparquet package (an
#'   error says so when neither is installed); other files are read as CSV with
#'   [utils::read.csv()] (a header line; an empty field, spaces alone, `NA` or `NaN` for
#'   missing values, a `NaN` being read as `NA`, from a `reader` too; `.gz`, `.bz2` and `.xz`
#'   files are decompressed). The first chunk fixes the column types (numbers in quotes are
#'   numbers, also where quotes first appear in a later chunk of an uncompressed file; a
#'   compressed file must quote its numbers from its first line or not at all); a column
#'   empty throughout a chunk is read as missing numbers.
#'   Infinite numbers (`Inf`, `-inf`, `Infinity`, `1e999`) in a column the model reads (its
#'   sensors, the variables of its covariates, the reference with `use_reference = TRUE`), and
#'   hexadecimal text such as `0x1A`, which read.csv() reads as 26, there, in the `unit` column
#'   of a fit with unit offsets and in the `keep` columns, are an error naming the column, the
#'   value and its data row, as in the package's readers. Other columns are read as read.csv()
#'   reads them and never stop a prediction (a kept column passes `Inf` through). The `keep`
#'   columns are read the same way (text such as `"00001"` comes back as a number), but for
#'   times, typed as the package's readers type them: a kept column whose values in the first
#'   chunk of a file are all days (`"2024-05-01"`, as [utils::write.csv()] writes a `Date`) comes
#'   back a `Date`, one of ISO 8601 date-times (`"2024-05-01 13:00:00"`, `"2024-05-01T13:00:00Z"`,
#'   with a zone offset or not) a `POSIXct` in UTC (a time without a zone is taken as UTC), and a
#'   later value that is not such a time is an error naming its row. The columns the fit matches
#'   as codes, its `unit` column and the columns of text or factor covariates, are read as text
#'   when a code of the fit's would not come back from a number (site `"0101259"` read as 101259
#'   would be a unit, or a level, the fit never saw); the `by` columns of fits by group are read
#'   as their keys are: text and factor keys as text, dates and date-times as such (a time
#'   without a zone in the keys' time zone).
#'   A `reader` such as [read_toucan()] reads the package's readers' formats, a whole
#'   file at a time (memory is then bounded by the largest file). From a `reader`, a Parquet
#'   file or a function input, an infinite value in a column the model reads is an error
#'   naming the column and the data row, as [predict.ncam()] refuses it. A CSV file holds plain
#'   numbers: a column the model reads that the fit converted from other units (see Value in
#'   [predict.ncam()]; the reference only with `use_reference = TRUE`) needs its units, from
#'   `units` or a `reader` that sets them. Messages of `predict()` name the input `input`, and
#'   rows as rows of the file (of all chunks, for a function input); a warning that `predict()`
#'   gives once per call comes once for the whole input, counting the rows of all chunks.
#'   When a file or chunk fails, the call ends with its error (the first in input order, naming
#'   the other files that failed under a parallel plan), and those warnings of every chunk
#'   scored still come, once each, as do the warnings about rows (such as rows beyond the fitted
#'   range) of every file finished, so that every output file kept has had its warnings given. A file that fails leaves no partial output behind; the output
#'   files finished before it are kept. Under the sequential plan no file after it is read;
#'   under a parallel plan the other workers finish their own blocks of files (each up to a
#'   failure of its own), so output files after the failing one may be complete and kept too,
#'   their warnings given with the others. A worker that is lost (its R process ends) ends the
#'   call with the plan's error; the other workers' files finished by then stay and come with
#'   their warnings, and so do the lost worker's finished files, but without theirs. A function
#'   input that fails writes no output file.
#'   Outputs are CSV files (15 significant digits, missing values `NA`) named after the inputs
#'   with the extension `.csv`, written under a temporary name and renamed when complete.
#'
#' @param object A fitted [ncam()] model, fits by group from [ncam_by()], or a calibration of
#'   either from [calibrate()]. Each row of fits by group is scored by its group's model, as
#'   [predict.ncam_by()] scores it, and the input needs the `by` columns; rows of no group with
#'   a model get `NA`, with one warning for the whole input. Baselines from [ncam_baseline()]
#'   are an error saying how to score them: [predict.ncam_baseline()] on parts of the input.
#' @param input A character vector (or list) of file paths, scored in this order; or a function
#'   without arguments that returns the next chunk (a data frame) at each call and `NULL` when
#'   there is no more.
#' @param output `NULL` to return the results combined, or a folder (created if needed) to
#'   write one CSV file per input file (`predictions.csv` for a function input).
#' @param chunk_rows Rows read and scored at a time (rounded up to a multiple of 128).
#' @param keep Names of input columns (such as a time stamp or a site) to copy in front of the
#'   prediction columns.
#' @param reader `NULL`, or a function of one path returning a data frame, used for every file.
#' @param overwrite Replace existing output files; by default an existing file is an error.
#' @param threads Threads per worker; see [ncam_threads()]. The default is 1 under a parallel
#'   plan, so that workers times threads does not oversubscribe the cores, and
#'   [ncam_threads()]'s default otherwise.
#' @param verbose Show a progress bar with the rows scored and the time left (for file inputs;
#'   a function input shows the rows scored).
#' @param units `NULL`, or a named list of unit strings (of the units package), the unit of the
#'   numbers of each column, such as `list(opc = "mg/m3")`, set on every chunk. Only for columns
#'   the fit read with units (`fit$units`): those it converted from another unit need units in
#'   new data (see Value in [predict.ncam()]), which a CSV file cannot hold. Each must convert to
#'   the column's unit in the fit. A column that has units already (from a `reader` or a
#'   function input) is an error; `keep` columns stay as read.
#' @param ... Arguments of the `predict()` method, such as `interval` and `level` (these two
#'   are checked before any input is read).
#' @return With `output = NULL`, a tibble with one row per input row, in input order: the
#'   `keep` columns, then the columns of `predict()`. With a folder, invisibly, a tibble with
#'   one row per output file: `input`, `output` and `rows`.
#' @seealso [ncam_by()] for many independent fits on a future plan.
#' @examples
#' toy <- simulate_toy(n = 3000, seed = 3)
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy[1:2000, ],
#'             hidden = 8, epochs = 300, seed = 1, threads = 1)
#' dir <- tempfile()
#' dir.create(dir)
#' files <- file.path(dir, c("a.csv", "b.csv"))
#' utils::write.csv(toy[2001:2500, ], files[1], row.names = FALSE)
#' utils::write.csv(toy[2501:3000, ], files[2], row.names = FALSE)
#' scored <- predict_chunks(fit, files, chunk_rows = 200, keep = "truth",
#'                          interval = "credible", verbose = FALSE)
#' scored
#' all.equal(scored$.pred, predict(fit, toy[2001:3000, ])$.pred)
#' # To files, one per input
#' predict_chunks(fit, files, output = file.path(dir, "scored"), verbose = FALSE)
#' @export
predict_chunks <- function(object, input, output = NULL, chunk_rows = 102400L, keep = character(),
                           reader = NULL, overwrite = FALSE, threads = NULL, verbose = interactive(),
                           units = NULL, ...) {
  check_column_name_args("keep")
  check_chunk_object(object)
  check_number(chunk_rows, "chunk_rows", min = 1, max = 1e9, integer = TRUE)
  if (!is.null(reader) && !is.function(reader)) {
    ncam_abort("{.arg reader} must be {.code NULL} or a function of a path, not {.obj_type_friendly {reader}}.")
  }
  check_flag(overwrite, "overwrite")
  check_flag(verbose, "verbose")
  if (!is.null(output)) check_string(output, "output")
  chunk_rows <- engine_block_rows * ceiling(chunk_rows / engine_block_rows)
  task <- list(object = object, chunk_rows = as.integer(chunk_rows), keep = character(), reader = reader,
               predict_args = check_predict_args(object, list(...)), threads = worker_threads(threads),
               units = check_chunk_units(units, object))
  task$keep <- check_keep(keep, task)
  if (is.function(input)) {
    out <- if (!is.null(output)) output_paths("predictions.csv", output, overwrite)
    return(score_generator(input, task, out, verbose))
  }
  files <- check_input_files(input)
  out <- if (!is.null(output)) output_paths(files, output, overwrite)
  score_files(files, task, out, verbose)
}

# The engine scores rows in blocks of this many (kChunkRows in src/ncam/engine.hpp), and the
# float rounding of a row depends on its block: chunks made of whole blocks give the results
# of predict() on the whole file.
engine_block_rows <- 128L

# File inputs: one contiguous block of files per worker, balanced by size.
score_files <- function(files, task, out, verbose) {
  sizes <- file.size(files)
  n_blocks <- min(length(files), parallel_workers())
  block <- if (n_blocks == 1L) rep(1L, length(files)) else {
    pmin(n_blocks, 1L + floor(n_blocks * (cumsum(sizes) - sizes / 2) / sum(sizes)))
  }
  blocks <- split(seq_along(files), block)
  progress <- new_progress(verbose, total = sum(sizes))
  results <- vector("list", length(files))
  k <- 0L
  failure <- NULL
  next_task <- function() {
    if (k >= length(blocks) || !is.null(failure)) return(NULL)
    k <<- k + 1L
    c(task, list(files = files[blocks[[k]]], outputs = out[blocks[[k]]]))
  }
  # A block stops at its first failing file and brings back the results before it, with the error.
  # After a failure the blocks already in flight are still collected: their finished output
  # files stay on disk, so their warnings must be given too.
  collect <- function(value, i) {
    results[blocks[[i]][seq_along(value)]] <<- value
    failed <- Find(function(result) !is.null(result$error), value)
    if (is.null(failure) && !is.null(failed)) failure <<- failed$error
  }
  # Rows beyond the networks' range and gathered warnings are named by their file and row in it.
  labels <- if (anyDuplicated(basename(files))) files else basename(files)
  gathered_so_far <- function() {
    Reduce(add_chunk_warnings, Map(in_file_chunk_warnings, lapply(results, `[[`, "warnings"), labels), list())
  }
  # The warnings of the files scored, about their rows and the others: after an error, those of
  # the files finished (whose output files stay), and of the failing file's chunks before it.
  warn_totals <- function() {
    done <- which(!vapply(results, function(result) is.null(result$rows), logical(1)))
    beyond <- part_tally()
    for (i in done) {
      found <- results[[i]]$beyond
      found$shown$file <- rep(labels[i], nrow(found$shown))
      found$spikes$file <- rep(labels[i], nrow(found$spikes))
      if (!is.null(found$far)) found$far$shown$file <- rep(labels[i], nrow(found$far$shown))
      beyond <- add_part_tallies(beyond, found)
    }
    rows <- sum(vapply(results[done], `[[`, 1, "rows"))
    warn_chunk_totals(Reduce(`+`, lapply(results[done], `[[`, "flags"), no_row_flags), rows, beyond, task$object,
                      files = TRUE, gathered_so_far())
  }
  finished <- FALSE
  on.exit(if (!finished) warn_totals(), add = TRUE)
  run_in_order(next_task, score_file_block, collect, progress$update, collect_in_flight = TRUE)
  if (!is.null(failure)) {
    failure <- with_other_failures(failure, results, labels)
    stop(failure)  # the first in input order
  }
  progress$done()
  finished <- TRUE
  warn_totals()
  if (is.null(out)) return(bind_parts(lapply(results, `[[`, "scored")))
  invisible(tibble::tibble(input = files, output = out, rows = vapply(results, `[[`, 1, "rows")))
}

# A function input: chunks are made here, scored on the workers, kept or appended in order.
score_generator <- function(input, task, out, verbose) {
  progress <- new_progress(verbose, total = NA)
  results <- list()
  n_chunks <- 0L
  rows <- 0
  next_task <- function() {
    chunk <- input()
    if (is.null(chunk)) return(NULL)
    n_chunks <<- n_chunks + 1L
    if (!is.data.frame(chunk)) {
      ncam_abort("{.arg input} must return data frames (or {.code NULL} when done); call {n_chunks} returned {.obj_type_friendly {chunk}}.",
                 call = NULL)
    }
    first_row <- rows + 1
    rows <<- rows + nrow(chunk)
    c(task, list(chunk = chunk, first_row = first_row))
  }
  part <- if (!is.null(out)) part_output(out)
  on.exit(if (!is.null(part)) part$abandon(), add = TRUE)
  flags <- no_row_flags
  beyond <- part_tally()
  gathered <- list()
  # Ended by an error: the warnings of the chunks scored before it.
  finished <- FALSE
  on.exit(if (!finished) warn_gathered_chunks(gathered), add = TRUE)
  collect <- function(value, i) {
    flags <<- flags + value$flags
    beyond <<- add_part_tallies(beyond, value$beyond)
    gathered <<- add_chunk_warnings(gathered, value$warnings)
    if (is.null(out)) results[[i]] <<- value$value else part$write(value$value, append = i > 1L)
  }
  run_in_order(next_task, score_task_chunk, collect, progress$update)
  progress$done()
  if (n_chunks == 0L) {
    # No chunk at all: still the columns of a prediction (kept columns unknown, so logical).
    scored <- score_chunk(c(task, list(chunk = empty_input(task), first_row = 1)))
    results[[1L]] <- scored$value
    gathered <- scored$warnings
    if (!is.null(out)) part$write(results[[1L]], append = FALSE)  # the header alone
  }
  finished <- TRUE
  warn_chunk_totals(flags, rows, beyond, task$object, files = FALSE, gathered)
  if (is.null(out)) return(bind_parts(results))
  part$finish()
  invisible(tibble::tibble(input = "<function>", output = out, rows = rows))
}

# A zero-row input with the columns the models read, and the kept ones.
empty_input <- function(task) {
  fits <- chunk_fits(task$object)
  numeric_columns <- unique(unlist(lapply(fits, function(fit) c(fit$sensors, model_columns(fit$terms)))))
  other_keep <- setdiff(c(task$keep, fits[[1]]$unit_offsets$unit, attr(task$object, "by")), numeric_columns)
  columns <- c(rep(list(numeric(0)), length(numeric_columns)), rep(list(logical(0)), length(other_keep)))
  as.data.frame(stats::setNames(columns, c(numeric_columns, other_keep)), check.names = FALSE)
}

# Worker side ------------------------------------------------------------------------------

# One block of files: for each, its combined result (NULL when written out), number of rows,
# row_flags(), part_tally() and gathered warnings (rows numbered within the file). It stops at
# a file that fails, whose result is its `error` and the warnings of its chunks scored before it:
# an error here would lose the warnings of the files before it.
score_file_block <- function(task) {
  results <- list()
  for (i in seq_along(task$files)) {
    results[[i]] <- score_one_file(task$files[[i]], task$outputs[i], task)
    if (!is.null(results[[i]]$error)) break
  }
  results
}

score_one_file <- function(path, out, task) {
  gathered <- list()
  keep_warnings <- function(warnings) gathered <<- add_chunk_warnings(gathered, warnings)
  result <- tryCatch(score_file_chunks(path, out, task, keep_warnings), error = function(e) list(error = e))
  result$warnings <- gathered
  result
}

# score_one_file() of one file, handing the gathered warnings of each chunk to keep_warnings().
score_file_chunks <- function(path, out, task, keep_warnings) {
  chunks <- open_chunks(path, task$chunk_rows, task$reader, strict_csv_columns(task))
  on.exit(chunks$close(), add = TRUE)
  part <- if (!is.null(out)) part_output(out)
  on.exit(if (!is.null(part)) part$abandon(), add = TRUE)
  parts <- list()
  rows <- 0
  flags <- no_row_flags
  beyond <- part_tally()
  bytes <- 0  # reported to the progress bar so far
  while (!is.null(chunk <- read_chunk(chunks, path, rows))) {
    scored <- score_chunk(c(task, list(chunk = chunk, first_row = rows + 1, path = path)))
    flags <- flags + scored$flags
    beyond <- add_part_tallies(beyond, scored$beyond)
    keep_warnings(scored$warnings)
    scored <- scored$value
    if (is.null(part)) parts[[length(parts) + 1L]] <- scored else part$write(scored, append = rows > 0)
    rows <- rows + nrow(chunk)
    signal_progress(chunks$position() - bytes, nrow(chunk))
    bytes <- chunks$position()
  }
  if (rows == 0 && !is.null(chunks$columns)) {
    # No data rows: the header must still name the model's columns (a file of another layout,
    # or not a CSV at all, is an error, not an empty result).
    empty <- as.data.frame(stats::setNames(rep(list(numeric(0)), length(chunks$columns)), chunks$columns),
                           check.names = FALSE)
    scored <- score_chunk(c(task, list(chunk = empty, first_row = 1, path = path)))
    parts[[1L]] <- scored$value
    keep_warnings(scored$warnings)
    if (!is.null(part)) part$write(parts[[1L]], append = FALSE)  # the header alone
  }
  signal_progress(file.size(path) - bytes, 0)
  if (!is.null(part)) part$finish()
  list(scored = if (is.null(part)) bind_parts(parts), rows = rows, flags = flags, beyond = beyond)
}

read_chunk <- function(chunks, path, rows) {
  tryCatch(chunks$next_chunk(), error = function(e) {
    # The column errors of the chunk readers name data rows themselves.
    own_rows <- inherits(e, c("ncam_chunk_logical_column", "ncam_chunk_not_numeric"))
    # Whether numbers are quoted is read from the first data line, for speed; an uncompressed
    # file is read again from the chunk where quotes appear, a compressed one cannot go back.
    quoted_later <- grepl("got '\"", conditionMessage(e), fixed = TRUE) && !own_rows &&
      grepl("\\.(gz|bz2|xz)$", path, ignore.case = TRUE)
    ncam_abort(c("Could not read the rows after row {rows} of {.file {path}}.",
                 i = if (!own_rows) "Line numbers below count from that row: line 1 is data row {rows + 1}.",
                 i = if (quoted_later) "The first data line of this compressed file quotes no number, and a later one does: quote all numbers or none, decompress it, or pass {.code reader = utils::read.csv}."),
               parent = e, call = NULL)
  })
}

score_task_chunk <- function(task) {
  scored <- score_chunk(task)
  signal_progress(0, nrow(task$chunk))
  scored
}

# predict() on one chunk, with the kept columns in front, its rows beyond the networks' range
# (score_part()) and its other warnings (gather_chunk_warnings()); errors say which rows of
# which input failed.
score_chunk <- function(task) {
  chunk <- task$chunk
  rows <- paste0(format(task$first_row, big.mark = ",", scientific = FALSE), "-",
                 format(task$first_row + nrow(chunk) - 1, big.mark = ",", scientific = FALSE))
  withCallingHandlers({
    check_columns(chunk, task$keep, "keep", call = NULL)
    source <- if (is.null(task$path)) cli::format_inline("{.arg input}") else cli::format_inline("{.file {task$path}}")
    refuse_infinite_inputs(chunk, task$object, task$predict_args, task$first_row, source)
    newdata <- set_chunk_units(chunk, task$units, source)  # kept columns stay as read
    refuse_plain_converted_inputs(newdata, task$object, task$predict_args, source, is.null(task$path))
    # One warning for the whole input when all are scored; predict()'s name the input's rows.
    input_rows <- task$first_row - 1 + seq_len(nrow(chunk))
    predicted <- if (is_chunk_groups(task$object)) {
      function() score_groups_chunk(task$object, newdata, task$predict_args, task$threads, input_rows)
    } else {
      function() do.call(stats::predict, c(list(task$object, newdata), task$predict_args, list(threads = task$threads)))
    }
    scored <- gather_chunk_warnings(score_part(with_input_rows(input_rows, in_words_of(predicted(), "input", in_code = FALSE)),
                                               input_rows = input_rows), input_rows)
    # Fits by group tally their groups' rows themselves (a row of no group has no prediction,
    # but no missing covariate either).
    scored <- if (is_chunk_groups(task$object)) c(scored$value, list(warnings = scored$warnings)) else
      c(scored, list(flags = row_flags(scored$value, scored$beyond)))
  }, error = function(e) {
    path <- task$path
    msg <- if (is.null(path)) "Could not score rows {rows} of the chunks of {.arg input}." else
      "Could not score rows {rows} of {.file {path}}."
    ncam_abort(msg, parent = e, call = NULL)
  })
  if (length(task$keep)) {
    scored$value <- tibble::new_tibble(c(as.list(chunk)[task$keep], as.list(scored$value)), nrow = nrow(chunk))
  }
  scored
}
