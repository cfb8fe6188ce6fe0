"""The DuckDB differential test of tessera's SQL SELECT (ctest differential.duckdb_sql).

1. Generates three deterministic tables (seeded) with int64, double, string, bool, date and
   timestamp columns, NULLs in every nullable column and duplicate join / group keys, writes them
   as Parquet, and loads them into a fresh tessera catalog (`tessera sql`: CREATE DATABASE,
   CREATE TABLE ... AS SELECT * FROM read_parquet) and into DuckDB (read_parquet).
2. Generates N seeded random SELECT queries in categories (projection, filter, aggregate,
   group_by, join, order_limit, distinct, subquery), runs them all through `tessera sql --format
   json -f FILE` in a few invocations (a marker statement after each query separates the result
   sets, since an empty result set prints nothing), and through DuckDB.
3. Compares: as multisets when the query has no ORDER BY; with an ORDER BY, the rows as
   multisets and the sequence of the sort keys in order (so ties may come in any order); a LIMIT
   always comes with an ORDER BY over every output column, so the rows it keeps are determined
   and are compared in order. Numbers compare with a relative tolerance (ints and floats alike:
   tessera's sum of integers is an int64, DuckDB's a HUGEINT; DuckDB types some literals as
   DECIMAL).

MySQL vs DuckDB differences are avoided by construction (see Gen below and the comments there):
- NULL order: tessera sorts NULL first ascending and last descending (MySQL); DuckDB's default
  is NULLS LAST. Most ORDER BY keys say NULLS FIRST / LAST explicitly; the others leave the
  default, and DuckDB runs with default_null_order = 'nulls_first_on_asc_last_on_desc', which is
  MySQL's order, so tessera's default is tested too.
- `/`: tessera's is exact division (MySQL), DuckDB's `/` is float division too; divisors are
  always non-zero literals (x / 0 is inf in both, which JSON cannot print: tessera prints null).
- No NaN or infinity is ever produced or stored, for the same reason (JSON prints them as null).
- CAST(double AS BIGINT) rounds half away from zero in tessera, half to even in DuckDB: only
  integral doubles (round / floor / ceil) are cast to integers.
- date_trunc on a DATE is a DATE in tessera, a TIMESTAMP in DuckDB: it is cast back to DATE.
- LIKE: tessera's default escape is the backslash (MySQL), DuckDB has none: no backslashes are
  generated or stored.
- Doubles are multiples of 1/4 of small magnitude, so sums are exact in any order and floats
  computed by the two engines are equal (the tolerance covers libm differences).
- Integers are small, so no arithmetic or sum can overflow (an error in both engines).
- Output column names: every select item has a unique alias (JSON Lines objects are keyed by
  name); `SELECT *` only on one table.

Environment: TESSERA_SQL_DIFF_SEED (default 7), TESSERA_SQL_DIFF_COUNT (queries; default
--default-count), TESSERA_SQL_DIFF_BATCH (queries per tessera invocation; default 400).
Exit 0 when every query agrees, 1 with a report of every difference otherwise.
"""

import argparse
import collections
import datetime
import decimal
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq

try:
    import duckdb
except ImportError:
    sys.exit("duckdb is not installed in the venv: run scripts/bootstrap.sh")

MARKER = "zz_marker"
CATEGORIES = ("projection", "filter", "aggregate", "group_by", "join", "order_limit",
              "distinct", "subquery")

# Strings of the data: duplicates for joins and groups, case variants, an empty string, spaces,
# non-ASCII letters and LIKE wildcards as data (never a backslash: see the module docstring).
VOCAB = ["apple", "Apple", "banana", "cherry", "date", "elder", "fig", "grape", "kiwi", "lemon",
         "mango", "", " pad ", "héllo", "ÉCOLE", "a_b", "x%y", "zeta", "banana split"]
LIKE_PATTERNS = ["a%", "%a%", "%an%", "_pple", "%e", "b%", "%", "h_llo", "%\\_%", "_", "",
                 "%a_b%", "%Ap%", "%é%", "z%", "%o"]
LIKE_PATTERNS = [p for p in LIKE_PATTERNS if "\\" not in p]


# ---------------------------------------------------------------------------------------------
# Data

def quarter(rng, low, high):
    return rng.randint(low * 4, high * 4) / 4


def maybe(rng, value, null_rate=0.1):
    return None if rng.random() < null_rate else value


