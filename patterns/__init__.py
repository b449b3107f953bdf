"""The rule packs (one TOML file per family). A package only so that installed code finds them as ``tracepub.patterns``."""
