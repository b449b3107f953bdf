"""Presidio imported without its import-time pattern validation (``detect/presidio_import.py``)."""

import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1])

CHECK = """
import regex
real = regex.compile
from tracepub.detect.pii.presidio_import import import_presidio
import_presidio()
assert regex.compile is real, "regex.compile left patched"
from presidio_analyzer import Pattern
from presidio_analyzer.predefined_recognizers import EmailRecognizer, UrlRecognizer
found = UrlRecognizer().analyze("see https://example.com/a here", ["URL"], None)
assert [(r.start, r.end) for r in found] == [(4, 25)], found
found = EmailRecognizer().analyze("mail jane@example.com now", ["EMAIL_ADDRESS"], None)
assert [(r.start, r.end) for r in found] == [(5, 21)], found
try:
    Pattern("bad", "(unclosed", 0.5)
except ValueError:
    pass
else:
    raise AssertionError("Pattern no longer validates after the import")
print("ok")
"""


def test_presidio_works_and_validates_after_the_quick_import():
    # A fresh interpreter: the test session has imported Presidio already.
    out = subprocess.run(
        [sys.executable, "-c", CHECK],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
