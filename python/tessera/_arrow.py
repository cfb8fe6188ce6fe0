"""Conversions between Python data and the Arrow C stream the engine reads and writes.

Everything crosses the boundary through the Arrow C stream interface (PyCapsules), so no
buffer is copied either way: the engine reads the producer's buffers in place, and tables it
returns wrap buffers the engine allocated.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401 - pa.compute

from .errors import InvalidArgumentError

_VECTOR_DTYPES = (np.dtype(np.float32), np.dtype(np.float16))


class _Stream:
    """A capsule from the engine, offered through the Arrow PyCapsule protocol."""

    __slots__ = ("_capsule",)

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise InvalidArgumentError("this Arrow stream was already read")
        return capsule


def reader_from_native(capsule: Any) -> pa.RecordBatchReader:
    return pa.RecordBatchReader.from_stream(_Stream(capsule))


def lazy_reader_from_native(capsule: Any, errors: Any) -> pa.RecordBatchReader:
    """A stream the engine reads as it is consumed (a scan). pyarrow reports a failed read
    as its own exception, without the engine's kind; ``errors`` (the stream's StreamErrors)
    then raises the engine's error instead."""
    reader = reader_from_native(capsule)

    def batches() -> Any:
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            except Exception:  # pyarrow raises OSError, ArrowInvalid, ... by the errno
                errors.raise_if_failed()
                raise
            yield batch

    return pa.RecordBatchReader.from_batches(reader.schema, batches())


def table_from_native(capsule: Any) -> pa.Table:
    return reader_from_native(capsule).read_all()


def vectors(array: Any) -> pa.FixedSizeListArray:
    """A 2-D NumPy array of float32 or float16 as a vector column, without copying.

    Row ``i`` of ``array`` becomes the vector of row ``i``; the column's dimension is
    ``array.shape[1]``. A float64 array is refused rather than silently halved in precision:
    cast it with ``array.astype(numpy.float32)``.
    """
    if not isinstance(array, np.ndarray):
        try:
            array = np.asarray(array)
        except ValueError as error:  # ragged nested lists
            raise InvalidArgumentError(f"vectors must all have one dimension: {error}") from None
    if array.ndim != 2:
        raise InvalidArgumentError(
            f"vectors must be a 2-D array (rows x dimension), got {array.ndim} dimension(s) "
            f"of shape {array.shape}"
        )
    if array.dtype not in _VECTOR_DTYPES:
        raise InvalidArgumentError(
            f"vectors must be float32 or float16, got {array.dtype}: cast them with "
            "array.astype(numpy.float32)"
        )
    if array.shape[1] < 1:
        raise InvalidArgumentError("vectors must have at least one dimension")
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)  # the one case that copies
    values = pa.array(array.reshape(-1))
    return pa.FixedSizeListArray.from_arrays(values, array.shape[1])


def _column(value: Any) -> Any:
    if isinstance(value, np.ndarray) and value.ndim == 2:
        return vectors(value)
    return value


def _from_pandas(table: pa.Table) -> pa.Table:
    """A table converted from pandas, in the types other inputs give: pandas strings arrive as
    large_string (a dataset created from pyarrow or a dict has string), and a column of
    float32 / float16 arrays as a variable-size list, a vector column when every row holds one
    as long as the others."""
    narrow = {pa.large_string(): pa.string(), pa.large_binary(): pa.binary()}
    if any(field.type in narrow for field in table.schema):
        table = table.cast(
            pa.schema([field.with_type(narrow.get(field.type, field.type)) for field in table.schema],
                      metadata=table.schema.metadata)
        )
    for index, field in enumerate(table.schema):
        if not (pa.types.is_list(field.type) or pa.types.is_large_list(field.type)):
            continue
        if field.type.value_type not in (pa.float32(), pa.float16()):
            continue
        column = table.column(index).combine_chunks()
        if column.null_count or len(column) == 0:
            continue
        lengths = pa.compute.list_value_length(column)
        low, high = pa.compute.min_max(lengths).values()
        if low.as_py() != high.as_py() or low.as_py() < 1:
            continue
        vectors = pa.FixedSizeListArray.from_arrays(column.flatten(), low.as_py())
        table = table.set_column(index, field.name, vectors)
    return table


def as_reader(data: Any) -> pa.RecordBatchReader:
    """A stream of batches from whatever the caller has.

    Accepted: a ``pyarrow.Table``, ``RecordBatch`` or ``RecordBatchReader``; anything with
    ``__arrow_c_stream__`` (polars, DuckDB results, ...); a pandas ``DataFrame``; a dict of
    columns where a 2-D NumPy array is a vector column.
    """
    if isinstance(data, pa.RecordBatchReader):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.RecordBatchReader.from_batches(data.schema, [data])
    if isinstance(data, dict):
        data = pa.table({name: _column(value) for name, value in data.items()})
    # Before __arrow_c_stream__, which pandas 3 frames have too: their export keeps the index
    # and leaves vectors as variable-size lists.
    if type(data).__module__.startswith("pandas") and type(data).__name__ == "DataFrame":
        table = _from_pandas(pa.Table.from_pandas(data, preserve_index=False))
        return pa.RecordBatchReader.from_stream(table)
    if hasattr(data, "__arrow_c_stream__"):
        return pa.RecordBatchReader.from_stream(data)
    raise TypeError(
        "data must be a pyarrow Table, RecordBatch or RecordBatchReader, an object with "
        f"__arrow_c_stream__, a pandas DataFrame or a dict of columns; got {type(data).__name__}"
    )


def stream_capsule(data: Any) -> Any:
    return as_reader(data).__arrow_c_stream__()


def query_matrix(query: Any) -> tuple[np.ndarray, bool]:
    """Query vectors as a C-contiguous float32 (n, dim) matrix, and whether it is a batch.

    A 1-D array or list is one query; a 2-D array is a batch. Any real dtype is accepted and
    converted to float32 (a query is small; the engine computes in float32).
    """
    try:
        matrix = np.asarray(query)
    except ValueError as error:
        raise InvalidArgumentError(f"query vectors must all have one dimension: {error}") from None
    if matrix.dtype == object or not (
        np.issubdtype(matrix.dtype, np.floating) or np.issubdtype(matrix.dtype, np.integer)
    ):
        raise InvalidArgumentError(
            f"a query vector must hold numbers, got an array of {matrix.dtype}"
        )
    if matrix.ndim == 1:
        batch = False
        matrix = matrix.reshape(1, -1)
    elif matrix.ndim == 2:
        batch = True
    else:
        raise InvalidArgumentError(
            f"a query must be a vector or a 2-D array of vectors, got shape {matrix.shape}"
        )
    return np.ascontiguousarray(matrix, dtype=np.float32), batch
