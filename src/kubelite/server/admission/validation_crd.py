"""CustomResourceDefinition validation, the structural part of apiextensions-apiserver's
ValidateCustomResourceDefinition (1.32), in its order: the name must be plural.group; spec.group,
spec.scope, the versions (names, one storage version, a schema each), the names; the stored
versions the create would record. Not covered: the schemas' own rules (structural schema,
defaults, CEL), subresources, printer columns, conversion webhooks.
"""
from __future__ import annotations

from kubelite.server.admission import field as F
from kubelite.server.admission import names as N
from kubelite.server.admission.field import GoRepr
from kubelite.server.admission.validation_common import Causes, _dicts, _map

_SCOPES = ("Cluster", "Namespaced")


def _crd(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    names = _effective_names(_map(spec.get("names")))
    group = _text(spec.get("group"))
    causes: Causes = []
    name = _text(_map(obj.get("metadata")).get("name"))
    if name and name != f"{names['plural']}.{group}":  # an empty name is ObjectMeta's error
        causes.append(F.invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group'))
    causes += _group(group)
    causes += _scope(_text(spec.get("scope")))
    versions = spec.get("versions") if isinstance(spec.get("versions"), list) else None
    causes += _versions(versions)
    causes += _names(names)
    causes += _stored_versions(obj, versions)
    return causes


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _effective_names(names: dict) -> dict:
    """The names after apiextensions/v1 defaulting (singular and listKind from the kind)."""
    kind = _text(names.get("kind"))
    return {"plural": _text(names.get("plural")),
            "singular": _text(names.get("singular")) or kind.lower(),
            "kind": kind,
            "listKind": _text(names.get("listKind")) or (kind + "List" if kind else "")}


def _group(group: str) -> Causes:
    if not group:
        return [F.required("spec.group")]
    problems = N.is_dns1123_subdomain(group)
    if problems:
        return [F.invalid("spec.group", group, ",".join(problems))]
    if len(group.split(".")) < 2:
        return [F.invalid("spec.group", group, "should be a domain with at least one dot")]
    return []


def _scope(scope: str) -> Causes:
    if not scope:
        return [F.required("spec.scope")]
    if scope not in _SCOPES:
        return [F.not_supported("spec.scope", scope, _SCOPES)]
    return []


def _versions_value(versions: list | None) -> GoRepr:
    # field.Invalid prints the Go slice with %#v; only its empty forms are reproduced exactly
    if versions is None:
        return GoRepr("[]apiextensions.CustomResourceDefinitionVersion(nil)")
    if not versions:
        return GoRepr("[]apiextensions.CustomResourceDefinitionVersion{}")
    shown = ", ".join(f'apiextensions.CustomResourceDefinitionVersion{{Name:{F.go_quote(_text(v.get("name")))}, '
                      f'Served:{str(bool(v.get("served"))).lower()}, Storage:{str(bool(v.get("storage"))).lower()}}}'
                      for v in _dicts(versions))
    return GoRepr("[]apiextensions.CustomResourceDefinitionVersion{" + shown + "}")


def _versions(versions: list | None) -> Causes:
    causes: Causes = []
    items = _dicts(versions)
    for i, version in enumerate(items):
        schema = _map(version.get("schema")).get("openAPIV3Schema")
        if not isinstance(schema, dict):
            causes.append(F.required(f"spec.versions[{i}].schema.openAPIV3Schema", "schemas are required"))
    names = [_text(v.get("name")) for v in items]
    for i, name in enumerate(names):
        problems = N.is_dns1035_label(name)
        if problems:
            causes.append(F.invalid(f"spec.versions[{i}].name", name, ",".join(problems)))
    if len(set(names)) != len(names):
        causes.append(F.invalid("spec.versions", _versions_value(versions), "must contain unique version names"))
    if sum(1 for v in items if v.get("storage") is True) != 1:
        causes.append(F.invalid("spec.versions", _versions_value(versions),
                                "must have exactly one version marked as storage version"))
    return causes


def _names(names: dict) -> Causes:
    causes: Causes = [F.required(f"spec.names.{key}") for key in ("plural", "singular", "kind", "listKind")
                      if not names[key]]
    for key in ("plural", "singular"):
        problems = N.is_dns1035_label(names[key])
        if names[key] and problems:
            causes.append(F.invalid(f"spec.names.{key}", names[key], ",".join(problems)))
    for key in ("kind", "listKind"):
        problems = N.is_dns1035_label(names[key].lower())
        if names[key] and problems:
            causes.append(F.invalid(f"spec.names.{key}", names[key],
                                    "may have mixed case, but should otherwise match: " + ",".join(problems)))
    if names["kind"] and names["kind"] == names["listKind"]:
        causes.append(F.invalid("spec.names.listKind", names["listKind"], "kind and listKind may not be the same"))
    return causes


def _stored_versions(obj: dict, versions: list | None) -> Causes:
    # an update keeps the recorded versions; a create records the storage version, and with
    # none (or several) there is nothing to record
    if _map(obj.get("status")).get("storedVersions"):
        return []
    if sum(1 for v in _dicts(versions) if v.get("storage") is True) == 1:
        return []
    return [F.invalid("status.storedVersions", GoRepr("[]string(nil)"), "must have at least one stored version")]
