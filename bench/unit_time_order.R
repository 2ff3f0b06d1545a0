# offset_sd of unit offsets with each unit's rows in time order or shuffled (the figure of ?ncam,
# section Unit offsets): PurpleAir/AQS daily data with the reference on the first 10 % of each
# site's days (purpleair_short_protocol() in bench/common.R), ncam(pa_a + pa_b ~ rh +
# temperature, reference = "ref", unit = "site", seed = 1), package defaults; fitted to the rows
# in time order and to five shuffles of them (seeds 1-5 of sample()). Per shuffle: the median over
# the sites of offset_sd shuffled / offset_sd in order.
#
# Run (about 1 min): NCAM_LIB=<lib> [NCAM_SHARED_DATA=<folder>] Rscript bench/unit_time_order.R > bench/unit_time_order.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source("bench/common.R")
started <- Sys.time()
train <- purpleair_short_protocol()$train
train <- train[order(train$site, train$date), ]
warned <- character()  # warnings' classes, counted and shown below
offset_sd_of <- function(data) {
  fit <- withCallingHandlers(
    ncam(pa_a + pa_b ~ rh + temperature, data = data, reference = "ref", unit = "site", seed = 1, threads = 1),
    warning = function(w) {
      warned <<- c(warned, class(w)[1])
      invokeRestart("muffleWarning")
    })
  table <- fit$unit_offsets$table
  stats::setNames(table$offset_sd, table[[1]])
}
in_order <- offset_sd_of(train)
ratios <- do.call(rbind, lapply(1:5, function(seed) {
  set.seed(seed)
  shuffled <- offset_sd_of(train[sample(nrow(train)), ])
  ratio <- shuffled[names(in_order)] / in_order
  data.frame(shuffle = seed, median_ratio = stats::median(ratio), min_ratio = min(ratio), max_ratio = max(ratio))
}))
cat(sprintf("ncam %s from %s; %s\n\n", getNamespaceVersion("ncam"), dirname(system.file(package = "ncam")),
            format(Sys.time(), "%Y-%m-%d %H:%M")))
cat(sprintf("%d training rows, %d with a reference, %d sites with reference rows; offset_sd in time order: median %.3f\n\n",
            nrow(train), sum(!is.na(train$ref)), length(in_order), stats::median(in_order)))
cat("offset_sd with the rows shuffled / in time order, over the sites:\n")
print(ratios, row.names = FALSE, digits = 3)
cat(sprintf("\nMedian over the sites: %.2f to %.2f over the five shuffles\n", min(ratios$median_ratio), max(ratios$median_ratio)))
cat("\nWarnings by class (6 fits):", if (length(warned)) "" else "none", "\n")
if (length(warned)) print(table(warned))
cat(sprintf("\nelapsed %.1f min\n", as.numeric(difftime(Sys.time(), started, units = "mins"))))
