// Batched evaluation of the NCAM objective over rows of a data set held in caller-owned
// memory (column-major, no copies), with OpenMP over fixed-size row chunks. Chunks are
// reduced in a fixed order, so results do not depend on the number of threads.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "likelihood.hpp"
#include "model.hpp"

namespace ncam {

using ncam_types::DataView;
using ncam_types::HeadColumns;
using ncam_types::PosteriorOut;
using ncam_types::ReadingScale;

constexpr int kChunkRows = 128;
static_assert(ncam_types::kPredictBlockRows % kChunkRows == 0, "predict blocks must hold whole chunks");

template <typename T>
class Engine {
 public:
  Engine(const Model& model, const DataView& data, int n_threads)
      : model_(model), data_(data), reading_scale_(data), max_threads_(std::max(1, n_threads)),
        n_threads_(max_threads_) {
    for (int t = 0; t < max_threads_; ++t) workspaces_.emplace_back(new Workspace(model_));
  }

  const Model& model() const { return model_; }
  // Threads of the next parallel region: any count from 1 to the one given at construction
  // (one workspace each); results do not depend on it.
  int n_threads() const { return n_threads_; }
  void set_threads(int n_threads) { n_threads_ = std::min(max_threads_, std::max(1, n_threads)); }

  // Mean over `rows` of NLL + variance penalty; its gradient goes to `grad` (size n_params).
  // Also returns the plain NLL sum through nll_sum when non-null.
  // Rows must have complete covariates (the caller filters them).
  double loss_grad(const T* params, const int* rows, int n_rows, T* grad, double* nll_sum = nullptr) {
    if (n_rows <= 0) {
      last_n_chunks_ = 0;
      if (grad != nullptr) std::fill(grad, grad + model_.n_params(), T(0));
      if (nll_sum != nullptr) *nll_sum = 0.0;
      return 0.0;
    }
    const int n_chunks = begin_gradient_pass(n_rows);
#ifdef _OPENMP
#pragma omp parallel num_threads(n_threads_) if (n_chunks > 1)
#endif
    gradient_chunks(params, rows);
    reduce_chunks(n_chunks, grad);
    return pass_loss(nll_sum);
  }

  // A gradient pass in three steps, so that a caller can run the chunks inside a parallel
  // region of its own (the trainer runs its update in the same region):
  // begin_gradient_pass() (outside any parallel region) sets up the chunks of n_rows rows;
  int begin_gradient_pass(int n_rows) {
    const int n_chunks = (n_rows + kChunkRows - 1) / kChunkRows;
    if (chunk_grads_.size() < static_cast<std::size_t>(n_chunks)) chunk_grads_.resize(n_chunks);
    for (int c = 0; c < n_chunks; ++c) chunk_grads_[c].resize(model_.n_params());  // overwritten by the pass
    chunk_loss_.assign(n_chunks, 0.0);
    chunk_nll_.assign(n_chunks, 0.0);
    pass_rows_ = n_rows;
    last_n_chunks_ = n_chunks;
    return n_chunks;
  }

  // gradient_chunks() evaluates them: inside a parallel region every thread calls it and the
  // chunks are shared out (an orphaned omp for, with its barrier at the end); outside one
  // the calling thread does them all. Chunks go to whichever thread is free (a chunk's result
  // does not depend on the thread), so a thread slowed by another process takes fewer.
  void gradient_chunks(const T* params, const int* rows) {
    const int n_chunks = last_n_chunks_;
    const double scale = 1.0 / pass_rows_;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (int c = 0; c < n_chunks; ++c) {
      const int begin = c * kChunkRows, m = std::min(kChunkRows, pass_rows_ - begin);
      chunk_loss_[c] = evaluate_chunk(params, rows + begin, m, scale, chunk_grads_[c].data(), &chunk_nll_[c], nullptr);
    }
  }

  // pass_loss() is the mean loss (and through nll_sum the NLL sum), summed in chunk order:
  // the same on every thread that calls it.
  double pass_loss(double* nll_sum) const {
    double loss = 0.0, nll = 0.0;
    for (int c = 0; c < last_n_chunks_; ++c) {
      loss += chunk_loss_[c];
      nll += chunk_nll_[c];
    }
    if (nll_sum != nullptr) *nll_sum = nll;
    return loss * (1.0 / pass_rows_);
  }

