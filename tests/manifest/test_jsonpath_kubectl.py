"""JSONPath printing, differential against /usr/bin/kubectl (offline).

Each template runs once through ``kubectl patch --local -f LIST -o jsonpath=T``
over a List of objects (kubectl prints every item in turn); our output for the
same objects must be byte-identical.  Error templates run on a single object
and compare exit status and stderr.  The objects kubectl printed are taken
from its own ``-o json`` output, so both sides see identical values.
"""

import json
import os
import shutil
import subprocess

import pytest

from kubelite.manifest import jsonpath

KUBECTL = "/usr/bin/kubectl"
pytestmark = [
    pytest.mark.kubectl,
    pytest.mark.skipif(not shutil.which(KUBECTL), reason="kubectl not installed"),
]

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {
        "name": "nginx-deployment",
        "namespace": "default",
        "labels": {"app.kubernetes.io/name": "nginx"},
        "annotations": {"note": "a<b>&c"},
    },
    "spec": {
        "minReadySeconds": 5,
        "replicas": 3,
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {
            "metadata": {"labels": {"app": "nginx"}},
            "spec": {"containers": [{"image": "nginx:1.14.2", "name": "nginx", "ports": [{"containerPort": 80}]}]},
        },
    },
}

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "multi", "labels": {"tier": "web"}},
    "spec": {
        "containers": [
            {"name": "app", "image": "busybox:1.36", "args": ["sleep", "3600"],
             "ports": [{"containerPort": 8080, "protocol": "TCP"}, {"containerPort": 9090, "name": "metrics"}],
             "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}}},
            {"name": "sidecar", "image": "envoy:v1", "env": [{"name": "LEVEL", "value": "debug"}]},
            {"name": "logger", "image": "fluentd:2", "ports": [{"containerPort": 24224}]},
        ],
        "terminationGracePeriodSeconds": 30,
        "priority": -5,
        "hostNetwork": False,
        "weights": [0.5, 1.25, 1234567.5, 1e-7, 3],
    },
    "status": {
        "phase": "Running",
        "conditions": [
            {"type": "Ready", "status": "True"},
            {"type": "PodScheduled", "status": "True"},
            {"type": "Initialized", "status": "False"},
        ],
    },
}

SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web", "namespace": "prod"},
    "spec": {
        "selector": {"app": "web"},
        "ports": [{"port": 80, "targetPort": 8080, "name": "http"}, {"port": 443, "targetPort": "https", "name": "tls"}],
        "type": "ClusterIP",
    },
}

OBJECTS = [DEPLOYMENT, POD, SERVICE]

