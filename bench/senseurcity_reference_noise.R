# The reference's noise as one value (ncam_control(reference_noise = "constant")) against a
# function of the covariates (the default) under the protocol of vignette("senseurcity"):
# SensEURCity Antwerp, the three stations with two boxes, the first 10 % of each station's hours
# labelled, a 36-hour gap, one fit over the three stations with the station and the hour of day
# as covariates, seeds 1, 3 and 5; scored on the later hours with both boxes. Per fit: RMSE
# overall and by station, best epoch and epochs run.
#
# Run (under 1 min): NCAM_LIB=<lib> NCAM_SHARED_DATA=<data> Rscript bench/senseurcity_reference_noise.R > bench/senseurcity_reference_noise.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
data_dir <- shared_data_dir()
antwerp <- read_senseurcity_antwerp(file.path(data_dir, "senseurcity-antwerp-ineris"))
aq <- antwerp[antwerp$station %in% c("ANT_REF_R801", "ANT_REF_R802", "ANT_REF_R804"), ]
aq$station <- factor(sub("ANT_REF_", "", aq$station))
hour <- as.numeric(format(aq$date, "%H", tz = "UTC"))
aq$hour_sin <- sin(2 * pi * hour / 24); aq$hour_cos <- cos(2 * pi * hour / 24)
aq$box_1[aq$box_1 <= 0] <- NA; aq$box_2[aq$box_2 <= 0] <- NA
part <- rep(NA_character_, nrow(aq))
for (s in levels(aq$station)) { at <- which(aq$station == s)
  part[at] <- as.character(split_chronological(aq[at, ], "date", prop = c(train = 0.1, test = 0.9), gap = "36 hours")) }
labelled <- which(part %in% "train")
scored <- which(part %in% "test" & !is.na(aq$box_1) & !is.na(aq$box_2))
aq_fit <- aq; aq_fit$ref[-labelled] <- NA
cat(sprintf("%d labelled hours, %d scored\n", length(labelled), length(scored)))
for (noise in c("constant", "covariates")) for (seed in c(1, 3, 5)) {
  fit <- suppressWarnings(ncam(box_1 + box_2 ~ station + hour_sin + hour_cos, data = aq_fit, reference = "ref", seed = seed, threads = 1,
              control = ncam_control(reference_noise = noise)))
  p <- suppressWarnings(predict(fit, aq[scored, ]))
  e <- p$.pred - aq$ref[scored]
  cat(noise, seed, "rmse", round(sqrt(mean(e^2)), 3), "by station", round(tapply(e, aq$station[scored], function(x) sqrt(mean(x^2))), 2), "best", fit$best_epoch, "run", fit$epochs_run, "\n")
}
lm_fit <- lm(ref ~ box_1 + box_2 + station + hour_sin + hour_cos, data = aq[labelled, ])
cat(sprintf("lm(ref ~ box_1 + box_2 + station + hour_sin + hour_cos) on the labelled hours: RMSE %.3f\n",
            sqrt(mean((predict(lm_fit, aq[scored, ]) - aq$ref[scored])^2))))
cat(sprintf("ncam %s from %s; %s\n", getNamespaceVersion("ncam"), dirname(system.file(package = "ncam")), format(Sys.time(), "%Y-%m-%d %H:%M")))
