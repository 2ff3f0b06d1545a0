// Plain data types shared by the engine, its instruction-set backends and the R glue. No
// Eigen here: these types must be identical in every translation unit, including the SIMD
// backend, which compiles the engine under other names (see src/backend_simd.cpp).
#pragma once
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace ncam_types {

enum class Parameterization { anchored = 0, unanchored = 1, no_bias = 2 };

struct ModelSpec {
  int n_covariates = 0;
  int n_sensors = 0;
  std::vector<int> hidden;
  Parameterization parameterization = Parameterization::anchored;
  int anchor = 0;  // 0-based sensor index (anchored only)
  double logvar_min = -5.0, logvar_max = 4.0;
  double lambda_prior = 0.0, lambda_sensor = 0.0;  // variance penalty weights
  // Per sensor, the level its heads are relative to on the working scale, as if its readings
  // were first converted to the anchor's units by b* = (b - offset) / gain: gain a_j = gain_j
  // softplus(u_j), offset c_j = offset_j + gain_j v_j and noise log-variance w_j = 2 log(gain_j)
  // + clamp(raw_j, logvar_min, logvar_max), the penalty acting on w_j - 2 log(gain_j). So a
  // raw signal at 1000 times the anchor's spread trains like that sensor in the anchor's units.
  // Empty: gain 1 and offset 0 for every sensor; fixed sensors (the anchor, no_bias) must have
  // those.
  std::vector<double> sensor_gain, sensor_offset;
  // Anchored only: the anchor's noise log-variance is one learned constant, not a function of
  // the covariates (its output weights in the reliability head are held at 0, so the output is
  // that layer's bias). For a reference instrument, whose noise the covariates should not
  // drive, learned from the few rows where it reads.
  bool constant_anchor_noise = false;
  // With constant_anchor_noise, where that constant starts: a log-variance on the working scale
  // (NaN: where the initialisation puts it). Adam moves it by about the learning rate per
  // step, so a start far from the data's value is never left in a short fit.
  double anchor_noise_start = std::numeric_limits<double>::quiet_NaN();
};

// n rows of p covariates and L sensor readings (NaN = missing), one pointer per column, so the
// columns can be a matrix's or a data frame's, read in place; plus the affine maps into the
// working scale: x' = (x - x_center) / x_scale, b' = (b - b_shift) / b_scale.
struct DataView {
  std::vector<const double*> x, b;  // x[q][i]: covariate q of row i; b[j][i]: sensor j
  int n_rows = 0;
  std::vector<double> x_center, x_scale;
  double b_shift = 0.0, b_scale = 1.0;
};

// The readings' working scale in both directions, in one place: the engine computes on
// b' = (b - shift) / scale, and every per-row result leaves the backend in the readings'
// own units (the "model units": log units when R fits log readings). With Theta' the
// working-scale value, Theta = shift + scale Theta'; a sensor's gain is unchanged and its
// offset becomes scale c' + shift (1 - a); variances gain scale^2, log-variances 2 log(scale);
// a row's NLL gains |O| log(scale) for its |O| readings (the Jacobian of the map).
struct ReadingScale {
  double shift = 0.0, scale = 1.0;
  explicit ReadingScale(const DataView& d) : shift(d.b_shift), scale(d.b_scale) {}
  double to_working(double b) const { return (b - shift) / scale; }
  double value_to_units(double v) const { return shift + scale * v; }
  double variance_to_units(double v) const { return scale * scale * v; }
  double log_variance_to_units(double v) const { return v + 2.0 * std::log(scale); }
  double offset_to_units(double c, double a) const { return scale * c + shift * (1.0 - a); }
  double nll_to_units(double nll, int n_observed) const { return nll + n_observed * std::log(scale); }
};

// Columns (0-based) of the per-row head outputs, PosteriorOut::heads: the one definition of
// that layout (the glue splits it into R's vectors and matrices, see ncam_predict_cpp()).
struct HeadColumns {
  int n_sensors = 0;
  int prior_mean() const { return 0; }
  int prior_log_variance() const { return 1; }
  int noise_log_variance(int j) const { return 2 + j; }
  int gain(int j) const { return 2 + n_sensors + j; }
  int offset(int j) const { return 2 + 2 * n_sensors + j; }
  int count() const { return 2 + 3 * n_sensors; }
};

// Per-row results of predict(): in the working scale from the Engine, in model units from a
// backend (see ReadingScale).
// Rows per call of the backend's predict() from the R glue, which checks for a user interrupt
// between blocks. A multiple of the engine's chunk (static_assert in engine.hpp), so that
// blocks leave every row's arithmetic as in one call over all rows.
constexpr int kPredictBlockRows = 1 << 15;

struct PosteriorOut {
  double* mean = nullptr;      // posterior mean of Theta
  double* variance = nullptr;  // posterior variance of Theta
  int* n_observed = nullptr;
  double* nll = nullptr;       // negative log marginal likelihood of the row's readings
  double* heads = nullptr;     // optional n x HeadColumns::count(), column-major
  // Optional n x n_sensors, column-major: per row and sensor, where the raw noise log-variance
  // lies against the clamp (Model::clamp_side: -1 below logvar_min, 1 above logvar_max, 0
  // inside or on a bound, and for a row with a missing covariate), non-zero exactly where the
  // clamp sets the value. The clamp acts relative to the sensor's level (ModelSpec::sensor_gain).
  int* noise_clamp = nullptr;
  // Optional n: the noise log-variance of sensor `noise_sensor` alone, for a caller that needs
  // one sensor's noise (a prediction interval, the anchor's) and not the n x
  // HeadColumns::count() of `heads`.
  double* noise_log_variance = nullptr;
  int noise_sensor = 0;
  // Optional n: 1 where every head output is finite, the variances taken as exp() of the
  // log-variances, else 0 (also for a row with a missing covariate). A row's posterior can be
  // finite beside a head that is not: a gain that overflows where its sensor has no reading.
  int* heads_finite = nullptr;
  // Optional n: how much the row's readings disagree beyond their noise, Q / (k - 1) for its k
  // readings (row_disagreement() in likelihood.hpp; NaN for k < 2 and for a row with a missing
  // covariate). Q does not depend on the working scale, so it is the same in model units.
  double* disagreement = nullptr;
};

// Where each head's weights sit in the flat parameter vector (see mlp.hpp).
struct HeadLayout {
  std::string name;
  std::vector<int> widths;              // input, hidden..., output
  std::vector<std::size_t> w_offset;    // per layer: weight matrix (out x in, column-major)
  std::vector<std::size_t> b_offset;    // per layer: bias vector
};

struct ParamLayout {
  std::vector<HeadLayout> heads;
  std::size_t n_params = 0;
  int n_free = 0;  // sensors with a learned gain and offset
};

struct AdamOptions {
  double learn_rate = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.0;
  double clip_norm = 0.0;  // <= 0: no clipping
  int batch_size = 256;
  // Time batches at the given thread count and at one thread and use the faster (see
  // thread_chooser.hpp); false keeps the given count throughout.
  bool adapt_threads = true;
};

struct EpochResult {
  double train_loss = 0.0;  // mean of NLL + penalty over the epoch's rows
  double train_nll = 0.0;   // mean NLL over the epoch's rows
  bool interrupted = false;
  bool finite = true;
};

}  // namespace ncam_types
