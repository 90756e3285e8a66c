"""The audit of an open workspace: the strata's documents and the judgements read from
the store, each site's labels (the one place they are read), the figures (audit.py);
for `collie review --results` and `collie report`."""

from __future__ import annotations

from collections import Counter
from typing import Any

from collie.corpus.review.audit import Judged, audit
from collie.corpus.review.sample import Stratum, origin_name
from collie.corpus.sites import site_labels
from collie.store import ReviewStore
from collie.workspace.folder import Workspace


def site_label_names(ws: Workspace) -> dict[str, list[str]]:
    """Each site's labels (collie.corpus.sites: religious, multilingual, relative) by
    site, as the sample's strata and the audit's groups take them: the one place they
    are read. A site without a label is left out."""
    return {site: [label.label for label in labels] for site, labels in site_labels(ws).items()}


def audit_data(ws: Workspace) -> dict[str, Any]:
    """The audit of an open workspace (also the report's)."""
    store = ReviewStore(ws.db)
    sizes: Counter[Stratum] = Counter(
        Stratum(site, origin_name(loop, scanned))
        for _, site, loop, scanned in store.review_candidates()
    )
    sample = store.review_sample()
    judged = [
        Judged(Stratum(row["site"], origin_name(row["loop"], row["scanned"])), row["label"])
        for row in sample
        if row["label"] not in (None, "skip")
    ]
    skipped = sum(1 for row in sample if row["label"] == "skip")
    data = audit(judged, sizes, site_label_names(ws), skipped)
    return {"language": ws.language.code, "language_name": ws.language.display_name, **data}
