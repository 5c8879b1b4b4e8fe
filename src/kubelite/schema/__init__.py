"""What is known about types: OpenAPI definitions, patch strategies, merge keys, list types.

`for_kind(api_version, kind)` looks a built-in kind up in the Kubernetes OpenAPI definitions
shipped by the `kubernetes-validate` package (1.32 by default, to match kubectl 1.32);
`from_openapi(document, name)` builds a Schema from any OpenAPI v2 or v3 document (CRDs,
kustomize's `openapi:` field, apimachinery's test schema).
"""
from __future__ import annotations

from kubelite.lazyexports import exports

# Each name is imported when first asked for: goorder and gojson (every served answer) come
# through this package, and the definitions' modules are a write's or a patch's to load.
_HOMES = {"ANY": "model", "Schema": "model", "Definitions": "openapi", "from_openapi": "openapi",
          "DEFAULT_VERSION": "builtin", "available_versions": "builtin", "builtin_definitions": "builtin",
          "for_kind": "builtin"}

__getattr__, __dir__ = exports(__name__, _HOMES, globals())

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
