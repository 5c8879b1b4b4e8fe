"""The List kubectl prints when ``-o yaml``/``-o json`` has several objects."""
from __future__ import annotations

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Iterable


def as_list(objects: Iterable[dict]) -> dict:
    """``{apiVersion: v1, kind: List, items: [...], metadata: {resourceVersion: ""}}``.

    The objects are included as they are (not copied).
    """
    return {
        "apiVersion": "v1",
        "items": list(objects),
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    }
