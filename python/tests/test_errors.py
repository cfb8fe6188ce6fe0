"""Engine errors as Python exceptions: one class per kind, the engine's messages."""

from __future__ import annotations

import pytest

import tessera
from tessera import errors


def test_every_kind_has_a_class_deriving_from_tessera_error():
    kinds = {getattr(errors, name).kind for name in errors.__all__ if name != "TesseraError"}
    assert kinds == {
        "InvalidArgument", "NotFound", "AlreadyExists", "DefinitionMismatch", "Ambiguous",
        "CommitConflict", "Corrupt", "Unsupported", "Stale", "Busy", "ResourceExhausted",
        "Cancelled", "Indeterminate", "IOError", "PermissionDenied", "Unavailable", "Internal",
    }
    for name in errors.__all__:
        assert issubclass(getattr(errors, name), tessera.TesseraError)
    assert issubclass(tessera.InvalidArgumentError, ValueError)
    assert issubclass(tessera.NotFoundError, LookupError)
    assert issubclass(tessera.StorageError, OSError)
    assert issubclass(tessera.PermissionDeniedError, PermissionError)
    assert issubclass(tessera.UnavailableError, tessera.StorageError)


def test_not_found_names_the_path(tmp_path):
    with pytest.raises(tessera.NotFoundError, match=str(tmp_path / "missing")):
        tessera.open(tmp_path / "missing")


def test_a_missing_version_is_not_found(dataset):
    with pytest.raises(tessera.NotFoundError, match="version 9"):
        tessera.open(dataset.uri, version=9)


def test_already_exists(dataset, table):
    with pytest.raises(tessera.AlreadyExistsError):
        tessera.create(dataset.uri, table)


def test_filter_errors_are_invalid_argument_with_the_engines_message(dataset):
    with pytest.raises(tessera.InvalidArgumentError, match="no_such_column"):
        dataset.to_table(where="no_such_column = 1")
    with pytest.raises(ValueError):
        dataset.count_rows("id >")


def test_unknown_columns_and_schema_mismatch(dataset):
    with pytest.raises(tessera.InvalidArgumentError, match="nope"):
        dataset.to_table(columns=["nope"])
    with pytest.raises(tessera.InvalidArgumentError):
        dataset.append({"other": [1, 2]})


def test_corrupt_manifest_is_corrupt(dataset):
    import pathlib

    manifests = sorted(pathlib.Path(dataset.uri).rglob("*.manifest"))
    assert manifests
    manifests[-1].write_bytes(b"\x00garbage")
    with pytest.raises(tessera.CorruptError):
        tessera.open(dataset.uri)


def test_take_of_an_unknown_address_is_not_found(dataset):
    with pytest.raises(tessera.NotFoundError):
        dataset.take([(999 << 32) | 1])


def test_a_consumed_stream_is_refused(dataset, table):
    capsule = table.__arrow_c_stream__()
    tessera._native._echo_stream(capsule)
    with pytest.raises(tessera.InvalidArgumentError, match="already consumed"):
        tessera._native._echo_stream(capsule)
    with pytest.raises(tessera.InvalidArgumentError, match="Arrow C stream"):
        tessera._native._echo_stream(object())


def test_a_damaged_data_file_read_lazily_is_corrupt(dataset):
    import pathlib

    data_files = sorted(pathlib.Path(dataset.uri).rglob("*.arrow"))
    assert data_files
    damaged = bytearray(data_files[0].read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    data_files[0].write_bytes(bytes(damaged))
    fresh = tessera.open(dataset.uri)
    with pytest.raises(tessera.CorruptError, match="checksum"):
        fresh.to_table()
    with pytest.raises(tessera.CorruptError):
        for _ in fresh.to_batches():
            pass


def test_arguments_of_the_wrong_type_or_range(dataset):
    import numpy as np

    query = np.zeros(16, dtype=np.float32)
    with pytest.raises(TypeError, match="k must be an integer"):
        dataset.search(query, k=3.0)
    with pytest.raises(TypeError, match="slop"):
        dataset.text_search("x", column="category", slop="2")
    with pytest.raises(tessera.InvalidArgumentError, match="limit"):
        dataset.to_table(limit=-1)
    with pytest.raises(tessera.InvalidArgumentError, match="negative"):
        dataset.take([-1])
    with pytest.raises(tessera.InvalidArgumentError, match="integer row addresses"):
        dataset.take([1.5])
    with pytest.raises(tessera.InvalidArgumentError, match="older_than"):
        dataset.cleanup(older_than=-1)
    with pytest.raises(tessera.InvalidArgumentError, match="max_rows_per_file"):
        dataset.append({"id": [1]}, max_rows_per_file=0)
    assert dataset.search(query, k=2**70, nprobes=2**40).num_rows == 1000  # capped
    assert dataset.take(iter([0, 0]), columns=["id"]).num_rows == 2
    assert dataset.cleanup(older_than=3600, dry_run=True)["removed_versions"] == []
