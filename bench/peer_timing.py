#!/usr/bin/python3
"""Time the PyTorch NCAM peer on the same data and shapes as bench/speed.R.

The peer's code is imported in place from its folder (default /work/shared/bench/reference,
override with --peer-dir or NCAM_PEER_DIR); nothing of it is copied into this repository.

Input : --data FILE  raw little-endian doubles, column-major n x (p + L): covariates then sensors
        --n N --p P --L L
        --jobs JSON  list of jobs, each
            {"kind": "train", "hidden": H, "batch": b, "threads": t, "rows": n_train, "reps": r}
              one epoch = the peer's own training loop body (ncam_torch.train): a fresh
              torch.randperm over the rows, minibatches X[idx], loss, zero_grad, backward, Adam
              step, float(loss); the median epoch time over r epochs after one warm-up epoch
            {"kind": "posterior", "hidden": H, "threads": t, "rows": n, "reps": r}
              ncam_torch.predict() (65,536-row chunks, no grad, results to numpy double) over the
              first n rows; median over r calls after a warm-up call
Output: one JSON object on stdout: {"torch": version, "flops": {H: flop_count}, "results": [...]}
"""
import argparse
import json
import os
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--p", type=int, required=True)
    ap.add_argument("--L", type=int, required=True)
    ap.add_argument("--jobs", required=True, help="JSON list of jobs (or @file)")
    ap.add_argument("--peer-dir", default=os.environ.get("NCAM_PEER_DIR", "/work/shared/bench/reference"))
    a = ap.parse_args()

    sys.path.insert(0, a.peer_dir)
    import numpy as np
    import torch
    import ncam_torch as nc  # the peer's module, by path
    import bench_timing as bt  # the peer's flop_count()

    jobs = json.loads(open(a.jobs[1:]).read() if a.jobs.startswith("@") else a.jobs)
    raw = np.fromfile(a.data, dtype="<f8")
    assert raw.size == a.n * (a.p + a.L), "data file size does not match n x (p + L)"
    M = raw.reshape((a.n, a.p + a.L), order="F")
    X_all = torch.tensor(M[:, :a.p], dtype=torch.float32)
    B_all = torch.tensor(M[:, a.p:], dtype=torch.float32)

    out = dict(torch=torch.__version__, peer_dir=os.path.abspath(a.peer_dir), flops={}, results=[])
    for job in jobs:
        H, th, rows, reps = int(job["hidden"]), int(job["threads"]), int(job["rows"]), int(job["reps"])
        torch.set_num_threads(th)
        torch.manual_seed(0)
        X, B = X_all[:rows], B_all[:rows]
        model = nc.NCAM(a.p, a.L, hidden=H, mu0_init=float(B[:, 0].mean()))
        out["flops"][str(H)] = bt.flop_count(a.p, H, a.L)
        res = dict(job, torch_threads=torch.get_num_threads())
        if job["kind"] == "train":
            bs = int(job["batch"])
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)
            g = torch.Generator().manual_seed(0)

            def epoch():
                model.train()
                perm = torch.randperm(rows, generator=g)
                tot = 0.0
                for s in range(0, rows, bs):
                    idx = perm[s:s + bs]
                    loss = model.loss(X[idx], B[idx], 0.0)
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                    tot += float(loss) * len(idx)
                return tot
            epoch()  # warm-up
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                epoch()
                ts.append(time.perf_counter() - t0)
        elif job["kind"] == "posterior":
            nc.predict(model, X[:min(rows, 10000)], B[:min(rows, 10000)])  # warm-up
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                nc.predict(model, X, B)
                ts.append(time.perf_counter() - t0)
        else:
            raise ValueError(job["kind"])
        med = statistics.median(ts)
        res.update(seconds=med, rep_seconds=ts, rows_per_s=rows / med)
        out["results"].append(res)
        print(json.dumps(res), file=sys.stderr, flush=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
