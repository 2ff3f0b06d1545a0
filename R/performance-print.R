# print() of sensor_performance()'s table: per averaging, the headline metrics of each unit and of
# all units with the verdicts against the US EPA and EU targets, then the notes in full, the
# targets and how to get the whole table.

#' @rdname ncam_performance-methods
#' @export
print.ncam_performance <- function(x, n = 20, ...) {
  targets <- performance_targets_of(x, abort = FALSE)
  # A table renamed, or emptied, prints as the tibble it is.
  if (is.null(targets)) return(NextMethod())
  if (!identical(n, Inf)) check_number(n, "n", min = 1, integer = TRUE)
  rows <- as.data.frame(x)
  pollutant <- attr(x, "pollutant")
  symbols <- performance_symbols()
  units <- unique(rows$unit[rows$unit != "all"])
  who <- if (length(units) == 0L) "one unit" else if (length(units) == 1L) "1 unit" else
    paste(length(units), "units")
  cat("Performance of ", who, " against the reference, ", pollutant_label(pollutant), " in ",
      attr(targets, "units"), " (", framework_words(targets), " targets)\n", sep = "")
  # The first n units of each averaging, and all units' row.
  shown <- rows$unit == "all" | rows$unit %in% utils::head(units, n)
  for (avg in unique(rows$averaging)) {
    print_performance_block(rows[rows$averaging == avg & shown, , drop = FALSE], avg, targets,
                            symbols)
  }
  hidden <- length(units) - sum(units %in% rows$unit[shown])
  cat("\n")
  width <- performance_print_width()
  concentration <- attr(targets, "units")
  lines <- c(
    if (hidden > 0L) {
      sprintf("%d more unit%s, and %s notes, not shown: print(x, n = Inf) shows every unit.",
              hidden, if (hidden == 1L) "" else "s", if (hidden == 1L) "its" else "their")
    },
    target_legend(targets, rows$limit_value[1], symbols),
    converted_targets_line(targets),
    paste0("Intercept, RMSE and bias (mean of estimate - reference) in ", concentration,
           ", NRMSE in %.",
           if (length(units) > 1L) paste0(" Row all: ", symbols[["r2"]],
                                          ", slope and intercept are the means of the units'.")),
    paste0("The full table (", ncol(x), " columns): as.data.frame(x) or tibble::as_tibble(x);",
           " one row per metric with its target: tidy(x); overall figures: glance(x);",
           " the figure: ggplot2::autoplot(x).")
  )
  cat(strwrap(lines, width = width), sep = "\n")
  invisible(x)
}

performance_print_width <- function() min(max(getOption("width", 80L), 60L), 100L)

# Where targets set in the other unit were converted to the table's: how.
converted_targets_line <- function(targets) {
  if (!isTRUE(attr(targets, "converted"))) return(NULL)
  units <- attr(targets, "units")
  from <- setdiff(c("ppb", "ug/m3"), units)
  factor <- ugm3_per_ppb(targets$pollutant[1])
  sprintf("Targets set in %s are in %s here, at 293 K and 101.3 kPa (1 ppb of %s = %s ug/m3).",
          from, units, pollutant_label(targets$pollutant[1]), format(signif(factor, 4)))
}

# The table of one averaging, the figures of its "all" row that have no column, and its notes.
print_performance_block <- function(rows, averaging, targets, symbols) {
  width <- performance_print_width()
  columns <- c(performance_metric_cells(rows, symbols),
               performance_verdict_cells(rows, targets, symbols))
  verdicts <- vapply(columns, function(col) !is.null(col$framework), logical(1))
  cat("\n", cli::rule(left = block_title(rows, averaging, any(verdicts), targets),
                      width = width), "\n", sep = "")
  cat(render_columns(columns), sep = "\n")
  extra <- all_row_figures(rows, averaging, targets, symbols)
  if (length(extra)) cat(strwrap(extra, width = width, exdent = 2), sep = "\n")
  notes <- grouped_notes(rows)
  if (length(notes)) {
    cat("Notes:\n")
    cat(strwrap(notes, width = width, indent = 2, exdent = 4), sep = "\n")
  }
}

# "24-hour averages", or "As given (time step 1 hour): not judged, the targets are for
# 24-hour values".
block_title <- function(rows, averaging, judged, targets) {
  steps <- unique(rows$time_step[!is.na(rows$time_step)])
  title <- averaging_words(averaging)
  if (averaging == "as_given") {
    title <- paste0(title, if (length(steps) == 1L && steps != "mixed") {
      paste0(" (time step ", steps, ")")
    } else {
      " (the units' time steps differ)"
    })
  }
  if (judged) return(title)
  set_for <- unique(targets$averaging)
  paste0(title, ": not judged, the targets are for ", sub(" hours?$", "-hour", set_for), " values")
}

