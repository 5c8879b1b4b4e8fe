"""`kubelite create -f`: create objects from configuration files, as kubectl create does."""
from __future__ import annotations

import sys

from kubelite.cli import common

EXAMPLES = """\
  # Create the objects in a file, a directory, or from stdin
  kubelite create -f deployment.yaml
  kubelite create -f ./manifests/ -R
  cat pod.json | kubelite create -f -

  # Keep the configuration for a later `kubelite apply`
  kubelite create -f deployment.yaml --save-config

  # See what would be created
  kubelite create -f deployment.yaml --dry-run=server -o yaml
"""


def build_parser() -> common.Parser:
    p = common.parser("create", "Create a resource from a file or from stdin.", EXAMPLES)
    p.add_argument("args", nargs="*", help=__import__("argparse").SUPPRESS)
    common.add_connection_flags(p)
    common.add_namespace_flags(p, all_namespaces=False)
    common.add_filename_flags(p, "to create")
    common.add_output_flag(p, "yaml|json|name|jsonpath=...|jsonpath-file=...")
    common.add_template_flags(p)
    common.add_dry_run_flag(p)
    common.add_write_flags(p)
    p.add_argument("--edit", action="store_true", help="edit the objects in an editor before creating them")
    from kubelite.cli.raw import add_raw_flag

    add_raw_flag(p, "a server path to POST the file to")
    p.add_argument("-l", "--selector", default="", help="only create the objects whose labels match")
    # kubectl accepts it on every platform; line endings only matter on Windows, with --edit
    p.add_argument("--windows-line-endings", action="store_true", help="CRLF line endings in the editor")
    from kubelite.cli.help import installed

    return installed(p, "create")


def run(argv: list[str]) -> int:
    from kubelite.cli import create_generators

    if argv and argv[0] == "token":  # `create token SA`: a TokenRequest, not an object to create
        from kubelite.cli import create_token

        return create_token.run(argv[1:])
    if argv and create_generators.is_generator(argv[0]):  # `create TYPE NAME ...` (kubectl's generators)
        return create_generators.run(argv)
    return common.run(build_parser(), argv, _create)


def _create(args) -> int:
    args._verb = "create"
    if args.args:
        # no generator has this name (the command line found none): kubectl's argument check
        raise common.UsageError(f"error: Unexpected args: [{' '.join(args.args)}]\n"
                                "See 'kubelite create -h' for help and examples")
    if not args.filename and not args.kustomize:
        raise common.CommandError("error: must specify one of -f and -k")
    if args.raw:
        return _raw(args)
    if args.edit:
        from kubelite.cli.editing import create_edited

        return create_edited(args)
    output = common.output_of(args)
    dry_run = common.dry_run_mode(args)
    params = common.write_params(args, "kubectl-create", dry_run)
    sess = common.session(args)
    errors: list = []
    selection = common.build(sess, args, [], verb="create", errors=errors)
    selection.requests = _selected(selection.requests, args.selector)
    if not selection.requests and not errors:
        raise common.CommandError("error: no objects passed to create")
    printer = common.ObjectPrinter(output) if output.kind else None

    def create(request: common.Request) -> None:
        obj = common.annotated(common.with_namespace(request.obj, request), args.save_config)
        if dry_run == "client":
            created = obj
        else:
            try:
                created = sess.client.create(request.resource, request.namespace, obj, params)
            except Exception as err:
                raise _sourced(err, "creating", request.source) from None
        if printer is not None:
            printer.print(created)
        else:
            sys.stdout.write(common.success_line(created, "created", dry_run))
            sys.stdout.flush()

    common.each(selection.requests, create, errors)
    return common.report(errors)


def _selected(requests: list, selector: str) -> list:
    """The file objects -l picks (kubectl filters what the files hold by their labels)."""
    from kubelite.labels import SelectorSyntaxError, parse_requirements
    from kubelite.server.selectors import parse_label_selector

    try:
        parse_requirements(selector)
    except SelectorSyntaxError as err:
        raise common.CommandError(f'error: the provided selector "{selector}" is not valid: {err}') from None
    matches = parse_label_selector(selector) if selector else None
    return [r for r in requests if matches is None or matches(r.obj or {})]


def _raw(args) -> int:
    """kubectl create --raw: the one file POSTed as it is."""
    from kubelite.cli import raw

    if args.edit:
        raise common.CommandError("error: --raw and --edit are mutually exclusive")
    raw.check_file_flags(args)
    if args.selector:
        raise common.CommandError("error: --raw and --selector (-l) are mutually exclusive")
    raw.check_output(args)
    raw.check_uri(args.raw)
    return raw.send(args, "POST", args.filename[0])


def _sourced(err: Exception, verb: str, source: str) -> Exception:
    from kubelite.client.errors import ApiError

    if isinstance(err, ApiError):
        return err.with_source(verb, source)
    return err
