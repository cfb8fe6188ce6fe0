#!/usr/bin/env python3
"""ANN benchmark: tessera against faiss-cpu and pylance on the same data, in the same run.

Run through bench/ann/run.sh (`make bench-ann`), which installs the peers and builds tessera;
docs/benchmarks.md describes what is measured and how. Outline:

1. data: `tessera gen` writes the dataset rows and the query vectors (same generator seed,
   separate random stream for queries) as Arrow IPC files; everything below reads those files.
   Exact top-k ground truth (faiss IndexFlatL2) is cached next to them.
2. every (system, index) is built in its own subprocess, and queried in two more — single
   (pinned to one CPU, one thread, one query at a time) and batch (all threads, all queries at
   once) — so wall times and peak RSS (ru_maxrss of the child, from wait4) are per system and
   phase.
3. recall@k of every sweep point is computed here against the ground truth, and the results
   are written as markdown + JSON + a recall/QPS plot into bench/ann/results/.

The same script is the worker of step 2: `ann_bench.py --worker SPEC.json`.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
K = 10

# Dataset configurations. `queries` query vectors are drawn with the dataset's seed: the seed
# defines the mixture, and `tessera gen --queries` draws from a separate random stream of it,
# so queries are new points of the same distribution, never copies of rows.
DATASETS = {
    "1m": dict(name="1m-128", rows=1_000_000, dim=128, latent_dim=16, seed=7, queries=1000,
               nlist=1024, pq_m=16, pq_m4=32, pq4_residual=True, nbits=8, nprobes=[1, 2, 4, 8, 16, 32, 64, 128]),
    "768": dict(name="100k-768", rows=100_000, dim=768, latent_dim=32, seed=11, queries=1000,
                nlist=256, pq_m=48, pq_m4=96, pq4_residual=True, nbits=8, nprobes=[1, 2, 4, 8, 16, 32, 64]),
    # Real text: WordNet's 117,659 glosses embedded with WordLlama (256-d, unit length), queried
    # with 1,000 synsets' words embedded the same way (examples/python/wordnet_glosses.py).
    "wordnet": dict(name="wordnet-256", rows=117_659, dim=256, source="wordnet", seed=5,
                    queries=1000, nlist=256, pq_m=32, pq_m4=64, pq4_residual=False, nbits=8,
                    nprobes=[1, 2, 4, 8, 16, 32, 64, 128]),
    "quick": dict(name="quick-50k-128", rows=50_000, dim=128, latent_dim=16, seed=3,
                  queries=300, nlist=128, pq_m=16, pq_m4=32, pq4_residual=True, nbits=8, nprobes=[1, 2, 4, 8, 16, 32]),
}
# Shared by every system: k-means iterations, training vectors per partition, seed.
MAX_ITERS = 25
SAMPLE_RATE = 256
TRAIN_SEED = 42
# IVF_PQ4 is IVF_PQ with 4-bit codes (faiss: IndexIVFPQFastScan) and pq_m4 = 2 × pq_m
# sub-vectors: the same bytes per row as IVF_PQ's 8-bit codes; pq4_residual says whether both
# encode residuals (faiss by_residual, tessera residual) or the vectors. Codes of the vectors
# (faiss's default) are better on the real text embeddings and useless on the synthetic
# mixtures (recall@10 below 0.1 on 1m-128).
# Refine factors of the quantized indexes (1 = no re-ranking).
REFINE = {"IVF_FLAT": [1], "IVF_PQ": [1, 10], "IVF_PQ4": [1, 10], "IVF_SQ": [1, 4],
          "IVF_RQ": [1, 10]}
INDEX_TYPES = ["IVF_FLAT", "IVF_PQ", "IVF_PQ4", "IVF_SQ", "IVF_RQ"]
# Bits per dimension of IVF_RQ (RaBitQ) in every system: one (faiss's and tessera's default;
# pylance's is 5, so it is passed to every system).
RQ_BITS = 1
# Before a sweep, each query process runs this many queries at the largest nprobes (warm-up);
# before each point, 20 more at that point's settings.
WARMUP_ALL = 200
SYSTEMS = ["faiss", "lance", "tessera"]


def log(*parts):
    print(f"[{time.strftime('%H:%M:%S')}]", *parts, flush=True)


# --------------------------------------------------------------------------- helpers

def load_vectors(path, column="vector", limit=None):
    """The vectors of an Arrow IPC file as a C-contiguous (n, dim) float32 array."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    with pa.memory_map(str(path)) as source:
        reader = ipc.open_file(source)
        parts, rows = [], 0
        for b in range(reader.num_record_batches):
            col = reader.get_batch(b).column(column)
            dim = col.type.list_size
            values = col.values.to_numpy(zero_copy_only=False)
            values = values[col.offset * dim:(col.offset + len(col)) * dim]
            parts.append(values.reshape(len(col), dim))
            rows += len(col)
            if limit is not None and rows >= limit:
                break
        out = np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)
    return out[:limit] if limit is not None else out


def dir_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    return total


def pin_cpu():
    """The CPU single-thread runs are pinned to."""
    return max(os.sched_getaffinity(0))


def run_child(cmd, log_path, env_extra=None, pin=None, check=True):
    """Runs cmd; returns (wall seconds, peak RSS MiB of the child, return code)."""
    env = dict(os.environ)
    env.update(env_extra or {})
    def preexec():
        if pin is not None:
            os.sched_setaffinity(0, {pin})
    with open(log_path, "ab") as out:
        out.write(("$ " + " ".join(str(c) for c in cmd) + "\n").encode())
        out.flush()
        start = time.perf_counter()
        proc = subprocess.Popen([str(c) for c in cmd], stdout=out, stderr=subprocess.STDOUT,
                                env=env, preexec_fn=preexec)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    rss_mib = usage.ru_maxrss / 1024.0
    if check and proc.returncode != 0:
        tail = Path(log_path).read_text(errors="replace").splitlines()[-30:]
        raise RuntimeError(f"command failed ({proc.returncode}): {' '.join(map(str, cmd))}\n"
                           + "\n".join(tail))
    return wall, rss_mib, proc.returncode


