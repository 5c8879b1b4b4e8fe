"""OpenAPI documents: v2 (`definitions`), v3 (`components.schemas`) and JSON-Schema `$defs`."""
from __future__ import annotations

import json

from kubelite.schema.model import Schema

TYPE_CHECKING = False  # typing for annotations only: a short command's start does without it
if TYPE_CHECKING:
    from typing import Any


class SchemaError(ValueError):
    """An OpenAPI document or definition name that cannot be used."""


class Definitions:
    """The named schemas of one OpenAPI document, with `$ref` lookup and a kind index."""

    def __init__(self, definitions: dict[str, dict]):
        self.definitions = definitions
        self._roots: dict[str, Schema] = {}
        self._gvk: dict[tuple[str, str, str], str] | None = None

    @classmethod
    def from_document(cls, document: dict | str | bytes) -> "Definitions":
        if isinstance(document, (str, bytes)):
            document = _parse_document(document)
        if not isinstance(document, dict):
            raise SchemaError("OpenAPI document must be a mapping")
        for path in (("definitions",), ("components", "schemas"), ("$defs",)):
            node: Any = document
            for key in path:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, dict):
                return cls(node)
        raise SchemaError("OpenAPI document has neither 'definitions' nor 'components.schemas'")

    def lookup(self, ref: str) -> tuple[str, dict | None]:
        """Resolve a `$ref` (any of `#/definitions/X`, `#/components/schemas/X`, `file#/$defs/X`)."""
        name = ref.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
        return name, self.definitions.get(name)

    def schema(self, name: str) -> Schema:
        """The Schema of definition `name` (cached: the lazily built tree is shared)."""
        root = self._roots.get(name)
        if root is None:
            node = self.definitions.get(name)
            if node is None:
                raise SchemaError(f"definition {name!r} not found in OpenAPI document")
            root = Schema(self, node)
            root.name = name
            self._roots[name] = root
        return root

    def name_for_kind(self, group: str, version: str, kind: str) -> str | None:
        """The definition declaring x-kubernetes-group-version-kind (group, version, kind)."""
        if self._gvk is None:
            index: dict[tuple[str, str, str], str] = {}
            for name, node in self.definitions.items():
                gvks = node.get("x-kubernetes-group-version-kind") if isinstance(node, dict) else None
                for gvk in gvks or ():
                    key = (gvk.get("group", ""), gvk.get("version", ""), gvk.get("kind", ""))
                    # Several definitions (DeleteOptions, WatchEvent) claim many kinds; the
                    # first definition naming a kind as its own wins.
                    index.setdefault(key, name)
            self._gvk = index
        return self._gvk.get((group, version, kind))

    def for_kind(self, api_version: str, kind: str) -> Schema | None:
        group, _, version = api_version.rpartition("/")
        name = self.name_for_kind(group, version, kind)
        return self.schema(name) if name else None


def _parse_document(text: str | bytes) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        # Some published OpenAPI files are JSON with trailing commas; YAML reads them.
        import yaml

        try:
            return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except yaml.YAMLError as err:
            raise SchemaError(f"OpenAPI document is neither JSON nor YAML: {err}") from None


def from_openapi(document: dict | str | bytes | Definitions, definition_name: str) -> Schema:
    """A Schema for `definition_name` in an OpenAPI v2 or v3 document (dict or its text)."""
    defs = document if isinstance(document, Definitions) else Definitions.from_document(document)
    return defs.schema(definition_name)
