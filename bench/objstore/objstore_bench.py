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

Peer: Lance (pylance, bench/ann/install_peers.sh) with the same rows and an IVF_PQ index of the
same shape on the same store behind the same proxy: one search, and the 100 queries one after
another in one process (Lance has no batch search), each run in a fresh process. Lance's seconds
are measured inside that process from opening the dataset to the last result (Python's start
and `import lance` are left out); tessera's include its whole process.
"""

import argparse
import json
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


LANCE_SEARCH = """
import json, sys, time
import lance
import numpy as np
import pyarrow.parquet as pq
uri, endpoint, queries_path, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
options = {"access_key_id": "bench", "secret_access_key": "bench", "region": "us-east-1",
           "endpoint": endpoint, "allow_http": "true"}
column = pq.read_table(queries_path).column("vector").combine_chunks()
dim = column.type.list_size
vectors = column.values.to_numpy().reshape(-1, dim)
if count == 0:
    vectors, count = np.full((1, dim), 0.1, dtype=np.float32), 1
started = time.monotonic()
dataset = lance.dataset(uri, storage_options=options)
ids = []
for q in vectors[:count]:
    found = dataset.to_table(nearest={"column": "vector", "q": q, "k": 10, "nprobes": 8,
                                      "refine_factor": 4}, columns=["id"])
    ids.append(found.column("id").to_pylist())
print(json.dumps({"seconds": time.monotonic() - started, "ids": ids}))
"""


def lance_available():
    try:
        import lance  # noqa: F401
        return True
    except ImportError:
        return False


def write_lance(data, uri, endpoint, dim):
    import lance
    import pyarrow.parquet as pq
    options = {"access_key_id": "bench", "secret_access_key": "bench", "region": "us-east-1",
               "endpoint": endpoint, "allow_http": "true"}
    dataset = lance.write_dataset(pq.read_table(data), uri, storage_options=options)
    dataset.create_index("vector", "IVF_PQ", num_partitions=64, num_sub_vectors=dim // 4)


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
        results_by_name = {}
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
            results_by_name[name] = results
            answers = {r[3] for r in results.values()}
            base = results["no cache"]
            for label, (requests, mib, seconds, _) in results.items():
                rows.append(f"| {name} | {label} | {requests:.0f} | {mib:.2f} | {seconds:.2f} | "
                            f"{base[2] / seconds:.2f}x |")
            if len(answers) != 1 and "k-NN" not in name:  # a join prints where it wrote
                rows.append(f"| {name} | ANSWERS DIFFER between configurations | | | | |")
        peers = []
        if lance_available():
            import lance
            proxy.faults = {}
            write_lance(data, f"s3://{BUCKET}/lance-items", endpoint, args.dim)
            proxy.faults = {"delay_seconds": args.latency_ms / 1000}
            # Lance returns `id` (its script asks for it): tessera's rows returning `id` for one
            # query; its batch search returns every column.
            ours = {"search, 1 query, column id":
                    results_by_name["search, 1 query, column id"]["cache, 256 KiB chunks"],
                    "batch search, 100 queries":
                    results_by_name["batch search, 100 queries"]["cache, 256 KiB chunks"]}
            for name, count in (("search, 1 query, column id", 0),
                                ("batch search, 100 queries", 100)):
                measured = []
                for _ in range(args.repeat):
                    before = dict(proxy.counters)
                    result = subprocess.run(
                        [sys.executable, "-c", LANCE_SEARCH, f"s3://{BUCKET}/lance-items",
                         store.proxied_endpoint, queries, str(count)],
                        capture_output=True, text=True, timeout=1800, env=env)
                    if result.returncode != 0:
                        raise SystemExit(f"lance search failed: {result.stderr}")
                    seconds = json.loads(result.stdout.splitlines()[-1])["seconds"]
                    measured.append((proxy.counters["requests"] - before["requests"],
                                     proxy.counters["bytes_answered"] - before["bytes_answered"],
                                     seconds))
                requests = statistics.median(m[0] for m in measured)
                mib = statistics.median(m[1] for m in measured) / (1 << 20)
                seconds = statistics.median(m[2] for m in measured)
                tessera = ours[name]
                peers.append(f"| {name} | tessera (256 KiB chunks) | {tessera[0]:.0f} | "
                             f"{tessera[1]:.2f} | {tessera[2]:.2f} | {seconds / tessera[2]:.2f}x |")
                peers.append(f"| {name} | Lance {lance.__version__} | {requests:.0f} | {mib:.2f} | "
                             f"{seconds:.2f} | 1.00x |")
    peer_table = [] if not peers else [
        "",
        "Peer on the same store and proxy (Lance: one query at a time in one process; its seconds "
        "exclude Python's start and import, tessera's include its whole process):",
        "",
        "| operation | system | requests | MiB answered | seconds | speed vs Lance |",
        "| --- | --- | --- | --- | --- | --- |",
        *peers,
    ]
    table = "\n".join([
        f"Object storage reads: {args.rows} x {args.dim} vectors, IVF_PQ (64 partitions), "
        f"{args.latency_ms:g} ms added to every request; medians of {args.repeat} runs, each "
        "a fresh process.",
        "",
        "| operation | reads | requests | MiB answered | seconds | speed-up vs no cache |",
        "| --- | --- | --- | --- | --- | --- |",
        *rows,
        *peer_table,
    ])
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
