"""Admission webhooks on `kubelite serve`, driven by real kubectl and the official Python client:
what a user sees when a webhook denies, mutates, is dead, or refuses a dry run."""
from __future__ import annotations

import json

import pytest
from test_serve_support import kubectl_at, serving
from webhook_support import WebhookServer, allow, deny, hook, json_patch, make_certificates, webhook_configuration


def answer(path: str, review: dict):
    obj = review["request"].get("object") or {}
    name = (obj.get("metadata") or {}).get("name", "")
    route = path.split("?")[0]
    if route == "/deny":
        return deny(review, f"{name} is not welcome") if name.startswith("bad") else allow(review)
    if route == "/label":
        return json_patch(review, [{"op": "add", "path": "/metadata/labels/mutated", "value": "yes"}],
                          warnings=["labelled by the webhook"])
    return allow(review)


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    base = tmp_path_factory.mktemp("webhooks-served")
    certs = make_certificates(base / "pki")
    with WebhookServer(certs, answer) as webhook, serving(base, "--controllers=namespace") as server:
        yield server, webhook, certs, base


def kubectl(setup, *args, stdin=None):
    server, _, _, base = setup
    return kubectl_at(server, base / "kubectl-cache", *args, stdin=stdin)


def apply_configurations(setup):
    _, webhook, certs, _ = setup
    documents = [
        webhook_configuration("ValidatingWebhookConfiguration", "deny", [
            hook("deny.example.com", webhook.url + "/deny", certs["ca_bundle"])]),
        webhook_configuration("MutatingWebhookConfiguration", "label", [
            hook("label.example.com", webhook.url + "/label", certs["ca_bundle"],
                 objectSelector={"matchLabels": {"app": "web"}})]),
        webhook_configuration("ValidatingWebhookConfiguration", "dry", [
            hook("dry.example.com", webhook.url + "/allow", certs["ca_bundle"], resources=("secrets",),
                 sideEffects="NoneOnDryRun")]),
    ]
    done = kubectl(setup, "apply", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List",
                                                                 "items": documents}))
    assert done.returncode == 0, done.stderr


def test_kubectl_sees_a_denial_a_mutation_a_dry_run_and_an_invalid_configuration(setup):
    apply_configurations(setup)
    refused = kubectl(setup, "create", "configmap", "bad-config", "--from-literal=k=v")
    assert refused.returncode == 1
    assert refused.stderr == ('error: failed to create configmap: admission webhook "deny.example.com" denied the '
                              "request: bad-config is not welcome\n")
    assert kubectl(setup, "get", "configmap", "bad-config").returncode == 1

    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web", "labels": {"app": "web"}},
                "data": {"k": "v"}}
    applied = kubectl(setup, "apply", "-f", "-", stdin=json.dumps(manifest))
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout == "configmap/web created\n"
    assert applied.stderr == "Warning: labelled by the webhook\n"
    labels = kubectl(setup, "get", "configmap", "web", "-o", "jsonpath={.metadata.labels}")
    assert json.loads(labels.stdout) == {"app": "web", "mutated": "yes"}

    denied_apply = kubectl(setup, "apply", "-f", "-", stdin=json.dumps(dict(manifest, metadata={"name": "bad-web"})))
    assert denied_apply.returncode == 1
    # The webhook's status names no reason: kubectl prints none (as for kube-apiserver's same Status).
    assert denied_apply.stderr == ('Error from server: error when creating "STDIN": admission webhook '
                                   '"deny.example.com" denied the request: bad-web is not welcome\n')

    dry = kubectl(setup, "create", "secret", "generic", "s", "--from-literal=a=b", "--dry-run=server")
    assert dry.returncode == 0 and dry.stdout == "secret/s created (server dry run)\n"
    assert setup[1].reviews("/allow")[-1]["request"]["dryRun"] is True
    assert kubectl(setup, "get", "secret", "s").returncode == 1

    effects = webhook_configuration("ValidatingWebhookConfiguration", "effects", [
        hook("effects.example.com", setup[1].url + "/allow", setup[2]["ca_bundle"], sideEffects="Some")])
    refused_config = kubectl(setup, "apply", "-f", "-", stdin=json.dumps(effects))
    assert refused_config.returncode == 1
    assert refused_config.stderr == (
        'The ValidatingWebhookConfiguration "effects" is invalid: webhooks[0].sideEffects: Unsupported value: '
        '"Some": supported values: "None", "NoneOnDryRun"\n')


