"""What distributed builds and joins do whatever runs their tasks (tessera.spark, tessera.ray).

The driver makes a BuildPlan (pins the version, checks the index name, trains or takes the
model, splits the fragments into balanced groups); a runner executes ``BuildPlan.build`` once
per group on its workers and hands the segments back to ``BuildPlan.commit``, which merges
them if asked and commits once. A JoinPlan is what each join task needs: the pinned version
and the options, with ``JoinPlan.join`` to run on a task's batches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Optional, Sequence

import pyarrow as pa

from . import _native
from .dataset import Dataset, Model, Segment, open as _open
from .errors import AlreadyExistsError, DefinitionMismatchError, InvalidArgumentError


def balanced_groups(fragments: Sequence[tuple[int, int]], groups: int) -> list[list[int]]:
    """Fragment ids split into at most ``groups`` groups of nearly equal row counts.

    Largest fragments first, each to the group with the fewest rows so far (the LPT rule:
    within 4/3 of the best split); ids ascending within a group; empty groups dropped.
    """
    if groups < 1:
        raise InvalidArgumentError(f"the number of groups must be at least 1, got {groups}")
    sizes = [0] * groups
    members: list[list[int]] = [[] for _ in range(groups)]
    for fragment, rows in sorted(fragments, key=lambda item: (-item[1], item[0])):
        smallest = min(range(groups), key=lambda g: (sizes[g], g))
        sizes[smallest] += rows
        members[smallest].append(fragment)
    return [sorted(group) for group in members if group]


@dataclass
class BuildPlan:
    """One distributed build, planned on the driver. Pickles (it travels to the workers)
    without the driver's dataset handle."""

    uri: str
    version: int
    index_name: str
    column: str
    type: str
    settings: dict[str, Any]
    model: Optional[Model]
    groups: list[list[int]]
    replaced: list[str]
    dataset: Optional[Dataset] = field(default=None, repr=False)

    @classmethod
    def make(
        cls,
        path: str,
        column: str,
        type: str,  # noqa: A002
        name: Optional[str],
        params: Optional[Mapping[str, Any]],
        workers: int,
        replace: bool,
        version: Optional[int],
        model: Optional[Model],
    ) -> "BuildPlan":
        dataset = _open(path, version)
        index_name = name if name is not None else f"{column}_idx"
        existing = [
            entry for entry in dataset.list_indexes() if entry["name"].lower() == index_name.lower()
        ]
        if existing and not replace:
            raise AlreadyExistsError(
                f"index '{index_name}' already exists on dataset {dataset.uri}: pass "
                "replace=True to rebuild it"
            )
        if existing and (
            existing[0]["column"] != column or existing[0]["type"].upper() != type.upper()
        ):
            # Checked before anything is built: segments replace segments of one definition.
            raise DefinitionMismatchError(
                f"index '{index_name}' of dataset {dataset.uri} is {existing[0]['type']} on "
                f"column '{existing[0]['column']}': replace=True rebuilds it with the same type "
                "and column; drop it first to change them"
            )
        replaced = (
            [entry["segment"] for entry in dataset.index_entries(index_name)] if existing else []
        )
        groups = balanced_groups(dataset.fragments(), workers)
        if not groups:
            raise InvalidArgumentError(f"dataset {dataset.uri} has no fragment to index")
        settings = dict(params or {})
        if model is not None:
            if model.column != column or model.type.upper() != type.upper():
                raise InvalidArgumentError(
                    f"the model was trained for {model.type} on column '{model.column}', not "
                    f"for {type} on column '{column}'"
                )
        elif _native.family_has_model(type):
            model = dataset.train_model(column, type, progress=False, **settings)
        return cls(dataset.uri, dataset.version, index_name, column, type, settings, model,
                   groups, replaced, dataset)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["dataset"] = None  # the driver's handle stays on the driver
        return state

    def build(self, fragment_ids: Sequence[int], model: Optional[Model] = None) -> Segment:
        """On a worker: the segment of one group. ``model``: the plan's model as the runner
        shipped it (a Spark broadcast, Ray's object store), when not inside the plan."""
        worker_dataset = _open(self.uri, self.version)
        model = model if model is not None else self.model
        if model is not None:
            return worker_dataset.build_segment(
                self.index_name, model=model, fragments=list(fragment_ids), progress=False
            )
        return worker_dataset.build_segment(
            self.index_name, column=self.column, type=self.type, fragments=list(fragment_ids),
            progress=False, **self.settings,
        )

    def commit(self, segments: Sequence[Segment], merge: bool) -> Dataset:
        """On the driver: merges the segments into one if asked, and commits them once."""
        dataset = self.dataset if self.dataset is not None else _open(self.uri, self.version)
        if merge and len(segments) > 1:
            segments = [dataset.merge_segments(segments, progress=False)]
        dataset.commit_segments(self.index_name, segments, replaced=self.replaced)
        return dataset


def plain_schema(schema: pa.Schema) -> pa.Schema:
    """``schema`` with extension types (Ray's and Arrow's tensor types around the vectors of a
    column) replaced by their storage types, which the join reads."""
    return pa.schema(
        [
            field.with_type(field.type.storage_type)
            if isinstance(field.type, pa.ExtensionType)
            else field
            for field in schema
        ]
    )


def plain_batch(batch: pa.RecordBatch) -> pa.RecordBatch:
    columns = [
        column.storage if isinstance(column.type, pa.ExtensionType) else column
        for column in batch.columns
    ]
    return pa.RecordBatch.from_arrays(columns, schema=plain_schema(batch.schema))


@dataclass
class JoinPlan:
    """What each task of a distributed k-NN join needs; pickles."""

    uri: str
    version: int
    query_column: str
    k: int
    options: dict[str, Any]

    @classmethod
    def make(cls, path: str, version: Optional[int], query_column: str, k: int,
             **options: Any) -> tuple["JoinPlan", Dataset]:
        """``options``: Dataset.knn_join's keyword arguments. Column lists are made lists
        here, once: the plan is pickled to every task and read by each of them."""
        for key in ("left_columns", "columns"):
            if options.get(key) is not None:
                options[key] = list(options[key])
        dataset = _open(path, version)
        return cls(dataset.uri, dataset.version, query_column, k, options), dataset

    def output_schema(self, dataset: Dataset, left_schema: pa.Schema) -> pa.Schema:
        """The join's columns, from a join of no rows on the driver (which also checks every
        argument before any task runs)."""
        empty = dataset.knn_join(plain_schema(left_schema).empty_table(), self.query_column,
                                 self.k, **self.options)
        return empty.schema

    def join(
        self, batches: Iterable[pa.RecordBatch], output_schema: pa.Schema
    ) -> Iterator[pa.RecordBatch]:
        """On a task: opens the pinned version once and joins every batch, cast to
        ``output_schema``."""
        right = _open(self.uri, self.version)
        for batch in batches:
            joined = right.knn_join(plain_batch(batch), self.query_column, self.k, **self.options)
            yield from joined.cast(output_schema).to_batches()