def make_tables(rng):
    """{name: pyarrow table}: facts (the big one), dims (joins on k and s), cats (joins on s)."""
    day0 = datetime.date(2019, 1, 1)
    ts0 = datetime.datetime(2020, 1, 1)
    n = 300
    facts = {
        "id": list(range(1, n + 1)),
        "k": [maybe(rng, rng.randint(0, 40)) for _ in range(n)],
        "g": [maybe(rng, rng.randint(0, 6)) for _ in range(n)],
        "i": [maybe(rng, rng.randint(-500, 500)) for _ in range(n)],
        "x": [maybe(rng, quarter(rng, -100, 100)) for _ in range(n)],
        "y": [maybe(rng, quarter(rng, -20, 20)) for _ in range(n)],
        "s": [maybe(rng, rng.choice(VOCAB)) for _ in range(n)],
        "b": [maybe(rng, rng.random() < 0.5, 0.15) for _ in range(n)],
        "d": [maybe(rng, day0 + datetime.timedelta(days=rng.randint(0, 2000))) for _ in range(n)],
        "ts": [maybe(rng, ts0 + datetime.timedelta(seconds=rng.randint(0, 3 * 365 * 86400),
                                                   microseconds=rng.randint(0, 999) * 1000))
               for _ in range(n)],
    }
    # Exact duplicate rows (but id) so that DISTINCT has work to do.
    for row in range(250, 270):
        for name in facts:
            if name != "id":
                facts[name][row] = facts[name][row - 100]
    m = 80
    dims = {
        "k": [maybe(rng, rng.randint(0, 50)) for _ in range(m)],
        "name": [maybe(rng, rng.choice(["north", "south", "east", "west", "up"])) for _ in range(m)],
        "w": [maybe(rng, quarter(rng, -10, 10)) for _ in range(m)],
        "flag": [maybe(rng, rng.random() < 0.5) for _ in range(m)],
        "d2": [maybe(rng, day0 + datetime.timedelta(days=rng.randint(0, 2000))) for _ in range(m)],
        "s": [maybe(rng, rng.choice(VOCAB)) for _ in range(m)],
    }
    c = 25
    cats = {
        "s": [maybe(rng, rng.choice(VOCAB), 0.08) for _ in range(c)],
        "cat": [maybe(rng, rng.choice(["red", "green", "blue"])) for _ in range(c)],
        "v": [maybe(rng, rng.randint(-20, 20)) for _ in range(c)],
    }
    types = {"id": pa.int64(), "k": pa.int64(), "g": pa.int64(), "i": pa.int64(),
             "v": pa.int64(), "x": pa.float64(), "y": pa.float64(), "w": pa.float64(),
             "s": pa.string(), "name": pa.string(), "cat": pa.string(), "b": pa.bool_(),
             "flag": pa.bool_(), "d": pa.date32(), "d2": pa.date32(), "ts": pa.timestamp("us")}
    return {name: pa.table({col: pa.array(values, types[col]) for col, values in cols.items()})
            for name, cols in (("facts", facts), ("dims", dims), ("cats", cats))}


ARROW_KIND = {"int64": "int", "double": "double", "string": "string", "bool": "bool",
              "date32[day]": "date", "timestamp[us]": "ts"}


# ---------------------------------------------------------------------------------------------
# Queries

class Query:
    def __init__(self, category, sql, order_keys=None, ordered=False):
        self.category = category
        self.sql = sql
        # order_keys: the output column positions of the ORDER BY keys (None: no ORDER BY);
        # ordered: the ORDER BY keys are every output column, so the whole sequence must match.
        self.order_keys = order_keys
        self.ordered = ordered


