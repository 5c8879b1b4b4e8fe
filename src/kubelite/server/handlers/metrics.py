"""metrics.k8s.io/v1beta1 answered as metrics-server answers it behind the aggregator.

Nothing is stored: every GET computes PodMetrics / NodeMetrics from the pods and nodes in the
store at that moment (kubelite.server.metrics holds the usage rule). Only get and list exist;
a watch is refused with the generic apiserver's "not supported" Status, any other method as its
router refuses it. The 404s are worded as metrics-server's listers word them: a missing pod is
`pods "x" not found`, a missing node `node "x" not found` (the singular of client-go's
generated listers), a pod or node without figures `podmetrics.metrics.k8s.io "ns/x" not found`
/ `nodemetrics.metrics.k8s.io "x" not found`.
"""
from __future__ import annotations

from fractions import Fraction

from kubelite.server import errors, metrics
from kubelite.server.controllers.nodes import SIMULATED_ANNOTATION
from kubelite.server.handlers.http import Response, encode_json, json_response
from kubelite.server.selectors import parse_field_selector, parse_label_selector


async def serve(api, request, info, r):
    if request.method != "GET":
        raise errors.method_not_allowed()
    # The deprecated /watch/ prefix and subresources have no route in metrics-server.
    if info.subresource or (len(info.parts) > 3 and info.parts[3] == "watch"):
        raise errors.not_found_path()
    if info.namespace and not r.namespaced:
        raise errors.not_found_path()
    if info.verb == "watch":
        raise errors.StatusError(405, "MethodNotAllowed",
                                 f'watch is not supported on resources of kind "{r.resource}.{r.group}"',
                                 group=r.group, kind=r.resource, has_details=True)
    if r.namespaced and info.name and not info.namespace:
        raise errors.not_found_path()
    from kubelite.server.handlers.http import loop_running

    if loop_running():
        import asyncio

        # Reading the store may take a while: off the event loop, as every other read.
        body = await asyncio.get_running_loop().run_in_executor(None, _answer, api, request, info, r)
    else:  # the in-process door's own request (server.door): right here
        body = _answer(api, request, info, r)
    if body.get("kind") == "Table":
        return json_response(body, request=request)
    # PodMetrics and NodeMetrics are built in metrics-server's struct order: kept as they are.
    return Response(body=encode_json(body, request.pretty, in_order=True))


def _answer(api, request, info, r) -> dict:
    nodes = r.resource == "nodes"
    if info.name:
        body = _get_node(api, info.name) if nodes else _get_pod(api, info.namespace, info.name)
        items = [body]
    else:
        items = _list(api, request, info.namespace, nodes)
        body = {"kind": "NodeMetricsList" if nodes else "PodMetricsList",
                "apiVersion": f"{metrics.GROUP}/{metrics.VERSION}", "metadata": {}, "items": items}
    from kubelite.server.handlers.table import wants_table

    if wants_table(request):
        return _table(request, r, items)
    return body


# -- objects -----------------------------------------------------------------------------------

def _resource(api, resource: str):
    return api.registry.lookup("", "v1", resource)


def _node_pods(api) -> list[dict]:
    from kubelite.server.core import ListOptions

    return [p for p in api.list(_resource(api, "pods"), "", ListOptions())["items"] if metrics.is_running(p)]


def _measured(node: dict) -> bool:
    """Only the simulated nodes have a kubelet for metrics-server to scrape."""
    return ((node.get("metadata") or {}).get("annotations") or {}).get(SIMULATED_ANNOTATION) == "true"


def _get_node(api, name: str) -> dict:
    try:
        node = api.get(_resource(api, "nodes"), "", name)
    except errors.StatusError as err:
        if err.code == 404:
            raise errors.not_found("", "node", name) from None
        raise
    if not _measured(node):
        raise errors.not_found(metrics.GROUP, "nodemetrics", name)
    return metrics.node_metrics(node, _node_pods(api), api.clock.rfc3339())


def _get_pod(api, namespace: str, name: str) -> dict:
    pod = api.get(_resource(api, "pods"), namespace, name)
    if not metrics.is_running(pod):
        raise errors.not_found(metrics.GROUP, "podmetrics", f"{namespace}/{name}")
    return metrics.pod_metrics(pod, api.clock.rfc3339())


def _list(api, request, namespace: str, nodes: bool) -> list[dict]:
    from kubelite.server.core import ListOptions

    query = request.query
    labels = parse_label_selector(query.get("labelSelector"))
    # metrics-server's scheme converts no field labels: only the metadata ones select.
    fields = parse_field_selector(query.get("fieldSelector"), metrics.GROUP, "nodes" if nodes else "pods",
                                  crd=True, namespaced=True)
    source = _resource(api, "nodes" if nodes else "pods")
    found = api.list(source, "" if nodes else namespace, ListOptions(label_selector=labels))["items"]
    if fields is not None:
        found = [obj for obj in found if fields(obj)]
    now = api.clock.rfc3339()
    if nodes:
        running = _node_pods(api)
        items = [metrics.node_metrics(n, running, now) for n in found if _measured(n)]
        return sorted(items, key=lambda m: m["metadata"]["name"])
    items = [metrics.pod_metrics(p, now) for p in found if metrics.is_running(p)]
    return sorted(items, key=lambda m: (m["metadata"]["namespace"], m["metadata"]["name"]))


# -- Table (kubectl get podmetrics) --------------------------------------------------------------

def _usage_of(item: dict) -> dict[str, Fraction]:
    """A metrics object's usage: a node's own, a pod's summed over its containers."""
    from kubelite.quantity import quantity_value

    if "usage" in item:
        return {k: quantity_value(v) for k, v in item["usage"].items()}
    total: dict[str, Fraction] = {}
    for container in item.get("containers") or []:
        for key, value in (container.get("usage") or {}).items():
            total[key] = total.get(key, Fraction(0)) + quantity_value(value)
    return total


def _table(request, r, items: list[dict]) -> dict:
    """metrics-server's own Table: Name, one column per measured resource, Window; the columns
    come from the first item, so an empty list has none."""
    from kubelite.quantity import canonical_quantity
    from kubelite.server.handlers.table import table_version
    from kubelite.server.printers.table import _row_object

    version = table_version(request)
    include = request.query.get("includeObject") or "Metadata"
    if include not in ("None", "Metadata", "Object"):
        raise errors.bad_request(f'includeObject: Unsupported value: "{include}"')
    columns, rows = None, None
    for item in items:
        usage = _usage_of(item)
        names = sorted(usage)
        if columns is None:
            columns = [{"name": "Name", "type": "string", "format": "name",
                        "description": "Name of the resource", "priority": 0}]
            columns += [{"name": n, "type": "string", "format": "quantity", "description": "", "priority": 0}
                        for n in names]
            columns.append({"name": "Window", "type": "string", "format": "duration", "description": "",
                            "priority": 0})
            rows = []
        cells = [item["metadata"]["name"]]
        cells += [canonical_quantity(metrics.format_usage(n, usage[n])) for n in names]
        cells.append(item.get("window", metrics.WINDOW))
        rows.append({"cells": cells, "object": _row_object(item, r, include, version)})
    return {"kind": "Table", "apiVersion": f"meta.k8s.io/{version}", "metadata": {},
            "columnDefinitions": columns, "rows": rows}
