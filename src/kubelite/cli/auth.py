"""`kubelite auth can-i` and `kubelite auth whoami`: ask the server's review APIs, as kubectl does.

can-i posts a SelfSubjectAccessReview (or, with --list, a SelfSubjectRulesReview) and answers
yes/no with exit status 0/1; whoami posts a SelfSubjectReview and prints who the server thinks
the caller is.
"""
from __future__ import annotations

import argparse
import json
import sys

from kubelite.cli import common

AUTHZ = "/apis/authorization.k8s.io/v1"
AUTHN = "/apis/authentication.k8s.io/v1"
RESOURCE_VERBS = {"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "use", "bind",
                  "impersonate", "*", "approve", "sign", "escalate", "attest"}
NON_RESOURCE_VERBS = {"get", "put", "post", "head", "options", "delete", "patch", "*"}
# kubectl knows these are not served resources and does not warn about them
NON_STANDARD_RESOURCES = {"users", "groups", "uids", "userextras", "nodes/proxy", "signers"}


def build_parser() -> common.Parser:
    from kubelite.cli.auth_help import HELP
    from kubelite.cli.help import install

    p = common.parser("auth", "Inspect authorization.")
    subs = p.add_subparsers(dest="subcommand")
    can_i = subs.add_parser("can-i", prog="kubelite auth can-i")
    can_i.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    common.add_connection_flags(can_i)
    can_i.add_argument("-n", "--namespace")
    can_i.add_argument("-A", "--all-namespaces", action="store_true")
    can_i.add_argument("--list", action="store_true")
    can_i.add_argument("--no-headers", action="store_true")
    can_i.add_argument("-q", "--quiet", action="store_true")
    can_i.add_argument("--subresource", default="")
    install(can_i, HELP["auth can-i"])
    whoami = subs.add_parser("whoami", prog="kubelite auth whoami")
    common.add_connection_flags(whoami)
    from kubelite.cli.imperative_common import add_printing_flags

    add_printing_flags(whoami)
    install(whoami, HELP["auth whoami"])
    from kubelite.cli.auth_reconcile import build_parser as reconcile_parser

    install(reconcile_parser(subs), HELP["auth reconcile"])
    return install(p, HELP["auth"])


def run(argv: list[str]) -> int:
    if not argv or argv[0] not in ("can-i", "whoami", "reconcile"):
        from kubelite.cli.auth_help import HELP
        from kubelite.cli.help import render

        if argv and not argv[0].startswith("-"):
            print(f'error: unknown command "{argv[0]}" for "kubelite auth"', file=sys.stderr)
            return 1
        sys.stdout.write(render(HELP["auth"]))
        return 0
    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices[argv[0]]
    from kubelite.cli.auth_reconcile import reconcile

    body = {"can-i": _can_i, "whoami": _whoami, "reconcile": reconcile}[argv[0]]
    return common.run(sub, argv[1:], body)


def _post(sess, path: str, body: dict) -> dict:
    return sess.transport.json("POST", path, body=json.dumps(body, separators=(",", ":")).encode(),
                               content_type="application/json", accept="application/json")


# -- whoami ----------------------------------------------------------------------------------------


def _whoami(args) -> int:
    from kubelite.client.errors import ApiError

    output = common.output_of(args)
    sess = common.session(args)
    review = {"kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1",
              "metadata": {"creationTimestamp": None}, "status": {"userInfo": {}}}
    try:
        answer = _post(sess, f"{AUTHN}/selfsubjectreviews", review)
    except ApiError as err:
        if err.code == 403:
            raise common.CommandError("error: the selfsubjectreviews API is not enabled in the cluster or you do "
                                      "not have permission to call it") from None
        if err.code == 404:
            raise common.CommandError("error: the selfsubjectreviews API is not enabled in the cluster") from None
        raise
    if output.kind:
        from kubelite.cli.imperative_common import print_result

        print_result(answer, output, "", "none", ordered=False)
        return 0
    info = (answer.get("status") or {}).get("userInfo") or {}
    rows = [["ATTRIBUTE", "VALUE"]]
    if info.get("username"):
        rows.append(["Username", info["username"]])
    if info.get("uid"):
        rows.append(["UID", info["uid"]])
    if info.get("groups"):
        rows.append(["Groups", go_list(info["groups"])])
    for key in sorted(info.get("extra") or {}):
        rows.append([f"Extra: {key}", go_list(info["extra"][key])])
    sys.stdout.write(tabulate(rows))
    return 0


# -- can-i -----------------------------------------------------------------------------------------


