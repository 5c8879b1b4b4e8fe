"""The steps of a Deployment sync: which ReplicaSet is new (and its revision), a proportional
scale, a RollingUpdate step, a Recreate step, old-revision cleanup, and the status with its
Progressing/Available conditions and the progress deadline on the cluster's clock.

Functions take the controller (`dc`) for its cache, client, events, queue and clock.
"""
from __future__ import annotations

from kubelite.jsoncopy import clone

from kubelite.server.controllers import deployment_util as du
from kubelite.server.controllers.base import object_key

RS = "apps/replicasets"


# -- new and old ReplicaSets ---------------------------------------------------------------------

def new_and_old(dc, d: dict, rss: list[dict], create: bool) -> tuple[dict | None, list[dict], dict]:
    """(new ReplicaSet or None, old ones, the Deployment as last written). The new one's revision
    is moved past the old ones' and copied to the Deployment; it is created if asked."""
    olds = du.find_old(d, rss)
    existing = du.find_new(d, rss)
    revision = max((du.revision_of(rs) for rs in olds), default=0) + 1
    if existing is not None:
        return _sync_existing(dc, d, existing, revision), olds, d
    if not create:
        return None, olds, d
    created = dc.create_rs(d, olds, revision)
    if created is None:
        return None, olds, d
    size = du.spec_replicas(created)
    if size > 0:
        dc.events.normal(d, "ScalingReplicaSet",
                         f"Scaled up replica set {created['metadata']['name']} from 0 to {size}")
    changed = du.set_deployment_revision(d, str(revision))
    if du.has_deadline(d):
        du.set_condition(d.setdefault("status", {}), du.new_condition(
            "Progressing", "True", du.NEW_RS_CREATED, f'Created new replica set "{created["metadata"]["name"]}"',
            dc.clock.rfc3339()))
        changed = True
    if changed:
        d = dc.write_status(d)
    return created, olds, d


def _sync_existing(dc, d: dict, rs: dict, revision: int) -> dict:
    # Only metadata and the top of spec may change here: the (large) template stays shared.
    copy_ = {**rs, "metadata": clone(rs["metadata"]), "spec": dict(rs.get("spec") or {})}
    annotations_changed = du.set_new_rs_annotations(d, copy_, revision, exists=True)
    min_ready = (d.get("spec") or {}).get("minReadySeconds") or 0
    if annotations_changed or ((copy_.get("spec") or {}).get("minReadySeconds") or 0) != min_ready:
        if min_ready:
            copy_["spec"]["minReadySeconds"] = min_ready
        else:
            copy_["spec"].pop("minReadySeconds", None)
        ann = copy_["metadata"].get("annotations")
        if ann:
            copy_["metadata"]["annotations"] = dict(sorted(ann.items()))
        return dc.client.update(RS, copy_)
    changed = du.set_deployment_revision(d, (copy_["metadata"].get("annotations") or {}).get(du.REVISION))
    status = d.setdefault("status", {})
    if du.has_deadline(d) and du.get_condition(status, "Progressing") is None:
        du.set_condition(status, du.new_condition("Progressing", "True", du.FOUND_NEW_RS,
                                                  f'Found new replica set "{rs["metadata"]["name"]}"',
                                                  dc.clock.rfc3339()))
        changed = True
    if changed:
        d.update(dc.write_status(d))
    return copy_


# -- paused, scaling, deleted ---------------------------------------------------------------------

