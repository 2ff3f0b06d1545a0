#' Simulate hourly PM2.5 from low-cost sensors co-located with a reference monitor
#'
#' Generates months of hourly data at one site (or several) in the style of a
#' real co-location campaign: a true PM2.5 concentration, relative humidity and
#' temperature, several low-cost sensors of two kinds with their own biases,
#' and a reference monitor that is present only during a co-location window.
#' The true sensor gain and offset functions are attached, so what a model learns
#' can be compared with the truth.
#'
#' @section Weather: temperature \eqn{T}{T} (°C) is a seasonal cycle
#'   \eqn{11 - 7\cos(2\pi(d - 15)/365.25)}{11 - 7 cos(2 pi (d - 15)/365.25)} (\eqn{d}{d} the day of
#'   the year) plus a
#'   synoptic AR(1) anomaly (sd 3 °C, time constant 3 days), a diurnal cycle of
#'   amplitude 4 °C peaking at 15:00 and AR(1) noise (sd 0.6 °C, time constant
#'   6 hours). The dew point is the day's mean temperature minus a log-normal
#'   depression (median 6 °C, time constant 2 days) plus AR(1) noise (sd 0.8 °C,
#'   time constant 6 hours), kept at least 0.2 °C below \eqn{T}{T}; relative humidity
#'   `rh` (%) follows from the Magnus formula, so it peaks at dawn, dips in the
#'   afternoon and is anti-correlated with temperature.
#'
#' @section Truth: \eqn{\log Y}{log(Y)} is \eqn{\log 10}{log(10)} plus a diurnal profile (morning
#'   and
#'   evening peaks, afternoon minimum), \eqn{-0.1}{-0.1} at weekends, a regional AR(1)
#'   component (sd 0.55, time constant 2 days) shared by all sites, a local AR(1)
#'   component (sd 0.3, time constant 4 hours), a site level (sd 0.15) and
#'   \eqn{-0.04}{-0.04} times the synoptic temperature anomaly (cold spells trap pollution).
#'   Over a few months this gives a median near 10 µg/m³, a log-sd near 0.6 and
#'   hour-to-hour autocorrelation near 0.9, as at urban European reference stations
#'   (`bench/simulate_colocation_stats.R` in the source repository: 10.5, 0.63 and 0.91 on average
#'   over 20 seeds).
#'
#' @section Sensors: each sensor `j` at site `s` reads
#'   \deqn{b = \max(a_j(rh, T, t, s)\,Y + c_j(rh, T, t, s) + \sigma_j(Y)\,z + o\,\zeta, 0),}{b = max(a_j(rh, T, t, s) Y + c_j(rh, T, t, s) + sigma_j(Y) z + o zeta, 0),}
#'   with \eqn{z \sim N(0, 1)}{z ~ N(0, 1)}, a rare spike
#'   \eqn{o \sim \mathrm{Bernoulli}(0.002)}{o ~ Bernoulli(0.002)},
#'   \eqn{\zeta \sim \mathrm{Exp}(\mathrm{mean}\ 20)}{zeta ~ Exp(mean 20)} µg/m³, and \eqn{y}{y} the
#'   years since
#'   `start`:
#'   * `"plantower"` (optical, unheated, as the two channels of a PurpleAir):
#'     \eqn{a = g_s (1 + \delta_s y) (1 + (\kappa/1.65)\, w/(1 - w))}{a = g_s (1 + delta_s y) (1 + (kappa/1.65) w/(1 - w))} with
#'     \eqn{w = \min(rh, 90)/100}{w = min(rh, 90)/100}: the kappa-Köhler mass growth factor of
#'     Crilley et
#'     al. (2018), so the sensor reads high above about 70 % RH as particles take up
#'     water (capped at 90 % because the sensor's own warmth keeps its chamber drier);
#'     \eqn{c = c_s}{c = c_s}; \eqn{\sigma(Y) = 0.5 + 0.05Y}{sigma(Y) = 0.5 + 0.05 Y}. Unit draws:
#'     \eqn{g_s = 1.35 e^{N(0, 0.1^2)}}{g_s = 1.35 exp(N(0, 0.1^2))},
#'     \eqn{c_s \sim N(0.3, 0.5^2)}{c_s ~ N(0.3, 0.5^2)},
#'     \eqn{\delta_s \sim N(-0.1, 0.2^2)}{delta_s ~ N(-0.1, 0.2^2)} per year.
#'   * `"heated"` (optical with a heated inlet, so no humidity growth, but with the
#'     temperature dependence of its laser, its electronics and the loss of
#'     semi-volatile particles):
#'     \eqn{a = g_s (1 + \delta_s y) e^{\tau_s (T - 20)}}{a = g_s (1 + delta_s y) exp(tau_s (T - 20))},
#'     \eqn{c = c_s + \omega_s (T - 20)}{c = c_s + omega_s (T - 20)};
#'     \eqn{\sigma(Y) = 0.8 + 0.08Y}{sigma(Y) = 0.8 + 0.08 Y}. Unit draws:
#'     \eqn{g_s = 0.7 e^{N(0, 0.1^2)}}{g_s = 0.7 exp(N(0, 0.1^2))},
#'     \eqn{c_s \sim N(1, 0.6^2)}{c_s ~ N(1, 0.6^2)},
#'     \eqn{\delta_s \sim N(-0.1, 0.2^2)}{delta_s ~ N(-0.1, 0.2^2)},
#'     \eqn{\tau_s \sim N(-0.015, 0.003^2)}{tau_s ~ N(-0.015, 0.003^2)} per °C,
#'     \eqn{\omega_s \sim N(0.1, 0.03^2)}{omega_s ~ N(0.1, 0.03^2)} µg/m³ per °C.
#'
#'   Each sensor at each site has a Poisson number (mean `days / 20`) of dropouts
#'   lasting 2 to 72 hours (log-uniform between 1 and 72, rounded up), which are `NA` runs
#'   (runs that overlap make longer ones).
#'
#' @section Reference: `ref` is \eqn{\max(Y + (0.3 + 0.03Y) z, 0)}{max(Y + (0.3 + 0.03 Y) z, 0)},
#'   \eqn{z \sim N(0, 1)}{z ~ N(0, 1)},
#'   inside the co-location window and `NA` outside it; within the window it has
#'   a Poisson number (mean window length in days / 14) of dropouts of 2 to 6 hours (rounded
#'   up in the same way).
#'
#' @param days Length of the series in days (a whole number, at least 1); one row
#'   per hour. `days * 24 * sites` rows must fit in a data frame (at most
#'   `.Machine$integer.max`).
#' @param sensors Character vector of sensor types, one element per sensor:
#'   `"plantower"` or `"heated"` (see Sensors). Its names are the sensor columns
#'   (default `sensor_1`, `sensor_2`, ... when unnamed).
#' @param colocation The co-location window, in days since `start`: one number for
#'   the first `colocation` days (by default four weeks, or all `days` if fewer), or
#'   two numbers `c(from, to)`. `0` gives no reference.
#' @param sites Number of sites (a whole number, at least 1). Sites share the weather
#'   and the regional pollution; each has its own local pollution and its own sensor
#'   units (own gains, offsets and drifts) of the types in `sensors`.
#' @param start First day, as a `Date` or a `"YYYY-MM-DD"` string; the series starts
#'   at midnight UTC. The season sets the temperature.
#' @param kappa Effective hygroscopicity \eqn{\kappa \ge 0}{kappa >= 0} of the aerosol in the
#'   growth factor of the `"plantower"` sensors (0.1 to 0.6 is typical; 0 turns the
#'   humidity effect off).
#' @param noise If `FALSE`, sensors and reference carry no noise and no spikes, so
#'   readings are exactly \eqn{\max(aY + c, 0)}{max(a Y + c, 0)} and `ref` equals `truth` (dropouts
#'   remain). The same seed gives the same truth and weather either way.
#' @param seed `NULL` to draw from the current random number stream (so
#'   [set.seed()] applies), or a whole number used as a local seed; the caller's
#'   random number state is then left untouched.
#'
#' @return A tibble with one row per hour (per site), in time order (site by site):
#'   `date` (POSIXct, UTC), `site` (integer; only when `sites > 1`), `rh` (%),
#'   `temperature` (°C), one column per sensor (µg/m³), `ref` (µg/m³, `NA` outside
#'   the co-location window and during reference dropouts) and `truth` (µg/m³).
#'   Attribute `"sensor_models"` is a list with one element per sensor holding its
#'   `type`, its `params` (the unit draws, one value per site), and the functions
#'   `gain(rh, temperature, time, site = 1L)`, `offset(rh, temperature, time, site = 1L)`
#'   (with `time` a POSIXct) and `noise_sd(truth)`. Attribute `"settings"` lists
#'   `start`, `colocation` (the window as two POSIXct times, end excluded), `sites`,
#'   `kappa` and `noise`.
#' @references Crilley, L. R. et al. (2018). Evaluation of a low-cost optical particle
#'   counter (Alphasense OPC-N2) for ambient air monitoring. *Atmospheric Measurement
#'   Techniques*, 11, 709-720.
#' @seealso [colocation], the data set made with it.
#' @export
#' @examples
#' d <- simulate_colocation(days = 14, colocation = 7, seed = 1)
#' d
#' models <- attr(d, "sensor_models")
#' # True gain of the first Plantower channel against humidity
#' gain <- models$pa_a$gain(d$rh, d$temperature, d$date)
#' plot(d$rh, gain, xlab = "RH (%)", ylab = "true gain of pa_a")
#' # Error of each sensor against the truth
#' sapply(d[names(models)], function(b) sqrt(mean((b - d$truth)^2, na.rm = TRUE)))
simulate_colocation <- function(days = 90,
                                sensors = c(pa_a = "plantower", pa_b = "plantower",
                                            opc = "heated"),
                                colocation = min(28, days), sites = 1L, start = "2021-04-01",
                                kappa = 0.2, noise = TRUE, seed = NULL) {
  check_row_count(days, sites)
  sensors <- check_sensor_types(sensors)
  window <- check_window(colocation, days)
  start <- check_start_date(start)
  check_number(kappa, "kappa", min = 0, max = 2)
  if (!is.logical(noise) || length(noise) != 1L || is.na(noise)) {
    ncam_abort("{.arg noise} must be {.code TRUE} or {.code FALSE}.")
  }
  if (!is.null(seed)) seed <- resolve_seed(seed)

  with_seed_or_global(seed, colocation_draws(
    hours = as.integer(days) * 24L, sensors = sensors, window = window,
    sites = as.integer(sites), start = start, kappa = kappa, noise = noise
  ))
}

