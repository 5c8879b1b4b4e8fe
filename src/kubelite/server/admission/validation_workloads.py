"""Workload validation: Deployment, ReplicaSet, ReplicationController, DaemonSet, StatefulSet, Job, CronJob, HPA."""

from __future__ import annotations

import json

from kubelite.server.admission import field as F
from kubelite.server.admission.field import GoRepr, Path
from kubelite.server.admission.validation_common import (
    Causes, _dicts, _go_int_or_string, _go_label_selector, _go_string_map, _map, _nonnegative,
)
from kubelite.server.admission.validation_meta import (
    _selector_empty, _selector_parses, selector_matches, validate_label_selector, validate_labels,
)
from kubelite.server.admission.validation_pods import validate_pod_template

TYPE_CHECKING = False  # typing for annotations only: a write's first admission does without its import
if TYPE_CHECKING:
    from typing import Any


def _replicas_and_template(spec: dict, path: Path) -> Causes:
    errs: Causes = []
    selector = spec.get("selector")
    template = _map(spec.get("template"))
    template_labels = _map(template.get("metadata")).get("labels")
    # A missing selector selects nothing; an empty one everything (not checked).
    if selector is None or (not _selector_empty(selector) and not selector_matches(selector, template_labels)):
        errs.append(
            F.invalid(
                path.child("template", "metadata", "labels"),
                GoRepr(_go_string_map(template_labels)),
                "`selector` does not match template `labels`",
            )
        )
    # StatefulSet pods also get a volume per volumeClaimTemplate.
    claims = [_map(_map(c).get("metadata")).get("name") for c in _dicts(spec.get("volumeClaimTemplates"))]
    errs += validate_pod_template(template, path.child("template"), [c for c in claims if c])
    restart = _map(template.get("spec")).get("restartPolicy")
    if restart != "Always":
        errs.append(F.not_supported(path.child("template", "spec", "restartPolicy"), restart or "", ("Always",)))
    if _map(template.get("spec")).get("activeDeadlineSeconds") is not None:
        errs.append(
            F.forbidden(
                path.child("template", "spec", "activeDeadlineSeconds"),
                "activeDeadlineSeconds in ReplicaSet is not Supported",
            )
        )
    return errs


def _selector_and_template(spec: dict, path: Path, kind_word: str) -> Causes:
    """Selector rules shared by Deployment, ReplicaSet, DaemonSet, StatefulSet."""
    errs: Causes = []
    selector = spec.get("selector")
    if selector is None:
        errs.append(F.required(path.child("selector"), ""))
    else:
        errs += validate_label_selector(selector, path.child("selector"))
        if _selector_empty(selector):
            errs.append(
                F.invalid(path.child("selector"), _go_label_selector(selector), f"empty selector is invalid for {kind_word}")
            )
    if selector is not None and not _selector_parses(selector):
        errs.append(F.invalid(path.child("selector"), _go_label_selector(selector), "invalid label selector"))
        return errs
    return errs + _replicas_and_template(spec, path)


def _int_or_percent(value: Any) -> int | None:
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.endswith("%"):
        try:
            return int(value[:-1])
        except ValueError:
            return None
    return None


