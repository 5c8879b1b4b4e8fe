"""`kubelite patch`: update fields of objects with a strategic merge, JSON merge or JSON patch,
as kubectl patch does (on the server, or with --local on objects read from files)."""
from __future__ import annotations

import json
import sys

from kubelite.cli import common

EXAMPLES = """\
  # Partially update a node using a strategic merge patch, specifying the patch as JSON
  kubelite patch node k8s-node-1 -p '{"spec":{"unschedulable":true}}'

  # The same patch as YAML
  kubelite patch node k8s-node-1 -p $'spec:\\n unschedulable: true'

  # Update the object described in a file
  kubelite patch -f node.json -p '{"spec":{"unschedulable":true}}'

  # A JSON merge patch, and a JSON patch with a positional array
  kubelite patch deployment patch-demo --type merge -p '{"spec":{"replicas":3}}'
  kubelite patch pod valid-pod --type='json' -p='[{"op": "replace", "path": "/spec/containers/0/image", "value":"new"}]'

  # Through the scale subresource
  kubelite patch deployment nginx-deployment --subresource='scale' --type='merge' -p '{"spec":{"replicas":2}}'

  # Patch a file's object locally and print the result, without a cluster
  kubelite patch --local -f deployment.yaml -p '{"spec":{"replicas":3}}' -o yaml
"""

PATCH_TYPES = ("json", "merge", "strategic")


def build_parser() -> common.Parser:
    p = common.parser("patch", "Update fields of a resource using strategic merge patch, a JSON merge patch, "
                               "or a JSON patch.", EXAMPLES)
    p.add_argument("args", nargs="*", metavar="(-f FILENAME | TYPE NAME)")
    common.add_connection_flags(p)
    common.add_namespace_flags(p, all_namespaces=False)
    common.add_filename_flags(p, "to update")
    common.add_dry_run_flag(p)
    common.add_output_flag(p, "json|yaml|name|jsonpath=...")
    p.add_argument("-p", "--patch", default=None, help="the patch to apply, as JSON or YAML")
    p.add_argument("--patch-file", default="", help="a file holding the patch")
    p.add_argument("--type", default="strategic", help="json|merge|strategic")
    p.add_argument("--local", action="store_true", help="patch the file's objects without contacting the server")
    p.add_argument("--subresource", default="", help="status or scale: patch a subresource")
    p.add_argument("--field-manager", default="kubectl-patch", help="name of the manager tracking field ownership")
    common.add_template_flags(p)
    from kubelite.cli.help import installed

    return installed(p, "patch")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _patch)


def patch_text(args) -> str:
    """The patch given with -p or --patch-file (kubectl's checks, in kubectl's order)."""
    if args.patch is not None and args.patch_file:
        raise common.CommandError("error: cannot specify --patch and --patch-file together")
    text = args.patch or ""
    if args.patch_file:
        try:
            with open(args.patch_file, "rb") as f:
                text = f.read().decode("utf-8", errors="replace")
        except OSError as err:
            raise common.CommandError(f"error: unable to read patch file: open {args.patch_file}: "
                                      f"{(err.strerror or str(err)).lower()}") from None
    if not text:
        raise common.CommandError("error: must specify --patch or --patch-file containing the contents of the patch")
    return text


def patch_body(text: str) -> bytes:
    """The JSON sent to the server: YAML patch text converted as kubectl's yaml.ToJSON does."""
    from kubelite.manifest._goyaml import decode_yaml
    from kubelite.patch import PatchError
    from kubelite.patch import kubectl as local

    if text.lstrip().startswith("{"):
        return text.encode()  # JSON (or not): the server judges it
    try:
        value = local._patch_value(text, decode_yaml)
    except PatchError as err:
        raise common.CommandError(f"error: {err}") from None
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _patch(args) -> int:
    args._verb = "patch"
    text = patch_text(args)
    patch_type = args.type.lower()
    if patch_type not in PATCH_TYPES:
        raise common.CommandError(f"error: --type must be one of [{' '.join(PATCH_TYPES)}], not {json.dumps(args.type)}")
    if args.local and args.args:
        raise common.CommandError("error: cannot specify --local and server resources")
    output = common.output_of(args)
    dry_run = common.dry_run_mode(args)
    if args.local:
        return _patch_local(args, text, patch_type, output)
    sess = common.session(args)
    errors: list = []
    selection = common.build(sess, args, args.args, verb="patch", require_names=True, errors=errors)
    body = patch_body(text)
    printer = common.ObjectPrinter(output) if output.kind else None
    params = _write_params(args, dry_run)

    def patch_one(request: common.Request) -> None:
        before = request.obj if request.obj is not None else \
            sess.client.get(request.resource, request.name, request.namespace, subresource=args.subresource or None)
        if dry_run == "client":
            after = _patched_locally(before, text, patch_type)
        else:
            try:
                after = sess.client.patch(request.resource, request.namespace, request.name, body, patch_type,
                                          params, subresource=args.subresource or None)
            except Exception as err:
                raise _unsupported(err, patch_type, request) from None
        _print(printer, after, before != after)

    common.each(selection.requests, patch_one, errors)
    return common.report(errors)


def _write_params(args, dry_run: str):
    from kubelite.client.dynamic import WriteParams

    return WriteParams(dry_run=dry_run == "server", field_manager=args.field_manager)


def _patch_local(args, text: str, patch_type: str, output) -> int:
    if not args.filename:
        raise common.CommandError("error: cannot specify --local and server resources" if args.args else
                                  _nothing_given())
    from kubelite.manifest import read_sources

    printer = common.ObjectPrinter(output) if output.kind else None
    errors: list = []
    for manifest in read_sources(args.filename, recursive=args.recursive, verb="patch"):
        try:
            after = _patched_locally(manifest.obj, text, patch_type)
            _print(printer, after, after != manifest.obj)  # a template failing on one object spares the others
        except common.CommandError as err:
            errors.append(err)
    return common.report(errors)


def _patched_locally(obj: dict, text: str, patch_type: str) -> dict:
    from kubelite.manifest._goyaml import decode_yaml
    from kubelite.patch import PatchError
    from kubelite.patch.kubectl import patch_local

    try:
        return patch_local(obj, text, patch_type, yaml_decoder=decode_yaml)
    except PatchError as err:
        raise common.CommandError(f"error: {err}") from None


def _print(printer, obj: dict, changed: bool) -> None:
    if printer is not None:
        printer.count = 0  # kubectl makes a printer for each object: no `---` between them
        printer.print(obj)
        return
    sys.stdout.write(common.success_line(obj, "patched" if changed else "patched (no change)", "none"))
    sys.stdout.flush()


def _unsupported(err: Exception, patch_type: str, request) -> Exception:
    """kubectl names the patch type and kind when the server does not take that media type."""
    from kubelite.client.dynamic import PATCH_TYPES as MEDIA
    from kubelite.client.errors import ApiError

    if isinstance(err, ApiError) and err.code == 415:
        info = request.resource
        group_version = f"{info.group}/{info.version}" if info.group else info.version
        return common.CommandError(f"error: {MEDIA[patch_type]} is not supported by {group_version}, "
                                   f"Kind={info.kind}: {err.message}")
    return err


def _nothing_given() -> str:
    return ("error: You must provide one or more resources by argument or filename.\n"
            "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n"
            "   '<resource> <name>'\n   '<resource>'")
