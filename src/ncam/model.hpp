// The NCAM network: three MLP heads of the covariates.
//   prior head       -> mu0, raw log s0^2
//   reliability head -> raw log sigma_j^2 for every sensor
//   bias head        -> raw gains u_j (a_j = softplus(u_j)) and offsets c_j for the free sensors
// Anchored: the anchor has a = 1, c = 0 and no outputs; no_bias: no bias head (all a = 1, c = 0).
// Log-variances are hard-clamped to [logvar_min, logvar_max] (zero gradient outside).
#pragma once
#include <cmath>
#include <stdexcept>
#include <vector>

#include "mlp.hpp"
#include "types.hpp"

namespace ncam {

using ncam_types::ModelSpec;
using ncam_types::Parameterization;

inline double clamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

// Head outputs of one row after the output transforms, in the working (standardised) scale.
struct RowHeads {
  double mu0 = 0, v0 = 0;
  std::vector<double> w, a, c;
  std::vector<double> da;  // d a_j / d(raw gain) = sigmoid(raw gain); 0 for fixed gains
  explicit RowHeads(int n_sensors) : w(n_sensors), a(n_sensors), c(n_sensors), da(n_sensors) {}
};

class Model {
 public:
  explicit Model(const ModelSpec& spec) : spec_(spec), free_index_(spec.n_sensors, -1) {
    if (spec.n_sensors < 1) throw std::invalid_argument("need at least one sensor");
    if (spec.parameterization == Parameterization::anchored &&
        (spec.anchor < 0 || spec.anchor >= spec.n_sensors))
      throw std::invalid_argument("anchor out of range");
    for (int j = 0; j < spec.n_sensors; ++j) {
      const bool is_free = spec.parameterization == Parameterization::unanchored ||
                           (spec.parameterization == Parameterization::anchored && j != spec.anchor);
      if (is_free) free_index_[j] = n_free_++;
    }
    prior_ = MlpLayout(spec.n_covariates, spec.hidden, 2, 0);
    reliability_ = MlpLayout(spec.n_covariates, spec.hidden, spec.n_sensors, prior_.end);
    bias_ = MlpLayout(spec.n_covariates, spec.hidden, 2 * n_free_, reliability_.end);
    n_params_ = has_bias_head() ? bias_.end : reliability_.end;
  }

  const ModelSpec& spec() const { return spec_; }
  std::size_t n_params() const { return n_params_; }
  int n_free() const { return n_free_; }
  bool has_bias_head() const { return n_free_ > 0; }
  const MlpLayout& prior() const { return prior_; }
  const MlpLayout& reliability() const { return reliability_; }
  const MlpLayout& bias() const { return bias_; }

  // PyTorch-style initialisation, then output biases so that training starts from
  // mu0 = 0 (the working scale centres on the anchor), a_j = 1 and c_j = 0.
  template <typename T>
  void initialise(T* params, Rng& rng) const {
    prior_.initialise(params, rng);
    reliability_.initialise(params, rng);
    if (has_bias_head()) bias_.initialise(params, rng);
    const int last = prior_.n_layers() - 1;
    params[prior_.b_offset[last]] = T(0);
    if (has_bias_head()) {
      const double softplus_inv_one = std::log(std::exp(1.0) - 1.0);
      for (int f = 0; f < n_free_; ++f) {
        params[bias_.b_offset[last] + f] = static_cast<T>(softplus_inv_one);
        params[bias_.b_offset[last] + n_free_ + f] = T(0);
      }
    }
  }

  // Output transforms for row i of the raw head outputs.
  template <typename P, typename R, typename B>
  void transform(const P& prior_out, const R& rel_out, const B& bias_out, int i, RowHeads& h) const {
    h.mu0 = prior_out(0, i);
    h.v0 = clamp(prior_out(1, i), spec_.logvar_min, spec_.logvar_max);
    for (int j = 0; j < spec_.n_sensors; ++j) {
      h.w[j] = clamp(rel_out(j, i), spec_.logvar_min, spec_.logvar_max);
      const int f = free_index_[j];
      if (f >= 0) {
        // softplus and its derivative (the sigmoid) from one exponential.
        const double u = bias_out(f, i);
        const double e = std::exp(-std::fabs(u));
        h.a[j] = (u > 0 ? u : 0.0) + std::log1p(e);
        h.da[j] = u >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
        h.c[j] = bias_out(n_free_ + f, i);
      } else {
        h.a[j] = 1.0;
        h.da[j] = 0.0;
        h.c[j] = 0.0;
      }
    }
  }

  int free_index(int j) const { return free_index_[j]; }
  bool in_clamp(double raw) const { return raw >= spec_.logvar_min && raw <= spec_.logvar_max; }

 private:
  ModelSpec spec_;
  std::vector<int> free_index_;
  int n_free_ = 0;
  MlpLayout prior_, reliability_, bias_;
  std::size_t n_params_ = 0;
};

}  // namespace ncam
