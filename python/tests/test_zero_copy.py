"""Arrow data crosses the boundary without copies, both ways."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

import tessera
from tessera import _arrow


def buffer_addresses(table: pa.Table) -> list[int]:
    return [
        buffer.address
        for column in table.columns
        for chunk in column.chunks
        for buffer in chunk.buffers()
        if buffer is not None
    ]


def test_a_table_round_trip_keeps_every_buffer(table):
    back = _arrow.table_from_native(tessera._native._echo_stream(table.__arrow_c_stream__()))
    assert back.equals(table)
    assert buffer_addresses(back) == buffer_addresses(table)


def test_numpy_vectors_become_a_column_without_a_copy():
    array = np.arange(12, dtype=np.float32).reshape(4, 3)
    column = tessera.vectors(array)
    assert column.values.buffers()[1].address == array.ctypes.data
    half = np.ones((2, 5), dtype=np.float16)
    assert tessera.vectors(half).values.buffers()[1].address == half.ctypes.data
