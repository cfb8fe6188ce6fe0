"""Full-text and hybrid search, and SQL, from Python."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import tessera
from conftest import embeddings

WORDS = ["garden", "music", "river", "stone", "winter", "light", "blue", "sky"]


@pytest.fixture
def documents(tmp_path):
    rng = np.random.default_rng(3)
    texts = [" ".join(rng.choice(WORDS, size=6)) for _ in range(300)]
    texts[17] = "the lighthouse keeper over the winter garden"
    ds = tessera.create(
        tmp_path / "docs",
        {"id": np.arange(300), "text": pa.array(texts), "vector": embeddings(300, 8)},
    )
    ds.create_index("text", "INVERTED")
    return ds


def test_text_search_ranks_by_bm25(documents):
    got = documents.text_search("garden music", k=5, columns=["id", "text"])
    assert got.column_names == ["id", "text", "_score"]
    assert got.num_rows == 5
    assert all("garden" in t or "music" in t for t in got["text"].to_pylist())
    scores = got["_score"].to_numpy()
    assert np.all(np.diff(scores) <= 0)
    everything = documents.text_search("garden music", k=1000, columns=["id"])
    assert everything.slice(0, 5)["id"].equals(got["id"])


def test_phrase_highlight_and_filters(documents):
    phrase = documents.text_search(
        "lighthouse keeper", query_type="phrase", columns=["id"], highlight=True
    )
    assert phrase["id"].to_pylist() == [17]
    assert "<b>lighthouse</b>" in phrase["_highlight"][0].as_py()
    assert documents.text_search("keeper lighthouse", query_type="phrase").num_rows == 0
    filtered = documents.text_search("garden", k=300, where="id < 50", prefilter=True, columns=["id"])
    assert filtered.num_rows > 0 and max(filtered["id"].to_pylist()) < 50


def test_hybrid_search_fuses_both_lists(documents):
    vectors = embeddings(300, 8)
    got = documents.hybrid_search("lighthouse keeper", vectors[17], k=3, columns=["id"])
    assert got.column_names == ["id", "_score"]
    assert got["id"][0].as_py() == 17  # first in both lists
    weighted = documents.hybrid_search(
        "lighthouse keeper", vectors[17], k=3, fusion="weighted", text_weight=0.0, columns=["id"]
    )
    assert weighted["id"][0].as_py() == 17
    with pytest.raises(tessera.InvalidArgumentError, match="fusion"):
        documents.hybrid_search("x", vectors[0], fusion="max")


def test_text_search_errors(documents, tmp_path):
    with pytest.raises(tessera.InvalidArgumentError):
        documents.text_search("garden", query_type="regex")
    plain = tessera.create(tmp_path / "plain", {"text": pa.array(["a b", "c"])})
    with pytest.raises(tessera.InvalidArgumentError, match="INVERTED"):
        plain.text_search("a")


def test_sql_session_creates_indexes_and_queries(tmp_path, table):
    source = tmp_path / "items.parquet"
    pq.write_table(table, source)
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    session = tessera.Session(catalog)
    status = session.sql(
        f"CREATE DATABASE shop; USE shop; CREATE TABLE items AS SELECT * FROM read_parquet('{source}')"
    )
    assert isinstance(status, tessera.SqlStatus) and status.affected_rows == 1000
    assert session.current_database == "shop"
    created = session.sql(
        "CREATE INDEX vec_idx ON items (vector) USING ANN PROPERTIES ('index_type' = 'IVF_FLAT')"
    )
    assert created.version == 2
    counts = session.sql("SELECT category, count(*) AS n FROM items GROUP BY category ORDER BY category")
    assert counts.to_pydict() == {"category": [f"c{i}" for i in range(5)], "n": [200] * 5}
    query = ", ".join("0" for _ in range(16))
    found = tessera.sql(
        catalog,
        f"SELECT id FROM vector_search(table => 'shop.items', column => 'vector', query => [{query}], k => 3)",
    )
    assert found.num_rows == 3


def test_sql_errors_are_tessera_errors(tmp_path):
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    with pytest.raises(tessera.TesseraError, match="nope"):
        tessera.sql(catalog, "SELECT * FROM nope.items")
    with pytest.raises(tessera.InvalidArgumentError):
        tessera.sql(tmp_path / "no_such_dir", "SHOW DATABASES")
    with pytest.raises(tessera.TesseraError):
        tessera.sql(catalog, "SELEC 1")
