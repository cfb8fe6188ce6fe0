"""Filtered reads against DuckDB (docs/benchmarks.md, "Filtered reads against DuckDB").

For each row count: writes the table (make_data.py) as Parquet and as an Arrow IPC file, creates
a tessera dataset from the IPC file (version 1: no index), then adds BTREEs on i, f and s, a
BITMAP on g and a ZONEMAP on t (the latest version). Every predicate `COLUMN < X`, X chosen for
each selectivity, is counted and scanned (every column returned) by:
  - tessera, through bench/read_query (in-process, the dataset opened once): on version 1 (the
    scan plan) and on the latest version (whatever plan the planner picks), timed in
    alternation in one process, so that their ratio is not skewed by the machine's drift;
  - DuckDB (the Python package, in-process, one connection): on the Parquet file, and on the IPC
    file memory-mapped by pyarrow and queried as an Arrow table (zero-copy);
each with 1 and 2 threads (TESSERA_NUM_THREADS / SET threads), medians of R timed repetitions
after two untimed runs (a process's first runs of a query are slower: its memory is new).
Every engine's answer (the count, the scanned rows) must agree.
Prints a Markdown report; --json writes every figure.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import duckdb
import pyarrow as pa
import pyarrow.ipc as ipc

HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = {  # column: (what it is, index on the latest version)
    "i": ("int64, uniform", "BTREE"),
    "f": ("double, uniform", "BTREE"),
    "s": ("string, uniform", "BTREE"),
    "g": ("int64, 10,000 values", "BITMAP"),
    "t": ("int64, sorted", "ZONEMAP"),
}


def threshold(column, selectivity, rows):
    if column == "i":
        return str(int(selectivity * 10**9))
    if column == "f":
        return repr(selectivity)
    if column == "s":
        return "'k%011d'" % int(selectivity * 10**11)
    if column == "g":
        return str(int(selectivity * 10000))
    return str(int(selectivity * rows))


def run(command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


def prepare(work, rows, cli):
    base = os.path.join(work, "rows-%d" % rows)
    os.makedirs(base, exist_ok=True)
    parquet, arrow_file = os.path.join(base, "data.parquet"), os.path.join(base, "data.arrow")
    dataset = os.path.join(base, "tessera")
    if not os.path.exists(os.path.join(base, "done")):
        run([sys.executable, os.path.join(HERE, "make_data.py"), "--rows", str(rows),
             "--parquet", parquet, "--ipc", arrow_file])
        run(["rm", "-rf", dataset])
        run([cli, "create", dataset, "--from", arrow_file])
        for column, (_, kind) in COLUMNS.items():
            extra = ["--param", "max_cardinality=10000"] if kind == "BITMAP" else []
            run([cli, "index", "create", dataset, "--name", column + "_idx", "--column", column,
                 "--type", kind] + extra)
        open(os.path.join(base, "done"), "w").close()
    return parquet, arrow_file, dataset


def tessera_times(read_query, dataset, queries, threads, repetitions, work):
    """Version 1 (the scan plan) and the latest (indexed), timed in alternation in one process;
    returns {version: {(operation, filter): result}}."""
    path = os.path.join(work, "queries.tsv")
    with open(path, "w") as out:
        for operation, predicate in queries:
            out.write("%s\t%s\n" % (operation, predicate))
    env = dict(os.environ, TESSERA_NUM_THREADS=str(threads))
    command = [read_query, dataset, path, "--repetitions", str(repetitions),
               "--versions", "1,latest"]
    results = {"1": {}, "latest": {}}
    for r in map(json.loads, run(command, env=env).stdout.splitlines()):
        results[r["version"]][(r["operation"], r["filter"])] = r
    return results


def duckdb_times(source, queries, threads, repetitions):
    con = duckdb.connect()
    con.execute("SET threads=%d" % threads)
    if source.endswith(".arrow"):
        table = ipc.open_file(pa.memory_map(source)).read_all()  # zero-copy over the mapped file
        con.register("data", table)
        relation = "data"
    else:
        relation = "read_parquet('%s')" % source
    results = {}
    for operation, predicate in queries:
        select = "count(*)" if operation == "count" else "*"
        sql = "SELECT %s FROM %s WHERE %s" % (select, relation, predicate)

        def once():
            if operation == "count":
                return con.execute(sql).fetchall()[0][0]
            return con.sql(sql).to_arrow_table().num_rows

        rows = once()
        assert once() == rows
        times = []
        for _ in range(repetitions):
            start = time.perf_counter()
            again = once()
            times.append((time.perf_counter() - start) * 1000)
            assert again == rows
        results[(operation, predicate)] = {"rows": rows, "median_ms": statistics.median(times)}
    con.close()  # its threads must not share the cores with the next measurement
    return results


def fmt(ms):
    return "%.3g" % ms if ms < 10 else "%.0f" % ms


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--read-query", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--rows", default="5000000,20000000")
    parser.add_argument("--selectivities", default="0.0001,0.01,0.1,0.5")
    parser.add_argument("--operations", default="count,scan")
    parser.add_argument("--columns", default=",".join(COLUMNS))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--label", default="")
    parser.add_argument("--json")
    args = parser.parse_args()
    selectivities = [float(s) for s in args.selectivities.split(",")]
    threads_list = [int(t) for t in args.threads.split(",")]
    record = {"label": args.label, "runs": []}
    print("# Filtered reads against DuckDB %s\n" % args.label)
    print("duckdb %s, pyarrow %s, %d repetitions (medians, ms); speed-up = DuckDB's best time "
          "(Parquet or IPC) / tessera's, same thread count\n"
          % (duckdb.__version__, pa.__version__, args.repetitions))
    for rows in [int(r) for r in args.rows.split(",")]:
        parquet, arrow_file, dataset = prepare(args.work, rows, args.cli)
        queries = [(operation, "%s < %s" % (column, threshold(column, s, rows)))
                   for operation in args.operations.split(",")
                   for column in args.columns.split(",") for s in selectivities]
        measured = {}
        for threads in threads_list:
            both = tessera_times(args.read_query, dataset, queries, threads, args.repetitions,
                                 args.work)
            measured[("scan plan", threads)] = both["1"]
            measured[("indexed", threads)] = both["latest"]
            measured[("parquet", threads)] = duckdb_times(parquet, queries, threads,
                                                          args.repetitions)
            measured[("ipc", threads)] = duckdb_times(arrow_file, queries, threads,
                                                      args.repetitions)
        for key, results in measured.items():
            for query, result in results.items():
                expected = measured[("parquet", threads_list[0])][query]["rows"]
                if result["rows"] != expected:
                    sys.exit("%s %s: %d rows, DuckDB %d" % (key, query, result["rows"], expected))
        record["runs"].append({"rows": rows, "results": [
            {"engine": engine, "threads": threads, "operation": q[0], "filter": q[1], **r}
            for (engine, threads), results in measured.items() for q, r in results.items()]})
        for operation in args.operations.split(","):
            print("## %s, %s rows\n" % (operation, format(rows, ",")))
            header = ["predicate", "matches"]
            for threads in threads_list:
                header += ["tessera scan plan %dT" % threads, "tessera indexed %dT" % threads,
                           "DuckDB Parquet %dT" % threads, "DuckDB IPC %dT" % threads,
                           "speed-up scan plan %dT" % threads, "speed-up indexed %dT" % threads,
                           "indexed ÷ scan plan %dT" % threads]
            if len(threads_list) > 1:
                header.append("scan plan %dT ÷ %dT" % (threads_list[0], threads_list[-1]))
            header.append("plan (latest version)")
            print("| " + " | ".join(header) + " |")
            print("| --- | " + " | ".join(["---:"] * (len(header) - 3)) + " | --- |")
            for column in args.columns.split(","):
                for s in selectivities:
                    q = (operation, "%s < %s" % (column, threshold(column, s, rows)))
                    cells = ["`%s` (%s, %s)" % (q[1], COLUMNS[column][0], COLUMNS[column][1]),
                             format(measured[("parquet", threads_list[0])][q]["rows"], ",")]
                    for threads in threads_list:
                        plain = measured[("scan plan", threads)][q]["median_ms"]
                        indexed = measured[("indexed", threads)][q]["median_ms"]
                        duck = min(measured[("parquet", threads)][q]["median_ms"],
                                   measured[("ipc", threads)][q]["median_ms"])
                        cells += [fmt(plain), fmt(indexed),
                                  fmt(measured[("parquet", threads)][q]["median_ms"]),
                                  fmt(measured[("ipc", threads)][q]["median_ms"]),
                                  "%.2f" % (duck / plain), "%.2f" % (duck / indexed),
                                  "%.2f" % (indexed / plain)]
                    if len(threads_list) > 1:
                        cells.append("%.2f" % (measured[("scan plan", threads_list[0])][q]["median_ms"]
                                               / measured[("scan plan", threads_list[-1])][q]["median_ms"]))
                    plan = measured[("indexed", threads_list[-1])][q]["plan"]
                    cells.append("; ".join(plan).replace("|", "\\|"))
                    print("| " + " | ".join(cells) + " |")
            print()
    if args.json:
        with open(args.json, "w") as out:
            json.dump(record, out, indent=1)


if __name__ == "__main__":
    main()
