"""`kubelite auth reconcile -f FILE`: bring RBAC roles and bindings up to what the files ask for.

As kubectl does it: a missing object is created; an existing role gains the rules (broken down
into one-verb pieces) and aggregation selectors it lacks, a binding the subjects it lacks; with
--remove-extra-permissions / --remove-extra-subjects the object is set to exactly the file's
contents. A binding whose roleRef differs is deleted and created again (roleRef is immutable).
Objects annotated rbac.authorization.kubernetes.io/autoupdate=false are reported, not touched.
Other kinds in the files are skipped silently.
"""
from __future__ import annotations

import argparse
import copy
import sys

from kubelite.cli import common
from kubelite.record import replace
from kubelite.server.auth import reconcile as reconciliation

RBAC = "rbac.authorization.k8s.io"
ROLES = {"Role", "ClusterRole"}
BINDINGS = {"RoleBinding", "ClusterRoleBinding"}


def build_parser(subs) -> common.Parser:
    p = subs.add_parser("reconcile", prog="kubelite auth reconcile")
    p.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace")
    common.add_filename_flags(p, "identifying the resource to reconcile")
    common.add_dry_run_flag(p)
    common.add_output_flag(p, "json|yaml|name|jsonpath=...")
    common.add_template_flags(p)
    p.add_argument("--remove-extra-permissions", action="store_true")
    p.add_argument("--remove-extra-subjects", action="store_true")
    return p


def reconcile(args) -> int:
    if not args.filename and not args.kustomize:
        raise common.CommandError("error: must specify one of -f and -k")
    if args.args:
        raise common.CommandError("error: no arguments are allowed")
    output = common.output_of(args)
    mode = common.dry_run_mode(args)
    if mode == "server":
        raise common.CommandError("error: --dry-run=server for command reconcile is not supported yet")
    dry_run = mode == "client"
    sess = common.session(args)
    selection = common.build(sess, args, [], verb="reconcile")
    printer = common.ObjectPrinter(output) if output.kind else None
    for request in selection.requests:
        if request.resource.group != RBAC or request.resource.kind not in ROLES | BINDINGS:
            continue  # kubectl skips every other kind without a word
        _check_shape(request)
        expected = copy.deepcopy(request.obj)
        # kubectl reads the files locally: a Role without a namespace is not given the default one
        namespace = (expected.get("metadata") or {}).get("namespace") or ""
        request = replace(request, namespace=namespace if request.resource.namespaced else None)
        result = _reconcile(sess, request, expected, args, dry_run)
        result.obj = common.with_type(result.obj, request.resource)
        if printer is not None:
            printer.print(result.obj)
        else:
            sys.stdout.write(common.success_line(result.obj, "reconciled", "client" if dry_run else "none"))
            sys.stdout.flush()
        _print_details(result, args)
    return 0


def _reconcile(sess, request, expected: dict, args, dry_run: bool, attempt: int = 0) -> reconciliation.Result:
    """Compare with the server's object and (unless a dry run or opted out) write the result."""
    from kubelite.client.errors import ApiError

    existing = _get(sess, request)
    is_role = request.resource.kind in ROLES
    if existing is None:
        result = reconciliation.Result(expected, "create",
                                       missing_rules=reconciliation.rules_of(expected) if is_role else [],
                                       missing_subjects=[] if is_role else reconciliation.subjects_of(expected))
    elif is_role:
        result = reconciliation.computed_role(existing, expected, args.remove_extra_permissions)
    else:
        result = reconciliation.computed_binding(existing, expected, args.remove_extra_subjects)
    if result.protected or dry_run or result.operation == "none":
        return result
    try:
        result.obj = _write(sess, request, existing, result)
    except ApiError as err:
        # the object appeared or vanished while we looked: start over, as kubectl does (3 tries)
        if err.code in (404, 409) and attempt < 2:
            return _reconcile(sess, request, expected, args, dry_run, attempt + 1)
        raise
    return result


def _write(sess, request, existing: dict | None, result: reconciliation.Result) -> dict:
    from kubelite.client.errors import ApiError

    if result.operation == "update":
        return sess.client.replace(request.resource, request.namespace, _name(existing), result.obj)
    if result.operation == "recreate":
        # roleRef cannot change: delete the old binding (only that one, by uid), then create
        uid = (existing.get("metadata") or {}).get("uid")
        try:
            sess.client.delete(request.resource, request.namespace, _name(existing), preconditions={"uid": uid})
        except ApiError as err:
            if err.code != 404:
                raise
    _ensure_namespace(sess, request.namespace)
    return sess.client.create(request.resource, request.namespace, _fresh(result.obj))