def thread_env(threads):
    t = str(threads)
    return {"OMP_NUM_THREADS": t, "OPENBLAS_NUM_THREADS": t, "MKL_NUM_THREADS": t,
            "TESSERA_NUM_THREADS": t, "LANCE_CPU_THREADS": t, "LANCE_LOG": "error"}


def recall_at_k(ids, gt):
    m = ids.shape[0]
    hits = 0
    for i in range(m):
        hits += len(np.intersect1d(ids[i], gt[i, :K], assume_unique=False))
    return hits / (m * K)


# --------------------------------------------------------------------------- workers
# A worker is this script run as `--worker SPEC.json`; it writes its result to spec["out"].

def worker_faiss_build(spec):
    import faiss
    faiss.omp_set_num_threads(spec["threads"])
    t0 = time.perf_counter()
    xb = load_vectors(spec["data"])
    load_s = time.perf_counter() - t0
    n, d = xb.shape
    quantizer = faiss.IndexFlatL2(d)
    itype = spec["index"]
    if itype == "IVF_FLAT":
        index = faiss.IndexIVFFlat(quantizer, d, spec["nlist"])
    elif itype == "IVF_PQ":
        index = faiss.IndexIVFPQ(quantizer, d, spec["nlist"], spec["pq_m"], spec["nbits"])
    elif itype == "IVF_PQ4":
        index = faiss.IndexIVFPQFastScan(quantizer, d, spec["nlist"], spec["pq_m4"], 4)
        index.by_residual = spec["pq4_residual"]
    elif itype == "IVF_RQ":
        # faiss's RaBitQ: queries rounded to 4 bits (its default in 1.15, set to be sure; as
        # tessera's at one bit per dimension).
        index = faiss.IndexIVFRaBitQ(quantizer, d, spec["nlist"], faiss.METRIC_L2, True,
                                     RQ_BITS)
        index.qb = 4
    else:
        index = faiss.IndexIVFScalarQuantizer(quantizer, d, spec["nlist"],
                                              faiss.ScalarQuantizer.QT_8bit)
    index.cp.niter = MAX_ITERS
    index.cp.max_points_per_centroid = SAMPLE_RATE
    index.cp.seed = TRAIN_SEED
    # The coarse k-means is the same for every index type (same data, parameters and
    # seed: faiss's k-means is deterministic), so it runs once per dataset; its time is counted
    # in the build time of each index.
    centroids_path = Path(spec["centroids_path"])
    meta_path = centroids_path.with_suffix(".json")
    coarse_s = 0.0
    if centroids_path.exists() and meta_path.exists():
        quantizer.add(np.load(centroids_path))
        coarse_s = json.loads(meta_path.read_text())["train_s"]
    else:
        t0 = time.perf_counter()
        index.train_q1(n, faiss.swig_ptr(xb), False, faiss.METRIC_L2)
        coarse_s = time.perf_counter() - t0
        np.save(centroids_path, quantizer.reconstruct_n(0, quantizer.ntotal))
        meta_path.write_text(json.dumps({"train_s": coarse_s}))
    t0 = time.perf_counter()
    index.train(xb)  # the coarse quantizer is trained: only the encoder (PQ, SQ) trains here
    train_s = coarse_s + time.perf_counter() - t0
    t0 = time.perf_counter()
    index.add(xb)
    add_s = time.perf_counter() - t0
    faiss.write_index(index, spec["index_path"])
    result = {"load_s": load_s, "coarse_train_s": coarse_s, "train_s": train_s, "add_s": add_s,
              "build_s": train_s + add_s,
              "index_bytes": os.path.getsize(spec["index_path"])}
    if spec.get("refine_path"):
        # IndexRefineFlat over the same trained and filled index: a copy of the raw vectors.
        t0 = time.perf_counter()
        refine = faiss.IndexRefineFlat(index, faiss.swig_ptr(xb))
        result["refine_add_s"] = time.perf_counter() - t0
        faiss.write_index(refine, spec["refine_path"])
        result["refine_index_bytes"] = os.path.getsize(spec["refine_path"])
    return result


def timed_single(search_one, m_total, budget_s, min_queries, warmup, min_s=0.5, max_passes=10):
    """Runs search_one(i) for queries 0.. until all done or the budget is spent; a pass over
    all queries that took under min_s is repeated (up to max_passes) and the best kept.
    Returns (results of the first pass, seconds of the best pass, passes)."""
    for i in range(min(warmup, m_total)):
        search_one(i)
    first, best, total, passes = None, None, 0.0, 0
    while passes < max_passes:
        out = []
        start = time.perf_counter()
        for i in range(m_total):
            out.append(search_one(i))
            if budget_s > 0 and i + 1 >= min_queries and time.perf_counter() - start > budget_s:
                break
        sec = time.perf_counter() - start
        passes += 1
        total += sec
        if first is None:
            first, best = out, sec
        best = min(best, sec)
        if len(out) < m_total or total >= min_s:
            break
    return first, best, passes


def timed_batch(search_all, min_s, max_repeats):
    best, total, repeats, first = None, 0.0, 0, None
    while repeats < max(1, max_repeats) and (repeats == 0 or total < min_s):
        start = time.perf_counter()
        res = search_all()
        sec = time.perf_counter() - start
        best = sec if best is None else min(best, sec)
        total += sec
        repeats += 1
        if first is None:
            first = res
    return first, best, repeats


def save_ids(out_dir, name, ids):
    path = Path(out_dir) / name
    np.ascontiguousarray(ids, dtype=np.int64).tofile(path)
    return name


