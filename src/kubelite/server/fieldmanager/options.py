"""PatchOptions checks of server-side apply: fieldManager is required, force only with apply."""
from __future__ import annotations

from kubelite.server import errors

APPLY_PATCH = "application/apply-patch+yaml"


def parse_force(value: str | None) -> bool:
    return value is not None and value.lower() in ("true", "t", "1")  # Go's ParseBool


def check_patch(query, content_type: str, opts) -> None:
    if content_type == APPLY_PATCH:
        if not query.get("fieldManager"):
            raise _invalid("fieldManager", "FieldValueRequired", "Required value: is required for apply patch")
    elif query.get("force") is not None:
        raise _invalid("force", "FieldValueForbidden", "Forbidden: may not be specified for non-apply patch")


def default_manager(query, user_agent: str | None) -> str:
    """The manager of a write without fieldManager: the User-Agent's product name."""
    from kubelite.server.fieldmanager.manager import manager_from_user_agent

    return query.get("fieldManager") or manager_from_user_agent(user_agent or "")


def _invalid(field: str, reason: str, message: str) -> errors.StatusError:
    return errors.StatusError(
        422, "Invalid", f'PatchOptions.meta.k8s.io "" is invalid: {field}: {message}',
        group="meta.k8s.io", kind="PatchOptions", causes=[{"reason": reason, "message": message, "field": field}])
