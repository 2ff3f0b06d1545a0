source("bench/coverage_sim/summ.R")
f <- commandArgs(TRUE)[1]
d <- readRDS(f)
d$period <- cut(d$tpos, c(0, 1/3, 2/3, 1), labels = c("first third", "middle third", "last third"))
d$mm <- paste(d$split, d$method)
s <- covsum(d, "cov", "mm")
w <- aggregate(cbind(width, bias = err) ~ mm, d, mean)
print(merge(s, w)[, c("mm", "N", "fits", "achieved", "se_mc", "z", "width", "bias")], row.names = FALSE)
cat("\nby time period of the test rows (blocks split only)\n")
b <- d[d$split == "blocks", ]
a <- covsum(b, "cov", c("mm", "period"))
print(reshape(a[, c("mm", "period", "achieved")], idvar = "period", timevar = "mm", direction = "wide"), row.names = FALSE)
cat("per-fit coverage range (blocks):\n"); print(tapply(b$cov, list(b$rep, b$method), mean) |> apply(2, range) |> round(3))
cat("ncal rows: ", range(d$ncal), "\n")
