# How far from the anchor's level can a sensor read before ncam() stops reaching its offset? The
# working scale is the anchor's mean and sd and every sensor starts at gain 1, offset 0 on it
# (the threshold of ncam_warning_far_from_anchor, R/screen-anchor.R). Every sensor of each data
# set is shifted by k of the anchor's sds; the fit (package defaults, seeds 1-2, one thread) is
# scored by its RMSE on the rows without a reference (against the reference before it was
# blanked; the toy data, fused without a reference, against the truth on every row):
#   pa       PurpleAir beside AQS, reference on the first 10 % of each site's days (5,666 rows)
#   pa_fifth every fifth of those rows (1,134)
#   pa_site  one PurpleAir site (51873, 452 rows), reference on its first 30 % of days
#   coloc    the package's `colocation` data, reference in the first four weeks (2,160 rows)
#   toy      simulate_toy(2000, seed = 1), anchor sensor_0, no reference
# `distance` is the statistic of the warning (the sensors' largest median distance from the
# anchor's mean, in its sds) and `warned` whether it fired. Then PurpleAir shifted by 150 and
# 300 ug/m3, with the clamp widened and with the baseline the warning suggests taken off; and the
# statistic on the package's and the shared data sets as they are.
#
#   NCAM_LIB=<lib> NCAM_SHARED_DATA=/work/shared/data nice -n 10 Rscript bench/anchor_distance.R \
#     > bench/anchor_distance.out   (about 6 min)
options(width = 200)
lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
data_dir <- Sys.getenv("NCAM_SHARED_DATA", "/work/shared/data")
pa <- read_purpleair_aqs(file.path(data_dir, "purpleair-aqs-daily-mathieu",
                                   "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv"))
pa <- pa[order(pa$site, pa$date), ]
# The reference on the first `share` of each site's days only.
short_reference <- function(d, share) {
  first <- stats::ave(seq_len(nrow(d)), d$site, FUN = function(i) seq_along(i) <= ceiling(share * length(i)))
  d$ref[!as.logical(first)] <- NA
  d
}
pa_short <- short_reference(pa, 0.1)
site <- pa[pa$site == "51873", ]
coloc <- colocation
coloc$ref[coloc$date >= as.POSIXct("2021-04-29", tz = "UTC")] <- NA
toy <- simulate_toy(n = 2000, seed = 1)
pa_formula <- pa_a + pa_b ~ rh + temperature
cases <- list(
  pa = list(data = pa_short, truth = pa$ref, formula = pa_formula, reference = "ref"),
  pa_fifth = list(data = pa_short[seq(1, nrow(pa), by = 5), ], truth = pa$ref[seq(1, nrow(pa), by = 5)],
                  formula = pa_formula, reference = "ref"),
  pa_site = list(data = short_reference(site, 0.3), truth = site$ref, formula = pa_formula, reference = "ref"),
  coloc = list(data = coloc, truth = colocation$truth, formula = pa_a + pa_b + opc ~ rh + temperature, reference = "ref"),
  toy = list(data = toy, truth = toy$truth, formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4,
             reference = NULL, anchor = "sensor_0"))

# A fit of `case` on `d`, with its warnings' classes, and the RMSE of its estimates.
fit_case <- function(case, d, seed, control = ncam_control()) {
  classes <- character()
  # do.call(): ncam() takes `anchor = case$anchor` as given even where it is NULL.
  args <- c(list(case$formula, d, seed = seed, threads = 1, control = control), case[intersect(c("reference", "anchor"), names(case))])
  fit <- withCallingHandlers(
    do.call(ncam, args),
    warning = function(w) {
      classes <<- c(classes, class(w)[1])
      invokeRestart("muffleWarning")
    })
  scored <- if (is.null(case$reference)) rep(TRUE, nrow(d)) else is.na(d[[case$reference]])
  pred <- suppressWarnings(predict(fit, d))$.pred
  list(fit = fit, classes = classes, rmse = sqrt(mean((pred[scored] - case$truth[scored])^2, na.rm = TRUE)))
}
sensors_of <- function(case) setdiff(all.vars(case$formula[[2]]), case$anchor)
# The warning's statistic: the sensors' largest median distance from the anchor's mean, in its sds.
distance <- function(case, d) {
  anchor <- d[[if (is.null(case$reference)) case$anchor else case$reference]]
  max(abs(vapply(sensors_of(case), function(s) stats::median(d[[s]], na.rm = TRUE), 1) - mean(anchor, na.rm = TRUE))) /
    stats::sd(anchor, na.rm = TRUE)
}

