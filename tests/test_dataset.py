"""`collie export DIR --format dataset` (issue 57): gzip'd JSON-lines shards a plain
reader loads, and a dataset card whose YAML header parses and whose every figure is
`collie report --json`'s."""

from __future__ import annotations

import gzip
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest

from collie.corpus import dataset
from collie.corpus.dataset import licence_field, size_category, yaml_lines

from .clihelp import run_collie


def parse_yaml(text: str) -> Any:
    """The block-YAML subset a dataset card's header is written in (mappings, lists of
    scalars or mappings, double-quoted strings, numbers, booleans), read independently
    of collie's writer."""
    lines = [line for line in text.splitlines() if line.strip()]

    def scalar(raw: str) -> Any:
        raw = raw.strip()
        if raw.startswith('"'):
            return json.loads(raw)
        if raw in ("true", "false"):
            return raw == "true"
        return float(raw) if "." in raw else int(raw)

    def block(i: int, indent: int) -> tuple[Any, int]:
        if lines[i][indent:].startswith("- "):
            items: list[Any] = []
            while i < len(lines) and lines[i].startswith(" " * indent + "- "):
                rest = lines[i][indent + 2 :]
                if re.match(r"[\w-]+:", rest):  # a mapping in the list
                    lines[i] = " " * (indent + 2) + rest
                    value, i = block(i, indent + 2)
                else:
                    value, i = scalar(rest), i + 1
                items.append(value)
            return items, i
        mapping: dict[str, Any] = {}
        while i < len(lines) and len(lines[i]) - len(lines[i].lstrip()) == indent:
            if lines[i][indent:].startswith("- "):
                break
            key, _, rest = lines[i].strip().partition(":")
            if rest.strip():
                mapping[key], i = scalar(rest), i + 1
                continue
            inner = len(lines[i + 1]) - len(lines[i + 1].lstrip())
            mapping[key], i = block(i + 1, inner)
        return mapping, i

    return block(0, 0)[0]


def card_parts(card: str) -> tuple[dict[str, Any], str]:
    assert card.startswith("---\n")
    header, body = card[4:].split("\n---\n", 1)
    return parse_yaml(header), body


def table(body: str, first: str) -> dict[str, list[str]]:
    """The card's table whose header starts with `first`: its first column -> the rest."""
    lines = body.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first} |"))
    rows: dict[str, list[str]] = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        rows[cells[0]] = cells[1:]
    return rows


def figure(value: Any) -> str:
    return dataset._cell(value)


def test_the_yaml_writer_round_trips_through_an_independent_reader() -> None:
    header = {
        "pretty_name": 'Dholuo "web" corpus: ok',
        "language": ["luo"],
        "license": ["cc-by-4.0", "cc-by-sa-4.0"],
        "size_categories": ["n<1K"],
        "flag": True,
        "configs": [{"config_name": "default",
                     "data_files": [{"split": "train", "path": "data/train-*.jsonl.gz"}]}],
    }  # fmt: skip
    assert parse_yaml("\n".join(yaml_lines(header))) == header
    assert [size_category(n) for n in (0, 999, 1000, 12_345, 2_000_000)] == [
        "n<1K", "n<1K", "1K<n<10K", "10K<n<100K", "1M<n<10M"
    ]  # fmt: skip
    from collections import Counter

    assert licence_field(Counter({"CC-BY-SA-4.0": 3}))[0] == "cc-by-sa-4.0"
    assert licence_field(Counter({"CC-BY-4.0": 1, "CC0-1.0": 2}))[0] == ["cc-by-4.0", "cc0-1.0"]
    assert licence_field(Counter({"CC-BY-4.0": 1, "": 2}))[0] == "other"
    assert licence_field(Counter({"CC-BY-NC-4.0": 1}))[0] == "other"


