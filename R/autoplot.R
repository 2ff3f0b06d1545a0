# ggplot2 pictures of a fitted NCAM. ggplot2 is only suggested: every ggplot2 call is
# qualified and autoplot.ncam() checks for the package first.

#' Plot a fitted NCAM with ggplot2
#'
#' Five pictures of a fitted model, each returned as a ggplot object that can
#' be modified further:
#' * `"loss"`: the training and validation negative log-likelihood per row at
#'   each epoch, with the best epoch (whose weights are kept) marked, and the
#'   validation NLL with each row's capped, on which early stopping chooses that
#'   epoch (see `stop_iter` in [ncam()]): its best can lie where the plain
#'   validation curve still falls, or already rises. When the
#'   first epochs' values dwarf the rest, the y axis zooms on the epochs after
#'   the first tenth and the caption says so.
#' * `"sensors"`: each sensor's learned gain, offset and noise standard
#'   deviation at the rows of `newdata`, against the column named by
#'   `covariate`: one point per row (at most 5,000 rows are drawn, evenly
#'   spaced) and a line through the means of all rows in 40 bins of equal
#'   width along the covariate (one bin per 10 rows for fewer than 400 rows;
#'   bins with fewer than 5 rows are skipped), broken where a bin has no rows
#'   (a gap in the data, such as months without readings; a bin between two
#'   empty ones is a bar across its rows); the caption names the covariate
#'   and the number of bins. The panels stand in two columns. The offset is
#'   the reading at a true value of 0, often far below the data, so a gain
#'   well above 1 with a negative offset can read close to the true value
#'   where the data lie: the first panel gives each sensor's reading, gain x
#'   value + offset (for a log model exp(gain x log value + offset)), at a
#'   typical true value, the anchor's median reading in training (the
#'   reference's, for a model fitted with `reference`), as its title says. A model without an anchor
#'   (`parameterization` `"unanchored"` or `"no_bias"`) has no such panel.
#'   Dashed lines mark a perfect sensor (that typical value, gain 1, offset
#'   0); the anchor sensor sits on them by construction. When other
#'   covariates also drive the parameters, the points at one value of
#'   `covariate` spread vertically. Offsets and noise are in reading units (log
#'   units for a model fitted with `transform = "log"`).
#' * `"series"`: the raw sensor readings, the fused estimate with its
#'   interval (see `interval`) at `level` as a ribbon, and the reference when
#'   `reference` names a column, against the `date` column. `newdata` must
#'   hold one time series (no repeated times); subset it to one site first.
#'   For a model fitted with `unit` offsets, one panel per unit of
#'   `newdata`'s unit column (in the order of its values, a factor's levels, text byte by byte),
#'   each one time series, as for fits by group from [ncam_by()]; the
#'   `"scatter"` then has one panel per unit too, and the `"coverage"` one
#'   line per unit beside that of all rows (for more than 7 units, a panel each). A figure of
#'   7 x 5 inches holds 6 series panels, and scatter or coverage panels while each has the area
#'   of a square 0.7 inches a side (18 sites named by number do; at most 20): for more units,
#'   the first ones are drawn, with a message and a caption naming the `panels` that draw the
#'   next.
#'   Crosses mark the fused values of rows that lie far outside the range the
#'   calibration was learned from (those `predict()` warns about; see the
#'   Extrapolation section of [predict.ncam()]). For a model fitted with
#'   `reference`, the co-location period is shaded (with a legend entry): the
#'   periods of the rows that carried the reference in the fit, which it keeps
#'   (`reference_periods`, see [ncam()]; per unit, each in its unit's panel), when
#'   they were read from the column `date` names, within the times shown (the
#'   caption says when they lie outside them). A fit to data without a date
#'   column, one whose reference rows repeat times (several sites in one model
#'   without `unit`), or one saved by an ncam that did not keep them, shades each
#'   run of rows of `newdata` with a reading in the reference column instead:
#'   not when every row has a reading, or more rows than the fit learned from
#'   (the caption then says so), so pass the reference as it was at the fit.
#' * `"scatter"`: the fused estimate against the reference, with the 1:1
#'   line (the panel's diagonal: both axes have the same limits), and the number of rows,
#'   bias, RMSE and correlation in the subtitle. Rows far outside the calibration range are
#'   drawn in another colour. For a model fitted with `reference`, the rows of `newdata` that
#'   carried it in the fit (its co-location rows, which it learned its calibration from) are
#'   green triangles, left out of the subtitle's figures (those of the other rows, the strips'
#'   numbers of rows too); the legend gives their own beside their key. They are told from the fit's data
#'   when it is found as it was (as [fitted()] finds it; the rows equal to one of its rows with a
#'   reference reading), else from the periods the fit keeps (`reference_periods`: each unit's
#'   rows within its periods, also any it had no reading on), else, when `reference` names
#'   another column, from `newdata`'s column of the fit's reference (its rows with a reading);
#'   else the caption says that they could not be told apart, and the figures count them.
#' * `"coverage"`: the fraction of rows whose reference lies inside the
#'   interval (see `interval`), against the nominal level, at each level of
#'   `level`, with the diagonal of perfect calibration. With units (or
#'   groups), up to 7 get a line of their own colour beside the black line of
#'   all rows; more get one small panel each, their line over the grey line of
#'   all rows. The fit's co-location rows (as in the scatter) are left out of these lines and
#'   get a grey line of their own (with more than 7 units, a caption line with their coverage
#'   at 90%). For conformal intervals use [calibrate()] and [augment()].
#'
#' The pictures are laid out for a figure 7 x 5 inches (`ggsave(width = 7, height = 5)`):
#' subtitles, captions and legends are wrapped to that width, and the panels of units or
#' groups are arranged so that each strip names its group in full (its value alone, the
#' subtitle naming the key, such as "one panel per site", when `site = 101259` would not fit;
#' a value too long for its strip broken after a `/`, `_` or `-`), in the scatter with its
#' number of rows. A lone scatter or coverage panel stands beside its legend, and the panels of
#' units fill the room: their sides may differ by up to a third (`theme(aspect.ratio)`; the
#' same limits on both axes keep the 1:1 line on the diagonal; `+ ggplot2::theme(aspect.ratio
#' = 1)` makes them square). Narrow panels get three
#' breaks on each axis.
#'
#' Axes of readings and estimates name their unit (such as `Reference (ref, ug/m3)`) when the
#' model was fitted to columns with units (units package; see `data` in [ncam()]): the unit of the
#' estimate, as `print()` names it, also in the sensors picture's panels and the drift
#' picture's axis. Fitted to plain numbers, or unanchored, they name none ("Reading and
#' estimate", "Offset (reading units)"): name it on the picture, as on any ggplot, with
#' `+ ggplot2::labs(y = "PM2.5 (ug/m3)")` (the series, the scatter's estimate and the drift's
#' shift; `x =` the scatter's reference). The sensors picture names units in its panels'
#' strips: relabel them with
#' `+ ggplot2::facet_wrap(ggplot2::vars(parameter), ncol = 2, scales = "free_y", labeller =
#' ggplot2::as_labeller(c(reading = "Reading at 8 ug/m3", gain = "Gain", offset = "Offset (ug/m3)",
#' noise = "Noise sd (ug/m3)")))` (its panels are `parameter` `reading`, for an anchored fit,
#' `gain`, `offset` and `noise`).
#'
#' Missing values are left out of the picture and the caption says how many:
#' in the series, each missing value breaks its own line (the others go on);
#' in the sensors picture, rows with a missing value among its columns; in the
#' scatter and coverage pictures, rows without both a reference value and an
#' estimate.
#'
#' @param object A fitted [ncam()] model.
#' @param type Which picture; see the list above.
#' @param newdata A data frame with the sensor and covariate columns of the
#'   model (and the `date` and `reference` columns where used); required for
#'   every type except `"loss"`. Columns with units (units package) are read
#'   as [predict.ncam()] reads them, and a `reference` column with units is
#'   converted to the units of the estimate (an error when it cannot be, or
#'   when the model was fitted to plain numbers).
#' @param covariate For `"sensors"`: name of the numeric, Date or POSIXct
#'   column of `newdata` for the x axis; default the model's first covariate.
#' @param date For `"series"`: name of the Date or POSIXct column of
#'   `newdata` giving the time of each row; for `"scatter"` and `"coverage"`, the column whose
#'   times the fit's co-location periods are matched with when its data is not found.
#' @param reference Name of the column of `newdata` with reference values:
#'   optional for `"series"`, required for `"scatter"` and `"coverage"`. For a
#'   model fitted with `reference`, that column of `newdata` when it has one
#'   (as [calibrate()] takes it; in the series, when it holds a value).
#' @param interval For `"series"` and `"coverage"`: `"prediction"` (an
#'   interval for a reading of the reference, or of the anchor sensor without
#'   one) or `"credible"` (for the true value); see [predict.ncam()]. The
#'   default is `"prediction"` for a model fitted with `reference` (its
#'   readings are what the plots compare with), else `"credible"`.
#' @param level Coverage level of the interval: one number for
#'   `"series"` (default 0.9), the levels to check for `"coverage"` (default
#'   0.50, 0.55, ..., 0.95).
#' @param panels For `"series"`, `"scatter"` and `"coverage"` of a model fitted with `unit`
#'   offsets (and of fits by group, see [autoplot.ncam_by()]): which units' panels to draw,
#'   by number in the order drawn (`panels = 7:12`) or by label (`"site = 101259"`, or the
#'   value alone, `"101259"`, when the units are one column's), in the order given. By
#'   default all of them, up to 6 for `"series"`, and for `"scatter"` and `"coverage"` as many
#'   as keep the area of a square 0.7 inches a side, at most 20; beyond that the first ones,
#'   with a message (class `ncam_message_panels`) and a caption saying which `panels` draw the
#'   others. The subtitle's figures of the scatter and the coverage line of all rows stay
#'   those of every unit. An error for a picture without such panels.
#' @param ... Must be empty; a misspelt argument is an error.
#' @return A ggplot object.
#' @seealso [plot.ncam()], [sensor_params()], [predict.ncam()], [ncam-tidy]
#' @method autoplot ncam
#' @rawNamespace S3method(ggplot2::autoplot, ncam)
#' @importFrom rlang .data
#' @examplesIf requireNamespace("ggplot2", quietly = TRUE)
#' toy <- simulate_toy(400, seed = 1)
#' toy$date <- as.Date("2024-01-01") + seq_len(nrow(toy)) - 1
#' fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy[1:300, ],
#'             hidden = 8, epochs = 100, learn_rate = 0.02, seed = 1, threads = 1)
#' ggplot2::autoplot(fit)
#' ggplot2::autoplot(fit, "sensors", newdata = toy)
#' ggplot2::autoplot(fit, "series", newdata = toy[301:400, ], reference = "truth")
#' ggplot2::autoplot(fit, "scatter", newdata = toy[301:400, ], reference = "truth")
#' ggplot2::autoplot(fit, "coverage", newdata = toy[301:400, ], reference = "truth")
autoplot.ncam <- function(object, type = c("loss", "sensors", "series", "scatter", "coverage"),
                          newdata = NULL, covariate = NULL, date = "date", reference = NULL,
                          level = NULL, interval = NULL, panels = NULL, ...) {
  check_column_name_args(c("covariate", "date", "reference"))
  check_dots_empty_hinted()
  call <- rlang::current_env()
  check_ncam(object)
  check_ggplot2(call)
  type <- match_choice(type, c("loss", "sensors", "series", "scatter", "coverage"), "type")
  if (type %in% c("loss", "sensors")) check_no_panels(panels, sprintf("the \"%s\" picture of one fit has none", type), call)
  if (type == "loss") return(plot_loss(object))
  check_plot_newdata(newdata, type, call)
  if (!is.null(level)) check_level(level)
  interval <- plot_interval(interval, object)
  if (type == "sensors") {
    return(plot_sensors(object, newdata, covariate, call))
  }
  plot_fused(fused_source(object), type, newdata, date, reference, level, interval, call, panels)
}

