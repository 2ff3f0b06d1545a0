// GELU activation (erf form) and its derivative over a layer's pre-activations, in one pass
// that also adds the layer's bias (so the pre-activations are read once and never rewritten).
// The array is column-major, `period` rows high; `bias_cycle` holds the bias repeated
// cyclically (see fill_bias_cycle), so a packet of consecutive elements reads its biases with
// one unaligned load whatever the layer height.
// Both precisions run in Eigen's SIMD packets. double: a Chebyshev series for erfcx, within
// 4e-15 of std::erfc. float: the erfc of Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7,
// below float resolution). The Gaussian factor exp(-z^2/2) is shared by the erfc and by the
// derivative Phi(z) + z phi(z).
#pragma once
#include <Eigen/Dense>
#include <cmath>

// Full unrolling of the short fixed-length loops of the double GELU keeps their values in
// registers; GCC does not unroll them at R's default -O2.
#if defined(__clang__)
#define NCAM_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define NCAM_UNROLL _Pragma("GCC unroll 32")
#else
#define NCAM_UNROLL
#endif

namespace ncam {

// Longest SIMD packet of any build (AVX-512 floats); bias_cycle needs period + this entries.
constexpr int kBiasCycleSlack = 16;

template <typename T>
inline void fill_bias_cycle(const T* bias, int period, T* bias_cycle) {
  for (int k = 0; k < period + kBiasCycleSlack; ++k) bias_cycle[k] = bias[k % period];
}

namespace gelu_detail {
// erfcx(y) = exp(y^2) erfc(y) for y >= 0, as a Chebyshev series in t = (y - kErfcxMap) /
// (y + kErfcxMap) (Weideman's map of [0, inf) onto [-1, 1)), fitted by tools/fit-erfcx.R.
// tests/cpp checks Phi(x) within 4e-15 of 0.5 erfc(-x / sqrt2) from std::erfc, and the tail
// x Phi(x) within 1e-12 relative for x < -1.
constexpr double kErfcxMap = 3.5;
constexpr int kErfcxTerms = 22;
constexpr double kErfcx[kErfcxTerms] = {
    3.12623801551654701e-01,
    -4.40847530711803104e-01,
    1.71814313444090289e-01,
    -5.58328422317940706e-02,
    1.50226721525950988e-02,
    -3.26419398817437293e-03,
    5.39005913398008765e-04,
    -5.64793690915616208e-05,
    3.49615120693466624e-07,
    1.05433631979152703e-06,
    -1.47044940905024262e-07,
    -7.88718454475331730e-09,
    4.48186705969297587e-09,
    -1.59068638538478632e-10,
    -1.16894127633885106e-10,
    1.12513342284507878e-11,
    3.20596650060000798e-12,
    -4.70526356198415648e-13,
    -1.00768196757978420e-13,
    1.87963128529243411e-14,
    3.94463797957893179e-15,
    6.38105956568420418e-16};
// 1 for x > 0 and 0 for x < 0 without a branch or bit mask; in between only for |x| < 1e-300,
// where the term it selects is 0.
constexpr double kStepScale = 1e300;
}  // namespace gelu_detail

// Double precision: the tail P(N(0,1) > |x|) = erfcx(|x| / sqrt2) exp(-x^2 / 2) / 2; the
// Gaussian factor is shared with the derivative Phi(x) + x phi(x). K independent values at a
// time (Packet: Eigen's double packet, or double itself), so that K of the series' dependency
// chains run side by side instead of one waiting on the next.
template <int K, typename Packet>
inline void gelu_double(const Packet* x, Packet* out, Packet* deriv) {
  using namespace gelu_detail;
  namespace ei = Eigen::internal;
  const Packet one = ei::pset1<Packet>(1.0), zero = ei::pset1<Packet>(0.0), half = ei::pset1<Packet>(0.5),
               map = ei::pset1<Packet>(kErfcxMap);
  Packet t[K], two_t[K], b1[K], b2[K];
  NCAM_UNROLL for (int k = 0; k < K; ++k) {
    const Packet y = ei::pmul(ei::pabs(x[k]), ei::pset1<Packet>(0.70710678118654752440));
    t[k] = ei::pdiv(ei::psub(y, map), ei::padd(y, map));
    two_t[k] = ei::padd(t[k], t[k]);
    b1[k] = b2[k] = zero;
  }
  NCAM_UNROLL for (int m = kErfcxTerms - 1; m >= 1; --m) {  // Clenshaw's recurrence
    const Packet c_m = ei::pset1<Packet>(kErfcx[m]);
    NCAM_UNROLL for (int k = 0; k < K; ++k) {
      const Packet b0 = ei::pmadd(two_t[k], b1[k], ei::psub(c_m, b2[k]));
      b2[k] = b1[k];
      b1[k] = b0;
    }
  }
  NCAM_UNROLL for (int k = 0; k < K; ++k) {
    const Packet erfcx = ei::psub(ei::pmadd(t[k], b1[k], ei::pset1<Packet>(kErfcx[0])), b2[k]);
    const Packet gauss = ei::pexp(ei::pmul(ei::pset1<Packet>(-0.5), ei::pmul(x[k], x[k])));
    const Packet upper = ei::pmul(ei::pmul(half, erfcx), gauss);
    const Packet positive = ei::pmin(ei::pmax(ei::pmul(x[k], ei::pset1<Packet>(kStepScale)), zero), one);
    const Packet cdf = ei::pmadd(positive, ei::psub(one, ei::padd(upper, upper)), upper);
    out[k] = ei::pmul(x[k], cdf);
    deriv[k] = ei::pmadd(ei::pmul(x[k], ei::pset1<Packet>(0.39894228040143267794)), gauss, cdf);
  }
}

inline void gelu_forward(const double* z, const double* bias_cycle, int period, Eigen::Index size, double* out,
                         double* deriv) {
  namespace ei = Eigen::internal;
  using Packet = ei::packet_traits<double>::type;
  constexpr Eigen::Index width = ei::packet_traits<double>::size;
  constexpr int K = 4;
  Eigen::Index i = 0;
  int r = 0;  // row of element i, i.e. i % period
  auto next_x = [&](Eigen::Index at) {
    const Packet x = ei::padd(ei::ploadu<Packet>(z + at), ei::ploadu<Packet>(bias_cycle + r));
    r += width;
    while (r >= period) r -= period;
    return x;
  };
  for (; i + K * width <= size; i += K * width) {
    Packet x[K], o[K], d[K];
    for (int k = 0; k < K; ++k) x[k] = next_x(i + k * width);
    gelu_double<K>(x, o, d);
    for (int k = 0; k < K; ++k) {
      ei::pstoreu(out + i + k * width, o[k]);
      ei::pstoreu(deriv + i + k * width, d[k]);
    }
  }
  for (; i + width <= size; i += width) {
    Packet x[1] = {next_x(i)}, o[1], d[1];
    gelu_double<1>(x, o, d);
    ei::pstoreu(out + i, o[0]);
    ei::pstoreu(deriv + i, d[0]);
  }
  for (; i < size; ++i) {
    const double x[1] = {z[i] + bias_cycle[r]};
    if (++r == period) r = 0;
    gelu_double<1>(x, out + i, deriv + i);
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
