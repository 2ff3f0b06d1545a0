# The checks of ncam()'s formula and of its arguments that need no data, shared with ncam_by(),
# which applies them once before fitting its groups.

# ncam()'s checks of the arguments that need no data, one per argument, in the order ncam()
# applies them; each returns the value as ncam() uses it. ncam_by() applies them once to the
# arguments it hands to every group's fit, where an error would repeat in each group.
fit_argument_rules <- list(
  parameterization = function(x, call) match_choice(x, parameterizations, "parameterization", call = call),
  transform = function(x, call) match_choice(x, c("none", "log"), "transform", call = call),
  control = function(x, call) check_control(x, call = call),
  verbose = function(x, call) check_flag(x, "verbose", call = call),
  epochs = function(x, call) check_number(x, "epochs", min = 1, max = 1e6, integer = TRUE, call = call),
  stop_iter = function(x, call) check_number(x, "stop_iter", min = 0, max = 1e6, integer = TRUE, call = call),
  lambda_var = function(x, call) check_number(x, "lambda_var", min = 0, call = call),
  sigma_y2 = function(x, call) check_number(x, "sigma_y2", min = 0, call = call),
  # The optimiser's settings are checked where they are made.
  learn_rate = function(x, call) new_adam_settings(learn_rate = x, call = call)$learn_rate,
  batch_size = function(x, call) new_adam_settings(batch_size = x, call = call)$batch_size,
  hidden = function(x, call) {
    check_hidden(x, call = call)
    x
  },
  reference = function(x, call) {
    if (!is.null(x)) check_column_name(x, "reference", "ref", call = call)
    x
  },
  unit = function(x, call) {
    if (!is.null(x)) check_string(x, "unit", call = call)
    x
  },
  threads = function(x, call) resolve_threads(x, call = call),
  seed = function(x, call) resolve_seed(x, call = call)
)

# `args` (a named list of arguments of ncam()) with each argument that has a rule checked and
# resolved by it; errors name `call`.
check_fit_arguments <- function(args, call) {
  for (arg in intersect(names(fit_argument_rules), names(args))) {
    args[arg] <- list(fit_argument_rules[[arg]](args[[arg]], call))
  }
  args
}

check_fit_formula <- function(formula, call = parent.frame()) {
  if (is.character(formula) && length(formula) == 1L && !is.na(formula)) {
    ncam_abort(c("{.arg formula} must be a two-sided formula such as {.code a + b ~ rh + temp}, not a string.",
                 i = "Convert the text first: {.code stats::as.formula(\"{formula}\")}."),
               call = call)
  }
  if (!inherits(formula, "formula") || length(formula) != 3L) {
    ncam_abort("{.arg formula} must be a two-sided formula such as {.code a + b ~ rh + temp}.",
               call = call)
  }
}

# Arguments of ncam() given as expressions (`formulas[[i]]`, `hidden = h` in a loop) are kept
# in the fit's call as the values they had, so that update(fit) refits the same model rather
# than what those names hold by then (as the seed is kept). A formula written out, and c() or
# ncam_control() of constants, stay as written. `data` is left to check_fit_data().
frozen_arguments <- c("formula", "anchor", "reference", "hidden", "epochs", "learn_rate", "batch_size",
                      "stop_iter", "lambda_var", "sigma_y2", "parameterization", "transform", "control", "unit")
freeze_call_arguments <- function(call, values) {
  for (name in intersect(names(values), names(call))) {
    if (is.language(call[[name]]) && !written_out(call[[name]])) call[name] <- list(values[[name]])
  }
  call
}
written_out <- function(expr) {
  if (!is.call(expr)) return(FALSE)
  head <- deparse(expr[[1]])
  if (head == "~") return(TRUE)
  head %in% c("c", "ncam_control", "ncam::ncam_control") &&
    all(vapply(as.list(expr)[-1], function(arg) !is.language(arg) || written_out(arg), logical(1)))
}

# A grouped tibble's groups are not read (as by lm()): one model is fitted to all their rows.
# Said when there are several groups, unless they are the fit's `unit`; a group's rows alone
# (as ncam_by() hands them on) are one group.
warn_grouped_data <- function(data, unit = NULL, call = parent.frame()) {
  groups <- if (inherits(data, "grouped_df")) setdiff(names(attr(data, "groups")), ".rows")
  n_groups <- NROW(attr(data, "groups"))
  if (!length(groups) || n_groups < 2L || setequal(groups, unit)) return(invisible())
  by_txt <- if (length(groups) == 1L) paste0('"', groups, '"') else paste0("c(", paste0('"', groups, '"', collapse = ", "), ")")
  unit_txt <- if (length(groups) == 1L) paste0(" for one model with an offset per ", groups, ", {.code unit = ", by_txt, "};")
  cli::cli_warn(c(paste0("{.arg data} is grouped by {.field {groups}}, but groups are not read: one model is fitted to the rows of all ", n_groups, " groups."),
                  i = paste0("For one model per group use {.code ncam_by(by = ", by_txt, ")};", if (!is.null(unit_txt)) unit_txt else "",
                             " {.code dplyr::ungroup()} the data to fit them together without this warning.")),
                class = c("ncam_warning_grouped_data", "ncam_warning"), call = call)
}

# The call as the fit keeps it: arguments that arrived as values rather than expressions
# (do.call(ncam, list(data = d, ...)) puts the whole data frame in the call) are replaced by
# their names, so that a fit never carries a copy of its data.
lean_call <- function(call) {
  if (is.function(call[[1]])) call[[1]] <- quote(ncam)  # do.call(ncam, ...) puts the function there
  for (arg in setdiff(names(call), "")) {
    value <- call[[arg]]
    if (!is.language(value) && utils::object.size(value) > 1e4) call[[arg]] <- as.name(arg)
  }
  call
}
