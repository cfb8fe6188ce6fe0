"""Nearest-neighbour search from Python: one query, batches, filters, bad input."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import tessera
from conftest import embeddings


def brute_force(vectors: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    distances = ((vectors - query) ** 2).sum(axis=1)
    return [int(i) for i in np.argsort(distances, kind="stable")[:k]]


def test_search_equals_brute_force(dataset, table):
    vectors = embeddings(1000, 16)
    query = embeddings(1, 16, seed=99)[0]
    result = dataset.search(query, k=5)
    assert result.column_names == ["id", "category", "vector", "_distance"]
    assert result["id"].to_pylist() == brute_force(vectors, query, 5)
    distances = result["_distance"].to_numpy()
    assert np.all(np.diff(distances) >= 0)
    assert distances[0] == pytest.approx(((vectors[result["id"][0].as_py()] - query) ** 2).sum(), rel=1e-5)


def test_a_list_is_one_query_and_a_matrix_a_batch(dataset):
    vectors = embeddings(1000, 16)
    queries = embeddings(3, 16, seed=5)
    single = dataset.search(list(map(float, queries[0])), k=4, columns=["id"])
    assert single.column_names == ["id", "_distance"]
    batch = dataset.search(queries, k=4, columns=["id"])
    assert batch.column_names == ["query", "id", "_distance"]
    assert batch["query"].to_pylist() == [0] * 4 + [1] * 4 + [2] * 4
    for q in range(3):
        rows = batch.filter(pa.compute.equal(batch["query"], q))
        assert rows["id"].to_pylist() == brute_force(vectors, queries[q], 4)
    assert batch.slice(0, 4).drop_columns(["query"]).equals(single)


def test_ivf_index_probing_every_partition_is_exact(dataset):
    dataset.create_index("vector", "IVF_FLAT", num_partitions=4)
    queries = embeddings(5, 16, seed=11)
    indexed = dataset.search(queries, k=10, nprobes=4, columns=["id"])
    exact = dataset.search(queries, k=10, use_index=False, columns=["id"])
    assert indexed.equals(exact)


def test_filters_prefilter_and_row_addresses(dataset):
    query = embeddings(1, 16, seed=3)[0]
    pre = dataset.search(query, k=10, where="category = 'c2'", prefilter=True, columns=["category"])
    assert pre.num_rows == 10 and set(pre["category"].to_pylist()) == {"c2"}
    post = dataset.search(query, k=10, where="category = 'c2'", columns=["category"])
    assert post.num_rows <= 10
    addressed = dataset.search(query, k=3, columns=["id"], with_row_address=True)
    assert dataset.take(addressed["_rowaddr"], columns=["id"]).equals(addressed.select(["id"]))


def test_distance_range_offset_and_metric(dataset):
    query = embeddings(1, 16, seed=3)[0]
    ordered = dataset.search(query, k=20, columns=["id"])
    assert dataset.search(query, k=5, offset=5, columns=["id"])["id"].equals(ordered["id"][5:10])
    bound = float(ordered["_distance"][3].as_py())
    ranged = dataset.search(query, k=20, distance_range=(None, bound), columns=["id"])
    assert ranged["id"].equals(ordered["id"][:3])
    cosine = dataset.search(query, k=3, metric="cosine")
    assert np.all(cosine["_distance"].to_numpy() <= 2.0)


def test_query_dtypes_are_converted_and_float16_data_is_searchable(tmp_path):
    vectors = embeddings(50, 8).astype(np.float16)
    ds = tessera.create(tmp_path / "ds", {"vector": vectors})
    query64 = vectors[7].astype(np.float64)
    assert ds.search(query64, k=1, with_row_address=True)["_distance"][0].as_py() == 0.0


def test_bad_queries_raise_the_engines_errors(dataset):
    with pytest.raises(tessera.InvalidArgumentError, match="dimensions"):
        dataset.search(np.zeros(3, dtype=np.float32))
    with pytest.raises(tessera.InvalidArgumentError, match="one dimension"):
        dataset.search([[1.0] * 16, [1.0]])
    with pytest.raises(tessera.InvalidArgumentError, match="finite"):
        dataset.search(np.full(16, np.nan, dtype=np.float32))
    with pytest.raises(tessera.InvalidArgumentError, match="numbers"):
        dataset.search(["a"] * 16)
    with pytest.raises(tessera.InvalidArgumentError, match="k"):
        dataset.search(np.zeros(16, dtype=np.float32), k=0)
    with pytest.raises(tessera.InvalidArgumentError, match="no column|unknown|nothing"):
        dataset.search(np.zeros(16, dtype=np.float32), column="nothing")
    with pytest.raises(tessera.InvalidArgumentError):
        dataset.search(np.zeros(16, dtype=np.float32), metric="manhattan")
    with pytest.raises(tessera.InvalidArgumentError):
        dataset.search(np.zeros(16, dtype=np.float32), where="id >")


def test_column_must_be_named_when_there_are_several_vector_columns(tmp_path):
    ds = tessera.create(tmp_path / "ds", {"a": embeddings(5, 4), "b": embeddings(5, 4)})
    with pytest.raises(tessera.InvalidArgumentError, match="2 vector columns"):
        ds.search(np.zeros(4, dtype=np.float32))
    assert ds.search(np.zeros(4, dtype=np.float32), column="b", k=2).num_rows == 2
