"""`kubelite cordon` / `uncordon`: mark nodes unschedulable or schedulable again, as kubectl does
(a strategic merge patch of spec.unschedulable; `already cordoned` when nothing changes). The
node selection and the cordon step are shared with `drain`."""
from __future__ import annotations

import sys

from kubelite.cli import common

EXAMPLES = {
    "cordon": """\
  # Keep new pods off node-a
  kubelite cordon node-a

  # Every node with a label
  kubelite cordon -l pool=blue
""",
    "uncordon": """\
  # Let pods be scheduled on node-a again
  kubelite uncordon node-a
""",
}
SUMMARY = {"cordon": "Mark nodes as unschedulable.", "uncordon": "Mark nodes as schedulable."}


def build_parser(command: str) -> common.Parser:
    p = common.parser(command, SUMMARY[command], EXAMPLES[command])
    add_node_args(p)
    common.add_dry_run_flag(p)
    from kubelite.cli.help import installed

    return installed(p, command)


def add_node_args(p) -> None:
    p.add_argument("nodes", nargs="*", metavar="NODE")
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace", default=None, help="unused: nodes are cluster-scoped")
    p.add_argument("-l", "--selector", default=None, help="label selector of the nodes")


def run(argv: list[str]) -> int:
    return common.run(build_parser("cordon"), argv, lambda args: _cordon(args, True))


def run_uncordon(argv: list[str]) -> int:
    return common.run(build_parser("uncordon"), argv, lambda args: _cordon(args, False))


def _cordon(args, desired: bool) -> int:
    command = "cordon" if desired else "uncordon"
    nodes = select_nodes(args, command)
    cordon_nodes(args, nodes, desired, common.dry_run_mode(args))
    return 0


def select_nodes(args, command: str) -> list[dict]:
    """The nodes named (NAME or node/NAME) or selected by -l, fetched; kubectl's usage errors."""
    if not args.nodes and args.selector is None:
        raise common.CommandError(f"error: USAGE: {command} NODE [flags]\n"
                                  f"See 'kubelite {command} -h' for help and examples")
    if args.nodes and args.selector:
        raise common.CommandError("error: cannot specify both a node name and a --selector option\n"
                                  f"See 'kubelite {command} -h' for help and examples")
    common.dry_run_mode(args)
    sess = common.session(args)
    info = sess.discovery.resolve("nodes")
    if args.selector is not None:
        items = sess.client.list(info, label_selector=args.selector or None).get("items") or []
        return [common.with_type(node, info) for node in items]
    out = []
    for name in args.nodes:
        kind, slash, rest = name.partition("/")
        out.append(common.with_type(sess.client.get(info, rest if slash else name), info))
    return out


def cordon_nodes(args, nodes: list[dict], desired: bool, dry_run: str) -> None:
    """Set spec.unschedulable on each node that needs it; print each node's outcome."""
    from kubelite.client.dynamic import WriteParams

    sess = common.session(args)
    info = sess.discovery.resolve("nodes")
    verb = "cordon" if desired else "uncordon"
    for node in nodes:
        name = node["metadata"]["name"]
        if bool((node.get("spec") or {}).get("unschedulable")) == desired:
            sys.stdout.write(common.success_line(node, f"already {verb}ed", dry_run))
            continue
        if dry_run != "client":
            try:
                sess.client.patch(info, None, name, {"spec": {"unschedulable": True if desired else None}},
                                  "strategic", WriteParams(dry_run=dry_run == "server"))
            except Exception as err:  # noqa: BLE001 - reported per node, as kubectl does
                sys.stdout.flush()
                sys.stderr.write(f'error: unable to {verb} node "{name}": {_go_error(err)}\n')
                continue
        sys.stdout.write(common.success_line(node, f"{verb}ed", dry_run))
    sys.stdout.flush()


def _go_error(err: BaseException) -> str:
    from kubelite.client.errors import ApiError

    return err.message if isinstance(err, ApiError) else str(err)
