# The AVX2 engine must not leak AVX instructions into code every CPU runs (the rules are at
# the top of src/ncam/dispatch.hpp); checked on the installed library with objdump.
test_that("only the renamed AVX2 engine contains AVX instructions", {
  skip_on_cran()
  skip_if(Sys.which("objdump") == "", "objdump not available")
  script <- system.file("tools", "check-simd-isolation.sh", package = "ncam")
  so <- file.path(system.file("libs", package = "ncam"), paste0("ncam", .Platform$dynlib.ext))
  skip_if_not(file.exists(script) && file.exists(so), "installed library or script not found")
  out <- suppressWarnings(system2("sh", c(shQuote(script), shQuote(so)), stdout = TRUE, stderr = TRUE))
  status <- attr(out, "status")
  expect_true(is.null(status) || status == 0L, label = paste(out, collapse = "\n"))
  expect_match(paste(out, collapse = "\n"), "simd isolation")
})
