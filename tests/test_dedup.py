"""Exact keys, simhash fingerprints (compatible with the simhash package), block index."""

from __future__ import annotations

import random
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st
from simhash import Simhash

from collie.decide.dedup import (
    BlockIndex,
    block_layout,
    blocks,
    exact_key,
    feature_hash,
    features,
    hamming,
    simhash_text,
)

LUO = (
    "Ji duto onyuol ka gin thuolo kendo gin gi luor e bedo ng'ato ka ng'ato. Bende gin gi "
    "rieko kod paro maber, omiyo onego gitimne ng'ato ka ng'ato e yor owete. Ng'ato ka "
    "ng'ato nigi ratiro mar ngima, thuolo kod bedo mokwe. Onge ng'ato manyalo bedo misumba "
    "kata jatich ma ok iyudo pok; tich misumba kod ohala mar wasumbini nyaka kwer e yore duto."
)
ZUL = (
    "Bonke abantu bazalwa bekhululekile belingana ngesithunzi nangamalungelo. Bahlanganiswe "
    "wumcabango nangunembeza futhi kufanele baphathane ngomoya wobunye. Wonke umuntu "
    "unelungelo lokuphila, inkululeko nokuba ngokuvikelekile."
)


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=0, max_size=300))
def test_same_fingerprint_as_the_simhash_package(text: str) -> None:
    weighted = features(text)
    expected = Simhash(dict(weighted), hashfunc=feature_hash).value if weighted else 0
    assert simhash_text(text) == expected


def test_combining_marks_are_kept_and_normalised() -> None:
    composed = "Ŋato ŋeyo kɛ dɔ̃ gbɛ̀ lɛ́ wɔ̀ sì ɖe àgbà nyuí"
    decomposed = unicodedata.normalize("NFD", composed)
    assert features(composed) == features(decomposed)
    assert "ŋato " in features(composed) and "ɔ̃ gb" in features(composed)
    assert simhash_text(composed) == simhash_text(decomposed)
    plain = "Nato neyo ke do gbe le wo si de agba nyui"
    assert simhash_text(composed) != simhash_text(plain)


def test_near_duplicates_are_near_and_others_far() -> None:
    article = "\n".join([LUO, ZUL, LUO.upper().replace("NG'ATO", "dhano"), ZUL[::-1]])
    edited = article.replace("maber", "mabeyo", 1)
    mirrored = "Home News\n" + article + "\n© 2024"
    assert simhash_text(article) == simhash_text(article.replace("\n", " \n "))
    assert hamming(simhash_text(article), simhash_text(edited)) <= 3
    assert hamming(simhash_text(article), simhash_text(mirrored)) <= 3
    assert hamming(simhash_text(LUO), simhash_text(ZUL)) > 10


def test_exact_key_ignores_case_and_spacing_only() -> None:
    assert exact_key("Ji  duto\nONYUOL") == exact_key("ji duto onyuol")
    assert exact_key("ji duto onyuol") != exact_key("ji duto onyuol.")


def test_block_layout() -> None:
    assert block_layout(3) == [(0, 16), (16, 16), (32, 16), (48, 16)]
    assert [w for _, w in block_layout(4)] == [13, 13, 13, 13, 12]
    fingerprint = 0x1234_5678_9ABC_DEF0
    assert blocks(fingerprint, block_layout(3)) == [0xDEF0, 0x9ABC, 0x5678, 0x1234]


def flip(fingerprint: int, positions: list[int]) -> int:
    for p in positions:
        fingerprint ^= 1 << p
    return fingerprint


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**64 - 1), st.lists(st.integers(0, 63), unique=True, max_size=6),
       st.integers(0, 5))  # fmt: skip
