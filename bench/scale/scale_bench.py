"""bench/scale: distributed index builds on Spark (local mode) with 1 and 2 workers, and the
per-row costs behind docs/scale-out.md's cost model.

Measured in one run, on one synthetic dataset (ROWS x DIM float32, FRAGMENTS fragments):
  - train:   Dataset.train_model on the driver (IVF_PQ; a sample, so independent of ROWS),
             and IVF_FLAT's alone (the IVF centroids; the rest is the PQ codebooks)
  - build:   Dataset.build_segment over all fragments in this process, one engine thread
             (the per-row build cost of one worker)
  - spark/W: tessera.spark.build_index with W workers (local[W], one engine thread per worker):
             wall time from call to commit, with the driver's training
  - commit:  Dataset.commit_segments of W segments (its cost grows with the segment count)
  - search:  batch search cost per query (one engine thread), and the k-NN join on Spark with W
             tasks
Every number is the median of REPEATS runs. Prints a Markdown report.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa

# One engine thread per worker process: scale-out is then measured in workers, not threads.
os.environ["TESSERA_NUM_THREADS"] = "1"

import tessera  # noqa: E402
from tessera import spark as tessera_spark  # noqa: E402


def median_time(work, repeats):
    times = []
    result = None
    for _ in range(repeats):
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def spark_session(workers):
    from pyspark.sql import SparkSession

    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master(f"local[{workers}]")
        .appName(f"tessera-scale-{workers}")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", str(workers))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--fragments", type=int, default=8)
    parser.add_argument("--partitions", type=int, default=256)
    parser.add_argument("--sub-vectors", type=int, default=16)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--label", default="")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="tessera-scale-")
    try:
        rng = np.random.default_rng(7)
        # Clustered data, as embeddings are: 1,000 centres plus noise.
        centres = rng.standard_normal((1000, args.dim), dtype=np.float32)
        vectors = centres[rng.integers(0, 1000, args.rows)] + 0.3 * rng.standard_normal(
            (args.rows, args.dim), dtype=np.float32
        )
        table = pa.table({"id": np.arange(args.rows), "vector": tessera.vectors(vectors)})
        path = os.path.join(work, "ds")
        ds = tessera.create(path, table, max_rows_per_file=-(-args.rows // args.fragments),
                            progress=False)
        params = {"num_partitions": args.partitions, "num_sub_vectors": args.sub_vectors}

        train_s, model = median_time(
            lambda: ds.train_model("vector", "IVF_PQ", progress=False, **params), args.repeats
        )
        ivf_train_s, _ = median_time(
            lambda: ds.train_model("vector", "IVF_FLAT", progress=False,
                                   num_partitions=args.partitions),
            args.repeats,
        )
        build_s, segment = median_time(
            lambda: ds.build_segment("v", model=model, progress=False), args.repeats
        )
        queries = rng.standard_normal((args.queries, args.dim), dtype=np.float32)
        ds.commit_segments("v", [segment])
        search_s, _ = median_time(
            lambda: ds.search(queries, k=10, nprobes=16, columns=["id"]), args.repeats
        )

        rows = {}
        for workers in (1, 2):
            spark = spark_session(workers)
            try:
                def spark_build():
                    return tessera_spark.build_index(
                        spark, path, "vector", "IVF_PQ", "v", params, num_workers=workers,
                        replace=True,
                    )

                spark_build()  # warm-up: Python workers started, modules imported
                build_wall, built = median_time(spark_build, args.repeats)
                # The distributed part alone: the model trained before, given to the job.
                model_wall, _ = median_time(
                    lambda: tessera_spark.build_index(
                        spark, path, "vector", "IVF_PQ", "v", num_workers=workers,
                        replace=True, model=model,
                    ),
                    args.repeats,
                )
                segments = [
                    ds.checkout().build_segment("c", model=model, fragments=group, progress=False)
                    for group in tessera_spark.balanced_groups(ds.fragments(), workers)
                ]
                commit_s, _ = median_time(
                    lambda: ds.checkout().commit_segments("c", segments), 1
                )
                left = spark.createDataFrame(
                    [(i, [float(x) for x in q]) for i, q in enumerate(queries)],
                    schema="qid long, q array<float>",
                ).cache()
                left.count()
                join_wall, _ = median_time(
                    lambda: tessera_spark.knn_join(
                        spark, left, "q", path, "vector", k=10, nprobes=16,
                        target_rows_per_task=-(-args.queries // workers),
                    ).count(),
                    args.repeats,
                )
                rows[workers] = (build_wall, commit_s, join_wall, model_wall)
            finally:
                spark.stop()
            tessera.open(path).drop_index("c", if_exists=True)

        per_row_build_us = 1e6 * build_s / args.rows
        per_query_ms = 1e3 * search_s / args.queries
        print(f"# Distributed build scale-out {args.label}\n")
        print(f"{args.rows:,} rows x {args.dim} float32 in {args.fragments} fragments; IVF_PQ "
              f"num_partitions={args.partitions}, num_sub_vectors={args.sub_vectors}; "
              f"{os.cpu_count()} cores; one engine thread per worker; medians of "
              f"{args.repeats}.\n")
        print("| measure | value |")
        print("| --- | --- |")
        print(f"| train on the driver (sample) | {train_s:.2f} s |")
        print(f"| of which the IVF centroids (IVF_FLAT's training) | {ivf_train_s:.2f} s |")
        print(f"| build, one worker in-process | {build_s:.2f} s ({per_row_build_us:.2f} us/row) |")
        print(f"| batch search, one thread, nprobes=16, k=10 | {per_query_ms:.3f} ms/query |")
        for workers, (build_wall, commit_s, join_wall, model_wall) in rows.items():
            print(f"| Spark build_index, {workers} worker(s), incl. training and commit | "
                  f"{build_wall:.2f} s |")
            print(f"| Spark build_index, {workers} worker(s), model given (build and commit) | "
                  f"{model_wall:.2f} s |")
            print(f"| commit of {workers} segment(s) | {1e3 * commit_s:.1f} ms |")
            print(f"| Spark knn_join of {args.queries} rows, {workers} task(s) | {join_wall:.2f} s |")
        speedup = rows[1][0] / rows[2][0]
        model_speedup = rows[1][3] / rows[2][3]
        join_speedup = rows[1][2] / rows[2][2]
        print(f"\nSpeedup 1 -> 2 workers: whole build {speedup:.2f}x, build with the model "
              f"given {model_speedup:.2f}x, k-NN join {join_speedup:.2f}x.")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
