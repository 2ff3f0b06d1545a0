# The autoplot() pictures of the fused value: its time series, its scatter against a reference
# and the coverage of its intervals, for an NCAM fit, a baseline, or one NCAM per group. Each
# picture reads the fitted object only through a plot source (fused_source()). Rows more than
# extrapolation_warning_share of the range outside the calibration range (predict()'s
# .extrapolation) are marked in the series and the scatter, where the warning alone would not
# say which points they are.

# What the pictures need from a fitted object: its predictions, the sensor columns and their
# legend labels (for ncam_by, those of every group, and `sensors_of` the ones each row's group
# reads), the fused value's label, for ncam_by the group of each row of newdata and for a
# fit with unit offsets its unit (NULL otherwise), whose groups become panels, with the columns
# that give them and what they are called, the model whose units newdata is read in (for a
# calibration, its fit), and the periods of the rows that carried the reference in the fit(s)
# (fit_periods(); NULL for a baseline).
fused_source <- function(object) {
  if (inherits(object, "ncam_baseline")) {
    titles <- c(mean = "mean", ivw = "IVW", ppca = "PPCA", kalman = "Kalman", factor = "factor-model")
    anchored <- object$method %in% c("ppca", "factor")
    return(list(predict = function(newdata, interval = "none", level = 0.9) {
                  if (interval == "none") return(stats::predict(object, newdata))
                  stats::predict(object, newdata, interval = interval, level = level)
                },
                sensors = object$sensors,
                sensor_series = ifelse(anchored & object$sensors %in% object$anchor,
                                       paste(object$sensors, "(anchor)"), object$sensors),
                fused_label = paste(titles[[object$method]], "baseline"),
                group_of = NULL, model = object))
  }
  calibrated <- inherits(object, c("ncam_calibration", "ncam_by_calibration"))
  # A calibration's predictions always carry its conformal bounds: there is no interval to ask for.
  predict <- if (calibrated) {
    function(newdata, interval = "conformal", level = NULL) {
      if (is.null(level)) stats::predict(object, newdata) else stats::predict(object, newdata, level = level)
    }
  } else function(newdata, ...) stats::predict(object, newdata, ...)
  if (inherits(object, c("ncam_by", "ncam_by_calibration"))) {
    models <- group_models(object)
    if (calibrated) models[has_fit(object)] <- lapply(models[has_fit(object)], `[[`, "model")
    first <- models[[which(has_fit(object))[1]]]
    by <- attr(object, "by")
    # Every group's sensors, in the order the groups first name them: a group fitted without a
    # sensor it never read (a station with one of two boxes) has fewer than the others.
    each <- lapply(models[has_fit(object)], function(m) {
      stats::setNames(sensor_labels(m)[seq_along(m$sensors)], m$sensors)
    })
    labels <- unlist(unname(each))
    labels <- labels[!duplicated(names(labels))]
    return(list(predict = predict, sensors = names(labels), sensor_series = unname(labels),
                sensors_of = function(newdata) group_sensors(object, models, newdata, names(labels)),
                fused_label = "NCAM fused",
                group_of = function(newdata) group_labels(newdata[by], beside = object[by]),
                group_columns = by, group_word = "group", model = first,
                periods = by_group_periods(object, models), fitted_rows = fitted_reference_rows(models[has_fit(object)])))
  }
  model <- if (calibrated) object$model else object
  unit <- model$unit_offsets$unit
  list(predict = predict, sensors = model$sensors, sensor_series = sensor_labels(model)[seq_along(model$sensors)],
       fused_label = "NCAM fused", group_of = if (!is.null(unit)) unit_panels(unit),
       group_columns = unit, group_word = "unit", model = model, periods = fit_periods(model),
       fitted_rows = fitted_reference_rows(list(model)))
}

# Which of `sensors` each row of newdata draws (a logical matrix, a row per row of newdata): those
# of its group's model; for a row of a group without one, those that read on any of its group's
# rows.
group_sensors <- function(object, models, newdata, sensors) {
  by <- attr(object, "by")
  keys <- key_strings(key_columns(newdata[by], "newdata"))
  group <- match(keys, key_strings(key_columns(object[by], "object")))
  group[!is.na(group) & !has_fit(object)[group]] <- NA
  drawn <- matrix(FALSE, nrow(newdata), length(sensors), dimnames = list(NULL, sensors))
  for (g in unique(group[!is.na(group)])) drawn[group %in% g, sensors %in% models[[g]]$sensors] <- TRUE
  for (key in unique(keys[is.na(group)])) {
    rows <- which(keys == key & is.na(group))
    drawn[rows, ] <- rep(vapply(sensors, function(s) any(!is.na(newdata[[s]][rows])), logical(1)), each = length(rows))
  }
  drawn
}

