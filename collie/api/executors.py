"""Where a use case's pages are examined: the executor the settings ask for (this
process, or Dask), shared by run, scan and reprocess."""

from __future__ import annotations

from collie.api.options import Notes, no_note
from collie.mining.executor import DaskExecutor, ExecutorSpec, LocalExecutor, make_executor


def open_executor(
    spec: ExecutorSpec, local_threads: int = 1, notes: Notes = no_note
) -> LocalExecutor | DaskExecutor:
    """The executor the run's configuration asks for (`RunConfig.executor`: run.executor,
    dask.*; a cluster is started when one is named, and said)."""
    executor = make_executor(spec, local_threads)
    if isinstance(executor, DaskExecutor):
        link = executor.client.dashboard_link if executor.cluster is None else ""
        notes(f"{spec.describe()}: {executor.slots} worker thread(s){f', {link}' if link else ''}.")
    return executor
