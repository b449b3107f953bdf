"""``tracepub publish DIR --repo OWNER/NAME``: upload exactly the signed bytes, or nothing.

In order, and refusing at the first failure:

1. signoff.json exists, and its hash and run id match manifest.json (``signoff.check_signoff``);
2. the manifest recomputed from disk equals the signed one: no changed, added or removed byte,
   temporary files included;
3. ``--license``, if given, equals the card's (publish never edits a signed file);
4. every file is copied to a private staging folder while hashed, and each copy must hash to
   the signed sha256: from here on, nothing that happens in dataset/ can change what is sent;
5. the copies are re-scanned with the high-confidence detectors (credential rules, the user's
   identity and secrets, the reviewer's added values and regexes); any hit refuses;
6. only then is the Hub contacted: an existing dataset must not be public unless ``--public``,
   and a different file at one of our paths refuses unless ``--replace``; then
   ``create_repo(private=not public, exist_ok=True)``; then the Hub is asked again (the
   dataset may have appeared, public, between the first look and ``create_repo``, which
   succeeds on it): a public one still refuses without ``--public``, and one that was not there
   before gets every check of an existing one; then one ``create_commit`` of the copies, whose
   message carries the manifest sha256.

``--dry-run`` runs 1-5 on dataset/ itself and lists what would be sent; it contacts nothing.
The token comes from ``huggingface_hub`` (HF_TOKEN or the stored login) and is never printed:
error messages are scrubbed of it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracepub import __version__
from tracepub.detect.base import BLOCK_CONFIDENCE
from tracepub.errors import Refusal
from tracepub.outputs import card
from tracepub.outputs.files import DATASET, diff_files
from tracepub.publish.signoff import check_signoff, disk_files
from tracepub.review import decisions, runstate

REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
PATHS_INFO_CHUNK = 500


@dataclass
class Hit:
    file: str
    line: int
    type: str
    detector: str
    masked: str

    def __str__(self) -> str:
        return f"{self.type} ({self.masked}) in {self.file} " + (f"line {self.line}" if self.line else "(file name)")


@dataclass
class Result:
    repo: str
    dry_run: bool
    private: bool
    files: list[dict[str, Any]] = field(default_factory=list)  # path, size, sha256
    bytes: int = 0
    manifest_sha256: str = ""
    commit_message: str = ""
    url: str | None = None
    commit: str | None = None
    unchanged: int = 0  # files already on the Hub with the same content
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return self.__dict__.copy()


def check_repo_id(repo: str) -> str:
    if not REPO_ID.match(repo) or ".." in repo or repo.endswith((".git", ".")):
        raise ValueError(f"{repo!r} is not a Hub repository id: use OWNER/NAME")
    return repo


# -- local checks --------------------------------------------------------------------------------
def verify(out: Path, license_: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    signoff, manifest = check_signoff(out)
    diff = diff_files(manifest.get("files", {}), disk_files(out))
    if diff:
        shown = ", ".join(diff[:3]) + (f" and {len(diff) - 3} more" if len(diff) > 3 else "")
        raise Refusal(f"dataset/ differs from what was signed ({shown}): nothing was sent; regenerate it with "
                      f"`tracepub review {out}` or `tracepub redact`, check it, and approve again")
    if license_ is not None:
        have = card.read_meta(out).get("license")
        if have != license_:
            raise Refusal(f"--license {license_} differs from the signed card's license ({have}); publish never edits "
                          f"a signed file: re-approve with `tracepub approve {out} --reviewer NAME --license {license_}`")
    return signoff, manifest


@contextlib.contextmanager
def staged(out: Path, signed: dict[str, dict[str, Any]]) -> Iterator[tuple[Path, dict[str, str]]]:
    """Private copies of the signed files, each hashed while copied and checked against the
    manifest; yields (folder, git blob ids). The folder is removed afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix=".publish-", dir=out))
    try:
        oids: dict[str, str] = {}
        for name, meta in signed.items():
            src, dst = out / DATASET / name, tmp / name
            dst.parent.mkdir(parents=True, exist_ok=True)
            sha, git = hashlib.sha256(), hashlib.sha1(b"blob %d\0" % meta["size"])
            size = 0
            with open(src, "rb") as fi, open(dst, "wb") as fo:
                for chunk in iter(lambda f=fi: f.read(1 << 20), b""):
                    sha.update(chunk)
                    git.update(chunk)
                    size += len(chunk)
                    fo.write(chunk)
            if sha.hexdigest() != meta["sha256"] or size != meta["size"]:
                raise Refusal(f"dataset/{name} changed while publishing: nothing was sent; check it and approve again")
            oids[name] = git.hexdigest()
        yield tmp, oids
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def rescan_config(out: Path, secrets: tuple[str, ...] = (), secrets_files: tuple = (),
                  missing: list[str] | None = None) -> tuple[Any, dict[str, str]]:
    """The high-confidence detectors, with every exact value and regex a run of this folder used.

    Exact values are collected again (they are never stored); one the redact run matched but
    that is not available now (an environment variable of another shell, a ``--secret`` not
    given again) is reported in ``missing``: the signed bytes were redacted for it, so this only
    narrows the second look, and publish says so rather than refusing."""
    from tracepub.detect.registry import DetectConfig

    state = runstate.read(out)
    detect = state.get("detect", {})
    dec = decisions.load(out)
    identity: dict[str, str] = {v: "custom.text" for v in dec.add_values}
    identity.update(runstate.collect_values(out, secrets, secrets_files, what="the re-scan",
                                            missing_out=missing if missing is not None else []))
    cfg = DetectConfig(
        identity=identity,
        extra_rules=[p for p in detect.get("extra_rules", []) if Path(p).exists()],
        add_regexes=[*detect.get("add_regexes", []), *dec.add_regexes],
        ner=False,
        detect_secrets=False,
        high_confidence_only=True,
    )
    return cfg, identity