def check_paused_condition(dc, d: dict) -> dict:
    """Progressing=Unknown DeploymentPaused / DeploymentResumed when pausing or resuming."""
    if not du.has_deadline(d):
        return d
    status = d.setdefault("status", {})
    cond = du.get_condition(status, "Progressing")
    if cond is not None and cond.get("reason") == du.TIMED_OUT:
        return d
    paused_shown = cond is not None and cond.get("reason") == du.PAUSED
    paused = bool(d["spec"].get("paused"))
    if paused and not paused_shown:
        du.set_condition(status, du.new_condition("Progressing", "Unknown", du.PAUSED, "Deployment is paused",
                                                  dc.clock.rfc3339()))
    elif not paused and paused_shown:
        du.set_condition(status, du.new_condition("Progressing", "Unknown", du.RESUMED, "Deployment is resumed",
                                                  dc.clock.rfc3339()))
    else:
        return d
    # As upstream, the sync goes on with its own (now stale) copy: a later status write of the
    # same sync conflicts and the Deployment is synced again.
    dc.write_status(clone(d))
    return d


def is_scaling_event(dc, d: dict, rss: list[dict]) -> bool:
    new, olds, _ = new_and_old(dc, d, rss, create=False)
    desired = du.spec_replicas(d)
    for rs in du.active(olds + [new]):
        annotated = du.annotation_int(rs, du.DESIRED_REPLICAS)
        if annotated is not None and annotated != desired:
            return True
    return False


def status_only(dc, d: dict, rss: list[dict]) -> None:
    new, olds, d = new_and_old(dc, d, rss, create=False)
    _sync_status(dc, olds + [new], new, d)


def scale_sync(dc, d: dict, rss: list[dict]) -> None:
    """A paused Deployment or a change of spec.replicas: scale, never roll."""
    new, olds, d = new_and_old(dc, d, rss, create=False)
    scale(dc, d, new, olds)
    if d["spec"].get("paused"):
        cleanup(dc, olds, d)
    _sync_status(dc, olds + [new], new, d)


def scale(dc, d: dict, new: dict | None, olds: list[dict]) -> None:
    desired = du.spec_replicas(d)
    only = du.active_or_latest(new, olds)
    if only is not None:
        if du.spec_replicas(only) != desired:
            dc.scale_rs(only, desired, d)
        return
    if du.is_saturated(d, new):
        for old in du.active(olds):
            dc.scale_rs(old, 0, d)
        return
    if not du.is_rolling(d):
        return
    running = du.active(olds + [new])
    allowed = desired + du.max_surge(d) if desired > 0 else 0
    to_add = allowed - du.total_spec(running)
    if to_add > 0:
        # Larger first; equal sizes: newer first when growing.
        running.sort(key=lambda rs: (-du.spec_replicas(rs), _neg_time(rs)))
        operation = "up"
    elif to_add < 0:
        # Larger first; equal sizes: older first when shrinking.
        running.sort(key=lambda rs: (-du.spec_replicas(rs), rs["metadata"].get("creationTimestamp") or ""))
        operation = "down"
    else:
        operation = None
    sizes, added = {}, 0
    for rs in running:
        share = du.proportion(rs, d, to_add, added) if to_add else 0
        sizes[rs["metadata"]["name"]] = du.spec_replicas(rs) + share
        added += share
    for i, rs in enumerate(running):
        size = sizes[rs["metadata"]["name"]]
        if i == 0 and to_add:
            size = max(size + to_add - added, 0)
        dc.scale_rs(rs, size, d, operation)


def _neg_time(rs: dict) -> str:
    text = rs["metadata"].get("creationTimestamp") or ""
    return "".join(chr(255 - ord(c)) for c in text)


# -- RollingUpdate ------------------------------------------------------------------------------------

def rolling(dc, d: dict, rss: list[dict]) -> None:
    new, olds, d = new_and_old(dc, d, rss, create=True)
    all_rss = olds + [new]
    if _reconcile_new(dc, all_rss, new, d):
        _sync_rollout_status(dc, all_rss, new, d)
        return
    if _reconcile_olds(dc, all_rss, du.active(olds), new, d):
        _sync_rollout_status(dc, all_rss, new, d)
        return
    if du.complete(d, d.get("status") or {}):
        cleanup(dc, olds, d)
    _sync_rollout_status(dc, all_rss, new, d)


