"""Go's type errors for builtin plugin configs.

Kustomize decodes most plugin configs with sigs.k8s.io/yaml into the plugin's struct: the
YAML becomes JSON shaped by the target type (a scalar read into a string field becomes a
string), then encoding/json fills the struct. A value of the wrong kind fails with
`json: cannot unmarshal <kind> into Go struct field <Struct>.<path> of type <type>`.
"""
from __future__ import annotations

from kubelite.schema.gojson import json_kind

from .errors import KustomizeError

PREFIX = "error unmarshaling JSON: while decoding JSON: "

_STR = "string"
_STRS = "[]string"
_MAP = "map[string]string"
_FIELD_SPECS = ("[]types.FieldSpec", "FieldSpec", {"group": _STR, "version": _STR, "kind": _STR, "path": _STR,
                                                   "create": "bool"})
_SELECTOR = ("types.Selector", "Selector", {"group": _STR, "version": _STR, "kind": _STR, "name": _STR,
                                            "namespace": _STR, "labelSelector": _STR, "annotationSelector": _STR})
_OPTIONS = ("types.GeneratorOptions", "GeneratorOptions", {"labels": _MAP, "annotations": _MAP,
                                                            "disableNameSuffixHash": "bool", "immutable": "bool"})
_GENERATOR = {"name": _STR, "namespace": _STR, "behavior": _STR, "literals": _STRS, "files": _STRS, "envs": _STRS,
              "env": _STR, "options": _OPTIONS}

# plugin kind -> (Go struct, field types); a struct-typed field is (type, struct name, fields)
STRUCTS = {
    "AnnotationsTransformer": ("AnnotationsTransformerPlugin", {"annotations": _MAP, "fieldSpecs": _FIELD_SPECS}),
    "LabelTransformer": ("LabelTransformerPlugin", {"labels": _MAP, "fieldSpecs": _FIELD_SPECS}),
    "NamespaceTransformer": ("NamespaceTransformerPlugin", {"unsetOnly": "bool", "setRoleBindingSubjects": _STR,
                                                            "fieldSpecs": _FIELD_SPECS}),
    "ImageTagTransformer": ("ImageTagTransformerPlugin", {
        "imageTag": ("types.Image", "Image", {"name": _STR, "newName": _STR, "newTag": _STR, "digest": _STR,
                                              "tagSuffix": _STR}),
        "fieldSpecs": _FIELD_SPECS}),
    "ReplicaCountTransformer": ("ReplicaCountTransformerPlugin", {
        "replica": ("types.Replica", "Replica", {"name": _STR, "count": "int64"}), "fieldSpecs": _FIELD_SPECS}),
    "PatchTransformer": ("PatchTransformerPlugin", {"path": _STR, "patch": _STR, "target": _SELECTOR,
                                                    "options": "map[string]bool"}),
    "PatchJson6902Transformer": ("PatchJson6902TransformerPlugin", {"path": _STR, "jsonOp": _STR, "target": _SELECTOR}),
    "PatchStrategicMergeTransformer": ("PatchStrategicMergeTransformerPlugin", {
        "paths": "[]types.PatchStrategicMerge", "patches": _STR}),
    "ReplacementTransformer": ("ReplacementTransformerPlugin", {
        "replacements": ("[]types.ReplacementField", "ReplacementField", {"path": _STR})}),
    "ValueAddTransformer": ("ValueAddTransformerPlugin", {
        "value": _STR, "targetFilePath": _STR,
        "targets": ("[]builtins.Target", "Target", {"selector": _SELECTOR, "fieldPath": _STR, "filePathPosition": "int"})}),
    "ConfigMapGenerator": ("ConfigMapGeneratorPlugin", _GENERATOR),
    "SecretGenerator": ("SecretGeneratorPlugin", {**_GENERATOR, "type": _STR}),
}


def check(kind: str, config: dict) -> None:
    """Raise Go's error for the first field of the wrong kind (config keys already canonical)."""
    struct = STRUCTS.get(kind)
    if struct is not None:
        _check_fields(config, struct[0], struct[1], "")


def _check_fields(value: dict, struct: str, fields: dict, path: str) -> None:
    for name, go_type in fields.items():
        if name in value:
            _check(value[name], go_type, struct, f"{path}{name}")


