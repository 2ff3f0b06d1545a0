# Rare gross spikes (issue 9, item 7): 5 of 14,000 anchor readings multiplied by 1e4, fitted
# with the spike screen (the default, ncam_control(screen_outliers = 50)) and without it
# (screen_outliers = Inf), beside the clean fit; test RMSE against the simulated truth and the
# mean width of 90 % credible intervals. Also counts what the screen removes from clean data.
#   Rscript bench/spikes.R > bench/spikes.out        (about 1 minute; NCAM_LIB = library of ncam)
lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(if (nzchar(lib)) library(ncam, lib.loc = lib) else library(ncam))
toy <- simulate_toy(n = 20000, seed = 1)
set.seed(1)
idx <- sample(nrow(toy))
train <- toy[idx[1:14000], ]
test <- toy[idx[14001:20000], ]
spiked <- train
set.seed(2)
hit <- sample(nrow(spiked), 5)
spiked$sensor_0[hit] <- spiked$sensor_0[hit] * 1e4
fit_one <- function(data, screen) {
  suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4, data, anchor = "sensor_0",
                        hidden = c(16, 16), epochs = 30, seed = 1, threads = 2,
                        control = ncam_control(screen_outliers = screen)))
}
runs <- list(clean = fit_one(train, Inf), spikes_kept = fit_one(spiked, Inf), spikes_screened = fit_one(spiked, 50),
             clean_screened = fit_one(train, 50))
cat(sprintf("ncam %s; simulate_toy(n = 20000, seed = 1), 14,000 training rows, 6,000 test rows; spikes at rows %s\n",
            utils::packageVersion("ncam"), paste(sort(hit), collapse = ", ")))
for (name in names(runs)) {
  p <- predict(runs[[name]], test, interval = "credible", level = 0.9)
  cat(sprintf("%-16s test RMSE %8.3f  mean 90%% width %9.3f  readings screened %d\n", name,
              sqrt(mean((p$.pred - test$truth)^2)), mean(p$.pred_upper - p$.pred_lower), sum(runs[[name]]$n_screened)))
}
