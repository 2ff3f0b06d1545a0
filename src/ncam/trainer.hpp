// Minibatch training of NCAM with Adam: rows shuffled every epoch, optional gradient-norm
// clipping and weight decay, each batch on the thread count a ThreadChooser finds fastest.
// Early stopping and the epoch loop's bookkeeping live with the caller, which checks for
// interrupts and reports progress between epochs.
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <vector>

#include "engine.hpp"
#include "thread_chooser.hpp"

namespace ncam {

using ncam_types::AdamOptions;
using ncam_types::EpochResult;

template <typename T>
class Trainer {
 public:
  Trainer(const ModelSpec& spec, const DataView& data, std::vector<int> train_rows, const AdamOptions& opt,
          std::uint64_t seed, int n_threads)
      : model_(spec), engine_(model_, data, n_threads), threads_(n_threads, opt.adapt_threads),
        rows_(std::move(train_rows)), opt_(opt), rng_(seed), params_(model_.n_params()),
        grad_(model_.n_params()), m_(model_.n_params(), T(0)), v_(model_.n_params(), T(0)) {
    model_.initialise(params_.data(), rng_);
  }

  const Model& model() const { return model_; }
  const AlignedVector<T>& params() const { return params_; }
  Engine<T>& engine() { return engine_; }

  // One pass over the training rows. `interrupted` is polled on the calling thread between
  // batches (at most every 100 ms); when it returns true the epoch stops early.
  EpochResult epoch(const std::function<bool()>& interrupted) {
    EpochResult res;
    rng_.shuffle(rows_);
    const int n = static_cast<int>(rows_.size());
    double loss_sum = 0.0, nll_sum = 0.0;
    auto last_poll = std::chrono::steady_clock::now();
    for (int begin = 0; begin < n; begin += opt_.batch_size) {
      const int m = std::min(opt_.batch_size, n - begin);
      engine_.set_threads(threads_.threads());
      const auto batch_start = std::chrono::steady_clock::now();
      double batch_nll = 0.0;
      double loss;
      if (opt_.clip_norm > 0) {
        // Clipping needs the whole gradient's norm before the update.
        loss = engine_.loss_grad(params_.data(), rows_.data() + begin, m, grad_.data(), &batch_nll);
        if (std::isfinite(loss)) {
          adam_step_clipped();
          ++step_;
        }
      } else {
        // The chunks and the update (which sums the chunk gradients) in one parallel region:
        // one start of the threads per batch instead of two.
        const int n_chunks = engine_.begin_gradient_pass(m);
        adam_begin(1.0);
        const int* batch_rows = rows_.data() + begin;
#ifdef _OPENMP
#pragma omp parallel num_threads(engine_.n_threads()) if (engine_.n_threads() > 1 && (n_chunks > 1 || params_.size() > 4096))
#endif
        {
          engine_.gradient_chunks(params_.data(), batch_rows);
          // Every thread computes the same loss, so all take the same branch.
          if (std::isfinite(engine_.pass_loss(nullptr))) adam_blocks(true);
        }
        loss = engine_.pass_loss(&batch_nll);
        if (std::isfinite(loss)) ++step_;
      }
      if (!std::isfinite(loss)) {
        res.finite = false;
        return res;
      }
      loss_sum += loss * m;
      nll_sum += batch_nll;
      const auto now = std::chrono::steady_clock::now();
      threads_.record(m, std::chrono::duration<double>(now - batch_start).count());
      if (interrupted && now - last_poll > std::chrono::milliseconds(100)) {
        last_poll = now;
        if (interrupted()) {
          res.interrupted = true;
          return res;
        }
      }
    }
    // The validation pass between epochs runs at the count chosen so far.
    engine_.set_threads(threads_.chosen());
    res.train_loss = loss_sum / n;
    res.train_nll = nll_sum / n;
    res.finite = std::isfinite(res.train_loss);
    return res;
  }

