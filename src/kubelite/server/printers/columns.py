"""Column definitions of server-side Tables.

A column's description is either literal text or a reference to the documentation of an
API field (resolved from the Kubernetes 1.32 OpenAPI definitions shipped with
kubernetes-validate), which is where kube-apiserver's own descriptions come from.
"""
from __future__ import annotations

import functools
import json
import os

from kubelite.record import FrozenRecord

META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
CORE = "io.k8s.api.core.v1."
APPS = "io.k8s.api.apps.v1."
BATCH = "io.k8s.api.batch.v1."


# Frozen records, not dataclasses (their import and the methods they compile at every start),
# with an __init__ of their own: every printer's columns are built at import.
class Doc(FrozenRecord):
    """The description of field `field` of OpenAPI definition `definition`."""

    definition: str
    field: str

    def __init__(self, definition: str, field: str):
        self._set("definition", definition)
        self._set("field", field)


Description = "str | Doc"  # (annotations only)


class Column(FrozenRecord):
    name: str
    type: str
    description: Description
    priority: int = 0
    format: str = ""

    def __init__(self, name: str, type: str, description: Description, priority: int = 0, format: str = ""):
        self._set("name", name)
        self._set("type", type)
        self._set("description", description)
        self._set("priority", priority)
        self._set("format", format)

    def definition(self) -> dict:
        return {"name": self.name, "type": self.type, "format": self.format,
                "description": describe(self.description), "priority": self.priority}


@functools.cache
def _extract() -> dict[str, dict[str, str]]:
    # The printers' descriptions, taken from the definitions by tools/gen_column_docs.py: loading
    # the definitions themselves was ~8 ms of every command that asks for a Table.
    path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "column_docs.json")
    with open(path, "rb") as f:
        return json.loads(f.read())


@functools.lru_cache(maxsize=None)
def _field_docs(definition: str, field: str) -> str:
    extracted = _extract().get(definition, {}).get(field)
    if extracted is not None:
        return extracted
    from kubelite.schema.builtin import builtin_definitions

    node = builtin_definitions("1.32").definitions.get(definition) or {}
    prop = (node.get("properties") or {}).get(field) or {}
    return prop.get("description", "")


def describe(description: Description) -> str:
    if isinstance(description, Doc):
        return _field_docs(description.definition, description.field)
    return description


def col(name: str, description: Description, type_: str = "string", priority: int = 0,
        format_: str = "") -> Column:
    return Column(name, type_, description, priority, format_)


NAME = col("Name", Doc(META, "name"), format_="name")
AGE = col("Age", Doc(META, "creationTimestamp"))
CONTAINERS = col("Containers", "Names of each container in the template.", priority=1)
IMAGES = col("Images", "Images referenced by each container in the template.", priority=1)

# Default convertor (kinds without a printer) and custom resources without printer columns.
CREATED_AT = col("Created At", Doc(META, "creationTimestamp"), "date")
AGE_DATE = col("Age", Doc(META, "creationTimestamp"), "date")
