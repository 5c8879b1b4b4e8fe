"""`diff`: what apply would change, shown as a unified diff of live and merged objects.

The merged object is the server's answer to a dry-run of exactly what apply would send (a
dry-run create for a new object, the three-way patch with the live resourceVersion as a
precondition otherwise). Like kubectl, the configuration written for the diff carries no new
last-applied annotation. Objects are written as YAML to files named
`group.version.kind.namespace.name` in a LIVE-* and a MERGED-* temporary directory and compared
with $KUBECTL_EXTERNAL_DIFF or `diff -u -N`.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from kubelite.apply import lastapplied
from kubelite.apply.patching import three_way

MAX_RETRIES = 4
MASK, MASK_BEFORE, MASK_AFTER = "***", "*** (before)", "*** (after)"


@dataclass
class Pair:
    name: str
    live: dict | None
    merged: dict | None


def file_name(resource, namespace: str, name: str) -> str:
    group = f"{resource.group}." if resource.group else ""
    return f"{group}{resource.version}.{resource.kind}.{namespace}.{name}"


def local_configuration(config: dict) -> dict:
    """GetModifiedConfiguration without annotating: the file's object, annotation key removed."""
    import json

    return json.loads(lastapplied.configuration_text(config))


def merged_object(applier, item, live: dict | None, force: bool, server_side: bool = False) -> dict:
    """The object as it would be after apply, answered by a server-side dry run."""
    from kubelite.client.dynamic import WriteParams

    if server_side:
        from kubelite.apply.serverside import dry_run_apply

        return dry_run_apply(applier, item, force)
    client, r, ns = applier.session.client, item.resource, item.namespace or None
    params = WriteParams(dry_run=True, field_manager=applier.options.field_manager)
    if live is None:
        return client.create(r, ns, lastapplied.prune_nulls(item.obj), params)
    original = lastapplied.parse_original(lastapplied.original_configuration(live))
    patch = three_way(original, local_configuration(item.obj), live, schema_for=applier.schema_for)
    if patch.empty:
        return live
    body = dict(patch.body)
    if not force:
        body["metadata"] = {**(body.get("metadata") or {}),
                            "resourceVersion": (live.get("metadata") or {}).get("resourceVersion", "")}
    from kubelite.patch.strategic import to_json

    return client.patch(r, ns, item.name, to_json(body), patch.content_type, params)


def diff_item(applier, item, server_side: bool = False, force_conflicts: bool = False, warn=None) -> Pair:
    """Live and merged versions of one configuration object (retrying on conflicts)."""
    from kubelite.client.errors import ApiError, is_not_found

    applier.resolve(item)
    client = applier.session.client
    for attempt in range(1, MAX_RETRIES + 1):
        try:
            live = client.get(item.resource, item.name, item.namespace or None)
        except ApiError as err:
            if not is_not_found(err):
                raise
            live = None
        if attempt == MAX_RETRIES and warn is not None:
            from kubelite.apply.run import klog_warning

            r = item.resource
            warn(klog_warning("diff.go:723", f"Object ({r.group}/{r.version}, Kind={r.kind}: {item.name}) keeps "
                                             "changing, diffing without lock"))
        try:
            merged = merged_object(applier, item, live, force=force_conflicts if server_side else
                                   attempt == MAX_RETRIES, server_side=server_side)
        except ApiError as err:
            if err.reason == "Conflict" and attempt < MAX_RETRIES:
                continue
            raise
        return Pair(file_name(item.resource, item.namespace, item.name), live, merged)
    raise AssertionError("unreachable")


def presentable(pair: Pair, show_managed_fields: bool = False, show_secrets: bool = False) -> Pair:
    """managedFields dropped and Secret data masked, as kubectl diff prints them."""
    live, merged = _strip(pair.live, show_managed_fields), _strip(pair.merged, show_managed_fields)
    target = merged or {}
    if not show_secrets and target.get("apiVersion") == "v1" and target.get("kind") == "Secret":
        live, merged = mask_secrets(live, merged)
    return Pair(pair.name, live, merged)


