test_that("print() of ncam_control() shows each setting, Inf clip norm as no clipping", {
  ctl <- ncam_control()
  out <- capture.output(res <- withVisible(print(ctl)))
  expect_false(res$visible)
  expect_identical(res$value, ctl)
  expect_identical(out[1], "ncam optimiser settings (ncam_control)")
  # One line per setting, in order, each with its value and meaning.
  settings <- c("beta1", "beta2", "eps", "weight_decay", "clip_norm", "logvar_range", "precision",
                "min_delta", "screen_outliers", "adapt_threads", "sensor_start", "reference_noise")
  expect_length(out, 1L + length(settings))
  expect_identical(vapply(strsplit(trimws(out[-1]), " +"), `[`, "", 1), settings)
  expect_match(out[grep("clip_norm", out)], "Inf (no clipping)", fixed = TRUE)
  expect_match(out[grep("logvar_range", out)], "logvar_range +-5, 4 ")
  expect_match(out[grep("beta2", out)], "0.999", fixed = TRUE)
  expect_match(out[grep("screen_outliers", out)], "50 ", fixed = TRUE)
  # A finite clip norm and no screening print as given.
  out <- capture.output(print(ncam_control(clip_norm = 5, screen_outliers = Inf)))
  expect_match(out[grep("clip_norm", out)], "clip_norm +5 ")
  expect_match(out[grep("screen_outliers", out)], "Inf (no screening)", fixed = TRUE)
})

test_that("the engine still receives 0 for no clipping", {
  expect_identical(ncam_control()$clip_norm, 0)
  expect_identical(ncam_control(clip_norm = 5)$clip_norm, 5)
  expect_identical(new_adam_settings(control = ncam_control())$clip_norm, 0)
})
