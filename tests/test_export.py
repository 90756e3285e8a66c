"""Export formats from rows, target-only segments, and atomic writes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from collie.corpus.export import Selection, document_text, write_export
from collie.models import ExportRow

from .clihelp import run_collie


def row(doc_id: int, paragraphs: list[tuple[str, str, float]], site: str = "x") -> ExportRow:
    return ExportRow(id=doc_id, site=site, url=f"http://x/{doc_id}", final_url=None, title="t",
                     loop=1, source="search", depth=0, query="a b c", referrer=None, lang="luo",
                     lang_prob=0.9, target_share=0.6, words=5, encoding="utf-8",
                     encoding_method="http", fetched_at=1.0, simhash="00ff",
                     paragraphs=paragraphs)  # fmt: skip


MIXED = [("Ji duto onyuol ka gin thuolo.", "luo", 0.9), ("All are born free.", "eng", 0.99),
         ("Bende gin gi rieko.", "luo", 0.8)]  # fmt: skip


def test_target_segments_keep_only_target_paragraphs() -> None:
    assert document_text(row(1, MIXED), Selection("luo", "target")) == (
        "Ji duto onyuol ka gin thuolo.\nBende gin gi rieko."
    )
    assert "All are born free." in document_text(row(1, MIXED), Selection("luo", "all"))


def test_txt_and_jsonl(tmp_path: Path) -> None:
    """The default writes the target's paragraphs (issue 30; it wrote all of them
    before); "all" every paragraph; JSON lines keep the whole document in `paragraphs`."""
    rows = [row(1, MIXED), row(2, [("Ne\u0301 ber.", "luo", 0.9)])]
    count = write_export(rows, str(tmp_path / "c.txt"), "txt", "luo")
    assert (count.documents, count.words, count.other_paragraphs, count.other_words) == (
        2, 12, 1, 4)  # fmt: skip
    text = (tmp_path / "c.txt").read_text(encoding="utf-8")
    assert text.split("\n\n")[1] == "Né ber.\n"  # NFC
    count = write_export(rows, str(tmp_path / "all.txt"), "txt", "luo", "all")
    assert (count.documents, count.words, count.other_paragraphs) == (2, 16, 0)
    assert "All are born free." in (tmp_path / "all.txt").read_text(encoding="utf-8")
    write_export(rows, str(tmp_path / "c.jsonl"), "jsonl", "luo", "target")
    lines = (tmp_path / "c.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and '"query": "a b c"' in lines[0]
    assert '"fetched_at": "1970-01-01T00:00:01+00:00"' in lines[0]  # ISO 8601, UTC
    first = json.loads(lines[0])
    assert "born free" not in first["text"] and first["words"] == 10
    assert [(p["text"], p["language"], p["target"], p["kept"]) for p in first["paragraphs"]] == [
        (MIXED[0][0], "luo", 1.0, True), ("All are born free.", "eng", 0.0, False),
        (MIXED[2][0], "luo", 1.0, True)]  # fmt: skip


# A document's JSON-lines object, key for key and byte for byte (issue 41: the export's
# rows became ExportRow; what they write did not change).
JSONL_HEAD = (
    '{"id": 2, "url": "http://x/2", "final_url": "http://y/", "title": "t", "loop": 1, '
    '"source": "search", "depth": 0, "query": "a b c", "referrer": null, "language": "luo", '
    '"probability": 0.9, "target_share": 0.6, "words": 10, "encoding": "utf-8", '
    '"encoding_method": "http", "fetched_at": "1970-01-01T00:00:01+00:00", "simhash": "00ff", '
    '"warc": {"file": "warc/a.warc.gz", "offset": 5, "length": 7, "record_id": "<urn:x>"}, '
    '"site_labels": [], "licence": null, "tdm_reserved": null, "langid": null'
)
JSONL_TAIL = (
    '"paragraphs": [{"text": "Ji duto onyuol ka gin thuolo.", "language": "luo", '
    '"target": 1.0, "kept": true}, {"text": "All are born free.", "language": "eng", '
    '"target": 0.0, "kept": false}, {"text": "Bende gin gi rieko.", "language": "luo", '
    '"target": 1.0, "kept": true}]'
)


def test_jsonl_and_the_manifest_byte_for_byte(tmp_path: Path) -> None:
    from dataclasses import replace

    archived = replace(row(2, MIXED), final_url="http://y/", warc_file="a.warc.gz",
                       warc_offset=5, warc_length=7, warc_record_id="<urn:x>")  # fmt: skip
    suspect = replace(row(2, MIXED), final_url="http://y/", level="site", pass_share=0.25)
    write_export([archived], str(tmp_path / "c.jsonl"), "jsonl", "luo")
    text = '"text": "Ji duto onyuol ka gin thuolo.\\nBende gin gi rieko."'
    assert (tmp_path / "c.jsonl").read_bytes() == (
        f"{JSONL_HEAD}, {text}, {JSONL_TAIL}}}\n".encode()
    )
    write_export([archived], str(tmp_path / "d"), "dir", "luo")
    assert (tmp_path / "d" / "manifest.jsonl").read_bytes() == (
        '{"file": "00000002.txt", ' + JSONL_HEAD[1:] + "}\n"
    ).encode()
    write_export([suspect], str(tmp_path / "s.jsonl"), "jsonl", "luo", "all")
    head = JSONL_HEAD.replace('words": 10', 'words": 14').split(', "warc"')[0]
    text = '"text": "Ji duto onyuol ka gin thuolo.\\nAll are born free.\\nBende gin gi rieko."'
    assert (tmp_path / "s.jsonl").read_bytes() == (
        f'{head}, "warc": null, "site_labels": [], "licence": null, "tdm_reserved": null, '
        f'"langid": null, {text}, {JSONL_TAIL}, "suspected": "site", '
        '"pass_share": 0.25}\n'
    ).encode()


def test_interrupted_export_leaves_nothing(tmp_path: Path) -> None:
    def rows() -> Iterator[ExportRow]:
        yield row(1, MIXED)
        raise KeyboardInterrupt

    for fmt, name in (("txt", "c.txt"), ("jsonl", "c.jsonl"), ("dir", "d")):
        with pytest.raises(KeyboardInterrupt):
            write_export(rows(), str(tmp_path / name), fmt, "luo")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "old.txt").write_text("the earlier export\n")
    with pytest.raises(KeyboardInterrupt):
        write_export(rows(), str(tmp_path / "old.txt"), "txt", "luo", replace=True)
    assert (tmp_path / "old.txt").read_text() == "the earlier export\n"


def site_row(doc_id: int, site: str, texts: list[str]) -> ExportRow:
    return row(doc_id, [(t, "luo", 0.9) for t in texts], site)


def test_a_sites_repeated_paragraphs_are_left_out_and_counted(tmp_path: Path) -> None:
    from collie.corpus.export import Repeats

    menu, byline = "Nyiero  Siasa Tugo", "Ndiko gi Otieno Ochieng"
    rows = [site_row(i, "a.ke", [menu, f"Wach mar {i} ne ber ahinya.", byline]) for i in (1, 2, 3)]
    rows += [site_row(4, "b.ke", [menu.upper(), "Wach mar 1 ne ber ahinya."])]
    rows += [site_row(5, "b.ke", [menu])]  # nothing but what a.ke repeats: b.ke has it twice
    repeats = Repeats(3)
    repeats.learn(rows)
    count = write_export(rows, str(tmp_path / "c.txt"), "txt", "luo", repeats=repeats)
    docs = (tmp_path / "c.txt").read_text(encoding="utf-8").strip().split("\n\n")
    assert docs[:3] == [f"Wach mar {i} ne ber ahinya." for i in (1, 2, 3)]
    assert docs[3:] == ["NYIERO SIASA TUGO\nWach mar 1 ne ber ahinya.", "Nyiero Siasa Tugo"]
    assert (count.documents, count.site_boilerplate, count.site_boilerplate_words) == (5, 6, 21)
    # b.ke's copy of document 1's paragraph, and its menu the second time (a.ke's copies
    # were boilerplate, left out: they do not count as written)
    assert (count.repeated, count.repeats_removed) == (2, False)
    unique = Repeats(3, unique=True)
    unique.learn(rows)
    count = write_export(rows, str(tmp_path / "u.txt"), "txt", "luo", repeats=unique)
    assert (count.documents, count.repeated) == (4, 2)  # document 5 is left empty: not written
    assert (tmp_path / "u.txt").read_text(encoding="utf-8").count("Wach mar 1 ") == 1
    off = Repeats(0)
    off.learn(rows)
    assert (
        write_export(rows, str(tmp_path / "o.txt"), "txt", "luo", repeats=off).words == 47
    )  # nothing left out


def test_exports_follow_the_umask(tmp_path: Path) -> None:
    import os

    old = os.umask(0o022)
    try:
        write_export([row(1, MIXED)], str(tmp_path / "c.txt"), "txt", "luo")
        write_export([row(1, MIXED)], str(tmp_path / "d"), "dir", "luo")
        os.umask(0o077)
        write_export([row(1, MIXED)], str(tmp_path / "private.txt"), "txt", "luo")
    finally:
        os.umask(old)
    assert (tmp_path / "c.txt").stat().st_mode & 0o777 == 0o644  # was 0600 whatever the umask
    assert (tmp_path / "d").stat().st_mode & 0o777 == 0o755  # was 0700
    assert (tmp_path / "private.txt").stat().st_mode & 0o777 == 0o600


def workspace_bytes(root: Path) -> dict[str, bytes]:
    """collie.db, collie.toml and every file in the workspace's folders, byte for byte."""
    files = [root / "collie.db", root / "collie.toml"]
    files += [p for d in ("seed", "cache", "models", "logs") for p in (root / d).rglob("*")]
    return {str(p.relative_to(root)): p.read_bytes() for p in files if p.is_file()}


