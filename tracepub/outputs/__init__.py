"""What a run writes: dataset files and manifest, the dataset card, the review report."""