# Every random draw, in a fixed order: weather, regional pollution, sensor units, then
# each site's local pollution, sensor noise and dropouts, and reference. `noise` only
# scales draws, so it never shifts the stream.
colocation_draws <- function(hours, sensors, window, sites, start, kappa, noise) {
  date <- start + 3600 * (seq_len(hours) - 1)
  clock <- as.POSIXlt(date)
  weather <- simulate_weather(clock)
  regional <- ar1_series(hours, sd = 0.55, hours_per_e_fold = 48)
  models <- lapply(sensors, draw_sensor_model, sites = sites, kappa = kappa, start = start)

  diurnal <- 0.12 * cos(2 * pi * (clock$hour - 21) / 24) +
    0.06 * cos(2 * pi * (clock$hour - 8) / 12)
  weekend <- ifelse(clock$wday %in% c(0L, 6L), -0.1, 0)
  log_common <- log(10) + diurnal + weekend + regional - 0.04 * weather$anomaly
  window <- start + window * 86400
  in_window <- date >= window[1] & date < window[2]

  per_site <- lapply(seq_len(sites), function(s) {
    truth <- exp(log_common + ar1_series(hours, sd = 0.3, hours_per_e_fold = 4) +
                   stats::rnorm(1L, 0, 0.15))
    readings <- lapply(models, function(m) {
      noisy <- m$gain(weather$rh, weather$temperature, date, s) * truth +
        m$offset(weather$rh, weather$temperature, date, s) +
        noise * (m$noise_sd(truth) * stats::rnorm(hours) +
                   (stats::runif(hours) < 0.002) * stats::rexp(hours, 1 / 20))
      with_dropouts(pmax(noisy, 0), mean_count = hours / 24 / 20, max_hours = 72)
    })
    ref <- pmax(truth + noise * (0.3 + 0.03 * truth) * stats::rnorm(hours), 0)
    ref[!in_window] <- NA_real_
    ref <- with_dropouts(ref, mean_count = sum(in_window) / 24 / 14, max_hours = 6,
                         within = which(in_window))
    c(readings, list(ref = ref, truth = truth))
  })

  columns <- c(
    list(date = rep(date, times = sites)),
    if (sites > 1L) list(site = rep(seq_len(sites), each = hours)),
    list(rh = rep(weather$rh, times = sites),
         temperature = rep(weather$temperature, times = sites)),
    lapply(stats::setNames(nm = c(names(sensors), "ref", "truth")),
           function(col) unlist(lapply(per_site, `[[`, col), use.names = FALSE))
  )
  out <- tibble::new_tibble(columns, nrow = hours * sites)
  attr(out, "sensor_models") <- models
  attr(out, "settings") <- list(start = start, colocation = window, sites = sites,
                                kappa = kappa, noise = noise)
  out
}