class Gen:
    """Typed random expressions over a source's columns: [(sql reference, kind)]."""

    def __init__(self, rng, columns):
        self.rng = rng
        self.columns = columns

    def cols(self, kind):
        return [ref for ref, k in self.columns if k == kind]

    def literal(self, kind):
        r = self.rng
        if kind == "int":
            return str(r.randint(-50, 60)) if r.random() < 0.7 else str(r.randint(-600, 600))
        if kind == "double":
            v = quarter(r, -30, 30)
            return repr(v) if v >= 0 else f"({v!r})"
        if kind == "string":
            return "'" + r.choice(VOCAB + ["m", "b", "zz"]).replace("'", "''") + "'"
        if kind == "bool":
            return r.choice(["TRUE", "FALSE"])
        if kind == "date":
            day = datetime.date(2019, 1, 1) + datetime.timedelta(days=r.randint(0, 2000))
            return f"DATE '{day.isoformat()}'"
        if kind == "ts":
            t = datetime.datetime(2020, 1, 1) + datetime.timedelta(seconds=r.randint(0, 9.5e7))
            return f"TIMESTAMP '{t.isoformat(' ')}'"
        raise ValueError(kind)

    def leaf(self, kind):
        cols = self.cols(kind)
        if cols and self.rng.random() < 0.8:
            return self.rng.choice(cols)
        return self.literal(kind)

    def expr(self, kind, depth=2):
        r = self.rng
        if depth <= 0 or r.random() < 0.3:
            if kind == "bool" and depth > 0 and r.random() < 0.5:
                return self.predicate(depth)
            return self.leaf(kind)
        return getattr(self, "expr_" + kind)(depth - 1)

    def case(self, kind, depth):
        whens = " ".join(f"WHEN {self.predicate(depth)} THEN {self.expr(kind, depth)}"
                         for _ in range(self.rng.randint(1, 2)))
        other = f" ELSE {self.expr(kind, depth)}" if self.rng.random() < 0.7 else ""
        return f"CASE {whens}{other} END"

    def expr_int(self, d):
        r = self.rng
        e = lambda: self.expr("int", d)  # noqa: E731
        choice = r.randrange(13)
        if choice == 0:
            return f"({e()} + {e()})"
        if choice == 1:
            return f"({e()} - {e()})"
        if choice == 2:  # one factor a small literal: no overflow
            return f"({e()} * {r.randint(-5, 7)})"
        if choice == 3:  # a non-zero divisor: integer % 0 is an error
            return f"({e()} % {r.choice([2, 3, 5, 7, -4, 10])})"
        if choice == 4:
            return f"abs({e()})"
        if choice == 5:  # a space: `--2` would start a comment
            return f"(- {e()})"
        if choice == 6:
            return self.case("int", d)
        if choice == 7:
            return f"coalesce({e()}, {e()})"
        if choice == 8:
            return f"length({self.expr('string', d)})"
        if choice == 9:
            field = r.choice(["year", "month", "day", "dow", "doy", "quarter"])
            source = self.expr(r.choice(["date", "ts"]), d)
            return f"extract({field} FROM {source})"
        if choice == 10:  # only integral doubles are cast: the rounding of .5 differs
            return f"CAST({r.choice(['round', 'floor', 'ceil'])}({self.expr('double', d)}) AS BIGINT)"
        if choice == 11:
            return f"{r.choice(['greatest', 'least'])}({e()}, {e()})"
        return f"nullif({e()}, {e()})"

    def expr_double(self, d):
        r = self.rng
        e = lambda: self.expr("double", d)  # noqa: E731
        choice = r.randrange(12)
        if choice == 0:
            return f"({e()} + {e()})"
        if choice == 1:
            return f"({e()} - {e()})"
        if choice == 2:
            return f"({self.leaf('double')} * {self.leaf('double')})"
        if choice == 3:  # non-zero literal divisors (x / 0 is inf, printed as null)
            return f"({e()} / {r.choice(['4', '2.5', '-8', '3', '0.5'])})"
        if choice == 4:  # `/` on integers: exact division in both engines
            return f"({self.expr('int', d)} / {r.choice(['2', '4', '-3', '7'])})"
        if choice == 5:
            return f"abs({e()})"
        if choice == 6:
            return f"{r.choice(['floor', 'ceil', 'round'])}({e()})"
        if choice == 7:
            return f"round({e()}, {r.choice([1, 2, -1])})"
        if choice == 8:
            return f"CAST({self.expr('int', d)} AS DOUBLE)"
        if choice == 9:
            return self.case("double", d)
        if choice == 10:
            return f"coalesce({e()}, {e()})"
        return f"sqrt(abs({e()}))"

    def expr_string(self, d):
        r = self.rng
        e = lambda: self.expr("string", d)  # noqa: E731
        choice = r.randrange(9)
        if choice == 0:
            return f"lower({e()})"
        if choice == 1:
            return f"upper({e()})"
        if choice == 2:
            return f"({e()} || {e()})"
        if choice == 3:
            return f"concat({e()}, {e()})"
        if choice == 4:
            return f"substr({e()}, {r.choice([1, 2, 3, -2])}, {r.choice([1, 2, 4])})"
        if choice == 5:
            return f"{r.choice(['trim', 'ltrim', 'rtrim'])}({e()})"
        if choice == 6:
            return self.case("string", d)
        if choice == 7:
            return f"coalesce({e()}, {e()})"
        return f"CAST({self.expr('int', d)} AS VARCHAR)"

    def expr_bool(self, d):
        return self.predicate(d)

    def expr_date(self, d):
        r = self.rng
        choice = r.randrange(3)
        if choice == 0:
            return f"coalesce({self.expr('date', d)}, {self.literal('date')})"
        if choice == 1:  # date_trunc of a date is a TIMESTAMP in DuckDB, a DATE in tessera
            unit = r.choice(["month", "year", "quarter", "week"])
            return f"CAST(date_trunc('{unit}', {self.expr('date', d)}) AS DATE)"
        return self.leaf("date")

    def expr_ts(self, d):
        r = self.rng
        choice = r.randrange(4)
        if choice == 0:
            return f"date_trunc('{r.choice(['hour', 'day', 'month', 'minute'])}', {self.expr('ts', d)})"
        if choice == 1:
            unit = r.choice(["DAY", "HOUR", "MINUTE"])
            return f"({self.expr(r.choice(['ts', 'date']), d)} + INTERVAL '{r.randint(1, 40)}' {unit})"
        if choice == 2:
            return f"({self.expr('ts', d)} - INTERVAL '{r.randint(1, 40)}' DAY)"
        return f"coalesce({self.expr('ts', d)}, {self.literal('ts')})"

    def comparable_pair(self, d):
        r = self.rng
        kind = r.choice(["int", "int", "double", "double", "string", "date", "ts", "bool", "num"])
        if kind == "num":  # int against double
            a, b = self.expr("int", d), self.expr("double", d)
            return (a, b) if r.random() < 0.5 else (b, a)
        if kind == "bool":
            return self.leaf("bool"), self.leaf("bool")
        return self.expr(kind, d), (self.leaf(kind) if r.random() < 0.6 else self.expr(kind, d))

    def predicate(self, d=2):
        r = self.rng
        choice = r.randrange(12 if d > 0 else 8)
        if choice <= 2:
            a, b = self.comparable_pair(max(d - 1, 0))
            return f"({a} {r.choice(['=', '<>', '<', '<=', '>', '>=', '!='])} {b})"
        if choice == 3:
            kind = r.choice(["int", "double", "string", "date", "bool", "ts"])
            return f"({self.expr(kind, max(d - 1, 0))} IS {r.choice(['', 'NOT '])}NULL)"
        if choice == 4:
            kind = r.choice(["int", "string", "double"])
            items = [self.literal(kind) for _ in range(r.randint(1, 4))]
            if r.random() < 0.2:
                items.append("NULL")
            neg = "NOT " if r.random() < 0.3 else ""
            return f"({self.expr(kind, max(d - 1, 0))} {neg}IN ({', '.join(items)}))"
        if choice == 5:
            kind = r.choice(["int", "double", "date"])
            lo, hi = sorted([self.literal(kind), self.literal(kind)]) if kind == "date" else \
                (self.literal(kind), self.literal(kind))
            neg = "NOT " if r.random() < 0.25 else ""
            return f"({self.expr(kind, max(d - 1, 0))} {neg}BETWEEN {lo} AND {hi})"
        if choice == 6:
            op = r.choice(["LIKE", "LIKE", "NOT LIKE", "ILIKE"])
            pattern = r.choice(LIKE_PATTERNS)
            return f"({self.expr('string', max(d - 1, 0))} {op} '{pattern}')"
        if choice == 7:
            cols = self.cols("bool")
            if cols:
                return r.choice(cols)
            return self.predicate(d)
        if choice == 8:
            return f"({self.predicate(d - 1)} AND {self.predicate(d - 1)})"
        if choice == 9:
            return f"({self.predicate(d - 1)} OR {self.predicate(d - 1)})"
        if choice == 10:
            return f"(NOT {self.predicate(d - 1)})"
        fn = r.choice(["starts_with", "ends_with", "contains"])
        if r.random() < 0.5:
            a, b = self.comparable_pair(0)
            return f"({a} IS {r.choice(['', 'NOT '])}DISTINCT FROM {b})"
        return f"{fn}({self.expr('string', d - 1)}, '{r.choice(['a', 'an', 'e', 'B', 'é', ''])}')"

    def aggregate(self, d=1):
        """(sql, kind) of an aggregate, sometimes inside arithmetic."""
        r = self.rng
        choice = r.randrange(8)
        if choice == 0:
            return "count(*)", "int"
        if choice == 1:
            kind = r.choice(["int", "double", "string", "date", "bool"])
            return f"count({self.expr(kind, d)})", "int"
        if choice == 2:
            kind = r.choice(["int", "string", "double"])
            return f"count(DISTINCT {self.expr(kind, d)})", "int"
        if choice == 3:
            kind = r.choice(["int", "double"])
            return f"sum({self.expr(kind, d)})", kind
        if choice == 4:
            return f"avg({self.expr(r.choice(['int', 'double']), d)})", "double"
        if choice == 5:
            kind = r.choice(["int", "double", "string", "date", "ts", "bool"])
            return f"{r.choice(['min', 'max'])}({self.expr(kind, d)})", kind
        if choice == 6:
            a, ka = self.aggregate(d)
            if ka in ("int", "double"):
                return f"({a} {r.choice(['+', '-', '*'])} {r.randint(1, 3)})", ka
            return a, ka
        return f"(max({self.expr('int', d)}) - min({self.expr('int', d)}))", "int"


