"""Pure rules of the Deployment controller: which ReplicaSet is new, how many pods a rollout may
add or remove, the revision annotations, the conditions, the status counts.

Objects are plain dicts; nothing here reads the cache or writes to the API. The semantics are
kube-controller-manager v1.32's (learned from its source, written anew here).
"""
from __future__ import annotations

from kubelite.jsoncopy import clone
import json
import math

from kubelite.server.controllers.podtemplate import selects

HASH_LABEL = "pod-template-hash"
REVISION = "deployment.kubernetes.io/revision"
REVISION_HISTORY = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
ROLLBACK_TO = "deprecated.deployment.rollback.to"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# Deployment annotations a ReplicaSet never inherits (the rest are copied, change-cause included).
SKIPPED_ANNOTATIONS = frozenset({LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS,
                                 ROLLBACK_TO})
MAX_HISTORY_CHARS = 2000
NO_DEADLINE = 2 ** 31 - 1

# Progressing / Available reasons, as kubectl and users read them.
NEW_RS_CREATED = "NewReplicaSetCreated"
FOUND_NEW_RS = "FoundNewReplicaSet"
RS_UPDATED = "ReplicaSetUpdated"
NEW_RS_AVAILABLE = "NewReplicaSetAvailable"
TIMED_OUT = "ProgressDeadlineExceeded"
PAUSED = "DeploymentPaused"
RESUMED = "DeploymentResumed"
FAILED_RS_CREATE = "ReplicaSetCreateError"
MIN_AVAILABLE = "MinimumReplicasAvailable"
MIN_UNAVAILABLE = "MinimumReplicasUnavailable"

_HASH_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


# -- small accessors ---------------------------------------------------------------------------

def meta(obj: dict) -> dict:
    return obj.get("metadata") or {}


def spec_replicas(obj: dict | None) -> int:
    if obj is None:
        return 0
    value = (obj.get("spec") or {}).get("replicas")
    return 1 if value is None else int(value)


def status_of(obj: dict | None, field: str) -> int:
    if obj is None:
        return 0
    return int((obj.get("status") or {}).get(field) or 0)


def annotation_int(obj: dict, key: str) -> int | None:
    value = (meta(obj).get("annotations") or {}).get(key)
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def revision_of(rs: dict) -> int:
    return annotation_int(rs, REVISION) or 0


def created_order(objs: list[dict]) -> list[dict]:
    """Oldest first; equal timestamps by name (ReplicaSetsByCreationTimestamp)."""
    return sorted(objs, key=lambda o: (meta(o).get("creationTimestamp") or "", meta(o).get("name") or ""))


def active(rss: list[dict]) -> list[dict]:
    return [rs for rs in rss if rs is not None and spec_replicas(rs) > 0]


def total_spec(rss: list[dict]) -> int:
    return sum(spec_replicas(rs) for rs in rss if rs is not None)


def total_status(rss: list[dict], field: str) -> int:
    return sum(status_of(rs, field) for rs in rss if rs is not None)


# -- the pod-template hash ---------------------------------------------------------------------

def template_hash(template: dict, collision_count: int | None = None) -> str:
    """The pod-template-hash: kube-controller-manager's own (deployment_hash) when the template
    holds only values whose Go form it reproduces; otherwise FNV-32a of the canonical JSON and the
    collision count, in the same alphabet (stable, but not the name a real cluster would give)."""
    from kubelite.server.controllers.deployment_hash import fnv32a, go_hash

    upstream = go_hash(template, collision_count)
    if upstream is not None:
        return upstream
    data = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    if collision_count is not None:
        data += str(int(collision_count)).encode()
    return "".join(_HASH_ALPHABET[ord(ch) % len(_HASH_ALPHABET)] for ch in str(fnv32a(data)))


