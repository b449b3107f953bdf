"""The pipeline: workers over units, the dataset-wide second pass, incremental reuse."""