# A fit with unit offsets estimates each unit with its own offset: one panel per unit of
# newdata, as ncam_by() fits have one per group, in the order of the unit column's values (a
# factor's levels).
unit_panels <- function(unit) {
  function(newdata) {
    labels <- group_labels(newdata[unit])
    factor(labels, levels = unique(labels[unit_order(newdata[[unit]])]))
  }
}

# newdata without units (units package), for pictures that compare and draw plain numbers: the
# model's columns in their units at the fit, as predict() reads them, and a reference column in
# the units of the estimate. An error when the reference cannot be converted, or when the model
# was fitted to plain numbers and so does not know the units of its estimate; and, as in
# predict(), for plain numbers in a column the fit converted, the model's reference among them
# when it is the picture's `reference`.
plain_plot_data <- function(model, newdata, reference, call) {
  with_units <- names(newdata)[vapply(newdata, function(col) inherits(col, "units"), logical(1))]
  newdata <- match_units(model, newdata, call, unread = setdiff(model$reference, reference))
  if (is.character(reference) && length(reference) == 1L && reference %in% with_units &&
      !reference %in% names(model$units)) {
    newdata[[reference]] <- reference_in_estimate_units(model, newdata[[reference]], reference, call)
  }
  for (v in with_units) newdata[[v]] <- as.numeric(newdata[[v]])
  newdata
}

# The unit of the estimate, as print() names it: that of the readings, which the fit converted to
# one unit (that of the anchor, else the first sensor with units), or NULL for plain numbers and
# for an unanchored fit, whose latent value is on no reading's scale.
estimate_unit <- function(model) {
  if (inherits(model, "ncam_calibration")) model <- model$model
  if (identical(model$parameterization, "unanchored")) return(NULL)
  readings_unit(model)
}
# The one unit the fit converted its readings to, or NULL for plain numbers.
readings_unit <- function(model) {
  readings <- intersect(unique(c(model$anchor, model$sensors, model$reference)), names(model$units))
  if (length(readings)) model$units[[readings[1]]]
}
# An axis title with the unit in brackets, "NCAM fused estimate (ug/m3)", or without one.
with_unit <- function(label, unit) if (is.null(unit)) label else sprintf("%s (%s)", label, unit)

# A reference column with units in the units of the readings, those of the estimate
# (estimate_unit(); an unanchored fit's too, for its calibration and pictures). `data_arg`
# names the data frame in messages.
reference_in_estimate_units <- function(model, values, reference, call, data_arg = "newdata") {
  goal <- readings_unit(if (inherits(model, "ncam_calibration")) model$model else model)
  given <- unit_text(values)
  if (is.null(goal)) {
    ncam_abort(c("Column {.field {reference}} of {.arg {data_arg}} (named by {.arg reference}) is in {.val {given}}, but the model was fitted to plain numbers, so the units of its estimate are not known.",
                 i = "Give {.field {reference}} as plain numbers in the units of the readings the model was fitted to (such as with {.fn units::drop_units} after converting)."),
               call = call)
  }
  convert_units(values, goal, c(
    "Column {.field {reference}} of {.arg {data_arg}} (named by {.arg reference}) is in {.val {given}}, which cannot be converted to {.val {goal}}, the units of the estimate.",
    i = "Give {.field {reference}} in {.val {goal}} or units convertible to it."), call)
}

# Columns of series panels: one for up to 3, whose days need the figure's width; two beyond, each
# panel then as high as it is wide enough for (max_panels); three for more than 12 asked for.
series_columns <- function(n) if (n <= 3L) 1L else if (n <= 12L) 2L else 3L

# Segments of each group's time axis, split where consecutive times lie more than three times
# the group's median spacing apart, so that lines and ribbons do not bridge gaps in the data.
time_segments <- function(time, group) {
  t <- as.numeric(time)
  segment <- rep(1L, length(t))
  for (g in unique(group)) {
    rows <- which(group == g & !is.na(t))
    times <- sort(unique(t[rows]))
    if (length(times) < 3L) next
    step <- diff(times)
    starts <- c(times[1], times[-1][step > 3 * stats::median(step)])
    segment[rows] <- findInterval(t[rows], starts)
  }
  segment
}