# Hourly temperature and humidity sharing one synoptic anomaly (see the Weather section).
simulate_weather <- function(clock) {
  hours <- length(clock$hour)
  seasonal <- 11 - 7 * cos(2 * pi * (clock$yday - 15) / 365.25)
  anomaly <- ar1_series(hours, sd = 3, hours_per_e_fold = 72)
  daily_mean <- seasonal + anomaly
  temperature <- daily_mean + 4 * cos(2 * pi * (clock$hour - 15) / 24) +
    ar1_series(hours, sd = 0.6, hours_per_e_fold = 6)
  depression <- 6 * exp(ar1_series(hours, sd = 0.4, hours_per_e_fold = 48))
  dew_point <- pmin(daily_mean - depression + ar1_series(hours, sd = 0.8, hours_per_e_fold = 6),
                    temperature - 0.2)
  list(temperature = temperature, rh = 100 * magnus(dew_point) / magnus(temperature),
       anomaly = anomaly)
}

# Saturation vapour pressure (hPa) over water, Magnus formula (Alduchov and Eskridge).
magnus <- function(celsius) 6.1094 * exp(17.625 * celsius / (243.04 + celsius))

# Stationary AR(1) series with standard deviation `sd`, autocorrelation exp(-1/tau) per hour.
ar1_series <- function(n, sd, hours_per_e_fold) {
  phi <- exp(-1 / hours_per_e_fold)
  innovations <- stats::rnorm(n) * c(sd, rep(sd * sqrt(1 - phi^2), n - 1L))
  as.numeric(stats::filter(innovations, phi, method = "recursive"))
}