def test_the_python_client_gets_the_webhook_status(setup):
    kubernetes = pytest.importorskip("kubernetes")
    server, webhook, _, _ = setup
    apply_configurations(setup)
    client = kubernetes.config.new_client_from_config(config_file=str(server.kubeconfig))
    try:
        core = kubernetes.client.CoreV1Api(client)
        body = kubernetes.client.V1ConfigMap(metadata=kubernetes.client.V1ObjectMeta(name="bad-python"))
        with pytest.raises(kubernetes.client.ApiException) as failure:
            core.create_namespaced_config_map("default", body)
        assert failure.value.status == 403
        assert json.loads(failure.value.body)["message"] == (
            'admission webhook "deny.example.com" denied the request: bad-python is not welcome')
        labelled = kubernetes.client.V1ConfigMap(metadata=kubernetes.client.V1ObjectMeta(
            name="python-web", labels={"app": "web"}))
        created = core.create_namespaced_config_map("default", labelled)
        assert created.metadata.labels == {"app": "web", "mutated": "yes"}
    finally:
        client.close()
    users = {review["request"]["userInfo"]["username"] for review in webhook.reviews("/deny")}
    assert users == {"kubernetes-admin"}


DIFFERENTIAL = [
    (("create", "configmap", "bad-x", "--from-literal=k=v"), None),
    (("apply", "-f", "-"), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bad-y"}}),
    (("apply", "-f", "-"), {"apiVersion": "v1", "kind": "ConfigMap",
                            "metadata": {"name": "web-diff", "labels": {"app": "web"}}}),
    (("create", "configmap", "web-dry", "--from-literal=k=v", "--dry-run=server", "-o", "name"), None),
]


@pytest.mark.parametrize("args,document", DIFFERENTIAL, ids=["create-denied", "apply-denied", "apply-mutated",
                                                              "create-dry-run"])
def test_kubelite_prints_what_kubectl_prints(setup, args, document):
    import subprocess
    import sys

    server = setup[0]
    apply_configurations(setup)
    stdin = json.dumps(document) if document else None
    outputs = []
    for command in ([sys.executable, "-m", "kubelite", "--kubeconfig", str(server.kubeconfig)], None):
        if command is None:
            done = kubectl(setup, *args, stdin=stdin)
        else:
            done = subprocess.run([*command, *args], input=stdin, capture_output=True, text=True, timeout=120)
        outputs.append((done.returncode, done.stdout, done.stderr))
        kubectl(setup, "delete", "configmap", "web-diff", "--ignore-not-found")
    assert outputs[0] == outputs[1]


def test_a_dead_webhook_as_kubectl_and_kubelite_report_it(setup):
    import socket
    import subprocess
    import sys

    server, _, certs, _ = setup
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"https://127.0.0.1:{port}/validate"
    dead = webhook_configuration("ValidatingWebhookConfiguration", "dead", [
        hook("dead.example.com", url, certs["ca_bundle"], resources=("services",))])
    assert kubectl(setup, "apply", "-f", "-", stdin=json.dumps(dead)).returncode == 0
    try:
        args = ("create", "service", "clusterip", "gone", "--tcp=80:80")
        by_kubectl = kubectl(setup, *args)
        by_kubelite = subprocess.run([sys.executable, "-m", "kubelite", "--kubeconfig", str(server.kubeconfig), *args],
                                     capture_output=True, text=True, timeout=120)
    finally:
        kubectl(setup, "delete", "validatingwebhookconfiguration", "dead")
    expected = ('error: failed to create ClusterIP service: Internal error occurred: failed calling webhook '
                f'"dead.example.com": failed to call webhook: Post "{url}?timeout=10s": dial tcp 127.0.0.1:{port}: '
                "connect: connection refused\n")
    assert (by_kubectl.returncode, by_kubectl.stderr) == (1, expected)
    assert (by_kubelite.returncode, by_kubelite.stdout, by_kubelite.stderr) == (1, "", expected)
