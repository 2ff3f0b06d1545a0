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
# Section 3 adds an error that A and B share (a second factor), fitted the same way; section 4
# holds the reference's noise variance fixed; section 5 (no ncam fits) bounds what any regression of
# the reference on the same inputs gains when given far more reference days; section 6 takes the
# default network apart by reference level; section 7 fits two more network settings; section 8
# (no ncam fits) fits the calibration form alone by least squares, with the gain and offset
# depending on subsets of the covariates; section 9 fits the default network on the co-location
# days alone, to measure what the unlabelled days add; section 10 tries training settings and a
# straight-line recalibration of the default fit; section 11 scores the days by how far they lie
# outside the conditions of the co-location days (predict()'s column .extrapolation); section 12
# by the time since their site's co-location.
#
# Section 13 lets the prior differ on the co-location rows; section 14 adds a shrunk per-site
# offset from each site's co-location days to lm and to ncam(); section 15 places the same number
# of labelled days at the start, at both ends or evenly over each site's record; section 16
# averages ncam() with lm, to see whether their errors differ enough for a blend to win.
#
# Run (about 11 min): NCAM_LIB=<lib> nice -n 10 Rscript bench/colocation_mechanism.R > bench/colocation_mechanism.out

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))), "common.R"))
rmse <- function(p, y) sqrt(mean((p - y)^2))
protocol <- purpleair_short_protocol()
d <- protocol$data
first_days <- protocol$first_days
site_rows <- split(seq_len(nrow(d)), d$site)
train <- protocol$train
test <- protocol$test
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
slopes <- list(prior_variance = 5:6, prior_mean = 2:3, sensor_variances = c(14:15, 23:24), ref_variance = 26:27,
               gains = c(8:9, 17:18), offsets = c(11:12, 20:21))

cat(sprintf("%d training rows (%d labelled), %d scored; lm RMSE %.3f (slope of its predictions on pa_mean %.3f)\n",
            nrow(train), sum(has_ref), nrow(test), lm_rmse, stats::coef(stats::lm(stats::predict(lm_fit, test) ~ test$pa_mean))[2]))
cat("\n1. Weight lambda of the sensors' own likelihood (all heads depend on rh, temperature):\n")
tab <- do.call(rbind, lapply(c(1, 0.3, 0.1, 0.03, 0.01, 0), function(l) cbind(lambda = l, fit_variant(l))))
print(tab, row.names = FALSE, digits = 3)
cat("\n2. Joint likelihood (lambda = 1) with some heads made constant:\n")
variants <- list("none" = integer(0), "prior variance" = slopes$prior_variance,
                 "prior mean and variance" = c(slopes$prior_mean, slopes$prior_variance),
                 "prior variance and reference variance" = c(slopes$prior_variance, slopes$ref_variance),
                 "prior variance and sensor variances" = c(slopes$prior_variance, slopes$sensor_variances),
                 "gains" = slopes$gains, "gains and offsets" = c(slopes$gains, slopes$offsets),
                 "gains' temperature slopes (gains on rh)" = slopes$gains[c(2, 4)],
                 "gains' rh slopes (gains on temperature)" = slopes$gains[c(1, 3)],
                 "gains' and offsets' temperature slopes" = c(slopes$gains[c(2, 4)], slopes$offsets[c(2, 4)]),
                 "prior variance, gains' temperature slopes" = c(slopes$prior_variance, slopes$gains[c(2, 4)]),
                 "all three variances" = c(slopes$prior_variance, slopes$sensor_variances, slopes$ref_variance))
tab <- do.call(rbind, lapply(names(variants), function(v) cbind(constant = v, fit_variant(1, variants[[v]]))))
print(tab, row.names = FALSE, digits = 3)

