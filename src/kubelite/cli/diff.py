"""`kubelite diff -f FILE|-k DIR`: show what `apply` would change (kubectl diff).

Exit status: 0 no differences, 1 differences, >1 kubelite or the diff program failed.
"""
from __future__ import annotations

import sys

from kubelite.cli import common

ERROR_EXIT = 2  # kubectl diff's CheckDiffErr: failures must not look like "differences found"

EXAMPLES = """\
  # Diff the objects in a file (or directory, -R) against the live ones
  kubelite diff -f pod.json

  # Diff a kustomization
  kubelite diff -k ./overlays/prod

  # With another diff program
  KUBECTL_EXTERNAL_DIFF="colordiff -N -u" kubelite diff -f manifest.yaml
"""


class _DiffParser(common.Parser):
    """kubectl diff reports flag errors through CheckDiffErr too: exit 2, not 1."""

    def flag_usage_error(self, text: str, prog: str) -> common.UsageError:
        # diff's own flag error handler: pflag's wording, kubectl's older hint line
        return common.UsageError(f"error: {text}\nSee '{prog} -h' for help and examples")

    def error(self, message: str):
        try:
            super().error(message)
        except common.UsageError as err:
            common.report([err])
            raise SystemExit(ERROR_EXIT) from None


def build_parser() -> common.Parser:
    import argparse

    p = _DiffParser(prog="kubelite diff", description="Diff the live version against a would-be applied version.",
                    epilog="Examples:\n" + EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    common.add_connection_flags(p)
    common.add_namespace_flags(p, all_namespaces=False)
    common.add_filename_flags(p, "to diff")
    p.add_argument("-l", "--selector", help="diff only objects matching this label selector")
    p.add_argument("--field-manager", default=None, help="name of the manager tracking field ownership")
    p.add_argument("--server-side", nargs="?", const="true", default="false",
                   help="compare with the server's dry run of a server-side apply")
    p.add_argument("--force-conflicts", action="store_true", help="server-side apply only")
    p.add_argument("--show-managed-fields", action="store_true", help="keep managedFields in the compared files")
    p.add_argument("--show-secret", action="store_true", help="show Secret data instead of masking it")
    p.add_argument("--prune", action="store_true", help="not available yet for diff (ignored)")
    p.add_argument("--prune-allowlist", action="append", default=[], help="with --prune")
    p.add_argument("--concurrency", type=int, default=1, help="accepted for kubectl compatibility")
    from kubelite.cli.help import installed

    return installed(p, "diff")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _diff_or_fail)


def _diff_or_fail(args) -> int:
    try:
        return _diff(args)
    except common.Failed:
        raise
    except Exception as err:  # noqa: BLE001 - reported as kubectl does, with diff's exit code
        common.report([err])
        raise common.Failed(ERROR_EXIT) from None


def _diff(args) -> int:
    from kubelite.apply.diff import diff_manifests
    from kubelite.apply.engine import FIELD_MANAGER, ApplyOptions
    from kubelite.cli.apply import read_manifests

    args._verb = "diff"
    from kubelite.cli.apply import parse_bool

    server_side = parse_bool(args.server_side, "--server-side")
    if args.force_conflicts and not server_side:
        raise common.CommandError("error: --force-conflicts only works with --server-side")
    manifests = read_manifests(args, verb="diff")
    sess = common.session(args)
    options = ApplyOptions(field_manager=args.field_manager or FIELD_MANAGER, selector=args.selector,
                           namespace=sess.namespace, enforce_namespace=sess.connection.namespace_explicit)
    return diff_manifests(sess, manifests, options, sys.stdout, sys.stderr,
                          show_managed_fields=args.show_managed_fields, show_secrets=args.show_secret,
                          server_side=server_side, force_conflicts=args.force_conflicts)


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
