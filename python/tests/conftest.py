"""Shared fixtures of the Python package's tests (run by ctest: tests/python/)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import tessera


def embeddings(rows: int, dim: int, seed: int = 7) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((rows, dim), dtype=np.float32)


def sample_table(rows: int = 1000, dim: int = 16, seed: int = 7) -> pa.Table:
    vectors = embeddings(rows, dim, seed)
    return pa.table(
        {
            "id": pa.array(np.arange(rows, dtype=np.int64)),
            "category": pa.array([f"c{i % 5}" for i in range(rows)]),
            "vector": tessera.vectors(vectors),
        }
    )


@pytest.fixture
def table() -> pa.Table:
    return sample_table()


@pytest.fixture
def dataset(tmp_path, table) -> tessera.Dataset:
    return tessera.create(tmp_path / "ds", table, max_rows_per_file=250)