cat("1. Every sensor shifted by k of the anchor's sds: RMSE after the co-location (toy: of the fused value)\n")
rows <- list()
for (name in names(cases)) {
  case <- cases[[name]]
  anchor_sd <- stats::sd(case$data[[if (is.null(case$reference)) case$anchor else case$reference]], na.rm = TRUE)
  for (k in c(0, 4, 6, 8, 10)) {
    d <- case$data
    for (s in sensors_of(case)) d[[s]] <- d[[s]] + k * anchor_sd
    runs <- lapply(1:2, function(seed) fit_case(case, d, seed))
    rows[[length(rows) + 1L]] <- data.frame(
      data = name, k = k, distance = round(distance(case, d), 1),
      rmse_seed1 = round(runs[[1]]$rmse, 2), rmse_seed2 = round(runs[[2]]$rmse, 2),
      warned = any(vapply(runs, function(r) "ncam_warning_far_from_anchor" %in% r$classes, TRUE)))
  }
}
print(do.call(rbind, rows), row.names = FALSE)

cat("\n2. PurpleAir shifted by a constant (seed 1)\n")
shifted <- function(shift) {
  d <- pa_short
  d$pa_a <- d$pa_a + shift
  d$pa_b <- d$pa_b + shift
  d
}
pa_case <- cases$pa
wide <- ncam_control(logvar_range = c(-5, 8))
runs <- list(`+0` = fit_case(pa_case, shifted(0), 1), `+150` = fit_case(pa_case, shifted(150), 1),
             `+300` = fit_case(pa_case, shifted(300), 1), `+300, logvar_range c(-5, 8)` = fit_case(pa_case, shifted(300), 1, wide))
# The baseline the warning suggests: each sensor's median minus the reference's.
d <- shifted(300)
for (s in c("pa_a", "pa_b")) d[[s]] <- d[[s]] - (stats::median(d[[s]]) - stats::median(d$ref, na.rm = TRUE))
runs$`+300, baseline taken off` <- fit_case(pa_case, d, 1)
print(data.frame(data = names(runs), rmse = round(vapply(runs, `[[`, 1, "rmse"), 2),
                 warnings = vapply(runs, function(r) paste(sub("ncam_warning_", "", unique(r$classes)), collapse = ", "), "")),
      row.names = FALSE)

cat("\n3. The statistic on the data sets as they are (largest over the sensors)\n")
antwerp <- read_senseurcity_antwerp(file.path(data_dir, "senseurcity-antwerp-ineris"))
toucan <- read_toucan(file.path(data_dir, "epa-sensortoolkit-toucan", "toucan_hourly_merged.csv"))
plain <- function(d, sensors, anchor) {
  list(data = d, formula = stats::as.formula(paste(paste(sensors, collapse = "+"), "~ 1")), anchor = anchor)
}
as_they_are <- c(
  list(pa = cases$pa, pa_all_reference = list(data = pa, formula = pa_formula, reference = "ref"),
       pa_anchor_pa_a = plain(pa, c("pa_a", "pa_b"), "pa_a"), coloc = cases$coloc,
       colocation_sites = list(data = simulate_colocation(days = 60, sites = 4, seed = 1),
                               formula = pa_a + pa_b + opc ~ 1, reference = "ref"),
       toy = cases$toy, toucan = plain(toucan, c("rt01", "rt02", "rt03"), "rt01"),
       toucan_reference = list(data = toucan, formula = rt01 + rt02 + rt03 ~ 1, reference = "ref")),
  lapply(split(pa, pa$site), function(d) list(data = short_reference(d, 0.1), formula = pa_formula, reference = "ref")),
  lapply(split(antwerp, antwerp$station), function(d) {
    boxes <- if (all(is.na(d$box_2))) "box_1" else c("box_1", "box_2")
    list(data = d, formula = stats::as.formula(paste(paste(boxes, collapse = "+"), "~ 1")), reference = "ref")
  }))
stat <- vapply(as_they_are, function(case) distance(case, case$data), 1)
print(data.frame(data = names(stat), distance = round(stat, 2))[order(-stat), ], row.names = FALSE)
