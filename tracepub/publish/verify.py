"""Publish's local checks: the sign-off is this folder's, the files on disk are the signed
ones, and the copies that will be sent hash to what was signed.

These hold for any target: nothing here knows where the files go. The staged copies are what
is re-scanned and sent, so nothing that happens in dataset/ after they are made can change
what leaves the machine.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tracepub.errors import Refusal
from tracepub.outdir import OutDir
from tracepub.outputs import card
from tracepub.outputs.files import FileTable, diff_files
from tracepub.publish.signoff import check_signoff, disk_files
from tracepub.publish.target import Staged


def verify(out: Path, license_: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The (signoff, manifest) pair, if the sign-off matches the manifest, dataset/ holds exactly
    the signed files and bytes, and ``license_`` (if given) is the signed card's."""
    signoff, manifest = check_signoff(out)
    diff = diff_files(manifest.get("files", {}), disk_files(out))
    if diff:
        shown = ", ".join(diff[:3]) + (f" and {len(diff) - 3} more" if len(diff) > 3 else "")
        raise Refusal(
            f"dataset/ differs from what was signed ({shown}): nothing was sent; regenerate it with "
            f"`tracepub review {out}` or `tracepub redact`, check it, and approve again"
        )
    if license_ is not None:
        have = card.read_meta(out).get("license")
        if have != license_:
            raise Refusal(
                f"--license {license_} differs from the signed card's license ({have}); publish never edits "
                f"a signed file: re-approve with `tracepub approve {out} --reviewer NAME --license {license_}`"
            )
    return signoff, manifest


@contextlib.contextmanager
def staged(out: Path, signed: FileTable) -> Iterator[Staged]:
    """Private copies of the signed files, each hashed while copied and checked against the
    manifest (sha256, and the git blob id, in the same read). The folder is removed afterwards."""
    od = OutDir(out)
    tmp = Path(tempfile.mkdtemp(prefix=od.STAGING_PREFIX, dir=od.root))
    try:
        oids: dict[str, str] = {}
        for name, meta in signed.items():
            src, dst = od.output(name), tmp / name
            dst.parent.mkdir(parents=True, exist_ok=True)
            sha, git = hashlib.sha256(), hashlib.sha1(b"blob %d\0" % meta["size"])
            size = 0
            with open(src, "rb") as fi, open(dst, "wb") as fo:
                for chunk in iter(lambda f=fi: f.read(1 << 20), b""):  # type: ignore[misc]
                    sha.update(chunk)
                    git.update(chunk)
                    size += len(chunk)
                    fo.write(chunk)
            if sha.hexdigest() != meta["sha256"] or size != meta["size"]:
                raise Refusal(
                    f"dataset/{name} changed while publishing: nothing was sent; check it and approve again"
                )
            oids[name] = git.hexdigest()
        yield Staged(tmp, sorted(signed), signed, oids)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
