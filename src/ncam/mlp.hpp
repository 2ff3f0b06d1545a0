// A multilayer perceptron stored inside one flat parameter vector: hidden layers with GELU,
// a linear output layer. Activations are feature-major (width x rows), so every layer is
// one matrix product over a chunk of rows.
#pragma once
#include <Eigen/Dense>
#include <cmath>
#include <cstddef>
#include <vector>

#include "gelu.hpp"
#include "rng.hpp"

namespace ncam {

template <typename T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <typename T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
// Storage for vectors that Eigen processes in packets: with a fixed alignment, the elements
// done one by one before the first aligned packet are always the same ones, so results do
// not depend on where the allocator happened to put the memory.
template <typename T>
using AlignedVector = std::vector<T, Eigen::aligned_allocator<T>>;

struct MlpLayout {
  std::vector<int> widths;             // input, hidden..., output
  std::vector<std::size_t> w_offset;   // per layer: weight matrix (out x in, column-major)
  std::vector<std::size_t> b_offset;   // per layer: bias vector
  std::size_t begin = 0, end = 0;      // slice of the flat parameter vector

  MlpLayout() = default;
  MlpLayout(int n_in, const std::vector<int>& hidden, int n_out, std::size_t offset) {
    widths.push_back(n_in);
    widths.insert(widths.end(), hidden.begin(), hidden.end());
    widths.push_back(n_out);
    begin = offset;
    for (int l = 0; l < n_layers(); ++l) {
      w_offset.push_back(offset);
      offset += static_cast<std::size_t>(widths[l + 1]) * widths[l];
      b_offset.push_back(offset);
      offset += widths[l + 1];
    }
    end = offset;
  }
  int n_layers() const { return static_cast<int>(widths.size()) - 1; }
  int n_in() const { return widths.front(); }
  int n_out() const { return widths.back(); }
  int max_width() const {
    int m = 0;
    for (int w : widths) m = w > m ? w : m;
    return m;
  }

  // PyTorch's nn.Linear default: weights and biases U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
  template <typename T>
  void initialise(T* params, Rng& rng) const {
    for (int l = 0; l < n_layers(); ++l) {
      const int fan_in = widths[l];
      const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
      const std::size_t n_w = static_cast<std::size_t>(widths[l + 1]) * fan_in;
      for (std::size_t k = 0; k < n_w; ++k) params[w_offset[l] + k] = static_cast<T>(rng.uniform(-bound, bound));
      for (int k = 0; k < widths[l + 1]; ++k) params[b_offset[l] + k] = static_cast<T>(rng.uniform(-bound, bound));
    }
  }
};

// Per-thread buffers for one MLP, sized for chunks of up to `max_rows` rows.
// Each buffer has exactly its layer's height, so its first n columns are contiguous and the
// element-wise GELU runs as one linear pass (much faster than a 2-D loop for narrow layers).
template <typename T>
struct MlpWorkspace {
  std::vector<Mat<T>> pre;    // pre[l]: pre-activation of hidden layer l without its bias (l = 0 .. n_hidden - 1)
  std::vector<Mat<T>> act;    // act[l]: output of hidden layer l
  std::vector<Mat<T>> deriv;  // GELU'(pre-activation) of hidden layer l
  std::vector<Vec<T>> bias_cycle;  // hidden layer l's bias, repeated cyclically for gelu_forward
  Mat<T> out;
  // Backward buffers, viewed as (layer width x n) matrices: contiguous whatever the width, so
  // element-wise passes are linear and bias gradients are matrix-vector products.
  Vec<T> grad_a, grad_b, ones;

