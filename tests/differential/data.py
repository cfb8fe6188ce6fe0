"""Data of the DuckDB differential filter test: a table full of edge values.

Every column draws each row from its edge pool (NULL, NaN, +-0.0, +-inf, integer extremes,
2^53 + 1, unicode and LIKE metacharacters in strings, year 1 / 9999 dates, nanosecond
timestamps at the ends of their range, empty and null lists...) or from a small range of
ordinary values, so that random predicates and column-versus-column comparisons select
something. The same pools feed the predicate literals (grammar.py).

COLUMNS is the schema: name -> Column (its family and width), the single source of truth for
the data, the grammar and the DuckDB translation. Temporal values are held as integers: days for
date32, microseconds / nanoseconds since the epoch for timestamps.
"""

import datetime
import math
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

INT_LIMITS = {
    "i8": (-(2**7), 2**7 - 1),
    "i16": (-(2**15), 2**15 - 1),
    "i32": (-(2**31), 2**31 - 1),
    "i64": (-(2**63), 2**63 - 1),
    "u8": (0, 2**8 - 1),
    "u16": (0, 2**16 - 1),
    "u32": (0, 2**32 - 1),
    "u64": (0, 2**64 - 1),
}
FLOAT_MAX = {16: 65504.0, 32: float(np.finfo(np.float32).max), 64: float(np.finfo(np.float64).max)}
NS_PER_DAY = 86_400 * 10**9
# Day numbers of 0001-01-01 and 9999-12-31 (days since 1970-01-01).
DAY_MIN = (datetime.date(1, 1, 1) - datetime.date(1970, 1, 1)).days
DAY_MAX = (datetime.date(9999, 12, 31) - datetime.date(1970, 1, 1)).days
NS_MIN = -(2**63) + 1  # timestamp[ns] holds int64 (the minimum is avoided: some tools reserve it)
NS_MAX = 2**63 - 1


@dataclass(frozen=True)
class Column:
    name: str
    family: str  # int, float, bool, string, date, timestamp, list_int, list_string, id
    arrow_type: pa.DataType
    width: int = 0  # float bits; timestamp: 6 (us) or 9 (ns)
    int_kind: str = ""  # INT_LIMITS key

    @property
    def temporal(self):
        return self.family in ("date", "timestamp")


def _columns():
    cols = [Column("id", "id", pa.int64())]
    for kind, t in [("i8", pa.int8()), ("i16", pa.int16()), ("i32", pa.int32()), ("i64", pa.int64()),
                    ("u8", pa.uint8()), ("u16", pa.uint16()), ("u32", pa.uint32()),
                    ("u64", pa.uint64())]:
        cols.append(Column(kind, "int", t, int_kind=kind))
    cols.append(Column("i64b", "int", pa.int64(), int_kind="i64"))
    cols += [Column("f16", "float", pa.float16(), 16), Column("f32", "float", pa.float32(), 32),
             Column("f64", "float", pa.float64(), 64), Column("f64b", "float", pa.float64(), 64)]
    cols += [Column("b", "bool", pa.bool_()), Column("b2", "bool", pa.bool_())]
    cols += [Column("s", "string", pa.string()), Column("s2", "string", pa.string())]
    cols += [Column("d", "date", pa.date32()), Column("d2", "date", pa.date32()),
             Column("tsu", "timestamp", pa.timestamp("us"), 6),
             Column("tsn", "timestamp", pa.timestamp("ns"), 9),
             Column("tsz", "timestamp", pa.timestamp("us", tz="UTC"), 6)]
    cols += [Column("li", "list_int", pa.list_(pa.int64())),
             Column("ls", "list_string", pa.list_(pa.string()))]
    return {c.name: c for c in cols}


COLUMNS = _columns()
SCHEMA = pa.schema([pa.field(c.name, c.arrow_type) for c in COLUMNS.values()])


def float_round(value, width):
    """`value` rounded to a float of `width` bits, as a Python float (may be inf)."""
    with np.errstate(over="ignore"):
        return float({16: np.float16, 32: np.float32, 64: np.float64}[width](value))


# --- edge pools (values, not literal text) ---

def int_pool(kind):
    low, high = INT_LIMITS[kind]
    values = {low, high, low + 1, high - 1, 0, 1, 2, 3, 7, 100, 127, 128, 255, 256}
    if low < 0:
        values |= {-1, -2, -3, -7, -100, -128, -129}
    if high >= 2**53 + 1:
        values |= {2**53, 2**53 + 1, 2**53 - 1}
        if low < 0:
            values |= {-(2**53) - 1}
    return sorted(v for v in values if low <= v <= high)


def float_pool(width):
    values = [math.nan, 0.0, -0.0, math.inf, -math.inf, 1.0, -1.0, 0.1, 2.5, -2.5, 0.5, 3.0, 7.0,
              FLOAT_MAX[width], -FLOAT_MAX[width], 100.0, 255.0]
    if width == 16:
        values += [6e-08, 2048.0, 2049.0]
    if width == 32:
        values += [1.4e-45, 16777216.0, 16777217.0, 1e38]
    if width == 64:
        values += [5e-324, 9007199254740992.0, 9007199254740993.0, 1e-300, 1e300, 1e19]
    return [float_round(v, width) for v in values]


