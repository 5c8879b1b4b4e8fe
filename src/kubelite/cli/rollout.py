"""`kubelite rollout status|history|undo|pause|resume|restart`: follow and steer the rollout of
deployments (and, through `rollout_kinds`, of the other kinds that register there), with kubectl
1.32's flags, messages and exit codes. `undo` is done on the client, as kubectl does: the chosen
revision's pod template is patched back into the object."""
from __future__ import annotations

import argparse
import sys

from kubelite.cli import common

SUBCOMMANDS = ("history", "pause", "restart", "resume", "status", "undo")


def run(argv: list[str]) -> int:
    from kubelite.cli.rollout_help import HELP

    if not argv or argv[0] in ("-h", "--help"):
        from kubelite.cli.help import render

        sys.stdout.write(render(HELP["rollout"]))
        return 0 if argv else 1
    sub = argv[0]
    if sub not in SUBCOMMANDS:
        sys.stderr.write(f'error: unknown command "{sub}"\nSee \'kubelite rollout -h\' for help and examples\n')
        return 1
    return common.run(_parser(sub), argv[1:], lambda args: _BODIES[sub](args))


def _parser(sub: str) -> common.Parser:
    from kubelite.cli.help import install
    from kubelite.cli.rollout_help import HELP

    p = common.parser(f"rollout {sub}", HELP[f"rollout {sub}"].description)
    p.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    common.add_connection_flags(p)
    common.add_namespace_flags(p, all_namespaces=False)
    common.add_filename_flags(p)
    p.add_argument("-l", "--selector", default="")
    if sub == "status":
        p.add_argument("--revision", type=int, default=0)
        p.add_argument("--timeout", default="0s")
        p.add_argument("-w", "--watch", default="true")
    else:
        common.add_output_flag(p)
        common.add_template_flags(p)
    if sub == "history":
        p.add_argument("--revision", type=int, default=0)
    if sub == "undo":
        p.add_argument("--to-revision", type=int, default=0)
        common.add_dry_run_flag(p)
    if sub in ("pause", "resume", "restart"):
        p.add_argument("--field-manager", default="kubectl-rollout")
    return install(p, HELP[f"rollout {sub}"])


# -- shared ------------------------------------------------------------------------------------------


def _targets(args, verb: str) -> list:
    from kubelite.cli import imperative_common

    args._verb = f"rollout {verb}"
    args.field_selector = None
    if not args.args and not args.filename and not args.kustomize:
        raise common.CommandError("error: required resource not specified")
    sess = common.session(args)
    found, errors = imperative_common.targets(sess, args, f"rollout {verb}",
                                              require_names=not args.selector and not args.filename,
                                              label_selector=args.selector or None)
    if errors:
        common.report(errors)
        raise common.Failed(1)
    return [(request, _latest(sess, request, obj)) for request, obj in found]


def _latest(sess, request, obj: dict) -> dict:
    """The object as the server has it (kubectl's builder asks for the latest of file objects)."""
    if request.obj is None:
        return obj
    live = sess.client.get(request.resource, obj["metadata"]["name"], request.namespace)
    return common.with_type(live, request.resource)


def _impl(request, what: str):
    from kubelite.cli.rollout_kinds import lookup

    r = request.resource
    impl = lookup(r.group, r.kind)
    if impl is None:
        kind = f"{r.kind}.{r.group}" if r.group else r.kind
        raise common.CommandError(f"error: no {what} has been implemented for " +
                                  (f'"{kind}"' if what != "status viewer" else kind))
    return impl


def _print(args, obj: dict, operation: str, dry_run: str = "none") -> None:
    _print_object(common.output_of(args), obj, operation, dry_run)


def _print_object(output, obj: dict, operation: str = "", dry_run: str = "none") -> None:
    """As kubectl prints the typed objects rollout works with: JSON in the Go structs' field order."""
    from kubelite.cli.imperative_common import print_result

    if not output.show_managed_fields:
        obj = common.without_managed_fields(obj)
    print_result(obj, output, operation, dry_run, ordered=True)


def _kubectl_error(err) -> common.CommandError:
    return common.CommandError(f"error: {err}")


# -- status -------------------------------------------------------------------------------------------


def _status(args) -> int:
    from kubelite.cli.rollout_kinds import RolloutError
    from kubelite.cli.rollout_watch import follow

    watch = common._flag_true(args.watch, "watch")
    timeout = _duration(args.timeout)
    found = _targets(args, "status")
    if len(found) != 1:
        raise common.CommandError("error: rollout status is only supported on individual resources and resource "
                                  "collections are not supported yet")
    request, obj = found[0]
    impl = _impl(request, "status viewer")
    sess = common.session(args)
    try:
        if not watch:
            message, _ = impl.status(sess.client.get(request.resource, obj["metadata"]["name"], request.namespace),
                                     args.revision)
            sys.stdout.write(message)
            return 0
        follow(sess, request, obj["metadata"]["name"], lambda o: impl.status(o, args.revision), timeout)
    except RolloutError as err:
        raise _kubectl_error(err) from err
    return 0


