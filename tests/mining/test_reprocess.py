"""`collie reprocess` over a workspace mined locally: the same documents without the
network, new settings applied and undone, an interruption changing nothing (the Dask
executor's reprocess is in test_executor.py)."""

from __future__ import annotations

from typing import Any

import pytest

from collie.mining.config import RunConfig

from ..clihelp import rows, run_collie
from ..runhelp import (
    InterruptedExecutor,
    cli,
    copy_of,
    document_rows,
    exported,
    make_workspace,
    page_rows,
)


@pytest.fixture(scope="module")
def two_runs(closed_web, tmp_path_factory) -> dict[str, Any]:
    """The workspace mined locally (the key is the one test_executor.py's runs use)."""
    web, made = closed_web
    root = make_workspace(tmp_path_factory.mktemp("local") / "ws", made, web)
    result = cli(root, "run", "--loops", "2", "--executor", "local")
    assert result.returncode == 0, result.stderr
    return {"local": {"root": root}}


def test_reprocess_gives_the_run_documents(two_runs, closed_web, capsys, tmp_path) -> None:
    web = closed_web[0]
    root = copy_of(two_runs["local"]["root"], tmp_path)
    pages, documents = page_rows(root), document_rows(root)
    web.clear_log()
    result = run_collie(capsys, "-w", str(root), "reprocess")
    assert result.code == 0, result.err
    assert "0 changed status" in result.err and "near-duplicates" in result.err
    assert web.log == []  # no network
    assert page_rows(root) == pages and document_rows(root) == documents


def test_reprocess_applies_new_settings_and_back(two_runs, capsys, tmp_path) -> None:
    root = copy_of(two_runs["local"]["root"], tmp_path)
    pages, documents = page_rows(root), document_rows(root)
    changed = run_collie(capsys, "-w", str(root), "--set", "extract.main=rules",
                         "--set", "extract.boilerplate=none", "reprocess")  # fmt: skip
    assert changed.code == 0, changed.err
    after = document_rows(root)
    assert [d[0] for d in after] == [d[0] for d in documents]  # ids kept
    longer = [len(new[4]) - len(old[4]) for new, old in zip(after, documents, strict=True)]
    assert min(longer) >= 0 and max(longer) > 0  # boilerplate kept
    again = run_collie(capsys, "-w", str(root), "reprocess")
    assert again.code == 0, again.err
    assert page_rows(root) == pages and document_rows(root) == documents
    # Fewer documents: the short ones left out (this test set dedup.max_distance=63,
    # which made every document a copy of the first, before issue 46 refused it).
    shorter = run_collie(capsys, "-w", str(root), "--set", "langid.min_target_words=60",
                         "reprocess")  # fmt: skip
    assert shorter.code == 0, shorter.err
    statuses = [row[1] for row in page_rows(root)]
    assert statuses.count("kept") == 4 < [row[1] for row in pages].count("kept") == 10
    assert len(exported(capsys, root)) == 4
    back = run_collie(capsys, "-w", str(root), "reprocess")
    assert back.code == 0, back.err
    # the same statuses (a near-duplicate names its document's new id)
    assert [row[:2] for row in page_rows(root)] == [row[:2] for row in pages]
    assert len(exported(capsys, root)) == 10  # as the run exported them


def test_interrupted_reprocess_changes_nothing(two_runs, tmp_path) -> None:
    from collie.langid.learn import load_model_for
    from collie.mining.reprocess import reprocess
    from collie.workspace.folder import open_workspace

    root = copy_of(two_runs["local"]["root"], tmp_path)
    pages, documents = page_rows(root), document_rows(root)
    flags = {"langid.min_share": (1.0, "test")}  # only pure pages stay: most would change
    with open_workspace(root, {}, flags) as ws, pytest.raises(KeyboardInterrupt):
        reprocess(ws, load_model_for(root), InterruptedExecutor(1), RunConfig.of(ws))
    assert page_rows(root) == pages and document_rows(root) == documents


def test_reprocess_drops_pages_with_too_little_target_text_and_back(
    two_runs, capsys, tmp_path
) -> None:
    """langid.min_target_words at reprocess (issue 43): the target pages whose running
    target words fall short are dropped as too-little-target-text and their documents
    leave the corpus; with the default again, the workspace holds what it held (a
    document dropped and decided again is stored anew, under a new id: `by_page`)."""
    import json

    from collie.decide.classify import target_words

    root = copy_of(two_runs["local"]["root"], tmp_path)
    pages, documents = page_rows(root), document_rows(root)
    words = {page_id: target_words(json.loads(labels), "zul")
             for _, page_id, kind, _, _, labels, *_ in documents if kind == "target"}  # fmt: skip
    least = sorted(words.values())[len(words) // 2]  # about half fall short
    short = {page_id for page_id, n in words.items() if n < least}
    changed = run_collie(capsys, "-w", str(root), "--set", f"langid.min_target_words={least}",
                         "reprocess")  # fmt: skip
    assert changed.code == 0, changed.err
    dropped = rows(root, "SELECT id, status, lang FROM pages WHERE reason LIKE "
                         "'too-little-target-text:%'")  # fmt: skip
    assert short and dropped == [(page_id, "dropped", "zul") for page_id in sorted(short)]
    assert not short & {row[1] for row in document_rows(root)}  # out of the corpus
    again = run_collie(capsys, "-w", str(root), "reprocess")
    assert again.code == 0, again.err
    assert by_page(page_rows(root), document_rows(root)) == by_page(pages, documents)


def by_page(pages: list[tuple[Any, ...]], documents: list[tuple[Any, ...]]) -> Any:
    """Pages and documents with every document id (a near-duplicate's reason, the
    document it copies) given as its page's id."""
    page_of = {doc[0]: doc[1] for doc in documents}

    def reason(text: Any) -> Any:
        kind, _, doc = str(text).partition(":")
        return f"{kind}:page {page_of[int(doc)]}" if kind == "near-duplicate" else text

    return (
        [(*row[:2], reason(row[2]), *row[3:]) for row in pages],
        sorted((*doc[1:-1], page_of.get(doc[-1])) for doc in documents),
    )