TABLES = {}  # name: [(column, kind)], filled from the generated data


def table_source(rng, name, qualified=None):
    alias = qualified
    cols = TABLES[name]
    if alias:
        return f"{name} AS {alias}", [(f"{alias}.{c}", k) for c, k in cols]
    return name, list(cols)


def join_source(rng):
    """(FROM text, columns, is_left) of a join of two or three tables."""
    shape = rng.randrange(5)
    kind = rng.choice(["JOIN", "INNER JOIN", "LEFT JOIN", "LEFT OUTER JOIN"])
    f_cols = [(f"f.{c}", k) for c, k in TABLES["facts"]]
    m_cols = [(f"m.{c}", k) for c, k in TABLES["dims"]]
    c_cols = [(f"c.{c}", k) for c, k in TABLES["cats"]]
    if shape == 0:
        on = "f.k = m.k"
        if rng.random() < 0.3:
            on += " AND f.s = m.s"
        if kind in ("JOIN", "INNER JOIN") and rng.random() < 0.3:  # an extra inner-join filter
            on += rng.choice([" AND f.x < m.w * 10", " AND f.d > m.d2", " AND m.flag"])
        return f"facts AS f {kind} dims AS m ON {on}", f_cols + m_cols
    if shape == 1:
        return f"facts AS f {kind} cats AS c ON f.s = c.s", f_cols + c_cols
    if shape == 2:
        return f"dims AS m {kind} cats AS c ON c.s = m.s", m_cols + c_cols
    if shape == 3:
        second = rng.choice(["JOIN", "LEFT JOIN"])
        return (f"facts AS f {kind} dims AS m ON f.k = m.k {second} cats AS c ON f.s = c.s",
                f_cols + m_cols + c_cols)
    # A self join on a key with duplicates.
    f2 = [(f"f2.{c}", k) for c, k in TABLES["facts"]]
    return f"facts AS f {kind} facts AS f2 ON f.g = f2.g AND f.b = f2.b", f_cols + f2


