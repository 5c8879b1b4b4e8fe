"""`kubelite apply`: client-side apply of configuration files (kubectl apply).

Also `apply view-last-applied`, `apply set-last-applied` and `apply edit-last-applied`.
Flags, the session, error printing and printers come from kubelite.cli.common.
"""
from __future__ import annotations

import sys

from kubelite.cli import common

SUBCOMMANDS = {"view-last-applied", "set-last-applied", "edit-last-applied"}
APPLY_FORMATS = common.GENERIC_FORMATS

EXAMPLES = """\
  # Apply the configuration in a file, a directory (-R: and below), or stdin
  kubelite apply -f ./nginx.yaml
  kubelite apply -f ./manifests/ -R

  # Apply a kustomization directory
  kubelite apply -k ./overlays/prod

  # Prune what an earlier apply created with label app=nginx and this one does not
  kubelite apply --prune -f manifest.yaml -l app=nginx

  # Prune through an ApplySet (KEP-3659) whose parent is the Secret `web-set`
  kubelite apply -n web --prune --applyset=web-set -f manifests/
"""


def build_parser() -> common.Parser:
    p = common.parser("apply", "Apply a configuration to a resource by file name or stdin.", EXAMPLES)
    p.add_argument("args", nargs="*", help=common.argparse.SUPPRESS)  # refused as kubectl does
    common.add_connection_flags(p)
    common.add_namespace_flags(p, all_namespaces=False)
    common.add_filename_flags(p, "to apply")
    p.add_argument("-l", "--selector", help="apply (and prune) only objects matching this label selector")
    common.add_output_flag(p, "yaml|json|name|jsonpath=...")
    common.add_template_flags(p, managed_fields=False)
    common.add_dry_run_flag(p)
    p.add_argument("--overwrite", default="true", help="overwrite fields changed by others (true)")
    p.add_argument("--force", action="store_true", help="delete and re-create an object whose patch is refused")
    p.add_argument("--grace-period", type=int, default=-1, help="grace period for --force and --prune deletions")
    p.add_argument("--timeout", default="0s", help="how long --wait and --force wait")
    p.add_argument("--cascade", default="background", help="background|foreground|orphan for prune deletions")
    p.add_argument("--wait", nargs="?", const="true", default="false",
                   help="wait for pruned objects to be gone before returning")
    p.add_argument("--validate", nargs="?", const="strict", default="strict",
                   help="strict|warn|ignore (true=strict, false=ignore): how the server checks fields")
    p.add_argument("--field-manager", default=None, help="name of the manager tracking field ownership")
    p.add_argument("--server-side", nargs="?", const="true", default="false",
                   help="apply on the server (field ownership, conflicts) instead of in the client")
    p.add_argument("--force-conflicts", action="store_true", help="server-side apply only")
    p.add_argument("--subresource", default="", help="server-side apply only: apply to this subresource")
    p.add_argument("--prune", action="store_true", help="delete objects no longer in the configuration")
    p.add_argument("--all", action="store_true", help="prune every annotated object of the allowlisted kinds")
    p.add_argument("--prune-allowlist", action="append", default=[], help="group/version/kind to prune")
    p.add_argument("--applyset", default="", help="[RESOURCE][.GROUP]/NAME of the ApplySet parent (with --prune)")
    p.add_argument("--openapi-patch", default="true", help="accepted for kubectl compatibility")
    p.add_argument("--show-managed-fields", action="store_true", help="keep managedFields in -o yaml|json")
    from kubelite.cli.help import installed

    return installed(p, "apply")


def run(argv: list[str]) -> int:
    if argv and argv[0] in SUBCOMMANDS:  # the command line puts the subcommand found first
        return run_last_applied(argv[0], argv[1:])
    return common.run(build_parser(), argv, _apply)


def parse_bool(text: str, flag: str) -> bool:
    lowered = str(text).lower()
    if lowered in ("true", "1", "t"):
        return True
    if lowered in ("false", "0", "f"):
        return False
    # a boolean flag's value is refused by kubectl's flag parser, with its usage hint
    raise common.UsageError(f'Error: invalid argument "{text}" for "{flag}" flag: strconv.ParseBool: parsing '
                            f'"{text}": invalid syntax\nSee \'kubelite apply --help\' for usage.')


