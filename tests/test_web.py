"""tracepub review --web without a browser: the security points (token, Host, Origin, CSP, no
secret or identity original in any response), the API's decisions through the terminal review's
code, the conversation view of every harness, and the command line option."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from reviewkit import dataset_text, invoke, value_id
from starlette.testclient import TestClient
from webkit import SID_B, originals, web_dir

from tracepub.errors import Refusal
from tracepub.publish import signoff as so
from tracepub.review import decisions
from tracepub.review.web import server
from tracepub.review.web.conversation import turns

PORT = 18_765
TOKEN = "t0k3n-for-tests-only"
BASE = f"/t/{TOKEN}/"
ORIGIN = f"http://127.0.0.1:{PORT}"


def client(out: Path, reviewer: str | None = "Jane") -> TestClient:
    return TestClient(server.create_app(out, TOKEN, PORT, reviewer), base_url=ORIGIN)


def post(c: TestClient, path: str, body: dict) -> dict:
    r = c.post(BASE + path, json=body, headers={"Origin": ORIGIN})
    assert r.status_code == 200, r.text
    return r.json()


def wait_apply(c: TestClient) -> dict:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        d = c.get(BASE + "api/apply").json()
        if d["state"] != "running":
            return d
        time.sleep(0.2)
    raise AssertionError("apply did not finish")


# -- security --------------------------------------------------------------------------------------------
async def _ok_app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def test_the_guard_refuses_without_the_token_or_with_a_foreign_host():
    c = TestClient(server.Guard(_ok_app, TOKEN, PORT), base_url=ORIGIN)
    assert c.get(BASE + "values").text == "ok"
    for path in (
        "/",
        "/values",
        "/t/",
        "/t/wrong/values",
        f"/t/{TOKEN[:-1]}/values",
        f"/t/{TOKEN}x/values",
        "/static/app.js",
        "/favicon.ico",
    ):
        r = c.get(path)
        assert r.status_code == 403 and "token" in r.text, path
    for host in ("evil.example:18765", "127.0.0.1", "127.0.0.1:1", "localhost.evil.example:18765", ""):
        r = c.get(BASE + "values", headers={"Host": host})
        assert r.status_code == 403 and "address tracepub printed" in r.text, host
    assert c.get(BASE + "values", headers={"Host": f"localhost:{PORT}"}).status_code == 200
    csp = c.get("/nothing").headers["content-security-policy"]  # a refusal carries the headers too
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "default-src 'none'" in csp


def test_no_secret_or_identity_original_reaches_the_page(tmp_path, isolated_home):
    out, p = web_dir(tmp_path, isolated_home)
    c = client(out, reviewer=None)  # the login name (jdoe) is not shown either
    bodies: list[str] = []

    def get(path: str) -> str:
        r = c.get(BASE + path)
        assert r.status_code == 200, (path, r.text)
        headers = r.headers
        assert (
            headers["content-security-policy"] == server.CSP and headers["referrer-policy"] == "no-referrer"
        )
        bodies.append(r.text)
        return r.text

    for path in (
        "values",
        "values?state=flagged",
        "values?family=identity",
        "values?family=secret",
        "sessions",
        "sessions?state=dropped",
        "add",
        "apply",
        "approve",
        "static/app.js",
        "static/app.css",
        "api/plan?reviewer=Jane",
        "api/apply",
        "api/preview?text=Project+Bluebird",
        "api/preview?text=ghp_&regex=1",
        "api/preview?text=ACME-[0-9]%2B&regex=1",
    ):
        get(path)
    idx = c.app.app.state.review.index()
    for vid in idx.by_id:
        got = json.loads(get(f"api/value?id={vid}"))
        assert got["masked"] == (got["type"].split(".")[0] in ("secret", "identity", "custom"))
    for s in idx.sessions:
        for n in range(len(s.dests)):
            html = get(f"session?id={s.id}&file={n}")
            assert 'class="ph' in html  # placeholders are marked in place
    bodies.append(json.dumps(post(c, "api/decide", {"action": "keep", "ids": list(idx.by_id)})))
    bodies.append(json.dumps(post(c, "api/decide", {"action": "redact", "ids": list(idx.by_id)})))
    text = "\n".join(bodies)
    assert "alice.smith@contoso-mail.com" in text  # personal data is shown in clear, for judging
    for value in originals(p):
        assert value not in text, value


def test_changes_need_json_from_this_origin(tmp_path):
    from reviewkit import redacted_dir

    out = redacted_dir(tmp_path)
    c = client(out)
    vid = value_id(out, "pii.email")
    assert c.post(BASE + "api/decide", data={"action": "keep", "ids": vid}).status_code == 415
    r = c.post(
        BASE + "api/decide", json={"action": "keep", "ids": [vid]}, headers={"Origin": "http://evil.example"}
    )
    assert r.status_code == 403
    r = c.post(BASE + "api/decide", content=b"{", headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    assert decisions.read(out) == []
    assert c.get(BASE + "api/decide").status_code == 405


def test_port_in_use_is_refused_with_a_clear_line():
    sock = server.bind(0)
    try:
        with pytest.raises(Refusal, match="choose another --port"):
            server.bind(sock.getsockname()[1])
    finally:
        sock.close()
    assert server.bind(0).getsockname()[0] == "127.0.0.1"


# -- decisions, through the terminal review's code -------------------------------------------------------------
def test_decide_add_drop_apply_and_approve_through_the_api(tmp_path, isolated_home):
    out, p = web_dir(tmp_path, isolated_home)
    c = client(out)
    email = value_id(out, "pii.email")
    ticket = value_id(out, "secret.acme_ticket")
    assert post(c, "api/decide", {"action": "keep", "ids": [email]})["pending"]["keep"] == 1
    d = post(c, "api/decide", {"action": "keep", "ids": [email]})
    assert d["appended"] == 0  # already decided: no second line
    assert post(c, "api/decide", {"action": "redact", "ids": [email]})["pending"]["total"] == 0
    # bulk: only with a filter, and only the values it matches
    r = c.post(BASE + "api/decide", json={"action": "keep", "filter": {}}, headers={"Origin": ORIGIN})
    assert r.status_code == 400 and "filter" in r.json()["error"]
    d = post(c, "api/decide", {"action": "keep", "filter": {"state": "flagged"}})
    assert d["appended"] == 1 and d["states"][ticket]["wanted"] == "kept"
    assert "published in clear" not in json.dumps(d) and "publish refuses" not in json.dumps(
        d
    )  # not high-confidence
    page = c.get(BASE + "values?state=pending").text
    assert (
        f'article class="value kept" data-vid="{ticket}"' in page
        and f'data-vid="{email}" tabindex' not in page
    )
    # preview counts what the text would hit in dataset/ (both sessions), then add it
    pv = c.get(BASE + "api/preview", params={"text": "project bluebird"}).json()
    assert pv["hits"] == 4 and pv["files"] == 2 and pv["complete"]
    assert c.get(BASE + "api/preview", params={"text": "ab"}).status_code == 400
    assert c.get(BASE + "api/preview", params={"text": "(", "regex": "1"}).status_code == 400
    assert post(c, "api/add", {"text": "Project Bluebird"})["pending"]["add"] == 1
    # approve refuses while decisions wait
    r = c.post(BASE + "api/approve", json={"reviewer": "Jane Doe"}, headers={"Origin": ORIGIN})
    assert r.status_code == 409 and "Apply them first" in r.json()["error"]
    # drop takes effect at once
    assert "Dropped session" in post(c, "api/session", {"action": "drop", "id": SID_B[:8]})["message"]
    assert "dropped" in c.get(BASE + "sessions?state=dropped").text
    # apply: the terminal review's re-run, in a child process
    post(c, "api/apply", {})
    done = wait_apply(c)
    assert done["state"] == "done", done
    assert "Applied" in done["html"] and done["pending"]["total"] == 0
    text = dataset_text(out)
    assert p.codename not in text and "<CUSTOM_TEXT_" in text and p.ticket in text and p.email not in text
    assert SID_B not in "".join(str(x) for x in (out / "dataset").rglob("*"))
    # approve: the card as it will be published, then the same signoff.json as `tracepub approve`
    plan = c.get(BASE + "api/plan", params={"reviewer": "Jane Doe", "license": "cc-by-4.0"}).json()
    assert "Reviewed and approved by Jane Doe" in plan["html"] and "license: cc-by-4.0" in plan["html"]
    signed = post(c, "api/approve", {"reviewer": "Jane Doe", "license": "cc-by-4.0"})["signoff"]
    got, manifest = so.check_signoff(out)
    assert got == signed and got["reviewer"] == "Jane Doe"
    assert "license: cc-by-4.0" in (out / "dataset" / "README.md").read_text()
    actions = [
        (e["action"], e.get("value_id") or e.get("session") or e.get("text"), e["reviewer"])
        for e in decisions.read(out)
    ]
    assert actions == [
        ("keep", email, "Jane"),
        ("redact", email, "Jane"),
        ("keep", ticket, "Jane"),
        ("add", "Project Bluebird", "Jane"),
        ("drop_session", SID_B, "Jane"),
    ]
    assert "Signed by Jane Doe" in c.get(BASE + "approve").text


def test_restore_and_errors_are_one_line_json(tmp_path, isolated_home):
    out, _ = web_dir(tmp_path, isolated_home)
    c = client(out)
    post(c, "api/session", {"action": "drop", "id": SID_B})
    assert post(c, "api/session", {"action": "restore", "id": SID_B})["immediate"] is True
    r = c.post(BASE + "api/session", json={"action": "drop", "id": "ffff"}, headers={"Origin": ORIGIN})
    assert r.status_code == 409 and "ffff" in r.json()["error"]
    r = c.post(BASE + "api/decide", json={"action": "keep", "ids": ["0" * 16]}, headers={"Origin": ORIGIN})
    assert r.status_code == 404
    assert c.get(BASE + "session?id=nope").status_code == 200  # a page saying so, not a crash


def test_every_sample_harness_reads_back_as_a_conversation(tmp_path):
    root = Path(__file__).resolve().parents[1] / "sample_traces"
    out = tmp_path / "out"
    r = invoke("redact", root, "--out", out, "--jobs", "1", "--no-ner")
    assert r.exit_code == 0, r.output
    c = client(out)
    idx = c.app.app.state.review.index()
    harnesses = set()
    for s in idx.sessions:
        main = s.dests.index(s.main)
        got = list(turns(out / "dataset" / s.main, s.main, s.kinds[main]))
        assert any(t.role == "user" for t in got) or any(t.role == "meta" for t in got), s.main
        assert any(t.kind == "call" for t in got), s.main  # every sample calls a tool
        html = c.get(BASE + f"session?id={s.id}").text
        assert re.search(r'class="turn role-(user|assistant)', html), s.main
        harnesses.add(s.harness)
    assert {
        "claude_code",
        "codex",
        "pi",
        "gemini_cli",
        "opencode",
        "hermes",
        "openai",
        "sharegpt",
        "atif",
        "sts",
    } <= harnesses
    page = c.get(BASE + "sessions?sort=start").text
    assert page.count("<tr ") == len(idx.sessions)


def test_the_command_line_serves_the_page(tmp_path, monkeypatch):
    from reviewkit import redacted_dir

    out = redacted_dir(tmp_path)
    seen = {}
    monkeypatch.setattr(server, "serve", lambda *a, **k: seen.update(args=a))
    r = invoke(
        "review", out, "--web", "--no-browser", "--port", "8123", "--reviewer", "Jane", "--secret", "s3cr3t-v"
    )
    assert r.exit_code == 0, r.output
    assert seen["args"] == (out, 8123, False, "Jane", ("s3cr3t-v",), ())
    assert decisions.read(out) == []  # serving decides nothing by itself
