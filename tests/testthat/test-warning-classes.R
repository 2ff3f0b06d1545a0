# Every warning call in the package's functions, found by walking their code (not by running
# it): calls of the functions that raise or build a warning.
warning_calls <- function() {
  found <- list()
  raises <- list(quote(cli::cli_warn), quote(cli_warn), quote(rlang::warn), quote(warning), quote(base::warning),
                 quote(warningCondition))
  visit <- function(e) if (any(vapply(raises, identical, logical(1), e[[1]]))) found[[length(found) + 1L]] <<- e
  ns <- asNamespace("ncam")
  for (name in ls(ns, all.names = TRUE)) {
    f <- get(name, envir = ns)
    if (is.function(f) && !is.primitive(f)) {
      walk_calls(formals(f), visit)
      walk_calls(body(f), visit)
    }
  }
  found
}

# `warning(w)` passes on a caught condition with its own classes (ncam_by(), predict_chunks());
# `warning(warningCondition(...))` one whose classes are checked where it is built.
passes_on <- function(e) {
  length(e) == 2L && (is.symbol(e[[2]]) || (is.call(e[[2]]) && identical(e[[2]][[1]], quote(warningCondition))))
}

# The classes a warning call gives, from its `class`: a literal (a string or c() of strings).
given_classes <- function(e) {
  given <- as.list(e)$class
  if (is.null(given)) NA_character_ else eval(given, baseenv())
}

# The calls (their first line) that lack a class of their own (ncam_warning_*) or the common
# class ncam_warning, which catches all of the package's warnings at once.
lacking_classes <- function(calls) {
  ok <- vapply(calls, function(e) {
    classes <- given_classes(e)
    any(startsWith(classes, "ncam_warning_"), na.rm = TRUE) && "ncam_warning" %in% classes
  }, logical(1))
  vapply(calls[!ok], function(e) deparse(e, width.cutoff = 60)[1], character(1))
}

test_that("every warning the package gives has a class of ?ncam_warnings and ncam_warning, and each listed class is given", {
  calls <- Filter(Negate(passes_on), warning_calls())
  expect_gt(length(calls), 40)
  expect_identical(lacking_classes(calls), character())
  given <- setdiff(unique(unlist(lapply(calls, given_classes))), c(NA, "ncam_warning", "ncam_row_warning"))
  listed <- ncam:::warning_classes$class
  expect_identical(setdiff(given, listed), character())
  expect_identical(setdiff(listed, given), character())
  expect_false(anyDuplicated(listed) > 0)
})

test_that("the check of the classes finds a warning without its own class or without ncam_warning", {
  lacking <- list(quote(cli::cli_warn("x", class = "ncam_warning_x")),
                  quote(cli::cli_warn("x", class = c("ncam_warning_x", "ncam_row_warning"))),
                  quote(rlang::warn("x", class = "ncam_warning")),
                  quote(warning("x")))
  complete <- list(quote(cli::cli_warn("x", class = c("ncam_warning_x", "ncam_row_warning", "ncam_warning"))),
                   quote(warningCondition("x", class = c("ncam_warning_x", "ncam_warning"))))
  expect_identical(lacking_classes(c(lacking, complete)), vapply(lacking, deparse, character(1)))
  expect_true(passes_on(quote(warning(w))))
  expect_false(passes_on(quote(warning("x"))))
})

test_that("?ncam_warnings shows the table of classes", {
  rd <- tools::Rd_db("ncam")[["ncam_warnings.Rd"]]
  skip_if(is.null(rd), "help pages not installed")
  text <- paste(capture.output(tools::Rd2txt(rd, options = list(underline_titles = FALSE))), collapse = "\n")
  for (cls in ncam:::warning_classes$class) expect_match(text, cls, fixed = TRUE)
  expect_match(gsub("\\s+", " ", text), "class .ncam_warning., common to all of them")  # across line breaks
  expect_match(text, 'classes = "ncam_warning")', fixed = TRUE)
})

test_that("a newly classed warning is caught by its class", {
  expect_warning(split_blocks(data.frame(date = as.POSIXct(character(), tz = "UTC")), date = "date"),
                 class = "ncam_warning_empty_split")
  toy <- simulate_toy(n = 200, seed = 1)
  expect_warning(ncam_baseline(sensor_0 + sensor_1 ~ 1, data = toy, method = "ivw"),
                 class = "ncam_warning_not_identified")
})

# Every warning caught has the common class, and among them is one of class `expected`.
expect_all_ncam_warnings <- function(caught, expected) {
  classes <- lapply(caught, class)
  expect_true(any(vapply(classes, function(cl) expected %in% cl, logical(1))), info = expected)
  expect_true(all(vapply(classes, function(cl) "ncam_warning" %in% cl, logical(1))), info = expected)
}

test_that("real warnings of fitting, predicting and reading all have the class ncam_warning", {
  toy <- simulate_toy(n = 300, seed = 2)
  toy$ref <- ifelse(seq_len(300) <= 150, toy$truth, NA)  # a reference on 150 rows, under 200
  fit <- NULL
  caught <- caught_warnings(fit <- ncam(sensor_0 + sensor_1 ~ x1, data = toy, reference = "ref", hidden = 4L,
                                        epochs = 3L, seed = 1, threads = 1L))
  expect_all_ncam_warnings(caught, "ncam_warning_few_reference_rows")
  expect_all_ncam_warnings(caught, "ncam_warning_not_converged")

  far <- toy[1:3, ]
  far$x1 <- max(toy$x1) + diff(range(toy$x1))  # a range beyond the training rows
  expect_all_ncam_warnings(caught_warnings(predict(fit, far)), "ncam_warning_extrapolation")
  expect_all_ncam_warnings(caught_warnings(predict(fit, toy[1:3, ], level = 0.9)),
                           "ncam_warning_level_without_interval")
  # One call muffles them all; a warning of base R still comes through.
  expect_no_warning(suppressWarnings(predict(fit, far, level = 0.9), classes = "ncam_warning"))
  expect_warning(suppressWarnings({predict(fit, far); warning("base")}, classes = "ncam_warning"), "base")

  path <- withr::local_tempfile(fileext = ".csv")
  writeLines(c("time_stamp,sensor_index,humidity,temperature,pm2.5_cf_1_a,pm2.5_cf_1_b,pm2.5_atm_a,pm2.5_atm_b",
               "1682946000,131611,41,-999,7.9,8.3,7.5,7.9",
               "1682949600,131611,250,50,9.2,9.0,8.8,8.6"), path)
  caught <- caught_warnings(read_purpleair(path))
  expect_all_ncam_warnings(caught, "ncam_warning_missing_code")
  expect_all_ncam_warnings(caught, "ncam_warning_impossible_value")
})
