library(testthat)
library(ncam)

test_check("ncam")
