"""Language identification: character n-grams, naive Bayes evidence and a maxent layer
over 443 languages.

from collie.langid import load_model
model = load_model()                  # the bundled model; load_model(path) for another
model.identify("Abantu bonke bazalwa bekhululekile")   # ("zul", 0.99...)
"""

from __future__ import annotations

from collie.langid.model import (
    NO_ANSWER,
    NO_LANGUAGE,
    OTHER,
    UNDETERMINED,
    LangModel,
    LanguageSummary,
    summarise_languages,
)
from collie.langid.modelfile import load_model, read_model, save_model

__all__ = [
    "NO_ANSWER",
    "NO_LANGUAGE",
    "OTHER",
    "UNDETERMINED",
    "LangModel",
    "LanguageSummary",
    "load_model",
    "read_model",
    "save_model",
    "summarise_languages",
]