def any_source(rng):
    if rng.random() < 0.25:
        return join_source(rng)
    name = rng.choice(["facts", "facts", "facts", "dims", "cats"])
    alias = rng.choice([None, None, "t"])
    return table_source(rng, name, alias)


KINDS = ["int", "int", "double", "double", "string", "string", "bool", "date", "ts"]


def select_items(gen, count, prefix="c"):
    items, kinds = [], []
    for n in range(count):
        kind = gen.rng.choice(KINDS)
        if gen.rng.random() < 0.5:  # a plain column
            cols = gen.cols(kind)
            e = gen.rng.choice(cols) if cols else gen.expr(kind)
        else:
            e = gen.expr(kind)
        items.append(f"{e} AS {prefix}{n}")
        kinds.append(kind)
    return items, kinds


def order_by(rng, positions, names, total):
    """ORDER BY text over output columns, and the key positions. `total`: every column is a key
    (after the chosen ones), so that a LIMIT keeps determined rows."""
    chosen = rng.sample(positions, rng.randint(1, min(3, len(positions))))
    if total:
        chosen += [p for p in positions if p not in chosen]
    keys = []
    for p in chosen:
        ref = rng.choice([str(p + 1), names[p]])  # a position or an alias
        direction = rng.choice(["", " ASC", " DESC"])
        # Mostly explicit NULLS FIRST / LAST; otherwise the MySQL default (DuckDB is set to it).
        nulls = rng.choice([" NULLS FIRST", " NULLS LAST", " NULLS FIRST", " NULLS LAST", ""])
        keys.append(ref + direction + nulls)
    return " ORDER BY " + ", ".join(keys), chosen


def limit(rng):
    n = rng.choice([0, 1, 3, 5, 10, 25])
    if rng.random() < 0.4:
        return f" LIMIT {n} OFFSET {rng.choice([0, 1, 4, 20])}"
    return f" LIMIT {n}"


def where(gen, rate=0.6):
    return f" WHERE {gen.predicate(2)}" if gen.rng.random() < rate else ""


def grouped(rng, gen, src, allow_order=True):
    """A GROUP BY query over `src`: (sql, output names, output kinds)."""
    n_keys = rng.randint(1, 2)
    keys, key_kinds = [], []
    for _ in range(n_keys):
        kind = rng.choice(["int", "string", "bool", "date", "int", "double"])
        cols = gen.cols(kind)
        if kind == "int" and rng.random() < 0.4:
            e = f"({gen.leaf('int')} % {rng.choice([3, 4, 5])})"
        elif cols and rng.random() < 0.7:
            e = rng.choice(cols)
        else:
            e = gen.expr(kind, 1)
        if kind == "int" and not any(re.search(rf"\b{re.escape(ref)}\b", e)
                                     for ref, _ in gen.columns):
            # An integer key of constants only: DuckDB folds `(- -161)` to 161 and reads it as
            # a position in the select list; MySQL groups by the value. A column instead.
            e = rng.choice(gen.cols("int") or [gen.literal("int") + " + 0"])
        keys.append(e)
        key_kinds.append(kind)
    # Every key selected, except sometimes one (grouping by an unselected expression).
    hidden = n_keys > 1 and rng.random() < 0.15
    shown = keys[:-1] if hidden else keys
    items, names, kinds = [], [], []
    for n, e in enumerate(shown):
        items.append(f"{e} AS g{n}")
        names.append(f"g{n}")
        kinds.append(key_kinds[n])
    for n in range(rng.randint(1, 3)):
        a, kind = gen.aggregate(1)
        items.append(f"{a} AS a{n}")
        names.append(f"a{n}")
        kinds.append(kind)
    group_refs = []
    for n, e in enumerate(keys):
        how = rng.randrange(3) if n < len(shown) else 0
        group_refs.append(e if how == 0 else str(n + 1) if how == 1 else f"g{n}")
    sql = f"SELECT {', '.join(items)} FROM {src}{where(gen, 0.4)} GROUP BY {', '.join(group_refs)}"
    if rng.random() < 0.35:
        a, kind = gen.aggregate(1)
        if kind in ("int", "double"):
            sql += f" HAVING {a} {rng.choice(['>', '>=', '<', '<>'])} {rng.randint(0, 5)}"
        else:
            sql += f" HAVING count(*) > {rng.randint(0, 3)}"
    return sql, names, kinds