def _positive_int_or_percent(value: Any, path: Path) -> Causes:
    if isinstance(value, str):
        if _int_or_percent(value) is None:
            return [F.invalid(path, value, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")]
        return [] if _int_or_percent(value) >= 0 else [F.invalid(path, value, "must be greater than or equal to 0")]
    return _nonnegative(value, str(path))


def _not_more_than_100_percent(value: Any, path: Path) -> Causes:
    if isinstance(value, str) and (_int_or_percent(value) or 0) > 100:
        return [F.invalid(path, value, "must not be greater than 100%")]
    return []


def _deployment(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs = _nonnegative(spec.get("replicas"), path.child("replicas"))
    errs += _selector_and_template(spec, path, "deployment")
    strategy = _map(spec.get("strategy"))
    sp = path.child("strategy")
    strategy_type = strategy.get("type")
    if strategy_type == "Recreate":
        if strategy.get("rollingUpdate") is not None:
            errs.append(F.forbidden(sp.child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"))
    elif strategy_type == "RollingUpdate":
        rolling = strategy.get("rollingUpdate")
        if rolling is None:
            errs.append(F.required(sp.child("rollingUpdate"), "this should be defaulted and never be nil"))
        else:
            rp = sp.child("rollingUpdate")
            unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
            errs += _positive_int_or_percent(unavailable, rp.child("maxUnavailable"))
            errs += _positive_int_or_percent(surge, rp.child("maxSurge"))
            if _int_or_percent(unavailable) == 0 and _int_or_percent(surge) == 0:
                errs.append(
                    F.invalid(rp.child("maxUnavailable"), _go_int_or_string(unavailable), "may not be 0 when `maxSurge` is 0")
                )
            errs += _not_more_than_100_percent(unavailable, rp.child("maxUnavailable"))
    else:
        errs.append(F.not_supported(sp, GoRepr(json.dumps(strategy)), ("Recreate", "RollingUpdate")))
    min_ready = spec.get("minReadySeconds") or 0
    errs += _nonnegative(min_ready, path.child("minReadySeconds"))
    if spec.get("revisionHistoryLimit") is not None:
        errs += _nonnegative(spec["revisionHistoryLimit"], path.child("revisionHistoryLimit"))
    deadline = spec.get("progressDeadlineSeconds")
    if deadline is not None:
        errs += _nonnegative(deadline, path.child("progressDeadlineSeconds"))
        if isinstance(deadline, int) and deadline <= min_ready:
            errs.append(F.invalid(path.child("progressDeadlineSeconds"), deadline, "must be greater than minReadySeconds"))
    return errs + _deployment_status(_map(obj.get("status")))


def _deployment_status(status: dict) -> Causes:
    path = Path("status")

    def count(key: str) -> int:
        value = status.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    errs: Causes = []
    for key in ("observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
                "unavailableReplicas", "collisionCount"):
        errs += _nonnegative(status.get(key), path.child(key))
    for key in ("updatedReplicas", "readyReplicas", "availableReplicas"):
        if count(key) > count("replicas"):
            errs.append(F.invalid(path.child(key), count(key), "cannot be greater than status.replicas"))
    if count("availableReplicas") > count("readyReplicas"):
        errs.append(F.invalid(path.child("availableReplicas"), count("availableReplicas"),
                              "cannot be greater than readyReplicas"))
    return errs


def _replica_set(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs = _nonnegative(spec.get("replicas"), path.child("replicas"))
    errs += _nonnegative(spec.get("minReadySeconds"), path.child("minReadySeconds"))
    return errs + _selector_and_template(spec, path, "deployment")


def _replication_controller(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs = _nonnegative(spec.get("replicas"), path.child("replicas"))
    errs += _nonnegative(spec.get("minReadySeconds"), path.child("minReadySeconds"))
    selector = _map(spec.get("selector"))
    if not selector:
        errs.append(F.required(path.child("selector"), ""))
    else:
        errs += validate_labels(selector, path.child("selector"))
    template = spec.get("template")
    if template is None:
        errs.append(F.required(path.child("template"), ""))
        return errs
    labels = _map(_map(template).get("metadata")).get("labels")
    if selector and any(_map(labels).get(k) != v for k, v in selector.items()):
        errs.append(
            F.invalid(path.child("template", "metadata", "labels"), GoRepr(_go_string_map(labels)),
                      "`selector` does not match template `labels`")
        )
    errs += validate_pod_template(template, path.child("template"))
    restart = _map(_map(template).get("spec")).get("restartPolicy")
    if restart != "Always":
        errs.append(F.not_supported(path.child("template", "spec", "restartPolicy"), restart or "", ("Always",)))
    return errs


def _daemon_set(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs = _selector_and_template(spec, path, "daemonset")
    strategy = _map(spec.get("updateStrategy"))
    if strategy.get("type") not in ("RollingUpdate", "OnDelete"):
        errs.append(
            F.not_supported(path.child("updateStrategy", "type"), strategy.get("type") or "", ("OnDelete", "RollingUpdate"))
        )
    errs += _nonnegative(spec.get("minReadySeconds"), path.child("minReadySeconds"))
    return errs


def _stateful_set(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs: Causes = []
    policy = spec.get("podManagementPolicy")
    if policy not in ("OrderedReady", "Parallel"):
        errs.append(F.not_supported(path.child("podManagementPolicy"), policy or "", ("OrderedReady", "Parallel")))
    errs += _nonnegative(spec.get("replicas"), path.child("replicas"))
    errs += _nonnegative(spec.get("minReadySeconds"), path.child("minReadySeconds"))
    return errs + _selector_and_template(spec, path, "statefulset")


def _job_spec(spec: dict, path: Path) -> Causes:
    errs: Causes = []
    for key in ("parallelism", "completions", "backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished"):
        errs += _nonnegative(spec.get(key), path.child(key))
    template = _map(spec.get("template"))
    errs += validate_pod_template(template, path.child("template"))
    restart = _map(template.get("spec")).get("restartPolicy")
    if restart not in ("OnFailure", "Never"):
        # Always comes from pod defaulting; the server reports it as missing.
        errs.append(F.required(path.child("template", "spec", "restartPolicy"), 'valid values: "OnFailure", "Never"'))
    return errs


def _generated_selector(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    if spec.get("manualSelector") is True:
        return []
    template_labels = _map(_map(spec.get("template")).get("metadata")).get("labels")
    if template_labels is None:
        return []
    uid = _map(obj.get("metadata")).get("uid")
    selector = spec.get("selector")
    path = Path("spec")
    if selector is None:
        return [F.required(path.child("selector"), "")]
    if uid and selector != {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}:
        return [F.invalid(path.child("selector"), _go_label_selector(selector), "`selector` not auto-generated")]
    return []


def _job(obj: dict) -> Causes:
    return _generated_selector(obj) + job_spec_errors(obj)


def job_spec_errors(obj: dict) -> Causes:
    """ValidateJobSpec: run on create and (again) on update."""
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs: Causes = []
    selector = spec.get("selector")
    if selector is not None:
        errs += validate_label_selector(selector, path.child("selector"))
        template_labels = _map(_map(spec.get("template")).get("metadata")).get("labels")
        if not selector_matches(selector, template_labels):
            errs.append(
                F.invalid(
                    path.child("template", "metadata", "labels"),
                    GoRepr(_go_string_map(template_labels)),
                    "`selector` does not match template `labels`",
                )
            )
    return errs + _job_spec(spec, path)


def _cron_schedule_errors(schedule: str) -> list[str]:
    fields = schedule.split()
    if schedule.startswith("@"):
        if schedule in ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"):
            return []
        if schedule.startswith("@every "):
            return []
        return [f"unrecognized descriptor: {schedule}"]
    if len(fields) != 5:
        return [f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]"]
    return []


def _cron_job(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs: Causes = []
    name = _map(obj.get("metadata")).get("name") or ""
    if len(name) > 52:
        errs.append(F.invalid(Path("metadata").child("name"), name, "must be no more than 52 characters"))
    schedule = spec.get("schedule") or ""
    if not schedule:
        errs.append(F.required(path.child("schedule"), ""))
    else:
        errs += [F.invalid(path.child("schedule"), schedule, m) for m in _cron_schedule_errors(schedule)]
    policy = spec.get("concurrencyPolicy")
    if policy not in ("Allow", "Forbid", "Replace"):
        errs.append(F.not_supported(path.child("concurrencyPolicy"), policy or "", ("Allow", "Forbid", "Replace")))
    job_spec = _map(_map(spec.get("jobTemplate")).get("spec"))
    errs += _job_spec(job_spec, path.child("jobTemplate", "spec"))
    return errs


def _hpa(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs: Causes = []
    min_replicas = spec.get("minReplicas")
    max_replicas = spec.get("maxReplicas") or 0
    if isinstance(min_replicas, int) and min_replicas < 1:
        errs.append(F.invalid(path.child("minReplicas"), min_replicas, "must be greater than or equal to 1"))
    if max_replicas < 1:
        errs.append(F.invalid(path.child("maxReplicas"), max_replicas, "must be greater than 0"))
    if isinstance(min_replicas, int) and max_replicas < min_replicas:
        errs.append(F.invalid(path.child("maxReplicas"), max_replicas, "must be greater than or equal to `minReplicas`"))
    ref = _map(spec.get("scaleTargetRef"))
    rp = path.child("scaleTargetRef")
    if not ref.get("kind"):
        errs.append(F.required(rp.child("kind"), ""))
    if not ref.get("name"):
        errs.append(F.required(rp.child("name"), ""))
    return errs
