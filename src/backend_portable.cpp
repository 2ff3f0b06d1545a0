// The engine compiled with R's portable flags.
#include "ncam/backend_impl.hpp"

namespace ncam_dispatch {

const Backend& portable_backend() {
  static const Backend table{"portable", &ncam::backend::new_fit_state, &ncam::backend::predict,
                             &ncam::backend::gemm_probe};
  return table;
}

}  // namespace ncam_dispatch