  // Per-chunk gradients of the last gradient pass; their sum in chunk order is the gradient.
  const std::vector<AlignedVector<T>>& chunk_gradients() const { return chunk_grads_; }
  int last_n_chunks() const { return last_n_chunks_; }

  // Sum over `rows` of the NLL (no penalty).
  double nll_sum(const T* params, const int* rows, int n_rows) {
    const int n_chunks = (n_rows + kChunkRows - 1) / kChunkRows;
    std::vector<double> chunk_nll(n_chunks, 0.0);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 4) num_threads(n_threads_) if (n_chunks > 1)
#endif
    for (int c = 0; c < n_chunks; ++c) {
      const int begin = c * kChunkRows, m = std::min(kChunkRows, n_rows - begin);
      evaluate_chunk(params, rows + begin, m, 0.0, nullptr, &chunk_nll[c], nullptr);
    }
    double total = 0.0;
    for (double v : chunk_nll) total += v;
    return total;
  }

  // Sum over `rows` of what turns their working-scale NLL into the NLL in model units.
  double nll_units_offset(const int* rows, int n_rows) const {
    double total = 0.0;
    for (int r = 0; r < n_rows; ++r) {
      int n_observed = 0;
      for (const double* col : data_.b) n_observed += !std::isnan(col[rows[r]]);
      total += reading_scale_.nll_to_units(0.0, n_observed);
    }
    return total;
  }

