# The "scatter" picture of autoplot(): the fused estimate against the reference, the 1:1 line the
# diagonal of panels with the same limits on both axes. The rows that carried the reference in
# the fit (colocation_rows()) are drawn apart and scored apart: the subtitle's figures are those
# of the other rows, the co-location rows' stand beside their key in the legend.

# The most one side of a panel of equal axes may exceed the other at 7 x 5 inches (panel_grid()):
# enough to fill the figure's width beside a legend, little enough to keep the 1:1 line near
# 45 degrees.
panel_stretch <- 4 / 3
# Panels narrower than this (inches) get fewer axis breaks; points between panels of a grid, for
# the last tick label of one and the first of the next.
narrow_panel_in <- 1
equal_panel_spacing_pt <- 12

# panel_grid() of panels of equal axes: a side at most panel_stretch times the other, apart by
# equal_panel_spacing_pt.
equal_grid <- function(labels, room, extra = NULL) {
  panel_grid(labels, room, extra = extra, stretch = panel_stretch, spacing = equal_panel_spacing_pt / 72)
}

plot_scatter <- function(source, newdata, plain, reference, date, call, panels = NULL) {
  rows <- reference_rows(source, newdata, plain, reference, call)
  colocation <- colocation_rows(source, newdata, reference, date)
  in_fit <- if (is.null(colocation$rows)) rep(FALSE, sum(rows$usable)) else colocation$rows[rows$usable]
  far <- far_rows(rows$pred)[rows$usable]
  role_labels <- c(other = "other rows", fit = sprintf("co-location rows (%s in the fit)", paste(source$model$reference, collapse = ", ")),
                   far = far_label())
  points <- data.frame(reference = rows$reference, fused = rows$pred$.pred[rows$usable],
                       where = factor(ifelse(in_fit, "fit", ifelse(far, "far", "other")), levels = names(role_labels)))
  points$group <- rows$group
  # Drawn in this order: the co-location rows over the others, the few far rows over all.
  points <- points[order(as.integer(points$where)), , drop = FALSE]
  # The rows the figures count (and the strips' n): all of them when every row is a co-location row.
  scored <- points$where != "fit"
  every <- if (is.null(rows$group)) "" else sprintf(" (all %ss)", source$group_word)
  stats_txt <- if (!any(scored)) {
    sprintf("Every row had a reading of %s in the fit (its co-location): %s%s", source$model$reference,
            score_text(points$reference, points$fused), every)
  } else if (any(!scored)) {
    sprintf("Rows outside the co-location: %s%s", score_text(points$reference[scored], points$fused[scored]), every)
  } else paste0(score_text(points$reference, points$fused), every)
  # The co-location rows' own figures, beside their key (where the legend has room for them).
  if (any(!scored) && any(scored)) {
    role_labels[["fit"]] <- paste0(role_labels[["fit"]], ": ", score_text(points$reference[!scored], points$fused[!scored]))
  }
  # The legend's keys: the other rows beside the co-location rows (below panels, where the width
  # is short, the subtitle names them), and the rows far outside the calibration range.
  role_keys <- function(beside) names(role_labels)[c(beside && any(!scored) && any(scored), any(!scored), any(points$where == "far"))]
  keys <- role_keys(is.null(rows$group))
  legend_lines <- if (length(keys)) role_legend(role_labels[keys], beside = FALSE)$lines
  # The height left for the panels: the figure's less its title, subtitle, axis, legend and caption.
  room <- function(subtitle, caption) {
    plot_height_in - 0.8 - 0.19 * n_lines(subtitle) - (if (length(keys)) 0.25 + 0.15 * legend_lines else 0) -
      (if (is.null(caption)) 0 else 0.15 * n_lines(caption))
  }
  # The panels drawn, of all groups of newdata (by default as many as are at least
  # min_square_side a side); the subtitle's figures stay those of all rows.
  fits <- function(shown) {
    caption <- wrap_caption(c("Panels 1-20 of 100 shown.", left_out_caption(rows), colocation$note))
    in_shown <- points$group %in% shown
    counted <- if (any(scored)) scored else !scored
    !any(in_shown) || scatter_grid(factor(points$group[in_shown], levels = shown), counted[in_shown],
                                   room(wrap_subtitle(stats_txt), caption))$side >= min_square_side
  }
  picked <- if (!is.null(rows$group)) pick_panels(levels(rows$group), panels, "scatter", source$group_word, call, fits)
  if (!is.null(picked)) {
    points <- points[points$group %in% picked$shown, , drop = FALSE]
    points$group <- factor(points$group, levels = picked$shown)
    scored <- points$where != "fit"
    keys <- role_keys(FALSE)
    legend_lines <- if (length(keys)) role_legend(role_labels[keys], beside = FALSE)$lines
  }
  counted <- if (any(scored)) scored else !scored
  limits <- range(points$reference, points$fused)
  caption_lines <- c(picked$note, left_out_caption(rows), colocation$note)
  caption <- if (length(caption_lines)) wrap_caption(caption_lines)
  grid <- scatter_grid(points$group, counted, room(wrap_subtitle(stats_txt), caption))
  subtitle <- wrap_subtitle(paste(c(stats_txt, panels_note(grid)), collapse = "; "))
  if (!is.null(grid$key)) grid <- scatter_grid(points$group, counted, room(subtitle, caption))
  legend <- role_legend(role_labels[keys], beside = is.null(grid))
  shape <- if (is.null(grid)) beside_legend_panel(legend, subtitle, caption) else grid
  n_other <- max(1, sum(points$where == "other"))
  ggplot2::ggplot(points, ggplot2::aes(.data$reference, .data$fused)) +
    ggplot2::geom_abline(slope = 1, intercept = 0, linetype = "dashed", colour = "grey40") +
    # The few rows far outside stay visible however many rows fade the others.
    ggplot2::geom_point(ggplot2::aes(colour = .data$where, shape = .data$where, alpha = .data$where,
                                     size = .data$where), stroke = 0) +
    role_scale(ggplot2::scale_colour_manual, c(other = "#0072B2", fit = "#009E73", far = far_colour), legend) +
    role_scale(ggplot2::scale_shape_manual, c(other = 16, fit = 17, far = 16), legend) +
    role_scale(ggplot2::scale_alpha_manual, c(other = min(0.7, max(0.1, 200 / n_other)),
                                              fit = min(0.8, max(0.3, 200 / max(1, sum(!scored)))), far = 1), legend) +
    role_scale(ggplot2::scale_size_manual, c(other = 1.2, fit = 1.5, far = 2), legend) +
    role_guides(length(keys) > 0L, legend$ncol) +
    equal_axes(limits, shape) +
    (if (!is.null(grid)) labelled_facets("group", grid$shown, grid$labels, ncol = grid$ncol)) +
    ggplot2::labs(x = sprintf("Reference (%s)", paste(c(reference, estimate_unit(source$model)), collapse = ", ")),
                  y = with_unit(paste(source$fused_label, "estimate"), estimate_unit(source$model)),
                  title = "Fused estimate against the reference", subtitle = subtitle, caption = caption) +
    plot_theme() +
    equal_axes_theme(is.null(grid), shape$aspect)
}

