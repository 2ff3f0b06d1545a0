# Sensors whose readings are hundreds of times the anchor's spread (raw signals in mV or
# counts) against the same sensors in the anchor's units, for two builds in one run: "before"
# (NCAM_LIB_BEFORE) and "after" (NCAM_LIB). Each build runs in a child process of its own
# (this script with --child); the parent prints their results side by side.
#
# Cases (package defaults, threads = 1, seeds 1-3), each scored by its RMSE on the rows
# without a reference, against the reference before it was blanked (PurpleAir) or the truth
# (`colocation`):
#   coloc  the package's `colocation` data, reference in the first four weeks (2,160 rows),
#          the opc sensor as it is, or as 10, 100 or 1000 times its reading plus a baseline
#   pa     PurpleAir beside AQS, reference on the first 10 % of each site's days (5,666
#          rows), both PurpleAir channels shifted or scaled like raw signals
# Warnings: the classes of the fit's warnings (ncam_ dropped), over the three seeds.
# Then whether the default fits of sensors within reach of the anchor's level are unchanged
# bit for bit (identical weights): the two rows "as is" above, EPA Toucan with the reference
# on its first 10 days, and SensEURCity Antwerp's three two-box stations, reference on the
# first 20 % of hours.
#
#   NCAM_LIB_BEFORE=<lib> NCAM_LIB=<lib> NCAM_SHARED_DATA=/work/shared/data \
#     nice -n 10 Rscript bench/raw_signal.R > bench/raw_signal.out   (about 1 min)
options(width = 200)
args <- commandArgs(TRUE)
data_dir <- Sys.getenv("NCAM_SHARED_DATA", "/work/shared/data")
seeds <- 1:3

if ("--child" %in% args) {
  suppressPackageStartupMessages(library(ncam, lib.loc = args[match("--child", args) + 1L]))
  pa <- read_purpleair_aqs(file.path(data_dir, "purpleair-aqs-daily-mathieu",
                                     "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv"))
  pa <- pa[order(pa$site, pa$date), ]
  first_share <- function(group, share) {
    as.logical(stats::ave(seq_along(group), group, FUN = function(i) seq_along(i) <= ceiling(share * length(i))))
  }
  pa_short <- pa
  pa_short$ref[!first_share(pa$site, 0.1)] <- NA
  coloc <- colocation
  coloc$ref[coloc$date >= as.POSIXct("2021-04-29", tz = "UTC")] <- NA
  # A fit's warning classes, its weights and its RMSE on the rows without a reference.
  fit_case <- function(formula, d, truth, seed, ...) {
    classes <- character()
    fit <- withCallingHandlers(
      ncam(formula, d, reference = "ref", seed = seed, threads = 1, ...),
      warning = function(w) {
        classes <<- c(classes, sub("ncam_warning_", "", class(w)[1]))
        invokeRestart("muffleWarning")
      })
    scored <- is.na(d$ref)
    pred <- suppressWarnings(predict(fit, d))$.pred
    list(rmse = sqrt(mean((pred[scored] - truth[scored])^2, na.rm = TRUE)), warnings = unique(classes),
         params = fit$params)
  }
  raw <- list(`as is` = function(v) v, `+150` = function(v) v + 150, `+300` = function(v) v + 300,
              `x10 + 2000` = function(v) 10 * v + 2000, `x100 + 500` = function(v) 100 * v + 500,
              `x1000 + 2000` = function(v) 1000 * v + 2000)
  runs <- list()
  for (name in names(raw)[c(1, 4:6)]) {
    d <- coloc
    d$opc <- raw[[name]](d$opc)
    runs[[paste("coloc", name)]] <- lapply(seeds, function(seed) {
      fit_case(pa_a + pa_b + opc ~ rh + temperature, d, colocation$truth, seed)
    })
  }
  for (name in names(raw)) {
    d <- pa_short
    for (s in c("pa_a", "pa_b")) d[[s]] <- raw[[name]](d[[s]])
    runs[[paste("pa", name)]] <- lapply(seeds, function(seed) fit_case(pa_a + pa_b ~ rh + temperature, d, pa$ref, seed))
  }
  # Within reach, as the data are: the weights of the default fits.
  toucan <- read_toucan(file.path(data_dir, "epa-sensortoolkit-toucan", "toucan_hourly_merged.csv"))
  toucan <- toucan[order(toucan$date), ]
  toucan$ref[toucan$date >= min(toucan$date) + 10 * 86400] <- NA
  antwerp <- read_senseurcity_antwerp(file.path(data_dir, "senseurcity-antwerp-ineris"))
  antwerp <- antwerp[order(antwerp$station, antwerp$date), ]
  antwerp <- antwerp[antwerp$station %in% antwerp$station[!is.na(antwerp$box_2)], ]
  antwerp$ref[!first_share(antwerp$station, 0.2)] <- NA
  unchanged <- c(
    list(toucan = suppressWarnings(ncam(rt01 + rt02 + rt03 ~ rh + temperature, toucan, reference = "ref",
                                        seed = 1, threads = 1))$params),
    lapply(split(antwerp, antwerp$station), function(d) {
      suppressWarnings(ncam(box_1 + box_2 ~ 1, d, reference = "ref", seed = 1, threads = 1))$params
    }))
  saveRDS(list(runs = runs, unchanged = unchanged), args[match("--out", args) + 1L])
  quit(save = "no")
}

script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
builds <- c(before = Sys.getenv("NCAM_LIB_BEFORE"), after = Sys.getenv("NCAM_LIB"))
if (!all(nzchar(builds))) stop("set NCAM_LIB_BEFORE and NCAM_LIB to the two builds' libraries")
results <- lapply(builds, function(lib) {
  out <- tempfile(fileext = ".rds")
  status <- system2(file.path(R.home("bin"), "Rscript"), c(shQuote(script), "--child", shQuote(lib), "--out", shQuote(out)))
  if (status != 0L) stop("the child for ", lib, " failed")
  readRDS(out)
})

cat("RMSE per seed (1 2 3) and its mean, before and after\n")
per_seed <- function(run) paste(sprintf("%.3f", vapply(run, `[[`, 1, "rmse")), collapse = " ")
mean_rmse <- function(run) mean(vapply(run, `[[`, 1, "rmse"))
warned <- function(run) paste(unique(unlist(lapply(run, `[[`, "warnings"))), collapse = ", ")
table <- do.call(rbind, lapply(names(results$after$runs), function(case) {
  before <- results$before$runs[[case]]
  after <- results$after$runs[[case]]
  data.frame(case = case, before = per_seed(before), mean_before = round(mean_rmse(before), 3),
             after = per_seed(after), mean_after = round(mean_rmse(after), 3),
             warnings_before = warned(before), warnings_after = warned(after))
}))
print(table, row.names = FALSE, right = FALSE)

cat("\nThe mean RMSE over the same sensors as they are, after\n")
for (data in c("coloc", "pa")) {
  as_is <- table$mean_after[table$case == paste(data, "as is")]
  rows <- startsWith(table$case, paste0(data, " "))
  cat(sprintf("  %-20s %+.1f %%\n", table$case[rows], 100 * (table$mean_after[rows] / as_is - 1)), sep = "")
}

cat("\nDefault fits within reach of the anchor's level: identical weights before and after\n")
same_runs <- vapply(c("coloc as is", "pa as is"), function(case) {
  all(mapply(function(b, a) identical(b$params, a$params), results$before$runs[[case]], results$after$runs[[case]]))
}, TRUE)
same_other <- mapply(identical, results$before$unchanged, results$after$unchanged)
print(c(same_runs, same_other))
