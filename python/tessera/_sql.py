"""SQL over a catalog directory (docs/sql.md), with results as pyarrow tables."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional, Union

import pyarrow as pa

from . import _arrow, _native

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class SqlStatus:
    """What a statement without a result set reports (CREATE, INSERT, DELETE, USE ...)."""

    affected_rows: int
    #: The version a mutation committed (or found, for a no-op); None for other statements.
    version: Optional[int]
    info: str


class Session:
    """A SQL session over the catalog directory ``catalog``: it keeps USE's database.

    Statements run one at a time (calls from several threads take turns); each pins the
    versions it reads for its duration, as in ``tessera sql``.
    """

    def __init__(self, catalog: PathLike) -> None:
        self._session = _native.SqlSession(os.fspath(catalog))

    @property
    def current_database(self) -> str:
        return self._session.current_database

    def sql(self, statement: str) -> Union[pa.Table, SqlStatus]:
        """Runs ``statement`` (or several, separated by ``;``; they stop at the first error).

        Returns the last statement's result set as a ``pyarrow.Table``, or a
        :class:`SqlStatus` for a statement without one. Errors are raised as the tessera
        exception of their kind, with the engine's message.
        """
        rows, affected, version, info = self._session.execute(statement)
        if rows is not None:
            return _arrow.table_from_native(rows)
        return SqlStatus(affected, version, info)


def sql(catalog: PathLike, statement: str) -> Union[pa.Table, SqlStatus]:
    """Runs ``statement`` in a new :class:`Session` over ``catalog``."""
    return Session(catalog).sql(statement)
