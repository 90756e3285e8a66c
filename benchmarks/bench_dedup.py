"""Near-duplicate detection: feature choice, fingerprint speed, index speed and memory.

1. Quality of the fingerprint's features on real text (UDHR training paragraphs of 120
   languages, 12-paragraph texts): share of texts that stay within distance 3 after one
   changed word and after a few added boilerplate words, and the closest two different
   texts of one language come. Ours (character 5-grams) beside word 3-shingles.
2. Fingerprint speed: ours vs `simhash.Simhash(text)` (the package's default features).
3. The in-memory block index: insert + query 1,000,000 fingerprints, and at 100,000
   beside `simhash.SimhashIndex` (k=3) in the same run.
4. The workspace's index, what `collie run` uses (the run's `Deduplicator`: exact keys
   looked up in the documents' indexed column, fingerprints in table `documents` and in
   a BlockIndex, paragraph sketches in a ParagraphIndex): insert + query 1,000,000
   documents (issue 7 target: < 60 s, < 2 GiB).
5. Edited copies (issue 18): real news articles (../shared/data/news-text when present,
   else UDHR paragraphs; say which) and a copy of each with one paragraph dropped, one
   word changed, a credit line and two paragraphs of another site's text added, or all
   three; the share caught by the simhash alone (distance 3), by the paragraph sketch
   alone, and by the Deduplicator (both); and different articles taken for copies.
Run: python benchmarks/bench_dedup.py
"""

from __future__ import annotations

import random
import resource
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from simhash import Simhash, SimhashIndex

from collie.decide.dedup import (
    BlockIndex,
    Deduplicator,
    ParagraphIndex,
    hamming,
    paragraph_sketch,
    simhash_text,
)
from collie.models import DocumentRow, ParagraphSketch
from collie.store import Database, Store
from collie.store.database import connect
from collie.store.migrations import migrate
from collie.text import tokenize
from collie.udhr import load_declarations


def word_shingle_hash(text: str) -> int:
    tokens = tokenize(text)
    grams = Counter(" ".join(tokens[i : i + 3]) for i in range(max(1, len(tokens) - 2)))
    return Simhash(dict(grams)).value


def quality(texts: list[tuple[str, str]]) -> None:
    rng = random.Random(7)
    print("1. features (120 UDHR languages; share within distance 3, higher is better;")
    print("   closest different texts of one language, higher is better)")
    for name, fingerprint in (("character 5-grams (collie)", simhash_text),
                              ("word 3-shingles (md5)", word_shingle_hash)):  # fmt: skip
        edits, boiler, different = [], [], []
        for text, other in texts:
            words = text.split()
            i = rng.randrange(len(words))
            edited = " ".join([*words[:i], words[i] + "x", *words[i + 1 :]])
            framed = f"Home News About us\n{text}\nCopyright 2024 Media House Share on Facebook"
            base = fingerprint(text)
            edits.append(hamming(base, fingerprint(edited)) <= 3)
            boiler.append(hamming(base, fingerprint(framed)) <= 3)
            different.append(hamming(base, fingerprint(other)))
        print(f"   {name:28s} one word changed {statistics.mean(edits):5.0%}   boilerplate "
              f"added {statistics.mean(boiler):5.0%}   different texts: min {min(different)},"
              f" median {statistics.median(different):.0f} bits")  # fmt: skip


def speed(texts: list[str]) -> None:
    started = time.perf_counter()
    for text in texts:
        simhash_text(text)
    ours = (time.perf_counter() - started) / len(texts) * 1000
    started = time.perf_counter()
    for text in texts:
        Simhash(text)
    theirs = (time.perf_counter() - started) / len(texts) * 1000
    size = statistics.mean(len(t) for t in texts)
    print(f"2. fingerprint of a {size:,.0f}-character text: collie {ours:.2f} ms, "
          f"simhash.Simhash(text) {theirs:.2f} ms; ratio {theirs / ours:.1f}x")  # fmt: skip


def fingerprints(count: int, seed: int) -> list[int]:
    """Random fingerprints, every tenth a near-duplicate (1-3 bits flipped) of an earlier one."""
    rng = random.Random(seed)
    out: list[int] = []
    for i in range(count):
        if i % 10 == 9:
            fp = out[rng.randrange(len(out))]
            for bit in rng.sample(range(64), rng.randint(1, 3)):
                fp ^= 1 << bit
            out.append(fp)
        else:
            out.append(rng.getrandbits(64))
    return out


