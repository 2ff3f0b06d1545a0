// The engine's entry points behind a table of function pointers, one table per instruction
// set: the portable build (R's flags) and, on x86-64 with GCC, an AVX2+FMA build chosen at
// run time when the CPU has it.
//
// Rules of the two builds (checked by inst/tools/check-simd-isolation.sh, which R CMD check's
// tests and .ci/run both run on the installed library):
// - Only src/backend_portable.cpp and src/backend_simd.cpp include the engine
//   (ncam/backend_impl.hpp and what it includes). The R glue (src/ncam_glue.cpp) includes
//   only this header and reaches the engine only through a Backend table.
// - This header and types.hpp use no Eigen and only standard types: they are compiled the
//   same in every unit, before any target pragma.
// - Both backends first include ncam/std_headers.hpp, the one list of standard headers the
//   engine uses, so that in the SIMD unit every standard function is compiled before the
//   target pragma, with portable flags.
// - The SIMD unit renames the namespaces `ncam` and `Eigen` by macros around its include of
//   the engine and #undefs them right after, so its template instances are distinct symbols
//   and no portable code can silently name them. No function outside those renamed
//   namespaces may contain AVX instructions.
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
  // One epoch; train_nll is the mean NLL of the epoch's rows in model units.
  virtual ncam_types::EpochResult epoch(const std::function<bool()>& interrupted) = 0;
  // Mean NLL over rows (no penalty), in model units.
  virtual double nll_mean(const std::vector<int>& rows) = 0;
  virtual std::vector<double> params() const = 0;
};

// The training objective on the working scale: mean over rows of NLL + penalty, its gradient,
// and the NLL sum; for tests and benchmarks.
struct Objective {
  double loss = 0.0, nll_sum = 0.0;
  std::vector<double> gradient;
};

struct Backend {
  const char* name;
  // Every entry validates the spec (std::invalid_argument) before it allocates.
  FitState* (*new_fit_state)(const ncam_types::ModelSpec& spec, const ncam_types::DataView& data,
                             std::vector<int> train_rows, const ncam_types::AdamOptions& opt,
                             std::uint64_t seed, int threads, bool single_precision);
  // Posterior for every row of data, in model units; params must have n_params(spec) entries.
  void (*predict)(const ncam_types::ModelSpec& spec, const double* params, const ncam_types::DataView& data,
                  int threads, bool single_precision, const ncam_types::PosteriorOut& out);
  Objective (*objective)(const ncam_types::ModelSpec& spec, const double* params, const ncam_types::DataView& data,
                         const std::vector<int>& rows, int threads, bool single_precision);
  std::vector<double> (*init_params)(const ncam_types::ModelSpec& spec, std::uint64_t seed);
  ncam_types::ParamLayout (*layout)(const ncam_types::ModelSpec& spec);
  // GFLOP/s of C += A B (A: rows x depth, B: depth x cols) as this backend compiles it.
  double (*gemm_probe)(int rows, int depth, int cols, int reps, bool single_precision, int threads);
};

const Backend& portable_backend();
// The AVX2+FMA backend, or nullptr when this build or this CPU has none.
const Backend* simd_backend();

}  // namespace ncam_dispatch
