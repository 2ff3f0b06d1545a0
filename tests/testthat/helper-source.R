# The package's R sources beside the tests (a source tree, or R CMD check's copy), else NA.
source_dir <- function() {
  candidates <- c(test_path("..", "..", "R"), test_path("..", "..", "00_pkg_src", "ncam", "R"))
  hit <- candidates[dir.exists(candidates)]
  if (length(hit)) hit[1] else NA_character_
}
