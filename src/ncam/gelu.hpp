// GELU activation (erf form) and its derivative over a layer's pre-activations, in one pass
// that also adds the layer's bias (so the pre-activations are read once and never rewritten).
// The array is column-major, `period` rows high; `bias_cycle` holds the bias repeated
// cyclically (see fill_bias_cycle), so a packet of consecutive elements reads its biases with
// one unaligned load whatever the layer height.
// double: std::erfc, exact. float: Eigen's SIMD packets with the erfc of Abramowitz & Stegun
// 7.1.26 (absolute error < 1.5e-7, below float resolution); the Gaussian factor exp(-z^2/2)
// is shared by the erfc and by the derivative Phi(z) + z phi(z).
#pragma once
#include <Eigen/Dense>
#include <cmath>

namespace ncam {

// Longest SIMD packet of any build (AVX-512 floats); bias_cycle needs period + this entries.
constexpr int kBiasCycleSlack = 16;

template <typename T>
inline void fill_bias_cycle(const T* bias, int period, T* bias_cycle) {
  for (int k = 0; k < period + kBiasCycleSlack; ++k) bias_cycle[k] = bias[k % period];
}

inline void gelu_forward(const double* z, const double* bias_cycle, int period, Eigen::Index size, double* out,
                         double* deriv) {
  const double inv_sqrt2 = 0.70710678118654752440;
  const double inv_sqrt2pi = 0.39894228040143267794;
  int r = 0;
  for (Eigen::Index i = 0; i < size; ++i) {
    const double x = z[i] + bias_cycle[r];
    if (++r == period) r = 0;
    const double cdf = 0.5 * std::erfc(-x * inv_sqrt2);
    out[i] = x * cdf;
    deriv[i] = cdf + x * inv_sqrt2pi * std::exp(-0.5 * x * x);
  }
}

namespace gelu_detail {
constexpr float kP = 0.3275911f * 0.70710678f;  // A&S's p for the argument |z| / sqrt(2)
// A&S's coefficients halved, so the polynomial gives erfc(|z| / sqrt2) / 2 = P(N(0,1) > |z|).
constexpr float kA1 = 0.5f * 0.254829592f, kA2 = 0.5f * -0.284496736f, kA3 = 0.5f * 1.421413741f,
                kA4 = 0.5f * -1.453152027f, kA5 = 0.5f * 1.061405429f, kInvSqrt2Pi = 0.39894228f;
}  // namespace gelu_detail

#if defined(__AVX2__) && defined(__FMA__)
// exp(a) for a <= 0 on 8 floats (the AVX2 build). Cody-Waite reduction a = n ln2 + r with
// |r| <= ln2 / 2, then Cephes' minimax polynomial for exp(r) (the one Eigen's pexp uses),
// evaluated by Estrin's scheme: a shorter dependency chain than Horner's, and the chain's
// length is what limits the GELU loop. Below -87 the result stays at about 2^-126, which the
// GELU cannot tell from 0.
inline __m256 exp_nonpositive(__m256 a) {
  a = _mm256_max_ps(a, _mm256_set1_ps(-87.0f));
  const __m256 n =
      _mm256_round_ps(_mm256_mul_ps(a, _mm256_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), a);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  const __m256 r2 = _mm256_mul_ps(r, r);
  const __m256 p01 = _mm256_fmadd_ps(_mm256_set1_ps(1.9875691500e-4f), r, _mm256_set1_ps(1.3981999507e-3f));
  const __m256 p23 = _mm256_fmadd_ps(_mm256_set1_ps(8.3334519073e-3f), r, _mm256_set1_ps(4.1665795894e-2f));
  const __m256 p45 = _mm256_fmadd_ps(_mm256_set1_ps(1.6666665459e-1f), r, _mm256_set1_ps(5.0000001201e-1f));
  const __m256 poly = _mm256_fmadd_ps(_mm256_fmadd_ps(p01, r2, p23), r2, p45);
  const __m256 exp_r = _mm256_fmadd_ps(poly, r2, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  const __m256i two_n = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(exp_r, _mm256_castsi256_ps(two_n));
}
#endif

inline void gelu_forward(const float* z, const float* bias_cycle, int period, Eigen::Index size, float* out,
                         float* deriv) {
  using namespace gelu_detail;
  namespace ei = Eigen::internal;
  using Packet = ei::packet_traits<float>::type;
  constexpr Eigen::Index width = ei::packet_traits<float>::size;
  const Packet one = ei::pset1<Packet>(1.0f), half = ei::pset1<Packet>(0.5f), minus_half = ei::pset1<Packet>(-0.5f),
               sign_bit = ei::pset1<Packet>(-0.0f), p = ei::pset1<Packet>(kP), a1 = ei::pset1<Packet>(kA1),
               a2 = ei::pset1<Packet>(kA2), a3 = ei::pset1<Packet>(kA3), a4 = ei::pset1<Packet>(kA4),
               a5 = ei::pset1<Packet>(kA5), c = ei::pset1<Packet>(kInvSqrt2Pi);
  Eigen::Index i = 0;
  int r = 0;  // row of element i, i.e. i % period
  for (; i + width <= size; i += width) {
    const Packet x = ei::padd(ei::ploadu<Packet>(z + i), ei::ploadu<Packet>(bias_cycle + r));
    r += width;
    while (r >= period) r -= period;
    const Packet t = ei::pdiv(one, ei::pmadd(p, ei::pabs(x), one));
#if defined(__AVX2__) && defined(__FMA__)
    const Packet gauss = exp_nonpositive(ei::pmul(minus_half, ei::pmul(x, x)));
#else
    const Packet gauss = ei::pexp(ei::pmul(minus_half, ei::pmul(x, x)));
#endif
    const Packet t2 = ei::pmul(t, t);  // Estrin's scheme, as in exp_nonpositive
    const Packet poly = ei::pmadd(ei::pmadd(a5, t2, ei::pmadd(a4, t, a3)), t2, ei::pmadd(a2, t, a1));
    const Packet upper = ei::pmul(ei::pmul(t, poly), gauss);  // P(N(0,1) > |x|)
    // Phi(x) = 1/2 + sign(x) (1/2 - upper), the sign applied by copying x's sign bit.
    const Packet cdf = ei::padd(half, ei::pxor(ei::psub(half, upper), ei::pand(x, sign_bit)));
    ei::pstoreu(out + i, ei::pmul(x, cdf));
    ei::pstoreu(deriv + i, ei::pmadd(ei::pmul(x, c), gauss, cdf));
  }
  for (; i < size; ++i) {
    const float x = z[i] + bias_cycle[r];
    if (++r == period) r = 0;
    const float t = 1.0f / (1.0f + kP * std::fabs(x));
    const float gauss = std::exp(-0.5f * x * x);
    const float upper = t * (kA1 + t * (kA2 + t * (kA3 + t * (kA4 + t * kA5)))) * gauss;
    const float cdf = x >= 0.0f ? 1.0f - upper : upper;
    out[i] = x * cdf;
    deriv[i] = cdf + x * kInvSqrt2Pi * gauss;
  }
}

}  // namespace ncam