# The series, scatter and coverage pictures of any fitted object with a fused_source().
# The pictures draw `plain`, newdata's plain numbers; predictions read newdata as given, as a
# converted column stripped of its units would be refused there (it could be in either unit).
plot_fused <- function(source, type, newdata, date, reference, level, interval, call, panels = NULL) {
  check_columns(newdata, source$group_columns, "object", data_arg = "newdata", call = call)
  if (is.null(source$group_of)) check_no_panels(panels, "a fit without unit offsets or groups draws one panel", call)
  predict <- source$predict
  source$predict <- function(...) in_call_of(predict(...), call)
  # A model fitted with a reference is compared with that column, as calibrate() is, when there
  # (in the series, when it holds a reading: after the co-location it is often all missing).
  fit_reference <- source$model$reference
  if (is.null(reference) && is.character(fit_reference) && fit_reference %in% names(newdata) &&
      (type != "series" || !all(is.na(newdata[[fit_reference]])))) {
    reference <- fit_reference
  }
  plain <- plain_plot_data(source$model, newdata, reference, call)
  if (type == "series") {
    if (length(level) > 1L) {
      ncam_abort("{.arg level} must be a single number for {.code type = \"series\"}, not {length(level)} numbers.",
                 call = call)
    }
    return(plot_series(source, newdata, plain, date, reference, if (is.null(level)) 0.9 else level,
                       interval, call, panels))
  }
  if (is.null(reference)) {
    ncam_abort(c("{.arg reference} is required for {.code type = \"{type}\"}.",
                 i = "Name the column of {.arg newdata} with the reference values."), call = call)
  }
  check_plot_column(plain, reference, "reference", call)
  if (type == "scatter") return(plot_scatter(source, newdata, plain, reference, date, call, panels))
  levels <- if (is.null(level)) seq(0.5, 0.95, by = 0.05) else sort(unique(level))
  plot_coverage(source, newdata, plain, reference, date, levels, interval, call, panels)
}