# 3. An error both PurpleAir channels share (humidity growth of the particles affects A and B
# alike), which the one-factor model reads as signal: A = aA Theta + cA + lA U + eA, B
# likewise with lB, U ~ N(0, 1) independent of Theta, the reference not loading on U; lA, lB
# linear in (1, rh, temperature). The row covariance is D + V V' with V = [sqrt(s2) a, l]: a
# rank-2 Woodbury form. E[Theta | A, B] = m + sqrt(s2) (M^-1 w)_1, M = I + V' D^-1 V,
# w = V' D^-1 r.
shared_nll_and_mean <- function(h, use_ref, a_read, b_read, ref_read) {
  s <- sqrt(h$s2)
  r_a <- a_read - h$aA * h$m - h$cA
  r_b <- b_read - h$aB * h$m - h$cB
  r_ref <- ifelse(use_ref == 1, ref_read - h$m, 0)
  m11 <- 1 + h$s2 * (h$aA^2 / h$vA + h$aB^2 / h$vB + use_ref / h$vR)
  m12 <- s * (h$aA * h$lA / h$vA + h$aB * h$lB / h$vB)
  m22 <- 1 + h$lA^2 / h$vA + h$lB^2 / h$vB
  w1 <- s * (h$aA * r_a / h$vA + h$aB * r_b / h$vB + use_ref * r_ref / h$vR)
  w2 <- h$lA * r_a / h$vA + h$lB * r_b / h$vB
  det_m <- m11 * m22 - m12^2
  z1 <- (m22 * w1 - m12 * w2) / det_m
  z2 <- (m11 * w2 - m12 * w1) / det_m
  quad <- r_a^2 / h$vA + r_b^2 / h$vB + use_ref * r_ref^2 / h$vR - (w1 * z1 + w2 * z2)
  list(nll = 0.5 * (log(h$vA) + log(h$vB) + use_ref * log(h$vR) + log(det_m) + quad), mean = h$m + s * z1)
}
shared_heads <- function(p, x) {
  h <- heads(p, x)
  h$lA <- drop(x %*% p[28:30])
  h$lB <- drop(x %*% p[31:33])
  h
}
shared_start <- c(start, 0, 0, 0, 0, 0, 0)
# Check: with zero loadings the rank-2 form is the one-factor likelihood above.
h0 <- shared_heads(shared_start, x_train)
stopifnot(isTRUE(all.equal(sum(shared_nll_and_mean(h0, has_ref, train$pa_a, train$pa_b, train$ref)$nll),
                           sum(row_nll(h0, has_ref)))))
fit_shared <- function(constant, p0) {
  free <- setdiff(seq_along(p0), constant)
  full <- function(q) { p <- p0; p[free] <- q; p }
  nll <- function(q) {
    sum(shared_nll_and_mean(shared_heads(full(q), x_train), has_ref, train$pa_a, train$pa_b, train$ref)$nll)
  }
  o <- stats::optim(p0[free], nll, method = "BFGS", control = list(maxit = 5000, reltol = 1e-12))
  p <- full(o$par)
  h <- shared_heads(p, design(test))
  pred <- shared_nll_and_mean(h, 0, test$pa_a, test$pa_b, 0)$mean
  list(p = p, row = data.frame(rmse = rmse(pred, test$ref), vs_lm = sprintf("%+.1f %%", 100 * (rmse(pred, test$ref) / lm_rmse - 1)),
                               neg_loglik = o$value, slope_on_pa_mean = unname(stats::coef(stats::lm(pred ~ test$pa_mean))[2]),
                               median_gain_A = stats::median(h$aA), median_loading_A = stats::median(abs(h$lA)),
                               median_loading_B = stats::median(abs(h$lB)), converged = o$convergence == 0))
}
no_shared <- fit_shared(28:33, shared_start)
with_loadings <- replace(no_shared$p, c(28, 31), 1)
cat("\n3. Joint likelihood with an error shared by A and B (loadings linear in rh, temperature):\n")
tab <- rbind(cbind(model = "no shared error (section 2, none)", no_shared$row),
             cbind(model = "shared error", fit_shared(integer(0), with_loadings)$row),
             cbind(model = "shared error, constant prior variance", fit_shared(slopes$prior_variance, with_loadings)$row))
print(tab, row.names = FALSE, digits = 3)

# 4. The reference's noise variance held at a constant instead of learned (its head's slopes
# at 0 and its intercept fixed): as it goes to 0 the reference is taken as the truth on the
# labelled rows, and the joint Gaussian model's E[ref | A, B, x] becomes the best linear
# predictor of ref from (A, B, x), which is what the lm estimates.
cat("\n4. Joint likelihood with the reference's noise variance fixed (not learned):\n")
learned_start <- start
rows <- list()
for (ref_variance in c(0.05, 0.55, 1.05, 2.05)) {
  start[25:27] <- c(log(ref_variance - 0.05 + 1e-300), 0, 0)  # fit_variant() starts from, and fixes, `start`
  rows[[length(rows) + 1L]] <- cbind(ref_sd = sqrt(ref_variance), fit_variant(1, 25:27))
}
start <- learned_start
print(do.call(rbind, rows), row.names = FALSE, digits = 3)

