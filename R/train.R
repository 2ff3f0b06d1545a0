# Training: which rows validate, and the epoch loop around the engine's trainer.

# The epoch loop: Adam epochs in C++, early stopping, progress and interrupts here.
# `inputs` holds the engine's columns (x, readings) and scaling; `rows` the training and
# validation rows; `schedule` the epochs, stop_iter, min_delta, seed and precision. The
# engine reports NLLs of the model-unit readings; `nll_offset` (per row, the log
# transform's Jacobian) turns them into NLLs of the readings as given.
train_loop <- function(spec, adam, inputs, rows, schedule, nll_offset, threads, verbose) {
  new_trainer <- function() {
    call_engine(ncam_trainer_new(spec, inputs$x, inputs$readings, inputs$scaling, rows$train - 1L, adam,
                                 schedule$seed, threads, schedule$precision, use_simd()))
  }
  state <- new_trainer()
  val_rows <- rows$validation
  has_val <- length(val_rows) > 0L
  mean_offset <- function(idx) if (length(nll_offset) == 1L) nll_offset else mean(nll_offset[idx])
  train_offset <- mean_offset(rows$train)
  untrained_nll <- function(state) call_engine(ncam_trainer_nll(state, rows$train - 1L)) + train_offset
  criterion_of <- if (has_val) capped_validation_nll(spec, inputs, val_rows, nll_offset, schedule$precision, threads)
  # The criterion before any update: a fit that never beats it was made worse by training.
  # With validation rows the training NLL before any update, a pass over every training row,
  # is needed only when the validation never improved (see below).
  initial_train_nll <- if (has_val) NA_real_ else untrained_nll(state)
  initial_nll <- if (has_val) criterion_of(call_engine(ncam_trainer_params(state)))[["capped"]] else initial_train_nll
  epochs <- schedule$epochs
  stop_iter <- schedule$stop_iter
  learn_rate <- adam$learn_rate
  # validation_criterion: what early stopping watches (each row's NLL capped), beside the plain NLL.
  history <- data.frame(epoch = seq_len(epochs), train_loss = NA_real_, train_nll = NA_real_,
                        validation_nll = NA_real_, validation_criterion = NA_real_)
  best <- Inf
  best_epoch <- 0L
  best_params <- call_engine(ncam_trainer_params(state))
  since_best <- 0L
  stopped_early <- FALSE
  min_delta <- schedule$min_delta
  if (verbose) {
    started <- proc.time()[["elapsed"]]
    loss_txt <- bar_txt <- group_shown <- ""
    # ncam_by() names the group whose fit trains (fit_group() sets the option).
    group <- getOption("ncam.training_group")
    group_txt <- if (is.null(group)) "" else paste0("Group ", group, ": ")
    # The bar and the group's name take the room the NLLs leave (progress_texts()), so that
    # cli's cut at the console's width never reaches them.
    # Done, cli would show the bar full (epochs/epochs) after early stopping: the last epoch run.
    cli::cli_progress_bar("Training", total = epochs,
                          format = "{group_shown}Epoch {cli::pb_current}/{cli::pb_total} {bar_txt}ETA {cli::pb_eta} | {loss_txt}",
                          format_done = "{group_shown}Epoch {epoch}/{epochs} {bar_txt}| {loss_txt}",
                          clear = FALSE)
  }
  for (epoch in seq_len(epochs)) {
    res <- call_engine(ncam_trainer_epoch(state))
    if (isTRUE(res$interrupted)) signal_interrupt(epoch)
    if (!isTRUE(res$finite)) {
      ncam_abort(c("Training diverged: the loss became non-finite at epoch {epoch}.",
                   i = "Try a smaller {.arg learn_rate} (now {learn_rate}), gradient clipping with {.code control = ncam_control(clip_norm = 1)}, a larger {.arg lambda_var}, or {.code transform = \"log\"} for heavy-tailed readings."),
                 call = NULL)
    }
    val <- if (has_val) criterion_of(call_engine(ncam_trainer_params(state))) else c(plain = NA_real_, capped = NA_real_)
    history[epoch, 2:5] <- c(res$train_loss, res$train_nll + train_offset, val[["plain"]], val[["capped"]])
    criterion <- if (has_val) val[["capped"]] else history$train_nll[epoch]
    if (!is.finite(criterion)) {
      ncam_abort(c("Training diverged: the validation NLL became non-finite at epoch {epoch}.",
                   i = "Try a smaller {.arg learn_rate} (now {learn_rate}) or gradient clipping."), call = NULL)
    }
    if (criterion < best - min_delta) {
      best <- criterion
      best_epoch <- epoch
      best_params <- call_engine(ncam_trainer_params(state))
      since_best <- 0L
    } else {
      since_best <- since_best + 1L
    }
    if (verbose) {
      # The validation NLL that early stopping watches: capped, so it may lie below the history's.
      loss_txt <- sprintf("NLL train %.4g%s", history$train_nll[epoch],
                          if (has_val) sprintf(", val capped %.4g", criterion) else "")
      shown <- progress_texts(group_txt, epoch, epochs, loss_txt)
      group_shown <- shown$group
      bar_txt <- shown$bar
      cli::cli_progress_update()
    }
    # Without validation rows every epoch runs: the training NLL, averaged over minibatches
    # while the weights move, is too noisy to stop on (it only picks the best epoch).
    if (has_val && stop_iter > 0L && since_best >= stop_iter) {
      stopped_early <- epoch < epochs
      break
    }
  }
  if (verbose) {
    cli::cli_progress_done()
    # cli shows the bar only after 2 s: a shorter fit would print nothing without this line.
    # With validation rows, the plain NLL (as print() gives it) beside the capped one.
    criterion_txt <- if (has_val) {
      paste("validation NLL", validation_nll_text(history$validation_nll[max(1L, best_epoch)], best))
    } else {
      paste("training NLL", format(best, digits = 5))
    }
    seconds <- proc.time()[["elapsed"]] - started
    cli::cli_inform("{group_txt}Trained {epoch} epoch{?s} in {format(seconds, digits = 2)} s{if (stopped_early) ' (early stopping)'}; best epoch {best_epoch}, {criterion_txt}.")
  }
  trained <- list(params = best_params, history = history[seq_len(epoch), , drop = FALSE], best_epoch = best_epoch,
                  stopped_early = stopped_early, initial_nll = initial_nll, best_nll = best,
                  initial_train_nll = initial_train_nll)
  # check_training() then compares it with the training NLL: a new trainer of the same seed
  # holds the untrained weights.
  if (has_val && never_improved(trained)) trained$initial_train_nll <- untrained_nll(new_trainer())
  trained
}

