# The "coverage" picture of autoplot(): the fraction of rows whose reference lies inside the
# interval against its nominal level. With groups (ncam_by() fits, unit offsets), up to
# max_colour_groups groups are drawn as lines of their own colour beside the line of all rows;
# more colours cannot be told apart, and their legend would crowd out the panel: then each
# group gets a small panel of its own, its line beside the grey line of all rows.
max_colour_groups <- 7L

# newdata is predicted once per level: what its rows warn of (groups without a model, spikes)
# is said once. The rows that carried the reference in the fit (colocation_rows()) are left out
# of the lines, and drawn as a line of their own beside few groups' lines (else in the caption).
plot_coverage <- function(source, newdata, plain, reference, date, levels, interval, call, panels = NULL) {
  once <- muffle_repeated_warnings()
  rows <- withCallingHandlers(reference_rows(source, newdata, plain, reference, call), warning = once)
  ref <- rows$reference
  colocation <- colocation_rows(source, newdata, reference, date)
  in_fit <- if (is.null(colocation$rows)) rep(FALSE, length(ref)) else colocation$rows[rows$usable]
  apart <- any(in_fit) && !all(in_fit)  # co-location rows scored apart from the others
  scored <- if (apart) !in_fit else rep(TRUE, length(ref))
  inside <- withCallingHandlers(without_part_warnings(lapply(levels, function(level) {  # reference_rows() warned
    pred <- source$predict(newdata, interval = interval, level = level)[rows$usable, ]
    ref >= pred$.pred_lower & ref <= pred$.pred_upper
  })), warning = once)
  coverage_of <- function(keep, name) {
    data.frame(nominal = levels, curve = name,
               empirical = vapply(inside, function(hit) mean(hit[keep]), numeric(1)))
  }
  all_rows <- if (apart) "rows outside the co-location" else "all rows"
  points <- coverage_of(scored, all_rows)
  # The groups drawn, of all groups of newdata, those with rows to compare (units in their order);
  # the line of all rows stays that of every group.
  # By default as many panels as are at least min_square_side a side.
  subtitle <- sprintf("%s rows %swith both a reference value and an estimate%s",
                      format(sum(scored), big.mark = ","), if (apart) "outside the co-location " else "",
                      if (all(in_fit)) sprintf(", each with a reading of %s in the fit (its co-location)", source$model$reference) else "")
  fit_label <- sprintf("the %s co-location rows (%s in the fit)", format(sum(in_fit), big.mark = ","), source$model$reference)
  room <- function(subtitle, caption) plot_height_in - 1.35 - 0.19 * n_lines(subtitle) - 0.15 * n_lines(caption)
  with_rows <- if (!is.null(rows$group)) levels(droplevels(rows$group[scored]))
  fits <- function(shown) {
    shown <- intersect(shown, with_rows)
    caption <- wrap_caption(c("Dashed diagonal: perfect calibration.", "Panels 1-20 of 100 shown.", left_out_caption(rows),
                              if (apart) colocation_caption(fit_label, inside, in_fit, levels), colocation$note))
    length(shown) <= max_colour_groups ||
      equal_grid(shown, room(wrap_subtitle(paste0(subtitle, ", one panel per unit")), caption))$side >= min_square_side
  }
  picked <- if (!is.null(rows$group)) pick_panels(levels(rows$group), panels, "coverage", source$group_word, call, fits)
  groups <- intersect(picked$shown, with_rows)
  in_panels <- length(groups) > max_colour_groups
  if (!in_panels) picked$note <- sub("^Panel", "Line", picked$note)
  points <- rbind(points, do.call(rbind, lapply(groups, function(g) coverage_of(scored & rows$group == g, g))))
  if (apart && !in_panels) points <- rbind(points, coverage_of(in_fit, fit_label))
  points$curve <- factor(points$curve, levels = unique(points$curve))
  lower <- min(points$nominal, points$empirical, 0.5)
  caption <- wrap_caption(c("Dashed diagonal: perfect calibration.", picked$note, left_out_caption(rows),
                            if (apart && in_panels) colocation_caption(fit_label, inside, in_fit, levels), colocation$note))
  drawn <- if (in_panels) {
    grid <- equal_grid(groups, room(wrap_subtitle(subtitle), caption))
    subtitle <- paste0(subtitle, ", ", panels_note(grid, sprintf("one panel per %s", source$group_word)))
    coverage_panels(points, all_rows, groups, c(grid$key, source$group_word)[1],
                    equal_grid(groups, room(wrap_subtitle(subtitle), caption)))
  } else coverage_lines(points, all_rows, if (apart) fit_label)
  subtitle <- wrap_subtitle(subtitle)
  shape <- if (in_panels) drawn$grid else beside_legend_panel(drawn$legend, subtitle, caption)
  ggplot2::ggplot(drawn$data, ggplot2::aes(.data$nominal, .data$empirical, colour = .data$curve)) +
    ggplot2::geom_abline(slope = 1, intercept = 0, linetype = "dashed", colour = "grey40") +
    drawn$layers +
    # Narrow panels: quarters, the lowest above the axis's start (40 % would sit on the panel's
    # edge, beside the last label of the panel to its left).
    equal_axes(c(lower, 1), shape, labels = drawn$percent, narrow_breaks = seq(ceiling(4 * lower) / 4, 1, by = 0.25)) +
    ggplot2::labs(x = sprintf("Nominal level of the %s interval%s", interval, drawn$unit),
                  y = sprintf("Rows whose %s lies inside%s", reference, drawn$unit), colour = NULL, shape = NULL,
                  title = sprintf("Coverage of the %s intervals", interval),
                  subtitle = subtitle, caption = caption) +
    plot_theme() +
    equal_axes_theme(!in_panels, shape$aspect)
}

