"""Screenshots of the review page for the README (docs/web-*.png).

    python bench/screenshots.py                 # writes docs/web-values.png ... docs/web-approve.png
    python bench/screenshots.py --out /tmp/shots

Redacts sample_traces/ (every harness) into a temporary DIR with a fake HOME, as bench/eval.py
runs the tool, with one extra rule that flags the staging host for review (so the Values page
has flagged values), starts ``tracepub review DIR --web --no-browser`` as a subprocess, and
drives Debian's chromium with Playwright through a short review: keep an email, open a session
and show a placeholder's value, preview an added text, apply, and show what approve will sign.
"""

from __future__ import annotations

import argparse
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PKG = ROOT / "src" if (ROOT / "src" / "tracepub").is_dir() else ROOT
sys.path.insert(0, str(HERE))

from eval import clean_env  # noqa: E402  (the evaluation's clean environment)

CHROMIUM = "/usr/bin/chromium"
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
RULE = """
[[rules]]
id = "staging-host"
type = "secret.internal_host"
regex = 'staging\\.example\\.com'
keywords = ["staging."]
confidence = 0.5
action = "review"
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "docs", help="folder for the PNGs (default: docs/)")
    args = ap.parse_args()

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tracepub-shots-") as tmp:
        home = Path(tmp) / "home" / "jdoe"
        home.mkdir(parents=True)
        env = clean_env({"HOME": str(home), "USER": "jdoe", "LOGNAME": "jdoe"})
        env["PYTHONPATH"] = str(PKG)
        cfg = Path(tmp) / "tracepub.toml"
        cfg.write_text(RULE, encoding="utf-8")
        out = Path(tmp) / "out"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "tracepub.cli",
                "redact",
                str(ROOT / "sample_traces"),
                "--out",
                str(out),
                "--jobs",
                "1",
                "--config",
                str(cfg),
            ],
            env=env,
            check=True,
            capture_output=True,
        )
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tracepub.cli",
                "review",
                str(out),
                "--web",
                "--no-browser",
                "--reviewer",
                "Jane Doe",
            ],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stderr is not None
            m = re.search(r"http://127\.0\.0\.1:\d+/t/[^/\s]+/", proc.stderr.readline())
            if not m:
                raise SystemExit("the server did not start")
            shoot(m.group(0), args.out)
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(20)
    for p in sorted(args.out.glob("web-*.png")):
        print(p)
    return 0


def shoot(url: str, out: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 860}, device_scale_factor=1)
        page.set_default_timeout(30_000)
        page.on("dialog", lambda d: d.accept())
        page.goto(url + "values")
        page.wait_for_selector("article.value")
        email = page.locator("article.value", has_text="pii.email").first
        email.locator('button[data-act="keep"]').click()
        page.wait_for_selector("article.value.kept")
        page.locator("article.value").first.focus()
        page.wait_for_timeout(300)
        page.screenshot(path=str(out / "web-values.png"))

        page.goto(url + "sessions")
        page.screenshot(path=str(out / "web-sessions.png"))
        page.goto(url + "sessions?harness=claude_code")
        page.locator("table.sessions tbody a").first.click()
        page.wait_for_selector(".turn")
        ph = page.locator("button.ph", has_text="<EMAIL_").first.element_handle()
        ph.scroll_into_view_if_needed()
        ph.click()
        page.wait_for_function("b => b.dataset.shown === '1'", arg=ph)
        page.evaluate("window.scrollBy(0, -200)")
        page.screenshot(path=str(out / "web-session.png"))

        page.goto(url + "add")
        page.fill("#add-text", "acme-api")
        page.click("#preview-btn")
        page.wait_for_selector("#preview-result .preview")
        page.screenshot(path=str(out / "web-add.png"))
        page.click("#add-btn")
        page.wait_for_timeout(900)

        page.goto(url + "apply")
        page.click("#apply-btn")
        page.wait_for_selector("#apply-result h2", timeout=180_000)
        page.screenshot(path=str(out / "web-apply.png"))

        page.goto(url + "approve")
        page.fill("#license", "cc-by-4.0")
        page.click("#plan-btn")
        page.wait_for_selector("#card-preview:has-text('Reviewed and approved by Jane Doe')")
        page.screenshot(path=str(out / "web-approve.png"))
        browser.close()


if __name__ == "__main__":
    sys.exit(main())
