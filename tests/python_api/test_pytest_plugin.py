"""The pytest plugin, run in a separate pytest (pytester) as a user's project would: the kube and
kube_server fixtures, the kubelite marker and the --kubelite-* options."""
from __future__ import annotations

import importlib.metadata
import pathlib
import tomllib

import pytest

from api_support import ROOT

pytest_plugins = ["pytester"]

USER_TESTS = '''
import os
import subprocess

import pytest

import kubelite


def test_kube_is_a_fresh_cluster(kube):
    assert isinstance(kube, kubelite.Cluster)
    assert kube.list("configmaps", selector="made-by=test") == []
    kube.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "labels": {"made-by": "test"}}})


def test_and_fresh_again(kube):
    assert kube.list("configmaps", selector="made-by=test") == []


@pytest.mark.kubelite(nodes=3)
def test_nodes_marker(kube):
    assert len(kube.list("nodes")) == 3


@pytest.mark.kubelite(fake_clock=True)
def test_fake_clock_marker(kube):
    before = kube.clock.time()
    kube.advance(600)
    assert kube.clock.time() - before == 600


def test_the_default_kube_advances_on_wall_time(kube):
    assert not kube.fake_clock
    before = kube.clock.time()
    kube.advance(600)
    assert 600 <= kube.clock.time() - before < 660


POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
       "spec": {"containers": [{"name": "c", "image": "i"}], "resources": {"limits": {"cpu": "1"}}}}


@pytest.mark.kubelite(kubernetes_version="1.29")
def test_schema_version_marker(kube):
    # pod-level resources came with Kubernetes 1.32: a 1.29 API server does not know the field
    with pytest.raises(kubelite.BadRequest, match='unknown field "spec.resources"'):
        kube.create(POD)


def test_default_schema_version(kube):
    assert kube.create(POD)["spec"]["resources"] == {"limits": {"cpu": "1"}}


@pytest.mark.kubelite(service_cidr="10.96.0.0/16")
def test_service_cidr_marker(kube):
    assert kube.get("services", "kubernetes")["spec"]["clusterIP"] == "10.96.0.1"


def test_kube_server(kube_server):
    assert os.environ["KUBECONFIG"] == kube_server.kubeconfig
    done = subprocess.run(["/usr/bin/kubectl", "get", "ns", "default", "-o", "name"], capture_output=True, text=True)
    assert done.stdout == "namespace/default\\n", done.stderr
'''


def plugin_args() -> list[str]:
    """-p for the plugin only when the installed metadata predates its entry point."""
    names = {ep.name for ep in importlib.metadata.entry_points(group="pytest11")}
    return [] if "kubelite" in names else ["-p", "kubelite.pytest_plugin"]


def test_pyproject_registers_the_plugin():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["pytest11"] == {"kubelite": "kubelite.pytest_plugin"}


def test_fixtures_markers_in_a_users_project(pytester: pytest.Pytester, monkeypatch):
    monkeypatch.setenv("HOME", str(pytester.path))  # kubectl's discovery cache stays in the test dir
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=9)


def test_objects_option_applies_a_directory_first(pytester: pytest.Pytester):
    manifests = pytester.mkdir("manifests")
    (manifests / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: seeded\n"
                                       "data:\n  a: '1'\n")
    pytester.makepyfile(test_seeded='''
def test_seeded(kube):
    assert kube.get("configmaps", "seeded")["data"] == {"a": "1"}
''')
    result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-q",
                                           f"--kubelite-objects={manifests}")
    result.assert_outcomes(passed=1)


def test_a_bad_marker_is_a_usage_error(pytester: pytest.Pytester):
    pytester.makepyfile(test_bad='''
import pytest

@pytest.mark.kubelite(nodez=2)
def test_bad(kube):
    pass
''')
    result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-q")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*kubelite takes only the keywords*nodez*"])


def test_a_refused_service_range_is_a_usage_error(pytester: pytest.Pytester):
    pytester.makepyfile(test_bad_range='''
import pytest

@pytest.mark.kubelite(service_cidr="10.0.0.0/8")
def test_bad(kube):
    pass
''')
    result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-q")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*service_cidr=...): specified service_cidr is too large; for 32-bit addresses*"])


def test_plugin_module_imports_nothing_heavy():
    import subprocess
    import sys

    code = ("import sys, kubelite.pytest_plugin; "
            "print(sorted(m for m in sys.modules if m.startswith('kubelite')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=pathlib.Path(__file__).parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['kubelite', 'kubelite.pytest_plugin']"
