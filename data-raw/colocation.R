# Makes `colocation`, the simulated co-location data set bundled with ncam
# (documented in R/data.R). Run from the package root after installing ncam:
#   Rscript data-raw/colocation.R

colocation <- ncam::simulate_colocation(
  days = 90,
  sensors = c(pa_a = "plantower", pa_b = "plantower", opc = "heated"),
  colocation = 28,
  start = "2021-04-01",
  seed = 20210401
)

save(colocation, file = file.path("data", "colocation.rda"), compress = "xz")
