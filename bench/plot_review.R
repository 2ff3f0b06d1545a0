# The scatter and coverage figures of autoplot() that user reviews found wanting (session 41), at
# 7 x 5 inches, for two builds: PurpleAir/AQS with the short co-location (the first 10 % of each
# site's days beside the reference, bench/common.R's purpleair_short_protocol(); one model, and
# unit = "site"), the same with unit = "site/year" (37 units, the first 30 % of each unit's days),
# and SensEURCity Antwerp's ncam_by() over its 9 stations (their first 30 days). Per figure:
# the subtitle and caption (the figures they give), the legend's labels, the panels drawn (rows x
# columns, each's width x height in inches as drawn on a 7 x 5 inch device, and the share of the
# figure they cover), the x axis breaks of the first panel, its strip, and the time of autoplot()
# and drawing (on a shared machine: noisy). Then the time of telling the co-location rows (builds
# that do), and for the one model the figures of the later rows alone and of the co-location rows
# alone (those the subtitle and legend should give). Each build runs in a child and writes its
# PNGs into <folder>/<build>/.
#   NCAM_LIB_BEFORE=<lib> NCAM_LIB=<lib> NCAM_SHARED_DATA=<shared/data> nice Rscript bench/plot_review.R [folder]
# (about 1 min a build)
args <- commandArgs(trailingOnly = TRUE)
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
source(file.path(dirname(script), "common.R"))

