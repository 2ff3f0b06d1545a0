#!/usr/bin/env bash
# Installs what building, checking and running ncam needs, only where it is missing: every
# package DESCRIPTION names in Imports, LinkingTo and Suggests (so the whole test suite and the
# vignettes run) and in Config/Needs/development (roxygen2, for CI's check that man/ matches
# the roxygen comments), from Debian's prebuilt r-cran-* packages when we are root on Debian,
# else CRAN.
set -euo pipefail
cd "$(dirname "$0")/.."
r_pkgs=$(Rscript -e 'd <- read.dcf("DESCRIPTION", fields = c("Imports", "LinkingTo", "Suggests", "Config/Needs/development"))
  p <- trimws(sub("\\(.*", "", unlist(strsplit(d[!is.na(d)], ","))))
  base <- rownames(installed.packages(priority = "base"))
  cat(setdiff(p[nzchar(p)], c(base, "R")))')
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
  # One package at a time: a name Debian does not have must not stop the others.
  for deb in $debs; do DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null 2>&1 || true; done
fi
# Whatever apt could not provide comes from CRAN.
Rscript -e "p <- strsplit('$r_pkgs', ' ')[[1]]; m <- p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)];
  if (length(m)) install.packages(m, repos = 'https://cloud.r-project.org')
  m <- p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)]
  if (length(m)) stop('could not install: ', paste(m, collapse = ', '))"