def _can_i(args) -> int:
    if args.list:
        if args.args:
            raise common.CommandError("error: list option must be specified with no arguments")
        if args.quiet or args.all_namespaces or args.subresource:
            raise common.CommandError("error: list option can't be specified with neither quiet, all-namespaces "
                                      "nor subresource options")
        sess = common.session(args)
        return _list(sess, "" if args.all_namespaces else sess.namespace, args.no_headers)
    if len(args.args) != 2:
        raise common.CommandError("error: you must specify two arguments: verb resource or verb "
                                  "resource/resourceName.\nSee 'kubelite auth can-i -h' for help and examples.")
    verb, target = args.args
    sess = common.session(args)
    namespace = "" if args.all_namespaces else sess.namespace
    if target.startswith("/"):
        if args.subresource:
            raise common.CommandError("error: --subresource can not be used with NonResourceURL")
        if verb not in NON_RESOURCE_VERBS:
            warn(f"verb '{verb}' is not a known verb")
        spec = {"nonResourceAttributes": {"path": target, "verb": verb}}
    else:
        resource_arg, _, name = target.partition("/")
        group, resource, namespaced = _resource_for(sess, resource_arg)
        if args.no_headers:
            raise common.CommandError("error: --no-headers cannot be set without --list specified")
        if resource and not args.all_namespaces and namespaced is False:
            warn(f"resource '{resource}' is not namespace scoped" + (f" in group '{group}'" if group else ""))
        if verb not in RESOURCE_VERBS:
            warn(f"verb '{verb}' is not a known verb")
        attributes = {"namespace": namespace, "verb": verb, "group": group, "resource": resource,
                      "subresource": args.subresource, "name": name}
        spec = {"resourceAttributes": {k: v for k, v in attributes.items() if v}}
    review = {"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
              "metadata": {"creationTimestamp": None}, "spec": spec, "status": {"allowed": False}}
    status = _post(sess, f"{AUTHZ}/selfsubjectaccessreviews", review).get("status") or {}
    allowed = bool(status.get("allowed"))
    if not args.quiet:
        line = "yes" if allowed else "no"
        if not allowed:
            line += "".join(f" - {status[k]}" for k in ("reason", "evaluationError") if status.get(k))
        print(line)
    return 0 if allowed else 1


def warn(text: str) -> None:
    # kubectl's messages end with a newline and its warning printer adds one: a blank line follows
    print(f"Warning: {text}\n", file=sys.stderr)


def _resource_for(sess, typed: str) -> tuple[str, str, bool | None]:
    """(group, resource, namespaced) as kubectl's REST mapper finds it; as typed when unknown."""
    if typed == "*":
        return "", "*", None
    from kubelite.client.errors import ResourceTypeNotFound

    try:
        info = sess.discovery.resolve(typed.lower())
    except ResourceTypeNotFound:
        resource, _, group = typed.lower().partition(".")
        if f"{resource}.{group}".rstrip(".") not in NON_STANDARD_RESOURCES:
            warn(f"the server doesn't have a resource type '{resource}'" + (f" in group '{group}'" if group else ""))
        return "", typed, None
    return info.group, info.resource, info.namespaced


def _list(sess, namespace: str, no_headers: bool) -> int:
    review = {"kind": "SelfSubjectRulesReview", "apiVersion": "authorization.k8s.io/v1",
              "metadata": {"creationTimestamp": None}, "spec": {"namespace": namespace}, "status": {
                  "resourceRules": None, "nonResourceRules": None, "incomplete": False}}
    status = _post(sess, f"{AUTHZ}/selfsubjectrulesreviews", review).get("status") or {}
    if status.get("incomplete"):
        print(f"Warning: the list may be incomplete: {status.get('evaluationError', '')}", file=sys.stderr)
    from kubelite.server.auth import rules as policy

    found = [policy.normalized(r) for r in status.get("resourceRules") or ()]
    found += [policy.rule(r.get("verbs"), urls=r.get("nonResourceURLs")) for r in status.get("nonResourceRules") or ()]
    broken = [piece for rule in found for piece in policy.breakdown(rule)]
    compact = sorted(policy.compact(broken), key=rule_string)
    rows = [] if no_headers else [["Resources", "Non-Resource URLs", "Resource Names", "Verbs"]]
    for r in compact:
        rows.append([combine_resource_group(r["resources"], r["apiGroups"]), go_list(r["nonResourceURLs"]),
                     go_list(r["resourceNames"]), go_list(r["verbs"])])
    sys.stdout.write(tabulate(rows))
    return 0


# -- printing helpers -----------------------------------


def rule_string(rule: dict) -> str:
    """PolicyRule.String() of the Go API types: the sort key kubectl uses."""
    fields = ("Verbs", "verbs"), ("APIGroups", "apiGroups"), ("Resources", "resources"), \
        ("ResourceNames", "resourceNames"), ("NonResourceURLs", "nonResourceURLs")
    return "&PolicyRule{" + "".join(f"{go}:{go_list(rule[key])}," for go, key in fields) + "}"


def combine_resource_group(resources: list[str], groups: list[str]) -> str:
    if not resources:
        return ""
    resource, _, sub = resources[0].partition("/")
    text = resource + (f".{groups[0]}" if groups and groups[0] else "")
    return text + (f"/{sub}" if sub else "")


def go_list(values) -> str:
    return "[" + " ".join(str(v) for v in values or ()) + "]"


def tabulate(rows: list[list[str]]) -> str:
    """Go's tabwriter as kubectl sets it up (minimum width 6, padding 3); the last cell of a line
    is not a column and stays as it is."""
    if not rows:
        return ""
    columns = len(rows[0]) - 1
    widths = [max(6, max(len(r[i]) for r in rows) + 3) for i in range(columns)]
    lines = ["".join(cell.ljust(widths[i]) if i < columns else cell for i, cell in enumerate(row)) for row in rows]
    return "\n".join(lines) + "\n"