def test_index_finds_exactly_what_brute_force_finds(
    fingerprint: int, positions: list[int], k: int
) -> None:
    rng = random.Random(fingerprint)
    index = BlockIndex(max_distance=k)
    stored = {i: rng.getrandbits(64) for i in range(200)}
    stored[999] = flip(fingerprint, positions)
    index.add_all(stored.items())
    found = index.find(fingerprint)
    within = sorted((hamming(fp, fingerprint), i) for i, fp in stored.items()
                    if hamming(fp, fingerprint) <= k)  # fmt: skip
    if not within:
        assert found is None
    else:
        assert found is not None and (found.distance, found.doc_id) == within[0]


def test_the_deduplicator_finds_an_exact_key_first_then_a_close_fingerprint() -> None:
    from collie.decide.dedup import Deduplicator

    originals = Deduplicator(max_distance=3)
    originals.add(1, "key-a", 0b1111)
    assert originals.find("key-a", 1 << 40) == 1  # same text, whatever the fingerprint
    assert originals.find("key-b", 0b1110) == 1  # one bit away
    assert originals.find("key-b", (1 << 64) - 1) is None
    looked_up: list[str] = []
    stored = Deduplicator(3, exact=lambda key: looked_up.append(key) or None)
    stored.add(2, "key-c", 0)
    assert stored.find("key-c", 1 << 63 | 1 << 62 | 1 << 61 | 1 << 60) is None
    assert looked_up == ["key-c"]  # the store's column answers exact keys, not memory


def test_a_target_document_matching_an_earlier_one_is_marked_a_duplicate() -> None:
    from collie.decide.dedup import mark_duplicate
    from collie.models import DocumentRow, PageOutcome

    text = "Umuntu ngamunye unelungelo lokuphila."
    page = PageOutcome(
        5, "site.example", "kept", document=DocumentRow("target", "zul", text, [], 5)
    )
    mark_duplicate(page, lambda key, fingerprint, sketch: 3)
    assert (page.status, page.reason, page.document.duplicate_of) == (
        "duplicate",
        "near-duplicate:3",
        3,
    )
    other = PageOutcome(6, "site.example", "wronglang",
                        document=DocumentRow("wronglang", "eng", text, [], 5))  # fmt: skip
    mark_duplicate(other, lambda key, fingerprint, sketch: 3)  # only target documents are compared
    assert other.status == "wronglang" and other.document.duplicate_of is None


ARTICLE = [
    "Umhlangano wabazali uzobe usebenza ngoMsombuluko ukuze kuxoxwe ngezindleko zesikole "
    "ezikhuphukile kulo nyaka, kusho uthishanhloko.",
    "Abazali abaningi bathi abakwazi ukukhokha imali eyengeziwe ngenxa yokuthi imisebenzi "
    "iyashoda endaweni yakubo.",
    "Umnyango wezemfundo uthe uzobheka udaba ngokushesha futhi uzobika emva kwamasonto "
    "amabili emphakathini wonke.",
    "Amaphoyisa athi awakaboni ubufakazi bobugebengu kodwa aqhubeka nophenyo ngokucophelela "
    "ukuze kuvikeleke wonke umuntu.",
    "Kulindeleke ukuthi isinqumo sokugcina sithathwe ngasekupheleni kwenyanga ngemuva "
    "kokubonisana nabo bonke abathintekayo.",
]
OTHER = [
    "Iqembu lebhola lendawo linqobe umdlalo walo wokugcina ngamagoli amathathu kwaze "
    "kwathokoza abalandeli abaningi enkundleni.",
    "Umqeqeshi uthe abadlali bakhe basebenze kanzima kakhulu isonto lonke futhi "
    "bayakufanelekela ukunqoba lokhu okumnandi.",
    "Umdlalo olandelayo uzoba ngoMgqibelo ozayo emzini wabo, lapho kulindeleke khona "
    "izinkulungwane zabalandeli bebhola.",
]


