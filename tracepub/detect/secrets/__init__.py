"""Secrets: credential rules (patterns/*.toml), values in a secret's place (entropy with context), detect-secrets' plugins, and the false-positive filters they share."""
