# The layout of the autoplot() pictures at the size they are usually saved at, 7 x 5 inches
# (ggsave(width = 7, height = 5)). ggplot2 neither wraps text nor shrinks it: a subtitle,
# caption, legend label or panel strip wider than its room is cut off at the edge. These helpers
# wrap text to the room it has at that size and choose a grid of panels whose strips can name
# their group in full.

plot_width_in <- 7
plot_height_in <- 5
# Text sizes (points) of theme_bw(base_size = 11), which plot_theme() uses.
subtitle_pt <- 11
caption_pt <- 8.8
strip_pt <- 8.8
legend_pt <- 8.8

# How many characters of text at `size` points fit in `inches`: an average character of the
# default sans-serif font is at most about 0.55 em wide (digits 0.56 em, lowercase less).
chars_in <- function(inches, size) max(8L, as.integer(floor(inches * 72 / (size * 0.55))))

# `text` (one string, or lines of one) wrapped into lines of at most `width` characters, each
# given line apart, a figure kept with its name ("RMSE = 2.26" is not broken at its spaces); a
# word longer than a line is cut into pieces of that width. NULL stays NULL.
wrap_plot_text <- function(text, width) {
  if (is.null(text)) return(NULL)
  lines <- unlist(strsplit(paste(text, collapse = "\n"), "\n", fixed = TRUE))
  wrapped <- unlist(lapply(lines, function(line) {
    if (!nzchar(line)) return("")
    kept <- gsub(" = ", "\u00a0=\u00a0", line, fixed = TRUE)
    gsub("\u00a0", " ", cut_long_words(strwrap(kept, width = width), width), fixed = TRUE)
  }))
  paste(wrapped, collapse = "\n")
}
# A subtitle or caption across the figure's whole width (the titles are placed against the plot,
# not the panel: plot_theme()).
wrap_subtitle <- function(text) wrap_plot_text(text, chars_in(plot_width_in - 0.25, subtitle_pt))
wrap_caption <- function(text) wrap_plot_text(text, chars_in(plot_width_in - 0.25, caption_pt))

# Lines longer than `width` cut into pieces of at most that width: after the last "/", "_", "-",
# "." or ":" that leaves a piece of at least two characters ("101259/" and "2023", not "101259/20"
# and "23"), else at the width.
cut_long_words <- function(lines, width) {
  unlist(lapply(lines, function(line) {
    pieces <- character()
    while (nchar(line) > width) {
      marks <- gregexpr("[/_.:-]", substr(line, 1L, width))[[1]]
      cut <- max(c(-1L, marks[marks >= 2L]))
      if (cut < 2L) cut <- width
      pieces <- c(pieces, substr(line, 1L, cut))
      line <- substring(line, cut + 1L)
    }
    c(pieces, line)
  }))
}

# A group's label ("station = ANT_REF_R801", "site = 3, box = a") in lines of at most `width`
# characters: broken after ", " between keys, then after " = ", then within a word too long for
# a line; the whole label is always shown.
wrap_group_label <- function(label, width) {
  vapply(label, function(l) {
    if (nchar(l) <= width) return(l)
    pieces <- strsplit(l, "(?<=, )|(?<= = )", perl = TRUE)[[1]]
    lines <- character()
    line <- ""
    for (piece in pieces) {
      if (nchar(line) > 0L && nchar(line) + nchar(trimws(piece, "right")) > width) {
        lines <- c(lines, trimws(line, "right"))
        line <- ""
      }
      line <- paste0(line, piece)
    }
    paste(cut_long_words(c(lines, trimws(line, "right")), width), collapse = "\n")
  }, character(1), USE.NAMES = FALSE)
}

n_lines <- function(text) lengths(regmatches(text, gregexpr("\n", text, fixed = TRUE))) + 1L