def test_a_copy_with_a_paragraph_dropped_and_text_added_is_found_by_its_paragraphs() -> None:
    from collie.decide.dedup import Deduplicator, paragraph_sketch

    originals = Deduplicator(3)
    originals.add(1, "a", simhash_text("\n".join(ARTICLE)), paragraph_sketch(ARTICLE))
    originals.add(2, "b", simhash_text("\n".join(OTHER)), paragraph_sketch(OTHER))
    copy = [OTHER[0], *ARTICLE[:2], *ARTICLE[3:], "Lolu daba luqale ku-Isolezwe.", OTHER[2]]
    text = "\n".join(copy)
    assert hamming(simhash_text(text), simhash_text("\n".join(ARTICLE))) > 3  # simhash misses it
    assert originals.find("c", simhash_text(text), paragraph_sketch(copy)) == 1
    edited = [*ARTICLE[:4], ARTICLE[4].replace("kwenyanga", "konyaka")]
    assert originals.find("d", simhash_text("\n".join(edited)), paragraph_sketch(edited)) == 1


def test_one_shared_paragraph_is_a_quotation_not_a_copy() -> None:
    from collie.decide.dedup import ParagraphIndex, paragraph_sketch

    index = ParagraphIndex()
    index.add(1, paragraph_sketch(ARTICLE[:2]))
    assert index.find(paragraph_sketch([ARTICLE[0], *OTHER[:1]])) is None  # 1 of 2 keys
    assert index.find(paragraph_sketch(ARTICLE[:2])) == 1
    assert index.find(paragraph_sketch([*ARTICLE[:2], *OTHER, *ARTICLE[2:]])) is None  # too big
    short = paragraph_sketch(["Habari fupi sana."])  # no paragraph long enough: no sketch
    assert short.sketch == () and index.find(short) is None


def test_sketches_round_trip_through_the_store_text() -> None:
    from collie.decide.dedup import paragraph_sketch, stored_sketch
    from collie.models import ParagraphSketch

    sketch = paragraph_sketch(ARTICLE)
    assert len(sketch.keys) == 5 and len(sketch.sketch) == 4
    back = ParagraphSketch.from_text(sketch.to_text())
    assert (back.sketch, back.chars) == (sketch.sketch, sketch.chars)
    computed = stored_sketch(None, list(ARTICLE))
    assert computed == sketch  # a document stored before sketches were


def test_a_new_original_takes_the_place_of_the_one_it_displaces() -> None:
    from collie.decide.dedup import Deduplicator, comes_first, mark_duplicate, paragraph_sketch
    from collie.models import DocumentRow, PageOutcome

    assert comes_first("http://a.example/story", "http://b.example/story")
    assert comes_first("http://a.example/story", "http://a.example/story?page=1")
    originals = Deduplicator(3)
    fingerprint = simhash_text("\n".join(ARTICLE))
    originals.add(1, "a", fingerprint, paragraph_sketch(ARTICLE))
    originals.add(2, "b", simhash_text("\n".join(OTHER)), paragraph_sketch(OTHER))
    text = "\n".join(ARTICLE)
    page = PageOutcome(7, "a.example", "kept", document=DocumentRow("target", "zul", text, [], 40))
    assert mark_duplicate(page, originals.find, lambda original: original == 1) == 1
    assert (page.status, page.reason, page.document.duplicate_of) == ("kept", None, None)
    originals.replace(1, 3, "a2", fingerprint ^ 1, paragraph_sketch(ARTICLE))
    assert originals.index.find(fingerprint).doc_id == 3  # 1 left every lookup
    assert originals.find("x", fingerprint ^ (1 << 63 | 1 << 62 | 1 << 61)) is None
    assert originals.paragraphs.find(paragraph_sketch(ARTICLE)) == 3
    assert originals.find("y", simhash_text("\n".join(OTHER)), paragraph_sketch(OTHER)) == 2
    later = PageOutcome(8, "c.example", "kept", document=DocumentRow("target", "zul", text, [], 40))
    assert mark_duplicate(later, originals.find, lambda original: False) is None
    assert (later.status, later.reason) == ("duplicate", "near-duplicate:3")