# newdata is required for every picture but the loss curve, and has rows to draw.
check_plot_newdata <- function(newdata, type, call) {
  if (is.null(newdata)) {
    ncam_abort(c("{.arg newdata} is required for {.code type = \"{type}\"}.",
                 i = "Pass a data frame with the model's sensor and covariate columns."), call = call)
  }
  check_data_frame(newdata, "newdata", call = call)
  if (nrow(newdata) == 0L) {
    ncam_abort("{.arg newdata} has no rows: there is nothing to draw for {.code type = \"{type}\"}.",
               call = call)
  }
}

# `installed` is an argument so tests can pretend ggplot2 is absent. `needing` names what draws
# with ggplot2, `otherwise` what draws without it.
check_ggplot2 <- function(call = parent.frame(),
                          installed = requireNamespace("ggplot2", quietly = TRUE),
                          needing = "{.fn autoplot} for {.cls ncam} models", otherwise = NULL) {
  if (!installed) {
    ncam_abort(c(paste(needing, "needs the {.pkg ggplot2} package."),
                 i = "Install it with {.code install.packages(\"ggplot2\")}.", i = otherwise), call = call)
  }
}

# `column` must name a column of newdata; `kind` restricts its class ("numeric",
# "time" for Date/POSIXct, "continuous" for either).
check_plot_column <- function(newdata, column, arg, call, kind = "numeric") {
  check_string(column, arg, call = call)
  if (!column %in% names(newdata)) {
    ncam_abort(c("{.arg {arg}} names column {.val {column}}, which {.arg newdata} lacks.",
                 i = "Available columns: {.val {names(newdata)}}."), call = call)
  }
  x <- newdata[[column]]
  is_time <- inherits(x, c("Date", "POSIXct"))
  is_number <- is.numeric(x) && !is_time
  ok <- switch(kind, numeric = is_number, time = is_time, continuous = is_number || is_time)
  if (!ok) {
    what <- switch(kind, numeric = "numeric", time = "a Date or POSIXct column",
                   continuous = "numeric, Date or POSIXct")
    ncam_abort("Column {.field {column}} of {.arg newdata} (named by {.arg {arg}}) must be {what}, not {.obj_type_friendly {x}}.",
               call = call)
  }
  invisible(column)
}

