"""--executor, --scheduler, --cluster, --cluster-opt: where `collie run` and `collie
reprocess` do their work (flags over run.executor and dask.*; see executor.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from collie.api.executors import open_executor as api_executor
from collie.api.options import no_note
from collie.cli.options import App, note
from collie.mining.executor import DaskExecutor, ExecutorSpec, LocalExecutor

F = TypeVar("F", bound=Callable[..., Any])


def _record(key: str, implies_dask: bool) -> Callable[[click.Context, click.Parameter, Any], None]:
    def record(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if value is None or value == ():
            return
        flags = ctx.ensure_object(App).flags
        flag = f"--{(param.name or key).replace('_', '-')}"
        flags[key] = (list(value) if isinstance(value, tuple) else value, flag)
        if implies_dask and "run.executor" not in flags:  # an explicit --executor wins
            flags["run.executor"] = ("dask", flag)

    return record


def executor_options(func: F) -> F:
    """The executor options, as flags over settings."""
    options = [
        click.option(
            "--executor",
            type=click.Choice(["local", "dask"]),
            expose_value=False,
            callback=_record("run.executor", False),
            help="Work in this process (local) or on a Dask cluster (default: run.executor).",
        ),
        click.option(
            "--scheduler",
            metavar="ADDRESS",
            expose_value=False,
            callback=_record("dask.scheduler", True),
            help="Join a running Dask scheduler, e.g. tcp://10.0.0.5:8786 (implies "
            "--executor dask; default: dask.scheduler).",
        ),
        click.option(
            "--cluster",
            metavar="local:N|slurm",
            expose_value=False,
            callback=_record("dask.cluster", True),
            help="Start a Dask cluster: N worker processes here, or Slurm jobs through "
            "dask-jobqueue (implies --executor dask; default: dask.cluster).",
        ),
        click.option(
            "--cluster-opt",
            "cluster_opt",
            metavar="KEY=VALUE",
            multiple=True,
            expose_value=False,
            callback=_record("dask.cluster_options", False),
            help="An option of the cluster, e.g. --cluster-opt queue=short --cluster-opt "
            "cores=8 --cluster-opt jobs=4 (default: dask.cluster_options).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def open_executor(
    app: App, spec: ExecutorSpec, local_threads: int = 1
) -> LocalExecutor | DaskExecutor:
    """The executor the run's configuration asks for (a cluster is started when one is
    named, and said unless -q)."""
    return api_executor(spec, local_threads, no_note if app.quiet else note)
