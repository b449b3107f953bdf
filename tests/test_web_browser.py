"""tracepub review --web in a real browser (Playwright driving Debian's chromium): keep a value
(keyboard), redact it again, drop a session, add a text after previewing it, apply, approve; then
the files on disk are what the terminal review and approve would have written.

Playwright's own browser download is not available here, so the system chromium is launched
(``.ci/run`` installs it when missing). The test is skipped, saying why, only where chromium
cannot run at all."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from reviewkit import dataset_text, value_id
from webkit import SID_B, originals, web_dir

from tracepub.publish import signoff as so
from tracepub.review import decisions
from tracepub.review.web.server import running

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install -e '.[dev]')")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no chromium at {CHROMIUM} (.ci/run installs Debian's chromium)")
    with sync_playwright() as pw:
        try:
            b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except Exception as exc:  # the binary is there but cannot start here
            pytest.skip(f"chromium cannot run here: {str(exc).splitlines()[0]}")
        yield b
        b.close()


def test_review_in_the_browser_from_keep_to_signed(browser, tmp_path, isolated_home):
    out, p = web_dir(tmp_path, isolated_home)
    email = value_id(out, "pii.email")
    seen: list[str] = []
    errors: list[str] = []
    with running(out, reviewer="Jane") as url:
        page = browser.new_page()
        page.set_default_timeout(20_000)
        page.on("dialog", lambda d: d.accept())
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on(
            "response",
            lambda r: (
                seen.append(r.text())
                if "text" in r.headers.get("content-type", "") or "json" in r.headers.get("content-type", "")
                else None
            ),
        )

        # Values: keep the email with the keyboard, then redact it again with the button
        page.goto(url)
        article = page.locator(f'article.value[data-vid="{email}"]')
        article.focus()
        page.keyboard.press("c")
        page.wait_for_selector(f'article.value.kept[data-vid="{email}"]')
        assert article.locator("[data-state]").inner_text() == "keep on Apply"
        assert page.locator("#pending-badge").inner_text() == "1"
        article.locator('button[data-act="redact"]').click()
        page.wait_for_selector(f'article.value.redacted[data-vid="{email}"]')
        assert page.locator("#pending-badge").is_hidden()

        # Sessions: open one as the conversation, show a placeholder's value, then drop the other
        page.click("#nav-sessions")
        page.click(f'tr[data-sid="{SID_B}"] a')
        page.wait_for_selector(".turn.role-user")
        ph = page.locator("button.ph", has_text="<EMAIL_").first.element_handle()
        ph.click()
        page.wait_for_function("b => b.dataset.shown === '1'", arg=ph)
        assert ph.inner_text() == p.email
        page.click('button[data-session="drop"]')
        page.wait_for_selector("text=Restore this session")

        # Add: preview, then add
        page.click("#nav-add")
        page.fill("#add-text", p.codename)
        page.click("#preview-btn")
        page.wait_for_selector("#preview-result .preview")
        assert page.locator("#preview-result .preview strong").inner_text() == "2"  # session A only now
        page.click("#add-btn")
        page.wait_for_selector(f"ul.added li:has-text('{p.codename[:2]}')")

        # Apply: progress, then the new counts
        page.click("#nav-apply")
        page.click("#apply-btn")
        page.wait_for_selector("#apply-result h2", timeout=90_000)
        assert page.locator("#apply-status").get_attribute("data-state") == "done"
        assert page.locator("#pending-badge").is_hidden()

        # Approve: the card as it will be published, then sign
        page.click("#nav-approve")
        page.fill("#reviewer", "Jane Doe")
        page.fill("#license", "cc-by-4.0")
        page.click("#plan-btn")
        page.wait_for_selector("#card-preview:has-text('Reviewed and approved by Jane Doe')")
        page.click("#sign-btn")
        page.wait_for_selector("#sign-result .signed")
        page.close()

    assert errors == []
    entries = [
        (e["action"], e.get("value_id") or e.get("session") or e.get("text")) for e in decisions.read(out)
    ]
    assert entries == [("keep", email), ("redact", email), ("drop_session", SID_B), ("add", p.codename)]
    assert {e["reviewer"] for e in decisions.read(out)} == {"Jane"}
    text = dataset_text(out)
    assert p.codename not in text and "<CUSTOM_TEXT_" in text and p.email not in text
    assert not any(SID_B in str(x) for x in (out / "dataset").rglob("*"))
    signoff, _ = so.check_signoff(out)  # matches manifest.json: what publish checks
    assert signoff["reviewer"] == "Jane Doe"
    card = (out / "dataset" / "README.md").read_text()
    assert "license: cc-by-4.0" in card and "Reviewed and approved by Jane Doe" in card
    page_text = "\n".join(seen)
    for value in originals(p):
        assert value not in page_text, value
