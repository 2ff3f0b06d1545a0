# The calls that raise an error in `exprs` (a file's top-level expressions), found by walking the
# code, not by running it: base R's, rlang's (check_installed() too) and cli's, with or without
# their namespace. One row
# each: the top-level name it is defined under, the function called and the call's first line.
# `stop(e)`, which passes on a caught condition with its own classes, is left out.
raising_calls <- function(exprs) {
  raises <- c("stop", "stopifnot", "abort", "cli_abort", "check_installed")
  found <- list()
  for (x in exprs) {
    defines <- is.call(x) && as.character(x[[1]]) %in% c("<-", "=") && is.name(x[[2]])
    definition <- if (defines) as.character(x[[2]]) else "(top level)"
    walk_calls(x, function(e) {
      fun <- e[[1]]
      name <- if (is.call(fun) && as.character(fun[[1]]) %in% c("::", ":::")) fun[[3]] else fun
      passes_on <- identical(fun, quote(stop)) && length(e) == 2L && is.symbol(e[[2]])
      if (is.symbol(name) && as.character(name) %in% raises && !passes_on) {
        found[[length(found) + 1L]] <<- data.frame(definition = definition, fun = deparse(fun),
                                                   code = deparse(e, width.cutoff = 60)[1])
      }
    })
  }
  do.call(rbind, c(list(data.frame(definition = character(), fun = character(), code = character())), found))
}

test_that("every error the package's code raises goes through ncam_abort(), which gives it the class ncam_error", {
  files <- package_r_files()
  found <- do.call(rbind, lapply(files, function(f) {
    calls <- raising_calls(parse(f, keep.source = FALSE))
    if (nrow(calls)) cbind(file = basename(f), calls) else NULL
  }))
  # The wrappers' own calls (check_suggested() raises rlang's error again with ncam_abort()), and
  # assertions of the package's invariants (a bug, not bad input).
  allowed <- c("ncam_abort: cli::cli_abort", "check_suggested: rlang::check_installed", "new_scaling: stopifnot",
               "warning_classes_rd: stopifnot")
  key <- paste0(found$definition, ": ", found$fun)
  expect_identical(with(found[!key %in% allowed, ], sprintf("%s, %s(): %s", file, definition, code)), character())
  expect_setequal(key, allowed)
})

test_that("the walk finds errors raised without ncam_abort()", {
  code <- parse(text = c(
    "f <- function(x) {",
    "  if (x) stop('a')",
    "  g <- function() rlang::abort('b')",
    "  tryCatch(x, error = function(e) stop(e))",
    "  base::stop('c'); stopifnot(x); abort('d'); cli_abort('e'); rlang::check_installed('p')",
    "  ncam_abort('fine', call = NULL)",
    "}",
    "ncam_abort <- function(message, ...) cli::cli_abort(message, ...)"
  ), keep.source = FALSE)
  found <- raising_calls(code)
  expect_identical(paste0(found$definition, ": ", found$code),
                   c("f: stop(\"a\")", "f: rlang::abort(\"b\")", "f: base::stop(\"c\")", "f: stopifnot(x)",
                     "f: abort(\"d\")", "f: cli_abort(\"e\")", "f: rlang::check_installed(\"p\")",
                     "ncam_abort: cli::cli_abort(message, ...)"))
})

# The calls in `exprs` (a file's top-level expressions) of the functions named `engine` that
# are not inside a call of call_engine(), as text.
unguarded_engine_calls <- function(exprs, engine) {
  found <- character()
  for (x in exprs) {
    walk_calls(x, function(e) {
      if (identical(e[[1]], quote(call_engine))) return(FALSE)
      if (is.symbol(e[[1]]) && as.character(e[[1]]) %in% engine) found <<- c(found, deparse(e, width.cutoff = 60)[1])
    })
  }
  found
}

