"""Reading and checking a kustomization file."""
from __future__ import annotations

from kubelite.schema.gojson import json_kind

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


# Go types of the Kustomization's fields, for json's type errors.
_STR_LIST = "[]string"
_FIELD_TYPES = {
    **{f: _STR_LIST for f in "resources components crds bases configurations generators transformers validators "
                             "buildMetadata".split()},
    **{f: "string" for f in ("apiVersion", "kind", "namePrefix", "nameSuffix", "namespace")},
    **{f: "map[string]string" for f in ("commonLabels", "commonAnnotations", "openapi")},
    "patchesStrategicMerge": "[]types.PatchStrategicMerge", "labels": "[]types.Label",
    "patchesJson6902": "[]types.Patch", "patches": "[]types.Patch", "images": "[]types.Image",
    "imageTags": "[]types.Image", "replacements": "[]types.ReplacementField", "replicas": "[]types.Replica",
    "vars": "[]types.Var", "sortOptions": "types.SortOptions", "configMapGenerator": "[]types.ConfigMapArgs",
    "secretGenerator": "[]types.SecretArgs", "generatorOptions": "types.GeneratorOptions",
    "helmCharts": "[]types.HelmChart", "metadata": "types.ObjectMeta",
}
_GENERATOR_TYPES = {"name": "string", "namespace": "string", "behavior": "string", "env": "string",
                    "type": "string", "literals": _STR_LIST, "files": _STR_LIST, "envs": _STR_LIST,
                    "options": "types.GeneratorOptions"}
# Go types of the fields of list items (struct name, field types), for the same errors.
_IMAGE_TYPES = {"name": "string", "newName": "string", "newTag": "string", "digest": "string", "tagSuffix": "string"}
_ITEM_TYPES = {
    "configMapGenerator": ("ConfigMapArgs", _GENERATOR_TYPES),
    "secretGenerator": ("SecretArgs", _GENERATOR_TYPES),
    "labels": ("Label", {"pairs": "map[string]string", "includeSelectors": "bool", "includeTemplates": "bool"}),
    "images": ("Image", _IMAGE_TYPES),
    "imageTags": ("Image", _IMAGE_TYPES),
    "replicas": ("Replica", {"name": "string", "count": "int64"}),
}


def _check_type(value: object, go_type: str, where: str) -> None:
    """encoding/json's type check of one field (null fits anything)."""
    if value is None:
        return

    def fail(found: object, type_name: str) -> None:
        raise KustomizeError(f"invalid Kustomization: json: cannot unmarshal {json_kind(found)} "
                             f"into Go struct field {where} of type {type_name}")
    if go_type.startswith("[]"):
        if not isinstance(value, list):
            fail(value, go_type)
        for item in value:
            _check_type(item, go_type[2:], where)
    elif go_type.startswith("map["):
        if not isinstance(value, dict):
            fail(value, go_type)
        for item in value.values():
            if item is not None and not isinstance(item, str):
                fail(item, "string")
    elif go_type in ("string", "types.PatchStrategicMerge"):  # the latter is a named string type
        if not isinstance(value, str):
            fail(value, go_type)
    elif go_type == "bool":
        if not isinstance(value, bool):
            fail(value, go_type)
    elif go_type == "int64":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            fail(value, go_type)
        if isinstance(value, float) or not -(1 << 63) <= value < (1 << 63):
            raise KustomizeError(f"invalid Kustomization: json: cannot unmarshal number {_number_text(value)} "
                                 f"into Go struct field {where} of type int64")
    elif not isinstance(value, dict):
        fail(value, go_type)


def _number_text(value) -> str:
    # how the number reads in the JSON sigs.k8s.io/yaml made of the YAML (floats as %g-like text)
    if isinstance(value, float):
        from kubelite.manifest._gonum import json_float

        return json_float(value)
    return str(value)


def _check_items(key: str, value: object) -> None:
    """The typed fields of the items of a list field (labels, images, replicas, generators)."""
    struct, types = _ITEM_TYPES[key]
    for entry in value if isinstance(value, list) else ():
        if isinstance(entry, dict):
            for field, item in entry.items():
                name = next((n for n in types if n.lower() == str(field).lower()), None)
                if name is not None:
                    _check_type(item, types[name], f"{struct}.{key}.{name}")


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
        if name in _FIELD_TYPES:
            _check_type(value, _FIELD_TYPES[name], f"Kustomization.{name}")
        if name in _ITEM_TYPES:
            _check_items(name, value)
        _check_struct(value, _STRUCTS.get(name))
        canonical[name] = _zero_structs(name, value)
    return canonical


def _zero_structs(name: str, value: object) -> object:
    """A null item of a list of structs decodes to the zero struct in Go: {} here."""
    go_type = _FIELD_TYPES.get(name, "")
    if isinstance(value, list) and go_type.startswith("[]types.") and go_type != "[]types.PatchStrategicMerge":
        return [{} if item is None else item for item in value]
    return value


def is_empty(k: dict) -> bool:
    """kustomize's CheckEmpty after FixKustomization: nothing but apiVersion and kind is set (null,
    "" and a bases or imageTags list that is empty count as unset)."""
    for key, value in k.items():
        if key in ("apiVersion", "kind") or value is None or value == "":
            continue
        if key in ("bases", "imageTags") and value == []:
            continue  # appended to resources / images: an empty list appends nothing
        return False
    return True


def enforce_fields(k: dict) -> list[str]:
    """kustomize's EnforceFields after FixKustomization filled kind and apiVersion."""
    kind = k.get("kind") or "Kustomization"
    required = COMPONENT_API if kind == "Component" else KUSTOMIZATION_API
    api = k.get("apiVersion") or required
    problems = []
    if kind not in ("Kustomization", "Component"):
        problems.append("kind should be Kustomization or Component")
    if api != required:
        problems.append(f"apiVersion for {kind} should be {required}")
    return problems


def warnings(k: dict) -> list[str]:
    """Kustomize's deprecation lines for one kustomization file: a field warns when it is present
    with any value but null (an empty list or map warns too, as a non-nil Go slice or map)."""
    return [f"# Warning: {msg} Run 'kustomize edit fix' to update your Kustomization automatically."
            for key, msg in _DEPRECATION.items() if k.get(key) is not None]


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
