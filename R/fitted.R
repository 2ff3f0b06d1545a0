# What a fit keeps about the data it was fitted to: the log-likelihood and a per-sensor
# summary, computed in blocks of rows so that per-row results never all exist at once, and
# never stored per row. fitted() and residuals() recompute from the data.

# The fitted rows' log-likelihood and the per-sensor means and sds of a, c and sigma over the
# `usable` rows (exact, from block moments combined), with their 10% and 90% quantiles from
# all usable rows, or from 100,000 evenly spaced ones when there are more. `x` and `readings`
# are lists of columns; `nll_offset` the transform's per-row Jacobian term.
fitted_summary <- function(fit, x, readings, usable, nll_offset, threads, block_rows = 16384L) {
  n <- length(usable)
  used <- which(usable)
  quantile_rows <- if (length(used) > 1e5) used[round(seq(1, length(used), length.out = 1e5))] else used
  moments <- list()
  sampled <- list()
  nll <- 0
  clamped <- matrix(0, 2L, length(model_sensors(fit)), dimnames = list(c("low", "high"), model_sensors(fit)))
  for (start in seq(1L, n, by = block_rows)) {
    idx <- start:min(n, start + block_rows - 1L)
    post <- ncam_posterior_columns(fit, take_rows(x, idx), take_rows(readings, idx), threads, noise_clamp = TRUE)
    keep <- usable[idx]
    nll <- nll + sum(post$nll[keep])
    clamped <- clamped + at_logvar_clamp(post$noise_clamp[keep, , drop = FALSE])
    heads <- list(a = post$a[keep, , drop = FALSE], c = post$c[keep, , drop = FALSE],
                  sigma = sqrt(post$sigma2[keep, , drop = FALSE]))
    in_sample <- idx[keep] %in% quantile_rows
    for (q in names(heads)) {
      moments[[q]] <- combine_moments(moments[[q]], heads[[q]])
      sampled[[q]] <- rbind(sampled[[q]], heads[[q]][in_sample, , drop = FALSE])
    }
  }
  offset <- if (length(nll_offset) == 1L) nll_offset * length(used) else sum(nll_offset[used])
  list(loglik = -(nll + offset), nobs = length(used),
       sensor_summary = summarise_heads(moments, sampled, model_sensors(fit)),
       clamped_share = clamped / max(1L, length(used)))
}

# Per sensor (columns), the number of rows whose noise variance the log-variance clamp sets to
# its lower and to its upper end, from the engine's report `noise_clamp` (rows x sensors, -1
# and 1 there; see ncam_posterior_columns()), which knows the raw value and the sensor's level
# the clamp acts relative to.
at_logvar_clamp <- function(noise_clamp) {
  rbind(low = colSums(noise_clamp < 0), high = colSums(noise_clamp > 0))
}

# Chan et al.'s pairwise update of column counts, means and sums of squared deviations.
combine_moments <- function(acc, block) {
  n_b <- nrow(block)
  if (n_b == 0L) return(acc)
  mean_b <- colMeans(block)
  m2_b <- colSums(sweep(block, 2L, mean_b)^2)
  if (is.null(acc)) return(list(n = n_b, mean = mean_b, m2 = m2_b))
  n <- acc$n + n_b
  delta <- mean_b - acc$mean
  list(n = n, mean = acc$mean + delta * n_b / n, m2 = acc$m2 + m2_b + delta^2 * acc$n * n_b / n)
}

# Per-sensor averages and spread of the sensor model over the rows used for fitting, from
# combined moments and the rows sampled for quantiles.
summarise_heads <- function(moments, sampled, sensors) {
  stat <- function(q) {
    m <- moments[[q]]
    x <- sampled[[q]]
    list(mean = unname(m$mean), sd = unname(sqrt(m$m2 / (m$n - 1))),
         q10 = apply(x, 2L, stats::quantile, 0.1, names = FALSE),
         q90 = apply(x, 2L, stats::quantile, 0.9, names = FALSE))
  }
  a <- stat("a")
  c <- stat("c")
  s <- stat("sigma")
  data.frame(sensor = sensors,
             a = a$mean, a_sd = a$sd, a_q10 = a$q10, a_q90 = a$q90,
             c = c$mean, c_sd = c$sd, c_q10 = c$q10, c_q90 = c$q90,
             sigma = s$mean, sigma_sd = s$sd, sigma_q10 = s$q10, sigma_q90 = s$q90,
             row.names = NULL)
}

