#' ncam: Neural Conjugate Aggregation of Low-Cost Sensors
#'
#' Fuses several noisy, biased sensors measuring the same quantity into one estimate of
#' the true value with its uncertainty, without reference labels. Start with [ncam()],
#' then [predict.ncam()], [calibrate()] and [evaluate_fusion()]; see
#' `vignette("ncam")`.
#'
#' @docType package
#' @name ncam-package
#' @aliases ncam-package
#' @useDynLib ncam, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importFrom stats AIC coef fitted logLik nobs predict residuals
#' @keywords internal
NULL