def _duration(text: str) -> float | None:
    """--timeout as pflag parses a Go duration (a bare number other than 0 needs a unit)."""
    import re

    if re.fullmatch(r"(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+|0", text or ""):
        units = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
        total = sum(float(n) * units[u] for n, _, u in re.findall(r"(\d+(\.\d+)?)(ns|us|µs|ms|s|m|h)", text))
        return total or None
    raise common.VerbatimError(f'Error: invalid argument "{text}" for "--timeout" flag: time: invalid duration '
                               f'"{text}"\nSee \'kubelite rollout status --help\' for usage.')


# -- history ------------------------------------------------------------------------------------------


def _history(args) -> int:
    from kubelite.cli.rollout_kinds import RolloutError, describe_template

    output = common.output_of(args)
    sess = common.session(args)
    for request, obj in _targets(args, "history"):
        impl = _impl(request, "history viewer")
        history = impl.history(sess, obj)
        if output.kind:
            if args.revision > 0 and args.revision not in history:
                raise common.CommandError("error: unable to find the specified revision")
            for i, revision in enumerate([args.revision] if args.revision > 0 else sorted(history)):
                if i and output.kind == "yaml":
                    sys.stdout.write("---\n")
                _print_object(output, history[revision])
            continue
        if not history:
            text = "No rollout history found."
        elif args.revision > 0:
            if args.revision not in history:
                raise _kubectl_error(RolloutError("unable to find the specified revision"))
            text = describe_template(impl.template(history[args.revision]))
        else:
            text = _history_table(impl, history)
        head = f"with revision #{args.revision}" if args.revision > 0 else ""
        sys.stdout.write(common.success_line(obj, f"{head}\n{text}", "none"))
    return 0


def _history_table(impl, history: dict) -> str:
    from kubelite.manifest.table import TabWriter

    tabs = TabWriter(min_width=0, padding=2)
    tabs.write("REVISION\tCHANGE-CAUSE\n")
    for revision in sorted(history):
        tabs.write(f"{revision}\t{impl.change_cause(history[revision]) or '<none>'}\n")
    tabs.flush()
    return tabs.getvalue()


# -- undo ---------------------------------------------------------------------------------------------


def _undo(args) -> int:
    from kubelite.cli.rollout_kinds import RolloutError

    dry_run = common.dry_run_mode(args)
    sess = common.session(args)
    for request, obj in _targets(args, "undo"):
        impl = _impl(request, "rollbacker")
        try:
            result = impl.rollback(sess, request.resource, obj, args.to_revision, dry_run)
        except RolloutError as err:
            raise _kubectl_error(err) from err
        _print(args, obj, result, dry_run)
    return 0


# -- pause / resume / restart -----------------------------------------------------------------------------


def _change(args, verb: str, done: str, unsupported: str) -> int:
    from kubelite.cli.rollout_kinds import RolloutError
    from kubelite.client.dynamic import WriteParams

    sess = common.session(args)
    errors: list = []
    for request, obj in _targets(args, verb):
        from kubelite.cli.rollout_kinds import lookup

        r = request.resource
        what = f"{r.resource}.{r.group}" if r.group else r.resource
        name = obj["metadata"]["name"]
        impl = lookup(r.group, r.kind)
        try:
            if impl is None:
                raise RolloutError(unsupported)
            changed = _apply_change(impl, verb, obj)
        except RolloutError as err:
            errors.append(common.CommandError(f'error: {what} "{name}" {err}'))
            continue
        patch, _ = common.two_way_patch(obj, changed)
        if not patch:
            _print(args, obj, f"already {done}")
            continue
        updated = sess.client.patch(r, request.namespace, name, patch, "strategic",
                                    WriteParams(field_manager=args.field_manager))
        _print(args, common.with_type(updated, r), done)
    return common.report(errors)


def _apply_change(impl, verb: str, obj: dict) -> dict:
    if verb == "pause":
        return impl.pause(obj)
    if verb == "resume":
        return impl.resume(obj)
    import datetime

    return impl.restart(obj, datetime.datetime.now().astimezone().replace(microsecond=0).isoformat()
                        .replace("+00:00", "Z"))


_BODIES = {
    "status": _status,
    "history": _history,
    "undo": _undo,
    "pause": lambda args: _change(args, "pause", "paused", "pausing is not supported"),
    "resume": lambda args: _change(args, "resume", "resumed", "resuming is not supported"),
    "restart": lambda args: _change(args, "restart", "restarted", "restarting is not supported"),
}