  // Posterior (and the optional outputs of PosteriorOut) for every row of the data, in the
  // working scale, or with model_units in the readings' units (see ReadingScale); rows with a
  // missing covariate get NaN.
  void predict(const T* params, const PosteriorOut& out, bool model_units = false) {
    if (out.noise_log_variance != nullptr && (out.noise_sensor < 0 || out.noise_sensor >= model_.spec().n_sensors))
      throw std::invalid_argument("noise_sensor out of range");
    model_units_ = model_units;
    const int n = data_.n_rows;
    const int n_chunks = (n + kChunkRows - 1) / kChunkRows;
    // Chunks go to whichever thread is free (each writes only its own rows), so a thread
    // that shares its core with another program takes fewer instead of holding up the rest.
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 4) num_threads(n_threads_) if (n_chunks > 1)
#endif
    for (int c = 0; c < n_chunks; ++c) {
      int rows[kChunkRows];
      const int begin = c * kChunkRows, m = std::min(kChunkRows, n - begin);
      for (int r = 0; r < m; ++r) rows[r] = begin + r;
      evaluate_chunk(params, rows, m, 0.0, nullptr, nullptr, &out);
    }
  }

 private:
  struct Workspace {
    Mat<T> x;
    std::vector<double> b;
    MlpWorkspace<T> prior, reliability, bias;
    Mat<T> d_prior, d_reliability, d_bias;
    ChunkHeads heads;
    GainScratch<T> gain_scratch;
    std::vector<double> g_w, g_a, g_c;
    std::vector<int> valid;
    explicit Workspace(const Model& model)
        : x(model.spec().n_covariates, kChunkRows),
          b(static_cast<std::size_t>(kChunkRows) * model.spec().n_sensors),
          prior(model.prior(), kChunkRows),
          reliability(model.reliability(), kChunkRows),
          bias(model.bias(), kChunkRows),
          d_prior(2, kChunkRows),
          d_reliability(model.spec().n_sensors, kChunkRows),
          d_bias(2 * model.n_free(), kChunkRows),
          heads(model.spec().n_sensors, kChunkRows),
          gain_scratch(kChunkRows),
          g_w(model.spec().n_sensors),
          g_a(model.spec().n_sensors),
          g_c(model.spec().n_sensors) {}
  };

  Workspace& workspace() {
#ifdef _OPENMP
    return *workspaces_[omp_get_thread_num()];
#else
    return *workspaces_[0];
#endif
  }

  // One chunk of m rows. With grad: adds scale * gradient of (NLL + penalty) and returns the
  // sum of (NLL + penalty); nll_sum gets the NLL sum. With out: writes the posterior.
  double evaluate_chunk(const T* params, const int* rows, int m, double scale, T* grad, double* nll_sum,
                        const PosteriorOut* out) {
    Workspace& ws = workspace();
    const ModelSpec& spec = model_.spec();
    const int p = spec.n_covariates, L = spec.n_sensors;
    // Gather the chunk in the working scale; rows with a missing covariate are skipped.
    int k = 0;
    ws.valid.clear();
    for (int r = 0; r < m; ++r) {
      const int row = rows[r];
      bool ok = true;
      for (int q = 0; q < p; ++q) {
        const double v = data_.x[q][row];
        if (std::isnan(v)) { ok = false; break; }
        ws.x(q, k) = static_cast<T>((v - data_.x_center[q]) / data_.x_scale[q]);
      }
      if (!ok) {
        if (out != nullptr) write_missing(*out, row);
        continue;
      }
      for (int j = 0; j < L; ++j)
        ws.b[static_cast<std::size_t>(k) * L + j] = reading_scale_.to_working(data_.b[j][row]);
      ws.valid.push_back(row);
      ++k;
    }
    if (k == 0) {  // every row lacks a covariate: nothing to add
      if (grad != nullptr) std::fill(grad, grad + model_.n_params(), T(0));
      if (nll_sum != nullptr) *nll_sum = 0.0;
      return 0.0;
    }
    mlp_forward(model_.prior(), params, ws.x, k, ws.prior);
    mlp_forward(model_.reliability(), params, ws.x, k, ws.reliability);
    if (model_.has_bias_head()) mlp_forward(model_.bias(), params, ws.x, k, ws.bias);

    const int n_free = model_.n_free();
    double loss = 0.0, nll_total = 0.0;
    ChunkHeads& h = ws.heads;
    model_.transform_chunk(ws.prior.out, ws.reliability.out, ws.bias.out, k, h, ws.gain_scratch);
    for (int i = 0; i < k; ++i) {
      const double* b = ws.b.data() + static_cast<std::size_t>(i) * L;
      const double* w = &h.w(0, i);
      const double* a = &h.a(0, i);
      const double* da = &h.da(0, i);
      RowPosterior post{};
      double g_mu0 = 0, g_v0 = 0;
      const bool want_grad = grad != nullptr;
      const double v0 = h.v0(i);
      const double nll = row_nll_given_precisions(L, b, h.mu0(i), v0, h.prior_precision(i), w, &h.lambda(0, i), a,
                                                  &h.c(0, i), &post, want_grad ? &g_mu0 : nullptr, &g_v0,
                                                  ws.g_w.data(), ws.g_a.data(), ws.g_c.data());
      nll_total += nll;
      double penalty = spec.lambda_prior * v0 * v0;
      for (int j = 0; j < L; ++j) {
        const double relative_w = w[j] - model_.logvar_shift(j);  // the penalty acts relative to the sensor's level
        penalty += spec.lambda_sensor * relative_w * relative_w;
      }
      loss += nll + penalty;
      if (out != nullptr) {
        if (out->disagreement != nullptr)  // shift-invariant: the same in the working scale as in model units
          out->disagreement[ws.valid[i]] = row_disagreement(L, b, &h.lambda(0, i), a, &h.c(0, i), post.mean);
        write_row(*out, ws.valid[i], post, nll, h, ws.reliability.out, i);
      }
      if (!want_grad) continue;
      ws.d_prior(0, i) = static_cast<T>(scale * g_mu0);
      const double raw_v0 = ws.prior.out(1, i);
      ws.d_prior(1, i) = model_.in_clamp(raw_v0)
                             ? static_cast<T>(scale * (g_v0 + 2.0 * spec.lambda_prior * v0))
                             : T(0);
      for (int j = 0; j < L; ++j) {
        const double raw_w = ws.reliability.out(j, i);
        ws.d_reliability(j, i) = model_.in_clamp(raw_w)
                                     ? static_cast<T>(scale * (ws.g_w[j] + 2.0 * spec.lambda_sensor *
                                                                                (w[j] - model_.logvar_shift(j))))
                                     : T(0);
        const int f = model_.free_index(j);
        if (f < 0) continue;
        ws.d_bias(f, i) = static_cast<T>(scale * ws.g_a[j] * da[j]);
        ws.d_bias(n_free + f, i) = static_cast<T>(scale * ws.g_c[j] * model_.sensor_gain(j));
      }
    }
    if (nll_sum != nullptr) *nll_sum = nll_total;
    if (grad != nullptr) {
      // Heads in the reverse order of the forward pass: the last head's activations are the
      // most likely to still be in cache. Each head writes its own slice of grad.
      if (model_.has_bias_head())
        mlp_backward(model_.bias(), params, ws.x, k, ws.bias, ws.d_bias.leftCols(k), grad);
      mlp_backward(model_.reliability(), params, ws.x, k, ws.reliability, ws.d_reliability.leftCols(k), grad);
      model_.hold_constant_outputs(grad);  // held parameters are not the model's: gradient 0
      mlp_backward(model_.prior(), params, ws.x, k, ws.prior, ws.d_prior.leftCols(k), grad);
    }
    return loss;
  }

  // raw_noise: the reliability head's raw outputs of the chunk (sensor x row), before the clamp.
  void write_row(const PosteriorOut& out, int row, const RowPosterior& post, double nll, const ChunkHeads& h,
                 const Mat<T>& raw_noise, int i) const {
    const HeadColumns col{model_.spec().n_sensors};
    const std::size_t n = data_.n_rows;
    out.n_observed[row] = post.n_observed;
    if (out.noise_clamp != nullptr) {
      for (int j = 0; j < col.n_sensors; ++j)
        out.noise_clamp[row + j * n] = model_.clamp_side(static_cast<double>(raw_noise(j, i)));
    }
    const ReadingScale& u = reading_scale_;
    out.mean[row] = model_units_ ? u.value_to_units(post.mean) : post.mean;
    out.nll[row] = model_units_ ? u.nll_to_units(nll, post.n_observed) : nll;
    out.variance[row] = model_units_ ? u.variance_to_units(post.variance) : post.variance;
    auto log_variance = [&](double v) { return model_units_ ? u.log_variance_to_units(v) : v; };
    if (out.noise_log_variance != nullptr) out.noise_log_variance[row] = log_variance(h.w(out.noise_sensor, i));
    if (out.heads == nullptr && out.heads_finite == nullptr) return;
    const double mu0 = model_units_ ? u.value_to_units(h.mu0(i)) : h.mu0(i);
    const double v0 = log_variance(h.v0(i));
    double* at = out.heads == nullptr ? nullptr : out.heads + row;
    if (at != nullptr) {
      at[col.prior_mean() * n] = mu0;
      at[col.prior_log_variance() * n] = v0;
    }
    const bool check = out.heads_finite != nullptr;
    bool finite = !check || (std::isfinite(mu0) && std::isfinite(std::exp(v0)));
    for (int j = 0; j < col.n_sensors; ++j) {
      const double w = log_variance(h.w(j, i)), a = h.a(j, i);
      const double c = model_units_ ? u.offset_to_units(h.c(j, i), a) : h.c(j, i);
      if (at != nullptr) {
        at[col.noise_log_variance(j) * n] = w;
        at[col.gain(j) * n] = a;
        at[col.offset(j) * n] = c;
      }
      if (check) finite = finite && std::isfinite(std::exp(w)) && std::isfinite(a) && std::isfinite(c);
    }
    if (check) out.heads_finite[row] = finite;
  }

  void write_missing(const PosteriorOut& out, int row) const {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    out.mean[row] = nan;
    out.variance[row] = nan;
    out.n_observed[row] = 0;
    out.nll[row] = nan;
    const std::size_t n = data_.n_rows;
    if (out.noise_clamp != nullptr) {
      for (int j = 0; j < model_.spec().n_sensors; ++j) out.noise_clamp[row + j * n] = 0;
    }
    if (out.noise_log_variance != nullptr) out.noise_log_variance[row] = nan;
    if (out.disagreement != nullptr) out.disagreement[row] = nan;
    if (out.heads_finite != nullptr) out.heads_finite[row] = 0;
    if (out.heads == nullptr) return;
    for (int k = 0; k < HeadColumns{model_.spec().n_sensors}.count(); ++k) out.heads[row + k * n] = nan;
  }

  // grad = sum of the chunk gradients, always in chunk order.
  void reduce_chunks(int n_chunks, T* grad) {
    const std::ptrdiff_t n_params = static_cast<std::ptrdiff_t>(model_.n_params());
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(n_threads_) if (n_params > 4096)
#endif
    for (std::ptrdiff_t k = 0; k < n_params; ++k) {
      T s = chunk_grads_[0][k];
      for (int c = 1; c < n_chunks; ++c) s += chunk_grads_[c][k];
      grad[k] = s;
    }
  }

  const Model& model_;
  DataView data_;
  ReadingScale reading_scale_;
  int max_threads_;
  int n_threads_;
  std::vector<std::unique_ptr<Workspace>> workspaces_;
  std::vector<AlignedVector<T>> chunk_grads_;
  std::vector<double> chunk_loss_, chunk_nll_;
  int pass_rows_ = 0;
  int last_n_chunks_ = 0;
  bool model_units_ = false;
};

}  // namespace ncam
