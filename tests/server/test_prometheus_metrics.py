"""/metrics: kube-apiserver's request counter, latency histogram and stored-object gauge in the
Prometheus text format, with the label rules of kube-apiserver v1.32 (endpoints/metrics/metrics.go,
endpoints/installer.go: LIST vs GET, WATCH, APPLY, CONNECT; scope resource/namespace/cluster;
dry_run; the code answered) and storage/etcd3/metrics (apiserver_storage_objects{resource})."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.prometheus import BUCKETS

from tests.server.fidelity_support import deployment as _deployment
from tests.server.test_serve_support import kubectl_at, serving

NS = "/api/v1/namespaces/default"
_LINE = re.compile(r'^[a-z_]+(\{([a-z_]+="[^"]*",?)*\})? [-+0-9.e]+(Inf)?$')


@pytest.fixture(scope="module")
def scraped():
    """The /metrics text after a known set of requests on a fresh cluster."""
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        with cluster.http_client() as api:
            api.post(f"{NS}/configmaps", json={"metadata": {"name": "a"}})
            api.post(f"{NS}/configmaps", params={"dryRun": "All"}, json={"metadata": {"name": "b"}})
            api.get(f"{NS}/configmaps/a")
            api.get(f"{NS}/configmaps/missing")
            api.get(f"{NS}/configmaps")
            api.get("/api/v1/configmaps")
            api.get(f"{NS}/configmaps", params={"watch": "1", "timeoutSeconds": "1"})
            api.put(f"{NS}/configmaps/a", json={"metadata": {"name": "a"}, "data": {"k": "v"}})
            api.patch(f"{NS}/configmaps/a", content=json.dumps({"data": {"k": "w"}}),
                      headers={"Content-Type": "application/merge-patch+json"})
            api.patch(f"{NS}/configmaps/c", params={"fieldManager": "t"},
                      content=json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}),
                      headers={"Content-Type": "application/apply-patch+yaml"})
            api.post("/apis/apps/v1/namespaces/default/deployments", json=_deployment("web"))
            api.get("/apis/apps/v1/namespaces/default/deployments/web/scale")
            api.post(f"{NS}/pods/nothere/exec", params={"command": "ls"})
            api.delete(f"{NS}/configmaps/a")
            api.get("/version")  # not a resource request: not counted
            answer = api.get("/metrics")
            assert answer.status_code == 200
            assert answer.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
            yield answer.text


def _series(text: str, name: str) -> dict[str, str]:
    return {line.split(" ")[0]: line.split(" ")[1] for line in text.splitlines()
            if line.startswith(name + "{")}


def _labels(**labels) -> str:
    base = {"component": "apiserver", "dry_run": "", "group": "", "subresource": "", "version": "v1"}
    base.update(labels)
    return "{" + ",".join(f'{k}="{v}"' for k, v in sorted(base.items())) + "}"


@pytest.mark.parametrize("labels", [
    dict(code="201", resource="configmaps", scope="resource", verb="POST"),
    dict(code="201", resource="configmaps", scope="resource", verb="POST", dry_run="All"),
    dict(code="200", resource="configmaps", scope="resource", verb="GET"),
    dict(code="404", resource="configmaps", scope="resource", verb="GET"),
    dict(code="200", resource="configmaps", scope="namespace", verb="LIST"),
    dict(code="200", resource="configmaps", scope="cluster", verb="LIST"),
    dict(code="200", resource="configmaps", scope="namespace", verb="WATCH"),
    dict(code="200", resource="configmaps", scope="resource", verb="PUT"),
    dict(code="200", resource="configmaps", scope="resource", verb="PATCH"),
    dict(code="201", resource="configmaps", scope="resource", verb="APPLY"),
    dict(code="201", resource="deployments", scope="resource", verb="POST", group="apps"),
    dict(code="200", resource="deployments", scope="resource", verb="GET", group="apps", subresource="scale"),
    dict(code="404", resource="pods", scope="resource", verb="CONNECT", subresource="exec"),
    dict(code="200", resource="configmaps", scope="resource", verb="DELETE"),
], ids=lambda d: "-".join(v for v in d.values() if v))
def test_each_request_is_counted_once_with_its_labels(scraped, labels):
    assert _series(scraped, "apiserver_request_total")["apiserver_request_total" + _labels(**labels)] == "1"


def test_only_resource_requests_are_counted(scraped):
    assert len(_series(scraped, "apiserver_request_total")) == 14


def test_the_histogram_is_cumulative_and_matches_the_counter(scraped):
    lines = scraped.splitlines()
    labels = _labels(resource="configmaps", scope="resource", verb="GET")
    for inner in (labels,):
        prefix = "apiserver_request_duration_seconds_bucket" + inner[:-1] + ',le="'
        buckets = [line for line in lines if line.startswith(prefix)]
        assert [b[len(prefix):].split('"')[0] for b in buckets] == \
            ["1" if b == 1.0 else str(b) for b in BUCKETS] + ["+Inf"]
        counts = [int(b.rsplit(" ", 1)[1]) for b in buckets]
        assert counts == sorted(counts) and counts[-1] == 2  # the 200 and the 404 GET
        total = [line for line in lines if line.startswith("apiserver_request_duration_seconds_count" + inner)]
        assert total == [f"apiserver_request_duration_seconds_count{inner} 2"]
        summed = [line for line in lines if line.startswith("apiserver_request_duration_seconds_sum" + inner)]
        assert float(summed[0].rsplit(" ", 1)[1]) > 0


def test_stored_objects_per_resource(scraped):
    objects = _series(scraped, "apiserver_storage_objects")
    assert objects['apiserver_storage_objects{resource="configmaps"}'] == "1"  # c: a deleted, b a dry run
    assert objects['apiserver_storage_objects{resource="deployments.apps"}'] == "1"
    assert 'apiserver_storage_objects{resource="tokenreviews.authentication.k8s.io"}' not in objects
    assert 'apiserver_storage_objects{resource="events.events.k8s.io"}' not in objects


def test_exposition_format(scraped):
    lines = scraped.splitlines()
    assert lines[:2] == [
        "# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution in seconds for each "
        "verb, dry run value, group, version, resource, subresource, scope and component.",
        "# TYPE apiserver_request_duration_seconds histogram"]
    assert "# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry " \
           "run value, group, version, resource, scope, component, and HTTP response code." in lines
    assert "# TYPE apiserver_storage_objects gauge" in lines
    families = [line.split()[2] for line in lines if line.startswith("# TYPE")]
    assert families == sorted(families)
    assert all(_LINE.match(line) for line in lines if not line.startswith("#")), \
        [line for line in lines if not line.startswith("#") and not _LINE.match(line)][:3]


def test_kubectl_and_kubelite_get_raw_metrics(tmp_path):
    with serving(tmp_path, "--controllers=-*") as server:
        got = kubectl_at(server, tmp_path / "cache", "get", "configmaps", "-A")
        assert got.returncode == 0, got.stderr
        theirs = kubectl_at(server, tmp_path / "cache", "get", "--raw", "/metrics")
        assert theirs.returncode == 0, theirs.stderr
        assert re.search(r'apiserver_request_total\{code="200",component="apiserver",dry_run="",group="",'
                         r'resource="configmaps",scope="cluster",subresource="",verb="LIST",version="v1"\} 1\n',
                         theirs.stdout)
        ours = subprocess.run([sys.executable, "-m", "kubelite", "--kubeconfig", str(server.kubeconfig),
                               "get", "--raw", "/metrics"], capture_output=True, text=True, timeout=60)
        assert ours.returncode == 0, ours.stderr
        families = lambda text: [l for l in text.splitlines() if l.startswith("# ")]  # noqa: E731
        assert families(ours.stdout) == families(theirs.stdout)
