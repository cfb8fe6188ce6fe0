"""Reads of a dataset on object storage: requests, bytes and time per operation (issue 19;
docs/benchmarks.md, "Object storage").

moto's S3 server runs on loopback in this process, behind the fault proxy of the
object-storage tests (tests/objstore/s3_fault_proxy.py), which adds a fixed latency to every
request and counts requests and answer bytes. A dataset of synthetic embeddings with an IVF_PQ
index is created once, directly; then each operation runs through the proxy as a fresh CLI
process, under each read configuration:

- "no cache": TESSERA_S3_CACHE_BYTES=0, every read its own ranged GET;
- "cache, 256 KiB chunks" (the default) and "cache, 1 MiB chunks": reads in aligned chunks
  through the process's cache, runs of missing chunks coalesced into one GET, sizes from the
  checksums instead of HEADs.

Operations: one search (k=10, nprobes 8, refine factor 4) returning every column, the same
returning only `id`, a batch search of 100 queries, and a k-NN join of the 100 queries (k=10),
with its refinement batched (the default: one read per file per batch of left rows) and per row
(`--batch-rows 1`). The same operations run on a second dataset whose rows are the same Parquet
file as an external object (`create --external s3://...`, docs/objstore.md), read in place.
Medians of --repeat runs.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "objstore"))
from local_s3 import LocalS3  # noqa: E402

BUCKET = "tessera-bench"
CONFIGURATIONS = [
    ("no cache", {"TESSERA_S3_CACHE_BYTES": "0"}),
    ("cache, 256 KiB chunks", {}),
    ("cache, 1 MiB chunks", {"TESSERA_S3_READ_CHUNK_BYTES": str(1 << 20)}),
]


def run(cli, env, *args):
    result = subprocess.run([cli, *args], capture_output=True, text=True, env=env, timeout=1800)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {result.stderr}")
    return result.stdout


def dataset_operations(args, uri, single, queries):
    join = ["knn-join", "--left", queries, "--left-column", "vector", "--right", uri,
            "--right-column", "vector", "--k", "10", "--nprobes", "8", "--refine-factor", "4",
            "--out", os.path.join(args.work, "joined.parquet"), "--force"]
    return [
        ("search, 1 query", ["search", uri, "--column", "vector", "--vector", f"[{single}]",
                             "--k", "10", "--nprobes", "8", "--refine-factor", "4",
                             "--format", "csv"]),
        ("search, 1 query, column id", ["search", uri, "--column", "vector", "--vector",
                                        f"[{single}]", "--k", "10", "--nprobes", "8",
                                        "--refine-factor", "4", "--columns", "id",
                                        "--format", "csv"]),
        ("batch search, 100 queries", ["search", uri, "--column", "vector", "--queries",
                                       queries, "--k", "10", "--nprobes", "8",
                                       "--refine-factor", "4", "--format", "csv"]),
        ("k-NN join, 100 rows", join),
        ("k-NN join, 100 rows, refined per row", join + ["--batch-rows", "1"]),
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--rows", type=int, default=100000)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--latency-ms", type=float, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", help="markdown file for the table")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)

    with LocalS3(BUCKET, "bench", "bench") as store:
        proxy = store.proxy
        endpoint = store.endpoint
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "TESSERA_S3"))}
        env.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench",
                   AWS_REGION="us-east-1", AWS_ENDPOINT_URL=endpoint,
                   AWS_EC2_METADATA_DISABLED="true")
        data = os.path.join(args.work, "data.parquet")
        queries = os.path.join(args.work, "queries.parquet")
        uri = f"s3://{BUCKET}/items"
        run(args.cli, env, "gen", data, "--rows", str(args.rows), "--dim", str(args.dim),
            "--force")
        run(args.cli, env, "gen", queries, "--queries", "100", "--dim", str(args.dim), "--force")
        run(args.cli, env, "create", uri, "--from", data)
        run(args.cli, env, "index", "create", uri, "--name", "vec", "--column", "vector",
            "--type", "IVF_PQ", "--param", "num_partitions=64",
            "--param", f"num_sub_vectors={args.dim // 4}")
        # The same rows as an external Parquet object, indexed alike.
        store.client.upload_file(data, BUCKET, "exports/data.parquet")
        external = f"s3://{BUCKET}/external-items"
        run(args.cli, env, "create", external, "--external", f"s3://{BUCKET}/exports/data.parquet")
        run(args.cli, env, "index", "create", external, "--name", "vec", "--column", "vector",
            "--type", "IVF_PQ", "--param", "num_partitions=64",
            "--param", f"num_sub_vectors={args.dim // 4}")
        single = ",".join(["0.1"] * args.dim)
        operations = []
        for prefix, uri in (("", uri), ("external Parquet: ", external)):
            operations += [(prefix + name, command) for name, command in dataset_operations(
                args, uri, single, queries)]
        proxied = dict(env, AWS_ENDPOINT_URL=store.proxied_endpoint)

        proxy.faults = {"delay_seconds": args.latency_ms / 1000}
        rows = []
        for name, command in operations:
            results = {}
            for label, settings in CONFIGURATIONS:
                measured = []
                for _ in range(args.repeat):
                    before = dict(proxy.counters)
                    started = time.monotonic()
                    out = run(args.cli, dict(proxied, **settings), *command)
                    elapsed = time.monotonic() - started
                    measured.append((proxy.counters["requests"] - before["requests"],
                                     proxy.counters["bytes_answered"] - before["bytes_answered"],
                                     elapsed, out))
                requests = statistics.median(m[0] for m in measured)
                mib = statistics.median(m[1] for m in measured) / (1 << 20)
                seconds = statistics.median(m[2] for m in measured)
                results[label] = (requests, mib, seconds, measured[0][3])
            answers = {r[3] for r in results.values()}
            base = results["no cache"]
            for label, (requests, mib, seconds, _) in results.items():
                rows.append(f"| {name} | {label} | {requests:.0f} | {mib:.2f} | {seconds:.2f} | "
                            f"{base[2] / seconds:.2f}x |")
            if len(answers) != 1 and "k-NN" not in name:  # a join prints where it wrote
                rows.append(f"| {name} | ANSWERS DIFFER between configurations | | | | |")
    table = "\n".join([
        f"Object storage reads: {args.rows} x {args.dim} vectors, IVF_PQ (64 partitions), "
        f"{args.latency_ms:g} ms added to every request; medians of {args.repeat} runs, each "
        "a fresh process.",
        "",
        "| operation | reads | requests | MiB answered | seconds | speed-up vs no cache |",
        "| --- | --- | --- | --- | --- | --- |",
        *rows,
    ])
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
