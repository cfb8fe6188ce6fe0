#!/usr/bin/env python3
"""Index build times, tessera against faiss-cpu, alternating, medians of repeated runs.

    .venv/bin/python bench/ann/build_times.py --dataset wordnet [--index IVF_PQ] [--repeats 3]

Uses the data bench/ann/ann_bench.py prepared (run it once for the dataset, e.g. with
`--skip tessera,lance,faiss`): the same Arrow IPC file feeds `tessera create` and faiss. Each
repetition builds with faiss (train + add, from vectors in memory, as in ann_bench.py) and
then with `tessera index create` (wall time of the process: it reads the vectors from the
dataset and writes the segment), both on all CPUs; the report gives the medians and their
ratio. The parameters are ann_bench.py's (nlist, PQ m, 25 iterations, 256 vectors per
partition, seed 42).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ann_bench  # noqa: E402


def faiss_build(data, cfg, index, threads):
    spec = {"data": str(data), "index": index, "nlist": cfg["nlist"], "pq_m": cfg["pq_m"],
            "nbits": cfg["nbits"], "threads": threads,
            "index_path": tempfile.mktemp(suffix=".faiss"),
            "centroids_path": tempfile.mktemp(suffix=".npy"), "refine_path": ""}
    result = ann_bench.worker_faiss_build(spec)
    for path in (spec["index_path"], spec["centroids_path"],
                 spec["centroids_path"].replace(".npy", ".json")):
        Path(path).unlink(missing_ok=True)
    return result["build_s"]


def tessera_build(tessera, dataset, cfg, index):
    params = {"metric": "l2", "num_partitions": cfg["nlist"], "sample_rate": ann_bench.SAMPLE_RATE,
              "max_iters": ann_bench.MAX_ITERS, "seed": ann_bench.TRAIN_SEED}
    if index == "IVF_PQ":
        params.update(num_sub_vectors=cfg["pq_m"], num_bits=cfg["nbits"])
    cmd = [tessera, "index", "create", dataset, "--name", "vidx", "--column", "vector",
           "--type", index, "--replace"] + [a for k, v in params.items()
                                             for a in ("--param", f"{k}={v}")]
    started = time.perf_counter()
    subprocess.run([str(c) for c in cmd], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="wordnet", choices=sorted(ann_bench.DATASETS))
    ap.add_argument("--index", default="IVF_PQ", choices=ann_bench.INDEX_TYPES)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--work-dir", default=str(ann_bench.REPO / "bench/.results/ann"))
    ap.add_argument("--tessera-bin", default=str(ann_bench.REPO / "build/tessera"))
    args = ap.parse_args()
    cfg = ann_bench.DATASETS[args.dataset]
    key = f"{cfg['name']}-r{cfg['rows']}-d{cfg['dim']}-l{cfg.get('latent_dim')}-s{cfg['seed']}"
    data = Path(args.work_dir) / key / "data.arrow"
    if not data.exists():
        sys.exit(f"{data} is missing: run bench/ann/ann_bench.py --dataset {args.dataset} "
                 "--skip tessera,lance,faiss first")
    work = Path(tempfile.mkdtemp(prefix="tessera-build-times-"))
    try:
        dataset = work / "ds"
        subprocess.run([args.tessera_bin, "create", str(dataset), "--from", str(data)],
                       check=True, stdout=subprocess.DEVNULL)
        times = {"faiss": [], "tessera": []}
        for repeat in range(args.repeats):
            times["faiss"].append(faiss_build(data, cfg, args.index, args.threads))
            times["tessera"].append(tessera_build(args.tessera_bin, dataset, cfg, args.index))
            print(f"[{repeat + 1}/{args.repeats}] faiss {times['faiss'][-1]:.2f} s, "
                  f"tessera {times['tessera'][-1]:.2f} s", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    medians = {system: statistics.median(values) for system, values in times.items()}
    print(json.dumps({"dataset": cfg["name"], "index": args.index, "threads": args.threads,
                      "runs": times, "median_s": medians,
                      "tessera_over_faiss": medians["tessera"] / medians["faiss"]}))


if __name__ == "__main__":
    main()
