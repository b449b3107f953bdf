"""Every string of a record: the walker (JSON inside strings included) and opaque blobs."""
