"""`kubelite edit`: edit live objects in $KUBE_EDITOR, $EDITOR or vi and save the changes, as
kubectl edit does: an invalid edit reopens the file with the errors as comments at the top;
no change cancels the edit."""
from __future__ import annotations

import os
import sys
import tempfile

from kubelite.cli import common

EXAMPLES = """\
  # Edit the service named 'registry'
  kubelite edit svc/registry

  # Use an alternative editor
  KUBE_EDITOR="nano" kubelite edit svc/registry

  # Edit the job 'myjob' in JSON using the v1 API format
  kubelite edit job.v1.batch/myjob -o json

  # Edit a deployment and keep the configuration for a later apply
  kubelite edit deployment/mydeployment --save-config
"""

HEADER = ("# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
          "# and an empty file will abort the edit. If an error occurs while saving this file will be\n"
          "# reopened with the relevant failures.\n#\n")


def build_parser() -> common.Parser:
    p = common.parser("edit", "Edit a resource on the server.", EXAMPLES)
    p.add_argument("args", nargs="*", metavar="(RESOURCE/NAME | -f FILENAME)")
    common.add_connection_flags(p)
    common.add_namespace_flags(p, all_namespaces=False)
    common.add_filename_flags(p, "to edit")
    p.add_argument("-l", "--selector", help="label selector, e.g. -l key1=value1,key2=value2")
    p.add_argument("-o", "--output", default="yaml", help="yaml|json: the format to edit in")
    common.add_template_flags(p)
    p.add_argument("--save-config", action="store_true",
                   help="store the configuration in the last-applied annotation (for later apply)")
    p.add_argument("--field-manager", default="kubectl-edit", help="name of the manager tracking field ownership")
    p.add_argument("--subresource", default="", help="status: edit a subresource")
    p.add_argument("--windows-line-endings", action="store_true", help="accepted for kubectl compatibility")
    p.add_argument("--output-patch", action="store_true", help="print the patch sent for each edited object")
    p.add_argument("--validate", nargs="?", const="strict", default="strict", help="strict|warn|ignore")
    from kubelite.cli.help import installed

    return installed(p, "edit")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _edit)


def editor_command() -> list[str]:
    """The editor to run: kubectl's order, through a shell when the setting has arguments."""
    for name in ("KUBE_EDITOR", "EDITOR"):
        value = os.environ.get(name, "").strip()
        if value:
            return ["sh", "-c", value] if " " in value or "\t" in value else [value]
    return ["vi"]


def _edit(args) -> int:
    args._verb = "edit"
    if args.output not in ("yaml", "json"):
        raise common.CommandError(f"error: the edit mode must be yaml or json, not {args.output}")
    args.field_validation = common.field_validation(args)  # a bad --validate fails before the editor opens
    sess = common.session(args)
    originals = _fetch(sess, args)
    if not originals:
        raise common.CommandError("error: edit cancelled, no objects found")
    original_doc = _document([obj for _, obj in originals])
    original_text = _serialize(original_doc, args.output)
    text = HEADER + original_text
    errors_shown: list[str] = []
    while True:
        edited_text = _run_editor(text, args.output)
        if edited_text == text:
            if errors_shown:
                copy = _keep_copy(edited_text, args.output)
                raise common.CommandError(f"{errors_shown[0]}\nA copy of your changes has been stored to \"{copy}\"\n"
                                          "error: Edit cancelled, no valid changes were saved.")
            sys.stderr.write("Edit cancelled, no changes made.\n")
            return 0
        body = "".join(line for line in edited_text.splitlines(keepends=True) if not line.lstrip().startswith("#"))
        if not body.strip():
            sys.stderr.write("Edit cancelled, saved file was empty.\n")
            return 0
        try:
            edited = _parse(body, args.output)
        except common.CommandError as err:
            errors_shown = [str(err)]
            text = HEADER + _comment([str(err).removeprefix("error: ")]) + body
            continue
        if edited == original_doc:
            sys.stderr.write("Edit cancelled, no changes made.\n")
            return 0
        failures = _save(sess, args, originals, edited)
        if not failures:
            return 0
        errors_shown = [summary for summary, _ in failures]
        text = HEADER + "".join(_comment(lines) for _, lines in failures) + body


def _fetch(sess, args) -> list:
    from kubelite.cli.label import latest_objects

    args.field_selector = None
    args.all = False
    errors: list = []
    found, _ = latest_objects(sess, args, args.args, "edit", errors)
    if errors:
        raise errors[0]
    return found


