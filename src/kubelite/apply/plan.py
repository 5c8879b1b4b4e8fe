"""Deciding, per object, what client-side apply does: create, patch, or nothing.

Pure: given the configuration object (namespace already settled) and the live object (or
None), `plan_object` returns the Action kubectl would take, with the exact body it sends.
"""
from __future__ import annotations

from kubelite.apply import lastapplied
from kubelite.apply.patching import Patch, builtin_schema, three_way
from kubelite.record import Record, factory

CREATE, PATCH, UNCHANGED, PRUNE = "created", "configured", "unchanged", "pruned"


class Action(Record):
    verb: str                      # created / configured / unchanged / pruned
    body: dict | None = None       # object to create
    patch: Patch | None = None     # patch to send
    annotation: str | None = None  # the last-applied text this apply writes
    warnings: list[str] = factory(list)


def missing_annotation_warning(object_name: str, base: str = "kubectl") -> str:
    """kubectl's warning when apply meets an object it did not create."""
    return (f"Warning: resource {object_name} is missing the {lastapplied.LAST_APPLIED} annotation "
            f"which is required by {base} apply. {base} apply should only be used on resources created "
            f"declaratively by either {base} create --save-config or {base} apply. The missing "
            "annotation will be patched automatically.")


def plan_object(config: dict, live: dict | None, *, overwrite: bool = True, schema_for=builtin_schema,
                object_name: str = "", base: str = "kubectl") -> Action:
    modified, text = lastapplied.modified_configuration(config)
    if live is None:
        return Action(CREATE, body=lastapplied.object_to_create(config, modified), annotation=text)
    warnings = []
    original_text = lastapplied.original_configuration(live)
    if original_text is None:
        warnings.append(missing_annotation_warning(object_name, base))
    original = lastapplied.parse_original(original_text)
    # both parsed and copied above for this diff alone
    patch = three_way(original, modified, live, overwrite=overwrite, schema_for=schema_for, disposable=True)
    verb = UNCHANGED if patch.empty else PATCH
    return Action(verb, patch=patch, annotation=text, warnings=warnings)
