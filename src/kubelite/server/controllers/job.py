"""The Job controller, as kube-controller-manager's: pods from the template up to `parallelism`,
finished pods counted through the `batch.kubernetes.io/job-tracking` finalizer (first listed in
`status.uncountedTerminatedPods`, then the finalizer removed, then added to the counts), and
the conditions SuccessCriteriaMet/FailureTarget before Complete/Failed.

Pod events and status-only changes of the Job reach it after a 1 s batch as upstream's do (so
`ready` follows a second later); a new or changed Job spec is reconciled at once.
"""
from __future__ import annotations

import copy
import itertools

from kubelite.record import Record, factory
from kubelite.server.clock import parse_time
from kubelite.server.controllers import job_policy as jp
from kubelite.server.controllers.base import MAX_PODS_PER_SYNC, MERGE, Controller, controller_ref, split_key
from kubelite.server.errors import StatusError
from kubelite.server.controllers.job_pods import job_pod

BATCH_PERIOD = 1.0
MANAGED_BY = "kubernetes.io/job-controller"
COMPLETIONS_REACHED = ("CompletionsReached", "Reached expected number of succeeded pods")
BACKOFF_EXCEEDED = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
DEADLINE_EXCEEDED = ("DeadlineExceeded", "Job was active longer than specified deadline")
FAILED_INDEXES = ("FailedIndexes", "Job has failed indexes")
MAX_FAILED_INDEXES = ("MaxFailedIndexesExceeded", "Job has exceeded the specified maximal number of failed indexes")


class Tally(Record):
    """What the pods of one Job say at the start of a sync."""
    active: list = factory(list)
    terminating: list = factory(list)
    release: list = factory(list)  # pods whose finalizer goes once the status is written
    unc_succeeded: list = factory(list)
    unc_failed: list = factory(list)
    completed: set = factory(set)
    failed_indexes: set = factory(set)
    index_failures: dict = factory(dict)
    fail_job: str | None = None
    last_failure: float | None = None


