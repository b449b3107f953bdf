"""tracepub: redact coding-agent session traces; publish only what a reviewer signed off."""

__version__ = "0.1.0"
