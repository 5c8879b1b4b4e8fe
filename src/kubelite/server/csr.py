"""CertificateSigningRequests as kube-apiserver's registry strategies keep them
(pkg/registry/certificates/certificates/strategy.go, pkg/apis/certificates/validation).

- create: spec.username/uid/groups/extra name the requesting user whatever the body said, and
  the status starts empty (nobody creates a pre-approved request);
- an update of the object itself changes neither spec nor status;
- `/approval` changes only status.conditions (Approved, Denied, ...), `/status` everything in
  the status but the approval conditions (so issuing a certificate cannot approve it);
- a condition without lastUpdateTime gets now; without lastTransitionTime it keeps the one of
  the same type and status before, or gets now;
- Approved and Denied exclude each other, a condition type appears once, and once given an
  Approved, Denied or Failed condition is never taken back.
"""
from __future__ import annotations

from kubelite.jsoncopy import clone
from kubelite.server import errors

GROUP, RESOURCE, KIND = "certificates.k8s.io", "certificatesigningrequests", "CertificateSigningRequest"
APPROVAL_TYPES = ("Approved", "Denied")
_PERMANENT = ("Approved", "Denied", "Failed")


def handles(r) -> bool:
    return r.group == GROUP and r.resource == RESOURCE


def prepare_create(obj: dict, user) -> None:
    """Who asks is recorded from the request, never taken from the body (in place)."""
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    for key in ("username", "uid", "groups", "extra"):
        spec.pop(key, None)
    if user is not None:
        spec.update(user.to_api())
    obj["status"] = {}


def prepare_update(old: dict, new: dict, subresource: str, now: str) -> dict:
    """The object an update of the CSR (`subresource` "", "status" or "approval") stores."""
    out = clone(old)
    if subresource == "":
        out["metadata"] = new.get("metadata") or {}
        return out
    status = new.get("status") if isinstance(new.get("status"), dict) else {}
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
    old_conditions = (old.get("status") or {}).get("conditions") or []
    if subresource == "approval":
        merged = conditions
    else:  # status: the approval conditions stay as they were
        merged = [c for c in old_conditions if c.get("type") in APPROVAL_TYPES]
        merged += [c for c in conditions if c.get("type") not in APPROVAL_TYPES]
        out["status"] = {k: v for k, v in status.items() if k != "conditions"}
    _stamp(merged, old_conditions, now)
    _validate(old, merged, old_conditions)
    out.setdefault("status", {})
    if merged:
        out["status"]["conditions"] = merged
    else:
        out["status"].pop("conditions", None)
    return out


def _stamp(conditions: list[dict], old_conditions: list[dict], now: str) -> None:
    for condition in conditions:
        condition.setdefault("lastUpdateTime", now)
        if condition.get("lastTransitionTime"):
            continue
        before = next((c for c in old_conditions if c.get("type") == condition.get("type")
                       and c.get("status") == condition.get("status") and c.get("lastTransitionTime")), None)
        condition["lastTransitionTime"] = before["lastTransitionTime"] if before else now


def _validate(old: dict, conditions: list[dict], old_conditions: list[dict]) -> None:
    causes = []
    seen: dict[str, int] = {}
    for i, condition in enumerate(conditions):
        kind, status = condition.get("type"), condition.get("status")
        where = f"status.conditions[{i}]"
        if not kind:
            causes.append(_cause("FieldValueRequired", f"{where}.type", "Required value"))
        elif kind in seen:
            causes.append(_cause("FieldValueDuplicate", f"{where}.type", f'Duplicate value: "{kind}"'))
        else:
            seen[kind] = i
        if kind in _PERMANENT and status != "True":
            causes.append(_cause("FieldValueNotSupported", f"{where}.status",
                                 f'Unsupported value: "{status}": supported values: "True"'))
        elif status not in ("True", "False", "Unknown"):
            causes.append(_cause("FieldValueNotSupported", f"{where}.status",
                                 f'Unsupported value: "{status}": supported values: "False", "True", "Unknown"'))
    if "Approved" in seen and "Denied" in seen:
        causes.append(_cause("FieldValueInvalid", "status.conditions",
                             "Invalid value: \"Approved\": Approved and Denied conditions are mutually exclusive"))
    for kind in _PERMANENT:
        if any(c.get("type") == kind and c.get("status") == "True" for c in old_conditions) and kind not in seen:
            causes.append(_cause("FieldValueForbidden", "status.conditions",
                                 f"Forbidden: updates may not remove a condition of type {kind!r}"
                                 .replace("'", '"')))
    if causes:
        raise errors.invalid(GROUP, KIND, old["metadata"]["name"], causes)


def _cause(reason: str, field: str, message: str) -> dict:
    return {"reason": reason, "message": message, "field": field}
