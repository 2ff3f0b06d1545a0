# The picture of sensor_performance(): per metric with a target, each unit's value against the
# target's range, on the rows whose time step the targets are set for.

#' @rdname ncam_performance-methods
#' @method autoplot ncam_performance
#' @rawNamespace S3method(ggplot2::autoplot, ncam_performance)
autoplot.ncam_performance <- function(object, ...) {
  check_dots_empty_hinted()
  call <- rlang::current_env()
  check_ggplot2(call)
  targets <- performance_targets_of(object, arg = "object", call = call)
  long <- tidy.ncam_performance(object)
  points <- as.data.frame(long[!is.na(long$target) & !is.na(long$value), ])
  if (nrow(points) == 0L) {
    set_for <- sub(" hours?$", "-hour", targets$averaging[1])
    block <- if (set_for == "24-hour") "24h" else "1h"
    ncam_abort(c("{.arg object} has no metric on rows of {set_for} values, which the
                  {pollutant_label(attr(object, 'pollutant'))} targets are set for: nothing to plot.",
                 i = "Ask {.fn sensor_performance} for them, such as with
                      {.code averaging = {.val {block}}}."),
               call = call)
  }
  symbols <- performance_symbols(figure = TRUE)
  spec <- performance_metric_table
  panels <- spec$metric[spec$metric %in% points$metric]
  units <- unique(as.character(object$unit))
  units <- c(setdiff(units, "all"), intersect("all", units))
  # Room for each unit's label: many units take one row of panels (at 7 x 5 inches, 12 points
  # a label for 19 units), others two.
  rows <- if (length(units) > 10L || length(panels) <= 3L) 1L else 2L
  columns <- ceiling(length(panels) / rows)
  # Characters of 8-point text across a panel of a 7-inch figure.
  width <- floor((440 - 12 * (columns - 1)) / columns / 5)
  titles <- performance_panel_titles(panels, targets, object$limit_value[1], symbols, width)
  points$panel <- factor(titles[points$metric], levels = titles)
  points$unit <- factor(points$unit, levels = rev(units))
  points$verdict <- factor(ifelse(is.na(points$within), "not judged",
                                  ifelse(points$within, "within the target", "outside the target")),
                           levels = c("within the target", "outside the target", "not judged"))
  blocks <- unique(points$averaging)
  points$block <- factor(averaging_words(points$averaging), levels = averaging_words(blocks))
  bands <- unique(points[c("panel", "lower", "upper")])
  edges <- data.frame(panel = rep(bands$panel, 2), x = c(bands$lower, bands$upper))
  # A line between the units and their summary row.
  split_line <- if (length(units) > 1L && "all" %in% units) {
    ggplot2::geom_hline(yintercept = 1.5, colour = "grey60", linewidth = 0.4)
  }
  block_txt <- paste(vapply(blocks, function(avg) {
    if (avg != "as_given") return(tolower(averaging_words(avg)))
    steps <- unique(points$time_step[points$averaging == avg])
    paste0("the data as given (", paste(sub(" hours?$", "-hour", steps), collapse = ", "), " values)")
  }, character(1)), collapse = " and ")
  several <- length(blocks) > 1L
  ggplot2::ggplot(points, ggplot2::aes(.data$value, .data$unit)) +
    ggplot2::geom_rect(data = bands, ggplot2::aes(xmin = .data$lower, xmax = .data$upper,
                                                  ymin = -Inf, ymax = Inf),
                       inherit.aes = FALSE, fill = "#009E73", alpha = 0.12) +
    ggplot2::geom_vline(data = edges, ggplot2::aes(xintercept = .data$x), colour = "#009E73",
                        linetype = "dashed", linewidth = 0.4) +
    split_line +
    ggplot2::geom_point(ggplot2::aes(colour = .data$verdict, shape = .data$block), size = 2.2) +
    ggplot2::facet_wrap(ggplot2::vars(.data$panel), scales = "free_x", nrow = rows) +
    ggplot2::scale_colour_manual(values = c(`within the target` = "#009E73",
                                            `outside the target` = "#D55E00",
                                            `not judged` = "grey55"), drop = FALSE, name = NULL) +
    ggplot2::scale_shape_manual(values = c(16, 17, 15)[seq_along(blocks)], name = NULL,
                                guide = if (several) "legend" else "none") +
    # Labels that would overlap (many units in a short figure) are thinned, not smeared.
    ggplot2::scale_y_discrete(drop = FALSE, guide = ggplot2::guide_axis(check.overlap = TRUE)) +
    ggplot2::scale_x_continuous(n.breaks = if (columns >= 6L) 3L else 4L,
                                expand = ggplot2::expansion(mult = 0.08)) +
    ggplot2::labs(x = NULL, y = NULL,
                  title = sprintf("Performance for %s (%s) against the %s targets",
                                  pollutant_label(attr(object, "pollutant")),
                                  attr(targets, "units"), framework_words(targets)),
                  subtitle = sprintf("On %s; shaded: each target's range", block_txt),
                  caption = performance_plot_caption(panels, units, symbols)) +
    plot_theme() +
    ggplot2::theme(legend.position = "bottom", strip.text = ggplot2::element_text(size = 8),
                   axis.text = ggplot2::element_text(size = 8),
                   panel.spacing.x = ggplot2::unit(12, "pt"),
                   plot.caption = ggplot2::element_text(hjust = 0, colour = "grey35"))
}

# Panel titles: the metric (wrapped at `width` characters), then its range and unit, such as
# "RMSE\n<= 7 ug/m3".
performance_panel_titles <- function(panels, targets, limit_value, symbols, width = 22L) {
  spec <- performance_metric_table[match(panels, performance_metric_table$metric), ]
  at <- match(spec$threshold, targets$metric)
  concentration <- attr(targets, "units")
  split <- targets$upper[targets$metric == "between_sampler_split"]
  side <- if (length(split)) format(split) else ""
  names <- c(r2 = symbols[["r2"]], slope = "Slope", intercept = "Intercept", rmse = "RMSE",
             nrmse = "NRMSE", sd = "Inter-unit SD", cv = "Inter-unit CV",
             expanded_uncertainty = sprintf("EU expanded uncertainty at %s %s",
                                            format(signif(limit_value, 4)), concentration),
             between_sampler_uncertainty = "EU between-sampler",
             between_sampler_uncertainty_below = sprintf("EU between-sampler, reference < %s", side),
             between_sampler_uncertainty_above = sprintf("EU between-sampler, reference %s %s",
                                                         symbols[["ge"]], side))
  wrap <- function(text) vapply(text, function(t) paste(strwrap(t, width), collapse = "\n"), "")
  unit_txt <- ifelse(targets$unit[at] == "", "", paste0(" ", targets$unit[at]))
  ranges <- paste0(threshold_text(spec$threshold, targets$lower[at], targets$upper[at], symbols),
                   unit_txt)
  stats::setNames(paste0(wrap(names[spec$metric]), "\n", wrap(ranges)), panels)
}

performance_plot_caption <- function(panels, units, symbols) {
  notes <- c(
    if (any(c("rmse", "nrmse") %in% panels)) "The error target is met when RMSE or NRMSE is within its range",
    if (any(c("sd", "cv") %in% panels)) "the precision target when SD or CV is",
    if (length(units) > 2L && "all" %in% units) {
      sprintf("row all: %s, slope and intercept are the means of the units'", symbols[["r2"]])
    },
    "grey: not judged (see the table's note)"
  )
  txt <- paste(notes, collapse = "; ")
  paste(strwrap(paste0(toupper(substring(txt, 1, 1)), substring(txt, 2), "."), width = 110),
        collapse = "\n")
}