def _strip(obj: dict | None, keep: bool) -> dict | None:
    if obj is None or keep:
        return obj
    metadata = obj.get("metadata")
    if isinstance(metadata, dict) and "managedFields" in metadata:
        obj = {**obj, "metadata": {k: v for k, v in metadata.items() if k != "managedFields"}}
    return obj


def mask_secrets(before: dict | None, after: dict | None) -> tuple[dict | None, dict | None]:
    """kubectl's Masker: every data value becomes *** (with before/after marks when changed)."""
    old = dict((before or {}).get("data") or {}) if before else None
    new = dict((after or {}).get("data") or {}) if after else None
    old_keys = list(old or {})
    for key in old_keys:
        if new is not None and key in new:
            if old[key] != new[key]:
                old[key], new[key] = MASK_BEFORE, MASK_AFTER
                continue
            new[key] = MASK
        old[key] = MASK
    for key in list(new or {}):
        if old is None or key not in old:
            new[key] = MASK
    if before is not None and before.get("data") is not None:
        before = {**before, "data": old}
    if after is not None and after.get("data") is not None:
        after = {**after, "data": new}
    return before, after


def write_versions(pairs: list[Pair]) -> tuple[str, str]:
    from kubelite.manifest import to_yaml

    live_dir, merged_dir = tempfile.mkdtemp(prefix="LIVE-"), tempfile.mkdtemp(prefix="MERGED-")
    for pair in pairs:
        for directory, obj in ((live_dir, pair.live), (merged_dir, pair.merged)):
            with open(os.path.join(directory, pair.name), "w", encoding="utf-8") as f:
                if obj is not None:
                    f.write(to_yaml(obj))
    return live_dir, merged_dir


def diff_command(live_dir: str, merged_dir: str) -> list[str]:
    """$KUBECTL_EXTERNAL_DIFF (program plus its plain-word options) or `diff -u -N`."""
    external = os.environ.get("KUBECTL_EXTERNAL_DIFF", "")
    if external:
        words = external.split(" ")
        options = [w for w in words[1:] if re.fullmatch(r"[a-zA-Z0-9=-]+", w)]
        return [words[0], *options, live_dir, merged_dir]
    return ["diff", "-u", "-N", live_dir, merged_dir]


def run_diff(live_dir: str, merged_dir: str, stdout, stderr) -> int:
    argv = diff_command(live_dir, merged_dir)
    try:
        proc = subprocess.run(argv, capture_output=True)
    except OSError as err:
        stderr.write(f'error: failed to run "{argv[0]}": {err.strerror or err}\n')
        return 1
    stdout.write(proc.stdout.decode("utf-8", "replace"))
    stdout.flush()
    stderr.write(proc.stderr.decode("utf-8", "replace"))
    return proc.returncode


def diff_manifests(session, manifests, options, stdout, stderr, *, show_managed_fields: bool = False,
                   show_secrets: bool = False, server_side: bool = False, force_conflicts: bool = False) -> int:
    """Diff each manifest's live and merged versions; the diff program's exit status."""
    from kubelite.apply.engine import Applier

    applier = Applier(session, options)
    def warn(line: str) -> None:
        stderr.write(line + "\n")

    pairs, failed, first_error = [], set(), None
    for item in applier.prepare(manifests):
        # kubectl visits each file on its own: an error ends that file's objects, the other
        # files are still diffed, and the first error is reported instead of running diff
        if item.source in failed:
            continue
        try:
            pairs.append(presentable(diff_item(applier, item, server_side, force_conflicts, warn),
                                     show_managed_fields, show_secrets))
        except Exception as err:  # noqa: BLE001 - re-raised below, after the other files
            failed.add(item.source)
            first_error = first_error or err
    if first_error is not None:
        raise first_error
    live_dir, merged_dir = write_versions(pairs)
    try:
        return run_diff(live_dir, merged_dir, stdout, stderr)
    finally:
        cleanup(live_dir, merged_dir)


def cleanup(*dirs: str) -> None:
    for directory in dirs:
        shutil.rmtree(directory, ignore_errors=True)