# Templates evaluated over all three objects (kubectl stops at the first failing
# object and reports it like a single-object run).  Results from map iteration
# (wildcards and recursive descent over maps with several keys) come out in a
# random order in kubectl, so those templates are listed under UNORDERED.
TEMPLATES = [
    "{.metadata.name}",
    "{.kind}/{.metadata.name}{'\\n'}",
    '{.metadata.name}{"\\n"}',
    "{.metadata.namespace}",
    "{$.metadata.name}",
    "{@.metadata.name}",
    "{.metadata}",
    "{.metadata.labels}",
    "{.spec.containers}",
    "{.spec.containers[0]}",
    "{.spec.containers[*].name}",
    "{.spec.containers[*].image}",
    "{.spec.containers[0].name}",
    "{.spec.containers[-1].name}",
    "{.spec.containers[-2].name}",
    "{.spec.containers[1:3].name}",
    "{.spec.containers[:2].name}",
    "{.spec.containers[1:].name}",
    "{.spec.containers[::2].name}",
    "{.spec.containers[0:3:2].name}",
    "{.spec.containers[-2:].name}",
    "{.spec.containers[0,2].name}",
    "{.spec.containers[0, 2].name}",
    "{.spec.containers[2:2].name}",
    "{.spec.containers[*]['name','image']}",
    "{.spec.containers[*].ports[*].containerPort}",
    "{.spec.containers[*].ports}",
    "{.spec.ports[*].port}",
    "{.spec.ports[*].targetPort}",
    "{.spec.ports[?(@.port==443)].name}",
    "{.spec.ports[?(@.port!=443)].name}",
    "{.spec.ports[?(@.port<443)].name}",
    "{.spec.ports[?(@.port>80)].name}",
    "{.spec.ports[?(@.port<=443)].name}",
    "{.spec.ports[?(@.port>=443)].name}",
    '{.spec.ports[?(@.name=="http")].port}',
    "{.spec.ports[?(@.name=='tls')].port}",
    "{.spec.containers[?(@.ports)].name}",
    "{.spec.containers[?(@.env)].env[0].value}",
    '{.spec.containers[?(@.name=="sidecar")].image}',
    '{.spec.containers[?(@.name!="sidecar")].image}',
    '{.status.conditions[?(@.type=="Ready")].status}',
    '{.status.conditions[?(@.status=="True")].type}',
    "{.spec.containers[*].ports[?(@.containerPort>9000)].containerPort}",
    "{range .spec.containers[*]}{.name}{'\\t'}{.image}{'\\n'}{end}",
    "{range .spec.containers[*]}[{.name}]{end}",
    "{range .spec.containers[*]}{.name}{range .ports[*]}:{.containerPort}{end};{end}",
    "{range .spec.ports[*]}{.name}={.port} {end}",
    "{range .status.conditions[*]}{.type}{\"=\"}{.status}{\"\\n\"}{end}",
    "{range .spec.nothing[*]}x{end}done",
    "{range .spec.containers[*]}{end}",
    "name: {.metadata.name}, kind: {.kind}",
    "plain text only",
    "{.metadata.labels.app\\.kubernetes\\.io/name}",
    "{.metadata.labels['app\\.kubernetes\\.io/name']}",
    "{.metadata.annotations.note}",
    "{.metadata.annotations}",
    "{.spec.replicas}",
    "{.spec.minReadySeconds}",
    "{.spec.terminationGracePeriodSeconds}",
    "{.spec.priority}",
    "{.spec.hostNetwork}",
    "{.spec.weights}",
    "{.spec.weights[*]}",
    "{.spec.weights[2]}",
    "{.spec.containers[0].args}",
    "{.spec.containers[0].args[*]}",
    "{.spec.containers[0].resources.limits.memory}",
    "{.spec.template.spec.containers[0].ports[0].containerPort}",
    "{.spec.template.spec.containers[*].image}",
    "{.spec.selector.matchLabels.app}",
    "{.spec.selector}",
    "{.nope}",
    "{.metadata.nope}",
    "{.spec.containers[*].nope}",
    "{.metadata.name}{.nope}{.kind}",
    "{..image}",
    "{..containerPort}",
    "{..port}",
    "{..phase}",
    "{.spec..name}",
    "{.spec.containers..image}",
    "{.spec.containers[*].ports..containerPort}",
    "{.spec.selector.*}",
    "{.metadata.name.*}",
    "{.spec.containers[*].name}{\"\\n\"}{.kind}",
    "{ .metadata.name }",
    "{.metadata.name}{.metadata.name}",
    "{['kind']}",
    "{.metadata['name']}",
    "{.spec.containers[0]['name']}",
    "{true}",
    "{false}",
    "{5}",
    "{-3}",
    "{2.5}",
    "{'x'}{\"y\"}",
    "{\"\\u00e9\\x41\"}",
    "{.spec.ports[?(@.targetPort==8080)].name}",
    "{.status.conditions[?(@.type=='Ready')]}",
    "{.spec.containers[?(@.name=='app')].ports[?(@.name=='metrics')].containerPort}",
    "{range .spec.containers[*]}{.ports[0].containerPort}{end}",
    "{.spec.containers[*]['name']}",
    "{.spec.containers[0,1]['name']}",
    "a{.metadata.name}b}c",
]

UNORDERED = [
    "{.metadata.labels.*}",
    "{.metadata.*}",
    "{..name}",
    "{.spec.*}",
    "{.spec.containers[0].*}",
    "{.spec.containers[0].ports[0].*}",  # a port has two keys: Go's map order
]

# Templates whose failures are compared on the Pod alone (exit code + stderr).
ERRORS = [
    "{.metadata.name",
    "{.metadata.name}{",
    "{.spec.containers[0}",
    "{.spec.containers[x]}",
    "{.spec.containers[1:x]}",
    "{.a.b,}",
    "{.a b}",
    "{...a}",
    "{.spec.containers[?(@.name=='app']}",
    "{.spec.containers[?(@.name=='app)]}",
    "{'unterminated}",
    "{1.2.3}",
    "{.metadata.name|upper}",
    "{#}",
    "{end}",
    "{foo}",
    "{range .spec.containers[*]}{.name}",
    "{.spec.containers[5].name}",
    "{.spec.containers[-5].name}",
    "{.spec.containers[2:1].name}",
    "{.spec.containers[0:2:0].name}",
    "{.metadata.name[0]}",
    "{.metadata[0]}",
    "{.metadata[?(@.x)]}",
    "{.spec.ports[?(@.port=='80')].name}",
    "{.spec.ports[?(@.port==80.0)].name}",
    "{.spec.containers[?(@.ports==1)].name}",
    "{.spec.containers[?(@.name=app)].name}",
    "{.spec.containers[?(@.name<=>'a')].name}",
    "{.spec.containers[?(@.ports[*].containerPort==8080)].name}",
    "{.spec.hostNetwork[?(@.x)]}",
    '{"a\\qb"}',
    "{.spec.containers[0].name}{end}",
]