test_that("every call of the C++ engine goes through call_engine(), which gives its errors the class", {
  files <- package_r_files()
  exports <- parse(files[basename(files) == "RcppExports.R"], keep.source = FALSE)
  engine <- vapply(exports, function(x) as.character(x[[2]]), character(1))
  expect_true(all(c("ncam_predict_cpp", "ncam_trainer_epoch") %in% engine))
  code <- lapply(files[basename(files) != "RcppExports.R"], parse, keep.source = FALSE)
  expect_identical(unlist(lapply(code, unguarded_engine_calls, engine)), character())
  # The check finds a call outside call_engine(), in arguments and formals too.
  planted <- parse(text = c("f <- function(n = engine_a()) {",
                            "  call_engine(engine_a(1)); g(engine_b(2)); call_engine(h(engine_b(3)))",
                            "}"), keep.source = FALSE)
  expect_identical(unguarded_engine_calls(planted, c("engine_a", "engine_b")), c("engine_a()", "engine_b(2)"))
})

# The error `expr` raises, caught as a user catches ncam's errors: another error fails the test.
ncam_error_of <- function(expr) tryCatch({
  expr
  NULL
}, ncam_error = function(e) e)

test_that("real errors of ncam have the class ncam_error after their own, their message and their call", {
  toy <- simulate_toy(n = 300, seed = 1)
  err <- ncam_error_of(ncam(sensor_0 + sensor_1 ~ x1, data = toy, epochs = -1))
  # After rlang_error, which stays first (it is what snapshots of errors show).
  expect_identical(class(err), c("rlang_error", "ncam_error", "error", "condition"))
  expect_identical(err$call[[1]], quote(ncam))
  # Glued in the frame of the function that checks: the value given, and the bounds it has.
  expect_identical(conditionMessage(err), "`epochs` must be a whole number between 1 and 1e+06, not -1.")

  missing_file <- file.path(withr::local_tempdir(), "none.csv")
  err <- ncam_error_of(read_purpleair(missing_file))
  expect_identical(err$call[[1]], quote(read_purpleair))
  expect_match(conditionMessage(err), "none.csv", fixed = TRUE)

  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, hidden = 4L, epochs = 2L, seed = 1,
                        threads = 1L))
  err <- ncam_error_of(predict(fit, toy[c("sensor_0", "x1")]))
  expect_identical(err$call[[1]], quote(predict))
  expect_match(conditionMessage(err), "lacks columns \"sensor_1\" and \"sensor_2\"", fixed = TRUE)

  pairs <- data.frame(date = as.POSIXct("2024-05-01", tz = "UTC") + 3600 * (1:30), est = 1:30, ref = 1:30)
  err <- ncam_error_of(sensor_performance(pairs, "estimated", "ref", averaging = "as_given"))
  expect_identical(err$call[[1]], quote(sensor_performance))
  expect_match(conditionMessage(err), "estimated", fixed = TRUE)

  err <- ncam_error_of(average_estimates(pairs))
  expect_identical(err$call[[1]], quote(average_estimates))
  expect_match(conditionMessage(err), "no column .pred", fixed = TRUE)

  # A class of its own stays first.
  err <- ncam_error_of(ncam:::logicals_from_text(data.frame(flag = c("T", "x")), "flag", chunk_rows = 2, before = 0))
  expect_identical(class(err), c("ncam_chunk_logical_column", "rlang_error", "ncam_error", "error", "condition"))
  # Errors of R pass through a handler of ncam_error.
  expect_error(ncam_error_of(log("a")), "non-numeric argument")

  # An unknown argument in `...`: rlang's error, with ncam's class after rlang_error.
  err <- ncam_error_of(predict(fit, toy, levle = 0.8))
  expect_true(inherits(err, "rlib_error_dots_nonempty"))
  expect_identical(class(err)[match("rlang_error", class(err)) + 1L], "ncam_error")
  expect_match(conditionMessage(err), "levle", fixed = TRUE)
  err <- ncam_error_of(tidy(fit, extra = 1))
  expect_true(inherits(err, "rlib_error_dots_nonempty"))
})

