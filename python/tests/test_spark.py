"""tessera.spark on pyspark in local mode: distributed builds commit once and equal a
single-process build; a task killed mid-build is retried; the k-NN join equals the CLI's."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import tessera
from conftest import embeddings, sample_table
from tessera import spark as tessera_spark

HERE = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    from pyspark.sql import SparkSession

    marker = tmp_path_factory.mktemp("faults") / "killed"
    # Workers inherit the environment: the package being tested, and the fault injector.
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(HERE / "worker_faults"), *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    )
    os.environ["TESSERA_TEST_KILL_MARKER"] = str(marker)
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"  # loopback only
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2,4]")  # 2 task slots; a task may fail 3 times
        .appName("tessera-tests")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
        .config("spark.python.worker.reuse", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    session.kill_marker = marker
    yield session
    session.stop()


def test_balanced_groups():
    groups = tessera_spark.balanced_groups([(0, 100), (1, 10), (2, 60), (3, 50), (4, 5)], 2)
    sizes = sorted(sum(dict([(0, 100), (1, 10), (2, 60), (3, 50), (4, 5)])[f] for f in g) for g in groups)
    assert sizes == [110, 115]
    assert tessera_spark.balanced_groups([(0, 1)], 4) == [[0]]
    assert sorted(sum(tessera_spark.balanced_groups([(i, 1) for i in range(7)], 3), [])) == list(range(7))
    with pytest.raises(tessera.InvalidArgumentError):
        tessera_spark.balanced_groups([(0, 1)], 0)


@pytest.fixture
def vectors_dataset(tmp_path):
    return tessera.create(tmp_path / "ds", sample_table(rows=4000, dim=16), max_rows_per_file=500)


def test_distributed_build_equals_a_single_process_build(spark, vectors_dataset):
    ds = vectors_dataset
    params = {"num_partitions": 8, "num_sub_vectors": 4}
    model = ds.train_model("vector", "IVF_PQ", **params)
    assert ds.train_model("vector", "IVF_PQ", **params).data == model.data  # training is deterministic
    single = tessera.create(ds.uri + "-single", ds.to_table(), max_rows_per_file=500)
    single.commit_segments("v", [single.build_segment("v", model=model)])

    built = tessera_spark.build_index(spark, ds.uri, "vector", "IVF_PQ", "v", num_workers=2, model=model)
    assert built.version == 2  # one commit
    entries = built.index_entries("v")
    assert len(entries) == 2
    assert sorted(f for e in entries for f in e["fragments"]) == list(range(8))
    queries = embeddings(10, 16, seed=31)
    for nprobes in (2, 8):
        got = built.search(queries, k=10, nprobes=nprobes, columns=["id"])
        want = single.search(queries, k=10, nprobes=nprobes, columns=["id"])
        assert got.equals(want)

    merged = tessera_spark.build_index(
        spark, ds.uri, "vector", "IVF_PQ", "v", num_workers=2, merge=True, replace=True, model=model
    )
    assert len(merged.index_entries("v")) == 1
    assert merged.search(queries, k=10, nprobes=8, columns=["id"]).equals(
        single.search(queries, k=10, nprobes=8, columns=["id"])
    )
    with pytest.raises(tessera.AlreadyExistsError, match="replace=True"):
        tessera_spark.build_index(spark, ds.uri, "vector", "IVF_PQ", "v", params)
    with pytest.raises(tessera.DefinitionMismatchError, match="drop it first"):
        tessera_spark.build_index(spark, ds.uri, "vector", "IVF_FLAT", "v", replace=True)
    # Trained on the driver from the same version and parameters: the same model, the same index.
    trained = tessera_spark.build_index(
        spark, ds.uri, "vector", "IVF_PQ", "v", params, num_workers=2, replace=True
    )
    assert trained.search(queries, k=10, nprobes=8, columns=["id"]).equals(
        single.search(queries, k=10, nprobes=8, columns=["id"])
    )


def test_a_task_killed_mid_build_is_retried_and_the_job_commits_once(spark, tmp_path):
    ds = tessera.create(tmp_path / "ds", sample_table(rows=40000, dim=32), max_rows_per_file=10000)
    armed = spark.kill_marker.with_name(spark.kill_marker.name + ".armed")
    armed.touch()
    try:
        built = tessera_spark.build_index(
            spark, ds.uri, "vector", "IVF_FLAT", params={"num_partitions": 4}, num_workers=2
        )
    finally:
        armed.unlink()
    assert spark.kill_marker.exists(), "the fault injector did not run"
    assert "building" in spark.kill_marker.read_text()
    assert [v.version for v in built.versions()] == [1, 2]
    summary = built.list_indexes()[0]
    assert summary["indexed_rows"] == 40000 and summary["segments"] == 2
    queries = embeddings(5, 32, seed=2)
    assert built.search(queries, k=5, nprobes=4, columns=["id"]).equals(
        built.search(queries, k=5, use_index=False, columns=["id"])
    )


def test_scalar_families_build_without_a_model(spark, vectors_dataset):
    built = tessera_spark.build_index(spark, vectors_dataset.uri, "category", "BITMAP", num_workers=3)
    assert built.list_indexes()[0]["segments"] == 3
    assert built.count_rows("category = 'c1'") == 800


def test_a_job_over_a_dataset_that_moved_on(spark, vectors_dataset):
    ds = vectors_dataset
    ds.append(sample_table(rows=100, dim=16))  # version 2 lands after the job's version 1
    built = tessera_spark.build_index(spark, ds.uri, "id", "BTREE", num_workers=2, version=1)
    summary = built.list_indexes()[0]
    assert built.version == 3
    assert summary["indexed_rows"] == 4000 and summary["unindexed_rows"] == 100
    ds.overwrite(sample_table(rows=10, dim=16))
    with pytest.raises(tessera.CommitConflictError):
        tessera_spark.build_index(spark, ds.uri, "category", "BITMAP", num_workers=2, version=3)


def test_knn_join_equals_the_clis(spark, vectors_dataset, tmp_path):
    ds = vectors_dataset
    ds.create_index("vector", "IVF_FLAT", num_partitions=8)
    left = pa.table({"qid": np.arange(300), "q": tessera.vectors(embeddings(300, 16, seed=8))})
    left_file = tmp_path / "left.parquet"
    pq.write_table(left, left_file)
    out = tmp_path / "cli.parquet"
    subprocess.run(
        [os.environ["TESSERA_CLI"], "knn-join", "--left", str(left_file), "--left-column", "q",
         "--right", ds.uri, "--right-column", "vector", "--k", "5", "--nprobes", "3",
         "--out", str(out)],
        check=True, capture_output=True,
    )
    cli = pq.read_table(out)

    rows = [(int(i), [float(x) for x in v]) for i, v in zip(left["qid"].to_pylist(), embeddings(300, 16, seed=8))]
    left_df = spark.createDataFrame(rows, schema="qid long, q array<float>")
    joined = tessera_spark.knn_join(
        spark, left_df, "q", ds.uri, "vector", k=5, nprobes=3, target_rows_per_task=100
    )
    got = joined.toArrow()
    got = got.sort_by([("qid", "ascending"), ("_rank", "ascending")])
    assert got.column_names == cli.column_names
    assert got.num_rows == 300 * 5
    for name in ["qid", "id", "category", "_distance", "_rank"]:
        assert got[name].to_pylist() == cli[name].to_pylist(), name
    assert got["_rowaddr"].to_pylist() == [int(a) for a in cli["_rowaddr"].to_pylist()]
    python = ds.knn_join(left, "q", 5, nprobes=3)
    assert python["_rowaddr"].to_pylist() == cli["_rowaddr"].to_pylist()