plot_series <- function(source, newdata, plain, date, reference, level, interval, call, panels = NULL) {
  check_plot_column(newdata, date, "date", call, kind = "time")
  if (!is.null(reference)) check_plot_column(newdata, reference, "reference", call)
  group <- panel_groups(source, newdata)
  # Only the rows of the panels drawn are predicted.
  picked <- if (!is.null(group)) pick_panels(levels(group), panels, "series", source$group_word, call)
  if (!is.null(group) && !identical(picked$shown, levels(group))) {
    drawn <- group %in% picked$shown
    newdata <- newdata[drawn, , drop = FALSE]
    plain <- plain[drawn, , drop = FALSE]
    group <- factor(group[drawn], levels = picked$shown)
  }
  time <- newdata[[date]]
  if (is.null(group)) group <- rep("", nrow(newdata))
  repeated <- sum(duplicated(data.frame(group, time)[!is.na(time), , drop = FALSE]))
  if (repeated > 0L) {
    within <- if (is.null(source$group_of)) "" else paste(" within a", source$group_word)
    ncam_abort(c("Column {.field {date}} of {.arg newdata} repeats {repeated} time{?s}{within}: the series plot draws one time series{within}.",
                 i = "Subset {.arg newdata} to one site or sensor group first."), call = call)
  }
  pred <- if (interval == "none") source$predict(newdata) else {
    source$predict(newdata, interval = interval, level = level)
  }
  fused_label <- source$fused_label
  segment <- time_segments(time, group)
  # Labelled apart from the sensors, as the reference may also be one of them.
  reference_label <- if (!is.null(reference)) paste(reference, "(reference)")
  sensors <- source$sensors
  sensor_series <- source$sensor_series
  readings <- data.frame(time = rep(time, length(sensors)), group = rep(group, length(sensors)),
                         segment = rep(segment, length(sensors)),
                         series = rep(sensor_series, each = nrow(newdata)),
                         value = unlist(lapply(sensors, function(s) as.numeric(plain[[s]])),
                                        use.names = FALSE))
  # Fits by group: each panel draws its own group's sensors.
  if (!is.null(source$sensors_of)) readings <- readings[as.vector(source$sensors_of(newdata)), , drop = FALSE]
  lines <- rbind(readings,
                 if (!is.null(reference)) data.frame(time = time, group = group, segment = segment,
                                                     series = reference_label, value = plain[[reference]]),
                 data.frame(time = time, group = group, segment = segment, series = fused_label,
                            value = pred$.pred))
  # Drawn in this order: wide pale sensor lines beneath, so that where the fused line runs
  # along a sensor both stay visible, then the reference and the fused line on top.
  series_levels <- unique(c(sensor_series, reference_label, fused_label))
  lines$series <- factor(lines$series, levels = series_levels)
  n_missing <- sum(is.na(lines$value) | is.na(lines$time))
  lines <- lines[!is.na(lines$time), , drop = FALSE]
  lines <- lines[order(lines$series, lines$group, lines$time), , drop = FALSE]
  colours <- stats::setNames(c(sensor_palette(length(sensors)), if (!is.null(reference)) "grey25",
                                "black"), series_levels)
  widths <- stats::setNames(c(rep(0.7, length(sensors)), if (!is.null(reference)) 0.6, 0.5),
                            series_levels)
  alphas <- stats::setNames(c(rep(0.7, length(sensors)), if (!is.null(reference)) 1, 1),
                            series_levels)
  types <- stats::setNames(c(rep("solid", length(sensors)), if (!is.null(reference)) "22", "solid"),
                           series_levels)
  grid <- group_grid(if (is.factor(group)) group, ncol = series_columns(length(unique(group))))
  colocation <- colocation_spans(source, newdata, time, group, segment, date)
  fills <- if (!is.null(colocation$spans)) stats::setNames(colocation_fill, colocation$spans$fill[1])
  shading <- if (!is.null(colocation$spans)) {
    ggplot2::geom_rect(data = colocation$spans, ggplot2::aes(xmin = .data$from, xmax = .data$to, ymin = -Inf,
                                                       ymax = Inf, fill = .data$fill), inherit.aes = FALSE)
  }
  ribbon_label <- sprintf("%g%% %s interval", 100 * level, interval)
  if (interval != "none") fills <- c(fills, stats::setNames(ribbon_fill, ribbon_label))
  ribbon <- if (interval != "none") {
    band <- data.frame(time = time, group = group, segment = segment, lower = pred$.pred_lower,
                       upper = pred$.pred_upper)
    band <- band[stats::complete.cases(band), , drop = FALSE]
    band <- band[order(band$group, band$time), , drop = FALSE]
    list(ggplot2::geom_ribbon(data = band, ggplot2::aes(.data$time, ymin = .data$lower, ymax = .data$upper,
                                                        fill = ribbon_label,
                                                        group = interaction(.data$group, .data$segment)),
                              inherit.aes = FALSE))
  }
  far <- which(far_rows(pred) & !is.na(time))
  marks <- if (length(far)) {
    list(ggplot2::geom_point(data = data.frame(time = time[far], group = group[far], value = pred$.pred[far],
                                               mark = far_label()),
                             ggplot2::aes(.data$time, .data$value, shape = .data$mark), inherit.aes = FALSE,
                             colour = far_colour, size = 3, stroke = 1),
         ggplot2::scale_shape_manual(values = stats::setNames(4, far_label())))
  }
  # Rows of at most three series, so that the legend keeps within a narrow figure; the four
  # scales share one legend only with one guide.
  series_guide <- ggplot2::guide_legend(nrow = ceiling(length(series_levels) / 3), byrow = TRUE)
  ggplot2::ggplot(lines, ggplot2::aes(.data$time, .data$value)) +
    shading +
    ribbon +
    (if (length(fills)) ggplot2::scale_fill_manual(values = fills, breaks = names(fills))) +
    ggplot2::geom_line(ggplot2::aes(colour = .data$series, linewidth = .data$series,
                                    linetype = .data$series, alpha = .data$series,
                                    group = interaction(.data$series, .data$group, .data$segment)),
                       na.rm = TRUE) +
    ggplot2::scale_colour_manual(values = colours) +
    ggplot2::scale_linewidth_manual(values = widths) +
    ggplot2::scale_linetype_manual(values = types) +
    ggplot2::scale_alpha_manual(values = alphas) +
    ggplot2::guides(colour = series_guide, linewidth = series_guide, linetype = series_guide,
                    alpha = series_guide) +
    marks +
    (if (!is.null(grid)) labelled_facets("group", grid$shown, grid$labels, ncol = grid$ncol, scales = "free")) +
    ggplot2::labs(x = date, y = with_unit("Reading and estimate", estimate_unit(source$model)), colour = NULL,
                  linewidth = NULL, linetype = NULL, alpha = NULL, fill = NULL, shape = NULL,
                  title = sprintf("Raw sensors and the %s estimate", fused_label),
                  subtitle = if (!is.null(grid$key)) sprintf("One panel per %s", grid$key),
                  caption = wrap_caption(c(picked$note, dropped_caption(n_missing, "value"), colocation$note))) +
    plot_theme() +
    # The interval key on its own row keeps a legend of many series within the width; the rows
    # sit close together so that the legend does not squeeze the panel. Panels side by side
    # keep their last and first date labels apart.
    ggplot2::theme(legend.box = "vertical", legend.spacing.y = ggplot2::unit(0, "pt"),
                   legend.margin = ggplot2::margin(0, 0, 0, 0), legend.box.spacing = ggplot2::unit(4, "pt"),
                   panel.spacing.x = ggplot2::unit(14, "pt"))
}

