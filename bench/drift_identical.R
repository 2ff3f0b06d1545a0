# Whether two builds give sensor_drift() the same tables: identical() of the table and of its
# warnings' classes and messages, on simulated data (simulate_colocation(days = 200, sites =
# 4): by site and without, periods of 6 hours to a quarter, a fit with and without a
# reference, newdata without the reference column, a log fit, missing readings and
# covariates, shuffled rows, text units, a factor covariate, fits by group, a Date column
# whose rows share their days, too few periods, no rows), on the PurpleAir daily data of
# bench/drift.R (fits of 20 epochs; by site and month with and without the reference column,
# by week, without unit, a log fit by quarter), and at 1e6 rows (the data and fit of
# bench/predict_memory.R: by site and month, without unit by week, by site and day without
# the reference column). The fits are made once (newer build) and read by both.
#
#   NCAM_LIB_BEFORE=<older library> NCAM_LIB=<library> nice -n 10 Rscript bench/drift_identical.R
#
# Writes bench/drift_identical.out (NCAM_BENCH_OUT).
# Child modes: Rscript bench/drift_identical.R --cases <file> <library>
#              Rscript bench/drift_identical.R --run <cases file> <library> <result file>

args <- commandArgs(TRUE)
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
sys.source(file.path(dirname(script), "common.R"), envir = globalenv())

make_cases <- function() {
  quiet <- function(expr) suppressWarnings(expr)
  cases <- list()
  add <- function(name, fit, data, ...) cases[[name]] <<- list(fit = fit, data = data, args = list(...))
  small_fit <- function(formula, data, epochs = 5, ...) {
    quiet(ncam(formula, data = data, hidden = c(16, 16), epochs = epochs, seed = 1, threads = 1, ...))
  }
  sim <- as.data.frame(simulate_colocation(days = 200, sites = 4, seed = 3))
  form <- pa_a + pa_b + opc ~ rh + temperature
  fit_ref <- small_fit(form, sim, reference = "ref")
  for (p in c("month", "week", "1 day", "6 hours", "2 weeks", "quarter")) {
    add(paste("sim, site,", p), fit_ref, sim, period = p, unit = "site")
    add(paste("sim, no unit,", p), fit_ref, sim, period = p)
  }
  without_ref <- sim[setdiff(names(sim), "ref")]
  add("sim, newdata without ref, site, week", fit_ref, without_ref, period = "week", unit = "site")
  fit_noref <- small_fit(form, sim)
  add("sim, fit without ref, site, month", fit_noref, sim, period = "month", unit = "site")
  add("sim, fit without ref, no unit, week", fit_noref, without_ref, period = "week")
  add("sim, fit without ref, site, 1 day, tolerance 0", fit_noref, sim, period = "1 day", unit = "site",
      tolerance = 0, alpha = 0.05)
  positive <- sim
  for (s in c("pa_a", "pa_b", "opc", "ref")) positive[[s]] <- abs(positive[[s]]) + 0.5
  fit_log <- small_fit(form, positive, reference = "ref", transform = "log")
  add("sim, log, site, month", fit_log, positive, period = "month", unit = "site")
  add("sim, log, no unit, week", fit_log, positive, period = "week")
  add("sim, log, readings <= 0, site, week", fit_log, sim, period = "week", unit = "site")
  gaps <- sim
  set.seed(7)
  for (s in c("pa_a", "pa_b", "opc", "ref")) gaps[[s]][sample(nrow(gaps), nrow(gaps) %/% 5)] <- NA
  gaps$pa_a[gaps$site == 2 & gaps$date > as.POSIXct("2021-07-01", tz = "UTC")] <- NA
  gaps$opc[1:50] <- 0
  gaps$rh[sample(nrow(gaps), 30)] <- NA
  add("sim, missing values, site, month", fit_ref, gaps, period = "month", unit = "site")
  add("sim, missing values, no unit, week", fit_ref, gaps, period = "week")
  add("sim, missing values, log, site, week", fit_log, gaps, period = "week", unit = "site")
  shuffled <- sim[sample(nrow(sim)), ]
  add("sim, shuffled, site, month", fit_ref, shuffled, period = "month", unit = "site")
  shuffled$site <- c("b", "a", "10", "2")[shuffled$site]
  add("sim, shuffled, text units, week", fit_ref, shuffled, period = "week", unit = "site")
  seasons <- sim
  seasons$season <- factor(ifelse(as.integer(format(seasons$date, "%m")) %in% 4:6, "spring", "summer"))
  fit_factor <- small_fit(pa_a + pa_b + opc ~ rh + temperature + season, seasons, reference = "ref")
  add("sim, factor covariate, site, month", fit_factor, seasons, period = "month", unit = "site")
  add("sim, factor covariate, no unit, week", fit_factor, seasons, period = "week")
  two_sites <- sim[sim$site %in% 1:2, ]
  fits_by <- quiet(ncam_by(form, data = two_sites, by = "site", reference = "ref", hidden = c(8, 8), epochs = 5,
                           seed = 1, threads = 1))
  add("sim, fits by site, month", fits_by, two_sites, period = "month")
  add("sim, fits by site, rows of no group, week", fits_by, sim, period = "week")
  days <- sim
  days$date <- as.Date(days$date)
  add("sim, Date column (rows share days), site, week", fit_ref, days, period = "week", unit = "site")
  add("sim, Date column (rows share days), no unit, month", fit_ref, days, period = "month")
  add("sim, 7 weeks (too few periods), site, month", fit_ref, sim[sim$date < as.POSIXct("2021-05-20", tz = "UTC"), ],
      period = "month", unit = "site")
  add("sim, no rows", fit_ref, sim[0, ], period = "month")
  pa <- as.data.frame(read_purpleair_aqs(file.path(shared_data_dir(), "purpleair-aqs-daily-mathieu",
                                                   "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv")))
  site_rows <- split(seq_len(nrow(pa)), pa$site)
  first_days <- unlist(lapply(site_rows, function(i) i[order(pa$date[i])][seq_len(ceiling(0.1 * length(i)))]))
  train <- pa
  train$ref[-first_days] <- NA
  fit_pa <- small_fit(pa_a + pa_b ~ rh + temperature, train, epochs = 20, reference = "ref")
  add("PurpleAir, site, month, without ref", fit_pa, pa[setdiff(names(pa), "ref")], period = "month", unit = "site")
  add("PurpleAir, site, month", fit_pa, pa, period = "month", unit = "site")
  add("PurpleAir, site, week", fit_pa, pa, period = "week", unit = "site")
  add("PurpleAir, no unit, month", fit_pa, pa, period = "month")
  fit_pa_log <- small_fit(pa_a + pa_b ~ rh + temperature, train, epochs = 20, reference = "ref", transform = "log")
  add("PurpleAir, log, site, quarter", fit_pa_log, pa, period = "quarter", unit = "site")
  cases
}

