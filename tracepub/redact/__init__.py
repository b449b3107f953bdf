"""Spans to placeholders: overlap resolution, typed keyed placeholders, findings."""
