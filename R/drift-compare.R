# sensor_drift()'s comparison of every reading with what the model predicts for it from the
# other sensors of its row (leave one sensor out).

# The posterior's per-row outputs that the comparison reads (every sensor's heads and
# readings); the others are let go before its matrices are made.
drift_posterior <- function(object, newdata, has_reference, threads, call) {
  post <- ncam_posterior(object, newdata, threads, use_reference = has_reference, raw = TRUE, call = call)
  post[c("b", "a", "c", "sigma2", "ok", "mu", "mu0", "s0_2")]
}

# Leave-one-sensor-out predictive comparison of every reading: z (standardized) and shift (in
# fused units), rows x sensors, NA where the sensor, every other sensor or the estimate is
# missing. The posterior without sensor j is the prior plus the other sensors' information.
# Rows are independent, so they are compared in blocks: at a million rows the temporaries of
# whole columns (a dozen rows x sensors matrices) set sensor_drift()'s peak memory.
leave_one_sensor_out <- function(post, block_rows = 65536L) {
  rows_total <- nrow(post$b)
  # Two matrices, not z <- shift <- matrix(): one bound to both would be copied when written.
  unset <- function() matrix(NA_real_, rows_total, ncol(post$b), dimnames = list(NULL, colnames(post$b)))
  z <- unset()
  shift <- unset()
  for (start in seq_len(ceiling(rows_total / block_rows)) * block_rows - block_rows + 1L) {
    rows <- start:min(rows_total, start + block_rows - 1L)
    block <- compare_block(post, rows)
    z[rows, ] <- block$z
    shift[rows, ] <- block$shift
  }
  list(z = z, shift = shift)
}

# z and shift (rows x sensors) of the rows `rows` of the posterior `post`.
compare_block <- function(post, rows) {
  b <- post$b[rows, , drop = FALSE]
  a_all <- post$a[rows, , drop = FALSE]
  c_all <- post$c[rows, , drop = FALSE]
  sigma2_all <- post$sigma2[rows, , drop = FALSE]
  observed <- !is.na(b) & post$ok[rows] & !is.na(post$mu[rows])
  # Per row, the information a^2 / sigma^2 and pull a (b - c) / sigma^2 of its readings summed;
  # each sensor's own is taken out below.
  summed <- function(x) {
    x[!observed] <- 0
    rowSums(x)
  }
  s0_2 <- post$s0_2[rows]
  all_info <- 1 / s0_2 + summed(a_all^2 / sigma2_all)
  all_pull <- post$mu0[rows] / s0_2 + summed(a_all * (b - c_all) / sigma2_all)
  z <- matrix(NA_real_, nrow(b), ncol(b))
  shift <- matrix(NA_real_, nrow(b), ncol(b))
  for (j in seq_len(ncol(b))) {
    others <- rowSums(observed[, -j, drop = FALSE]) > 0
    use <- observed[, j] & others
    a <- a_all[use, j]
    c <- c_all[use, j]
    sigma2 <- sigma2_all[use, j]
    reading <- b[use, j]
    precision <- all_info[use] - a^2 / sigma2
    mean_theta <- (all_pull[use] - a * (reading - c) / sigma2) / precision
    predicted <- a * mean_theta + c
    z[use, j] <- (reading - predicted) / sqrt(a^2 / precision + sigma2)
    shift[use, j] <- (reading - c) / a - mean_theta
  }
  list(z = z, shift = shift)
}