# The caption line of the co-location rows left out of panels: their coverage at the 90 % level
# (else the highest drawn).
colocation_caption <- function(fit_label, inside, in_fit, levels) {
  at <- if (any(abs(levels - 0.9) < 1e-9)) which.min(abs(levels - 0.9)) else length(levels)
  sprintf("Left out: %s, %.1f%% inside the %g%% interval.", fit_label,
          100 * mean(inside[[at]][in_fit]), 100 * levels[at])
}

# Few groups: a line of each group's colour beside the black line of all rows (`all_rows`), and
# the co-location rows' grey line with triangles (`fit_label`, NULL without), the legend beside
# the panel (none for the line of all rows alone).
coverage_lines <- function(points, all_rows, fit_label = NULL) {
  curves <- levels(points$curve)
  groups <- setdiff(curves, c(all_rows, fit_label))
  colours <- stats::setNames(c("black", sensor_palette(length(groups)), if (!is.null(fit_label)) "grey50"),
                             c(all_rows, groups, fit_label))
  shapes <- stats::setNames(ifelse(names(colours) %in% fit_label, 17, 16), names(colours))
  legend <- role_legend(stats::setNames(curves, curves), beside = TRUE)
  if (length(curves) == 1L) legend$width <- 0
  guide <- if (length(curves) > 1L) ggplot2::guide_legend(byrow = TRUE) else "none"
  list(data = points, percent = function(p) paste0(100 * p, "%"), unit = "", legend = legend,
       layers = list(ggplot2::geom_line(linewidth = 0.8), ggplot2::geom_point(ggplot2::aes(shape = .data$curve), size = 2.2),
                     ggplot2::scale_colour_manual(values = colours, breaks = curves, labels = unname(legend$labels), guide = guide),
                     ggplot2::scale_shape_manual(values = shapes, breaks = curves, labels = unname(legend$labels), guide = guide)))
}

# Many groups: one panel per group, each with the group's line and points over the grey line of
# all rows (`all_rows`). The drawn data are the groups' points (`curve` their group).
coverage_panels <- function(points, all_rows, groups, group_word, grid) {
  every <- points[points$curve == all_rows, c("nominal", "empirical"), drop = FALSE]
  every$key <- all_rows  # no `curve` column: drawn in every panel
  own <- points[points$curve != all_rows, , drop = FALSE]
  own$curve <- droplevels(own$curve)
  own$key <- paste("the panel's", group_word)
  colours <- stats::setNames(c("grey55", "#0072B2"), c(all_rows, own$key[1]))
  # Ticks in percent without the sign ("50", "75"), which the axis titles give: narrow panels.
  list(data = own, percent = function(p) format(100 * p), unit = " (%)", grid = grid,
       layers = list(ggplot2::geom_line(data = every, ggplot2::aes(colour = .data$key), linewidth = 0.7),
                     ggplot2::geom_line(ggplot2::aes(colour = .data$key), linewidth = 0.7),
                     ggplot2::geom_point(ggplot2::aes(colour = .data$key), size = 1.2, show.legend = FALSE),
                     ggplot2::scale_colour_manual(values = colours, breaks = names(colours)),
                     labelled_facets("curve", groups, grid$labels, ncol = grid$ncol)))
}
