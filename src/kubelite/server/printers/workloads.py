"""Printers for pods and the workload controllers (apps, batch, policy, autoscaling)."""
from __future__ import annotations

import datetime

from kubelite.server.printers.columns import (
    AGE, APPS, BATCH, CONTAINERS, CORE, IMAGES, NAME, Doc, col)
from kubelite.server.printers.formats import (
    InvalidSelector, as_dict, as_int, as_list, as_str, between, bool_word, container_cells, dig,
    format_label_selector, format_labels, parse_time, quantity, selector_string, since)
from kubelite.server.printers.registry import Printer, Row

TYPE_CHECKING = False  # typing for annotations only: a short command's start does without it
if TYPE_CHECKING:
    from typing import Any

_Now = datetime.datetime

# Literal descriptions: kube-apiserver takes these from API types it no longer serves
# (extensions/v1beta1, autoscaling/v2beta1), so they are not in the 1.32 definitions.
_DS_READY = ("The number of nodes that should be running the daemon pod and have one or more "
             "of the daemon pod running and ready.")
_DS_SELECTOR = ("A label query over pods that are managed by the daemon set. Must match in order "
                "to be controlled. If empty, defaulted to labels on Pod template. More info: "
                "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors")
_DEPLOY_SELECTOR = ("Label selector for pods. Existing ReplicaSets whose pods are selected by this "
                    "will be the ones affected by this deployment.")
_RS_READY = "The number of ready replicas for this replica set."
_RS_SELECTOR = ("Selector is a label query over pods that should match the replica count. If the "
                "selector is empty, it is defaulted to the labels present on the pod template. Label "
                "keys and values that must match in order to be controlled by this replica set. More "
                "info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors")
_HPA_TARGETS = ("metrics contains the specifications for which to use to calculate the desired "
                "replica count (the maximum replica count across all metrics will be used).  The "
                "desired replica count is calculated multiplying the ratio between the target value "
                "and the current value by the current number of pods.  Ergo, metrics used must "
                "decrease as the pod count is increased, and vice-versa.  See the individual metric "
                "source types for more information about how each type of metric must respond.")
_HPA = "io.k8s.api.autoscaling.v2."


# ----------------------------------------------------------------------------- pods

_POD_COLUMNS = (
    NAME,
    col("Ready", "The aggregate readiness state of this pod for accepting traffic."),
    col("Status", "The aggregate status of the containers in this pod."),
    col("Restarts", "The number of times the containers in this pod have been restarted and when "
                    "the last container in this pod has restarted."),
    AGE,
    col("IP", Doc(CORE + "PodStatus", "podIP"), priority=1),
    col("Node", Doc(CORE + "PodSpec", "nodeName"), priority=1),
    col("Nominated Node", Doc(CORE + "PodStatus", "nominatedNodeName"), priority=1),
    col("Readiness Gates", Doc(CORE + "PodSpec", "readinessGates"), priority=1),
)

_TERMINAL_PHASES = ("Succeeded", "Failed")
_ROW_CONDITIONS = {
    "Succeeded": [{"type": "Completed", "status": "True", "reason": "Succeeded",
                   "message": "The pod has completed successfully."}],
    "Failed": [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}],
}


def _later(current: datetime.datetime | None, candidate: Any) -> datetime.datetime | None:
    moment = parse_time(candidate)
    if moment is None:
        return current
    return moment if current is None or moment > current else current


def _condition_true(conditions: Any, kind: str) -> bool:
    for condition in as_list(conditions):
        condition = as_dict(condition)
        if condition.get("type") == kind:
            return condition.get("status") == "True"
    return False


