#!/usr/bin/env bash
# Installs what building, checking and running ncam needs, only where it is missing:
# Debian's prebuilt r-cran-* packages when we are root on Debian, else CRAN.
set -euo pipefail
r_pkgs="Rcpp RcppEigen cli testthat knitr rmarkdown withr"
missing=$(Rscript -e "p <- strsplit('$r_pkgs', ' ')[[1]]; cat(p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)])")
need_tools=""
command -v pandoc >/dev/null 2>&1 || need_tools="$need_tools pandoc"
command -v qpdf >/dev/null 2>&1 || need_tools="$need_tools qpdf"
if [ -z "$missing" ] && [ -z "$need_tools" ]; then
  echo "All dependencies present."
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  debs="$need_tools"
  for p in $missing; do debs="$debs r-cran-$(echo "$p" | tr 'A-Z' 'a-z')"; done
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $debs >/dev/null || true
fi
# Whatever apt could not provide comes from CRAN.
Rscript -e "p <- strsplit('$r_pkgs', ' ')[[1]]; m <- p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)];
  if (length(m)) install.packages(m, repos = 'https://cloud.r-project.org')
  m <- p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)]
  if (length(m)) stop('could not install: ', paste(m, collapse = ', '))"
