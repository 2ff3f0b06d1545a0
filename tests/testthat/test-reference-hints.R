# What the errors about an unusable reference advise: a label-free fit needs two sensors or more.

flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))

hint_data <- function(n = 300, n_ref = 100) {
  withr::local_seed(1)
  truth <- stats::rlnorm(n, log(10), 0.5)
  d <- data.frame(rh = stats::runif(n, 20, 95), s1 = truth + stats::rnorm(n), s2 = 0.8 * truth + stats::rnorm(n, sd = 1.5))
  d$ref <- ifelse(seq_len(n) <= n_ref, truth + stats::rnorm(n, sd = 0.5), NA)
  d$code <- ifelse(is.na(d$ref), NA, -999)  # a missing-value code wherever the reference reads
  d
}

test_that("a constant reference suggests a label-free fit only with two sensors or more", {
  d <- hint_data()
  two <- flat(expect_error(ncam(s1 + s2 ~ rh, d, reference = "code"), class = "ncam_error"))
  expect_match(two, "if no reading is left, leave out `reference` for a label-free fit.", fixed = TRUE)
  one <- flat(expect_error(ncam(s1 ~ rh, d, reference = "code"), class = "ncam_error"))
  expect_no_match(one, "for a label-free fit", fixed = TRUE)
  expect_match(one, "if no reading is left, one sensor cannot be fitted without a reference (label-free fits need two or more): fit it on rows where a reference monitor read beside it",
               fixed = TRUE)
  expect_snapshot(ncam(s1 + s2 ~ rh, d, reference = "code"), error = TRUE)
  expect_snapshot(ncam(s1 ~ rh, d, reference = "code"), error = TRUE)
})

test_that("a reference never observed, or too rarely, says what one sensor can do instead", {
  d <- hint_data(n_ref = 10)
  d$none <- NA_real_
  never <- flat(expect_error(ncam(s1 ~ rh, d, reference = "none"), "never observed", class = "ncam_error"))
  expect_match(never, "one sensor cannot be fitted without a reference (label-free fits need two or more): fit it on rows where a reference monitor read beside it and estimate these rows with that fit (`predict(fit, newdata = <these rows>)`).",
               fixed = TRUE)
  expect_snapshot(ncam(s1 ~ rh, d, reference = "none"), error = TRUE)
  expect_snapshot(ncam(s1 + s2 ~ rh, d, reference = "none"), error = TRUE)
  expect_snapshot(ncam(s1 ~ rh, d, reference = "ref"), error = TRUE)
  expect_snapshot(ncam(s1 + s2 ~ rh, d, reference = "ref"), error = TRUE)
})

test_that("under ncam_by(), a group's constant reference keeps the missing-value advice and gets the groups' hint", {
  d <- simulate_colocation(days = 30, sites = 3, seed = 1)[c("site", "rh", "pa_a", "pa_b", "ref")]
  d$ref[d$site == 2 & !is.na(d$ref)] <- -999
  by_site <- function(formula) {
    short_fit(ncam_by(formula, d, by = "site", reference = "ref", hidden = 4L, epochs = 2L, seed = 1L, threads = 1L))
  }
  two <- flat(expect_error(by_site(pa_a + pa_b ~ rh), "Could not fit group site = 2", class = "ncam_error"))
  expect_match(two, "Set such values to `NA` (such as `data$ref[data$ref == -999] <- NA`). i Leaving out `reference` would drop ref for every group.",
               fixed = TRUE)
  expect_no_match(two, "leave out `reference` for a label-free fit", fixed = TRUE)
  expect_match(two, "`ncam(pa_a + pa_b ~ rh, data = d, reference = \"ref\", unit = \"site\")`", fixed = TRUE)
  one <- flat(expect_error(suppressWarnings(by_site(pa_a ~ rh), classes = "ncam_warning_one_sensor"), "Could not fit group site = 2",
                           class = "ncam_error"))
  expect_no_match(one, "label-free,", fixed = TRUE)
  expect_match(one, "with one sensor (pa_a) it cannot be fitted without a reference", fixed = TRUE)
  expect_snapshot(by_site(pa_a ~ rh), error = TRUE)
})
