"""Detection: the engine, its prefilter, and the detectors (secrets, PII, identity, found values)."""