def test_exports_and_reports_never_write_over_the_workspace(mined, capsys, tmp_path) -> None:
    root = mined[0]  # the current directory
    before = workspace_bytes(root)
    (tmp_path / "link.txt").symlink_to(root / "collie.db")
    attempts = [
        ["export", "collie.db"],
        ["export", "./collie.toml", "--force"],
        ["export", f"../{root.name}/collie.db", "--format", "jsonl"],
        ["export", str(tmp_path / "link.txt"), "--force"],
        ["export", "collie.db-wal", "--force"],
        ["export", "collie.lock", "--force"],
        ["export", "seed", "--format", "dir", "--force"],
        ["export", "models", "--format", "dir"],
        ["export", ".", "--format", "dir", "--force"],
        ["export", "cache/corpus.txt"],
        ["report", "--html", "collie.db", "--force"],
        ["report", "--html", "collie.toml"],
        ["-w", str(root), "export", str(root / "collie.db")],
        ["langid", "train", "--lang", "zul", "seed/docs", "--out", "collie.db"],
        ["langid", "train", "--lang", "zul", "seed/docs", "--out", "cache/zul.npz"],
        ["mininet", "build", "collie.toml", "--force"],
    ]
    for args in attempts:
        refused = run_collie(capsys, *args)
        assert refused.code == 1, (args, refused.err)
        assert "Refusing to write" in refused.err and "workspace's own" in refused.err, args
        assert "nothing was written" in refused.err and "Choose another name" in refused.err
        assert refused.out == ""
    assert workspace_bytes(root) == before
    status = run_collie(capsys, "status")
    assert status.code == 0 and "docs" in status.out
    fine = run_collie(capsys, "export", "exports/corpus.txt")
    assert fine.code == 0 and (root / "exports" / "corpus.txt").read_text(encoding="utf-8")


