"""`kubelite kustomize DIR`: print the built objects as `kubectl kustomize` does."""
from __future__ import annotations

import argparse
import sys


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="kubelite kustomize")
    parser.add_argument("dir", nargs="?", default=".")
    parser.add_argument("--load-restrictor", default="LoadRestrictionsRootOnly",
                        choices=["LoadRestrictionsRootOnly", "LoadRestrictionsNone"])
    parser.add_argument("--reorder", default="", choices=["", "legacy", "none"])
    args = parser.parse_args(argv)

    from kubelite.kustomize import KustomizeError, build, render

    try:
        objects = build(args.dir, args.load_restrictor, args.reorder)
    except KustomizeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(render(objects))
    return 0