 private:
  // Adam (torch.optim.Adam's formula, L2 weight decay added to the gradient) in two steps:
  // adam_begin() sets the coefficients of step step_ + 1, outside any parallel region (the
  // caller counts the step once it is taken); adam_blocks()
  // updates the parameters in blocks shared out over the threads of the enclosing parallel
  // region (an orphaned omp for), or all on the calling thread outside one. With sum_chunks
  // the gradient is the sum of the engine's chunk gradients, in chunk order; otherwise grad_
  // times the clipping factor.
  void adam_begin(double clip) {
    const long step = step_ + 1;
    coef_.b1 = static_cast<T>(opt_.beta1);
    coef_.b2 = static_cast<T>(opt_.beta2);
    coef_.wd = static_cast<T>(opt_.weight_decay);
    coef_.eps = static_cast<T>(opt_.eps);
    coef_.clip = static_cast<T>(clip);
    coef_.step_size = static_cast<T>(opt_.learn_rate / (1.0 - std::pow(opt_.beta1, step)));
    coef_.bias2 = static_cast<T>(1.0 / std::sqrt(1.0 - std::pow(opt_.beta2, step)));
  }

  void adam_blocks(bool sum_chunks) {
    const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(params_.size());
    const auto& chunks = engine_.chunk_gradients();
    const int n_chunks = engine_.last_n_chunks();
    const AdamCoefficients c = coef_;
    // Blocks of parameters small enough for a stack buffer; Eigen arrays vectorise the update.
    constexpr std::ptrdiff_t block = 1024;
    const std::ptrdiff_t n_blocks = (n + block - 1) / block;
    // No barrier after the loop: the end of the enclosing parallel region is one.
#ifdef _OPENMP
#pragma omp for schedule(static) nowait
#endif
    for (std::ptrdiff_t blk = 0; blk < n_blocks; ++blk) {
      using Arr = Eigen::Array<T, Eigen::Dynamic, 1>;
      const std::ptrdiff_t begin = blk * block, len = std::min(block, n - begin);
      alignas(64) T g_buffer[block];
      Eigen::Map<Arr> g(g_buffer, len);
      if (sum_chunks) {
        g = Eigen::Map<const Arr>(chunks[0].data() + begin, len);
        for (int ch = 1; ch < n_chunks; ++ch) g += Eigen::Map<const Arr>(chunks[ch].data() + begin, len);
      } else {
        g = c.clip * Eigen::Map<const Arr>(grad_.data() + begin, len);
      }
      Eigen::Map<Arr> p(params_.data() + begin, len), m(m_.data() + begin, len), v(v_.data() + begin, len);
      g += c.wd * p;
      m = c.b1 * m + (T(1) - c.b1) * g;
      v = c.b2 * v + (T(1) - c.b2) * g * g;
      p -= c.step_size * m / (v.sqrt() * c.bias2 + c.eps);
    }
  }

  // The update with gradient-norm clipping; grad_ holds the summed gradient.
  void adam_step_clipped() {
    const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(params_.size());
    double sq = 0.0;
    for (std::ptrdiff_t k = 0; k < n; ++k) sq += static_cast<double>(grad_[k]) * grad_[k];
    const double norm = std::sqrt(sq);
    adam_begin(norm > opt_.clip_norm ? opt_.clip_norm / norm : 1.0);
#ifdef _OPENMP
#pragma omp parallel num_threads(engine_.n_threads()) if (engine_.n_threads() > 1 && n > 4096)
#endif
    adam_blocks(false);
  }

  struct AdamCoefficients {
    T b1 = 0, b2 = 0, wd = 0, eps = 0, clip = 1, step_size = 0, bias2 = 1;
  };

  Model model_;
  Engine<T> engine_;
  ThreadChooser threads_;
  std::vector<int> rows_;
  AdamOptions opt_;
  AdamCoefficients coef_;
  Rng rng_;
  AlignedVector<T> params_, grad_, m_, v_;
  long step_ = 0;
};

}  // namespace ncam
