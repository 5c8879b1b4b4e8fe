"""buildMetadata: where each resource came from and which transformers touched it.

Origins are tracked only when the top kustomization has a `buildMetadata` list
(Kustomize starts its origin at the top and threads it down into bases and
components). A resource origin is a path joined from the `resources:` entries on
the way down; a generator or transformer origin names the file that configured
it (`configuredIn`) and the plugin (`configuredBy`). Kustomize keeps them as
annotations during the build; here they are Resource attributes written out at
the end, as Kustomize leaves them when the option asks for them.
"""
from __future__ import annotations

import posixpath

ORIGIN_ANNOTATION = "config.kubernetes.io/origin"
TRANSFORMATIONS_ANNOTATION = "alpha.config.kubernetes.io/transformations"
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
# The version kubectl's vendored Kustomize reports (no module build info).
MANAGED_BY_VALUE = "kustomize-(devel)"

_ORIGIN_KEYS = ("path", "repo", "ref", "configuredIn", "configuredBy")
_ID_KEYS = ("apiVersion", "kind", "name", "namespace")


def go_join(*parts: str) -> str:
    """filepath.Join: the non-empty parts joined and cleaned ("" when all are empty)."""
    kept = [p for p in parts if p]
    return posixpath.normpath(posixpath.join(*kept)) if kept else ""


def append(origin: dict, path: str) -> dict:
    """The origin of something found at `path` below `origin`'s directory."""
    out = dict(origin)
    out["path"] = go_join(origin.get("path", ""), path)
    return out


def configured(origin: dict, file: str, api_version: str, kind: str, name: str = "", namespace: str = "") -> dict:
    """The origin of a generator or transformer configured in `file` (relative to origin's path)."""
    out = {k: origin[k] for k in ("repo", "ref") if origin.get(k)}
    out["configuredIn"] = go_join(origin.get("path", ""), file)
    out["configuredBy"] = {"apiVersion": api_version, "kind": kind, "name": name, "namespace": namespace}
    return out


def from_plugin_config(config_origin: dict | None, config: dict) -> dict | None:
    """The origin of a plugin configured by a resource (the `generators:`/`transformers:` entries)."""
    if config_origin is None:
        return None
    meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
    out = {k: config_origin[k] for k in ("repo", "ref") if config_origin.get(k)}
    out["configuredIn"] = config_origin.get("path", "")
    out["configuredBy"] = {"apiVersion": _s(config.get("apiVersion")), "kind": _s(config.get("kind")),
                           "name": _s(meta.get("name")), "namespace": _s(meta.get("namespace"))}
    return out


def _s(value: object) -> str:
    return value if isinstance(value, str) else ""


def record_transformer(resmap, origin: dict | None) -> None:
    """After a transformer ran: every resource gets it as a transformation (or as its
    origin, when it has none: Kustomize takes the transformer to have made it)."""
    if origin is None:
        return
    for res in resmap:
        if res.origin is None:
            res.origin = origin
        else:
            res.transformations.append(origin)


def record_generated(resources: list, origin: dict | None) -> None:
    if origin is None:
        return
    for res in resources:
        if res.origin is None:
            res.origin = origin


# -- writing ---------------------------------------------------------------------------
def _scalar(value: str) -> str:
    from kubelite.manifest import to_yaml

    return to_yaml({"v": value})[3:-1]


def _mapping_lines(origin: dict) -> list[str]:
    lines = []
    for key in _ORIGIN_KEYS:
        value = origin.get(key)
        if not value:
            continue
        if key == "configuredBy":
            fields = [(k, value.get(k)) for k in _ID_KEYS if value.get(k)]
            if not fields:
                continue
            lines.append("configuredBy:")
            lines.extend(f"  {k}: {_scalar(v)}" for k, v in fields)
        else:
            lines.append(f"{key}: {_scalar(value)}")
    return lines


def origin_text(origin: dict) -> str:
    return "".join(line + "\n" for line in _mapping_lines(origin))


def transformations_text(transformations: list) -> str:
    out = []
    for origin in transformations:
        lines = _mapping_lines(origin) or ["{}"]
        out.append("- " + lines[0] + "\n")
        out.extend("  " + line + "\n" for line in lines[1:])
    return "".join(out)


def _annotate(res, key: str, value: str) -> None:
    annotations = res.meta.get("annotations")
    if not isinstance(annotations, dict):
        annotations = {}
        res.meta["annotations"] = annotations
    annotations[key] = value


def write_annotations(resmap, origins: bool, transformations: bool) -> None:
    for res in resmap:
        if origins and res.origin is not None:
            _annotate(res, ORIGIN_ANNOTATION, origin_text(res.origin))
        if transformations and res.transformations:
            _annotate(res, TRANSFORMATIONS_ANNOTATION, transformations_text(res.transformations))


def add_managed_by_label(resmap) -> None:
    for res in resmap:
        labels = res.meta.get("labels")
        if not isinstance(labels, dict):
            labels = {}
            res.meta["labels"] = labels
        labels[MANAGED_BY_LABEL] = MANAGED_BY_VALUE
