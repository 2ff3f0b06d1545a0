# Fuzz-style cases (test-fuzz.R): each malformed input runs in a fresh R process with a time
# limit, so that a crash or a hang is recorded as an outcome instead of ending the suite.

# Objects every case may use, created lazily in the child so a case pays only for what it
# touches: `toy` (300 rows of simulate_toy()), `fit` (a small converged ncam fit on it), `cal`
# (its mc_model calibration), `base` (an ivw baseline), `toy_sites` (`toy` with a column `site`,
# "a" and "b" in turn), `fits_by` (ncam_by() fits on it by site) and `fast_fit()` (ncam() with
# small, fast settings that converge silently on `toy`). Warnings while building them are muffled so
# that they are never taken for the case's own.
fuzz_prelude <- r"(
fast_fit <- function(formula = sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, data = toy, ...) {
  ncam(formula, data, hidden = 4, epochs = 10, learn_rate = 0.05, stop_iter = 1, seed = 1,
       threads = 1, ...)
}
delayedAssign("toy", simulate_toy(300, seed = 1))
# Fitted here, not through fast_fit(): a fit made in a function that has returned cannot find
# its data, and the cases of augment(fit) and sensor_params(fit) without newdata need it.
delayedAssign("fit", suppressWarnings(ncam(sensor_0 + sensor_1 + sensor_2 ~ x1 + x2, toy, hidden = 4,
                                           epochs = 10, learn_rate = 0.05, stop_iter = 1, seed = 1,
                                           threads = 1)))
delayedAssign("cal", suppressWarnings(calibrate(fit, toy[201:300, ], seed = 1, threads = 1)))
delayedAssign("toy_sites", transform(toy, site = rep(c("a", "b"), 150)))
delayedAssign("fits_by", suppressWarnings(ncam_by(sensor_0 + sensor_1 ~ x1, toy_sites, by = "site", hidden = 4,
                                                  epochs = 2, seed = 1, threads = 1)))
delayedAssign("base", suppressWarnings(
  ncam_baseline(sensor_0 + sensor_1 + sensor_2 ~ 1, toy, method = "ivw")))
)"

# The child's side: evaluates `code` (a string) after the prelude and classifies what it did:
# list(outcome = "error" / "warning" / "value", class, message, has_nan, n). `n` is the number
# of rows of a data frame value (its length for a vector); a warning outcome also reports the
# value's NaN and row count. Messages are muffled.
fuzz_child <- function(code, prelude) {
  Sys.setenv(NCAM_THREADS = "1")
  options(ncam.threads = 1L, cli.width = 1000L, width = 1000L)
  suppressPackageStartupMessages(library(ncam))
  env <- new.env(parent = globalenv())
  eval(parse(text = prelude), envir = env)
  tidy_message <- function(cnd) {
    trimws(gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd))))
  }
  any_nan <- function(x) {
    if (is.environment(x) || is.function(x)) return(FALSE)
    if (is.list(x)) return(any(vapply(unclass(x), any_nan, logical(1))))
    is.numeric(x) && any(is.nan(unclass(x)))
  }
  warnings <- list()
  value <- tryCatch(
    withCallingHandlers(
      eval(parse(text = code), envir = env),
      warning = function(w) {
        warnings[[length(warnings) + 1L]] <<- w
        invokeRestart("muffleWarning")
      },
      message = function(m) invokeRestart("muffleMessage")
    ),
    error = function(e) e
  )
  if (inherits(value, "error")) {
    return(list(outcome = "error", class = class(value), message = tidy_message(value),
                has_nan = NA, n = NA_integer_))
  }
  n <- if (is.data.frame(value)) nrow(value) else if (is.atomic(value)) length(value) else NA_integer_
  first <- if (length(warnings)) warnings[[1]]
  list(outcome = if (is.null(first)) "value" else "warning",
       class = if (is.null(first)) class(value) else class(first),
       message = if (is.null(first)) "" else paste(vapply(warnings, tidy_message, ""), collapse = " | "),
       has_nan = any_nan(value), n = as.integer(n))
}

# A crash (the child died: its own errors are caught inside it) or a timeout, as a result.
fuzz_failure <- function(outcome, cnd) {
  list(outcome = outcome, class = class(cnd), message = conditionMessage(cnd),
       has_nan = NA, n = NA_integer_)
}

fuzz_child_env <- function() c(callr::rcmd_safe_env(), NCAM_THREADS = "1")

# Runs one case (`code`, a string) in a fresh R process with a time limit; see fuzz_child().
run_fuzz_case <- function(code, timeout = 60) {
  tryCatch(
    callr::r(fuzz_child, args = list(code = code, prelude = fuzz_prelude), libpath = .libPaths(),
             timeout = timeout, env = fuzz_child_env()),
    callr_timeout_error = function(e) fuzz_failure("timeout", e),
    error = function(e) fuzz_failure("crash", e)
  )
}

