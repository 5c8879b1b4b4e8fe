"""`kubelite apply`: client-side apply of configuration files (kubectl apply).

Also `apply view-last-applied`, `apply set-last-applied` and `apply edit-last-applied`.
"""
from __future__ import annotations

import argparse
import sys

SUBCOMMANDS = {"view-last-applied", "set-last-applied", "edit-last-applied"}


def add_connection_flags(parser: argparse.ArgumentParser) -> None:
    """The kubeconfig selection flags every command takes."""
    parser.add_argument("--kubeconfig")
    parser.add_argument("--context")
    parser.add_argument("--cluster")
    parser.add_argument("--user")
    parser.add_argument("-n", "--namespace")
    parser.add_argument("-s", "--server")
    parser.add_argument("--token")
    parser.add_argument("--insecure-skip-tls-verify", action="store_true")
    parser.add_argument("--request-timeout")
    parser.add_argument("--cache-dir")
    parser.add_argument("-v", "--v", dest="verbosity", type=int, default=0)


def open_session(args):
    from kubelite.client.dynamic import Session
    from kubelite.client.kubeconfig import Overrides

    overrides = Overrides(kubeconfig=args.kubeconfig, context=args.context, cluster=args.cluster, user=args.user,
                          namespace=args.namespace, server=args.server, token=args.token,
                          insecure_skip_tls_verify=args.insecure_skip_tls_verify,
                          request_timeout=_seconds(args.request_timeout))
    return Session.open(overrides, verbosity=args.verbosity)


def _seconds(text: str | None) -> float | None:
    if not text or text == "0":
        return None
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    for unit in ("ms", "s", "m", "h"):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * units[unit]
    return float(text)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kubelite apply", description="Apply a configuration to a resource by "
                                "file name or stdin.")
    p.add_argument("-f", "--filename", action="append", default=[])
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-k", "--kustomize")
    p.add_argument("-l", "--selector")
    p.add_argument("-o", "--output", default="")
    p.add_argument("--dry-run", nargs="?", const="unchanged", default="none")
    p.add_argument("--overwrite", default="true")
    p.add_argument("--force", action="store_true")
    p.add_argument("--grace-period", type=int, default=-1)
    p.add_argument("--timeout", default="0s")
    p.add_argument("--cascade", default="background")
    p.add_argument("--wait", nargs="?", const="true", default="false")
    p.add_argument("--validate", nargs="?", const="strict", default="strict")
    p.add_argument("--field-manager", default=None)
    p.add_argument("--server-side", nargs="?", const="true", default="false")
    p.add_argument("--force-conflicts", action="store_true")
    p.add_argument("--prune", action="store_true")
    p.add_argument("--all", action="store_true")
    p.add_argument("--prune-allowlist", action="append", default=[])
    p.add_argument("--applyset", default="")
    p.add_argument("--openapi-patch", default="true")
    p.add_argument("--show-managed-fields", action="store_true")
    add_connection_flags(p)
    return p


class UsageError(Exception):
    pass


def _bool(text: str, flag: str) -> bool:
    lowered = str(text).lower()
    if lowered in ("true", "1", "t"):
        return True
    if lowered in ("false", "0", "f"):
        return False
    raise UsageError(f'invalid argument "{text}" for "{flag}" flag: strconv.ParseBool: parsing "{text}": '
                     "invalid syntax")


def dry_run_strategy(text: str) -> str:
    if text == "unchanged":
        print("W: --dry-run is deprecated and can be replaced with --dry-run=client.", file=sys.stderr)
        return "client"
    if text in ("client", "server", "none"):
        return text
    if text in ("true", "false"):
        return "client" if text == "true" else "none"
    raise UsageError(f'Invalid dry-run value ({text}). Must be "none", "server", or "client".')


def validation_directive(text: str) -> str:
    lowered = text.lower()
    if lowered in ("strict", "true"):
        return "Strict"
    if lowered == "warn":
        return "Warn"
    if lowered in ("ignore", "false"):
        return "Ignore"
    raise UsageError(f'invalid - validate option "{text}"; must be one of: strict (or true), warn, ignore '
                     "(or false)")