# `x` with a Poisson number of NA runs of 2 to `max_hours` hours (log-uniform between 1 and
# `max_hours`, rounded up) starting at positions in `within`.
with_dropouts <- function(x, mean_count, max_hours, within = seq_along(x)) {
  count <- stats::rpois(1L, mean_count)
  starts <- within[ceiling(stats::runif(count) * length(within))]
  lengths <- ceiling(exp(stats::runif(count, 0, log(max_hours))))
  for (k in seq_len(count)) {
    x[starts[k]:min(starts[k] + lengths[k] - 1L, length(x))] <- NA_real_
  }
  x
}

# One sensor's unit draws at every site, and its true gain, offset and noise functions.
draw_sensor_model <- function(type, sites, kappa, start) {
  plantower <- type == "plantower"
  params <- list(
    unit_gain = (if (plantower) 1.35 else 0.7) * exp(stats::rnorm(sites, 0, 0.1)),
    unit_offset = if (plantower) stats::rnorm(sites, 0.3, 0.5) else stats::rnorm(sites, 1, 0.6),
    drift_per_year = stats::rnorm(sites, -0.1, 0.2)
  )
  if (!plantower) {
    params$temp_gain <- stats::rnorm(sites, -0.015, 0.003)
    params$temp_offset <- stats::rnorm(sites, 0.1, 0.03)
  }
  noise <- if (plantower) c(0.5, 0.05) else c(0.8, 0.08)
  # The numbers are written into the functions' bodies, which live in the base environment:
  # the attribute is self-contained when saved, and the same seed gives identical() functions.
  numbers <- c(params, list(kappa = kappa, start_seconds = as.numeric(start),
                            noise_floor = noise[1], noise_slope = noise[2]))
  filled_in <- do.call(substitute, list(sensor_formulas[[type]], numbers))
  functions <- lapply(eval(filled_in, baseenv()), utils::removeSource)
  c(list(type = type, params = params), functions)
}