# 5. How much any predictor of ref from (A, B, rh, temperature) can gain over the lm: fits
# given far more reference readings than the co-location period holds. "Scored days, fitted
# in-sample" uses the reference on the very days it is scored on (an upper bound for its
# form); "half of the scored days" fits on a random half of them (about 2,500 reference
# days, 4.4 times the co-location period, from the same seasons as the scoring) and scores
# the other half, beside the co-location lm on that same other half, over 20 random halves.
cat("\n5. Ceiling: regressions of ref on (A, B, rh, temperature) given more reference days than the co-location period:\n")
regressions <- list(
  `lm: pa_mean + rh + temperature` = function(rows) stats::lm(ref ~ pa_mean + rh + temperature, data = rows),
  `lm: pa_mean * rh + temperature` = function(rows) stats::lm(ref ~ pa_mean * rh + temperature, data = rows),
  `lm: poly(pa_mean, 2) * (rh + temperature)` = function(rows) {
    stats::lm(ref ~ stats::poly(pa_mean, 2) * (rh + temperature), data = rows)
  },
  `gam: s(pa_mean) + s(rh) + s(temperature)` = function(rows) {
    mgcv::gam(ref ~ s(pa_mean) + s(rh) + s(temperature), data = rows)
  })
halves <- lapply(1:20, function(s) { set.seed(s); sample(nrow(test), nrow(test) %/% 2) })
ceiling_rows <- lapply(names(regressions), function(nm) {
  fit_on <- regressions[[nm]]
  half <- vapply(halves, function(i) {
    held_out <- test[-i, ]
    c(form = rmse(stats::predict(fit_on(test[i, ]), held_out), held_out$ref),
      colocation_lm = rmse(stats::predict(lm_fit, held_out), held_out$ref))
  }, numeric(2))
  gain <- 100 * (half["form", ] / half["colocation_lm", ] - 1)
  data.frame(regression = nm,
             colocation_days = rmse(stats::predict(fit_on(labelled), test), test$ref),
             scored_days_in_sample = rmse(stats::predict(fit_on(test), test), test$ref),
             half_scored_days = mean(half["form", ]),
             vs_colocation_lm_same_half = sprintf("%+.1f %% [%+.1f, %+.1f]", mean(gain), min(gain), max(gain)))
})
print(do.call(rbind, ceiling_rows), row.names = FALSE, digits = 4)
site_lm <- stats::lm(ref ~ pa_mean + rh + temperature + site, data = labelled)
cat(sprintf(paste0("Co-location lm on the scored days: %.3f; 5 %% below it: %.3f. With a per-site intercept (site is not a covariate of",
                   " the formula under test): %.3f (%+.1f %%).\n"),
            lm_rmse, 0.95 * lm_rmse, rmse(stats::predict(site_lm, test), test$ref),
            100 * (rmse(stats::predict(site_lm, test), test$ref) / lm_rmse - 1)))

# 6. The default network itself (ncam() defaults, seed 1, the same short protocol), by level of
# the reference: its bias beside lm's; the bias of the sensors-only estimate (the posterior
# mean without the prior: the readings' precision-weighted (b - c) / a); the weight of the
# prior in the posterior mean; the posterior mean's slope on pa_mean (its change per unit of
# both channels); the learned gain of A.
cat("\n6. ncam() defaults (seed 1) on the short protocol, by reference level (ug/m3):\n")
net <- ncam(pa_a + pa_b ~ rh + temperature, data = train, reference = "ref", seed = 1, threads = 1)
post <- ncam:::ncam_posterior(net, test, threads = 1)
low_cost <- 1:2  # columns of pa_a, pa_b; the reference is the last
precision_sensors <- rowSums(post$a[, low_cost]^2 / post$sigma2[, low_cost])
sensors_only <- rowSums(post$a[, low_cost] * (post$b[, low_cost] - post$c[, low_cost]) / post$sigma2[, low_cost]) /
  precision_sensors
lm_pred <- stats::predict(lm_fit, test)
level <- cut(test$ref, c(-Inf, 5, 10, 20, 40, Inf), labels = c("<5", "5-10", "10-20", "20-40", ">40"))
by_level <- function(v) as.vector(tapply(v, level, mean))
print(data.frame(ref_bin = levels(level), n = as.vector(table(level)),
                 ncam_rmse = sqrt(by_level((post$mu - test$ref)^2)), lm_rmse = sqrt(by_level((lm_pred - test$ref)^2)),
                 ncam_bias = by_level(post$mu - test$ref), lm_bias = by_level(lm_pred - test$ref),
                 sensors_only_bias = by_level(sensors_only - test$ref),
                 prior_weight = by_level((1 / post$s0_2) / (1 / post$s0_2 + precision_sensors)),
                 slope_on_pa_mean = by_level(rowSums(post$a[, low_cost] / post$sigma2[, low_cost]) /
                                               (1 / post$s0_2 + precision_sensors)),
                 gain_A = by_level(post$a[, 1])), row.names = FALSE, digits = 3)
