"""Writes the filtered-read benchmark's table once as Parquet and as an Arrow IPC file.

Columns: `i` int64 (uniform in [0, 1e9)), `f` double (uniform in [0, 1)), `s` a 12-character
string ("k" + 11 zero-padded digits of a uniform integer in [0, 1e11)), `g` a low-cardinality
int64 (uniform in [0, 10000), for BITMAP), `t` int64 the row number (sorted, as a timestamp or an
auto-increment key is: what zone maps and fragment statistics can skip) and `v` a double with
5 % nulls. Values of i, f, s and g are in random order, so nothing can skip a range of rows for
them: the benchmark measures the scan itself.
"""
import argparse
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.ipc as ipc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--parquet", required=True)
    parser.add_argument("--ipc", required=True)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    batch = 1 << 20
    schema = pa.schema([("i", pa.int64()), ("f", pa.float64()), ("s", pa.string()),
                        ("g", pa.int64()), ("t", pa.int64()), ("v", pa.float64())])
    with pq.ParquetWriter(args.parquet, schema, compression="snappy") as pw, \
            ipc.new_file(args.ipc, schema) as iw:
        for start in range(0, args.rows, batch):
            n = min(batch, args.rows - start)
            s = np.char.add("k", np.char.zfill(rng.integers(0, 10**11, n).astype(str), 11))
            v = rng.random(n)
            table = pa.table({
                "i": pa.array(rng.integers(0, 10**9, n)),
                "f": pa.array(rng.random(n)),
                "s": pa.array(s),
                "g": pa.array(rng.integers(0, 10000, n)),
                "t": pa.array(np.arange(start, start + n, dtype=np.int64)),
                "v": pa.array(v, mask=rng.random(n) < 0.05),
            }, schema=schema)
            pw.write_table(table, row_group_size=122880)
            for b in table.to_batches(max_chunksize=65536):
                iw.write_batch(b)


if __name__ == "__main__":
    main()
