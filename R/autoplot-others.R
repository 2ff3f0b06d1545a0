# ggplot2 pictures of the other fitted objects: a baseline, one NCAM per group (ncam_by) and a
# gap selection. The fused-value pictures are those of autoplot.ncam() (autoplot-fused.R).

#' Plot a baseline, per-group fits or a gap selection with ggplot2
#'
#' * For a baseline from [ncam_baseline()]: the `"series"`, `"scatter"` and `"coverage"`
#'   pictures of [autoplot.ncam()], with the baseline's fused value and its `"credible"`
#'   interval (the mean has no interval: its series has no ribbon, and it has no coverage
#'   picture).
#' * For fits from [ncam_by()]: the pictures of [autoplot.ncam()] with one panel per group
#'   (`"loss"`, `"series"`, `"scatter"`), in the order of the `by` columns' values;
#'   `"coverage"` draws one line per group beside the line of all rows (for more than 7
#'   groups, a panel per group); for many groups, the first ones that fit a 7 x 5 inch figure,
#'   see `panels`. The series shades each group's co-location, kept in its fit. `newdata` must hold the `by` columns; each row goes to its group's
#'   model as in [predict.ncam_by()]. The series plot draws one time series per group.
#' * For a calibration from [calibrate()] (of one fit, or of fits by group): the `"coverage"`
#'   (default), `"series"` and `"scatter"` pictures with its conformal intervals, at the
#'   calibration's level for `"series"` unless `level` says otherwise (for calibrations by
#'   group, the first group's), at 50, 55, ..., 95 % for `"coverage"`. A level that a
#'   calibration has too few rows for gives infinite bounds, with its warning.
#' * For a gap selection from [select_gap()]: the autocorrelation of the residuals against the
#'   lag, the band inside which it counts as negligible (dashed) and the selected gap
#'   (dotted), one panel per series.
#'
#' @param object A baseline, `ncam_by` fits, a calibration (of one fit or of fits by group)
#'   or an `ncam_gap`.
#' @param type Which picture; see [autoplot.ncam()].
#' @param newdata,date,reference,level,interval,panels As for [autoplot.ncam()]; a baseline and a
#'   calibration have no `interval` choice, a baseline no `panels`. For fits by group, `panels`
#'   picks groups (in `"loss"` too, among the groups with a model), at most 20 drawn by default
#'   in `"loss"`.
#' @param ... Must be empty; a misspelt argument is an error.
#' @return A ggplot object.
#' @seealso [autoplot.ncam()]
#' @name autoplot-others
#' @examplesIf requireNamespace("ggplot2", quietly = TRUE)
#' toy <- simulate_toy(600, seed = 1)
#' toy$date <- as.Date("2024-01-01") + rep(0:299, 2)
#' toy$site <- rep(c("north", "south"), each = 300)
#' base <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, toy, "factor")
#' ggplot2::autoplot(base, "scatter", newdata = toy, reference = "truth")
#' fits <- ncam_by(sensor_0 + sensor_1 + sensor_2 ~ x1, data = toy, by = "site",
#'                 hidden = 8, epochs = 200, learn_rate = 0.02, seed = 1)
#' ggplot2::autoplot(fits)
#' ggplot2::autoplot(fits, "coverage", newdata = toy, reference = "truth")
#' gap <- select_gap(toy$sensor_1 - toy$truth, max_lag = 20)
#' ggplot2::autoplot(gap)
NULL

#' @rdname autoplot-others
#' @method autoplot ncam_baseline
#' @rawNamespace S3method(ggplot2::autoplot, ncam_baseline)
autoplot.ncam_baseline <- function(object, type = c("series", "scatter", "coverage"), newdata = NULL,
                                   date = "date", reference = NULL, level = NULL, ...) {
  check_column_name_args(c("date", "reference"))
  check_dots_empty_hinted()
  check_object_format(object)
  call <- rlang::current_env()
  check_ggplot2(call)
  type <- match_choice(type, c("series", "scatter", "coverage"), "type")
  check_plot_newdata(newdata, type, call)
  if (!is.null(level)) check_level(level)
  interval <- if (object$method == "mean") "none" else "credible"
  if (type == "coverage" && interval == "none") {
    ncam_abort(c("The {.val mean} baseline has no interval, so it has no coverage picture.",
                 i = "Fit a baseline with one, such as {.val ivw} or {.val factor}."), call = call)
  }
  plot_fused(fused_source(object), type, newdata, date, reference, level, interval, call)
}

