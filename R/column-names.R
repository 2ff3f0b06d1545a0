# Checks of the arguments that name columns of the data: a name given unquoted, the column's
# values instead of its name, and a name that the data lacks (with the names closest to it).

# Arguments that take column names, each checked before anything evaluates it: an unquoted name
# (`estimate = pm`) is evaluated as a variable, and R's "object 'pm' not found" does not say what
# the argument wants; one that R finds as a function (`date = date`) is not a column either.
# `args` may name arguments the caller takes in its `...` (ncam_by() passes ncam()'s on),
# checked when given.
check_column_name_args <- function(args, env = parent.frame(), call = parent.frame()) {
  dots <- if (exists("...", envir = env, inherits = FALSE)) as.list(substitute(list(...), env))[-1] else list()
  for (arg in args) {
    formal <- exists(arg, envir = env, inherits = FALSE)
    at <- match(arg, names(dots))
    if (!formal && is.na(at)) next
    given <- if (formal) do.call(substitute, list(as.name(arg), env)) else dots[[at]]
    value <- tryCatch(if (formal) get(arg, envir = env) else eval(call("...elt", at), env), error = function(e) {
      # Not given, and without a default (a default would have been found).
      if (formal && eval(call("missing", as.name(arg)), env)) {
        ncam_abort("{.arg {arg}} is required: the name of a column of {.arg data}, as a string.", call = call)
      }
      abort_unquoted_column(arg, given, conditionMessage(e), call)
    })
    if (is.function(value) && is.symbol(given)) {
      abort_unquoted_column(arg, given, sprintf("R found `%s` as a function, not a column name.", as.character(given)), call)
    }
  }
}

# The error for a column-name argument given as an expression that is no string: the fix when
# it is a name or c() of names (`by = c("site", "day")`).
abort_unquoted_column <- function(arg, given, problem, call) {
  text <- paste(deparse(given), collapse = " ")
  fix <- quoted_names(given)
  if (is.null(fix)) {
    ncam_abort(c("{.arg {arg}} takes a column name as a string, and {.code {text}} could not be evaluated.",
                 x = "{problem}"), call = call)
  }
  what <- if (is.symbol(given)) "a column name as a string" else "column names as strings"
  ncam_abort(c("{.arg {arg}} takes {what}: {.code {arg} = {fix}}, not {.code {arg} = {text}}.",
               x = "{problem}"), call = call)
}

# `expr` with its names written as strings (`site` as "site", `c(site, day)` as c("site", "day")),
# or NULL for an expression that is not a name or c() of names and strings.
quoted_names <- function(expr) {
  name_text <- function(e) if (is.symbol(e)) as.character(e) else if (is.character(e) && length(e) == 1L) e
  if (is.symbol(expr)) return(encodeString(as.character(expr), quote = "\""))
  if (!is.call(expr) || !identical(expr[[1]], as.name("c")) || length(expr) < 2L) return(NULL)
  parts <- lapply(as.list(expr)[-1], name_text)
  if (any(vapply(parts, is.null, logical(1)))) return(NULL)
  sprintf("c(%s)", paste(encodeString(unlist(parts), quote = "\""), collapse = ", "))
}

# An argument that names one column: a single string. The column's values instead of its name
# (`reference = d$ref`) would otherwise fail deep inside with an error that names neither;
# `example` is a plausible name for the fix.
check_column_name <- function(x, arg, example, call = parent.frame()) {
  if (is.character(x) && length(x) == 1L && !is.na(x) && nzchar(x)) return(invisible(x))
  given <- if (is.character(x) && length(x) == 1L) encodeString(x, quote = "\"") else
    cli::format_inline("{.obj_type_friendly {x}}")
  values <- if (length(x) > 1L) " (the column's values?)" else ""
  ncam_abort(c("{.arg {arg}} must be a single column name, not {given}{values}.",
               i = "Give the column's name, such as {.code {arg} = \"{example}\"}."),
             call = call)
}

