"""The audit on mined closed-world workspaces (issue 44, part 2): the stratified sample of
`collie review`, the interval `collie review --results` and `collie report` print (checked
against Wilson's formula by hand), judgements from a TSV (`--export-sample`, `--import`)
giving the same figures as the review page, and bad judgement files named line by line."""

from __future__ import annotations

import csv
import json
import math
import shutil
import subprocess
import sys
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from collie.mininet.ccarchive import write_archive
from collie.mininet.demo import demo_options, ensure_world

from .clihelp import rows, run_collie
from .test_audit_sample import wilson_by_hand
from .test_review import free_port

# (document id, site, origin) of the corpus documents a sample may draw, as SQL
STRATA_SQL = (
    "SELECT d.id, p.site, CASE WHEN a.page_id IS NULL THEN 'loop ' || d.loop ELSE 'scan' END "
    "FROM documents d JOIN pages p ON p.id = d.page_id LEFT JOIN archive_pages a "
    "ON a.page_id = p.id WHERE d.kind = 'target' AND d.duplicate_of IS NULL AND "
    "p.status = 'kept'"
)


def sample_file(capsys: Any, root: Path, size: int) -> list[dict[str, str]]:
    """`collie review --export-sample` (drawing the sample), read back."""
    path = root.parent / f"{root.name}-sample.tsv"
    done = run_collie(capsys, "-w", str(root), "review", "--sample", str(size),
                      "--export-sample", str(path), "--force")  # fmt: skip
    assert done.code == 0, done.err
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def write_judgements(path: Path, judged: list[tuple[str, str]], header: str = "") -> Path:
    lines = [header or "doc_id\tlabel\treviewer"]
    lines += [f"{doc}\t{label}\tachieng" for doc, label in judged]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def results(capsys: Any, root: Path) -> dict[str, Any]:
    done = run_collie(capsys, "-w", str(root), "review", "--results", "--json")
    assert done.code == 0, done.err
    return json.loads(done.out)


def by_hand(root: Path) -> tuple[float, float, int, int]:
    """The share mainly, stratified by hand: sum_h N_h p_h / sum_h N_h over the judged
    strata, Kish's n_eff = (sum_h N_h)^2 / sum_h N_h^2 / m_h, and k and n."""
    stratum = {doc: (site, origin) for doc, site, origin in rows(root, STRATA_SQL)}
    sizes = Counter(stratum.values())
    judged = rows(root, "SELECT doc_id, label FROM reviews WHERE label IN "
                        "('mainly', 'some', 'none')")  # fmt: skip
    m, hits = Counter(stratum[d] for d, _ in judged), Counter()
    for doc, label in judged:
        hits[stratum[doc]] += label == "mainly"
    total = sum(sizes[h] for h in m)
    share = sum(sizes[h] * hits[h] / m[h] for h in m) / total
    n_eff = total**2 / sum(sizes[h] ** 2 / m[h] for h in m)
    return share, n_eff, sum(hits.values()), len(judged)


