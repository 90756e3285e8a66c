"""Language table: cold load in a fresh process, and resolution speed once loaded.

python benchmarks/bench_languages.py
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time

from collie.errors import LanguageNotFound
from collie.languages import resolve_language

COLD = (
    "import time; t = time.perf_counter(); from collie.languages import resolve_language; "
    "resolve_language('Dholuo'); print(time.perf_counter() - t)"
)


def timed(query: str, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        with contextlib.suppress(LanguageNotFound):
            resolve_language(query)
    return (time.perf_counter() - start) / repeat


def main() -> None:
    colds = [
        float(
            subprocess.run(
                [sys.executable, "-c", COLD], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(3)
    ]
    print(f"cold: import + table load + first resolution: {min(colds) * 1000:.0f} ms (best of 3)")
    resolve_language("luo")
    for query, repeat in (("luo", 2000), ("sw", 2000), ("Dholuo", 2000), ("Dholuoo", 5)):
        print(f"resolve {query!r:10}: {timed(query, repeat) * 1000:8.3f} ms per call")


if __name__ == "__main__":
    main()
