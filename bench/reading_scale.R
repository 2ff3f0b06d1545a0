# The check of new sensor readings on another scale than the fit's training readings
# (R/reading-scale-check.R, warning ncam_warning_reading_scale): a column's median (of at least
# reading_scale_min_readings readings) below the 1st percentile of its training readings over
# reading_scale_factor, or above their 99th percentile times it.
#
# 1. How often the rule would fire on real readings of the same units, without fits: training
#    readings the first 10 % or 20 % of each series (PurpleAir site, Toucan, SensEURCity Antwerp
#    station, in time order; percentiles per series), and the later readings of the series in
#    windows of k consecutive rows (k = 5, 10, 20, 24), each window judged as new data. The
#    rule is the package's constants applied to running medians; a sample of windows is checked
#    against the package's own warn_reading_scale().
# 2. The package's workflows on the shared data, each predict() call's warnings of the class
#    counted (must be 0): PurpleAir's short co-location (vignette "colocation", seed 1; the later
#    days whole and in batches of 5 and 24 consecutive days per site), leave one site out (the
#    held-out site's days), the label-free fit; Toucan's and SensEURCity Antwerp's fits of the
#    vignette "air-quality" (seed 1) on all their rows and on their held-out rows in batches;
#    simulate_colocation() (the fit of ?ncam's example and 4 simulated sites); and
#    bench/colocation_blocks.R run whole in a child, its output searched for the warning.
# 3. The review's case (repro r1.R): PurpleAir's short co-location fit, 5 days of site 6008 in
#    mg/m3, and the same days 1000 times too large.
# 4. The cost at 1e6 rows: reading_scale() (at the fit) and warn_reading_scale() (per predict()),
#    for readings of the training scale and for readings 1000 times smaller.
#
# Run (about 6 min on the shared 2-core VM):
#   NCAM_LIB=<lib> [NCAM_SHARED_DATA=<folder>] nice -n 10 Rscript bench/reading_scale.R
# writes bench/reading_scale.out.

lib <- Sys.getenv("NCAM_LIB")
suppressPackageStartupMessages(library(ncam, lib.loc = if (nzchar(lib)) lib))
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
source(file.path(dirname(script), "common.R"))
say <- script_logger(script)
say_machine(say, script, c(after = lib))
options(width = 160)
data_dir <- shared_data_dir()
factor_ <- ncam:::reading_scale_factor
min_readings <- ncam:::reading_scale_min_readings
say("Rule: median of >= %d readings below q01 / %g (q01 > 0, median > 0) or above q99 * %g (q99 > 0)", min_readings, factor_, factor_)

pa <- as.data.frame(read_purpleair_aqs(file.path(data_dir, "purpleair-aqs-daily-mathieu",
                                                 "DAILY90_r0_5km_processeddata_PA_AQS_Jan2021_Aug2023_Final.csv")))
toucan <- as.data.frame(read_toucan(file.path(data_dir, "epa-sensortoolkit-toucan", "toucan_hourly_merged.csv")))
toucan$series <- "toucan"
antwerp <- as.data.frame(read_senseurcity_antwerp(file.path(data_dir, "senseurcity-antwerp-ineris")))

# ---- 1. Windows of later readings against the first share of each series
say("\n## 1. Windows of k later readings judged against the first 10 %% / 20 %% of their series (no fits)")
fires <- function(centre, q) (q[1] > 0 & centre > 0 & centre < q[1] / factor_) | (q[2] > 0 & centre > q[2] * factor_)
sets <- list(purpleair = list(d = pa, g = "site", s = c("pa_a", "pa_b")),
             toucan = list(d = toucan, g = "series", s = c("rt01", "rt02", "rt03")),
             antwerp = list(d = antwerp, g = "station", s = c("box_1", "box_2")))