# A grid of panels of equal axes, one per group of `group` (a factor of the rows drawn; NULL
# without groups), as large as `room` inches of height allow, each strip naming its group in full
# and its number of rows `scored` (the rows the subtitle's figures count); `shown`, the groups.
scatter_grid <- function(group, scored, room) {
  if (is.null(group)) return(NULL)
  group <- droplevels(group)
  counts <- format(as.vector(table(group[scored])), big.mark = ",", trim = TRUE)
  c(equal_grid(levels(group), room, extra = paste("n =", counts)),
    list(shown = levels(group)))
}

# The legend of the points' roles (named labels, in the order shown): beside the panel of a
# picture without panels, its labels wrapped to a column of legend_width_in inches; below a grid
# of panels, in as many columns as fit.
legend_width_in <- 1.9
role_legend <- function(labels, beside) {
  if (!length(labels)) return(list(labels = labels, ncol = 1L, width = 0))
  if (beside) {
    wrapped <- vapply(labels, wrap_plot_text, character(1), width = chars_in(legend_width_in, legend_pt))
    widest <- max(nchar(unlist(strsplit(wrapped, "\n", fixed = TRUE))))
    return(list(labels = stats::setNames(wrapped, names(labels)), ncol = 1L,
                width = 0.45 + widest * legend_pt * 0.55 / 72))
  }
  # Below the panels: in one row of keys, in as few lines as let all fit, labels that fit on one
  # line left whole.
  room <- chars_in(plot_width_in - 0.4, legend_pt) - length(labels) * floor(0.35 * 72 / (legend_pt * 0.55))
  widest_line <- function(text) max(nchar(strsplit(text, "\n", fixed = TRUE)[[1]]))
  for (lines in 1:4) {
    width <- vapply(labels, function(l) {
      w <- ceiling(nchar(l) / lines)
      while (n_lines(wrap_plot_text(l, w)) > lines && w <= nchar(l)) w <- w + 1L
      w
    }, numeric(1))
    wrapped <- mapply(wrap_plot_text, labels, width)
    used <- vapply(wrapped, widest_line, numeric(1))
    if (sum(used) <= room || lines == 4L) break
  }
  for (i in order(nchar(labels))) {
    if (sum(used) - used[i] + nchar(labels[i]) <= room) {
      wrapped[i] <- labels[i]
      used[i] <- nchar(labels[i])
    }
  }
  list(labels = stats::setNames(wrapped, names(labels)), ncol = length(labels), width = 0, lines = max(n_lines(wrapped)))
}