# Every name in `cols` must be a column of `data`. `arg` names what asked for the columns;
# `data_arg`, when given, is the data frame that lacks them (such as `newdata`); `hint`, cli
# text that may name `missing`, is added to the error, and so are column_hints().
check_columns <- function(data, cols, arg, call = parent.frame(), data_arg = NULL, hint = NULL) {
  missing <- setdiff(cols, names(data))
  if (length(missing) > 0L) {
    msg <- if (is.null(data_arg)) {
      "{.arg {arg}} names {cli::qty(length(missing))}column{?s} not found in the data: {.val {missing}}."
    } else {
      "{.arg {data_arg}} lacks {cli::qty(length(missing))}column{?s} {.val {missing}} used by the model."
    }
    ncam_abort(c(msg, i = hint, column_hints(missing, names(data), data_arg, taken = cols)), call = call)
  }
  invisible(cols)
}

# The columns listed in full in an error about a column name, up to cli's own limit (20); of
# more, only those named close to the missing ones are, so that none is hidden behind a "...".
few_columns <- 20L

# Bullets for an error about the column names `missing`, which `available` (the data's names)
# lacks, already formatted (braces in names stay text): for each missing name its closest
# available names, "Did you mean ...?", then the available columns when few, else their number;
# `data_arg` names the data frame (`newdata`), if not the data; `taken`, names the same call
# uses for something else (the other sensors of the model), never suggested. Any check of column
# names in the data gives these (check_columns() and the checks that word their own error).
column_hints <- function(missing, available, data_arg = NULL, taken = character()) {
  close <- lapply(missing, close_names, available = setdiff(available, taken))
  one <- length(missing) == 1L
  lines <- unlist(Map(function(name, near) {
    if (!length(near)) return(NULL)
    if (one) cli::format_inline("Did you mean {.or {.val {near}}}?") else
      cli::format_inline("For {.val {name}}, did you mean {.or {.val {near}}}?")
  }, missing, close, USE.NAMES = FALSE))
  lines <- utils::head(lines, 5L)
  data <- if (is.null(data_arg)) "the data" else cli::format_inline("{.arg {data_arg}}")
  listed <- if (!length(available)) {
    paste0(toupper(substr(data, 1, 1)), substring(data, 2), " has no columns.")
  } else if (length(available) <= few_columns) {
    cli::format_inline("Available columns: {.val {available}}.")
  } else if (length(lines)) {
    cli::format_inline("The {length(available)} columns of {data} are too many to list; those named above are the closest.")
  } else {
    cli::format_inline("None of the {length(available)} columns of {data} has a name close to {.or {.val {missing}}}; they are too many to list.")
  }
  lines <- gsub("([{}])", "\\1\\1", c(lines, listed))
  stats::setNames(lines, rep("i", length(lines)))
}

# Up to `n` names of `available` close to `name`: those equal to it but for case; else, for a
# name of 4 or more characters, those within a few edits of it (utils::adist(), case ignored:
# one edit up to 9 characters, a fifth of them beyond), nearest first (between names of 2 or 3
# characters one edit is another quantity: `x1` and `x2`, `ws` and `wd`); else those that hold it
# or that it holds (`temp` and `air_temp`), case ignored, for names of 2 or more characters.
close_names <- function(name, available, n = 3L) {
  if (!length(available) || is.na(name)) return(character())
  lower <- tolower(available)
  key <- tolower(name)
  same <- available[lower == key]
  if (length(same)) return(utils::head(same, n))
  if (nchar(key) >= 4L) {
    edits <- drop(utils::adist(key, lower))
    near <- which(edits <= max(1, nchar(key) %/% 5))
    if (length(near)) return(utils::head(available[near[order(edits[near])]], n))
  }
  if (nchar(key) < 2L) return(character())
  holds <- (nchar(lower) >= 2L) & (grepl(key, lower, fixed = TRUE) |
    vapply(lower, function(a) grepl(a, key, fixed = TRUE), logical(1)))
  utils::head(available[holds], n)
}