def _pod_status(pod: dict) -> tuple[str, int, int, int, datetime.datetime | None]:
    """(reason, ready containers, total containers, restarts, last restart time) as kubectl shows them."""
    spec, status = as_dict(pod.get("spec")), as_dict(pod.get("status"))
    phase = as_str(status.get("phase"))
    reason = as_str(status.get("reason")) or phase
    for condition in as_list(status.get("conditions")):
        condition = as_dict(condition)
        if condition.get("type") == "PodScheduled" and condition.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"

    init_specs = {as_str(c.get("name")): as_dict(c) for c in map(as_dict, as_list(spec.get("initContainers")))}
    sidecar = {name for name, c in init_specs.items() if c.get("restartPolicy") == "Always"}
    total = len(as_list(spec.get("containers"))) + len(sidecar)
    ready = restarts = sidecar_restarts = 0
    last_restart = last_sidecar_restart = None

    initializing = False
    init_statuses = as_list(status.get("initContainerStatuses"))
    for index, container in enumerate(map(as_dict, init_statuses)):
        count = as_int(container.get("restartCount"))
        finished = dig(container, "lastState", "terminated", "finishedAt")
        restarts += count
        last_restart = _later(last_restart, finished)
        is_sidecar = as_str(container.get("name")) in sidecar
        if is_sidecar:
            sidecar_restarts += count
            last_sidecar_restart = _later(last_sidecar_restart, finished)
        state = as_dict(container.get("state"))
        terminated, waiting = state.get("terminated"), state.get("waiting")
        if isinstance(terminated, dict) and as_int(terminated.get("exitCode")) == 0:
            continue
        if is_sidecar and container.get("started") is True:
            if container.get("ready") is True:
                ready += 1
            continue
        if isinstance(terminated, dict):
            if not as_str(terminated.get("reason")):
                signal = as_int(terminated.get("signal"))
                reason = (f"Init:Signal:{signal}" if signal
                          else f"Init:ExitCode:{as_int(terminated.get('exitCode'))}")
            else:
                reason = "Init:" + as_str(terminated.get("reason"))
        elif isinstance(waiting, dict) and as_str(waiting.get("reason")) not in ("", "PodInitializing"):
            reason = "Init:" + as_str(waiting.get("reason"))
        else:
            reason = f"Init:{index}/{len(as_list(spec.get('initContainers')))}"
        initializing = True
        break

    if not initializing or _condition_true(status.get("conditions"), "Initialized"):
        restarts, last_restart = sidecar_restarts, last_sidecar_restart
        has_running = False
        for container in reversed([as_dict(c) for c in as_list(status.get("containerStatuses"))]):
            restarts += as_int(container.get("restartCount"))
            last_restart = _later(last_restart, dig(container, "lastState", "terminated", "finishedAt"))
            state = as_dict(container.get("state"))
            waiting, terminated = state.get("waiting"), state.get("terminated")
            if isinstance(waiting, dict) and as_str(waiting.get("reason")):
                reason = as_str(waiting.get("reason"))
            elif isinstance(terminated, dict) and as_str(terminated.get("reason")):
                reason = as_str(terminated.get("reason"))
            elif isinstance(terminated, dict):
                signal = as_int(terminated.get("signal"))
                reason = f"Signal:{signal}" if signal else f"ExitCode:{as_int(terminated.get('exitCode'))}"
            elif container.get("ready") is True and isinstance(state.get("running"), dict):
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            reason = "Running" if _condition_true(status.get("conditions"), "Ready") else "NotReady"

    deleting = dig(pod, "metadata", "deletionTimestamp") is not None
    if deleting and status.get("reason") == "NodeLost":
        reason = "Unknown"
    elif deleting and phase not in _TERMINAL_PHASES:
        reason = "Terminating"
    return reason, ready, total, restarts, last_restart


def _readiness_gates(pod: dict) -> str:
    gates = as_list(dig(pod, "spec", "readinessGates"))
    if not gates:
        return "<none>"
    conditions = [as_dict(c) for c in as_list(dig(pod, "status", "conditions"))]
    passed = 0
    for gate in map(as_dict, gates):
        for condition in conditions:
            if condition.get("type") == gate.get("conditionType"):
                passed += condition.get("status") == "True"
                break
    return f"{passed}/{len(gates)}"


