"""`kubelite set image|env|resources|selector|serviceaccount|subject`: update fields of objects,
from files with `--local` (printing the result) or on the cluster (sending a strategic merge patch)."""
from __future__ import annotations

import argparse
import sys

from kubelite.cli import common

SUBCOMMANDS = ("env", "image", "resources", "selector", "serviceaccount", "subject")
_ALIASES = {"sa": "serviceaccount"}
_WHAT = {"image": "image updated", "env": "env updated", "resources": "resource requirements updated",
         "selector": "selector updated", "serviceaccount": "serviceaccount updated", "subject": "subjects updated"}


def run(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        from kubelite.cli.help import render
        from kubelite.cli.help_texts import HELP

        sys.stdout.write(render(HELP["set"]))
        return 0 if argv else 1
    sub = _ALIASES.get(argv[0], argv[0])
    if sub not in SUBCOMMANDS:
        sys.stderr.write(f'error: unknown command "{argv[0]}" for "kubelite set"\n')
        return 1
    p = _parser(sub)
    return common.run(p, argv[1:], lambda args: _set(sub, args))


def _parser(sub: str) -> common.Parser:
    p = common.parser(f"set {sub}", f"Update {sub} of resources.")
    p.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace")
    common.add_filename_flags(p, "to update")
    common.add_output_flag(p)
    common.add_dry_run_flag(p)
    p.add_argument("--local", action="store_true")
    p.add_argument("--all", action="store_true")
    p.add_argument("-l", "--selector", dest="label_selector", default="")
    p.add_argument("--field-manager", default="")
    p.add_argument("--allow-missing-template-keys", default="true")
    p.add_argument("--show-managed-fields", action="store_true")
    p.add_argument("--template", default="")
    p.add_argument("--record", action="store_true", help=argparse.SUPPRESS)  # deprecated, hidden in kubectl
    if sub == "selector":
        p.set_defaults(recursive=True)  # kubectl set selector descends into directories by default
    if sub in ("env", "resources"):
        p.add_argument("-c", "--containers", default="*")
    if sub == "resources":
        p.add_argument("--limits", default="")
        p.add_argument("--requests", default="")
    if sub == "env":
        p.add_argument("-e", "--env", action="append", default=[])
        p.add_argument("--from", dest="from_", default="")
        p.add_argument("--prefix", default="")
        p.add_argument("--keys", action="append", default=[])
        p.add_argument("--list", action="store_true")
        p.add_argument("--resolve", action="store_true")
        p.add_argument("--overwrite", default="true")
    if sub == "selector":
        p.add_argument("--resource-version", default="")
    if sub == "subject":
        # --user here names a subject, shadowing the kubeconfig flag as kubectl's local flag does
        p.conflict_handler = p._optionals.conflict_handler = "resolve"
        p.add_argument("--user", action="append", default=[])
        p.add_argument("--group", action="append", default=[])
        p.add_argument("--serviceaccount", action="append", default=[])
    from kubelite.cli.help import installed

    return installed(p, f"set {sub}")


def _set(sub: str, args) -> int:
    from kubelite.imperative import ImperativeError

    args._verb = "set"
    dry_run = common.dry_run_mode(args)
    if args.local and dry_run == "server":
        raise common.CommandError("error: cannot specify --local and --dry-run=server - did you mean --dry-run=client?")
    output = common.output_of(args)
    positional, change = _split_args(sub, args)
    if args.all and args.label_selector:
        raise common.CommandError("error: cannot set --all and --selector at the same time")
    if sub == "env":
        if args.list and args.output:
            raise common.CommandError("error: --list and --output may not be specified together")
        if args.keys and not args.from_:
            raise common.CommandError("error: when specifying --keys, a configmap or secret must be provided with "
                                      "--from")
    try:
        mutate = _mutation(sub, args, change)
    except ImperativeError as err:
        raise common.CommandError(f"error: {err}") from None
    if args.local:
        from kubelite.manifest import read_sources

        objects = [_decoded(m.obj, m.source) for m in read_sources(args.filename, recursive=args.recursive,
                                                                    verb="set")]
        targets = [(None, obj) for obj in objects]
        sess = None
    else:
        sess = common.session(args)
        targets = _live_targets(sess, args, positional, sub)
    if sub == "env" and (args.from_ or args.list or args.prefix):
        from kubelite.imperative import setters

        try:
            mutate = _env_mutation(sess, args, change)
        except ImperativeError as err:
            raise common.CommandError(f"error: {err}") from None
        if args.list:
            return _list_env(sess, args, targets, mutate)
    errors: list[str] = []
    printer = common.ObjectPrinter(output) if output.kind else None
    for request, obj in targets:
        try:
            updated, problems, changed = mutate(obj)
        except ImperativeError as err:
            errors.append(f"error: {err}" if sub == "selector" else f"error: {_object_name(obj)} {err}\n")
            continue
        for line in problems:
            if line.startswith("Warning: "):
                sys.stderr.write(line + "\n")
            else:
                errors.append(line)
        if not changed or updated == obj:
            continue
        if args.local or dry_run == "client":
            result = updated
        else:
            result = _patch(sess, request, obj, updated, args, dry_run)
        result = _decoded(result, "")
        if printer is not None and output.kind == "json" and _typed_json(output, result):
            pass
        elif printer is not None:
            printer.print(result)
        else:
            sys.stdout.write(common.success_line(result, _WHAT[sub], dry_run))
    for line in errors:
        # kubectl prints several errors as an aggregate, each message followed by its own newline
        sys.stderr.write(line + "\n" if len(errors) > 1 or not line.endswith("\n") else line)
    return 1 if errors else 0


def _decoded(obj: dict, source: str) -> dict:
    """kubectl set holds built-in kinds as Go structs: zero fields appear, unknown ones go."""
    from kubelite.schema.typed import TypedError, roundtrip
    from kubelite.quantity import canonical_quantity

    try:
        return roundtrip(obj, quantity=canonical_quantity)
    except TypedError as err:
        raise common.CommandError(f'error: unable to decode "{source}": {err}') from None


def _typed_json(output, obj: dict) -> bool:
    """kubectl set decodes built-in kinds into Go structs: -o json prints them in struct order."""
    from kubelite.schema import goorder

    if not goorder.is_builtin(obj.get("apiVersion"), obj.get("kind")):
        return False
    sys.stdout.write(common.typed_json(output, obj))
    sys.stdout.flush()
    return True


def _live_targets(sess, args, positional: list[str], sub: str) -> list:
    """Named objects, or every object of a type (--all, -l), as read from the server."""
    selection = common.build(sess, args, positional, verb=f"set {sub}")
    targets = []
    for request in selection.requests:
        if request.obj is not None or request.name is not None:
            name = request.name or (request.obj or {}).get("metadata", {}).get("name")
            live = sess.client.get(request.resource, name, request.namespace)
            targets.append((request, common.with_type(live, request.resource)))
            continue
        for page in sess.client.list_pages(request.resource, request.namespace,
                                           label_selector=args.label_selector or None):
            targets.extend((request, common.with_type(item, request.resource)) for item in page.get("items") or ())
    return targets


def _env_mutation(sess, args, change: list[str]):
    """set env with --from (keys of a ConfigMap/Secret) and --prefix over every variable set."""
    from kubelite.imperative import ImperativeError, setters

    add, remove = setters.parse_env_args(list(args.env) + change)
    if args.from_:
        if args.local:
            raise ImperativeError("unsupported resource specified in --from")
        typed, _, name = args.from_.partition("/")
        source = common.with_type(sess.client.get(sess.discovery.resolve(typed), name, sess.namespace),
                                  sess.discovery.resolve(typed))
        if source.get("kind") not in ("ConfigMap", "Secret"):
            raise ImperativeError("unsupported resource specified in --from")
        derived = setters.env_from_source(source["kind"], name, source.get("data") or {},
                                          keys=[k for ks in args.keys for k in ks.split(",")])
        for var in derived:
            key = next(iter(var["valueFrom"].values()))["key"]
            if var["name"] != key:
                sys.stderr.write(f"Warning: key {key} transferred to {var['name']}\n")
        add = add + derived
    if args.prefix:
        add = [{**var, "name": args.prefix + var["name"]} for var in add]
    overwrite = str(args.overwrite).lower() != "false"
    return lambda obj: setters.set_env(obj, add, remove, args.containers, overwrite)


def _list_env(sess, args, targets, mutate) -> int:
    from kubelite.imperative import setters

    resolve = _resolver(sess) if args.resolve else None
    for _, obj in targets:
        updated, warnings, _ = mutate(obj)
        for line in warnings:
            sys.stderr.write(line + "\n")
        text, problems = setters.env_listing(updated, obj.get("kind", ""), args.containers,
                                             (lambda src, c, o=updated: resolve(src, c, o)) if resolve else None)
        sys.stdout.write(text)
        for line in problems:
            sys.stderr.write(line + "\n")
    return 0


def _resolver(sess):
    """Values of valueFrom references, read once per ConfigMap/Secret as kubectl's store does."""
    import base64

    from kubelite.client.errors import ApiError
    from kubelite.imperative import ImperativeError, setters

    cache: dict = {}

    def fetch(resource: str, name: str) -> dict:
        if (resource, name) not in cache:
            try:
                cache[(resource, name)] = sess.client.get(sess.discovery.resolve(resource), name, sess.namespace)
            except ApiError as err:
                raise ImperativeError(err.message) from None
        return cache[(resource, name)]

    def resolve(source: dict, container: dict, obj: dict) -> str:
        if source.get("secretKeyRef"):
            ref = source["secretKeyRef"]
            data = fetch("secrets", ref.get("name", "")).get("data") or {}
            if ref.get("key") not in data:
                raise ImperativeError(f"key {ref.get('key')} not found in secret {ref.get('name')}")
            return base64.b64decode(data[ref["key"]]).decode("utf-8", "replace")
        if source.get("configMapKeyRef"):
            ref = source["configMapKeyRef"]
            data = fetch("configmaps", ref.get("name", "")).get("data") or {}
            if ref.get("key") not in data:
                raise ImperativeError(f"key {ref.get('key')} not found in config map {ref.get('name')}")
            return data[ref["key"]]
        if source.get("fieldRef"):
            return setters.field_ref_value(obj, source["fieldRef"].get("fieldPath", ""))
        if source.get("resourceFieldRef"):
            raise ImperativeError("resourceFieldRef values are not resolved by kubelite")
        raise ImperativeError("invalid valueFrom")
    return resolve


def _object_name(obj: dict) -> str:
    from kubelite.manifest.name import resource_name

    return resource_name(obj)


def _split_args(sub: str, args) -> tuple[list[str], list[str]]:
    """Resource arguments first, then the changes (`c=img`, `KEY=v`, `KEY-`, selector, account)."""
    values = list(args.args)
    if sub in ("image", "env"):
        first = next((i for i, a in enumerate(values) if "=" in a or (sub == "env" and a.endswith("-"))), len(values))
        return values[:first], values[first:]
    if sub in ("selector", "serviceaccount"):
        return values[:-1], values[-1:]
    return values, []


def _mutation(sub: str, args, change: list[str]):
    from kubelite.imperative import ImperativeError, setters

    if sub == "image":
        _, images = setters.parse_image_args(change)
        if not images:
            raise ImperativeError("at least one image update is required")
        return lambda obj: (*setters.set_image(obj, images), True)
    if sub == "resources":
        from kubelite.imperative.cluster import resource_list

        limits, requests = resource_list(args.limits) or {}, resource_list(args.requests) or {}
        if not limits and not requests:
            raise ImperativeError("you must specify an update to requests or limits (in the form of --requests/--limits)")
        return lambda obj: setters.set_resources(obj, limits, requests, args.containers)
    if sub == "selector":
        if not change:
            raise ImperativeError("one selector is required")
        from kubelite.imperative.selectors import parse_to_label_selector

        selector = parse_to_label_selector(change[0])
        return lambda obj: (setters.set_selector(obj, selector), [], True)
    if sub == "serviceaccount":
        if not change:
            raise ImperativeError("serviceaccount is required")
        return lambda obj: (setters.set_service_account(obj, change[0]), [], True)
    if sub == "subject":
        if not (args.user or args.group or args.serviceaccount):
            raise ImperativeError("you must specify at least one value of user, group or serviceaccount")
        for sa in args.serviceaccount:
            if len(sa.split(":")) != 2:
                raise ImperativeError("serviceaccount must be <namespace>:<name>")

        def subject(obj):
            updated, changed = setters.set_subject(obj, args.user, args.group, args.serviceaccount)
            return updated, [], changed
        return subject
    add, remove = setters.parse_env_args(list(args.env) + change)
    if not add and not remove and not args.from_ and not args.list:
        raise ImperativeError("at least one environment variable must be provided")
    overwrite = str(args.overwrite).lower() != "false"
    return lambda obj: setters.set_env(obj, add, remove, args.containers, overwrite)


def _patch(sess, request, original: dict, updated: dict, args, dry_run: str) -> dict:
    patch, patch_type = common.two_way_patch(original, updated)
    params = common.write_params(_WriteArgs(args), "kubectl-set", dry_run)
    return sess.client.patch(request.resource, request.namespace, original["metadata"]["name"], patch,
                             patch_type, params)


class _WriteArgs:
    def __init__(self, args):
        self.field_manager = args.field_manager
        self.validate = "strict"

