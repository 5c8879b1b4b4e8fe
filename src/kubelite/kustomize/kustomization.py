"""Reading and checking a kustomization file."""
from __future__ import annotations

from .errors import KustomizeError

FIELDS = frozenset("""apiVersion kind metadata openapi namePrefix nameSuffix namespace commonLabels labels
    commonAnnotations patchesStrategicMerge patchesJson6902 patches images imageTags replacements replicas vars
    sortOptions resources components crds bases configMapGenerator secretGenerator helmGlobals helmCharts
    helmChartInflationGenerator generatorOptions configurations generators transformers validators
    buildMetadata""".split())

_FIELDS_BY_LOWER = {f.lower(): f for f in FIELDS}

KUSTOMIZATION_API = "kustomize.config.k8s.io/v1beta1"
COMPONENT_API = "kustomize.config.k8s.io/v1alpha1"

_DEPRECATION = {
    "bases": "'bases' is deprecated. Please use 'resources' instead.",
    "commonLabels": "'commonLabels' is deprecated. Please use 'labels' instead.",
    "imageTags": "'imageTags' is deprecated. Please use 'images' instead.",
    "patchesJson6902": "'patchesJson6902' is deprecated. Please use 'patches' instead.",
    "patchesStrategicMerge": "'patchesStrategicMerge' is deprecated. Please use 'patches' instead.",
    "vars": "'vars' is deprecated. Please use 'replacements' instead. [EXPERIMENTAL]",
}


_SELECTOR = {"group": None, "version": None, "kind": None, "name": None, "namespace": None,
             "labelSelector": None, "annotationSelector": None, "gvk": None}
_GEN_OPTIONS = {"labels": None, "annotations": None, "disableNameSuffixHash": None, "immutable": None}
_GENERATOR = {"name": None, "namespace": None, "behavior": None, "files": None, "literals": None, "envs": None,
              "env": None, "options": _GEN_OPTIONS}
# Nested struct fields checked strictly, as Go's decoder does (None: not a struct).
_STRUCTS = {
    "generatorOptions": _GEN_OPTIONS,
    "patchesJson6902": [{"target": _SELECTOR, "path": None, "patch": None}],
    "patches": [{"path": None, "patch": None, "target": _SELECTOR,
                 "options": {"allowNameChange": None, "allowKindChange": None}}],
    "configMapGenerator": [_GENERATOR],
    "secretGenerator": [dict(_GENERATOR, type=None)],
    "images": [{"name": None, "newName": None, "newTag": None, "digest": None, "tagSuffix": None}],
    "replicas": [{"name": None, "count": None}],
    "labels": [{"pairs": None, "includeSelectors": None, "includeTemplates": None, "fields": None}],
    "vars": [{"name": None, "objref": {"kind": None, "name": None, "apiVersion": None, "group": None,
                                        "version": None, "namespace": None},
              "fieldref": {"fieldpath": None}}],
    "sortOptions": {"order": None, "legacySortOptions": {"orderFirst": None, "orderLast": None}},
}


def _check_struct(value: object, shape: object) -> None:
    if shape is None or value is None:
        return
    if isinstance(shape, list):
        if isinstance(value, list):
            for item in value:
                _check_struct(item, shape[0])
        return
    if not isinstance(value, dict):
        return
    known = {k.lower(): k for k in shape}
    for key in value:
        name = known.get(str(key).lower())
        if name is None:
            raise KustomizeError(f'invalid Kustomization: json: unknown field "{key}"')
        _check_struct(value[key], shape[name])


def parse(text: str, path: str) -> dict:
    from kubelite.manifest._goyaml import decode_yaml

    try:
        data = decode_yaml(text)
    except Exception as exc:  # the decoder's own error type
        raise KustomizeError(f"invalid Kustomization: {exc}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise KustomizeError(f"invalid Kustomization: json: cannot unmarshal {type(data).__name__} into Go value of type types.Kustomization")
    # Go's encoding/json matches field names ignoring case (patchesJSON6902 is patchesJson6902)
    canonical = {}
    for key, value in data.items():
        name = key if key in FIELDS else _FIELDS_BY_LOWER.get(str(key).lower())
        if name is None:
            raise KustomizeError(f'invalid Kustomization: json: unknown field "{key}"')
        canonical[name] = value
    data = canonical
    for key, shape in _STRUCTS.items():
        _check_struct(data.get(key), shape)
    return data


def warnings(k: dict) -> list[str]:
    return [f"# Warning: {msg} Run 'kustomize edit fix' to update your Kustomization automatically."
            for key, msg in _DEPRECATION.items() if k.get(key)]


def check_kind(k: dict, path: str, want_component: bool | None) -> None:
    kind = k.get("kind") or "Kustomization"
    api = k.get("apiVersion") or ""
    if kind == "Component":
        if api != COMPONENT_API:
            raise KustomizeError(f"apiVersion for Component should be {COMPONENT_API}")
    elif kind != "Kustomization":
        raise KustomizeError(f"kind should be Kustomization or Component")


def as_list(k: dict, key: str) -> list:
    value = k.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise KustomizeError(f"invalid Kustomization: field '{key}' must be a list")
    return value


def as_map(k: dict, key: str) -> dict:
    value = k.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise KustomizeError(f"invalid Kustomization: field '{key}' must be a map")
    return value
