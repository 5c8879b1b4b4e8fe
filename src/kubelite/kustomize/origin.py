"""buildMetadata: originAnnotations."""
from __future__ import annotations


def add_origin_annotations(resmap) -> None:
    for res in resmap:
        if res.origin:
            lines = "".join(f"{k}: {v}\n" for k, v in res.origin.items())
            res.meta.setdefault("annotations", {})["config.kubernetes.io/origin"] = lines
