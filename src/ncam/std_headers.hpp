// The one list of standard headers the engine uses, included first by both backends so that
// in the SIMD unit (src/backend_simd.cpp) all standard code is compiled before its target
// pragma, with portable flags. A new standard include in the engine belongs here too.
#pragma once
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
