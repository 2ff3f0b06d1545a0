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