def pod_row(pod: dict, now: _Now) -> Row:
    reason, ready, total, restarts, last_restart = _pod_status(pod)
    restarts_text = str(restarts)
    if restarts and last_restart is not None:
        restarts_text = f"{restarts} ({since(last_restart.strftime('%Y-%m-%dT%H:%M:%SZ'), now)} ago)"
    ips = as_list(dig(pod, "status", "podIPs"))
    pod_ip = as_str(as_dict(ips[0]).get("ip")) if ips else ""
    cells = [as_str(dig(pod, "metadata", "name")), f"{ready}/{total}", reason, restarts_text,
             since(dig(pod, "metadata", "creationTimestamp"), now),
             pod_ip or "<none>",
             as_str(dig(pod, "spec", "nodeName")) or "<none>",
             as_str(dig(pod, "status", "nominatedNodeName")) or "<none>",
             _readiness_gates(pod)]
    return Row(cells, _ROW_CONDITIONS.get(as_str(dig(pod, "status", "phase"))))


def pod_template_row(obj: dict, now: _Now) -> Row:
    names, images = container_cells(dig(obj, "template", "spec", "containers"))
    return Row([_name(obj), names, images, format_labels(dig(obj, "template", "metadata", "labels"))])


# ----------------------------------------------------------------- controllers

def _name(obj: dict) -> str:
    return as_str(dig(obj, "metadata", "name"))


def _age(obj: dict, now: _Now) -> str:
    return since(dig(obj, "metadata", "creationTimestamp"), now)


def _template_cells(obj: dict, *template_path: str) -> list[str]:
    names, images = container_cells(dig(obj, *template_path, "spec", "containers"))
    return [names, images]


def replication_controller_row(obj: dict, now: _Now) -> Row:
    return Row([_name(obj), as_int(dig(obj, "spec", "replicas")), as_int(dig(obj, "status", "replicas")),
                as_int(dig(obj, "status", "readyReplicas")), _age(obj, now),
                *_template_cells(obj, "spec", "template"), format_labels(dig(obj, "spec", "selector"))])


def replica_set_row(obj: dict, now: _Now) -> Row:
    return Row([_name(obj), as_int(dig(obj, "spec", "replicas")), as_int(dig(obj, "status", "replicas")),
                as_int(dig(obj, "status", "readyReplicas")), _age(obj, now),
                *_template_cells(obj, "spec", "template"), format_label_selector(dig(obj, "spec", "selector"))])


def deployment_row(obj: dict, now: _Now) -> Row:
    try:
        selector = selector_string(dig(obj, "spec", "selector"))
    except InvalidSelector:
        selector = "<invalid>"
    ready = f"{as_int(dig(obj, 'status', 'readyReplicas'))}/{as_int(dig(obj, 'spec', 'replicas'))}"
    return Row([_name(obj), ready, as_int(dig(obj, "status", "updatedReplicas")),
                as_int(dig(obj, "status", "availableReplicas")), _age(obj, now),
                *_template_cells(obj, "spec", "template"), selector])


def stateful_set_row(obj: dict, now: _Now) -> Row:
    ready = f"{as_int(dig(obj, 'status', 'readyReplicas'))}/{as_int(dig(obj, 'spec', 'replicas'))}"
    return Row([_name(obj), ready, _age(obj, now), *_template_cells(obj, "spec", "template")])


def daemon_set_row(obj: dict, now: _Now) -> Row:
    status = as_dict(obj.get("status"))
    counts = [as_int(status.get(k)) for k in ("desiredNumberScheduled", "currentNumberScheduled",
                                              "numberReady", "updatedNumberScheduled", "numberAvailable")]
    return Row([_name(obj), *counts, format_labels(dig(obj, "spec", "template", "spec", "nodeSelector")),
                _age(obj, now), *_template_cells(obj, "spec", "template"),
                format_label_selector(dig(obj, "spec", "selector"))])


def _job_status(obj: dict) -> str:
    conditions = dig(obj, "status", "conditions")
    if _condition_true(conditions, "Complete"):
        return "Complete"
    if _condition_true(conditions, "Failed"):
        return "Failed"
    if dig(obj, "metadata", "deletionTimestamp") is not None:
        return "Terminating"
    if _condition_true(conditions, "Suspended"):
        return "Suspended"
    if _condition_true(conditions, "FailureTarget"):
        return "FailureTarget"
    return "Running"


