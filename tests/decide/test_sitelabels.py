"""Site labels (issue 44): religious, multilingual and relative, each with its reason;
news that prints times, scores and thanks God is not religious, and a bilingual site
or numeric paths are not multilingual."""

from __future__ import annotations

from collie.decide.sitelabels import SiteEvidence, label_site

BIBLE = "\n".join(
    [
        "Injili mar Johana",
        "1 E chakruok ne nitie Wach, kendo Wach ne ni gi Nyasaye.",
        "2 En ema ne ni gi Nyasaye chakre chakruok.",
        "3 Gik moko duto ne olos kokalo kuome.",
        "4 Kuome ne nitie ngima, kendo ngimano ne en ler mar dhano.",
        "5 Ler rieny e mudho, to mudho pok oloye.",
        "Yesu Kristo owacho ni (Johana 3:16), kendo Mathayo 5:3 wacho ni Yesu ohero ji.",
        "Kanisa duto ochokore mondo olam Yesu Kristo e Bibilia.",
    ]
)
NEWS = (
    "Gor Mahia 2:1 AFC Leopards e chiengʼ Jumamosi, to tuke nochakore saa 10:30 okinyi. "
    "Jatend ekipe nowacho ni ero kamano ne Nyasaye kuom loch. Ji mangʼeny ne obiro e "
    "kalamano mar Nyayo mondo one tugo, kendo polis ne ritho kar tuke maber. Jatiend "
    "kanyakla mar tuke nowacho ni ekipe biro tiyo matek e tuke mabiro."
)


def test_a_bible_site_is_religious_with_its_reasons() -> None:
    labels = label_site(SiteEvidence("bibilia-luo.example", [BIBLE] * 4))
    assert [label.label for label in labels] == ["religious"]
    reason = labels[0].reason
    assert "4 of 4 documents cite scripture (e.g. 'Johana 3:16')" in reason
    assert "number their verses" in reason and "church vocabulary" in reason


def test_news_with_times_scores_and_god_is_not_religious() -> None:
    assert label_site(SiteEvidence("news.example", [NEWS] * 10)) == []


def test_a_known_religious_domain_is_religious() -> None:
    (label,) = label_site(SiteEvidence("jw.org", [NEWS]))
    assert label.label == "religious" and "jw.org" in label.reason


def test_a_locale_site_is_multilingual() -> None:
    codes = ["en", "fr", "de", "sw", "luo", "ach", "pt-br"]
    urls = [f"https://shop.example/{c}/product/42" for c in codes]
    urls += [f"https://shop.example/{c}/" for c in codes]
    (label,) = label_site(SiteEvidence("shop.example", [NEWS], urls))
    assert label.label == "multilingual"
    assert "7 language codes (ach de en fr luo pt sw" in label.reason


def test_a_locale_subdomain_site_is_multilingual() -> None:
    urls = [f"https://{c}.shop.example/item/7" for c in ("en", "fr", "de", "sw", "es")]
    (label,) = label_site(SiteEvidence("shop.example", [NEWS], urls))
    assert label.label == "multilingual"


def test_a_bilingual_site_and_numeric_paths_are_not_multilingual() -> None:
    urls = [f"https://news.example/{c}/2024/story-{i}" for c in ("en", "luo") for i in range(9)]
    urls += [f"https://news.example/id/{i}" for i in range(20)]
    urls += [f"https://news.example/{w}/x" for w in ("tag", "new", "top", "all", "art")]
    assert label_site(SiteEvidence("news.example", [NEWS], urls)) == []


def test_a_relatives_site_unless_a_reviewer_said_target() -> None:
    (label,) = label_site(SiteEvidence("acholi.example", [], (), 0.42))
    assert label.label == "relative" and "42%" in label.reason
    assert label_site(SiteEvidence("acholi.example", [], (), 0.42, judged_target=True)) == []
