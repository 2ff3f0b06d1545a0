// The engine compiled a second time for x86-64 CPUs with AVX2 and FMA, selected at run time.
// R builds packages with portable flags (SSE2 on x86-64), which leaves half or more of a
// modern CPU's arithmetic unused; this unit asks GCC for AVX2+FMA code with a target pragma
// and tells Eigen so, and renames the namespaces `ncam` and `Eigen` so that its template
// instances are distinct symbols from the portable ones. Standard headers are included before
// the pragma so their code stays portable. Only functions reached after the CPU check run here.
#include <algorithm>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iosfwd>
#include <limits>
#include <memory>
#include <new>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ncam/dispatch.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__AVX2__)
#define NCAM_SIMD_BACKEND 1
#endif

#ifdef NCAM_SIMD_BACKEND
namespace ncam_dispatch {
extern const Backend simd_table;
}
#endif

namespace ncam_dispatch {

const Backend* simd_backend() {
#ifdef NCAM_SIMD_BACKEND
  __builtin_cpu_init();
  static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return supported ? &simd_table : nullptr;
#else
  return nullptr;  // another compiler or platform, or the whole build already targets AVX2
#endif
}

}  // namespace ncam_dispatch

#ifdef NCAM_SIMD_BACKEND
#pragma GCC target("avx2,fma")
// GCC's pragma does not define these; Eigen picks its packet width from them.
#define __AVX__ 1
#define __AVX2__ 1
#define __FMA__ 1
#define Eigen ncam_simd_eigen
#define ncam ncam_simd
#include "ncam/backend_impl.hpp"

namespace ncam_dispatch {
const Backend simd_table{"avx2", &ncam::backend::new_fit_state, &ncam::backend::predict, &ncam::backend::gemm_probe};
}  // namespace ncam_dispatch
#endif
