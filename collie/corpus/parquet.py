"""A dataset's Parquet shards (`collie export DIR --format dataset --shards parquet`):
a row a document, the JSON-lines export's object's keys as columns, typed
(`parquet_schema`), zstd-compressed. pyarrow (Apache-2.0) is the optional extra
`parquet`, imported only here and only when asked for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from collie.errors import InputError


def parquet_writer() -> Any:
    """pyarrow.parquet, or a one-line error saying how to install it."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            "--shards parquet needs pyarrow, which is not installed; nothing was written.",
            "Install it with `pip install 'collie[parquet]'`, or leave --shards out "
            "(gzip'd JSON lines).",
        ) from None
    return pq


def parquet_schema() -> Any:
    """The Parquet columns of a document: the JSON-lines object's keys, in its order."""
    import pyarrow as pa

    text, number, count = pa.string(), pa.float64(), pa.int64()
    warc = pa.struct([("file", text), ("offset", count), ("length", count), ("record_id", text)])
    langid = pa.struct(
        [
            ("model", text),
            ("sha256", text),
            ("threshold", number),
            ("margin", number),
            ("chars", count),
        ]
    )
    paragraph = pa.struct(
        [("text", text), ("language", text), ("target", number), ("kept", pa.bool_())]
    )
    return pa.schema(
        [
            ("id", count),
            ("url", text),
            ("final_url", text),
            ("title", text),
            ("loop", count),
            ("source", text),
            ("depth", count),
            ("query", text),
            ("referrer", text),
            ("language", text),
            ("probability", number),
            ("target_share", number),
            ("words", count),
            ("encoding", text),
            ("encoding_method", text),
            ("fetched_at", text),
            ("simhash", text),
            ("warc", warc),
            ("site_labels", pa.list_(text)),
            ("licence", text),
            ("tdm_reserved", text),
            ("langid", langid),
            ("text", text),
            ("paragraphs", pa.list_(paragraph)),
        ]
    )


def write_table(records: list[dict[str, Any]], path: Path) -> None:
    """Write the documents' JSON-lines objects as one Parquet file."""
    import pyarrow as pa

    pq, schema = parquet_writer(), parquet_schema()
    if records and list(records[0]) != schema.names:  # a key the schema does not know
        raise ValueError(f"Parquet columns {schema.names} != {list(records[0])}")
    pq.write_table(pa.Table.from_pylist(records, schema=schema), path, compression="zstd")
