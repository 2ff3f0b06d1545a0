test_that("model.frame() gives the sensors, the reference and the covariates, one row per row", {
  d <- colocation[1:300, ]
  d$pa_b[5] <- NA
  d$rh[7] <- NA
  fit <- short_fit(ncam(pa_a + pa_b ~ rh + temperature, data = d, reference = "ref", hidden = 4L,
                        epochs = 2L, seed = 1, threads = 1), also = "ncam_warning_missing_covariate")
  mf <- model.frame(fit)
  # R's default evaluated the left side, pa_a + pa_b, as one column and dropped rows with an NA.
  expect_named(mf, c("pa_a", "pa_b", "ref", "rh", "temperature"))
  expect_identical(nrow(mf), 300L)
  expect_identical(mf$pa_b, d$pa_b)
  expect_identical(mf$ref, d$ref)
  expect_identical(mf$rh, d$rh)
  expect_identical(attr(mf, "terms"), fit$terms)
  # Without the reference column (predict() does not need it); with the sensors missing, an error.
  expect_named(model.frame(fit, d[setdiff(names(d), "ref")]), c("pa_a", "pa_b", "rh", "temperature"))
  expect_error(model.frame(fit, d[c("rh", "temperature")]), "`data` lacks columns \"pa_a\" and \"pa_b\"",
               class = "ncam_error")
})

test_that("model.matrix() is the covariate design as the networks take it, before standardisation", {
  d <- colocation[1:300, ]
  d$site <- rep(c("north", "south", "west"), length.out = 300)
  fit <- short_fit(ncam(pa_a + pa_b ~ log(rh) + poly(temperature, 2) + site, data = d, reference = "ref",
                        hidden = 4L, epochs = 2L, seed = 1, threads = 1))
  mm <- model.matrix(fit)
  expect_identical(dim(mm), c(300L, 6L))
  expect_identical(colnames(mm), fit$covariates)
  # Computed here by hand: the log, the orthogonal polynomial of the training temperatures, and
  # one indicator per site (no reference level).
  expect_equal(unname(mm[, 1]), log(d$rh))
  expect_equal(unname(mm[, 2:3]), unname(unclass(stats::poly(d$temperature, 2))[, 1:2]))
  expect_equal(unname(mm[, 4:6]), outer(d$site, c("north", "south", "west"), `==`) + 0)
  # On new rows the polynomial keeps the training coefficients; an unseen site gives an NA row.
  new <- d[c(10, 20), ]
  new$site[2] <- "east"
  expect_warning(mm_new <- model.matrix(fit, new), "level of a factor covariate not seen in training",
                 class = "ncam_warning_unseen_level")
  expect_equal(unname(mm_new[1, ]), unname(mm[10, ]))
  expect_true(all(is.na(mm_new[2, 4:6])))
  # A fit without covariates has a matrix of no columns.
  none <- short_fit(ncam(pa_a + pa_b ~ 1, data = d, reference = "ref", hidden = 4L, epochs = 2L, seed = 1,
                         threads = 1))
  expect_identical(dim(model.matrix(none)), c(300L, 0L))
  expect_named(model.frame(none), c("pa_a", "pa_b", "ref"))
})

test_that("the example of ?ncam-model-frame runs without a warning", {
  # The Rd files beside the tests (a source tree, or R CMD check's copy of it).
  candidates <- c(test_path("..", "..", "man"), test_path("..", "..", "00_pkg_src", "ncam", "man"))
  man <- candidates[dir.exists(candidates)]
  skip_if(length(man) == 0L, "the package's Rd files are not beside the tests")
  code <- tempfile(fileext = ".R")
  on.exit(unlink(code))
  tools::Rd2ex(file.path(man[1], "ncam-model-frame.Rd"), code)
  expect_no_warning(utils::capture.output(source(code, local = new.env(), echo = FALSE)))
})
