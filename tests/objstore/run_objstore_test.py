"""Datasets on S3-compatible object storage, end to end (ctest objstore.s3; docs/objstore.md).

Starts moto's S3 server on loopback, in this process, and an HTTP fault proxy in front of it
(s3_fault_proxy.py), then drives the real CLI against `s3://` URIs:

- lifecycle: create, append, delete, index create (BTREE, IVF_FLAT, INVERTED), search,
  compact, cleanup, versions give the same rows and results on S3 as on a local directory;
- racing writers: processes appending to one dataset at once all commit, none lost;
- kill -9: a writer killed while publishing its manifest, or at a random moment of an index
  build, leaves the dataset at a committed version that reads back whole;
- a store that ignores conditional puts is refused for writes (reads still work), unless
  TESSERA_S3_SINGLE_WRITER=1;
- faults: throttling (503 SlowDown), dropped connections and a manifest put whose answer is
  lost are retried to the same result as a clean run; slow responses past the request timeout
  and a store that stays throttled fail `Unavailable` within the deadline, committing nothing;
- external Parquet: datasets (local and on S3) over Parquet objects answer as a local dataset
  over the same files; a rewritten object is Stale, at the version's open and, for a reader that
  opened it before (every fetch carries If-Match), at its next fetch; `refresh` records it;
  throttling is retried, a store that stays throttled is Unavailable (never Corrupt); objects
  under the dataset's prefix, patterns matching nothing and objects that are not Parquet are
  refused, typed;
- bad input: a missing bucket, a malformed URI, credentials in the URI, refused credentials, a
  prefix holding something that is not a dataset, each a typed error naming the URI.
The secret key never appears in any output. Every wait is bounded.
"""

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_s3 import LocalS3  # noqa: E402

SECRET = "tessera-test-secret-MUST-NOT-LEAK"
SESSION_TOKEN = "tessera-test-session-token-MUST-NOT-LEAK"
ACCESS_KEY = "tessera-test-access"
BUCKET = "tessera-objstore"

failures = []
outputs = []  # every captured stdout / stderr, checked for the secret at the end


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what, flush=True)