# A fingerprint of the columns of `data` a fit read (`cols`), to notice when that data has
# changed since: the row count and, per column, the count, sum and sum of absolute values of its
# non-missing values (which do not depend on the order of the rows), a hash of its values in
# row order (which a re-sort or a swap of two values changes) and an order-free hash of its
# non-missing values (value_multiset_hash(): the same values in any order, to tell a re-sort
# from values changed in their last digits). Text and factors enter as the codes of their values
# sorted, and those values as a hash. Read a block of rows at a time.
data_fingerprint <- function(data, cols, block_rows = 65536L) {
  n <- nrow(data)
  text <- list()
  blocks <- list()
  value_sets <- list()
  sums <- vapply(cols, function(col) {
    v <- data[[col]]
    values <- if (!is.numeric(v) && !is.logical(v) && !inherits(v, c("Date", "POSIXct", "difftime"))) {
      u <- enc2utf8(as.character(unique(v)))
      u <- sort(u[!is.na(u)], method = "radix")  # the same order in every locale
      text[[col]] <<- rlang::hash(u)
      u
    }
    acc <- numeric(3)
    hashes <- character()
    value_set <- raw(8)
    for (start in seq(1L, n, by = block_rows)) {
      idx <- start:min(n, start + block_rows - 1L)
      # Values as doubles: a column stored another way (integer, ALTREP) hashes the same.
      x <- if (is.null(values)) plain_double(v[idx]) else as.double(match(as.character(v[idx]), values))
      ok <- !is.na(x)
      acc <- acc + c(sum(ok), sum(x[ok]), sum(abs(x[ok])))
      hashes <- c(hashes, rlang::hash(x))
      value_set <- call_engine(value_multiset_hash(x, value_set))
    }
    blocks[[col]] <<- rlang::hash(hashes)
    value_sets[[col]] <<- paste(value_set, collapse = "")
    acc
  }, c(count = 0, sum = 0, abs = 0))
  list(n = n, sums = sums, text = unlist(text), order = unlist(blocks), values = unlist(value_sets))
}

# The columns of `data` a fit read: its sensors, its reference and the variables of its
# covariates (with text covariates left out of the terms for having one value).
fitted_columns <- function(data, sensors, reference, design) {
  vars <- unique(c(all.vars(design$terms), names(design$constant_values)))
  c(sensors, reference, intersect(setdiff(vars, c(sensors, reference)), names(data)))
}

# Whether the columns of `data` that the model read hold the values it was fitted to: the same
# row count, text values and values in row order, or with `in_order = FALSE` the same counts
# and sums to `tolerance` of the column's sum of absolute values, in any order. A fit saved by
# an older version has another kind of `data_check`: never.
is_fitting_data <- function(object, data, in_order = TRUE, tolerance = 1e-12) {
  check <- object$data_check
  if (!has_fingerprint(object)) return(FALSE)
  cols <- colnames(check$sums)
  if (!all(cols %in% names(data)) || nrow(data) != check$n) return(FALSE)
  new <- data_fingerprint(data, cols)
  if (!identical(new$text, check$text)) return(FALSE)
  if (in_order) return(identical(new$order, check$order))
  all(sums_close(new$sums, check$sums, cols, tolerance))
}

# Per column of `cols`, whether two fingerprints' counts are equal and their sums equal (infinite
# ones included: Inf - Inf is NaN) or within `tolerance` of the column's sum of absolute values,
# as the same values summed in another order are.
sums_close <- function(new, old, cols, tolerance = 1e-12) {
  scale <- rep(old["abs", cols], each = 3L) * c(0, 1, 1)  # counts exact
  close <- new[, cols, drop = FALSE] == old[, cols, drop = FALSE] |
    abs(new[, cols, drop = FALSE] - old[, cols, drop = FALSE]) <= tolerance * scale
  apply(close, 2L, function(x) isTRUE(all(x)))
}

# The data a model was fitted to, found again as lm() does when it keeps no model frame: the
# call's `data` evaluated in the formula's environment, or for a fit made inside a function in
# that function's frame while the function runs (see fit_frames), then in the environment the
# fit keeps, whose parent is the function's (so `lapply(seeds, function(s) ncam(..., data =
# pa))` finds a global `pa`). Whatever is found must match the fingerprint.
fitting_data <- function(object, call = parent.frame()) {
  envs <- c(if (!is.null(object$data_key)) running_frames(object$data_key), list(environment(object$formula)))
  found <- NULL
  failure <- NULL
  evaluated <- FALSE
  for (env in envs) {
    data <- tryCatch(eval(object$call$data, env), error = function(e) e)
    if (inherits(data, "error")) {
      failure <- c(failure, conditionMessage(data))[1]
      next
    }
    evaluated <- TRUE
    if (is.data.frame(data) && is_fitting_data(object, data)) return(data)
    if (is.data.frame(data) && is.null(found)) found <- data
  }
  name <- data_label(object$call$data)
  where <- if (identical(environment(object$formula), globalenv())) "the global environment" else "the environment of its formula"
  why <- if (!is.null(found)) "{name} has changed since: {data_change(object, found)}." else
    if (evaluated) "{name} in {where} is not a data frame." else
      if (is.symbol(object$call$data)) "No object {name} exists in {where}." else "{name} cannot be evaluated in {where}: {failure}"
  ncam_abort(c("Cannot find {name}, the data {.arg object} was fitted to, as it was then.",
               x = why, i = "A fit keeps no copy of its data: pass it as {.arg newdata}."), call = call)
}

