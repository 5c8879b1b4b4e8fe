"""`kubelite diff -f FILE`: show what `apply` would change (kubectl diff).

Exit status: 0 no differences, 1 differences, >1 kubelite or the diff program failed.
"""
from __future__ import annotations

import argparse
import sys


def parser() -> argparse.ArgumentParser:
    from kubelite.cli.apply import add_connection_flags

    p = argparse.ArgumentParser(prog="kubelite diff", description="Diff the live version against a would-be "
                                "applied version.")
    p.add_argument("-f", "--filename", action="append", default=[])
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-k", "--kustomize")
    p.add_argument("-l", "--selector")
    p.add_argument("--field-manager", default=None)
    p.add_argument("--server-side", nargs="?", const="true", default="false")
    p.add_argument("--force-conflicts", action="store_true")
    p.add_argument("--show-managed-fields", action="store_true")
    p.add_argument("--show-secret", action="store_true")
    p.add_argument("--prune", action="store_true")
    p.add_argument("--prune-allowlist", action="append", default=[])
    p.add_argument("--concurrency", type=int, default=1)
    add_connection_flags(p)
    return p


def run(argv: list[str]) -> int:
    args, rest = parser().parse_known_args(argv)
    if rest:
        print(f"error: unknown flag or argument: {rest[0]}", file=sys.stderr)
        return 2
    if args.force_conflicts and args.server_side == "false":
        print("error: --force-conflicts only works with --server-side", file=sys.stderr)
        return 2
    if args.server_side != "false":
        print("error: --server-side is not supported yet by kubelite (client-side apply only)", file=sys.stderr)
        return 2
    from kubelite.cli.apply import open_session, read_manifests

    manifests = read_manifests(args, verb="diff")
    if manifests is None:
        return 2
    try:
        session = open_session(args)
    except Exception as err:
        print(str(err) if str(err).startswith("error") else f"error: {err}", file=sys.stderr)
        return 2
    with session:
        return _diff(args, session, manifests)


def _diff(args, session, manifests) -> int:
    from kubelite.apply import diff
    from kubelite.apply.engine import FIELD_MANAGER, Applier, ApplyOptions
    from kubelite.apply.objects import ObjectError
    from kubelite.apply.report import errors_text
    from kubelite.client.errors import ClientError

    options = ApplyOptions(field_manager=args.field_manager or FIELD_MANAGER, selector=args.selector,
                           namespace=session.namespace, enforce_namespace=session.connection.namespace_explicit)
    applier = Applier(session, options)
    pairs = []
    try:
        for item in applier.prepare(manifests):
            pair = diff.diff_item(applier, item)
            pairs.append(diff.presentable(pair, args.show_managed_fields, args.show_secret))
    except (ClientError, ObjectError, ValueError) as err:
        print(errors_text([err]), end="", file=sys.stderr)
        return 2
    live_dir, merged_dir = diff.write_versions(pairs)
    try:
        return diff.run_diff(live_dir, merged_dir, sys.stdout, sys.stderr)
    finally:
        diff.cleanup(live_dir, merged_dir)


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