# The headline metric columns: unit, n, R2, slope, intercept, RMSE, NRMSE, bias.
performance_metric_cells <- function(rows, symbols) {
  fixed <- function(v, digits) {
    # round() + 0 turns a -0 into 0, so that no "-0.00" is printed.
    ifelse(is.na(v), "NA", formatC(round(v, digits) + 0, format = "f", digits = digits))
  }
  column <- function(head, cells, right = TRUE) list(head = head, cells = cells, right = right)
  list(column("unit", rows$unit, right = FALSE), column("n", format(rows$n)),
       column(symbols[["r2"]], fixed(rows$r2, 3)), column("slope", fixed(rows$slope, 3)),
       column("intercept", fixed(rows$intercept, 2)), column("RMSE", fixed(rows$rmse, 2)),
       column("NRMSE", fixed(rows$nrmse, 1)), column("bias", fixed(rows$mbe, 2)))
}

verdict_heads <- c(r2 = "", slope = "slope", intercept = "int.", error = "error",
                   precision = "prec.", expanded_uncertainty = "U",
                   between_sampler_uncertainty = "u(bs)")

# One column per target judged in the block: "pass", "FAIL" or "-" (not judged: see the notes);
# blank on unit rows for the targets of the "all" row only (precision, between-sampler). A
# target goes with the rows whose time step it is set for; one without a verdict or a metric
# on any of them (the precision of units not co-located) has no column.
performance_verdict_cells <- function(rows, targets, symbols) {
  spec <- performance_metric_table[!is.na(performance_metric_table$target), ]
  heads <- verdict_heads
  heads[["r2"]] <- symbols[["r2"]]
  out <- list()
  for (target in unique(spec$target)) {
    of_target <- spec[spec$target == target, ]
    at <- match(of_target$threshold, targets$metric)
    if (all(is.na(at))) next  # no such target for the pollutant (between-sampler for O3)
    applies <- !is.na(rows$time_step) & rows$time_step %in% targets$averaging[at]
    pass <- rows[[paste0("pass_", target)]]
    values <- as.matrix(rows[of_target$metric[!is.na(at)]])
    if (!any(applies & (!is.na(pass) | rowSums(!is.na(values)) > 0L))) next
    cells <- ifelse(is.na(pass), "-", ifelse(pass, "pass", "FAIL"))
    cells[!applies] <- "-"
    if (all(of_target$all_only)) cells[rows$unit != "all"] <- ""
    out[[target]] <- list(head = heads[[target]], cells = cells, right = FALSE,
                          framework = targets$framework[at[!is.na(at)][1]])
  }
  out
}

# The lines of a table of columns (head, cells, right, framework): two spaces between
# columns, three before the verdicts, with a line naming each framework above its verdicts.
render_columns <- function(columns) {
  widths <- vapply(columns, function(col) max(nchar(c(col$head, col$cells), type = "width"), 4L *
                                                !is.null(col$framework)), numeric(1))
  framework <- vapply(columns, function(col) if (is.null(col$framework)) "" else col$framework, "")
  before <- c("", framework[-length(framework)])
  # One space between columns, three before the verdicts and two between frameworks.
  gaps <- ifelse(framework == before | before == "" & framework == "", 1,
                 ifelse(before == "", 3, 2))
  gaps[1] <- 0
  starts <- cumsum(gaps + c(0, widths[-length(widths)]))
  pad <- function(text, width, right) {
    fill <- strrep(" ", pmax(width - nchar(text, type = "width"), 0))
    if (right) paste0(fill, text) else paste0(text, fill)
  }
  paint <- function(text, cells) {
    ifelse(cells == "pass", cli::col_green(text), ifelse(cells == "FAIL", cli::col_red(text), text))
  }
  row_text <- function(get) {
    pieces <- vapply(seq_along(columns), function(j) {
      col <- columns[[j]]
      text <- get(col)
      padded <- pad(text, widths[j], col$right)
      paste0(strrep(" ", gaps[j]), if (!is.null(col$framework)) paint(padded, text) else padded)
    }, character(1))
    sub("\\s+$", "", paste(pieces, collapse = ""))
  }
  head_line <- row_text(function(col) col$head)
  body <- vapply(seq_along(columns[[1]]$cells), function(i) row_text(function(col) col$cells[i]), "")
  groups <- unique(framework[framework != ""])
  if (!length(groups)) return(c(head_line, body))
  over <- ""
  for (group in groups) {
    at <- starts[match(group, framework)]
    over <- paste0(over, strrep(" ", max(at - nchar(over), 1L)), group)
  }
  c(over, head_line, body)
}

