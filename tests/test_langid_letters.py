"""The letter rule of the open set (collie.langid.unknown): a text whose words hold letters
its best language does not write is `und`."""

from __future__ import annotations

import numpy as np
import pytest

from collie.langid import load_model
from collie.langid.model import LangModel
from collie.langid.unknown import (
    LetterRule,
    alphabet_of,
    calibrate_letters,
    letter_counts_of,
    novel_words,
)

RUSSIAN = [
    "Я не знаю, что сказать тебе сейчас, но завтра мы поговорим об этом.",
    "Мы пошли домой поздно вечером, потому что шёл сильный дождь.",
    "Эта книга лежала на столе у окна всю неделю.",
    "Дети играли во дворе, а бабушка готовила обед для всей семьи.",
] * 150  # 30,000 letters: enough training text for a letter rule


UKRAINIAN = "Я не знаю, що сказати тобі зараз, але ввечері ми підемо додому і їй буде добре."


@pytest.fixture(scope="module")
def bundled() -> LangModel:
    return load_model()


def test_the_alphabet_is_the_letters_of_the_text_and_its_scripts() -> None:
    alphabet = alphabet_of(letter_counts_of(RUSSIAN))
    assert alphabet is not None
    letters, scripts = alphabet
    assert "ш" in letters and "і" not in letters and "," not in letters
    assert scripts == ["CYRILLIC"]
    # Chinese: thousands of characters, no letter rule
    assert alphabet_of(letter_counts_of(["".join(map(chr, range(0x4E00, 0x4E00 + 400)))])) is None


def test_novel_words_leave_out_other_scripts_and_capitalised_names() -> None:
    alphabet = alphabet_of(letter_counts_of(RUSSIAN))
    assert alphabet is not None
    letters, scripts = frozenset(alphabet[0]), frozenset(alphabet[1])
    assert novel_words(UKRAINIAN, letters, scripts) == 6  # що (no щ above), тобі, і, їй...
    assert novel_words(RUSSIAN[0], letters, scripts) == 0
    # a Latin word and a capitalised name with a letter Russian lacks: quotation, names
    assert novel_words("Он сказал hello и ушёл к Їжакову домой.", letters, scripts) == 0


def test_calibration_gives_each_language_the_words_none_of_its_snippets_reach() -> None:
    snippets = [("rus", text) for text in RUSSIAN]
    rule = calibrate_letters({"rus": RUSSIAN}, {"rus": RUSSIAN}, snippets)
    assert rule["rus"][0] == 1
    # a language whose held-out text holds letters its fitted text lacks gets a higher limit
    odd = [*RUSSIAN[:30], "Это і то, і это."]
    # too little training text (the UDHR alone): no rule
    assert calibrate_letters({"rus": RUSSIAN}, {"rus": RUSSIAN[:40]}, snippets) == {}
    rule = calibrate_letters({"rus": RUSSIAN}, {"rus": RUSSIAN}, [("rus", t) for t in odd])
    assert rule["rus"][0] == 2
    # too few snippets: no rule
    assert calibrate_letters({"rus": RUSSIAN}, {"rus": RUSSIAN}, snippets[:5]) == {}
    letters = LetterRule.from_meta(calibrate_letters({"rus": RUSSIAN}, {"rus": RUSSIAN}, snippets))
    assert letters.unknown([UKRAINIAN, RUSSIAN[1], UKRAINIAN], ["rus", "rus", "ukr"]).tolist() == [
        True,
        False,
        False,  # no rule for ukr
    ]
    # one novel word among a hundred: a loanword or a quotation, not another language
    assert not letters.unknown([" ".join(RUSSIAN[:10]) + " і"], ["rus"])[0]


def test_the_bundled_model_without_ukrainian_calls_ukrainian_und(bundled: LangModel) -> None:
    """Ukrainian with its columns masked (as if the model did not know it) is taken for
    Russian by the scores; the letter rule makes it `und` (Russian text stays Russian)."""
    assert bundled.letter_rule is not None and "rus" in bundled.letter_rule.codes
    masked = bundled.without_columns([c for c in bundled.columns if c.split("/")[0] == "ukr"])
    labels = [code for code, _ in masked.identify_batch([UKRAINIAN, RUSSIAN[0], RUSSIAN[1]])]
    assert labels == ["und", "rus", "rus"]
    assert np.isfinite(masked.predict_proba([UKRAINIAN])).all()
