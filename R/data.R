#' Simulated hourly PM2.5 co-location campaign
#'
#' Ninety days (1 April to 29 June 2021, hourly, UTC) of simulated PM2.5 at one
#' urban site: the two Plantower channels of a PurpleAir-like unit, which read high
#' and grow with humidity, and a heated optical sensor, which reads low and depends
#' on temperature, beside a reference monitor that was co-located for the first four
#' weeks only. The true concentration is included, so fused estimates can be scored
#' after the reference is gone. Made by [simulate_colocation()], whose help page gives
#' every formula; the values are not rounded.
#'
#' @format A tibble with 2,160 rows (one per hour) and 8 columns:
#' \describe{
#'   \item{date}{Start of the hour (POSIXct, UTC), 2021-04-01 00:00 to 2021-06-29 23:00.}
#'   \item{rh}{Relative humidity (%).}
#'   \item{temperature}{Air temperature (°C).}
#'   \item{pa_a}{Plantower channel A (µg/m³); `NA` during dropouts.}
#'   \item{pa_b}{Plantower channel B of the same unit (µg/m³); `NA` during dropouts.}
#'   \item{opc}{Heated optical sensor (µg/m³); `NA` during dropouts.}
#'   \item{ref}{Reference monitor (µg/m³), present from 2021-04-01 00:00 to
#'     2021-04-28 23:00 apart from a few short dropouts, `NA` afterwards.}
#'   \item{truth}{True PM2.5 (µg/m³), never missing.}
#' }
#' Attribute `"sensor_models"` holds, for each of `pa_a`, `pa_b` and `opc`, its type,
#' unit parameters and true `gain(rh, temperature, time)`, `offset(rh, temperature, time)`
#' and `noise_sd(truth)` functions; attribute `"settings"` holds the simulation settings.
#' Not every data operation keeps them (combining tables, most dplyr verbs), so take them from
#' `colocation` itself.
#'
#' @source Simulated with `simulate_colocation(days = 90, sensors = c(pa_a = "plantower",
#'   pa_b = "plantower", opc = "heated"), colocation = 28, start = "2021-04-01",
#'   seed = 20210401)` by the script `data-raw/colocation.R` of the package sources.
#' @seealso [simulate_colocation()]
#' @examples
#' colocation
#' # The reference is only there during the co-location weeks
#' range(colocation$date[!is.na(colocation$ref)])
#' # Plantower channels read high at high humidity
#' high_rh <- colocation$rh > 85
#' tapply(colocation$pa_a / colocation$truth, high_rh, median, na.rm = TRUE)
#' # True gain of channel A beside the humidity
#' models <- attr(colocation, "sensor_models")
#' gain_a <- models$pa_a$gain(colocation$rh, colocation$temperature, colocation$date)
#' plot(colocation$rh, gain_a, xlab = "RH (%)", ylab = "true gain of pa_a")
"colocation"
