# The "sensors" picture of autoplot.ncam(): each sensor's learned gain, offset and noise, and
# its reading at a typical true value, against a covariate.

plot_sensors <- function(object, newdata, covariate, call) {
  params <- in_call_of(sensor_params(object, newdata), call)  # as given: the x axis is drawn from plain numbers
  newdata <- plain_plot_data(object, newdata, NULL, call)
  if (is.null(covariate)) {
    # The first continuous variable of the formula (`air temp`, or rh in poly(rh, 2)).
    continuous <- Filter(function(v) is.numeric(newdata[[v]]),
                         intersect(all.vars(object$terms), names(newdata)))
    covariate <- c(continuous, NA_character_)[1]
    if (is.na(covariate)) {
      ncam_abort(c("{.arg covariate} is required: no numeric covariate of the model is a column of {.arg newdata}.",
                   i = "Name a numeric, Date or POSIXct column of {.arg newdata} for the x axis."),
                 call = call)
    }
  }
  check_plot_column(newdata, covariate, "covariate", call, kind = "continuous")
  x <- newdata[[covariate]]
  log_fit <- identical(object$transform, "log")
  reading_unit <- c(estimate_unit(object), "reading units")[1]
  units <- if (log_fit) paste("log", reading_unit) else reading_unit
  typical <- typical_true_value(object)
  parameter_labels <- c(reading = if (!is.null(typical)) typical$label,
                        gain = if (log_fit) "Gain (log reading per log true value)" else
                          "Gain (reading per unit of true value)",
                        offset = sprintf("Offset (%s)", units),
                        noise = sprintf("Noise standard deviation (%s)", units))
  n_rows <- nrow(params)
  # The reading a sensor gives at the typical true value, gain x value + offset (in log units
  # for a log fit, then back).
  at_typical <- if (!is.null(typical)) {
    if (log_fit) exp(params$a * log(typical$value) + params$c) else params$a * typical$value + params$c
  }
  n_panels <- length(parameter_labels)
  long <- data.frame(.row = rep(params$.row, n_panels),
                     sensor = factor(rep(params$sensor, n_panels), levels = model_sensors(object),
                                     labels = sensor_labels(object)),
                     parameter = factor(rep(names(parameter_labels), each = n_rows),
                                        levels = names(parameter_labels)),
                     value = c(at_typical, params$a, params$c, params$sigma))
  long$x <- x[long$.row]
  complete_rows <- tapply(is.finite(long$value) & !is.na(long$x), long$.row, all)
  n_dropped <- sum(!complete_rows)
  long <- long[long$.row %in% which(complete_rows), , drop = FALSE]
  if (nrow(long) == 0L) {
    ncam_abort("No row of {.arg newdata} has both {.field {covariate}} and the model's covariates.",
               call = call)
  }
  # Points for at most 5,000 rows keep the figure light; the bin means use every row.
  kept_rows <- unique(long$.row)
  shown_rows <- if (length(kept_rows) > 5000L) {
    kept_rows[round(seq(1, length(kept_rows), length.out = 5000L))]
  } else kept_rows
  points <- long[long$.row %in% shown_rows, , drop = FALSE]
  alpha <- min(0.6, max(0.15, 300 / length(shown_rows)))
  # A perfect sensor: gain 1, offset 0, and so the typical true value itself.
  perfect <- data.frame(parameter = factor(c(if (!is.null(typical)) "reading", "gain", "offset"),
                                           levels = names(parameter_labels)),
                        value = c(typical$value, 1, 0))
  means <- bin_means(long)
  caption <- wrap_caption(paste(c(
    if (length(shown_rows) < length(kept_rows)) {
      sprintf("Points: %s evenly spaced rows of %s; lines: means of all rows in %d equal-width bins of %s,",
              format(length(shown_rows), big.mark = ","), format(length(kept_rows), big.mark = ","),
              attr(means, "bins"), covariate)
    } else sprintf("Points: rows; lines: means in %d equal-width bins of %s,", attr(means, "bins"), covariate),
    "broken where a bin has no rows (a bin between two empty ones: a bar across its rows).",
    dropped_caption(n_dropped)
  ), collapse = " "))
  joined <- means$run %in% means$run[duplicated(means$run)]  # runs of two bins or more
  # Two columns of panels: at 7 x 5 inches, four stacked panels leave room for two ticks each.
  strip_width <- chars_in((plot_width_in - 0.7) / 2 - 0.1, strip_pt)
  ggplot2::ggplot(long, ggplot2::aes(.data$x, .data$value, colour = .data$sensor)) +
    ggplot2::geom_hline(data = perfect, ggplot2::aes(yintercept = .data$value),
                        linetype = "dashed", colour = "grey40") +
    ggplot2::geom_point(data = points, alpha = alpha, size = 1.1, stroke = 0) +
    ggplot2::geom_line(data = means[joined, , drop = FALSE], ggplot2::aes(group = .data$run), linewidth = 0.9) +
    ggplot2::geom_segment(data = means[!joined, , drop = FALSE],
                          ggplot2::aes(x = .data$x_from, xend = .data$x_to, yend = .data$value), linewidth = 0.9) +
    ggplot2::facet_wrap(ggplot2::vars(.data$parameter), ncol = 2L, scales = "free_y",
                        labeller = ggplot2::as_labeller(vapply(parameter_labels, wrap_plot_text, "", strip_width))) +
    ggplot2::scale_colour_manual(values = stats::setNames(sensor_palette(nlevels(long$sensor)),
                                                          levels(long$sensor))) +
    ggplot2::guides(colour = ggplot2::guide_legend(override.aes = list(alpha = 1, size = 2.5))) +
    ggplot2::labs(x = covariate, y = NULL, colour = "Sensor",
                  title = sprintf("Learned sensor model against %s", covariate),
                  subtitle = sensors_subtitle(log_fit), caption = caption) +
    plot_theme()
}

