// GELU activation (erf form) and its derivative, applied element-wise to a block.
// double: std::erfc, exact. float: a vectorised erf (Abramowitz & Stegun 7.1.26,
// absolute error < 1.5e-7, below float resolution) so Eigen's SIMD exp carries it.
#pragma once
#include <Eigen/Dense>
#include <cmath>

namespace ncam {

// out = gelu(z), deriv = gelu'(z) = Phi(z) + z phi(z).
template <typename Z, typename Out, typename Deriv>
inline void gelu_forward(const Z& z, Out&& out, Deriv&& deriv, double /*tag*/) {
  const double inv_sqrt2 = 0.70710678118654752440;
  const double inv_sqrt2pi = 0.39894228040143267794;
  for (Eigen::Index j = 0; j < z.cols(); ++j) {
    for (Eigen::Index i = 0; i < z.rows(); ++i) {
      const double x = z(i, j);
      const double cdf = 0.5 * std::erfc(-x * inv_sqrt2);
      out(i, j) = x * cdf;
      deriv(i, j) = cdf + x * inv_sqrt2pi * std::exp(-0.5 * x * x);
    }
  }
}

template <typename Z, typename Out, typename Deriv>
inline void gelu_forward(const Z& z, Out&& out, Deriv&& deriv, float /*tag*/) {
  const float inv_sqrt2 = 0.70710678f, inv_sqrt2pi = 0.39894228f;
  const float p = 0.3275911f, a1 = 0.254829592f, a2 = -0.284496736f, a3 = 1.421413741f,
              a4 = -1.453152027f, a5 = 1.061405429f;
  const auto& za = z.array();
  auto&& o = out.array();
  auto&& d = deriv.array();
  // Element-wise stages written into the output buffers, so no temporaries are allocated.
  d = (-0.5f * za.square()).exp();                 // exp(-z^2/2)
  o = (1.0f + (p * inv_sqrt2) * za.abs()).inverse();  // t
  // pe = erfc(|z|/sqrt2); 1 + erf(z/sqrt2) is 2 - pe for z >= 0 and pe for z < 0 (no cancellation).
  o = o * (a1 + o * (a2 + o * (a3 + o * (a4 + o * a5)))) * d;
  o = 0.5f * (za >= 0.0f).select(2.0f - o, o);     // Phi(z)
  d = o + za * inv_sqrt2pi * d;                    // Phi(z) + z phi(z)
  o = za * o;
}

}  // namespace ncam
