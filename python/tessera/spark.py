"""tessera on Spark: distributed index builds with one commit, and distributed k-NN joins.

Both follow the segment contract's distributed shape: the driver pins one version of the
dataset, every task opens that same version, and only the driver commits.

- :func:`build_index` trains the model once on the driver, builds one uncommitted segment per
  balanced group of fragments in executor tasks (the model travels as a broadcast of bytes,
  the segments come back as JSON), optionally merges them, and commits them in one commit.
  A failed task is retried by Spark on its own; segments of failed attempts are never
  committed and are removed by ``Dataset.cleanup``.
- :func:`knn_join` runs as one stage with no shuffle: each task opens the dataset once and
  joins its left rows in batches (one batch search and one read of the rows found per batch).

Executors must be able to import ``tessera`` and to read the dataset's path.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping, Optional, Sequence

import pyarrow as pa

from ._distributed import BuildPlan, JoinPlan, balanced_groups
from .dataset import Dataset, Model

__all__ = ["balanced_groups", "build_index", "knn_join"]


def build_index(
    spark: Any,
    path: str,
    column: str,
    type: str,  # noqa: A002 - as Dataset.create_index names it
    name: Optional[str] = None,
    params: Optional[Mapping[str, Any]] = None,
    *,
    num_workers: Optional[int] = None,
    merge: bool = False,
    replace: bool = False,
    version: Optional[int] = None,
    model: Optional[Model] = None,
) -> Dataset:
    """Builds index ``name`` (default ``<column>_idx``) of ``type`` on Spark; commits once.

    Raises before any task runs for an existing index without ``replace``, or with another
    type or column (:class:`~tessera.DefinitionMismatchError`: drop it first).

    ``num_workers``: fragment groups, one task each (default: the context's default
    parallelism). ``merge``: merge the built segments into one before committing.
    ``replace``: the index's existing segments leave in the same commit (otherwise an
    existing index is :class:`~tessera.AlreadyExistsError`). ``version``: the version to
    index (default: the latest); a commit that lands meanwhile is handled by the conflict
    rules (appended rows stay unindexed until ``optimize``; a conflicting change raises
    :class:`~tessera.CommitConflictError`). ``model``: a model trained before (by
    ``Dataset.train_model`` on this column and type) instead of training one on the driver;
    ``params`` are then the model's. Returns the dataset at the committed version.
    """
    context = spark.sparkContext
    workers = num_workers if num_workers is not None else context.defaultParallelism
    plan = BuildPlan.make(path, column, type, name, params, workers, replace, version, model)
    # The model travels once per executor as a broadcast, not inside every task's closure.
    shared_model = context.broadcast(plan.model) if plan.model is not None else None
    task_plan = dataclasses.replace(plan, model=None, dataset=None)

    def build(partition: Any) -> Any:
        for fragment_ids in partition:
            yield task_plan.build(fragment_ids, shared_model.value if shared_model else None)

    context.setJobDescription(
        f"tessera: build index '{plan.index_name}' on {plan.uri}@{plan.version}"
    )
    try:
        groups = plan.groups
        segments = context.parallelize(groups, len(groups)).mapPartitions(build).collect()
    finally:
        if shared_model is not None:
            shared_model.unpersist()
    return plan.commit(segments, merge)


def _spark_compatible(schema: pa.Schema) -> pa.Schema:
    """Arrow types Spark lacks mapped to ones it has: unsigned to signed, fixed-size lists to
    lists. Row addresses fit int64 (fragment ids are below 2^31)."""

    def compatible(data_type: pa.DataType) -> pa.DataType:
        if pa.types.is_uint64(data_type) or pa.types.is_uint32(data_type):
            return pa.int64()
        if pa.types.is_uint16(data_type):
            return pa.int32()
        if pa.types.is_uint8(data_type):
            return pa.int16()
        if (
            pa.types.is_fixed_size_list(data_type)
            or pa.types.is_list(data_type)
            or pa.types.is_large_list(data_type)
        ):
            return pa.list_(compatible(data_type.value_type))
        if pa.types.is_struct(data_type):
            return pa.struct([f.with_type(compatible(f.type)) for f in data_type])
        if pa.types.is_float16(data_type):
            return pa.float32()
        return data_type

    return pa.schema([pa.field(f.name, compatible(f.type), f.nullable) for f in schema])


def knn_join(
    spark: Any,
    left_df: Any,
    query_column: str,
    dataset_path: str,
    vector_column: str,
    k: int = 10,
    *,
    version: Optional[int] = None,
    left_columns: Optional[Sequence[str]] = None,
    columns: Optional[Sequence[str]] = None,
    nprobes: int = 20,
    refine_factor: int = 1,
    metric: Optional[str] = None,
    where: Optional[str] = None,
    use_index: bool = True,
    batch_rows: int = 1024,
    target_rows_per_task: int = 1024,
) -> Any:
    """For every row of ``left_df``, its ``k`` nearest rows of the dataset, as a DataFrame.

    Columns and semantics are those of :meth:`Dataset.knn_join` (left columns, right
    columns, ``_distance``, ``_rank``, ``_rowaddr``), with Spark's types (unsigned integers
    become signed, vectors arrays). The join is one stage with no shuffle of the right side:
    each task opens the pinned version once and joins its rows ``batch_rows`` at a time.
    Tasks: ceil(left rows / ``target_rows_per_task``), capped at the smaller of the default
    parallelism and ``spark.sql.shuffle.partitions``; when the left side has fewer partitions
    it is repartitioned up first (one shuffle of the left rows), never down. Counting the
    left rows is a job of its own: cache ``left_df`` when it is expensive to compute.
    """
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

    plan, dataset = JoinPlan.make(
        dataset_path, version, query_column, k,
        column=vector_column,
        left_columns=left_columns,
        columns=columns,
        nprobes=nprobes,
        refine_factor=refine_factor,
        metric=metric,
        where=where,
        use_index=use_index,
        batch_rows=batch_rows,
    )
    output_schema = _spark_compatible(
        plan.output_schema(dataset, to_arrow_schema(left_df.schema))
    )

    left_rows = left_df.count()
    context = spark.sparkContext
    cap = context.defaultParallelism
    shuffle_partitions = spark.conf.get("spark.sql.shuffle.partitions")
    if shuffle_partitions.isdigit():  # may be "auto" where adaptive execution chooses
        cap = min(cap, int(shuffle_partitions))
    tasks = max(1, min(cap, math.ceil(left_rows / max(1, target_rows_per_task))))
    if tasks > left_df.rdd.getNumPartitions():
        left_df = left_df.repartition(tasks)

    return left_df.mapInArrow(
        lambda batches: plan.join(batches, output_schema), from_arrow_schema(output_schema)
    )