def check_flags(args, dry_run: str) -> None:
    """kubectl's flag combination rules, in kubectl's order."""
    def fail(text):
        raise common.CommandError("error: " + text)

    server_side = parse_bool(args.server_side, "--server-side")
    if args.force_conflicts and not server_side:
        fail("--force-conflicts only works with --server-side")
    if dry_run == "client" and server_side:
        fail("--dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)")
    if server_side and args.force:
        fail("--force cannot be used with --server-side")
    if dry_run == "server" and args.force:
        fail("--dry-run=server cannot be used with --force")
    if args.all and args.selector:
        fail("cannot set --all and --selector at the same time")
    if args.applyset and not args.prune:
        fail("--applyset requires --prune")
    if not args.prune:
        return _check_subresource(args, server_side)
    if args.force:
        fail("--force cannot be used with --prune")
    if args.applyset:
        if args.all:
            fail("--all is incompatible with --applyset")
        if args.selector:
            fail("--selector is incompatible with --applyset")
        if args.prune_allowlist:
            fail("--prune-allowlist is incompatible with --applyset")
    else:
        if not args.all and not args.selector:
            fail("all resources selected for prune without explicitly passing --all. To prune all resources, pass "
                 "the --all flag. If you did not mean to prune all resources, specify a label selector")
        if server_side:
            fail("--prune is in alpha and doesn't currently work on objects created by server-side apply")
    _check_subresource(args, server_side)


def _check_subresource(args, server_side: bool) -> None:
    # kubectl sends a subresource only with server-side apply
    if args.subresource and not server_side:
        raise common.CommandError("error: --subresource can only be specified for --server-side")


def apply_options(args, sess, dry_run: str):
    from kubelite.apply.engine import FIELD_MANAGER, ApplyOptions
    from kubelite.apply.serverside import SERVER_SIDE_MANAGER

    default_manager = SERVER_SIDE_MANAGER if parse_bool(args.server_side, "--server-side") else FIELD_MANAGER
    return ApplyOptions(
        dry_run=dry_run, overwrite=parse_bool(args.overwrite, "--overwrite"), force=args.force,
        grace_period=args.grace_period, field_manager=args.field_manager or default_manager,
        validation=common.field_validation(args), selector=args.selector, namespace=sess.namespace,
        enforce_namespace=sess.connection.namespace_explicit, base="kubelite",
        timeout=common.parse_duration(args.timeout))


def _apply(args) -> int:
    from kubelite.apply.run import ApplyRun, PruneOptions

    args._verb = "apply"
    if args.args:
        raise common.UsageError(f"error: Unexpected args: [{' '.join(args.args)}]\n"
                                "See 'kubelite apply -h' for help and examples")
    dry_run = common.dry_run_mode(args)
    if not args.filename and not args.kustomize:  # kubectl checks this before the flag combinations
        raise common.CommandError("error: must specify one of -f and -k")
    check_flags(args, dry_run)
    output = common.output_of(args, APPLY_FORMATS)
    wait = parse_bool(args.wait, "--wait")
    manifests = read_manifests(args, verb="apply")
    sess = common.session(args)
    options = apply_options(args, sess, dry_run)
    printed: list[dict] = []

    def report(outcome):
        if output.kind and output.kind != "name":
            printed.append(outcome.obj)
        elif output.kind == "name":
            _write(common.render(output, outcome.obj))
        else:
            _write(common.success_line(outcome.obj, outcome.verb, dry_run))

    prune = PruneOptions(selector=args.selector, allowlist=args.prune_allowlist, applyset=args.applyset,
                         cascade=args.cascade, grace_period=args.grace_period)
    writer: dict = {}
    if parse_bool(args.server_side, "--server-side"):
        from kubelite.apply.serverside import ServerSideApplier

        writer = {"applier_class": ServerSideApplier, "force_conflicts": args.force_conflicts,
                  "subresource": args.subresource}
    run = ApplyRun(sess, options, prune=prune, on_outcome=report, warn=_warn, **writer)
    result = run.apply(manifests)
    if result.errors:  # kubectl prints the collected objects only after every object applied
        return common.report(result.errors)
    if printed:
        _write(common.render(output, printed[0]) if len(printed) == 1 else _render_list(output, printed))
    if args.prune:
        pruned = run.prune(result)
        for obj in pruned:
            _write(common.render(output, obj) if output.kind == "name" else
                   common.success_line(obj, "pruned", dry_run))
        if wait:
            run.wait_pruned(pruned)
    return 0


def _render_list(output, objects: list[dict]) -> str:
    # kubectl prints a metav1.List here: empty list metadata, and -o json writes its fields in the
    # struct's order (kind first), the items' keys sorted
    from kubelite.manifest import to_json
    from kubelite.manifest.jsonfmt import GoStruct

    if output.kind == "json":
        if not output.show_managed_fields:
            objects = [common.without_managed_fields(obj) for obj in objects]
        return to_json(GoStruct(kind="List", apiVersion="v1", metadata={}, items=objects))
    return common.render(output, {"kind": "List", "apiVersion": "v1", "metadata": {}, "items": objects})


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _warn(text: str) -> None:
    sys.stdout.flush()
    print(text, file=sys.stderr, flush=True)


