"""Issue 59: a known target fitted to the user's documents beside a neighbour the model
knows: init names the neighbour, each loop judges the corpus again beside the web's
pages of it, and the neighbour's pages stay out of the corpus."""

from __future__ import annotations

import io
from pathlib import Path

import collie
from collie.langid.modelfile import read_model
from collie.mininet.demo import demo_options, ensure_world, run_demo


def test_a_fitted_target_known_from_the_udhr_keeps_its_known_neighbours_out(tmp_path: Path) -> None:
    # Zulu known from the UDHR alone (langid.hide zul/real), as Kirundi is, fitted to its
    # seed documents; a third of the sites in Xhosa, Ndebele and Swati, which it knows.
    world, _ = ensure_world(demo_options(sites=40, learn=True))
    result = run_demo(world, tmp_path / "run", delay=0.0, quiet=True, echo=io.StringIO(),
                      hide=("zul/real",))  # fmt: skip
    root = tmp_path / "run" / "workspace"
    model = read_model(root / "models" / "langid.npz")
    assert "zul/user" in model.columns and "zul/real" not in model.columns
    assert {"xho", "nbl", "ssw"} & set(model.meta["neighbours"]["zul"])  # named at init
    # The loop gave the neighbours columns of the web's text of them ...
    web = model.meta["neighbour_web"]
    assert web and all(f"{code}/web" in model.columns for code in web)
    # ... and none of their pages is in the corpus, the target's found as before.
    scores = result.scores
    assert scores.relative_pages_fetched and scores.relative_pages_exported == 0
    assert scores.precision_some >= 0.99 and scores.recall_reachable >= 0.8
    # `collie status` shows the corpus's letters by paragraph language: a neighbour's
    # share, if any slipped in, is there to see.
    text = collie.Workspace(root).status()["corpus_text"]
    assert text["letters"] > 10_000 and next(iter(text["shares"])) == "zul"
    assert sum(text["shares"].values()) <= 1.0001 and len(text["shares"]) <= 5, text
