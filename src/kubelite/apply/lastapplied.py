"""The `kubectl.kubernetes.io/last-applied-configuration` annotation, computed as kubectl does.

kubectl serialises the configuration-file object (after it filled in the namespace) without
the annotation, as Go's `json.Marshal` writes a map (compact, keys sorted, `<>&` escaped) plus
the newline of its JSON encoder. The annotations map is always written back, so an object
without annotations gets `"annotations":{}` in the text. The same text is then embedded in the
object ("modified") so that it travels in the same create or patch.
"""
from __future__ import annotations

import json
TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# kube-apiserver's limit on the total size of an object's annotations
MAX_ANNOTATIONS_BYTES = 262144


class ConfigurationError(ValueError):
    """The configuration object cannot be serialised as kubectl would."""


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def encode(obj: Any) -> str:
    """Go's json.Marshal of a decoded object, with the encoder's final newline."""
    from kubelite.patch import PatchError
    from kubelite.patch.strategic import to_json

    try:
        return to_json(obj) + "\n"
    except PatchError as err:
        raise ConfigurationError(str(err)) from None


def _annotations(obj: dict) -> dict:
    metadata = obj.get("metadata")
    if metadata is None:
        metadata = obj["metadata"] = {}
    if not isinstance(metadata, dict):
        raise ConfigurationError(".metadata accessor error: must be an object")
    annotations = metadata.get("annotations")
    if annotations is None:
        annotations = {}
    elif not isinstance(annotations, dict) or not all(isinstance(v, str) for v in annotations.values()):
        raise ConfigurationError(".metadata.annotations accessor error: must be a map of strings")
    else:
        annotations = dict(annotations)
    metadata["annotations"] = annotations
    return annotations


def configuration_text(obj: dict) -> str:
    """The annotation's value for a configuration object: the object without the annotation."""
    # Only the top, metadata and annotations are copied: the encoding writes the rest as it is.
    stripped = dict(obj)
    metadata = stripped.get("metadata")
    if isinstance(metadata, dict):
        stripped["metadata"] = dict(metadata)
    _annotations(stripped).pop(LAST_APPLIED, None)
    return encode(stripped)


def modified_configuration(obj: dict) -> tuple[dict, str]:
    """(object carrying its own annotation, annotation text): kubectl's "modified" document.

    The returned object keeps explicit nulls: they belong in the three-way patch (they clear
    live fields) and in the annotation.
    """
    text = configuration_text(obj)
    modified = _copy(obj)
    _annotations(modified)[LAST_APPLIED] = text
    return modified, text


def object_to_create(obj: dict, modified: dict | None = None) -> dict:
    """What `kubectl apply` POSTs for a new object: the annotation set, nulls dropped (from
    `modified`, the object's modified_configuration, when the caller has it)."""
    if modified is None:
        modified, _ = modified_configuration(obj)
    return prune_nulls(modified)


def prune_nulls(value: Any) -> Any:
    """Drop null members of objects at any depth (list items stay, as kubectl leaves them)."""
    if isinstance(value, dict):
        return {k: prune_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [prune_nulls(v) for v in value]
    return value


def original_configuration(live: dict) -> str | None:
    """The annotation of a live object, or None when it has none."""
    annotations = (live.get("metadata") or {}).get("annotations") or {}
    value = annotations.get(LAST_APPLIED) if isinstance(annotations, dict) else None
    return value if isinstance(value, str) else None


def parse_original(text: str | None) -> dict | None:
    """The last-applied document as a dict; an empty annotation counts as none."""
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        raise ConfigurationError(f"invalid {LAST_APPLIED} annotation: not JSON") from None
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigurationError(f"invalid {LAST_APPLIED} annotation: not a JSON object")
    return value


# -- the last-applied commands ---------------------------------------------------------------

def view_text(annotation: str, output: str) -> str:
    """`apply view-last-applied` output: the annotation as YAML, or JSON indented by two spaces."""
    if output == "json":
        return go_indent(annotation)
    from kubelite.manifest import to_yaml

    value = json.loads(annotation)
    return to_yaml(value) if value is not None else "null\n"


def go_indent(text: str, indent: str = "  ") -> str:
    """Go's json.Indent: the same tokens, one member per line; leading space dropped, trailing kept."""
    out: list[str] = []
    depth = 0
    in_string = escaped = False
    pending_newline = False
    body = text.lstrip(" \t\r\n")
    stripped = body.rstrip(" \t\r\n")
    trailing = body[len(stripped):]
    for ch in stripped:
        if in_string:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch in " \t\r\n":
            continue
        if pending_newline and ch not in "]}":
            out.append("\n" + indent * depth)
        if pending_newline and ch in "]}":
            depth -= 1
            pending_newline = False
            out.append(ch)
            continue
        pending_newline = False
        if ch == '"':
            in_string = True
            out.append(ch)
        elif ch in "{[":
            out.append(ch)
            depth += 1
            pending_newline = True
        elif ch in "]}":
            depth -= 1
            out.append("\n" + indent * depth + ch)
        elif ch == ",":
            out.append(",\n" + indent * depth)
        elif ch == ":":
            out.append(": ")
        else:
            out.append(ch)
    return "".join(out) + trailing


def set_last_applied_text(obj: dict) -> str:
    """What `apply set-last-applied` / `edit-last-applied` store: the object as it is (no
    annotation stripping, no `annotations:{}`), compact sorted JSON with the final newline."""
    return encode(obj)


def annotation_patch(text: str) -> dict:
    """The merge patch that sets the annotation to `text`."""
    return {"metadata": {"annotations": {LAST_APPLIED: text}}}
