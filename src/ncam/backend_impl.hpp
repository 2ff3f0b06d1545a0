// The body of one backend: the engine's entry points for the dispatch table. Included once
// by backend_portable.cpp and once by backend_simd.cpp (which renames the namespaces `ncam`
// and `Eigen` so the two compilations of the templates never meet at link time).
#pragma once
#include <algorithm>
#include <chrono>
#include <memory>

#include "dispatch.hpp"
#include "trainer.hpp"

namespace ncam {
namespace backend {

template <typename T>
class FitStateT : public ncam_dispatch::FitState {
 public:
  FitStateT(const ModelSpec& spec, const DataView& data, std::vector<int> rows, const AdamOptions& opt,
            std::uint64_t seed, int threads)
      : trainer_(spec, data, std::move(rows), opt, seed, threads) {}
  EpochResult epoch(const std::function<bool()>& interrupted) override { return trainer_.epoch(interrupted); }
  double nll_mean(const std::vector<int>& rows) override {
    if (rows.empty()) return std::numeric_limits<double>::quiet_NaN();
    return trainer_.engine().nll_sum(trainer_.params().data(), rows.data(), static_cast<int>(rows.size())) /
           static_cast<double>(rows.size());
  }
  std::vector<double> params() const override {
    return std::vector<double>(trainer_.params().begin(), trainer_.params().end());
  }

 private:
  Trainer<T> trainer_;
};

inline ncam_dispatch::FitState* new_fit_state(const ModelSpec& spec, const DataView& data, std::vector<int> rows,
                                              const AdamOptions& opt, std::uint64_t seed, int threads,
                                              bool single_precision) {
  if (single_precision) return new FitStateT<float>(spec, data, std::move(rows), opt, seed, threads);
  return new FitStateT<double>(spec, data, std::move(rows), opt, seed, threads);
}

template <typename T>
void predict_as(const ModelSpec& spec, const double* params, const DataView& data, int threads,
                const PosteriorOut& out) {
  Model model(spec);
  const std::vector<T> p(params, params + model.n_params());
  Engine<T> engine(model, data, threads);
  engine.predict(p.data(), out);
}

inline void predict(const ModelSpec& spec, const double* params, const DataView& data, int threads,
                    bool single_precision, const PosteriorOut& out) {
  if (single_precision) {
    predict_as<float>(spec, params, data, threads, out);
  } else {
    predict_as<double>(spec, params, data, threads, out);
  }
}

// GFLOP/s of Eigen's C += A B on one shape: the practical roofline of the engine. With several
// threads each runs its own product on its own matrices at the same time, so the figure
// includes what the threads cost each other (shared caches, memory, clock).
template <typename T>
double gemm_probe_as(int rows, int depth, int cols, int reps, int threads) {
  threads = std::max(1, threads);
  double seconds = 0.0;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
  {
    Rng rng(1);
    Mat<T> a(rows, depth), b(depth, cols), c(rows, cols);
    for (Eigen::Index k = 0; k < a.size(); ++k) a.data()[k] = static_cast<T>(rng.uniform(-1, 1));
    for (Eigen::Index k = 0; k < b.size(); ++k) b.data()[k] = static_cast<T>(rng.uniform(-1, 1));
    c.noalias() = a * b;  // warm-up
#ifdef _OPENMP
#pragma omp barrier
#endif
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) c.noalias() += a * b;
#ifdef _OPENMP
#pragma omp barrier
#endif
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    volatile T sink = c(0, 0);  // keep the products
    (void)sink;
#ifdef _OPENMP
#pragma omp master
#endif
    seconds = s;
  }
  return 2.0 * rows * depth * static_cast<double>(cols) * reps * threads / seconds / 1e9;
}

inline double gemm_probe(int rows, int depth, int cols, int reps, bool single_precision, int threads) {
  return single_precision ? gemm_probe_as<float>(rows, depth, cols, reps, threads)
                          : gemm_probe_as<double>(rows, depth, cols, reps, threads);
}

}  // namespace backend
}  // namespace ncam