# The group's name (`group_txt`, "" outside ncam_by()) and the bar of the progress line, in the
# room its other text leaves on the console: the name cut short (to 10 columns at least) when
# it would push the NLLs out, the bar at most cli's 30 columns wide, none below 5.
progress_texts <- function(group_txt, epoch, epochs, loss_txt) {
  width <- cli::console_width()
  # "ETA 59m" is the widest cli's terse ETA gets below an hour.
  rest <- nchar(sprintf("Epoch %d/%d ETA 59m | %s", epoch, epochs, loss_txt), type = "width")
  if (nzchar(group_txt) && nchar(group_txt, type = "width") + rest > width) {
    group_txt <- paste0(cli::ansi_strtrim(sub(": $", "", group_txt), max(10L, width - rest - 2L)), ": ")
  }
  bar_width <- min(30L, width - nchar(group_txt, type = "width") - rest - 1L)
  if (bar_width < 5L) return(list(group = group_txt, bar = ""))
  full <- round(bar_width * epoch / epochs)
  marks <- if (cli::is_utf8_output()) c("\u25a0", " ") else c("=", "-")
  list(group = group_txt, bar = paste0(strrep(marks[1], full), strrep(marks[2], bar_width - full), " "))
}

# The numbers of the validation NLL at the best epoch, plain (`plain`, the history's `validation_nll`) and
# capped (`capped`, early stopping's criterion, NULL or NA for fits made before it was kept),
# for the last line of verbose = TRUE and print().
validation_nll_text <- function(plain, capped) {
  plain_txt <- format(plain, digits = 5)
  if (!length(capped) || is.na(capped)) return(plain_txt)
  capped_txt <- format(capped, digits = 5)
  if (identical(capped_txt, plain_txt)) return(paste0(plain_txt, " (uncapped and capped alike)"))
  paste0(plain_txt, " uncapped, ", capped_txt, " capped (early stopping's criterion)")
}

