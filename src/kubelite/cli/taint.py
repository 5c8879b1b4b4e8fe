"""`kubelite taint`: add, change or remove taints of nodes, as kubectl does.

`KEY=VALUE:EFFECT` (or `KEY:EFFECT`) adds a taint, `KEY:EFFECT-` removes the taint with that key
and effect, `KEY-` every taint with that key. An existing key+effect is only replaced with
--overwrite. The result is sent as a strategic merge patch and printed as `node/NAME tainted`,
`untainted` or `modified`.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

from kubelite.cli import common

EXAMPLES = """\
  # Keep pods without a matching toleration off node-a
  kubelite taint nodes node-a dedicated=batch:NoSchedule

  # Remove that taint, or every taint with the key
  kubelite taint nodes node-a dedicated=batch:NoSchedule-
  kubelite taint nodes node-a dedicated-

  # Every node with a label, or all of them
  kubelite taint nodes -l pool=gpu gpu:NoSchedule
  kubelite taint nodes --all maintenance=soon:PreferNoSchedule
"""
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


@dataclass(frozen=True)
class Taint:
    key: str
    value: str = ""
    effect: str = ""

    def as_dict(self) -> dict:
        out = {"key": self.key}
        if self.value:
            out["value"] = self.value
        out["effect"] = self.effect
        return out

    def go(self) -> str:
        """Go's %v of the Taint struct (kubectl quotes it in one message)."""
        return "{" + f"{self.key} {self.value} {self.effect} <nil>" + "}"


class TaintUsageError(common.CommandError):
    pass


def build_parser() -> common.Parser:
    p = common.parser("taint", "Update the taints on one or more nodes.", EXAMPLES)
    p.add_argument("args", nargs="*", metavar="NODE NAME KEY_1=VAL_1:TAINT_EFFECT_1")
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace", default=None, help="unused: nodes are cluster-scoped")
    p.add_argument("--all", action="store_true", help="every node of the cluster")
    p.add_argument("-l", "--selector", default="", help="label selector of the nodes")
    p.add_argument("--overwrite", action="store_true", help="replace taints with the same key and effect")
    p.add_argument("--field-manager", default="kubectl-taint", help="name of the manager of the fields")
    p.add_argument("--validate", default="strict", help="strict|warn|ignore")
    common.add_dry_run_flag(p)
    common.add_output_flag(p, "json|yaml|name|jsonpath=...")
    common.add_template_flags(p)
    from kubelite.cli.help import installed

    return installed(p, "taint")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _taint)


# -- parsing the arguments --------------------------------------------------------------------------

def split_args(args: list[str]) -> tuple[list[str], list[str]]:
    """(resource words, taint changes): every resource word must come before the first change."""
    resources, changes = [], []
    for word in args:
        is_change = "=" in word or ":" in word or word.endswith("-")
        if is_change:
            changes.append(word)
        elif changes:
            raise common.CommandError(f"error: all resources must be specified before taint changes: {word}")
        else:
            resources.append(word)
    return resources, changes


def parse_changes(specs: list[str]) -> tuple[list[Taint], list[Taint]]:
    adds: list[Taint] = []
    removes: list[Taint] = []
    for spec in specs:
        if spec.endswith("-"):
            taint = _parse_one(spec[:-1])
            removes.append(Taint(taint.key, "", taint.effect))
            continue
        taint = _parse_one(spec)
        if not taint.effect:
            raise TaintUsageError(f"invalid taint spec: {spec}")
        if any(t.key == taint.key and t.effect == taint.effect for t in adds):
            raise TaintUsageError(f"duplicated taints with the same key and effect: {taint.go()}")
        adds.append(taint)
    return adds, removes


def _parse_one(spec: str) -> Taint:
    from kubelite.server.admission.names import is_qualified_name, is_valid_label_value

    parts = spec.split(":")
    value = effect = ""
    if len(parts) == 1:
        key = parts[0]
    elif len(parts) == 2:
        effect = parts[1]
        if effect not in EFFECTS:
            raise TaintUsageError(f"invalid taint effect: {effect}, unsupported taint effect")
        key_value = parts[0].split("=")
        if len(key_value) > 2:
            raise TaintUsageError(f"invalid taint spec: {spec}")
        key = key_value[0]
        if len(key_value) == 2:
            value = key_value[1]
            errors = is_valid_label_value(value)
            if errors:
                raise TaintUsageError(f"invalid taint spec: {spec}, {'; '.join(errors)}")
    else:
        raise TaintUsageError(f"invalid taint spec: {spec}")
    errors = is_qualified_name(key)
    if errors:
        raise TaintUsageError(f"invalid taint spec: {spec}, {'; '.join(errors)}")
    return Taint(key, value, effect)


def conflicts(adds: list[Taint], removes: list[Taint]) -> list[str]:
    return [f"{r.key}={r.effect}" for a in adds for r in removes
            if a.key == r.key and (not r.effect or a.effect == r.effect)]


