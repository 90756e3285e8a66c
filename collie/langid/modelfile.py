"""A language model's file: its arrays in an .npz (no pickled objects), written by
`save_model`, read by `read_model`; `load_model` gives the bundled model (loaded once)
or the one at a path.
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from collie.errors import InputError
from collie.langid.features import letter_table, use_letter_table
from collie.langid.groups import Discriminator
from collie.langid.maxent import Stacker
from collie.langid.model import LangModel

FORMAT = "collie-langid-nb-2"
BUNDLED = "data/langid/model.npz"


# zlib level of the model file: a workspace's model is written at each `init` and each
# change of it, fast (level 1: 3.6x faster than 6 and 7% larger); the bundled model, built
# once and shipped in the wheel, at BUNDLED_LEVEL.
LEVEL = 1
BUNDLED_LEVEL = 6


def save_model(model: LangModel, path: Path, level: int = LEVEL) -> None:
    """Write the model's arrays to an .npz file (no pickled objects), its entries
    deflated at zlib `level`."""
    counts = model.counts.tocsr()
    counts.sum_duplicates()
    header = {
        "format": FORMAT,
        "columns": model.columns,
        "sizes": model.sizes,
        "alpha": model.alpha,
        "temperature": model.temperature,
        "power": model.power,
        "orders": list(model.orders),
        "meta": model.meta,
    }
    if model.stacker is not None:
        header["stack_margin"] = model.stacker.margin
    if model.groups:
        header["groups"] = [list(group.members) for group in model.groups]
    arrays: dict[str, Any] = {  # (Any: numpy's stub would match allow_pickle)
        "keys": model.keys.astype(np.uint64),
        "data": np.minimum(counts.data, 65535).astype(np.uint16),
        "indices": counts.indices.astype(np.int16),
        "indptr": counts.indptr.astype(np.int32),
        "letters": np.packbits(letter_table()),
    }
    if model.stacker is not None:
        arrays["stack_weights"] = model.stacker.weights.astype(np.float32)
        arrays["stack_bias"] = model.stacker.bias.astype(np.float32)
    for number, group in enumerate(model.groups):  # weights in half precision: 2 bytes
        arrays[f"group{number}_keys"] = group.keys.astype(np.uint64)
        arrays[f"group{number}_weights"] = group.weights.astype(np.float16)
    header_bytes = np.frombuffer(json.dumps(header, sort_keys=True).encode(), np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    # The .npz layout of np.savez_compressed, with a fixed date in every entry so that the
    # same model gives the same bytes (np.savez stamps the current time).
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, array in {"header": header_bytes, **arrays}.items():
            entry = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asanyarray(array), allow_pickle=False)
            archive.writestr(entry, buffer.getvalue(), compresslevel=level)


def read_model(path: Path | Any) -> LangModel:
    """A model from an .npz file written by `save_model`."""
    try:
        with np.load(path, allow_pickle=False) as arrays:
            header = json.loads(arrays["header"].tobytes().decode())
            keys, data = arrays["keys"], arrays["data"]
            indices, indptr = arrays["indices"], arrays["indptr"]
            if "letters" in arrays.files:
                use_letter_table(arrays["letters"])
            stacker = None
            if "stack_weights" in arrays.files:
                stacker = Stacker(
                    arrays["stack_weights"].astype(np.float32),
                    arrays["stack_bias"].astype(np.float32),
                    float(header["stack_margin"]),
                )
            groups = [
                Discriminator(
                    tuple(members),
                    arrays[f"group{number}_keys"],
                    arrays[f"group{number}_weights"].astype(np.float32),
                )
                for number, members in enumerate(header.get("groups", []))
            ]
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise InputError(
            f"{path} is not a collie language model ({exc}).",
            "Give a file written by `collie langid train --out`, or leave --model out.",
        ) from None
    if header.get("format") != FORMAT:
        raise InputError(f"{path}: unknown model format {header.get('format')!r}.")
    counts = sp.csr_matrix(
        (data.astype(np.float32), indices.astype(np.int32), indptr.astype(np.int64)),
        shape=(len(keys), len(header["columns"])),
    )
    return LangModel(
        columns=list(header["columns"]),
        keys=keys,
        counts=counts,
        sizes=list(header["sizes"]),
        alpha=float(header["alpha"]),
        temperature=float(header["temperature"]),
        power=float(header.get("power", 0.5)),
        orders=tuple(header["orders"]),
        meta=dict(header.get("meta", {})),
        stacker=stacker,
        groups=groups,
    )


_BUNDLED: LangModel | None = None


def load_model(path: Path | str | None = None) -> LangModel:
    """The bundled model (loaded once, lazily), or the model stored at `path`."""
    global _BUNDLED
    if path is not None:
        return read_model(Path(path))
    if _BUNDLED is None:
        resource = resources.files("collie").joinpath(BUNDLED)
        if not resource.is_file():
            raise InputError(
                "collie's bundled language model is missing.",
                "Build it with `PYTHONPATH=. python langmodel/build.py` or reinstall collie.",
            )
        with resources.as_file(resource) as file:
            _BUNDLED = read_model(file)
    return _BUNDLED
