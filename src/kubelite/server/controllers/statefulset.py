"""The StatefulSet controller: pods `<set>-<ordinal>` with hostname/subdomain and the ordinal
labels, PVCs from volumeClaimTemplates (and the retention policy's owner references),
OrderedReady (one pod at a time, in order, each Running and Ready first) or Parallel pod
management, ControllerRevisions with the real hashes, RollingUpdate (highest ordinal first, down to
the partition, one pod at a time) or OnDelete, and the status counts and revisions.

Not done: `rollingUpdate.maxUnavailable` > 1 (an alpha feature, off by default in v1.32, so one pod
at a time as here).
"""
from __future__ import annotations

import copy

from kubelite.server.controllers.base import MAX_PODS_PER_SYNC, Controller, object_key, split_key
from kubelite.server.controllers.controllerrevision import REVISION_LABEL, sync_revisions
from kubelite.server.controllers.podtemplate import (controller_reference, is_controlled_by, pod_from_template,
                                                     pod_is_available, pod_is_ready, pod_is_terminating,
                                                     pod_ready_since)
from kubelite.server.errors import StatusError

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
_STATUS_ORDER = ("observedGeneration", "replicas", "readyReplicas", "currentReplicas", "updatedReplicas",
                 "currentRevision", "updateRevision", "collisionCount", "availableReplicas")


def ordinal(set_name: str, pod: dict) -> int | None:
    name = pod["metadata"]["name"]
    prefix = f"{set_name}-"
    if not name.startswith(prefix) or not name[len(prefix):].isdigit():
        return None
    return int(name[len(prefix):])


def ordinal_range(sts: dict) -> tuple[int, int]:
    """[first, end) of the ordinals the set should run: spec.ordinals.start and spec.replicas."""
    spec = sts.get("spec") or {}
    first = int((spec.get("ordinals") or {}).get("start") or 0)
    return first, first + int(spec.get("replicas", 1))


