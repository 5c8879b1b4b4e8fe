"""kubectl describe of an autoscaling/v2 HorizontalPodAutoscaler: each metric as
`current / target` (`<unknown>` until the controller has measured it), the bounds, the behavior
rules when set, the target's pod counts, the conditions and the events."""
from __future__ import annotations

from kubelite.describe import parts
from kubelite.describe.writer import Writer
from kubelite.server.printers.formats import as_dict, as_list

UNKNOWN = "<unknown>"


def hpa(obj: dict, related: dict, now) -> Writer:
    w = Writer()
    spec, status = as_dict(obj.get("spec")), as_dict(obj.get("status"))
    m = parts.meta(obj)
    parts.name_namespace(w, obj, True)
    parts.labels_multiline(w, "Labels", m.get("labels"))
    parts.annotations_multiline(w, "Annotations", m.get("annotations"))
    w.write(0, f"CreationTimestamp:\t{parts.rfc1123z(m.get('creationTimestamp'))}\n")
    ref = as_dict(spec.get("scaleTargetRef"))
    w.write(0, f"Reference:\t{ref.get('kind', '')}/{ref.get('name', '')}\n")
    w.write(0, "Metrics:\t( current / target )\n")
    current_metrics = as_list(status.get("currentMetrics"))
    for index, metric in enumerate(as_list(spec.get("metrics"))):
        current = as_dict(current_metrics[index]) if index < len(current_metrics) else {}
        _metric(w, as_dict(metric), current)
    minimum = spec.get("minReplicas")
    w.write(0, f"Min replicas:\t{minimum if minimum is not None else '<unset>'}\n")
    w.write(0, f"Max replicas:\t{spec.get('maxReplicas', 0)}\n")
    behavior = spec.get("behavior")
    if behavior is not None:
        w.write(0, "Behavior:\n")
        _direction(w, "Scale Up", as_dict(behavior).get("scaleUp"))
        _direction(w, "Scale Down", as_dict(behavior).get("scaleDown"))
    w.write(0, f"{ref.get('kind', '')} pods:\t{status.get('currentReplicas', 0)} current / "
               f"{status.get('desiredReplicas', 0)} desired\n")
    conditions = as_list(status.get("conditions"))
    if conditions:
        w.write(0, "Conditions:\n")
        w.write(1, "Type\tStatus\tReason\tMessage\n")
        w.write(1, "----\t------\t------\t-------\n")
        for c in conditions:
            c = as_dict(c)
            w.write(1, f"{c.get('type', '')}\t{c.get('status', '')}\t{c.get('reason', '')}\t{c.get('message', '')}\n")
    parts.events(w, related.get("events"), now)
    return w


def _current(current: dict, source: str, field: str) -> str:
    value = as_dict(as_dict(current.get(source)).get("current")).get(field)
    return str(value) if source in current and value is not None else UNKNOWN


def _metric(w: Writer, metric: dict, current: dict) -> None:
    kind = metric.get("type")
    if kind == "External":
        source = as_dict(metric.get("external"))
        name, target = as_dict(source.get("metric")).get("name", ""), as_dict(source.get("target"))
        if target.get("averageValue") is not None:
            w.write(1, f"{_quoted(name)} (target average value):\t{_current(current, 'external', 'averageValue')} / "
                       f"{target['averageValue']}\n")
        else:
            w.write(1, f"{_quoted(name)} (target value):\t{_current(current, 'external', 'value')} / "
                       f"{target.get('value', '0')}\n")
    elif kind == "Pods":
        source = as_dict(metric.get("pods"))
        name, target = as_dict(source.get("metric")).get("name", ""), as_dict(source.get("target"))
        w.write(1, f"{_quoted(name)} on pods:\t{_current(current, 'pods', 'averageValue')} / "
                   f"{target.get('averageValue', '0')}\n")
    elif kind == "Object":
        source = as_dict(metric.get("object"))
        described, target = as_dict(source.get("describedObject")), as_dict(source.get("target"))
        w.write(1, f'"{as_dict(source.get("metric")).get("name", "")}" on {described.get("kind", "")}/'
                   f'{described.get("name", "")} ')
        if target.get("type") == "AverageValue":
            w.write(0, f"(target average value):\t{_current(current, 'object', 'averageValue')} / "
                       f"{target.get('averageValue', '0')}\n")
        else:
            w.write(0, f"(target value):\t{_current(current, 'object', 'value')} / {target.get('value', '0')}\n")
    elif kind in ("Resource", "ContainerResource"):
        key = "resource" if kind == "Resource" else "containerResource"
        source = as_dict(metric.get(key))
        target = as_dict(source.get("target"))
        if kind == "Resource":
            w.write(1, f"resource {source.get('name', '')} on pods")
        else:
            w.write(1, f'resource {source.get("name", "")} of container "{source.get("container", "")}" on pods')
        if target.get("averageValue") is not None:
            w.write(0, f":\t{_current(current, key, 'averageValue')} / {target['averageValue']}\n")
            return
        measured = as_dict(as_dict(current.get(key)).get("current"))
        shown = UNKNOWN
        if key in current and measured.get("averageUtilization") is not None:
            shown = f"{measured['averageUtilization']}% ({measured.get('averageValue', '0')})"
        wanted = target.get("averageUtilization")
        w.write(1, f"(as a percentage of request):\t{shown} / {f'{wanted}%' if wanted is not None else '<auto>'}\n")
    else:
        w.write(1, f"<unknown metric type {_quoted(kind or '')}>\n")


def _direction(w: Writer, title: str, rules) -> None:
    if rules is None:
        return
    rules = as_dict(rules)
    w.write(1, f"{title}:\n")
    if rules.get("stabilizationWindowSeconds") is not None:
        w.write(2, f"Stabilization Window: {rules['stabilizationWindowSeconds']} seconds\n")
    policies = as_list(rules.get("policies"))
    if policies:
        w.write(2, f"Select Policy: {rules.get('selectPolicy') or 'Max'}\n")
        w.write(2, "Policies:\n")
        for p in policies:
            p = as_dict(p)
            w.write(3, f"- Type: {p.get('type', '')}\tValue: {p.get('value', 0)}\tPeriod: {p.get('periodSeconds', 0)} "
                       "seconds\n")


def _quoted(text: str) -> str:
    from kubelite.manifest._govalues import go_quote

    return go_quote(text)
