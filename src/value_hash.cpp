// An order-free hash of a column's values, for the data check of fitted() and the other methods
// without newdata: it tells rows put in another order (the same values) from values changed in
// their last digits, in one pass where sorting the column cost three times the rest of the check.
#include <Rcpp.h>

#include <cmath>
#include <cstdint>
#include <cstring>

// `state` (8 bytes, least significant first) plus, modulo 2^64, each non-missing value of `x`
// (NA and NaN left out, -0 taken as 0) as its bits mixed as by SplitMix64, a bijection:
// the same values in any order give the same sum, other values another but for a chance of 2^-64.
// A column read in blocks passes each block's result on to the next.
// [[Rcpp::export]]
Rcpp::RawVector value_multiset_hash(Rcpp::NumericVector x, Rcpp::RawVector state) {
  if (state.size() != 8) Rcpp::stop("state must have 8 bytes");
  std::uint64_t sum = 0;
  for (int k = 7; k >= 0; --k) sum = (sum << 8) | static_cast<std::uint64_t>(state[k]);
  const double* v = x.begin();
  for (R_xlen_t i = 0; i < x.size(); ++i) {
    if (std::isnan(v[i])) continue;
    const double value = v[i] == 0 ? 0.0 : v[i];
    std::uint64_t z;
    std::memcpy(&z, &value, sizeof z);
    z += 0x9e3779b97f4a7c15ULL;  // as SplitMix64 does: the finalizer keeps 0 at 0
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    sum += z ^ (z >> 31);
  }
  Rcpp::RawVector out(8);
  for (int k = 0; k < 8; ++k) out[k] = static_cast<Rbyte>((sum >> (8 * k)) & 0xffU);
  return out;
}
