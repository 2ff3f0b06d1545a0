# A chunk generator, the function input of predict_chunks(): the rows of `d`, `size` at a time,
# then NULL.
row_chunks <- function(d, size) {
  i <- 0
  function() {
    rows <- i * size + seq_len(size)
    rows <- rows[rows <= nrow(d)]
    i <<- i + 1
    if (length(rows)) d[rows, , drop = FALSE] else NULL
  }
}
