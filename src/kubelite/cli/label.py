"""`kubelite label`: add, change or remove labels of objects, as kubectl label does.

The shared machinery (argument splitting, fetching the latest objects, the merge patch of
metadata) also serves `kubelite annotate`, which differs only in words and in a few rules
(annotation values are free text, its result line is always `annotated`).
"""
from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass

from kubelite.cli import common

EXAMPLES = """\
  # Add a label, or change it with --overwrite
  kubelite label pods foo unhealthy=true
  kubelite label --overwrite pods foo status=unhealthy

  # Every pod in the namespace, or those matching a selector
  kubelite label pods --all status=unhealthy
  kubelite label pods -l app=web tier=frontend

  # Only if the resource version is unchanged
  kubelite label pods foo status=unhealthy --resource-version=1

  # Remove a label, and list the labels
  kubelite label pods foo bar-
  kubelite label pods foo --list

  # Label a file's object locally and print it
  kubelite label --local -f pod.yaml env=test -o yaml
"""


@dataclass(frozen=True)
class Words:
    """What differs between label and annotate."""

    command: str  # label | annotate
    field: str  # labels | annotations
    noun: str  # label | annotation
    local_hint: str  # "pod.yaml or --filename=pod.json" / "rsrc.yaml or --filename=rsrc.json"


LABEL = Words("label", "labels", "label", "pod.yaml or --filename=pod.json")


def build_parser(words: Words, summary: str, examples: str) -> common.Parser:
    p = common.parser(words.command, summary, examples)
    p.add_argument("args", nargs="*", metavar=f"TYPE NAME KEY_1=VAL_1 ... KEY_N=VAL_N | TYPE/NAME KEY=VAL ... | KEY-")
    common.add_connection_flags(p)
    common.add_namespace_flags(p)
    common.add_filename_flags(p, "to update")
    common.add_selector_flags(p)
    common.add_dry_run_flag(p)
    common.add_output_flag(p, "json|yaml|name|jsonpath=...")
    common.add_template_flags(p)
    p.add_argument("--overwrite", action="store_true", help=f"allow changing an existing {words.noun}")
    p.add_argument("--all", action="store_true", help="every object of the types in the namespace")
    p.add_argument("--list", action="store_true", help=f"print the {words.field} of the objects")
    p.add_argument("--local", action="store_true", help="update the file's objects without contacting the server")
    p.add_argument("--resource-version", default="", help="only update if the object still has this version")
    p.add_argument("--field-manager", default=f"kubectl-{words.command}",
                   help="name of the manager tracking field ownership")
    from kubelite.cli.help import installed

    return installed(p, words.command)


def run(argv: list[str]) -> int:
    p = build_parser(LABEL, "Update the labels on a resource.", EXAMPLES)
    return common.run(p, argv, lambda args: execute(args, LABEL))


# -- arguments -----------------------------------------------------------------------------------


def split_args(args: list[str], words: Words) -> tuple[list[str], list[str]]:
    """Resource arguments first, then KEY=VALUE / KEY- pairs (kubectl's GetResourcesAndPairs)."""
    resources: list[str] = []
    pairs: list[str] = []
    for arg in args:
        is_pair = ("=" in arg and not arg.startswith("=")) or (arg.endswith("-") and arg != "-")
        if is_pair:
            pairs.append(arg)
        elif pairs:
            raise common.CommandError(f"error: all resources must be specified before {words.noun} changes: {arg}")
        else:
            resources.append(arg)
    return resources, pairs


_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")


def parse_labels(pairs: list[str]) -> tuple[dict[str, str], list[str]]:
    new: dict[str, str] = {}
    remove: list[str] = []
    for pair in pairs:
        if "=" in pair:
            parts = pair.split("=")
            if len(parts) != 2:
                raise common.CommandError(f"error: invalid label spec: {pair}")
            problems = _label_value_problems(parts[1])
            if problems:
                raise common.CommandError(f"error: invalid label value: {json.dumps(pair)}: {';'.join(problems)}")
            new[parts[0]] = parts[1]
        else:
            remove.append(pair[:-1])
    if any(key in new for key in remove):
        raise common.CommandError("error: can not both modify and remove a label in the same command")
    return new, remove