def worker_faiss_query(spec):
    import faiss
    faiss.omp_set_num_threads(spec["threads"])
    t0 = time.perf_counter()
    index = faiss.read_index(spec["index_path"])
    load_index_s = time.perf_counter() - t0
    xq = load_vectors(spec["queries"])
    m = xq.shape[0]
    refined = isinstance(index, faiss.IndexRefine)
    # warm-up: the first queries at the largest nprobes (and refine), touching most partitions
    nmax = max(spec["nprobes"])
    wp = faiss.SearchParametersIVF(nprobe=nmax)
    if refined:
        wp = faiss.IndexRefineSearchParameters(k_factor=max(spec["refine"]), base_index_params=wp)
    index.search(xq[:spec["warmup_all"]], K, params=wp)
    points = []
    for rf in spec["refine"]:
        for nprobe in spec["nprobes"]:
            ivf_params = faiss.SearchParametersIVF(nprobe=nprobe)
            if refined:
                params = faiss.IndexRefineSearchParameters(k_factor=rf,
                                                           base_index_params=ivf_params)
            else:
                params = ivf_params
            if spec["mode"] == "single":
                res, sec, repeats = timed_single(
                    lambda i: index.search(xq[i:i + 1], K, params=params)[1][0], m,
                    spec["single_budget_s"], spec["single_min_queries"], spec["warmup"],
                    spec["batch_min_s"], spec["batch_max_repeats"])
                ids = np.stack(res)
            else:
                index.search(xq[:spec["warmup"]], K, params=params)
                res, sec, repeats = timed_batch(lambda: index.search(xq, K, params=params)[1],
                                                spec["batch_min_s"], spec["batch_max_repeats"])
                ids = res
            name = save_ids(spec["out_dir"], f"{spec['mode']}_rf{rf}_np{nprobe}.i64", ids)
            points.append({"refine_factor": rf, "nprobes": nprobe, "queries": int(ids.shape[0]),
                           "seconds": sec, "repeats": repeats, "ids_file": name})
    return {"load_index_s": load_index_s, "points": points}


def worker_lance_write(spec):
    import lance
    import pyarrow as pa
    import pyarrow.ipc as ipc
    t0 = time.perf_counter()
    with pa.memory_map(spec["data"]) as source:
        reader = ipc.open_file(source)
        batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
        rbr = pa.RecordBatchReader.from_batches(reader.schema, batches)
        lance.write_dataset(rbr, spec["lance_path"], mode="create")
    return {"write_s": time.perf_counter() - t0, "bytes": dir_bytes(spec["lance_path"])}


def worker_lance_build(spec):
    import lance
    ds = lance.dataset(spec["lance_path"])
    kwargs = dict(num_partitions=spec["nlist"], max_iters=MAX_ITERS, sample_rate=SAMPLE_RATE)
    index_type = spec["index"]
    if index_type == "IVF_PQ":
        kwargs.update(num_sub_vectors=spec["pq_m"], num_bits=spec["nbits"])
    elif index_type == "IVF_PQ4":
        index_type = "IVF_PQ"
        kwargs.update(num_sub_vectors=spec["pq_m4"], num_bits=4)
    elif spec["index"] == "IVF_RQ":
        kwargs.update(num_bits=RQ_BITS)
    t0 = time.perf_counter()
    ds = ds.create_index("vector", index_type, name="vidx", metric="l2", replace=True,
                         **kwargs)
    build_s = time.perf_counter() - t0
    uuids = [i["uuid"] for i in ds.list_indices() if i["name"] == "vidx"]
    index_bytes = sum(dir_bytes(Path(spec["lance_path"]) / "_indices" / u) for u in uuids)
    return {"build_s": build_s, "index_bytes": index_bytes, "uuids": uuids}


def worker_lance_query(spec):
    import lance
    import pyarrow as pa
    ds = lance.dataset(spec["lance_path"])
    # row id -> id, scanned once (lance's default row ids are row addresses).
    t0 = time.perf_counter()
    tbl = ds.to_table(columns=["id"], with_row_id=True)
    rowids = tbl.column("_rowid").to_numpy()
    idvals = tbl.column("id").to_numpy()
    order = np.argsort(rowids)
    rowids, idvals = rowids[order], idvals[order]
    idmap_s = time.perf_counter() - t0

    def to_ids(rid):
        pos = np.searchsorted(rowids, rid)
        return idvals[np.minimum(pos, len(idvals) - 1)]

    xq = load_vectors(spec["queries"])
    m = xq.shape[0]
    batch_kind = spec.get("lance_batch", "best")
    from concurrent.futures import ThreadPoolExecutor
    pool = ThreadPoolExecutor(max_workers=spec["threads"])
    points = []
    warmed = False
    for rf in spec["refine"]:
        for nprobe in spec["nprobes"]:
            def nearest(q):
                n = {"column": "vector", "q": q, "k": K, "minimum_nprobes": nprobe,
                     "maximum_nprobes": nprobe, "use_index": True}
                if spec["index"] != "IVF_FLAT":
                    n["refine_factor"] = rf
                return n

            def one(i):
                t = ds.to_table(columns=[], with_row_id=True, nearest=nearest(xq[i]),
                                disable_scoring_autoprojection=True)
                ids = np.full(K, -1, dtype=np.int64)
                r = to_ids(t.column("_rowid").to_numpy())
                ids[:len(r)] = r[:K]
                return ids

            def all_native(count=m):
                t = ds.to_table(columns=[], with_row_id=True, nearest=nearest(xq[:count]),
                                disable_scoring_autoprojection=True)
                qi = t.column("query_index").to_numpy()
                r = to_ids(t.column("_rowid").to_numpy())
                ids = np.full((count, K), -1, dtype=np.int64)
                order = np.argsort(qi, kind="stable")  # each query's rows, nearest first
                qi, r = qi[order], r[order]
                starts = np.searchsorted(qi, np.arange(count + 1))
                for q in range(count):
                    sel = r[starts[q]:starts[q + 1]][:K]
                    ids[q, :len(sel)] = sel
                return ids

            def all_pool(count=m):
                return np.stack(list(pool.map(one, range(count))))

            if not warmed:
                # warm-up: the first queries at the largest nprobes and refine factor, so that
                # the index cache holds most partitions before anything is timed
                saved = (nprobe, rf)
                nprobe, rf = max(spec["nprobes"]), max(spec["refine"])
                all_native(min(m, spec["warmup_all"]))
                nprobe, rf = saved
                warmed = True
            extra = {}
            if spec["mode"] == "single":
                res, sec, repeats = timed_single(one, m, spec["single_budget_s"],
                                                 spec["single_min_queries"], spec["warmup"],
                                                 spec["batch_min_s"], spec["batch_max_repeats"])
                ids = np.stack(res)
            else:
                kinds = ["native", "pool"] if batch_kind == "best" else [batch_kind]
                ids, sec, repeats = None, None, 0
                for kind in kinds:
                    batch = all_pool if kind == "pool" else all_native
                    batch(spec["warmup"])
                    res, s_kind, r_kind = timed_batch(batch, spec["batch_min_s"],
                                                      spec["batch_max_repeats"])
                    extra[f"{kind}_seconds"] = s_kind
                    if ids is None:
                        ids = res
                    if sec is None or s_kind < sec:
                        sec, repeats, extra["batch_kind"] = s_kind, r_kind, kind
            name = save_ids(spec["out_dir"], f"{spec['mode']}_rf{rf}_np{nprobe}.i64", ids)
            points.append(dict({"refine_factor": rf, "nprobes": nprobe,
                                "queries": int(ids.shape[0]), "seconds": sec,
                                "repeats": repeats, "ids_file": name}, **extra))
    return {"idmap_s": idmap_s, "batch_kind": batch_kind, "points": points}


