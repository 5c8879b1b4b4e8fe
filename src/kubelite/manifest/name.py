"""The ``-o name`` printer: ``kind.group/name`` lines, as kubectl prints them."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any, Iterable

__all__ = ["NamePrinterError", "group_kind", "resource_name", "render"]


class NamePrinterError(ValueError):
    """An object that ``-o name`` cannot print; the message is kubectl's."""


def group_kind(api_version: str, kind: str) -> str:
    """``deployment.apps`` for apps/v1 Deployment, ``pod`` for v1 Pod."""
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    lowered = kind.lower()
    return f"{lowered}.{group}" if group else lowered


def resource_name(obj: dict, operation: str = "") -> str:
    """One line's text (without newline): ``kind[.group]/name[ operation]``."""
    if not isinstance(obj, dict):
        raise NamePrinterError(f"cannot print {type(obj).__name__} by name: not an object")
    api_version = obj.get("apiVersion") or ""
    kind = obj.get("kind") or ""
    if not isinstance(api_version, str) or not isinstance(kind, str):
        raise NamePrinterError("apiVersion and kind must be strings")
    if not api_version and not kind:
        raise NamePrinterError(
            "missing apiVersion or kind; try GetObjectKind().SetGroupVersionKind() if you know the type"
        )
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if not isinstance(name, str) or not name:
        name = "<unknown>"
    suffix = f" {operation}" if operation else ""
    # kubectl falls back to a bare "<unknown>" kind (no group) when only kind is missing.
    prefix = group_kind(api_version, kind) if kind else "<unknown>"
    return f"{prefix}/{name}{suffix}"


def _is_list(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("items"), list)


def render(objects: Any, operation: str = "") -> str:
    """Print an object, a List (its items), or an iterable of objects by name."""
    if isinstance(objects, dict):
        objects = [objects]
    lines: list[str] = []
    for obj in _flatten(objects):
        lines.append(resource_name(obj, operation) + "\n")
    return "".join(lines)


def _flatten(objects: Iterable[Any]) -> Iterable[Any]:
    for obj in objects:
        if _is_list(obj):
            yield from _flatten(obj["items"])
        else:
            yield obj