# What gain and offset mean, for the subtitle: the offset is the reading at a true value of 0,
# often far below the data, so that a large gain with a negative offset can read close to the
# true value where the data lie (the first panel, when there is an anchor, gives that reading).
sensors_subtitle <- function(log_fit) {
  model <- if (log_fit) {
    "Log reading = gain x log true value + offset (plus noise). The offset is the log reading at a true value of 1"
  } else {
    "Reading = gain x true value + offset (plus noise). The offset is the reading at a true value of 0"
  }
  wrap_subtitle(paste0(model, ", often far below the data."))
}

# The true value the top panel reads the sensors at: the anchor's median reading on the fitted
# rows (the reference's on the co-location rows), kept by the fit for its spike screen (as read;
# in log units for log fits made before that). NULL without an anchor (an unanchored or
# "no_bias" fit, whose latent value is on no reading's scale) or for fits without those medians.
typical_true_value <- function(object) {
  centre <- object$spike_scales$centre
  anchor <- object$anchor
  if (is.null(anchor) || !anchor %in% names(centre) || !is.finite(centre[[anchor]])) return(NULL)
  value <- centre[[anchor]]
  if (identical(object$transform, "log") && is.null(object$spike_scales$on)) value <- exp(value)
  unit <- estimate_unit(object)
  list(value = value,
       label = sprintf("Reading at a true value of %s%s (median of %s in training)",
                       format(value, digits = 3), if (is.null(unit)) "" else paste0(" ", unit),
                       plain_names(anchor)))
}

# Mean x and value of each sensor and parameter in bins of equal width along x, so the line
# spans the data: 40 bins, or one per 10 rows for fewer than 400 rows (attribute "bins"); bins
# with fewer than 5 rows are left out (too noisy). `run` numbers the stretches of bins without
# an empty bin between them (a line is not drawn across a gap in the data); `x_from` and `x_to`
# span the rows of each bin. x keeps its Date/POSIXct class.
bin_means <- function(long) {
  x_num <- as.numeric(long$x)
  n_bins <- max(1L, min(40L, length(unique(long$.row)) %/% 10L))
  span <- range(x_num)
  bin <- if (span[1] < span[2]) {
    pmin(n_bins, 1L + floor(n_bins * (x_num - span[1]) / (span[2] - span[1])))
  } else rep(1L, length(x_num))
  groups <- interaction(long$sensor, long$parameter, bin, drop = TRUE)
  first <- !duplicated(groups)
  key <- as.character(groups[first])
  summary_of <- function(values, f) as.vector(tapply(values, groups, f)[key])
  means <- data.frame(sensor = long$sensor[first], parameter = long$parameter[first], bin = bin[first],
                      x = summary_of(x_num, mean), value = summary_of(long$value, mean),
                      x_from = summary_of(x_num, min), x_to = summary_of(x_num, max),
                      n = as.vector(table(groups)[key]))
  means <- means[order(means$sensor, means$parameter, means$bin), , drop = FALSE]
  # A new run after a bin without rows (every sensor and parameter has the same rows).
  gap <- c(TRUE, diff(means$bin) != 1L | means$sensor[-1] != means$sensor[-nrow(means)] |
             means$parameter[-1] != means$parameter[-nrow(means)])
  means$run <- cumsum(gap)
  means <- means[means$n >= 5L, , drop = FALSE]
  # Restore the time class so the line shares the points' axis.
  time_attributes <- attributes(long$x)[intersect(c("class", "tzone"), names(attributes(long$x)))]
  for (column in c("x", "x_from", "x_to")) attributes(means[[column]]) <- time_attributes
  rownames(means) <- NULL
  structure(means, bins = n_bins)
}