def test_the_printed_interval_is_wilsons(mined, capsys) -> None:
    """The whole corpus judged (10 documents; a sample as large as the corpus weighs
    every document the same; a skip would not: its stratum's other documents stand for
    it): the plain Wilson interval of k of n, printed."""
    root = mined[0]
    sample = sample_file(capsys, root, 100)
    assert len(sample) == len(rows(root, STRATA_SQL)) == 10
    labels = ["mainly"] * 7 + ["some", "none", "mainly"]
    judged = [(r["doc_id"], label) for r, label in zip(sample, labels, strict=True)]
    path = write_judgements(root.parent / "j.tsv", judged)
    assert run_collie(capsys, "review", "--import", str(path)).code == 0
    low, high = wilson_by_hand(8, 10)
    line = f"8 of 10 documents mainly in Zulu (95% Wilson interval {low:.1%}-{high:.1%})"
    text = run_collie(capsys, "review", "--results").out
    assert f"  all: {line}" in text
    data = results(capsys, root)["overall"]
    assert not data["weighted"] and math.isclose(data["low"], low)
    assert math.isclose(data["high"], high)
    # too wide: how many judgements +-5 points would take, at 7/9, by the formula
    need = next(n for n in range(1, 10_000)
                if (lambda lo, hi: (hi - lo) / 2 <= 0.05)(*wilson_by_hand(0.8 * n, n)))  # fmt: skip
    assert data["more_needed"] == need - 10
    assert f"about {need - 10} more judgements would narrow it to +-5" in text
    report = run_collie(capsys, "report").out
    assert "audit by a speaker" in report and line in report


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A 12-site world's target pages in a Common-Crawl-like archive, for `collie scan`."""
    world, _ = ensure_world(demo_options(sites=12))
    out = tmp_path_factory.mktemp("cc")
    write_archive(world, out, records=600, target_pages=300, files=2)
    return {"paths": out / "warc.paths.gz"}


def test_a_sample_of_100_covers_every_stratum_and_gives_the_interval(
    mined, capsys, archive
) -> None:
    """The Zulu world mined (2 sites, loop 1) and a web archive scanned (12 more sites):
    a sample of 100 draws from every stratum; 100 judgements give the stratified share
    and its Wilson interval at the effective n, as computed by hand; per loop and scan."""
    root = mined[0]
    scanned = run_collie(capsys, "scan", str(archive["paths"]))
    assert scanned.code == 0, scanned.err
    corpus = rows(root, STRATA_SQL)
    strata = {(site, origin) for _, site, origin in corpus}
    assert len(corpus) > 100 and {o for _, o in strata} == {"loop 1", "scan"}
    sample = sample_file(capsys, root, 100)
    assert len(sample) == 100
    assert {(r["site"], r["origin"]) for r in sample} == strata  # every stratum
    assert max(Counter(r["site"] for r in sample).values()) <= 10  # a tenth each at most
    again = run_collie(capsys, "review", "--export-sample", str(root.parent / "again.tsv"))
    assert again.code == 0  # the same sample, continued
    judged = [(r["doc_id"], ("mainly", "mainly", "some", "none")[int(r["doc_id"]) % 4])
              for r in sample]  # fmt: skip
    path = write_judgements(root.parent / "judged.tsv", judged)
    assert run_collie(capsys, "review", "--import", str(path)).code == 0
    data = results(capsys, root)
    share, n_eff, k, n = by_hand(root)
    overall = data["overall"]
    assert (overall["count"], overall["judged"]) == (k, n) and n == 100
    assert math.isclose(overall["share"], share) and math.isclose(overall["effective"], n_eff)
    low, high = wilson_by_hand(share * n_eff, n_eff)
    assert math.isclose(overall["low"], low) and math.isclose(overall["high"], high)
    assert overall["weighted"] and 0 < low < share < high < 1
    assert [g["group"] for g in data["groups"]][:2] == ["loop 1", "scan"]
    text = run_collie(capsys, "review", "--results").out
    assert f"weighted by stratum {share:.1%} (95% Wilson interval {low:.1%}-{high:.1%}" in text


