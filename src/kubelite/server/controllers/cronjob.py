"""The CronJob controller (kube-controller-manager's cronjob v2) on the cluster's clock: Jobs
named `<cronjob>-<scheduled time in minutes since the epoch>`, concurrencyPolicy
Allow/Forbid/Replace, startingDeadlineSeconds, suspend, history limits, status.active /
lastScheduleTime / lastSuccessfulTime, and its Events (SuccessfulCreate, SawCompletedJob,
UnexpectedJob, MissingJob, SuccessfulDelete, MissSchedule, TooManyMissedTimes, ...)."""
from __future__ import annotations

import copy
import datetime

from kubelite.server.clock import format_time, parse_time
from kubelite.server.controllers import cron_schedule as cron
from kubelite.server.controllers.base import Controller, controller_ref, split_key
from kubelite.server.controllers.job_policy import condition_true, is_finished
from kubelite.server.controllers.podtemplate import controller_reference
from kubelite.server.errors import StatusError

SCHEDULED_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp"
# Upstream requeues a little after the next activation so that it is surely due.
NEXT_SLACK = 0.1


def _utc(seconds: float) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)


class CronJobController(Controller):
    name = "cronjob"
    component = "cronjob-controller"
    watches = ("batch/cronjobs", "batch/jobs")

    def handle(self, rid, event_type, obj, old):
        super().handle(rid, event_type, obj, old)  # the CronJob itself
        key = self.owner_key(obj, "CronJob")  # or the CronJob owning it
        if key is not None:
            self.queue.add(key)

    def sync(self, key: str) -> None:
        ns, name = split_key(key)
        cj = self.cache.get("batch/cronjobs", ns, name)
        if cj is None:
            return
        uid = cj["metadata"].get("uid")
        jobs = [j for j in self.cache.list("batch/jobs", ns) if (controller_ref(j) or {}).get("uid") == uid]
        status = copy.deepcopy(cj.get("status") or {})
        self._reconcile_children(cj, jobs, status)
        if cj["metadata"].get("deletionTimestamp"):
            self._write(cj, status)
            return
        self._cleanup_history(cj, jobs, status)
        cj = self._write(cj, status)
        self._schedule(key, cj, status)

    # -- children --------------------------------------------------------------------------------

    def _reconcile_children(self, cj: dict, jobs: list[dict], status: dict) -> None:
        active = status.get("active") or []
        active_uids = {ref.get("uid") for ref in active}
        children = {j["metadata"].get("uid") for j in jobs}
        for job in sorted(jobs, key=lambda j: j["metadata"].get("creationTimestamp") or ""):
            juid, jname = job["metadata"].get("uid"), job["metadata"]["name"]
            finished = is_finished(job)
            if juid not in active_uids and not finished:
                self.events.warning(cj, "UnexpectedJob", f"Saw a job that the controller did not create or forgot: {jname}")
            elif juid in active_uids and finished:
                ctype = "Complete" if condition_true(job, "Complete") else "Failed"
                active = [ref for ref in active if ref.get("uid") != juid]
                self.events.normal(cj, "SawCompletedJob", f"Saw completed job: {jname}, condition: {ctype}")
            if condition_true(job, "Complete"):
                done = (job.get("status") or {}).get("completionTime")
                last = status.get("lastSuccessfulTime")
                if done and (not last or parse_time(done) > parse_time(last)):
                    status["lastSuccessfulTime"] = done
        for ref in list(active):
            if ref.get("uid") not in children and \
                    self.client.get("batch/jobs", ref.get("namespace") or "", ref.get("name")) is None:
                self.events.normal(cj, "MissingJob", f"Active job went missing: {ref.get('name')}")
                active = [r for r in active if r.get("uid") != ref.get("uid")]
        if active:
            status["active"] = active
        else:
            status.pop("active", None)

    def _cleanup_history(self, cj: dict, jobs: list[dict], status: dict) -> None:
        spec = cj.get("spec") or {}
        for want_complete, limit_key in ((True, "successfulJobsHistoryLimit"), (False, "failedJobsHistoryLimit")):
            limit = spec.get(limit_key)
            if limit is None:
                continue
            done = [j for j in jobs if condition_true(j, "Complete" if want_complete else "Failed")]
            done.sort(key=lambda j: (j.get("status") or {}).get("startTime") or j["metadata"].get("creationTimestamp"))
            for job in done[:max(0, len(done) - limit)]:
                self._delete_job(cj, job)

    def _delete_job(self, cj: dict, job: dict) -> None:
        meta = job["metadata"]
        if self.client.delete("batch/jobs", meta.get("namespace"), meta["name"], propagation="Background",
                              uid=meta.get("uid")):
            self.events.normal(cj, "SuccessfulDelete", f"Deleted job {meta['name']}")

    def _write(self, cj: dict, status: dict) -> dict:
        if status == (cj.get("status") or {}):
            return cj
        return self.client.update_status("batch/cronjobs", {**cj, "status": status})

    # -- scheduling ------------------------------------------------------------------------------

    def _schedule(self, key: str, cj: dict, status: dict) -> None:
        spec = cj.get("spec") or {}
        try:
            tz = cron.time_zone(spec.get("timeZone"))
        except cron.ScheduleError:
            self.events.warning(cj, "UnknownTimeZone", f"invalid timeZone: {spec.get('timeZone')!r}")
            return
        try:
            schedule = cron.parse(spec.get("schedule", ""))
        except cron.ScheduleError as err:
            self.events.warning(cj, "UnparseableSchedule", f"unparseable schedule: {spec.get('schedule')!r} : {err}")
            return
        if spec.get("suspend"):
            return
        now = _utc(self.clock.time())
        earliest = _utc(parse_time(status.get("lastScheduleTime") or cj["metadata"].get("creationTimestamp"))
                        or self.clock.time())
        deadline = spec.get("startingDeadlineSeconds")
        if deadline is not None:
            earliest = max(earliest, now - datetime.timedelta(seconds=deadline))
        scheduled, missed = cron.schedule_times(schedule, earliest, now, tz)
        self._requeue_next(key, schedule, now, tz)
        if scheduled is None:
            return
        if missed > 100:
            self.events.warning(cj, "TooManyMissedTimes", f"too many missed start times: {missed}. Set or decrease "
                                ".spec.startingDeadlineSeconds or check clock skew")
        if deadline is not None and scheduled + datetime.timedelta(seconds=deadline) < now:
            self.events.warning(cj, "MissSchedule", "Missed scheduled time to start a job: "
                                f"{scheduled.astimezone(datetime.timezone.utc).strftime('%a, %d %b %Y %H:%M:%S %z')}")
            return
        if status.get("active") and spec.get("concurrencyPolicy") == "Forbid":
            return
        if any(ref.get("name") == job_name(cj, scheduled) for ref in status.get("active") or []):
            return
        if status.get("active") and spec.get("concurrencyPolicy") == "Replace":
            for ref in status["active"]:
                job = self.cache.get("batch/jobs", ref.get("namespace") or "", ref.get("name"))
                if job is not None:
                    self._delete_job(cj, job)
            status.pop("active", None)
        self._start(cj, status, scheduled, tz)

    def _requeue_next(self, key: str, schedule, now: datetime.datetime, tz) -> None:
        nxt = schedule.next_after(now, tz)
        if nxt is not None:
            self.queue.add_after(key, (nxt - now).total_seconds() + NEXT_SLACK)

    def _start(self, cj: dict, status: dict, scheduled: datetime.datetime, tz) -> None:
        job = job_from_template(cj, scheduled, tz)
        try:
            created = self.client.create("batch/jobs", job)
        except StatusError as err:
            if err.code != 409:
                self.events.warning(cj, "FailedCreate", f"Error creating job: {err.message}")
                raise
            created = self.client.get("batch/jobs", job["metadata"]["namespace"], job["metadata"]["name"])
            if created is None or (controller_ref(created) or {}).get("uid") != cj["metadata"].get("uid"):
                return
            if is_finished(created):  # already ran for this time: only the schedule moves on
                status["lastScheduleTime"] = format_time(scheduled)
                self._write(self.cache.get("batch/cronjobs", cj["metadata"]["namespace"], cj["metadata"]["name"])
                            or cj, status)
                return
        else:
            self.events.normal(cj, "SuccessfulCreate", f"Created job {created['metadata']['name']}")
        meta = created["metadata"]
        ref = {"kind": "Job", "namespace": meta.get("namespace"), "name": meta["name"], "uid": meta.get("uid"),
               "apiVersion": "batch/v1", "resourceVersion": meta.get("resourceVersion")}
        status["active"] = [r for r in status.get("active") or [] if r.get("uid") != meta.get("uid")] + [ref]
        status["lastScheduleTime"] = format_time(scheduled)
        fresh = self.client.get("batch/cronjobs", cj["metadata"]["namespace"], cj["metadata"]["name"]) or cj
        self.client.update_status("batch/cronjobs", {**fresh, "status": _ordered(status)})


def job_name(cj: dict, scheduled: datetime.datetime) -> str:
    return f"{cj['metadata']['name']}-{int(scheduled.timestamp()) // 60}"


def job_from_template(cj: dict, scheduled: datetime.datetime, tz) -> dict:
    template = (cj.get("spec") or {}).get("jobTemplate") or {}
    tmeta = template.get("metadata") or {}
    meta = {"name": job_name(cj, scheduled), "namespace": cj["metadata"].get("namespace"),
            "labels": dict(tmeta.get("labels") or {}),
            "annotations": {**(tmeta.get("annotations") or {}),
                            SCHEDULED_ANNOTATION: scheduled.astimezone(tz).isoformat().replace("+00:00", "Z")},
            "ownerReferences": [controller_reference(cj)]}
    if not meta["labels"]:
        del meta["labels"]
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": copy.deepcopy(template.get("spec") or {})}


def _ordered(status: dict) -> dict:
    order = ("active", "lastScheduleTime", "lastSuccessfulTime")
    return {k: status[k] for k in order if k in status} | {k: v for k, v in status.items() if k not in order}
