# A grouped tibble as dplyr::group_by(d, site) makes it (dplyr is not among the package's
# dependencies): class grouped_df, the groups in attribute "groups".
as_grouped <- function(d, column) {
  rows <- split(seq_len(nrow(d)), d[[column]])
  groups <- tibble::new_tibble(stats::setNames(list(names(rows), unname(rows)), c(column, ".rows")), nrow = length(rows))
  grouped <- tibble::as_tibble(d)
  attr(grouped, "groups") <- groups
  class(grouped) <- c("grouped_df", class(grouped))
  grouped
}

test_that("ncam() and ncam_baseline() on a tibble of several groups say that one model is fitted to all", {
  toy <- simulate_toy(300, seed = 1)
  toy$site <- rep(c("east", "west", "north"), each = 100)
  grouped <- as_grouped(toy, "site")
  fit_on <- function(data, ...) {
    suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1, data, hidden = 4L, epochs = 5L, seed = 1L, threads = 1L, ...),
                     classes = "ncam_warning_not_converged")
  }
  expect_warning(fit <- fit_on(grouped), "grouped by site.*all 3 groups.*ncam_by\\(by = \"site\"\\).*unit = \"site\"",
                 class = "ncam_warning_grouped_data")
  # The groups are not read: the same model as on the rows ungrouped.
  expect_identical(fit$params, fit_on(toy)$params)
  # Groups that are the fit's units are read, as units.
  sites <- simulate_colocation(days = 20, sites = 3, seed = 3)
  expect_no_warning(suppressWarnings(ncam(pa_a + pa_b + opc ~ rh, as_grouped(sites, "site"), reference = "ref", unit = "site",
                                          hidden = 4L, epochs = 5L, seed = 1L, threads = 1L),
                                     classes = c("ncam_warning_not_converged", "ncam_warning_few_reference_rows")),
                    class = "ncam_warning_grouped_data")
  # One group (such as the rows of a group that ncam_by() fits) pools nothing.
  expect_no_warning(fit_on(as_grouped(toy[toy$site == "east", ], "site")), class = "ncam_warning_grouped_data")
  expect_warning(ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, grouped, method = "mean"), "grouped by site",
                 class = "ncam_warning_grouped_data")
  toy$hour <- rep(1:2, 150)
  two <- as_grouped(toy, "site")
  attr(two, "groups") <- tibble::new_tibble(list(site = c("east", "east", "west", "west", "north", "north"), hour = rep(1:2, 3),
                                                  .rows = lapply(1:6, function(i) which(toy$site == c("east", "west", "north")[(i + 1) %/% 2] & toy$hour == (i - 1) %% 2 + 1))), nrow = 6L)
  expect_warning(fit_on(two), "ncam_by\\(by = c\\(\"site\", \"hour\"\\)\\)", class = "ncam_warning_grouped_data")
})