  MlpWorkspace(const MlpLayout& layout, int max_rows) {
    const int n_hidden = layout.n_layers() - 1;
    for (int l = 0; l < n_hidden; ++l) {
      pre.emplace_back(layout.widths[l + 1], max_rows);
      act.emplace_back(layout.widths[l + 1], max_rows);
      deriv.emplace_back(layout.widths[l + 1], max_rows);
      bias_cycle.emplace_back(layout.widths[l + 1] + kBiasCycleSlack);
    }
    out.resize(layout.n_out(), max_rows);
    grad_a.resize(static_cast<Eigen::Index>(layout.max_width()) * max_rows);
    grad_b.resize(grad_a.size());
    ones.setOnes(max_rows);
  }
};

template <typename T>
inline Eigen::Map<const Mat<T>> layer_weight(const MlpLayout& layout, const T* params, int l) {
  return Eigen::Map<const Mat<T>>(params + layout.w_offset[l], layout.widths[l + 1], layout.widths[l]);
}

// Forward pass for the first n columns of `input` (n_in x n); result in ws.out.leftCols(n).
template <typename T, typename Input>
void mlp_forward(const MlpLayout& layout, const T* params, const Input& input, int n, MlpWorkspace<T>& ws) {
  const int n_layers = layout.n_layers();
  for (int l = 0; l < n_layers; ++l) {
    const int rows = layout.widths[l + 1];
    const bool hidden = l + 1 < n_layers;
    auto z = hidden ? ws.pre[l].leftCols(n) : ws.out.leftCols(n);
    if (layout.widths[l] == 0) {
      z.setZero();  // no covariates: the layer is its bias alone
    } else if (l == 0) {
      z.noalias() = layer_weight(layout, params, l) * input.topLeftCorner(layout.widths[0], n);
    } else {
      z.noalias() = layer_weight(layout, params, l) * ws.act[l - 1].leftCols(n);
    }
    const T* bias = params + layout.b_offset[l];
    if (hidden) {
      fill_bias_cycle(bias, rows, ws.bias_cycle[l].data());
      gelu_forward(ws.pre[l].data(), ws.bias_cycle[l].data(), rows, static_cast<Eigen::Index>(rows) * n,
                   ws.act[l].data(), ws.deriv[l].data());
    } else {
      z.colwise() += Eigen::Map<const Vec<T>>(bias, rows);
    }
  }
}

// Backward pass: `grad_out` (n_out x n) is dLoss/d(output); writes dLoss/d(parameters) of this
// MLP into its slice of grad (overwriting it). Needs the workspace of the matching forward pass.
// The input's gradient is not needed.
template <typename T, typename Input, typename GradOut>
void mlp_backward(const MlpLayout& layout, const T* params, const Input& input, int n, MlpWorkspace<T>& ws,
                  const GradOut& grad_out, T* grad) {
  using Arr = Eigen::Array<T, Eigen::Dynamic, 1>;
  const int n_layers = layout.n_layers();
  const auto ones = ws.ones.head(n);
  T* g_cur = ws.grad_a.data();
  T* g_next = ws.grad_b.data();
  Eigen::Map<Mat<T>>(g_cur, layout.n_out(), n) = grad_out;
  for (int l = n_layers - 1; l >= 0; --l) {
    const int rows = layout.widths[l + 1], cols = layout.widths[l];
    const Eigen::Map<const Mat<T>> g(g_cur, rows, n);
    if (l == n_layers - 1) Eigen::Map<Vec<T>>(grad + layout.b_offset[l], rows).noalias() = g * ones;
    Eigen::Map<Mat<T>> gw(grad + layout.w_offset[l], rows, cols);
    if (cols > 0) {
      if (l == 0) {
        gw.noalias() = g * input.topLeftCorner(cols, n).transpose();
      } else {
        gw.noalias() = g * ws.act[l - 1].leftCols(n).transpose();
      }
    }
    if (l > 0) {
      Eigen::Map<Mat<T>> g_prev(g_next, cols, n);
      g_prev.noalias() = layer_weight(layout, params, l).transpose() * g;
      const Eigen::Index size = static_cast<Eigen::Index>(cols) * n;
      Eigen::Map<Arr>(g_next, size) *= Eigen::Map<const Arr>(ws.deriv[l - 1].data(), size);  // through GELU'
      Eigen::Map<Vec<T>>(grad + layout.b_offset[l - 1], cols).noalias() = g_prev * ones;  // row sums
      std::swap(g_cur, g_next);
    }
  }
}

}  // namespace ncam
