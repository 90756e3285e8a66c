"""Where batches of work run: in this process, or on a Dask cluster (an existing
distributed engine, never a home-made one).

An executor maps a function over batches and yields the results in the batches' order:

    with make_executor(ExecutorSpec.from_settings(settings)) as executor:
        shared = executor.share(model)            # sent to each worker once
        for result in executor.map_batches(work, batches, shared):
            ...                                   # the driver records, in order

`fn(batch, shared)` must be a module-level function taking and returning plain,
picklable data: it runs in another process (or on another machine) with the dask
executor, and it must not touch the workspace database, which only the driver writes.

- `LocalExecutor`: in this process; one batch after another, or `threads` at a time.
- `DaskExecutor`: a `dask.bag` of the batches (one partition each) computed by a
  distributed `Client`: on a scheduler given by address, a `LocalCluster` of worker
  processes, or a `SLURMCluster` (dask-jobqueue). A batch whose worker dies is retried
  by Dask (`dask.retries`); a batch that still fails raises, and the driver records
  nothing of it.

Dask and dask-jobqueue are an optional extra: `pip install 'collie[dask]'`.
"""

from __future__ import annotations

import ast
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from collie.errors import CollieError, ConfigError

B = TypeVar("B")
R = TypeVar("R")

EXTRA_HINT = "Install the extra: pip install 'collie[dask]' (dask[distributed], dask-jobqueue)."


class Executor(Protocol):
    """What the loop needs of an executor (see the module docstring)."""

    name: str

    @property
    def slots(self) -> int:
        """Batches that can run at the same time (Dask: the workers' threads)."""
        ...

    def share(self, value: Any) -> Any:
        """A handle on `value` for `map_batches` (Dask: scattered to every worker once)."""
        ...

    def map_batches(
        self, fn: Callable[[B, Any], R], batches: Sequence[B], shared: Any = None
    ) -> Iterator[R]:
        """`fn(batch, shared)` for every batch; results in the batches' order."""
        ...

    def close(self) -> None: ...


class LocalExecutor:
    """Batches run in this process: one after another, or `threads` at a time."""

    name = "local"

    def __init__(self, threads: int = 1) -> None:
        self.threads = max(1, threads)
        self._pool: ThreadPoolExecutor | None = None

    @property
    def slots(self) -> int:
        return 1

    def share(self, value: Any) -> Any:
        return value

    def map_batches(
        self, fn: Callable[[B, Any], R], batches: Sequence[B], shared: Any = None
    ) -> Iterator[R]:
        if self.threads == 1 or len(batches) < 2:
            return (fn(batch, shared) for batch in batches)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="collie-batch")
        return self._pool.map(fn, batches, [shared] * len(batches))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _apply(batch: B, fn: Callable[[B, Any], R], shared: Any) -> R:
    return fn(batch, shared)


class DaskExecutor:
    """Batches run on a Dask cluster, through a distributed `Client` (see module doc)."""

    name = "dask"

    def __init__(self, client: Any, cluster: Any = None, retries: int = 2) -> None:
        self.client = client
        self.cluster = cluster  # closed with the executor when we started it
        self.retries = retries

    @property
    def slots(self) -> int:
        return max(1, sum(self.client.nthreads().values()))

    def share(self, value: Any) -> Any:
        return self.client.scatter(value, broadcast=True, hash=False)

    def map_batches(
        self, fn: Callable[[B, Any], R], batches: Sequence[B], shared: Any = None
    ) -> Iterator[R]:
        if not batches:
            return iter(())
        import dask.bag as db

        bag = db.from_sequence(list(batches), partition_size=1).map(_apply, fn, shared)
        futures = self.client.compute(bag.to_delayed(), retries=self.retries)
        return self._in_order(futures)

    def _in_order(self, futures: list[Any]) -> Iterator[Any]:
        try:
            for future in futures:
                try:
                    results = future.result()
                except Exception as exc:
                    raise CollieError(
                        f"A batch failed on the Dask cluster after {self.retries} "
                        f"retries ({type(exc).__name__}: {exc}); nothing of it was recorded.",
                        "Run the command again to go on; the workers' logs say more.",
                    ) from exc
                yield from results
        finally:  # an abandoned or failed map leaves nothing running
            self.client.cancel(futures)

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class ExecutorSpec:
    """The run.executor and dask.* settings (config.executor_spec reads them)."""

    kind: str = "local"  # local or dask
    scheduler: str = ""
    cluster: str = ""  # "", "local:N" or "slurm"
    cluster_options: tuple[str, ...] = ()
    retries: int = 2

    def describe(self) -> str:
        if self.kind == "local":
            return "local executor (this process)"
        return f"Dask executor on {self.scheduler or self.cluster or 'a local cluster'}"


