"""``python -m tracepub.cli``: what the benchmarks and tests run as a subprocess."""

from tracepub.cli import main

main()