# The figures of the block's "all" row that have no column: inter-unit precision, between-
# sampler uncertainty and expanded uncertainty, each where it was computed.
all_row_figures <- function(rows, averaging, targets, symbols) {
  all_row <- rows[rows$unit == "all", , drop = FALSE]
  if (nrow(all_row) != 1L) return(character())
  concentration <- attr(targets, "units")
  num <- function(v) format(signif(v, 3))
  period <- c(as_given = "times", "1h" = "hours", "24h" = "days")[[averaging]]
  parts <- character()
  if (!is.na(all_row$sd)) {
    parts <- c(parts, sprintf("inter-unit SD %s %s, CV %s %% (%d %s)", num(all_row$sd),
                              concentration, num(all_row$cv), all_row$n_precision, period))
  }
  if (!is.na(all_row$between_sampler_uncertainty)) {
    split <- targets$upper[targets$metric == "between_sampler_split"]
    sides <- c(all_row$between_sampler_uncertainty_below, all_row$between_sampler_uncertainty_above)
    side_txt <- c(sprintf("reference below %s: %s", format(split), num(sides[1])),
                  sprintf("at or above %s: %s", format(split), num(sides[2])))[!is.na(sides)]
    side_txt <- if (length(split) && length(side_txt)) {
      paste0(" (", paste(side_txt, collapse = ", "), ")")
    } else ""
    parts <- c(parts, sprintf("between-sampler u(bs) %s %s%s over %d %s",
                              num(all_row$between_sampler_uncertainty), concentration, side_txt,
                              all_row$n_between_sampler, period))
  }
  if (!is.na(all_row$expanded_uncertainty)) {
    parts <- c(parts, sprintf("expanded uncertainty U %s %% at %s %s",
                              num(all_row$expanded_uncertainty), num(all_row$limit_value),
                              concentration))
  }
  if (!length(parts)) return(character())
  paste0("all: ", paste(parts, collapse = "; "))
}

# The block's notes in full, each part (notes join them with "; ") once, after the rows that
# have it: "rt01, rt02, all: limit value 30 lies outside ...".
grouped_notes <- function(rows) {
  has <- !is.na(rows$note)
  if (!any(has)) return(character())
  parts <- strsplit(rows$note[has], "; ", fixed = TRUE)
  owners <- rep(rows$unit[has], lengths(parts))
  parts <- unlist(parts)
  distinct <- unique(parts)
  vapply(distinct, function(part) {
    paste0(paste(unique(owners[parts == part]), collapse = ", "), ": ", part)
  }, character(1), USE.NAMES = FALSE)
}

# The targets of the pollutant in words, framework by framework, from the target table.
target_legend <- function(targets, limit_value, symbols) {
  spec <- performance_metric_table[!is.na(performance_metric_table$target), ]
  spec <- spec[!duplicated(spec$threshold) & spec$threshold %in% targets$metric, ]
  names <- c(r2 = symbols[["r2"]], slope = "slope", intercept = "intercept", rmse = "RMSE",
             nrmse = "NRMSE", sd = "SD", cv = "CV", expanded_uncertainty = "U",
             between_sampler_uncertainty = "u(bs)")
  at <- match(spec$threshold, targets$metric)
  # "50%" rather than "50 %", which a line could break.
  unit_txt <- ifelse(targets$unit[at] %in% c("", "%"), targets$unit[at], paste0(" ", targets$unit[at]))
  bounds <- paste0(names[spec$threshold], " ",
                   threshold_text(spec$threshold, targets$lower[at], targets$upper[at], symbols),
                   unit_txt)
  words <- c(r2 = "", slope = "", intercept = "", error = "error: ", precision = "precision (prec.): ",
             expanded_uncertainty = "expanded uncertainty ", between_sampler_uncertainty = "between-sampler ")
  by_target <- vapply(unique(spec$target), function(target) {
    paste0(words[[target]], paste(bounds[spec$target == target], collapse = " or "))
  }, character(1))
  by_target <- sub("^intercept ", "intercept (int.) ", by_target)
  concentration <- attr(targets, "units")
  if ("expanded_uncertainty" %in% names(by_target)) {
    by_target["expanded_uncertainty"] <- paste0(by_target[["expanded_uncertainty"]], " at ",
                                                format(signif(limit_value, 4)), " ", concentration)
  }
  if ("between_sampler_uncertainty" %in% names(by_target)) {
    split <- targets$upper[targets$metric == "between_sampler_split"]
    by_target["between_sampler_uncertainty"] <- paste0(
      by_target[["between_sampler_uncertainty"]], " (also on each side of ", format(split), " ",
      concentration, ")")
  }
  framework <- targets$framework[match(spec$threshold[!duplicated(spec$target)], targets$metric)]
  groups <- vapply(unique(framework), function(f) {
    paste(f, paste(by_target[framework == f], collapse = ", "))
  }, character(1))
  paste0("Targets for ", pollutant_label(targets$pollutant[1]), " on ",
         sub(" hours?$", "-hour", targets$averaging[1]), " values: ", paste(groups, collapse = "; "),
         ". -: not judged (see the notes).")
}
