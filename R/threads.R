#' Number of threads used by ncam
#'
#' Heavy functions take a `threads` argument. When it is `NULL` the number comes from
#' `getOption("ncam.threads")`, then the environment variable `NCAM_THREADS`, then 2; it is
#' never above `OMP_THREAD_LIMIT` when that is set. Results do not depend on the number of
#' threads: rows are processed in fixed-size chunks reduced in a fixed order.
#'
#' On x86-64 CPUs with AVX2 and FMA, ncam runs an engine compiled for those instructions,
#' chosen at run time (R's portable build flags leave them unused); elsewhere, the portable
#' engine. The two agree to float precision but not to the last bit, so for bit-identical
#' results across different machines set `options(ncam.simd = FALSE)` or the environment
#' variable `NCAM_SIMD=0`.
#'
#' @param threads `NULL` or a whole number of at least 1.
#' @return The number of threads, an integer.
#' @examples
#' ncam_threads()
#' ncam_threads(1)
#' @export
ncam_threads <- function(threads = NULL) {
  resolve_threads(threads, call = rlang::current_env())
}

# ncam_threads() for ncam's own functions: errors name `call`, the exported function the user
# called (ncam(), predict(), ncam_by()), not an internal helper.
resolve_threads <- function(threads, call) {
  if (is.null(threads)) threads <- getOption("ncam.threads", NULL)
  if (is.null(threads)) {
    env <- Sys.getenv("NCAM_THREADS", "")
    threads <- if (nzchar(env)) suppressWarnings(as.numeric(env)) else 2L
    if (is.na(threads) || threads < 1) {
      ncam_abort("Environment variable {.envvar NCAM_THREADS} must be a whole number of at least 1, not {.val {env}}.",
                 call = call)
    }
  }
  check_number(threads, "threads", min = 1, max = 1024, integer = TRUE, call = call)
  limit <- suppressWarnings(as.integer(Sys.getenv("OMP_THREAD_LIMIT", "")))
  if (!is.na(limit) && limit >= 1L) threads <- min(threads, limit)
  as.integer(threads)
}

# The AVX2+FMA engine is used where the CPU has it, unless options(ncam.simd = FALSE) or the
# environment variable NCAM_SIMD=0 asks for the portable one.
use_simd <- function() {
  option <- getOption("ncam.simd", TRUE)
  if (!is.logical(option) || length(option) != 1L || is.na(option)) {
    # "no" or 0 would otherwise quietly pick an engine the user did not name.
    ncam_abort("Option {.code ncam.simd} must be {.code TRUE} or {.code FALSE}, not {.obj_type_friendly {option}}.",
               call = NULL)
  }
  variable <- Sys.getenv("NCAM_SIMD")
  if (!variable %in% c("", "0", "1")) {
    ncam_abort("Environment variable {.envvar NCAM_SIMD} must be {.val 0} or {.val 1}, not {.val {variable}}.",
               call = NULL)
  }
  option && variable != "0"
}
