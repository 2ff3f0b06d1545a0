# Two sensors without a reference: is the split of noise between them identified? (the warning
# of ncam_warning_two_sensors). Simulated: theta ~ N(10 + 5x, (2 + 2x)^2); sensor a = theta + e_a
# (the anchor), b = 1.5 theta + 2 + e_b, c = 0.8 theta - 1 + N(0, 1); noise sds of a and b set
# per row of the table. Fits of a + b and of a + b + c (hidden 8, 200 epochs, seeds 1-2, 5,000
# rows), their median learned noise sds, and the RMSE of the fused value against theta beside
# the RMSE of the precision-weighted mean of a and b with the true weights ("oracle").
#
#   NCAM_LIB=<lib> nice -n 10 Rscript bench/two_sensors.R > bench/two_sensors.out   (about 1 min)
options(width = 200)
lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
simulate_three <- function(n, sd_a, sd_b, seed) {
  set.seed(seed)
  x <- stats::runif(n)
  theta <- stats::rnorm(n, 10 + 5 * x, 2 + 2 * x)
  data.frame(x = x, theta = theta, a = theta + stats::rnorm(n, 0, sd_a),
             b = 1.5 * theta + 2 + stats::rnorm(n, 0, sd_b), c = 0.8 * theta - 1 + stats::rnorm(n, 0))
}
rmse <- function(p, y) sqrt(mean((p - y)^2))
fit_summary <- function(formula, d, seed) {
  fit <- suppressWarnings(ncam(formula, d, anchor = "a", hidden = 8L, epochs = 200L, seed = seed, threads = 1))
  sp <- sensor_params(fit, d)
  c(sd_a = stats::median(sp$sigma[sp$sensor == "a"]), sd_b = stats::median(sp$sigma[sp$sensor == "b"]),
    rmse = rmse(predict(fit, d)$.pred, d$theta))
}
rows <- list()
for (sds in list(c(0.5, 3), c(3, 0.5), c(1.5, 1.5))) {
  for (seed in 1:2) {
    d <- simulate_three(5000, sds[1], sds[2], seed)
    two <- fit_summary(a + b ~ x, d, seed)
    three <- fit_summary(a + b + c ~ x, d, seed)
    w_a <- 1 / sds[1]^2
    w_b <- 1.5^2 / sds[2]^2
    oracle <- rmse((w_a * d$a + w_b * (d$b - 2) / 1.5) / (w_a + w_b), d$theta)
    rows[[length(rows) + 1L]] <- data.frame(true_sd_a = sds[1], true_sd_b = sds[2], seed = seed,
                                            two_sd_a = two[["sd_a"]], two_sd_b = two[["sd_b"]], two_rmse = two[["rmse"]],
                                            three_sd_a = three[["sd_a"]], three_sd_b = three[["sd_b"]],
                                            three_rmse = three[["rmse"]], oracle_rmse_a_b = oracle)
  }
}
print(do.call(rbind, rows), row.names = FALSE, digits = 3)