# -- changing one node -------------------------------------------------------------------------------

def updated_taints(node: dict, adds: list[Taint], removes: list[Taint], overwrite: bool) -> tuple[str, list[dict]]:
    """(operation, the node's new taints) or CommandError, as kubectl reorganizes them: the new
    taints first, then the old ones they do not replace, less the removed ones."""
    old = [dict(t) for t in (node.get("spec") or {}).get("taints") or []]
    name = node["metadata"]["name"]
    if not overwrite:
        existing = [a.key for a in adds for t in old if t.get("key") == a.key and t.get("effect") == a.effect]
        if existing:
            raise common.CommandError(f"error: node {name} already has {','.join(existing)} taint(s) with same "
                                      "effect(s) and --overwrite is false")
    new = [a.as_dict() for a in adds]
    for taint in old:
        if not any(n.get("key") == taint.get("key") and n.get("effect") == taint.get("effect") for n in new):
            new.append(taint)
    added = len(old) != len(new)
    missing, removed = [], False
    for r in removes:
        before = len(new)
        new = [t for t in new if not (t.get("key") == r.key and (not r.effect or t.get("effect") == r.effect))]
        removed = len(new) != before
        if not removed:
            missing.append(f'taint "{r.key}:{r.effect}" not found' if r.effect else f'taint "{r.key}" not found')
    if missing:
        raise common.CommandError("error: " + missing[0] if len(missing) == 1 else
                                  "error: [" + ", ".join(missing) + "]")
    if (added and removed) or overwrite:
        return "modified", new
    return ("tainted" if added else "untainted"), new


def _taint(args) -> int:
    resources, changes = split_args(args.args)
    if not resources:
        raise common.CommandError("error: one or more resources must be specified as <resource> <name>")
    if not changes:
        raise common.CommandError("error: at least one taint update is required")
    try:
        adds, removes = parse_changes(changes)
    except TaintUsageError as err:
        raise common.CommandError(f"error: {err}\nSee 'kubelite taint -h' for help and examples") from None
    dry_run = common.dry_run_mode(args)
    output = common.output_of(args)
    sess = common.session(args)
    kind = resources[0].lower()
    info = _resolve(sess, kind)
    if info.kind != "Node":
        raise common.CommandError(f"error: invalid resource type {kind}, only node types are supported")
    clash = conflicts(adds, removes)
    if clash:
        raise common.CommandError("error: can not both modify and remove the following taint(s) in the same "
                                  f"command: {', '.join(clash)}")
    if args.all and args.selector:
        raise common.CommandError("error: setting 'all' parameter with a non empty selector is prohibited")
    if not args.all and not args.selector and len(resources) < 2:
        raise common.CommandError("error: at least one resource name must be specified since 'all' parameter "
                                  "is not set")
    errors: list[BaseException] = []
    for node in _nodes(sess, info, args, resources[1:], errors):
        try:
            _taint_one(sess, info, node, adds, removes, args, dry_run, output)
        except common.CommandError:
            raise
        except Exception as err:  # noqa: BLE001 - kubectl goes on with the other nodes
            errors.append(err)
    return common.report(errors)


def _resolve(sess, kind: str):
    from kubelite.client.errors import ResourceTypeNotFound

    try:
        return sess.discovery.resolve(kind)
    except ResourceTypeNotFound:
        raise common.VerbatimError(f'the server doesn\'t have a resource type "{kind}"') from None


def _nodes(sess, info, args, names: list[str], errors: list) -> list[dict]:
    if args.all or args.selector:
        items = sess.client.list(info, label_selector=args.selector or None).get("items") or []
        return [common.with_type(n, info) for n in items]
    out = []
    for name in names:
        try:
            out.append(common.with_type(sess.client.get(info, name), info))
        except Exception as err:  # noqa: BLE001 - a missing node is reported after the others
            errors.append(err)
    return out


def _taint_one(sess, info, node: dict, adds, removes, args, dry_run: str, output) -> None:
    from kubelite.client.dynamic import WriteParams

    operation, taints = updated_taints(node, adds, removes, args.overwrite)
    name = node["metadata"]["name"]
    result = dict(node)
    result["spec"] = {**(node.get("spec") or {}), "taints": taints}
    if not taints:
        del result["spec"]["taints"]
    if dry_run != "client":
        params = WriteParams(dry_run=dry_run == "server", field_manager=args.field_manager,
                             field_validation=common.field_validation(args))
        result = common.with_type(sess.client.patch(info, None, name, {"spec": {"taints": taints or None}},
                                                    "strategic", params), info)
    if output.kind:
        common.ObjectPrinter(output).print(result)
    else:
        sys.stdout.write(common.success_line(result, operation, dry_run))
        sys.stdout.flush()