def judge_in_the_page(root: Path, judged: list[tuple[int, str]]) -> None:
    """The judgements made through the review page's HTTP API, as its script makes them."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "collie", "-w", str(root), "review", "--port", str(port),
         "--no-replay", "--reviewer", "achieng", "-q"],
        stderr=subprocess.PIPE, text=True)  # fmt: skip
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # not the world's
    try:
        assert server.stderr is not None
        assert f"http://127.0.0.1:{port}/" in server.stderr.readline()
        for doc_id, label in judged:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/judge", method="POST",
                data=json.dumps({"doc_id": doc_id, "label": label}).encode(),
                headers={"Content-Type": "application/json"})  # fmt: skip
            with direct.open(request, timeout=10) as answer:
                assert answer.status == 200
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_importing_a_file_and_judging_in_the_page_give_the_same_figures(
    mined, capsys, tmp_path
) -> None:
    root = mined[0]
    sample = sample_file(capsys, root, 8)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    labels = ["mainly", "some", "none", "skip", "mainly", "mainly"]
    judged = [(int(r["doc_id"]), label) for r, label in zip(sample, labels, strict=False)]
    judge_in_the_page(root, judged)
    by_url = [(r["url"], label) for r, label in zip(sample, labels, strict=False)]  # the url column
    path = write_judgements(tmp_path / "j.tsv", by_url, header="url\tlabel\treviewer")
    done = run_collie(capsys, "-w", str(copy), "review", "--import", str(path))
    assert done.code == 0, done.err
    assert "Imported 6 judgements" in done.err
    page, imported = results(capsys, root), results(capsys, copy)
    assert page == imported and page["judged"] == 5 and page["skipped"] == 1
    assert rows(root, "SELECT doc_id, label, reviewer FROM reviews ORDER BY position") == rows(
        copy, "SELECT doc_id, label, reviewer FROM reviews ORDER BY position")  # fmt: skip


def test_bad_judgement_files_are_named_line_by_line(mined, capsys, tmp_path) -> None:
    root = mined[0]
    bad = tmp_path / "bad.tsv"
    bad.write_text("doc_id\tlabel\n1\tmainly\n", encoding="utf-8")
    early = run_collie(capsys, "review", "--import", str(bad))
    assert early.code == 2 and "no review sample" in early.err  # nothing to judge yet
    sample = sample_file(capsys, root, 5)
    first, second = sample[0], sample[1]
    outside = next(d for d, *_ in rows(root, STRATA_SQL) if str(d) not in
                   {r["doc_id"] for r in sample})  # fmt: skip
    bad.write_text(
        "doc_id\turl\tlabel\n"
        f"{first['doc_id']}\t\tmainly\n"  # line 2: good
        f"{second['doc_id']}\t\tmostly\n"  # line 3: not a label
        "999999\t\tnone\n"  # line 4: no such document
        f"{outside}\t\tnone\n"  # line 5: a document outside the sample
        "\thttp://nowhere.example/\tsome\n"  # line 6: an unknown URL
        f"{first['doc_id']}\t\tnone\n"  # line 7: the same document again
        f"x{first['doc_id']}\t\tnone\n"  # line 8: not a number
        f"{second['doc_id']}\t\t\n",  # line 9: no label yet: left out, fine
        encoding="utf-8",
    )
    done = run_collie(capsys, "review", "--import", str(bad))
    assert done.code == 1 and "6 bad rows; nothing was imported" in done.err
    for line, words in ((3, "label 'mostly' is not one of mainly, some, none, skip"),
                        (4, "document 999999 is not in the review sample"),
                        (5, f"document {outside} is not in the review sample"),
                        (6, "no document of the review sample has URL http://nowhere"),
                        (7, f"document {first['doc_id']} again (first on line 2)"),
                        (8, "is not a document number")):  # fmt: skip
        assert f"line {line}: " in done.err and words in done.err, (line, done.err)
    assert results(capsys, root)["judged"] == 0  # line 2 was not recorded either
    bad.write_text("document\tverdict\n1\tmainly\n", encoding="utf-8")
    header = run_collie(capsys, "review", "--import", str(bad))
    assert header.code == 1 and "line 1 of" in header.err and "doc_id (or url)" in header.err
    bad.write_bytes(b"doc_id\tlabel\n1\tmain\xe9\n")
    latin = run_collie(capsys, "review", "--import", str(bad))
    assert latin.code == 1 and "is not UTF-8 text" in latin.err
    both = run_collie(capsys, "review", "--results", "--import", str(bad))
    assert both.code == 2 and "one of --results, --export-sample and --import" in both.err
