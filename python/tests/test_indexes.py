"""The index lifecycle from Python, and the distributed workflow (train, build, merge, commit)."""

from __future__ import annotations

import pickle

import numpy as np
import pyarrow as pa
import pytest

import tessera
from conftest import embeddings


def test_create_list_describe_optimize_drop(dataset, table):
    dataset.create_index("vector", "IVF_PQ", num_partitions=4, num_sub_vectors=4)
    dataset.create_index("id", "BTREE", name="by_id")
    names = {entry["name"]: entry for entry in dataset.list_indexes()}
    assert set(names) == {"vector_idx", "by_id"}
    assert names["vector_idx"]["type"] == "IVF_PQ" and names["vector_idx"]["unindexed_rows"] == 0
    entries = dataset.index_entries("by_id")
    assert len(entries) == 1 and entries[0]["index"] == "by_id" and entries[0]["rows"] == 1000
    assert "num_partitions=4" in dataset.index_entries("vector_idx")[0]["details"]

    dataset.append(table.slice(0, 100))
    assert {e["name"]: e["unindexed_rows"] for e in dataset.list_indexes()} == {
        "vector_idx": 100,
        "by_id": 100,
    }
    report = dataset.optimize(merge="none")
    assert report["segments_built"] == 2
    assert all(e["unindexed_rows"] == 0 for e in dataset.list_indexes())
    assert dataset.count_rows("id < 10") == 20  # through the BTREE, appended rows included

    dataset.drop_index("by_id")
    assert [e["name"] for e in dataset.list_indexes()] == ["vector_idx"]
    dataset.drop_index("by_id", if_exists=True)
    with pytest.raises(tessera.NotFoundError, match="by_id"):
        dataset.drop_index("by_id")


def test_create_index_replace_and_if_not_exists(dataset):
    dataset.create_index("id", "BTREE")
    version = dataset.version
    dataset.create_index("id", "BTREE", if_not_exists=True)
    assert dataset.version == version
    with pytest.raises(tessera.AlreadyExistsError, match="id_idx"):
        dataset.create_index("id", "BTREE")
    dataset.create_index("id", "BTREE", replace=True)
    assert dataset.version == version + 1


def test_bad_index_parameters_are_invalid_argument(dataset):
    with pytest.raises(tessera.InvalidArgumentError, match="num_partitions"):
        dataset.create_index("vector", "IVF_FLAT", num_partitions="many")
    with pytest.raises(tessera.NotFoundError, match="IVF_PQ"):  # lists the types
        dataset.create_index("vector", "NO_SUCH_TYPE")
    with pytest.raises(tessera.NotFoundError, match="nothing"):
        dataset.create_index("nothing", "BTREE")


def test_distributed_build_equals_a_single_build_with_the_same_model(dataset, table, tmp_path):
    model = dataset.train_model("vector", "IVF_PQ", num_partitions=4, num_sub_vectors=4)
    model = pickle.loads(pickle.dumps(model))  # as it travels to a worker
    fragments = [fragment for fragment, _ in dataset.fragments()]
    # The same rows in another dataset, indexed by one segment built with the same model.
    single = tessera.create(tmp_path / "single", table, max_rows_per_file=250)
    single.commit_segments("v", [single.build_segment("v", model=model)])

    parts = [
        dataset.build_segment("v", model=model, fragments=fragments[:2]),
        dataset.build_segment("v", model=model, fragments=fragments[2:]),
    ]
    parts = [pickle.loads(pickle.dumps(part)) for part in parts]
    assert sum(part.num_rows for part in parts) == 1000
    dataset.commit_segments("v", parts)
    assert [e["segments"] for e in dataset.list_indexes()] == [2]

    queries = embeddings(8, 16, seed=21)
    for nprobes in (1, 4):
        got = dataset.search(queries, k=10, nprobes=nprobes, refine_factor=1, columns=["id"])
        want = single.search(queries, k=10, nprobes=nprobes, refine_factor=1, columns=["id"])
        assert got.equals(want)

    merged = dataset.merge_segments(parts)
    dataset.commit_segments("v", [merged], replaced=[part.uuid for part in parts])
    assert [e["segments"] for e in dataset.list_indexes()] == [1]
    assert dataset.search(queries, k=10, nprobes=4, columns=["id"]).equals(
        single.search(queries, k=10, nprobes=4, columns=["id"])
    )