@pytest.mark.slow
def test_the_dataset_loads_and_its_card_says_what_the_report_says(mined, capsys) -> None:
    root, _, _ = mined
    out = root.parent / "zulu-dataset"
    done = run_collie(capsys, "export", str(out), "--format", "dataset")
    assert done.code == 0, done.err
    report = json.loads(run_collie(capsys, "report", "--json").out)
    collection = report["collection"]

    shards = sorted((out / "data").glob("*.jsonl.gz"))
    assert [p.name for p in shards] == ["train-00000-of-00001.jsonl.gz"]
    documents = []
    for shard in shards:
        with gzip.open(shard, "rt", encoding="utf-8") as handle:
            documents += [json.loads(line) for line in handle]
    assert len(documents) == collection["documents"] > 0
    assert sum(d["words"] for d in documents) == collection["words"]
    assert {"url", "text", "licence", "tdm_reserved", "langid", "paragraphs"} <= set(documents[0])
    lm = report["language_model"]
    for document in documents:  # how each document's language was identified
        langid = document["langid"]
        assert (langid["model"], langid["sha256"]) == (lm["version"], lm["sha256"])
        assert langid["threshold"] == lm["threshold"]
        # 0: the model named no language (a short page its linking pages voted for)
        assert 0 <= langid["margin"] <= 1 and langid["chars"] >= len(document["text"]) / 2
    assert sum(d["langid"]["margin"] > 0.5 for d in documents) > len(documents) / 2
    assert lm["documents_by_model"] == {f"{lm['version']} {lm['sha256']}": len(documents)}

    header, body = card_parts((out / "README.md").read_text(encoding="utf-8"))
    assert header["language"] == ["zu"]
    assert header["pretty_name"] == "Zulu web corpus (collie)"
    assert header["size_categories"] == ["n<1K"]
    assert header["license"] == "other"  # no page of the world states a licence
    assert header["configs"][0]["data_files"][0]["path"] == "data/train-*.jsonl.gz"

    facts = table(body, "collection")
    expected = {
        "loops": collection["loops"],
        "first loop started": collection["first_started"],
        "last loop finished": collection["last_finished"],
        "search backend": collection["backend"],
        "queries answered": collection["queries_answered"],
        "search requests": collection["search_requests"],
        "distinct result URLs": collection["result_urls"],
        "pages fetched": collection["pages_fetched"],
        "sites": collection["sites"],
        "documents": collection["documents"],
        "documents from search": collection["documents_by_source"]["search"],
        "documents from crawling": collection["documents_by_source"]["crawl"],
        "words": collection["words"],
    }
    assert {k: facts[k][0] for k in expected} == {k: figure(v) for k, v in expected.items()}
    loops = table(body, "loop")
    for loop in report["loops"]:
        row = loops[str(loop["number"])]
        assert row[:5] == [figure(loop["started_at"]), figure(loop["finished_at"]),
                           figure(loop["documents"]["search"]),
                           figure(loop["documents"]["crawl"]), figure(loop["words"])]  # fmt: skip
    labels = table(body, "label")
    for name, shares in report["site_labels"].items():
        keys = ("sites", "documents", "document_share", "words", "word_share")
        assert labels[name] == [figure(shares[k]) for k in keys]
    rights = table(body, "rights (the corpus)")
    assert rights["documents"][0] == figure(report["rights"]["documents"])
    assert rights["stating a licence"] == ["0", figure(0.0)]
    model = table(body, "setting")
    assert model["SHA-256"] == [report["language_model"]["sha256"]]
    assert model["version"] == [report["language_model"]["version"]]
    by_model = table(body, "documents identified by the model")
    assert {k: v[0] for k, v in by_model.items()} == {
        k: figure(v) for k, v in lm["documents_by_model"].items()
    }
    assert model["langid.threshold"] == [figure(report["language_model"]["threshold"])]
    assert model["dedup.max_distance"] == [figure(report["near_duplicates"]["dedup.max_distance"])]
    robots = sum(loop["dropped"].get("robots", 0) for loop in report["loops"])
    assert f"Pages robots.txt disallows, not fetched: {robots}." in body
    assert "Not audited yet" in body

    # judged: the audit's table is the report's, interval for interval
    sample = run_collie(capsys, "review", "--sample", "100", "--export-sample",
                        str(root.parent / "s.tsv"))  # fmt: skip
    assert sample.code == 0, sample.err
    ids = [line.split("\t")[0] for line in (root.parent / "s.tsv").read_text().splitlines()[1:]]
    judged = ["doc_id\tlabel\treviewer"] + [
        f"{doc}\t{'mainly' if i % 4 else 'some'}\tachieng" for i, doc in enumerate(ids)
    ]
    (root.parent / "j.tsv").write_text("\n".join(judged) + "\n", encoding="utf-8")
    assert run_collie(capsys, "review", "--import", str(root.parent / "j.tsv")).code == 0
    again = run_collie(capsys, "export", str(out), "--format", "dataset", "--force")
    assert again.code == 0, again.err
    audit = json.loads(run_collie(capsys, "report", "--json").out)["audit"]
    _, body = card_parts((out / "README.md").read_text(encoding="utf-8"))
    rows = table(body, "class")
    assert audit["overall"] == audit["classes"][0]  # mainly: one row says both
    for row in audit["classes"]:
        assert rows[row["label"]] == [figure(row[k]) for k in
                                      ("count", "judged", "share", "low", "high")]  # fmt: skip
    assert f"judged {audit['judged']} documents" in body

    refused = run_collie(capsys, "export", "-", "--format", "dataset")
    assert refused.code == 2 and "folder" in refused.err
    wrong = run_collie(capsys, "export", "x.jsonl", "--format", "jsonl", "--shards", "parquet")
    assert wrong.code == 2 and "--shards is for --format dataset" in wrong.err
    if importlib.util.find_spec("pyarrow") is not None:  # the parquet extra (also test's)
        check_parquet(root.parent / "zulu-parquet", documents, capsys)


def check_parquet(out: Path, documents: list[dict[str, Any]], capsys) -> None:
    """--shards parquet: the same documents, field for field, as the JSON-lines shards,
    and a card that names the Parquet files."""
    import pyarrow.parquet as pq

    done = run_collie(capsys, "export", str(out), "--format", "dataset", "--shards", "parquet")
    assert done.code == 0, done.err
    shards = sorted((out / "data").glob("*"))
    assert [p.name for p in shards] == ["train-00000-of-00001.parquet"]
    rows = [row for shard in shards for row in pq.read_table(shard).to_pylist()]
    assert rows == documents
    header, body = card_parts((out / "README.md").read_text(encoding="utf-8"))
    assert header["configs"][0]["data_files"][0]["path"] == "data/train-*.parquet"
    assert "1 Parquet shard of one train split" in body
