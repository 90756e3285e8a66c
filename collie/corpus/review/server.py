"""The review page: one sampled document at a time, three judgements, skip and undo.

A standard-library HTTP server on 127.0.0.1 answering one request at a time (so the
workspace database is used from one thread only): `/` is a self-contained page (inline
CSS and JavaScript, no assets from the internet), `/api/next` the next document and the
progress, `POST /api/judge` and `POST /api/undo` change the judgements through a
`ReviewBackend` (the workspace store).
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, Protocol

from collie.corpus.replay import archived_path
from collie.corpus.report import language_label
from collie.corpus.review import LABELS

MAX_BODY = 4096


class ReviewBackend(Protocol):
    def next_review(self) -> dict[str, Any] | None: ...

    def judge(self, doc_id: int, label: str, reviewer: str) -> bool: ...

    def undo_judgement(self) -> int | None: ...


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>collie review: {language}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font-family: sans-serif; margin: 0 auto; max-width: 50em; padding: 1em; }}
#help {{ color: #444; font-size: 0.9em; }}
.para {{ margin: 0 0 0.8em 0; }}
.other {{ background: #fff1c2; }}
.other::before {{ content: "collie: " attr(data-lang) " \\2014  "; color: #8a5a00;
                 font-size: 0.8em; }}
#buttons {{ display: flex; flex-wrap: wrap; }}
@media (max-width: 520px) {{ button {{ flex: 1 1 40%; margin-right: 0.4em; }}
  h1 {{ font-size: 1.3em; }} #progress {{ float: none; }} }}
#progress {{ float: right; font-weight: bold; }}
#url {{ color: #555; word-break: break-all; font-size: 0.9em; }}
#text {{ white-space: pre-wrap; border: 1px solid #ccc; padding: 1em; max-height: 55vh;
        overflow-y: auto; line-height: 1.5; }}
button {{ font-size: 1.05em; margin: 0.6em 0.4em 0 0; padding: 0.5em 0.9em; }}
kbd {{ border: 1px solid #999; border-radius: 3px; padding: 0 0.3em; font-size: 0.85em; }}
</style></head>
<body>
<div id="progress">0 / 0</div>
<h1>Is this {language}?</h1>
<p id="help"><b>Mainly</b>: most of the text is {language}. <b>Some</b>: a part is (a
paragraph or more), the rest is not. <b>No</b>: none of it is. Paragraphs collie took for
another language are highlighted, with the language it saw.</p>
<div id="doc"><h2 id="title"></h2><div id="url"></div>
<div><a id="archived" target="_blank" rel="noopener" hidden>the page as collie fetched it</a></div>
<div id="text"></div></div>
<div id="buttons">
<button id="mainly" data-label="mainly">Mainly {language} <kbd>1</kbd></button>
<button id="some" data-label="some">Some {language} <kbd>2</kbd></button>
<button id="none" data-label="none">No {language} <kbd>3</kbd></button>
<button id="skip" data-label="skip">Skip <kbd>s</kbd></button>
<button id="undo">Undo <kbd>u</kbd></button>
</div>
<p id="status" role="status"></p>
<script>
let current = null;
async function call(path, body) {{
  const options = body === undefined ? {{}} : {{method: "POST", body: JSON.stringify(body),
    headers: {{"Content-Type": "application/json"}}}};
  const answer = await fetch(path, options);
  return answer.json();
}}
function show(state) {{
  document.getElementById("progress").textContent = state.judged + " / " + state.total;
  current = state.document;
  const buttons = document.querySelectorAll("button[data-label]");
  buttons.forEach(b => b.disabled = current === null);
  const aside = current && current.suspect ? "[set aside: a relative of {language}?] " : "";
  const title = current ? aside + (current.title || "(no title)") : "";
  document.getElementById("title").textContent = title;
  document.getElementById("url").textContent = current ? current.url + (
    current.site_labels && current.site_labels.length
      ? " (site: " + current.site_labels.join(", ") + ")" : "") : "";
  const archived = document.getElementById("archived");
  archived.hidden = !(current && current.replay);
  archived.href = current && current.replay ? current.replay : "#";
  const text = document.getElementById("text");
  text.replaceChildren();
  for (const [paragraph, lang] of (current ? current.paragraphs : [])) {{
    const div = document.createElement("div");
    // "und": too short to tell (headings, captions): not marked
    div.className = lang === "{target}" || lang === "und" ? "para" : "para other";
    div.dataset.lang = (current.language_names || {{}})[lang] || lang;
    div.textContent = paragraph;
    text.appendChild(div);
  }}
  if (current && !current.paragraphs.length) text.textContent = current.text;
  document.getElementById("status").textContent = current ? "" :
    "All documents are judged. Thank you! (Undo is still possible.)";
}}
async function judge(label) {{
  if (current === null) return;
  show(await call("/api/judge", {{doc_id: current.doc_id, label: label}}));
}}
async function undo() {{ show(await call("/api/undo", {{}})); }}
document.querySelectorAll("button[data-label]").forEach(
  b => b.addEventListener("click", () => judge(b.dataset.label)));
document.getElementById("undo").addEventListener("click", undo);
const keys = {{"1": "mainly", "2": "some", "3": "none", "s": "skip"}};
document.addEventListener("keydown", event => {{
  if (event.ctrlKey || event.altKey || event.metaKey) return;
  if (keys[event.key]) judge(keys[event.key]);
  else if (event.key === "u") undo();
}});
call("/api/next").then(show);
</script>
</body></html>
"""


