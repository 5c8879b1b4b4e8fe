"""What is known about types: OpenAPI definitions, patch strategies, merge keys, list types.

`for_kind(api_version, kind)` looks a built-in kind up in the Kubernetes OpenAPI definitions
shipped by the `kubernetes-validate` package (1.32 by default, to match kubectl 1.32);
`from_openapi(document, name)` builds a Schema from any OpenAPI v2 or v3 document (CRDs,
kustomize's `openapi:` field, apimachinery's test schema).
"""
from __future__ import annotations

from kubelite.schema.model import ANY, Schema
from kubelite.schema.openapi import Definitions, from_openapi
from kubelite.schema.builtin import (
    DEFAULT_VERSION,
    available_versions,
    builtin_definitions,
    for_kind,
)

__all__ = [
    "ANY",
    "DEFAULT_VERSION",
    "Definitions",
    "Schema",
    "available_versions",
    "builtin_definitions",
    "for_kind",
    "from_openapi",
]
