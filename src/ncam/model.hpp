// The NCAM network: three MLP heads of the covariates.
//   prior head       -> mu0, raw log s0^2
//   reliability head -> raw log sigma_j^2 for every sensor
//   bias head        -> raw gains u_j and offsets v_j for the free sensors
// Anchored: the anchor has a = 1, c = 0 and no outputs; no_bias: no bias head (all a = 1, c = 0).
// Log-variances are hard-clamped to [logvar_min, logvar_max] (zero gradient outside). Each
// sensor's heads are relative to its level (ModelSpec::sensor_gain, sensor_offset): a_j =
// gain_j softplus(u_j), c_j = offset_j + gain_j v_j, w_j = 2 log(gain_j) + clamped raw w_j.
// With ModelSpec::constant_anchor_noise the anchor's noise output has its weights held at 0.
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
    if (spec.constant_anchor_noise && spec.parameterization != Parameterization::anchored)
      throw std::invalid_argument("a constant anchor noise needs an anchor");
    for (int j = 0; j < spec.n_sensors; ++j) {
      const bool is_free = spec.parameterization == Parameterization::unanchored ||
                           (spec.parameterization == Parameterization::anchored && j != spec.anchor);
      if (is_free) free_index_[j] = n_free_++;
    }
    check_sensor_levels();
    for (double gain : spec.sensor_gain) logvar_shift_.push_back(2.0 * std::log(gain));
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
  // (the working scale centres on the anchor) and each free sensor at its level (softplus(u_j)
  // = 1, v_j = 0: a_j = gain_j, c_j = offset_j): Adam moves an output bias by about the learning
  // rate per step, so a level many working units away is never reached from elsewhere.
  template <typename T>
  void initialise(T* params, Rng& rng) const {
    prior_.initialise(params, rng);
    reliability_.initialise(params, rng);
    hold_constant_outputs(params);
    if (spec_.constant_anchor_noise && std::isfinite(spec_.anchor_noise_start))
      params[reliability_.b_offset[reliability_.n_layers() - 1] + spec_.anchor] = static_cast<T>(spec_.anchor_noise_start);
    if (has_bias_head()) bias_.initialise(params, rng);
    const int last = prior_.n_layers() - 1;
    params[prior_.b_offset[last]] = T(0);
    if (!has_bias_head()) return;
    const double raw_gain = std::log(std::expm1(1.0));  // softplus^-1(1)
    for (int f = 0; f < n_free_; ++f) {
      params[bias_.b_offset[last] + f] = static_cast<T>(raw_gain);
      params[bias_.b_offset[last] + n_free_ + f] = T(0);
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
    for (std::size_t j = 0; j < logvar_shift_.size(); ++j) h.w.row(j).head(k) += logvar_shift_[j];
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
      const double gain = sensor_gain(j);
      h.a.row(j).head(k) = gain * value.template cast<double>().transpose();
      value = T(1) / (T(1) + (-u).exp());
      h.da.row(j).head(k) = gain * value.template cast<double>().transpose();
      h.c.row(j).head(k) = sensor_offset(j) + gain * bias_out.row(n_free_ + f).head(k).template cast<double>().array();
    }
  }

  // Zeroes the entries of `v` (the parameters, or a gradient) that the spec holds at 0: with
  // constant_anchor_noise, the weights into the anchor's output of the reliability head.
  template <typename T>
  void hold_constant_outputs(T* v) const {
    if (!spec_.constant_anchor_noise) return;
    const int last = reliability_.n_layers() - 1;
    const int n_out = reliability_.widths[last + 1], n_in = reliability_.widths[last];
    for (int col = 0; col < n_in; ++col)
      v[reliability_.w_offset[last] + spec_.anchor + static_cast<std::size_t>(col) * n_out] = T(0);
  }

  int free_index(int j) const { return free_index_[j]; }
  // Sensor j's level (see ModelSpec::sensor_gain): its gain, offset and the shift of its noise
  // log-variance, 2 log(gain).
  double sensor_gain(int j) const { return spec_.sensor_gain.empty() ? 1.0 : spec_.sensor_gain[j]; }
  double sensor_offset(int j) const { return spec_.sensor_offset.empty() ? 0.0 : spec_.sensor_offset[j]; }
  double logvar_shift(int j) const { return logvar_shift_.empty() ? 0.0 : logvar_shift_[j]; }
  bool in_clamp(double raw) const { return raw >= spec_.logvar_min && raw <= spec_.logvar_max; }
  // -1 for a raw log-variance the clamp raises to logvar_min, 1 for one it lowers to
  // logvar_max, 0 for one it leaves (NaN included).
  int clamp_side(double raw) const { return raw < spec_.logvar_min ? -1 : (raw > spec_.logvar_max ? 1 : 0); }

 private:
  // One entry per sensor or none; gains positive and finite, offsets finite; a fixed sensor's
  // gain 1 and offset 0.
  void check_sensor_levels() const {
    const std::size_t n = spec_.sensor_gain.size();
    if (n != spec_.sensor_offset.size() || (n != 0 && n != static_cast<std::size_t>(spec_.n_sensors)))
      throw std::invalid_argument("sensor gains and offsets need one entry per sensor");
    for (std::size_t j = 0; j < n; ++j) {
      const double gain = spec_.sensor_gain[j], offset = spec_.sensor_offset[j];
      if (!(gain > 0) || !std::isfinite(gain) || !std::isfinite(offset))
        throw std::invalid_argument("sensor gains must be positive and finite, offsets finite");
      if (free_index_[j] < 0 && (gain != 1.0 || offset != 0.0))
        throw std::invalid_argument("a fixed sensor's gain must be 1 and its offset 0");
    }
  }

  ModelSpec spec_;
  std::vector<int> free_index_;
  std::vector<double> logvar_shift_;  // 2 log(sensor_gain), or empty
  int n_free_ = 0;
  MlpLayout prior_, reliability_, bias_;
  std::size_t n_params_ = 0;
};

}  // namespace ncam