# Runs many cases, each in its own fresh R process with a time limit, `workers` at a time (so
# that about 250 cases of ~0.6 s each stay within the suite's time budget); results in order.
run_fuzz_cases <- function(codes, timeout = 60, workers = 2L) {
  results <- vector("list", length(codes))
  running <- list()
  next_case <- 1L
  while (next_case <= length(codes) || length(running) > 0L) {
    while (length(running) < workers && next_case <= length(codes)) {
      process <- callr::r_bg(fuzz_child, args = list(code = codes[[next_case]], prelude = fuzz_prelude),
                             libpath = .libPaths(), env = fuzz_child_env(),
                             stdout = NULL, stderr = NULL)
      running[[length(running) + 1L]] <- list(i = next_case, process = process, started = Sys.time())
      next_case <- next_case + 1L
    }
    Sys.sleep(0.02)
    alive <- vapply(running, function(job) job$process$is_alive(), logical(1))
    for (k in seq_along(running)) {
      job <- running[[k]]
      if (!alive[k]) {
        results[[job$i]] <- tryCatch(job$process$get_result(), error = function(e) fuzz_failure("crash", e))
      } else if (difftime(Sys.time(), job$started, units = "secs") > timeout) {
        job$process$kill()
        results[[job$i]] <- fuzz_failure("timeout", simpleCondition(sprintf("timed out after %s s", timeout)))
        alive[k] <- FALSE
      }
    }
    running <- running[alive]
  }
  results
}

# One case of the table: the exported function it targets, the expected outcome, a regular
# expression the message must match (it names the argument or column at fault), the
# expected number of rows of a value (NA when it does not apply), and the code.
fuzz_case <- function(id, fun, expect, regex, code, rows = NA_integer_, needs = NULL) {
  list(id = id, fun = fun, expect = expect, regex = regex, code = code,
       rows = as.integer(rows), needs = needs)
}

# Fixtures for the cases: code (strings) that writes a file in the child's temporary folder
# and returns its path, and lines of the files the readers expect.
csv <- function(lines) sprintf('{p <- tempfile(fileext = ".csv"); writeLines(%s, p); p}',
                               paste(deparse(lines), collapse = ""))
aqs_header <- paste0('"', c("State Code", "County Code", "Site Num", "Parameter Code", "POC",
                            "Latitude", "Longitude", "Units of Measure", "Method Code",
                            "Date GMT", "Time GMT", "Sample Measurement", "Qualifier"), '"',
                     collapse = ",")
aqs_row <- function(date = "2021-05-01", time = "13:00", value = "5.1") {
  paste("06,037,1103,88101,1,34.06,-118.22,Micrograms/cubic meter (LC),170",
        date, time, value, "", sep = ",")
}
purpleair_header <- "time_stamp,pm2.5_cf_1_a,pm2.5_cf_1_b,humidity,temperature"
pa_aqs_header <- "sensor_index,DAILY,conc,pm2.5_cf_1_a,pm2.5_cf_1_b,humidity_a,temp_Celsius,dewPoint,n"
toucan_header <- paste(c("time_lst_utc-5", paste(rep(paste0("RT0", 1:3), each = 4),
                                                 c("pm25", "temp", "rh", "dp"), sep = "_"),
                         "ref_pm25"), collapse = ",")
senseur_header <- "date,Location.ID,latitude,longitude,5325CAT,SHT31TE,SHT31HE,Absolute_humidity"
garbage <- r"-({p <- tempfile(fileext = ".csv"); writeBin(as.raw(c(0x50, 0x4b, 0x03, 0x04, 0x00, 0xff, 0x00, 0x10, 0x0a, 0x00)), p); p})-"
empty <- r"-({p <- tempfile(fileext = ".csv"); file.create(p); p})-"
hourly <- r"-(as.POSIXct("2021-05-01", tz = "UTC") + 3600 * (0:47))-"

