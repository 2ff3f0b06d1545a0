# Two local workers on the library this ncam was loaded from, back to sequential afterwards.
local_two_workers <- function(kind, env = parent.frame()) {
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  # Workers load ncam from a library; a source tree loaded by pkgload is not one.
  path <- getNamespaceInfo("ncam", "path")
  skip_if_not(file.exists(file.path(path, "Meta", "package.rds")), "ncam is not installed")
  libs <- unique(c(dirname(path), .libPaths()))
  if (kind == "multisession") {
    future::plan(future::multisession, workers = 2, rscript_libs = libs)
  } else {
    future::plan(future::cluster, workers = c("localhost", "localhost"), rscript_libs = libs)
  }
  withr::defer(future::plan(future::sequential), envir = env)
}
