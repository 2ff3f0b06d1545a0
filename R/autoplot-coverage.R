# The "coverage" picture of autoplot(): the fraction of rows whose reference lies inside the
# interval against its nominal level. With groups (ncam_by() fits, unit offsets), up to
# max_colour_groups groups are drawn as lines of their own colour beside the line of all rows;
# more colours cannot be told apart, and their legend would crowd out the panel: then each
# group gets a small panel of its own, its line beside the grey line of all rows.
max_colour_groups <- 7L

# newdata is predicted once per level: what its rows warn of (groups without a model, spikes)
# is said once.
plot_coverage <- function(source, newdata, plain, reference, levels, interval, call, panels = NULL) {
  once <- muffle_repeated_warnings()
  rows <- withCallingHandlers(reference_rows(source, newdata, plain, reference, call), warning = once)
  ref <- rows$reference
  inside <- withCallingHandlers(without_part_warnings(lapply(levels, function(level) {  # reference_rows() warned
    pred <- source$predict(newdata, interval = interval, level = level)[rows$usable, ]
    ref >= pred$.pred_lower & ref <= pred$.pred_upper
  })), warning = once)
  coverage_of <- function(keep, name) {
    data.frame(nominal = levels, curve = name,
               empirical = vapply(inside, function(hit) mean(hit[keep]), numeric(1)))
  }
  points <- coverage_of(rep(TRUE, length(ref)), "all rows")
  # The groups drawn, of all groups of newdata, those with rows to compare (units in their order);
  # the line of all rows stays that of every group.
  # By default as many panels as are at least min_square_side a side.
  subtitle <- sprintf("%s rows with both a reference value and an estimate",
                      format(sum(rows$usable), big.mark = ","))
  room <- function(subtitle, caption) plot_height_in - 1.35 - 0.19 * n_lines(subtitle) - 0.15 * n_lines(caption)
  with_rows <- if (!is.null(rows$group)) levels(droplevels(rows$group))
  fits <- function(shown) {
    shown <- intersect(shown, with_rows)
    caption <- wrap_caption(c("Dashed diagonal: perfect calibration.", "Panels 1-20 of 100 shown.", left_out_caption(rows)))
    length(shown) <= max_colour_groups ||
      panel_grid(shown, room(wrap_subtitle(paste0(subtitle, ", one panel per unit")), caption))$side >= min_square_side
  }
  picked <- if (!is.null(rows$group)) pick_panels(levels(rows$group), panels, "coverage", source$group_word, call, fits)
  groups <- intersect(picked$shown, with_rows)
  if (length(groups) <= max_colour_groups) picked$note <- sub("^Panel", "Line", picked$note)
  points <- rbind(points, do.call(rbind, lapply(groups, function(g) coverage_of(rows$group == g, g))))
  points$curve <- factor(points$curve, levels = unique(points$curve))
  lower <- min(points$nominal, points$empirical, 0.5)
  caption <- wrap_caption(c("Dashed diagonal: perfect calibration.", picked$note, left_out_caption(rows)))
  drawn <- if (length(groups) > max_colour_groups) {
    room <- function(subtitle) plot_height_in - 1.35 - 0.19 * n_lines(subtitle) - 0.15 * n_lines(caption)
    grid <- panel_grid(groups, room(wrap_subtitle(subtitle)))
    subtitle <- paste0(subtitle, ", ", panels_note(grid, sprintf("one panel per %s", source$group_word)))
    coverage_panels(points, groups, c(grid$key, source$group_word)[1], panel_grid(groups, room(wrap_subtitle(subtitle))))
  } else coverage_lines(points, grouped = length(groups) > 0L)
  subtitle <- wrap_subtitle(subtitle)
  ggplot2::ggplot(drawn$data, ggplot2::aes(.data$nominal, .data$empirical, colour = .data$curve)) +
    ggplot2::geom_abline(slope = 1, intercept = 0, linetype = "dashed", colour = "grey40") +
    drawn$layers +
    ggplot2::coord_equal(xlim = c(lower, 1), ylim = c(lower, 1)) +
    ggplot2::scale_x_continuous(labels = drawn$percent, n.breaks = drawn$breaks) +
    ggplot2::scale_y_continuous(labels = drawn$percent, n.breaks = drawn$breaks) +
    ggplot2::labs(x = sprintf("Nominal level of the %s interval%s", interval, drawn$unit),
                  y = sprintf("Rows whose %s lies inside%s", reference, drawn$unit), colour = NULL,
                  title = sprintf("Coverage of the %s intervals", interval),
                  subtitle = subtitle, caption = caption) +
    plot_theme() +
    drawn$theme
}

# Few groups: a line of each group's colour beside the black line of all rows, the legend at
# the bottom in as many columns as its labels leave room for.
coverage_lines <- function(points, grouped) {
  curves <- levels(points$curve)
  legend <- legend_columns(curves)
  colours <- stats::setNames(c("black", sensor_palette(length(curves) - 1L)), curves)
  list(data = points, breaks = NULL, percent = function(p) paste0(100 * p, "%"), unit = "",
       layers = list(ggplot2::geom_line(linewidth = 0.8), ggplot2::geom_point(size = 2.2),
                     ggplot2::scale_colour_manual(values = colours, labels = stats::setNames(legend$labels, curves),
                                                  guide = if (grouped) ggplot2::guide_legend(ncol = legend$ncol) else "none")))
}

# Many groups: one square panel per group, each with the group's line and points over the grey
# line of all rows. The drawn data are the groups' points (`curve` their group).
coverage_panels <- function(points, groups, group_word, grid) {
  all_rows <- points[points$curve == "all rows", c("nominal", "empirical"), drop = FALSE]
  all_rows$key <- "all rows"  # no `curve` column: drawn in every panel
  own <- points[points$curve != "all rows", , drop = FALSE]
  own$curve <- droplevels(own$curve)
  own$key <- paste("the panel's", group_word)
  colours <- stats::setNames(c("grey55", "#0072B2"), c("all rows", own$key[1]))
  # Ticks in percent without the sign ("50", "75"), which the axis titles give: narrow panels.
  list(data = own, breaks = 3L, percent = function(p) format(100 * p), unit = " (%)",
       layers = list(ggplot2::geom_line(data = all_rows, ggplot2::aes(colour = .data$key), linewidth = 0.7),
                     ggplot2::geom_line(ggplot2::aes(colour = .data$key), linewidth = 0.7),
                     ggplot2::geom_point(ggplot2::aes(colour = .data$key), size = 1.2, show.legend = FALSE),
                     ggplot2::scale_colour_manual(values = colours, breaks = names(colours)),
                     labelled_facets("curve", groups, grid$labels, ncol = grid$ncol)),
       theme = ggplot2::theme(panel.spacing.x = ggplot2::unit(10, "pt")))
}
