# How predict_chunks() puts its output together: the same CSV file whichever writer is
# installed, never a half-written one, or the parts combined in memory.

# Writes CSV: data.table::fwrite where installed (fast), else utils::write.table.
write_csv_chunk <- function(x, path, append, fwrite = requireNamespace("data.table", quietly = TRUE)) {
  # Date-times as ISO 8601 in UTC whichever writer runs: fwrite() writes them so, while
  # write.table() would write the clock time of the column's zone without its offset.
  x[] <- lapply(x, function(col) if (inherits(col, "POSIXt")) iso_utc(col) else col)
  if (fwrite) {
    data.table::fwrite(x, path, append = append, col.names = !append, na = "NA")
  } else {
    utils::write.table(x, path, sep = ",", row.names = FALSE, col.names = !append,
                       append = append, na = "NA", qmethod = "double")
  }
}

# "2024-01-01T05:00:00Z", with microseconds when a time has a fraction of a second.
iso_utc <- function(time) {
  time <- as.POSIXct(time)
  seconds <- as.numeric(time)
  whole <- all(is.na(seconds) | seconds == floor(seconds))
  format(time, if (whole) "%Y-%m-%dT%H:%M:%SZ" else "%Y-%m-%dT%H:%M:%OS6Z", tz = "UTC")
}

# Output written to `<out>.part` and renamed to `out` once complete, so that a failed run leaves
# no half-written file: callers run abandon() on exit, which removes the part unless finish() ran.
part_output <- function(out) {
  part <- paste0(out, ".part")
  finished <- FALSE
  list(write = function(x, append) write_csv_chunk(x, part, append = append),
       finish = function() {
         if (!file.exists(part)) file.create(part)  # nothing to write: an empty file
         if (file.exists(out)) file.remove(out)
         file.rename(part, out)
         finished <<- TRUE
       },
       abandon = function() if (!finished) unlink(part))
}

# Row-binds tibbles with the same columns, column by column (c() keeps dates and factors).
bind_parts <- function(parts) {
  parts <- Filter(function(p) !is.null(p) && ncol(p) > 0L, parts)
  if (length(parts) == 0L) return(tibble::tibble())
  columns <- lapply(stats::setNames(nm = names(parts[[1]])), function(col) {
    pieces <- unname(lapply(parts, function(p) p[[col]]))
    # A chunk missing a column throughout may hold it as logical NA: such pieces take the class
    # of the others, as c() of NA and dates would give numbers.
    blank <- vapply(pieces, is_all_missing, logical(1))
    if (any(blank) && !all(blank)) {
      typed <- pieces[!blank][[1]]
      pieces[blank] <- lapply(pieces[blank], function(v) typed[rep(NA_integer_, length(v))])
    }
    # c() of a factor and text would give the factor's codes: such a column becomes text.
    # A kept time read as days in one file (midnights alone) and as date-times in another.
    dates <- vapply(pieces, inherits, logical(1), "Date")
    if (any(dates) && any(vapply(pieces, inherits, logical(1), "POSIXct"))) pieces[dates] <- lapply(pieces[dates], as.POSIXct)
    factors <- vapply(pieces, is.factor, logical(1))
    if (any(factors) && !all(factors)) pieces <- lapply(pieces, function(v) if (is.factor(v)) as.character(v) else v)
    do.call(c, pieces)
  })
  tibble::new_tibble(columns, nrow = sum(vapply(parts, nrow, integer(1))))
}
