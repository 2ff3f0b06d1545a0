# Every warning call in the package's functions, found by walking their code (not by running
# it), as list(call, classes).
warning_calls <- function() {
  found <- list()
  raises <- list(quote(cli::cli_warn), quote(cli_warn), quote(rlang::warn), quote(warning))
  walk <- function(e) {
    if (is.call(e)) {
      if (any(vapply(raises, identical, logical(1), e[[1]]))) found[[length(found) + 1L]] <<- e
      for (i in seq_along(e)) if (!identical(e[[i]], quote(expr = ))) walk(e[[i]])
    } else if (is.pairlist(e)) {
      for (i in seq_along(e)) if (!identical(e[[i]], quote(expr = ))) walk(e[[i]])
    }
  }
  ns <- asNamespace("ncam")
  for (name in ls(ns, all.names = TRUE)) {
    f <- get(name, envir = ns)
    if (is.function(f) && !is.primitive(f)) {
      walk(formals(f))
      walk(body(f))
    }
  }
  found
}

test_that("every warning the package gives has a class of ?ncam_warnings, and each listed class is given", {
  calls <- warning_calls()
  # `warning(w)` passes on a caught condition with its own classes (ncam_by(), predict_chunks()).
  rethrow <- vapply(calls, function(e) length(e) == 2L && is.symbol(e[[2]]), logical(1))
  expect_gt(sum(!rethrow), 40)
  classes <- lapply(calls[!rethrow], function(e) {
    given <- as.list(e)$class
    if (is.null(given)) return(NA_character_)
    eval(given, baseenv())  # a literal: a string or c() of strings
  })
  unclassed <- vapply(calls[!rethrow][is.na(vapply(classes, `[`, character(1), 1))],
                      function(e) paste(deparse(e, width.cutoff = 60)[1], collapse = ""), character(1))
  expect_identical(unclassed, character())
  given <- setdiff(unique(unlist(classes)), c(NA, "ncam_row_warning"))
  listed <- ncam:::warning_classes$class
  expect_identical(setdiff(given, listed), character())
  expect_identical(setdiff(listed, given), character())
  expect_false(anyDuplicated(listed) > 0)
})

test_that("?ncam_warnings shows the table of classes", {
  rd <- tools::Rd_db("ncam")[["ncam_warnings.Rd"]]
  skip_if(is.null(rd), "help pages not installed")
  text <- paste(capture.output(tools::Rd2txt(rd, options = list(underline_titles = FALSE))), collapse = "\n")
  for (cls in ncam:::warning_classes$class) expect_match(text, cls, fixed = TRUE)
})

test_that("a newly classed warning is caught by its class", {
  expect_warning(split_blocks(data.frame(date = as.POSIXct(character(), tz = "UTC")), date = "date"),
                 class = "ncam_warning_empty_split")
  toy <- simulate_toy(n = 200, seed = 1)
  expect_warning(ncam_baseline(sensor_0 + sensor_1 ~ 1, data = toy, method = "ivw"),
                 class = "ncam_warning_not_identified")
})
