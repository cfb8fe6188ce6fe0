"""The DuckDB differential test of tessera's filter language (ctest differential.duckdb_filters).

1. Builds a dataset of edge values (data.py) with the tessera CLI through several versions: create,
   overwrite, appends in several fragments (from Arrow IPC files and one Parquet file), deletes; then BTREE indexes (CLI `index create`), an
   append the BTREE does not cover, and test-only MINMAX indexes (tessera_test_filters minmax).
2. Configurations, each an older version read by time travel: `none` (no index), `btree` (a BTREE
   on every column type it supports), `btree_partial` (the same, plus an unindexed fragment) and
   `minmax` (zone maps on every column type MINMAX supports). Each one's live rows are read back
   from tessera (tessera_test_filters dump), checked against the rows written, and loaded into
   DuckDB.
3. Runs N seeded random predicates (grammar.py) through query::Count and query::Read
   (tessera_test_filters run) on every configuration, and through DuckDB: every count and every
   scan's ids must equal DuckDB's, and every configuration must give the same answer (errors
   included, for the ill-typed predicates). A sample also runs through the CLI (`tessera count
   --where`, `tessera scan --where --format json`), which must print the same rows, and the numbers
   tessera holds in their integer and float columns.

Environment: TESSERA_DIFF_SEED (default 11), TESSERA_DIFF_COUNT (predicates; default
--default-count), TESSERA_DIFF_CLI_SAMPLE (default 50), TESSERA_DIFF_ENABLE (grammar.py,
KNOWN_BUGS). Exit 0 when everything agrees, 1 with a report of every difference otherwise.
"""

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import time
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import grammar  # noqa: E402

try:
    import duckdb
except ImportError:
    sys.exit("duckdb is not installed in the venv: run scripts/bootstrap.sh")

# Predicates (tessera text) where tessera is known to answer differently from the documented
# semantics; they are still run, and a difference on them is reported but not a failure. Each
# entry says why, and which issue tracks it. An entry that starts to pass is reported, so that
# the list shrinks.
KNOWN_FAILURES = {
}

BTREE_FAMILIES = ("id", "int", "float", "bool", "string", "date", "timestamp")
MINMAX_KINDS = ("i8", "i16", "i32", "i64", "u8", "u16", "u32")  # ints up to 32 bits and int64


class Cli:
    def __init__(self, path, dataset):
        self.path = path
        self.dataset = dataset
        self.launches = 0

    def __call__(self, *args, check=True):
        self.launches += 1
        done = subprocess.run([self.path, *args], capture_output=True, text=True)
        if check and done.returncode != 0:
            raise SystemExit(f"tessera {' '.join(args)} failed ({done.returncode}):\n"
                             f"{done.stdout}{done.stderr}")
        return done

    def version(self):
        info = json.loads(self("info", self.dataset, "--format", "json").stdout)
        return int(info["version"])


def write_ipc(table, path):
    with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


def ids_where(table, keep):
    return pa.array([i for i in table.column("id").to_pylist() if keep(i)], pa.int64())


def remove_ids(table, ids):
    return table.filter(pc.invert(pc.is_in(table.column("id"), ids)))