cat(sprintf("RMSE: ncam %.3f, sensors-only estimate %.3f, lm %.3f (lm's slope on pa_mean %.3f)\n",
            rmse(post$mu, test$ref), rmse(sensors_only, test$ref), lm_rmse, stats::coef(lm_fit)[["pa_mean"]]))

# 7. More settings of the network on the same protocol, several seeds each: a stronger
# variance penalty (lambda_var, default 1e-3), the site as a covariate (every site has
# co-location days here), beside lm with a per-site intercept, and the mean of A and B as one
# low-cost sensor beside the reference.
cat("\n7. ncam() variants on the short protocol (RMSE per seed):\n")
# predict()'s warning about the 16 days outside the co-location range, the same for every fit
# (section 11 scores those days), is left out of the output.
estimate <- function(fit, newdata) {
  suppressWarnings(stats::predict(fit, newdata), classes = "ncam_warning_extrapolation")$.pred
}
network_rmse <- function(formula, seeds, data = train, newdata = test, ...) {
  vapply(seeds, function(seed) {
    fit <- suppressWarnings(ncam(formula, data = data, reference = "ref", seed = seed, threads = 1, ...))
    rmse(estimate(fit, newdata), newdata$ref)
  }, numeric(1))
}
variant_rows <- c(
  lapply(c(1e-3, 0.03, 0.1, 0.3), function(lv) {
    list(variant = sprintf("lambda_var = %g", lv), rmse = network_rmse(pa_a + pa_b ~ rh + temperature, 1:3, lambda_var = lv))
  }),
  list(list(variant = "~ rh + temperature + site",
            rmse = network_rmse(pa_a + pa_b ~ rh + temperature + site, 1:5,
                                data = transform(train, site = factor(site)),
                                newdata = transform(test, site = factor(site, levels = levels(factor(train$site)))))),
       list(variant = "pa_mean ~ rh + temperature (one sensor)",
            rmse = network_rmse(pa_mean ~ rh + temperature, 1:5))))
# One line per variant: its RMSE per seed, their mean and the mean against lm.
print_variants <- function(rows) {
  print(do.call(rbind, lapply(rows, function(r) {
    data.frame(variant = r$variant, seeds = length(r$rmse), rmse_per_seed = paste(sprintf("%.3f", r$rmse), collapse = " "),
               mean = mean(r$rmse), vs_lm = sprintf("%+.1f %%", 100 * (mean(r$rmse) / lm_rmse - 1)))
  })), row.names = FALSE, digits = 4)
}
print_variants(variant_rows)
cat(sprintf("lm %.3f; lm with a per-site intercept %.3f\n", lm_rmse, rmse(stats::predict(site_lm, test), test$ref)))