def read_manifests(args, verb: str) -> list:
    """Objects of -f/-R/-k (each with .obj and .source); kubectl's errors otherwise."""
    from kubelite.apply.sources import files

    if args.kustomize and args.filename:
        raise common.CommandError("error: only one of -f or -k can be specified")
    if args.kustomize:
        return kustomize_manifests(args.kustomize)
    if not args.filename:
        raise common.CommandError("error: must specify one of -f and -k")
    return files(args.filename, recursive=args.recursive, verb=verb)


def kustomize_manifests(directory: str) -> list:
    """The objects a kustomization builds, as manifests whose source is the directory."""
    from kubelite.apply.sources import kustomized

    return kustomized(directory, warn=kustomize_warning)


def kustomize_warning(line: str) -> None:
    """Kustomize writes its deprecation lines straight to stderr while it reads each file."""
    sys.stderr.write(line + "\n")


# -- view-last-applied / set-last-applied / edit-last-applied ----------------------------------


def last_applied_parser(name: str) -> common.Parser:
    p = common.parser(f"apply {name}", {
        "view-last-applied": "View the latest last-applied-configuration annotations of a resource/object.",
        "set-last-applied": "Set the last-applied-configuration annotation on a live object to match a file.",
        "edit-last-applied": "Edit the latest last-applied-configuration annotations of a resource/object.",
    }[name])
    p.add_argument("args", nargs="*", metavar="TYPE NAME | TYPE/NAME")
    common.add_connection_flags(p)
    common.add_namespace_flags(p, all_namespaces=False)
    common.add_filename_flags(p, "whose annotation to use")
    p.add_argument("-l", "--selector", help="label selector")
    p.add_argument("--all", action="store_true", help="every object of the type")
    common.add_output_flag(p, "yaml|json")
    if name != "view-last-applied":  # which prints annotations, not objects
        common.add_template_flags(p)
    p.add_argument("--create-annotation", action="store_true", help="set-last-applied: create a missing annotation")
    common.add_dry_run_flag(p)
    p.add_argument("--windows-line-endings", action="store_true", help="accepted for kubectl compatibility")
    if name == "edit-last-applied":
        from kubelite.apply.engine import FIELD_MANAGER

        # an empty --field-manager= sends no fieldManager at all, as kubectl does
        p.add_argument("--field-manager", default=FIELD_MANAGER, help="name of the manager tracking field ownership")
        p.add_argument("--validate", nargs="?", const="strict", default="strict",
                       help="strict|warn|ignore (true=strict, false=ignore): how the server checks fields")
    from kubelite.cli.help import installed

    return installed(p, f"apply {name}")


def run_last_applied(name: str, argv: list[str]) -> int:
    body = {"view-last-applied": _view_last_applied, "set-last-applied": _set_last_applied,
            "edit-last-applied": _edit_last_applied}[name]
    return common.run(last_applied_parser(name), argv, body)


def _targets(args, sess, verb: str):
    """(item or None, live object, source) for TYPE NAME / TYPE/NAME arguments or -f files."""
    from kubelite.apply.engine import Applier, ApplyOptions

    if args.filename or args.kustomize:
        manifests = read_manifests(args, verb=verb)
        applier = Applier(sess, ApplyOptions(namespace=sess.namespace,
                                             enforce_namespace=sess.connection.namespace_explicit))
        for item in applier.prepare(manifests):
            applier.resolve(item)
            yield item, sess.client.get(item.resource, item.name, item.namespace or None), item.source
        return
    words = list(args.args)
    if not words:
        raise common.CommandError('error: you must specify the type of resource to get. Use "kubelite '
                                  'api-resources" for a complete list of supported resources.')
    if "/" in words[0]:
        pairs = [tuple(word.partition("/")[::2]) for word in words]
    else:
        pairs = [(words[0], name) for name in words[1:]]
    for kind, name in pairs:
        resource = sess.discovery.resolve(kind)
        namespace = sess.namespace if resource.namespaced else None
        yield None, sess.client.get(resource, name, namespace), ""