_LISTS = {"rules": ("PolicyRule", ("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs")),
          "subjects": ("Subject", ())}


def _check_shape(request) -> None:
    """kubectl's decode error, in one line, for rules or subjects of the wrong JSON type."""
    from kubelite.schema.gojson import json_kind

    kind = request.resource.kind
    for key, (item_type, list_fields) in _LISTS.items():
        items = request.obj.get(key)
        if items is not None and not (isinstance(items, list) and all(isinstance(i, dict) for i in items)):
            whole = not isinstance(items, list)  # else one item is not an object
            wrong = items if whole else next(i for i in items if not isinstance(i, dict))
            raise common.CommandError(f'error: unable to decode "{request.source}": json: cannot unmarshal '
                                      f"{json_kind(wrong)} into Go struct field {kind}.{key} of type "
                                      f"{'[]' if whole else ''}v1.{item_type}")
        for item in items or []:
            for name in list_fields:
                value = item.get(name)
                if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                    raise common.CommandError(f'error: unable to decode "{request.source}": json: cannot unmarshal '
                                              f"{json_kind(value)} into Go struct field {item_type}.{key}.{name} "
                                              "of type []string")


def _fresh(obj: dict) -> dict:
    """The object to create again: without the old one's identity."""
    obj = copy.deepcopy(obj)
    meta = obj.get("metadata") or {}
    for key in ("uid", "resourceVersion", "creationTimestamp", "managedFields"):
        meta.pop(key, None)
    return obj


# -- shared ----------------------------------------------------------------------------------------


def _get(sess, request) -> dict | None:
    from kubelite.client.errors import ApiError

    if request.namespace == "":
        return None  # no such object can exist
    try:
        return sess.client.get(request.resource, request.name, request.namespace)
    except ApiError as err:
        if err.code == 404:
            return None
        raise


def _name(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("name", "")


def _ensure_namespace(sess, namespace: str | None) -> None:
    """kubectl creates a missing namespace before creating a namespaced role or binding in it."""
    if namespace is None:
        return
    if not namespace:
        # kubectl asks for the namespace named "" and its client refuses
        raise common.CommandError("error: resource name may not be empty")
    from kubelite.client.errors import ApiError

    info = sess.discovery.resolve("namespaces")
    try:
        sess.client.get(info, namespace)
        return
    except ApiError as err:
        if err.code not in (403, 404):
            raise
    try:
        sess.client.create(info, None, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    except ApiError as err:
        if err.code not in (403, 409):
            raise


def _print_details(result: reconciliation.Result, args) -> None:
    if result.operation == "none":
        return
    caveat = f", but object opted out ({reconciliation.AUTOUPDATE}: false)" if result.protected else ""
    lines = [f"\treconciliation required {result.operation}{caveat}"]
    lines += _section("missing subjects added:", result.missing_subjects, _go_subject)
    if args.remove_extra_subjects:
        lines += _section("extra subjects removed:", result.extra_subjects, _go_subject)
    lines += _section("missing rules added:", result.missing_rules, _go_rule)
    if args.remove_extra_permissions:
        lines += _section("extra rules removed:", result.extra_rules, _go_rule)
    sys.stderr.write("".join(line + "\n" for line in lines))
    sys.stderr.flush()


def _section(title: str, items: list, show) -> list[str]:
    return [f"\t{title}"] + [f"\t\t{show(item)}" for item in items] if items else []


def _go_rule(r: dict) -> str:
    """Go's %+v of an rbacv1.PolicyRule."""
    fields = (("Verbs", "verbs"), ("APIGroups", "apiGroups"), ("Resources", "resources"),
              ("ResourceNames", "resourceNames"), ("NonResourceURLs", "nonResourceURLs"))
    return "{" + " ".join(f"{label}:[{' '.join(r[key])}]" for label, key in fields) + "}"


def _go_subject(s: dict) -> str:
    """Go's %+v of an rbacv1.Subject."""
    return f"{{Kind:{s['kind']} APIGroup:{s['apiGroup']} Name:{s['name']} Namespace:{s['namespace']}}}"
