# Cluster-robust (by fit) summary of coverage indicators.
# se_binom: naive binomial sqrt(p(1-p)/N); se_mc: cluster SE over fits (counts fit-to-fit variation).
covsum <- function(df, var, by = NULL, nominal_col = "level") {
  keys <- c(nominal_col, by)
  sp <- split(df, df[keys], drop = TRUE)
  out <- lapply(sp, function(g) {
    y <- g[[var]]; N <- length(y); p <- mean(y)
    per <- tapply(y - p, g$rep, sum)
    se_mc <- sqrt(sum(per^2) * length(per) / (length(per) - 1)) / N
    data.frame(g[1, keys, drop = FALSE], what = var, N = N, fits = length(per), achieved = round(p, 4),
               se_binom = round(sqrt(p * (1 - p) / N), 4), se_mc = round(se_mc, 4),
               z = round((p - g[[nominal_col]][1]) / se_mc, 1), row.names = NULL)
  })
  do.call(rbind, out)
}
