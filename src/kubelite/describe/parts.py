"""Pieces every describer shares: labels, annotations, tolerations, events, containers,
volumes and pod templates, in kubectl describe's words and order."""
from __future__ import annotations

import json
import math
from typing import Any

from kubelite.describe.writer import Writer
from kubelite.server.printers.formats import as_dict, as_list, as_str, format_label_selector, parse_time

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
MAX_ANNOTATION_LEN = 140


def meta(obj: dict) -> dict:
    return as_dict(obj.get("metadata"))


def go_value(value: Any) -> str:
    """Go's %v of a JSON value."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        text = repr(value)
        return text.replace("e+", "e+").replace("e-0", "e-0")
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def labels_multiline(w: Writer, title: str, labels: Any, indent: str = "", inner: str = "\t") -> None:
    w.write(0, f"{indent}{title}:{inner}")
    labels = as_dict(labels)
    if not labels:
        w.line("<none>")
        return
    for i, key in enumerate(sorted(labels)):
        if i:
            w.write(0, indent + inner)
        w.write(0, f"{key}={go_value(labels[key])}\n")


def annotations_multiline(w: Writer, title: str, annotations: Any, indent: str = "", inner: str = "\t") -> None:
    w.write(0, f"{indent}{title}:{inner}")
    shown = {k: v for k, v in as_dict(annotations).items() if k != LAST_APPLIED}
    if not shown:
        w.line("<none>")
        return
    for i, key in enumerate(sorted(shown)):
        if i:
            w.write(0, indent + inner)
        value = go_value(shown[key])
        if len(value) > MAX_ANNOTATION_LEN:
            value = value[:MAX_ANNOTATION_LEN] + "..."
        w.write(0, f"{key}: {value}\n")


def tolerations_multiline(w: Writer, title: str, tolerations: Any, indent: str = "", inner: str = "\t") -> None:
    w.write(0, f"{indent}{title}:{inner}")
    tolerations = as_list(tolerations)
    if not tolerations:
        w.line("<none>")
        return
    for i, t in enumerate(tolerations):
        t = as_dict(t)
        if i:
            w.write(0, indent + inner)
        text = as_str(t.get("key"))
        if t.get("value"):
            text += f"={t['value']}"
        if t.get("effect"):
            text += f":{t['effect']}"
        if t.get("operator") == "Exists":
            text += " op=Exists"
        if t.get("tolerationSeconds") is not None:
            text += f" for {t['tolerationSeconds']}s"
        w.write(0, text + "\n")


def name_namespace(w: Writer, obj: dict, namespace: bool = True) -> None:
    w.write(0, f"Name:\t{meta(obj).get('name', '')}\n")
    if namespace:
        w.write(0, f"Namespace:\t{meta(obj).get('namespace', '')}\n")


def rfc1123z(timestamp: Any) -> str:
    moment = parse_time(timestamp)
    if moment is None:
        return "Mon, 01 Jan 0001 00:00:00 +0000"
    return moment.strftime("%a, %d %b %Y %H:%M:%S +0000")


def selector(value: Any) -> str:
    return format_label_selector(value)


# -- events ---------------------------------------------------------------------------------------


def events(w: Writer, items: list | None, now) -> None:
    if items is None:
        return
    if not items:
        w.write(0, "Events:\t<none>\n")
        return
    from kubelite.server.printers.formats import since

    w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
    w.write(1, "----\t------\t----\t----\t-------\n")
    for e in sorted(items, key=_event_time):
        first = since(e.get("eventTime"), now) if e.get("eventTime") else since(e.get("firstTimestamp"), now)
        series = as_dict(e.get("series"))
        if series:
            interval = f"{since(series.get('lastObservedTime'), now)} (x{series.get('count', 0)} over {first})"
        elif (e.get("count") or 0) > 1:
            interval = f"{since(e.get('lastTimestamp'), now)} (x{e['count']} over {first})"
        else:
            interval = first
        source = as_str(as_dict(e.get("source")).get("component")) or as_str(e.get("reportingComponent"))
        w.write(1, f"{e.get('type', '')}\t{e.get('reason', '')}\t{interval}\t{source}\t"
                   f"{as_str(e.get('message')).strip()}\n")


def _event_time(e: dict):
    moment = parse_time(e.get("lastTimestamp")) or parse_time(e.get("eventTime"))
    return moment.timestamp() if moment else 0.0


# -- containers -------------------------------------------------------------------------------------


def containers(w: Writer, label: str, items: list, statuses: list, space: str, pod: dict | None) -> None:
    by_name = {as_dict(s).get("name"): as_dict(s) for s in as_list(statuses)}
    w.write(0, f"{space}{label}:\n")
    for c in items:
        c = as_dict(c)
        status = by_name.get(c.get("name"))
        _basic_info(w, c, status, space)
        _command(w, c)
        if status is not None:
            _state(w, status)
        _resources(w, as_dict(c.get("resources")))
        _probes(w, c)
        if as_list(c.get("envFrom")):
            _env_from(w, c)
        _env(w, c, pod)
        _mounts(w, c)


def _basic_info(w: Writer, c: dict, status: dict | None, space: str) -> None:
    name_indent = " " if space else ""
    w.write(1, f"{name_indent}{c.get('name', '')}:\n")
    if status is not None:
        w.write(2, f"Container ID:\t{status.get('containerID', '')}\n")
    w.write(2, f"Image:\t{c.get('image', '')}\n")
    if status is not None:
        w.write(2, f"Image ID:\t{status.get('imageID', '')}\n")
    ports = [as_dict(p) for p in as_list(c.get("ports"))]
    port_text = ", ".join(f"{p.get('containerPort', 0)}/{p.get('protocol', '')}" for p in ports)
    host_text = ", ".join(f"{p.get('hostPort', 0)}/{p.get('protocol', '')}" for p in ports)
    if "," in port_text:
        w.write(2, f"Ports:\t{port_text}\n")
    else:
        w.write(2, f"Port:\t{port_text or '<none>'}\n")
    if "," in host_text:
        w.write(2, f"Host Ports:\t{host_text}\n")
    else:
        w.write(2, f"Host Port:\t{host_text or '<none>'}\n")
    seccomp = as_dict(as_dict(c.get("securityContext")).get("seccompProfile"))
    if seccomp:
        w.write(2, f"SeccompProfile:\t{seccomp.get('type', '')}\n")
        if seccomp.get("localhostProfile"):
            w.write(2, f"LocalhostProfile:\t{seccomp['localhostProfile']}\n")


def _command(w: Writer, c: dict) -> None:
    for key, title in (("command", "Command"), ("args", "Args")):
        values = as_list(c.get(key))
        if values:
            w.write(2, f"{title}:\n")
            for value in values:
                for part in str(value).split("\n"):
                    w.write(3, f"{part}\n")


def _state(w: Writer, status: dict) -> None:
    _one_state(w, "State", as_dict(status.get("state")))
    last = as_dict(status.get("lastState"))
    if any(last.get(k) for k in ("running", "waiting", "terminated")):
        _one_state(w, "Last State", last)
    # kubectl's printBool here (capitalised), unlike the %v of a bool elsewhere
    w.write(2, f"Ready:\t{'True' if status.get('ready') else 'False'}\n")
    w.write(2, f"Restart Count:\t{status.get('restartCount', 0)}\n")


def _one_state(w: Writer, title: str, state: dict) -> None:
    if state.get("running") is not None:
        w.write(2, f"{title}:\tRunning\n")
        w.write(3, f"Started:\t{rfc1123z(as_dict(state['running']).get('startedAt'))}\n")
    elif state.get("waiting") is not None:
        w.write(2, f"{title}:\tWaiting\n")
        reason = as_dict(state["waiting"]).get("reason")
        if reason:
            w.write(3, f"Reason:\t{reason}\n")
    elif state.get("terminated") is not None:
        t = as_dict(state["terminated"])
        w.write(2, f"{title}:\tTerminated\n")
        if t.get("reason"):
            w.write(3, f"Reason:\t{t['reason']}\n")
        if t.get("message"):
            w.write(3, f"Message:\t{t['message']}\n")
        w.write(3, f"Exit Code:\t{t.get('exitCode', 0)}\n")
        if t.get("signal"):
            w.write(3, f"Signal:\t{t['signal']}\n")
        w.write(3, f"Started:\t{rfc1123z(t.get('startedAt'))}\n")
        w.write(3, f"Finished:\t{rfc1123z(t.get('finishedAt'))}\n")
    else:
        w.write(2, f"{title}:\tWaiting\n")


def _resources(w: Writer, resources: dict) -> None:
    for key, title in (("limits", "Limits"), ("requests", "Requests")):
        values = as_dict(resources.get(key))
        if values:
            w.write(2, f"{title}:\n")
            for name in sorted(values):
                w.write(3, f"{name}:\t{values[name]}\n")


def _probes(w: Writer, c: dict) -> None:
    for key, title in (("livenessProbe", "Liveness"), ("readinessProbe", "Readiness"), ("startupProbe", "Startup")):
        probe = c.get(key)
        if isinstance(probe, dict):
            w.write(2, f"{title}:\t{describe_probe(probe)}\n")


def describe_probe(probe: dict) -> str:
    attrs = (f"delay={probe.get('initialDelaySeconds', 0)}s timeout={probe.get('timeoutSeconds', 0)}s "
             f"period={probe.get('periodSeconds', 0)}s #success={probe.get('successThreshold', 0)} "
             f"#failure={probe.get('failureThreshold', 0)}")
    if isinstance(probe.get("exec"), dict):
        return f"exec [{' '.join(str(x) for x in as_list(probe['exec'].get('command')))}] {attrs}"
    if isinstance(probe.get("httpGet"), dict):
        h = probe["httpGet"]
        host = as_str(h.get("host"))
        port = str(h.get("port", ""))
        hostport = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        scheme = as_str(h.get("scheme")).lower()
        return f"http-get {scheme}://{hostport}{as_str(h.get('path'))} {attrs}"
    if isinstance(probe.get("tcpSocket"), dict):
        t = probe["tcpSocket"]
        return f"tcp-socket {as_str(t.get('host'))}:{t.get('port', '')} {attrs}"
    if isinstance(probe.get("grpc"), dict):
        g = probe["grpc"]
        return f"grpc <pod>:{g.get('port', 0)} {as_str(g.get('service'))} {attrs}"
    return f"unknown {attrs}"


def _env_from(w: Writer, c: dict) -> None:
    w.write(2, "Environment Variables from:\n")
    for e in as_list(c.get("envFrom")):
        e = as_dict(e)
        if isinstance(e.get("configMapRef"), dict):
            source, ref = "ConfigMap", e["configMapRef"]
        elif isinstance(e.get("secretRef"), dict):
            source, ref = "Secret", e["secretRef"]
        else:
            source, ref = "", {}
        optional = go_value(ref.get("optional") is True)
        if e.get("prefix"):
            w.write(3, f"{ref.get('name', '')}\t{source} with prefix '{e['prefix']}'\tOptional: {optional}\n")
        else:
            w.write(3, f"{ref.get('name', '')}\t{source}\tOptional: {optional}\n")


def _env(w: Writer, c: dict, pod: dict | None) -> None:
    env = [as_dict(e) for e in as_list(c.get("env"))]
    w.write(2, "Environment:" + ("" if env else "\t<none>") + "\n")
    for e in env:
        name = e.get("name", "")
        source = e.get("valueFrom")
        if not isinstance(source, dict):
            for i, part in enumerate(as_str(e.get("value")).split("\n")):
                w.write(3, f"{name}:\t{part}\n" if i == 0 else f"\t{part}\n")
            continue
        if isinstance(source.get("fieldRef"), dict):
            ref = source["fieldRef"]
            value = field_value(pod, as_str(ref.get("fieldPath"))) if pod is not None else ""
            w.write(3, f"{name}:\t{value} ({ref.get('apiVersion', '')}:{ref.get('fieldPath', '')})\n")
        elif isinstance(source.get("resourceFieldRef"), dict):
            ref = source["resourceFieldRef"]
            value = container_resource_value(ref, c)
            if value is not None:
                w.write(3, f"{name}:\t{value} ({ref.get('resource', '')})\n")
        elif isinstance(source.get("secretKeyRef"), dict):
            ref = source["secretKeyRef"]
            w.write(3, f"{name}:\t<set to the key '{ref.get('key', '')}' in secret '{ref.get('name', '')}'>\t"
                       f"Optional: {go_value(ref.get('optional') is True)}\n")
        elif isinstance(source.get("configMapKeyRef"), dict):
            ref = source["configMapKeyRef"]
            w.write(3, f"{name}:\t<set to the key '{ref.get('key', '')}' of config map '{ref.get('name', '')}'>\t"
                       f"Optional: {go_value(ref.get('optional') is True)}\n")


def field_value(pod: dict, path: str) -> str:
    m = meta(pod)
    if path.startswith("metadata.labels['") or path.startswith("metadata.annotations['"):
        which = "labels" if ".labels[" in path else "annotations"
        key = path.split("['", 1)[1].rstrip("']")
        return as_str(as_dict(m.get(which)).get(key))
    simple = {"metadata.name": m.get("name"), "metadata.namespace": m.get("namespace"), "metadata.uid": m.get("uid"),
              "spec.nodeName": as_dict(pod.get("spec")).get("nodeName"),
              "spec.serviceAccountName": as_dict(pod.get("spec")).get("serviceAccountName"),
              "status.hostIP": as_dict(pod.get("status")).get("hostIP"),
              "status.podIP": as_dict(pod.get("status")).get("podIP")}
    return as_str(simple.get(path))


_SUFFIXES = {"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
             "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}


def parse_quantity(text: Any) -> float | None:
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text)
    text = as_str(text)
    for suffix in sorted(_SUFFIXES, key=len, reverse=True):
        if suffix and text.endswith(suffix):
            try:
                return float(text[: -len(suffix)]) * _SUFFIXES[suffix]
            except ValueError:
                return None
    try:
        return float(text)
    except ValueError:
        return None


def container_resource_value(ref: dict, c: dict) -> str | None:
    """The value a resourceFieldRef exposes: the container's limit/request divided by the
    divisor, rounded up."""
    resource = as_str(ref.get("resource"))
    kind, _, name = resource.partition(".")
    values = as_dict(as_dict(c.get("resources")).get("limits" if kind == "limits" else "requests"))
    divisor = parse_quantity(ref.get("divisor") or "1") or 1.0
    amount = parse_quantity(values.get(name)) if name in values else None
    if amount is None:
        return None if name not in ("cpu", "memory", "ephemeral-storage") else "0"
    return str(int(math.ceil(amount / divisor - 1e-9)))


def _mounts(w: Writer, c: dict) -> None:
    mounts = sorted((as_dict(m) for m in as_list(c.get("volumeMounts"))), key=lambda m: as_str(m.get("mountPath")))
    w.write(2, "Mounts:" + ("" if mounts else "\t<none>") + "\n")
    for m in mounts:
        flags = ["ro" if m.get("readOnly") else "rw"]
        if m.get("subPath"):
            flags.append(f"path={json.dumps(m['subPath'])}")
        if m.get("subPathExpr"):
            flags.append(f"path={json.dumps(m['subPathExpr'])}")
        w.write(3, f"{m.get('mountPath', '')} from {m.get('name', '')} ({','.join(flags)})\n")
    devices = [as_dict(d) for d in as_list(c.get("volumeDevices"))]
    if devices:
        w.write(2, "Devices:\n")
        for d in sorted(devices, key=lambda d: as_str(d.get("devicePath"))):
            w.write(3, f"{d.get('devicePath', '')} from {d.get('name', '')}\n")


# -- volumes -------------------------------------------------------------------------------------------


def volumes(w: Writer, items: Any, space: str) -> None:
    items = [as_dict(v) for v in as_list(items)]
    if not items:
        w.write(0, f"{space}Volumes:\t<none>\n")
        return
    w.write(0, f"{space}Volumes:\n")
    name_indent = " " if space else ""
    for v in items:
        w.write(1, f"{name_indent}{v.get('name', '')}:\n")
        _volume(w, v)


def _opt(value: Any) -> str:
    return "<nil>" if value is None else go_value(value)


def _volume(w: Writer, v: dict) -> None:
    if isinstance(v.get("hostPath"), dict):
        h = v["hostPath"]
        w.write(2, f"Type:\tHostPath (bare host directory volume)\n    Path:\t{h.get('path', '')}\n"
                   f"    HostPathType:\t{h.get('type', '')}\n")
    elif isinstance(v.get("emptyDir"), dict):
        e = v["emptyDir"]
        w.write(2, f"Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n"
                   f"    Medium:\t{e.get('medium', '')}\n")
        w.write(2, f"SizeLimit:\t{e['sizeLimit']}\n" if e.get("sizeLimit") is not None else "SizeLimit:\t<unset>\n")
    elif isinstance(v.get("secret"), dict):
        s = v["secret"]
        w.write(2, f"Type:\tSecret (a volume populated by a Secret)\n    SecretName:\t{s.get('secretName', '')}\n"
                   f"    Optional:\t{go_value(s.get('optional') is True)}\n")
    elif isinstance(v.get("configMap"), dict):
        c = v["configMap"]
        w.write(2, f"Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t{c.get('name', '')}\n"
                   f"    Optional:\t{go_value(c.get('optional') is True)}\n")
    elif isinstance(v.get("persistentVolumeClaim"), dict):
        c = v["persistentVolumeClaim"]
        w.write(2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n"
                   f"    ClaimName:\t{c.get('claimName', '')}\n    ReadOnly:\t{go_value(c.get('readOnly') is True)}\n")
    elif isinstance(v.get("downwardAPI"), dict):
        w.write(2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n    Items:\n")
        for item in as_list(v["downwardAPI"].get("items")):
            item = as_dict(item)
            if isinstance(item.get("fieldRef"), dict):
                w.write(3, f"{item['fieldRef'].get('fieldPath', '')} -> {item.get('path', '')}\n")
            if isinstance(item.get("resourceFieldRef"), dict):
                w.write(3, f"{item['resourceFieldRef'].get('resource', '')} -> {item.get('path', '')}\n")
    elif isinstance(v.get("projected"), dict):
        w.write(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n")
        for source in as_list(v["projected"].get("sources")):
            source = as_dict(source)
            if isinstance(source.get("secret"), dict):
                w.write(0, f"    SecretName:\t{source['secret'].get('name', '')}\n"
                           f"    SecretOptionalName:\t{_opt(source['secret'].get('optional'))}\n")
            elif isinstance(source.get("downwardAPI"), dict):
                w.write(0, "    DownwardAPI:\ttrue\n")
            elif isinstance(source.get("configMap"), dict):
                w.write(0, f"    ConfigMapName:\t{source['configMap'].get('name', '')}\n"
                           f"    ConfigMapOptional:\t{_opt(source['configMap'].get('optional'))}\n")
            elif isinstance(source.get("serviceAccountToken"), dict):
                w.write(0, f"    TokenExpirationSeconds:\t{source['serviceAccountToken'].get('expirationSeconds', 0)}\n")
    else:
        w.write(2, "<unknown>\n")


# -- pod templates --------------------------------------------------------------------------------------


def pod_template(w: Writer, template: Any) -> None:
    w.write(0, "Pod Template:\n")
    if not isinstance(template, dict):
        w.write(0, "  <unset>")
        return
    m = as_dict(template.get("metadata"))
    spec = as_dict(template.get("spec"))
    labels_multiline(w, "Labels", m.get("labels"), indent="  ")
    if as_dict(m.get("annotations")):
        annotations_multiline(w, "Annotations", m.get("annotations"), indent="  ")
    if spec.get("serviceAccountName"):
        w.write(0, f"  Service Account:\t{spec['serviceAccountName']}\n")
    if as_list(spec.get("initContainers")):
        containers(w, "Init Containers", as_list(spec.get("initContainers")), [], "  ", None)
    containers(w, "Containers", as_list(spec.get("containers")), [], "  ", None)
    volumes(w, spec.get("volumes"), "  ")
    if spec.get("priorityClassName"):
        w.write(0, f"  Priority Class Name:\t{spec['priorityClassName']}\n")
    labels_multiline(w, "Node-Selectors", spec.get("nodeSelector"), indent="  ")
    tolerations_multiline(w, "Tolerations", spec.get("tolerations"), indent="  ")
