"""The report runs no script but its own (#9 item 8), and HTML in any field stays text (Held).

The Content-Security-Policy allows one inline script, by its sha256, and nothing else: no
``'unsafe-inline'``, no inline event handlers, no ``javascript:`` URLs, no forms sent anywhere.
HTML payloads planted in every field the page shows (file and folder names, problems, skipped
files, values, their context, deny rules and reviewer regexes) come out as text: the page has
the same elements as a clean one, and no event handler.
"""

from __future__ import annotations

import base64
import hashlib
import json
from html.parser import HTMLParser

from reviewkit import REVIEW_RULE, claude_session, invoke, planted

PAYLOADS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "'onmouseover='alert(3)",
    "javascript:alert(4)",
    "<svg onload=alert(5)>",
]


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: dict[str, int] = {}
        self.attrs: list[tuple[str, str, str | None]] = []
        self.scripts: list[str] = []
        self.csp: str | None = None
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self.attrs += [(tag, k, v) for k, v in attrs]
        a = dict(attrs)
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp = a.get("content")
        if tag == "script":
            assert "src" not in a
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def parse(page: str) -> Page:
    p = Page()
    p.feed(page)
    p.close()
    return p


def directives(csp: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in csp.split(";"):
        words = part.split()
        if words:
            out[words[0].lower()] = words[1:]
    return out


def check_page(page: str) -> Page:
    p = parse(page)
    assert p.csp, "no Content-Security-Policy"
    csp = directives(p.csp)
    assert csp["default-src"] == ["'none'"]
    scripts = csp["script-src"]
    assert "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts and "*" not in scripts
    assert not [s for s in scripts if not s.startswith("'sha256-")], (
        scripts
    )  # hashes only: no host, no scheme
    assert csp.get("form-action") == ["'none'"] and csp.get("base-uri") == ["'none'"]
    assert len(p.scripts) == 1
    for code in p.scripts:  # every inline script is one the policy names
        digest = base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode()
        assert f"'sha256-{digest}'" in scripts
    handlers = [(t, k) for t, k, _ in p.attrs if k.lower().startswith("on")]
    assert not handlers, handlers
    urls = [
        (t, k, v)
        for t, k, v in p.attrs
        if k in ("href", "src", "action", "formaction") and v and not v.startswith("#")
    ]
    assert not urls, urls
    return p


def test_csp_allows_only_the_page_script_by_its_hash(tmp_path):
    folder = tmp_path / "sources" / "-home-jdoe-src-app"
    claude_session(folder, planted())
    out = tmp_path / "out"
    assert invoke("redact", tmp_path / "sources", "--out", out, "--jobs", "1", "--no-ner").exit_code == 0
    check_page((out / "review" / "report.html").read_text(encoding="utf-8"))


def test_html_payloads_in_every_field_are_inert(tmp_path):
    clean = tmp_path / "clean"
    claude_session(clean / "sources" / "-home-jdoe-src-app", planted())
    assert (
        invoke("redact", clean / "sources", "--out", clean / "out", "--jobs", "1", "--no-ner").exit_code == 0
    )
    clean_tags = set(check_page((clean / "out" / "review" / "report.html").read_text(encoding="utf-8")).tags)

    src = tmp_path / "sources"
    bad = '"><img src=x onerror=alert(2)>'  # no slash: it is a folder name
    text = " ".join(PAYLOADS)
    claude_session(src / f"-home-jdoe-src-app{bad}", planted(), extra=text)
    denied = claude_session(
        src / f"-home-jdoe-other{bad}", planted(), name="denied.jsonl", extra="<b onclick=x>"
    )
    with denied.open("a") as fh:
        fh.write("<svg onload=alert(6)> not JSON\n")  # a problem naming the file
    (src / f"{bad}.jsonl").write_text(json.dumps({"who": "knows"}) + "\n")  # skipped: unknown format
    cfg = tmp_path / "tracepub.toml"
    cfg.write_text(
        REVIEW_RULE + '\n[[rules]]\nid = "payload"\ntype = "secret.payload"\n'
        "regex = '<script>alert\\(1\\)</script>'\nkeywords = [\"<script>\"]\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    r = invoke(
        "redact", src, "--out", out, "--jobs", "1", "--no-ner", "--config", cfg, "--deny", "<b onclick=x>"
    )
    assert r.exit_code == 0, r.output
    r = invoke("review", out, "--add", "<svg onload=alert(5)>", "--add-regex", "<i onfocus=[a-z]+>")
    assert r.exit_code == 0, r.output
    page = (out / "review" / "report.html").read_text(encoding="utf-8")
    p = check_page(page)
    assert set(p.tags) <= clean_tags, set(p.tags) - clean_tags
    assert p.tags["script"] == 1
    # the payloads are there, as text: in names, problems, skipped files, snippets, rules
    assert "&lt;img src=x onerror=alert(2)&gt;/denied.jsonl:4: line is not JSON" in page
    assert "&lt;img src=x onerror=alert(2)&gt;.jsonl</li>" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&#39;onmouseover=&#39;alert(3)" in page
    assert "&lt;b onclick=x&gt;" in page and "&lt;i onfocus=[a-z]+&gt;" in page