# Whether training never beat the untrained model's criterion (`trained`, from train_loop()).
never_improved <- function(trained) is.finite(trained$initial_nll) && trained$best_nll >= trained$initial_nll

# Early stopping's criterion: the validation rows' mean NLL with each row's NLL capped at the
# median plus 10 median absolute deviations of the rows with the same readings observed. A
# reading far off the others (a spike the screen let through) has an NLL that grows without
# bound as the model grows confident, and one such row among the validation rows would
# otherwise stop training within a few epochs; a row of ordinary data lies beyond that cap
# almost never. The cap is set per pattern of observed readings because each reading adds its
# own NLL: pooled, the cap fell within the tail of the few rows with a reference (a short
# co-location) and hid what they learned (bench/colocation_cap.R: their mean NLL fell from
# 4.59 to 3.97 over epochs 4-30 while their capped mean stayed at 3.55-3.62; with constant
# reference noise, seed 6 kept epoch 4, RMSE 3.09 ug/m3, against 2.20 with caps per pattern).
# Patterns with fewer than `min_cap_rows` validation rows are pooled together. The cap is set
# on the working scale, where training runs, so that a change of unit does not change which
# rows are capped. Returns a function of the parameters giving that criterion (`capped`, back
# in the readings' units) and, from the same pass, the plain mean NLL the history records
# (`plain`, as the engine's mean: rows without an estimate count 0, the offset its mean).
capped_validation_nll <- function(spec, inputs, val_rows, nll_offset, precision, threads) {
  x <- lapply(inputs$x, `[`, val_rows)
  readings <- lapply(inputs$readings, `[`, val_rows)
  offset <- if (length(nll_offset) == 1L) rep(nll_offset, length(val_rows)) else nll_offset[val_rows]
  observed <- matrix(vapply(readings, function(v) !is.na(v), logical(length(val_rows))), nrow = length(val_rows))
  to_working <- log(inputs$scaling$b_scale) * rowSums(observed)
  pattern <- reading_patterns(observed)
  simd <- use_simd()
  function(params) {
    raw <- call_engine(ncam_predict_cpp(spec, params, x, readings, inputs$scaling, threads, precision, "posterior", FALSE, simd))$nll
    ok <- is.finite(raw)
    plain <- sum(raw[ok]) / length(raw) + mean(offset)
    working_nll <- raw - to_working
    for (rows in split(which(ok), pattern[ok])) {
      spread <- stats::mad(working_nll[rows])
      if (spread > 0) working_nll[rows] <- pmin(working_nll[rows], stats::median(working_nll[rows]) + 10 * spread)
    }
    c(capped = mean(working_nll[ok] + to_working[ok] + offset[ok]), plain = plain)
  }
}

# Fewest validation rows whose pattern of observed readings gets a cap of its own.
min_cap_rows <- 20L

# One code per row for which readings are observed (a logical matrix, rows by sensors); the
# patterns of fewer than `min_cap_rows` rows share code 0.
reading_patterns <- function(observed) {
  pattern <- observed_pattern_code(observed)
  code <- match(pattern, unique(pattern))
  counts <- tabulate(code)
  code[counts[code] < min_cap_rows] <- 0L
  code
}

# The set of observed sensors of each row as one number (sensor j adds 2^(j - 1); 0 = none),
# for grouping rows by it.
observed_pattern_code <- function(observed) drop(observed %*% 2^(seq_len(ncol(observed)) - 1))

# At least 2 training rows; when there are enough usable rows (complete covariates and a
# reading), `validation` took them.
check_training_rows <- function(rows, n_usable, call = parent.frame()) {
  n_train <- length(rows$train)
  if (n_train >= 2L) return(invisible())
  if (n_usable >= 2L) {
    ncam_abort(c("{.arg validation} takes {length(rows$validation)} of the {n_usable} usable row{?s} (complete covariates and a sensor reading), leaving {n_train} for training; at least 2 are needed.",
                 i = "Give a smaller fraction or fewer validation rows, or {.code validation = 0} to train on every row without early stopping."),
               call = call)
  }
  ncam_abort("Only {n_train} training row{?s} {?has/have} complete covariates and a sensor reading; need at least 2.",
             call = call)
}


