"""The Schema node: one resolved OpenAPI schema plus the patch metadata of the field leading to it.

Patch metadata (`x-kubernetes-patch-strategy`, `-patch-merge-key`) lives on the *field* that
holds a value, not on the value's type, exactly as apimachinery looks it up
(`LookupPatchMetadataForStruct/ForSlice`). A Schema returned by `field(name)` therefore carries
the extensions found on that property and along its `$ref` / single-`allOf` chain, the
outermost winning.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing's import for annotations only: a short command's start does without it

if TYPE_CHECKING:  # pragma: no cover
    from typing import Iterable

    from kubelite.schema.openapi import Definitions

OBJECT = "object"  # a struct: known properties
MAP = "map"  # free-form keys with one value type (additionalProperties), e.g. labels
LIST = "list"
PRIMITIVE = "primitive"
ANY = "any"  # nothing known: arbitrary JSON (no type, or x-kubernetes-preserve-unknown-fields)
_UNSET = object()

_EXTENSIONS = (
    "x-kubernetes-patch-strategy",
    "x-kubernetes-patch-merge-key",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
)


class Schema:
    """What is known about the value at one field path.

    Attributes:
      type: one of "object", "map", "list", "primitive", "any".
      patch_strategy: the field's strategies, e.g. ("merge",), ("retainKeys",),
        ("merge", "retainKeys"), ("replace",); () when the field declares none (lists are then
        replaced atomically).
      merge_key: the field's x-kubernetes-patch-merge-key, or None.
      list_type / map_keys: x-kubernetes-list-type ("atomic", "set", "map") and its keys.
      int_or_string, preserve_unknown_fields, embedded_resource: the extensions of that name.
      name: the definition name the value resolved to (e.g. "io.k8s.api.core.v1.Container").
    """

    __slots__ = (
        "_defs",
        "_node",
        "_children",
        "_other",
        "_items",
        "type",
        "name",
        "patch_strategy",
        "merge_key",
        "list_type",
        "map_keys",
        "map_type",
        "int_or_string",
        "preserve_unknown_fields",
        "embedded_resource",
        "nullable",
    )

    def __init__(self, defs: "Definitions | None", node: dict, extensions: dict | None = None):
        self._defs = defs
        self._children: dict[str, Schema | None] = {}  # the declared properties looked up so far
        self._other: Schema | None | object = _UNSET  # every other key's (one for all of them)
        self._items: Schema | None = None
        ext: dict = dict(extensions or {})
        name = None
        node, name, nullable = _resolve(defs, node, ext)
        self._node = node
        self.name = name
        self.nullable = nullable
        strategy = ext.get("x-kubernetes-patch-strategy") or ""
        self.patch_strategy: tuple[str, ...] = tuple(s for s in strategy.split(",") if s)
        self.merge_key: str | None = ext.get("x-kubernetes-patch-merge-key") or None
        self.list_type: str | None = ext.get("x-kubernetes-list-type")
        self.map_keys: tuple[str, ...] = tuple(ext.get("x-kubernetes-list-map-keys") or ())
        self.map_type: str | None = ext.get("x-kubernetes-map-type")
        self.preserve_unknown_fields = bool(ext.get("x-kubernetes-preserve-unknown-fields"))
        self.embedded_resource = bool(ext.get("x-kubernetes-embedded-resource"))
        self.int_or_string = bool(ext.get("x-kubernetes-int-or-string")) or _is_int_or_string(node)
        self.type = _classify(node, self.int_or_string, self.preserve_unknown_fields)

    # -- navigation -------------------------------------------------------------------------
    def field(self, name: str) -> "Schema | None":
        """The schema of field `name` of this value, or None when the field is unknown.

        For a map, every key has the additionalProperties schema; for "any", every field is
        "any"; for an object with x-kubernetes-preserve-unknown-fields, unknown fields are "any".
        """
        child = self._children.get(name, _UNSET)  # (no KeyError raised for every map key)
        if child is not _UNSET:
            return child
        if self.type == OBJECT:
            prop = (self._node.get("properties") or {}).get(name)
            if prop is not None:
                child = self._children[name] = Schema(self._defs, prop)
                return child
        # Any other key (a map's, an unknown field's) has the same schema: one for all of them.
        # Kept per key, a long-running server held one for every label, annotation and data key
        # it had ever seen.
        other = self._other
        if other is _UNSET:
            other = self._other = self._other_keys()
        return other

    def _other_keys(self) -> "Schema | None":
        """The schema of the keys that are not declared properties (None: no such key is valid)."""
        node = self._node
        if self.type == OBJECT:
            extra = node.get("additionalProperties")
            if isinstance(extra, dict):
                return Schema(self._defs, extra)
            if extra is True or self.preserve_unknown_fields:
                return Schema(None, {}, {"x-kubernetes-preserve-unknown-fields": True})
            return None
        if self.type == MAP:
            extra = node.get("additionalProperties")
            return Schema(self._defs, extra if isinstance(extra, dict) else {})
        if self.type == ANY:
            return Schema(None, {})
        return None

    def items(self) -> "Schema":
        """The element schema of a list.

        For a non-list value, the value's own schema without its field metadata: apimachinery
        does the same when a list appears where the type says struct (a pointer field).
        """
        if self._items is None:
            if self.type == LIST:
                self._items = Schema(self._defs, self._node.get("items") or {})
            elif self.type == ANY:
                self._items = Schema(None, {})
            else:
                self._items = Schema(self._defs, self._node)
                self._items.name = self.name
        return self._items

    def at(self, path: Iterable[str]) -> "Schema | None":
        """Follow a field path (list elements are entered with "[]" or any integer index)."""
        node: Schema | None = self
        for step in path:
            if node is None:
                return None
            if step == "[]" or isinstance(step, int) or (isinstance(step, str) and step.isdigit() and node.type == LIST):
                node = node.items()
            else:
                node = node.field(step)
        return node

    # -- facts ------------------------------------------------------------------------------
    @property
    def properties(self) -> tuple[str, ...]:
        """Known property names of an object (empty for other types)."""
        return tuple((self._node.get("properties") or {}).keys()) if self.type == OBJECT else ()

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(self._node.get("required") or ())

    @property
    def node(self) -> dict:
        """The resolved OpenAPI node (read-only by convention)."""
        return self._node

    @property
    def is_merge_list(self) -> bool:
        return "merge" in self.patch_strategy

    @property
    def retains_keys(self) -> bool:
        return "retainKeys" in self.patch_strategy

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        bits = [self.type]
        if self.name:
            bits.append(self.name)
        if self.patch_strategy:
            bits.append("strategy=" + ",".join(self.patch_strategy))
        if self.merge_key:
            bits.append("mergeKey=" + self.merge_key)
        if self.list_type:
            bits.append("listType=" + self.list_type)
        return f"<Schema {' '.join(bits)}>"


def _resolve(defs: "Definitions | None", node: dict, ext: dict) -> tuple[dict, str | None, bool]:
    """Follow `$ref` and single-element `allOf` wrappers, collecting extensions (outer wins)."""
    name = None
    nullable = False
    seen: set[str] = set()
    while True:
        for key in _EXTENSIONS:
            if key in node and key not in ext:
                ext[key] = node[key]
        if node.get("nullable"):
            nullable = True
        ref = node.get("$ref")
        if ref is None:
            all_of = node.get("allOf")
            if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict) \
                    and "properties" not in node and "type" not in node:
                node = all_of[0]
                continue
            return node, name, nullable
        if defs is None or ref in seen:
            return {}, name, nullable
        seen.add(ref)
        name, target = defs.lookup(ref)
        if target is None:
            return {}, name, nullable
        node = target


def _types(node: dict) -> list[str]:
    t = node.get("type")
    if t is None:
        return []
    if isinstance(t, str):
        return [t]
    return [x for x in t if x != "null"]


def _is_int_or_string(node: dict) -> bool:
    if node.get("format") == "int-or-string":
        return True
    variants = node.get("oneOf") or node.get("anyOf")
    if isinstance(variants, list) and variants:
        kinds = set()
        for v in variants:
            if not isinstance(v, dict):
                return False
            kinds.update(_types(v))
        return kinds == {"string", "integer"}
    return False


def _classify(node: dict, int_or_string: bool, preserve: bool) -> str:
    if int_or_string:
        return PRIMITIVE
    types = _types(node)
    if len(types) > 1:
        return ANY
    if not types:
        # Older OpenAPI documents leave out `type: object` on structs.
        if node.get("properties") is not None:
            return OBJECT
        if isinstance(node.get("additionalProperties"), (dict, bool)) and node.get("additionalProperties"):
            return MAP
        if "items" in node:
            return LIST
        return ANY
    t = types[0]
    if t == "object":
        if node.get("properties") is not None:
            return OBJECT
        if preserve and not node.get("additionalProperties"):
            return ANY
        return MAP
    if t == "array":
        return LIST
    return PRIMITIVE
