# The future plan helpers that ncam_by() and predict_chunks() share: ordered futures with
# bounded memory and live progress, the choice of threads per worker.

# Runs run(task) for each task from next_task() (NULL when there are no more) on the current
# future plan and hands the results to collect(value, i) in task order. At most one task per
# worker is in flight, so memory stays bounded. Progress conditions from the workers go to
# on_progress as they arrive. When the run ends early (a worker lost, an interrupt), the tasks
# in flight are waited for, and with collect_in_flight those that finish are collected too:
# predict_chunks()'s blocks of files, whose finished output files stay and need their warnings.
run_in_order <- function(next_task, run, collect, on_progress, collect_in_flight = FALSE) {
  i <- 0L
  if (!parallel_plan()) {
    while (!is.null(task <- next_task())) {
      collect(withCallingHandlers(run(task), ncam_chunk_progress = on_progress), i <- i + 1L)
    }
    return(invisible())
  }
  workers <- parallel_workers()
  pending <- list()
  on.exit(for (f in pending) {
    value <- tryCatch(future::value(f), error = function(e) NULL)
    i <- i + 1L
    if (collect_in_flight && !is.null(value)) collect(value, i)
  }, add = TRUE)
  exhausted <- FALSE
  repeat {
    while (!exhausted && length(pending) < workers) {
      task <- next_task()
      exhausted <- is.null(task)
      if (!exhausted) {
        # seed = NULL: scoring draws no random numbers, though the engine's Rcpp glue creates
        # .Random.seed in a fresh worker, which future would take for random draws.
        pending[[length(pending) + 1L]] <- future::future(run(task), seed = NULL,
                                                          globals = list(run = run, task = task))
      }
    }
    if (length(pending) == 0L) break
    # resolved() relays the workers' progress conditions.
    done <- withCallingHandlers(future::resolved(pending), ncam_chunk_progress = on_progress)
    if (!done[1]) {
      Sys.sleep(0.05)
      next
    }
    value <- withCallingHandlers(future::value(pending[[1]]), ncam_chunk_progress = on_progress)
    pending[[1]] <- NULL
    collect(value, i <- i + 1L)
  }
  invisible()
}

# Progress travels as an immediate condition, which futures relay while the worker runs.
signal_progress <- function(bytes, rows) {
  signalCondition(structure(class = c("ncam_chunk_progress", "immediateCondition", "condition"),
                            list(message = "", call = NULL, bytes = bytes, rows = rows)))
}

# A cli progress bar in bytes of input (total known) or in rows (a function input); it
# lives as long as the caller's frame.
new_progress <- function(verbose, total, envir = parent.frame()) {
  rows_done <- 0
  shown <- function() format(rows_done, big.mark = ",", scientific = FALSE)
  bar <- if (verbose) {
    format <- if (is.na(total)) {
      "Scoring {cli::pb_spin} {cli::pb_extra$rows} rows | {cli::pb_elapsed}"
    } else {
      "Scoring {cli::pb_bar} {cli::pb_percent} | {cli::pb_extra$rows} rows | ETA: {cli::pb_eta}"
    }
    cli::cli_progress_bar(format = format, total = total, extra = list(rows = shown()),
                          auto_terminate = FALSE, .envir = envir)
  }
  list(
    update = function(condition) {
      rows_done <<- rows_done + condition$rows
      if (!is.null(bar)) {
        cli::cli_progress_update(inc = if (is.na(total)) condition$rows else condition$bytes,
                                 extra = list(rows = shown()), id = bar, .envir = envir)
      }
    },
    done = function() if (!is.null(bar)) cli::cli_progress_done(id = bar)
  )
}

# TRUE under a plan whose futures run outside this process.
parallel_plan <- function() {
  requireNamespace("future", quietly = TRUE) && !inherits(future::plan(), "uniprocess")
}

parallel_workers <- function() {
  if (parallel_plan()) max(1L, as.integer(future::nbrOfWorkers())) else 1L
}

# Threads per worker: 1 under a parallel plan unless asked, so workers x threads stays
# within the cores.
worker_threads <- function(threads, call = parent.frame()) {
  if (is.null(threads) && parallel_plan()) 1L else resolve_threads(threads, call)
}
