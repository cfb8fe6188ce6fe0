"""tessera.ray on a local Ray instance: the builds and joins of tessera.spark through the same
plan (tessera._distributed), run as Ray tasks and Ray Data batches."""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pyarrow as pa
import pytest

import tessera
from conftest import embeddings, sample_table

HERE = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def ray_session(tmp_path_factory):
    marker = tmp_path_factory.mktemp("faults") / "killed"
    # Workers inherit the environment: the package being tested, and the fault injector.
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(HERE / "worker_faults"), *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    )
    os.environ["TESSERA_TEST_KILL_MARKER"] = str(marker)
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    os.environ["RAY_AUTH_MODE"] = "disabled"  # no token written to the home directory
    import ray

    ray.init(
        _node_ip_address="127.0.0.1",  # loopback only
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=128 * 1024 * 1024,
        log_to_driver=False,
        _temp_dir=str(tmp_path_factory.mktemp("ray")),
    )
    ray.kill_marker = marker
    yield ray
    ray.shutdown()


def test_build_equals_a_single_process_build_and_survives_a_killed_task(ray_session, tmp_path):
    from tessera import ray as tessera_ray

    table = sample_table(rows=8000, dim=16)
    ds = tessera.create(tmp_path / "ds", table, max_rows_per_file=1000)
    model = ds.train_model("vector", "IVF_PQ", num_partitions=8, num_sub_vectors=4)
    single = tessera.create(tmp_path / "single", table, max_rows_per_file=1000)
    single.commit_segments("v", [single.build_segment("v", model=model)])

    armed = ray_session.kill_marker.with_name(ray_session.kill_marker.name + ".armed")
    armed.touch()
    try:
        built = tessera_ray.build_index(str(ds.uri), "vector", "IVF_PQ", "v", num_workers=2,
                                        model=model)
    finally:
        armed.unlink()
    assert ray_session.kill_marker.exists(), "the fault injector did not run"
    assert [v.version for v in built.versions()] == [1, 2]  # one commit
    assert len(built.index_entries("v")) == 2
    queries = embeddings(10, 16, seed=4)
    for nprobes in (2, 8):
        assert built.search(queries, k=10, nprobes=nprobes, columns=["id"]).equals(
            single.search(queries, k=10, nprobes=nprobes, columns=["id"])
        )

    bitmap = tessera_ray.build_index(str(ds.uri), "category", "BITMAP", num_workers=3,
                                     merge=True)
    assert {e["name"]: e["segments"] for e in bitmap.list_indexes()} == {"v": 2, "category_idx": 1}
    assert bitmap.count_rows("category = 'c2'") == 1600


def test_knn_join_equals_the_datasets(ray_session, tmp_path):
    import ray
    import ray.data

    from tessera import ray as tessera_ray

    ds = tessera.create(tmp_path / "ds", sample_table(rows=3000, dim=16), max_rows_per_file=1000)
    ds.create_index("vector", "IVF_FLAT", num_partitions=4)
    left = pa.table({"qid": np.arange(200), "q": tessera.vectors(embeddings(200, 16, seed=9))})
    want = ds.knn_join(left, "q", 4, nprobes=2)
    # From Arrow blocks, and from pandas blocks (whose schema is not an Arrow schema).
    for source in (ray.data.from_arrow(left),
                   ray.data.from_arrow(left).map_batches(lambda b: b, batch_format="pandas")):
        joined = tessera_ray.knn_join(source, "q", ds.uri, "vector", k=4, nprobes=2,
                                      batch_rows=64)
        got = pa.concat_tables(ray.get(joined.to_arrow_refs()))
        got = got.sort_by([("qid", "ascending"), ("_rank", "ascending")])
        assert got.column_names == want.column_names
        assert got["qid"].to_pylist() == want["qid"].to_pylist()
        assert got["_rowaddr"].to_pylist() == want["_rowaddr"].to_pylist()
        assert got["_distance"].to_pylist() == want["_distance"].to_pylist()
