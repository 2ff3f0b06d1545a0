# What autoplot(type = "coverage") reports for a reference fit on PurpleAir/AQS, by interval:
# the default "prediction" interval (for a reading of the reference, what the plot compares with)
# against the "credible" one (for the true value) that the plot used before.
# Protocol: the first 20 % of each site's days carry the reference; scored on the other days.
#   NCAM_LIB=<lib> NCAM_SHARED_DATA=<shared/data> nice Rscript bench/coverage_plot.R   (about 1 min)

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))

dir <- file.path(shared_data_dir(), "purpleair-aqs-daily-mathieu")
pa <- read_purpleair_aqs(list.files(dir, pattern = "\\.csv$", full.names = TRUE)[1])
day_in_site <- stats::ave(seq_len(nrow(pa)), pa$site, FUN = seq_along)
site_days <- stats::ave(seq_len(nrow(pa)), pa$site, FUN = length)
labelled <- day_in_site <= 0.2 * site_days
pa$ref_train <- ifelse(labelled, pa$ref, NA)
fit <- ncam(pa_a + pa_b ~ rh + temperature, data = pa, reference = "ref_train", hidden = 8,
            epochs = 60, learn_rate = 3e-3, seed = 1, threads = 1, verbose = FALSE)
scored <- pa[!labelled, ]
levels <- c(0.5, 0.8, 0.9, 0.95)
plotted <- function(interval) {
  p <- suppressWarnings(ggplot2::autoplot(fit, "coverage", newdata = scored, reference = "ref",
                                          level = levels, interval = interval))
  ggplot2::layer_data(p, 3)$y  # the points
}
cat(sprintf("%d labelled days, %d scored days\n", sum(labelled), nrow(scored)))
print(data.frame(level = levels, prediction = round(plotted("prediction"), 3),
                 credible = round(plotted("credible"), 3)), row.names = FALSE)
