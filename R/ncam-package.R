#' ncam: Neural Conjugate Aggregation of Low-Cost Sensors
#'
#' Fuses several noisy, biased sensors measuring the same quantity into one estimate of
#' the true value with its uncertainty, from the sensors' agreement alone or anchored to a
#' reference monitor observed during a co-location period (`ncam(reference = )`). Start
#' with [ncam()], then [predict.ncam()], [calibrate()], [evaluate_fusion()] and
#' [sensor_performance()], and [sensor_drift()] to check the sensors after the co-location;
#' see `vignette("ncam")` and `vignette("colocation")`.
#'
#' @docType package
#' @name ncam-package
#' @aliases ncam-package
#' @useDynLib ncam, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importFrom tibble tibble
#' @importFrom stats AIC coef fitted formula logLik model.frame nobs predict residuals sigma terms update
#' @importFrom stats deviance df.residual model.matrix vcov weights
#' @keywords internal
NULL