def gen_query(rng, category):
    if category == "projection":
        from_sql, cols = any_source(rng)
        gen = Gen(rng, cols)
        if rng.random() < 0.1 and " JOIN " not in from_sql:
            return Query(category, f"SELECT * FROM {from_sql}{where(gen, 0.5)}")
        items, _ = select_items(gen, rng.randint(1, 5))
        return Query(category, f"SELECT {', '.join(items)} FROM {from_sql}{where(gen, 0.3)}")
    if category == "filter":
        from_sql, cols = table_source(rng, rng.choice(["facts", "facts", "dims"]))
        gen = Gen(rng, cols)
        key = "id" if from_sql == "facts" else "k"
        extra, _ = select_items(gen, rng.randint(0, 2))
        items = [f"{key} AS c_key"] + extra
        return Query(category, f"SELECT {', '.join(items)} FROM {from_sql} WHERE "
                               f"{gen.predicate(rng.randint(1, 3))}")
    if category == "aggregate":
        from_sql, cols = any_source(rng)
        gen = Gen(rng, cols)
        items = [f"{gen.aggregate(1)[0]} AS a{n}" for n in range(rng.randint(1, 4))]
        return Query(category, f"SELECT {', '.join(items)} FROM {from_sql}{where(gen, 0.5)}")
    if category == "group_by":
        from_sql, cols = any_source(rng)
        gen = Gen(rng, cols)
        sql, names, _ = grouped(rng, gen, from_sql)
        if rng.random() < 0.4:
            text, keys = order_by(rng, list(range(len(names))), names, rng.random() < 0.5)
            sql += text
            if len(keys) == len(names):
                sql += limit(rng) if rng.random() < 0.6 else ""
                return Query(category, sql, keys, True)
            return Query(category, sql, keys)
        return Query(category, sql)
    if category == "join":
        from_sql, cols = join_source(rng)
        gen = Gen(rng, cols)
        if rng.random() < 0.3:
            sql, names, _ = grouped(rng, gen, from_sql)
            return Query(category, sql)
        items, _ = select_items(gen, rng.randint(1, 4))
        return Query(category, f"SELECT {', '.join(items)} FROM {from_sql}{where(gen, 0.5)}")
    if category == "order_limit":
        from_sql, cols = any_source(rng)
        gen = Gen(rng, cols)
        items, _ = select_items(gen, rng.randint(1, 4))
        names = [f"c{n}" for n in range(len(items))]
        with_limit = rng.random() < 0.7
        text, keys = order_by(rng, list(range(len(items))), names, with_limit)
        sql = f"SELECT {', '.join(items)} FROM {from_sql}{where(gen, 0.4)}{text}"
        if with_limit:
            return Query(category, sql + limit(rng), keys, True)
        return Query(category, sql, keys, len(keys) == len(items))
    if category == "distinct":
        from_sql, cols = any_source(rng)
        gen = Gen(rng, cols)
        items = []
        for n in range(rng.randint(1, 3)):
            kind = rng.choice(["int", "string", "bool", "date", "double"])
            c = gen.cols(kind)
            e = rng.choice(c) if c and rng.random() < 0.6 else gen.expr(kind, 1)
            items.append(f"{e} AS c{n}")
        sql = f"SELECT DISTINCT {', '.join(items)} FROM {from_sql}{where(gen, 0.4)}"
        if rng.random() < 0.5:
            names = [f"c{n}" for n in range(len(items))]
            text, keys = order_by(rng, list(range(len(items))), names, True)
            sql += text + (limit(rng) if rng.random() < 0.5 else "")
            return Query(category, sql, keys, True)
        return Query(category, sql)
    if category == "subquery":
        from_sql, cols = any_source(rng)
        gen = Gen(rng, cols)
        shape = rng.randrange(3)
        if shape == 0:  # a grouped subquery, filtered / ordered outside
            inner, names, kinds = grouped(rng, gen, from_sql)
        else:  # a projection, maybe a top-N
            items, kinds = select_items(gen, rng.randint(1, 4), "c")
            names = [f"c{n}" for n in range(len(items))]
            inner = f"SELECT {', '.join(items)} FROM {from_sql}{where(gen, 0.4)}"
            if shape == 2:
                text, _ = order_by(rng, list(range(len(items))), names, True)
                inner += text + limit(rng)
        outer = Gen(rng, [(f"sq.{n}", k) for n, k in zip(names, kinds)])
        if rng.random() < 0.4:
            items = [f"{outer.aggregate(1)[0]} AS o{n}" for n in range(rng.randint(1, 3))]
            return Query(category, f"SELECT {', '.join(items)} FROM ({inner}) AS sq"
                                   f"{where(outer, 0.5)}")
        items, _ = select_items(outer, rng.randint(1, 3), "o")
        sql = f"SELECT {', '.join(items)} FROM ({inner}) AS sq{where(outer, 0.5)}"
        if rng.random() < 0.4:
            onames = [f"o{n}" for n in range(len(items))]
            text, keys = order_by(rng, list(range(len(items))), onames, True)
            return Query(category, sql + text + limit(rng), keys, True)
        return Query(category, sql)
    raise ValueError(category)


