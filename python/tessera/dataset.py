"""Datasets: create, open, read, write, search, and the index lifecycle."""

from __future__ import annotations

import datetime as _datetime
import json
import operator
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

import numpy as np
import pyarrow as pa

from . import _arrow, _native, _operations
from ._operations import Progress
from .errors import InvalidArgumentError

PathLike = Union[str, "os.PathLike[str]"]
#: A text column, several (for multi_match), or a dict of column to boost.
TextColumns = Union[None, str, Sequence[str], Mapping[str, float]]


@dataclass(frozen=True)
class Version:
    """One committed version, as :meth:`Dataset.versions` lists them."""

    version: int
    created: Optional[_datetime.datetime]
    operation: str
    num_rows: int
    num_fragments: int
    #: Why the manifest cannot be read; empty when it can (then only ``version`` is meaningful).
    unreadable: str = ""


@dataclass(frozen=True)
class Model:
    """A trained model of a vector index (centroids, codebooks), as bytes that travel.

    Train it once (:meth:`Dataset.train_model`), then build segments with it in any process
    (:meth:`Dataset.build_segment`); pickles as its fields.
    """

    column: str
    type: str
    params: Mapping[str, str]
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class Segment:
    """An index segment that was built but not committed (or merged), as the engine's JSON.

    Segments built by separate workers are committed together in one commit
    (:meth:`Dataset.commit_segments`); pickles as its fields.
    """

    column: str
    type: str
    json: str = field(repr=False)

    @property
    def uuid(self) -> str:
        return json.loads(self.json)["uuid"]

    @property
    def num_rows(self) -> int:
        return int(json.loads(self.json).get("num_rows", 0))