def _label_value_problems(value: str) -> list[str]:
    problems = []
    if len(value) > 63:
        problems.append("must be no more than 63 characters")
    if not _LABEL_VALUE.fullmatch(value):
        problems.append("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
                        "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
                        "'my_value',  or '12345', regex used for validation is "
                        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
    return problems


# -- objects --------------------------------------------------------------------------------------


def latest_objects(sess, args, resources: list[str], verb: str, errors: list) -> tuple[list, bool]:
    """(request, live object) pairs for what the arguments select, as kubectl's builder with
    Latest(): named objects and objects from files are read from the server, list requests
    expand to their items. Failures go to `errors`; the flag says kubectl's single item implied."""
    from kubelite.client.errors import ClientError

    if getattr(args, "all", False) and args.selector:
        raise common.CommandError("error: cannot set --all and --selector at the same time")
    if getattr(args, "all", False) and args.field_selector:
        raise common.CommandError("error: cannot set --all and --field-selector at the same time")
    listing = bool(getattr(args, "all", False) or args.selector or args.field_selector)
    selection = common.build(sess, args, resources, verb=verb, require_names=not listing and not args.filename,
                             errors=errors)
    found: list = []
    for request in selection.requests:
        try:
            if request.name is not None:
                if (args.selector or args.field_selector) and request.obj is None:
                    raise common.CommandError("error: name cannot be provided when a selector is specified")
                found.append((request, sess.client.get(request.resource, request.name, request.namespace)))
                continue
            for page in sess.client.list_pages(request.resource, request.namespace, label_selector=args.selector,
                                               field_selector=args.field_selector):
                for item in page.get("items") or ():
                    found.append((request, common.with_type(item, request.resource)))
        except (ClientError, common.CommandError) as err:
            errors.append(err)
    return found, selection.single_item


def local_objects(args, words: Words) -> list[dict]:
    if not args.filename:
        raise common.CommandError(f"error: one or more files must be specified as -f {words.local_hint}")
    from kubelite.manifest import read_sources

    return [m.obj for m in read_sources(args.filename, recursive=args.recursive, verb=words.command)]


def meta_map(obj: dict, field: str) -> dict:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    value = meta.get(field)
    return dict(value) if isinstance(value, dict) else {}


def with_meta_map(obj: dict, field: str, values: dict, resource_version: str) -> dict:
    meta = dict(obj.get("metadata") or {})
    meta[field] = values
    if resource_version:
        meta["resourceVersion"] = resource_version
    return {**obj, "metadata": meta}


def go_json_len(obj) -> int:
    return len(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode())


# -- the command ------------------------------------------------------------------------------------


def execute(args, words: Words) -> int:
    args._verb = words.command
    resources, pairs = split_args(args.args, words)
    if words.command == "label":
        new, remove = parse_labels(pairs)
    else:
        from kubelite.cli.annotate import parse_annotations

        new, remove = parse_annotations(pairs)
    if args.list and args.output:
        raise common.CommandError("error: --list and --output may not be specified together")
    dry_run = common.dry_run_mode(args)
    _validate(args, words, resources, new, remove, dry_run)
    output = common.output_of(args)
    printer = common.ObjectPrinter(output) if output.kind else None
    errors: list = []
    if args.local:
        for obj in local_objects(args, words):
            common.each([obj], lambda o: _update_local(o, args, words, new, remove, printer), errors)
        return common.report(errors)
    sess = common.session(args)
    found, single = latest_objects(sess, args, resources, words.command, errors)
    if not single and args.resource_version and (found or not errors):
        raise common.CommandError(f"error: --resource-version may only be used with a single resource")
    def update(pair) -> None:
        request, obj = pair
        _update_live(sess, request, obj, args, words, new, remove, dry_run, printer, single)

    common.each(found, update, errors)
    return common.report(errors)


def _validate(args, words: Words, resources, new, remove, dry_run: str) -> None:
    if args.local:
        if dry_run == "server":
            raise common.CommandError("error: cannot specify --local and --dry-run=server - did you mean "
                                      "--dry-run=client?")
        if resources:
            raise common.CommandError(f"error: can only use local files by -f {words.local_hint} when --local=true "
                                      "is set")
        if not args.filename:
            raise common.CommandError(f"error: one or more files must be specified as -f {words.local_hint}")
    elif not resources and not args.filename:
        raise common.CommandError("error: one or more resources must be specified as <resource> <name> or "
                                  "<resource>/<name>")
    if not new and not remove and not args.list:
        raise common.CommandError(f"error: at least one {words.noun} update is required")


def _changed_values(obj: dict, args, words: Words, new: dict, remove: list) -> dict:
    current = meta_map(obj, words.field)
    if not args.overwrite:
        _refuse_overwrites(current, new, words)
    updated = dict(current)
    updated.update(new)
    for key in remove:
        updated.pop(key, None)
    return updated


def _refuse_overwrites(current: dict, new: dict, words: Words) -> None:
    taken = [(key, current[key]) for key in new if key in current and current[key] != new[key]
             and key != "kubernetes.io/change-cause"]
    if not taken:
        return
    if words.command == "label":
        texts = [f"'{key}' already has a value ({value}), and --overwrite is false" for key, value in taken]
        raise common.CommandError("error: " + texts[0] if len(texts) == 1 else
                                  "error: [" + ", ".join(texts) + "]")
    raise common.CommandError("error: --overwrite is false but found the following declared annotation(s): " +
                              "; ".join(f"'{key}' already has a value ({value})" for key, value in taken))


def _change_word(words: Words, before: dict, after: dict, overwrite: bool) -> str:
    if words.command == "annotate":
        return "annotated"
    if before == after:
        return "not labeled"
    if not overwrite and go_json_len(after) < go_json_len(before):
        return "unlabeled"
    return "labeled"


def _update_local(obj: dict, args, words: Words, new: dict, remove: list, printer) -> None:
    updated = with_meta_map(obj, words.field, _changed_values(obj, args, words, new, remove), args.resource_version)
    if args.list:
        _list(updated, words, True)
        return
    _print(printer, updated, _change_word(words, obj, updated, args.overwrite), "none")


def _update_live(sess, request, obj: dict, args, words: Words, new: dict, remove: list, dry_run: str, printer,
                 single: bool) -> None:
    before = obj
    if args.resource_version:
        # kubectl clears it first so that the patch always carries the wanted version
        meta = dict(obj.get("metadata") or {})
        meta.pop("resourceVersion", None)
        before = {**obj, "metadata": meta}
    after = with_meta_map(before, words.field, _changed_values(obj, args, words, new, remove), args.resource_version)
    word = _change_word(words, before, after, args.overwrite)
    if dry_run == "client" or args.list:
        result = after
    else:
        if words.command == "label" and not args.list:
            present = meta_map(obj, words.field)
            for key in remove:
                if key not in present:
                    sys.stdout.write(f"label {json.dumps(key)} not found.\n")
        from kubelite.client.dynamic import WriteParams
        from kubelite.patch import merge_patch

        params = WriteParams(dry_run=dry_run == "server", field_manager=args.field_manager)
        result = sess.client.patch(request.resource, request.namespace, obj["metadata"]["name"],
                                   merge_patch.create(before, after), "merge", params)
    if args.list:
        _list(result, words, single)
        return
    # kubectl prints the updated object for label, the server's answer for annotate.
    shown = result if words.command == "annotate" else after
    _print(printer, shown, word, dry_run)


def _list(obj: dict, words: Words, single: bool) -> None:
    indent = ""
    if not single:
        indent = " "
        api_version = str(obj.get("apiVersion") or "")
        group = api_version.rpartition("/")[0] if "/" in api_version else ""
        name = (obj.get("metadata") or {}).get("name", "")
        sys.stdout.write(f"Listing {words.field} for {obj.get('kind')}.{group}/{name}:\n")
    # kubectl walks a Go map here (random order); sorted keys are one of its orders.
    for key, value in sorted(meta_map(obj, words.field).items()):
        sys.stdout.write(f"{indent}{key}={value}\n")
    sys.stdout.flush()


def _print(printer, obj: dict, word: str, dry_run: str) -> None:
    if printer is not None:
        if word != "annotated":
            printer.count = 0  # label makes a printer per object (no `---`); annotate keeps one
        printer.print(obj)
        return
    sys.stdout.write(common.success_line(obj, word, dry_run))
    sys.stdout.flush()