def _view_last_applied(args) -> int:
    from kubelite.apply import lastapplied

    output = args.output or "yaml"
    if output not in ("yaml", "json"):
        raise common.CommandError(f"error: Unexpected -o output mode: {output}, the flag 'output' must be one of "
                                  "yaml|json")
    sess = common.session(args)
    texts = []
    for _item, live, source in _targets(args, sess, "view-last-applied"):
        annotation = lastapplied.original_configuration(live)
        if annotation is None:
            if source:
                name = (live.get("metadata") or {}).get("name", "")
                raise common.CommandError(f"error: error when no last-applied-configuration annotation found on "
                                          f'resource: {name}\n "{source}": <nil>')
            continue
        texts.append(lastapplied.view_text(annotation, output))
    _write("".join(texts))
    return 0


def _set_last_applied(args) -> int:
    from kubelite.apply import lastapplied
    from kubelite.patch.strategic import to_json

    dry_run = common.dry_run_mode(args)
    if not args.filename and not args.kustomize:
        raise common.CommandError("error: must specify one of -f and -k")
    sess = common.session(args)
    planned = []
    for item, live, _source in _targets(args, sess, "set-last-applied"):
        text = lastapplied.set_last_applied_text(item.obj)
        original = lastapplied.original_configuration(live)
        if original is None and not args.create_annotation:
            raise common.CommandError(f"error: no last-applied-configuration annotation found on resource: "
                                      f"{item.name}, to create the annotation, run the command with "
                                      "--create-annotation")
        if original == text:
            _write(f"set-last-applied {item.name}: no changes required.\n")
            continue
        planned.append((item, live, text))
    output = common.output_of(args, APPLY_FORMATS)
    for item, live, text in planned:
        final = live
        if dry_run != "client":
            from kubelite.client.dynamic import WriteParams

            final = sess.client.patch(item.resource, item.namespace or None, item.name,
                                      to_json(lastapplied.annotation_patch(text)), "merge",
                                      WriteParams(dry_run=dry_run == "server"))
        _write(common.render(output, final) if output.kind else common.success_line(final, "configured", dry_run))
    return 0


def _edit_last_applied(args) -> int:
    """Open the annotation (as YAML or JSON) in $KUBE_EDITOR / $EDITOR and store what is saved."""
    from kubelite.apply import lastapplied
    from kubelite.client.dynamic import WriteParams
    from kubelite.manifest import ManifestError, read_text
    from kubelite.patch.strategic import to_json

    output = args.output or "yaml"
    if output not in ("yaml", "json"):
        raise common.CommandError(f"error: Unexpected -o output mode: {output}, the flag 'output' must be one of "
                                  "yaml|json")
    if args.args and (args.filename or args.kustomize):
        raise common.CommandError("error: resource/name arguments cannot be provided when a path is specified")
    params = WriteParams(field_manager=args.field_manager, field_validation=common.field_validation(args))
    sess = common.session(args)
    for item, live, _source in _targets(args, sess, "edit-last-applied"):
        annotation = lastapplied.original_configuration(live)
        if annotation is None:
            continue
        resource = item.resource if item is not None else sess.discovery.for_kind(live["apiVersion"], live["kind"])
        before = lastapplied.view_text(annotation, output)
        after = _edit_text(before, output)
        if after is None:
            sys.stderr.write("Edit cancelled, no changes made.\n")
            continue
        try:
            edited = read_text(after, "edited file")
        except ManifestError as err:
            raise common.CommandError(f"error: {err}") from None
        if len(edited) != 1:
            raise common.CommandError("error: the edited last-applied configuration must hold exactly one object")
        text = lastapplied.set_last_applied_text(edited[0].obj)
        metadata = live.get("metadata") or {}
        final = sess.client.patch(resource, metadata.get("namespace") or None, metadata.get("name"),
                                  to_json(lastapplied.annotation_patch(text)), "merge", params)
        # with -o kubectl prints the edited configuration, not the object
        _write(common.render(common.output_of(args, APPLY_FORMATS), edited[0].obj) if args.output else
               common.success_line(final, "edited", "none"))
    return 0


def _edit_text(before: str, suffix: str) -> str | None:
    """What the user saved in the editor; None when nothing changed."""
    import os
    import shlex
    import subprocess
    import tempfile

    editor = os.environ.get("KUBE_EDITOR") or os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w", suffix=f".{suffix}", prefix="kubelite-edit-", delete=False) as f:
        f.write(before)
        path = f.name
    try:
        if subprocess.call([*shlex.split(editor), path]) != 0:
            raise common.CommandError(f'error: there was a problem with the editor "{editor}"')
        with open(path, encoding="utf-8") as f:
            after = f.read()
    finally:
        os.unlink(path)
    return None if after == before else after


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