def _params(params: Mapping[str, Any]) -> dict[str, str]:
    def text(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    return {str(key).lower(): text(value) for key, value in params.items()}


_INT32_MAX = 2**31 - 1
_INT64_MAX = 2**63 - 1


def _count(name: str, value: Any, minimum: Optional[int] = None, maximum: int = _INT64_MAX) -> int:
    """``value`` as an int: TypeError for what is not an integer (3.0, "3"), InvalidArgumentError
    below ``minimum``; values above ``maximum`` are capped (the engine caps k, nprobes and
    refine_factor by what the data holds anyway)."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got a bool")
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}") from None
    if minimum is not None and number < minimum:
        raise InvalidArgumentError(f"{name} must be at least {minimum}, got {number}")
    return min(number, maximum)


def _rows_per_file(value: Optional[int]) -> Optional[int]:
    return None if value is None else _count("max_rows_per_file", value, minimum=1)


def _row_addresses(rows: Any) -> list[int]:
    if isinstance(rows, (pa.Array, pa.ChunkedArray)):
        array = rows.to_numpy(zero_copy_only=False)
    elif isinstance(rows, (list, tuple, np.ndarray)):
        array = np.asarray(rows)
    else:
        array = np.asarray(list(rows))
    if array.size == 0:
        return []
    if array.ndim != 1 or not np.issubdtype(array.dtype, np.integer):
        raise InvalidArgumentError(
            "rows must be a 1-D sequence of integer row addresses (the _rowaddr column), got "
            f"an array of {array.dtype} with shape {array.shape}"
        )
    if np.issubdtype(array.dtype, np.signedinteger) and int(array.min()) < 0:
        raise InvalidArgumentError(f"row addresses cannot be negative, got {int(array.min())}")
    return [int(row) for row in array.astype(np.uint64)]


def _columns(columns: Optional[Sequence[str]]) -> list[str]:
    if columns is None:
        return []
    if isinstance(columns, str):
        raise TypeError("columns must be a list of column names, not a string")
    return list(columns)


def create(
    uri: PathLike,
    data: Any,
    *,
    progress: Progress = None,
    max_rows_per_file: Optional[int] = None,
) -> "Dataset":
    """Creates a dataset at ``uri`` (version 1) from ``data``.

    ``data``: a ``pyarrow.Table``, ``RecordBatch`` or ``RecordBatchReader``, anything with
    ``__arrow_c_stream__``, a pandas ``DataFrame``, or a dict of columns in which a 2-D
    float32/float16 NumPy array is a vector column (see :func:`tessera.vectors`). Read without
    copying. Raises :class:`~tessera.AlreadyExistsError` if a dataset is there already.
    """
    capsule = _arrow.stream_capsule(data)
    path = os.fspath(uri)
    max_rows_per_file = _rows_per_file(max_rows_per_file)
    handle = _operations.run(
        lambda control: _native.create(path, capsule, control, max_rows_per_file), progress
    )
    return Dataset(handle)


def open(uri: PathLike, version: Optional[int] = None) -> "Dataset":  # noqa: A001
    """Opens the latest version of the dataset at ``uri``, or ``version``."""
    return Dataset(_native.open(os.fspath(uri), version))


class Dataset:
    """A handle on a dataset, reading one committed version.

    Reads (``to_table``, ``search``, ``count`` ...) see the handle's version, however many
    commits land meanwhile. Writes (``append``, ``delete``, ``create_index`` ...) commit a new
    version and move the handle to it; a write from a handle on an older version is rebased
    onto the newer ones when the conflict rules allow it, and raises
    :class:`~tessera.CommitConflictError` otherwise. ``checkout`` gives another handle on
    another version. A handle may be used from many threads at once; native work runs with
    the GIL released.
    """

    def __init__(self, handle: Any) -> None:
        self._handle = handle
        self._uri = handle.uri

    def __repr__(self) -> str:
        if self._handle is None:
            return f"tessera.Dataset({self._uri!r}, closed)"
        return f"tessera.Dataset({self.uri!r}, version={self.version})"

    def close(self) -> None:
        """Releases what the handle holds (opened index segments, deletion vectors); any
        later call raises InvalidArgumentError. Also done by ``with tessera.open(...) as ds``.
        Other handles on the dataset are unaffected."""
        self._handle = None

    def __enter__(self) -> "Dataset":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def _live(self) -> Any:
        handle = self._handle
        if handle is None:
            raise InvalidArgumentError(
                f"dataset {self._uri} was closed: open it again with tessera.open()"
            )
        return handle

    # --- the version -------------------------------------------------------------------
    @property
    def uri(self) -> str:
        return self._live().uri

    @property
    def version(self) -> int:
        return self._live().version

    @property
    def schema(self) -> pa.Schema:
        return pa.schema(_SchemaCapsule(self._live().schema()))

    def __len__(self) -> int:
        return self._live().count_rows()

    def count_rows(self, where: Optional[str] = None) -> int:
        """Live rows, or those matching the filter ``where`` (docs/filters.md)."""
        if not where:
            return self._live().count_rows()
        return self._live().count(where)

    count = count_rows

    def versions(self) -> list[Version]:
        """Every version of the dataset, oldest first."""
        versions = []
        for number, created, operation, rows, fragments, unreadable in self._live().versions():
            when = (
                None
                if unreadable
                else _datetime.datetime.fromtimestamp(created, tz=_datetime.timezone.utc)
            )
            versions.append(Version(number, when, operation, rows, fragments, unreadable))
        return versions

    def checkout(self, version: Optional[int] = None) -> "Dataset":
        """Another handle on ``version`` (the latest when None); this one is unchanged."""
        return open(self.uri, version)

    def fragments(self) -> list[tuple[int, int]]:
        """(fragment id, physical rows) of every fragment of the version."""
        return list(self._live().fragments())

    # --- reads -------------------------------------------------------------------------
    def to_batches(
        self,
        columns: Optional[Sequence[str]] = None,
        where: Optional[str] = None,
        limit: Optional[int] = None,
        with_row_address: bool = False,
    ) -> pa.RecordBatchReader:
        """Streams the rows matching ``where`` (all rows when None), in bounded memory.

        Scalar indexes answer the filter where they can. ``_rowaddr`` (uint64) is added with
        ``with_row_address``: the address :meth:`take` reads by.
        """
        if limit is not None:
            limit = _count("limit", limit, minimum=0)
        capsule, errors = self._live().scan(_columns(columns), where or "", limit, with_row_address)
        return _arrow.lazy_reader_from_native(capsule, errors)

    def to_table(
        self,
        columns: Optional[Sequence[str]] = None,
        where: Optional[str] = None,
        limit: Optional[int] = None,
        with_row_address: bool = False,
    ) -> pa.Table:
        """The rows matching ``where`` (all rows when None) as one table."""
        return self.to_batches(columns, where, limit, with_row_address).read_all()

    def take(self, rows: Iterable[int], columns: Optional[Sequence[str]] = None) -> pa.Table:
        """Rows by address (``_rowaddr``), in the order given, duplicates allowed.

        ``rows``: integers (a list, a NumPy or pyarrow array, any iterable); NotFoundError for
        an address that is not a live row of this version."""
        return _arrow.table_from_native(
            self._live().take(_row_addresses(rows), _columns(columns))
        )

    def search(
        self,
        query: Any,
        k: int = 10,
        *,
        column: Optional[str] = None,
        nprobes: int = 20,
        refine_factor: int = 1,
        ef: int = 0,
        where: Optional[str] = None,
        prefilter: bool = False,
        metric: Optional[str] = None,
        columns: Optional[Sequence[str]] = None,
        distance_range: tuple[Optional[float], Optional[float]] = (None, None),
        offset: int = 0,
        with_row_address: bool = False,
        use_index: bool = True,
    ) -> pa.Table:
        """The ``k`` nearest rows to ``query`` in the vector column ``column``.

        ``query``: one vector (a list or 1-D array) or a batch (a 2-D array, one query per
        row; the result then starts with an int64 column ``query`` numbering them). The
        result holds ``columns`` (all when None), then ``_distance`` (smaller is closer), then
        ``_rowaddr`` with ``with_row_address``; rows in distance order. ``column`` may be
        omitted when the dataset has one vector column. ``where`` filters after the search
        (fewer than k rows may remain) or, with ``prefilter=True``, before it. Vector indexes
        on the column whose metric is the query's are used (``use_index=False``: exact scan);
        ``nprobes`` partitions are probed per segment and quantized indexes re-rank
        ``k * refine_factor`` candidates exactly. ``ef``: the candidates an IVF_HNSW_* index's
        graph search keeps per probed partition (0: 64; at least ``k * refine_factor``).
        """
        matrix, batch = _arrow.query_matrix(query)
        lower, upper = distance_range
        capsule = _native.search(
            self._live(),
            matrix,
            batch,
            column if column is not None else self._vector_column(),
            _count("k", k),
            _count("nprobes", nprobes, maximum=_INT32_MAX),
            _count("refine_factor", refine_factor, maximum=_INT32_MAX),
            _count("ef", ef, maximum=_INT32_MAX),
            metric,
            where or "",
            prefilter,
            None if lower is None else float(lower),
            None if upper is None else float(upper),
            _count("offset", offset),
            _columns(columns),
            with_row_address,
            use_index,
        )
        return _arrow.table_from_native(capsule)

    def knn_join(
        self,
        left: Any,
        query_column: str,
        k: int = 10,
        *,
        column: Optional[str] = None,
        left_columns: Optional[Sequence[str]] = None,
        columns: Optional[Sequence[str]] = None,
        nprobes: int = 20,
        refine_factor: int = 1,
        ef: int = 0,
        metric: Optional[str] = None,
        where: Optional[str] = None,
        use_index: bool = True,
        batch_rows: int = 1024,
    ) -> pa.Table:
        """For every row of ``left``, its ``k`` nearest rows of this dataset.

        ``left``: what :func:`tessera.create` accepts, with the query vectors in
        ``query_column`` (a fixed-size or variable list of floats). The result holds the left
        columns (``left_columns``; all but the query column when None), the right columns
        (``columns``; all but the vector column when None; a name the left side has too gets
        the prefix ``right_``), ``_distance``, ``_rank`` (1 for the nearest) and ``_rowaddr``;
        each left row's results in rank order, left rows in input order. ``where`` filters
        the right rows before the search. Left rows are searched ``batch_rows`` at a time:
        one batch search and one read of the rows found per batch (docs/external.md). ``ef``: as
        for :meth:`search`.
        """
        capsule = _native.knn_join(
            self._live(),
            _arrow.stream_capsule(left),
            query_column,
            _columns(left_columns),
            column if column is not None else self._vector_column(),
            _columns(columns),
            _count("k", k),
            _count("nprobes", nprobes, maximum=_INT32_MAX),
            _count("refine_factor", refine_factor, maximum=_INT32_MAX),
            _count("ef", ef, maximum=_INT32_MAX),
            metric,
            where or "",
            use_index,
            _count("batch_rows", batch_rows, minimum=1),
        )
        return _arrow.table_from_native(capsule)

    def text_search(
        self,
        text: str,
        k: int = 10,
        *,
        column: TextColumns = None,
        query_type: str = "match",
        operator: str = "or",
        minimum_should_match: int = 1,
        slop: int = 0,
        fuzziness: int = 1,
        max_expansions: int = 50,
        k1: float = 1.2,
        b: float = 0.75,
        where: Optional[str] = None,
        prefilter: bool = False,
        highlight: bool = False,
        highlight_length: int = 160,
        columns: Optional[Sequence[str]] = None,
        with_row_address: bool = False,
    ) -> pa.Table:
        """The ``k`` best BM25 matches of ``text`` through the INVERTED index on ``column``.

        ``column``: one text column, or several for ``query_type="multi_match"`` (a list, or
        a dict of column to boost). ``query_type``: match, phrase, boolean, multi_match,
        prefix or fuzzy (docs/indexes.md). The result holds ``columns``, ``_score`` (higher
        is better), ``_highlight`` with ``highlight`` and ``_rowaddr`` with
        ``with_row_address``; rows by score, best first.
        """
        options = {
            "columns": self._text_columns(column),
            "text": text,
            "query_type": query_type,
            "operator": operator,
            "minimum_should_match": _count("minimum_should_match", minimum_should_match, maximum=_INT32_MAX),
            "slop": _count("slop", slop, maximum=_INT32_MAX),
            "fuzziness": _count("fuzziness", fuzziness, maximum=_INT32_MAX),
            "max_expansions": _count("max_expansions", max_expansions, maximum=_INT32_MAX),
            "k1": float(k1),
            "b": float(b),
            "k": _count("k", k),
            "filter": where or "",
            "prefilter": prefilter,
            "highlight": highlight,
            "highlight_length": _count("highlight_length", highlight_length, maximum=_INT32_MAX),
            "projection": _columns(columns),
            "with_row_address": with_row_address,
        }
        return _arrow.table_from_native(_native.text_search(self._live(), options))

    def hybrid_search(
        self,
        text: str,
        vector: Any,
        k: int = 10,
        *,
        text_column: TextColumns = None,
        vector_column: Optional[str] = None,
        fusion: str = "rrf",
        rrf_k: float = 60.0,
        text_weight: float = 0.5,
        candidate_factor: int = 4,
        nprobes: int = 20,
        refine_factor: int = 1,
        metric: Optional[str] = None,
        query_type: str = "match",
        where: Optional[str] = None,
        prefilter: bool = False,
        columns: Optional[Sequence[str]] = None,
        with_row_address: bool = False,
    ) -> pa.Table:
        """A text query and a nearest-neighbour query fused into one ranking.

        ``fusion``: "rrf" (reciprocal rank fusion with constant ``rrf_k``) or "weighted"
        (``text_weight`` times the normalized text score plus the rest times the normalized
        vector score). Each side contributes its best ``k * candidate_factor`` rows. The
        result holds ``columns``, ``_score`` (the fused score, higher is better) and
        ``_rowaddr`` with ``with_row_address``.
        """
        matrix, batch = _arrow.query_matrix(vector)
        if batch:
            raise InvalidArgumentError("hybrid_search takes one query vector, not a batch")
        options = {
            "columns": self._text_columns(text_column),
            "text": text,
            "query_type": query_type,
            "vector_column": vector_column if vector_column is not None else self._vector_column(),
            "nprobes": _count("nprobes", nprobes, maximum=_INT32_MAX),
            "refine_factor": _count("refine_factor", refine_factor, maximum=_INT32_MAX),
            "metric": metric or "",
            "fusion": fusion,
            "rrf_k": float(rrf_k),
            "text_weight": float(text_weight),
            "candidate_factor": _count("candidate_factor", candidate_factor, maximum=_INT32_MAX),
            "k": _count("k", k),
            "filter": where or "",
            "prefilter": prefilter,
            "projection": _columns(columns),
            "with_row_address": with_row_address,
        }
        return _arrow.table_from_native(_native.hybrid_search(self._live(), matrix[0], options))

    def _text_columns(self, column: TextColumns) -> list[tuple[str, float]]:
        if column is None:
            names = [
                f.name
                for f in self.schema
                if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
            ]
            indexed = {e["column"] for e in self.list_indexes() if e["type"] == "INVERTED"}
            names = [name for name in names if name in indexed]
            if len(names) != 1:
                raise InvalidArgumentError(
                    f"dataset {self.uri} has {len(names)} text columns with an INVERTED index: "
                    "name the one to search with column="
                )
            return [(names[0], 1.0)]
        if isinstance(column, str):
            return [(column, 1.0)]
        if isinstance(column, Mapping):
            return [(str(name), float(boost)) for name, boost in column.items()]
        return [(str(name), 1.0) for name in column]

    def _vector_column(self) -> str:
        names = [
            f.name
            for f in self.schema
            if pa.types.is_fixed_size_list(f.type)
            and (pa.types.is_float32(f.type.value_type) or pa.types.is_float16(f.type.value_type))
        ]
        if len(names) != 1:
            raise InvalidArgumentError(
                f"dataset {self.uri} has {len(names)} vector columns"
                + (f" ({', '.join(names)})" if names else "")
                + ": name the one to search with column="
            )
        return names[0]

    # --- writes ------------------------------------------------------------------------
    def append(
        self, data: Any, *, progress: Progress = None, max_rows_per_file: Optional[int] = None
    ) -> None:
        """Appends ``data`` (what :func:`tessera.create` accepts) as a new version."""
        capsule = _arrow.stream_capsule(data)
        rows_per_file = _rows_per_file(max_rows_per_file)
        self._handle = _operations.run(
            lambda control: self._live().append(capsule, control, rows_per_file), progress
        )

    def overwrite(
        self, data: Any, *, progress: Progress = None, max_rows_per_file: Optional[int] = None
    ) -> None:
        """Replaces every row (and possibly the schema) with ``data`` in a new version."""
        capsule = _arrow.stream_capsule(data)
        rows_per_file = _rows_per_file(max_rows_per_file)
        self._handle = _operations.run(
            lambda control: self._live().overwrite(capsule, control, rows_per_file), progress
        )

    def delete(self, where: str) -> None:
        """Deletes the rows matching ``where`` ("true" deletes all); nothing when none match."""
        self._handle = self._live().delete(where)

    def cleanup(
        self,
        older_than: Union[_datetime.timedelta, float] = _datetime.timedelta(days=7),
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Removes versions older than ``older_than`` (a timedelta or seconds; never the latest)
        and the files only they referenced (docs/datasets.md, "Cleanup")."""
        seconds = (
            older_than.total_seconds()
            if isinstance(older_than, _datetime.timedelta)
            else float(older_than)
        )
        if seconds < 0:
            raise InvalidArgumentError(f"older_than cannot be negative, got {older_than}")
        versions, files, size = self._live().cleanup(seconds, dry_run)
        return {"removed_versions": versions, "removed_files": files, "bytes_removed": size}

    # --- indexes -----------------------------------------------------------------------
    def create_index(
        self,
        column: str,
        type: str,  # noqa: A002 - the name users know from SQL's USING / the CLI's --type
        name: Optional[str] = None,
        *,
        replace: bool = False,
        if_not_exists: bool = False,
        progress: Progress = None,
        **params: Any,
    ) -> None:
        """Builds an index of ``type`` (IVF_PQ, BTREE, INVERTED, ...) on ``column`` and commits it.

        ``name`` defaults to ``<column>_idx``. ``params`` are the family's parameters
        (``num_partitions=256, metric="cosine"`` ...; docs/indexes.md). ``replace`` rebuilds
        an existing index; ``if_not_exists`` makes an index of the same definition a no-op.
        """
        index_name = name if name is not None else f"{column}_idx"
        flat = _params(params)
        self._handle = _operations.run(
            lambda control: _native.create_index(
                self._live(), index_name, column, type, flat, replace, if_not_exists, control
            ),
            progress,
        )

    def drop_index(self, name: str, *, if_exists: bool = False) -> None:
        self._handle = _native.drop_index(self._live(), name, if_exists)

    def list_indexes(self, include_system: bool = False) -> list[dict[str, Any]]:
        """One dict per logical index: name, column, type, params, segments and coverage."""
        return _arrow.table_from_native(
            _native.list_indexes(self._live(), include_system)
        ).to_pylist()

    def index_entries(self, name: Optional[str] = None) -> list[dict[str, Any]]:
        """One dict per physical segment (of index ``name``, or of all indexes)."""
        return _arrow.table_from_native(_native.index_entries(self._live(), name)).to_pylist()

    def optimize(
        self,
        name: Optional[str] = None,
        *,
        merge: Union[str, int] = "auto",
        retrain: bool = False,
        progress: Progress = None,
    ) -> dict[str, int]:
        """Indexes rows added since the index was built and merges segments per ``merge``.

        ``merge``: "auto", "none", or the most segments to keep. ``retrain``: vector indexes
        train a new model and rebuild every segment.
        """
        handle, built, merged, removed = _operations.run(
            lambda control: _native.optimize(self._live(), name, str(merge), retrain, control),
            progress,
        )
        self._handle = handle
        return {"segments_built": built, "segments_merged": merged, "segments_removed": removed}

    # --- the distributed workflow: train once, build anywhere, commit once ---------------
    def train_model(
        self,
        column: str,
        type: str,  # noqa: A002
        *,
        progress: Progress = None,
        **params: Any,
    ) -> Model:
        """Trains the model of a vector index on this version (a sample of ``column``)."""
        flat = _params(params)
        data = _operations.run(
            lambda control: _native.train_model(self._live(), column, type, flat, control),
            progress,
        )
        return Model(column, type, flat, data)

    def build_segment(
        self,
        name: str,
        *,
        model: Optional[Model] = None,
        column: Optional[str] = None,
        type: Optional[str] = None,  # noqa: A002
        fragments: Optional[Sequence[int]] = None,
        progress: Progress = None,
        **params: Any,
    ) -> Segment:
        """Builds one uncommitted segment of index ``name`` over ``fragments`` (all when None).

        Vector indexes take a trained ``model`` (its column, type and parameters apply);
        other families take ``column``, ``type`` and ``params``. Nothing is visible until
        :meth:`commit_segments`; a segment never committed is removed by :meth:`cleanup`.
        """
        if model is not None:
            column, type, flat, data = model.column, model.type, dict(model.params), model.data
        else:
            if column is None or type is None:
                raise InvalidArgumentError("build_segment: give a model, or column= and type=")
            flat, data = _params(params), None
        ids = [int(fragment) for fragment in fragments] if fragments is not None else []
        text = _operations.run(
            lambda control: _native.build_segment(
                self._live(), name, column, type, flat, ids, data, control
            ),
            progress,
        )
        return Segment(column, type, text)

    def merge_segments(self, segments: Sequence[Segment], *, progress: Progress = None) -> Segment:
        """Rewrites uncommitted or committed segments of one index into one new segment."""
        if not segments:
            raise InvalidArgumentError("merge_segments: no segment given")
        texts = [segment.json for segment in segments]
        text = _operations.run(
            lambda control: _native.merge_segments(self._live(), texts, control), progress
        )
        return Segment(segments[0].column, segments[0].type, text)

    def commit_segments(
        self, name: str, segments: Sequence[Segment], *, replaced: Sequence[str] = ()
    ) -> None:
        """Publishes ``segments`` as (part of) index ``name`` in one commit.

        ``replaced``: uuids of the index's segments that leave in the same commit.
        """
        if not segments:
            raise InvalidArgumentError("commit_segments: no segment given")
        first = segments[0]
        self._handle = _native.commit_segments(
            self._live(),
            name,
            first.column,
            first.type,
            {},
            [segment.json for segment in segments],
            list(replaced),
        )


class _SchemaCapsule:
    __slots__ = ("_capsule",)

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __arrow_c_schema__(self) -> Any:
        return self._capsule
