# Some reading columns with units and others without: the plain ones are taken to be in the unit
# of those with units, which a warning says, naming the columns and the unit assumed.

test_that("sensors without units beside a reference with units warn, naming them and the unit assumed", {
  skip_if_not_installed("units")
  d <- simulate_colocation(days = 30, seed = 1)
  fit_in <- function(data) {
    suppressMessages(short_fit(ncam(pa_a + pa_b + opc ~ rh, data, reference = "ref", hidden = 4L, epochs = 30L,
                                    seed = 1, threads = 1), also = c("ncam_warning_clamp", "ncam_warning_units")))
  }
  # The review's case: the monitor's file in mg/m3 with units, the low-cost sensors as plain
  # numbers in ug/m3. The fit ran without a word, and print() said `Units: readings and
  # estimates in "mg/m3"` beside gains near 1000.
  mg <- d
  mg$ref <- units::set_units(d$ref / 1000, "mg/m3")
  warned <- caught_warnings(fit <- fit_in(mg))
  classes <- vapply(warned, function(w) class(w)[1], "")
  expect_identical(classes, "ncam_warning_readings_without_units")
  w <- warned[[1]]
  expect_s3_class(w, "ncam_warning")
  expect_identical(w$columns, c("pa_a", "pa_b", "opc"))
  expect_identical(w$assumed, "mg/m3")
  text <- gsub("\\s+", " ", cli::ansi_strip(conditionMessage(w)))
  expect_match(text, "Reading columns pa_a, pa_b, and opc have no units, beside ref with units: they are taken to be in \"mg/m3\"",
               fixed = TRUE)
  expect_match(text, "their gains and offsets take up the conversion factor", fixed = TRUE)
  expect_match(text, "Give every reading column its units (with `units::set_units()`), or none (with `units::drop_units()`).",
               fixed = TRUE)
  # What the warning is about: the gains of the plain ug/m3 sensors against the mg/m3 reference.
  expect_gt(min(stats::median(sensor_params(fit, d[1:200, ])$a)), 100)
  # Every reading column with units, or none: no warning.
  ug <- d
  for (s in c("pa_a", "pa_b", "opc")) ug[[s]] <- units::set_units(d[[s]], "ug/m3")
  ug$ref <- units::set_units(d$ref, "ug/m3")
  expect_no_warning(fit_in(ug), class = "ncam_warning_readings_without_units")
  expect_no_warning(fit_in(d), class = "ncam_warning_readings_without_units")
  # The estimates on a plain column's scale: they are what is off.
  plain_ref <- ug
  plain_ref$ref <- d$ref
  expect_warning(fit_in(plain_ref), "ref has no units, beside pa_a, pa_b, and opc with units.*the estimates are off by the conversion factor",
                 class = "ncam_warning_readings_without_units")
})

test_that("print() names each reading column given in another unit, or without one, beside the one unit", {
  skip_if_not_installed("units")
  d <- simulate_colocation(days = 30, seed = 1)
  fit_in <- function(data) {
    suppressMessages(short_fit(ncam(pa_a + pa_b + opc ~ rh, data, reference = "ref", hidden = 4L, epochs = 3L,
                                    seed = 1, threads = 1),
                               also = c("ncam_warning_clamp", "ncam_warning_units", "ncam_warning_readings_without_units")))
  }
  units_line <- function(fit) cat(grep("^Units:", utils::capture.output(print(fit)), value = TRUE), sep = "\n")
  ug <- d
  for (s in c("pa_a", "pa_b", "opc", "ref")) ug[[s]] <- units::set_units(d[[s]], "ug/m3")
  # The reference in mg/m3, the sensors plain: print() said `Units: readings and estimates in
  # "mg/m3"`, as if the sensors' numbers were too.
  mg_ref <- d
  mg_ref$ref <- units::set_units(d$ref / 1000, "mg/m3")
  # opc given in mg/m3, converted to the others' ug/m3: its new readings need their units.
  mg_opc <- ug
  mg_opc$opc <- units::set_units(d$opc / 1000, "mg/m3")
  fit_mg_opc <- fit_in(mg_opc)
  expect_identical(attr(fit_mg_opc$units, "given"), c(opc = "mg/m3"))
  # A fit whose reading columns are in several units (none of ncam()'s own, which converts them).
  several <- fit_in(ug)
  several$units[["opc"]] <- "mg/m3"
  expect_snapshot({
    units_line(fit_in(ug))
    units_line(fit_in(mg_ref))
    units_line(fit_mg_opc)
    units_line(several)
  })
  # Plain numbers throughout: no line.
  expect_false(any(grepl("^Units:", utils::capture.output(print(fit_in(d))))))
})