# A fraction in [0, 1), a logical per row or row numbers. A fraction too small to give one
# of the usable rows runs without early stopping, with a warning (an error would stop
# ncam_by() on its smallest groups).
resolve_validation <- function(validation, n, usable, seed, call = parent.frame()) {
  check_validation(validation, n, call)
  if (is.logical(validation)) return(validation)
  out <- logical(n)
  if (!is_validation_fraction(validation)) {
    out[validation] <- TRUE
    return(out)
  }
  candidates <- which(usable)
  n_val <- round(validation * length(candidates))
  if (n_val > 0) {
    out[with_local_seed(seed, candidates[sample.int(length(candidates), n_val)])] <- TRUE
  } else if (validation > 0 && length(candidates) >= 2L) {  # else training fails anyway
    # The fraction suggested, 1/n to two digits, gives one row: round() takes 0.5 to 0.
    cli::cli_warn(c("{.arg validation} = {validation} of the {length(candidates)} usable row{?s} (complete covariates and a sensor reading) is no row: training runs without early stopping.",
                    i = "Give a fraction of at least {signif(1 / length(candidates), 2)} for validation rows, or {.code validation = 0} to train on every row."),
                  class = c("ncam_warning_no_validation_rows", "ncam_warning"), call = call)
  }
  out
}

# A checked `validation` that asks for a random share of the rows (not logical, not row numbers).
is_validation_fraction <- function(validation) {
  is.numeric(validation) && length(validation) == 1L && validation < 1
}

# `validation` for `n` rows; with `n = NULL` (ncam_by(), for groups of any size) as far as it
# does not depend on the number of rows. A single 1 is refused: 100 % or row 1?
check_validation <- function(validation, n = NULL, call = parent.frame()) {
  if (is.logical(validation) && (is.null(n) || length(validation) == n)) {
    if (anyNA(validation)) ncam_abort("{.arg validation} must not contain {.code NA}.", call = call)
    return(invisible(validation))
  }
  if (is.numeric(validation) && length(validation) == 1L && isTRUE(validation == 1)) {
    ncam_abort(c("{.arg validation} = 1 is ambiguous: all the rows, or row 1?",
                 i = "Give a fraction below 1 (such as {.code 0.1}), or the validation rows as a logical vector with one element per row."),
               call = call)
  }
  fraction <- is.numeric(validation) && length(validation) == 1L && !is.na(validation) &&
    validation >= 0 && validation < 1
  row_numbers <- is.numeric(validation) && length(validation) >= 1L && !anyNA(validation) &&
    all(validation == round(validation)) && all(validation >= 1 & validation <= (if (is.null(n)) Inf else n))
  if (!fraction && !row_numbers && is.numeric(validation) && length(validation) > 1L && !is.null(n) &&
      !anyNA(validation) && all(validation == round(validation))) {
    outside <- validation[validation < 1 | validation > n]
    shown <- utils::head(outside, 5)
    ncam_abort("{.arg validation} {cli::qty(length(outside))}row number{?s} {.val {shown}} {cli::qty(length(outside))}{?is/are} outside the data's {n} rows.",
               call = call)
  }
  # A row named twice is a sign of a wrong index or join: the rows meant are in doubt.
  if (row_numbers && length(validation) > 1L && anyDuplicated(validation)) {
    twice <- unique(validation[duplicated(validation)])
    ncam_abort(c("{.arg validation} names {cli::qty(length(twice))}row{?s} {.val {utils::head(twice, 5)}} more than once.",
                 i = "Give each validation row once (such as with {.code unique()}), and check the index that made them."),
               call = call)
  }
  if (!fraction && !row_numbers) {
    per_row <- if (is.null(n)) "" else paste0(" (", n, ")")
    ncam_abort("{.arg validation} must be a fraction in [0, 1), a logical vector with one element per row{per_row}, or row numbers.",
               call = call)
  }
  invisible(validation)
}

# The engine stops at a user interrupt (checked on the main thread); R must then see an
# interrupt, not an error, so that `for (...) try(ncam(...))` stops as the user asked.
signal_interrupt <- function(epoch) {
  cli::cli_inform("Training interrupted at epoch {epoch}; no model was returned.")
  rlang::interrupt()
}