def job_row(obj: dict, now: _Now) -> Row:
    succeeded = as_int(dig(obj, "status", "succeeded"))
    completions = dig(obj, "spec", "completions")
    if isinstance(completions, int) and not isinstance(completions, bool):
        completions_text = f"{succeeded}/{completions}"
    else:
        parallelism = as_int(dig(obj, "spec", "parallelism"))
        completions_text = f"{succeeded}/1 of {parallelism}" if parallelism > 1 else f"{succeeded}/1"
    start, end = dig(obj, "status", "startTime"), dig(obj, "status", "completionTime")
    if start is None:
        duration = ""
    elif end is None:
        duration = since(start, now)
    else:
        duration = between(start, end)
    return Row([_name(obj), _job_status(obj), completions_text, duration, _age(obj, now),
                *_template_cells(obj, "spec", "template"), format_label_selector(dig(obj, "spec", "selector"))])


def cron_job_row(obj: dict, now: _Now) -> Row:
    last = dig(obj, "status", "lastScheduleTime")
    time_zone = dig(obj, "spec", "timeZone")
    job_spec = dig(obj, "spec", "jobTemplate", "spec")
    return Row([_name(obj), as_str(dig(obj, "spec", "schedule")),
                time_zone if isinstance(time_zone, str) else "<none>",
                bool_word(dig(obj, "spec", "suspend")), len(as_list(dig(obj, "status", "active"))),
                "<none>" if last is None else since(last, now), _age(obj, now),
                *_template_cells(as_dict(job_spec), "template"),
                format_label_selector(dig(job_spec, "selector"))])


def _int_or_string(value: Any) -> str:
    if value is None:
        return "N/A"
    return str(value)


def pod_disruption_budget_row(obj: dict, now: _Now) -> Row:
    spec = as_dict(obj.get("spec"))
    return Row([_name(obj), _int_or_string(spec.get("minAvailable")), _int_or_string(spec.get("maxUnavailable")),
                as_int(dig(obj, "status", "disruptionsAllowed")), _age(obj, now)])


def controller_revision_row(obj: dict, now: _Now) -> Row:
    controller = "<none>"
    for ref in map(as_dict, as_list(dig(obj, "metadata", "ownerReferences"))):
        if ref.get("controller") is True:
            api_version = as_str(ref.get("apiVersion"))
            group = api_version.rpartition("/")[0] if "/" in api_version else ""
            kind = as_str(ref.get("kind"))
            group_kind = f"{kind}.{group}" if group else kind
            controller = f"{group_kind.lower()}/{as_str(ref.get('name'))}" if group_kind else as_str(ref.get("name"))
            break
    return Row([_name(obj), controller, as_int(obj.get("revision")), _age(obj, now)])


# -------------------------------------------------------------------------- HPA

def _hpa_metrics(obj: dict) -> tuple[list, list]:
    """(spec metrics, current metrics) in autoscaling/v2 shape, converting autoscaling/v1."""
    spec, status = as_dict(obj.get("spec")), as_dict(obj.get("status"))
    if "targetCPUUtilizationPercentage" in spec or as_str(obj.get("apiVersion")) == "autoscaling/v1":
        target = spec.get("targetCPUUtilizationPercentage")
        metrics = []
        if target is not None:
            metrics = [{"type": "Resource", "resource": {"name": "cpu", "target": {
                "type": "Utilization", "averageUtilization": target}}}]
        current = status.get("currentCPUUtilizationPercentage")
        statuses = []
        if current is not None:
            statuses = [{"type": "Resource", "resource": {"name": "cpu", "current": {
                "averageUtilization": current}}}]
        return metrics, statuses
    return as_list(spec.get("metrics")), as_list(status.get("currentMetrics"))