# A grid of panels, one per label, in a 7-inch-wide figure whose panels share `room` inches of
# height: the number of columns and the strips' text, each label fitted to its panel's width by
# strip_text() (with `extra`, a second part such as "n = 120" for each, on lines of their own).
# Panels of equal axes (the scatter and coverage pictures: the same limits on both, so that the
# 1:1 line is the diagonal) are as large as the room allows, each side at most `stretch` times
# the other (1: square): the number of columns that gives the largest area, then the fewest
# empty cells; `width`, `height` and `aspect` (height / width)
# give the panel, `side` the side of a square of its area (its side when square). Other panels take `ncol` when given, else ggplot2's
# wrap_dims(). `spacing`: inches between panels. `key` is the key name the strips leave out, or
# NULL.
panel_grid <- function(labels, room = NA_real_, square = TRUE, ncol = NULL, extra = NULL,
                       width = plot_width_in - 0.7, spacing = 5.5 / 72, stretch = 1) {
  n <- length(labels)
  layout <- function(columns) {
    rows <- ceiling(n / columns)
    panel_width <- (width - (columns - 1) * spacing) / columns
    side <- panel_width
    # A panel narrower than its column: its strip has only its width.
    for (i in 1:3) {
      text <- strip_text(labels, chars_in(side - 0.1, strip_pt))
      shown <- if (is.null(extra)) text$labels else paste(text$labels, extra, sep = "\n")
      # A strip: 0.12 inches of padding and 0.15 inches per line of text.
      strip <- 0.12 + 0.15 * max(n_lines(shown))
      if (!square) break
      fits <- min(panel_width, stretch * (room / rows - strip))
      if (fits >= side - 0.01) break
      side <- fits
    }
    height <- if (square) min(room / rows - strip, stretch * side) else NA_real_
    list(ncol = columns, labels = shown, key = text$key, side = sqrt(side * height), width = side,
         height = height, aspect = height / side, empty = columns * rows - n)
  }
  if (!square) {
    if (is.null(ncol)) ncol <- ggplot2::wrap_dims(n)[2]
    return(layout(min(ncol, n)))
  }
  options <- lapply(seq_len(n), layout)
  side <- vapply(options, `[[`, numeric(1), "side")
  empty <- vapply(options, `[[`, numeric(1), "empty")
  best <- which(side >= max(side) - 0.02)
  options[[best[which.min(empty[best])]]]
}

# Group labels for strips `width` characters wide: as they are when every one fits on a line;
# else, when all name one key ("site = 101259"), its values only (the caller names the key once,
# from `key`); else wrapped by wrap_group_label(). Always the whole value.
strip_text <- function(labels, width) {
  if (all(nchar(labels) <= width)) return(list(labels = labels, key = NULL))
  key <- unique(sub(" = .*", "", labels))
  single <- length(key) == 1L && all(startsWith(labels, paste(key, "= "))) &&
    !any(grepl(", ", labels, fixed = TRUE))
  if (!single) return(list(labels = wrap_group_label(labels, width), key = NULL))
  values <- substring(labels, nchar(key) + 4L)
  list(labels = vapply(values, function(v) paste(cut_long_words(v, width), collapse = "\n"), character(1),
                       USE.NAMES = FALSE), key = key)
}

# "one panel per site" for a grid whose strips leave the key out, else `otherwise`.
panels_note <- function(grid, otherwise = NULL) {
  if (is.null(grid$key)) otherwise else sprintf("one panel per %s", grid$key)
}

# facet_wrap() by `column`, a factor of group labels, each strip showing its `shown` text.
labelled_facets <- function(column, labels, shown, ...) {
  names(shown) <- labels
  ggplot2::facet_wrap(ggplot2::vars(.data[[column]]), labeller = ggplot2::as_labeller(shown), ...)
}

# The group of each row of newdata as a factor of its label, or NULL without groups: units in
# the order unit_panels() gives, the groups of ncam_by() fits in the order of their key columns
# (numbers by value, text byte by byte), not as their labels sort ("site = 10" before "site = 2").
panel_groups <- function(source, newdata) {
  if (is.null(source$group_of)) return(NULL)
  group <- source$group_of(newdata)
  if (is.factor(group)) return(group)
  in_order <- do.call(order, c(unname(as.list(newdata[source$group_columns])), method = "radix"))
  factor(group, levels = unique(group[in_order]))
}

# Legend columns for `labels` across the figure's width: as many as the widest label allows,
# labels longer than a line wrapped. `key` is the width of a legend key and its gap, in inches.
legend_columns <- function(labels, key = 0.45) {
  room <- chars_in(plot_width_in - 0.4, legend_pt)
  widest <- max(nchar(labels))
  per_column <- chars_in(key, legend_pt) + min(widest, room)
  list(ncol = max(1L, min(length(labels), room %/% per_column)),
       labels = wrap_plot_text_each(labels, room - chars_in(key, legend_pt)))
}
wrap_plot_text_each <- function(labels, width) {
  vapply(labels, wrap_group_label, character(1), width = width, USE.NAMES = FALSE)
}

# A grid of panels, one per group of `group` (a factor, NULL without groups), `ncol` columns of
# them, each strip naming its group in full, wrapped to the panel's width; `shown`, the groups.
group_grid <- function(group, ncol) {
  if (is.null(group)) return(NULL)
  shown <- levels(droplevels(group))
  c(panel_grid(shown, square = FALSE, ncol = ncol), list(shown = shown))
}
