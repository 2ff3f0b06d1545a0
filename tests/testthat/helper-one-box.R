# Stations as at SensEURCity Antwerp, simulated: site 1 has one box (pa_b never reads), sites 2
# and 3 two, each beside the reference for its first week; site 4 has two boxes and no reference.
# Fitted by site with few epochs: the tests need models, not good ones.
one_box_data <- function() {
  d <- simulate_colocation(days = 14, sites = 4, colocation = 7, seed = 1)
  d$pa_b[d$site == 1] <- NA
  d$ref[d$site == 4] <- NA
  d$site <- paste0("s", d$site)
  d[c("date", "site", "rh", "pa_a", "pa_b", "ref", "truth")]
}

# ncam_by() of those stations (errors = "skip": site 4 has no model), its warnings other than
# those in `keep` muffled, as is the message that site 1's model leaves out pa_b.
one_box_fits <- function(data = one_box_data(), keep = character(), errors = "skip") {
  muffled <- setdiff(c("ncam_warning_not_converged", "ncam_warning_few_reference_rows", "ncam_warning_clamp",
                       "ncam_warning_two_sensors", "ncam_warning_group_not_fitted"), keep)
  suppressMessages(suppressWarnings(
    ncam_by(pa_a + pa_b ~ 1, data = data, by = "site", reference = "ref", hidden = 4L, epochs = 3L,
            seed = 1L, threads = 1L, errors = errors),
    classes = muffled), classes = "ncam_message_sensor_left_out")
}