# Whether the fit's data_check is a fingerprint of this version's kind (a fit saved by an older
# version has another kind).
has_fingerprint <- function(object) {
  check <- object$data_check
  is.list(check) && is.matrix(check$sums) && !is.null(check$order)
}

# The call's data as a message names it: its name or expression, or "the data frame in its
# call" for a data frame written into the call itself (do.call() with a small one).
data_label <- function(data_expr) {
  if (!is.language(data_expr)) return("the data frame in its call")
  cli::format_inline("{.code {deparse1(data_expr)}}")
}

# How `data` differs from the data the model was fitted to (for the error of fitting_data()).
data_change <- function(object, data) {
  check <- object$data_check
  if (!is.list(check) || !is.matrix(check$sums)) return("the fit was saved by an older version")
  cols <- colnames(check$sums)
  lacking <- setdiff(cols, names(data))
  if (length(lacking)) return(cli::format_inline("it lacks column{?s} {.field {lacking}}"))
  if (nrow(data) != check$n) return(sprintf("it has %d rows, the fit had %d", nrow(data), check$n))
  new <- data_fingerprint(data, cols)
  changed <- cols[new$order[cols] != check$order[cols]]
  if (!length(changed)) return("its text values differ")
  close <- sums_close(new$sums, check$sums, changed)
  # A fit saved before the order-free hash was kept cannot tell a re-sort from tiny changes.
  if (is.null(check$values)) {
    return(cli::format_inline(if (all(close)) "the rows of {.field {changed}} are in another order, or their values differ slightly" else "values of {.field {changed}} differ"))
  }
  reordered <- changed[new$values[changed] == check$values[changed]]
  slight <- setdiff(changed[close], reordered)
  differ <- changed[!close]
  paste(c(if (length(differ)) cli::format_inline("values of {.field {differ}} differ"),
          if (length(slight)) cli::format_inline("values of {.field {slight}} differ slightly (their sums agree to 1e-12 of their size), as after writing to a file and reading it back"),
          if (length(reordered)) cli::format_inline("the rows of {.field {reordered}} are in another order")),
        collapse = "; ")
}

# How many of `rows` of `data` are rows of the data the model was fitted to: the same values in
# every column the two data frames share (time stamps among them, also as text or day numbers,
# so that equal readings on other days do not count; a Date and a POSIXct compared as
# instants); NA when that data cannot be found. For a model fitted with a reference, only its
# rows with a reference reading count: the others taught it nothing about the reference. The
# model's columns with units are compared in the units it fuses, converted alike on both sides
# (opc given in mg/m3 to the fit and in ug/m3 to calibrate() holds the same rows). A converted
# column of plain numbers, which could be in either unit (the reference, which calibrate() reads
# only for "split"), is left out of the comparison.
count_fitted_rows <- function(object, data, rows) {
  fitted <- tryCatch(match_units(object, fitting_data(object)), error = function(e) NULL)
  if (is.null(fitted)) return(NA_integer_)
  ambiguous <- plain_converted_columns(object, data)
  data <- match_units(object, data, unread = ambiguous)
  if (!is.null(object$reference)) fitted <- fitted[!is.na(fitted[[object$reference]]), , drop = FALSE]
  shared <- Filter(function(v) is.atomic(data[[v]]) && is.atomic(fitted[[v]]),
                   setdiff(intersect(names(data), names(fitted)), ambiguous))
  if (!all(setdiff(colnames(object$data_check$sums), ambiguous) %in% shared)) return(NA_integer_)
  sum(rows_found_in(data[rows, shared, drop = FALSE], fitted[shared]))
}

# A column as rows are compared by: text for text and factors (so factor codes do not matter)
# and for 64-bit integers (as doubles, ids beyond 2^53 would merge), doubles otherwise (times
# as their instants, fractions of seconds kept).
compared_as_text <- function(x) is.character(x) || is.factor(x) || inherits(x, "integer64")
comparable_values <- function(x, as_text = compared_as_text(x)) {
  if (inherits(x, "POSIXlt")) x <- as.POSIXct(x)
  if (inherits(x, "Date") && !as_text) return(as.double(x) * 86400)  # as the instant of its midnight UTC
  if (inherits(x, "integer64")) loadNamespace("bit64")  # its as.character() method
  if (as_text) as.character(x) else as.double(x)
}

