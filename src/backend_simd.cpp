// The engine compiled a second time for x86-64 CPUs with AVX2 and FMA, selected at run time.
// R builds packages with portable flags (SSE2 on x86-64), which leaves half or more of a
// modern CPU's arithmetic unused; this unit asks GCC for AVX2+FMA code with a target pragma
// and tells Eigen so. The rules it follows are at the top of ncam/dispatch.hpp.
#include "ncam/std_headers.hpp"

#include "ncam/dispatch.hpp"
#include "ncam/eigen_warnings.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__AVX2__)
#define NCAM_SIMD_BACKEND 1
#endif

#ifdef NCAM_SIMD_BACKEND
#pragma GCC push_options
#pragma GCC target("avx2,fma")
// GCC's pragma does not define these; Eigen picks its packet width from them.
#define __AVX__ 1
#define __AVX2__ 1
#define __FMA__ 1
#define Eigen ncam_simd_eigen
#define ncam ncam_simd
NCAM_SILENCE_EIGEN_WARNINGS_BEGIN
#include "ncam/backend_impl.hpp"
NCAM_SILENCE_EIGEN_WARNINGS_END
#undef ncam
#undef Eigen
#pragma GCC pop_options
#undef __AVX__
#undef __AVX2__
#undef __FMA__
// From here on the AVX2 engine is only ever named by its real namespace, ncam_simd.
namespace ncam_dispatch {
static constexpr Backend simd_table = ncam_simd::backend::backend_table("avx2");
}  // namespace ncam_dispatch
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
