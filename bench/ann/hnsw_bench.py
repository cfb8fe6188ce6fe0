#!/usr/bin/env python3
"""IVF_HNSW_* against graph peers: tessera IVF_HNSW_FLAT / IVF_HNSW_SQ, faiss IndexHNSWFlat /
IndexHNSWSQ and hnswlib, on one dataset of the ANN benchmark, in one run.

The data, queries and exact ground truth are those `ann_bench.py` prepares in its work directory
(run it once for the dataset, e.g. `ann_bench.py --dataset wordnet --skip faiss,lance,tessera`).
Every system builds with the same graph parameters (m, ef_construction) on all cores and answers
single-threaded queries, one at a time, sweeping its search ef (tessera also nprobes). Reported:
build seconds, recall@10 and QPS (the best of several passes over the queries), per point.
hnswlib is measured when it can be imported (`pip install hnswlib`: it builds from source).
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ann_bench import K, load_vectors, recall_at_k  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def log(*parts):
    print(time.strftime("%H:%M:%S"), *parts, file=sys.stderr, flush=True)


def best_pass_qps(search_one, count, passes=3, min_s=0.5):
    """QPS of the fastest of `passes` passes over `count` queries (at least min_s in all)."""
    best, total, results = None, 0.0, None
    for p in range(passes):
        start = time.perf_counter()
        out = [search_one(i) for i in range(count)]
        seconds = time.perf_counter() - start
        results = results or out
        best = seconds if best is None else min(best, seconds)
        total += seconds
        if p + 1 >= 2 and total >= min_s:
            break
    return count / best, np.array(results)


def run_faiss(data, queries, gt, args, rows):
    import faiss

    for name in ("HNSWFlat", "HNSWSQ"):
        faiss.omp_set_num_threads(args.threads)
        d = data.shape[1]
        if name == "HNSWFlat":
            index = faiss.IndexHNSWFlat(d, args.m)
        else:
            index = faiss.IndexHNSWSQ(d, faiss.ScalarQuantizer.QT_8bit, args.m)
        index.hnsw.efConstruction = args.ef_construction
        start = time.perf_counter()
        if name == "HNSWSQ":
            index.train(data)
        index.add(data)
        build = time.perf_counter() - start
        log(f"faiss {name}: built in {build:.1f} s")
        faiss.omp_set_num_threads(1)
        for ef in args.efs:
            index.hnsw.efSearch = max(ef, K)
            qps, ids = best_pass_qps(lambda i: index.search(queries[i:i + 1], K)[1][0],
                                     len(queries))
            rows.append({"system": "faiss", "index": name, "build_s": build, "ef": ef,
                         "nprobes": "", "recall": recall_at_k(ids, gt), "qps": qps})
            log(rows[-1])


def run_hnswlib(data, queries, gt, args, rows):
    try:
        import hnswlib
    except ImportError:
        log("hnswlib is not installed: skipped")
        return
    index = hnswlib.Index(space="l2", dim=data.shape[1])
    start = time.perf_counter()
    index.init_index(max_elements=len(data), ef_construction=args.ef_construction, M=args.m,
                     random_seed=42)
    index.add_items(data, np.arange(len(data)), num_threads=args.threads)
    build = time.perf_counter() - start
    log(f"hnswlib: built in {build:.1f} s")
    index.set_num_threads(1)
    for ef in args.efs:
        index.set_ef(max(ef, K))
        qps, ids = best_pass_qps(lambda i: index.knn_query(queries[i:i + 1], k=K)[0][0],
                                 len(queries))
        rows.append({"system": "hnswlib", "index": "HNSW", "build_s": build, "ef": ef,
                     "nprobes": "", "recall": recall_at_k(ids, gt), "qps": qps})
        log(rows[-1])


def run_tessera(work, gt, args, rows):
    env = dict(os.environ, TESSERA_NUM_THREADS=str(args.threads))
    dataset = work / "tessera-hnsw.ds"
    if not dataset.exists():
        subprocess.run([args.tessera_bin, "create", str(dataset), "--from", str(work / "data.arrow")],
                       check=True, env=env, stdout=subprocess.DEVNULL)
    for family in args.families:
        start = time.perf_counter()
        cmd = [args.tessera_bin, "index", "create", str(dataset), "--name", "hnsw", "--column",
               "vector", "--type", family, "--replace", "--param", f"num_partitions={args.nlist}",
               "--param", f"m={args.m}", "--param", f"ef_construction={args.ef_construction}",
               "--param", "metric=l2"]
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
        build = time.perf_counter() - start
        log(f"tessera {family}: built in {build:.1f} s")
        refine = [1, 4] if family != "IVF_HNSW_FLAT" else [1]
        for ef in args.efs:
            out = work / f"tessera-{family}-ef{ef}"
            subprocess.run(
                [args.ann_query_bin, "--dataset", str(dataset), "--queries", str(args.queries),
                 "--out-dir", str(out), "--mode", "single", "--k", str(K), "--nprobes",
                 ",".join(map(str, args.nprobes)), "--refine", ",".join(map(str, refine)),
                 "--ef", str(ef), "--warmup", "20", "--warmup-all", "200", "--batch-min-s", "0.5",
                 "--batch-max-repeats", "3"],
                check=True, env=dict(env, TESSERA_NUM_THREADS="1"), stderr=subprocess.DEVNULL)
            result = json.loads((out / "result.json").read_text())
            for point in result["points"]:
                ids = np.fromfile(out / point["ids_file"], dtype=np.int64).reshape(-1, K)
                rows.append({"system": "tessera", "index": family
                             + (f" rf={point['refine_factor']}" if family != "IVF_HNSW_FLAT" else ""),
                             "build_s": build, "ef": ef, "nprobes": point["nprobes"],
                             "recall": recall_at_k(ids, gt[:len(ids)]),
                             "qps": point["queries"] / point["seconds"]})
                log(rows[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work-dir", default=str(
        REPO / "bench/.results/ann/wordnet-256-r117659-d256-lNone-s5"))
    ap.add_argument("--tessera-bin", default=str(REPO / "build/tessera"))
    ap.add_argument("--ann-query-bin", default=str(REPO / "build/bench/ann_query"))
    ap.add_argument("--families", default="IVF_HNSW_FLAT,IVF_HNSW_SQ")
    ap.add_argument("--skip", default="", help="comma-separated: tessera, faiss, hnswlib")
    ap.add_argument("--nlist", type=int, default=16)
    ap.add_argument("--nprobes", default="1,2,4")
    ap.add_argument("--m", type=int, default=16)
    ap.add_argument("--ef-construction", type=int, default=100)
    ap.add_argument("--efs", default="16,32,64,128")
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--out", default=None, help="write the rows as JSON lines here")
    args = ap.parse_args()
    args.families = [f for f in args.families.split(",") if f]
    args.nprobes = [int(x) for x in args.nprobes.split(",")]
    args.efs = [int(x) for x in args.efs.split(",")]
    skip = {s for s in args.skip.split(",") if s}
    work = Path(args.work_dir)
    args.queries = next(work.glob("queries-*.arrow"))
    data = load_vectors(work / "data.arrow")
    queries = load_vectors(args.queries)
    gt = np.load(next(work.glob(f"gt-q*-k{K}.npy")))
    log(f"{len(data)} x {data.shape[1]} rows, {len(queries)} queries")
    rows = []
    if "tessera" not in skip:
        run_tessera(work, gt, args, rows)
    if "faiss" not in skip:
        run_faiss(data, queries, gt, args, rows)
    if "hnswlib" not in skip:
        run_hnswlib(data, queries, gt, args, rows)
    print("| system | index | build s | ef | nprobes | recall@10 | QPS |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['system']} | {r['index']} | {r['build_s']:.1f} | {r['ef']} | {r['nprobes']} "
              f"| {r['recall']:.3f} | {r['qps']:.0f} |")
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in rows))


if __name__ == "__main__":
    main()
