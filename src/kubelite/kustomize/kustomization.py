"""Reading and checking a kustomization file."""
from __future__ import annotations

from .errors import KustomizeError

FIELDS = frozenset("""apiVersion kind metadata openapi namePrefix nameSuffix namespace commonLabels labels
    commonAnnotations patchesStrategicMerge patchesJson6902 patches images imageTags replacements replicas vars
    sortOptions resources components crds bases configMapGenerator secretGenerator helmGlobals helmCharts
    helmChartInflationGenerator generatorOptions configurations generators transformers validators
    buildMetadata""".split())

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
    for key in data:
        if key not in FIELDS:
            raise KustomizeError(f'invalid Kustomization: json: unknown field "{key}"')
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
