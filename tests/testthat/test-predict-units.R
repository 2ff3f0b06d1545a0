# New data for a fit to readings with units (units package): a column the fit converted (opc
# given in mg/m3, fused in pa_a's ug/m3) needs units, as plain numbers could be in either unit.

units_fixture <- function() {
  d <- simulate_colocation(days = 30, seed = 1)
  given <- d
  for (s in c("pa_a", "pa_b", "ref")) given[[s]] <- units::set_units(d[[s]], "ug/m3")
  given$opc <- units::set_units(d$opc / 1000, "mg/m3")
  fit <- suppressMessages(short_fit(ncam(pa_a + pa_b + opc ~ rh, given, reference = "ref", hidden = 4L,
                                         epochs = 30L, seed = 1, threads = 1),
                                    also = c("ncam_warning_clamp", "ncam_warning_units")))
  rows <- 500:520
  new <- given[rows, ]
  plain_opc <- new
  plain_opc$opc <- as.numeric(new$opc)
  list(d = d, given = given, fit = fit, rows = rows, new = new, plain_opc = plain_opc)
}

plain_opc_error <- "Column opc of `newdata` has no units, and the model was fitted to it in \"mg/m3\", converted to \"ug/m3\""

test_that("a fit keeps the units it converted from, and refuses plain numbers in those columns", {
  skip_if_not_installed("units")
  fx <- units_fixture()
  expect_identical(unclass(fx$fit$units), structure(c(pa_a = "ug/m3", pa_b = "ug/m3", opc = "ug/m3", ref = "ug/m3"),
                                                    given = c(opc = "mg/m3")))
  # opc in ug/m3 by hand (1000 times its mg/m3 numbers) is the same new data.
  by_hand <- fx$new
  by_hand$opc <- units::set_units(fx$d$opc[fx$rows], "ug/m3")
  pred <- predict(fx$fit, fx$new)
  expect_equal(predict(fx$fit, by_hand), pred, tolerance = 1e-10)
  # Before, plain mg/m3 numbers of opc were read as ug/m3: estimates 5 to 14 % low here.
  expect_error(predict(fx$fit, fx$plain_opc), plain_opc_error)
  expect_error(predict(fx$fit, fx$plain_opc), "units::set_units(newdata$opc, \"mg/m3\", mode = \"standard\")", fixed = TRUE)
  # The sensors given in the unit they are fused in: their plain numbers can only mean it.
  plain_sensors <- fx$new
  for (s in c("pa_a", "pa_b")) plain_sensors[[s]] <- fx$d[[s]][fx$rows]
  expect_equal(predict(fx$fit, plain_sensors), pred, tolerance = 1e-12)
  # Every reader of new data.
  expect_error(fitted(fx$fit, fx$plain_opc), plain_opc_error)
  expect_error(residuals(fx$fit, fx$plain_opc), plain_opc_error)
  expect_error(sensor_params(fx$fit, fx$plain_opc), plain_opc_error)
  expect_error(calibrate(fx$fit, fx$plain_opc, method = "split"), "opc of `data` has no units.*units::set_units\\(data\\$opc")
})

test_that("the units converted from survive saveRDS() and readRDS()", {
  skip_if_not_installed("units")
  fx <- units_fixture()
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(fx$fit, path)
  back <- readRDS(path)
  expect_identical(attr(back$units, "given"), c(opc = "mg/m3"))
  expect_identical(predict(back, fx$new), predict(fx$fit, fx$new))
  expect_error(predict(back, fx$plain_opc), plain_opc_error)
})

test_that("predict_chunks() reads files of plain numbers only when a reader gives the converted column its units", {
  skip_if_not_installed("units")
  fx <- units_fixture()
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(as.data.frame(lapply(fx$new, function(v) if (inherits(v, "units")) as.numeric(v) else v)),
                   path, row.names = FALSE)
  expect_error(predict_chunks(fx$fit, path, verbose = FALSE), plain_opc_error)
  with_units <- function(file) {
    chunk <- utils::read.csv(file)
    chunk$opc <- units::set_units(chunk$opc, "mg/m3", mode = "standard")
    chunk
  }
  got <- predict_chunks(fx$fit, path, reader = with_units, verbose = FALSE)
  expect_equal(got$.pred, predict(fx$fit, fx$new)$.pred, tolerance = 1e-12)  # CSV keeps 15 digits
})