def without_hash(template: dict) -> dict:
    """The template minus its pod-template-hash label (and the null creationTimestamp Go adds):
    a shallow copy, only the metadata rebuilt, for comparing."""
    template = template or {}
    md = dict(template.get("metadata") or {})
    md.pop("creationTimestamp", None)
    labels = md.get("labels")
    if labels and HASH_LABEL in labels:
        labels = {k: v for k, v in labels.items() if k != HASH_LABEL}
        if labels:
            md["labels"] = labels
        else:
            del md["labels"]
    out = {k: v for k, v in template.items() if k != "metadata"}
    if md:
        out["metadata"] = md
    return out


def same_template(a: dict, b: dict) -> bool:
    """Templates equal but for the pod-template-hash label (EqualIgnoreHash)."""
    return without_hash(a) == without_hash(b)


# -- which ReplicaSets ---------------------------------------------------------------------------

def find_new(deployment: dict, rss: list[dict]) -> dict | None:
    """The oldest ReplicaSet whose template is the Deployment's."""
    wanted = without_hash((deployment.get("spec") or {}).get("template") or {})
    for rs in created_order(rss):
        if without_hash((rs.get("spec") or {}).get("template") or {}) == wanted:
            return rs
    return None


def find_old(deployment: dict, rss: list[dict]) -> list[dict]:
    new = find_new(deployment, rss)
    new_uid = meta(new).get("uid") if new else None
    return [rs for rs in rss if meta(rs).get("uid") != new_uid]


def active_or_latest(new: dict | None, olds: list[dict]) -> dict | None:
    """The one ReplicaSet with pods, or the newest when none has any; None if several have."""
    olds = created_order(olds)
    running = active(olds + [new])
    if not running:
        if new is not None:
            return new
        return olds[-1] if olds else None
    if len(running) == 1:
        return running[0]
    return None


# -- rollout arithmetic ----------------------------------------------------------------------------

def is_rolling(deployment: dict) -> bool:
    strategy = (deployment.get("spec") or {}).get("strategy") or {}
    return strategy.get("type", "RollingUpdate") == "RollingUpdate"