def generate(seed, count):
    rng = random.Random(seed * 1000003 + 17)
    weights = {"projection": 1, "filter": 1.2, "aggregate": 0.8, "group_by": 1.4, "join": 1.3,
               "order_limit": 1.2, "distinct": 0.8, "subquery": 1.2}
    queries = []
    for n in range(count):
        # Every category at least count // 16 times, then by weight.
        category = CATEGORIES[n % len(CATEGORIES)] if n < count // 2 else \
            rng.choices(list(weights), list(weights.values()))[0]
        queries.append(gen_query(rng, category))
    return queries


# ---------------------------------------------------------------------------------------------
# Running and comparing

TS_TEXT = re.compile(r"^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(\.\d+)?$")


def canon(value):
    """A comparable form of one value: ('null',), ('bool', b), ('num', float), ('str', s)."""
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float, decimal.Decimal)):
        v = float(value)
        if math.isnan(v):
            return ("nan",)
        return ("num", v)
    if isinstance(value, datetime.datetime):
        value = value.isoformat()
    elif isinstance(value, datetime.date):
        value = value.isoformat()
    if isinstance(value, str):
        m = TS_TEXT.match(value)
        if m:  # timestamps: tessera prints 6 fraction digits, Python's isoformat none for .0
            fraction = (m.group(3) or "").rstrip("0").rstrip(".")
            return ("str", f"{m.group(1)}T{m.group(2)}{fraction}")
        return ("str", value)
    return ("str", repr(value))


def sort_key(row):
    key = []
    for v in row:
        if v[0] == "num":
            key.append((v[0], float(f"{v[1]:.9g}") if math.isfinite(v[1]) else v[1]))
        else:
            key.append(v)
    return tuple(key)


def value_equal(a, b):
    if a[0] == "num" and b[0] == "num":
        return a[1] == b[1] or math.isclose(a[1], b[1], rel_tol=1e-9, abs_tol=1e-9)
    return a == b


def rows_equal(a, b):
    return len(a) == len(b) and all(len(x) == len(y) and all(map(value_equal, x, y))
                                    for x, y in zip(a, b))


def compare(query, mine, theirs):
    """None when tessera's rows (`mine`) match DuckDB's, else a reason."""
    if len(mine) != len(theirs):
        return f"{len(mine)} rows, DuckDB {len(theirs)}"
    if mine and len(mine[0]) != len(theirs[0]):
        return f"{len(mine[0])} columns, DuckDB {len(theirs[0])}"
    if query.ordered:
        return None if rows_equal(mine, theirs) else "rows differ (in order)"
    if not rows_equal(sorted(mine, key=sort_key), sorted(theirs, key=sort_key)):
        return "rows differ (as multisets)"
    if query.order_keys:
        pick = lambda rows: [[r[p] for p in query.order_keys] for r in rows]  # noqa: E731
        if not rows_equal(pick(mine), pick(theirs)):
            return "ORDER BY key sequence differs"
    return None


