"""The List kubectl prints when ``-o yaml``/``-o json`` has several objects."""
from __future__ import annotations

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
