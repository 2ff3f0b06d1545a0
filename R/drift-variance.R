# The variance of a period's mean z in sensor_drift(): the noise of its readings and the
# variation between periods.

# The two parts of the variance of a period's mean z. Within, per unit (a failed unit's noisy
# z must not hide the others' drift): the variance of z around its period's mean, times
# (1 + rho) / (1 - rho) for the lag-1 autocorrelation rho of consecutive readings of a period
# (rho at least 0), to be divided by n; a unit with fewer than `min_within_df` degrees of
# freedom takes the value pooled over units. Readings of a unit at one time (boxes side by
# side) have no order: their products enter as the mean over every order of them (see
# tie_lag_products()). Between, pooled over units: what the periods' means vary by beyond that
# (slow weather and pollution regimes the model does not follow), from their spread within the
# stretches between steps (see between_periods()); df, the degrees of freedom of that spread,
# sets the t distribution of the test. `within` is indexed by unit code.
period_spread <- function(z, cell, unit_of_row, time, periods, min_within_df = 30L) {
  ok <- !is.na(z)
  if (!all(ok)) {
    z <- z[ok]
    cell <- cell[ok]
    unit_of_row <- unit_of_row[ok]
    time <- time[ok]
  }
  rm(ok)
  n_units <- max(c(periods$unit, 0L))
  none <- list(within = rep(NA_real_, n_units), between = NA_real_, df = NA_real_)
  if (length(z) == 0L) return(none)
  # z around its cell's mean, as stats::ave() centred it (mean() of the same values in order).
  code <- match(cell, unique(cell))
  centred <- z - group_means(z, code_factor(code, max(code)))[code]
  lags <- tie_lag_products(centred, cell, time)
  squares <- centred^2
  rm(centred, z)
  # From the squares and lag products of some rows, and the number of cells they fall in.
  noise_variance <- function(squared, products, cells) {
    degrees <- length(squared) - cells
    if (degrees < 2L) return(c(variance = NA_real_, degrees = degrees))
    rho <- min(max(sum(products) / sum(squared), 0), 0.99)
    c(variance = sum(squared) / degrees * (1 + rho) / (1 - rho), degrees = degrees)
  }
  pooled <- noise_variance(squares, lags$products, max(code))
  if (is.na(pooled[["variance"]])) return(none)
  within <- rep(pooled[["variance"]], n_units)
  ties_of_unit <- split(seq_along(lags$products), unit_of_row[lags$first])
  for (rows in split(seq_along(squares), unit_of_row)) {
    unit <- unit_of_row[rows[1]]
    own <- noise_variance(squares[rows], lags$products[ties_of_unit[[as.character(unit)]]], length(unique(code[rows])))
    if (own[["degrees"]] >= min_within_df) within[unit] <- own[["variance"]]
  }
  used <- periods$n >= 3L
  by_time <- order(periods$unit[used], periods$start[used])
  c(list(within = within),
    between_periods(periods$mean_z[used][by_time], periods$unit[used][by_time], periods$n[used][by_time], within))
}

# Each group's mean of x, groups a factor (code_factor()): mean() of the group's values other
# than NA, in their order, as tapply(x, group, mean, na.rm = TRUE) gives it.
group_means <- function(x, groups) vapply(split(x, groups), mean, numeric(1), na.rm = TRUE, USE.NAMES = FALSE)

# Codes 1..levels (NA: in no group) as a factor, for split(): as.factor() would sort and
# match a million codes again, tapply() label every group.
code_factor <- function(code, levels) structure(code, levels = as.character(seq_len(levels)), class = "factor")

