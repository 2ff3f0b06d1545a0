# Checks of the arguments of calibrate() (and of calibrate() of fits by group).

# calibrate() takes its rows as `data`, as ncam() does; predict() of the calibration takes new
# rows as `newdata`.
calibrate_data_hints <- stats::setNames(rep("Did you mean {.arg data}? {.fn calibrate} takes the calibration rows as {.arg data}; {.arg newdata} is for {.fn predict} of the calibration.", 2),
                                        c("newdata", "new_data"))

# A calibration without rows: R's "argument "data" is missing" would come from deep inside.
check_data_given <- function(is_missing, call = parent.frame()) {
  if (is_missing) {
    ncam_abort(c("{.arg data} is required: the calibration rows, held out from training.",
                 i = "Such as {.code calibrate(fit, data = calibration_rows)}; {.fn split_blocks} makes them."),
               call = call)
  }
}

# Arguments of the draws (`given`: the names of those the user gave), which the methods that draw
# nothing would silently ignore: an error for them.
refuse_draw_arguments <- function(method, given, call = parent.frame()) {
  if (!length(given) || method %in% c("mc_model", "mc_empirical")) return(invisible())
  ncam_abort(c("{.arg {given}} appl{?ies/y} to the Monte Carlo methods ({.val mc_model}, {.val mc_empirical}), not {.val {method}}.",
               i = "Leave {cli::qty(length(given))}{?it/them} out: {.val {method}} draws no pseudo-labels, and its threshold is split conformal's."),
             call = call)
}
