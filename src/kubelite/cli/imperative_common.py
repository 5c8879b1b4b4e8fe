"""Shared by the imperative commands that act on existing objects (expose, autoscale, scale): the objects
kubectl's resource builder hands them, and printing generated objects as kubectl does."""
from __future__ import annotations

import argparse
import sys

from kubelite.cli import common


def targets(sess, args, verb: str, *, require_names: bool | None = None,
            label_selector: str | None = None) -> tuple[list, list]:
    """[(request, object)] as kubectl's builder hands them: objects from -f as written, named objects
    as read from the server, list requests expanded (filtered by `label_selector`); and the errors
    met on the way. Names are required unless -f is given or `require_names` says otherwise."""
    from kubelite.client.errors import ClientError

    errors: list = []
    if require_names is None:
        require_names = not args.filename
    selection = common.build(sess, args, list(args.args), verb=verb, require_names=require_names,
                             errors=errors)
    found: list = []
    for request in selection.requests:
        try:
            if request.obj is not None:
                found.append((request, common.with_namespace(request.obj, request)))
            elif request.name is not None:
                live = sess.client.get(request.resource, request.name, request.namespace)
                found.append((request, common.with_type(live, request.resource)))
            else:
                for page in sess.client.list_pages(request.resource, request.namespace,
                                                   label_selector=label_selector):
                    found.extend((request, common.with_type(item, request.resource)) for item in page.get("items") or ())
        except ClientError as err:
            errors.append(err)
    return found, errors


def with_namespace_in_order(obj: dict, namespace: str) -> dict:
    meta = {k: v for k, v in obj["metadata"].items() if k != "namespace"}
    ordered: dict = {}
    if "name" in meta:
        ordered["name"] = meta.pop("name")
    ordered["namespace"] = namespace
    ordered.update(meta)
    return {**obj, "metadata": ordered}


def print_result(obj: dict, output, operation: str, dry_run: str, *, ordered: bool) -> None:
    from kubelite.imperative.jsonorder import is_typed

    if output.kind == "json" and (ordered or is_typed(obj)):  # server answers are decoded into structs too
        sys.stdout.write(common.typed_json(output, obj))
    elif output.kind:
        sys.stdout.write(common.render(output, obj))
    else:
        sys.stdout.write(common.success_line(obj, operation, dry_run))
    sys.stdout.flush()


def save_config(obj: dict, save: bool) -> dict:
    from kubelite.cli.create_generators import _save_config

    return _save_config(obj, save)


def write_params(args, manager: str, dry_run: str):
    from kubelite.client.dynamic import WriteParams

    return WriteParams(dry_run=dry_run == "server", field_manager=args.field_manager or manager)


def add_printing_flags(p) -> None:
    common.add_output_flag(p)
    p.add_argument("--allow-missing-template-keys", default="true")
    p.add_argument("--show-managed-fields", action="store_true")
    p.add_argument("--template", default="")
    p.add_argument("--record", action="store_true", help=argparse.SUPPRESS)  # deprecated, hidden