def test_an_existing_file_is_replaced_only_with_force(mined, capsys, tmp_path) -> None:
    (tmp_path / "mine").mkdir()
    precious = tmp_path / "mine" / "existing.txt"
    precious.write_text("precious\n")
    for args in (["export", str(precious)], ["export", str(precious), "--format", "jsonl"],
                 ["report", "--html", str(precious)]):  # fmt: skip
        refused = run_collie(capsys, *args)
        assert refused.code == 1 and f"{precious} already exists" in refused.err, args
        assert "--force" in refused.err
        assert precious.read_text() == "precious\n"
    assert [p.name for p in precious.parent.iterdir()] == ["existing.txt"]  # no temporary file
    forced = run_collie(capsys, "export", str(precious), "--force")
    assert forced.code == 0, forced.err
    assert "precious" not in precious.read_text(encoding="utf-8")
    report = run_collie(capsys, "report", "--html", str(precious), "--force")
    assert report.code == 0 and precious.read_text(encoding="utf-8").startswith("<!DOCTYPE")


def test_an_earlier_export_folder_is_replaced_only_with_force(mined, capsys, tmp_path) -> None:
    (tmp_path / "mine").mkdir()
    out = tmp_path / "mine" / "out"
    assert run_collie(capsys, "export", str(out), "--format", "dir").code == 0
    files = sorted(p.name for p in out.iterdir())
    (out / "mine.txt").write_text("a file of mine\n")
    refused = run_collie(capsys, "export", str(out), "--format", "dir")
    assert refused.code == 1 and "already holds an export" in refused.err
    assert "--force" in refused.err and (out / "mine.txt").exists()
    forced = run_collie(capsys, "export", str(out), "--format", "dir", "--force")
    assert forced.code == 0, forced.err
    assert sorted(p.name for p in out.iterdir()) == files
    assert [p.name for p in out.parent.iterdir()] == ["out"]  # no temporary folder left
    other = tmp_path / "notes"
    other.mkdir()
    (other / "todo.txt").write_text("keep me\n")
    kept = run_collie(capsys, "export", str(other), "--format", "dir", "--force")
    assert kept.code == 1 and "not an empty directory" in kept.err
    assert (other / "todo.txt").read_text() == "keep me\n"


