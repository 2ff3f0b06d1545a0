# Where should training start each sensor's gain and offset? ncam_control(sensor_start =):
# "anchor_level" (gain 1, offset 0 on the working scale, the anchor's mean and sd) or
# "own_level" (the least-squares slope of the sensor on the anchor and the difference of their
# means, on the rows where both read); "auto" (the default) starts a sensor at its own level
# only where that lies beyond start_reach (R/scale.R). Every sensor of each data set is
# shifted by k of the anchor's sds, or scaled about its mean by a factor g; each fit (package
# defaults but the start, seeds 1-2, one thread) is scored by its RMSE on the rows without a
# reference (against the reference before it was blanked; the toy data, fused without a
# reference, against the truth on every row):
#   pa       PurpleAir beside AQS, reference on the first 10 % of each site's days (5,666 rows)
#   pa_fifth every fifth of those rows (1,134)
#   pa_site  one PurpleAir site (51873, 452 rows), reference on its first 30 % of days
#   coloc    the package's `colocation` data, reference in the first four weeks (2,160 rows)
#   toy      simulate_toy(2000, seed = 1), anchor sensor_0, no reference
# `auto_starts` says where "auto" starts the sensors (its fit is the fit of that column). Then
# the short co-location with 5 seeds per start, PurpleAir shifted by 150 and 300 ug/m3 and
# scaled like raw signals, and where "auto" starts the sensors of the shared data sets as they
# are.
#
#   NCAM_LIB=<lib> NCAM_SHARED_DATA=/work/shared/data nice -n 10 Rscript bench/sensor_start.R \
#     > bench/sensor_start.out   (about 20 min)
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
sensors_of <- function(case) setdiff(all.vars(case$formula[[2]]), case$anchor)
anchor_of <- function(case) if (is.null(case$reference)) case$anchor else case$reference

# A fit of `case` on `d` from `start`, with its warnings' classes, and the RMSE of its estimates.
fit_case <- function(case, d, seed, start) {
  classes <- character()
  args <- c(list(case$formula, d, seed = seed, threads = 1, control = ncam_control(sensor_start = start)),
            case[intersect(c("reference", "anchor"), names(case))])
  fit <- withCallingHandlers(
    do.call(ncam, args),
    warning = function(w) {
      classes <<- c(classes, sub("ncam_warning_", "", class(w)[1]))
      invokeRestart("muffleWarning")
    })
  scored <- if (is.null(case$reference)) rep(TRUE, nrow(d)) else is.na(d[[case$reference]])
  pred <- suppressWarnings(predict(fit, d))$.pred
  list(fit = fit, classes = unique(classes), rmse = sqrt(mean((pred[scored] - case$truth[scored])^2, na.rm = TRUE)))
}
# Where "auto" starts the sensors of `case` on `d`: a one-epoch fit from "auto" is the one from
# "anchor_level" or from "own_level" (or neither, when it starts only some sensors at their own).
auto_starts <- function(case, d) {
  one_epoch <- function(start) {
    args <- c(list(case$formula, d, epochs = 1, seed = 1, threads = 1, control = ncam_control(sensor_start = start)),
              case[intersect(c("reference", "anchor"), names(case))])
    suppressWarnings(do.call(ncam, args))$params
  }
  auto <- one_epoch("auto")
  if (identical(auto, one_epoch("anchor_level"))) "anchor" else if (identical(auto, one_epoch("own_level"))) "own" else "some own"
}
score_grid <- function(transform_sensor, levels, label) {
  rows <- list()
  for (name in names(cases)) {
    case <- cases[[name]]
    for (k in levels) {
      d <- case$data
      for (s in sensors_of(case)) d[[s]] <- transform_sensor(d[[s]], k, stats::sd(d[[anchor_of(case)]], na.rm = TRUE))
      anchor_level <- lapply(1:2, function(seed) fit_case(case, d, seed, "anchor_level"))
      own_level <- lapply(1:2, function(seed) fit_case(case, d, seed, "own_level"))
      warned <- unique(unlist(lapply(c(anchor_level, own_level), `[[`, "classes")))
      rows[[length(rows) + 1L]] <- data.frame(
        data = name, level = k,
        anchor_level = paste(sprintf("%.2f", vapply(anchor_level, `[[`, 1, "rmse")), collapse = " "),
        own_level = paste(sprintf("%.2f", vapply(own_level, `[[`, 1, "rmse")), collapse = " "),
        auto_starts = auto_starts(case, d), warnings = paste(warned, collapse = ", "))
    }
  }
  names(rows[[1]])[2] <- label
  out <- do.call(rbind, lapply(rows, stats::setNames, names(rows[[1]])))
  print(out, row.names = FALSE)
}

cat("1. Every sensor shifted by k of the anchor's sds: RMSE per seed (1 2) from each start\n")
score_grid(function(v, k, anchor_sd) v + k * anchor_sd, c(0, 2, 3, 4, 6, 8, 10), "k")

cat("\n2. Every sensor scaled about its mean by g: RMSE per seed (1 2) from each start\n")
score_grid(function(v, g, anchor_sd) mean(v, na.rm = TRUE) + g * (v - mean(v, na.rm = TRUE)), c(0.25, 0.5, 2, 3, 4, 10), "g")

cat("\n3. The PurpleAir short co-location as it is, seeds 1-5, from each start\n")
short <- do.call(rbind, lapply(c("anchor_level", "own_level", "auto"), function(start) {
  rmse <- vapply(1:5, function(seed) fit_case(cases$pa, pa_short, seed, start)$rmse, 1)
  data.frame(start = start, rmse_per_seed = paste(sprintf("%.3f", rmse), collapse = " "), mean = round(mean(rmse), 3))
}))
print(short, row.names = FALSE)

cat("\n4. PurpleAir shifted and scaled like raw signals (seed 1), from each start\n")
raw <- list(`+150` = function(v) v + 150, `+300` = function(v) v + 300, `x10 + 50` = function(v) 10 * v + 50,
            `x100 + 500` = function(v) 100 * v + 500, `x1000 + 2000 (mV)` = function(v) 1000 * v + 2000)
print(do.call(rbind, lapply(names(raw), function(name) {
  d <- pa_short
  for (s in c("pa_a", "pa_b")) d[[s]] <- raw[[name]](d[[s]])
  runs <- lapply(c("anchor_level", "own_level", "auto"), function(start) fit_case(cases$pa, d, 1, start))
  data.frame(sensors = name, anchor_level = round(runs[[1]]$rmse, 2), own_level = round(runs[[2]]$rmse, 2),
             auto = round(runs[[3]]$rmse, 2), auto_warnings = paste(runs[[3]]$classes, collapse = ", "))
})), row.names = FALSE)

cat("\n5. Where \"auto\" starts the sensors of the data sets as they are\n")
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
# A site whose short co-location has too few reference rows to fit is "no fit".
starts <- vapply(as_they_are, function(case) tryCatch(auto_starts(case, case$data), error = function(e) "no fit"), "")
print(table(starts))
cat("Not all at the anchor's level:", paste0(names(starts), " (", starts, ")")[!starts %in% c("anchor", "no fit")], "\n")
