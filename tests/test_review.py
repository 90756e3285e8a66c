"""The review page in a real headless browser (Debian's chromium driven by Selenium),
served by the real `collie review` command."""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from collie.corpus.review import precision, wilson

from .clihelp import run_collie

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # The end-to-end world sets HTTP_PROXY: the driver and the page are on 127.0.0.1.
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    options = Options()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
    ):
        options.add_argument(flag)  # fmt: skip
    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager must not look for downloads
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def test_wilson_interval() -> None:
    assert wilson(0, 0) == (0.0, 0.0)
    low, high = wilson(35, 100)
    assert 0.26 < low < 0.27 and 0.44 < high < 0.46
    rows = {r.label: r for r in precision({"mainly": 3, "some": 1, "none": 0, "skip": 5})}
    assert rows["mainly"].share == 0.75 and rows["mainly+some"].count == 4


def test_judging_in_the_browser(mined, browser, capsys) -> None:
    root = mined[0]
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "collie", "-w", str(root), "review", "--sample", "5",
         "--port", str(port), "--reviewer", "achieng"],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stderr is not None
        assert f"http://127.0.0.1:{port}/" in server.stderr.readline()
        browser.get(f"http://127.0.0.1:{port}/")
        wait = WebDriverWait(browser, 10)

        def progress(text: str) -> None:
            wait.until(lambda d: d.find_element(By.ID, "progress").text == text)

        progress("0 / 5")
        first_url = browser.find_element(By.ID, "url").text
        assert first_url.startswith("http://")
        assert browser.find_element(By.ID, "text").text
        for number, button in enumerate(("mainly", "some", "none"), start=1):
            browser.find_element(By.ID, button).click()
            progress(f"{number} / 5")
        browser.find_element(By.TAG_NAME, "body").send_keys("1")  # the keyboard
        progress("4 / 5")
        browser.find_element(By.ID, "undo").click()
        progress("3 / 5")
    finally:
        server.terminate()
        server.wait(timeout=10)
    conn = sqlite3.connect(root / "collie.db")
    rows = conn.execute(
        "SELECT position, label, reviewer FROM reviews ORDER BY position"
    ).fetchall()
    conn.close()
    assert rows[:4] == [(1, "mainly", "achieng"), (2, "some", "achieng"),
                        (3, "none", "achieng"), (4, None, None)]  # fmt: skip
    result = run_collie(capsys, "review", "--results", "--json")
    shares = {c["label"]: c for c in json.loads(result.out)["classes"]}
    from .test_audit import by_hand  # the stratified share: 1 of 3, weighted by stratum

    share, _, k, n = by_hand(root)
    assert shares["mainly"]["count"] == k == 1 and shares["mainly"]["judged"] == n == 3
    assert abs(shares["mainly"]["share"] - share) < 1e-9
    text = run_collie(capsys, "review", "--results")
    assert "3 documents judged" in text.out and "95% CI" in text.out


def test_the_page_on_a_phone(mined, browser, capsys) -> None:
    """At 390 px: every button within the screen, the classes defined, the paragraphs
    collie took for another language highlighted; a second `review` with another
    --sample says the earlier sample goes on."""
    root = mined[0]
    conn = sqlite3.connect(root / "collie.db")
    doc_id, paragraphs = conn.execute(
        "SELECT d.id, d.paragraphs FROM documents d JOIN pages p ON p.id = d.page_id "
        "WHERE d.kind = 'target' AND d.duplicate_of IS NULL AND p.status = 'kept' "
        "ORDER BY d.id LIMIT 1").fetchone()  # fmt: skip
    mixed = [[text, "zul" if lang != "und" else lang, *rest]
             for text, lang, *rest in json.loads(paragraphs)]  # fmt: skip
    mixed[0][1] = "eng"  # as if collie had taken its first paragraph for English
    conn.execute("UPDATE documents SET paragraphs = ? WHERE id = ?", (json.dumps(mixed), doc_id))
    conn.execute("INSERT INTO reviews (position, doc_id) VALUES (1, ?)", (doc_id,))
    conn.commit()
    conn.close()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "collie", "-w", str(root), "review", "--sample", "5",
         "--port", str(port)], stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert server.stderr is not None
        assert "earlier sample of 1 documents is continued" in server.stderr.readline()
        assert f"http://127.0.0.1:{port}/" in server.stderr.readline()
        browser.set_window_size(390, 844)
        browser.get(f"http://127.0.0.1:{port}/")
        wait = WebDriverWait(browser, 10)
        wait.until(lambda d: d.find_element(By.ID, "progress").text == "0 / 1")
        width = browser.execute_script("return window.innerWidth")
        assert width <= 400
        for button in browser.find_elements(By.TAG_NAME, "button"):
            rect = button.rect
            assert rect["x"] >= 0 and rect["x"] + rect["width"] <= width, button.text
        assert "Mainly" in browser.find_element(By.ID, "help").text
        others = browser.find_elements(By.CSS_SELECTOR, "#text .other")
        assert len(others) == 1 and others[0].get_attribute("data-lang") == "eng (English)"
        assert others[0].text == mixed[0][0]
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_review_on_a_busy_port_names_it_and_keeps_the_sample(mined, capsys) -> None:
    root = mined[0]
    with socket.socket() as other:  # another program already listening there
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        result = run_collie(capsys, "-w", str(root), "review", "--port", str(port))
    assert result.code == 2
    assert f"Cannot listen on 127.0.0.1:{port}: another program is using that port." in result.err
    assert "--port 0" in result.err
    again = run_collie(capsys, "-w", str(root), "review", "--results", "--json")
    assert again.code == 0, again.err


