# The autoplot() figures of many units or groups on real data, at 7 x 5 inches, for two builds
# (session 41: `panels`, and the co-location shaded from the periods a fit keeps): PurpleAir/AQS
# with the first 20 % of each site's days beside the reference (one model, unit = "site", 18
# sites; and unit = "site/year", 37 units with the first 30 % of each unit's days), SensEURCity
# Antwerp with each station's first 30 days (ncam_by over its 9 stations). Per figure: the panels
# drawn (rows x columns), the co-location spans shaded, the caption and any message; per fit its
# size and that of its reference periods, and print()'s Reference line. Each build runs in a child
# and writes its PNGs into <folder>/<build>/ (default folder: a temporary one).
#   NCAM_LIB_BEFORE=<lib> NCAM_LIB=<lib> NCAM_SHARED_DATA=<shared/data> nice Rscript bench/plot_panels.R [folder]
# (about 1 min a build)
args <- commandArgs(trailingOnly = TRUE)
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
source(file.path(dirname(script), "common.R"))

if (length(args) && args[1] == "--child") {
  out_dir <- args[2]
  suppressPackageStartupMessages(library(ncam, lib.loc = args[3]))
  dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
  has_panels <- "panels" %in% names(formals(ncam:::autoplot.ncam))
  quiet <- function(expr) suppressWarnings(suppressMessages(expr))
  data_dir <- shared_data_dir()
  pa <- as.data.frame(read_purpleair_aqs(file.path(data_dir, "purpleair-aqs-daily-mathieu",
                                                    "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv")))
  first_share <- function(key, share) {
    day <- stats::ave(seq_len(nrow(pa)), key, FUN = seq_along)
    day <= share * stats::ave(seq_len(nrow(pa)), key, FUN = length)
  }
  pa$ref_train <- ifelse(first_share(pa$site, 0.2), pa$ref, NA)
  se <- as.data.frame(read_senseurcity_antwerp(file.path(data_dir, "senseurcity-antwerp-ineris"), "colocated"))
  start <- stats::ave(as.numeric(se$date), se$station, FUN = min)
  se$ref_train <- ifelse(as.numeric(se$date) - start < 30 * 86400, se$ref, NA)
  fits <- list(
    pa_unit = quiet(ncam(pa_a + pa_b ~ rh + temperature, data = pa, reference = "ref_train", unit = "site",
                         hidden = 8, epochs = 60, learn_rate = 3e-3, seed = 1, threads = 1)),
    se_by = quiet(ncam_by(box_1 + box_2 ~ 1, data = se, by = "station", reference = "ref_train",
                          hidden = 4, epochs = 30, learn_rate = 3e-3, seed = 1, threads = 1)))
  years <- pa[order(pa$site, format(pa$date, "%Y"), pa$date), ]
  years$site_year <- paste(years$site, format(years$date, "%Y"), sep = "/")
  years$ref_train <- ifelse(stats::ave(seq_len(nrow(years)), years$site_year, FUN = seq_along) <=
                              0.3 * stats::ave(seq_len(nrow(years)), years$site_year, FUN = length), years$ref, NA)
  fits$pa_site_year <- quiet(ncam(pa_a + pa_b ~ rh + temperature, data = years, reference = "ref_train",
                                  unit = "site_year", hidden = 8, epochs = 40, learn_rate = 3e-3, seed = 1, threads = 1))
  later_pa <- pa[is.na(pa$ref_train), setdiff(names(pa), "ref_train")]
  later_se <- se[is.na(se$ref_train), setdiff(names(se), "ref_train")]
  figures <- list(
    pa_unit_series = list(fits$pa_unit, "series", pa, NULL),
    pa_unit_series_later = list(fits$pa_unit, "series", later_pa, NULL),
    pa_unit_scatter = list(fits$pa_unit, "scatter", pa, "ref"),
    pa_unit_coverage = list(fits$pa_unit, "coverage", pa, "ref"),
    se_by_series = list(fits$se_by, "series", se, NULL),
    se_by_series_later = list(fits$se_by, "series", later_se, NULL),
    se_by_scatter = list(fits$se_by, "scatter", se, "ref"),
    site_year_scatter = list(fits$pa_site_year, "scatter", years, "ref"),
    site_year_coverage = list(fits$pa_site_year, "coverage", years, "ref"))
  if (has_panels) {
    figures$pa_unit_series_panels_7_12 <- c(figures$pa_unit_series, list(panels = 7:12))
    figures$se_by_series_panels_7_9 <- c(figures$se_by_series, list(panels = 7:9))
  }
  for (name in names(figures)) {
    f <- figures[[name]]
    said <- character()
    plot <- withCallingHandlers(
      suppressWarnings(do.call(ggplot2::autoplot, c(list(f[[1]], f[[2]], newdata = f[[3]], reference = f[[4]]),
                                                    if (length(f) > 4) list(panels = f$panels)))),
      message = function(m) { said <<- c(said, conditionMessage(m)); invokeRestart("muffleMessage") })
    ggplot2::ggsave(file.path(out_dir, paste0(name, ".png")), plot, width = 7, height = 5, dpi = 100)
    built <- ggplot2::ggplot_build(plot)
    layout <- built$layout$layout
    rects <- which(vapply(plot$layers, function(l) inherits(l$geom, "GeomRect"), TRUE))
    flat <- function(x) gsub("\\s+", " ", paste(x, collapse = " "))
    cat(sprintf("fig %s: %d panels in %d rows x %d columns; %d co-location spans shaded; caption: %s; message: %s\n",
                name, nrow(layout), max(layout$ROW), max(layout$COL),
                if (length(rects)) nrow(built$data[[rects[1]]]) else 0L,
                if (is.null(plot$labels$caption)) "none" else flat(plot$labels$caption),
                if (length(said)) flat(said) else "none"))
  }
  size_kb <- function(x) {
    path <- tempfile(fileext = ".rds")
    saveRDS(x, path)
    on.exit(unlink(path))
    c(memory = as.numeric(utils::object.size(x)) / 1024, rds = file.size(path) / 1024)
  }
  one_fits <- list(pa_unit = fits$pa_unit, pa_site_year = fits$pa_site_year,
                   se_by_first_group = fits$se_by$fit[[1]])
  for (name in names(one_fits)) {
    fit <- one_fits[[name]]
    kept <- fit$reference_periods
    cat(sprintf("size %s: fit %.1f kB in memory, %.1f kB as .rds; reference_periods %s\n", name,
                size_kb(fit)[["memory"]], size_kb(fit)[["rds"]],
                if (is.null(kept)) "none" else sprintf("%d period(s), %.2f kB in memory, %.2f kB as .rds", nrow(kept$periods),
                                                       size_kb(kept)[["memory"]], size_kb(kept)[["rds"]])))
    cat(sprintf("print %s: %s\n", name, grep("^Reference:", utils::capture.output(print(fit)), value = TRUE)))
  }
  quit(save = "no")
}

libs <- bench_libraries()
out_dir <- if (length(args)) args[1] else tempfile("plot_panels")
say <- script_logger(script)
say_machine(say, script, libs, after_libraries = sprintf("figures in %s", out_dir))
say_child_figures(say, script, libs, out_dir, "(fig|size|print)")
