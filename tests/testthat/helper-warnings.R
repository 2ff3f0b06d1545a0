# The warnings `expr` gives, muffled, as conditions.
caught_warnings <- function(expr) {
  caught <- list()
  withCallingHandlers(expr, warning = function(w) {
    caught[[length(caught) + 1L]] <<- w
    invokeRestart("muffleWarning")
  })
  caught
}