def build_dataset(cli, helper, work, rng):
    """Writes the dataset's history; returns {configuration: (version, expected rows)}."""
    ds = cli.dataset
    parts = [data.make_rows(rng, first, count)
             for first, count in [(0, 140), (1000, 120), (2000, 130), (3000, 90)]]
    files = []
    for number, part in enumerate(parts):
        if number == len(parts) - 1:  # the CLI reads Parquet too
            files.append(os.path.join(work, f"part{number}.parquet"))
            pq.write_table(part, files[-1])
        else:
            files.append(os.path.join(work, f"part{number}.arrow"))
            write_ipc(part, files[-1])
    junk = pa.table({"id": pa.array([1, 2], pa.int64()), "other": ["x", "y"]})
    write_ipc(junk, os.path.join(work, "junk.arrow"))

    cli("create", ds, "--from", os.path.join(work, "junk.arrow"))
    cli("overwrite", ds, "--from", files[0], "--max-rows-per-file", "50")
    cli("append", ds, "--from", files[1], "--max-rows-per-file", "70")
    live = pa.concat_tables(parts[:2])
    first_delete = ids_where(live, lambda i: i % 7 == 3)
    cli("delete", ds, "--where", f"id IN ({', '.join(map(str, first_delete.to_pylist()))})")
    live = remove_ids(live, first_delete)
    cli("append", ds, "--from", files[2], "--max-rows-per-file", "80")
    live = pa.concat_tables([live, parts[2]])
    cli("delete", ds, "--where", "id BETWEEN 1010 AND 1029 OR id = 2005")
    live = remove_ids(live, ids_where(live, lambda i: 1010 <= i <= 1029 or i == 2005))
    configurations = {"none": (cli.version(), live)}

    btree_columns = [c.name for c in data.COLUMNS.values() if c.family in BTREE_FAMILIES]
    for name in btree_columns:
        cli("index", "create", ds, "--name", f"bt_{name}", "--column", name, "--type", "BTREE",
            "--param", "page_rows=16")
    configurations["btree"] = (cli.version(), live)
    cli("append", ds, "--from", files[3])
    live = pa.concat_tables([live, parts[3]])
    configurations["btree_partial"] = (cli.version(), live)
    for name in btree_columns:
        cli("index", "drop", ds, "--name", f"bt_{name}")
    minmax_columns = [c.name for c in data.COLUMNS.values()
                      if c.int_kind in MINMAX_KINDS or c.family == "id" or
                      (c.family == "float" and c.width in (32, 64))]
    done = subprocess.run([helper, "minmax", ds, "8", *minmax_columns], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise SystemExit(f"tessera_test_filters minmax failed:\n{done.stderr}")
    configurations["minmax"] = (int(done.stdout.strip()), live)
    # A last version, so that every configuration is read by time travel.
    cli("delete", ds, "--where", "id = 0 OR id = 3000")
    return configurations


def comparable(table):
    """`table` sorted by id, floats as their bit patterns (NaN == NaN, -0.0 != 0.0)."""
    table = table.sort_by("id").combine_chunks()
    columns = []
    for field_, column in zip(table.schema, table.columns):
        if pa.types.is_floating(field_.type):
            bits = {16: pa.int16(), 32: pa.int32(), 64: pa.int64()}[field_.type.bit_width]
            column = pa.chunked_array([chunk.view(bits) for chunk in column.chunks], bits)
        columns.append(column)
    return pa.Table.from_arrays(columns, names=table.column_names)


def read_back(helper, dataset, version, path, expected):
    done = subprocess.run([helper, "dump", dataset, str(version), path], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise SystemExit(f"tessera_test_filters dump failed:\n{done.stderr}")
    with pa.memory_map(path) as source:
        table = pa.ipc.open_file(source).read_all()
    if not comparable(table).equals(comparable(expected)):
        raise SystemExit(f"version {version}: the rows read back differ from the rows written")
    return table


def duck_table(table):
    """The table DuckDB queries: float16 widened to float32 (DuckDB has no half float; exact),
    and `<col>__ns`, every temporal value as exact nanoseconds (DECIMAL(38, 0))."""
    columns, names = [], []
    for field_, column in zip(table.schema, table.columns):
        if pa.types.is_float16(field_.type):
            values = column.to_numpy(zero_copy_only=False)
            mask = pc.is_null(column).to_numpy(zero_copy_only=False)
            column = pa.array(np.asarray(values, dtype=np.float32), pa.float32(), mask=mask)
        columns.append(column)
        names.append(field_.name)
        if pa.types.is_date32(field_.type) or pa.types.is_timestamp(field_.type):
            raw = column.cast(pa.int32() if pa.types.is_date32(field_.type) else pa.int64())
            scale = (data.NS_PER_DAY if pa.types.is_date32(field_.type) else
                     {"us": 1000, "ns": 1}[field_.type.unit])
            ns = [None if v is None else Decimal(v * scale) for v in raw.to_pylist()]
            columns.append(pa.array(ns, pa.decimal128(38, 0)))
            names.append(field_.name + "__ns")
    return pa.Table.from_arrays(columns, names=names)


def run_helper(helper, dataset, version, predicates_file):
    done = subprocess.run([helper, "run", dataset, str(version), predicates_file],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"tessera_test_filters run failed ({done.returncode}):\n{done.stderr}")
    return [json.loads(line) for line in done.stdout.splitlines()]


def duck_ids(connection, table, predicate):
    try:
        rows = connection.execute(f"SELECT id FROM {table} WHERE {predicate.duck} ORDER BY id")
        return [row[0] for row in rows.fetchall()], None
    except duckdb.Error as error:
        return None, f"DuckDB error: {error}"


def expected_answer(connection, table, predicate):
    """DuckDB's answer under tessera's rule for terms that can fail (filter.cc, Select): the
    top-level AND terms that cannot fail select rows first; then each term that can, in order,
    runs on the rows kept so far, and the filter fails iff one of its failure conditions holds
    on one of them. Returns (ids, DuckDB error, whether tessera must fail)."""
    if predicate.may_fail or (not predicate.errors and not predicate.fails):
        ids, error = duck_ids(connection, table, predicate)
        return ids, error, False
    terms = predicate.terms()
    kept = [duck for duck, _, fails in terms if not fails] or ["TRUE"]
    try:
        for duck, errors, fails in terms:
            if not fails:
                continue
            if errors:
                where = " AND ".join(f"({k})" for k in kept)
                failing = " OR ".join(f"coalesce({e}, FALSE)" for e in errors)
                hits = connection.execute(
                    f"SELECT count(*) FROM {table} WHERE {where} AND ({failing})").fetchone()[0]
                if hits:
                    return None, None, True
            kept.append(duck)
        where = " AND ".join(f"({k})" for k in kept)
        rows = connection.execute(f"SELECT id FROM {table} WHERE {where} ORDER BY id")
        return [row[0] for row in rows.fetchall()], None, False
    except duckdb.Error as error:
        return None, f"DuckDB error: {error}", False


def id_diff(expected, actual, limit=8):
    expected, actual = set(expected), set(actual)
    missing, extra = sorted(expected - actual), sorted(actual - expected)
    return (f"{len(missing)} id(s) missing {missing[:limit]}, {len(extra)} extra {extra[:limit]}")


def describe(result):
    if result is None:
        return "no answer"
    return (f"count={result['count']} count_error={result['count_error']} "
            f"ids({'error' if result['ids'] is None else len(result['ids'])})"
            f" scan_error={result['scan_error']}")


def check(seed, predicates, results, connection, tables):
    """Every difference as a message; KNOWN_FAILURES differences apart."""
    failures, known, fixed = [], [], []
    duck_cache = {}
    # Configurations holding the same rows must answer alike: each is compared with the first.
    first_of_table = {}
    for config, table in tables.items():
        first_of_table.setdefault(table, config)
    for number, predicate in enumerate(predicates):
        problems = []
        for config, answers in results.items():
            answer = answers[number]
            reference_config = first_of_table[tables[config]]
            reference = results[reference_config][number]
            if answer != reference:
                problems.append(f"configuration {config} differs from {reference_config}:\n"
                                f"      {reference_config}: {describe(reference)}\n"
                                f"      {config}: {describe(answer)}")
            if predicate.expect_error:
                if answer["count_error"] is None or answer["scan_error"] is None:
                    problems.append(f"[{config}] an ill-typed predicate did not fail: "
                                    f"{describe(answer)}")
                elif answer["count_error"] != answer["scan_error"]:
                    problems.append(f"[{config}] count and scan fail differently: "
                                    f"{describe(answer)}")
                continue
            key = (tables[config], number)
            if key not in duck_cache:
                duck_cache[key] = expected_answer(connection, tables[config], predicate)
            expected, duck_error, must_fail = duck_cache[key]
            if duck_error:
                problems.append(f"[{config}] {duck_error}")
                continue
            if must_fail:
                if answer["count_error"] is None or answer["scan_error"] is None:
                    problems.append(f"[{config}] fails on a row it evaluates (DuckDB, under "
                                    f"tessera's evaluation order), but tessera answered: "
                                    f"{describe(answer)}")
                continue
            if predicate.may_fail and answer["count_error"] and answer["scan_error"]:
                continue  # a failing operand the literal may fold away (grammar.Predicate)
            if answer["count_error"] or answer["scan_error"]:
                problems.append(f"[{config}] tessera failed: {describe(answer)}")
                continue
            if answer["count"] != len(expected):
                problems.append(f"[{config}] count: tessera {answer['count']}, "
                                f"DuckDB {len(expected)}")
            if answer["ids"] != expected:
                problems.append(f"[{config}] scan: tessera {len(answer['ids'])} rows, DuckDB "
                                f"{len(expected)}: {id_diff(expected, answer['ids'])}")
        if problems:
            text = (f"predicate #{number} (seed {seed})\n  tessera: {predicate.tessera}\n"
                    f"  duckdb:  {predicate.duck}\n  " + "\n  ".join(problems))
            (known if predicate.tessera in KNOWN_FAILURES else failures).append(text)
        elif predicate.tessera in KNOWN_FAILURES:
            fixed.append(predicate.tessera)
    expected_failures = sum(1 for answer in duck_cache.values() if answer[2])
    return failures, known, fixed, expected_failures


def json_number_matches(column, printed, value):
    """A number of `scan --format json` against the value tessera holds: integers exactly,
    floats after rounding to the column's width (JSON has no NaN or infinity: null)."""
    if value is None or (column.family == "float" and not math.isfinite(value)):
        return printed is None
    if column.family == "float":
        return isinstance(printed, (int, float)) and not isinstance(printed, bool) and \
            data.float_round(printed, column.width) == value
    return isinstance(printed, int) and not isinstance(printed, bool) and printed == value


def check_cli(cli, predicates, results, versions, dumps, sample, rng):
    """The CLI prints what query::Count / query::Read returned in-process, and its JSON prints
    the numbers tessera holds."""
    failures = []
    numeric = [c for c in data.COLUMNS.values() if c.family in ("int", "float") and
               (c.width != 16 or grammar.ENABLED["float16_json_strings"])]
    rows = {}
    numbers = sorted(rng.sample(range(len(predicates)), min(sample, len(predicates))))
    configs = list(versions)
    for position, number in enumerate(numbers):
        config = configs[position % len(configs)]
        version = str(versions[config])
        predicate = predicates[number]
        answer = results[config][number]
        count = cli("count", cli.dataset, "--version", version, "--where", predicate.tessera,
                    check=False)
        scan = cli("scan", cli.dataset, "--version", version, "--where", predicate.tessera,
                   "--columns", ",".join(["id"] + [c.name for c in numeric]), "--format", "json",
                   check=False)
        problems = []
        for name, done, error in [("count", count, answer["count_error"]),
                                  ("scan", scan, answer["scan_error"])]:
            if error is not None:
                want = f"error: {error['kind']}: {error['message']}"
                if done.returncode == 0 or want not in done.stderr:
                    problems.append(f"{name}: library failed with '{want}', CLI printed "
                                    f"{done.returncode}: {done.stdout[:200]}{done.stderr[:300]}")
            elif done.returncode != 0:
                problems.append(f"{name}: CLI failed: {done.stderr[:300]}")
        if not problems and answer["count_error"] is None and count.stdout.strip() != str(
                answer["count"]):
            problems.append(f"count: CLI {count.stdout.strip()}, library {answer['count']}")
        if not problems and answer["scan_error"] is None:
            printed = [json.loads(line) for line in scan.stdout.splitlines() if line]
            ids = sorted(row["id"] for row in printed)
            if ids != answer["ids"]:
                problems.append(f"scan: CLI vs library: {id_diff(answer['ids'], ids)}")
            if config not in rows:
                rows[config] = {row["id"]: row for row in
                                dumps[config].select(["id"] + [c.name for c in numeric]).to_pylist()}
            for row in printed:
                for c in numeric:
                    held = rows[config][row["id"]][c.name]
                    held = None if held is None else (float(held) if c.family == "float" else held)
                    if not json_number_matches(c, row.get(c.name), held):
                        problems.append(f"scan --format json: id {row['id']} column {c.name} "
                                        f"printed {row.get(c.name)!r}, tessera holds {held!r}")
                        break
        if problems:
            failures.append(f"CLI parity, predicate #{number} [{config}, version {version}]\n"
                            f"  tessera: {predicate.tessera}\n  " + "\n  ".join(problems))
    return failures, len(numbers)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--helper", required=True)
    parser.add_argument("--work", required=True, help="a scratch folder, emptied first")
    parser.add_argument("--default-count", type=int, default=2500)
    args = parser.parse_args()
    seed = int(os.environ.get("TESSERA_DIFF_SEED", "11"))
    count = int(os.environ.get("TESSERA_DIFF_COUNT", args.default_count))
    sample = int(os.environ.get("TESSERA_DIFF_CLI_SAMPLE", "50"))
    rerun = (f"TESSERA_DIFF_SEED={seed} TESSERA_DIFF_COUNT={count} "
             f"ctest --test-dir <build> -R differential --output-on-failure")
    started = time.monotonic()

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    dataset = os.path.join(args.work, "dataset")
    cli = Cli(args.cli, dataset)
    rng = random.Random(seed)
    configurations = build_dataset(cli, args.helper, args.work, rng)
    versions = {config: version for config, (version, _) in configurations.items()}

    connection = duckdb.connect()
    tables, loaded, dumps = {}, {}, {}
    for config, (version, expected) in configurations.items():
        table = read_back(args.helper, dataset, version, os.path.join(args.work,
                          f"{config}.arrow"), expected)
        dumps[config] = table
        key = comparable(table)
        name = next((n for n, t in loaded.items() if t.equals(key)), None)
        if name is None:
            name = f"rows_{len(loaded)}"
            loaded[name] = key
            connection.register(name, duck_table(table))
        tables[config] = name
    built = time.monotonic()

    predicates = list(grammar.Generator(seed).predicates(count))
    predicates_file = os.path.join(args.work, "predicates.txt")
    with open(predicates_file, "w", encoding="utf-8") as out:
        for predicate in predicates:
            assert "\n" not in predicate.tessera, predicate.tessera
            out.write(predicate.tessera + "\n")
    results = {config: run_helper(args.helper, dataset, version, predicates_file)
               for config, version in versions.items()}
    for config, answers in results.items():
        if len(answers) != len(predicates):
            raise SystemExit(f"{config}: {len(answers)} answers for {len(predicates)} predicates")
    ran = time.monotonic()
    failures, known, fixed, expected_failures = check(seed, predicates, results, connection,
                                                      tables)
    checked = time.monotonic()
    cli_failures, cli_checked = check_cli(cli, predicates, results, versions, dumps, sample,
                                          random.Random(seed + 1))
    failures += cli_failures

    errors = sum(1 for p in predicates if p.expect_error)
    selective = sum(1 for n, p in enumerate(predicates)
                    if not p.expect_error and results["none"][n]["ids"])
    print(f"seed {seed}: {len(predicates)} predicates ({errors} ill-typed, {selective} selecting "
          f"rows on 'none', {expected_failures} (predicate, rows) pairs that must fail) x "
          f"{len(versions)} configurations {sorted(versions.items())}; "
          f"{cli_checked} through the CLI; switches {grammar.ENABLED}")
    print(f"time: dataset {built - started:.1f}s, tessera {ran - built:.1f}s, duckdb + compare "
          f"{checked - ran:.1f}s, CLI {time.monotonic() - checked:.1f}s")
    for text in known:
        print("known failure (KNOWN_FAILURES):\n" + text)
    for text in fixed:
        print(f"KNOWN_FAILURES entry now passes, remove it: {text}")
    if failures:
        for text in failures[:30]:
            print("FAILED " + text)
        print(f"{len(failures)} predicate(s) differ (seed {seed}); rerun: {rerun}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
