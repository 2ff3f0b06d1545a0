# The autoplot() pictures of the fused value: its time series, its scatter against a reference
# and the coverage of its intervals. Rows more than extrapolation_warning_share of the range
# outside the calibration range (predict()'s .extrapolation) are marked in the series and the
# scatter, where the warning alone would not say which points they are.

plot_series <- function(object, newdata, date, reference, level, interval, call) {
  check_plot_column(newdata, date, "date", call, kind = "time")
  if (!is.null(reference)) check_plot_column(newdata, reference, "reference", call)
  time <- newdata[[date]]
  repeated <- sum(duplicated(time[!is.na(time)]))
  if (repeated > 0L) {
    cli::cli_abort(c("Column {.field {date}} of {.arg newdata} repeats {repeated} time{?s}: the series plot draws one time series.",
                     i = "Subset {.arg newdata} to one site or sensor group first."), call = call)
  }
  pred <- stats::predict(object, newdata, interval = interval, level = level)
  fused_label <- "NCAM fused"
  # Labelled apart from the sensors, as the reference may also be one of them.
  reference_label <- if (!is.null(reference)) paste(reference, "(reference)")
  sensors <- object$sensors
  sensor_series <- sensor_labels(object)[seq_along(sensors)]  # the reference monitor is `reference`'s
  readings <- data.frame(time = rep(time, length(sensors)),
                         series = rep(sensor_series, each = nrow(newdata)),
                         value = unlist(lapply(sensors, function(s) as.numeric(newdata[[s]])),
                                        use.names = FALSE))
  lines <- rbind(readings,
                 if (!is.null(reference)) data.frame(time = time, series = reference_label,
                                                     value = newdata[[reference]]),
                 data.frame(time = time, series = fused_label, value = pred$.pred))
  # Drawn in this order: wide pale sensor lines beneath, so that where the fused line runs
  # along a sensor both stay visible, then the reference and the fused line on top.
  series_levels <- unique(c(sensor_series, reference_label, fused_label))
  lines$series <- factor(lines$series, levels = series_levels)
  n_missing <- sum(is.na(lines$value) | is.na(lines$time))
  lines <- lines[!is.na(lines$time), , drop = FALSE]
  lines <- lines[order(lines$series, lines$time), , drop = FALSE]
  ribbon <- data.frame(time = time, lower = pred$.pred_lower, upper = pred$.pred_upper)
  ribbon <- ribbon[stats::complete.cases(ribbon), , drop = FALSE]
  ribbon <- ribbon[order(ribbon$time), , drop = FALSE]
  colours <- stats::setNames(c(sensor_palette(length(sensors)), if (!is.null(reference)) "grey25",
                                "black"), series_levels)
  widths <- stats::setNames(c(rep(0.7, length(sensors)), if (!is.null(reference)) 0.6, 0.5),
                            series_levels)
  alphas <- stats::setNames(c(rep(0.55, length(sensors)), if (!is.null(reference)) 1, 1),
                            series_levels)
  types <- stats::setNames(c(rep("solid", length(sensors)), if (!is.null(reference)) "22", "solid"),
                           series_levels)
  ribbon_label <- sprintf("%g%% %s interval", 100 * level, interval)
  far <- which(is_far(pred$.extrapolation) & !is.na(time))
  marks <- if (length(far)) {
    ggplot2::geom_point(data = data.frame(time = time[far], value = pred$.pred[far], mark = far_label()),
                        ggplot2::aes(.data$time, .data$value, shape = .data$mark), inherit.aes = FALSE,
                        colour = far_colour, size = 3, stroke = 1)
  }
  ggplot2::ggplot(lines, ggplot2::aes(.data$time, .data$value)) +
    ggplot2::geom_ribbon(data = ribbon, ggplot2::aes(.data$time, ymin = .data$lower, ymax = .data$upper,
                                                     fill = ribbon_label), inherit.aes = FALSE) +
    ggplot2::geom_line(ggplot2::aes(colour = .data$series, linewidth = .data$series,
                                    linetype = .data$series, alpha = .data$series), na.rm = TRUE) +
    ggplot2::scale_fill_manual(values = stats::setNames("#b9d3ea", ribbon_label)) +
    ggplot2::scale_colour_manual(values = colours) +
    ggplot2::scale_linewidth_manual(values = widths) +
    ggplot2::scale_linetype_manual(values = types) +
    ggplot2::scale_alpha_manual(values = alphas) +
    marks + ggplot2::scale_shape_manual(values = stats::setNames(4, far_label())) +
    ggplot2::labs(x = date, y = "Reading and estimate", colour = NULL,
                  linewidth = NULL, linetype = NULL, alpha = NULL, fill = NULL, shape = NULL,
                  title = "Raw sensors and the NCAM fused estimate",
                  caption = dropped_caption(n_missing, "value")) +
    plot_theme() +
    # The interval key on its own row keeps a legend of many series within the width; the rows
    # sit close together so that the legend does not squeeze the panel.
    ggplot2::theme(legend.box = "vertical", legend.spacing.y = ggplot2::unit(0, "pt"),
                   legend.margin = ggplot2::margin(0, 0, 0, 0), legend.box.spacing = ggplot2::unit(4, "pt"))
}

