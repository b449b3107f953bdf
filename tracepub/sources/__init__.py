"""Where traces come from: discovery of sessions on disk and the user's own identity (harvest)."""
