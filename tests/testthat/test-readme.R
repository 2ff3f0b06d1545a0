# Every R code block of the README must run as written in a fresh R session. R CMD check keeps
# the package sources (README.md included) in ncam.Rcheck/00_pkg_src/ncam.
readme_path <- function() {
  candidates <- c(test_path("..", "..", "README.md"),
                  test_path("..", "..", "00_pkg_src", "ncam", "README.md"))
  hit <- candidates[file.exists(candidates)]
  if (length(hit)) hit[1] else NA_character_
}

readme_r_blocks <- function(path) {
  lines <- readLines(path, encoding = "UTF-8")
  opens <- grep("^```r\\s*$", lines)
  fences <- grep("^```\\s*$", lines)
  lapply(opens, function(start) {
    end <- fences[fences > start][1]
    lines[(start + 1L):(end - 1L)]
  })
}

test_that("the README's R code runs as written in a fresh session", {
  skip_on_cran()
  path <- readme_path()
  skip_if(is.na(path), "README.md is not beside the tests")
  blocks <- readme_r_blocks(path)
  expect_gt(length(blocks), 0L)
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  # Two threads at most, as everywhere in the tests; the library the tests load ncam from.
  writeLines(c(sprintf(".libPaths(%s)", paste(deparse(.libPaths()), collapse = "")), "options(ncam.threads = 2L)",
               unlist(blocks), "cat('README-OK\\n')"), script)
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)),
                                  stdout = TRUE, stderr = TRUE, timeout = 600))
  status <- attr(out, "status")
  expect_true(is.null(status) || status == 0L, label = paste(utils::tail(out, 20), collapse = "\n"))
  expect_true("README-OK" %in% out)
  expect_false(any(grepl("^Error", out)))
})