def _check(value: object, go_type, struct: str, path: str) -> None:
    if value is None:
        return
    if isinstance(go_type, tuple):
        type_name, inner, fields = go_type
        if type_name.startswith("[]"):
            if not isinstance(value, list):
                _fail(value, struct, path, type_name)
            for item in value:
                _check(item, (type_name[2:], inner, fields), struct, path)
            return
        if not isinstance(value, dict):
            _fail(value, struct, path, type_name)
        _check_fields(value, inner, fields, path + ".")
        return
    if go_type.startswith("[]"):
        if not isinstance(value, list):
            _fail(value, struct, path, go_type)
        for item in value:
            _check(item, go_type[2:], struct, path)
    elif go_type.startswith("map["):
        if not isinstance(value, dict):
            _fail(value, struct, path, go_type)
        for item in value.values():
            _check(item, go_type[go_type.index("]") + 1:], struct, path)
    elif go_type in ("bool",):
        if not isinstance(value, bool):
            _fail(value, struct, path, go_type)
    elif go_type in ("int", "int64"):
        if isinstance(value, bool) or not isinstance(value, int):
            _fail(value, struct, path, go_type)
    elif isinstance(value, (dict, list)):  # a string: any scalar is read as its text
        _fail(value, struct, path, go_type)


def _fail(value: object, struct: str, path: str, go_type: str) -> None:
    raise KustomizeError(f"{PREFIX}json: cannot unmarshal {json_kind(value)} into Go struct field "
                         f"{struct}.{path} of type {go_type}")


# The prefix and suffix plugins read their config with go-yaml instead, from the config
# written out again as YAML with sorted keys; its errors name that text's lines.
_YAML_FIELDS = {"PrefixTransformer": ("prefix",), "SuffixTransformer": ("suffix",),
                # the prefix plugin is configured first, and its errors stop the suffix one
                "PrefixSuffixTransformer": ("prefix", "suffix")}
# go-yaml takes YAML 1.1's words for booleans when it fills a bool
_BOOL_WORDS = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"}
_YAML_SPEC_FIELDS = {"path": "string", "group": "string", "version": "string", "kind": "string", "create": "bool"}


def check_yaml(kind: str, config: dict) -> None:
    for field in _YAML_FIELDS.get(kind, ()):
        _check_yaml(config, {field: "string", "fieldSpecs": "types.FsSlice"})


def _check_yaml(config: dict, fields: dict) -> None:
    import yaml
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    text = yaml.safe_dump(config, sort_keys=True, default_flow_style=False, allow_unicode=True, width=10**9)
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    errors: list[str] = []

    def fail(node, go_type: str) -> None:
        if isinstance(node, ScalarNode):
            what = f"{node.tag.rsplit(':', 1)[-1].join(('!!', ''))} `{node.value}`"
        else:
            what = "!!seq" if isinstance(node, SequenceNode) else "!!map"
        errors.append(f"line {node.start_mark.line + 1}: cannot unmarshal {what} into {go_type}")

    def scalar(node, go_type: str) -> None:
        if node.tag.endswith(":null"):
            return
        if go_type == "bool" and not (isinstance(node, ScalarNode)
                                      and (node.tag.endswith(":bool") or node.value in _BOOL_WORDS)):
            fail(node, go_type)
        elif go_type == "string" and not isinstance(node, ScalarNode):
            fail(node, go_type)

    for key, value in root.value if isinstance(root, MappingNode) else ():
        go_type = fields.get(key.value)
        if go_type is None:
            continue
        if go_type != "types.FsSlice":
            scalar(value, go_type)
        elif value.tag.endswith(":null"):
            continue
        elif not isinstance(value, SequenceNode):
            fail(value, go_type)
        else:
            for item in value.value:
                if not isinstance(item, MappingNode):
                    if not item.tag.endswith(":null"):
                        fail(item, "types.FieldSpec")
                    continue
                for spec_key, spec_value in item.value:
                    if spec_key.value in _YAML_SPEC_FIELDS:
                        scalar(spec_value, _YAML_SPEC_FIELDS[spec_key.value])
    if errors:
        raise KustomizeError("yaml: unmarshal errors:\n" + "\n".join(f"  {e}" for e in errors))
