# The main job: fit NCAM to simulated co-located sensors and report how well the fused
# estimate recovers the (held-out) truth, against each raw sensor and the classical baselines.
library(ncam)
toy <- simulate_toy(n = 20000, seed = 1)
split <- split_random(toy, prop = c(train = 0.7, calibration = 0.15, test = 0.15), seed = 1)
train <- toy[split %in% "train", ]
cal <- toy[split %in% "calibration", ]
test <- toy[split %in% "test", ]

fit <- ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, data = train,
            anchor = "sensor_0", seed = 1, verbose = interactive())
print(fit)
print(summary(fit))

columns <- c("rmse", "mae", "coverage", "mean_width", "n")
metrics <- function(name, pred) {
  m <- evaluate_fusion(pred, truth = test$truth)
  m[setdiff(columns, names(m))] <- NA_real_
  cbind(method = name, m[columns])
}
rows <- list(metrics("ncam (credible 90%)", predict(fit, test, interval = "credible", level = 0.9)))
for (m in c("mc_model", "sensor_anchored")) {
  # Only the Monte Carlo methods draw, so only they take a seed.
  cal_fit <- if (m == "mc_model") calibrate(fit, cal, method = m, seed = 1) else calibrate(fit, cal, method = m)
  rows[[length(rows) + 1]] <- metrics(paste0("ncam (", m, " 90%)"), predict(cal_fit, test, level = 0.9))
}
for (s in fit$sensors) rows[[length(rows) + 1]] <- metrics(paste("raw", s), test[[s]])
for (b in c("mean", "ivw", "ppca", "factor", "kalman")) {
  base <- ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, toy, method = b, train = split %in% "train")
  rows[[length(rows) + 1]] <- metrics(paste("baseline", b), predict(base, toy)$.pred[split %in% "test"])
}
cat("\nFused-estimate metrics on", nrow(test), "held-out rows (truth used only here):\n")
print(do.call(rbind, rows), row.names = FALSE, digits = 4)