STRING_POOL = [
    "", "a", "abc", "ABC", "abd", "ab", "héllo", "hello", "h_llo", "日本語", "🙂", "é", "e",
    "100%", "50% off", "%", "_", "a_b", "a%b", "back\\slash", "\\", "\\\\", "C:\\dir\\",
    "it's", "tab\there", "line\nbreak", "zzz", "Ω", "\u00e9t\u00e9", "x\\%y", "x\\_y", " ", "  a  ",
]

DATE_POOL = [DAY_MIN, DAY_MIN + 1, DAY_MAX, DAY_MAX - 1, 0, -1, 1, 19782,  # 2024-02-29
             10957, -25567, 106751, -106752]  # 2000-01-01, 1900-01-01, ~2262, ~1677

US_PER_DAY = 86_400 * 10**6
TSU_POOL = [DAY_MIN * US_PER_DAY, (DAY_MAX + 1) * US_PER_DAY - 1, 0, -1, 1, 1, 19782 * US_PER_DAY,
            1704103200 * 10**6, 1704103200 * 10**6 + 500000,  # 2024-01-01 10:00:00(.5)
            10957 * US_PER_DAY, -(2**62) // 1000]

TSN_POOL = [NS_MIN, NS_MAX, NS_MIN + 1, NS_MAX - 1, 0, -1, 1, 19782 * NS_PER_DAY,
            1704103200 * 10**9, 1704103200 * 10**9 + 500_000_000,
            1704103200 * 10**9 + 123_456_789, 1704103200 * 10**9 + 1000, 10957 * NS_PER_DAY,
            (NS_MAX // NS_PER_DAY) * NS_PER_DAY, -((-NS_MIN) // NS_PER_DAY) * NS_PER_DAY]

LIST_INT_POOL = [None, [], [None], [1, 2, 3], [1], [2], [1, 1], [-(2**63), 2**63 - 1], [0, None],
                 [3, 7, 100], [2**53 + 1], [-1]]
LIST_STRING_POOL = [None, [], [None], ["a"], ["a", "b"], ["abc", ""], ["héllo", "日本語"],
                    ["%", "_", "\\"], ["b", None], ["a", "a"], ["zzz"]]


def pool(column):
    c = column
    if c.family == "int":
        return int_pool(c.int_kind)
    if c.family == "float":
        return float_pool(c.width)
    if c.family == "bool":
        return [True, False]
    if c.family == "string":
        return STRING_POOL
    if c.family == "date":
        return DATE_POOL
    if c.family == "timestamp":
        return TSU_POOL if c.width == 6 else TSN_POOL
    if c.family == "list_int":
        return LIST_INT_POOL
    if c.family == "list_string":
        return LIST_STRING_POOL
    raise ValueError(c.name)


def ordinary(column, rng):
    """A value from a small range shared by the columns of a family."""
    c = column
    if c.family == "int":
        low, _ = INT_LIMITS[c.int_kind]
        return rng.randint(max(low, -3), 3)
    if c.family == "float":
        return float_round(rng.choice([-3, -2, -1, 0, 1, 2, 3, 0.5, 2.5]), c.width)
    if c.family == "bool":
        return rng.random() < 0.5
    if c.family == "string":
        return rng.choice(["a", "ab", "abc", "b", "é", "a%", "a_"])
    if c.family == "date":
        return rng.choice([19781, 19782, 19783, 0])
    if c.family == "timestamp":
        scale = 10**3 if c.width == 6 else 10**0
        base = 19782 * NS_PER_DAY // scale
        return base + rng.choice([0, 1, -1, 10**9 // scale * 3600])
    if c.family == "list_int":
        return [rng.randint(-3, 3) for _ in range(rng.randint(0, 3))]
    if c.family == "list_string":
        return [rng.choice(["a", "b", "abc"]) for _ in range(rng.randint(0, 3))]
    raise ValueError(c.name)


def make_rows(rng, first_id, count):
    """`count` rows as a pyarrow Table of SCHEMA, ids first_id.. ascending."""
    data = {name: [] for name in COLUMNS}
    for row in range(count):
        for name, column in COLUMNS.items():
            if column.family == "id":
                data[name].append(first_id + row)
                continue
            draw = rng.random()
            if draw < 0.1 and not column.family.startswith("list"):
                value = None
            elif draw < 0.55:
                value = rng.choice(pool(column))
            else:
                value = ordinary(column, rng)
            data[name].append(value)
    arrays = []
    for name, column in COLUMNS.items():
        values = data[name]
        if column.family == "float":
            np_type = {16: np.float16, 32: np.float32, 64: np.float64}[column.width]
            mask = np.array([v is None for v in values])
            dense = np.array([0.0 if v is None else v for v in values], dtype=np_type)
            arrays.append(pa.array(dense, type=column.arrow_type, mask=mask))
        elif column.family == "date":
            arrays.append(pa.array(values, pa.int32()).cast(pa.date32()))
        elif column.family == "timestamp":
            arrays.append(pa.array(values, pa.int64()).cast(column.arrow_type))
        else:
            arrays.append(pa.array(values, type=column.arrow_type))
    return pa.Table.from_arrays(arrays, schema=SCHEMA)
