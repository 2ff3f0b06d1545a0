# The folder of a shared real data set (never shipped): under $NCAM_SHARED_DATA, else
# ../shared/data beside the source tree; a path that does not exist when neither has it, so
# that tests skip with skip_if_not(dir.exists(...)).
shared_data <- function(folder) {
  roots <- c(Sys.getenv("NCAM_SHARED_DATA"), test_path("..", "..", "..", "shared", "data"))
  roots <- roots[nzchar(roots) & dir.exists(file.path(roots, folder))]
  if (length(roots) == 0L) return(file.path(tempdir(), "no-shared-data", folder))
  file.path(roots[1], folder)
}
