"""Load test of `tessera serve` on loopback (docs/benchmarks.md, "Server under load").

Starts a server over a fresh catalog holding one table of `--rows` generated rows (vectors of
`--dim`, an IVF_PQ index on them and a BTREE on id), then for `--seconds` runs `--clients`
PyMySQL connections, each looping over a mix of reads — vector_search through the index
(with and without a filter), SHOW INDEX, SHOW PROCESSLIST, a filtered count — while one more
connection runs mutations in a loop (CREATE INDEX / DROP INDEX of a BITMAP, INSERT of rows).
Reports per statement kind: count, errors, p50 / p99 latency; the throughput of all reads;
and fails (exit 1) on any error other than the documented Busy (7005) of a mutation.

Bounded: every connection has a read timeout, the run stops after --seconds, the server is
stopped (killed if it will not stop) on every exit path.

  .venv/bin/python bench/server_load.py --cli build/tessera --work /tmp/load
"""

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import threading
import time

import pymysql

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "server"))
from server_process import ServerProcess  # noqa: E402

PASSWORD = "load-Pass1"
BUSY = 7005


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


class Recorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.latencies = {}
        self.errors = {}
        self.busy = {}

    def record(self, kind, seconds, error=None):
        with self.lock:
            if error is None:
                self.latencies.setdefault(kind, []).append(seconds)
            elif error == BUSY:
                self.busy[kind] = self.busy.get(kind, 0) + 1
            else:
                self.errors.setdefault(kind, []).append(error)


def connect(port):
    return pymysql.connect(host="127.0.0.1", port=port, user="root", password=PASSWORD,
                           database="bench", autocommit=True, connect_timeout=30,
                           read_timeout=120)


def timed(recorder, cursor, kind, sql):
    started = time.perf_counter()
    try:
        cursor.execute(sql)
        cursor.fetchall()
        recorder.record(kind, time.perf_counter() - started)
    except pymysql.MySQLError as error:
        recorder.record(kind, time.perf_counter() - started,
                        (error.args[0], str(error.args[1:])[:200]) if error.args[0] != BUSY
                        else BUSY)


def reader(port, dim, stop, recorder, seed):
    generator = random.Random(seed)
    connection = connect(port)
    cursor = connection.cursor()
    while not stop.is_set():
        vector = "[" + ",".join(f"{generator.uniform(-1, 1):.4f}" for _ in range(dim)) + "]"
        choice = generator.random()
        if choice < 0.45:
            timed(recorder, cursor, "vector_search k=10",
                  "SELECT id, _distance FROM vector_search(table => 'bench.items', column => "
                  f"'vector', query => {vector}, k => 10, nprobes => 8)")
        elif choice < 0.6:
            timed(recorder, cursor, "vector_search + filter",
                  "SELECT id, _distance FROM vector_search(table => 'bench.items', column => "
                  f"'vector', query => {vector}, k => 10, nprobes => 8, "
                  "filter => 'price < 50', prefilter => true)")
        elif choice < 0.75:
            timed(recorder, cursor, "SELECT count(*) WHERE id range",
                  f"SELECT count(*) FROM items WHERE id >= {generator.randrange(1000)} "
                  "AND id < 5000")
        elif choice < 0.9:
            timed(recorder, cursor, "SHOW INDEX", "SHOW INDEX FROM items")
        else:
            timed(recorder, cursor, "SHOW PROCESSLIST", "SHOW PROCESSLIST")
    connection.close()


def mutator(port, stop, recorder):
    connection = connect(port)
    cursor = connection.cursor()
    next_id = 10_000_000
    while not stop.is_set():
        timed(recorder, cursor, "mutation: CREATE INDEX (BITMAP)",
              "CREATE INDEX IF NOT EXISTS category_idx ON items (category) USING BITMAP")
        timed(recorder, cursor, "mutation: INSERT 100 rows",
              f"INSERT INTO items SELECT id + {next_id}, vector, category, price, ts, tags, "
              "text FROM items WHERE id < 100")
        next_id += 1000
        timed(recorder, cursor, "mutation: DROP INDEX",
              "DROP INDEX IF EXISTS category_idx ON items")
    connection.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=64)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    catalog = os.path.join(args.work, "catalog")
    os.makedirs(catalog)
    data = os.path.join(args.work, "items.parquet")
    subprocess.run([args.cli, "gen", data, "--rows", str(args.rows), "--dim", str(args.dim)],
                   check=True, stdout=subprocess.DEVNULL, timeout=600)
    config = os.path.join(args.work, "server.conf")
    with open(config, "w") as f:
        f.write(f"max_connections = {args.clients + 8}\nmutation_budget = 600\n")
    server = ServerProcess(args.cli, catalog, config, {"TESSERA_ROOT_PASSWORD": PASSWORD})
    try:
        setup = pymysql.connect(host="127.0.0.1", port=server.port, user="root",
                                password=PASSWORD, autocommit=True, read_timeout=600)
        with setup.cursor() as cursor:
            cursor.execute("CREATE DATABASE bench")
            cursor.execute(f"CREATE TABLE bench.items AS SELECT * FROM read_parquet('{data}')")
            cursor.execute("CREATE INDEX vector_idx ON bench.items (vector) USING ANN "
                           "PROPERTIES (\"index_type\" = \"IVF_PQ\", \"num_partitions\" = \"64\", "
                           f"\"num_sub_vectors\" = \"{args.dim // 8}\")")
            cursor.execute("CREATE INDEX id_idx ON bench.items (id) USING BTREE")
        setup.close()

        recorder = Recorder()
        stop = threading.Event()
        threads = [threading.Thread(target=reader, args=(server.port, args.dim, stop, recorder, i))
                   for i in range(args.clients)]
        threads.append(threading.Thread(target=mutator, args=(server.port, stop, recorder)))
        started = time.monotonic()
        for thread in threads:
            thread.start()
        time.sleep(args.seconds)
        stop.set()
        for thread in threads:
            thread.join(timeout=180)
        elapsed = time.monotonic() - started
        hung = [thread for thread in threads if thread.is_alive()]
    finally:
        code = server.stop()

    reads = sum(len(v) for k, v in recorder.latencies.items() if not k.startswith("mutation"))
    print(f"server load: {args.clients} clients + 1 mutator, {args.seconds:.0f} s, "
          f"{args.rows} rows of dimension {args.dim}, {os.cpu_count()} CPUs")
    print("| statement | count | Busy | errors | p50 ms | p99 ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for kind in sorted(set(recorder.latencies) | set(recorder.errors) | set(recorder.busy)):
        values = recorder.latencies.get(kind, [])
        print(f"| {kind} | {len(values)} | {recorder.busy.get(kind, 0)} | "
              f"{len(recorder.errors.get(kind, []))} | {percentile(values, 0.5) * 1000:.1f} | "
              f"{percentile(values, 0.99) * 1000:.1f} |")
    print(f"reads: {reads / elapsed:.0f} statements/s over {elapsed:.1f} s")
    failed = False
    for kind, errors in recorder.errors.items():
        print(f"ERRORS in {kind}: {errors[:5]}")
        failed = True
    busy_reads = [kind for kind in recorder.busy if not kind.startswith("mutation")]
    if busy_reads:
        print(f"a read was Busy: {busy_reads}")
        failed = True
    if hung:
        print(f"{len(hung)} clients did not stop")
        failed = True
    if code != 0:
        print(f"the server exited with {code} after SIGTERM")
        failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