def _reconcile_new(dc, all_rss: list[dict], new: dict, d: dict) -> bool:
    desired = du.spec_replicas(d)
    current = du.spec_replicas(new)
    if current == desired:
        return False
    if current > desired:
        return dc.scale_rs(new, desired, d)[0]
    return dc.scale_rs(new, du.new_rs_replicas(d, all_rss, new), d)[0]


def _reconcile_olds(dc, all_rss: list[dict], olds: list[dict], new: dict, d: dict) -> bool:
    if du.total_spec(olds) == 0:
        return False
    min_available = du.spec_replicas(d) - du.max_unavailable(d)
    new_unavailable = du.spec_replicas(new) - du.status_of(new, "availableReplicas")
    max_scaled_down = du.total_spec(all_rss) - min_available - new_unavailable
    if max_scaled_down <= 0:
        return False
    olds, cleaned = _cleanup_unhealthy(dc, olds, d, max_scaled_down)
    scaled = _scale_down_olds(dc, olds + [new], olds, d)
    return cleaned + scaled > 0


def _cleanup_unhealthy(dc, olds: list[dict], d: dict, limit: int) -> tuple[list[dict], int]:
    """Scale old ReplicaSets down by their unavailable pods first (oldest first)."""
    olds = du.created_order(olds)
    total = 0
    for i, rs in enumerate(olds):
        if total >= limit:
            break
        size = du.spec_replicas(rs)
        unhealthy = size - du.status_of(rs, "availableReplicas")
        if size == 0 or unhealthy <= 0:
            continue
        count = min(limit - total, unhealthy)
        _, olds[i] = dc.scale_rs(rs, size - count, d)
        total += count
    return olds, total


def _scale_down_olds(dc, all_rss: list[dict], olds: list[dict], d: dict) -> int:
    min_available = du.spec_replicas(d) - du.max_unavailable(d)
    available = du.total_status(all_rss, "availableReplicas")
    if available <= min_available:
        return 0
    budget = available - min_available
    total = 0
    for rs in du.created_order(olds):
        if total >= budget:
            break
        size = du.spec_replicas(rs)
        if size == 0:
            continue
        count = min(size, budget - total)
        dc.scale_rs(rs, size - count, d)
        total += count
    return total


# -- Recreate --------------------------------------------------------------------------------------

def recreate(dc, d: dict, rss: list[dict]) -> None:
    new, olds, d = new_and_old(dc, d, rss, create=False)
    all_rss = olds + [new]
    scaled = False
    for rs in du.active(olds):
        if dc.scale_rs(rs, 0, d)[0]:
            scaled = True
    if scaled or _old_pods_running(dc, d, new, olds, rss):
        _sync_rollout_status(dc, all_rss, new, d)
        return
    if new is None:
        new, olds, d = new_and_old(dc, d, rss, create=True)
        all_rss = olds + [new]
    if new is not None:
        dc.scale_rs(new, du.spec_replicas(d), d)
    if du.complete(d, d.get("status") or {}):
        cleanup(dc, olds, d)
    _sync_rollout_status(dc, all_rss, new, d)


def _old_pods_running(dc, d: dict, new: dict | None, olds: list[dict], rss: list[dict]) -> bool:
    if du.total_status(olds, "replicas") > 0:
        return True
    new_uid = (new or {}).get("metadata", {}).get("uid")
    for uid, pods in dc.pods_by_rs(d, rss).items():
        if uid == new_uid:
            continue
        for pod in pods:
            if (pod.get("status") or {}).get("phase") not in ("Failed", "Succeeded"):
                return True
    return False


# -- cleanup and status ------------------------------------------------------------------------------

