// GCC warns "ignoring attributes on template argument" for every instantiation of Eigen's SIMD
// packet types (__m128, __m256 carry alignment attributes that template arguments drop). The
// warnings say nothing about this code and bury real ones under hundreds of lines, so the two
// backends silence that one warning around the engine with GCC's diagnostic pragmas (ignored
// by other compilers; no compiler flags, so the build stays portable).
#pragma once
#if defined(__GNUC__) && !defined(__clang__)
#define NCAM_SILENCE_EIGEN_WARNINGS_BEGIN \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wignored-attributes\"")
#define NCAM_SILENCE_EIGEN_WARNINGS_END _Pragma("GCC diagnostic pop")
#else
#define NCAM_SILENCE_EIGEN_WARNINGS_BEGIN
#define NCAM_SILENCE_EIGEN_WARNINGS_END
#endif