def _document(objects: list[dict]) -> dict:
    shown = [_without_managed_fields(obj) for obj in objects]
    if len(shown) == 1:
        return shown[0]
    return {"apiVersion": "v1", "items": shown, "kind": "List", "metadata": {}}


def _without_managed_fields(obj: dict) -> dict:
    meta = dict(obj.get("metadata") or {})
    meta.pop("managedFields", None)
    return {**obj, "metadata": meta}


def _serialize(doc: dict, output: str) -> str:
    from kubelite.manifest import to_json, to_yaml

    return to_yaml(doc) if output == "yaml" else to_json(doc)


def _parse(text: str, output: str) -> dict:
    from kubelite.manifest._goyaml import decode_yaml

    try:
        value = decode_yaml(text)
    except Exception as err:  # noqa: BLE001 - the decoder's own error type
        raise common.CommandError(f"error: {getattr(err, 'message', None) or err}") from None
    if not isinstance(value, dict):
        raise common.CommandError("error: the edited file must hold an object")
    return value


def _run_editor(text: str, output: str) -> str:
    import subprocess

    fd, path = tempfile.mkstemp(prefix="kubelite-edit-", suffix="." + output)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        command = editor_command()
        argv = command[:-1] + [f"{command[-1]} {path}"] if command[0] == "sh" else command + [path]
        try:
            code = subprocess.call(argv)
        except OSError as err:
            raise common.CommandError(f"error: there was a problem with the editor \"{' '.join(command)}\": "
                                      f"{err.strerror or err}") from None
        if code != 0:
            raise common.CommandError(f"error: there was a problem with the editor \"{' '.join(command)}\"")
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass


def _keep_copy(text: str, output: str) -> str:
    fd, path = tempfile.mkstemp(prefix="kubectl-edit-", suffix="." + output)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path


def _comment(lines: list[str]) -> str:
    return "".join(f"# {line}\n" for text in lines for line in text.split("\n")) + "#\n"


def _save(sess, args, originals: list, edited: dict) -> list:
    """Patch each changed object; the (summary line, comment lines) of each failure."""
    from kubelite.client.dynamic import WriteParams
    from kubelite.client.errors import ClientError

    items = edited.get("items") if len(originals) > 1 else [edited]
    if not isinstance(items, list) or len(items) != len(originals):
        return [("error: the number of objects must not change while editing",
                 ["the number of objects must not change while editing"])]
    failures = []
    params = WriteParams(field_manager=args.field_manager, field_validation=args.field_validation)
    for (request, before), after in zip(originals, items):
        shown_before = _without_managed_fields(before)
        if not isinstance(after, dict) or after == shown_before:
            continue
        if args.save_config:
            after = common.annotated(after, True)
        name = (before.get("metadata") or {}).get("name", "")
        if (after.get("metadata") or {}).get("name") != name or after.get("kind") != before.get("kind"):
            text = "At least one of apiVersion, kind and name was changed"
            failures.append((f"error: {text}", [text]))
            continue
        try:
            patch, patch_type = common.two_way_patch(shown_before, after)
            if args.output_patch:
                from kubelite.manifest.jsonfmt import to_compact_json

                sys.stdout.write(f"Patch: {to_compact_json(patch)}\n")
            result = sess.client.patch(request.resource, request.namespace, name, patch, patch_type, params,
                                       subresource=args.subresource or None)
        except ClientError as err:
            failures.append(_failure(err, request, name))
            continue
        sys.stdout.write(common.success_line(result, "edited", "none"))
        sys.stdout.flush()
    return failures


def _failure(err, request, name: str) -> tuple[str, list[str]]:
    from kubelite.client.errors import ApiError

    resource = request.resource.resource + (f".{request.resource.group}" if request.resource.group else "")
    if isinstance(err, ApiError) and err.reason == "Invalid":
        causes = [c for c in (err.details.get("causes") or []) if isinstance(c, dict)]
        lines = [f'{resource} "{name}" was not valid:']
        lines += [f"* {c.get('field')}: {c.get('message', '')}" if c.get("field") else f"* {c.get('message', '')}"
                  for c in causes] or [f"* {err.message}"]
        return f'error: {resource} "{name}" is invalid', lines
    message = common.error_message(err)
    return message, [message]