def make_executor(spec: ExecutorSpec, local_threads: int = 1) -> LocalExecutor | DaskExecutor:
    """The executor `spec` asks for; a Dask cluster is started (and closed with it)
    when `spec.cluster` names one."""
    if spec.kind == "local":
        return LocalExecutor(local_threads)
    _quiet_dask()
    client_class, cluster = _dask_client_parts(spec)
    try:
        client = client_class(spec.scheduler or cluster)
    except (OSError, ValueError) as exc:  # ValueError: an address Dask cannot parse
        if cluster is not None:
            cluster.close()
        raise CollieError(
            f"Cannot reach the Dask scheduler at {spec.scheduler}: {exc}.",
            "Check dask.scheduler (or --scheduler: an address such as tcp://10.0.0.5:8786), "
            "or start one with `dask scheduler`.",
        ) from exc
    return DaskExecutor(client, cluster, spec.retries)


def _quiet_dask() -> None:
    """Dask's own INFO lines only with -v: in this process, and in the worker processes
    a local cluster starts (they read DASK_* variables as they start)."""
    if logging.getLogger().getEffectiveLevel() > logging.INFO:
        os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")
        logging.getLogger("distributed").setLevel(logging.WARNING)


def _dask_client_parts(spec: ExecutorSpec) -> tuple[Any, Any]:
    """(the Client class, the cluster we started or None)."""
    try:
        from distributed import Client
    except ImportError:
        raise CollieError(
            "The dask executor needs Dask distributed, which is not installed.", EXTRA_HINT
        ) from None
    if spec.scheduler and spec.cluster:
        raise ConfigError(
            "Both a Dask scheduler address and a cluster to start were given.",
            "Use --scheduler ADDRESS to join a running cluster, or --cluster to start one.",
        )
    if spec.scheduler:
        return Client, None
    return Client, start_cluster(
        spec.cluster or f"local:{os.cpu_count() or 1}", parse_cluster_options(spec.cluster_options)
    )


def parse_cluster_options(options: Iterable[str]) -> dict[str, Any]:
    """["cores=8", "memory=16GB", "processes=true"] -> {"cores": 8, "memory": "16GB", ...}:
    numbers, booleans and Python literals as such, anything else as a string."""
    parsed: dict[str, Any] = {}
    for option in options:
        key, sep, raw = option.partition("=")
        if not sep or not key.strip():
            raise ConfigError(
                f"--cluster-opt {option}: expected KEY=VALUE, e.g. cores=8.",
                "Give each cluster option as KEY=VALUE (dask.cluster_options in collie.toml).",
            )
        text = raw.strip()
        lowered = text.lower()
        value: Any
        if lowered in ("true", "false"):
            value = lowered == "true"
        else:
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                value = text
        parsed[key.strip().replace("-", "_")] = value
    return parsed


def start_cluster(name: str, options: dict[str, Any]) -> Any:
    """A `LocalCluster` ("local:N": N worker processes, one thread each) or a
    `SLURMCluster` ("slurm": dask-jobqueue, options passed on, `jobs` jobs submitted)."""
    kind, _, count = name.partition(":")
    if kind == "local":
        from distributed import LocalCluster

        try:
            workers = int(count) if count else os.cpu_count() or 1
        except ValueError:
            workers = 0
        if workers < 1:
            raise ConfigError(
                f"dask.cluster = {name!r}: expected local:N with N >= 1.",
                "Give --cluster local:4 (4 worker processes here) or slurm.",
            )
        arguments = {
            "n_workers": workers,
            "threads_per_worker": 1,
            "processes": True,
            "dashboard_address": ":0",
            **options,
        }
        return LocalCluster(**arguments)
    if kind == "slurm":
        return _start_slurm(options)
    raise ConfigError(
        f"dask.cluster = {name!r}: unknown cluster.",
        "Use local:N (N worker processes here) or slurm (dask-jobqueue), or --scheduler "
        "ADDRESS for a cluster already running.",
    )


def _start_slurm(options: dict[str, Any]) -> Any:
    try:
        from dask_jobqueue import SLURMCluster
    except ImportError:
        raise CollieError(
            "--cluster slurm needs dask-jobqueue, which is not installed.", EXTRA_HINT
        ) from None
    jobs = int(options.pop("jobs", 1))
    try:
        cluster = SLURMCluster(**options)
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"--cluster slurm: {exc}.", "See dask-jobqueue's SLURMCluster for its options."
        ) from exc
    cluster.scale(jobs=jobs)
    return cluster