# Templates run with --allow-missing-template-keys=false over all objects.
STRICT = [
    "{.metadata.name}",
    "{.nope}",
    "{.spec.containers[*].nope}",
    "{.spec.containers[*].env[0].value}",
    "{.spec.containers[?(@.env)].name}",
    "{.spec.containers[?(@.env[0].name=='LEVEL')].name}",
    "{range .spec.nothing[*]}{.x}{end}",
    "{range .spec.containers[*]}{.name}{end}",
]


def _kubectl(path, template, strict=False):
    args = [KUBECTL, "patch", "--local", "-f", str(path), "-p", "{}", "--type", "merge", "-o", "jsonpath=" + template]
    if strict:
        args.append("--allow-missing-template-keys=false")
    env = dict(os.environ, KUBECONFIG="/dev/null")
    return subprocess.run(args, capture_output=True, env=env, timeout=60)


def _write_list(tmp_path, name, objects):
    path = tmp_path / name
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("jsonpath")
    all_path = _write_list(tmp, "all.json", OBJECTS)
    pod_path = tmp / "pod.json"
    pod_path.write_text(json.dumps(POD))
    seen = _kubectl(all_path, "{range .items[*]}x{end}")
    assert seen.returncode == 0, seen.stderr
    # kubectl's own view of each object (after its decode / patch round trip).
    printed = subprocess.run(
        [KUBECTL, "patch", "--local", "-f", str(all_path), "-p", "{}", "--type", "merge", "-o", "json"],
        capture_output=True, env=dict(os.environ, KUBECONFIG="/dev/null"), check=True, timeout=60,
    ).stdout.decode()
    objects = _split_json_stream(printed)
    assert len(objects) == len(OBJECTS)
    singles = []
    for index, obj in enumerate(OBJECTS):
        single = tmp / f"object{index}.json"
        single.write_text(json.dumps(obj))
        singles.append(single)
    return {"all": all_path, "pod": pod_path, "objects": objects, "singles": singles}


def _split_json_stream(text):
    decoder = json.JSONDecoder()
    objects, index = [], 0
    while index < len(text):
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            break
        obj, index = decoder.raw_decode(text, index)
        objects.append(obj)
    return objects


def _ours(template, objects, allow_missing_keys=True):
    out = []
    for obj in objects:
        try:
            out.append(jsonpath.render(template, obj, allow_missing_keys=allow_missing_keys))
        except jsonpath.JSONPathError as err:
            return 1, "".join(out), err.stderr()
    return 0, "".join(out), ""


@pytest.mark.parametrize("template", TEMPLATES)
def test_template_matches_kubectl(corpus, template):
    result = _kubectl(corpus["all"], template)
    code, out, err = _ours(template, corpus["objects"])
    assert (code, err) == (result.returncode, result.stderr.decode())
    assert out == result.stdout.decode()


@pytest.mark.parametrize("template", UNORDERED)
@pytest.mark.parametrize("index", range(len(OBJECTS)))
def test_unordered_template_matches_kubectl(corpus, template, index):
    result = _kubectl(corpus["singles"][index], template)
    assert result.returncode == 0, result.stderr
    code, out, _ = _ours(template, corpus["objects"][index : index + 1])
    assert code == 0
    assert sorted(out.split(" ")) == sorted(result.stdout.decode().split(" "))


@pytest.mark.parametrize("template", ERRORS)
def test_error_matches_kubectl(corpus, template):
    result = _kubectl(corpus["pod"], template)
    code, out, err = _ours(template, corpus["objects"][1:2])
    assert result.returncode != 0 or code == 0, "kubectl accepted it"
    assert (code, out, err) == (result.returncode, result.stdout.decode(), result.stderr.decode())


@pytest.mark.parametrize("template", STRICT)
@pytest.mark.parametrize("index", range(len(OBJECTS)))
def test_missing_keys_not_allowed(corpus, template, index):
    # One object per run: with several, kubectl patch aggregates the errors differently.
    result = _kubectl(corpus["singles"][index], template, strict=True)
    code, out, err = _ours(template, corpus["objects"][index : index + 1], allow_missing_keys=False)
    assert (code, err) == (result.returncode, result.stderr.decode())
    assert out == result.stdout.decode()
