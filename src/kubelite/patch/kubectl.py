"""What `kubectl patch --local -f FILE -p PATCH --type strategic|merge|json` does to an object.

`patch_local(obj, patch_text, patch_type)` returns the patched object or raises PatchError
whose str() is exactly what kubectl prints after "error: ". The steps are kubectl's:

1. patch text starting with "{" is used as JSON; other text is read as YAML and converted to
   JSON, where numbers go through Go's float64/int64 round trip (2.0 becomes 2);
2. the object is encoded as JSON the same way;
3. strategic: the kind's schema (kubelite.schema.for_kind) supplies patch strategies and merge
   keys, and kinds kubectl does not know fail ("strategic merge patch is not supported ...");
   merge: evanphx/json-patch v4 MergePatch; json: evanphx/json-patch v4 JSON Patch;
4. the result must still have a kind ("Object 'Kind' is missing in '...'").
"""
from __future__ import annotations

import json
TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any, Callable

from kubelite.patch import PatchError
from kubelite.patch._smp_go import marshal

PATCH_TYPES = ("json", "merge", "strategic")
# What each library says about patch text that starts with "{" but is not JSON. For json,
# Go's decoder names the offending character; we give its general form.
_INVALID_JSON_TEXT = {
    "strategic": "invalid JSON document",
    "merge": "Invalid JSON Patch",
    "json": "invalid character in JSON patch",
}


def patch_local(obj: dict, patch_text: str | bytes, patch_type: str = "strategic",
                yaml_decoder: Callable[[str], Any] | None = None) -> dict:
    """The object `kubectl patch --local` prints for `obj` patched with `patch_text`.

    `yaml_decoder(text) -> JSON value` reads patch text that is not JSON. Pass one with
    go-yaml v2's rules (kubelite.manifest's decoder: `y`/`on` are booleans, `1e3` is a number,
    timestamps stay strings) for exact kubectl behaviour; this layer cannot import it, and
    falls back to PyYAML's YAML 1.1 rules. A decoder signals bad YAML by raising an exception
    whose `.message` (or str) is go-yaml's, e.g. "yaml: line 1: did not find expected key".
    """
    kind = (patch_type or "strategic").lower()
    if kind not in PATCH_TYPES:
        raise PatchError(f"--type must be one of [{' '.join(PATCH_TYPES)}], not {json.dumps(patch_type)}")
    if not patch_text:
        raise PatchError("must specify --patch or --patch-file containing the contents of the patch")
    patch = _patch_value(patch_text, yaml_decoder)
    document = _go_round_trip(obj)
    if patch is _INVALID_JSON:
        raise PatchError(_INVALID_JSON_TEXT[kind])
    if not isinstance(document, dict) or not _kind_of(document):
        raise PatchError(f"Object 'Kind' is missing in '{marshal(document)}'")
    try:
        if kind == "strategic":
            result = _strategic(document, patch)
        elif kind == "merge":
            from kubelite.patch import merge_patch

            result = merge_patch.apply(document, patch, kubectl_compat=True)
        else:
            result = _json_patch(document, patch)
    except PatchError as err:
        raise PatchError(_kubectl_text(err)) from None
    except RecursionError:
        raise PatchError("document is nested too deeply to patch") from None
    if isinstance(result, (list, str, bool, int, float)):
        # kubectl decodes the result into a struct first: only an object (or null) fits
        from kubelite.schema.gojson import json_kind

        raise PatchError(f"json: cannot unmarshal {json_kind(result)} into Go value of type unstructured.detector")
    if not isinstance(result, dict) or not _kind_of(result):
        raise PatchError(f"Object 'Kind' is missing in '{marshal(result)}'")
    # kubectl encodes the patched object and decodes it again: 1.0 comes back as 1.
    return _go_round_trip(result)


def _strategic(document: dict, patch: Any) -> dict:
    from kubelite.patch import strategic

    api_version = document.get("apiVersion")
    schema = _schema_for(api_version, document["kind"]) if isinstance(api_version, str) else None
    if schema is None:
        group, version = _group_version(api_version)
        raise PatchError(f"strategic merge patch is not supported for {group}/{version}, "
                         f"Kind={document['kind']} locally, try --type merge")
    if not isinstance(patch, dict) and patch is not None:
        raise PatchError("invalid JSON document")
    return strategic.apply(document, patch, schema)


# Groups whose types kubectl's scheme does not contain, although their OpenAPI is built in.
_NOT_IN_KUBECTL_SCHEME = {"apiextensions.k8s.io", "apiregistration.k8s.io"}
# Kinds kubectl's scheme still has under retired group/versions, found today elsewhere.
_RETIRED_GROUPS = {"extensions": ("apps", "networking.k8s.io", "policy")}