def run(argv: list[str]) -> int:
    if argv and argv[0] in SUBCOMMANDS:
        return run_last_applied(argv[0], argv[1:])
    args, rest = parser().parse_known_args(argv)
    if rest:
        print(f"error: unknown flag or argument: {rest[0]}", file=sys.stderr)
        return 1
    try:
        return _run(args)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


def _run(args) -> int:
    from kubelite.apply.engine import ApplyOptions, Applier, FIELD_MANAGER
    from kubelite.apply.report import errors_text, success_line

    if _bool(args.server_side, "--server-side"):
        raise UsageError("--server-side is not supported yet by kubelite (client-side apply only)")
    dry_run = dry_run_strategy(args.dry_run)
    if args.force_conflicts:
        raise UsageError("--force-conflicts only works with --server-side")
    if dry_run == "server" and args.force:
        raise UsageError("--dry-run=server cannot be used with --force")
    if args.all and args.selector:
        raise UsageError("cannot set --all and --selector at the same time")
    if args.applyset and not args.prune:
        raise UsageError("--applyset requires --prune")
    if args.applyset:
        raise UsageError("--applyset is not supported yet by kubelite (use --prune with -l or --all)")
    if args.prune:
        if args.force:
            raise UsageError("--force cannot be used with --prune")
        if args.applyset:
            if args.all:
                raise UsageError("--all is incompatible with --applyset")
            if args.selector:
                raise UsageError("--selector is incompatible with --applyset")
            if args.prune_allowlist:
                raise UsageError("--prune-allowlist is incompatible with --applyset")
        elif not args.all and not args.selector:
            raise UsageError("all resources selected for prune without explicitly passing --all. To prune all "
                             "resources, pass the --all flag. If you did not mean to prune all resources, specify "
                             "a label selector")
    if args.output not in ("", "name", "yaml", "json"):
        raise UsageError(f'unable to match a printer suitable for the output format "{args.output}", allowed '
                         'formats are: json,name,yaml')
    manifests = read_manifests(args, verb="apply")
    if manifests is None:
        return 1
    try:
        session = open_session(args)
    except Exception as err:  # kubeconfig problems: one line, no traceback
        print(_one_line(err), file=sys.stderr)
        return 1
    with session:
        options = ApplyOptions(
            dry_run=dry_run, overwrite=_bool(args.overwrite, "--overwrite"), force=args.force,
            grace_period=args.grace_period, field_manager=args.field_manager or FIELD_MANAGER,
            validation=validation_directive(args.validate), selector=args.selector,
            namespace=session.namespace, enforce_namespace=session.connection.namespace_explicit,
            base="kubelite")
        printed: list[dict] = []

        def report(outcome):
            if args.output in ("yaml", "json"):
                printed.append(outcome.obj)
                return
            print(success_line(outcome.obj, outcome.verb, dry_run, args.output), flush=True)

        def warn(text):
            print(text, file=sys.stderr, flush=True)

        applier = Applier(session, options, on_outcome=report, warn=warn)
        applyset = None
        try:
            items = applier.prepare(manifests)
            if args.applyset:
                from kubelite.apply.applyset import ApplySet

                applyset = ApplySet.for_run(session, args.applyset, namespace=session.namespace,
                                            explicit_namespace=session.connection.namespace_explicit)
                applyset.before_apply(applier, items, dry_run)
            result = applier.run(items)
        except Exception as err:
            if not _expected(err):
                raise
            print(errors_text([err]), end="", file=sys.stderr)
            return 1
        if printed:
            print_objects(printed, args.output)
        if result.errors:
            print(errors_text(result.errors), end="", file=sys.stderr)
            return 1
        if args.prune:
            from kubelite.apply.prune import Pruner

            try:
                if applyset is not None:
                    pruned = applyset.prune(applier, result, dry_run)
                else:
                    pruner = Pruner(session, selector=args.selector, allowlist=args.prune_allowlist,
                                    namespace_specified=session.connection.namespace_explicit, dry_run=dry_run,
                                    grace_period=args.grace_period)
                    pruned = pruner.prune(result)
                for obj in pruned:
                    print(success_line(obj, "pruned", dry_run, args.output), flush=True)
            except Exception as err:
                if not _expected(err):
                    raise
                print(errors_text([err]), end="", file=sys.stderr)
                return 1
    return 0


