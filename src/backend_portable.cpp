// The engine compiled with R's portable flags.
#include "ncam/std_headers.hpp"

#include "ncam/eigen_warnings.hpp"
NCAM_SILENCE_EIGEN_WARNINGS_BEGIN
#include "ncam/backend_impl.hpp"
NCAM_SILENCE_EIGEN_WARNINGS_END

namespace ncam_dispatch {

const Backend& portable_backend() {
  static constexpr Backend table = ncam::backend::backend_table("portable");
  return table;
}

}  // namespace ncam_dispatch