def _metric_text(spec: dict, status: dict | None) -> str:
    kind = spec.get("type")
    status = as_dict(status)
    if kind == "External":
        target = as_dict(dig(spec, "external", "target"))
        current_node = status.get("external")
        if target.get("averageValue") is not None:
            current = "<unknown>"
            if isinstance(current_node, dict) and dig(current_node, "current", "averageValue") is not None:
                current = quantity(dig(current_node, "current", "averageValue"))
            return f"{current}/{quantity(target.get('averageValue'))} (avg)"
        current = quantity(dig(current_node, "current", "value")) if isinstance(current_node, dict) else "<unknown>"
        return f"{current}/{quantity(target.get('value'))}"
    if kind == "Pods":
        current_node = status.get("pods")
        current = (quantity(dig(current_node, "current", "averageValue"))
                   if isinstance(current_node, dict) else "<unknown>")
        return f"{current}/{quantity(dig(spec, 'pods', 'target', 'averageValue'))}"
    if kind == "Object":
        target = as_dict(dig(spec, "object", "target"))
        current_node = status.get("object")
        if target.get("averageValue") is not None:
            current = "<unknown>"
            if isinstance(current_node, dict) and dig(current_node, "current", "averageValue") is not None:
                current = quantity(dig(current_node, "current", "averageValue"))
            return f"{current}/{quantity(target.get('averageValue'))} (avg)"
        current = quantity(dig(current_node, "current", "value")) if isinstance(current_node, dict) else "<unknown>"
        return f"{current}/{quantity(target.get('value'))}"
    if kind in ("Resource", "ContainerResource"):
        key = "resource" if kind == "Resource" else "containerResource"
        source = as_dict(spec.get(key))
        target = as_dict(source.get("target"))
        current_node = status.get(key)
        name = as_str(source.get("name"))
        if target.get("averageValue") is not None:
            current = (quantity(dig(current_node, "current", "averageValue"))
                       if isinstance(current_node, dict) else "<unknown>")
            return f"{name}: {current}/{quantity(target.get('averageValue'))}"
        current = "<unknown>"
        utilization = dig(current_node, "current", "averageUtilization")
        if isinstance(current_node, dict) and utilization is not None:
            current = f"{as_int(utilization)}%"
        wanted = target.get("averageUtilization")
        goal = f"{as_int(wanted)}%" if wanted is not None else "<auto>"
        return f"{name}: {current}/{goal}"
    return "<unknown type>"


def _hpa_targets(obj: dict) -> str:
    specs, statuses = _hpa_metrics(obj)
    if not specs:
        return "<none>"
    texts = [_metric_text(as_dict(spec), statuses[i] if i < len(statuses) else None)
             for i, spec in enumerate(specs)]
    if len(texts) > 2:
        return f"{', '.join(texts[:2])} + {len(texts) - 2} more..."
    return ", ".join(texts)


def hpa_row(obj: dict, now: _Now) -> Row:
    ref = as_dict(dig(obj, "spec", "scaleTargetRef"))
    min_replicas = dig(obj, "spec", "minReplicas")
    return Row([_name(obj), f"{as_str(ref.get('kind'))}/{as_str(ref.get('name'))}", _hpa_targets(obj),
                "<unset>" if min_replicas is None else str(as_int(min_replicas)),
                as_int(dig(obj, "spec", "maxReplicas")), as_int(dig(obj, "status", "currentReplicas")),
                _age(obj, now)])


