options(width = 200)
# Why the reference-anchored model loses to a local lm with a short co-location period:
# the joint Gaussian model with LINEAR heads, written out here in plain R (independent of the
# engine) and fitted by BFGS at its exact optimum, under variants of the objective and of
# which heads depend on the covariates. Short co-location protocol of bench/colocation.R:
# PurpleAir A and B beside AQS, the first 10 % of each site's days labelled, scored on the
# rest; covariates rh and temperature (standardised); lm(ref ~ pa_mean + rh + temperature)
# on the labelled days as the peer.
#
# Model per row: Theta ~ N(m(x), s2(x)); A = aA(x) Theta + cA(x) + e, B likewise; ref =
# Theta + e_ref; every head linear in (1, rh, temperature), variances 0.05 + exp(linear).
# Objective: sum over labelled rows of -log p(ref | A, B, x) + lambda * sum over all rows of
# -log p(A, B | x); lambda = 1 is the joint likelihood that ncam() maximises.
#
# Run (about 3 min): NCAM_LIB=<lib> nice -n 10 Rscript bench/colocation_mechanism.R > bench/colocation_mechanism.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
rmse <- function(p, y) sqrt(mean((p - y)^2))
data_dir <- Filter(dir.exists, c(Sys.getenv("NCAM_SHARED_DATA"), "../shared/data", "/work/shared/data"))[[1]]
d <- as.data.frame(read_purpleair_aqs(file.path(data_dir, "purpleair-aqs-daily-mathieu",
                                                "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv")))
d$pa_mean <- (d$pa_a + d$pa_b) / 2
site_rows <- split(seq_len(nrow(d)), d$site)
first_days <- unlist(lapply(site_rows, function(i) i[order(d$date[i])][seq_len(ceiling(0.1 * length(i)))]))
train <- d
train$ref[-first_days] <- NA
train <- train[stats::complete.cases(train[c("rh", "temperature", "pa_a", "pa_b")]), ]
test <- d[-first_days, ]
test <- test[!is.na(test$ref), ]
labelled <- d[first_days, ]
lm_fit <- stats::lm(ref ~ pa_mean + rh + temperature, data = labelled)
lm_rmse <- rmse(stats::predict(lm_fit, test), test$ref)

x_center <- colMeans(train[c("rh", "temperature")])
x_scale <- apply(train[c("rh", "temperature")], 2, stats::sd)
design <- function(df) cbind(1, scale(as.matrix(df[c("rh", "temperature")]), x_center, x_scale))
x_train <- design(train)
has_ref <- as.numeric(!is.na(train$ref))

# Parameter vector: prior mean (3), prior log-variance (3), then per low-cost sensor gain,
# offset, log-variance (3 each), then the reference's log-variance (3).
start <- c(10, 0, 0, log(25), 0, 0, 2.5, 0, 0, -5, 0, 0, 0, 0, 0, 2.5, 0, 0, -5, 0, 0, 0, 0, 0, log(4), 0, 0)
heads <- function(p, x) {
  lin <- function(k) drop(x %*% p[k + 0:2])
  list(m = lin(1), s2 = 0.05 + exp(lin(4)), aA = lin(7), cA = lin(10), vA = 0.05 + exp(lin(13)),
       aB = lin(16), cB = lin(19), vB = 0.05 + exp(lin(22)), vR = 0.05 + exp(lin(25)))
}
# -log density of the row's observed readings (the reference where use_ref = 1), Theta
# integrated out (Sherman-Morrison form of the one-factor covariance).
row_nll <- function(h, use_ref) {
  r_a <- train$pa_a - h$aA * h$m - h$cA
  r_b <- train$pa_b - h$aB * h$m - h$cB
  r_ref <- ifelse(use_ref == 1, train$ref - h$m, 0)
  info <- h$aA^2 / h$vA + h$aB^2 / h$vB + use_ref / h$vR
  quad <- r_a^2 / h$vA + r_b^2 / h$vB + use_ref * r_ref^2 / h$vR
  proj <- h$aA * r_a / h$vA + h$aB * r_b / h$vB + use_ref * r_ref / h$vR
  det <- 1 + h$s2 * info
  0.5 * (log(h$vA) + log(h$vB) + use_ref * log(h$vR) + log(det) + quad - h$s2 * proj^2 / det)
}
objective <- function(p, lambda) {
  h <- heads(p, x_train)
  sensors_only <- row_nll(h, 0 * has_ref)
  conditional <- (row_nll(h, has_ref) - sensors_only)[has_ref == 1]
  sum(conditional) + lambda * sum(sensors_only)
}
posterior_mean <- function(p, df) {
  h <- heads(p, design(df))
  (h$m / h$s2 + h$aA * (df$pa_a - h$cA) / h$vA + h$aB * (df$pa_b - h$cB) / h$vB) /
    (1 / h$s2 + h$aA^2 / h$vA + h$aB^2 / h$vB)
}
# Fit with the covariate slopes of the heads in `constant` held at 0 (those heads constant).
fit_variant <- function(lambda, constant = integer(0)) {
  free <- setdiff(seq_along(start), constant)
  full <- function(q) { p <- start; p[free] <- q; p }
  o <- stats::optim(start[free], function(q) objective(full(q), lambda), method = "BFGS",
                    control = list(maxit = 3000, reltol = 1e-12))
  p <- full(o$par)
  pred <- posterior_mean(p, test)
  h <- heads(p, design(test))
  data.frame(rmse = rmse(pred, test$ref), vs_lm = sprintf("%+.1f %%", 100 * (rmse(pred, test$ref) / lm_rmse - 1)),
             slope_on_pa_mean = unname(stats::coef(stats::lm(pred ~ test$pa_mean))[2]),
             median_gain_A = stats::median(h$aA), median_prior_sd = stats::median(sqrt(h$s2)),
             median_ref_sd = stats::median(sqrt(h$vR)), converged = o$convergence == 0)
}
slopes <- list(prior_variance = 5:6, prior_mean = 2:3, sensor_variances = c(14:15, 23:24), ref_variance = 26:27)

cat(sprintf("%d training rows (%d labelled), %d scored; lm RMSE %.3f (slope of its predictions on pa_mean %.3f)\n",
            nrow(train), sum(has_ref), nrow(test), lm_rmse, stats::coef(stats::lm(stats::predict(lm_fit, test) ~ test$pa_mean))[2]))
cat("\n1. Weight lambda of the sensors' own likelihood (all heads depend on rh, temperature):\n")
tab <- do.call(rbind, lapply(c(1, 0.3, 0.1, 0.03, 0.01, 0), function(l) cbind(lambda = l, fit_variant(l))))
print(tab, row.names = FALSE, digits = 3)
cat("\n2. Joint likelihood (lambda = 1) with some heads made constant:\n")
variants <- list("none" = integer(0), "prior variance" = slopes$prior_variance,
                 "prior mean and variance" = c(slopes$prior_mean, slopes$prior_variance),
                 "prior variance and reference variance" = c(slopes$prior_variance, slopes$ref_variance),
                 "prior variance and sensor variances" = c(slopes$prior_variance, slopes$sensor_variances))
tab <- do.call(rbind, lapply(names(variants), function(v) cbind(constant = v, fit_variant(1, variants[[v]]))))
print(tab, row.names = FALSE, digits = 3)
