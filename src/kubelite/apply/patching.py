"""The patch `kubectl apply` sends to update a live object (client-side apply).

Kinds the server accepts strategic merge patches for (built-in kinds) get a three-way
strategic merge patch computed with their schema; everything else (custom resources) gets a
three-way JSON merge patch, which is what kubectl falls back to. The patch is empty when the
live object already holds what the file says: kubectl then reports `unchanged`.
"""
from __future__ import annotations

from kubelite.record import FrozenRecord

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any, Callable

STRATEGIC = "application/strategic-merge-patch+json"
MERGE = "application/merge-patch+json"



class ApplyPatchError(ValueError):
    """The patch could not be computed (kubectl's "creating patch with" failures)."""


class Patch(FrozenRecord):
    content_type: str
    body: dict

    @property
    def empty(self) -> bool:
        return not self.body

    def text(self) -> str:
        """The bytes kubectl sends (Go's json.Marshal of the patch map)."""
        from kubelite.patch.strategic import to_json

        return to_json(self.body)


def builtin_schema(api_version: str, kind: str) -> Any:
    from kubelite.schema import for_kind

    return for_kind(api_version, kind)


def three_way(original: dict | None, modified: dict, current: dict, *, overwrite: bool = True,
              schema_for: Callable[[str, str], Any] = builtin_schema, disposable: bool = False) -> Patch:
    """The apply patch: deletions from original -> modified, changes from current -> modified
    (`disposable`: original and modified are copies made for this call, see create_three_way)."""
    from kubelite.patch import PatchError

    api_version = str(modified.get("apiVersion") or "")
    kind = str(modified.get("kind") or "")
    schema = schema_for(api_version, kind)
    try:
        if schema is not None:
            from kubelite.patch import strategic

            body = strategic.create_three_way(original, modified, current, schema, overwrite=overwrite,
                                              disposable=disposable)
            return Patch(STRATEGIC, body)
        from kubelite.patch import merge_patch

        body = merge_patch.create_three_way(original, modified, current, overwrite=overwrite)
        _require_same_identity(body)
        return Patch(MERGE, body)
    except PatchError as err:
        raise ApplyPatchError(str(err)) from None


def _require_same_identity(patch: dict) -> None:
    # apimachinery's merge-patch preconditions: the patch may not change what names the object
    metadata = patch.get("metadata")
    if "apiVersion" in patch or "kind" in patch or (isinstance(metadata, dict) and "name" in metadata):
        raise ApplyPatchError("At least one of apiVersion, kind and name was changed")
