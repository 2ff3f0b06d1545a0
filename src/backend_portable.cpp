// The engine compiled with R's portable flags.
#include "ncam/std_headers.hpp"

#include "ncam/backend_impl.hpp"

namespace ncam_dispatch {

const Backend& portable_backend() {
  static constexpr Backend table = ncam::backend::backend_table("portable");
  return table;
}

}  // namespace ncam_dispatch