# 8. The calibration form on its own. The sensors-only estimate of section 6 is
# (pa_mean - c(x)) / a(x); here that form is fitted by least squares on the labelled days (the
# lm's own criterion, no likelihood, no network), with the gain a and the offset c each linear
# in a chosen subset of (rh, temperature). Gain constant and offset on both is the lm itself.
# Then how much of the temperature's spread on the co-location days lies between sites (R^2 of
# temperature ~ site) against the scored days: a gain that varies with temperature is learned
# mostly from differences between sites and applied to the seasons.
cat("\n8. The calibration form (pa_mean - c(x)) / a(x) fitted by least squares on the co-location days:\n")
# The covariates scaled as in the fits, with a column of ones: the same for every form.
form_design <- function(df) cbind(`1` = 1, scale(as.matrix(df[c("rh", "temperature")]), x_center, x_scale))
form_rows_ok <- stats::complete.cases(labelled[c("ref", "pa_mean", "rh", "temperature")])
form_ref <- labelled$ref[form_rows_ok]
form_pa <- labelled$pa_mean[form_rows_ok]
form_z_labelled <- form_design(labelled[form_rows_ok, ])
form_z_test <- form_design(test)
# Start from a constant calibration through the means: gain 1 / (the lm's slope on pa_mean).
form_gain_start <- 1 / stats::coef(lm_fit)[["pa_mean"]]
calibration_form_rmse <- function(gain_terms, offset_terms) {
  n_gain <- length(gain_terms)
  form <- function(p, zz, pa) {
    (pa - drop(zz[, offset_terms, drop = FALSE] %*% p[-seq_len(n_gain)])) / drop(zz[, gain_terms, drop = FALSE] %*% p[seq_len(n_gain)])
  }
  start_form <- c(form_gain_start, rep(0, n_gain - 1),
                  mean(form_pa) - form_gain_start * mean(form_ref), rep(0, length(offset_terms) - 1))
  o <- stats::optim(start_form, function(p) sum((form_ref - form(p, form_z_labelled, form_pa))^2),
                    method = "BFGS", control = list(maxit = 5000, reltol = 1e-12))
  list(colocation_rmse = sqrt(o$value / length(form_ref)), scored_rmse = rmse(form(o$par, form_z_test, test$pa_mean), test$ref),
       converged = o$convergence == 0)
}
term_sets <- list(none = "1", rh = c("1", "rh"), temperature = c("1", "temperature"), both = c("1", "rh", "temperature"))
form_rows <- do.call(rbind, lapply(names(term_sets), function(g) {
  do.call(rbind, lapply(c("rh", "both"), function(o) {
    r <- calibration_form_rmse(term_sets[[g]], term_sets[[o]])
    data.frame(gain_on = g, offset_on = o, colocation_rmse = r$colocation_rmse, scored_rmse = r$scored_rmse,
               vs_lm = sprintf("%+.1f %%", 100 * (r$scored_rmse / lm_rmse - 1)), converged = r$converged)
  }))
}))
print(form_rows, row.names = FALSE, digits = 4)
between_sites <- function(df) summary(stats::lm(temperature ~ factor(site), data = df))$r.squared
cat(sprintf("Share of the temperature's variance between sites (R^2 of temperature ~ site): co-location days %.2f, scored days %.2f\n",
            between_sites(labelled), between_sites(test)))
gain_slopes <- stats::coef(stats::lm(log(post$a[, 1]) ~ scale(test$rh) + scale(test$temperature)))
cat(sprintf(paste0("The default network of section 6 also lets its gain vary with temperature: on the scored days its log gain of A changes by %+.3f per sd of rh",
                   " and %+.3f per sd of temperature (least-squares slopes).\n"), gain_slopes[[2]], gain_slopes[[3]]))

# 9. What the unlabelled days add. The same default network fitted on the co-location days
# alone (no unlabelled rows) and on all rows (the short protocol), seeds 1-5, both scored on
# the same days: the difference is what the sensors' likelihood on the unlabelled days buys.
cat("\n9. ncam() defaults on the co-location days alone against all rows (RMSE per seed, seeds 1-5):\n")
alone_vs_all <- list(list(variant = "co-location days only", rmse = network_rmse(pa_a + pa_b ~ rh + temperature, 1:5, data = labelled)),
                     list(variant = "all rows (short protocol)", rmse = network_rmse(pa_a + pa_b ~ rh + temperature, 1:5)))
print_variants(alone_vs_all)
cat(sprintf("The unlabelled days lower NCAM's mean RMSE by %.1f %%; lm (co-location days only) %.3f.\n",
            100 * (1 - mean(alone_vs_all[[2]]$rmse) / mean(alone_vs_all[[1]]$rmse)), lm_rmse))

# 10. Training settings of the network on the short protocol, seeds 1-5 each (the default is section 9's all-rows line):
# weight decay, smaller networks, more patience, a larger step, a larger validation share,
# smaller batches, readings modelled on the log scale (multiplicative noise; .pred is then
# back-transformed); and the default fit followed by a straight-line recalibration
# lm(ref ~ .pred) on the co-location days, applied to the scored days.
cat("\n10. ncam() training settings on the short protocol (RMSE per seed, seeds 1-5):\n")
short_formula <- pa_a + pa_b ~ rh + temperature
settings <- list(
  "weight_decay = 1e-4" = list(control = ncam_control(weight_decay = 1e-4)),
  "weight_decay = 1e-3" = list(control = ncam_control(weight_decay = 1e-3)),
  "weight_decay = 1e-2" = list(control = ncam_control(weight_decay = 1e-2)),
  "hidden = c(16, 16)" = list(hidden = c(16L, 16L)),
  "hidden = 8" = list(hidden = 8L),
  "stop_iter = 60, epochs = 600" = list(stop_iter = 60L, epochs = 600L),
  "learn_rate = 3e-3" = list(learn_rate = 3e-3),
  "validation = 0.2" = list(validation = 0.2),
  "batch_size = 64" = list(batch_size = 64L),
  "transform = \"log\"" = list(transform = "log"))
