// The body of one backend: the engine's entry points for the dispatch table. Included once
// by backend_portable.cpp and once by backend_simd.cpp (which renames the namespaces `ncam`
// and `Eigen` so the two compilations of the templates never meet at link time; see the
// rules at the top of dispatch.hpp).
#pragma once
#include "std_headers.hpp"

#include "dispatch.hpp"
#include "trainer.hpp"

namespace ncam {
namespace backend {

template <typename T>
class FitStateT : public ncam_dispatch::FitState {
 public:
  FitStateT(const ModelSpec& spec, const DataView& data, std::vector<int> rows, const AdamOptions& opt,
            std::uint64_t seed, int threads)
      : trainer_(spec, data, rows, opt, seed, threads) {
    // Every epoch visits every training row, so its NLL's unit offset is one constant.
    if (!rows.empty())
      train_units_offset_ = trainer_.engine().nll_units_offset(rows.data(), static_cast<int>(rows.size())) /
                            static_cast<double>(rows.size());
  }
  EpochResult epoch(const std::function<bool()>& interrupted) override {
    EpochResult res = trainer_.epoch(interrupted);
    res.train_nll += train_units_offset_;
    return res;
  }
  double nll_mean(const std::vector<int>& rows) override {
    if (rows.empty()) return std::numeric_limits<double>::quiet_NaN();
    const int n = static_cast<int>(rows.size());
    Engine<T>& engine = trainer_.engine();
    return (engine.nll_sum(trainer_.params().data(), rows.data(), n) + engine.nll_units_offset(rows.data(), n)) /
           static_cast<double>(n);
  }
  std::vector<double> params() const override {
    return std::vector<double>(trainer_.params().begin(), trainer_.params().end());
  }

 private:
  Trainer<T> trainer_;
  double train_units_offset_ = 0.0;
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
  engine.predict(p.data(), out, /*model_units=*/true);
}

inline void predict(const ModelSpec& spec, const double* params, const DataView& data, int threads,
                    bool single_precision, const PosteriorOut& out) {
  if (single_precision) {
    predict_as<float>(spec, params, data, threads, out);
  } else {
    predict_as<double>(spec, params, data, threads, out);
  }
}

template <typename T>
ncam_dispatch::Objective objective_as(const ModelSpec& spec, const double* params, const DataView& data,
                                      const std::vector<int>& rows, int threads) {
  Model model(spec);
  const std::vector<T> p(params, params + model.n_params());
  std::vector<T> grad(model.n_params());
  Engine<T> engine(model, data, threads);
  ncam_dispatch::Objective out;
  out.loss = engine.loss_grad(p.data(), rows.data(), static_cast<int>(rows.size()), grad.data(), &out.nll_sum);
  out.gradient.assign(grad.begin(), grad.end());
  return out;
}

inline ncam_dispatch::Objective objective(const ModelSpec& spec, const double* params, const DataView& data,
                                          const std::vector<int>& rows, int threads, bool single_precision) {
  return single_precision ? objective_as<float>(spec, params, data, rows, threads)
                          : objective_as<double>(spec, params, data, rows, threads);
}

inline std::vector<double> init_params(const ModelSpec& spec, std::uint64_t seed) {
  Model model(spec);
  std::vector<double> p(model.n_params());
  Rng rng(seed);
  model.initialise(p.data(), rng);
  return p;
}

inline ncam_types::ParamLayout layout(const ModelSpec& spec) {
  Model model(spec);
  ncam_types::ParamLayout out;
  auto describe = [](const char* name, const MlpLayout& l) {
    return ncam_types::HeadLayout{name, l.widths, l.w_offset, l.b_offset};
  };
  out.heads.push_back(describe("prior", model.prior()));
  out.heads.push_back(describe("reliability", model.reliability()));
  if (model.has_bias_head()) out.heads.push_back(describe("bias", model.bias()));
  out.n_params = model.n_params();
  out.n_free = model.n_free();
  return out;
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

// This build's dispatch table: a constant expression, so no code runs to build it (code that
// runs at load time must not be compiled for AVX2).
constexpr ncam_dispatch::Backend backend_table(const char* name) {
  return ncam_dispatch::Backend{name, &new_fit_state, &predict, &objective, &init_params, &layout, &gemm_probe};
}

}  // namespace backend
}  // namespace ncam
