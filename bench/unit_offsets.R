options(width = 200)
# Per-unit offsets (ncam(unit = "site")) on PurpleAir beside AQS, against the same shrunk
# offsets added to the local lm (ncam:::shrunk_offsets(), the package's estimator, applied to
# lm's differences), in two protocols of bench/colocation.R:
#   short  the first 10 % of each site's days carry the reference; scored on the rest
#          (every scored site had its own co-location: offsets apply); seeds 1-5.
#   loso   leave one site out (the held-out site had no co-location: no offset, the
#          between-unit variance added to its intervals); seed 1; coverage of 90 % prediction
#          intervals with and without that variance (the estimates are the same).
# Then SensEURCity Antwerp's three two-box stations, hourly, in one pooled fit. For the short
# co-location and Antwerp, the offsets against each unit's mean difference on its scored rows
# (the long run the offsets serve, but months later and in other seasons than the co-location,
# so more than offset_sd can know), that mean's own noise and offset_sd, as RMS; then that
# difference split into the part the units share (the pooled model's level, not an offset's) and
# the units' own part, which offset_sd claims.
#
# Run (about 1 min): NCAM_LIB=<lib> nice -n 10 Rscript bench/unit_offsets.R > bench/unit_offsets.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
rmse <- function(p, y) sqrt(mean((p - y)^2))
f3 <- function(x) sprintf("%.3f", x)
cover <- function(lower, upper, y) mean(y >= lower & y <= upper)
z90 <- stats::qnorm(0.95)
d <- as.data.frame(read_purpleair_aqs(file.path(shared_data_dir(), "purpleair-aqs-daily-mathieu",
                                                "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv")))
d$pa_mean <- (d$pa_a + d$pa_b) / 2
formula <- pa_a + pa_b ~ rh + temperature
fit_ncam <- function(data, seed, ...) {
  suppressWarnings(ncam(formula, data = data, reference = "ref", seed = seed, threads = 1, ...),
                   classes = c("ncam_warning_not_converged", "ncam_warning_extrapolation"))
}
predict_quiet <- function(fit, newdata) {
  suppressWarnings(predict(fit, newdata, interval = "prediction"), classes = c("ncam_warning_extrapolation", "ncam_warning_unknown_unit"))
}
# Per seed, one fit with unit offsets scored on `test` with and without them (the fit is the
# same: offsets are estimated after training): RMSE and 90 % prediction-interval coverage; and
# mean squares over units of each offset's difference from the unit's mean difference (reference
# - estimate without offsets) on its scored rows, of that mean's own noise (from 30-day blocks:
# the variance of a block's mean times its rows, over the unit's rows) and of offset_sd. That
# difference split as in bench/unit_offsets_sim.R: its mean over the K units (shared: the pooled
# model's level on the scored rows, which no offset moves) squared, and its spread around that
# mean (the offsets' own error, what offset_sd claims, times K / (K - 1)), with the noise of the
# units' own part: 30-day calendar blocks less the mean of the block over the units present in it
# (times k / (k - 1) for k units in the block; blocks of one unit left out).
with_and_without <- function(seeds, fit_one, test) {
  vapply(seeds, function(seed) {
    fit <- fit_one(seed)
    with <- predict_quiet(fit, test)
    offsets <- fit$unit_offsets
    fit$unit_offsets <- NULL
    without <- predict_quiet(fit, test)
    later <- lapply(split(data.frame(error = test$ref - without$.pred, date = test$date), as.character(test[[offsets$unit]])), function(u) {
      block <- floor(as.numeric(difftime(u$date, min(u$date), units = "days")) / 30)
      block_means <- tapply(u$error, block, mean)
      c(mean = mean(u$error), noise = sum(table(block) * (block_means - mean(u$error))^2) / (length(block_means) - 1) / nrow(u))
    })
    later <- do.call(rbind, later)[as.character(offsets$table[[offsets$unit]]), ]
    error <- offsets$table$offset - later[, "mean"]
    c(rmse_without = rmse(without$.pred, test$ref), cov_without = cover(without$.pred_lower, without$.pred_upper, test$ref),
      rmse_with = rmse(with$.pred, test$ref), cov_with = cover(with$.pred_lower, with$.pred_upper, test$ref),
      offset_vs_later_ms = mean(error^2), later_noise_ms = mean(later[, "noise"], na.rm = TRUE),
      offset_sd_ms = mean(offsets$table$offset_sd^2), shared_ms = mean(error)^2,
      own_ms = sum((error - mean(error))^2) / (length(error) - 1),
      own_noise_ms = mean(own_noise(test$ref - without$.pred, as.character(test[[offsets$unit]]), test$date), na.rm = TRUE))
  }, numeric(10))
}
# Per unit, the noise of the mean of its own part of `error`: 30-day calendar blocks, each less
# the mean over the units in the block of their blocks' departures from their means.
own_noise <- function(error, unit, date) {
  block <- floor(as.numeric(difftime(date, min(date), units = "days")) / 30)
  departure <- tapply(error - ave(error, unit), list(unit, block), mean)
  rows <- tapply(error, list(unit, block), length)
  units_in_block <- colSums(!is.na(departure))
  own <- sweep(departure, 2, colMeans(departure, na.rm = TRUE))
  own[, units_in_block < 2] <- NA
  own_ms <- sweep(own^2, 2, units_in_block / (units_in_block - 1), `*`)
  blocks <- rowSums(!is.na(own))
  ifelse(blocks > 1, rowSums(rows * own_ms, na.rm = TRUE) / (blocks - 1) / rowSums(rows * !is.na(own), na.rm = TRUE), NA)
}
offset_line <- function(runs) {
  ms <- rowMeans(runs)
  cat(sprintf("Offsets against each unit's mean difference on its scored rows (RMS over units and seeds): %.3f; that mean's own noise %.3f; offset_sd %.3f\n",
              sqrt(ms[["offset_vs_later_ms"]]), sqrt(ms[["later_noise_ms"]]), sqrt(ms[["offset_sd_ms"]])))
  cat(sprintf("  split: shared by the units %.3f; their own part %.3f, its noise %.3f, so the offsets' own error %s against offset_sd %.3f\n",
              sqrt(ms[["shared_ms"]]), sqrt(ms[["own_ms"]]), sqrt(ms[["own_noise_ms"]]),
              if (ms[["own_ms"]] > ms[["own_noise_ms"]]) sprintf("%.3f", sqrt(ms[["own_ms"]] - ms[["own_noise_ms"]])) else "below the noise",
              sqrt(ms[["offset_sd_ms"]])))
}
seed_row <- function(method, r, c, seeds) {
  data.frame(method = method, seeds = seeds, rmse = sprintf("%s [%s-%s]", f3(mean(r)), f3(min(r)), f3(max(r))), cov90 = f3(mean(c)))
}
cat(sprintf("ncam %s from %s; %s\n", getNamespaceVersion("ncam"), dirname(system.file(package = "ncam")), format(Sys.time(), "%Y-%m-%d %H:%M")))
t0 <- Sys.time()

