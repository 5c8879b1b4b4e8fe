"""The editor loop of `create --edit` (kubectl's edit-before-create mode).

The objects are written to a temporary file behind a comment header, the user's editor
($KUBE_EDITOR, $EDITOR, else vi) runs on it, and the result is read back. An unchanged or
empty file cancels. Unparsable text reopens the file with the reason in the header; when `save`
(the caller's create step) fails, a copy of the edits is kept and the failure reported.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from typing import Callable

from kubelite.cli import common

_HEADER = ("# Edit the object(s) below, then save and quit to create them.\n"
           "# Lines starting with '#' are ignored; saving an empty file cancels.\n"
           "# If creating fails, this file opens again with the reasons at the top.\n"
           "#\n")


def editor_command() -> list[str]:
    editor = os.environ.get("KUBE_EDITOR") or os.environ.get("EDITOR") or "vi"
    return shlex.split(editor)


def _serialize(objects: list[dict], as_json: bool) -> str:
    from kubelite.manifest import as_list, to_json, to_yaml

    doc = objects[0] if len(objects) == 1 else as_list(objects)
    return to_json(doc) if as_json else to_yaml(doc)


def _strip_comments(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.lstrip().startswith("#"))


def _run_editor(path: str) -> None:
    try:
        code = subprocess.call(editor_command() + [path])
    except OSError as err:
        raise common.CommandError(f"error: there was a problem with the editor {editor_command()!r}: {err}") \
            from None
    if code != 0:
        raise common.CommandError(f"error: there was a problem with the editor {editor_command()!r}")


def _read_objects(text: str) -> list[dict]:
    from kubelite.manifest import read_text

    return [m.obj for m in read_text(text, "edited file")]


def edit_then_save(objects: list[dict], save: Callable[[list[dict]], None], *, as_json: bool = False) -> int:
    """Edit `objects`, then call `save` with what the user wrote (0 or 1, as kubectl exits).

    Text that does not parse reopens the editor with the reason on top; saving it unchanged again
    gives up. A failing `save` is not retried: the edits are kept in a file, as kubectl keeps them.
    """
    body = _serialize(objects, as_json)
    suffix = ".json" if as_json else ".yaml"
    fd, path = tempfile.mkstemp(prefix="kubelite-edit-", suffix=suffix)
    os.close(fd)
    problems: list[str] = []
    try:
        while True:
            header = _HEADER + "".join(f"# {line}\n" for p in problems for line in p.splitlines()) + \
                ("#\n" if problems else "")
            with open(path, "w", encoding="utf-8") as f:
                f.write(header + body)
            _run_editor(path)
            with open(path, encoding="utf-8") as f:
                edited = _strip_comments(f.read())
            if not edited.strip():
                raise common.CommandError("error: Edit cancelled, saved file was empty.")
            if edited == body:
                if problems:
                    _keep_copy(edited, suffix)
                    raise common.CommandError("error: Edit cancelled, no valid changes were saved.")
                sys.stderr.write("Edit cancelled, no changes made.\n")
                return 0
            try:
                parsed = _read_objects(edited)
            except Exception as err:  # noqa: BLE001 - shown to the user in the reopened file
                problems = [common.error_message(err)]
                body = edited
                continue
            try:
                save(parsed)
            except Exception:
                _keep_copy(edited, suffix)
                raise
            return 0
    finally:
        os.unlink(path)


def _keep_copy(edited: str, suffix: str) -> None:
    fd, kept = tempfile.mkstemp(prefix="kubelite-edit-", suffix=suffix)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(edited)
    sys.stderr.write(f'A copy of your changes has been stored to "{kept}"\n')


def create_objects(args, objects: list[dict], output, dry_run: str) -> None:
    """Create edited objects as `create -f` would (stopping at the first failure, for the editor)."""
    sess = common.session(args)
    params = common.write_params(args, "kubectl-create", dry_run)
    printer = common.ObjectPrinter(output) if output.kind else None
    for obj in objects:
        info = sess.discovery.for_kind(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""))
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        namespace = (meta.get("namespace") or sess.namespace) if info.namespaced else None
        if namespace and meta.get("namespace") != namespace:
            obj = {**obj, "metadata": {**meta, "namespace": namespace}}
        obj = common.annotated(obj, args.save_config)
        created = obj if dry_run == "client" else sess.client.create(info, namespace, obj, params)
        if printer is not None:
            printer.print(created)
        else:
            sys.stdout.write(common.success_line(created, "created", dry_run))
            sys.stdout.flush()


def create_edited(args) -> int:
    """`create --edit -f FILE|URL`: edit what the files hold, then create it."""
    from kubelite.manifest import read_sources

    output = common.output_of(args)
    dry_run = common.dry_run_mode(args)
    objects = [m.obj for m in read_sources(args.filename, recursive=args.recursive, verb="create")]
    as_json = output.kind == "json"
    return edit_then_save(objects, lambda edited: create_objects(args, edited, output, dry_run), as_json=as_json)
