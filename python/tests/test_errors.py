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
        "Cancelled", "Indeterminate", "IOError", "Internal",
    }
    for name in errors.__all__:
        assert issubclass(getattr(errors, name), tessera.TesseraError)
    assert issubclass(tessera.InvalidArgumentError, ValueError)
    assert issubclass(tessera.NotFoundError, LookupError)
    assert issubclass(tessera.StorageError, OSError)


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