def _expected(err: BaseException) -> bool:
    from kubelite.apply.objects import ObjectError
    from kubelite.client.errors import ClientError

    return isinstance(err, (ClientError, ObjectError, ValueError))


def _one_line(err: BaseException) -> str:
    text = str(err)
    return text if text.startswith("error") else f"error: {text}"


def print_objects(objects: list[dict], output: str) -> None:
    from kubelite.manifest import as_list, to_json, to_yaml

    value = objects[0] if len(objects) == 1 else as_list(objects)
    sys.stdout.write(to_yaml(value) if output == "yaml" else to_json(value))


def read_manifests(args, verb: str):
    """Objects of -f/-R/-k, or None after printing kubectl's error."""
    from kubelite.manifest import ManifestError, read_sources

    if args.kustomize and args.filename:
        print("error: only one of -f or -k can be specified", file=sys.stderr)
        return None
    if args.kustomize:
        try:
            from kubelite.kustomize import build  # type: ignore[attr-defined]
        except ImportError:
            print("error: -k is not available yet in kubelite (kustomize support pending)", file=sys.stderr)
            return None
        return _kustomize_manifests(build, args.kustomize)
    if not args.filename:
        print("error: must specify one of -f and -k", file=sys.stderr)
        return None
    try:
        return read_sources(args.filename, recursive=args.recursive, verb=verb)
    except ManifestError as err:
        print(_one_line(err), file=sys.stderr)
        return None


def _kustomize_manifests(build, directory: str):
    from kubelite.manifest import Manifest

    objs = build(directory)
    return [Manifest(obj, directory, i, 1) for i, obj in enumerate(objs)]


# -- view-last-applied / set-last-applied / edit-last-applied ----------------------------------

def last_applied_parser(name: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"kubelite apply {name}")
    p.add_argument("args", nargs="*")
    p.add_argument("-f", "--filename", action="append", default=[])
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-k", "--kustomize")
    p.add_argument("-l", "--selector")
    p.add_argument("--all", action="store_true")
    p.add_argument("-o", "--output", default="")
    p.add_argument("--create-annotation", action="store_true")
    p.add_argument("--dry-run", nargs="?", const="unchanged", default="none")
    p.add_argument("--windows-line-endings", action="store_true")
    add_connection_flags(p)
    return p


def run_last_applied(name: str, argv: list[str]) -> int:
    args = last_applied_parser(name).parse_args(argv)
    try:
        session = open_session(args)
    except Exception as err:
        print(_one_line(err), file=sys.stderr)
        return 1
    from kubelite.apply.report import errors_text

    with session:
        try:
            if name == "view-last-applied":
                return _view_last_applied(args, session)
            if name == "set-last-applied":
                return _set_last_applied(args, session)
            return _edit_last_applied(args, session)
        except UsageError as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        except Exception as err:
            if not _expected(err):
                raise
            print(errors_text([err]), end="", file=sys.stderr)
            return 1


def _targets(args, session, verb: str):
    """(live object, source) for TYPE NAME / TYPE/NAME arguments or -f files."""
    from kubelite.apply.engine import Applier, ApplyOptions

    if args.filename or args.kustomize:
        manifests = read_manifests(args, verb=verb)
        if manifests is None:
            raise UsageError("no objects")
        applier = Applier(session, ApplyOptions(namespace=session.namespace,
                                                enforce_namespace=session.connection.namespace_explicit))
        for item in applier.prepare(manifests):
            applier.resolve(item)
            yield item, session.client.get(item.resource, item.name, item.namespace or None), item.source
        return
    words = list(args.args)
    if not words:
        raise UsageError("you must specify the type of resource to get. Use \"kubelite api-resources\" for a "
                         "complete list of supported resources.")
    pairs = []
    if "/" in words[0]:
        for word in words:
            kind, _, name = word.partition("/")
            pairs.append((kind, name))
    else:
        pairs = [(words[0], name) for name in words[1:]]
    for kind, name in pairs:
        resource = session.discovery.resolve(kind)
        namespace = session.namespace if resource.namespaced else None
        yield None, session.client.get(resource, name, namespace), ""