def run_tessera(cli, catalog, work, queries):
    """[rows | error text] per query: batches through `tessera sql -f`, a marker after each.

    `tessera sql` parses a whole script before it runs it and stops at the first error: a
    failed query is found by the line its error names (each query and each marker is one line)
    or, for an error while running, by the markers printed before it; the batch then runs
    again without it and without the queries already answered."""
    batch = int(os.environ.get("TESSERA_SQL_DIFF_BATCH", "400"))
    results = [None] * len(queries)
    pending = list(range(len(queries)))
    invocations = 0
    while pending:
        chunk = pending[:batch]
        script = os.path.join(work, "batch.sql")
        with open(script, "w", encoding="utf-8") as out:
            for n in chunk:
                assert "\n" not in queries[n].sql
                out.write(f"{queries[n].sql};\nSELECT 'q{n}' AS {MARKER};\n")
        invocations += 1
        done = subprocess.run([cli, "sql", "--catalog", catalog, "-D", "db", "--format", "json",
                               "-f", script], capture_output=True, text=True)
        current, answered = [], 0
        for line in done.stdout.splitlines():
            if not line:
                continue
            row = json.loads(line, parse_constant=lambda c: float(c))
            if list(row) == [MARKER]:
                if row[MARKER] != f"q{chunk[answered]}":
                    raise SystemExit(f"marker {row[MARKER]} where q{chunk[answered]} was expected")
                results[chunk[answered]] = current
                current, answered = [], answered + 1
            else:
                current.append([canon(v) for v in row.values()])
        if done.returncode == 0:
            if answered != len(chunk):
                raise SystemExit(f"tessera sql printed {answered} markers for {len(chunk)} queries")
            pending = pending[len(chunk):]
            continue
        if answered >= len(chunk):
            raise SystemExit(f"tessera sql failed after its last statement:\n{done.stderr}")
        culprit = answered
        where = re.search(r"line (\d+), column", done.stderr)
        if where and answered == 0:  # a parse error: the whole script failed before it ran
            culprit = min((int(where.group(1)) - 1) // 2, len(chunk) - 1)
        results[chunk[culprit]] = "ERROR: " + (done.stderr.strip() or
                                               f"exit status {done.returncode}")
        pending = [n for i, n in enumerate(pending) if i >= answered and i != culprit]
    return results, invocations


def run_duckdb(connection, queries):
    results = []
    for q in queries:
        try:
            rows = connection.execute(q.sql).fetchall()
            results.append([[canon(v) for v in row] for row in rows])
        except duckdb.Error as error:
            results.append(f"ERROR: {type(error).__name__}: {error}")
    return results


def show(result, limit_rows=12):
    if isinstance(result, str):
        return result
    def value(v):
        return "NULL" if v[0] == "null" else repr(v[1]) if len(v) > 1 else v[0]
    lines = [" | ".join(value(v) for v in row) for row in result[:limit_rows]]
    if len(result) > limit_rows:
        lines.append(f"... ({len(result)} rows)")
    return "\n      ".join(lines) if lines else "(no rows)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--work", required=True, help="a scratch folder, emptied first")
    parser.add_argument("--default-count", type=int, default=1000)
    args = parser.parse_args()
    seed = int(os.environ.get("TESSERA_SQL_DIFF_SEED", "7"))
    count = int(os.environ.get("TESSERA_SQL_DIFF_COUNT", args.default_count))
    rerun = (f"TESSERA_SQL_DIFF_SEED={seed} TESSERA_SQL_DIFF_COUNT={count} "
             f"ctest --test-dir <build> -R differential.duckdb_sql --output-on-failure")
    started = time.monotonic()

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    tables = make_tables(random.Random(seed))
    catalog = os.path.join(args.work, "catalog")
    os.makedirs(catalog)
    load = ["CREATE DATABASE db"]
    connection = duckdb.connect()
    connection.execute("SET threads = 2")
    # MySQL's (tessera's) default null order, for the ORDER BY keys that do not say NULLS.
    connection.execute("SET default_null_order = 'nulls_first_on_asc_last_on_desc'")
    for name, table in tables.items():
        path = os.path.join(args.work, f"{name}.parquet")
        pq.write_table(table, path)
        quoted = path.replace("'", "''")
        load.append(f"CREATE TABLE db.{name} AS SELECT * FROM read_parquet('{quoted}')")
        connection.execute(f"CREATE TABLE {name} AS SELECT * FROM read_parquet('{quoted}')")
        TABLES[name] = [(f.name, ARROW_KIND[str(f.type)]) for f in table.schema]
    done = subprocess.run([args.cli, "sql", "--catalog", catalog, "--format", "json", "-e",
                           ";\n".join(load) + ";"], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"loading the tables into tessera failed:\n{done.stdout}{done.stderr}")
    # The tables read back from tessera must be the rows written.
    check = [Query("load", f"SELECT * FROM {name}") for name in tables]
    back, _ = run_tessera(args.cli, catalog, args.work, check)
    for q, rows in zip(check, back):
        want = run_duckdb(connection, [q])[0]
        if isinstance(rows, str) or compare(q, rows, want):
            raise SystemExit(f"{q.sql}: tessera's rows differ from the rows written:\n"
                             f"  tessera: {show(rows)}\n  duckdb:  {show(want)}")
    loaded = time.monotonic()

    queries = generate(seed, count)
    mine, invocations = run_tessera(args.cli, catalog, args.work, queries)
    ran = time.monotonic()
    theirs = run_duckdb(connection, queries)
    checked = time.monotonic()

    per_category = collections.Counter(q.category for q in queries)
    failed = collections.Counter()
    failures = []
    nonempty = 0
    for n, (q, a, b) in enumerate(zip(queries, mine, theirs)):
        if isinstance(a, str) or isinstance(b, str):
            reason = None if isinstance(a, str) and isinstance(b, str) else \
                "tessera failed" if isinstance(a, str) else "DuckDB failed"
            # Both failing means the generator made an invalid query: a failure of the test.
            reason = reason or "both failed (generator bug)"
        else:
            reason = compare(q, a, b)
            nonempty += bool(b)
        if reason:
            failed[q.category] += 1
            failures.append(f"q{n} [{q.category}] {reason}\n  SQL: {q.sql}\n"
                            f"  tessera: {show(a)}\n  duckdb:  {show(b)}")

    print(f"seed {seed}: {len(queries)} queries ({nonempty} with rows) in {invocations} tessera "
          f"invocation(s)")
    for category in CATEGORIES:
        print(f"  {category:12} {per_category[category]:5} queries, {failed[category]} mismatches")
    print(f"time: data + load {loaded - started:.1f}s, tessera {ran - loaded:.1f}s, duckdb "
          f"{checked - ran:.1f}s, compare {time.monotonic() - checked:.1f}s")
    if failures:
        for text in failures:
            print("MISMATCH " + text)
        print(f"{len(failures)} of {len(queries)} queries differ (seed {seed}); rerun: {rerun}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