ks <- c(5, 10, 20, 24)
say_table_head(say, c("data", "first share", "k", "windows", "fired", "where"))
checked <- 0L
agree <- 0L
for (name in names(sets)) {
  set <- sets[[name]]
  d <- set$d
  for (share in c(0.1, 0.2)) {
    counts <- matrix(0, length(ks), 2, dimnames = list(ks, c("windows", "fired")))
    where <- vector("list", length(ks))
    for (g in split(seq_len(nrow(d)), d[[set$g]])) {
      g <- g[order(d$date[g])]
      first <- g[seq_len(ceiling(share * length(g)))]
      later <- setdiff(g, first)
      scale_table <- ncam:::reading_scale(as.list(d[set$s]), first, "none")
      for (j in seq_along(set$s)) {
        v <- d[[set$s[j]]][later]
        when <- d$date[later][!is.na(v)]
        v <- v[!is.na(v)]
        q <- c(scale_table$lower[j], scale_table$upper[j])
        for (i in seq_along(ks)) {
          k <- ks[i]
          if (length(v) < k) next
          # The median of the window of k rows starting at each row (runmed() takes odd widths only).
          centres <- if (k %% 2 == 1) stats::runmed(v, k, endrule = "keep")[seq(ceiling(k / 2), length(v) - floor(k / 2))] else
            vapply(seq_len(length(v) - k + 1), function(s) stats::median(v[s:(s + k - 1)]), 0)
          hit <- fires(centres, q)
          counts[i, ] <- counts[i, ] + c(length(centres), sum(hit))
          if (any(hit)) where[[i]] <- c(where[[i]], sprintf("%s %s %s", d[[set$g]][later[1]], set$s[j], format(as.Date(when[which(hit)[1]]))))
          # The package's own check on a few windows gives the same verdict.
          for (s in unique(c(which(hit)[1], round(seq(1, length(centres), length.out = 3))))) {
            if (is.na(s)) next
            window <- v[(s - 1) + seq_len(k)]
            model <- list(reading_scale = scale_table[j, ], transform = "none", units = NULL)
            warned <- inherits(tryCatch(ncam:::warn_reading_scale(model, stats::setNames(list(window), set$s[j])),
                                        warning = function(w) w), "ncam_warning_reading_scale")
            checked <- checked + 1L
            agree <- agree + (warned == fires(stats::median(window), q))
          }
        }
      }
    }
    for (i in seq_along(ks)) {
      say("| %s | %g | %d | %d | %d | %s |", name, share, ks[i], counts[i, 1], counts[i, 2],
          if (length(where[[i]])) paste(unique(where[[i]]), collapse = "; ") else "")
    }
  }
}
say("Windows also judged by ncam:::warn_reading_scale(): %d, same verdict as the rule above: %d", checked, agree)

# ---- 2. Workflows: warnings of the class per predict() call
say("\n## 2. Workflows on the shared data: predict() calls and warnings of class ncam_warning_reading_scale")
counted <- function(expr) {
  n <- 0L
  withCallingHandlers(expr, ncam_warning_reading_scale = function(w) {
    n <<- n + 1L
    invokeRestart("muffleWarning")
  }, warning = function(w) invokeRestart("muffleWarning"))
  n
}
quiet <- function(expr) suppressWarnings(suppressMessages(expr))
# predict() on `rows` of `d` in batches of `size` consecutive rows per series `g` (in time order).
batches <- function(fit, d, rows, g, size) {
  calls <- 0L
  warned <- 0L
  for (s in split(rows, d[[g]][rows])) {
    s <- s[order(d$date[s])]
    for (start in seq(1, length(s), by = size)) {
      calls <- calls + 1L
      warned <- warned + counted(predict(fit, d[s[start:min(start + size - 1, length(s))], ]))
    }
  }
  c(calls = calls, warned = warned)
}
say_table_head(say, c("workflow", "predict() calls", "warnings of the class"))
row <- function(label, x) say("| %s | %d | %d |", label, x[["calls"]], x[["warned"]])
one <- function(fit, newdata) c(calls = 1L, warned = counted(predict(fit, newdata, interval = "prediction")))

