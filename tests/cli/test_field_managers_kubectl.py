"""The field managers kubelite's commands record, against kubectl's: both tools run the same sequence of
writes on one `kubelite serve`, each in its own namespace, and after every step the managedFields of
the object the step wrote are compared (manager, operation, subresource and the fields owned).

kubectl names most writes with an explicit fieldManager (kubectl-create, kubectl-edit, kubectl-patch,
...), and sends some without one (scale, --raw), where the server takes the manager name from the
User-Agent: both must come out the same for kubelite. The sequence follows the commands of the real
kubectl 1.32 recording of managers (reference controllers/ssa/21-kubectl-managers.json), extended to
the other writing commands; the expected answers come from running /usr/bin/kubectl itself.

Managers of controllers (status, the scheduler's binding, the node's pod status) are left out: they
write concurrently with the commands, so whether they are there yet at a step is a matter of timing.
"""
from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.kubectl

_CONTROLLERS = ("kube-controller-manager", "kube-scheduler", "kubelet", "kubelite-kubelet")
# names the server makes up per object: the service-account token volume's suffix
_VOLATILE = re.compile(r"kube-api-access-\w{5}")


def _deployment(name: str, image: str) -> dict:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "labels": labels},
            "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "app", "image": image}]}}}}


_CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}}
_SSA = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"}, "data": {"b": "1"}}
# (command words with NS for the tool's namespace and file placeholders, the object to read: type/name)
STEPS = [
    ("create -n NS -f DEPLOY", "deployment/kc"),
    ("edit -n NS deployment kc", "deployment/kc"),  # the editor changes the image
    ("replace -n NS -f REPLACE", "deployment/kc"),
    ("patch -n NS deployment kc -p {\"spec\":{\"minReadySeconds\":5}}", "deployment/kc"),
    ("patch -n NS deployment kc --type=merge -p {\"spec\":{\"revisionHistoryLimit\":4}}", "deployment/kc"),
    ("patch -n NS deployment kc --type=json -p [{\"op\":\"add\",\"path\":\"/spec/paused\",\"value\":true}]",
     "deployment/kc"),
    ("label -n NS deployment kc tier=backend", "deployment/kc"),
    ("annotate -n NS deployment kc note=hello", "deployment/kc"),
    ("scale -n NS deployment kc --replicas=0", "deployment/kc"),
    ("set image -n NS deployment/kc app=nginx:1.27", "deployment/kc"),
    ("set env -n NS deployment/kc MODE=x", "deployment/kc"),
    ("set resources -n NS deployment/kc --limits=cpu=200m", "deployment/kc"),
    ("rollout resume -n NS deployment/kc", "deployment/kc"),
    ("rollout pause -n NS deployment/kc", "deployment/kc"),
    ("rollout resume -n NS deployment/kc", "deployment/kc"),
    ("rollout restart -n NS deployment/kc", "deployment/kc"),
    ("expose -n NS deployment kc --port=80", "service/kc"),
    ("autoscale -n NS deployment kc --max=3", "horizontalpodautoscaler/kc"),
    ("run -n NS pod1 --image=nginx --restart=Never", "pod/pod1"),
    ("create configmap -n NS named --from-literal=a=b --field-manager=my-tool", "configmap/named"),
    ("create configmap -n NS saved --from-literal=a=b --save-config", "configmap/saved"),
    ("create -n NS -f EDITED --edit", "configmap/edited"),  # the editor changes the value
    ("apply -n NS -f CM", "configmap/cm"),
    ("apply -n NS -f CHANGED", "configmap/cm"),
    ("apply set-last-applied -n NS -f CM", "configmap/cm"),
    ("apply -n NS --server-side -f SSA", "configmap/ssa"),
    ("create --raw /api/v1/namespaces/NS/configmaps -f RAW", "configmap/raw"),
    ("replace --raw /api/v1/namespaces/NS/configmaps/raw -f RAW", "configmap/raw"),
]


@pytest.fixture
def files(tmp_path):
    def write(name: str, obj: dict) -> str:
        path = tmp_path / name
        path.write_text(json.dumps(obj))
        return str(path)

    replaced = _deployment("kc", "nginx:1.26")
    replaced["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": 80}]
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/nginx:1.24/nginx:1.25/' \"$1\"\n")
    editor.chmod(0o755)
    return {"DEPLOY": write("deploy.json", _deployment("kc", "nginx:1.24")),
            "REPLACE": write("replace.json", replaced), "CM": write("cm.json", _CM),
            "CHANGED": write("changed.json", {**_CM, "data": {"a": "2"}}), "SSA": write("ssa.json", _SSA),
            "RAW": write("raw.json", {**_CM, "metadata": {"name": "raw"}}), "EDITOR": str(editor),
            "EDITED": write("edited.json", {**_CM, "metadata": {"name": "edited"}, "data": {"image": "nginx:1.24"}})}


def _words(step: str, namespace: str, files: dict) -> list[str]:
    words = []
    for word in step.split():
        word = files.get(word, word)
        words.append(word.replace("/NS/", f"/{namespace}/") if word != "NS" else namespace)
    return words


def _managers(reader, namespace: str, target: str) -> list:
    got = reader.run("get", "-n", namespace, target, "-o", "json", "--show-managed-fields")
    assert got.returncode == 0, got.stderr
    entries = json.loads(got.stdout)["metadata"].get("managedFields") or []
    return sorted((m["manager"], m["operation"], m.get("subresource", ""),
                   _VOLATILE.sub("kube-api-access-X", json.dumps(m.get("fieldsV1"), sort_keys=True)))
                  for m in entries if m["manager"] not in _CONTROLLERS)


def _sequence(tool, reader, namespace: str, files: dict) -> list:
    assert reader.run("create", "namespace", namespace).returncode == 0
    tool.env["KUBE_EDITOR"] = files["EDITOR"]
    seen = []
    for step, target in STEPS:
        done = tool.run(*_words(step, namespace, files))
        seen.append((step, done.returncode, _managers(reader, namespace, target)))
    return seen


def test_commands_record_kubectl_field_managers(files, kubectl, remote):
    theirs = _sequence(kubectl, kubectl, "fm-kubectl", files)
    ours = _sequence(remote, kubectl, "fm-kubelite", files)
    assert [(o, t) for o, t in zip(ours, theirs) if o != t] == []
    assert all(code == 0 for _, code, _ in theirs), [s for s in theirs if s[1]]
    names = {m[0] for _, _, managers in ours for m in managers}
    # the recording's managers, and "kubectl" from the User-Agent of writes sent without fieldManager
    assert {"kubectl", "kubectl-create", "kubectl-edit", "kubectl-replace", "kubectl-patch", "kubectl-label",
            "kubectl-annotate", "kubectl-set", "kubectl-rollout", "my-tool"} <= names
    assert "kubelite" not in names