def worker_embed_wordnet(spec):
    """Writes the wordnet dataset: glosses as rows, `queries` random synsets' words as queries."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    sys.path.insert(0, str(REPO / "examples/python"))
    from wordnet_glosses import embedder, read_glosses

    words, glosses = read_glosses()
    model = embedder()
    t0 = time.perf_counter()
    rows = model.embed(glosses, norm=True).astype(np.float32)
    picks = np.random.default_rng(spec["seed"]).choice(len(words), spec["queries"], replace=False)
    queries = model.embed([words[i] for i in picks], norm=True).astype(np.float32)
    for path, vectors in ((spec["data"], rows), (spec["queries_path"], queries)):
        n, dim = vectors.shape
        column = pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), dim)
        table = pa.table({"id": pa.array(np.arange(n, dtype=np.int64)), "vector": column})
        with ipc.new_file(path, table.schema) as writer:
            writer.write_table(table, max_chunksize=65536)
    return {"embed_s": time.perf_counter() - t0, "rows": len(rows)}


def worker_ground_truth(spec):
    import faiss
    faiss.omp_set_num_threads(spec["threads"])
    xb = load_vectors(spec["data"])
    xq = load_vectors(spec["queries"])
    index = faiss.IndexFlatL2(xb.shape[1])
    index.add(xb)
    t0 = time.perf_counter()
    dist, ids = index.search(xq, spec["k"])
    np.save(spec["gt_path"], ids.astype(np.int64))
    np.save(spec["gt_dist_path"], dist.astype(np.float32))
    return {"seconds": time.perf_counter() - t0}


WORKERS = {
    "faiss_build": worker_faiss_build, "faiss_query": worker_faiss_query,
    "lance_write": worker_lance_write, "lance_build": worker_lance_build,
    "lance_query": worker_lance_query, "ground_truth": worker_ground_truth,
    "embed_wordnet": worker_embed_wordnet,
}


def worker_main(spec_path):
    spec = json.loads(Path(spec_path).read_text())
    result = WORKERS[spec["worker"]](spec)
    Path(spec["out"]).write_text(json.dumps(result, indent=1))


# --------------------------------------------------------------------------- driver

class Bench:
    def __init__(self, args, cfg):
        self.args = args
        self.cfg = cfg
        self.threads = args.threads
        key = f"{cfg['name']}-r{cfg['rows']}-d{cfg['dim']}-l{cfg.get('latent_dim')}-s{cfg['seed']}"
        self.work = Path(args.work_dir) / key
        self.work.mkdir(parents=True, exist_ok=True)
        self.run_dir = self.work / "run"
        if self.run_dir.exists():
            shutil.rmtree(self.run_dir)
        self.run_dir.mkdir()
        self.log_path = self.run_dir / "bench.log"
        self.tessera = Path(args.tessera_bin)
        self.ann_query = Path(args.ann_query_bin)
        self.data = self.work / "data.arrow"
        self.queries = self.work / f"queries-{cfg['queries']}.arrow"
        self.phases = {}
        self.prep = {}
        self.curves = []  # one per (system, index, variant)
        self.single_budget = args.single_budget_s
        self.pin = pin_cpu()

    # --- phase bookkeeping
    def phase(self, name, seconds):
        self.phases[name] = self.phases.get(name, 0.0) + seconds

    def worker(self, name, spec, env_extra=None, pin=None):
        spec = dict(spec, worker=name)
        tag = f"{name}-{len(list(self.run_dir.glob('spec-*.json')))}"
        spec_path = self.run_dir / f"spec-{tag}.json"
        spec["out"] = str(self.run_dir / f"out-{tag}.json")
        spec_path.write_text(json.dumps(spec))
        wall, rss, _ = run_child([sys.executable, __file__, "--worker", spec_path],
                                 self.log_path, env_extra, pin)
        return json.loads(Path(spec["out"]).read_text()), wall, rss

    # --- data
    def prepare_data(self):
        cfg = self.cfg
        t0 = time.perf_counter()
        if cfg.get("source") == "wordnet" and not (self.data.exists() and self.queries.exists()):
            log("embedding WordNet's glosses with WordLlama")
            res, wall, _ = self.worker("embed_wordnet", {
                "data": str(self.data), "queries_path": str(self.queries),
                "queries": cfg["queries"], "seed": cfg["seed"]}, thread_env(self.threads))
            self.prep["embed_s"] = wall
        gen = [self.tessera, "gen", "--dim", cfg["dim"], "--latent-dim", cfg.get("latent_dim"),
               "--seed", cfg["seed"]]
        if not self.data.exists():
            log(f"generating {cfg['rows']} x {cfg['dim']} rows -> {self.data}")
            wall, _, _ = run_child(gen[:1] + [gen[1], self.data, "--rows", cfg["rows"]] + gen[2:],
                                   self.log_path)
            self.prep["gen_data_s"] = wall
        if not self.queries.exists():
            run_child(gen[:1] + [gen[1], self.queries, "--queries", cfg["queries"]] + gen[2:],
                      self.log_path)
        gt_path = self.work / f"gt-q{cfg['queries']}-k{K}.npy"
        gt_dist_path = self.work / f"gt-q{cfg['queries']}-k{K}-dist.npy"
        if not gt_path.exists():
            log("computing exact ground truth (faiss IndexFlatL2)")
            res, wall, _ = self.worker("ground_truth", {
                "data": str(self.data), "queries": str(self.queries), "k": K,
                "threads": self.threads, "gt_path": str(gt_path),
                "gt_dist_path": str(gt_dist_path)}, thread_env(self.threads))
            self.prep["ground_truth_s"] = wall
        self.gt = np.load(gt_path)
        gt_dist = np.load(gt_dist_path)
        self.prep["nearest_distance_min"] = float(gt_dist[:, 0].min())
        if self.prep["nearest_distance_min"] <= 0:
            log("warning: a query vector equals a dataset row")
        self.phase("data + ground truth", time.perf_counter() - t0)

    # --- systems
    def query_spec(self, extra):
        spec = {"queries": str(self.queries), "threads": 1, "nprobes": self.cfg["nprobes"],
                "single_budget_s": self.single_budget,
                "single_min_queries": self.args.single_min_queries, "warmup": 20,
                "warmup_all": WARMUP_ALL,
                "batch_min_s": 0.5, "batch_max_repeats": 20}
        spec.update(extra)
        return spec

    def run_queries(self, worker, spec, system):
        """Runs the single and batch query children; returns their results and peak RSS."""
        out = {}
        for mode in ("single", "batch"):
            out_dir = self.run_dir / f"{system}-{spec['tag']}-{mode}"
            out_dir.mkdir(exist_ok=True)
            threads = 1 if mode == "single" else self.threads
            pin = self.pin if mode == "single" else None
            s = dict(spec, mode=mode, threads=threads, out_dir=str(out_dir))
            res, wall, rss = self.worker(worker, s, thread_env(threads), pin)
            res["wall_s"], res["rss_mib"], res["out_dir"] = wall, rss, str(out_dir)
            out[mode] = res
        return out

    def add_curves(self, system, index, variant, build, queries, index_bytes, notes=""):
        for rf in sorted({p["refine_factor"] for p in queries["batch"]["points"]}):
            label = f"{system} {index}" + (f" {variant}" if variant else "") + \
                (f" rf={rf}" if rf != 1 or index in ("IVF_PQ", "IVF_PQ4", "IVF_SQ", "IVF_RQ") else "")
            points = []
            for mode in ("single", "batch"):
                for p in queries[mode]["points"]:
                    if p["refine_factor"] != rf:
                        continue
                    ids = np.fromfile(Path(queries[mode]["out_dir"]) / p["ids_file"],
                                      dtype=np.int64).reshape(p["queries"], K)
                    p = dict(p, recall=recall_at_k(ids, self.gt), qps=p["queries"] / p["seconds"])
                    p["ids"] = ids
                    points.append((mode, p))
            merged = []
            for nprobe in self.cfg["nprobes"]:
                s = next(p for m, p in points if m == "single" and p["nprobes"] == nprobe)
                b = next(p for m, p in points if m == "batch" and p["nprobes"] == nprobe)
                n = s["queries"]
                agree = float(np.mean([set(s["ids"][i]) == set(b["ids"][i]) for i in range(n)]))
                merged.append({"nprobes": nprobe, "recall": b["recall"],
                               "batch_qps": b["qps"], "batch_queries": b["queries"],
                               "batch_repeats": b["repeats"],
                               "single_qps": s["qps"], "single_queries": n,
                               "single_recall": s["recall"], "single_batch_agree": agree,
                               **{k: b[k] for k in ("batch_kind", "native_seconds",
                                                    "pool_seconds") if k in b}})
            self.curves.append({
                "system": system, "index": index, "variant": variant, "refine_factor": rf,
                "label": label, "build_s": build.get("build_s"), "build_wall_s": build.get("wall_s"),
                "build_rss_mib": build.get("rss_mib"), "index_bytes": index_bytes,
                "query_info": {m: {k: v for k, v in queries[m].items()
                                   if k not in ("points", "out_dir")} for m in queries},
                "single_rss_mib": queries["single"]["rss_mib"],
                "batch_rss_mib": queries["batch"]["rss_mib"], "notes": notes,
                "points": merged})
            best = max(merged, key=lambda p: p["recall"])
            log(f"  {label}: build {build.get('build_s') or 0:.1f}s, "
                f"{index_bytes / 2**20:.1f} MiB, recall@{K} up to {best['recall']:.3f}")

    def run_faiss(self, index):
        cfg = self.cfg
        t0 = time.perf_counter()
        path = self.work / f"faiss-{index}.index"
        refine_path = self.work / f"faiss-{index}-refine.index" if index != "IVF_FLAT" else None
        log(f"faiss {index}: build")
        build, wall, rss = self.worker("faiss_build", {
            "data": str(self.data), "index": index, "nlist": cfg["nlist"], "pq_m": cfg["pq_m"],
            "pq_m4": cfg["pq_m4"], "pq4_residual": cfg["pq4_residual"], "nbits": cfg["nbits"],
            "threads": self.threads, "index_path": str(path),
            "centroids_path": str(self.run_dir / f"faiss-centroids-{cfg['nlist']}.npy"),
            "refine_path": str(refine_path) if refine_path else ""}, thread_env(self.threads))
        build.update(wall_s=wall, rss_mib=rss)
        log(f"faiss {index}: queries")
        q = self.run_queries("faiss_query", self.query_spec(
            {"index_path": str(path), "refine": [1], "tag": index}), "faiss")
        self.add_curves("faiss", index, "", build, q, build["index_bytes"])
        if refine_path:
            rf = max(REFINE[index])
            q = self.run_queries("faiss_query", self.query_spec(
                {"index_path": str(refine_path), "refine": [rf], "tag": index + "-refine"}),
                "faiss")
            b = dict(build, build_s=build["build_s"] + build["refine_add_s"])
            self.add_curves("faiss", index, "+RefineFlat", b, q, build["refine_index_bytes"],
                            notes="IndexRefineFlat: index holds a copy of the raw vectors")
            refine_path.unlink()
        path.unlink()
        self.phase("faiss", time.perf_counter() - t0)

    def lance_dataset(self):
        path = self.work / "lance.ds"
        if not (path / "_versions").exists():
            shutil.rmtree(path, ignore_errors=True)
            log("writing the lance dataset")
            res, wall, rss = self.worker("lance_write", {"data": str(self.data),
                                                          "lance_path": str(path)},
                                         thread_env(self.threads))
            self.prep["lance_write_s"] = wall
        return path

    def run_lance(self, index):
        cfg = self.cfg
        t0 = time.perf_counter()
        path = self.lance_dataset()
        log(f"lance {index}: build")
        build, wall, rss = self.worker("lance_build", {
            "lance_path": str(path), "index": index, "nlist": cfg["nlist"], "pq_m": cfg["pq_m"],
            "pq_m4": cfg["pq_m4"], "nbits": cfg["nbits"]}, thread_env(self.threads))
        build.update(wall_s=wall, rss_mib=rss)
        log(f"lance {index}: queries")
        spec = self.query_spec({"lance_path": str(path), "index": index,
                                "refine": REFINE[index], "tag": index,
                                "lance_batch": self.args.lance_batch})
        if self.args.lance_single_budget_s is not None:
            spec["single_budget_s"] = self.args.lance_single_budget_s
        q = self.run_queries("lance_query", spec, "lance")
        note = {"native": "batch: one `to_table` call with a 2-D query (pylance's batch search)",
                "pool": f"batch: {self.threads} threads of concurrent single-query `to_table` "
                        "calls",
                "best": "batch: the faster, per point, of one `to_table` call with a 2-D query "
                        f"(pylance's batch search) and {self.threads} threads of concurrent "
                        "single-query `to_table` calls (both in the JSON)"}[self.args.lance_batch]
        self.add_curves("lance", index, "", build, q, build["index_bytes"], notes=note)
        self.phase("lance", time.perf_counter() - t0)

    def tessera_dataset(self):
        path = self.work / "tessera.ds"
        marker = self.work / "tessera.ds.created"
        if not marker.exists():
            shutil.rmtree(path, ignore_errors=True)
            log("creating the tessera dataset")
            wall, _, _ = run_child([self.tessera, "create", path, "--from", self.data],
                                   self.log_path, thread_env(self.threads))
            marker.write_text("")
            self.prep["tessera_create_s"] = wall
        return path

    def run_tessera(self, index):
        cfg = self.cfg
        t0 = time.perf_counter()
        path = self.tessera_dataset()
        log(f"tessera {index}: build")
        params = {"metric": "l2", "num_partitions": cfg["nlist"], "sample_rate": SAMPLE_RATE,
                  "max_iters": MAX_ITERS, "seed": TRAIN_SEED}
        index_type = index
        if index == "IVF_PQ":
            params.update(num_sub_vectors=cfg["pq_m"], num_bits=cfg["nbits"])
        elif index == "IVF_PQ4":
            index_type = "IVF_PQ"
            params.update(num_sub_vectors=cfg["pq_m4"], num_bits=4,
                          residual="true" if cfg["pq4_residual"] else "false")
        elif index == "IVF_RQ":
            params.update(num_bits=RQ_BITS)
        cmd = [self.tessera, "index", "create", path, "--name", "vidx", "--column", "vector",
               "--type", index_type, "--replace"]
        for k, v in params.items():
            cmd += ["--param", f"{k}={v}"]
        wall, rss, _ = run_child(cmd, self.log_path, thread_env(self.threads))
        entries = subprocess.run([str(self.tessera), "index", "entries", str(path), "--format",
                                  "json"], check=True, capture_output=True, text=True).stdout
        index_bytes = sum(json.loads(line)["bytes"] for line in entries.splitlines()
                          if line.strip() and json.loads(line)["index"] == "vidx")
        build = {"build_s": wall, "wall_s": wall, "rss_mib": rss}
        log(f"tessera {index}: queries")
        out = {}
        for mode in ("single", "batch"):
            out_dir = self.run_dir / f"tessera-{index}-{mode}"
            threads = 1 if mode == "single" else self.threads
            cmd = [self.ann_query, "--dataset", path, "--queries", self.queries, "--out-dir",
                   out_dir, "--mode", mode, "--k", K,
                   "--nprobes", ",".join(map(str, cfg["nprobes"])),
                   "--refine", ",".join(map(str, REFINE[index])), "--warmup", 20,
                   "--warmup-all", WARMUP_ALL,
                   "--single-budget-s", self.single_budget,
                   "--single-min-queries", self.args.single_min_queries,
                   "--batch-min-s", 0.5, "--batch-max-repeats", 20]
            wall_q, rss_q, _ = run_child(cmd, self.log_path, thread_env(threads),
                                         self.pin if mode == "single" else None)
            res = json.loads((out_dir / "result.json").read_text())
            res.update(wall_s=wall_q, rss_mib=rss_q, out_dir=str(out_dir))
            out[mode] = res
        self.add_curves("tessera", index, "", build, out, index_bytes)
        self.phase("tessera", time.perf_counter() - t0)

    def cleanup(self):
        ds = self.work / "tessera.ds"
        if ds.exists() and "tessera" not in self.args.skip:
            run_child([self.tessera, "cleanup", ds, "--older-than", "0s"], self.log_path,
                      check=False)
        ld = self.work / "lance.ds"
        if ld.exists() and "lance" not in self.args.skip:
            run_child([sys.executable, "-c",
                       "import lance,datetime,sys; lance.dataset(sys.argv[1])"
                       ".cleanup_old_versions(older_than=datetime.timedelta(0))", ld],
                      self.log_path, check=False)

    def run(self):
        t_all = time.perf_counter()
        self.prepare_data()
        for system in SYSTEMS:
            if system in self.args.skip:
                continue
            for index in INDEX_TYPES:
                if index in self.args.skip or f"{system}:{index}" in self.args.skip:
                    continue
                try:
                    getattr(self, f"run_{system}")(index)
                except Exception as e:  # keep going: report what ran
                    log(f"{system} {index} FAILED: {e}")
                    self.failures.append(f"{system} {index}: {str(e).splitlines()[0]}")
        self.cleanup()
        self.phase("total", time.perf_counter() - t_all)

    failures: list = []


# --------------------------------------------------------------------------- reporting

def versions():
    out = {}
    for mod in ("faiss", "lance", "numpy", "pyarrow", "matplotlib"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception:
            pass
    return out


def machine():
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cpus": os.cpu_count(), "platform": platform.platform()}


def fmt_qps(q):
    return f"{q:,.0f}" if q >= 100 else f"{q:.1f}"


def write_report(bench, out_dir):
    cfg, args = bench.cfg, bench.args
    out_dir.mkdir(parents=True, exist_ok=True)
    name = cfg["name"]
    raw = {"dataset": cfg, "k": K, "max_iters": MAX_ITERS, "sample_rate": SAMPLE_RATE,
           "threads": bench.threads, "pinned_cpu": bench.pin, "single_budget_s":
           bench.single_budget, "versions": versions(), "machine": machine(),
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "prep": bench.prep, "phases_s": bench.phases, "failures": bench.failures,
           "curves": bench.curves}
    (out_dir / f"{name}.json").write_text(json.dumps(raw, indent=1))

    plot_name = f"{name}.png"
    try:
        plot(bench, out_dir / plot_name)
    except Exception as e:
        log(f"plot failed: {e}")
        plot_name = None

    v = raw["versions"]
    lines = [f"# ANN benchmark: {cfg['rows']:,} × {cfg['dim']} (`{name}`)", ""]
    lines += [f"Generated by `bench/ann/run.sh` on {raw['date']} — {raw['machine']['cpu']}, "
              f"{raw['machine']['cpus']} CPUs. faiss-cpu {v.get('faiss', '-')}, "
              f"pylance {v.get('lance', '-')}.", ""]
    if cfg.get("source") == "wordnet":
        lines += ["Data: WordNet 3.0's {rows:,} glosses embedded with WordLlama (256-d, unit "
                  "length); {queries} queries: the words of {queries} random synsets (seed "
                  "{seed}), embedded the same way (`examples/python/wordnet_glosses.py`). Ground "
                  "truth: exact l2 top-{k} (faiss IndexFlatL2).".format(k=K, **cfg), ""]
    else:
        lines += ["Data: `tessera gen --rows {rows} --dim {dim} --latent-dim {latent_dim} "
                  "--seed {seed}`; {queries} queries from `tessera gen --queries {queries}` "
                  "(same mixture, separate random stream). Ground truth: exact l2 top-{k} "
                  "(faiss IndexFlatL2).".format(k=K, **cfg), ""]
    lines += [f"Parameters: nlist {cfg['nlist']}, PQ m={cfg['pq_m']} nbits={cfg['nbits']}, "
              f"SQ 8-bit, k-means {MAX_ITERS} iterations on at most {SAMPLE_RATE} vectors per "
              f"partition, k={K}. Build and batch queries: {bench.threads} threads; "
              f"single-thread: one query at a time, one thread, pinned to CPU {bench.pin}.", ""]
    if plot_name:
        lines += [f"![recall vs QPS]({plot_name})", ""]
    lines += ["## Builds", "",
              "| system | index | build s | index MiB | build peak RSS MiB | "
              "query peak RSS MiB (single / batch) |",
              "| --- | --- | ---: | ---: | ---: | ---: |"]
    seen = set()
    for c in bench.curves:
        key = (c["system"], c["index"], c["variant"])
        if key in seen:
            continue
        seen.add(key)
        lines.append(f"| {c['system']} | {c['index']}{c['variant']} | {c['build_s']:.1f} | "
                     f"{c['index_bytes'] / 2**20:.1f} | {c['build_rss_mib']:.0f} | "
                     f"{c['single_rss_mib']:.0f} / {c['batch_rss_mib']:.0f} |")
    lines += ["", "## Recall and QPS", "",
              f"Recall@{K} is over all {cfg['queries']} queries (from the batch run). "
              "Single-thread QPS is measured over the first *n* queries (a point stops after "
              f"{bench.single_budget:g} s once {args.single_min_queries} queries ran); "
              "*agree* is the share of those queries whose single and batch answers hold the "
              "same ids.", "",
              "| curve | nprobes | recall@10 | single QPS | n | batch QPS | agree |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for c in bench.curves:
        for p in c["points"]:
            lines.append(f"| {c['label']} | {p['nprobes']} | {p['recall']:.3f} | "
                         f"{fmt_qps(p['single_qps'])} | {p['single_queries']} | "
                         f"{fmt_qps(p['batch_qps'])} | {p['single_batch_agree']:.2f} |")
    lines += ["", "## At a recall target", "",
              "The smallest swept nprobes reaching the target, per curve (— where none does).",
              "", "| curve | recall ≥ 0.9: nprobes | single QPS | batch QPS | "
              "recall ≥ 0.95: nprobes | single QPS | batch QPS |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for c in bench.curves:
        cells = []
        for target in (0.9, 0.95):
            p = next((p for p in c["points"] if p["recall"] >= target), None)
            cells += ([str(p["nprobes"]), fmt_qps(p["single_qps"]), fmt_qps(p["batch_qps"])]
                      if p else ["—", "", ""])
        lines.append(f"| {c['label']} | " + " | ".join(cells) + " |")
    notes = sorted({f"{c['system']}: {c['notes']}" for c in bench.curves if c["notes"]})
    lines += ["", "## Notes", "",
              "- Build time: faiss = train + add (data already in memory); lance = "
              "`create_index`; tessera = wall time of `tessera index create` (reads the data "
              "from the dataset). Peak RSS is `ru_maxrss` of each system's own subprocess.",
              "- Index bytes: faiss `write_index` size; lance the index's `_indices/<uuid>` "
              "directory; tessera the `bytes` of its segments (`tessera index entries`).",
              "- Single-thread lance queries go through Python (`to_table` per query), so they "
              "include pylance's per-call overhead."]
    lines += [f"- {n}" for n in notes]
    if bench.failures:
        lines += ["", "## Failures", ""] + [f"- {f}" for f in bench.failures]
    lines += ["", "## Phases (seconds)", "", "| phase | seconds |", "| --- | ---: |"]
    lines += [f"| {k} | {v:.0f} |" for k, v in bench.phases.items()]
    lines += [f"| prep: {k} | {v:.1f} |" for k, v in bench.prep.items() if k.endswith("_s")]
    (out_dir / f"{name}.md").write_text("\n".join(lines) + "\n")
    log(f"wrote {out_dir / (name + '.md')}, {name}.json" + (f", {plot_name}" if plot_name else ""))


def plot(bench, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    colors = {"tessera": "tab:red", "faiss": "tab:blue", "lance": "tab:green"}
    markers = {"IVF_FLAT": "o", "IVF_PQ": "s", "IVF_PQ4": "P", "IVF_SQ": "^", "IVF_RQ": "D"}
    fig, axes = plt.subplots(1, 2, figsize=(14, 7), sharex=True)
    for ax, key, title in ((axes[0], "single_qps", "single thread, one query at a time"),
                           (axes[1], "batch_qps", f"batch, {bench.threads} threads")):
        for c in bench.curves:
            refined = c["refine_factor"] != 1 or c["variant"]
            ax.plot([p["recall"] for p in c["points"]], [p[key] for p in c["points"]],
                    color=colors.get(c["system"], "gray"), marker=markers.get(c["index"], "x"),
                    linestyle="--" if refined else "-", label=c["label"], markersize=4)
        ax.set_yscale("log")
        ax.set_xlabel(f"recall@{K}")
        ax.set_ylabel("queries per second")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    rows = (len(labels) + 4) // 5
    fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=8, frameon=False)
    cfg = bench.cfg
    fig.suptitle(f"{cfg['rows']:,} × {cfg['dim']}, nlist {cfg['nlist']}, PQ m={cfg['pq_m']}, "
                 f"nprobes {cfg['nprobes'][0]}–{cfg['nprobes'][-1]}; "
                 "dashed: refine / RefineFlat")
    fig.tight_layout(rect=(0, 0.035 * rows + 0.02, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker_main(sys.argv[2])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default="all", choices=["1m", "768", "wordnet", "all"])
    ap.add_argument("--quick", action="store_true", help="a small 50k x 128 smoke run")
    ap.add_argument("--skip", default="",
                    help="comma-separated systems (tessera,faiss,lance), index types "
                    "(IVF_PQ) or system:index pairs to leave out")
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--single-budget-s", type=float, default=None,
                    help="seconds per sweep point of single-thread queries (default 2, quick 1)")
    ap.add_argument("--lance-single-budget-s", type=float, default=None)
    ap.add_argument("--single-min-queries", type=int, default=None)
    ap.add_argument("--lance-batch", choices=["native", "pool", "best"], default="best",
                    help="lance batch QPS: one to_table call with all queries (native), a "
                    "thread pool of single-query calls (pool), or the faster of the two per "
                    "point (best, the default)")
    ap.add_argument("--work-dir", default=str(REPO / "bench/.results/ann"))
    ap.add_argument("--results-dir", default=str(REPO / "bench/ann/results"))
    ap.add_argument("--tessera-bin", default=str(REPO / "build-bench/tessera"))
    ap.add_argument("--ann-query-bin", default=str(REPO / "build-bench/bench/ann_query"))
    args = ap.parse_args()
    args.skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    unknown = {s for s in args.skip if s.split(":")[0] not in SYSTEMS + INDEX_TYPES}
    if unknown:
        ap.error(f"--skip: unknown {sorted(unknown)}")
    if args.single_budget_s is None:
        args.single_budget_s = 1.0 if args.quick else 2.0
    if args.single_min_queries is None:
        args.single_min_queries = 50 if args.quick else 100
    names = ["quick"] if args.quick else (["1m", "768", "wordnet"] if args.dataset == "all"
                                          else [args.dataset])
    t0 = time.perf_counter()
    for n in names:
        cfg = DATASETS[n]
        log(f"=== dataset {cfg['name']}: {cfg['rows']} x {cfg['dim']}, skip {sorted(args.skip)}")
        bench = Bench(args, cfg)
        bench.failures = []
        bench.run()
        write_report(bench, Path(args.results_dir))
        log(f"=== {cfg['name']} done in {bench.phases['total']:.0f} s: " +
            ", ".join(f"{k} {v:.0f}s" for k, v in bench.phases.items() if k != "total"))
    log(f"all done in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