class Cli:
    def __init__(self, path, endpoint, **extra):
        self.path = path
        self.env = dict(os.environ)
        for name in list(self.env):
            if name.startswith(("AWS_", "TESSERA_S3_")):
                del self.env[name]
        self.env.update({
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET,
            "AWS_SESSION_TOKEN": SESSION_TOKEN,
            "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": endpoint,
            "AWS_EC2_METADATA_DISABLED": "true",
            "TESSERA_S3_RETRY_DEADLINE_SECONDS": "20",
        })
        self.env.update(extra)

    def with_env(self, **extra):
        other = Cli.__new__(Cli)
        other.path = self.path
        other.env = dict(self.env)
        other.env.update(extra)
        return other

    def run(self, *args, timeout=240):
        result = subprocess.run([self.path, *args], capture_output=True, text=True,
                                timeout=timeout, env=self.env)
        outputs.append(result.stdout)
        outputs.append(result.stderr)
        return result

    def ok(self, *args, timeout=240):
        result = self.run(*args, timeout=timeout)
        check(result.returncode == 0,
              f"{' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
        return result.stdout

    def popen(self, *args, **env):
        merged = dict(self.env)
        merged.update(env)
        return subprocess.Popen([self.path, *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=merged)


def error_kind(result):
    match = re.search(r"error: (\w+):", result.stderr)
    return match.group(1) if match else None


def normalized(text, *roots):
    for root in roots:
        text = text.replace(root, "<root>")
    return text


def count(cli, uri, *extra):
    out = cli.ok("count", uri, *extra).strip()
    return int(out.split()[0]) if out else -1


def lifecycle(cli, work, s3_uri):
    """The same history on a local directory and on S3: the same rows and search results."""
    local = os.path.join(work, "local")
    outputs_by_store = {}
    for uri in (local, s3_uri):
        steps = []
        cli.ok("create", uri, "--from", os.path.join(work, "a.parquet"))
        cli.ok("append", uri, "--from", os.path.join(work, "b.parquet"))
        cli.ok("delete", uri, "--where", "price < 10")
        cli.ok("index", "create", uri, "--name", "price_idx", "--column", "price",
               "--type", "BTREE")
        cli.ok("index", "create", uri, "--name", "vec_idx", "--column", "vector",
               "--type", "IVF_FLAT", "--param", "num_partitions=4")
        cli.ok("index", "create", uri, "--name", "text_idx", "--column", "text",
               "--type", "INVERTED")
        steps.append(cli.ok("count", uri))
        steps.append(cli.ok("count", uri, "--where", "price > 50"))
        steps.append(cli.ok("scan", uri, "--where", "price between 20 and 30", "--format", "csv"))
        steps.append(cli.ok("search", uri, "--column", "vector", "--vector",
                            "[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]", "--k", "10",
                            "--nprobes", "4", "--format", "csv"))
        steps.append(cli.ok("search", uri, "--column", "text", "--text", "forest kitchen",
                            "--k", "5", "--format", "csv", "--columns", "id"))
        cli.ok("compact", uri)
        steps.append(cli.ok("scan", uri, "--format", "csv", "--columns", "id,category,price"))
        cli.ok("cleanup", uri, "--older-than", "0s")
        steps.append(cli.ok("versions", uri).count("\n"))
        steps.append(cli.ok("index", "list", uri))
        outputs_by_store[uri] = [normalized(str(s), local, s3_uri) for s in steps]
    for i, (a, b) in enumerate(zip(outputs_by_store[local], outputs_by_store[s3_uri])):
        check(a == b, f"lifecycle step {i} differs between local and S3:\n{a[:400]}\n---\n{b[:400]}")


def racing_writers(cli, work, uri):
    cli.ok("create", uri, "--from", os.path.join(work, "small.parquet"))
    before = count(cli, uri)
    writers = [cli.popen("append", uri, "--from", os.path.join(work, "small.parquet"))
               for _ in range(4)]
    for writer in writers:
        out, err = writer.communicate(timeout=240)
        outputs.extend([out, err])
        check(writer.returncode == 0, f"a racing append failed: {err.strip()}")
    check(count(cli, uri) == before * 5, "racing appends: every append is in the dataset")
    versions = cli.ok("versions", uri)
    check(len(re.findall(r"^\s*\d+\s", versions, re.M)) == 5,
          f"racing appends: five versions, one per commit:\n{versions}")


def kill_nine(cli, work, uri):
    cli.ok("create", uri, "--from", os.path.join(work, "small.parquet"))
    rows = count(cli, uri)
    crashed = cli.with_env(TESSERA_CRASH_AT="commit.while_writing_manifest").run(
        "append", uri, "--from", os.path.join(work, "small.parquet"))
    check(crashed.returncode == -signal.SIGKILL, f"crash point killed the writer: {crashed}")
    check(count(cli, uri) == rows, "a writer killed while publishing committed nothing")
    cli.ok("append", uri, "--from", os.path.join(work, "small.parquet"))
    check(count(cli, uri) == 2 * rows, "the dataset takes writes after the crash")
    # A build killed at a random moment: the index is either whole or absent.
    rng = random.Random(7)
    for attempt in range(3):
        build = cli.popen("index", "create", uri, "--name", f"v{attempt}", "--column", "vector",
                          "--type", "IVF_PQ", "--param", "num_partitions=4",
                          "--param", "num_sub_vectors=2")
        time.sleep(rng.uniform(0.05, 1.0))
        build.send_signal(signal.SIGKILL)
        build.communicate(timeout=60)
        check(count(cli, uri) == 2 * rows, "a killed build changed no rows")
        listed = cli.ok("index", "list", uri)
        if f"v{attempt}" in listed:  # committed whole: searchable
            cli.ok("search", uri, "--column", "vector", "--vector", "[0,0,0,0,0,0,0,0]",
                   "--k", "5")
    cli.ok("cleanup", uri, "--older-than", "0s")
    check(count(cli, uri) == 2 * rows, "cleanup after crashes keeps every committed row")


def no_conditional_puts(cli, proxied, proxy, work, uri):
    cli.ok("create", uri, "--from", os.path.join(work, "small.parquet"))
    proxy.faults = {"ignore_conditions": True}
    refused = proxied.run("append", uri, "--from", os.path.join(work, "small.parquet"))
    check(error_kind(refused) == "Unsupported",
          f"a store ignoring If-None-Match is refused for writes: {refused.stderr}")
    check("TESSERA_S3_SINGLE_WRITER" in refused.stderr and "127.0.0.1" in refused.stderr,
          f"the refusal names the store and the way out: {refused.stderr}")
    check(proxy.counters["conditions_dropped"] >= 2, "the probe's conditions were dropped")
    proxy.faults = {"conditions_not_implemented": True}
    started = time.monotonic()
    refused = proxied.run("append", uri, "--from", os.path.join(work, "small.parquet"))
    check(error_kind(refused) == "Unsupported" and "does not implement" in refused.stderr,
          f"a store answering 501 to conditional puts is refused, not retried: {refused.stderr}")
    check(time.monotonic() - started < 10, "a 501 is final: no retries until the deadline")
    check(count(proxied, uri) == count(cli, uri), "reads still work there")
    single = proxied.with_env(TESSERA_S3_SINGLE_WRITER="1")
    single.ok("append", uri, "--from", os.path.join(work, "small.parquet"))
    check(len(re.findall(r"^\s*\d+\s", cli.ok("versions", uri), re.M)) == 2,
          "single-writer mode commits")
    proxy.faults = {}


def faults(direct, cli, proxy, work, uri):
    uri_proxied = uri_direct = uri
    # Throttling and dropped connections: retried to the result of a clean run.
    proxy.faults = {"throttle_every": 3}
    cli.ok("create", uri_proxied, "--from", os.path.join(work, "a.parquet"))
    cli.ok("index", "create", uri_proxied, "--name", "vec_idx", "--column", "vector",
           "--type", "IVF_FLAT", "--param", "num_partitions=4")
    proxy.faults = {"drop_every": 4}
    cli.ok("append", uri_proxied, "--from", os.path.join(work, "b.parquet"))
    got = cli.ok("search", uri_proxied, "--column", "vector", "--vector",
                 "[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]", "--k", "10", "--format", "csv")
    check(proxy.counters["throttled"] > 0 and proxy.counters["dropped"] > 0,
          f"faults were injected: {proxy.counters}")
    proxy.faults = {}
    check(got == direct.ok("search", uri_direct, "--column", "vector", "--vector",
                        "[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]", "--k", "10",
                        "--format", "csv"),
          "search through faults equals search without")
    rows = count(direct, uri_direct)
    # A manifest put applied by the store whose answer is lost: resolved as committed, once.
    versions_before = len(re.findall(r"^\s*\d+\s", direct.ok("versions", uri_direct), re.M))
    proxy.faults = {"drop_manifest_puts": 1}
    cli.ok("append", uri_proxied, "--from", os.path.join(work, "small.parquet"))
    check(proxy.counters["manifest_puts_dropped"] == 1, "the manifest put's answer was lost")
    proxy.faults = {}
    small = count(cli, os.path.join(work, "small_local"))
    check(count(direct, uri_direct) == rows + small,
          "an append whose commit answer was lost is in the dataset exactly once")
    check(len(re.findall(r"^\s*\d+\s", direct.ok("versions", uri_direct), re.M)) ==
          versions_before + 1, "and made exactly one version")
    # Slow answers past the request timeout, and a store that stays throttled: Unavailable
    # within the deadline, nothing committed.
    impatient = cli.with_env(TESSERA_S3_REQUEST_TIMEOUT_SECONDS="0.5",
                             TESSERA_S3_RETRY_DEADLINE_SECONDS="2")
    for fault in ({"delay_seconds": 1.0}, {"throttle_every": 1}):
        proxy.faults = fault
        started = time.monotonic()
        failed = impatient.run("append", uri_proxied, "--from",
                               os.path.join(work, "small.parquet"))
        elapsed = time.monotonic() - started
        proxy.faults = {}
        check(error_kind(failed) == "Unavailable", f"{fault}: Unavailable: {failed.stderr}")
        check(elapsed < 60, f"{fault}: gave up within bounds ({elapsed:.1f} s)")
        check(count(direct, uri_direct) == rows + small, f"{fault}: nothing committed")
    direct.ok("scan", uri_direct, "--format", "csv")


PYTHON_CHECK = """
import sys
import pyarrow as pa
import tessera
uri = sys.argv[1]
dataset = tessera.open(uri)
print(dataset.count_rows(), dataset.count_rows(where="price > 50"))
dataset.append(pa.table({c: dataset.to_table().column(c).slice(0, 5) for c in dataset.schema.names}))
print(tessera.open(uri).count_rows())
try:
    tessera.open(uri + "-missing")
except tessera.NotFoundError:
    print("NotFoundError")
"""

PYTHON_DENIED = """
import sys
import tessera
try:
    tessera.open(sys.argv[1])
except tessera.PermissionDeniedError as error:
    print("PermissionDeniedError", isinstance(error, PermissionError))
"""


def python_package(cli, proxied, proxy, python_path, uri):
    """The Python package reaches the same dataset: counts, an append, typed errors."""
    expected_counts = f"{count(cli, uri)} {count(cli, uri, '--where', 'price > 50')}"
    env = dict(cli.env)
    env["PYTHONPATH"] = python_path
    result = subprocess.run([sys.executable, "-c", PYTHON_CHECK, uri], capture_output=True,
                            text=True, timeout=120, env=env)
    outputs.extend([result.stdout, result.stderr])
    check(result.returncode == 0, f"python on S3 exited {result.returncode}: {result.stderr}")
    lines = result.stdout.splitlines()
    check(lines == [expected_counts, str(int(expected_counts.split()[0]) + 5), "NotFoundError"],
          f"python on S3 counts as the CLI does, appends and raises NotFoundError: {lines}")
    check(count(cli, uri) == int(expected_counts.split()[0]) + 5, "the CLI sees python's append")
    env = dict(proxied.env, PYTHONPATH=python_path)
    proxy.faults = {"deny_access_key": ACCESS_KEY}
    denied = subprocess.run([sys.executable, "-c", PYTHON_DENIED, uri], capture_output=True,
                            text=True, timeout=120, env=env)
    proxy.faults = {}
    outputs.extend([denied.stdout, denied.stderr])
    check(denied.stdout.strip() == "PermissionDeniedError True",
          f"python raises PermissionDeniedError, a PermissionError: {denied.stdout} {denied.stderr}")


PYTHON_PINNED = """
import sys
import boto3
import tessera
uri, endpoint, bucket, key, replacement = sys.argv[1:6]
dataset = tessera.open(uri)
print(dataset.count_rows())
# Rewritten after the open: a reader must never decode the new bytes through the old footer.
boto3.client("s3", endpoint_url=endpoint).upload_file(replacement, bucket, key)
try:
    dataset.to_table()
    print("read")
except tessera.StaleError as error:
    print("StaleError", f"s3://{bucket}/{key}" in str(error))
"""


PYTHON_FORK = """
import os
import sys
import tessera
dataset = tessera.open(sys.argv[1])
print(dataset.to_table().num_rows, flush=True)
pid = os.fork()
if pid == 0:
    print("child", tessera.open(sys.argv[1]).to_table().num_rows, flush=True)
    os._exit(0)
_, status = os.waitpid(pid, 0)
print("parent", tessera.open(sys.argv[1]).to_table().num_rows if status == 0 else status,
      flush=True)
"""


def external_parquet(cli, proxied, proxy, store, work, python_path):
    """Parquet objects referenced in place: the same answers as the same files on local disk."""
    exports = os.path.join(work, "exports")
    os.makedirs(exports)
    for name, key in (("a", "part-0.parquet"), ("b", "part-1.parquet"),
                      ("small", "extra.parquet")):
        shutil.copy(os.path.join(work, f"{name}.parquet"), os.path.join(exports, key))
        store.client.upload_file(os.path.join(exports, key), BUCKET, f"exports/{key}")
    local_files = os.path.join(exports, "part-*.parquet")
    s3_files = f"s3://{BUCKET}/exports/part-*.parquet"
    vector = "[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]"
    answers = {}
    # The local dataset over objects names them with '?', which object patterns allow too.
    datasets = ((os.path.join(work, "ext_local"), local_files, os.path.join(exports, "extra.parquet")),
                (f"s3://{BUCKET}/ext", s3_files, f"s3://{BUCKET}/exports/extra.parquet"),
                (os.path.join(work, "ext_mixed"), f"s3://{BUCKET}/exports/part-?.parquet",
                 f"s3://{BUCKET}/exports/extra.parquet"))
    for uri, files, extra in datasets:
        steps = [cli.ok("create", uri, "--external", files, "--rows-per-batch", "500")]
        cli.ok("index", "create", uri, "--name", "vec_idx", "--column", "vector",
               "--type", "IVF_PQ", "--param", "num_partitions=4", "--param", "num_sub_vectors=4")
        cli.ok("index", "create", uri, "--name", "price_idx", "--column", "price",
               "--type", "BTREE")
        cli.ok("append", uri, "--external", extra)
        steps.append(cli.ok("count", uri, "--where", "price > 50"))
        steps.append(cli.ok("scan", uri, "--where", "price between 20 and 30", "--format", "csv"))
        steps.append(cli.ok("search", uri, "--column", "vector", "--vector", vector, "--k", "10",
                            "--nprobes", "4", "--refine-factor", "4", "--format", "csv"))
        cli.ok("index", "optimize", uri)
        steps.append(cli.ok("search", uri, "--column", "vector", "--vector", vector, "--k", "10",
                            "--nprobes", "4", "--where", "price > 30", "--format", "csv",
                            "--columns", "id,price"))
        answers[uri] = [normalized(step, uri, exports, f"s3://{BUCKET}/exports")
                        for step in steps]
    baseline = answers[datasets[0][0]]
    for uri, *_ in datasets[1:]:
        for i, (a, b) in enumerate(zip(baseline, answers[uri])):
            check(a == b, f"external step {i} differs on {uri}:\n{a[:300]}\n---\n{b[:300]}")

    # Throttling is retried to the same answer; a store that stays throttled is Unavailable,
    # never Corrupt (the local dataset's manifest is local: the throttled reads are the
    # objects').
    s3_dataset, mixed = datasets[1][0], datasets[2][0]
    for uri in (s3_dataset, mixed):
        search = ("search", uri, "--column", "vector", "--vector", vector, "--k", "10",
                  "--nprobes", "4", "--refine-factor", "4", "--format", "csv")
        proxy.faults = {"throttle_every": 3}
        through_faults = proxied.ok(*search)
        proxy.faults = {"throttle_every": 1}
        throttled = proxied.with_env(TESSERA_S3_RETRY_DEADLINE_SECONDS="1").run(
            "scan", uri, "--format", "csv")
        proxy.faults = {}
        check(through_faults == cli.ok(*search), f"{uri}: a search through throttling equals one without")
        check(error_kind(throttled) == "Unavailable",
              f"{uri}: stays throttled: Unavailable: {throttled.stderr}")

    # Position deletes naming objects delete the same rows as naming the local copies.
    import pyarrow as pa
    import pyarrow.parquet as pq
    for uri, prefix in ((datasets[0][0], exports), (mixed, f"s3://{BUCKET}/exports")):
        deletes = os.path.join(work, "deletes.parquet")
        pq.write_table(pa.table({"file_path": [f"{prefix}/part-0.parquet"] * 3 +
                                 [f"{prefix}/part-1.parquet"],
                                 "pos": [0, 5, 7, 2]}), deletes)
        cli.ok("delete", uri, "--deleted-rows", deletes)
        check(count(cli, uri) == 4200 - 4, f"{uri}: position deletes naming its files delete 4 rows")

    # The same bytes uploaded again keep their ETag: the same file, nothing is Stale.
    store.client.upload_file(os.path.join(exports, "part-0.parquet"), BUCKET,
                             "exports/part-0.parquet")
    check(count(cli, mixed, "--where", "price > 50") > 0, "identical bytes uploaded again read")

    if python_path:
        # A child process forked after reads (its parent's connections kept open) reads on
        # connections of its own, as the parent goes on reading.
        env = dict(cli.env, PYTHONPATH=python_path)
        forked = subprocess.run([sys.executable, "-c", PYTHON_FORK, mixed], capture_output=True,
                                text=True, timeout=120, env=env)
        outputs.extend([forked.stdout, forked.stderr])
        check(forked.stdout.split() == ["4196", "child", "4196", "parent", "4196"],
              f"reads before and after fork, in both processes: {forked.stdout} {forked.stderr}")

    # A rewritten object: Stale at the next open, naming it; at the next fetch of a reader that
    # opened it before (If-Match); refresh records what it holds now.
    if python_path:
        env = dict(cli.env, PYTHONPATH=python_path, TESSERA_S3_CACHE_BYTES="0")
        pinned = subprocess.run(
            [sys.executable, "-c", PYTHON_PINNED, s3_dataset, store.endpoint, BUCKET,
             "exports/part-1.parquet", os.path.join(work, "small.parquet")],
            capture_output=True, text=True, timeout=120, env=env)
        outputs.extend([pinned.stdout, pinned.stderr])
        check(pinned.stdout.split("\n")[1:2] == ["StaleError True"],
              f"a reader opened before the rewrite gets StaleError: {pinned.stdout} {pinned.stderr}")
    else:
        store.client.upload_file(os.path.join(work, "small.parquet"), BUCKET,
                                 "exports/part-1.parquet")
    for uri, rows in ((s3_dataset, 3000 + 200 + 200), (mixed, 3000 - 3 + 200 + 200)):
        stale = cli.run("count", uri)
        check(error_kind(stale) == "Stale" and f"s3://{BUCKET}/exports/part-1.parquet" in stale.stderr,
              f"{uri}: a rewritten object is Stale naming it: {stale.stderr}")
        cli.ok("refresh", uri)
        check(count(cli, uri) == rows, f"{uri}: refresh records the new object")
    # Bad input, typed and naming what is wrong.
    for args, kind in (
            (("create", f"s3://{BUCKET}/ext_bad", "--external",
              f"s3://{BUCKET}/exports/none-*.parquet"), "InvalidArgument"),
            (("create", f"s3://{BUCKET}/ext_bad", "--external",
              f"s3://{BUCKET}/exports/missing.parquet"), "NotFound"),
            (("create", f"s3://{BUCKET}/ext_bad", "--external",
              "s3://no-such-bucket-here/x.parquet"), "NotFound"),
            (("create", f"s3://{BUCKET}/ext_bad", "--external",
              f"s3://{BUCKET}/*/part-0.parquet"), "InvalidArgument"),
            (("create", f"s3://{BUCKET}/ext_bad", "--external",
              f"s3://{BUCKET}/not-a-dataset/readme.txt"), "Corrupt"),
            (("append", s3_dataset, "--external", f"s3://{BUCKET}/ext/_versions/x.parquet"),
             "InvalidArgument")):
        bad = cli.run(*args)
        check(error_kind(bad) == kind and "s3://" in bad.stderr,
              f"{' '.join(args)}: {kind} naming the URI: {bad.stderr}")

    # A deleted object: Stale, and refresh leaves the dataset with its rows.
    store.client.delete_object(Bucket=BUCKET, Key="exports/extra.parquet")
    gone = cli.run("count", mixed)
    check(error_kind(gone) == "Stale" and "no longer exists" in gone.stderr,
          f"a deleted object is Stale: {gone.stderr}")
    cli.ok("refresh", mixed)
    check(count(cli, mixed) == 3000 - 3 + 200, "refresh drops a deleted object's rows")


def bad_input(cli, proxied, proxy, work):
    missing = cli.run("count", "s3://no-such-bucket-here/data")
    check(error_kind(missing) == "NotFound" and "no-such-bucket-here" in missing.stderr,
          f"a missing bucket is NotFound naming it: {missing.stderr}")
    for uri in ("s3://Bad_Bucket/x", "s3://tessera-objstore/x?endpoint_override=y"):
        bad = cli.run("count", uri)
        check(error_kind(bad) == "InvalidArgument", f"{uri}: InvalidArgument: {bad.stderr}")
    leaked = cli.run("count", f"s3://AKID:{SECRET}x@{BUCKET}/x")
    check(error_kind(leaked) == "InvalidArgument", f"credentials in the URI: {leaked.stderr}")
    outputs.remove(leaked.stderr)  # checked separately: the secret was in argv, not output
    check(SECRET not in leaked.stderr, "the URI's secret is not repeated")
    proxy.faults = {"deny_access_key": ACCESS_KEY}
    denied = proxied.with_env(TESSERA_S3_RETRY_DEADLINE_SECONDS="2").run(
        "count", f"s3://{BUCKET}/lifecycle")
    proxy.faults = {}
    check(error_kind(denied) == "PermissionDenied", f"refused credentials: {denied.stderr}")
    not_dataset = cli.run("count", f"s3://{BUCKET}/not-a-dataset")
    check(error_kind(not_dataset) == "NotFound", f"a prefix of other objects: {not_dataset.stderr}")
    refused_create = cli.run("create", f"s3://{BUCKET}/lifecycle", "--from",
                             os.path.join(work, "small.parquet"))
    check(error_kind(refused_create) == "AlreadyExists", f"create over a dataset: {refused_create.stderr}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--python-path", help="the staged Python package, when built")
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    with LocalS3(BUCKET, ACCESS_KEY, SECRET) as store:
        proxy = store.proxy
        endpoint = store.endpoint
        store.client.put_object(Bucket=BUCKET, Key="not-a-dataset/readme.txt", Body=b"hello")
        cli = Cli(args.cli, endpoint)
        proxied = cli.with_env(AWS_ENDPOINT_URL=store.proxied_endpoint)
        for name, rows, seed in (("a", 3000, 1), ("b", 1000, 2), ("small", 200, 3)):
            cli.ok("gen", os.path.join(args.work, f"{name}.parquet"), "--rows", str(rows),
                   "--dim", "8", "--seed", str(seed))
        cli.ok("create", os.path.join(args.work, "small_local"), "--from",
               os.path.join(args.work, "small.parquet"))

        sections = [
            ("lifecycle", lambda: lifecycle(cli, args.work, f"s3://{BUCKET}/lifecycle")),
            ("racing writers", lambda: racing_writers(cli, args.work, f"s3://{BUCKET}/racing")),
            ("kill -9", lambda: kill_nine(cli, args.work, f"s3://{BUCKET}/crash")),
            ("no conditional puts", lambda: no_conditional_puts(
                cli, proxied, proxy, args.work, f"s3://{BUCKET}/unconditional")),
            ("faults", lambda: faults(cli, proxied, proxy, args.work, f"s3://{BUCKET}/faults")),
            ("bad input", lambda: bad_input(cli, proxied, proxy, args.work)),
            ("external parquet", lambda: external_parquet(
                cli, proxied, proxy, store, args.work, args.python_path)),
        ]
        if args.python_path:
            sections.append(("python", lambda: python_package(
                cli, proxied, proxy, args.python_path, f"s3://{BUCKET}/racing")))
        for name, section in sections:
            started = time.monotonic()
            section()
            print(f"{name}: {time.monotonic() - started:.1f} s", flush=True)
    check(not any(SECRET in text or SESSION_TOKEN in text for text in outputs),
          "the secret key and the session token appear in no output")
    if failures:
        print(f"{len(failures)} check(s) failed", flush=True)
        return 1
    print("all object-storage checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
