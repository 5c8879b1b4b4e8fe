"""`create --edit -f FILE|URL` with a scripted editor: kubectl and kubelite against one `kubelite serve`
give the same output and create the same objects (seed 004: creating and editing an object from a
URL without saving the configuration)."""
import json
import re

import pytest

from imperative_support import kubelite, needs_kubectl, run_kubectl
from loopback import serving_directory

pytestmark = [pytest.mark.kubectl, needs_kubectl]

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: NAME\ndata:\n  k: old\n"
_COPY = re.compile(r'"[^"]*edit-[^"]*"')


@pytest.fixture
def url_root(tmp_path):
    with serving_directory(tmp_path) as server:
        yield server.url


def _both(served_env, tmp_path, monkeypatch, editor: str, source_for, extra=()):
    """Run kubectl then kubelite on their own copy (names k-/l-); outputs with the names unified."""
    monkeypatch.setenv("KUBE_EDITOR", editor)
    results = []
    for tool, name in (("kubectl", "k-cm"), ("kubelite", "l-cm")):
        source = source_for(name)
        argv = ["create", "--edit", "-f", source, *extra]
        if tool == "kubectl":
            p = run_kubectl(argv, {**served_env, "KUBE_EDITOR": editor}, cache_dir=tmp_path / "kc")
            rc, out, err = p.returncode, p.stdout, p.stderr
        else:
            rc, out, err = kubelite(argv)
        results.append((rc, out.replace(name, "N"), _COPY.sub('"COPY"', err.replace(name, "N"))))
    return results


def _data(name):
    rc, out, _ = kubelite(["get", "configmap", name, "-o", "json"])
    return json.loads(out)["data"] if rc == 0 else None


def test_edit_from_url_creates_the_edited_object(served_env, tmp_path, monkeypatch, url_root):
    def source(name):
        (tmp_path / f"{name}.yaml").write_text(CONFIGMAP.replace("NAME", name))
        return f"{url_root}/{name}.yaml"

    k, l_ = _both(served_env, tmp_path, monkeypatch, "sed -i s/old/new/", source)
    assert k == l_ == (0, "configmap/N created\n", "")
    assert _data("k-cm") == _data("l-cm") == {"k": "new"}
    # nothing was saved back to the source
    assert "old" in (tmp_path / "l-cm.yaml").read_text()


def test_unchanged_edit_cancels_and_creates_nothing(served_env, tmp_path, monkeypatch):
    def source(name):
        path = tmp_path / f"u-{name}.yaml"
        path.write_text(CONFIGMAP.replace("NAME", "u-" + name))
        return str(path)

    k, l_ = _both(served_env, tmp_path, monkeypatch, "true", source)
    assert k == l_ and k[0] == 0 and "cancelled" in k[2]
    assert _data("u-k-cm") is None and _data("u-l-cm") is None


def test_failed_create_keeps_a_copy_and_reports_the_server_error(served_env, tmp_path, monkeypatch):
    def source(name):
        kubelite(["create", "configmap", "dup-" + name, "--from-literal=a=b"])
        path = tmp_path / f"d-{name}.yaml"
        path.write_text(CONFIGMAP.replace("NAME", "dup-" + name))
        return str(path)

    k, l_ = _both(served_env, tmp_path, monkeypatch, "sed -i s/old/new/", source)
    assert k == l_
    assert k[0] == 1 and "AlreadyExists" in k[2] and '"COPY"' in k[2]