# ---- short co-location -----------------------------------------------------------------------
site_rows <- split(seq_len(nrow(d)), d$site)
first_days <- unlist(lapply(site_rows, function(i) i[order(d$date[i])][seq_len(ceiling(0.1 * length(i)))]))
train <- d
train$ref[-first_days] <- NA
test <- d[-first_days, ]
labelled <- d[first_days, ]
labelled <- labelled[order(labelled$site, labelled$date), ]
lm_fit <- stats::lm(ref ~ pa_mean + rh + temperature, data = labelled)
lm_offsets <- ncam:::shrunk_offsets(labelled$ref - stats::predict(lm_fit, labelled), as.character(labelled$site))
hit <- match(as.character(test$site), lm_offsets$table$unit)
lm_pred <- stats::predict(lm_fit, test, se.fit = TRUE)
lm_sd <- sqrt(lm_pred$se.fit^2 + summary(lm_fit)$sigma^2)
lm_with <- lm_pred$fit + lm_offsets$table$offset[hit]
lm_with_sd <- sqrt(lm_sd^2 + lm_offsets$table$offset_sd[hit]^2)
rows <- list(
  data.frame(method = "lm", seeds = "-", rmse = f3(rmse(lm_pred$fit, test$ref)),
             cov90 = f3(cover(lm_pred$fit - z90 * lm_sd, lm_pred$fit + z90 * lm_sd, test$ref))),
  data.frame(method = "lm + shrunk site offsets", seeds = "-", rmse = f3(rmse(lm_with, test$ref)),
             cov90 = f3(cover(lm_with - z90 * lm_with_sd, lm_with + z90 * lm_with_sd, test$ref))))
per_seed <- with_and_without(1:5, function(seed) fit_ncam(train, seed, unit = "site"), test)
rows <- c(rows, list(seed_row("ncam", per_seed["rmse_without", ], per_seed["cov_without", ], "1-5"),
                     seed_row("ncam(unit = \"site\")", per_seed["rmse_with", ], per_seed["cov_with", ], "1-5")))
cat(sprintf("\nShort co-location: %d labelled rows at %d sites, %d scored; lm's shrunk offsets: between-site sd %.2f\n",
            nrow(labelled), length(site_rows), nrow(test), sqrt(lm_offsets$tau2)))