setting_rows <- lapply(names(settings), function(nm) {
  list(variant = nm, rmse = do.call(network_rmse, c(list(short_formula, 1:5), settings[[nm]])))
})
recalibrated <- vapply(1:5, function(seed) {
  fit <- suppressWarnings(ncam(short_formula, data = train, reference = "ref", seed = seed, threads = 1))
  on_labelled <- data.frame(ref = labelled$ref, pred = estimate(fit, labelled))
  line <- stats::lm(ref ~ pred, data = on_labelled)
  rmse(stats::predict(line, data.frame(pred = estimate(fit, test))), test$ref)
}, numeric(1))
print_variants(c(setting_rows, list(list(variant = "default + lm(ref ~ .pred) on co-location days", rmse = recalibrated))))

# 11. Where the scored days leave the co-location days' conditions. predict()'s column
# .extrapolation is each row's distance outside the range of the readings and covariates of the
# co-location rows, as a share of that range (0 inside); predict() warns beyond
# ncam:::extrapolation_warning_share. The bands depend on the data alone (the same for every
# seed); RMSE and 90 % prediction-interval coverage per band, NCAM averaged over seeds 1-5.
cat("\n11. Scored days by distance outside the co-location range (share of the range; NCAM seeds 1-5):\n")
seed_predictions <- lapply(1:5, function(seed) {
  fit <- suppressWarnings(ncam(short_formula, data = train, reference = "ref", seed = seed, threads = 1))
  suppressWarnings(stats::predict(fit, test, interval = "prediction", level = 0.9))
})
distance <- seed_predictions[[1]]$.extrapolation
stopifnot(all(vapply(seed_predictions, function(p) identical(p$.extrapolation, distance), logical(1))))
ncam_runs <- lapply(seed_predictions, function(p) data.frame(pred = p$.pred, lower = p$.pred_lower, upper = p$.pred_upper))
lm_interval <- stats::predict(lm_fit, test, interval = "prediction", level = 0.9)
lm_run <- data.frame(pred = lm_interval[, "fit"], lower = lm_interval[, "lwr"], upper = lm_interval[, "upr"])
bands <- extrapolation_bands(distance, ncam_runs, lm_run, test$ref, c(0.1, ncam:::extrapolation_warning_share))
print(bands, row.names = FALSE, digits = 3)
inside <- bands[bands$band == "inside", ]
cat(sprintf("On the %d scored days inside the range, NCAM %.3f against lm %.3f (%+.1f %%).\n", inside$rows,
            inside$ncam_rmse, inside$lm_rmse, 100 * (inside$ncam_rmse / inside$lm_rmse - 1)))

# 12. Time since the co-location. Each scored day by the days since its site's last labelled
# day, in bands; per band RMSE and 90 % prediction-interval coverage (NCAM averaged over the fits
# of section 11) and the share of days predict() warns about as outside the co-location range,
# to tell drift from extrapolation. README.md quotes this table.
cat("\n12. Scored days by time since their site's last co-location day (NCAM seeds 1-5, as in 11):\n")
day_number <- function(date) as.numeric(as.Date(date))
last_labelled <- tapply(day_number(labelled$date), as.character(labelled$site), max)
days_since <- day_number(test$date) - last_labelled[as.character(test$site)]
stopifnot(all(days_since > 0))
since_band <- cut(days_since, c(0, 90, 180, 365, Inf), labels = c("1-90 days", "91-180 days", "181-365 days", "over 365 days"))
cover <- function(run, rows) mean(test$ref[rows] >= run$lower[rows] & test$ref[rows] <= run$upper[rows])
band_rows <- c(split(seq_along(since_band), since_band), list(all = seq_along(since_band)))
print(do.call(rbind, lapply(names(band_rows), function(band) {
  i <- band_rows[[band]]
  data.frame(since_colocation = band, rows = length(i), sites = length(unique(test$site[i])),
             ncam_rmse = mean(vapply(ncam_runs, function(r) rmse(r$pred[i], test$ref[i]), numeric(1))),
             lm_rmse = rmse(lm_run$pred[i], test$ref[i]),
             ncam_cov90 = mean(vapply(ncam_runs, cover, numeric(1), rows = i)), lm_cov90 = cover(lm_run, i),
             warned_share = mean(distance[i] > ncam:::extrapolation_warning_share))
})), row.names = FALSE, digits = 3)

