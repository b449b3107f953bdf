"""A human's decisions: the decisions file, the interactive review, the stored run state, session drops."""