class JobController(Controller):
    name = "job"
    component = "job-controller"
    watches = ("batch/jobs", "pods")

    def __init__(self, ctx):
        super().__init__(ctx)
        # Job key -> names of pods created or deleted whose watch events have not been seen yet.
        self._expect: dict[str, set[str]] = {}

    def handle(self, rid, event_type, obj, old):
        if rid == "batch/jobs":
            key = f"{obj['metadata'].get('namespace')}/{obj['metadata']['name']}"
            # A status-only change (its own writes, mostly) is batched; a new spec acts at once.
            if old is not None and (old.get("metadata") or {}).get("generation") == obj["metadata"].get("generation") \
                    and event_type == "MODIFIED":
                self.queue.add_after(key, BATCH_PERIOD)
            else:
                self.queue.add(key)
            return
        key = self.owner_key(obj, "Job")
        if key is None:
            return
        pending = self._expect.get(key)
        if pending is not None:
            pending.discard(obj["metadata"].get("name"))
            if not pending:
                self._expect.pop(key, None)
        self.queue.add_after(key, BATCH_PERIOD)

    # -- reconcile ---------------------------------------------------------------------------------

    def sync(self, key: str) -> None:
        ns, name = split_key(key)
        job = self.cache.get("batch/jobs", ns, name)
        if job is None:
            self._release_orphans(ns, name)
            return
        if (job.get("spec") or {}).get("managedBy") not in (None, MANAGED_BY):
            return  # another controller runs this Job (spec.managedBy)
        if self._expect.get(key):
            return  # our own creations/deletions are not in the cache yet: their events requeue us
        pods = [p for p in self.cache.list("pods", ns) if (controller_ref(p) or {}).get("uid") == job["metadata"]["uid"]]
        if job["metadata"].get("deletionTimestamp") or jp.is_finished(job):
            self._remove_finalizers([p for p in pods if jp.has_finalizer(p)])
            return
        status = copy.deepcopy(job.get("status") or {})
        tally = self._tally(job, pods, status)
        now = self.clock.rfc3339()
        conditions = status.setdefault("conditions", [])
        target = self._finish_target(job, status, tally, now)
        suspended = bool((job.get("spec") or {}).get("suspend"))
        created = deleted = 0
        if target is not None:
            deleted = self._delete_pods(job, tally.active)
            if target[0] == "FailureTarget":
                self._count_stopped(tally)
        elif suspended:
            deleted = self._delete_pods(job, tally.active, untrack=True)
            self._suspend(job, status, now)
        else:
            resumed = self._resume(status, now)
            if not status.get("startTime"):
                status["startTime"] = now
            created, deleted = self._manage(key, job, status, tally)
            if resumed:  # recorded after the pods it starts, as upstream does
                self.events.normal(job, "Resumed", "Job resumed")
            self._requeue_deadline(key, job, status)
        active = len(tally.active) + created - deleted
        first = self._status(job, status, tally, active, len(tally.terminating) + deleted)
        if not conditions:
            first.pop("conditions", None)
        if first != (job.get("status") or {}):
            job = self.client.update_status("batch/jobs", {**job, "status": first})
        self._remove_finalizers(tally.release)
        self._flush(job, first, target, active, len(tally.terminating) + deleted, now)

    # -- pods --------------------------------------------------------------------------------------

    def _tally(self, job: dict, pods: list[dict], status: dict) -> Tally:
        t = Tally()
        spec = job.get("spec") or {}
        uncounted = status.get("uncountedTerminatedPods") or {}
        t.unc_succeeded = list(uncounted.get("succeeded") or [])
        t.unc_failed = list(uncounted.get("failed") or [])
        t.completed = jp.parse_indexes(status.get("completedIndexes"))
        t.failed_indexes = jp.parse_indexes(status.get("failedIndexes"))
        indexed = jp.is_indexed(job)
        completions = spec.get("completions")
        for pod in sorted(pods, key=lambda p: p["metadata"].get("creationTimestamp") or ""):
            uid = pod["metadata"].get("uid")
            if jp.is_active(pod):
                t.active.append(pod)
                continue
            if jp.is_terminating(pod) and jp.phase(pod) not in ("Succeeded", "Failed"):
                t.terminating.append(pod)
            if not jp.has_finalizer(pod):
                continue
            t.release.append(pod)
            if uid in t.unc_succeeded or uid in t.unc_failed:
                continue
            index = jp.pod_index(pod)
            if jp.phase(pod) == "Succeeded":
                if not indexed:
                    t.unc_succeeded.append(uid)
                elif index is not None and index < (completions or 0) and index not in t.failed_indexes:
                    t.completed.add(index)
                continue
            if not jp.is_failed(pod, job):
                continue
            action, message, _ = jp.match_failure_policy(job, pod)
            if action == "Ignore":
                continue
            if action == "FailJob" and t.fail_job is None:
                t.fail_job = message
            t.unc_failed.append(uid)
            finished = self._finish_time(pod)
            if finished is not None:
                t.last_failure = max(t.last_failure or 0.0, finished)
            if indexed and index is not None and spec.get("backoffLimitPerIndex") is not None:
                failures = self._index_failures(pod) + 1
                t.index_failures[index] = max(t.index_failures.get(index, 0), failures)
                if failures > spec["backoffLimitPerIndex"] or action == "FailIndex":
                    t.failed_indexes.add(index)
        for pod in pods:
            # A failure already counted (its finalizer gone) still starts the backoff of the next
            # pod, as upstream's backoff record remembers it: else a replacement came a second later.
            if jp.has_finalizer(pod) or not jp.is_failed(pod, job) or \
                    jp.match_failure_policy(job, pod)[0] == "Ignore":
                continue
            finished = self._finished_at(pod)
            if finished is not None:
                t.last_failure = max(t.last_failure or 0.0, finished)
        for pod in pods:  # failures per index so far: a failed pod adds one to the count it carries
            index = jp.pod_index(pod)
            if index is not None:
                seen = self._index_failures(pod) + (1 if jp.is_failed(pod, job) else 0)
                t.index_failures[index] = max(t.index_failures.get(index, 0), seen)
        return t

    @staticmethod
    def _index_failures(pod: dict) -> int:
        try:
            return int(((pod["metadata"].get("annotations") or {}).get(jp.INDEX_FAILURE_COUNT)) or 0)
        except ValueError:
            return 0

    def _finish_time(self, pod: dict) -> float:
        finished = self._finished_at(pod)
        return self.clock.time() if finished is None else finished

    @staticmethod
    def _finished_at(pod: dict) -> float | None:
        """When the pod's last container terminated (None if none says)."""
        times = []
        for cs in (pod.get("status") or {}).get("containerStatuses") or []:
            term = (cs.get("state") or {}).get("terminated") or {}
            if term.get("finishedAt"):
                times.append(parse_time(term["finishedAt"]))
        return max((t for t in times if t is not None), default=None)

    def _manage(self, key: str, job: dict, status: dict, t: Tally) -> tuple[int, int]:
        """Create or delete pods toward the wanted number of active ones."""
        spec = job.get("spec") or {}
        parallelism = spec.get("parallelism", 1)
        completions = spec.get("completions")
        if jp.is_indexed(job):
            return self._manage_indexed(key, job, t, parallelism, completions or 0), 0
        succeeded = int(status.get("succeeded") or 0) + len(t.unc_succeeded)
        if completions is None:
            want = len(t.active) if succeeded > 0 else parallelism
        else:
            want = max(0, min(parallelism, completions - succeeded))
        if want < len(t.active):
            extra = sorted(t.active, key=lambda p: (jp.is_ready(p), p["metadata"].get("creationTimestamp") or ""))
            return 0, self._delete_pods(job, extra[:min(len(t.active) - want, MAX_PODS_PER_SYNC)], untrack=True)
        missing = min(want - len(t.active) - self._terminating_if_replaced_when_failed(job, t), MAX_PODS_PER_SYNC)
        if missing and not self._backoff_over(key, job, status, t):
            return 0, 0
        return self._create_pods(key, job, [None] * missing, t), 0

    def _manage_indexed(self, key: str, job: dict, t: Tally, parallelism: int, completions: int) -> int:
        busy = {jp.pod_index(p) for p in t.active} | {jp.pod_index(p) for p in t.terminating}
        room = max(0, parallelism - len(t.active) - self._terminating_if_replaced_when_failed(job, t))
        todo = list(itertools.islice((i for i in range(completions) if i not in t.completed and i not in busy
                                      and i not in t.failed_indexes), min(room, MAX_PODS_PER_SYNC)))
        if todo and not self._backoff_over(key, job, job.get("status") or {}, t):
            return 0
        return self._create_pods(key, job, todo, t)

    @staticmethod
    def _terminating_if_replaced_when_failed(job: dict, t: Tally) -> int:
        """podReplacementPolicy Failed (or a podFailurePolicy): terminating pods still hold their place."""
        return len(t.terminating) if jp.only_replaces_failed(job) else 0

    def _backoff_over(self, key: str, job: dict, status: dict, t: Tally) -> bool:
        """Whether a failed pod's replacement may be created now (else come back when it may)."""
        failures = int(status.get("failed") or 0) + len(t.unc_failed)
        if failures == 0 or t.last_failure is None:
            return True
        remaining = t.last_failure + jp.backoff_delay(failures) - self.clock.time()
        if remaining <= 0:
            return True
        self.queue.add_after(key, remaining)
        return False

    def _create_pods(self, key: str, job: dict, indexes: list, t: Tally) -> int:
        created = 0
        for index in indexes:
            try:
                pod = self.client.create("pods", job_pod(job, index, t.index_failures.get(index, 0)))
            except StatusError as err:
                self.events.warning(job, "FailedCreate", f"Error creating: {err.message}")
                raise
            self._expect.setdefault(key, set()).add(pod["metadata"]["name"])
            self.events.normal(job, "SuccessfulCreate", f"Created pod: {pod['metadata']['name']}")
            created += 1
        return created

    @staticmethod
    def _count_stopped(t: Tally) -> None:
        """A failing Job's running pods, just deleted, count as failed and are released in this same
        sync (as upstream does once the Job is finished), so Failed needs no further round."""
        for pod in t.active:
            uid = pod["metadata"].get("uid")
            if jp.has_finalizer(pod) and uid not in t.unc_failed:
                t.unc_failed.append(uid)
                t.release.append(pod)

    def _delete_pods(self, job: dict, pods: list[dict], untrack: bool = False) -> int:
        """Delete pods. Pods removed to suspend or scale the Job down lose the tracking finalizer
        first (`untrack`), so they never count as failed, as upstream's deleteJobPods does; a
        finishing Job's pods keep it and are counted."""
        deleted = 0
        for pod in pods:
            meta = pod["metadata"]
            if untrack and jp.has_finalizer(pod):
                self._remove_finalizers([pod])
            if self.client.delete("pods", meta.get("namespace"), meta["name"], uid=meta.get("uid")):
                deleted += 1
                self.events.normal(job, "SuccessfulDelete", f"Deleted pod: {meta['name']}")
        return deleted

    def _remove_finalizers(self, pods: list[dict]) -> None:
        for pod in pods:
            meta = pod["metadata"]
            rest = [f for f in meta.get("finalizers") or [] if f != jp.TRACKING_FINALIZER]
            # The resourceVersion makes a concurrent change of the finalizers a 409 (retried).
            patch = {"metadata": {"resourceVersion": meta.get("resourceVersion"), "finalizers": rest or None}}
            try:
                self.client.patch("pods", meta.get("namespace"), meta["name"], patch, MERGE)
            except StatusError as err:
                if err.code != 404:  # gone meanwhile: nothing to release
                    raise

    def _release_orphans(self, ns: str, name: str) -> None:
        """Pods of a Job that no longer exists keep no tracking finalizer."""
        orphans = [p for p in self.cache.list("pods", ns)
                   if (controller_ref(p) or {}).get("kind") == "Job" and controller_ref(p).get("name") == name
                   and jp.has_finalizer(p)]
        self._remove_finalizers(orphans)

    # -- conditions and status -----------------------------------------------------------------------

    def _finish_target(self, job: dict, status: dict, t: Tally, now: str) -> tuple[str, str, str] | None:
        """("FailureTarget"|"SuccessCriteriaMet", reason, message), set now if newly reached."""
        for ctype in ("FailureTarget", "SuccessCriteriaMet"):
            cond = jp.condition({"status": status}, ctype)
            if cond and cond.get("status") == "True":
                return ctype, cond.get("reason"), cond.get("message")
        found = self._failure(job, status, t, now) or self._success(job, status, t)
        if found is None:
            return None
        ctype, reason, message = found
        status["conditions"].append(_condition(ctype, reason, message, now))
        return found

    def _failure(self, job: dict, status: dict, t: Tally, now: str):
        spec = job.get("spec") or {}
        if t.fail_job:
            return "FailureTarget", "PodFailurePolicy", t.fail_job
        failed = int(status.get("failed") or 0) + len(t.unc_failed)
        if spec.get("backoffLimitPerIndex") is None and failed > spec.get("backoffLimit", 6):
            return ("FailureTarget",) + BACKOFF_EXCEEDED
        max_failed = spec.get("maxFailedIndexes")
        if max_failed is not None and len(t.failed_indexes) > max_failed:
            return ("FailureTarget",) + MAX_FAILED_INDEXES
        deadline = spec.get("activeDeadlineSeconds")
        started = parse_time(status.get("startTime"))
        if deadline is not None and started is not None and not spec.get("suspend") \
                and self.clock.time() >= started + deadline:
            return ("FailureTarget",) + DEADLINE_EXCEEDED
        if jp.is_indexed(job) and t.failed_indexes and \
                len(t.completed | t.failed_indexes) >= (spec.get("completions") or 0):
            return ("FailureTarget",) + FAILED_INDEXES
        return None

    def _success(self, job: dict, status: dict, t: Tally):
        spec = job.get("spec") or {}
        completions = spec.get("completions")
        if jp.is_indexed(job):
            rule = jp.success_policy_met(job, t.completed)
            if rule is not None:
                return "SuccessCriteriaMet", "SuccessPolicy", f"Matched rules at index {rule}"
            succeeded = len(t.completed)
        else:
            succeeded = int(status.get("succeeded") or 0) + len(t.unc_succeeded)
        # Complete once enough pods succeeded and none is still running (any success, without completions).
        done = not t.active and (succeeded > 0 if completions is None else succeeded >= completions)
        return ("SuccessCriteriaMet",) + COMPLETIONS_REACHED if done else None

    def _suspend(self, job: dict, status: dict, now: str) -> None:
        if jp.condition_true({"status": status}, "Suspended"):
            return
        _set_condition(status, _condition("Suspended", "JobSuspended", "Job suspended", now, "True"))
        status.pop("startTime", None)
        self.events.normal(job, "Suspended", "Job suspended")

    @staticmethod
    def _resume(status: dict, now: str) -> bool:
        if not jp.condition_true({"status": status}, "Suspended"):
            return False
        _set_condition(status, _condition("Suspended", "JobResumed", "Job resumed", now, "False"))
        status["startTime"] = now
        return True

    def _requeue_deadline(self, key: str, job: dict, status: dict) -> None:
        deadline = (job.get("spec") or {}).get("activeDeadlineSeconds")
        started = parse_time(status.get("startTime"))
        if deadline is not None and started is not None:
            self.queue.add_after(key, started + deadline - self.clock.time())

    def _status(self, job: dict, status: dict, t: Tally, active: int, terminating: int) -> dict:
        """The status written first: finished pods listed as uncounted (Indexed successes go
        straight into completedIndexes), counts of active/ready/terminating pods."""
        out: dict = {}
        for key in ("conditions", "startTime", "completionTime"):
            if status.get(key):
                out[key] = status[key]
        if active:
            out["active"] = active
        succeeded = len(t.completed) if jp.is_indexed(job) else int(status.get("succeeded") or 0)
        if succeeded:
            out["succeeded"] = succeeded
        if status.get("failed"):
            out["failed"] = status["failed"]
        out["terminating"] = terminating
        if t.completed:
            out["completedIndexes"] = jp.format_indexes(t.completed)
        if (job.get("spec") or {}).get("backoffLimitPerIndex") is not None:
            out["failedIndexes"] = jp.format_indexes(t.failed_indexes)
        uncounted = {}
        if t.unc_succeeded:
            uncounted["succeeded"] = list(t.unc_succeeded)
        if t.unc_failed:
            uncounted["failed"] = list(t.unc_failed)
        out["uncountedTerminatedPods"] = uncounted
        out["ready"] = sum(1 for p in t.active if jp.is_ready(p))
        return out

    def _flush(self, job: dict, status: dict, target, active: int, terminating: int, now: str) -> None:
        """Second write: the uncounted pods (finalizers now gone) into the counts, and Complete or
        Failed once no pod of a finishing Job is left running."""
        unc = status.get("uncountedTerminatedPods") or {}
        finishing = target is not None and active == 0 and terminating == 0
        if not unc and not finishing:
            return
        out = copy.deepcopy(status)
        succeeded = int(out.get("succeeded") or 0) + len(unc.get("succeeded") or [])
        failed = int(out.get("failed") or 0) + len(unc.get("failed") or [])
        out.update(_counts(out, succeeded, failed))
        out["uncountedTerminatedPods"] = {}
        event = None
        if finishing:
            ctype, reason, message = target
            final = "Complete" if ctype == "SuccessCriteriaMet" else "Failed"
            out.setdefault("conditions", []).append(_condition(final, reason, message, now))
            if final == "Complete":
                out["completionTime"] = now
                event = ("Normal", "Completed", "Job completed")
            else:
                event = ("Warning", reason, message)
        self.client.update_status("batch/jobs", {**job, "status": _ordered(out)})
        if event is not None:
            self.events.record(job, *event)


def _counts(status: dict, succeeded: int, failed: int) -> dict:
    out = {}
    for key, value in (("succeeded", succeeded), ("failed", failed)):
        if value:
            out[key] = value
        else:
            status.pop(key, None)
    return out


_STATUS_ORDER = ("conditions", "startTime", "completionTime", "active", "succeeded", "failed", "terminating",
                 "completedIndexes", "failedIndexes", "uncountedTerminatedPods", "ready")


def _ordered(status: dict) -> dict:
    return {k: status[k] for k in _STATUS_ORDER if k in status} | \
        {k: v for k, v in status.items() if k not in _STATUS_ORDER}


def _condition(ctype: str, reason: str, message: str, now: str, status: str = "True") -> dict:
    return {"type": ctype, "status": status, "lastProbeTime": now, "lastTransitionTime": now,
            "reason": reason, "message": message}


def _set_condition(status: dict, cond: dict) -> None:
    conditions = status.setdefault("conditions", [])
    for i, existing in enumerate(conditions):
        if existing.get("type") == cond["type"]:
            conditions[i] = cond
            return
    conditions.append(cond)