# Predictions for newdata and the rows that have both a finite reference (in `plain`, the
# plain numbers of newdata) and a fused estimate from at least one sensor reading, with their
# reference values. A row without a reading has the model's prior, not a measurement: left out
# as evaluate_fusion() and sensor_performance() leave it out, and counted (`n_prior`).
reference_rows <- function(source, newdata, plain, reference, call) {
  pred <- source$predict(newdata)
  paired <- is.finite(plain[[reference]]) & is.finite(pred$.pred)
  prior_only <- paired & !is.na(pred$.n_sensors) & pred$.n_sensors == 0L
  usable <- paired & !prior_only
  if (!any(usable)) {
    ncam_abort("No row of {.arg newdata} has both a reference value in {.field {reference}} and a fused estimate from a sensor reading.",
               call = call)
  }
  list(pred = pred, usable = usable, n_dropped = sum(!paired), n_prior = sum(prior_only),
       reference = plain[[reference]][usable], group = panel_groups(source, newdata)[usable])
}

# The caption lines of rows left out of a comparison with the reference.
left_out_caption <- function(rows) {
  c(dropped_caption(rows$n_dropped, "pair"),
    if (rows$n_prior > 0L) sprintf("%s row%s without a sensor reading (the model's prior, not a measurement) not shown.",
                                   format(rows$n_prior, big.mark = ","), if (rows$n_prior == 1L) "" else "s"))
}

# A calling handler for warnings that muffles each one whose class and message it has seen.
muffle_repeated_warnings <- function() {
  seen <- character()
  function(w) {
    key <- paste(class(w)[1], conditionMessage(w))
    if (key %in% seen) invokeRestart("muffleWarning")
    seen <<- c(seen, key)
  }
}

# Rows of a prediction far outside the calibration range; a baseline's have no such column.
far_rows <- function(pred) {
  if (is.null(pred[[".extrapolation"]])) return(rep(FALSE, nrow(pred)))
  is_far(pred[[".extrapolation"]])
}

# The legend label and colour of the rows far outside the calibration range.
far_label <- function() {
  sprintf("more than %g%% of the range outside the calibration range", 100 * extrapolation_warning_share)
}
far_colour <- "#D55E00"
# Grey, not a colour of the palette: a sensor's line (the anchor's blue) stays visible on it.
ribbon_fill <- "grey82"
# A pale yellow beneath everything: the ribbon's grey and the sensors' lines stay visible on it.
colocation_fill <- "#F5EDC8"
