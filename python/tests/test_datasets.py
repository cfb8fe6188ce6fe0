"""Datasets from Python: create from every kind of input, read, write, history."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import tessera
from conftest import sample_table


def test_create_and_open_round_trip(tmp_path, table):
    ds = tessera.create(tmp_path / "ds", table)
    assert ds.version == 1
    assert len(ds) == table.num_rows
    assert ds.schema.field("vector").type == pa.list_(pa.float32(), 16)
    assert tessera.open(tmp_path / "ds").to_table().equals(table)
    assert repr(ds).startswith("tessera.Dataset(")


@pytest.mark.parametrize(
    "make",
    [
        lambda t: t,
        lambda t: t.to_batches(max_chunksize=100)[0],
        lambda t: pa.RecordBatchReader.from_batches(t.schema, t.to_batches(max_chunksize=64)),
        lambda t: t.to_pandas(),
        lambda t: {"id": t["id"].to_numpy(), "vector": np.stack(t["vector"].to_numpy(zero_copy_only=False))},
    ],
    ids=["table", "record_batch", "reader", "pandas", "dict_of_numpy"],
)
def test_create_accepts_every_input(tmp_path, table, make):
    data = make(table)
    ds = tessera.create(tmp_path / "ds", data)
    expected = table.num_rows if not isinstance(data, pa.RecordBatch) else data.num_rows
    assert ds.count_rows() == expected
    assert ds.schema.field("vector").type.list_size == 16


def test_create_accepts_the_arrow_stream_protocol(tmp_path, table):
    class Producer:  # what polars, DuckDB and others offer
        def __arrow_c_stream__(self, requested_schema=None):
            return table.__arrow_c_stream__(requested_schema)

    ds = tessera.create(tmp_path / "ds", Producer())
    assert ds.to_table().equals(table)


def test_pandas_input_has_no_index_column(tmp_path, table):
    frame = table.select(["id", "category"]).to_pandas()
    frame.index = pd.RangeIndex(100, 100 + len(frame))
    ds = tessera.create(tmp_path / "ds", frame)
    assert ds.schema.names == ["id", "category"]


def test_unsupported_input_is_a_type_error(tmp_path):
    with pytest.raises(TypeError, match="data must be"):
        tessera.create(tmp_path / "ds", [1, 2, 3])


def test_reads_with_columns_filter_and_limit(dataset, table):
    got = dataset.to_table(columns=["id"], where="id >= 990")
    assert got.column_names == ["id"]
    assert got["id"].to_pylist() == list(range(990, 1000))
    assert dataset.to_table(where="category = 'c1'", limit=3).num_rows == 3
    assert dataset.count_rows("category = 'c1'") == 200
    assert dataset.count_rows() == 1000


def test_to_batches_streams(dataset):
    reader = dataset.to_batches(columns=["id"])
    assert isinstance(reader, pa.RecordBatchReader)
    total = 0
    batches = 0
    for batch in reader:
        total += batch.num_rows
        batches += 1
    assert total == 1000 and batches >= 4  # four fragments of 250 rows


def test_take_by_row_address_in_caller_order(dataset):
    addressed = dataset.to_table(columns=["id"], with_row_address=True)
    addresses = addressed["_rowaddr"].to_numpy()
    wanted = [addresses[999], addresses[0], addresses[999], addresses[500]]
    got = dataset.take(wanted, columns=["id"])
    assert got["id"].to_pylist() == [999, 0, 999, 500]


def test_append_delete_overwrite_move_the_handle(dataset, table):
    old = dataset.checkout(1)
    dataset.append(table.slice(0, 10))
    assert dataset.version == 2 and len(dataset) == 1010
    dataset.delete("id < 5")
    assert dataset.version == 3 and len(dataset) == 1000
    dataset.delete("id < 0")  # matches nothing: no new version
    assert dataset.version == 3
    assert len(old) == 1000 and old.version == 1  # a handle on an old version is unchanged
    dataset.overwrite(pa.table({"x": [1, 2]}))
    assert dataset.schema.names == ["x"] and len(dataset) == 2
    history = dataset.versions()
    assert [v.version for v in history] == [1, 2, 3, 4]
    assert [v.operation for v in history] == ["create", "append", "delete", "overwrite"]
    assert history[1].num_rows == 1010 and history[0].created is not None
    assert tessera.open(dataset.uri, version=2).count_rows() == 1010


def test_fragments_list_ids_and_rows(dataset):
    fragments = dataset.fragments()
    assert len(fragments) == 4 and sum(rows for _, rows in fragments) == 1000


def test_cleanup_removes_old_versions(dataset, table):
    import datetime

    dataset.append(table.slice(0, 1))
    report = dataset.cleanup(older_than=datetime.timedelta(0))
    assert report["removed_versions"] == [1]
    assert [v.version for v in dataset.versions()] == [2]


def test_vectors_refuses_float64_and_ragged_input():
    with pytest.raises(tessera.InvalidArgumentError, match="float32 or float16.*astype"):
        tessera.vectors(np.zeros((3, 4)))
    with pytest.raises(tessera.InvalidArgumentError, match="one dimension"):
        tessera.vectors([[1.0, 2.0], [1.0]])
    with pytest.raises(tessera.InvalidArgumentError, match="2-D"):
        tessera.vectors(np.zeros(4, dtype=np.float32))
    half = tessera.vectors(np.ones((2, 3), dtype=np.float16))
    assert half.type == pa.list_(pa.float16(), 3)


def test_concurrent_writers_from_two_handles_both_land(tmp_path, table):
    first = tessera.create(tmp_path / "ds", table.slice(0, 10))
    second = tessera.open(tmp_path / "ds")
    first.append(table.slice(10, 10))
    second.append(table.slice(20, 10))  # rebased onto the first append
    assert second.version == 3
    assert sorted(second.to_table()["id"].to_pylist()) == list(range(30))


def test_dataset_with_many_fragments_reads_in_order(tmp_path):
    table = sample_table(rows=100, dim=4)
    ds = tessera.create(tmp_path / "ds", table, max_rows_per_file=7)
    assert len(ds.fragments()) == 15
    assert ds.to_table()["id"].to_pylist() == list(range(100))


def test_a_closed_dataset_refuses_every_call(dataset):
    other = dataset.checkout()
    with dataset as ds:
        assert ds.count_rows() == 1000
    assert "closed" in repr(dataset)
    for call in (lambda: dataset.to_table(), lambda: dataset.search([0.0] * 16),
                 lambda: dataset.append({"id": [1]}), lambda: dataset.version):
        with pytest.raises(tessera.InvalidArgumentError, match="was closed"):
            call()
    assert other.count_rows() == 1000  # other handles are unaffected


def test_pandas_appends_to_a_dataset_made_from_pyarrow(dataset, table):
    dataset.append(table.slice(0, 5).to_pandas())
    assert len(dataset) == 1005
    assert dataset.schema.field("category").type == pa.string()
