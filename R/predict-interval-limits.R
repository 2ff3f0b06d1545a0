#' @rdname predict.ncam
#' @section Where intervals fail:
#' An interval's width comes from the covariates alone: it does not grow with the level of the
#' readings, nor where a row's sensors disagree more than their learned noise allows
#' (`.disagreement`), nor with `.extrapolation`. A model fitted with a `reference` learns its calibration from the
#' co-location period, and its intervals hold only as far as the rows that follow resemble it.
#' After a co-location at the start of the record (`bench/interval_levels.R` in the source
#' repository, seeds 1-3), 90 % prediction intervals covered 0.896 of the later PurpleAir days
#' with an estimate below its median but 0.617 of the 2.5 % with the highest estimates (above
#' 19.1 ug/m3), where the estimate was on average 3.1 ug/m3 below the reference; on SensEURCity
#' Antwerp (the first 20 % of each station's hours, summer) 0.876 below the median and 0.199 in
#' the top 2.5 %, 7.9 ug/m3 low. There the error is a bias the co-location period did not teach,
#' not noise: `lm(ref ~ mean of the sensors + covariates)` fitted on the same rows fares about as
#' badly (0.661 and 0.208), and split conformal intervals from [calibrate()], which learn their width
#' from co-location rows too, do not help (0.603 and 0.147). Rows whose sensors disagree far
#' beyond their learned noise are the other weak spot: where `.disagreement` exceeds 16 (see
#' section Sensor disagreement), intervals covered 0.390 (PurpleAir) and 0.232 (Antwerp).
#' Co-locate over the conditions and concentrations the sensors will meet (an episode, both
#' seasons), watch `.extrapolation` and `.disagreement`, and check the sensors against each
#' other with [sensor_drift()] and against a reference again when one is available.
#' @name predict.ncam
NULL