started <- proc.time()[["elapsed"]]
labelled <- unlist(lapply(split(seq_len(nrow(pa)), pa$site), function(i) i[order(pa$date[i])][seq_len(ceiling(0.1 * length(i)))]))
unlabelled <- setdiff(seq_len(nrow(pa)), labelled)
pa_short <- pa
pa_short$ref[unlabelled] <- NA
short_fit <- quiet(ncam(pa_a + pa_b ~ rh + temperature, data = pa_short, reference = "ref", seed = 1, threads = 1))
row("PurpleAir short co-location: later days", one(short_fit, pa[unlabelled, ]))
row("PurpleAir short co-location: later days, 5 at a time", batches(short_fit, pa, unlabelled, "site", 5))
row("PurpleAir short co-location: later days, 24 at a time", batches(short_fit, pa, unlabelled, "site", 24))
loso <- c(calls = 0L, warned = 0L)
for (s in unique(pa$site)) {
  held_out <- which(pa$site == s)
  fit <- quiet(ncam(pa_a + pa_b ~ rh + temperature, data = pa[-held_out, ], reference = "ref", seed = 1, threads = 1))
  loso <- loso + one(fit, pa[held_out, c("pa_a", "pa_b", "rh", "temperature")])
}
row("PurpleAir leave one site out: each held-out site", loso)
free_fit <- quiet(ncam(pa_a + pa_b ~ rh + temperature, data = pa, anchor = "pa_a", seed = 1, threads = 1))
row("PurpleAir label-free: all days", c(calls = 1L, warned = counted(predict(free_fit, pa))))

toucan <- toucan[!is.na(toucan$rh) & !is.na(toucan$temperature), ]
tsplit <- quiet(split_chronological(toucan, "date", gap = "39 hours",
                                    prop = c(train = 0.5, validation = 0.1, calibration = 0.2, test = 0.2)))
t_fit <- tsplit %in% c("train", "validation")
tfit <- quiet(ncam(rt01 + rt02 + rt03 ~ rh + temperature, data = toucan[t_fit, ], anchor = "rt01", hidden = c(32, 32),
                   epochs = 300, validation = tsplit[t_fit] == "validation", seed = 1, threads = 1))
row("Toucan (vignette air-quality): all hours", c(calls = 1L, warned = counted(predict(tfit, toucan))))
held <- which(!t_fit)
row("Toucan: hours not fitted, 5 at a time", batches(tfit, toucan, held, "series", 5))

aq <- antwerp[antwerp$station %in% c("ANT_REF_R801", "ANT_REF_R802", "ANT_REF_R804"), ]
aq$station <- factor(sub("ANT_REF_", "", aq$station))
hour <- as.numeric(format(aq$date, "%H", tz = "UTC"))
aq$hour_sin <- sin(2 * pi * hour / 24)
aq$hour_cos <- cos(2 * pi * hour / 24)
aq$box_1[aq$box_1 <= 0] <- NA
aq$box_2[aq$box_2 <= 0] <- NA
split <- quiet(split_blocks(aq, "date", block = "7 days", gap = "72 hours", seed = 1))
is_fit <- split %in% c("train", "validation")
afit <- quiet(ncam(box_1 + box_2 ~ station + hour_sin + hour_cos, data = aq[is_fit, ], anchor = "box_1",
                   hidden = c(32, 32), epochs = 150, stop_iter = 30, validation = split[is_fit] == "validation",
                   seed = 1, threads = 1))
row("SensEURCity Antwerp (vignette air-quality): all hours", c(calls = 1L, warned = counted(predict(afit, aq))))
held <- which(!is_fit)
row("SensEURCity Antwerp: hours not fitted, 5 at a time", batches(afit, aq, held, "station", 5))
row("SensEURCity Antwerp: hours not fitted, 24 at a time", batches(afit, aq, held, "station", 24))

sim <- colocation
sim_fit <- quiet(ncam(pa_a + pa_b + opc ~ rh + temperature, data = sim, reference = "ref", hidden = c(16, 16), epochs = 100,
                      seed = 1, threads = 1))
