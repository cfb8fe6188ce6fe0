"""tessera on Ray: the same distributed index builds and k-NN joins as tessera.spark.

The driver-side plan, the per-group build and the per-batch join are tessera._distributed's,
shared with Spark; only the runner differs. A build runs one Ray task per fragment group (the
model is put in the object store once), and a join is ``map_batches`` over a Ray Data
dataset. Ray retries a task whose worker died (``max_retries``); segments of failed attempts
are never committed and are removed by ``Dataset.cleanup``. Workers must be able to import
``tessera`` and read the dataset's path.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Optional, Sequence

from ._distributed import BuildPlan, JoinPlan, balanced_groups
from .dataset import Dataset, Model
from .errors import InvalidArgumentError

__all__ = ["balanced_groups", "build_index", "knn_join"]


def build_index(
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
    max_retries: int = 3,
) -> Dataset:
    """Builds index ``name`` of ``type`` with Ray tasks; commits once.

    Arguments as :func:`tessera.spark.build_index`; ``num_workers`` defaults to the cluster's
    CPUs, ``max_retries`` is how often Ray reruns a task whose worker died (a task that raises
    is not retried; when one fails for good the others are cancelled). Without ``ray.init()``
    before, a local Ray instance is started.
    """
    import ray

    if not ray.is_initialized():
        ray.init()
    if num_workers is None:
        num_workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    plan = BuildPlan.make(path, column, type, name, params, num_workers, replace, version, model)
    model_ref = ray.put(plan.model) if plan.model is not None else None
    task_plan = dataclasses.replace(plan, model=None, dataset=None)

    @ray.remote(max_retries=max_retries)
    def build(fragment_ids: Sequence[int], shipped_model: Optional[Model]) -> Any:
        return task_plan.build(fragment_ids, shipped_model)

    pending = [build.remote(group, model_ref) for group in plan.groups]
    try:
        segments = ray.get(pending)
    except BaseException:
        # As Spark cancels a failed stage: the other tasks' segments would never be committed.
        for ref in pending:
            ray.cancel(ref)
        raise
    return plan.commit(segments, merge)


def _arrow_schema(left: Any) -> Any:
    """The Arrow schema of a Ray dataset (computing it may run the start of its pipeline)."""
    import pyarrow as pa

    schema = left.schema()
    if schema is None:
        raise InvalidArgumentError("the left Ray dataset has no schema (no rows and no columns)")
    if isinstance(schema.base_schema, pa.Schema):
        return schema.base_schema
    return pa.schema(list(zip(schema.names, schema.types)))  # a dataset of pandas blocks


def knn_join(
    left: Any,
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
) -> Any:
    """For every row of the Ray dataset ``left``, its ``k`` nearest rows, as a Ray dataset.

    Columns and semantics are those of :meth:`Dataset.knn_join`; ``left`` is read in batches
    of ``batch_rows`` rows (``map_batches``), each joined by one batch search and one read of
    the rows found; a batch opens the pinned version (a manifest read) before it joins. The
    left dataset's schema is computed on the driver first (Ray may run the start of its
    pipeline for it).
    """
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
    output_schema = plan.output_schema(dataset, _arrow_schema(left))

    def join(batch: Any) -> Any:
        import pyarrow as pa

        return pa.Table.from_batches(list(plan.join(batch.to_batches(), output_schema)),
                                     schema=output_schema)

    return left.map_batches(join, batch_format="pyarrow", batch_size=batch_rows)
