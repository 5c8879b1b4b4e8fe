"""`kubelite uncordon`: mark nodes schedulable again (the cordon module does the work)."""
from __future__ import annotations


def run(argv: list[str]) -> int:
    from kubelite.cli.cordon import run_uncordon

    return run_uncordon(argv)
