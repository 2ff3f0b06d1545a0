# The figures of autoplot() on sensor_performance()'s table for two real data sets, as a report
# would hold them (7 x 5 inches): PurpleAir/AQS (18 sites, daily, the US EPA correction of the
# channel mean as the estimate; the sites are not co-located) and EPA's Toucan (3 units beside one
# reference, hourly, their raw readings). Writes performance_purpleair.png and
# performance_toucan.png into the folder given (default: a temporary one) and prints what each
# figure holds.
#   NCAM_SHARED_DATA=/work/shared/data Rscript bench/performance_figures.R [folder]
script <- sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))
source(file.path(dirname(script), "common.R"))
out_dir <- commandArgs(trailingOnly = TRUE)[1]
if (is.na(out_dir)) out_dir <- tempfile("performance_figures")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
suppressPackageStartupMessages({library(ncam); library(ggplot2)})
data_dir <- shared_data_dir()
pa <- read_purpleair_aqs(file.path(data_dir, "purpleair-aqs-daily-mathieu",
                                   "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv"))
pa$epa <- 0.524 * (pa$pa_a + pa$pa_b) / 2 - 0.0862 * pa$rh + 5.75
toucan <- read_toucan(file.path(data_dir, "epa-sensortoolkit-toucan", "toucan_hourly_merged.csv"))
units_long <- do.call(rbind, lapply(c("rt01", "rt02", "rt03"), function(u) {
  data.frame(date = toucan$date, unit = u, pm = toucan[[u]], ref = toucan$ref)
}))
tables <- list(
  purpleair = suppressMessages(sensor_performance(pa, "epa", "ref", unit = "site")),
  toucan = suppressMessages(sensor_performance(units_long, "pm", "ref", unit = "unit"))
)
for (name in names(tables)) {
  plot <- autoplot(tables[[name]])
  path <- file.path(out_dir, sprintf("performance_%s.png", name))
  ggsave(path, plot, width = 7, height = 5, dpi = 150)
  built <- ggplot_build(plot)
  layout <- built$layout$layout
  cat(sprintf("%s: %s; %d panels in %d row(s) of up to %d: %s; %d points\n", name, path,
              nrow(layout), max(layout$ROW), max(layout$COL),
              paste(gsub("\n", " ", levels(built$plot$data$panel)), collapse = " | "),
              nrow(built$data[[which(vapply(plot$layers, function(l) inherits(l$geom, "GeomPoint"), TRUE))]])))
}