# Okabe-Ito colours (yellow last: it is faint on white); for more sensors or groups than that,
# the 36 colours of Polychrome chosen to be told apart (without its near-white second one),
# then evenly spaced hues.
sensor_palette <- function(n) {
  okabe_ito <- c("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442")
  if (n <= length(okabe_ito)) return(okabe_ito[seq_len(n)])
  polychrome <- unname(grDevices::palette.colors(36, "Polychrome 36"))[-2]
  if (n <= length(polychrome)) return(polychrome[seq_len(n)])
  grDevices::hcl.colors(n, "Dark 3")
}

sensor_labels <- function(object) {
  sensors <- model_sensors(object)
  role <- if (is.null(object$reference)) "(anchor)" else "(reference)"
  ifelse(sensors %in% object$anchor, paste(sensors, role), sensors)
}

dropped_caption <- function(n_dropped, what = "row") {
  if (n_dropped == 0L) return(NULL)
  plural <- if (n_dropped == 1L) "" else "s"
  if (what == "value") return(sprintf("%s missing value%s not shown.", format(n_dropped, big.mark = ","), plural))
  # Rows compared with a reference: no estimate (a missing covariate, a group without a model)
  # or no reference value.
  if (what == "pair") return(sprintf("%s row%s without both a reference value and an estimate not shown.",
                                     format(n_dropped, big.mark = ","), plural))
  sprintf("%s %s%s with missing values not shown.", format(n_dropped, big.mark = ","), what, plural)
}

