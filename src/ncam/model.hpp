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

// Scratch arrays for the gain transform (no allocation per chunk).
template <typename T>
struct GainScratch {
  Eigen::Array<T, Eigen::Dynamic, 1> u, e, one_plus_e, value;
  explicit GainScratch(int max_rows) : u(max_rows), e(max_rows), one_plus_e(max_rows), value(max_rows) {}
};

// Head outputs of a chunk of rows after the output transforms, in the working (standardised)
// scale and double precision: per row i, mu0, the clamped log prior variance v0 and its
// precision exp(-v0); per sensor j and row i (column-major, so a row's sensors are
// contiguous), the clamped log noise variance w, its precision exp(-w), the gain a with its
// derivative da = d a / d(raw gain) (0 for fixed gains), and the offset c.
struct ChunkHeads {
  Eigen::ArrayXd mu0, v0, prior_precision;
  Eigen::ArrayXXd w, lambda, a, da, c;
  ChunkHeads(int n_sensors, int max_rows)
      : mu0(max_rows), v0(max_rows), prior_precision(max_rows), w(n_sensors, max_rows),
        lambda(n_sensors, max_rows), a(n_sensors, max_rows), da(n_sensors, max_rows), c(n_sensors, max_rows) {}
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

  // PyTorch-style initialisation, then output biases so that training starts from mu0 = 0
  // (the working scale centres on the anchor) and each free sensor's gain and offset at
  // `start` (default a_j = 1, c_j = 0): Adam moves an output bias by about the learning rate
  // per step, so an offset many working units away is never reached from 0.
  template <typename T>
  void initialise(T* params, Rng& rng, const ncam_types::HeadStart& start = ncam_types::HeadStart()) const {
    prior_.initialise(params, rng);
    reliability_.initialise(params, rng);
    if (has_bias_head()) bias_.initialise(params, rng);
    const int last = prior_.n_layers() - 1;
    params[prior_.b_offset[last]] = T(0);
    if (!has_bias_head()) return;
    const bool given = !start.gain.empty();
    if (given && (start.gain.size() != static_cast<std::size_t>(spec_.n_sensors) ||
                  start.offset.size() != static_cast<std::size_t>(spec_.n_sensors)))
      throw std::invalid_argument("start gains and offsets need one entry per sensor");
    for (int j = 0; j < spec_.n_sensors; ++j) {
      const int f = free_index_[j];
      if (f < 0) continue;
      const double gain = given ? start.gain[j] : 1.0;
      const double offset = given ? start.offset[j] : 0.0;
      if (!(gain > 0) || !std::isfinite(gain) || !std::isfinite(offset))
        throw std::invalid_argument("start gains must be positive and finite, offsets finite");
      // softplus^-1(a) = log(expm1(a)), and a itself where expm1 would overflow.
      const double raw_gain = gain > 30.0 ? gain + std::log1p(-std::exp(-gain)) : std::log(std::expm1(gain));
      params[bias_.b_offset[last] + f] = static_cast<T>(raw_gain);
      params[bias_.b_offset[last] + n_free_ + f] = static_cast<T>(offset);
    }
  }

  // Output transforms of the first k rows of the raw head outputs, as whole-array operations
  // (vectorised exp and log instead of scalar calls per row). Gains: a = softplus(u) =
  // max(u, 0) + log1p(exp(-|u|)) and da = sigmoid(u) = 1 / (1 + exp(-u)), in the network's
  // precision T, with log1p(e) = log(1 + e) - ((1 + e) - 1 - e) / (1 + e), accurate also for
  // tiny e.
  template <typename T, typename P, typename R, typename B>
  void transform_chunk(const P& prior_out, const R& rel_out, const B& bias_out, int k, ChunkHeads& h,
                       GainScratch<T>& scratch) const {
    const double lo = spec_.logvar_min, hi = spec_.logvar_max;
    h.mu0.head(k) = prior_out.row(0).head(k).transpose().template cast<double>().array();
    h.v0.head(k) = prior_out.row(1).head(k).transpose().template cast<double>().array().max(lo).min(hi);
    h.prior_precision.head(k) = (-h.v0.head(k)).exp();
    h.w.leftCols(k) = rel_out.leftCols(k).template cast<double>().array().max(lo).min(hi);
    h.lambda.leftCols(k) = (-h.w.leftCols(k)).exp();
    for (int j = 0; j < spec_.n_sensors; ++j) {
      const int f = free_index_[j];
      if (f < 0) {
        h.a.row(j).head(k).setOnes();
        h.da.row(j).head(k).setZero();
        h.c.row(j).head(k).setZero();
        continue;
      }
      // Each array expression is evaluated in T first: Eigen vectorises exp and log only in
      // expressions without a cast, so the conversion to double is a separate copy.
      auto u = scratch.u.head(k);
      auto e = scratch.e.head(k);
      auto one_plus_e = scratch.one_plus_e.head(k);
      auto value = scratch.value.head(k);
      u = bias_out.row(f).head(k).transpose().array();
      e = (-u.abs()).exp();
      one_plus_e = T(1) + e;
      value = u.max(T(0)) + one_plus_e.log() - ((one_plus_e - T(1)) - e) / one_plus_e;
      h.a.row(j).head(k) = value.template cast<double>().transpose();
      value = T(1) / (T(1) + (-u).exp());
      h.da.row(j).head(k) = value.template cast<double>().transpose();
      h.c.row(j).head(k) = bias_out.row(n_free_ + f).head(k).template cast<double>().array();
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