def with_language_names(
    review: dict[str, Any] | None, replay: str | None = None
) -> dict[str, Any] | None:
    """The next review with `language_names`: each paragraph's language code with its
    name ("xho (Xhosa)"), as the page labels paragraphs in another language; with a
    `replay` server's base URL, `replay`: the archived page's address on it."""
    document = (review or {}).get("document")
    if not document:
        return review
    codes = {paragraph[1] for paragraph in document.get("paragraphs") or []}
    names = {code: language_label(code) for code in codes if code}
    archived = document.get("archived")
    link = replay + archived_path(*archived) if replay and archived else None
    return {**(review or {}), "document": {**document, "language_names": names, "replay": link}}


class ReviewServer(HTTPServer):
    """Serves the review page for `backend` until shut down."""

    def __init__(
        self,
        backend: ReviewBackend,
        language: str,
        reviewer: str,
        host: str = "127.0.0.1",
        port: int = 0,
        target: str = "",
        replay: str | None = None,
        site_labels: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        """`language`: its name, shown; `target`: its code (paragraphs collie gave
        another code are highlighted); `replay`: the base URL of a replay server of the
        workspace's WARC files (collie.corpus.replay), which each document links to;
        `site_labels`: site -> its labels (collie.corpus.sites), shown beside the URL."""
        self.backend = backend
        self.replay = replay
        self.site_labels = dict(site_labels or {})
        self.page = PAGE.format(language=html.escape(language), target=html.escape(target)).encode(
            "utf-8"
        )
        self.reviewer = reviewer
        super().__init__((host, port), _Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/"


class _Handler(BaseHTTPRequestHandler):
    server: ReviewServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        if self.path == "/":
            self._send(200, "text/html; charset=utf-8", self.server.page)
        elif self.path == "/api/next":
            self._json(self._next())
        else:
            self._json({"error": "not found"}, 404)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._json({"error": "request too large"}, 413)
            return
        try:
            data = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._json({"error": "not JSON"}, 400)
            return
        backend = self.server.backend
        if self.path == "/api/undo":
            backend.undo_judgement()
        elif self.path == "/api/judge":
            label, doc_id = data.get("label"), data.get("doc_id")
            if label not in (*LABELS, "skip") or not isinstance(doc_id, int):
                self._json({"error": "label must be mainly, some, none or skip"}, 400)
                return
            if not backend.judge(doc_id, label, self.server.reviewer):
                self._json({"error": f"document {doc_id} is not in the sample"}, 404)
                return
        else:
            self._json({"error": "not found"}, 404)
            return
        self._json(self._next())

    def _next(self) -> dict[str, Any] | None:
        review = with_language_names(self.server.backend.next_review(), self.server.replay)
        document = (review or {}).get("document")
        if review is None or not document:
            return review
        labels = list(self.server.site_labels.get(document.get("site") or "", ()))
        return {**review, "document": {**document, "site_labels": labels}}

    def _json(self, data: Any, status: int = 200) -> None:
        body = json.dumps(data, ensure_ascii=False).encode("utf-8")
        self._send(status, "application/json; charset=utf-8", body)

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)
