# Which of the units' or groups' panels an autoplot() picture draws. A figure of 7 x 5 inches
# holds only so many: a time series panel needs about an inch of height to show its days, a
# square scatter or coverage panel min_square_side a side. Beyond those the picture draws the
# first ones, says so in its caption and with a message naming the `panels` that draw the next;
# `panels` picks any of them, by position or by label.
max_panels <- c(series = 6L, scatter = 20L, coverage = 20L, loss = 20L)
# The least side, in inches, of a square panel drawn by default.
min_square_side <- 0.7

# The panels to draw of `labels` (the groups' labels, such as "site = 101259", in the order the
# picture draws them): those `panels` picks (numbers: positions among `labels`; text: labels, or
# their values when all name one key), in that order, else all of them up to max_panels[[type]]
# and, given `fits`, as many of the first as it says fit (a function of the labels drawn,
# TRUE when their panels are large enough). `word` is what a panel stands for when the labels
# name no one key ("unit", "group"). Returns `shown` (the labels to draw) and `note`, a caption
# line when not all are drawn (NULL else).
pick_panels <- function(labels, panels, type, word, call, fits = NULL) {
  n <- length(labels)
  key <- single_key(labels)
  per <- sprintf("one per %s", if (is.null(key)) word else key)
  if (is.null(panels)) {
    limit <- min(n, max_panels[[type]])
    if (!is.null(fits)) while (limit > 1L && !fits(labels[seq_len(limit)])) limit <- limit - 1L
    if (n <= limit) return(list(shown = labels, note = NULL))
    after <- seq(limit + 1L, min(2L * limit, n))
    cli::cli_inform(c("i" = "{.fn autoplot} draws the first {limit} of {n} panels ({per}), as more do not fit a 7 x 5 inch figure.",
                      " " = "{.code panels = {position_code(after)}} draws the next {length(after)}, {.code panels = 1:{n}} all of them."),
                    class = "ncam_message_panels")
    return(list(shown = labels[seq_len(limit)],
                note = sprintf("Panels 1-%d of %d shown (%s); `panels` picks others.", limit, n, per)))
  }
  positions <- panel_positions(labels, panels, key, per, call)
  list(shown = labels[positions],
       note = if (length(positions) < n) {
         sprintf("Panel%s %s of %d shown (%s).", if (length(positions) == 1L) "" else "s",
                 position_text(sort(positions)), n, per)
       })
}

# The key all `labels` name ("site" of "site = 101259"), or NULL when they name several or none.
single_key <- function(labels) {
  key <- unique(sub(" = .*", "", labels))
  if (length(key) == 1L && all(startsWith(labels, paste(key, "= "))) && !any(grepl(", ", labels, fixed = TRUE))) key
}

# The positions among `labels` of the panels `panels` picks, each once, in the order given.
panel_positions <- function(labels, panels, key, per, call) {
  n <- length(labels)
  if (is.factor(panels)) panels <- as.character(panels)
  if (!(is.numeric(panels) || is.character(panels)) || !length(panels) || anyNA(panels)) {
    ncam_abort(c("{.arg panels} must be panel numbers or labels without {.code NA}, not {.obj_type_friendly {panels}}.",
                 i = "Such as {.code panels = 1:6}, or {.code panels = {encodeString(labels[1], quote = '\"')}}."), call = call)
  }
  if (is.numeric(panels)) {
    bad <- panels[panels != round(panels) | panels < 1 | panels > n]
    if (length(bad)) {
      numbers <- if (length(bad) == 1L) "number" else "numbers"
      ncam_abort(c("{.arg panels} picks panel {numbers} {bad}; the picture's panels ({per}) are numbered 1 to {n}.",
                   i = if (!is.null(key)) "Give a {key} as text to pick it by its value, such as {.code panels = {encodeString(sub('^[^=]+ = ', '', labels[1]), quote = '\"')}}."),
                 call = call)
    }
    return(unique(as.integer(panels)))
  }
  values <- if (!is.null(key)) substring(labels, nchar(key) + 4L)
  positions <- ifelse(panels %in% labels, match(panels, labels), match(panels, values))
  if (anyNA(positions)) {
    unknown <- panels[is.na(positions)]
    shown <- cli::cli_vec(if (is.null(key)) labels else values, list("vec-trunc" = 6))
    ncam_abort(c("{.arg panels} names {.val {unknown}}, which {?is not a panel/are not panels} of the picture ({per}).",
                 i = "Its {n} panel{?s}: {.val {shown}} (numbers 1 to {n} pick them too)."),
               call = call)
  }
  unique(positions)
}

# "7, 9, 10-12" for positions; "7:12" as R code for a run.
position_text <- function(positions) {
  runs <- split(positions, cumsum(c(1L, diff(positions) != 1L)))
  paste(vapply(runs, function(r) if (length(r) == 1L) as.character(r) else sprintf("%d-%d", r[1], r[length(r)]),
               character(1)), collapse = ", ")
}
position_code <- function(positions) {
  if (length(positions) == 1L) as.character(positions) else sprintf("%d:%d", positions[1], positions[length(positions)])
}

# `panels` given for a picture that has no panels of units or groups to pick from.
check_no_panels <- function(panels, why, call) {
  if (!is.null(panels)) {
    ncam_abort(c("{.arg panels} picks the panels of units or groups, and {why}.",
                 i = "Leave {.arg panels} out."), call = call)
  }
}
