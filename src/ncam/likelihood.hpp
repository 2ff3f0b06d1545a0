// Per-row NCAM marginal likelihood, its gradient with respect to the head outputs, and the
// closed-form posterior, in O(L) with missing readings (NaN) left out of the row's model.
// Model: Theta ~ N(mu0, exp(v0)); b_j = a_j Theta + c_j + N(0, exp(w_j)).
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ncam {

constexpr double kLog2Pi = 1.8378770664093454836;

struct RowPosterior {
  double mean;      // posterior mean of Theta
  double variance;  // posterior variance of Theta (1 / precision)
  int n_observed;   // sensors observed in the row
};

// Negative log marginal likelihood of the observed readings of one row:
//   NLL = 1/2 [ |O| log 2pi + sum_O w_j + v0 + log P + sum_O lambda_j r_j^2 - h^2 / P ]
// with r_j = b_j - c_j - a_j mu0, lambda_j = exp(-w_j), P = exp(-v0) + sum_O a_j^2 lambda_j,
// h = sum_O a_j lambda_j r_j (matrix determinant lemma + Sherman-Morrison).
// The precisions prior_precision = exp(-v0) and lambda_j = exp(-w_j) come from the caller,
// which computes them for a whole chunk of rows at once (see Model::transform_chunk).
// If grad_* are non-null they receive dNLL/d(head output); unobserved sensors get 0.
inline double row_nll_given_precisions(int n_sensors, const double* b, double mu0, double v0,
                                       double prior_precision, const double* w, const double* lambda,
                                       const double* a, const double* c, RowPosterior* post,
                                       double* grad_mu0 = nullptr, double* grad_v0 = nullptr,
                                       double* grad_w = nullptr, double* grad_a = nullptr,
                                       double* grad_c = nullptr) {
  double precision = prior_precision, h = 0.0, quad = 0.0, sum_w = 0.0;
  int n_obs = 0;
  for (int j = 0; j < n_sensors; ++j) {
    if (std::isnan(b[j])) continue;
    const double r = b[j] - c[j] - a[j] * mu0;
    precision += a[j] * a[j] * lambda[j];
    h += a[j] * lambda[j] * r;
    quad += lambda[j] * r * r;
    sum_w += w[j];
    ++n_obs;
  }
  const double shift = h / precision;  // mu_post - mu0
  const double mu_post = mu0 + shift;
  // No reading: the row's likelihood is 1 (v0 + log exp(-v0) = 0), exactly, whatever the
  // rounding of the precision.
  const double nll = n_obs == 0 ? 0.0 : 0.5 * (n_obs * kLog2Pi + sum_w + v0 + std::log(precision) + quad - h * shift);
  if (post != nullptr) *post = RowPosterior{mu_post, 1.0 / precision, n_obs};
  if (grad_mu0 != nullptr) {
    // Fisher's identity: gradient = posterior expectation of the complete-data gradient.
    const double var_post = 1.0 / precision;
    *grad_mu0 = -shift * prior_precision;
    *grad_v0 = 0.5 * (1.0 - (shift * shift + var_post) * prior_precision);
    for (int j = 0; j < n_sensors; ++j) {
      if (std::isnan(b[j])) {
        grad_w[j] = grad_a[j] = grad_c[j] = 0.0;
        continue;
      }
      const double e = b[j] - c[j] - a[j] * mu_post;
      grad_a[j] = lambda[j] * (a[j] * var_post - mu_post * e);
      grad_c[j] = -lambda[j] * e;
      grad_w[j] = 0.5 * (1.0 - lambda[j] * (e * e + a[j] * a[j] * var_post));
    }
  }
  return nll;
}

// How much one row's observed readings disagree beyond their noise. Each reading put on the
// scale of Theta, z_j = (b_j - c_j) / a_j, has variance v_j = exp(w_j) / a_j^2 around it; with
// weights 1 / v_j = a_j^2 lambda_j and zbar their weighted mean, Q = sum_O (z_j - zbar)^2 / v_j,
// which under the model is chi-square with k - 1 degrees of freedom for k readings, whatever
// Theta is. Returns Q / (k - 1), NaN for k < 2. One pass about `centre` (the posterior mean:
// near zbar, so that the difference below loses few digits): with r_j = b_j - c_j - a_j centre =
// a_j (z_j - centre), Q = sum lambda_j r_j^2 - (sum a_j lambda_j r_j)^2 / sum a_j^2 lambda_j. In
// terms of r_j it holds also for a gain that underflows to 0: that reading's residual then
// counts with its noise alone, as in the limit.
inline double row_disagreement(int n_sensors, const double* b, const double* lambda, const double* a,
                               const double* c, double centre) {
  double weight = 0.0, h = 0.0, quad = 0.0;
  int k = 0;
  for (int j = 0; j < n_sensors; ++j) {
    if (std::isnan(b[j])) continue;
    const double r = b[j] - c[j] - a[j] * centre;
    weight += a[j] * a[j] * lambda[j];
    h += a[j] * lambda[j] * r;
    quad += lambda[j] * r * r;
    ++k;
  }
  if (k < 2) return std::numeric_limits<double>::quiet_NaN();
  const double q = weight > 0.0 ? quad - h * h / weight : quad;
  return std::max(q, 0.0) / (k - 1);
}

// The same from the log-variances alone (the precisions computed here).
inline double row_nll(int n_sensors, const double* b, double mu0, double v0, const double* w, const double* a,
                      const double* c, RowPosterior* post, double* grad_mu0 = nullptr, double* grad_v0 = nullptr,
                      double* grad_w = nullptr, double* grad_a = nullptr, double* grad_c = nullptr) {
  std::vector<double> lambda(n_sensors);
  for (int j = 0; j < n_sensors; ++j) lambda[j] = std::exp(-w[j]);
  return row_nll_given_precisions(n_sensors, b, mu0, v0, std::exp(-v0), w, lambda.data(), a, c, post, grad_mu0,
                                  grad_v0, grad_w, grad_a, grad_c);
}

}  // namespace ncam
