#!/usr/bin/python3
"""Summarise `perf script` output (perf record --call-graph dwarf) of an ncam run.

Reads perf script text on stdin. Keeps the samples whose call stack touches the engine
(a frame in ncam.so or libgomp); prints where their time goes:
  1. by the innermost ncam:: function on the stack (template arguments stripped), i.e. which
     part of the engine the time belongs to;
  2. by the leaf (self) symbol, classified (Eigen GEMM kernel, Eigen element-wise, libm, malloc,
     OpenMP runtime, kernel) and the top leaf symbols themselves.
Usage: perf script -i perf.data | python3 perf_attrib.py [top_n]
"""
import collections
import re
import sys


def strip_templates(s):
    out, depth = [], 0
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    s = "".join(out)
    s = re.sub(r"\(anonymous namespace\)::", "", s)
    return s.replace(" (inlined)", "").strip()


FRAME = re.compile(r"^\s*[0-9a-f]+\s+(.*)\s+\(([^()]*)\)\s*$")


def parse(stream):
    sample = []
    for line in stream:
        if not line.strip():
            if sample:
                yield sample
            sample = []
            continue
        if line[0] not in " \t":
            sample = []  # header line
            continue
        m = FRAME.match(line)
        if m:
            sym, dso = m.group(1), m.group(2)
            sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
            sample.append((sym, dso))
    if sample:
        yield sample


def leaf_class(sym, dso):
    if "kernel.kallsyms" in dso:
        return "kernel (page faults, syscalls)"
    if "libgomp" in dso:
        return "OpenMP runtime (barriers, spin-wait, fork/join)"
    if "libm" in dso or sym.startswith(("erfc", "__erfc", "exp", "__exp", "__ieee754")):
        return "libm (erfc/exp)"
    if "malloc" in sym or "free" in sym or "_int_" in sym or sym.startswith(("cfree", "__libc_")):
        return "malloc/free"
    if any(k in sym for k in ("gebp_kernel", "gemm_pack", "general_matrix_matrix_product",
                              "gemv", "general_matrix_vector")):
        return "Eigen GEMM (gebp kernel + packing)"
    if sym.startswith("Eigen::") or "Eigen::" in sym:
        return "Eigen element-wise / reductions"
    if sym.startswith("ncam::") or "ncam" in dso:
        return "ncam code (own loops: row_nll, Adam, gather, reduce)"
    return "other: " + dso.rsplit("/", 1)[-1]


def main():
    top_n = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    total = 0
    kept = 0
    by_fn = collections.Counter()
    by_leaf_class = collections.Counter()
    by_leaf = collections.Counter()
    for frames in parse(sys.stdin):
        total += 1
        if not any("ncam" in d or "libgomp" in d for _, d in frames):
            continue
        kept += 1
        fn = next((strip_templates(s) for s, _ in frames if s.startswith("ncam::")), None)
        if fn is None:
            fn = "(no ncam:: frame: OpenMP worker / glue)"
        by_fn[fn] += 1
        # leaf = the physical function that was executing (skip frames perf marks as inlined)
        sym, dso = next(((s, d) for s, d in frames if d != "inlined"), frames[0])
        by_leaf_class[leaf_class(sym, dso)] += 1
        by_leaf[strip_templates(sym)[:90] + "  [" + dso.rsplit("/", 1)[-1] + "]"] += 1
    if kept == 0:
        print("no engine samples found")
        return
    print(f"samples: {total} total, {kept} in the engine (stack touches ncam.so or libgomp); "
          f"percentages below are of the engine samples")
    print("\n(a) innermost ncam:: function on the stack (inclusive of the Eigen/libm code it calls)")
    for k, v in by_fn.most_common(top_n):
        print(f"  {100 * v / kept:6.1f}%  {k}")
    print("\n(b) leaf (self) code, by class")
    for k, v in by_leaf_class.most_common():
        print(f"  {100 * v / kept:6.1f}%  {k}")
    print("\n(c) top leaf symbols (template arguments stripped)")
    for k, v in by_leaf.most_common(top_n):
        print(f"  {100 * v / kept:6.1f}%  {k}")


if __name__ == "__main__":
    main()
