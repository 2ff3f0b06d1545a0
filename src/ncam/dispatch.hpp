// The engine's entry points behind a table of function pointers, one table per instruction
// set: the portable build (R's flags) and, on x86-64 with GCC, an AVX2+FMA build chosen at
// run time when the CPU has it. No Eigen here (see types.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "types.hpp"

namespace ncam_dispatch {

// Training state of one fit, owned by the R glue for the duration of the epoch loop.
class FitState {
 public:
  virtual ~FitState() = default;
  virtual ncam_types::EpochResult epoch(const std::function<bool()>& interrupted) = 0;
  virtual double nll_mean(const std::vector<int>& rows) = 0;  // mean NLL over rows (no penalty)
  virtual std::vector<double> params() const = 0;
};

struct Backend {
  const char* name;
  FitState* (*new_fit_state)(const ncam_types::ModelSpec& spec, const ncam_types::DataView& data,
                             std::vector<int> train_rows, const ncam_types::AdamOptions& opt,
                             std::uint64_t seed, int threads, bool single_precision);
  // Posterior for every row of data; params has the model's length (checked by the caller).
  void (*predict)(const ncam_types::ModelSpec& spec, const double* params, const ncam_types::DataView& data,
                  int threads, bool single_precision, const ncam_types::PosteriorOut& out);
  // GFLOP/s of C += A B (A: rows x depth, B: depth x cols) as this backend compiles it.
  double (*gemm_probe)(int rows, int depth, int cols, int reps, bool single_precision, int threads);
};

const Backend& portable_backend();
// The AVX2+FMA backend, or nullptr when this build or this CPU has none.
const Backend* simd_backend();

}  // namespace ncam_dispatch
