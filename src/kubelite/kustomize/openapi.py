"""The build's OpenAPI schema (Kustomize's global one): where strategic merge patches
find merge keys and patch strategies.

Kustomize sets it once per build: the top kustomization's `openapi:` always, a base's or
component's only while none is set. A custom schema file replaces the built-in Kubernetes
definitions, except when the built-in ones were already wanted before the file was read:
a kind outside the built-in API was looked at (its scope is then taken from the full
schema, parsed later) or a patch already used the schema. Then both sets of definitions
are merged, the built-in ones read last (they win for names both define).
"""
from __future__ import annotations

from .errors import KustomizeError
from .patches import SchemaSource

# The Kubernetes OpenAPI documents Kustomize v5.5 carries (openapi: version:).
BUILTIN_OPENAPI_VERSIONS = frozenset({"v1.21.2"})


class SchemaState:
    def __init__(self) -> None:
        self.source: SchemaSource | None = None
        # the built-in definitions were wanted before any schema was set
        self.builtin_wanted = False

    def set(self, openapi: dict, text: str | None, reset: bool) -> None:
        if self.source is not None and not reset:
            return
        if text is not None:
            if "version" in openapi:
                raise KustomizeError("builtin version and custom schema provided, cannot use both")
            self.source = SchemaSource(custom_definitions(text, with_builtin=self.builtin_wanted))
            return
        version = openapi.get("version")
        if not version:
            return
        if str(version) not in BUILTIN_OPENAPI_VERSIONS:
            raise KustomizeError("the specified OpenAPI version is not built in")
        self.source = SchemaSource()

    def current(self) -> SchemaSource:
        """The schema a patch uses now (the built-in one while none is set)."""
        if self.source is None:
            self.builtin_wanted = True
            return SchemaSource()
        return self.source

    def note_kinds(self, resources) -> None:
        """Resources were read: a kind the built-in API lacks makes its definitions wanted."""
        if self.source is not None or self.builtin_wanted:
            return
        from kubelite.schema import for_kind

        for res in resources:
            gvk = res.gvk
            if for_kind(gvk.api_version, gvk.kind) is None:
                self.builtin_wanted = True
                return


def custom_definitions(text: str, with_builtin: bool):
    """The definitions of a schema file (JSON, or YAML when it does not start with `{`)."""
    import json

    from kubelite.schema import builtin_definitions
    from kubelite.schema.openapi import Definitions

    from . import yamlv3

    try:
        if text.startswith("{"):
            doc = json.loads(text)
        else:
            docs = yamlv3.load_all(text)
            doc = docs[0] if docs else None
    except (ValueError, KustomizeError) as exc:
        raise KustomizeError(f"invalid schema file: {exc}") from None
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise KustomizeError("invalid schema file: the document is not an object")
    definitions = doc.get("definitions")
    if definitions is not None and not isinstance(definitions, dict):
        raise KustomizeError("invalid schema file: definitions is not an object")
    merged = dict(definitions or {})
    if with_builtin:
        merged.update(builtin_definitions().definitions)
    return Definitions(merged)
