"""Reading the user's seed documents: walk directories, decode, de-duplicate.

`plan_seed_documents` reads everything into memory and decides where each document will
live under `seed/`; it writes nothing, so `collie init` can refuse bad input before it
touches the disk. Files named explicitly must be usable text; files found by walking a
directory are skipped with a reason when they are not (binary, empty, undecodable,
hidden, a copy). Named files are read first, so a file given with --wronglang stays
wrong-language text even inside a --docs folder.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from collie.errors import InputError
from collie.languages import resolve_language
from collie.page.encoding import decode_text_file
from collie.text import count_words

MAX_FILE_BYTES = 200 * 1024 * 1024
_ROLE_TEXT = {"target": "target text (--docs)", "wronglang": "wrong-language text (--wronglang)"}


@dataclass(frozen=True)
class SeedDocument:
    role: str  # "target" or "wronglang"
    lang: str | None  # ISO 639-3 (the target's, or a wronglang code when one was given)
    source: str  # the path as found on disk
    path: str  # where it will live, relative to the workspace (POSIX)
    text: str
    sha256: str
    encoding: str
    method: str
    confidence: float
    words: int


@dataclass(frozen=True)
class Skipped:
    source: str
    reason: str


@dataclass
class SeedPlan:
    documents: list[SeedDocument] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def words(self, role: str) -> int:
        return sum(d.words for d in self.documents if d.role == role)

    def count(self, role: str) -> int:
        return sum(1 for d in self.documents if d.role == role)


@dataclass(frozen=True)
class SeedInput:
    """One --docs or --wronglang argument."""

    path: Path
    role: str
    lang: str | None


def wronglang_input(value: str) -> SeedInput:
    """`--wronglang [CODE=]PATH`: wrong-language text, tagged with its language when a
    code or name comes before `=` (and the whole value is not itself a path)."""
    prefix, sep, rest = value.partition("=")
    if sep and prefix and "/" not in prefix and "\\" not in prefix and not Path(value).exists():
        return SeedInput(Path(rest), "wronglang", resolve_language(prefix).language.code)
    return SeedInput(Path(value), "wronglang", None)


def _walk(path: Path) -> tuple[list[tuple[Path, PurePosixPath]], list[Skipped]]:
    """(file, path relative to the argument's parent) for a file or a directory tree,
    and the hidden files and folders left out (each hidden folder once)."""
    if path.is_file():
        return [(path, PurePosixPath(path.name))], []
    found, hidden = [], []
    for file in sorted(path.rglob("*")):
        parts = file.relative_to(path).parts
        first_hidden = next((i for i, part in enumerate(parts) if part.startswith(".")), None)
        if first_hidden == len(parts) - 1:
            what = "folder" if file.is_dir() else "file"
            hidden.append(Skipped(str(file), f"hidden {what} (its name starts with '.'), not read"))
        if first_hidden is None and file.is_file():
            found.append((file, PurePosixPath(path.name, *parts)))
    return found, hidden


def _destination(item: SeedInput, relative: PurePosixPath, taken: set[str]) -> str:
    folder = "docs" if item.role == "target" else f"wronglang/{item.lang or 'any'}"
    base = PurePosixPath("seed", folder, relative)
    candidate, n = base, 1
    while str(candidate) in taken:
        n += 1
        candidate = base.with_name(f"{base.stem}-{n}{base.suffix}")
    taken.add(str(candidate))
    return str(candidate)


def plan_seed_documents(
    inputs: list[SeedInput],
    min_confidence: float = 0.7,
    encoding: str | None = None,
) -> SeedPlan:
    """Read and decode every input; raise InputError for unusable explicit files."""
    plan = SeedPlan()
    taken: set[str] = set()
    seen: dict[str, tuple[str, str]] = {}  # text digest -> (file, role)
    for item in sorted(inputs, key=lambda i: not i.path.is_file()):  # named files first
        if not item.path.exists():
            wrong = item.role == "wronglang"
            raise InputError(
                f"{'--wronglang' if wrong else '--docs'} {item.path}: no such file or folder.",
                "Check the path and try again"
                + (" (--wronglang takes PATH or CODE=PATH)." if wrong else "."),
            )
        explicit = item.path.is_file()
        files, hidden = _walk(item.path)
        if not files:
            also = f" but hidden ones ({hidden[0].source}...)" if hidden else ""
            raise InputError(
                f"{item.path} holds no files{also}.", "Give text files or folders of them."
            )
        plan.skipped += hidden
        for file, relative in files:
            problem = _read(file, min_confidence, encoding, item, relative, taken, seen, plan)
            if problem is None:
                continue
            if explicit and not problem.startswith("same text as"):
                raise InputError(f"{file}: {problem}.", _advice(problem))
            plan.skipped.append(Skipped(str(file), problem))
    return plan


def _read(
    file: Path,
    min_confidence: float,
    encoding: str | None,
    item: SeedInput,
    relative: PurePosixPath,
    taken: set[str],
    seen: dict[str, tuple[str, str]],
    plan: SeedPlan,
) -> str | None:
    """Add one file to the plan; return why it cannot be used, or None."""
    try:
        if file.stat().st_size > MAX_FILE_BYTES:
            return f"larger than {MAX_FILE_BYTES // 2**20} MiB"
        data = file.read_bytes()
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if not data:
        return "empty (0 bytes)"
    decoded = decode_text_file(data, min_confidence, encoding)
    if decoded.text is None:
        if decoded.reason == "encoding-uncertain":
            return (
                f"encoding uncertain (best guess {decoded.encoding}, confidence "
                f"{decoded.confidence:.2f} < encoding.min_confidence {min_confidence})"
            )
        return "not a text file" if decoded.reason == "binary" else f"{decoded.reason}"
    words = count_words(decoded.text)
    if words == 0:
        return "holds no words"
    digest = hashlib.sha256(decoded.text.encode("utf-8")).hexdigest()
    if digest in seen:
        other, role = seen[digest]
        kept = "" if role == item.role else f", kept as {_ROLE_TEXT[role]} only"
        return f"same text as {other}{kept}"
    seen[digest] = (str(file), item.role)
    plan.documents.append(
        SeedDocument(
            role=item.role,
            lang=item.lang,
            source=str(file),
            path=_destination(item, relative, taken),
            text=decoded.text,
            sha256=digest,
            encoding=decoded.encoding or "utf-8",
            method=decoded.method,
            confidence=decoded.confidence,
            words=words,
        )
    )
    return None


def _advice(problem: str) -> str:
    if problem.startswith("encoding uncertain"):
        guess = problem.split("best guess ", 1)[1].split(",", 1)[0]
        return (
            f"If {guess} is right, say so with --encoding {guess}; otherwise name the "
            "encoding with --encoding NAME or convert the file to UTF-8."
        )
    return "Give plain-text files (UTF-8 preferred)."