# The file reader cases of test-fuzz.R.
fuzz_reader_cases <- list(
  # File readers ------------------------------------------------------------------------------------------
  fuzz_case("aqs_missing_file", "read_aqs", "error", "`path`", r"-(read_aqs(file.path(tempdir(), "absent.csv")))-"),
  fuzz_case("aqs_empty_file", "read_aqs", "error", "empty", paste0("read_aqs(", empty, ")")),
  fuzz_case("aqs_header_only", "read_aqs", "value", ".", rows = 0, paste0("read_aqs(", csv(aqs_header), ")")),
  fuzz_case("aqs_wrong_columns", "read_aqs", "error", "State Code", paste0("read_aqs(", csv(c("a,b,c", "1,2,3")), ")")),
  fuzz_case("aqs_binary_garbage", "read_aqs", "error", "(NUL|not a text)", paste0("read_aqs(", garbage, ")")),
  fuzz_case("aqs_unknown_time_zone", "read_aqs", "error", "`tz`", paste0("read_aqs(", csv(c(aqs_header, aqs_row())), ", tz = \"Mars/Olympus\")")),
  fuzz_case("aqs_unparseable_date", "read_aqs", "error", "Date GMT.*2021-13-45",
            paste0("read_aqs(", csv(c(aqs_header, aqs_row(date = "2021-13-45"))), ")")),
  fuzz_case("aqs_numeric_parameter", "read_aqs", "value", ".", rows = 1, paste0("read_aqs(", csv(c(aqs_header, aqs_row())), ", parameter = 88101)")),
  fuzz_case("aqs_fractional_parameter", "read_aqs", "error", "`parameter`", paste0("read_aqs(", csv(c(aqs_header, aqs_row())), ", parameter = 881.01)")),
  fuzz_case("aqs_non_numeric_value", "read_aqs", "error", "Sample Measurement.*five",
            paste0("read_aqs(", csv(c(aqs_header, aqs_row(value = "five"))), ")")),
  fuzz_case("purpleair_empty_file", "read_purpleair", "error", "empty", paste0("read_purpleair(", empty, ", sensor_index = 1)")),
  fuzz_case("purpleair_header_only", "read_purpleair", "value", ".", rows = 0,
            paste0("read_purpleair(", csv(purpleair_header), ", sensor_index = 1)")),
  fuzz_case("purpleair_bad_time_stamp", "read_purpleair", "error", "time_stamp.*yesterday",
            paste0("read_purpleair(", csv(c(purpleair_header, "yesterday,1,2,40,70")), ", sensor_index = 1)")),
  fuzz_case("purpleair_wrong_columns", "read_purpleair", "error", "time_stamp", paste0("read_purpleair(", csv(c("a,b", "1,2")), ")")),
  fuzz_case("purpleair_bad_tz", "read_purpleair", "error", "`tz`", paste0("read_purpleair(", csv(purpleair_header), ", sensor_index = 1, tz = \"\")")),
  fuzz_case("purpleair_two_indexes_one_file", "read_purpleair", "error", "`sensor_index`",
            paste0("read_purpleair(", csv(purpleair_header), ", sensor_index = c(1, 2))")),
  fuzz_case("purpleair_text_in_number", "read_purpleair", "error", "pm2.5_cf_1_a.*abc",
            paste0("read_purpleair(", csv(c(purpleair_header, "2021-05-01T00:00:00Z,abc,2,40,70")), ", sensor_index = 1)")),
  fuzz_case("purpleair_aqs_empty_file", "read_purpleair_aqs", "error", "empty", paste0("read_purpleair_aqs(", empty, ")")),
  fuzz_case("purpleair_aqs_garbage", "read_purpleair_aqs", "error", "(NUL|not a text)", paste0("read_purpleair_aqs(", garbage, ")")),
  fuzz_case("purpleair_aqs_wrong_columns", "read_purpleair_aqs", "error", "DAILY", paste0("read_purpleair_aqs(", csv(c("sensor_index,date", "1,2")), ")")),
  fuzz_case("purpleair_aqs_bad_date", "read_purpleair_aqs", "error", "DAILY.*05/01/2021",
            paste0("read_purpleair_aqs(", csv(c(pa_aqs_header, "1,05/01/2021,5,6,7,40,20,10,24")), ")")),
  fuzz_case("senseurcity_folder_without_boxes", "read_senseurcity", "error", "Antwerp_402B00|per-box",
            r"-(d <- tempfile(); dir.create(d); read_senseurcity(d))-"),
  fuzz_case("senseurcity_wrong_columns", "read_senseurcity", "error", "Location.ID", paste0("read_senseurcity(", csv(c("date,x", "1,2")), ")")),
  fuzz_case("senseurcity_bad_date", "read_senseurcity", "error", "date.*2021-05-01 00:00",
            paste0("read_senseurcity(", csv(c(senseur_header, "2021-05-01 00:00,A,51.2,4.4,5,20,50,8")), ")")),
  fuzz_case("senseurcity_bad_average", "read_senseurcity", "error", "`average`",
            paste0("read_senseurcity(", csv(c(senseur_header, "2021-05-01T00:00:00Z,A,51.2,4.4,5,20,50,8")), ", average = \"3 fortnights\")")),
  fuzz_case("antwerp_missing_folder", "read_senseurcity_antwerp", "error", "`dir`", r"-(read_senseurcity_antwerp(file.path(tempdir(), "absent")))-"),
  fuzz_case("antwerp_folder_without_tables", "read_senseurcity_antwerp", "error", "REF_colocated",
            r"-(d <- tempfile(); dir.create(d); read_senseurcity_antwerp(d))-"),
  fuzz_case("antwerp_unknown_source", "read_senseurcity_antwerp", "error", "`source`",
            r"-(d <- tempfile(); dir.create(d); read_senseurcity_antwerp(d, source = "api"))-"),
  fuzz_case("antwerp_numeric_dir", "read_senseurcity_antwerp", "error", "`dir`", r"-(read_senseurcity_antwerp(1))-"),
  fuzz_case("toucan_header_only", "read_toucan", "value", ".", rows = 0, paste0("read_toucan(", csv(toucan_header), ")")),
  fuzz_case("toucan_wrong_columns", "read_toucan", "error", "RT01_pm25", paste0("read_toucan(", csv(c("time,pm", "1,2")), ")")),
  fuzz_case("toucan_bad_time", "read_toucan", "error", "time_lst_utc-5.*noon",
            paste0("read_toucan(", csv(c(toucan_header, paste(c("noon", rep("1", 13)), collapse = ","))), ")"))
)
