"""Where a use case's pages are examined: the executor the settings ask for (this
process, or Dask), shared by run, scan and reprocess."""

from __future__ import annotations

from typing import Any

from collie.api.options import Notes, no_note
from collie.mining.config import executor_spec
from collie.mining.executor import DaskExecutor, LocalExecutor, make_executor


def open_executor(
    settings: Any, local_threads: int = 1, notes: Notes = no_note
) -> LocalExecutor | DaskExecutor:
    """The executor the settings ask for (run.executor, dask.*; a cluster is started
    when one is named, and said)."""
    spec = executor_spec(settings)
    executor = make_executor(spec, local_threads)
    if isinstance(executor, DaskExecutor):
        link = executor.client.dashboard_link if executor.cluster is None else ""
        notes(f"{spec.describe()}: {executor.slots} worker thread(s){f', {link}' if link else ''}.")
    return executor
