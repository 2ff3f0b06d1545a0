# The picture of sensor_drift(): each sensor's shift by period, one panel per unit, lines
# broken where a period has no rows.

#' @rdname sensor_drift
#' @method autoplot ncam_drift
#' @rawNamespace S3method(ggplot2::autoplot, ncam_drift)
autoplot.ncam_drift <- function(object, ...) {
  check_dots_empty_hinted()
  check_ggplot2(rlang::current_env())
  if (nrow(object) == 0L) ncam_abort("{.arg object} has no rows to plot.")
  # A table subset or renamed after sensor_drift() keeps its class but may lack what is drawn.
  missing <- setdiff(drift_plot_columns, names(object))
  if (length(missing)) {
    ncam_abort(c("{.arg object} lacks column{?s} {.field {missing}}, which the drift plot needs.",
                 i = "Plot the table of {.fn sensor_drift} with its columns {.field {drift_plot_columns}} as named there."))
  }
  points <- as.data.frame(object)
  # A period without a test (too few periods or readings) is not a period found in order.
  points$flag <- ifelse(is.na(points$drift), "not tested", ifelse(points$drift, "flagged", "not flagged"))
  unit_columns <- intersect(attr(object, "unit_columns"), names(points))
  points$line <- drift_line_runs(points, unit_columns, attr(object, "period"))
  # Panels labelled "site = north" as in the other per-group pictures, in the order of the keys.
  grid <- NULL
  units_shown <- if (length(unit_columns)) {
    labels <- group_labels(points[unit_columns])
    in_order <- do.call(order, unname(as.list(points[unit_columns])))
    points$unit_panel <- factor(labels, levels = unique(labels[in_order]))
    grid <- panel_grid(levels(points$unit_panel), square = FALSE, width = plot_width_in - 0.9, spacing = 0.5)
    labelled_facets("unit_panel", levels(points$unit_panel), grid$labels, ncol = grid$ncol)
  }
  # The colours of the other pictures, sensors in the model's order (as the table lists them).
  sensors <- union(attr(object, "sensors"), unique(as.character(points$sensor)))
  # As autoplot(fit, "sensors") labels offsets: "log ug/m3" for a log fit in units.
  unit_txt <- c(attr(object, "estimate_unit"), if (identical(attr(object, "transform"), "log")) "reading units" else
    "units of the fused value")[1]
  scale_txt <- if (identical(attr(object, "transform"), "log")) paste("log", unit_txt) else unit_txt
  ggplot2::ggplot(points, ggplot2::aes(.data$period, .data$shift, colour = .data$sensor)) +
    ggplot2::geom_hline(yintercept = 0, colour = "grey40") +
    # A run of one period is a point only (ggplot2 would say its group has one observation).
    ggplot2::geom_line(ggplot2::aes(group = .data$line), data = function(d) d[d$line %in% d$line[duplicated(d$line)], ],
                       na.rm = TRUE) +
    ggplot2::geom_point(ggplot2::aes(size = .data$flag, shape = .data$flag), na.rm = TRUE) +
    ggplot2::scale_colour_manual(values = stats::setNames(sensor_palette(length(sensors)), sensors)) +
    ggplot2::scale_size_manual(values = c(flagged = 3.2, `not flagged` = 1.2, `not tested` = 1.6), name = NULL) +
    ggplot2::scale_shape_manual(values = c(flagged = 17, `not flagged` = 16, `not tested` = 1), name = NULL) +
    ggplot2::guides(size = ggplot2::guide_legend(override.aes = list(size = 2.5)),
                    x = ggplot2::guide_axis(check.overlap = TRUE)) +
    units_shown +
    ggplot2::labs(x = "Period", y = sprintf("Shift (%s)", scale_txt), colour = "Sensor",
                  title = "Each sensor against the estimate from the others",
                  subtitle = wrap_subtitle(sprintf("Mean difference per period; triangles: flagged (Holm, alpha = %g)%s%s",
                                                   attr(object, "alpha"),
                                                   if (any(points$flag == "not tested")) "; open circles: not tested" else "",
                                                   if (is.null(grid$key)) "" else paste(";", panels_note(grid))))) +
    plot_theme() +
    # Room for half the last date label, centred on the panel's right edge, and between panels
    # for that half and the next panel's first.
    ggplot2::theme(plot.margin = ggplot2::margin(5.5, 20, 5.5, 5.5),
                   panel.spacing.x = ggplot2::unit(36, "pt"))
}

drift_plot_columns <- c("sensor", "period", "shift", "drift")

# One id per run of consecutive periods of a unit and sensor with a shift: a line is not drawn
# across a period without rows (more than the longest period between starts) or without a shift.
drift_line_runs <- function(points, unit_columns, period) {
  key <- row_codes(points[c(unit_columns, "sensor")])
  seconds <- as.numeric(points$period) * if (inherits(points$period, "Date")) 86400 else 1
  # A table from before the period was kept: lines are not broken at gaps.
  longest <- if (is.null(period)) Inf else longest_period(period)
  ord <- order(key, seconds)  # units and sensors in order of first appearance
  key_o <- key[ord]
  seconds_o <- seconds[ord]
  has_shift <- !is.na(points$shift[ord])
  breaks <- c(TRUE, key_o[-1] != key_o[-length(key_o)] | diff(seconds_o) > longest |
                !has_shift[-length(has_shift)])
  runs <- integer(length(ord))
  runs[ord] <- cumsum(breaks)
  runs
}

# One code per row of the data frame `columns`, equal exactly when every column is (values as
# comparable_values() compares them, NA matching NA), refined column by column through match()
# as in repeated_rows(). Pasted as text, units 0.3 and 0.1 + 0.2 were one ("0.3").
row_codes <- function(columns) {
  code <- rep(1, nrow(columns))
  for (column in columns) {
    values <- comparable_values(column)
    distinct <- unique(values)
    refined <- (code - 1) * length(distinct) + match(values, distinct)
    code <- match(refined, unique(refined))
  }
  code
}

# The longest a period can last, in seconds: calendar months of 31 days, quarters of 92, years
# of 366, days of 25 hours at a clock change. Two consecutive period starts further apart than
# this have a period without rows between them.
longest_period <- function(period) {
  calendar <- calendar_period(period)
  if (!is.null(calendar)) {
    days <- calendar$amount * c(week = 7, month = 31, quarter = 92, year = 366)[[calendar$unit]]
    return(days * 86400 + 3600)
  }
  spec <- parse_period(period, "period")
  if (spec$days > 0) spec$days * 86400 + 3600 else spec$seconds
}