after <- which(sim$date >= as.POSIXct("2021-05-01", tz = "UTC"))
sim$series <- "colocation"
row("simulate_colocation() (?ncam's example): all hours", c(calls = 1L, warned = counted(predict(sim_fit, sim))))
row("simulate_colocation(): hours after April, 5 at a time", batches(sim_fit, sim, after, "series", 5))
sites <- simulate_colocation(days = 60, sites = 4, seed = 1)
site_fit <- quiet(update(sim_fit, data = sites, unit = "site"))
row("simulate_colocation(sites = 4), unit offsets: all hours", c(calls = 1L, warned = counted(predict(site_fit, sites))))
row("simulate_colocation(sites = 4): 5 hours at a time", batches(site_fit, sites, seq_len(nrow(sites)), "site", 5))
say("(section 2 so far: %.0f s)", proc.time()[["elapsed"]] - started)

# The child prints every warning as it comes (options(warn = 1) from its profile): at the end of a
# script, R would print only "There were 50 or more warnings".
blocks <- file.path(dirname(script), "colocation_blocks.R")
profile <- tempfile(fileext = ".R")
writeLines("options(warn = 1)", profile)
out <- suppressWarnings(system2("Rscript", blocks, stdout = TRUE, stderr = TRUE,
                                env = c(paste0("NCAM_LIB=", lib), paste0("NCAM_SHARED_DATA=", data_dir),
                                        paste0("R_PROFILE_USER=", profile))))
say("bench/colocation_blocks.R in a child: %d lines of output, %d warnings printed, %d naming the check (\"on another scale\" or its class); last line: %s",
    length(out), sum(grepl("^Warning", out)), sum(grepl("on another scale|ncam_warning_reading_scale", out)), utils::tail(out, 1))

# ---- 3. The review's case
say("\n## 3. The review's case (repro r1.R): the short co-location fit, 5 days of site 6008")
nd <- pa[pa$site == "6008", ][1:5, ]
for (k in c(1e-3, 1, 1e3)) {
  given <- transform(nd, pa_a = pa_a * k, pa_b = pa_b * k)
  w <- NULL
  p <- withCallingHandlers(predict(short_fit, given, interval = "prediction"),
                           ncam_warning_reading_scale = function(cnd) {
                             w <<- cnd
                             invokeRestart("muffleWarning")
                           }, warning = function(cnd) invokeRestart("muffleWarning"))
  say("readings x %g: warning %s; .pred %s (reference %s); .extrapolation %s", k,
      if (is.null(w)) "none" else paste0("on ", paste(w$columns, collapse = ", "), ", medians ", paste(signif(w$medians, 3), collapse = ", ")),
      paste(round(p$.pred, 2), collapse = " "), paste(round(nd$ref, 2), collapse = " "), paste(signif(p$.extrapolation, 3), collapse = " "))
}
say("The fit's percentiles (fit$reading_scale):")
for (line in utils::capture.output(print(short_fit$reading_scale, digits = 4, row.names = FALSE))) say("    %s", line)

# ---- 4. Cost at 1e6 rows
say("\n## 4. Cost at 1e6 rows (3 sensors), median of 5 runs, CPU seconds")
set.seed(1)
big <- lapply(stats::setNames(nm = c("a", "b", "c")), function(s) stats::rlnorm(1e6, log(10), 0.7))
big$a[sample.int(1e6, 1e4)] <- NA
cpu <- function(expr) {
  e <- substitute(expr)
  env <- parent.frame()
  stats::median(vapply(1:5, function(i) {
    t <- system.time(eval(e, env))
    t[["user.self"]] + t[["sys.self"]]
  }, 0))
}
table_1e6 <- ncam:::reading_scale(big, seq_len(1e6), "none")
model <- list(reading_scale = table_1e6, transform = "none", units = NULL)
milli <- lapply(big, function(v) v / 1000)
say("reading_scale() at the fit: %.3f s; warn_reading_scale() per predict(): %.3f s (readings of the training scale, screened on a sample), %.3f s (1000 times smaller: judged on every reading, and warned)",
    cpu(ncam:::reading_scale(big, seq_len(1e6), "none")), cpu(ncam:::warn_reading_scale(model, big)),
    cpu(suppressWarnings(ncam:::warn_reading_scale(model, milli))))
say("For scale: predict() at 1e6 rows takes 1.29-1.33 CPU s (bench/predict_cpu.out)")
say("Size of the stored table: %s for 3 sensors", format(utils::object.size(table_1e6)))
say("Total %.0f s", proc.time()[["elapsed"]] - started)