def test_hnsw_graphs_build_distributed_merge_and_take_ef(dataset):
    model = dataset.train_model("vector", "IVF_HNSW_SQ", num_partitions=2, m=8, ef_construction=40)
    fragments = [fragment for fragment, _ in dataset.fragments()]
    parts = [
        dataset.build_segment("v", model=model, fragments=fragments[:2]),
        dataset.build_segment("v", model=model, fragments=fragments[2:]),
    ]
    dataset.commit_segments("v", parts)
    queries = embeddings(8, 16, seed=3)
    exact = dataset.search(queries, k=10, use_index=False, columns=["id"])
    # Every partition probed, an ef covering them (a scan) and every candidate re-ranked: exact.
    def covering():
        return dataset.search(queries, k=10, nprobes=2, ef=100000, refine_factor=1000, columns=["id"])

    assert covering().equals(exact)
    # knn_join takes ef as search does.
    left = pa.table({"qid": np.arange(8), "q": tessera.vectors(queries)})
    joined = dataset.knn_join(left, "q", 10, columns=["id"], nprobes=2, ef=100000, refine_factor=1000)
    assert joined.column("id").to_pylist() == exact.column("id").to_pylist()
    # A small ef walks the graphs (500 rows per partition) and still returns k rows per query.
    assert dataset.search(queries, k=10, nprobes=2, ef=10, columns=["id"]).num_rows == 80
    with pytest.raises(tessera.InvalidArgumentError, match="ef"):
        dataset.search(queries[0], k=10, ef=-1)
    merged = dataset.merge_segments(parts)
    dataset.commit_segments("v", [merged], replaced=[part.uuid for part in parts])
    assert [e["segments"] for e in dataset.list_indexes()] == [1]
    assert "m=8" in dataset.index_entries("v")[0]["details"]
    assert covering().equals(exact)


def test_scalar_segments_build_without_a_model(dataset):
    segment = dataset.build_segment("by_category", column="category", type="BITMAP")
    dataset.commit_segments("by_category", [segment])
    assert dataset.list_indexes()[0]["type"] == "BITMAP"
    assert dataset.count_rows("category = 'c3'") == 200


def test_a_model_trained_on_another_column_is_refused(tmp_path):
    ds = tessera.create(tmp_path / "ds", {"a": embeddings(300, 8), "b": embeddings(300, 8)})
    model = ds.train_model("a", "IVF_FLAT", num_partitions=2)
    other = tessera.Model("b", model.type, model.params, model.data)
    with pytest.raises(tessera.InvalidArgumentError, match="trained on field id"):
        ds.build_segment("x", model=other)
    damaged = tessera.Model("a", model.type, model.params, model.data[:-3] + b"xyz")
    with pytest.raises(tessera.CorruptError):
        ds.build_segment("x", model=damaged)


def test_segments_of_a_stale_snapshot_commit_per_the_conflict_rules(dataset, table):
    stale = dataset.checkout()
    segment = stale.build_segment("by_id", column="id", type="BTREE")
    dataset.append(table.slice(0, 10))  # a concurrent append
    stale.commit_segments("by_id", [segment])  # rebased: appended rows stay unindexed
    summary = stale.list_indexes()[0]
    assert summary["indexed_rows"] == 1000 and summary["unindexed_rows"] == 10
    late = stale.build_segment("by_id2", column="id", type="BTREE")
    dataset.overwrite(table)  # replaces every fragment and removes every index
    with pytest.raises(tessera.CommitConflictError, match="again") as raised:
        stale.commit_segments("by_id2", [late])
    assert raised.value.retryable is True
