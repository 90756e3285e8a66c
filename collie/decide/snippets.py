"""Whether a search result looks like the target language, by what the result itself
says: its title and snippet (the engine's excerpt of the page, near the query's words).

The search stage's coverage estimate (collie.search.coverage) and its choice to ask for
a query's next page use this judgement, not the fetched page's: it is known as soon as
the answer is, the same on a resumed run and on either executor, and never waits on
fetching. A snippet is short (about 150-300 characters), so this is a cheaper, noisier
judgement than the page's; the estimate needs it only to tell which sites the search
keeps bringing up in the target language.
"""

from __future__ import annotations

from collections.abc import Sequence

from collie.langid.model import LangModel


def result_text(title: str, snippet: str) -> str:
    """What of a search result is identified: its title and snippet."""
    return f"{title.strip()}. {snippet.strip()}" if title.strip() else snippet.strip()


def judge_snippets(texts: Sequence[str], model: LangModel, target: str) -> list[bool]:
    """Per result text (`result_text`): does the model take it for the target?"""
    if not texts:
        return []
    return [code == target for code, _ in model.identify_batch(texts)]
