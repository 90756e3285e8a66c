"""--executor, --scheduler, --cluster, --cluster-opt: where `collie run` and `collie
reprocess` do their work (flags over run.executor and dask.*; see executor.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from collie.cli.options import App, note
from collie.mining.config import executor_spec
from collie.mining.executor import DaskExecutor, LocalExecutor, make_executor

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


def open_executor(app: App, settings: Any, local_threads: int = 1) -> LocalExecutor | DaskExecutor:
    """The executor the settings ask for (a cluster is started when one is named)."""
    spec = executor_spec(settings)
    executor = make_executor(spec, local_threads)
    if isinstance(executor, DaskExecutor) and not app.quiet:
        link = executor.client.dashboard_link if executor.cluster is None else ""
        note(f"{spec.describe()}: {executor.slots} worker thread(s){f', {link}' if link else ''}.")
    return executor
