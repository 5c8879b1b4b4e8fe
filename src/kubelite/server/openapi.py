"""The OpenAPI documents the server publishes: `/openapi/v2` and `/openapi/v3[/<group-version>]`.

Built from the definitions `kubelite.schema.builtin_definitions()` loads (kubernetes-validate's
JSON-Schema flavour: `type: [X, "null"]`, `$ref: "#/$defs/N"`), turned back into the form
kube-apiserver publishes: a single `type`, `$ref` to `#/definitions/N` (v2) or
`#/components/schemas/N` (v3, where a `$ref` with sibling keys is wrapped in `allOf` the way
the real server does), IntOrString and Quantity spelled per version, no `enum` on
apiVersion/kind (kubernetes-validate adds those). Custom resources contribute their
`openAPIV3Schema` with `apiVersion`, `kind` and `metadata` added.

`paths` hold one entry per resource, collection and subresource with the operations kubectl
looks at: `x-kubernetes-group-version-kind`, `x-kubernetes-action` and the query parameters
(kubectl checks that PATCH accepts `fieldValidation` before relying on server-side validation).

Documents are generated lazily and cached per registry generation; the converted built-in
definitions are shared by every server. Serving them: `OpenAPI(registry).v2()` for
`/openapi/v2` as JSON and `.v2_protobuf()` as the protobuf kubectl asks for,
`.v3_index_bytes()` for `/openapi/v3`, `.v3("apis/apps/v1")` for a group-version (None when
not served) and `.v3_hash(gv)` for the `?hash=` the index advertises.
"""
from __future__ import annotations

import copy
import functools
import hashlib
from typing import Any, Iterable

from kubelite.server.discovery import KUBERNETES_VERSION, encode
from kubelite.server.resources import Registry, ResourceInfo

V2_PREFIX = "#/definitions/"
V3_PREFIX = "#/components/schemas/"
_JSON_SCHEMA_PREFIX = "#/$defs/"

INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
LIST_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
STATUS = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
PATCH = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
WATCH_EVENT = "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"

_SPECIAL_V2 = {
    INT_OR_STRING: {"type": "string", "format": "int-or-string"},
    QUANTITY: {"type": "string"},
}
_SPECIAL_V3 = {
    INT_OR_STRING: {"format": "int-or-string", "oneOf": [{"type": "integer"}, {"type": "string"}]},
    QUANTITY: {"oneOf": [{"type": "string"}, {"type": "number"}]},
}
# Subresources that stream or proxy instead of exchanging an object: no schema to publish.
_CONNECT_SUBRESOURCES = {"attach", "exec", "log", "portforward", "proxy"}
# Keys of a schema node whose value is a single schema / a list of schemas / a name->schema map.
_SCHEMA_KEYS = ("items", "additionalProperties", "not")
_SCHEMA_LIST_KEYS = ("allOf", "oneOf", "anyOf")
_SCHEMA_MAP_KEYS = ("properties", "patternProperties", "definitions")

_API_VERSION_DESC = ("APIVersion defines the versioned schema of this representation of an object. Servers should "
                     "convert recognized schemas to the latest internal value, and may reject unrecognized values. "
                     "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources")
_KIND_DESC = ("Kind is a string value representing the REST resource this object represents. Servers may infer "
              "this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: "
              "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds")


# -- schema conversion --------------------------------------------------------------------------


def convert_schema(node: Any, prefix: str, *, wrap_refs: bool) -> Any:
    """One JSON-Schema-flavoured node in OpenAPI form (keys sorted like the server prints them)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, list):
            kinds = [t for t in value if t != "null"]
            if len(kinds) == 1:
                out[key] = kinds[0]
            elif kinds:
                out[key] = kinds
        elif key == "$ref" and isinstance(value, str):
            out[key] = prefix + value.rsplit("/", 1)[-1]
        elif key in _SCHEMA_KEYS:
            out[key] = convert_schema(value, prefix, wrap_refs=wrap_refs)
        elif key in _SCHEMA_LIST_KEYS and isinstance(value, list):
            out[key] = [convert_schema(v, prefix, wrap_refs=wrap_refs) for v in value]
        elif key in _SCHEMA_MAP_KEYS and isinstance(value, dict):
            out[key] = {name: convert_schema(v, prefix, wrap_refs=wrap_refs) for name, v in sorted(value.items())}
        else:
            out[key] = copy.deepcopy(value)
    if wrap_refs and "$ref" in out and len(out) > 1:
        out = {"allOf": [{"$ref": out.pop("$ref")}], **out}
    return dict(sorted(out.items()))


def _drop_kind_enums(definition: dict) -> dict:
    """kubernetes-validate pins apiVersion/kind with an `enum`; the server's documents do not."""
    props = definition.get("properties")
    if not isinstance(props, dict):
        return definition
    fixed = dict(props)
    for name in ("apiVersion", "kind"):
        if isinstance(fixed.get(name), dict) and "enum" in fixed[name]:
            fixed[name] = {k: v for k, v in fixed[name].items() if k != "enum"}
    return dict(definition, properties=fixed)


