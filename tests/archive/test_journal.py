"""archive/journal.py: the fetch journal keeps every answer whole until its page is
recorded, reads back what a killed run left (only what is still wanted), and leaves
nothing behind once everything is recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from collie.archive import journal
from collie.archive.journal import JOURNAL_FOLDER, FetchJournal, journal_keys, segments
from collie.models import Exchange, FetchResult


def answer(url: str, body: bytes = b"<p>Bonke abantu</p>") -> FetchResult:
    robots = Exchange(
        url.rsplit("/", 1)[0] + "/robots.txt", (("User-Agent", "collie"),), 404, "Not Found",
        "HTTP/1.1", (("Content-Length", "0"),), b"", 1.5,
    )  # fmt: skip
    page = Exchange(
        url, (("User-Agent", "collie"), ("Accept", "text/html")), 200, "OK", "HTTP/1.1",
        (("Content-Type", "text/html"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")),
        body, 2.5, truncated="length",
    )  # fmt: skip
    return FetchResult(
        url, url + "?x", 200, {"content-type": "text/html"}, body, truncated=True,
        redirects=(url,), reason=None, fetched_at=2.5, elapsed=0.25,
        exchanges=(robots, page), tdmrep=1,
    )  # fmt: skip


def test_an_answer_comes_back_as_it_was_written(tmp_path: Path) -> None:
    written = FetchJournal(tmp_path)
    one, two = answer("http://a.example/1"), answer("http://b.example/2", "ẓ".encode() * 5)
    written.write("page 1", one)
    written.write("listing b.example http://b.example/sitemap.xml", two)
    written.close()
    asked: list[list[str]] = []

    def wanted(keys: list[str]) -> set[str]:
        asked.append(keys)
        return set(keys)

    read = FetchJournal(tmp_path).read_back(wanted)
    assert read == {"page 1": one, "listing b.example http://b.example/sitemap.xml": two}
    assert asked == [list(read)]


def test_a_torn_entry_ends_the_reading_and_stale_answers_are_dropped(tmp_path: Path) -> None:
    written = FetchJournal(tmp_path)
    for n in range(3):
        written.write(f"page {n}", answer(f"http://a.example/{n}"))
    written.close()
    [(_, path)] = segments(tmp_path / JOURNAL_FOLDER)
    data = path.read_bytes()
    path.write_bytes(data[:-10])  # a kill while the last one was written
    again = FetchJournal(tmp_path)
    read = again.read_back(lambda keys: {k for k in keys if k != "page 0"})  # 0 recorded
    assert list(read) == ["page 1"]
    assert journal_keys(tmp_path) == ["page 1"]  # rewritten alone, the old segment gone
    again.done(["page 1"])
    again.close()
    assert journal_keys(tmp_path) == [] and not segments(tmp_path / JOURNAL_FOLDER)


def test_a_segment_goes_once_every_answer_in_it_is_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal, "SEGMENT_BYTES", 1)  # a segment an answer
    kept = FetchJournal(tmp_path)
    for n in range(3):
        kept.write(f"page {n}", answer(f"http://a.example/{n}"))
    assert [n for n, _ in segments(tmp_path / JOURNAL_FOLDER)] == [1, 2, 3]
    kept.done(["page 1"])
    assert [n for n, _ in segments(tmp_path / JOURNAL_FOLDER)] == [1, 3]
    kept.done(["page 2"])  # the one being written stays until closed
    kept.close()
    assert journal_keys(tmp_path) == ["page 0"]  # not recorded: read back by the next run


def test_a_journal_that_cannot_be_written_stops_quietly(tmp_path: Path) -> None:
    (tmp_path / JOURNAL_FOLDER).write_text("a file where the folder goes")
    broken = FetchJournal(tmp_path)
    broken.write("page 1", answer("http://a.example/1"))  # no exception: fetched again
    broken.done(["page 1"])
    broken.close()