def _view_last_applied(args, session) -> int:
    from kubelite.apply import lastapplied

    output = args.output or "yaml"
    if output not in ("yaml", "json"):
        raise UsageError(f"Unexpected -o output mode: {output}, the flag 'output' must be one of yaml|json")
    texts = []
    for _item, live, source in _targets(args, session, "view-last-applied"):
        annotation = lastapplied.original_configuration(live)
        if annotation is None:
            if source:
                name = (live.get("metadata") or {}).get("name", "")
                raise UsageError(f"error when no last-applied-configuration annotation found on resource: {name}\n "
                                 f'"{source}": <nil>')
            continue
        texts.append(lastapplied.view_text(annotation, output))
    sys.stdout.write("".join(texts))
    return 0


def _set_last_applied(args, session) -> int:
    from kubelite.apply import lastapplied
    from kubelite.apply.report import success_line
    from kubelite.patch.strategic import to_json

    dry_run = dry_run_strategy(args.dry_run)
    if not args.filename and not args.kustomize:
        raise UsageError("must specify one of -f and -k")
    planned = []
    for item, live, _source in _targets(args, session, "set-last-applied"):
        text = lastapplied.set_last_applied_text(item.obj)
        original = lastapplied.original_configuration(live)
        if original is None and not args.create_annotation:
            raise UsageError(f"no last-applied-configuration annotation found on resource: {item.name}, to create "
                             "the annotation, run the command with --create-annotation")
        if original == text:
            print(f"set-last-applied {item.name}: no changes required.")
            continue
        planned.append((item, live, text))
    for item, live, text in planned:
        final = live
        if dry_run != "client":
            from kubelite.client.dynamic import WriteParams

            final = session.client.patch(item.resource, item.namespace or None, item.name,
                                         to_json(lastapplied.annotation_patch(text)), "merge",
                                         WriteParams(dry_run=dry_run == "server"))
        if args.output in ("yaml", "json"):
            print_objects([final], args.output)
        else:
            print(success_line(final, "configured", dry_run, args.output))
    return 0


def _edit_last_applied(args, session) -> int:
    """Open the annotation (as YAML) in $KUBE_EDITOR / $EDITOR and store what is saved."""
    import os
    import shlex
    import subprocess
    import tempfile

    from kubelite.apply import lastapplied
    from kubelite.apply.report import success_line
    from kubelite.manifest import ManifestError, read_text
    from kubelite.patch.strategic import to_json

    output = args.output or "yaml"
    for item, live, _source in _targets(args, session, "edit-last-applied"):
        annotation = lastapplied.original_configuration(live)
        if annotation is None:
            continue
        resource = item.resource if item is not None else session.discovery.for_kind(live["apiVersion"], live["kind"])
        before = lastapplied.view_text(annotation, output)
        editor = os.environ.get("KUBE_EDITOR") or os.environ.get("EDITOR") or "vi"
        with tempfile.NamedTemporaryFile("w", suffix=f".{output}", prefix="kubelite-edit-", delete=False) as f:
            f.write(before)
            path = f.name
        try:
            if subprocess.call([*shlex.split(editor), path]) != 0:
                raise UsageError(f"there was a problem with the editor \"{editor}\"")
            after = open(path, encoding="utf-8").read()
        finally:
            os.unlink(path)
        if after == before:
            print("Edit cancelled, no changes made.", file=sys.stderr)
            continue
        try:
            edited = read_text(after, path)
        except ManifestError as err:
            raise UsageError(str(err)) from None
        if len(edited) != 1:
            raise UsageError("the edited last-applied configuration must hold exactly one object")
        text = lastapplied.set_last_applied_text(edited[0].obj)
        metadata = live.get("metadata") or {}
        final = session.client.patch(resource, metadata.get("namespace") or None, metadata.get("name"),
                                     to_json(lastapplied.annotation_patch(text)), "merge")
        print(success_line(final, "edited"))
    return 0


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
