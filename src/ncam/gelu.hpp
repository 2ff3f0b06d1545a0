// GELU activation (erf form) and its derivative over a contiguous array, in one pass.
// double: std::erfc, exact. float: Eigen's SIMD packets with the erfc of Abramowitz & Stegun
// 7.1.26 (absolute error < 1.5e-7, below float resolution); the Gaussian factor exp(-z^2/2)
// is shared by the erfc and by the derivative Phi(z) + z phi(z).
#pragma once
#include <Eigen/Dense>
#include <cmath>

namespace ncam {

inline void gelu_forward(const double* z, double* out, double* deriv, Eigen::Index size) {
  const double inv_sqrt2 = 0.70710678118654752440;
  const double inv_sqrt2pi = 0.39894228040143267794;
  for (Eigen::Index i = 0; i < size; ++i) {
    const double x = z[i];
    const double cdf = 0.5 * std::erfc(-x * inv_sqrt2);
    out[i] = x * cdf;
    deriv[i] = cdf + x * inv_sqrt2pi * std::exp(-0.5 * x * x);
  }
}

namespace gelu_detail {
constexpr float kP = 0.3275911f * 0.70710678f;  // A&S's p for the argument |z| / sqrt(2)
constexpr float kA1 = 0.254829592f, kA2 = -0.284496736f, kA3 = 1.421413741f, kA4 = -1.453152027f,
                kA5 = 1.061405429f, kInvSqrt2Pi = 0.39894228f;
// 1 for z > 0 and 0 for z < 0 without a branch or bit mask; in between only when |z| < 1e-30,
// where 1 - erfc is 0 anyway.
constexpr float kStep = 1e30f;
}  // namespace gelu_detail

inline void gelu_forward(const float* z, float* out, float* deriv, Eigen::Index size) {
  using namespace gelu_detail;
  namespace ei = Eigen::internal;
  using Packet = ei::packet_traits<float>::type;
  constexpr Eigen::Index width = ei::packet_traits<float>::size;
  const Packet one = ei::pset1<Packet>(1.0f), zero = ei::pset1<Packet>(0.0f), half = ei::pset1<Packet>(0.5f),
               minus_half = ei::pset1<Packet>(-0.5f), p = ei::pset1<Packet>(kP), a1 = ei::pset1<Packet>(kA1),
               a2 = ei::pset1<Packet>(kA2), a3 = ei::pset1<Packet>(kA3), a4 = ei::pset1<Packet>(kA4),
               a5 = ei::pset1<Packet>(kA5), c = ei::pset1<Packet>(kInvSqrt2Pi), step = ei::pset1<Packet>(kStep);
  Eigen::Index i = 0;
  for (; i + width <= size; i += width) {
    const Packet x = ei::ploadu<Packet>(z + i);
    const Packet t = ei::pdiv(one, ei::padd(one, ei::pmul(p, ei::pabs(x))));
    const Packet gauss = ei::pexp(ei::pmul(minus_half, ei::pmul(x, x)));
    const Packet poly =
        ei::pmul(t, ei::padd(a1, ei::pmul(t, ei::padd(a2, ei::pmul(t, ei::padd(a3, ei::pmul(t, ei::padd(a4, ei::pmul(t, a5))))))))) ;
    const Packet tail = ei::pmul(poly, gauss);  // erfc(|x| / sqrt2)
    const Packet positive = ei::pmin(ei::pmax(ei::pmul(x, step), zero), one);
    const Packet cdf = ei::padd(ei::pmul(half, tail), ei::pmul(positive, ei::psub(one, tail)));
    ei::pstoreu(out + i, ei::pmul(x, cdf));
    ei::pstoreu(deriv + i, ei::padd(cdf, ei::pmul(ei::pmul(x, c), gauss)));
  }
  for (; i < size; ++i) {
    const float x = z[i];
    const float t = 1.0f / (1.0f + kP * std::fabs(x));
    const float gauss = std::exp(-0.5f * x * x);
    const float tail = t * (kA1 + t * (kA2 + t * (kA3 + t * (kA4 + t * kA5)))) * gauss;
    const float cdf = x >= 0.0f ? 1.0f - 0.5f * tail : 0.5f * tail;
    out[i] = x * cdf;
    deriv[i] = cdf + x * kInvSqrt2Pi * gauss;
  }
}

}  // namespace ncam
