"""kubelite's pytest plugin (registered through the `pytest11` entry point): a cluster per test.

Fixtures:
    kube          a fresh in-memory kubelite.Cluster (controllers on; every call settles them)
    kube_server   the same cluster served over HTTPS on a free loopback port, with KUBECONFIG set
                  in the test's environment, so kubectl and Python clients (kopf, lightkube, kr8s,
                  the official client) use it unchanged; `kube_server.kubeconfig` is the path

Settings, per test with a marker or for the whole run with options (the marker wins):
    @pytest.mark.kubelite(nodes=3, objects="tests/manifests", kustomize=False,
                          fake_clock=True, kubernetes_version="1.31", service_cidr="10.96.0.0/16")
    --kubelite-nodes N  --kubelite-objects DIR  --kubelite-kubernetes-version X.Y
    objects: applied before the test (a directory, a file, or a kustomization with kustomize=True)
    kubernetes_version: the Kubernetes version whose OpenAPI schemas validate and patch objects
    service_cidr: the range Services' cluster IPs come from (default 10.0.0.0/24: 253 Services)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import pytest

MARKER = "kubelite"
VERSION_ENV = "KUBELITE_KUBERNETES_VERSION"


@dataclass(frozen=True)
class Settings:
    nodes: int = 1
    objects: str | None = None
    kustomize: bool = False
    fake_clock: bool = False
    kubernetes_version: str | None = None
    service_cidr: str | None = None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kubelite", "kubelite clusters for the kube / kube_server fixtures")
    group.addoption("--kubelite-nodes", type=int, default=None, help="simulated nodes per cluster (default 1)")
    group.addoption("--kubelite-objects", default=None, help="file or directory applied to every cluster first")
    group.addoption("--kubelite-kubernetes-version", default=None,
                    help="Kubernetes version of the schemas (default: kubelite's, 1.32)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(nodes=1, objects=None, kustomize=False, fake_clock=False, kubernetes_version=None, "
                   "service_cidr=None): "
                   "how the kube / kube_server fixtures build this test's cluster")


def settings_for(request: pytest.FixtureRequest) -> Settings:
    """The options, overridden by the test's kubelite marker (closest marker first)."""
    config = request.config
    values = {"nodes": config.getoption("kubelite_nodes") or 1, "objects": config.getoption("kubelite_objects"),
              "kubernetes_version": config.getoption("kubelite_kubernetes_version")}
    for marker in reversed(list(request.node.iter_markers(MARKER))):
        unknown = set(marker.kwargs) - set(Settings.__dataclass_fields__)
        if unknown or marker.args:
            raise pytest.UsageError(f"@pytest.mark.{MARKER} takes only the keywords "
                                    f"{', '.join(Settings.__dataclass_fields__)}; got {marker.args or sorted(unknown)}")
        values.update(marker.kwargs)
    return Settings(**values)


@pytest.fixture
def kube(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator["kubelite.Cluster"]:
    """A fresh in-memory cluster for this test, closed after it."""
    import kubelite

    settings = settings_for(request)
    if settings.kubernetes_version:
        _check_version(settings.kubernetes_version)
        monkeypatch.setenv(VERSION_ENV, settings.kubernetes_version)
    try:
        cluster = kubelite.Cluster(nodes=settings.nodes, fake_clock=settings.fake_clock,
                                   service_cidr=settings.service_cidr)
    except ValueError as err:  # a range the marker asks for and the cluster refuses
        raise pytest.UsageError(f"@pytest.mark.{MARKER}(service_cidr=...): {err}") from None
    try:
        if settings.objects:
            cluster.apply(settings.objects, kustomize=settings.kustomize, recursive=True)
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def kube_server(kube, monkeypatch: pytest.MonkeyPatch) -> Iterator["kubelite.Cluster"]:
    """`kube`, served over HTTPS while the test runs; KUBECONFIG points at it."""
    with kube.serve() as kubeconfig:
        monkeypatch.setenv("KUBECONFIG", kubeconfig)
        yield kube


def _check_version(version: str) -> None:
    from kubelite.schema import available_versions

    known = available_versions()
    if version not in known:
        raise pytest.UsageError(f"kubelite: no schemas for Kubernetes {version} (installed: {', '.join(known)})")
