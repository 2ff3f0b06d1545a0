#!/bin/sh
# The AVX2 build of the engine (src/backend_simd.cpp) must not leak AVX instructions into code
# that runs on every CPU: only functions in its renamed namespaces (ncam_simd, ncam_simd_eigen)
# may use them. A template instance shared between the two units would otherwise let the linker
# keep the AVX copy for all callers. Usage: inst/tools/check-simd-isolation.sh path/to/ncam.so
so="$1"
[ -f "$so" ] || { echo "simd isolation: no shared object at '$so'"; exit 1; }
command -v objdump >/dev/null 2>&1 || { echo "simd isolation: objdump not found, skipped"; exit 0; }
objdump -d --no-show-raw-insn -C "$so" | awk '
  /^[0-9a-f]+ <.*>:$/ {
    fn = $0; sub(/^[0-9a-f]+ </, "", fn); sub(/>:$/, "", fn); simd = (fn ~ /ncam_simd/)
    if (simd) has_simd = 1
    next
  }
  /^ +[0-9a-f]+:\t/ {
    avx = ($0 ~ /%[yz]mm/ || $2 ~ /^v/)
    if (simd && avx) simd_avx[fn] = 1
    if (!simd && avx) { if (!(fn in leak)) n_leak++; leak[fn] = 1 }
  }
  END {
    if (!has_simd) { print "simd isolation: this build has no separate AVX2 engine, nothing to check"; exit 0 }
    n_simd = 0; for (f in simd_avx) n_simd++
    for (f in leak) print "  AVX outside the AVX2 build: " f
    printf "simd isolation: %d functions of the AVX2 build use AVX, %d functions outside it do\n", n_simd, n_leak + 0
    # No AVX at all would mean the check itself is broken (or the AVX2 build is absent).
    exit (n_leak > 0 || n_simd == 0) ? 1 : 0
  }'