run_cases <- function(cases, big) {
  one <- function(fit, data, arguments) {
    warned <- character()
    value <- withCallingHandlers(
      tryCatch(do.call(sensor_drift, c(list(fit, data), arguments, threads = 1)), error = conditionMessage),
      warning = function(w) {
        warned <<- c(warned, paste(class(w)[1], conditionMessage(w)))
        invokeRestart("muffleWarning")
      })
    list(value = value, warnings = warned)
  }
  out <- lapply(cases, function(k) one(k$fit, k$data, k$args))
  if (!is.null(big)) {
    without_ref <- big$d[setdiff(names(big$d), "ref")]
    out[["1e6 rows, site, month"]] <- one(big$fit, big$d, list(unit = "site"))
    out[["1e6 rows, no unit (100 sites share times), week"]] <- one(big$fit, big$d, list(period = "week"))
    out[["1e6 rows, site, 1 day, without ref"]] <- one(big$fit, without_ref, list(unit = "site", period = "1 day"))
  }
  out
}

if (length(args) && args[1] == "--cases") {
  attach_ncam(args[3])
  saveRDS(make_cases(), args[2])
  cat("cases made\n")
  quit(save = "no")
}
if (length(args) && args[1] == "--run") {
  attach_ncam(args[3])
  big <- if (nzchar(args[5])) read_scale_rows_work(args[5], args[3])
  saveRDS(run_cases(readRDS(args[2]), big), args[4])
  cat("cases run\n")
  quit(save = "no")
}

libs <- bench_libraries(both = TRUE)
say <- script_logger(script)
say_machine(say, script, libs)
cases_file <- tempfile("ncam-drift-cases-", fileext = ".rds")
child_lines(c(script, "--cases", cases_file, shQuote(libs[["after"]])), "cases")
work <- scale_rows_work(file.path(dirname(script), "scale_rows.R"), libs[["after"]], 1e6, "ncam-drift-identical-")$dir
results <- lapply(libs, function(lib) {
  file <- tempfile("ncam-drift-result-", fileext = ".rds")
  child_lines(c(script, "--run", cases_file, shQuote(lib), file, work), "cases")
  readRDS(file)
})
unlink(c(cases_file, work), recursive = TRUE)
say("identical(): the table (or error message) of each call, and its warnings' classes and messages")
say_table_head(say, c("case", "rows", "warnings", "table identical", "warnings identical"))
b <- results[["before"]]
a <- results[["after"]]
for (name in names(b)) {
  rows <- if (is.data.frame(b[[name]]$value)) nrow(b[[name]]$value) else "error"
  say("| %s | %s | %d | %s | %s |", name, rows, length(b[[name]]$warnings), identical(b[[name]]$value, a[[name]]$value),
      identical(b[[name]]$warnings, a[[name]]$warnings))
}
same <- mapply(identical, b, a[names(b)])
say("")
say("%d of %d calls identical in table and warnings", sum(same), length(same))