def run_ours(fps: list[int]) -> tuple[float, int]:
    index = BlockIndex(max_distance=3)
    started = time.perf_counter()
    found = 0
    for doc_id, fp in enumerate(fps):
        found += index.find(fp) is not None  # the pipeline's order: query, then insert
        index.add(doc_id, fp)
    return time.perf_counter() - started, found


def run_package(fps: list[int]) -> tuple[float, int]:
    index = SimhashIndex([], k=3)
    started = time.perf_counter()
    found = 0
    for doc_id, fp in enumerate(fps):
        value = Simhash(fp)
        found += bool(index.get_near_dups(value))
        index.add(str(doc_id), value)
    return time.perf_counter() - started, found


def run_workspace_index(fps: list[int]) -> tuple[float, int]:
    """The run's lookups (Deduplicator over Store.exact_original) and
    Store.insert_document for each fingerprint, 1,000 a transaction, in a real workspace
    database (pages rows made beforehand)."""
    with tempfile.TemporaryDirectory() as tmp:
        conn = connect(Path(tmp) / "collie.db")
        migrate(conn)
        with conn:
            conn.executemany(
                "INSERT INTO pages (id, url, site, loop, source, depth, status) "
                "VALUES (?, ?, 's', 1, 'search', 0, 'kept')",
                ((i + 1, f"http://s/{i}") for i in range(len(fps))),
            )
        store = Store(Database(conn, Path(tmp)))
        originals = Deduplicator(3, store.pages.exact_original)
        doc = DocumentRow("target", "zul", "", [], 0)
        rng = random.Random(5)
        started = time.perf_counter()
        found = 0
        for start in range(0, len(fps), 1000):
            with conn:
                for i in range(start, min(start + 1000, len(fps))):
                    keys = frozenset(rng.getrandbits(64) for _ in range(8))  # 8 paragraphs
                    doc.sketch = ParagraphSketch(keys, tuple(sorted(keys)[:4]), 2000)
                    doc.duplicate_of = originals.find(f"k{i}", fps[i], doc.sketch)
                    found += doc.duplicate_of is not None
                    doc_id = store.pages.insert_document(i + 1, doc, f"k{i}", fps[i])
                    if doc.duplicate_of is None:
                        originals.add(doc_id, f"k{i}", fps[i], doc.sketch)
        elapsed = time.perf_counter() - started
        conn.close()
    return elapsed, found


NEWS = Path(__file__).resolve().parents[2] / "shared" / "data" / "news-text"
CREDIT = "Lolu daba luqale lwashicilelwa ku-Isolezwe."  # "first published in ..."


