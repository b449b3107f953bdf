"""Which sessions go in: --project/--since/--session criteria, reviewers' drops, deny rules."""