if (length(args) && args[1] == "--child") {
  out_dir <- args[2]
  attach_ncam(args[3])
  dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
  quiet <- function(expr) suppressWarnings(suppressMessages(expr))
  flat <- function(x) if (is.null(x)) "none" else gsub("\\s+", " ", paste(x, collapse = " "))
  protocol <- purpleair_short_protocol()
  pa <- protocol$data
  train <- protocol$train
  fits <- list(pooled = quiet(ncam(pa_a + pa_b ~ rh + temperature, data = train, reference = "ref", seed = 1, threads = 1)),
               unit = quiet(ncam(pa_a + pa_b ~ rh + temperature, data = train, reference = "ref", unit = "site",
                                 seed = 1, threads = 1)))
  years <- pa[order(pa$site, format(pa$date, "%Y"), pa$date), ]
  years$site_year <- paste(years$site, format(years$date, "%Y"), sep = "/")
  years$ref_train <- ifelse(stats::ave(seq_len(nrow(years)), years$site_year, FUN = seq_along) <=
                              0.3 * stats::ave(seq_len(nrow(years)), years$site_year, FUN = length), years$ref, NA)
  fits$site_year <- quiet(ncam(pa_a + pa_b ~ rh + temperature, data = years, reference = "ref_train",
                               unit = "site_year", hidden = 8, epochs = 40, learn_rate = 3e-3, seed = 1, threads = 1))
  se <- as.data.frame(read_senseurcity_antwerp(file.path(shared_data_dir(), "senseurcity-antwerp-ineris"), "colocated"))
  start <- stats::ave(as.numeric(se$date), se$station, FUN = min)
  se$ref_train <- ifelse(as.numeric(se$date) - start < 30 * 86400, se$ref, NA)
  fits$se_by <- quiet(ncam_by(box_1 + box_2 ~ 1, data = se, by = "station", reference = "ref_train",
                              hidden = 4, epochs = 30, learn_rate = 3e-3, seed = 1, threads = 1))
  figures <- list(
    pooled_scatter = list(fits$pooled, "scatter", pa, "ref"),
    pooled_coverage = list(fits$pooled, "coverage", pa, "ref"),
    pooled_scatter_later = list(fits$pooled, "scatter", protocol$test, "ref"),
    unit_scatter = list(fits$unit, "scatter", pa, "ref"),
    unit_coverage = list(fits$unit, "coverage", pa, "ref"),
    site_year_scatter = list(fits$site_year, "scatter", years, "ref"),
    site_year_coverage = list(fits$site_year, "coverage", years, "ref"),
    se_by_scatter = list(fits$se_by, "scatter", se, "ref"))
  for (name in names(figures)) {
    f <- figures[[name]]
    seconds <- system.time({
      plot <- quiet(ggplot2::autoplot(f[[1]], f[[2]], newdata = f[[3]], reference = f[[4]]))
      grDevices::pdf(NULL, width = 7, height = 5)
      print(plot)
    })[["elapsed"]]
    grid::grid.force()
    viewports <- grid::grid.ls(viewports = TRUE, grobs = FALSE, print = FALSE)$name
    sizes <- vapply(unique(grep("^panel", viewports, value = TRUE)), function(v) {
      grid::seekViewport(v)
      c(grid::convertWidth(grid::unit(1, "npc"), "in", TRUE), grid::convertHeight(grid::unit(1, "npc"), "in", TRUE))
    }, numeric(2))
    grDevices::dev.off()
    ggplot2::ggsave(file.path(out_dir, paste0(name, ".png")), plot, width = 7, height = 5, dpi = 100)
    built <- ggplot2::ggplot_build(plot)
    layout <- built$layout$layout
    breaks <- built$layout$panel_params[[1]]$x$breaks
    legend <- unlist(lapply(c("colour", "shape"), function(a) {
      scale <- built$plot$scales$get_scales(a)
      if (!is.null(scale) && !identical(scale$guide, "none")) scale$get_labels()
    }))
    strip <- if (!is.null(plot$facet$params$labeller) && "group" %in% names(plot$data)) {
      plot$facet$params$labeller(data.frame(group = levels(droplevels(plot$data$group))[1]))[[1]]
    } else if ("curve" %in% names(plot$data) && nrow(layout) > 1L) {
      plot$facet$params$labeller(data.frame(curve = levels(droplevels(plot$data$curve))[1]))[[1]]
    }
    cat(sprintf("fig %s: subtitle: %s | caption: %s | legend: %s | %d panels in %d x %d, each %.2f x %.2f in, covering %.0f%% of the figure | first panel's x breaks: %s; strip: %s | %.2f s\n",
                name, flat(plot$labels$subtitle), flat(plot$labels$caption), flat(unique(legend)),
                nrow(layout), max(layout$ROW), max(layout$COL), sizes[1, 1], sizes[2, 1],
                100 * sum(sizes[1, ] * sizes[2, ]) / 35, flat(format(breaks[!is.na(breaks)])), flat(strip), seconds))
  }
  # What telling the co-location rows costs: finding each fit's data and matching newdata's rows.
  source_of <- ncam:::fused_source
  if (!is.null(source_of(fits$pooled)$fitted_rows)) {
    for (case in list(list("pooled", fits$pooled, pa), list("se_by", fits$se_by, se))) {
      lookup <- source_of(case[[2]])$fitted_rows
      found <- lookup(case[[3]])
      seconds <- stats::median(vapply(1:3, function(i) system.time(lookup(case[[3]]))[["elapsed"]], numeric(1)))
      cat(sprintf("rows lookup %s: %d of %s rows found to be the fit's co-location rows in %.3f s (median of 3)\n",
                  case[[1]], sum(found), format(nrow(case[[3]]), big.mark = ","), seconds))
    }
  }
  # The figures the subtitle of the one model's scatter on all rows should give: its later rows'.
  later <- protocol$test
  pred <- quiet(predict(fits$pooled, later))$.pred
  error <- pred - later$ref
  cat(sprintf("rows later: the pooled fit on the %d later rows alone: n = %s, bias = %.3g, RMSE = %.3g, correlation = %.3f\n",
              nrow(later), format(nrow(later), big.mark = ","), mean(error), sqrt(mean(error^2)), stats::cor(later$ref, pred)))
  colocation <- pa[protocol$first_days, ]
  pred <- quiet(predict(fits$pooled, colocation))$.pred
  error <- pred - colocation$ref
  cat(sprintf("rows colocation: the pooled fit on the %d co-location rows alone: n = %s, bias = %.3g, RMSE = %.3g, correlation = %.3f\n",
              nrow(colocation), format(nrow(colocation), big.mark = ","), mean(error), sqrt(mean(error^2)),
              stats::cor(colocation$ref, pred)))
  quit(save = "no")
}

libs <- bench_libraries()
out_dir <- if (length(args)) args[1] else tempfile("plot_review")
say <- script_logger(script)
say_machine(say, script, libs, after_libraries = sprintf("figures in %s", out_dir))
say_child_figures(say, script, libs, out_dir, "(fig|rows)")