def articles(declarations: dict) -> tuple[list[list[str]], str]:
    """Articles as lists of paragraphs (2-3 sentences each, 4-8 paragraphs), and where
    the text came from."""
    rng = random.Random(11)
    out: list[list[str]] = []
    if NEWS.is_dir():
        source = "real news sentences, ../shared/data/news-text (7 languages)"
        for path in sorted(NEWS.glob("*.txt")):
            sentences = [s.strip() for s in path.read_text(encoding="utf-8").splitlines()]
            sentences = [s for s in sentences if len(s) > 20]
            at = 0
            while at < len(sentences) - 30 and len(out) < 400 * (1 + len(out) // 400):
                article = []
                for _ in range(rng.randint(4, 8)):
                    take = rng.randint(2, 3)
                    article.append(" ".join(sentences[at : at + take]))
                    at += take
                out.append(article)
                if len(out) % 300 == 0:
                    break
    else:
        source = "UDHR paragraphs (no ../shared/data/news-text here)"
        for code in sorted(declarations):
            paragraphs = declarations[code].training_paragraphs()
            for at in range(0, len(paragraphs) - 8, 8):
                out.append(paragraphs[at : at + rng.randint(4, 8)])
    return out, source


def edited(article: list[str], kind: str, other: list[str], rng: random.Random) -> list[str]:
    copy = list(article)
    if kind in ("dropped", "all"):
        del copy[rng.randrange(len(copy))]
    if kind in ("word", "all"):
        i = rng.randrange(len(copy))
        words = copy[i].split()
        words[rng.randrange(len(words))] = "ngempela"
        copy[i] = " ".join(words)
    if kind in ("added", "all"):
        copy = [other[0], *copy, CREDIT, other[-1]]
    return copy


def edited_copies(declarations: dict) -> None:
    texts, source = articles(declarations)
    rng = random.Random(3)
    print(f"5. edited copies of {len(texts)} articles ({source}); share caught:")
    kinds = ("dropped", "word", "added", "all")
    schemes = ("simhash <= 3", "paragraph sketch", "Deduplicator (both)")
    caught = {(scheme, kind): 0 for scheme in schemes for kind in kinds}
    index, sketches, blocks = ParagraphIndex(), [], BlockIndex(3)
    originals = Deduplicator(3)
    false_positives = {scheme: 0 for scheme in schemes}
    for doc_id, article in enumerate(texts):
        text, sketch = "\n".join(article), paragraph_sketch(article)
        fp = simhash_text(text)
        false_positives["simhash <= 3"] += blocks.find(fp) is not None
        false_positives["paragraph sketch"] += index.find(sketch) is not None
        false_positives["Deduplicator (both)"] += (
            originals.find(str(doc_id), fp, sketch) is not None
        )
        blocks.add(doc_id, fp)
        index.add(doc_id, sketch)
        originals.add(doc_id, str(doc_id), fp, sketch)
        sketches.append((fp, sketch))
    for doc_id, article in enumerate(texts):
        other = texts[(doc_id + 7) % len(texts)]
        for kind in kinds:
            copy = edited(article, kind, other, rng)
            fp, sketch = simhash_text("\n".join(copy)), paragraph_sketch(copy)
            caught["simhash <= 3", kind] += hamming(fp, sketches[doc_id][0]) <= 3
            caught["paragraph sketch", kind] += index.find(sketch) == doc_id
            caught["Deduplicator (both)", kind] += originals.find("copy", fp, sketch) == doc_id
    print(
        f"   {'':<22}"
        + "".join(f"{k:>10}" for k in kinds)
        + "   different articles taken for copies"
    )
    for scheme in schemes:
        shares = "".join(f"{caught[scheme, k] / len(texts):>10.1%}" for k in kinds)
        print(f"   {scheme:<22}{shares}   {false_positives[scheme]} of {len(texts)}")


def main() -> None:
    declarations = load_declarations()
    texts = []
    for code in sorted(declarations):
        paragraphs = declarations[code].training_paragraphs()
        if len(paragraphs) >= 30:
            texts.append(("\n".join(paragraphs[:12]), "\n".join(paragraphs[12:24])))
    quality(texts[:120])
    speed([text for text, _ in texts[:120]])
    small = fingerprints(100_000, seed=1)
    ours_s, ours_found = run_ours(small)
    pkg_s, pkg_found = run_package(small)
    print("3. in-memory index, insert + query 100,000 fingerprints (10% planted "
          f"near-duplicates):\n"
          f"   collie BlockIndex {ours_s:6.2f} s ({ours_found} found)   simhash.SimhashIndex "
          f"{pkg_s:6.2f} s ({pkg_found} found); ratio {pkg_s / ours_s:.1f}x")  # fmt: skip
    big = fingerprints(1_000_000, seed=2)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    big_s, big_found = run_ours(big)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    verdict = "met" if big_s < 60 and peak < 2048 else "NOT met"
    print(f"   collie BlockIndex, 1,000,000 fingerprints: {big_s:.1f} s, {big_found} found, "
          f"peak RSS {peak:.0f} MB (before: {before:.0f} MB); target < 60 s and < 2 GiB: "
          f"{verdict}")  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ws_s, ws_found = run_workspace_index(big)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    verdict = "met" if ws_s < 60 and peak < 2048 else "NOT met"
    print(f"4. workspace index (SQLite + BlockIndex), 1,000,000 fingerprints: {ws_s:.1f} s, "
          f"{ws_found} found (near-duplicates of near-duplicates are not indexed), peak RSS "
          f"{peak:.0f} MB; target < 60 s and < 2 GiB: {verdict}")  # fmt: skip
    edited_copies(declarations)


if __name__ == "__main__":
    main()