# 13. Is the co-location period's truth distributed differently? The co-location days are not a
# random sample of days (each site's first 10 %), while the model's prior of Theta given the
# covariates is shared by all rows. Linear heads as in sections 1-2 (joint likelihood), with a
# shift of the prior's mean and log-variance on the co-location rows (scored rows: none).
cat("\n13. Joint likelihood (linear heads) with a prior that shifts on the co-location rows:\n")
period_heads <- function(p, x, on_colocation) {
  h <- heads(p[1:27], x)
  h$m <- h$m + p[28] * on_colocation
  h$s2 <- 0.05 + (h$s2 - 0.05) * exp(p[29] * on_colocation)
  h
}
fit_period_prior <- function(constant = integer(0), shifts = c(28, 29)) {
  p0 <- c(start, 0, 0)
  free <- setdiff(seq_along(p0), c(constant, setdiff(28:29, shifts)))
  full <- function(q) { p <- p0; p[free] <- q; p }
  o <- stats::optim(p0[free], function(q) sum(row_nll(period_heads(full(q), x_train, has_ref), has_ref)),
                    method = "BFGS", control = list(maxit = 5000, reltol = 1e-12))
  p <- full(o$par)
  h <- period_heads(p, design(test), 0)
  pred <- (h$m / h$s2 + h$aA * (test$pa_a - h$cA) / h$vA + h$aB * (test$pa_b - h$cB) / h$vB) /
    (1 / h$s2 + h$aA^2 / h$vA + h$aB^2 / h$vB)
  data.frame(rmse = rmse(pred, test$ref), vs_lm = sprintf("%+.1f %%", 100 * (rmse(pred, test$ref) / lm_rmse - 1)),
             slope_on_pa_mean = unname(stats::coef(stats::lm(pred ~ test$pa_mean))[2]),
             median_gain_A = stats::median(h$aA), prior_mean_shift = p[28], prior_logvar_shift = p[29],
             converged = o$convergence == 0)
}
print(rbind(
  cbind(prior = "shared (section 2, none)", fit_period_prior(shifts = integer(0))),
  cbind(prior = "mean shifts", fit_period_prior(shifts = 28)),
  cbind(prior = "mean and variance shift", fit_period_prior()),
  cbind(prior = "mean and variance shift, constant gains", fit_period_prior(constant = slopes$gains))
), row.names = FALSE, digits = 3)

# 14. A per-site offset learned from each site's own co-location days: the mean residual
# (reference minus prediction) of the site's labelled days, shrunk towards 0 by the between-site
# variance (method of moments), added to the site's scored days. The same correction for lm and
# for the default network (fits of section 11).
cat("\n14. Shrunk per-site offsets from each site's co-location days, added to lm and to ncam():\n")
f3 <- function(x) sprintf("%.3f", x)
site_offsets <- function(residual, site) {
  keep <- !is.na(residual)
  residual <- residual[keep]
  site <- site[keep]
  m <- tapply(residual, site, mean)
  n <- tapply(residual, site, length)
  within <- mean(tapply(residual, site, stats::var))
  between <- max(0, stats::var(m) - mean(within / n))
  m * between / (between + within / n)
}
with_offsets <- function(pred_labelled, pred_test) {
  off <- site_offsets(labelled$ref - pred_labelled, as.character(labelled$site))
  pred_test + off[as.character(test$site)]
}
lm_site <- stats::lm(ref ~ pa_mean + rh + temperature + factor(site), data = labelled)
ncam_offset_rmse <- vapply(1:5, function(seed) {
  fit <- suppressWarnings(ncam(short_formula, data = train, reference = "ref", seed = seed, threads = 1))
  rmse(with_offsets(stats::predict(fit, labelled)$.pred, ncam_runs[[seed]]$pred), test$ref)
}, numeric(1))
print(data.frame(
  method = c("lm", "lm + shrunk site offsets", "lm with a site factor", "ncam (section 11)", "ncam + shrunk site offsets"),
  rmse_seeds_1_5 = c(f3(lm_rmse), f3(rmse(with_offsets(stats::predict(lm_fit, labelled), lm_run$pred), test$ref)),
                     f3(rmse(stats::predict(lm_site, test), test$ref)),
                     paste(f3(vapply(ncam_runs, function(r) rmse(r$pred, test$ref), 1)), collapse = " "),
                     paste(f3(ncam_offset_rmse), collapse = " "))), row.names = FALSE)