# Which of `rows` of `data` repeat an earlier one of them in every vector column, NA matching
# NA (as data row numbers): each row gets one code, refined column by column through match()
# as in rows_found_in(); codes stay below (rows)^2, exact up to 9e7 rows.
repeated_rows <- function(data, rows = seq_len(nrow(data))) {
  code <- rep(1, length(rows))
  for (v in seq_along(data)) {
    x <- data[[v]]
    if (inherits(x, "POSIXlt")) x <- as.POSIXct(x)
    if (!is.atomic(x) || !is.null(dim(x))) next  # list and matrix columns are not compared
    x <- comparable_values(x[rows])
    values <- unique(x)
    refined <- (code - 1) * length(values) + match(x, values)
    code <- match(refined, unique(refined))
    if (!anyDuplicated(code)) return(integer(0))  # every row told apart already
  }
  rows[duplicated(code)]
}

# For each row of `a`, whether a row of `b` holds the same values (NA matching NA) in all their
# columns: each row gets one code, refined column by column through match() (text compared as
# text, so factor codes do not matter), dropping the rows that can no longer match. Times go
# first: they rule out most rows at once when `a` holds other days.
rows_found_in <- function(a, b) {
  times <- vapply(a, function(v) inherits(v, c("POSIXt", "Date")), logical(1))
  rows_a <- seq_len(nrow(a))
  rows_b <- seq_len(nrow(b))
  code_a <- rep(1, nrow(a))
  code_b <- rep(1, nrow(b))
  for (v in names(a)[order(!times)]) {
    as_text <- compared_as_text(a[[v]]) || compared_as_text(b[[v]])
    x <- comparable_values(a[[v]][rows_a], as_text)
    y <- comparable_values(b[[v]][rows_b], as_text)
    values <- unique(y)
    # Codes stay below (rows of b)^2, exact in doubles.
    code_a <- (code_a - 1) * length(values) + match(x, values)
    code_b <- (code_b - 1) * length(values) + match(y, values)
    codes <- unique(code_b)
    code_a <- match(code_a, codes)
    code_b <- match(code_b, codes)
    keep_a <- !is.na(code_a)
    keep_b <- code_b %in% code_a
    rows_a <- rows_a[keep_a]
    code_a <- code_a[keep_a]
    rows_b <- rows_b[keep_b]
    code_b <- code_b[keep_b]
    if (!length(rows_a)) break
  }
  seq_len(nrow(a)) %in% rows_a
}

# Frames of the functions that made fits, by the key the fits store (`data_key`), each held by a
# weak reference: the fit itself stays plain data, which saveRDS() writes and reads back
# identical(), and keeps no frame alive. Keys whose frames are all gone are dropped when the
# registry has doubled since the last time it was pruned.
fit_frames <- new.env(parent = emptyenv())
fit_frames$refs <- new.env(parent = emptyenv())
fit_frames$prune_at <- 64L

# Registers `env`, the frame a fit was made in, with the environments enclosing it below the
# global one (a lambda's data often live in its caller: knitr's or testthat's environment,
# another function), and returns the fit's key: from the data's fingerprint and the call's
# `data`, so that two fits of the same data by the same code are identical.
remember_frame <- function(env, call, data_check) {
  refs <- fit_frames$refs
  if (length(refs) >= fit_frames$prune_at) {
    for (key in ls(refs, all.names = TRUE)) {
      if (!length(live_frames(key))) rm(list = key, envir = refs)
    }
    fit_frames$prune_at <- max(64L, 2L * length(refs))
  }
  key <- rlang::hash(list(call$data, data_check))
  known <- live_frames(key)
  fresh <- Filter(function(frame) !any(vapply(known, identical, logical(1), frame)), frames_below_top(env))
  if (length(fresh)) {
    refs[[key]] <- c(Filter(function(ref) !is.null(rlang::wref_key(ref)), refs[[key]]),
                     lapply(fresh, rlang::new_weakref))
  }
  key
}

# The frames registered under `key` that still exist.
live_frames <- function(key) {
  frames <- lapply(fit_frames$refs[[key]], rlang::wref_key)
  Filter(Negate(is.null), frames)
}

# Those of them still in use (on the call stack: a running function, or an environment that
# code is evaluated in, such as knitr's). The frame of a function that has returned lives on
# until the next garbage collection: looking there would make predict(fit) work or fail with
# the timing of gc().
running_frames <- function(key) {
  stack <- sys.frames()
  Filter(function(env) any(vapply(stack, identical, logical(1), env)), live_frames(key))
}