# Predictions for newdata and the rows that have both a finite reference and a fused estimate.
reference_rows <- function(object, newdata, reference, call) {
  pred <- stats::predict(object, newdata)
  usable <- is.finite(newdata[[reference]]) & is.finite(pred$.pred)
  if (!any(usable)) {
    cli::cli_abort("No row of {.arg newdata} has both a reference value in {.field {reference}} and a fused estimate.",
                   call = call)
  }
  list(pred = pred, usable = usable, n_dropped = sum(!usable))
}

plot_scatter <- function(object, newdata, reference, call) {
  rows <- reference_rows(object, newdata, reference, call)
  points <- data.frame(reference = newdata[[reference]][rows$usable],
                       fused = rows$pred$.pred[rows$usable],
                       where = ifelse(is_far(rows$pred$.extrapolation[rows$usable]), far_label(), "inside"))
  error <- points$fused - points$reference
  stats_txt <- sprintf("n = %s, bias = %.3g, RMSE = %.3g, correlation = %.3f",
                       format(nrow(points), big.mark = ","), mean(error), sqrt(mean(error^2)),
                       if (nrow(points) > 1L) stats::cor(points$reference, points$fused) else NA_real_)
  limits <- range(points$reference, points$fused)
  ggplot2::ggplot(points, ggplot2::aes(.data$reference, .data$fused)) +
    ggplot2::geom_abline(slope = 1, intercept = 0, linetype = "dashed", colour = "grey40") +
    # The few rows far outside stay visible however many rows fade the others.
    ggplot2::geom_point(ggplot2::aes(colour = .data$where, alpha = .data$where, size = .data$where),
                        stroke = 0) +
    ggplot2::scale_colour_manual(values = stats::setNames(c("#0072B2", far_colour), c("inside", far_label())),
                                 breaks = far_label(), name = NULL,
                                 guide = if (any(points$where != "inside")) {
                                   ggplot2::guide_legend(override.aes = list(alpha = 1, size = 2))
                                 } else "none") +
    ggplot2::scale_alpha_manual(values = stats::setNames(c(min(0.7, max(0.1, 200 / nrow(points))), 1),
                                                         c("inside", far_label())), guide = "none") +
    ggplot2::scale_size_manual(values = stats::setNames(c(1.2, 2), c("inside", far_label())), guide = "none") +
    ggplot2::coord_equal(xlim = limits, ylim = limits) +
    ggplot2::labs(x = sprintf("Reference (%s)", reference), y = "NCAM fused estimate",
                  title = "Fused estimate against the reference", subtitle = stats_txt,
                  caption = dropped_caption(rows$n_dropped)) +
    plot_theme()
}

plot_coverage <- function(object, newdata, reference, levels, interval, call) {
  rows <- reference_rows(object, newdata, reference, call)
  ref <- newdata[[reference]][rows$usable]
  coverage <- without_part_warnings(vapply(levels, function(level) {  # reference_rows() warned
    pred <- stats::predict(object, newdata, interval = interval, level = level)[rows$usable, ]
    mean(ref >= pred$.pred_lower & ref <= pred$.pred_upper)
  }, numeric(1)))
  points <- data.frame(nominal = levels, empirical = coverage)
  lower <- min(points$nominal, points$empirical, 0.5)
  percent <- function(p) paste0(100 * p, "%")
  ggplot2::ggplot(points, ggplot2::aes(.data$nominal, .data$empirical)) +
    ggplot2::geom_abline(slope = 1, intercept = 0, linetype = "dashed", colour = "grey40") +
    ggplot2::geom_line(colour = "#0072B2", linewidth = 0.8) +
    ggplot2::geom_point(colour = "#0072B2", size = 2.2) +
    ggplot2::coord_equal(xlim = c(lower, 1), ylim = c(lower, 1)) +
    ggplot2::scale_x_continuous(labels = percent) +
    ggplot2::scale_y_continuous(labels = percent) +
    ggplot2::labs(x = sprintf("Nominal level of the %s interval", interval),
                  y = sprintf("Rows whose %s lies inside", reference),
                  title = sprintf("Coverage of the %s intervals", interval),
                  subtitle = sprintf("%s rows with a reference value", format(sum(rows$usable), big.mark = ",")),
                  caption = paste(c("Dashed diagonal: perfect calibration.", dropped_caption(rows$n_dropped)),
                                  collapse = " ")) +
    plot_theme()
}

# The legend label and colour of the rows far outside the calibration range.
far_label <- function() {
  sprintf("more than %g%% of the range outside the calibration range", 100 * extrapolation_warning_share)
}
far_colour <- "#D55E00"