# Titles and the caption are placed against the whole figure, not the panel: a panel narrowed
# by coord_equal() (the scatter and coverage plots) would push long ones off the edges.
plot_theme <- function() {
  ggplot2::theme_bw(base_size = 11) +
    ggplot2::theme(legend.position = "bottom", panel.grid.minor = ggplot2::element_blank(),
                   strip.background = ggplot2::element_rect(fill = "grey95"),
                   plot.caption = ggplot2::element_text(colour = "grey35"),
                   plot.title.position = "plot", plot.caption.position = "plot")
}

# A fit's training and validation NLL per epoch as one long table, epochs without a value left
# out, with the capped validation NLL that early stopping watches (fits made before it was kept
# have none): its best epoch can differ from the plain curve's.
loss_curves <- function(history) {
  nll <- list(training = history$train_nll, validation = history$validation_nll,
              `validation, capped (early stopping)` = history$validation_criterion)
  nll <- Filter(Negate(is.null), nll)
  curves <- data.frame(epoch = rep(history$epoch, length(nll)),
                       curve = factor(rep(names(nll), each = nrow(history)), levels = names(loss_colours)),
                       nll = unlist(nll, use.names = FALSE))
  curves[is.finite(curves$nll), , drop = FALSE]
}
loss_colours <- c(training = "#0072B2", validation = "#D55E00", `validation, capped (early stopping)` = "#CC79A7")

# The curve the best epoch was chosen on: the capped validation NLL, else (a fit made before it
# was kept) the plain one, or the training NLL without validation rows.
chosen_curve <- function(object, curves) {
  if (object$n_validation == 0L) return("training")
  if (any(curves$curve == names(loss_colours)[3])) names(loss_colours)[3] else "validation"
}

# The interval the fused-value pictures draw: as asked, else for a reading of the reference when
# the model was fitted with one (its readings are what the plots compare with), else credible.
plot_interval <- function(interval, model) {
  if (is.null(interval)) return(if (is.null(model$reference)) "credible" else "prediction")
  match_choice(interval, c("prediction", "credible"), "interval")
}

plot_loss <- function(object) {
  curves <- loss_curves(object$history)
  chosen <- chosen_curve(object, curves)
  best <- curves[curves$epoch == object$best_epoch & curves$curve == chosen, , drop = FALSE]
  stop_txt <- if (isTRUE(object$stopped_early)) ", stopped early" else ""
  # The label goes on the side of the best-epoch line with more room.
  label_right <- object$best_epoch <= mean(range(curves$epoch))
  zoom <- loss_zoom(curves)
  ggplot2::ggplot(curves, ggplot2::aes(.data$epoch, .data$nll, colour = .data$curve)) +
    ggplot2::geom_vline(xintercept = object$best_epoch, linetype = "dashed", colour = "grey45") +
    ggplot2::geom_line(linewidth = 0.7) +
    ggplot2::geom_point(data = best, size = 2.5, show.legend = FALSE) +
    ggplot2::annotate("text", x = object$best_epoch, y = Inf, label = " best epoch ",
                      hjust = if (label_right) 0 else 1, vjust = 1.5, colour = "grey30", size = 3.5) +
    ggplot2::scale_colour_manual(values = loss_colours) +
    zoom$coord +
    ggplot2::labs(x = "Epoch", y = "Negative log-likelihood per row", colour = NULL,
                  title = "NCAM training",
                  subtitle = sprintf("Best epoch %d of %d run%s", object$best_epoch,
                                     object$epochs_run, stop_txt),
                  caption = zoom$caption) +
    plot_theme()
}

# The first epochs' NLL can dwarf the rest of the curves: when it spans more than three
# times the range after the first tenth of the epochs, zoom on the latter and say so.
loss_zoom <- function(curves) {
  skip <- floor(0.1 * max(curves$epoch))
  late <- curves$nll[curves$epoch > skip]
  if (skip < 2L || length(late) == 0L || diff(range(curves$nll)) <= 3 * diff(range(late))) {
    return(list(coord = NULL, caption = NULL))
  }
  list(coord = ggplot2::coord_cartesian(ylim = range(late)),
       caption = sprintf("y axis zoomed on epochs after %d; the curves start at %.4g.",
                         skip, max(curves$nll[curves$epoch == min(curves$epoch)])))
}