def test_status_counts_the_documents_export_writes(tmp_path, capsys, web, world, monkeypatch):
    """A page whose every paragraph its site repeats (the blog's /both: its title, one
    paragraph of /post/2, one of /post/3) is a target document, but its export is empty:
    status leaves it out of docs, as export leaves it out, and says so."""
    from collie.mininet.server import Response
    from collie.udhr import load_declarations

    from .zuluworld import page, zulu_workspace

    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    z = load_declarations()["zul"].training_paragraphs()
    blog = "http://zulu-blog.example.za"
    links = [("/post/1", "Okuthunyelwe"), ("/post/2", "Okwesibili"), ("/post/3", "Okwesithathu"),
             ("/both", "Kokubili")]  # fmt: skip
    world.add(f"{blog}/", Response.html(page("Ibhulogi", z[32:38], links)))
    world.add(f"{blog}/post/2", Response.html(page("Ibhulogi", [z[6], z[57]])))
    world.add(f"{blog}/post/3", Response.html(page("Ibhulogi", [z[15], z[59]])))
    world.add(f"{blog}/both", Response.html(page("Ibhulogi", [z[57], z[59]])))
    monkeypatch.chdir(root)
    monkeypatch.setenv("COLLIE_EXTRACT_SITE_REPEATS", "2")  # a paragraph in 2 of its pages
    assert run_collie(capsys, "run", "--loops", "2").code == 0
    status = json.loads(run_collie(capsys, "status", "--json").out)
    docs = sum(sum(loop["documents"].values()) for loop in status["loops"])
    words = sum(loop["words"] for loop in status["loops"])
    exported = run_collie(capsys, "export", "-", "--format", "jsonl")
    records = [json.loads(line) for line in exported.out.splitlines()]
    assert exported.code == 0 and len(records) == docs > 0
    assert f"{docs} documents, {words:,} words written" in exported.err
    assert f"{blog}/both" not in {r["url"] for r in records}
    assert sum(loop["boilerplate_only"] for loop in status["loops"]) >= 1
    text = run_collie(capsys, "status").out
    assert f"export corpus.txt` ({docs} documents)" in text
    assert "boilerplate only: " in text and "not in docs, as export leaves them out" in " ".join(
        text.split()
    )
    for loop in status["loops"]:  # export --loop N writes loop N's docs
        one = run_collie(capsys, "export", "-", "--loop", str(loop["number"]))
        assert f"{sum(loop['documents'].values())} documents" in one.err


def test_the_language_chart_says_what_it_leaves_out_and_has_an_axis(
    tmp_path, capsys, web, world, monkeypatch
) -> None:
    import re

    from .zuluworld import add_polyglot_blog, zulu_workspace

    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    add_polyglot_blog(world)
    monkeypatch.chdir(root)
    assert run_collie(capsys, "run", "--loops", "2").code == 0
    languages = json.loads(run_collie(capsys, "report", "--json").out)["languages"]
    assert len(languages) > 15
    result = run_collie(capsys, "report", "--html", "exports/report.html")
    assert result.code == 0, result.err
    page = (root / "exports" / "report.html").read_text(encoding="utf-8")
    figure = page.split('<figure id="languages">')[1].split("</figure>")[0]
    rest = list(languages.items())[15:]
    caption = (
        f"15 of {len(languages)} languages shown; the other {len(rest)}: "
        f"{sum(n for _, n in rest)} pages"
    )
    assert f"<figcaption>{caption}" in figure
    assert len(re.findall(r"data-total=", figure)) == 15
    for chart in re.findall(r"<svg.*?</svg>", page):  # every chart: a numeric axis
        ticks = [float(t) for t in re.findall(r'class="tick"[^>]*>([\d.]+)<', chart)]
        totals = [float(t) for t in re.findall(r'data-total="([\d.]+)"', chart)]
        assert len(ticks) >= 2 and ticks[0] == 0 and ticks == sorted(ticks)
        assert ticks[-1] >= max(totals, default=0)


def test_an_export_of_a_loop_that_does_not_exist_names_the_loops_and_writes_nothing(
    mined, capsys, tmp_path
) -> None:
    out = tmp_path / "loop99.txt"
    for fmt in ("txt", "jsonl"):
        refused = run_collie(capsys, "export", str(out), "--loop", "99", "--format", fmt)
        assert refused.code == 2, refused.err
        assert "The workspace has no loop 99: its loops are 1, 2; nothing was written" in (
            refused.err
        )
        assert "--loop 2" in refused.err and not out.exists()
    to_stdout = run_collie(capsys, "export", "-", "--loop", "99")
    assert to_stdout.code == 2 and to_stdout.out == ""
    fine = run_collie(capsys, "export", str(out), "--loop", "2")
    assert fine.code == 0, fine.err
    assert out.exists()
