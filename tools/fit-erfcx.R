# Coefficients of the double-precision GELU (src/ncam/gelu.hpp, kErfcx): a Chebyshev series of
# erfcx(y) = exp(y^2) erfc(y), y >= 0, in t = (y - k) / (y + k), which maps [0, Inf) onto
# [-1, 1) (Weideman's map). Fitted at Chebyshev nodes from R's pnorm(). Run with
#   Rscript tools/fit-erfcx.R
# and paste the printed array. tests/cpp (test_gelu) checks the result against std::erfc.
k <- 3.5
n_terms <- 22L

erfcx <- function(y) {
  out <- numeric(length(y))
  big <- y > 25
  # Beyond y = 25 the asymptotic series 1 / (y sqrt(pi)) sum (-1)^m (2m-1)!! / (2 y^2)^m.
  yb <- y[big]
  s <- 1
  term <- 1
  for (m in 1:8) {
    term <- -term * (2 * m - 1) / (2 * yb^2)
    s <- s + term
  }
  out[big] <- s / (yb * sqrt(pi))
  # Elsewhere exp(y^2) * 2 pnorm(-y sqrt(2)), with y^2 split exactly (hi has 20 fraction bits)
  # so that exp(y^2) does not inherit the rounding of y^2.
  ys <- y[!big]
  hi <- round(ys * 2^20) / 2^20
  lo <- ys - hi
  out[!big] <- exp(hi * hi) * exp(2 * hi * lo + lo * lo) * 2 * stats::pnorm(-ys * sqrt(2))
  out
}

j <- 0:(n_terms - 1L)
t <- cos(pi * (j + 0.5) / n_terms)
f <- erfcx(k * (1 + t) / (1 - t))
coef <- vapply(j, function(m) 2 / n_terms * sum(f * cos(m * pi * (j + 0.5) / n_terms)), numeric(1))
coef[1] <- coef[1] / 2
cat(sprintf("constexpr double kErfcxMap = %.1f;\n", k))
cat(sprintf("constexpr double kErfcx[%d] = {\n", n_terms))
cat(paste0("    ", sprintf("%.17e", coef), collapse = ",\n"), "};\n")
