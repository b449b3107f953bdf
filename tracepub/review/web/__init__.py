"""``tracepub review DIR --web``: the review on a local page (server, routes, templates, static files)."""