def test_results_before_any_judgement_say_so(mined, capsys) -> None:
    text = run_collie(capsys, "review", "--results")
    assert text.code == 0 and "0 documents judged" in text.out
    assert "no judgements yet" in text.out and "collie review --sample 100" in text.out
    assert "%" not in text.out  # no made-up shares
    data = json.loads(run_collie(capsys, "review", "--results", "--json").out)
    assert [c["label"] for c in data["classes"]] == ["mainly", "some", "none", "mainly+some"]
    assert all(
        c["count"] == 0 and c["share"] is None and c["low"] is None and c["high"] is None
        for c in data["classes"]
    )


def test_other_language_paragraphs_are_labelled_with_their_name(
    tmp_path, capsys, web, world, monkeypatch, browser
) -> None:
    from .zuluworld import add_polyglot_blog, zulu_workspace

    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    made = add_polyglot_blog(world, languages=2)
    monkeypatch.chdir(root)
    assert run_collie(capsys, "run", "--loops", "2").code == 0
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "collie", "-w", str(root), "review", "--sample", "100",
         "--port", str(port)],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stderr is not None
        assert f"http://127.0.0.1:{port}/" in server.stderr.readline()
        browser.get(f"http://127.0.0.1:{port}/")
        wait = WebDriverWait(browser, 10)
        wait.until(lambda d: d.find_element(By.ID, "url").text)
        for _ in range(30):  # skip to the page with an English paragraph
            if browser.find_element(By.ID, "url").text == made["mixed"]:
                break
            shown = browser.find_element(By.ID, "url").text
            browser.find_element(By.TAG_NAME, "body").send_keys("s")
            wait.until(lambda d, shown=shown: d.find_element(By.ID, "url").text != shown)
        assert browser.find_element(By.ID, "url").text == made["mixed"]
        other = browser.find_elements(By.CSS_SELECTOR, "#text .other")
        assert [o.text for o in other] == [made["english"]]
        assert other[0].get_attribute("data-lang") == "eng (English)"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_review_with_a_busy_replay_port_names_it_and_announces_no_pywb(mined, capsys) -> None:
    """Another web server already answers on the port asked for pywb: the review says
    so and stops, rather than linking documents to that server as if it were pywb."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Other(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"not pywb")

        def log_message(self, *args: object) -> None:
            pass

    root = mined[0]
    with ThreadingHTTPServer(("127.0.0.1", 0), Other) as other:
        threading.Thread(target=other.serve_forever, daemon=True).start()
        port = other.server_address[1]
        try:
            result = run_collie(capsys, "-w", str(root), "review", "--replay-port", str(port))
        finally:
            other.shutdown()
    assert result.code == 2, result.err
    assert f"Cannot listen on 127.0.0.1:{port}: another program is using that port." in result.err
    assert "--replay-port 0" in result.err
    assert "pywb at" not in result.err and "Reviewing" not in result.err


def test_the_replay_server_refuses_a_port_another_server_holds(mined) -> None:
    """collie.corpus.replay.ReplayServer itself (the Python API's and `collie replay`'s):
    a port another program listens on is an error, not a server announced there."""
    from collie.corpus.replay import ReplayServer
    from collie.errors import CollieError

    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        with pytest.raises(CollieError, match=f"pywb cannot listen on 127.0.0.1:{port}"):
            ReplayServer(mined[0], port).start()