def running_and_ready(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running" and pod_is_ready(pod)


def pod_revision(pod: dict) -> str | None:
    return (pod["metadata"].get("labels") or {}).get(REVISION_LABEL)


def template_of(revision: dict) -> dict:
    template = copy.deepcopy(((revision.get("data") or {}).get("spec") or {}).get("template") or {})
    template.pop("$patch", None)
    return template


class StatefulSetController(Controller):
    name = "statefulset"
    component = "statefulset-controller"
    watches = ("apps/statefulsets", "pods", "apps/controllerrevisions")

    def handle(self, rid, event_type, obj, old):
        super().handle(rid, event_type, obj, old)  # the StatefulSet itself
        key = self.owner_key(obj, "StatefulSet")  # or the StatefulSet owning it
        if key is not None:
            self.queue.add(key)

    def sync(self, key: str) -> None:
        ns, name = split_key(key)
        sts = self.cache.get("apps/statefulsets", ns, name)
        if sts is None or sts["metadata"].get("deletionTimestamp"):
            return
        spec = sts.get("spec") or {}
        pods = [p for p in self.cache.list("pods", ns) if is_controlled_by(p, sts) and ordinal(name, p) is not None]
        revisions = [r for r in self.cache.list("apps/controllerrevisions", ns) if is_controlled_by(r, sts)]
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        update, current, collisions = sync_revisions(self, sts, revisions, labels, spec.get("revisionHistoryLimit"))
        current = current or update
        by_ordinal = {ordinal(name, p): p for p in pods}
        # Counted as they were when the sync began (pods made now show in the next status), as upstream.
        rolled = self._act(sts, dict(by_ordinal), current, update)
        self._write_status(sts, pods, current, update, collisions, rolled)

    # -- pods ------------------------------------------------------------------------------------

    def _act(self, sts: dict, pods: dict[int, dict], current: dict, update: dict) -> int:
        """One round of the upstream algorithm: replace failed pods, create missing ones, delete
        condemned ones, then roll one pod to the update revision. Returns how many current-revision
        pods were deleted to roll them (the status counts them out at once)."""
        spec = sts.get("spec") or {}
        first, end = ordinal_range(sts)
        ordered = spec.get("podManagementPolicy", "OrderedReady") != "Parallel"
        changed = 0  # pods created or deleted in this sync
        for i in range(first, end):
            pod = pods.get(i)
            if pod is not None and (pod.get("status") or {}).get("phase") in ("Failed", "Succeeded") \
                    and not pod_is_terminating(pod):
                meta = sts["metadata"]
                self.events.warning(sts, "RecreatingFailedPod", f"StatefulSet {meta.get('namespace')}/"
                                    f"{meta['name']} is recreating failed Pod {pod['metadata']['name']}")
                self._delete(sts, pod)
                pods.pop(i)
                pod = None
            if pod is None:
                created = self._create(sts, i, self._revision_for(sts, i, current, update))
                if created is not None:
                    pods[i] = created
                changed += 1
                if ordered or changed >= MAX_PODS_PER_SYNC:
                    return 0
                continue
            if ordered and (pod_is_terminating(pod) or not running_and_ready(pod)):
                return 0  # wait for this one before going on
        condemned = sorted((i for i in pods if not first <= i < end), reverse=True)
        for i in condemned:
            pod = pods[i]
            if pod_is_terminating(pod):
                if ordered:
                    return 0
                continue
            if ordered and any(not running_and_ready(p) for j, p in pods.items() if j != i):
                return 0
            self._delete(sts, pod)
            changed += 1
            if ordered or changed >= MAX_PODS_PER_SYNC:
                return 0
        if condemned:
            return 0
        return self._roll(sts, pods, update)

    def _roll(self, sts: dict, pods: dict[int, dict], update: dict) -> int:
        strategy = (sts.get("spec") or {}).get("updateStrategy") or {}
        if strategy.get("type", "RollingUpdate") != "RollingUpdate":
            return 0
        partition = int((strategy.get("rollingUpdate") or {}).get("partition") or 0)
        first, end = ordinal_range(sts)
        if any(pod_is_terminating(p) or not running_and_ready(p) for i, p in pods.items() if first <= i < end):
            return 0
        for i in range(end - 1, first + partition - 1, -1):
            pod = pods.get(i)
            if pod is not None and pod_revision(pod) != update["metadata"]["name"]:
                self._delete(sts, pod)
                return 1
        return 0

    @staticmethod
    def _revision_for(sts: dict, i: int, current: dict, update: dict) -> dict:
        strategy = (sts.get("spec") or {}).get("updateStrategy") or {}
        if strategy.get("type", "RollingUpdate") == "RollingUpdate":
            partition = int((strategy.get("rollingUpdate") or {}).get("partition") or 0)
            return current if i < ordinal_range(sts)[0] + partition else update
        return update if strategy.get("type") == "OnDelete" else current

    def _create(self, sts: dict, i: int, revision: dict) -> dict | None:
        set_name = sts["metadata"]["name"]
        pod_name = f"{set_name}-{i}"
        extra = {REVISION_LABEL: revision["metadata"]["name"], POD_NAME_LABEL: pod_name, POD_INDEX_LABEL: str(i)}
        pod = pod_from_template(template_of(revision), sts, name=pod_name, labels=extra)
        pod["spec"]["hostname"] = pod_name
        service = (sts.get("spec") or {}).get("serviceName")
        if service:
            pod["spec"]["subdomain"] = service
        self._claims(sts, pod, i)
        try:
            created = self.client.create("pods", pod)
        except StatusError as err:
            if err.code == 409:
                return None  # already there: the cache has not seen it yet
            self.events.warning(sts, "FailedCreate", f"create Pod {pod_name} in StatefulSet {set_name} failed "
                                f"error: {err.message}")
            raise
        self.events.normal(sts, "SuccessfulCreate", f"create Pod {pod_name} in StatefulSet {set_name} successful")
        return created

    def _claims(self, sts: dict, pod: dict, i: int) -> None:
        """PVCs of the volumeClaimTemplates for this pod (created if missing) and its volumes."""
        spec = sts.get("spec") or {}
        ns, set_name = sts["metadata"].get("namespace"), sts["metadata"]["name"]
        policy = spec.get("persistentVolumeClaimRetentionPolicy") or {}
        volumes = pod["spec"].setdefault("volumes", [])
        for template in spec.get("volumeClaimTemplates") or []:
            tname = (template.get("metadata") or {}).get("name")
            claim_name = f"{tname}-{pod['metadata']['name']}"
            volumes[:] = [v for v in volumes if v.get("name") != tname]
            volumes.append({"name": tname, "persistentVolumeClaim": {"claimName": claim_name}})
            if self.cache.get("persistentvolumeclaims", ns, claim_name) is not None or \
                    self.client.get("persistentvolumeclaims", ns, claim_name) is not None:
                continue
            claim = copy.deepcopy(template)
            meta = claim.setdefault("metadata", {})
            meta.update(name=claim_name, namespace=ns)
            meta.pop("creationTimestamp", None)
            meta["labels"] = {**(meta.get("labels") or {}), **(spec.get("selector") or {}).get("matchLabels", {})}
            if policy.get("whenDeleted") == "Delete":
                meta["ownerReferences"] = [controller_reference(sts)]
            claim.update(apiVersion="v1", kind="PersistentVolumeClaim")
            claim.pop("status", None)
            try:
                self.client.create("persistentvolumeclaims", claim)
            except StatusError as err:
                if err.code != 409:
                    self.events.warning(sts, "FailedCreate", f"create Claim {claim_name} for Pod "
                                        f"{pod['metadata']['name']} in StatefulSet {set_name} failed error: "
                                        f"{err.message}")
                    raise
                continue
            self.events.normal(sts, "SuccessfulCreate", f"create Claim {claim_name} Pod {pod['metadata']['name']} "
                               f"in StatefulSet {set_name} success")
        if not volumes:
            del pod["spec"]["volumes"]

    def _delete(self, sts: dict, pod: dict) -> None:
        meta = pod["metadata"]
        set_name = sts["metadata"]["name"]
        if self.client.delete("pods", meta.get("namespace"), meta["name"], uid=meta.get("uid")):
            self.events.normal(sts, "SuccessfulDelete", f"delete Pod {meta['name']} in StatefulSet {set_name} successful")
            self._release_scaled_claims(sts, pod)

    def _release_scaled_claims(self, sts: dict, pod: dict) -> None:
        """whenScaled: Delete — a condemned pod's claims are owned by the pod (only), so they go with it."""
        spec = sts.get("spec") or {}
        if (spec.get("persistentVolumeClaimRetentionPolicy") or {}).get("whenScaled") != "Delete":
            return
        index = ordinal(sts["metadata"]["name"], pod)
        first, end = ordinal_range(sts)
        if index is None or first <= index < end:
            return
        ns = sts["metadata"].get("namespace")
        for template in spec.get("volumeClaimTemplates") or []:
            claim_name = f"{(template.get('metadata') or {}).get('name')}-{pod['metadata']['name']}"
            claim = self.client.get("persistentvolumeclaims", ns, claim_name)
            if claim is None:
                continue
            # As upstream: the set's and the pod's refs scrubbed, the pod's controller ref added.
            mine = {sts["metadata"].get("uid"), pod["metadata"].get("uid")}
            refs = [r for r in claim["metadata"].get("ownerReferences") or [] if r.get("uid") not in mine]
            self.client.patch("persistentvolumeclaims", ns, claim_name, {"metadata": {
                "resourceVersion": claim["metadata"].get("resourceVersion"),
                "ownerReferences": refs + [controller_reference(pod)]}})

    # -- status ----------------------------------------------------------------------------------

    def _write_status(self, sts: dict, pods: list[dict], current: dict, update: dict, collisions: int,
                      rolled: int) -> None:
        spec = sts.get("spec") or {}
        counts = {"replicas": 0, "readyReplicas": 0, "currentReplicas": -rolled, "updatedReplicas": 0,
                  "availableReplicas": 0}
        min_ready = int(spec.get("minReadySeconds") or 0)
        now = self.clock.time()
        for pod in pods:
            counts["replicas"] += 1
            if running_and_ready(pod):
                counts["readyReplicas"] += 1
                if pod_is_available(pod, min_ready, now):
                    counts["availableReplicas"] += 1
                else:  # ready, not yet for minReadySeconds: look again when it will be
                    since = pod_ready_since(pod) or now
                    self.queue.add_after(object_key(sts), since + min_ready - now)
            if pod_is_terminating(pod):
                continue
            revision = pod_revision(pod)
            if revision == current["metadata"]["name"]:
                counts["currentReplicas"] += 1
            if revision == update["metadata"]["name"]:
                counts["updatedReplicas"] += 1
        current_name = current["metadata"]["name"]
        rolling = ((spec.get("updateStrategy") or {}).get("type", "RollingUpdate")) == "RollingUpdate"
        replicas = int(spec.get("replicas", 1))
        if current_name != update["metadata"]["name"] and counts["updatedReplicas"] == replicas and \
                counts["readyReplicas"] == replicas and counts["replicas"] == replicas and rolling:
            current_name = update["metadata"]["name"]
            counts["currentReplicas"] = counts["updatedReplicas"]
        status = {"observedGeneration": sts["metadata"].get("generation"), **counts,
                  "currentRevision": current_name, "updateRevision": update["metadata"]["name"],
                  "collisionCount": collisions}
        for key in ("readyReplicas", "currentReplicas", "updatedReplicas"):
            if not status[key]:
                del status[key]
        status = {k: status[k] for k in _STATUS_ORDER if k in status}
        old = sts.get("status") or {}
        if status != {k: v for k, v in old.items() if k != "conditions"}:
            if old.get("conditions"):
                status["conditions"] = old["conditions"]
            self.client.update_status("apps/statefulsets", {**sts, "status": status})