#' @rdname autoplot-others
#' @method autoplot ncam_by
#' @rawNamespace S3method(ggplot2::autoplot, ncam_by)
autoplot.ncam_by <- function(object, type = c("loss", "series", "scatter", "coverage"), newdata = NULL,
                             date = "date", reference = NULL, level = NULL, interval = NULL, panels = NULL, ...) {
  check_column_name_args(c("date", "reference"))
  check_dots_empty_hinted()
  check_ncam_by(object)
  call <- rlang::current_env()
  check_ggplot2(call)
  type <- match_choice(type, c("loss", "series", "scatter", "coverage"), "type")
  if (!any(has_fit(object))) ncam_abort("{.arg object} has no fitted group to plot.", call = call)
  if (type == "loss") return(plot_group_losses(object, panels, call))
  check_plot_newdata(newdata, type, call)
  if (!is.null(level)) check_level(level)
  interval <- plot_interval(interval, object$fit[[which(has_fit(object))[1]]])
  plot_fused(fused_source(object), type, newdata, date, reference, level, interval, call, panels)
}

# Each group's training and validation curves in its own panel, its best epoch marked: of the
# groups with a model, those `panels` picks (pick_panels()).
plot_group_losses <- function(object, panels = NULL, call = parent.frame()) {
  fitted_groups <- which(has_fit(object))
  labels <- group_labels(object[attr(object, "by")])
  picked <- pick_panels(labels[fitted_groups], panels, "loss", "group", call)
  fitted_groups <- fitted_groups[match(picked$shown, labels[fitted_groups])]
  parts <- lapply(fitted_groups, function(g) cbind(group = labels[g], loss_curves(object$fit[[g]]$history)))
  curves <- do.call(rbind, parts)
  curves$group <- factor(curves$group, levels = labels[fitted_groups])
  best <- data.frame(group = factor(labels[fitted_groups], levels = labels[fitted_groups]),
                     epoch = vapply(object$fit[fitted_groups], function(f) as.numeric(f$best_epoch), numeric(1)))
  skipped <- sum(!has_fit(object))
  grid <- panel_grid(levels(curves$group), square = FALSE)
  ggplot2::ggplot(curves, ggplot2::aes(.data$epoch, .data$nll, colour = .data$curve)) +
    ggplot2::geom_vline(data = best, ggplot2::aes(xintercept = .data$epoch), linetype = "dashed",
                        colour = "grey45") +
    ggplot2::geom_line(linewidth = 0.7) +
    labelled_facets("group", levels(curves$group), grid$labels, ncol = grid$ncol, scales = "free_y") +
    ggplot2::scale_colour_manual(values = loss_colours) +
    ggplot2::labs(x = "Epoch", y = "Negative log-likelihood per row", colour = NULL,
                  title = "NCAM training, one model per group",
                  subtitle = wrap_subtitle(paste(c("Dashed: the best epoch, chosen on the capped validation NLL, whose weights each model keeps",
                                                   panels_note(grid)), collapse = "; ")),
                  caption = wrap_caption(c(picked$note, if (skipped > 0L) sprintf("%d group%s without a model not shown.", skipped,
                                                                                  if (skipped == 1L) "" else "s")))) +
    plot_theme()
}