# The lag-1 products of readings x (centred, sorted by unit and time; cells of unit and period),
# one per tie: the readings of one cell at one time, m of them with sum S and sum of squares Q.
# Products of consecutive readings in a random order of each tie, in expectation: within a
# tie, (m - 1) pairs of two of its readings, (S^2 - Q) / m; across to the next time of the
# cell, the two ties' means. For a time of one reading that is x_t x_(t+1), as without ties.
# `first`: the first row of each tie.
tie_lag_products <- function(x, cell, time) {
  later <- seq_along(x)[-1L]
  same_cell <- cell[later] == cell[later - 1L]
  if (!any(same_cell & time[later] == time[later - 1L])) {
    # One reading per time, the usual case: each reading is its tie, with no pair within it.
    products <- x * c(x[later], 0)
    products[!c(same_cell, FALSE)] <- 0
    return(list(products = products, first = seq_along(x)))
  }
  tie <- cumsum(c(TRUE, !same_cell | time[later] != time[later - 1L]))
  rm(later, same_cell)
  size <- tabulate(tie)
  sums <- as.vector(rowsum(x, tie, reorder = FALSE))
  within_tie <- (sums^2 - as.vector(rowsum(x^2, tie, reorder = FALSE))) / size
  first <- which(!duplicated(tie))
  means <- sums / size
  same_cell <- c(cell[first][-1] == cell[first][-length(first)], FALSE)
  list(products = within_tie + ifelse(same_cell, means * c(means[-1], 0), 0), first = first)
}

# The variance between periods beyond their noise, pooled over units, from means (in time
# order within each unit), their units and numbers of readings. Each unit's series is cut into
# stretches where its level steps (step_stretches()), so that a drift's own shift does not count
# as variation between periods, while regimes that outlast a period, which differences of
# consecutive periods would miss, do. Within a stretch of L periods, the squared deviations from
# its mean have expectation (1 - 1/L) (between + noise of the period): between is their sum
# beyond the noise, over the degrees of freedom sum(1 - 1/L), the number of periods less the
# number of stretches. The scale that sets where a step is: the mean of squared differences
# of consecutive means, each capped at the 99th percentile of its distribution at a scale set
# by the median (the cap costs the mean 1.8 %, given back by `capped_share`), so that the steps
# themselves barely move it. Fewer than three degrees of freedom say nothing reliable: no test.
between_periods <- function(means, unit, n, within) {
  consecutive <- which(unit[-1] == unit[-length(unit)])
  if (length(consecutive) < 3L) return(list(between = NA_real_, df = NA_real_))
  difference2 <- (means[consecutive + 1L] - means[consecutive])^2
  cap <- stats::qchisq(0.99, 1) * stats::median(difference2) / stats::qchisq(0.5, 1)
  mean_variance <- mean(pmin(difference2, cap)) / capped_share / 2
  # split() keeps the units in the order of their codes, as means are sorted.
  first <- unlist(lapply(split(means, unit), step_stretches, mean_variance = mean_variance), use.names = FALSE)
  new_stretch <- c(TRUE, unit[-1] != unit[-length(unit)] | first[-1] != first[-length(first)])
  stretch <- cumsum(new_stretch)
  size <- tabulate(stretch)[stretch]
  df <- length(means) - max(stretch)
  if (df < 3L) return(list(between = NA_real_, df = NA_real_))
  deviation <- means - stats::ave(means, stretch)
  noise <- within[unit] / n
  list(between = max(0, sum(deviation^2 - noise * (1 - 1 / size)) / df), df = df)
}

# Binary segmentation of one unit's period means x: a stretch is cut where its two sides' means
# differ most (z = sqrt(k (L - k) / L) times the difference of the means of its first k and last
# L - k periods, over the sd of one mean), if |z| lies beyond the two-sided `step_level`
# quantile of the normal, Bonferroni-corrected over the L - 1 places of the cut; then each
# side in turn. Returns, for every period in order, the position of the first period of its
# stretch.
step_stretches <- function(x, mean_variance, step_level = 0.05) {
  first <- integer(length(x))
  pending <- list(seq_along(x))
  while (length(pending)) {
    i <- pending[[1]]
    pending <- pending[-1]
    L <- length(i)
    if (L > 1L) {
      k <- seq_len(L - 1L)
      sums <- cumsum(x[i])
      statistic <- k * (L - k) / L * (sums[k] / k - (sums[L] - sums[k]) / (L - k))^2
      cut <- which.max(statistic)
      if (statistic[cut] > mean_variance * stats::qchisq(1 - step_level / (L - 1L), 1)) {
        pending <- c(pending, list(i[seq_len(cut)], i[-seq_len(cut)]))
        next
      }
    }
    first[i] <- i[1]
  }
  first
}

# The mean of min(X, q99) for X chi-square with 1 degree of freedom, q99 its 99th percentile.
capped_share <- local({
  q99 <- stats::qchisq(0.99, 1)
  1 - stats::pchisq(q99, 3, lower.tail = FALSE) + q99 * 0.01
})
