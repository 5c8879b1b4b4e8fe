"""`kubelite explain` prints the bytes /usr/bin/kubectl explain prints against the same
`kubelite serve` (kubectl 1.32's plaintext template over the server's /openapi/v3)."""
from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.kubectl

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.explain.example.com}
spec:
  group: explain.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gd]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: A Gadget is a made-up kind whose schema exercises every shape explain prints.
        required: [spec]
        properties:
          spec:
            type: object
            description: What the gadget should be. This description is long enough that it has to be wrapped over more than one line of output.
            required: [mode, size]
            properties:
              mode:
                type: string
                description: How it runs.
                enum: ["", Fast, Slow, Careful, Reckless, Idle]
              level:
                type: integer
                enum: [1, 2, 3]
              size:
                x-kubernetes-int-or-string: true
                description: Absolute number or percentage.
              labels:
                type: object
                additionalProperties: {type: string}
              parts:
                type: array
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string, description: Name of the part.}
                    weight: {type: number}
                    tags: {type: array, items: {type: string}}
              anything:
                type: object
                x-kubernetes-preserve-unknown-fields: true
          status:
            type: object
            properties:
              ready: {type: boolean, description: "Whether it is ready:   several   spaces\\nand a newline."}
"""

CASES = [
    ["deployment"],
    ["deployment.spec.strategy"],
    ["pods.spec.containers"],
    ["service", "--recursive"],
    ["deployments.apps.spec.template.spec.volumes"],
    ["deploy.spec.nope"],
    ["no-such-type"],
    ["deployment", "--api-version=apps/v9"],
    ["hpa", "--api-version=autoscaling/v1"],
    ["hpa.spec.metrics"],
    ["configmap.data"],
    ["pod.metadata.labels"],
    ["ingress.spec.rules.http.paths.backend"],
    ["crd.spec.versions.schema", "--recursive"],
    ["jobs", "--recursive=false"],
    ["gadget"],
    ["gadgets", "--recursive"],
    ["gd.spec"],
    ["gadget.spec.mode"],
    ["gadget.spec.level"],
    ["gadget.spec.size"],
    ["gadget.spec.labels"],
    ["gadget.spec.parts"],
    ["gadget.spec.parts.tags"],
    ["gadget.spec.anything"],
    ["gadget.status.ready"],
    ["gadgets.explain.example.com.spec"],
    ["gadget", "--api-version=explain.example.com/v1"],
]


@pytest.fixture(scope="module")
def with_crd(served, tmp_path_factory):
    import subprocess

    path = tmp_path_factory.mktemp("crd") / "crd.yaml"
    path.write_text(CRD)
    base = ["/usr/bin/kubectl", "--kubeconfig", str(served.kubeconfig), "--cache-dir",
            str(path.parent / "cache")]
    subprocess.run(base + ["apply", "-f", str(path)], check=True, capture_output=True)
    for _ in range(50):
        done = subprocess.run(base + ["get", "--raw", "/openapi/v3"], capture_output=True, text=True)
        if "apis/explain.example.com/v1" in done.stdout:
            break
        time.sleep(0.1)
    return served


@pytest.mark.parametrize("argv", CASES, ids=lambda a: " ".join(a))
def test_explain_matches_kubectl(with_crd, remote, kubectl, argv):
    want = kubectl.run("explain", *argv)
    got = remote.run("explain", *argv)
    assert want.stdout or want.stderr
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)


def test_explain_argument_errors(remote, kubectl):
    want = kubectl.run("explain", "pods", "services")
    got = remote.run("explain", "pods", "services")
    assert want.returncode == 1
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)
    got = remote.run("explain")
    assert got.returncode == 1 and got.stderr.startswith("error: You must specify the type of resource to explain.")
