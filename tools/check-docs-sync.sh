#!/usr/bin/env bash
# Do man/ and NAMESPACE match the roxygen comments in R/? Rebuilds them with roxygen2 in a
# copy of the sources, from the package installed in the library given as $1 (CI: the one
# R CMD check installed), and prints the differences. Exit 0 in sync, 1 out of sync, 2 when
# it cannot tell (roxygen2 missing, or a version other than DESCRIPTION's RoxygenNote, whose
# output may differ in form alone).
set -uo pipefail
cd "$(dirname "$0")/.."
lib=$(cd "${1:?usage: tools/check-docs-sync.sh <library holding the installed ncam>}" && pwd)
note=$(sed -n 's/^RoxygenNote: *//p' DESCRIPTION)
have=$(Rscript -e 'cat(if (requireNamespace("roxygen2", quietly = TRUE)) format(packageVersion("roxygen2")) else "")')
if [ -z "$have" ] || [ "$have" != "$note" ]; then
  echo "docs sync: not checked (roxygen2 ${have:-missing}, RoxygenNote $note)"
  exit 2
fi
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -r DESCRIPTION NAMESPACE R man "$copy"/
(cd "$copy" && NCAM_DOCS_LIB="$lib" Rscript -e '.libPaths(c(Sys.getenv("NCAM_DOCS_LIB"), .libPaths()))
  suppressMessages(roxygen2::roxygenise(load_code = roxygen2::load_installed))') >/dev/null 2>&1 || {
  echo "docs sync: roxygen2 failed on a copy of the sources"; exit 1; }
if diff -r man "$copy/man" && diff NAMESPACE "$copy/NAMESPACE"; then
  echo "docs sync: man/ and NAMESPACE match the roxygen comments"
  exit 0
fi
echo "docs sync: man/ or NAMESPACE differ from the roxygen comments (above); run roxygen2::roxygenise() and commit"
exit 1
