"""Deployments: a ReplicaSet per pod template, rolled from the old ones to the new one.

A sync claims the ReplicaSets the selector matches, then does one of: status only (being
deleted), a proportional scale (paused, or `spec.replicas` changed), a RollingUpdate step or a
Recreate step (`deployment_rollout`). Every write goes through the API; what the next step needs
comes back as watch events, which queue the Deployment again. The rules themselves (revisions,
fenceposts, conditions) are in `deployment_util`.
"""
from __future__ import annotations

from kubelite.jsoncopy import clone

from kubelite.server.controllers import deployment_util as du
from kubelite.server.controllers.base import Controller, object_key
from kubelite.server.controllers.podtemplate import claim, controller_reference, selector_matcher, selects
from kubelite.server.errors import StatusError

RS = "apps/replicasets"
DEPLOYMENTS = "apps/deployments"


class DeploymentController(Controller):
    name = "deployment"
    component = "deployment-controller"
    watches = (DEPLOYMENTS, RS, "pods")

    # -- events -------------------------------------------------------------------------------

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        if rid == DEPLOYMENTS:
            self.queue.add(object_key(obj))
        elif rid == RS:
            for version in (obj, old):
                if version is not None:
                    self._queue_owners(version)
        elif event_type == "DELETED":
            self._pod_gone(obj)

    def _queue_owners(self, rs: dict) -> None:
        key = self.owner_key(rs, "Deployment")
        if key is not None:
            self.queue.add(key)
            return
        if _controller_of(rs) is not None:
            return
        ns = rs["metadata"].get("namespace", "")
        for d in self.cache.list(DEPLOYMENTS, ns, lambda d: du.selects_rs(d, rs)):
            self.queue.add(object_key(d))

    def _pod_gone(self, pod: dict) -> None:
        # Recreate waits for every old pod to be gone before it scales the new ReplicaSet up.
        ref = _controller_of(pod)
        if ref is None or ref.get("kind") != "ReplicaSet":
            return
        ns = pod["metadata"].get("namespace", "")
        rs = self.cache.get(RS, ns, ref.get("name"))
        key = self.owner_key(rs, "Deployment") if rs is not None else None
        if key is None:
            return
        d = self.cache.get(DEPLOYMENTS, ns, key.rpartition("/")[2])
        if d is not None and not du.is_rolling(d):
            self.queue.add(key)

    # -- reconcile -----------------------------------------------------------------------------

    def sync(self, key: str) -> None:
        from kubelite.server.controllers import deployment_rollout as rollout

        ns, _, name = key.rpartition("/")
        cached = self.cache.get(DEPLOYMENTS, ns, name)
        if cached is None:
            return
        d = clone(cached)
        selector = (d.get("spec") or {}).get("selector") or {}
        if not selector.get("matchLabels") and not selector.get("matchExpressions"):
            self._selecting_everything(d)
            return
        rss = self.replica_sets(d)
        if d["metadata"].get("deletionTimestamp"):
            rollout.status_only(self, d, rss)
            return
        d = rollout.check_paused_condition(self, d)
        if (d.get("spec") or {}).get("paused") or rollout.is_scaling_event(self, d, rss):
            rollout.scale_sync(self, d, rss)
        elif du.is_rolling(d):
            rollout.rolling(self, d, rss)
        else:
            rollout.recreate(self, d, rss)

    def _selecting_everything(self, d: dict) -> None:
        self.events.warning(d, "SelectingAll",
                            "This deployment is selecting all pods. A non-empty selector is required.")
        status = d.setdefault("status", {})
        generation = d["metadata"].get("generation") or 0
        if (status.get("observedGeneration") or 0) < generation:
            status["observedGeneration"] = generation
            self.write_status(d)

    def replica_sets(self, d: dict) -> list[dict]:
        ns = d["metadata"].get("namespace", "")
        selector = d["spec"]["selector"]
        return claim(self, d, RS, self.cache.list(RS, ns), lambda rs: selects(selector, rs["metadata"].get("labels")))

    def pods_by_rs(self, d: dict, rss: list[dict]) -> dict[str, list[dict]]:
        """The Deployment's pods, by the uid of the ReplicaSet controlling them."""
        uids = {rs["metadata"].get("uid") for rs in rss}
        out: dict[str, list[dict]] = {uid: [] for uid in uids}
        ns = d["metadata"].get("namespace", "")
        matches = selector_matcher(d["spec"]["selector"])
        for pod in self.cache.list("pods", ns, lambda p: matches(p["metadata"].get("labels"))):
            ref = _controller_of(pod)
            if ref is not None and ref.get("uid") in uids:
                out[ref["uid"]].append(pod)
        return out

    # -- writes --------------------------------------------------------------------------------

    def write_status(self, d: dict) -> dict:
        """UpdateStatus (annotations travel with it, as the status strategy keeps metadata)."""
        d["status"] = _ordered_status(d.get("status") or {})
        return self.client.update_status(DEPLOYMENTS, d)

    def scale_rs(self, rs: dict, size: int, d: dict, operation: str | None = None) -> tuple[bool, dict]:
        """Set a ReplicaSet's size and the desired/max annotations; Event when the size changed."""
        old = du.spec_replicas(rs)
        desired = du.spec_replicas(d)
        max_replicas = desired + du.max_surge(d)
        resize = old != size
        if not resize and not du.replicas_annotations_differ(rs, desired, max_replicas):
            return False, rs
        copy_ = clone(rs)
        copy_["spec"]["replicas"] = size
        du.set_replicas_annotations(copy_, desired, max_replicas)
        _sort_annotations(copy_)
        updated = self.client.update(RS, copy_)
        if resize:
            operation = operation or ("up" if old < size else "down")
            self.events.normal(d, "ScalingReplicaSet",
                               f"Scaled {operation} replica set {rs['metadata']['name']} from {old} to {size}")
        return resize, updated

    def create_rs(self, d: dict, olds: list[dict], revision: int) -> dict | None:
        """Create the ReplicaSet of the Deployment's template (named by its hash); None after a
        hash collision (collisionCount is bumped and the Deployment synced again)."""
        status = d.get("status") or {}
        template = clone(d["spec"].get("template") or {})
        suffix = du.template_hash(template, status.get("collisionCount"))
        labels = dict(sorted({**((template.get("metadata") or {}).get("labels") or {}), du.HASH_LABEL: suffix}.items()))
        template.setdefault("metadata", {})["labels"] = labels
        selector = clone(d["spec"]["selector"])
        selector["matchLabels"] = dict(sorted({**(selector.get("matchLabels") or {}), du.HASH_LABEL: suffix}.items()))
        spec = {"replicas": 0}
        if d["spec"].get("minReadySeconds"):
            spec["minReadySeconds"] = d["spec"]["minReadySeconds"]
        spec.update(selector=selector, template=template)
        rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
              "metadata": {"name": f"{d['metadata']['name']}-{suffix}", "namespace": d["metadata"].get("namespace"),
                           "labels": dict(labels), "ownerReferences": [controller_reference(d)]},
              "spec": spec}
        rs["spec"]["replicas"] = du.new_rs_replicas(d, olds + [rs], rs)
        du.set_new_rs_annotations(d, rs, revision, exists=False)
        _sort_annotations(rs)
        try:
            created = self.client.create(RS, rs)
        except StatusError as err:
            if err.code == 409 and err.reason == "AlreadyExists":
                return self._existing_or_collision(d, rs)
            if err.code == 403 and "being terminated" in (err.message or ""):
                raise
            self._create_failed(d, rs, err)
            raise
        return created

    def _existing_or_collision(self, d: dict, rs: dict) -> dict | None:
        meta = rs["metadata"]
        existing = self.client.get(RS, meta["namespace"], meta["name"])
        if existing is not None:
            ref = _controller_of(existing)
            if ref and ref.get("uid") == d["metadata"].get("uid") and \
                    du.same_template(d["spec"].get("template") or {}, existing["spec"].get("template") or {}):
                return existing
        status = d.setdefault("status", {})
        status["collisionCount"] = int(status.get("collisionCount") or 0) + 1
        self.write_status(d)
        raise StatusError(409, "AlreadyExists", f"hash collision for ReplicaSet {meta['name']}")

    def _create_failed(self, d: dict, rs: dict, err: StatusError) -> None:
        message = f'Failed to create new replica set "{rs["metadata"]["name"]}": {err.message}'
        if du.has_deadline(d):
            du.set_condition(d.setdefault("status", {}),
                             du.new_condition("Progressing", "False", du.FAILED_RS_CREATE, message,
                                              self.clock.rfc3339()))
            try:
                self.write_status(d)
            except StatusError:
                pass
        self.events.warning(d, du.FAILED_RS_CREATE, message)


def _controller_of(obj: dict) -> dict | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


def _sort_annotations(obj: dict) -> None:
    ann = obj["metadata"].get("annotations")
    if ann:
        obj["metadata"]["annotations"] = dict(sorted(ann.items()))


_STATUS_ORDER = ("observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
                 "unavailableReplicas", "terminatingReplicas", "conditions", "collisionCount")


def _ordered_status(status: dict) -> dict:
    out = {k: status[k] for k in _STATUS_ORDER if k in status}
    out.update({k: v for k, v in status.items() if k not in out})
    return out
