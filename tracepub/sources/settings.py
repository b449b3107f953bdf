"""What detection is configured with on this machine: the harvested identity, ``--secret``
values, ``--secrets-file`` and tracepub.toml, assembled into one ``DetectConfig``.

Apart from the command line so that tests and scripts configure a run the way ``redact``
does, with a fake home and environment, without going through click.
"""

from __future__ import annotations

from pathlib import Path

from tracepub import config as config_mod
from tracepub.config import Config
from tracepub.detect.registry import DetectConfig
from tracepub.sources.harvest import Harvest, collect


def detect_config(
    secret: tuple[str, ...],
    secrets_file: Path | None,
    config_path: Path | None,
    ner: bool,
    env: dict[str, str] | None = None,
    home: Path | None = None,
) -> tuple[DetectConfig, Harvest, Config]:
    """The detection config, the harvest (its masked summary goes to review/identity.json) and
    tracepub.toml. ValueError: tracepub.toml cannot be read."""
    cfg = config_mod.load(config_path)
    files = [str(secrets_file.resolve())] if secrets_file is not None else []
    h = collect(secret, files, cfg.secrets, env, home)
    dc = DetectConfig(
        identity=dict(h.values),
        extra_rules=[str(cfg.path)] if cfg.has_rules and cfg.path else [],
        add_regexes=list(cfg.redact_regex),
        allow_values=list(cfg.allow),
        allow_regexes=list(cfg.allow_regex),
        ner=ner,
        secrets_files=files,
        config_file=str(cfg.path.resolve()) if cfg.path else None,
    )
    return dc, h, cfg