# 15. Is the gap extrapolation? The same number of labelled days per site (10 %, ceiling),
# placed three ways: the first days (the short protocol), half at each end of the site's record,
# and spread evenly over it (every tenth day or so). Each design is scored on its own unlabelled
# days; lm(ref ~ pa_mean + rh + temperature) on the same labelled days; ncam() defaults, seeds 1-5.
cat("\n15. Where the labelled days sit (10 % of each site's days; ncam() defaults, seeds 1-5):\n")
ordered_site_rows <- lapply(site_rows, function(i) i[order(d$date[i])])
placements <- list(
  "first days (short protocol)" = function(i, k) i[seq_len(k)],
  "half at each end" = function(i, k) i[c(seq_len(ceiling(k / 2)), length(i) - seq_len(floor(k / 2)) + 1L)],
  "spread evenly" = function(i, k) i[unique(round(seq(1, length(i), length.out = k)))])
cover_rows <- function(lower, upper, y) mean(y >= lower & y <= upper)
print(do.call(rbind, lapply(names(placements), function(placement) {
  labelled_rows <- unlist(lapply(ordered_site_rows, function(i) placements[[placement]](i, ceiling(0.1 * length(i)))))
  scored <- setdiff(seq_len(nrow(d)), labelled_rows)
  scored <- scored[!is.na(d$ref[scored])]
  placed <- d
  placed$ref[-labelled_rows] <- NA
  lm_placed <- stats::predict(stats::lm(ref ~ pa_mean + rh + temperature, data = d[labelled_rows, ]), d[scored, ],
                              interval = "prediction", level = 0.9)
  runs <- lapply(1:5, function(seed) {
    fit <- suppressWarnings(ncam(short_formula, data = placed, reference = "ref", seed = seed, threads = 1))
    suppressWarnings(stats::predict(fit, d[scored, ], interval = "prediction"), classes = "ncam_warning_extrapolation")
  })
  ncam_rmse <- vapply(runs, function(p) rmse(p$.pred, d$ref[scored]), numeric(1))
  lm_placed_rmse <- rmse(lm_placed[, "fit"], d$ref[scored])
  data.frame(labelled_days = placement, labelled = length(labelled_rows), scored = length(scored),
             ncam_rmse_per_seed = paste(f3(ncam_rmse), collapse = " "), ncam_mean = f3(mean(ncam_rmse)),
             lm_rmse = f3(lm_placed_rmse), vs_lm = sprintf("%+.1f %%", 100 * (mean(ncam_rmse) / lm_placed_rmse - 1)),
             wins = sprintf("%d/5", sum(ncam_rmse <= lm_placed_rmse)),
             ncam_cov90 = f3(mean(vapply(runs, function(p) cover_rows(p$.pred_lower, p$.pred_upper, d$ref[scored]), numeric(1)))),
             lm_cov90 = f3(cover_rows(lm_placed[, "lwr"], lm_placed[, "upr"], d$ref[scored])))
})), row.names = FALSE, right = FALSE)

# 16. Do ncam() and lm err on different days? If so, their average (or a blend weighted on the
# labelled days) would beat both. The fits of section 11, seeds 1-5; the blend weight w is
# least squares of the labelled days' residual of lm on (ncam - lm) there, where ncam has seen
# the reference, so w is fitted in sample.
cat("\n16. ncam() and lm blended (fits of section 11, seeds 1-5):\n")
lm_labelled <- stats::predict(lm_fit, labelled)
blends <- do.call(rbind, lapply(1:5, function(seed) {
  fit <- suppressWarnings(ncam(short_formula, data = train, reference = "ref", seed = seed, threads = 1))
  gap_labelled <- suppressWarnings(stats::predict(fit, labelled)$.pred, classes = "ncam_warning_extrapolation") - lm_labelled
  w <- unname(stats::coef(stats::lm(I(labelled$ref - lm_labelled) ~ 0 + gap_labelled)))
  pred <- ncam_runs[[seed]]$pred
  data.frame(seed = seed, ncam = rmse(pred, test$ref), lm = lm_rmse,
             error_correlation = stats::cor(pred - test$ref, lm_run$pred - test$ref),
             average = rmse((pred + lm_run$pred) / 2, test$ref),
             blend_weight = w, blend = rmse(lm_run$pred + w * (pred - lm_run$pred), test$ref))
}))
print(rbind(blends, data.frame(seed = "mean", t(colMeans(blends[-1])))), digits = 4, row.names = FALSE)
