#' Simulate the toy spatial data set of the NCAM paper
#'
#' Generates the synthetic data of the paper's appendix "Toy Spatial Data
#' Generation Process": a latent ground-truth field over a small spatial
#' domain and three sensors with distinct multiplicative/additive biases,
#' heteroscedastic noise and rare outliers. The settings are those of the
#' authors' public code: longitude \eqn{\lambda \sim U(4.35, 4.45)}{lambda ~ U(4.35, 4.45)},
#' latitude
#' \eqn{\phi \sim U(51.18, 51.25)}{phi ~ U(51.18, 51.25)}, both normalised about the domain centre
#' by
#' half the larger range, so \eqn{\tilde\lambda}{lambda'} spans \eqn{[-1, 1]}{[-1, 1]} and
#' \eqn{\tilde\phi}{phi'} about \eqn{[-0.7, 0.7]}{[-0.7, 0.7]}.
#'
#' With \eqn{\gamma}{gamma} = `ambiguity` and \eqn{[z]_+ = \max(z, 0)}{[z]_+ = max(z, 0)}:
#'
#' * background \eqn{g = 0.3\sin(2\pi\tilde\lambda) + 0.25\cos(2\pi\tilde\phi) +
#'   0.1\sin(2\pi\tilde\lambda)\cos(2\pi\tilde\phi)}{g = 0.3 sin(2 pi lambda') + 0.25 cos(2 pi
#'   phi') + 0.1 sin(2 pi lambda') cos(2 pi phi')};
#' * truth \eqn{Y = [15 + 5g + \sum_{k=1}^2 A_k \exp(-((\tilde\lambda - m_{\lambda k})^2 +
#'   (\tilde\phi - m_{\phi k})^2)/\tau_k) + \epsilon]_+}{Y = [15 + 5 g + sum_(k=1,2) A_k
#'   exp(-((lambda' - m_lambda_k)^2 + (phi' - m_phi_k)^2)/tau_k) +
#'   epsilon]_+}, \eqn{\epsilon \sim N(0, \sigma^2)}{epsilon ~ N(0, sigma^2)}
#'   with \eqn{\sigma}{sigma} = `spatial_noise`, and
#'   \eqn{m_{\lambda k}, m_{\phi k} \sim U(-0.3, 1.3)}{m_lambda_k, m_phi_k ~ U(-0.3, 1.3)},
#'   \eqn{A_k \sim U(2, 5)}{A_k ~ U(2, 5)}, \eqn{\tau_k \sim U(0.06, 0.15)}{tau_k ~ U(0.06, 0.15)};
#' * sensor 0: \eqn{[\alpha_0 Y + \beta_0 + 0.15\gamma\sin(4\pi\tilde\lambda)\cos(4\pi\tilde\phi) +
#'   \eta_0]_+}{[alpha_0 Y + beta_0 + 0.15 gamma sin(4 pi lambda') cos(4 pi phi') +
#'   eta_0]_+}, \eqn{\alpha_0 \sim N(1, (0.02\gamma)^2)}{alpha_0 ~ N(1, (0.02 gamma)^2)}, \eqn{\beta_0 \sim N(0, (0.2\gamma)^2)}{beta_0 ~ N(0, (0.2 gamma)^2)},
#'   \eqn{\eta_0 \sim N(0, (0.8\gamma)^2)}{eta_0 ~ N(0, (0.8 gamma)^2)};
#' * sensor 1: \eqn{[1.2Y + \beta_1 + 0.4\gamma\cos(6\pi\tilde\phi) + \eta_1]_+}{[1.2 Y + beta_1 + 0.4 gamma cos(6 pi phi') + eta_1]_+},
#'   \eqn{\beta_1 \sim N(0, (0.5\gamma)^2)}{beta_1 ~ N(0, (0.5 gamma)^2)},
#'   \eqn{\eta_1 \sim N(0, ((1 + 0.02Y)\gamma)^2)}{eta_1 ~ N(0, ((1 + 0.02 Y) gamma)^2)};
#' * sensor 2: \eqn{[1.4Y + \beta_2 + 0.5\gamma\sin(5\pi\tilde\lambda\tilde\phi) + \eta_2]_+}{[1.4 Y + beta_2 + 0.5 gamma sin(5 pi lambda' phi') + eta_2]_+},
#'   \eqn{\beta_2 \sim N(0, (0.7\gamma)^2)}{beta_2 ~ N(0, (0.7 gamma)^2)},
#'   \eqn{\eta_2 = \varepsilon_2 + o\,\zeta}{eta_2 = epsilon_2 + o zeta},
#'   \eqn{\varepsilon_2 \sim N(0, \sigma_2^2)}{epsilon_2 ~ N(0, sigma_2^2)},
#'   \eqn{\sigma_2 = (1.3 + 0.03Y)\gamma}{sigma_2 = (1.3 + 0.03 Y) gamma},
#'   \eqn{o \sim \mathrm{Bernoulli}(0.05)}{o ~ Bernoulli(0.05)},
#'   \eqn{\zeta \sim N(0, (3\sigma_2)^2)}{zeta ~ N(0, (3 sigma_2)^2)}.
#'
#' Random numbers are drawn from R's generator in this fixed order, so a seed
#' fixes a data set: the dataset-level parameters first (two values each of
#' `m_lambda`, `m_phi`, `A` and `tau`, then `alpha0`, `beta0`, `beta1`,
#' `beta2`), then the per-row vectors of length `n`: longitude, latitude,
#' \eqn{\epsilon}{epsilon}, \eqn{\eta_0}{eta_0}, the standard normals of \eqn{\eta_1}{eta_1} and
#' \eqn{\varepsilon_2}{epsilon_2}, the uniforms deciding the outliers \eqn{o}{o}, and the
#' standard normals of \eqn{\zeta}{zeta}.
#'
#' @param n Number of rows (a whole number, at least 1).
#' @param ambiguity The ambiguity factor \eqn{\gamma}{gamma}, between 0 and 1e6, scaling
#'   every sensor bias and noise term. With `ambiguity = 0` the sensors are
#'   deterministic functions of the truth.
#' @param spatial_noise Standard deviation, between 0 and 1e6, of the i.i.d.
#'   noise \eqn{\epsilon}{epsilon} in the ground-truth field.
#' @param seed `NULL` to draw from the current random number stream (so
#'   [set.seed()] applies), or a whole number used as a local seed; the
#'   caller's random number state is then left untouched.
#'
#' @return A tibble with `n` rows and columns `lon`, `lat` (degrees),
#'   `x1` to `x4` (\eqn{\sin(2\pi\tilde\lambda)}{sin(2 pi lambda')},
#'   \eqn{\cos(2\pi\tilde\lambda)}{cos(2 pi lambda')},
#'   \eqn{\sin(2\pi\tilde\phi)}{sin(2 pi phi')}, \eqn{\cos(2\pi\tilde\phi)}{cos(2 pi phi')}),
#'   `sensor_0`,
#'   `sensor_1`, `sensor_2` and `truth` (\eqn{Y}{Y}). Attribute `"params"` is a
#'   list of the dataset-level draws (`m_lambda`, `m_phi`, `A`, `tau`,
#'   `alpha0`, `beta0`, `beta1`, `beta2`) together with `ambiguity` and
#'   `spatial_noise`.
#' @export
#' @examples
#' toy <- simulate_toy(500, seed = 1)
#' head(toy)
#' attr(toy, "params")$beta2
#' # Raw error of each sensor against the truth
#' sapply(toy[c("sensor_0", "sensor_1", "sensor_2")], function(b) sqrt(mean((b - toy$truth)^2)))
simulate_toy <- function(n = 20000, ambiguity = 3, spatial_noise = 5, seed = NULL) {
  check_number(n, "n", min = 1, max = .Machine$integer.max, integer = TRUE)
  # Bounded so that the readings stay finite (products of the two scales would overflow).
  check_number(ambiguity, "ambiguity", min = 0, max = 1e6)
  check_number(spatial_noise, "spatial_noise", min = 0, max = 1e6)
  if (!is.null(seed)) {
    return(with_local_seed(resolve_seed(seed), simulate_toy(n, ambiguity, spatial_noise)))
  }
  n <- as.integer(n)
  g <- ambiguity

  # Dataset-level parameters, drawn before any per-row value.
  k <- 2L
  params <- list(
    m_lambda = stats::runif(k, -0.3, 1.3),
    m_phi = stats::runif(k, -0.3, 1.3),
    A = stats::runif(k, 2, 5),
    tau = stats::runif(k, 0.06, 0.15),
    alpha0 = stats::rnorm(1L, 1, 0.02 * g),
    beta0 = stats::rnorm(1L, 0, 0.2 * g),
    beta1 = stats::rnorm(1L, 0, 0.5 * g),
    beta2 = stats::rnorm(1L, 0, 0.7 * g)
  )

  # Step 1: locations, normalised by half the larger range (authors' domain).
  lon_range <- c(4.35, 4.45)
  lat_range <- c(51.18, 51.25)
  lon <- stats::runif(n, lon_range[1], lon_range[2])
  lat <- stats::runif(n, lat_range[1], lat_range[2])
  half <- 0.5 * max(diff(lon_range), diff(lat_range))
  lt <- (lon - mean(lon_range)) / half
  pt <- (lat - mean(lat_range)) / half

  # Step 2: covariates.
  x1 <- sin(2 * pi * lt)
  x2 <- cos(2 * pi * lt)
  x3 <- sin(2 * pi * pt)
  x4 <- cos(2 * pi * pt)

  # Step 3: ground truth.
  background <- 0.3 * x1 + 0.25 * x4 + 0.1 * x1 * x4
  hotspots <- numeric(n)
  for (j in seq_len(k)) {
    d2 <- (lt - params$m_lambda[j])^2 + (pt - params$m_phi[j])^2
    hotspots <- hotspots + params$A[j] * exp(-d2 / params$tau[j])
  }
  eps <- stats::rnorm(n, 0, spatial_noise)
  truth <- pmax(15 + 5 * background + hotspots + eps, 0)

  # Step 4: sensors, all truncated at zero.
  eta0 <- stats::rnorm(n, 0, 0.8 * g)
  sensor_0 <- pmax(params$alpha0 * truth + params$beta0 +
                     0.15 * g * sin(4 * pi * lt) * cos(4 * pi * pt) + eta0, 0)

  sd1 <- (1 + 0.02 * truth) * g
  eta1 <- stats::rnorm(n) * sd1
  sensor_1 <- pmax(1.2 * truth + params$beta1 + 0.4 * g * cos(6 * pi * pt) + eta1, 0)

  sd2 <- (1.3 + 0.03 * truth) * g
  eps2 <- stats::rnorm(n) * sd2
  outlier <- stats::runif(n) < 0.05
  zeta <- stats::rnorm(n) * 3 * sd2
  sensor_2 <- pmax(1.4 * truth + params$beta2 + 0.5 * g * sin(5 * pi * lt * pt) +
                     eps2 + outlier * zeta, 0)

  out <- tibble::new_tibble(list(lon = lon, lat = lat, x1 = x1, x2 = x2, x3 = x3, x4 = x4,
                                 sensor_0 = sensor_0, sensor_1 = sensor_1, sensor_2 = sensor_2,
                                 truth = truth), nrow = n)
  attr(out, "params") <- c(params, list(ambiguity = ambiguity, spatial_noise = spatial_noise))
  out
}