def scaled_value(value, total: int, round_up: bool) -> int:
    """An int-or-percent against `total` (GetScaledValueFromIntOrPercent)."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    text = str(value)
    if text.endswith("%"):
        try:
            pct = int(text[:-1])
        except ValueError:
            return 0
        exact = pct * total / 100
        return math.ceil(exact) if round_up else math.floor(exact)
    try:
        return int(text)
    except ValueError:
        return 0


def fenceposts(deployment: dict) -> tuple[int, int]:
    """(maxSurge, maxUnavailable) resolved against spec.replicas; never both 0."""
    rolling = ((deployment.get("spec") or {}).get("strategy") or {}).get("rollingUpdate") or {}
    desired = spec_replicas(deployment)
    surge = scaled_value(rolling.get("maxSurge", "25%"), desired, True)
    unavailable = scaled_value(rolling.get("maxUnavailable", "25%"), desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_surge(deployment: dict) -> int:
    return fenceposts(deployment)[0] if is_rolling(deployment) else 0


def max_unavailable(deployment: dict) -> int:
    desired = spec_replicas(deployment)
    if not is_rolling(deployment) or desired == 0:
        return 0
    return min(fenceposts(deployment)[1], desired)


def new_rs_replicas(deployment: dict, all_rss: list[dict], new: dict) -> int:
    """How big the new ReplicaSet may be now (NewRSNewReplicas)."""
    desired = spec_replicas(deployment)
    if not is_rolling(deployment):
        return desired
    current = spec_replicas(new)
    if current == desired:
        return current
    room = desired + max_surge(deployment) - total_spec(all_rss)
    if room <= 0:
        return current
    return current + min(room, desired - current)


def is_saturated(deployment: dict, rs: dict | None) -> bool:
    if rs is None:
        return False
    desired = spec_replicas(deployment)
    return (spec_replicas(rs) == desired and annotation_int(rs, DESIRED_REPLICAS) == desired
            and status_of(rs, "availableReplicas") == desired)


def proportion(rs: dict, deployment: dict, to_add: int, added: int) -> int:
    """Share of a proportional scale for one ReplicaSet (GetProportion)."""
    if rs is None or spec_replicas(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = _fraction(rs, deployment)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def _fraction(rs: dict, deployment: dict) -> int:
    desired = spec_replicas(deployment)
    if desired == 0:
        return -spec_replicas(rs)
    target = desired + max_surge(deployment)
    annotated = annotation_int(rs, MAX_REPLICAS)
    if annotated is None:
        annotated = status_of(deployment, "replicas")
    if not annotated:
        return 0
    # Go rounds half away from zero.
    size = spec_replicas(rs) * target / annotated
    return int(math.floor(size + 0.5) if size >= 0 else math.ceil(size - 0.5)) - spec_replicas(rs)


# -- annotations -------------------------------------------------------------------------------

def replicas_annotations_differ(rs: dict, desired: int, max_replicas: int) -> bool:
    ann = meta(rs).get("annotations") or {}
    return ann.get(DESIRED_REPLICAS) != str(desired) or ann.get(MAX_REPLICAS) != str(max_replicas)


def set_replicas_annotations(rs: dict, desired: int, max_replicas: int) -> bool:
    ann = rs["metadata"].setdefault("annotations", {})
    changed = ann.get(DESIRED_REPLICAS) != str(desired) or ann.get(MAX_REPLICAS) != str(max_replicas)
    ann[DESIRED_REPLICAS] = str(desired)
    ann[MAX_REPLICAS] = str(max_replicas)
    return changed


def copy_annotations_to_rs(deployment: dict, rs: dict) -> bool:
    ann = rs["metadata"].setdefault("annotations", {})
    changed = False
    for key, value in (meta(deployment).get("annotations") or {}).items():
        if key in SKIPPED_ANNOTATIONS or ann.get(key) == value:
            continue
        ann[key] = value
        changed = True
    return changed


def set_new_rs_annotations(deployment: dict, rs: dict, new_revision: int, exists: bool) -> bool:
    """Copy the Deployment's annotations and move the revision forward, recording the one it
    had in revision-history (bounded to 2000 characters, oldest dropped first)."""
    changed = copy_annotations_to_rs(deployment, rs)
    ann = rs["metadata"].setdefault("annotations", {})
    old_text = ann.get(REVISION)
    try:
        old = int(old_text) if old_text else 0
    except ValueError:
        return False
    if old < new_revision:
        ann[REVISION] = str(new_revision)
        changed = True
        if old_text:
            history = ann.get(REVISION_HISTORY) or ""
            ann[REVISION_HISTORY] = _append_history(history, old_text)
    if not exists:
        desired = spec_replicas(deployment)
        if set_replicas_annotations(rs, desired, desired + max_surge(deployment)):
            changed = True
    return changed


def _append_history(history: str, revision: str) -> str:
    if not history:
        return revision
    parts = history.split(",")
    total = len(history) + len(revision) + 1
    start = 0
    while total > MAX_HISTORY_CHARS and start < len(parts):
        total -= len(parts[start]) + 1
        start += 1
    if total > MAX_HISTORY_CHARS:
        return history
    return ",".join(parts[start:] + [revision])


def set_deployment_revision(deployment: dict, revision: str | None) -> bool:
    if revision is None:
        return False
    ann = deployment["metadata"].setdefault("annotations", {})
    if ann.get(REVISION) == revision:
        return False
    ann[REVISION] = revision
    return True


# -- conditions ----------------------------------------------------------------------------------

def get_condition(status: dict, kind: str) -> dict | None:
    for cond in status.get("conditions") or []:
        if cond.get("type") == kind:
            return cond
    return None


def new_condition(kind: str, status: str, reason: str, message: str, now: str) -> dict:
    return {"type": kind, "status": status, "lastUpdateTime": now, "lastTransitionTime": now,
            "reason": reason, "message": message}


def set_condition(status: dict, cond: dict) -> None:
    """Replace the condition of its type (moved to the end); unchanged if status and reason are
    the same; the transition time kept when only the reason changes."""
    current = get_condition(status, cond["type"])
    if current is not None and current.get("status") == cond["status"] and current.get("reason") == cond["reason"]:
        return
    if current is not None and current.get("status") == cond["status"]:
        cond = {**cond, "lastTransitionTime": current.get("lastTransitionTime")}
    status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != cond["type"]] + [cond]


def remove_condition(status: dict, kind: str) -> None:
    conditions = [c for c in status.get("conditions") or [] if c.get("type") != kind]
    if conditions:
        status["conditions"] = conditions
    else:
        status.pop("conditions", None)


def has_deadline(deployment: dict) -> bool:
    value = (deployment.get("spec") or {}).get("progressDeadlineSeconds")
    return value is not None and value != NO_DEADLINE


# -- status --------------------------------------------------------------------------------------

def calculate_status(all_rss: list[dict], new: dict | None, deployment: dict, now: str) -> dict:
    """The Deployment's status from its ReplicaSets (zero counts left out, as Go's omitempty)."""
    available = total_status(all_rss, "availableReplicas")
    total = total_spec(all_rss)
    old = deployment.get("status") or {}
    counts = {
        "observedGeneration": meta(deployment).get("generation") or 0,
        "replicas": total_status(all_rss, "replicas"),
        "updatedReplicas": total_status([new], "replicas"),
        "readyReplicas": total_status(all_rss, "readyReplicas"),
        "availableReplicas": available,
        "unavailableReplicas": max(total - available, 0),
    }
    status = {k: v for k, v in counts.items() if v}
    if old.get("collisionCount") is not None:
        status["collisionCount"] = old["collisionCount"]
    if old.get("conditions"):
        status["conditions"] = clone(old["conditions"])
    if available >= spec_replicas(deployment) - max_unavailable(deployment):
        set_condition(status, new_condition("Available", "True", MIN_AVAILABLE, "Deployment has minimum availability.",
                                            now))
    else:
        set_condition(status, new_condition("Available", "False", MIN_UNAVAILABLE,
                                            "Deployment does not have minimum availability.", now))
    return status


def complete(deployment: dict, status: dict) -> bool:
    desired = spec_replicas(deployment)
    return (int(status.get("updatedReplicas") or 0) == desired and int(status.get("replicas") or 0) == desired
            and int(status.get("availableReplicas") or 0) == desired
            and int(status.get("observedGeneration") or 0) >= (meta(deployment).get("generation") or 0))


def progressing(deployment: dict, status: dict) -> bool:
    old = deployment.get("status") or {}

    def n(s, f):
        return int(s.get(f) or 0)

    old_old = n(old, "replicas") - n(old, "updatedReplicas")
    new_old = n(status, "replicas") - n(status, "updatedReplicas")
    return (n(status, "updatedReplicas") > n(old, "updatedReplicas") or new_old < old_old
            or n(status, "readyReplicas") > n(old, "readyReplicas")
            or n(status, "availableReplicas") > n(old, "availableReplicas"))


def timed_out(deployment: dict, status: dict, now: float) -> bool:
    from kubelite.server.clock import parse_time

    if not has_deadline(deployment):
        return False
    cond = get_condition(status, "Progressing")
    if cond is None or cond.get("reason") == NEW_RS_AVAILABLE:
        return False
    if cond.get("reason") == TIMED_OUT:
        return True
    since = parse_time(cond.get("lastUpdateTime"))
    deadline = (deployment.get("spec") or {}).get("progressDeadlineSeconds") or 0
    return since is not None and since + deadline < now


def selects_rs(deployment: dict, rs: dict) -> bool:
    return selects((deployment.get("spec") or {}).get("selector"), meta(rs).get("labels"))