# The documented formulas, quoted so that each sensor's numbers can be written into them.
sensor_formulas <- list(
  plantower = quote(list(
    gain = function(rh, temperature, time, site = 1L) {
      years <- (as.numeric(time) - start_seconds) / (365.25 * 86400)
      water <- pmin(rh, 90) / 100
      unit_gain[site] * (1 + drift_per_year[site] * years) *
        (1 + kappa / 1.65 * water / (1 - water))
    },
    offset = function(rh, temperature, time, site = 1L) {
      rep_len(unit_offset[site], max(length(rh), length(site)))
    },
    noise_sd = function(truth) noise_floor + noise_slope * truth
  )),
  heated = quote(list(
    gain = function(rh, temperature, time, site = 1L) {
      years <- (as.numeric(time) - start_seconds) / (365.25 * 86400)
      unit_gain[site] * (1 + drift_per_year[site] * years) *
        exp(temp_gain[site] * (temperature - 20))
    },
    offset = function(rh, temperature, time, site = 1L) {
      unit_offset[site] + temp_offset[site] * (temperature - 20)
    },
    noise_sd = function(truth) noise_floor + noise_slope * truth
  ))
)

check_sensor_types <- function(sensors, call = parent.frame()) {
  types <- c("plantower", "heated")
  if (!is.character(sensors) || length(sensors) == 0L || anyNA(sensors)) {
    ncam_abort("{.arg sensors} must be a character vector of sensor types ({.val {types}}).",
               call = call)
  }
  bad <- which(!sensors %in% types)
  if (length(bad) > 0L) {
    unknown <- sprintf("sensors[%d] = \"%s\"", bad, sensors[bad])
    ncam_abort(c("{.arg sensors} must hold sensor types {.or {.val {types}}}.",
                 x = "Unknown: {unknown}."), call = call)
  }
  if (is.null(names(sensors))) names(sensors) <- paste0("sensor_", seq_along(sensors))
  reserved <- c("date", "site", "rh", "temperature", "ref", "truth")
  nm <- names(sensors)
  if (anyNA(nm) || any(!nzchar(nm)) || anyDuplicated(nm) || any(nm %in% reserved)) {
    ncam_abort(c("{.arg sensors} must have unique, non-empty names (the sensor columns).",
                 i = "Names {.val {reserved}} are taken by other columns."), call = call)
  }
  sensors
}

# One row per hour and site: their count must be a valid integer length.
check_row_count <- function(days, sites, call = parent.frame()) {
  most <- .Machine$integer.max
  check_number(days, "days", min = 1, max = floor(most / 24), integer = TRUE, call = call)
  check_number(sites, "sites", min = 1, max = floor(most / 24), integer = TRUE, call = call)
  if (days * 24 * sites > most) {
    ncam_abort("{.arg days} ({days}) times 24 hours times {.arg sites} ({sites}) is {format(days * 24 * sites, big.mark = ',')} rows, more than a data frame holds ({format(most, big.mark = ',')}).",
               call = call)
  }
}

# The co-location window as days since the start: c(from, to), end excluded.
check_window <- function(colocation, days, call = parent.frame()) {
  ok <- is.numeric(colocation) && length(colocation) %in% 1:2 && !anyNA(colocation) &&
    all(colocation >= 0 & colocation <= days) && !is.unsorted(colocation)
  if (!ok) {
    ncam_abort(c("{.arg colocation} must be one number or two increasing numbers of days between 0 and {.arg days} ({days}).",
                 i = "Got {.val {colocation}}."), call = call)
  }
  if (length(colocation) == 1L) c(0, colocation) else colocation
}

check_start_date <- function(start, call = parent.frame()) {
  date <- if (inherits(start, "Date") || is.character(start)) {
    tryCatch(as.Date(start, optional = TRUE), error = function(e) NA)
  }
  if (length(start) != 1L || length(date) != 1L || is.na(date)) {
    ncam_abort("{.arg start} must be one {.cls Date} or a {.val YYYY-MM-DD} string.", call = call)
  }
  as.POSIXct(format(date), tz = "UTC")
}
