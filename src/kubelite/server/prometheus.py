"""kube-apiserver's main Prometheus metrics, served at /metrics in the text exposition format.

- apiserver_request_total{code,component,dry_run,group,resource,scope,subresource,verb,version}
  and the apiserver_request_duration_seconds histogram (its labels without code), for every
  resource request, with kube-apiserver's label rules (endpoints/metrics/metrics.go,
  endpoints/installer.go): the verb is the HTTP method, GET of a collection reported as LIST,
  `?watch` as WATCH, an apply patch as APPLY, exec/attach/portforward/proxy as CONNECT; the
  scope is `resource` for a named object or a create, `namespace` for a collection in a
  namespace, `cluster` otherwise; dry_run the sorted, de-duplicated dryRun values;
- apiserver_storage_objects{resource} for every stored resource (`configmaps`,
  `deployments.apps`), counted when scraped (kube-apiserver refreshes it every minute).

Recording a request is a dictionary update and a bisection; the text is built only on a scrape.
Families come out sorted by name and their series by label values, as client_golang gathers
them; numbers as strconv's shortest 'g' format.
"""
from __future__ import annotations

import bisect
import threading


CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
COMPONENT = "apiserver"
BUCKETS = (0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45,
           60)
_CONNECT = frozenset({"exec", "attach", "portforward", "proxy"})
_NOT_STORED = frozenset({("", "componentstatuses")})
_SHARED_STORAGE = {("events.k8s.io", "events"): "events"}  # one REST storage serves both groups
_SERIES_LABELS = ("verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component")
_HELP = {
    "apiserver_request_duration_seconds": (
        "histogram", "[STABLE] Response latency distribution in seconds for each verb, dry run value, group, "
                     "version, resource, subresource, scope and component."),
    "apiserver_request_total": (
        "counter", "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, "
                   "version, resource, scope, component, and HTTP response code."),
    "apiserver_storage_objects": (
        "gauge", "[STABLE] Number of stored objects at the time of last check split by kind. In case of a "
                 "fetching error, the value will be -1."),
}


class RequestMetrics:
    """The request counter and latency histogram of one API server."""

    def __init__(self):
        self._lock = threading.Lock()  # the in-process door may serve from several threads
        self._counts: dict[tuple, int] = {}
        self._latency: dict[tuple, list] = {}  # series -> [per-bucket counts..., +Inf count, sum]

    def observe(self, request, info, status: int, seconds: float) -> None:
        """Count one answered resource request (`info`: its routing.RequestInfo)."""
        series = series_labels(request, info)
        with self._lock:
            key = series + (str(status),)
            self._counts[key] = self._counts.get(key, 0) + 1
            cells = self._latency.get(series)
            if cells is None:
                cells = self._latency[series] = [0] * (len(BUCKETS) + 1) + [0.0]
            cells[bisect.bisect_left(BUCKETS, seconds)] += 1
            cells[-1] += seconds

    def render(self, object_counts: dict[str, int]) -> str:
        with self._lock:
            counts = dict(self._counts)
            latency = {k: list(v) for k, v in self._latency.items()}
        out: list[str] = []
        if latency:
            _header(out, "apiserver_request_duration_seconds")
            for series in sorted(latency, key=_sort_key(_SERIES_LABELS)):
                _histogram(out, series, latency[series])
        if counts:
            _header(out, "apiserver_request_total")
            names = _SERIES_LABELS + ("code",)
            for key in sorted(counts, key=_sort_key(names)):
                out.append(f"apiserver_request_total{_labels(names, key)} {go_g(float(counts[key]))}")
        if object_counts:
            _header(out, "apiserver_storage_objects")
            for resource in sorted(object_counts):
                out.append(f'apiserver_storage_objects{{resource="{_escape(resource)}"}} '
                           f"{go_g(float(object_counts[resource]))}")
        return "".join(line + "\n" for line in out)


def series_labels(request, info) -> tuple:
    """(verb, dry_run, group, version, resource, subresource, scope, component) of a request."""
    scope = _scope(request.method, info)
    return (_verb(request, info, scope), _dry_run(request.query), info.api_group or "", info.api_version or "",
            info.resource or "", info.subresource or "", scope, COMPONENT)


def _scope(method: str, info) -> str:
    if info.name or method == "POST":
        return "resource"
    return "namespace" if info.namespace else "cluster"


def _verb(request, info, scope: str) -> str:
    method = request.method.upper()
    if info.subresource in _CONNECT:
        return "CONNECT"
    if method in ("GET", "HEAD"):
        if info.verb == "watch":
            return "WATCH"
        return "GET" if scope == "resource" else "LIST"
    if method == "PATCH" and request.header("content-type") == "application/apply-patch+yaml":
        return "APPLY"
    return method if method in ("POST", "PUT", "PATCH", "DELETE") else "other"


def _dry_run(query) -> str:
    values = query.get_all("dryRun") if "dryRun" in query else ()
    if not values:
        return ""
    if any(v != "All" for v in values):
        return "invalid"
    return "All"


def _sort_key(names: tuple[str, ...]):
    order = sorted(range(len(names)), key=lambda i: names[i])
    return lambda key: tuple(key[i] for i in order)


def go_g(value: float) -> str:
    """Go's %g of a sample (manifest._gonum, with struct): loaded when /metrics is rendered, not by
    every process that counts requests."""
    from kubelite.manifest._gonum import go_g as formatted

    return formatted(value)


def _histogram(out: list[str], series: tuple, cells: list) -> None:
    name = "apiserver_request_duration_seconds"
    labels = _labels(_SERIES_LABELS, series)[:-1]  # without the closing brace: `le` follows
    running = 0
    for bound, count in zip(BUCKETS, cells):
        running += count
        out.append(f'{name}_bucket{labels},le="{go_g(float(bound))}"}} {go_g(float(running))}')
    running += cells[len(BUCKETS)]
    out.append(f'{name}_bucket{labels},le="+Inf"}} {go_g(float(running))}')
    out.append(f"{name}_sum{_labels(_SERIES_LABELS, series)} {go_g(cells[-1])}")
    out.append(f"{name}_count{_labels(_SERIES_LABELS, series)} {go_g(float(running))}")


def _labels(names: tuple[str, ...], values: tuple) -> str:
    pairs = sorted(zip(names, values))
    return "{" + ",".join(f'{n}="{_escape(v)}"' for n, v in pairs) + "}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _header(out: list[str], name: str) -> None:
    kind, text = _HELP[name]
    out.append(f"# HELP {name} {text}")
    out.append(f"# TYPE {name} {kind}")


def storage_object_counts(api) -> dict[str, int]:
    """Objects stored per resource, named as kube-apiserver names them (`deployments.apps`)."""
    counts: dict[str, int] = {}
    for r in api.registry.all():
        if r.aggregated or "list" not in r.verbs or (r.group, r.resource) in _NOT_STORED:
            continue  # served elsewhere, or never stored (reviews, component statuses)
        label = _SHARED_STORAGE.get((r.group, r.resource)) or (f"{r.resource}.{r.group}" if r.group else r.resource)
        if label in counts:
            continue  # one storage, several served versions
        try:
            counts[label] = api.store.count(api.watch_prefix(r, ""))
        except Exception:  # a store that cannot count reports -1, as kube-apiserver's fetching error
            counts[label] = -1
    return counts
