// Plain data types shared by the engine, its instruction-set backends and the R glue. No
// Eigen here: these types must be identical in every translation unit, including the SIMD
// backend, which compiles the engine under other names (see src/backend_simd.cpp).
#pragma once
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

// Per-row results of predict(), in the working scale.
struct PosteriorOut {
  double* mean = nullptr;      // posterior mean of Theta
  double* variance = nullptr;  // posterior variance of Theta
  int* n_observed = nullptr;
  double* nll = nullptr;       // negative log marginal likelihood of the row's readings
  double* heads = nullptr;     // optional n x (2 + 3L) column-major: mu0, v0, w_1..L, a_1..L, c_1..L
};

struct AdamOptions {
  double learn_rate = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.0;
  double clip_norm = 0.0;  // <= 0: no clipping
  int batch_size = 256;
};

struct EpochResult {
  double train_loss = 0.0;  // mean of NLL + penalty over the epoch's rows
  double train_nll = 0.0;   // mean NLL over the epoch's rows
  bool interrupted = false;
  bool finite = true;
};

}  // namespace ncam_types
