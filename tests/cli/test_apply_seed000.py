"""Seed 000 ("Declarative Management of Kubernetes Objects Using Configuration Files") verbatim,
with the kubelite CLI, against the embedded cluster and against `kubelite serve`."""
from __future__ import annotations

import json
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "apply"))
from apply_support import HAVE_KUBECTL, Runner  # noqa: E402,F401
from test_serve_support import serving  # noqa: E402

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
SIMPLE = str(EXAMPLES / "simple_deployment.yaml")
UPDATE = str(EXAMPLES / "updates" / "update_deployment.yaml")
# The annotation as real kubectl 1.32 wrote it for simple_deployment.yaml (recorded against kubelite
# serve; the seed prints the same text wrapped, with a typo in "app":"nginx").
SIMPLE_ANNOTATION = (
    '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"nginx-deployment",'
    '"namespace":"default"},"spec":{"minReadySeconds":5,"selector":{"matchLabels":{"app":"nginx"}},"template":'
    '{"metadata":{"labels":{"app":"nginx"}},"spec":{"containers":[{"image":"nginx:1.14.2","name":"nginx",'
    '"ports":[{"containerPort":80}]}]}}}}\n')
UPDATE_ANNOTATION = SIMPLE_ANNOTATION.replace('"minReadySeconds":5,', "").replace("1.14.2", "1.16.1")


@pytest.fixture(params=["embedded", "served"], scope="module")
def cluster(request, tmp_path_factory):
    base = tmp_path_factory.mktemp(request.param)
    if request.param == "embedded":
        yield Runner(base, None)
        return
    with serving(base) as server:
        yield Runner(base, server.kubeconfig)


def ok(proc):
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def live(cluster, *what) -> dict:
    return json.loads(ok(cluster.kubelite("get", *what, "-o", "json")))


def scale(cluster, name: str, replicas: int) -> None:
    """`kubectl scale`, done with the client (an imperative writer outside apply)."""
    from kubelite.client.dynamic import Session
    from kubelite.client.kubeconfig import Overrides
    from kubelite.client.transport import embedded

    if cluster.kubeconfig is None:
        transport = embedded(home=pathlib.Path(cluster.env["KUBELITE_HOME"]))
        session = Session.__new__(Session)
        session._transport, session._client, session._discovery = transport, None, None
    else:
        session = Session.open(Overrides(kubeconfig=str(cluster.kubeconfig)))
    with session:
        r = session.discovery.for_kind("apps/v1", "Deployment")
        session.client.patch(r, "default", name, {"spec": {"replicas": replicas}}, "merge")


def test_seed_000_walkthrough(cluster, tmp_path):
    # kubectl diff of an object that does not exist yet: everything is new
    diff = cluster.kubelite("diff", "-f", SIMPLE)
    assert diff.returncode == 1, diff.stderr
    assert "+  minReadySeconds: 5" in diff.stdout and "apps.v1.Deployment.default.nginx-deployment" in diff.stdout

    assert ok(cluster.kubelite("apply", "-f", SIMPLE)) == "deployment.apps/nginx-deployment created\n"
    obj = live(cluster, "-f", SIMPLE)
    assert obj["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] == SIMPLE_ANNOTATION
    assert obj["spec"]["minReadySeconds"] == 5
    # default field values
    assert obj["spec"]["strategy"]["type"] == "RollingUpdate"
    assert obj["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"

    scale(cluster, "nginx-deployment", 2)
    assert live(cluster, "deployment", "nginx-deployment")["spec"]["replicas"] == 2

    diff = cluster.kubelite("diff", "-f", UPDATE)
    assert diff.returncode == 1
    assert "-  minReadySeconds: 5" in diff.stdout and "+      - image: nginx:1.16.1" in diff.stdout
    assert "replicas" not in "".join(l for l in diff.stdout.splitlines() if l[:1] in "+-" and l[:3] not in "+++---")

    assert ok(cluster.kubelite("apply", "-f", UPDATE)) == "deployment.apps/nginx-deployment configured\n"
    obj = live(cluster, "-f", UPDATE)
    assert obj["spec"]["replicas"] == 2
    assert obj["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.16.1"
    assert "minReadySeconds" not in obj["spec"]
    assert obj["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] == UPDATE_ANNOTATION

    assert ok(cluster.kubelite("apply", "-f", UPDATE)) == "deployment.apps/nginx-deployment unchanged\n"
    assert cluster.kubelite("diff", "-f", UPDATE).returncode == 0

    # default field values: Recreate over the defaulted rollingUpdate succeeds ($retainKeys)
    recreate = tmp_path / "recreate.yaml"
    recreate.write_text(pathlib.Path(UPDATE).read_text().replace("spec:\n  selector:",
                                                                  "spec:\n  strategy:\n    type: Recreate\n  selector:", 1))
    assert ok(cluster.kubelite("apply", "-f", str(recreate))) == "deployment.apps/nginx-deployment configured\n"
    assert live(cluster, "deployment", "nginx-deployment")["spec"]["strategy"] == {"type": "Recreate"}

    # view-last-applied shows the file as applied
    view = ok(cluster.kubelite("apply", "view-last-applied", "deployment", "nginx-deployment", "-o", "json"))
    assert json.loads(view)["spec"]["strategy"] == {"type": "Recreate"}

    # null in the file clears a field set by another writer
    nulled = tmp_path / "nulled.yaml"
    nulled.write_text(recreate.read_text().replace("spec:\n  strategy:", "spec:\n  replicas: null\n  strategy:", 1))
    ok(cluster.kubelite("apply", "-f", str(nulled)))
    assert live(cluster, "deployment", "nginx-deployment")["spec"]["replicas"] == 1  # re-defaulted

    # recommended deletion
    assert "deleted" in ok(cluster.kubelite("delete", "-f", UPDATE))
    assert cluster.kubelite("get", "deployment", "nginx-deployment").returncode == 1


def test_dry_runs_change_nothing(cluster, tmp_path):
    cm = tmp_path / "cm.yaml"
    cm.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry\ndata:\n  a: '1'\n")
    assert ok(cluster.kubelite("apply", "-f", str(cm), "--dry-run=client")) == "configmap/dry created (dry run)\n"
    assert ok(cluster.kubelite("apply", "-f", str(cm), "--dry-run=server")) == \
        "configmap/dry created (server dry run)\n"
    assert cluster.kubelite("get", "configmap", "dry").returncode == 1
    assert ok(cluster.kubelite("apply", "-f", str(cm), "-o", "name")) == "configmap/dry\n"
    printed = json.loads(ok(cluster.kubelite("apply", "-f", str(cm), "-o", "json")))
    assert printed["kind"] == "ConfigMap" and printed["metadata"]["name"] == "dry"


def test_failures_do_not_stop_the_others(cluster, tmp_path):
    bad = tmp_path / "mixed.yaml"
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: good-one\n---\n"
                   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n  namespace: nowhere\n---\n"
                   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: good-two\n")
    proc = cluster.kubelite("apply", "-f", str(bad))
    assert proc.returncode == 1
    assert proc.stdout == "configmap/good-one created\nconfigmap/good-two created\n"
    assert proc.stderr == (f'Error from server (NotFound): error when creating "{bad}": '
                           'namespaces "nowhere" not found\n')