PRINTERS = {
    ("", "pods"): Printer(_POD_COLUMNS, pod_row),
    ("", "podtemplates"): Printer((
        NAME,
        col("Containers", "Names of each container in the template."),
        col("Images", "Images referenced by each container in the template."),
        col("Pod Labels", "The labels for the pod template."),
    ), pod_template_row),
    ("", "replicationcontrollers"): Printer((
        NAME,
        col("Desired", Doc(CORE + "ReplicationControllerSpec", "replicas"), "integer"),
        col("Current", Doc(CORE + "ReplicationControllerStatus", "replicas"), "integer"),
        col("Ready", Doc(CORE + "ReplicationControllerStatus", "readyReplicas"), "integer"),
        AGE, CONTAINERS, IMAGES,
        col("Selector", Doc(CORE + "ReplicationControllerSpec", "selector"), priority=1),
    ), replication_controller_row),
    ("apps", "replicasets"): Printer((
        NAME,
        col("Desired", Doc(APPS + "ReplicaSetSpec", "replicas"), "integer"),
        col("Current", Doc(APPS + "ReplicaSetStatus", "replicas"), "integer"),
        col("Ready", _RS_READY, "integer"),
        AGE, CONTAINERS, IMAGES,
        col("Selector", _RS_SELECTOR, priority=1),
    ), replica_set_row),
    ("apps", "deployments"): Printer((
        NAME,
        col("Ready", "Number of the pod with ready state"),
        col("Up-to-date", Doc(APPS + "DeploymentStatus", "updatedReplicas")),
        col("Available", Doc(APPS + "DeploymentStatus", "availableReplicas")),
        AGE, CONTAINERS, IMAGES,
        col("Selector", _DEPLOY_SELECTOR, priority=1),
    ), deployment_row),
    ("apps", "statefulsets"): Printer((
        NAME, col("Ready", "Number of the pod with ready state"), AGE, CONTAINERS, IMAGES,
    ), stateful_set_row),
    ("apps", "daemonsets"): Printer((
        NAME,
        col("Desired", Doc(APPS + "DaemonSetStatus", "desiredNumberScheduled"), "integer"),
        col("Current", Doc(APPS + "DaemonSetStatus", "currentNumberScheduled"), "integer"),
        col("Ready", _DS_READY, "integer"),
        col("Up-to-date", Doc(APPS + "DaemonSetStatus", "updatedNumberScheduled"), "integer"),
        col("Available", Doc(APPS + "DaemonSetStatus", "numberAvailable"), "integer"),
        col("Node Selector", Doc(CORE + "PodSpec", "nodeSelector")),
        AGE, CONTAINERS, IMAGES,
        col("Selector", _DS_SELECTOR, priority=1),
    ), daemon_set_row),
    ("apps", "controllerrevisions"): Printer((
        NAME,
        col("Controller", "Controller of the object"),
        col("Revision", Doc(APPS + "ControllerRevision", "revision")),
        AGE,
    ), controller_revision_row),
    ("batch", "jobs"): Printer((
        NAME,
        col("Status", "Status of the job."),
        col("Completions", Doc(BATCH + "JobStatus", "succeeded")),
        col("Duration", "Time required to complete the job."),
        AGE, CONTAINERS, IMAGES,
        col("Selector", Doc(BATCH + "JobSpec", "selector"), priority=1),
    ), job_row),
    ("batch", "cronjobs"): Printer((
        NAME,
        col("Schedule", Doc(BATCH + "CronJobSpec", "schedule")),
        col("Timezone", Doc(BATCH + "CronJobSpec", "timeZone")),
        col("Suspend", Doc(BATCH + "CronJobSpec", "suspend"), "boolean"),
        col("Active", Doc(BATCH + "CronJobStatus", "active"), "integer"),
        col("Last Schedule", Doc(BATCH + "CronJobStatus", "lastScheduleTime")),
        AGE, CONTAINERS, IMAGES,
        col("Selector", Doc(BATCH + "JobSpec", "selector"), priority=1),
    ), cron_job_row),
    ("policy", "poddisruptionbudgets"): Printer((
        NAME,
        col("Min Available", "The minimum number of pods that must be available."),
        col("Max Unavailable", "The maximum number of pods that may be unavailable."),
        col("Allowed Disruptions", "Calculated number of pods that may be disrupted at this time.", "integer"),
        AGE,
    ), pod_disruption_budget_row),
    ("autoscaling", "horizontalpodautoscalers"): Printer((
        NAME,
        col("Reference", Doc(_HPA + "HorizontalPodAutoscalerSpec", "scaleTargetRef")),
        col("Targets", _HPA_TARGETS),
        col("MinPods", Doc(_HPA + "HorizontalPodAutoscalerSpec", "minReplicas")),
        col("MaxPods", Doc(_HPA + "HorizontalPodAutoscalerSpec", "maxReplicas")),
        col("Replicas", Doc(_HPA + "HorizontalPodAutoscalerStatus", "currentReplicas")),
        AGE,
    ), hpa_row),
}
