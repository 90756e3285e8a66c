"""mining/workers.py: pages examined with the run's model and rules, here or on an
executor; with WARC files the workers send only the body's digest."""

from __future__ import annotations

import hashlib
from pathlib import Path

from collie.fetch.fetcher import Fetcher
from collie.langid.model import LangModel
from collie.mininet.server import MiniWebServer, Response, World
from collie.mining.config import RunConfig
from collie.mining.executor import LocalExecutor
from collie.mining.workers import Workers
from collie.store import Store

from .conftest import open_copy
from .pages import answer, article, queue


def test_with_warc_files_only_the_digest_comes_back(
    template_ws: Path, tmp_path: Path, model: LangModel
) -> None:
    body = article("zul", 0)
    for keep, compressed in (("all", False), ("none", True)):
        with open_copy(template_ws, tmp_path / keep, warc__keep=keep) as ws:
            config = RunConfig.of(ws, model)
            with Fetcher(config.fetch) as fetcher:
                workers = Workers(LocalExecutor(), fetcher, model, config)
                [page] = queue(Store(ws.db), ["http://alpha.co.za/1"])
                examined = workers.examine(page, answer(page.url, body))
        assert examined.outcome.status == "kept"
        assert examined.outcome.body_sha1 == hashlib.sha1(body).hexdigest()
        assert (examined.body is not None) is compressed
        assert examined.exchanges  # what the settler writes to the WARC files


def test_a_new_model_is_shared_with_the_executor(ws, model: LangModel) -> None:
    config = RunConfig.of(ws, model)
    with Fetcher(config.fetch) as fetcher:
        workers = Workers(LocalExecutor(), fetcher, model, config)
        assert workers.local and workers.shared.model is model  # type: ignore[attr-defined]
        other = model.with_settings(model.threshold, model.min_chars)
        workers.share(other)
        assert workers.model is other and workers.shared.model is other  # type: ignore[attr-defined]


def test_a_batch_is_fetched_over_http_and_examined_in_its_order(
    ws, model: LangModel, world: World, web: MiniWebServer
) -> None:
    urls = ["http://beta.co.za/2", "http://alpha.co.za/1", "http://beta.co.za/3"]
    for i, url in enumerate(urls):
        world.add(url, Response.html(article("zul" if i != 2 else "eng", 3 * i).decode()))
    config = RunConfig.of(ws, model)
    with Fetcher(config.fetch) as fetcher:
        workers = Workers(LocalExecutor(), fetcher, model, config)
        examined = workers.fetch_and_examine(queue(Store(ws.db), urls))
    assert [e.queued.url for e in examined] == urls
    assert [e.outcome.status for e in examined] == ["kept", "kept", "wronglang"]