@functools.lru_cache(maxsize=4)
def builtin_schemas(v3: bool, kubernetes_version: str | None = None) -> dict[str, dict]:
    """Every built-in definition in v2 (`definitions`) or v3 (`components.schemas`) form.

    Shared by all servers: callers must not mutate the result."""
    from kubelite.schema import builtin_definitions

    special = _SPECIAL_V3 if v3 else _SPECIAL_V2
    prefix = V3_PREFIX if v3 else V2_PREFIX
    out = {}
    for name, node in sorted(builtin_definitions(kubernetes_version).definitions.items()):
        if name in special:
            node = dict(special[name], **({"description": node["description"]} if "description" in node else {}))
        out[name] = convert_schema(_drop_kind_enums(node), prefix, wrap_refs=v3)
    return out


def references(node: Any, prefix: str) -> Iterable[str]:
    """Names of every definition a schema node refers to (directly)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            ref = current.get("$ref")
            if isinstance(ref, str) and ref.startswith(prefix):
                yield ref[len(prefix):]
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)


def closure(names: Iterable[str], schemas: dict[str, dict], prefix: str) -> dict[str, dict]:
    """The named schemas plus everything they reach, sorted by name."""
    seen: dict[str, dict] = {}
    todo = [n for n in names if n in schemas]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen[name] = schemas[name]
        todo.extend(r for r in references(schemas[name], prefix) if r not in seen and r in schemas)
    return dict(sorted(seen.items()))


# -- custom resources ---------------------------------------------------------------------------


def crd_definition_name(group: str, version: str, kind: str) -> str:
    """`com.example.rc.v1.Widget` for rc.example.com/v1 Widget (the server's naming)."""
    return ".".join(reversed(group.split("."))) + f".{version}.{kind}"


def _crd_schemas(info: ResourceInfo, prefix: str, v3: bool) -> dict[str, dict]:
    gvk = [{"group": info.group, "kind": info.kind, "version": info.version}]
    body = copy.deepcopy(dict(info.schema)) if isinstance(info.schema, dict) else {
        "type": "object", "x-kubernetes-preserve-unknown-fields": True}
    if not v3:
        body = _v2_compatible(body)
    props = dict(body.get("properties") or {})
    props["apiVersion"] = {"description": _API_VERSION_DESC, "type": "string"}
    props["kind"] = {"description": _KIND_DESC, "type": "string"}
    meta_ref = {"$ref": prefix + OBJECT_META}
    props["metadata"] = {"allOf": [meta_ref]} if v3 else meta_ref
    body["properties"] = dict(sorted(props.items()))
    body.setdefault("type", "object")
    body["x-kubernetes-group-version-kind"] = gvk
    name = crd_definition_name(info.group, info.version, info.kind)
    list_ref = {"$ref": prefix + LIST_META}
    list_kind = info.list_kind or info.kind + "List"
    listing = {
        "description": f"{list_kind} is a list of {info.kind}",
        "properties": {
            "apiVersion": {"description": _API_VERSION_DESC, "type": "string"},
            "items": {"description": f"List of {info.resource}. More info: "
                                     "https://git.k8s.io/community/contributors/devel/api-conventions.md",
                      "items": {"$ref": prefix + name}, "type": "array"},
            "kind": {"description": _KIND_DESC, "type": "string"},
            "metadata": {"allOf": [list_ref]} if v3 else list_ref,
        },
        "required": ["items"],
        "type": "object",
        "x-kubernetes-group-version-kind": [{"group": info.group, "kind": list_kind, "version": info.version}],
    }
    return {name: dict(sorted(body.items())), crd_definition_name(info.group, info.version, list_kind): listing}


def _v2_compatible(node: Any) -> Any:
    """What OpenAPI v2 can say of a CRD schema: v3-only keywords are dropped, as the server does."""
    if isinstance(node, list):
        return [_v2_compatible(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in ("nullable", "oneOf", "anyOf", "not", "x-kubernetes-validations"):
            continue
        if key in ("properties", "patternProperties") and isinstance(value, dict):
            out[key] = {k: _v2_compatible(v) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "allOf"):
            out[key] = _v2_compatible(value)
        else:
            out[key] = value
    if out.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
    return out


# -- paths --------------------------------------------------------------------------------------


def _camel(group: str, version: str) -> str:
    """`AppsV1`, `CoreV1`, `RbacAuthorizationV1`: the group-version part of operation ids."""
    words = group.removesuffix(".k8s.io").replace("-", ".").split(".") if group else ["core"]
    return "".join(w[:1].upper() + w[1:] for w in words) + version[:1].upper() + version[1:]


def _query(name: str, description: str, type_: str = "string", unique: bool = True) -> dict:
    param = {"name": name, "in": "query", "description": description, "type": type_}
    if unique:
        param["uniqueItems"] = True
    return param


_PRETTY = _query("pretty", "If 'true', then the output is pretty printed.")
_DRY_RUN = _query("dryRun", "When present, indicates that modifications should not be persisted. "
                             "Valid values are: - All: all dry run stages will be processed")
_FIELD_MANAGER = _query("fieldManager", "fieldManager is a name associated with the actor or entity "
                                        "that is making these changes.")
_FIELD_VALIDATION = _query("fieldValidation", "fieldValidation instructs the server on how to handle objects "
                                              "in the request containing unknown or duplicate fields. Valid "
                                              "values are: Ignore, Warn, Strict.")
_FORCE = _query("force", "Force is going to \"force\" Apply requests. It means user will re-acquire "
                         "conflicting fields owned by other people.", "boolean")
_LIST_PARAMS = [
    _query("allowWatchBookmarks", "allowWatchBookmarks requests watch events with type \"BOOKMARK\".", "boolean"),
    _query("continue", "The continue option should be set when retrieving more results from the server."),
    _query("fieldSelector", "A selector to restrict the list of returned objects by their fields."),
    _query("labelSelector", "A selector to restrict the list of returned objects by their labels."),
    _query("limit", "limit is a maximum number of responses to return for a list call.", "integer"),
    _query("resourceVersion", "resourceVersion sets a constraint on what resource versions a request may be served from."),
    _query("resourceVersionMatch", "resourceVersionMatch determines how resourceVersion is applied to list calls."),
    _query("sendInitialEvents", "`sendInitialEvents=true` may be set together with `watch=true`.", "boolean"),
    _query("timeoutSeconds", "Timeout for the list/watch call.", "integer"),
    _query("watch", "Watch for changes to the described resources and return them as a stream of add, update, "
                    "and remove notifications.", "boolean"),
]
_DELETE_PARAMS = [
    _DRY_RUN,
    _query("gracePeriodSeconds", "The duration in seconds before the object should be deleted.", "integer"),
    _query("ignoreStoreReadErrorWithClusterBreakingPotential", "if set to true, it will trigger an unsafe "
           "deletion of the resource in case the normal deletion flow fails with a corrupt object error.", "boolean"),
    _query("propagationPolicy", "Whether and how garbage collection will be performed."),
]
_PATCH_TYPES = ["application/json-patch+json", "application/merge-patch+json",
                "application/strategic-merge-patch+json", "application/apply-patch+yaml"]
# Custom resources take no strategic merge patch; kubectl reads its absence here and falls
# back to a JSON merge patch.
_CRD_PATCH_TYPES = [t for t in _PATCH_TYPES if "strategic" not in t]
_WRITE_PARAMS = [_DRY_RUN, _FIELD_MANAGER, _FIELD_VALIDATION]


class _PathBuilder:
    """Paths and operations of one group-version, in v2 or v3 form."""

    def __init__(self, group: str, version: str, v3: bool, schema_name):
        self.group, self.version, self.v3 = group, version, v3
        self.prefix = V3_PREFIX if v3 else V2_PREFIX
        self.schema_name = schema_name  # (group, version, kind) -> definition name or None
        self.root = f"/apis/{group}/{version}" if group else f"/api/{version}"
        self.tag = _camel(group, version)
        self.tag = self.tag[:1].lower() + self.tag[1:]
        self.used: set[str] = set()

    # -- small pieces -------------------------------------------------------------------------
    def _ref(self, name: str | None) -> dict:
        if name is None:
            return {"type": "object"}
        self.used.add(name)
        return {"$ref": self.prefix + name}

    def _param(self, param: dict) -> dict:
        if not self.v3:
            return dict(param)
        out = {k: v for k, v in param.items() if k not in ("type", "uniqueItems")}
        out["schema"] = {"type": param["type"], **({"uniqueItems": True} if param.get("uniqueItems") else {})}
        return out

    def _path_param(self, name: str, description: str) -> dict:
        return self._param({"name": name, "in": "path", "description": description, "required": True,
                            "type": "string", "uniqueItems": True})

    def _body(self, schema_name: str | None, content_types: list[str]) -> dict:
        if self.v3:
            return {"requestBody": {"content": {ct: {"schema": self._ref(schema_name)} for ct in content_types},
                                    "required": True}}
        return {"parameters": [{"name": "body", "in": "body", "required": True, "schema": self._ref(schema_name)}],
                "consumes": content_types}

    def _responses(self, codes: dict[str, str], schema_name: str | None) -> dict:
        out = {}
        for code, text in codes.items():
            if self.v3:
                out[code] = {"description": text, "content": {
                    ct: {"schema": self._ref(schema_name)}
                    for ct in ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")}}
            else:
                out[code] = {"description": text, "schema": self._ref(schema_name)}
        out["401"] = {"description": "Unauthorized"}
        return {"responses": out}

    def _operation(self, verb: str, action: str, kind_name: str, info: ResourceInfo, gvk: tuple[str, str, str],
                   params: list[dict], body: str | None, body_types: list[str] | None,
                   codes: dict[str, str], response: str | None, description: str) -> dict:
        op: dict[str, Any] = {"tags": [self.tag], "description": description,
                              "operationId": f"{verb}{_camel(self.group, self.version)}{kind_name}"}
        if not self.v3:
            op["consumes"] = ["*/*"]
            op["produces"] = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"]
            op["schemes"] = ["https"]
        parameters = [self._param(p) for p in params]
        if body is not None or body_types:
            extra = self._body(body, body_types or ["*/*"])
            if self.v3:
                op.update(extra)
            else:
                parameters = extra["parameters"] + parameters
                op["consumes"] = extra["consumes"]
        if parameters:
            op["parameters"] = parameters
        op.update(self._responses(codes, response))
        op["x-kubernetes-action"] = action
        op["x-kubernetes-group-version-kind"] = {"group": gvk[0], "kind": gvk[2], "version": gvk[1]}
        return op

    # -- resources ----------------------------------------------------------------------------
    def add(self, paths: dict, info: ResourceInfo) -> None:
        gvk = (info.group, info.version, info.kind)
        own = self.schema_name(*gvk)
        listing = self.schema_name(info.group, info.version, info.kind + "List") if not info.crd else \
            self.schema_name(info.group, info.version, info.list_kind or info.kind + "List")
        ns = "Namespaced" if info.namespaced else ""
        base = f"{self.root}/namespaces/{{namespace}}/{info.resource}" if info.namespaced else f"{self.root}/{info.resource}"
        common = [self._path_param("namespace", "object name and auth scope, such as for teams and projects")] \
            if info.namespaced else []
        kind = info.kind
        collection: dict[str, Any] = {}
        if "list" in info.verbs:
            collection["get"] = self._operation(
                "list", "list", f"{ns}{kind}", info, gvk, _LIST_PARAMS, None, None,
                {"200": "OK"}, listing, f"list or watch objects of kind {kind}")
        if "create" in info.verbs:
            collection["post"] = self._operation(
                "create", "post", f"{ns}{kind}", info, gvk, _WRITE_PARAMS, own, None,
                {"200": "OK", "201": "Created", "202": "Accepted"}, own, f"create a {kind}")
        if "deletecollection" in info.verbs:
            collection["delete"] = self._operation(
                "delete", "deletecollection", f"Collection{ns}{kind}", info, gvk,
                _DELETE_PARAMS + _LIST_PARAMS, DELETE_OPTIONS, None, {"200": "OK"}, STATUS,
                f"delete collection of {kind}")
        if collection:
            collection["parameters"] = common + [self._param(_PRETTY)]
            paths[base] = collection
        if info.namespaced and "list" in info.verbs:
            paths[f"{self.root}/{info.resource}"] = {
                "get": self._operation("list", "list", f"{kind}ForAllNamespaces", info, gvk, _LIST_PARAMS,
                                       None, None, {"200": "OK"}, listing,
                                       f"list or watch objects of kind {kind}"),
                "parameters": [self._param(_PRETTY)]}
        item_params = [self._path_param("name", f"name of the {kind}")] + common + [self._param(_PRETTY)]
        item = self._item_operations(info, gvk, f"{ns}{kind}", own, info.verbs, kind)
        if item:
            item["parameters"] = item_params
            paths[f"{base}/{{name}}"] = item
        for sub in info.subresources:
            if sub.name in _CONNECT_SUBRESOURCES:
                continue
            sub_gvk = (sub.group, sub.version, sub.kind) if sub.group or sub.version else gvk[:2] + (sub.kind,)
            sub_schema = self.schema_name(*sub_gvk)
            label = f"{ns}{kind}{sub.name[:1].upper()}{sub.name[1:]}"
            ops = self._item_operations(info, sub_gvk, label, sub_schema, sub.verbs, f"{kind} {sub.name}")
            if ops:
                ops["parameters"] = item_params
                paths[f"{base}/{{name}}/{sub.name}"] = ops

    def _item_operations(self, info, gvk, label, schema, verbs, what) -> dict:
        ops: dict[str, Any] = {}
        if "get" in verbs:
            ops["get"] = self._operation("read", "get", label, info, gvk, [], None, None, {"200": "OK"}, schema,
                                         f"read the specified {what}")
        if "update" in verbs:
            ops["put"] = self._operation("replace", "put", label, info, gvk, _WRITE_PARAMS, schema, None,
                                         {"200": "OK", "201": "Created"}, schema, f"replace the specified {what}")
        if "create" in verbs and "list" not in verbs and "get" not in verbs:
            # Create-only subresources (binding, eviction, token) answer POST on the item path.
            ops["post"] = self._operation("create", "post", label, info, gvk, _WRITE_PARAMS, schema, None,
                                          {"200": "OK", "201": "Created", "202": "Accepted"}, schema,
                                          f"create {what}")
        if "delete" in verbs:
            ops["delete"] = self._operation("delete", "delete", label, info, gvk, _DELETE_PARAMS, DELETE_OPTIONS,
                                            None, {"200": "OK", "202": "Accepted"}, STATUS,
                                            f"delete a {what}")
        if "patch" in verbs:
            ops["patch"] = self._operation("patch", "patch", label, info, gvk, _WRITE_PARAMS + [_FORCE], PATCH,
                                           _CRD_PATCH_TYPES if info.crd else _PATCH_TYPES, {"200": "OK", "201": "Created"}, schema,
                                           f"partially update the specified {what}")
        return ops


# -- documents ----------------------------------------------------------------------------------


def _info() -> dict:
    return {"title": "Kubernetes", "version": KUBERNETES_VERSION["gitVersion"]}


_SECURITY = {"BearerToken": {"description": "Bearer Token authentication", "in": "header",
                              "name": "authorization", "type": "apiKey"}}


def group_version_path(group: str, version: str) -> str:
    """The /openapi/v3 key of a group-version: `api/v1`, `apis/apps/v1`."""
    return f"apis/{group}/{version}" if group else f"api/{version}"


class OpenAPI:
    """The OpenAPI documents of one registry (cached until its generation changes)."""

    def __init__(self, registry: Registry, kubernetes_version: str | None = None):
        self.registry = registry
        self.kubernetes_version = kubernetes_version
        self._generation = -1
        self._cache: dict[Any, Any] = {}

    def _cached(self, key, build):
        if self._generation != self.registry.generation:
            self._cache.clear()
            self._generation = self.registry.generation
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    # -- schemas ------------------------------------------------------------------------------
    def _schemas(self, v3: bool) -> dict[str, dict]:
        def build():
            schemas = dict(builtin_schemas(v3, self.kubernetes_version))
            prefix = V3_PREFIX if v3 else V2_PREFIX
            for info in self.registry.all():
                if info.crd:
                    schemas.update(_crd_schemas(info, prefix, v3))
            return schemas
        return self._cached(("schemas", v3), build)

    def _kind_index(self, v3: bool) -> dict[tuple[str, str, str], str]:
        def build():
            index: dict[tuple[str, str, str], str] = {}
            for name, node in self._schemas(v3).items():
                for gvk in node.get("x-kubernetes-group-version-kind") or ():
                    index.setdefault((gvk.get("group", ""), gvk.get("version", ""), gvk.get("kind", "")), name)
            return index
        return self._cached(("kinds", v3), build)

    def _paths(self, v3: bool, infos: Iterable[ResourceInfo]) -> tuple[dict, set[str]]:
        index = self._kind_index(v3)
        paths: dict[str, Any] = {}
        used: set[str] = set()
        by_gv: dict[tuple[str, str], list[ResourceInfo]] = {}
        for info in infos:
            by_gv.setdefault((info.group, info.version), []).append(info)
        for (group, version), members in by_gv.items():
            builder = _PathBuilder(group, version, v3, lambda g, v, k: index.get((g, v, k)))
            for info in members:
                builder.add(paths, info)
            used |= builder.used
        return dict(sorted(paths.items())), used

    # -- v2 -----------------------------------------------------------------------------------
    def v2_document(self) -> dict:
        """`/openapi/v2`: every definition and every resource's paths."""
        def build():
            paths, _ = self._paths(False, self.registry.all())
            return {"swagger": "2.0", "info": _info(), "paths": paths, "definitions": self._schemas(False),
                    "securityDefinitions": _SECURITY, "security": [{"BearerToken": []}]}
        return self._cached("v2", build)

    def v2(self) -> bytes:
        return self._cached("v2-bytes", lambda: encode(self.v2_document()))

    def v2_protobuf(self) -> bytes:
        """`/openapi/v2` as gnostic's `openapi.v2.Document` message (what kubectl reads)."""
        from kubelite.server.protobuf.openapiv2 import encode_document

        return self._cached("v2-protobuf", lambda: encode_document(self.v2_document()))

    def last_modified(self) -> float:
        """When the documents were last rebuilt (the registry changed): their Last-Modified."""
        import time

        return self._cached("modified", time.time)

    def gzipped(self, key: str, body: bytes) -> bytes:
        """`body` gzip-compressed, kept with the documents it was made from."""
        import gzip

        return self._cached(("gzip", key), lambda: gzip.compress(body, compresslevel=6, mtime=0))

    # -- v3 -----------------------------------------------------------------------------------
    def group_versions(self) -> list[str]:
        seen: dict[str, None] = {}
        for info in self.registry.all():
            seen.setdefault(group_version_path(info.group, info.version))
        return list(seen)

    def v3_document(self, gv_path: str) -> dict | None:
        """`/openapi/v3/<gv_path>` (e.g. "apis/apps/v1"), or None for a path not served."""
        gv_path = gv_path.strip("/")
        if gv_path not in self.group_versions():
            return None

        def build():
            parts = gv_path.split("/")
            group, version = ("", parts[1]) if parts[0] == "api" else (parts[1], parts[2])
            paths, used = self._paths(True, self.registry.resources_in(group, version))
            schemas = closure(used, self._schemas(True), V3_PREFIX)
            return {"openapi": "3.0.0", "info": _info(), "paths": paths,
                    "components": {"schemas": schemas, "securitySchemes": _SECURITY}}
        return self._cached(("v3", gv_path), build)

    def v3(self, gv_path: str) -> bytes | None:
        gv_path = gv_path.strip("/")
        if gv_path not in self.group_versions():
            return None
        return self._cached(("v3-bytes", gv_path), lambda: encode(self.v3_document(gv_path)))

    def v3_hash(self, gv_path: str) -> str | None:
        body = self.v3(gv_path)
        return hashlib.sha512(body).hexdigest().upper() if body is not None else None

    def v3_index(self) -> dict:
        """`/openapi/v3`: where each group-version's document lives, with its content hash."""
        def build():
            return {"paths": {gv: {"serverRelativeURL": f"/openapi/v3/{gv}?hash={self.v3_hash(gv)}"}
                              for gv in sorted(self.group_versions())}}
        return self._cached("v3-index", build)

    def v3_index_bytes(self) -> bytes:
        return self._cached("v3-index-bytes", lambda: encode(self.v3_index()))