test_that("errors of a group's fit and of a chunk's scoring have the class, from parallel workers too", {
  toy <- simulate_toy(n = 301, seed = 2)
  toy$site <- c(rep(1:2, each = 150), 3)  # group 3 has one row: it cannot be fitted
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, hidden = 4L, epochs = 2L, seed = 1,
                        threads = 1L))
  lacking <- function() row_chunks(toy[c("sensor_0", "x1")], 100)
  check <- function() {
    err <- ncam_error_of(short_fit(ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, toy, by = "site", hidden = 4L,
                                           epochs = 2L, seed = 1)))
    expect_match(conditionMessage(err), "Could not fit group site = 3", fixed = TRUE)
    expect_s3_class(err$parent, "ncam_error")
    err <- ncam_error_of(predict_chunks(fit, lacking(), verbose = FALSE))
    expect_match(conditionMessage(err), "Could not score rows 1-100", fixed = TRUE)
    expect_s3_class(err$parent, "ncam_error")
  }
  check()
  local_two_workers("multisession")
  check()
})

test_that("a suggested package that is not installed gives an ncam_error naming it, what for and how to install it", {
  err <- ncam_error_of(ncam:::check_suggested("ncamAbsentPackage", "to test this message."))
  expect_identical(class(err), c("rlang_error", "ncam_error", "error", "condition"))
  expect_identical(err$pkg, "ncamAbsentPackage")
  text <- cli::ansi_strip(conditionMessage(err))
  expect_match(text, "Package ncamAbsentPackage is needed to test this message.", fixed = TRUE)
  expect_match(text, "Install it with `install.packages(\"ncamAbsentPackage\")`.", fixed = TRUE)
  # An installed package passes.
  expect_null(ncam:::check_suggested("stats", "to test."))
})

test_that("an error of the C++ engine is an ncam_error saying it is a bug, with the engine's message", {
  toy <- simulate_toy(n = 300, seed = 1)
  fit <- short_fit(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, hidden = 4L, epochs = 2L, seed = 1,
                        threads = 1L))
  # Readings of one sensor for a model of three: Rcpp::stop() in the glue.
  err <- ncam_error_of(ncam:::ncam_posterior_columns(fit, toy["x1"], toy["sensor_0"], threads = 1L))
  expect_identical(class(err), c("rlang_error", "ncam_error", "error", "condition"))
  text <- cli::ansi_strip(conditionMessage(err))
  expect_match(text, "Internal error in ncam's engine: 1 sensor columns, the model has 3", fixed = TRUE)
  expect_match(text, "This is a bug in ncam. Please report it at", fixed = TRUE)
  expect_match(text, "https://github.com/ncam-dev/ncam/issues", fixed = TRUE)
  expect_identical(err$call[[1]], quote(ncam:::ncam_posterior_columns))  # the function that called the engine
  # A model of no sensors: an exception of the engine's own (std::invalid_argument).
  no_sensors <- utils::modifyList(fit$spec, list(n_sensors = 0L))
  err <- ncam_error_of(ncam:::call_engine(ncam:::ncam_layout_cpp(no_sensors)))
  expect_match(conditionMessage(err), "Internal error in ncam's engine: need at least one sensor", fixed = TRUE)
  # Running out of memory is said to be that, not a bug.
  out_of_memory <- structure(class = c("std::bad_alloc", "C++Error", "error", "condition"),
                             list(message = "std::bad_alloc", call = NULL))
  err <- ncam_error_of(ncam:::call_engine(stop(out_of_memory)))
  expect_match(conditionMessage(err), "ncam's engine ran out of memory (std::bad_alloc).", fixed = TRUE)
  # Other errors pass unchanged.
  expect_error(ncam_error_of(ncam:::call_engine(log("a"))), "non-numeric argument")
})
