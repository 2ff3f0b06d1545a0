# Sensors far from the anchor's level. The working scale is the anchor's mean and sd (see
# working_scale()), and the engine starts every sensor at gain 1 and offset 0 on it: a sensor
# whose readings lie many of the anchor's sds away needs an offset that Adam does not reach in
# the epochs of a fit, and the fit ends without complaint, far off (PurpleAir beside its
# reference, shifted by 150 ug/m3: RMSE 6.7 where 2.3 unshifted). In bench/anchor_distance.R
# (sensors shifted on four data sets, 450 to 5,700 rows) fits lost up to 6 % at 6.4 to 7.3 sds
# and failed (RMSE 1.4 to 5 times) from 8.4; the package's data sets and the shared real ones
# lie within 4.2 (a short co-location at one PurpleAir site), most within 2.
max_anchor_distance <- 5

# The sensors whose median on the fitted rows lies more than max_anchor_distance of the
# anchor's sds from its mean (the working scale's centre), with those distances, signed.
sensors_far_from_anchor <- function(fit) {
  centre <- fit$spike_scales$centre
  if (is.null(fit$anchor) || is.null(centre)) return(numeric(0))
  distance <- (centre[setdiff(names(centre), fit$anchor)] - fit$scaling$b_shift) / fit$scaling$b_scale
  distance[is.finite(distance) & abs(distance) > max_anchor_distance]
}

# The warning for the sensors `far` (from sensors_far_from_anchor()), naming each one's median,
# the anchor's mean and sd, and the baseline that brings it near: the difference of the medians
# (their ratio for log readings).
warn_far_from_anchor <- function(fit, far, call = NULL) {
  if (!length(far)) return(invisible())
  anchor <- fit$anchor
  centre <- fit$spike_scales$centre
  shown <- function(x) format(signif(x, 3), scientific = FALSE, trim = TRUE)
  on_log <- identical(fit$transform, "log")
  level <- if (on_log) {
    sprintf("its log readings' mean %s and sd %s", shown(fit$scaling$b_shift), shown(fit$scaling$b_scale))
  } else sprintf("mean %s, sd %s", shown(fit$scaling$b_shift), shown(fit$scaling$b_scale))
  sensors <- names(far)
  details <- sprintf("%s: median %s, %s sds %s the anchor's mean%s", sensors, shown(ncam_untransform(fit, centre[sensors])),
                     shown(abs(far)), ifelse(far > 0, "above", "below"), if (on_log) " (of log readings)" else "")
  baseline <- centre[sensors] - centre[[anchor]]
  fixes <- if (on_log) sprintf("%s / %s", sensors, shown(exp(baseline))) else
    sprintf("%s %s %s", sensors, ifelse(baseline < 0, "+", "-"), shown(abs(baseline)))
  n <- length(far)
  cli::cli_warn(c("{cli::qty(n)}Sensor{?s} {.field {sensors}} read{?s/} far from the level of the anchor {.field {anchor}} ({level} on the training rows): more than {max_anchor_distance} of its standard deviations away. The fit starts every sensor at the anchor's level and may not reach {cli::qty(n)}{?its offset/their offsets}, so its estimates can be far off without another warning.",
                  stats::setNames(details, rep("*", n)),
                  i = "Bring {cli::qty(n)}{?it/them} near the anchor before fitting, such as with {.code {fixes}} (the difference of the medians), or by the mean difference from the anchor on rows where both read. Convert raw signals (mV, counts) to the anchor's units first."),
                class = c("ncam_warning_far_from_anchor", "ncam_warning"), call = call)
}

# The advice of the clamp warnings when sensors lie far from the anchor's level: a misfit of
# their offsets decides the noise levels there, and a wider clamp fits it worse (PurpleAir
# shifted by 300: RMSE 138, 44 with the clamp widened).
far_clamp_advice <- function(far) {
  text <- cli::format_inline("{cli::qty(length(far))}Sensor{?s} {.field {names(far)}} {?lies/lie} far from the anchor's level (warning {.cls ncam_warning_far_from_anchor}): the noise levels follow from offsets the fit has not reached, and widening the clamp does not help; bring {?it/them} near the anchor first.")
  gsub("([{}])", "\\1\\1", text)
}
