# The package's R sources beside the tests (a source tree, or R CMD check's copy), else NA.
source_dir <- function() {
  candidates <- c(test_path("..", "..", "R"), test_path("..", "..", "00_pkg_src", "ncam", "R"))
  hit <- candidates[dir.exists(candidates)]
  if (length(hit)) hit[1] else NA_character_
}

# The package's R files, for tests that read the sources: skips when they are not beside the
# tests, and checks that the folder found holds them.
package_r_files <- function() {
  dir <- source_dir()
  skip_if(is.na(dir), "the package's R sources are not beside the tests")
  files <- list.files(dir, pattern = "[.][Rr]$", full.names = TRUE)
  expect_gt(length(files), 10L)
  files
}

# Walks code (an expression, or a function's formals or body) without running it, calling
# `visit` on every call in it, a call before the calls in its arguments; `visit` returns FALSE to
# leave a call's arguments unwalked. The empty argument (a formal without a default, the gap in
# x[, 1]) is skipped: it is a symbol that cannot be evaluated.
walk_calls <- function(e, visit) {
  if (is.call(e) && isFALSE(visit(e))) return(invisible())
  if (is.call(e) || is.pairlist(e)) {
    for (i in seq_along(e)) if (!identical(e[[i]], quote(expr = ))) walk_calls(e[[i]], visit)
  }
  invisible()
}