def cleanup(dc, olds: list[dict], d: dict) -> None:
    """Delete the oldest revisions beyond revisionHistoryLimit (only empty, observed ones)."""
    limit = (d.get("spec") or {}).get("revisionHistoryLimit")
    if limit is None:
        return
    alive = [rs for rs in olds if rs is not None and not rs["metadata"].get("deletionTimestamp")]
    extra = len(alive) - int(limit)
    if extra <= 0:
        return
    for rs in sorted(alive, key=lambda r: (du.revision_of(r), r["metadata"].get("creationTimestamp") or ""))[:extra]:
        meta = rs["metadata"]
        if du.status_of(rs, "replicas") or du.spec_replicas(rs) or \
                (meta.get("generation") or 0) > du.status_of(rs, "observedGeneration"):
            continue
        dc.client.delete(RS, meta.get("namespace", ""), meta["name"])


def _sync_status(dc, all_rss: list[dict], new: dict | None, d: dict) -> None:
    status = du.calculate_status(all_rss, new, d, dc.clock.rfc3339())
    if status != (d.get("status") or {}):
        d["status"] = status
        dc.write_status(d)


def _sync_rollout_status(dc, all_rss: list[dict], new: dict | None, d: dict) -> None:
    now = dc.clock.rfc3339()
    status = du.calculate_status(all_rss, new, d, now)
    if not du.has_deadline(d):
        du.remove_condition(status, "Progressing")
    current = du.get_condition(d.get("status") or {}, "Progressing")
    finished = (status.get("replicas") or 0) == (status.get("updatedReplicas") or 0) and \
        current is not None and current.get("reason") == du.NEW_RS_AVAILABLE
    subject = f'ReplicaSet "{new["metadata"]["name"]}"' if new is not None else f'Deployment "{d["metadata"]["name"]}"'
    if du.has_deadline(d) and not finished:
        if du.complete(d, status):
            du.set_condition(status, du.new_condition("Progressing", "True", du.NEW_RS_AVAILABLE,
                                                      f"{subject} has successfully progressed.", now))
        elif du.progressing(d, status):
            cond = du.new_condition("Progressing", "True", du.RS_UPDATED, f"{subject} is progressing.", now)
            if current is not None:
                if current.get("status") == "True":
                    cond["lastTransitionTime"] = current.get("lastTransitionTime")
                du.remove_condition(status, "Progressing")
            du.set_condition(status, cond)
        elif du.timed_out(d, status, dc.clock.time()):
            du.set_condition(status, du.new_condition("Progressing", "False", du.TIMED_OUT,
                                                      f"{subject} has timed out progressing.", now))
    failure = _replica_failure(all_rss)
    if failure is not None:
        du.set_condition(status, failure)
    else:
        du.remove_condition(status, "ReplicaFailure")
    if status == (d.get("status") or {}):
        _requeue_stuck(dc, d, status)
        return
    d["status"] = status
    dc.write_status(d)


def _replica_failure(all_rss: list[dict]) -> dict | None:
    for rs in all_rss:
        if rs is None:
            continue
        for cond in (rs.get("status") or {}).get("conditions") or []:
            if cond.get("type") == "ReplicaFailure" and cond.get("status") == "True":
                return {"type": "ReplicaFailure", "status": "True",
                        "lastUpdateTime": cond.get("lastTransitionTime"),
                        "lastTransitionTime": cond.get("lastTransitionTime"),
                        "reason": cond.get("reason"), "message": cond.get("message")}
    return None


def _requeue_stuck(dc, d: dict, status: dict) -> None:
    """Check the progress deadline again when it would pass (plus a second, as upstream)."""
    from kubelite.server.clock import parse_time

    cond = du.get_condition(status, "Progressing")
    if not du.has_deadline(d) or cond is None:
        return
    if du.complete(d, status) or cond.get("reason") == du.TIMED_OUT:
        return
    since = parse_time(cond.get("lastUpdateTime"))
    if since is None:
        return
    after = since + int(d["spec"]["progressDeadlineSeconds"]) - dc.clock.time()
    key = object_key(d)
    if after < 1:
        dc.queue.add_after(key, 0.05)
    else:
        dc.queue.add_after(key, after + 1)