# One legend of the four scales of the points' roles in `ncol` columns, its keys opaque; or none.
role_guides <- function(shown, ncol) {
  if (!shown) return(ggplot2::guides(colour = "none", shape = "none", alpha = "none", size = "none"))
  ggplot2::guides(colour = ggplot2::guide_legend(override.aes = list(alpha = 1, size = 2), ncol = ncol, byrow = TRUE),
                  shape = ggplot2::guide_legend(ncol = ncol, byrow = TRUE), alpha = ggplot2::guide_legend(ncol = ncol, byrow = TRUE),
                  size = ggplot2::guide_legend(ncol = ncol, byrow = TRUE))
}

# A manual scale of the roles' `values`, its legend naming the roles in `legend`.
role_scale <- function(scale, values, legend) {
  scale(values = values, breaks = names(legend$labels), labels = unname(legend$labels), name = NULL, drop = FALSE)
}

# The panel of a picture without panels beside its legend (`legend$width` inches): its aspect
# (height / width) filling the room at 7 x 5 inches, each side at most panel_stretch times the
# other.
beside_legend_panel <- function(legend, subtitle, caption) {
  width <- plot_width_in - 0.75 - legend$width
  height <- plot_height_in - 0.35 - 0.19 * n_lines(subtitle) - 0.5 -
    (if (is.null(caption)) 0 else 0.15 * n_lines(caption)) - 0.15
  list(aspect = min(panel_stretch, max(1 / panel_stretch, height / width)), width = min(width, height * panel_stretch))
}

# The legend beside a picture without panels (its keys a little apart: their labels span lines),
# below a grid of panels; the panels' aspect; room between panels for their tick labels.
equal_axes_theme <- function(beside, aspect) {
  ggplot2::theme(legend.position = if (beside) "right" else "bottom", aspect.ratio = aspect,
                 legend.spacing.y = ggplot2::unit(if (beside) 5 else 0, "pt"),
                 panel.spacing.x = ggplot2::unit(equal_panel_spacing_pt, "pt"))
}

# Axes with the same limits (so that the 1:1 line runs corner to corner) and, in narrow panels,
# three breaks (or those given); labels that would still touch are left out.
equal_axes <- function(limits, shape, labels = ggplot2::waiver(), narrow_breaks = NULL) {
  narrow <- !is.null(shape$width) && shape$width < narrow_panel_in
  breaks <- if (narrow && !is.null(narrow_breaks)) narrow_breaks else ggplot2::waiver()
  n_breaks <- if (narrow && is.null(narrow_breaks)) 3L
  list(ggplot2::coord_cartesian(xlim = limits, ylim = limits),
       ggplot2::scale_x_continuous(breaks = breaks, n.breaks = n_breaks, labels = labels,
                                   guide = ggplot2::guide_axis(check.overlap = TRUE)),
       ggplot2::scale_y_continuous(breaks = breaks, n.breaks = n_breaks, labels = labels))
}