#' @rdname autoplot-others
#' @method autoplot ncam_calibration
#' @rawNamespace S3method(ggplot2::autoplot, ncam_calibration)
autoplot.ncam_calibration <- function(object, type = c("coverage", "series", "scatter"), newdata = NULL,
                                      date = "date", reference = NULL, level = NULL, panels = NULL, ...) {
  check_column_name_args(c("date", "reference"))
  check_dots_empty_hinted(calibrated_interval_hint)
  check_calibration(object)
  plot_calibrated(object, type, newdata, date, reference, level, object$level, panels)
}

#' @rdname autoplot-others
#' @method autoplot ncam_by_calibration
#' @rawNamespace S3method(ggplot2::autoplot, ncam_by_calibration)
autoplot.ncam_by_calibration <- function(object, type = c("coverage", "series", "scatter"), newdata = NULL,
                                         date = "date", reference = NULL, level = NULL, panels = NULL, ...) {
  check_column_name_args(c("date", "reference"))
  check_dots_empty_hinted(calibrated_interval_hint)
  check_ncam_by_calibration(object)
  if (!any(has_fit(object))) ncam_abort("{.arg object} has no calibrated group to plot.")
  # The series ribbon at one level for all groups: the first group's, unless given.
  plot_calibrated(object, type, newdata, date, reference, level, group_models(object)[[which(has_fit(object))[1]]]$level,
                  panels)
}

# The fused-value pictures of a calibration (or calibrations by group), with its conformal
# intervals: the series at `own_level` unless `level` is given.
plot_calibrated <- function(object, type, newdata, date, reference, level, own_level, panels, call = parent.frame()) {
  check_ggplot2(call)
  type <- match_choice(type, c("coverage", "series", "scatter"), "type", call = call)
  check_plot_newdata(newdata, type, call)
  if (!is.null(level)) check_level(level, call = call)
  if (type == "series" && is.null(level)) level <- own_level
  plot_fused(fused_source(object), type, newdata, date, reference, level, "conformal", call, panels)
}

#' @rdname autoplot-others
#' @method autoplot ncam_gap
#' @rawNamespace S3method(ggplot2::autoplot, ncam_gap)
autoplot.ncam_gap <- function(object, ...) {
  check_dots_empty_hinted()
  check_ggplot2(rlang::current_env())
  acf <- object$acf
  series <- if (is.null(acf$series)) rep(names(object$band)[1], nrow(acf)) else acf$series
  lag_unit <- if (is.null(object$step)) "rows" else units(acf$lag)
  points <- data.frame(lag = as.numeric(acf$lag), acf = acf$acf,
                       series = factor(series, levels = names(object$band)))
  bands <- data.frame(series = factor(names(object$band), levels = names(object$band)),
                      band = unname(object$band))
  gap_txt <- if (is.na(object$gap)) "none found: the ACF never enters the band" else {
    paste0("selected gap ", format_lag(object$gap),
           if (length(object$band) > 1L) " (the largest over the series)")
  }
  gap_line <- if (!is.na(object$gap)) {
    ggplot2::geom_vline(xintercept = as.numeric(object$gap), linetype = "dotted", colour = "#D55E00",
                        linewidth = 0.8)
  }
  ggplot2::ggplot(points, ggplot2::aes(.data$lag, .data$acf)) +
    ggplot2::geom_hline(yintercept = 0, colour = "grey40") +
    ggplot2::geom_hline(data = bands, ggplot2::aes(yintercept = .data$band), linetype = "dashed",
                        colour = "#0072B2") +
    ggplot2::geom_hline(data = bands, ggplot2::aes(yintercept = -.data$band), linetype = "dashed",
                        colour = "#0072B2") +
    ggplot2::geom_segment(ggplot2::aes(xend = .data$lag, yend = 0), colour = "grey25") +
    gap_line +
    ggplot2::facet_wrap(ggplot2::vars(.data$series)) +
    ggplot2::labs(x = sprintf("Lag (%s)", lag_unit), y = "Autocorrelation of the residuals",
                  title = "Residual autocorrelation and the gap between blocks",
                  subtitle = sprintf("Dashed: the %g%% band; %s", 100 * object$level, gap_txt)) +
    plot_theme()
}
