"""managedFields for every write and server-side apply (kube-apiserver's field manager)."""
from kubelite.server.fieldmanager.manager import (
    BEFORE_FIRST_APPLY,
    FieldManager,
    conflict_error,
    manager_from_user_agent,
)

__all__ = ["BEFORE_FIRST_APPLY", "FieldManager", "conflict_error", "manager_from_user_agent"]
