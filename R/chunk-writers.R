# How predict_chunks() writes its CSV output: the same file whichever writer is installed, and
# never a half-written one.

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
