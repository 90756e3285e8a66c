"""The workspace's `cache/`: raw fetched bodies, gzip-compressed, named by their SHA-1
(`cache/ab/ab12...ef.gz`), so pages can be reprocessed without the network.

Compressing is separate from writing: a Dask worker compresses the bodies it fetched,
and the driver, which alone writes the workspace, writes them. Files are written whole
(a temporary file renamed), so a body file is never half there.
"""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

from collie.files import atomic_write
from collie.models import CompressedBody

CACHE_FOLDER = "cache"  # in the workspace


def compress_body(body: bytes) -> CompressedBody:
    return CompressedBody(hashlib.sha1(body).hexdigest(), gzip.compress(body, 6, mtime=0))


def body_path(cache: Path, sha1: str) -> Path:
    return cache / sha1[:2] / f"{sha1}.gz"


def write_body(cache: Path, body: CompressedBody) -> str:
    """Keep a compressed body in `cache` (unless it is there already); its SHA-1."""
    path = body_path(cache, body.sha1)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(path) as handle:
            handle.write(body.data)
    return body.sha1


def read_body(cache: Path, sha1: str) -> bytes | None:
    """The raw body, or None when its file is missing or damaged."""
    try:
        return gzip.decompress(body_path(cache, sha1).read_bytes())
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