def rescan(root: Path, names: list[str], out: Path, reviewer: str, secrets: tuple[str, ...] = (),
           secrets_files: tuple = (), missing: list[str] | None = None) -> list[Hit]:
    """High-confidence hits in the files under ``root``: every JSON string leaf (JSON inside
    strings included) and every raw line, so neither escaping nor a duplicate key hides a value.

    Identity values the reviewer deliberately kept in clear (or that tracepub.toml allows) are
    the user's own to publish; secrets and added values never are. The reviewer's name may
    appear in the card, where approve put it."""
    from tracepub.detect.engine import Engine
    from tracepub.model import Leaf
    from tracepub.redact.placeholders import Namer, load_key
    from tracepub.redact.redactor import mask
    from tracepub.walk.walker import Walker, loads

    cfg, _ = rescan_config(out, secrets, secrets_files, missing)
    engine = Engine(cfg)
    namer = Namer(load_key(out / "review"))
    kept = decisions.load(out).keep_ids
    state = runstate.read(out).get("detect", {})
    allowed = {v.lower() for v in state.get("allow_values", [])}
    allow_rx = [re.compile(p) for p in state.get("allow_regexes", [])]
    hits: list[Hit] = []
    seen: set[tuple[str, int, str]] = set()

    def permitted(name: str, value: str, type_: str) -> bool:
        if name == card.CARD and value.strip().lower() == reviewer.strip().lower():
            return True
        if not type_.startswith("identity."):
            return False
        return (namer.value_id(value) in kept or value.lower() in allowed
                or any(rx.fullmatch(value) for rx in allow_rx))

    where = {"name": "", "line": 0}

    def visit(text: str, path: tuple, key: str | None) -> str:
        for s in engine.scan(text, Leaf("publish", path, key, False)):
            value = text[s.start : s.end]
            if s.confidence < BLOCK_CONFIDENCE or s.action == "review" or permitted(where["name"], value, s.type):
                continue
            k = (where["name"], where["line"], value)
            if k not in seen:
                seen.add(k)
                hits.append(Hit(where["name"], where["line"], s.type, s.detector, mask(value, s.type)))
        return text

    walker = Walker(visit, None, remove_blobs=False)
    for name in names:
        where["name"], where["line"] = name, 0
        visit(name, ("#file",), None)  # the path is uploaded too (line 0: the file name)
        with open(root / name, "rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                where["line"] = lineno
                line = raw.decode("utf-8", errors="replace")
                visit(line, (), None)
                stripped = line.strip()
                if stripped[:1] in ("{", "["):
                    try:
                        walker.walk(loads(stripped))
                    except (ValueError, RecursionError):
                        pass
    return hits


def _refuse_hits(hits: list[Hit], out: Path) -> None:
    shown = "; ".join(str(h) for h in hits[:3]) + (f"; and {len(hits) - 3} more" if len(hits) > 3 else "")
    raise Refusal(f"the re-scan of dataset/ found {len(hits)} high-confidence value(s) in clear ({shown}): nothing "
                  f"was sent; redact them (`tracepub review {out} --add TEXT` or `--redact ID`) and approve again")


# -- the upload ----------------------------------------------------------------------------------
def _commit_message(message: str | None, sha: str, n: int) -> str:
    head = (message or f"Add {n} redacted file(s) with tracepub").strip().splitlines()[0]
    return f"{head} [tracepub manifest sha256:{sha}]"


def publish(out: Path, repo: str, *, public: bool = False, dry_run: bool = False, message: str | None = None,
            replace: bool = False, license_: str | None = None, secrets: tuple[str, ...] = (),
            secrets_files: tuple = ()) -> Result:
    check_repo_id(repo)
    signoff, manifest = verify(out, license_)
    signed: dict[str, dict[str, Any]] = manifest["files"]
    names = sorted(signed)
    sha = signoff["manifest_sha256"]
    result = Result(repo=repo, dry_run=dry_run, private=not public, manifest_sha256=sha,
                    files=[{"path": n, "size": signed[n]["size"], "sha256": signed[n]["sha256"]} for n in names],
                    bytes=sum(signed[n]["size"] for n in names),
                    commit_message=_commit_message(message, sha, len(names)))
    missing: list[str] = []
    if dry_run:
        hits = rescan(out / DATASET, names, out, signoff["reviewer"], secrets, secrets_files, missing)
        if hits:
            _refuse_hits(hits, out)
        _note_missing(result, missing)
        result.notes.append(f"re-scan: {len(names)} file(s) checked, no high-confidence value found")
        result.notes.append("dry run: nothing was sent and the Hub was not contacted "
                            "(existing files and visibility are checked only by a real publish)")
        return result
    with staged(out, signed) as (root, oids):
        hits = rescan(root, names, out, signoff["reviewer"], secrets, secrets_files, missing)
        if hits:
            _refuse_hits(hits, out)
        _note_missing(result, missing)
        _upload(root, names, oids, signed, signoff, result, public, replace)
    return result


def _note_missing(result: Result, missing: list[str]) -> None:
    if missing:
        kinds = ", ".join(sorted(set(missing)))
        result.notes.append(f"re-scan: {len(missing)} exact value(s) that redact matched were not available now "
                            f"({kinds}); the signed files were redacted for them, but the re-scan could not look "
                            "for them (give them with --secret/--secrets-file)")


def _upload(root: Path, names: list[str], oids: dict[str, str], signed: dict[str, dict[str, Any]],
            signoff: dict[str, Any], result: Result, public: bool, replace: bool) -> None:
    from huggingface_hub import CommitOperationAdd, HfApi, get_token
    from huggingface_hub.errors import RepositoryNotFoundError

    token = get_token()
    if not token:
        raise Refusal("no Hugging Face token: set HF_TOKEN or run `hf auth login`, then publish again")
    repo = result.repo
    api = HfApi(endpoint=os.environ.get("HF_ENDPOINT") or None, token=token)

    def look() -> Any:
        try:
            return api.repo_info(repo, repo_type="dataset")
        except RepositoryNotFoundError:
            return None

    try:
        info = look()
        if info is not None:
            _check_existing(api, info, names, oids, signed, result, public, replace)
        url = api.create_repo(repo, repo_type="dataset", private=not public, exist_ok=True)
        # The dataset may have appeared (or been made public) between the look above and
        # create_repo, which succeeds on an existing one (exist_ok) whatever its visibility: look
        # again right before the commit, so a public dataset is never written to without --public.
        after = look()
        if after is None:
            raise Refusal(f"dataset {repo} was not found right after creating it: nothing was sent; "
                          "run publish again")
        if info is None:  # someone else's dataset may be there now: every check, on it
            _check_existing(api, after, names, oids, signed, result, public, replace, raced=True)
        elif not after.private and not public:
            _refuse_public(repo, raced=True)
        ops = [CommitOperationAdd(path_in_repo=n, path_or_fileobj=str(root / n)) for n in names]
        info_commit = api.create_commit(
            repo, ops, repo_type="dataset", commit_message=result.commit_message,
            commit_description=(f"Signed off by {signoff['reviewer']} at {signoff['time']}; run {signoff['run_id']}; "
                                f"tracepub {__version__}. Every file's sha256 is in the signed manifest."),
        )
    except Refusal:
        raise
    except Exception as exc:  # HfHubHTTPError, connection errors, offline mode...: one line, no token
        raise Refusal(f"upload to {repo} failed: {_scrub(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, token)}"
                      " (nothing is published unless the commit went through; run publish again)") from None
    result.url = str(url)
    result.commit = getattr(info_commit, "oid", None)


def _check_existing(api: Any, info: Any, names: list[str], oids: dict[str, str], signed: dict[str, dict[str, Any]],
                    result: Result, public: bool, replace: bool, raced: bool = False) -> None:
    """Refuse to write into an existing dataset that is public (unless ``--public``) or holds
    other bytes at one of our paths (unless ``--replace``); set ``result.private`` from it.
    ``raced``: the dataset did not exist when first looked at and appeared before the commit."""
    repo = result.repo
    if not info.private and not public:
        _refuse_public(repo, raced)
    if info.private and public:
        result.notes.append(f"{repo} already exists and is private; it stays private")
    result.private = bool(info.private)
    remote: dict[str, Any] = {}
    for i in range(0, len(names), PATHS_INFO_CHUNK):
        for f in api.get_paths_info(repo, names[i : i + PATHS_INFO_CHUNK], repo_type="dataset"):
            remote[f.path] = f
    different = [n for n in names if n in remote and not _same(remote[n], oids[n], signed[n])]
    result.unchanged = sum(1 for n in names if n in remote and n not in different)
    if different and not replace:
        raise Refusal(f"{len(different)} file(s) already in {repo} differ from the signed ones "
                      f"(e.g. {different[0]}): nothing was sent; pass --replace to overwrite them")


def _refuse_public(repo: str, raced: bool) -> None:
    if raced:
        raise Refusal(f"dataset {repo} became public while publishing (it was absent or private when tracepub "
                      "looked), so this upload would be public: nothing was sent; pass --public if you mean it, "
                      "or publish to another repository")
    raise Refusal(f"dataset {repo} already exists and is public, so this upload would be public: "
                  "pass --public if you mean it, or publish to another repository")


def _same(remote: Any, oid: str, meta: dict[str, Any]) -> bool:
    lfs = getattr(remote, "lfs", None)
    if lfs is not None:
        sha = lfs.get("sha256") if isinstance(lfs, dict) else getattr(lfs, "sha256", None)
        return sha == meta["sha256"]
    return getattr(remote, "blob_id", None) == oid


def _scrub(text: str, token: str) -> str:
    return text.replace(token, "***") if token else text