print(do.call(rbind, rows), row.names = FALSE)
cat(sprintf("ncam(unit) per seed: %s (without offsets: %s)\n", paste(f3(per_seed["rmse_with", ]), collapse = " "),
            paste(f3(per_seed["rmse_without", ]), collapse = " ")))
offset_line(per_seed)

# ---- leave one site out: intervals for a site without co-location --------------------------
folds <- lapply(names(site_rows), function(s) {
  held <- site_rows[[s]]
  fit <- fit_ncam(d[-held, ], 1, unit = "site")
  with <- predict_quiet(fit, d[held, ])
  tau2 <- fit$unit_offsets$tau2
  fit$unit_offsets <- NULL
  without <- predict_quiet(fit, d[held, ])
  data.frame(site = s, n = length(held), tau = sqrt(tau2), rmse = rmse(with$.pred, d$ref[held]),
             same_estimates = isTRUE(all.equal(with$.pred, without$.pred)),
             covered_with = sum(d$ref[held] >= with$.pred_lower & d$ref[held] <= with$.pred_upper),
             covered_without = sum(d$ref[held] >= without$.pred_lower & d$ref[held] <= without$.pred_upper))
})
loso <- do.call(rbind, folds)
cat(sprintf("\nLeave one site out (seed 1, %d folds): held-out site unknown, estimates identical in every fold: %s\n",
            nrow(loso), all(loso$same_estimates)))
cat(sprintf("RMSE %.3f; 90 %% prediction-interval coverage without the between-site variance %.3f, with it %.3f; between-site sd %.2f-%.2f over folds\n",
            sqrt(sum(loso$rmse^2 * loso$n) / sum(loso$n)), sum(loso$covered_without) / sum(loso$n),
            sum(loso$covered_with) / sum(loso$n), min(loso$tau), max(loso$tau)))
# ---- SensEURCity Antwerp: three stations, hourly, one pooled fit ------------------------------
# The stations with two boxes (box_1 + box_2 ~ 1, no covariates), the first 20 % of each
# station's hours beside the reference (as in bench/colocation.R, but one fit over the three
# stations, so that their offsets can be learned); seeds 1-3.
antwerp <- as.data.frame(read_senseurcity_antwerp(file.path(shared_data_dir(), "senseurcity-antwerp-ineris")))
antwerp <- antwerp[antwerp$station %in% unique(antwerp$station[!is.na(antwerp$box_2)]), ]
antwerp <- antwerp[order(antwerp$station, antwerp$date), ]
antwerp$sensor_mean <- rowMeans(antwerp[c("box_1", "box_2")], na.rm = TRUE)
station_rows <- split(seq_len(nrow(antwerp)), antwerp$station)
first_hours <- unlist(lapply(station_rows, function(i) i[seq_len(ceiling(0.2 * length(i)))]))
a_train <- antwerp
a_train$ref[-first_hours] <- NA
a_test <- antwerp[-first_hours, ]
a_test <- a_test[!is.na(a_test$ref) & !is.na(a_test$sensor_mean), ]
a_labelled <- antwerp[first_hours, ]
a_lm <- stats::lm(ref ~ sensor_mean, data = a_labelled)
a_lm_station <- stats::lm(ref ~ sensor_mean + factor(station), data = a_labelled)
a_seeds <- with_and_without(1:3, function(seed) {
  suppressWarnings(ncam(box_1 + box_2 ~ 1, data = a_train, reference = "ref", unit = "station", seed = seed, threads = 1),
                   classes = c("ncam_warning_not_converged", "ncam_warning_two_sensors"))
}, a_test)
cat(sprintf("\nSensEURCity Antwerp: %d stations, %d labelled hours (first 20 %% of each station's), %d scored; box_1 + box_2 ~ 1\n",
            length(station_rows), length(first_hours), nrow(a_test)))
print(rbind(
  data.frame(method = "lm(ref ~ sensor_mean)", seeds = "-", rmse = f3(rmse(stats::predict(a_lm, a_test), a_test$ref)), cov90 = "-"),
  data.frame(method = "lm + factor(station)", seeds = "-", rmse = f3(rmse(stats::predict(a_lm_station, a_test), a_test$ref)), cov90 = "-"),
  seed_row("ncam", a_seeds["rmse_without", ], a_seeds["cov_without", ], "1-3"),
  seed_row("ncam(unit = \"station\")", a_seeds["rmse_with", ], a_seeds["cov_with", ], "1-3")), row.names = FALSE)
offset_line(a_seeds)

cat(sprintf("\nelapsed %.1f min\n", as.numeric(difftime(Sys.time(), t0, units = "mins"))))