def _schema_for(api_version: str, kind: str) -> Any:
    """The schema kubectl's typed scheme would give: the kind's own version when the 1.32
    definitions have it, else (for versions kubectl still knows but the API no longer serves,
    e.g. apps/v1beta1) the same kind in another version of the group."""
    from kubelite.schema import builtin_definitions, for_kind

    group, version = _group_version(api_version)
    if not version or group in _NOT_IN_KUBECTL_SCHEME:
        return None
    schema = for_kind(api_version, kind)
    if schema is not None:
        return schema
    defs = builtin_definitions()
    for candidate_group in (group,) + _RETIRED_GROUPS.get(group, ()):
        for candidate in _versions_of(defs, candidate_group, kind):
            schema = for_kind(f"{candidate_group}/{candidate}" if candidate_group else candidate, kind)
            if schema is not None:
                return schema
    return None


def _versions_of(defs: Any, group: str, kind: str) -> list[str]:
    found = []
    for node in defs.definitions.values():
        for gvk in (node.get("x-kubernetes-group-version-kind") or ()) if isinstance(node, dict) else ():
            if gvk.get("group", "") == group and gvk.get("kind") == kind:
                found.append(gvk.get("version", ""))
    # Prefer GA versions, then the newest betas.
    return sorted(found, key=lambda v: ("alpha" in v, "beta" in v, v))


def _json_patch(document: dict, patch: Any) -> Any:
    from kubelite.patch import json_patch

    return json_patch.apply(document, patch, kubectl_compat=True)


def _kubectl_text(err: PatchError) -> str:
    text = getattr(err, "kubectl_message", None)
    if callable(text):
        return text()
    return getattr(err, "message", None) or str(err)


def _kind_of(document: dict) -> str:
    kind = document.get("kind")
    return kind if isinstance(kind, str) else ""


def _group_version(api_version: Any) -> tuple[str, str]:
    """schema.ParseGroupVersion, with kubectl's empty result for an unparsable value."""
    if not isinstance(api_version, str) or not api_version:
        return "", ""
    if api_version == "v1":
        return "", "v1"
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", api_version
    if len(parts) == 2:
        return parts[0], parts[1]
    return "", ""


# -- text and numbers ------------------------------------------------------------------------


def _patch_value(text: str | bytes, yaml_decoder: Callable[[str], Any] | None = None) -> Any:
    """k8s.io/apimachinery's yaml.ToJSON followed by a JSON decode. Text that starts with "{"
    is taken as JSON without going through YAML; if it is not valid JSON the result is
    _INVALID_JSON, which each patch type reports in its own words."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    if text.lstrip().startswith("{"):
        try:
            return json.loads(text, parse_constant=_reject)
        except ValueError:
            return _INVALID_JSON
        except RecursionError:
            raise PatchError("patch is nested too deeply") from None
    try:
        return _go_round_trip(json.loads(text, parse_constant=_reject))
    except ValueError:
        pass
    except RecursionError:
        raise PatchError("patch is nested too deeply") from None
    if yaml_decoder is not None:
        return _decode_with(yaml_decoder, text)
    import yaml

    try:
        value = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as err:
        raise PatchError(f"unable to parse {_go_quote(text)}: yaml: {_yaml_problem(err)}") from None
    except RecursionError:
        raise PatchError("patch is nested too deeply") from None
    return _go_round_trip(_jsonable(value))


def _decode_with(decoder: Callable[[str], Any], text: str) -> Any:
    try:
        value = decoder(text)
    except RecursionError:
        raise PatchError("patch is nested too deeply") from None
    except Exception as err:  # the decoder's own error type, whatever it is
        raise PatchError(f"unable to parse {_go_quote(text)}: {getattr(err, 'message', None) or err}") from None
    return _go_round_trip(value)


class _InvalidJson:
    """Patch text that looked like JSON but was not."""


_INVALID_JSON = _InvalidJson()


def _go_quote(text: str) -> str:
    """Go's %q for the common cases (printable text kept, \n, \t, quotes escaped)."""
    return json.dumps(text, ensure_ascii=False)


def _reject(name: str) -> Any:
    raise ValueError(name)


def _yaml_problem(err: Exception) -> str:
    # go-yaml names the line only when it is not the first one.
    mark = getattr(err, "problem_mark", None)
    problem = getattr(err, "problem", None) or str(err)
    if mark is not None and mark.line:
        return f"line {mark.line}: {problem}"
    return problem


def _jsonable(value: Any) -> Any:
    """YAML values as JSON ones: keys become strings, dates and other scalars become text."""
    if isinstance(value, dict):
        return {_key_text(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def _key_text(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    return str(key)


def _go_round_trip(value: Any) -> Any:
    """A value as it comes back from Go's json.Marshal + apimachinery's json decode:
    integral floats that fit int64 turn into integers."""
    if isinstance(value, dict):
        return {k: _go_round_trip(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_go_round_trip(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        as_int = int(value)
        if -(2**63) <= as_int < 2**63:
            return as_int
    return value
